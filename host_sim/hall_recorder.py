"""The hall's recorder (issue 19, docs/hall.md): the one durable copy of every
result, and the confirmation that lets a clock forget it.

THE FILE: <hall folder>/results.jsonl, one JSON object per line, UTF-8:

    {"topic": "scrabble/<event>/<table>/result/<game>/<account>",
     "account": "<account>",  # the clock account that published (the topic's)
     "table": <int>,          # the topic's table (the body must agree)
     "game": <int>,           # the topic's game number (the body must agree)
     "seen": "2026-11-24T18:03:12Z",  # UTC, when the hall stored this line
     "result": {...}}         # the clock's result body (firmware/net.py), parsed

A line is appended, flushed and fsynced BEFORE the clock is told (the file
is created 0600 and its folder fsynced once).  The same result again (a
clock re-sending it after a reconnect) adds nothing.  The same topic with
another body (a referee's void re-publishes the game's result) adds a line:
readers take the last line of each (table, account, game) and the first
line's "seen" (host_sim/hall.py result_rows(), the one place that turns
these lines into CSV rows).  A torn last line (the hall computer lost power
mid-append, before the fsync: that result was never confirmed, so its clock
still has it and sends it again) is skipped by readers with one warning,
and the recorder starts a new line after it.

THE CONFIRMATION: after the fsync the recorder publishes the result's body,
byte for byte as received, QoS 0, on scrabble/<event>/confirm/<account>.
Only the recorder's account may write there and only that clock's account
may read it (the ACL, host_sim/hall.py).  The clock keeps each result in its
flash queue (net.out) until that echo arrives, and sends it again on every
connect and every net.RESEND_MS while unconfirmed; the recorder confirms
every copy it gets, new or not.  So a result is always in the recorder's
fsynced file or on the clock's flash, whatever the broker or the recorder
lose (tests/test_hall_durable.py kills both at random moments).

A message that is not a valid result for its topic is one warning line on
stderr and is neither stored nor confirmed.

    python -m host_sim.hall_recorder FOLDER PORT EVENT
(Hall.start() runs it; the account's password is read from FOLDER, never
from the command line.)
"""
import json
import os
import re
import secrets
import sys
import threading
import time

from host_sim import durable

RESULTS = "results.jsonl"
ACCOUNT = "hall/recorder"
INT_MAX = 2 ** 31 - 1     # the clocks' ints are 31-bit
MAX_CLOCK_ID = 40


def utc_now():
    # time.gmtime() alone reads C's time(), the kernel's coarse clock, which
    # lags time.time() by up to a few ms: a result stored right after its
    # game's start line (tournament.utc_now_ms) was dated a second before it
    # and lost its round (issue 27).  One clock for both.
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time()))


def confirm_topic(event, account):
    return "scrabble/%s/confirm/%s" % (event, account)


def _num(s, lo=1, hi=9999):
    """A canonical decimal number lo..hi (no sign, no leading zero), or None."""
    if not s or not s.isdigit() or (s[0] == "0" and len(s) > 1) or len(s) > 9:
        return None
    n = int(s)
    return n if lo <= n <= hi else None


def parse_topic(event, topic):
    """(table, game, account) of scrabble/<event>/<table>/result/<game>/<account>,
    or None."""
    p = topic.split("/")
    if len(p) != 6 or p[0] != "scrabble" or p[1] != event or p[3] != "result":
        return None
    table, game, account = _num(p[2]), _num(p[4], 1, INT_MAX), p[5]
    if table is None or game is None or _num(account, 1, INT_MAX) is None:
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
    c = body.get("clock")
    if not isinstance(c, str) or not 0 < len(c) <= MAX_CLOCK_ID or not re.match(r"^[\w.-]+$", c):
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


def parse_message(event, topic, payload):
    """(table, game, account, body) of a result message, or a reason (str)."""
    where = parse_topic(event, topic)
    if where is None:
        return "not a result topic of event %r" % event
    try:
        body = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "not JSON"
    why = check_result(body, where[0], where[1])
    return why or where + (body,)


def _clip(text, n=80):
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
        return "not a result topic: %s" % _clip(topic)
    if (r.get("table"), r.get("game"), r.get("account")) != where:
        return "table/game/account disagree with its topic"
    if not isinstance(r.get("seen"), str):
        return "no seen time"
    return check_result(r.get("result"), where[0], where[1])


class Journal:
    """results.jsonl, appended durably; knows the last body per topic."""

    def __init__(self, folder):
        self.folder = folder
        self.path = os.path.join(folder, RESULTS)
        self.last = {}
        self.seen = {}     # topic -> when its last body was stored
        try:
            for r in read_records(folder):
                self.last[r["topic"]] = r["result"]
                self.seen[r["topic"]] = r["seen"]
        except FileNotFoundError:
            pass
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.fd = fd
        if os.fstat(fd).st_size:
            if durable.torn(self.path, fd):   # a torn last line: start a new one
                durable.write_all(fd, b"\n")
        else:
            os.fsync(fd)
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)            # the new file's name is on disk too
            finally:
                os.close(dfd)

    def add(self, topic, table, game, account, body):
        """True if stored now, False if it was already there.  Returns only
        once the line is on disk."""
        if self.last.get(topic) == body:
            return False
        seen = utc_now()
        line = json.dumps({"topic": topic, "account": account, "table": table,
                           "game": game, "seen": seen, "result": body},
                          sort_keys=True, separators=(",", ":")) + "\n"
        durable.write_all(self.fd, line.encode())
        self.last[topic] = body
        self.seen[topic] = seen
        return True

    def close(self):
        os.close(self.fd)


def _file_log(folder, event, starts, topic, payload, clock=None):
    """A clock's game log (retained, at game over): filed by round and table
    (host_sim/hall_logs.py), with its timelines for the page; a log the
    replay cannot read is filed all the same, with one line.  clock: the
    clock id of the game's result (the id its states and the CSV have),
    else the log's `# clock` line's."""
    from host_sim import hall_logs
    p = topic.split("/")
    if len(p) != 6 or p[1] != event or p[3] != "log" or not payload:
        return
    table, game, account = _num(p[2]), _num(p[4], 1, INT_MAX), p[5]
    if table is None or game is None or _num(account, 1, INT_MAX) is None:
        return
    clock = clock or hall_logs.clock_id(payload)
    rnd = starts.round_of(clock, game)
    try:
        path = hall_logs.file_log(folder, rnd, table, game, payload, clock)
        if path is None:
            return                      # the same log again (retained): filed already
        why = hall_logs.write_timelines(os.path.join(folder, "www"), table, account, game,
                                        payload)
    except OSError as e:
        print("recorder: cannot file the log of table %d, game %d: %s"
              % (table, game, e.strerror or e), file=sys.stderr, flush=True)
        return
    if why:
        print("recorder: table %d, game %d: %s (filed as it came)" % (table, game, why),
              file=sys.stderr, flush=True)


def run(folder, port, event, host="127.0.0.1"):
    import paho.mqtt.client as mqtt
    from host_sim import hall as H
    from host_sim import tournament as T
    password = H.service_passwords(folder)[ACCOUNT]
    journal = Journal(folder)
    # issue 21: each game's round from its first press (games.jsonl), and the
    # round with its seating, retained for the pages
    starts = T.Starts(folder)
    news = T.RoundNews(folder, event)
    poke = threading.Event()    # a game began: its table's message now, not in 0.5 s
    # A client id nobody can guess (no one can take the recorder's session over).
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rec-" + secrets.token_hex(8),
                    clean_session=True)
    c.username_pw_set(ACCOUNT, password)
    c.reconnect_delay_set(0.1, 2)
    sub = "scrabble/%s/+/result/+/+" % event
    states = ["scrabble/%s/+/%s/+" % (event, k) for k in ("state", "heartbeat")]
    seats = T.TABLE_TOPIC.replace("%d", "+") % event
    logs = "scrabble/%s/+/log/+/+" % event      # issue 27: every game's log filed

    def on_connect(c, u, flags, rc, props=None):
        if rc == 0:
            # (the round's retained table messages: those of an earlier
            # recorder process that are no longer the round's are removed)
            c.subscribe([(sub, 1), (logs, 1)] + [(s, 0) for s in states + [seats]])
            news.again()         # publish the round again on each connection
            poke.set()
        else:   # (no result is confirmed meanwhile: the clocks keep theirs)
            print("recorder: the broker refused the recorder's account: %s" % rc,
                  file=sys.stderr, flush=True)

    def on_message(c, u, m):
        if "/log/" in m.topic:
            res = journal.last.get(m.topic.replace("/log/", "/result/", 1))
            _file_log(folder, event, starts, m.topic, m.payload,
                      res.get("clock") if isinstance(res, dict) else None)
            return
        if m.topic.startswith(seats[:-1]):
            if m.retain and news.found(m.topic, m.payload):
                poke.set()
            return
        if "/result/" not in m.topic:
            st = T.parse_state(event, m.topic, m.payload)
            if st is not None and starts.state(*st) is not None:
                poke.set()
            return
        got = parse_message(event, m.topic, m.payload)
        if isinstance(got, str):
            print("recorder: skipped %s: %s" % (_clip(m.topic), got), file=sys.stderr, flush=True)
            return
        table, game, account, body = got
        was_open = (body["clock"], body["game"]) in starts.open
        if starts.result(account, table, body) is not None:   # (its start line first)
            poke.set()
        if not journal.add(m.topic, table, game, account, body) and was_open:
            # issue 27: a game the hall saw begin again whose result is a copy
            # of one already stored (a clock replaying a game, its logs wiped)
            print("recorder: table %d, clock %s, game %d: its result is the same as the one "
                  "stored at %s (same game number and times): not stored again"
                  % (table, body["clock"], game, journal.seen.get(m.topic, "?")),
                  file=sys.stderr, flush=True)
        c.publish(confirm_topic(event, account), m.payload, qos=0)

    c.on_connect = on_connect
    c.on_message = on_message
    while True:
        try:
            c.connect(host, port, keepalive=10)
            break
        except OSError:
            time.sleep(0.2)
    print("recorder: ready", flush=True)
    c.loop_start()
    while True:   # `hall round` / `hall pairings` change the files; games begin
        poke.wait(0.5)
        poke.clear()
        if c.is_connected():
            for topic, data in news.changed():
                c.publish(topic, data, qos=1, retain=True)


if __name__ == "__main__":
    import host_sim  # noqa: F401
    try:
        run(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    except KeyboardInterrupt:
        pass
