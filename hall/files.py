"""The hall folder's records as data: the bottom layer that the recorder
(hall/recorder.py), the tournament (hall/tournament.py) and the
hall (hall/folder.py, hall/commands/) all import, and that imports none of them.

Here: the protocol's rules the readers need (firmware/hallproto.py), the readers
of results.jsonl (which record counts, with the director's corrections.jsonl)
and of any JSON-lines file, and service.json's passwords.  The recorder
writes results.jsonl and corrections.jsonl (its format: hall/recorder.py);
the tournament reads them for its CSV; nothing here writes a file.
"""
import hashlib
import json
import os
import sys
import time

import hallproto as hp

RESULTS = "results.jsonl"
CORRECTIONS = "corrections.jsonl"
INT_MAX = hp.INT_MAX      # the clocks' ints are 31-bit


def utc_now():
    # time.gmtime() alone reads C's time(), the kernel's coarse clock, which
    # lags time.time() by up to a few ms: a result stored right after its
    # game's start line (tournament.utc_now_ms) was dated a second before it
    # and lost its round (issue 27).  One clock for both.
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time()))


# The rules are the hall's protocol (firmware/hallproto.py, issue 35): these
# names are its functions, for the hall's modules that read the files.
num = hp.num
is_clock_id = hp.is_id
check_result = hp.check_result


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
    m = hp.parse_topic(event, topic)
    return (m.table, m.game, m.account) if m.kind == "result" else None


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
