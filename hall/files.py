"""The hall folder's records as data: the bottom layer that the recorder
(hall/recorder.py), the tournament (hall/tournament.py) and the
hall (hall/folder.py, hall/commands/) all import, and that imports none of them.

Here: the numbers a topic may carry, the result body's check, the readers
of results.jsonl (which record counts, with the director's corrections.jsonl)
and of any JSON-lines file, and service.json's passwords.  The recorder
writes results.jsonl and corrections.jsonl (its format: hall/recorder.py);
the tournament reads them for its CSV; nothing here writes a file.
"""
import hashlib
import json
import os
import re
import sys
import time

RESULTS = "results.jsonl"
CORRECTIONS = "corrections.jsonl"
INT_MAX = 2 ** 31 - 1     # the clocks' ints are 31-bit
MAX_CLOCK_ID = 40


def utc_now():
    # time.gmtime() alone reads C's time(), the kernel's coarse clock, which
    # lags time.time() by up to a few ms: a result stored right after its
    # game's start line (tournament.utc_now_ms) was dated a second before it
    # and lost its round (issue 27).  One clock for both.
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time()))


def num(s, lo=1, hi=9999):
    """A canonical decimal number lo..hi (no sign, no leading zero), or None."""
    if not s or not s.isdigit() or (s[0] == "0" and len(s) > 1) or len(s) > 9:
        return None
    n = int(s)
    return n if lo <= n <= hi else None


def is_clock_id(c):
    return isinstance(c, str) and 0 < len(c) <= MAX_CLOCK_ID and re.match(r"^[\w.-]+$", c)


def load_json(path):
    try:
        with open(path) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


def service_passwords(folder):
    """{account: password} of the hall's own accounts (viewer, recorder)."""
    return {k: v["password"] for k, v in load_json(os.path.join(folder, "service.json")).items()
            if isinstance(v, dict) and "password" in v}


def read_lines(path, check, warn):
    """The valid JSON lines of path (check(obj) -> None or a reason); each
    bad one is one warning.  No file: []."""
    out = []
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return out
    with f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
                why = check(obj)
            except (ValueError, UnicodeDecodeError, RecursionError):
                why = "not JSON (a torn line?)"
            if why:
                warn("%s:%d: skipped: %s" % (os.path.basename(path), n, why))
                continue
            out.append(obj)
    return out


def parse_topic(event, topic):
    """(table, game, account) of scrabble/<event>/<table>/result/<game>/<account>,
    or None."""
    p = topic.split("/")
    if len(p) != 6 or p[0] != "scrabble" or p[1] != event or p[3] != "result":
        return None
    table, game, account = num(p[2]), num(p[4], 1, INT_MAX), p[5]
    if table is None or game is None or num(account, 1, INT_MAX) is None:
        return None
    return table, game, account


def _int(v, lo=-INT_MAX, hi=INT_MAX):
    return type(v) is int and lo <= v <= hi


SIDE = (("remaining_ms", -INT_MAX, INT_MAX), ("overtime_ms", 0, INT_MAX),
        ("penalty", -INT_MAX, INT_MAX))


def check_result(body, table, game):
    """None if `body` (parsed JSON) is a clock's final result for this table
    and game, else a short reason."""
    if not isinstance(body, dict):
        return "not a JSON object"
    if body.get("table") != table or type(body.get("table")) is not int:
        return "its table %r is not the topic's %d" % (body.get("table"), table)
    if body.get("game") != game or type(body.get("game")) is not int:
        return "its game %r is not the topic's %d" % (body.get("game"), game)
    if body.get("over") is not True:
        return "not a finished game"
    if not _int(body.get("t_ms"), 0):
        return "t_ms is not a time"
    for k in ("running", "late"):
        if body.get(k) not in (None, "left", "right") or k not in body:
            return "%s is not a side" % k
    if type(body.get("paused")) is not bool:
        return "paused is not true/false"
    if not _int(body.get("challenge_ms"), 0):
        return "challenge_ms is not a time"
    if not is_clock_id(body.get("clock")):
        return "clock is not a clock id"
    p = body.get("profile")
    if not isinstance(p, str) or len(p) > 40:
        return "profile is not a profile name"
    for s in ("left", "right"):
        side = body.get(s)
        if not isinstance(side, dict):
            return "%s is not an object" % s
        for k, lo, hi in SIDE:
            if not _int(side.get(k), lo, hi):
                return "%s.%s is not a number" % (s, k)
        for k in ("flag", "forfeit"):
            if type(side.get(k)) is not bool:
                return "%s.%s is not true/false" % (s, k)
    return None


def clip(text, n=80):
    text = repr(text)
    return text if len(text) <= n else text[:n] + "..."


def read_records(folder, warn=None):
    """The valid lines of the results file, in order; each bad line is one
    warning (warn(text), default: stderr).  Raises OSError if there is no file."""
    warn = warn or (lambda m: print(m, file=sys.stderr))
    path = os.path.join(folder, RESULTS)
    out = []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            why = None
            try:
                r = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError):
                r, why = None, "not JSON (a torn line?)"
            if why is None:
                why = _check_record(r)
            if why:
                warn("%s:%d: skipped: %s" % (RESULTS, n, why))
                continue
            out.append(r)
    return out


def _check_record(r):
    if not isinstance(r, dict):
        return "not a JSON object"
    topic = r.get("topic")
    if not isinstance(topic, str):
        return "no topic"
    p = topic.split("/")
    where = parse_topic(p[1] if len(p) > 1 else "", topic)
    if where is None:
        return "not a result topic: %s" % clip(topic)
    if (r.get("table"), r.get("game"), r.get("account")) != where:
        return "table/game/account disagree with its topic"
    if not isinstance(r.get("seen"), str):
        return "no seen time"
    return check_result(r.get("result"), where[0], where[1])


def body_id(body):
    """A short fingerprint of a result body (corrections.jsonl names the
    body the director accepted by it)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_correction(obj):
    if not isinstance(obj, dict) or not isinstance(obj.get("topic"), str) \
            or not isinstance(obj.get("result"), str) or not isinstance(obj.get("accepted"), str):
        return "not a correction line"
    return None


def read_accepted(folder, warn=None):
    """{topic: [body_id, ...]} in the order the director accepted them
    (corrections.jsonl, `hall accept`)."""
    out = {}
    for obj in read_lines(os.path.join(folder, CORRECTIONS), _check_correction,
                      warn or (lambda m: print(m, file=sys.stderr))):
        out.setdefault(obj["topic"], []).append(obj["result"])
    return out


def counted(records, accepted, warn=None):
    """The record that counts among one game's records (file order): the
    last one the director accepted, else the first.  Each later body not
    accepted is one warning (a re-publish is never a correction by itself)."""
    first = records[0]
    ids = [body_id(r["result"]) for r in records]
    order = accepted.get(first["topic"], [])
    best, rank = first, -1
    for r, i in zip(records, ids):
        if i in order and order.index(i) >= rank:
            best, rank = r, order.index(i)
    if warn is not None:
        said = {ids[0]}
        for r, i in zip(records[1:], ids[1:]):
            if i not in said and i not in order:
                said.add(i)
                warn("%s: table %d account %s game %d: another result stored at %s is NOT "
                     "counted (a re-publish: a referee's void or resume at the clock, or a "
                     "forgery); hall accept --table %d --account %s --game %d takes it"
                     % (RESULTS, r["table"], r["account"], r["game"], r["seen"], r["table"],
                        r["account"], r["game"]))
    return best
