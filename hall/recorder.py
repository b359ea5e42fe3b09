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
another body (the clock re-published the game: a referee's void or resume
at the clock, or someone with the account's password) adds a line, but the
game's FIRST line is its result until the director takes another one with
`hall accept` (a line of corrections.jsonl, written on the hall computer: a
distinct act of the person who runs the hall, never a message on the air);
read_records() gives the counted lines (the first, then each accepted one),
and each re-published line not accepted is one warning.  A torn last line
(the hall computer lost power mid-append, before the fsync: that result was
never confirmed, so its clock still has it and sends it again) is skipped by
readers with one warning, and the recorder starts a new line after it.  A
write that fails (a full disk, a read-only folder) is cut back to the file's
old end, the result is NOT confirmed (its clock keeps it and sends it
again), the recorder says so on stderr and on the alarm topic, and retries
every RETRY_S until the write succeeds.

WHOSE CLOCK (owners.jsonl, issue 29): a clock id belongs to one clock
account.  `make deploy-tables` writes a line {"clock", "account", "how":
"deploy"} for each clock it flashes (the board's own id); otherwise the
first account the recorder sees with a clock id owns it ("how": "first").
A result or state whose body names a clock that belongs to another account
is refused with one warning line: no account can record another clock's
game.

THE CONFIRMATION: after the fsync the recorder publishes the result's body,
byte for byte as received, QoS 0, on scrabble/<event>/confirm/<account>.
Only the recorder's account may write there and only that clock's account
may read it (the ACL, hall/broker.py).  The clock keeps each result in its
flash queue (net.out) until that echo arrives, and sends it again on every
connect and every net.RESEND_MS while unconfirmed; the recorder confirms
every copy it gets, new or not.  So a result is always in the recorder's
fsynced file or on the clock's flash, whatever the broker or the recorder
lose (tests/test_hall_durable.py kills both at random moments).

A message that is not a valid result for its topic is one warning line on
stderr and is neither stored nor confirmed.

THE ALARM: scrabble/<event>/alarm, retained, written by the recorder only:
{"writing": null or "why the results cannot be stored", "waiting": n,
"events": [last ALARM_EVENTS warnings]}; the director's page shows it.

    python -m hall.recorder FOLDER PORT EVENT
(Hall.start() runs it; the account's password is read from FOLDER, never
from the command line.)
"""
import json
import os
import secrets
import sys
import time
import traceback

import hallproto as hp

from hall import durable, filing, tls
from hall import tournament as T
from hall.files import (  # noqa: F401  (read_records, parse_topic: the recorder's file)
    RESULTS, CORRECTIONS, INT_MAX, utc_now, num, is_clock_id, read_lines, parse_topic,
    clip, read_records, body_id, service_passwords)

OWNERS = "owners.jsonl"
ACCOUNT = "hall/recorder"
ALARM_TOPIC = hp.hall_topic("%s", "alarm")
OWNER_TOPIC = hp.hall_topic("%s", "owner", "%s")   # (event, clock id): its account, retained
ALARM_EVENTS = 20        # warnings kept on the alarm topic
RETRY_S = 1.0            # a failed write is tried again this often
REMIND_S = 60.0          # ... and said again on stderr this often
MAX_REMEMBERED = 10000   # refusals remembered (said once each), then forgotten
confirm_topic = hp.confirm_topic


def say(text):
    """One line on the recorder's stderr (the hall's terminal).  A stderr
    that cannot take it (a log file on the full disk it reports, a closed
    terminal) loses the line, never the recorder: the alarm topic says it
    too (issue 35)."""
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def subscriptions(event):
    """The topic filters the recorder reads (its ACL's read lines too): the
    results and logs, the states and heartbeats (a game's round from its
    first press, whose clock), the round's table messages (an earlier
    recorder's to replace)."""
    return [hp.topic(event, "+", "result", "+", "+"), hp.topic(event, "+", "log", "+", "+"),
            hp.topic(event, "+", "state", "+"), hp.topic(event, "+", "heartbeat", "+"),
            hp.hall_topic(event, "round", "+")]


def parse_message(event, topic, payload):
    """(table, game, account, body) of a result message, or a reason (str)."""
    m = hp.parse(event, topic, payload)
    if m.kind == "refused":
        return m.why
    if m.kind != "result":
        return "not a result topic of event %r" % event
    return m.table, m.game, m.account, m.value


def _append_line(fd, data):
    """Append data (one or more whole lines) and fsync; if anything fails
    (ENOSPC, EIO, EROFS) the file is cut back to its old end, so no half
    line stays behind, and the error is raised."""
    size = os.fstat(fd).st_size
    try:
        durable.write_all(fd, data)
    except OSError:
        try:
            os.ftruncate(fd, size)
        except OSError:
            pass
        raise


def _open_append(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    if os.fstat(fd).st_size and durable.torn(path, fd):
        try:                      # a torn last line: start a new one
            _append_line(fd, b"\n")
        except OSError:
            os.close(fd)
            raise
    return fd


class Journal:
    """results.jsonl, appended durably; knows every body stored per topic."""

    def __init__(self, folder):
        self.folder = folder
        self.path = os.path.join(folder, RESULTS)
        self.bodies = {}          # topic -> [body, ...] stored
        self.last = {}            # topic -> its last body stored
        self.seen = {}            # topic -> when its last body was stored
        try:
            for r in read_records(folder, say):
                self.bodies.setdefault(r["topic"], []).append(r["result"])
                self.last[r["topic"]] = r["result"]
                self.seen[r["topic"]] = r["seen"]
        except FileNotFoundError:
            pass
        self.fd = None
        try:
            self._open()
        except OSError:
            pass          # (a full disk, a read-only folder: the first add() says so)

    def _open(self):
        """The file, opened for appending (created 0600, its name fsynced)."""
        if self.fd is None:
            new = not os.path.exists(self.path)
            fd = _open_append(self.path)
            if new:
                os.fsync(fd)
                dfd = os.open(self.folder, os.O_RDONLY)
                try:
                    os.fsync(dfd)            # the new file's name is on disk too
                finally:
                    os.close(dfd)
            self.fd = fd
        return self.fd

    def has(self, topic, body):
        return body in self.bodies.get(topic, ())

    def add(self, topic, table, game, account, body):
        """True if stored now, False if it was already there.  Returns only
        once the line is on disk; raises OSError (nothing stored, the file
        as it was) if it cannot be written."""
        if self.has(topic, body):
            return False
        seen = utc_now()
        line = json.dumps({"topic": topic, "account": account, "table": table,
                           "game": game, "seen": seen, "result": body},
                          sort_keys=True, separators=(",", ":")) + "\n"
        _append_line(self._open(), line.encode())
        self.bodies.setdefault(topic, []).append(body)
        self.last[topic] = body
        self.seen[topic] = seen
        return True

    def close(self):
        if self.fd is not None:
            os.close(self.fd)


# -- the director's corrections (issue 29) --------------------------------------------------
def accept(folder, table, account, game, first=False, out=sys.stdout):
    """`hall accept`: the game's last stored body (or its first) counts from
    now on: a line of corrections.jsonl, with who and when."""
    import getpass
    topic = None
    recs = [r for r in read_records(folder, lambda m: None)
            if (r["table"], r["account"], r["game"]) == (table, str(account), game)]
    if not recs:
        raise ValueError("no result of table %d account %s game %d in %s"
                         % (table, account, game, RESULTS))
    topic = recs[0]["topic"]
    if len({body_id(r["result"]) for r in recs}) < 2:
        raise ValueError("table %d account %s game %d has one result only: nothing to "
                         "choose" % (table, account, game))
    r = recs[0] if first else recs[-1]
    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = str(os.getuid())
    fd = _open_append(os.path.join(folder, CORRECTIONS))
    try:
        _append_line(fd, (json.dumps({"topic": topic, "result": body_id(r["result"]),
                                      "stored": r["seen"], "accepted": utc_now(), "by": who},
                                     sort_keys=True) + "\n").encode())
    finally:
        os.close(fd)
    side = lambda s: r["result"][s]   # noqa: E731
    print("table %d account %s game %d: the result stored at %s counts from now on "
          "(left %d ms, penalty %d; right %d ms, penalty %d)"
          % (table, account, game, r["seen"], side("left")["remaining_ms"],
             side("left")["penalty"], side("right")["remaining_ms"], side("right")["penalty"]),
          file=out)
    return 0


# -- whose clock is it (issue 29) ------------------------------------------------------
def _check_owner(obj):
    if not isinstance(obj, dict) or not is_clock_id(obj.get("clock")) \
            or not isinstance(obj.get("account"), str) \
            or num(obj["account"], 1, INT_MAX) is None \
            or obj.get("how") not in ("deploy", "first"):
        return "not an owner line"
    return None


def read_owners(folder, warn=None):
    """{clock id: account} from owners.jsonl: a deploy line wins over a
    first-seen line, the last deploy line over earlier ones, the first
    first-seen line over later ones."""
    out = {}
    for obj in read_lines(os.path.join(folder, OWNERS), _check_owner,
                      warn or (lambda m: print(m, file=sys.stderr))):
        if obj["how"] == "deploy" or obj["clock"] not in out:
            out[obj["clock"]] = obj["account"]
    return out


def add_owner(folder, clock, account, how="deploy"):
    """A line of owners.jsonl (make deploy-tables: this board is account n's)."""
    fd = _open_append(os.path.join(folder, OWNERS))
    try:
        _append_line(fd, (json.dumps({"clock": clock, "account": str(account), "how": how,
                                      "seen": utc_now()}, sort_keys=True) + "\n").encode())
    finally:
        os.close(fd)


class Owners:
    """The recorder's view of owners.jsonl, read again when the file changes
    (a clock deployed while the hall runs)."""

    def __init__(self, folder):
        self.folder = folder
        self.path = os.path.join(folder, OWNERS)
        self.stamp = None
        self.map = {}
        self.added = 0          # lines written (first sight of a clock)
        self.refresh()

    def refresh(self):
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp != self.stamp:
            self.stamp = stamp
            self.map = read_owners(self.folder, lambda m: None)

    def check(self, account, clock):
        """None if `clock` may publish under `account` (it is that
        account's, or nobody's yet: then it is now, on disk), else why not.
        Raises OSError if the new owner line cannot be written."""
        self.refresh()
        owner = self.map.get(clock)
        if owner is None:
            add_owner(self.folder, clock, account, "first")
            self.added += 1
            self.refresh()
            self.map[clock] = str(account)
            return None
        if owner != str(account):
            return "clock %s belongs to account %s, not to account %s" % (clock, owner, account)
        return None


# -- what the director is shown -----------------------------------------------------------
class Alarm:
    """The recorder's trouble, on stderr and retained on the alarm topic (a
    path that needs no disk: the broker keeps it in memory, issue 35)."""

    def __init__(self):
        self.writing = None       # why writing fails, or None
        self.since = None
        self.said = 0.0
        self.waiting = 0
        self.events = []
        self.refused = 0          # messages the protocol refused (issue 35), this run
        self.last = None          # ... the last one's topic and reason
        self.dirty = True

    def event(self, text):
        say("recorder: " + text)
        self.events = (self.events + ["%s %s" % (utc_now(), text)])[-ALARM_EVENTS:]
        self.dirty = True

    def refuse(self, text):
        """A message dropped: one line, counted, the last reason kept."""
        self.refused += 1
        self.last = text
        self.event(text)

    def failing(self, why, waiting):
        now = time.monotonic()
        if self.writing is None or now - self.said >= REMIND_S or waiting != self.waiting:
            if self.writing is None or now - self.said >= REMIND_S:
                say("recorder: ALARM: cannot store results (%s): %d result%s "
                    "unconfirmed on the clocks; trying again every %g s"
                    % (why, waiting, " waits" if waiting == 1 else "s wait", RETRY_S))
                self.said = now
            self.dirty = True
        if self.writing is None:
            self.since = utc_now()
        self.writing, self.waiting = why, waiting

    def ok(self, stored):
        if self.writing is not None:
            say("recorder: storing again since %s: %d waiting result%s stored and "
                "confirmed" % (utc_now(), stored, "" if stored == 1 else "s"))
            self.writing = None
            self.waiting = 0
            self.dirty = True

    def payload(self):
        return json.dumps({"writing": None if self.writing is None else
                           "%s (since %s)" % (self.writing, self.since),
                           "waiting": self.waiting, "events": self.events,
                           "refused": self.refused, "last": self.last},
                          separators=(",", ":")).encode()


class Recorder:
    """What the recorder does with each message: parsed once by the hall's
    protocol (firmware/hallproto.py), then by its kind.  One thread (run()'s),
    so a failed write is simply kept in `waiting` and tried again."""

    def __init__(self, folder, event, publish):
        self.folder = folder
        self.event = event
        self.publish = publish             # publish(topic, payload, qos, retain)
        self.journal = Journal(folder)
        # issue 21: each game's round from its first press (games.jsonl)
        self.starts = T.Starts(folder, say)
        self.owners = Owners(folder)
        self.alarm = Alarm()
        # the round with its seating, retained for the pages (issue 21)
        self.news = T.RoundNews(folder, event)
        self.waiting = {}                  # (topic, payload) -> parsed, unconfirmed
        self.retry_at = 0.0
        self.refused = set()   # (account, clock) of states, (topic, payload) of results: warned
        self.owners_sent = {}  # clock -> account as last published on OWNER_TOPIC
        self.poke = False      # a game began (a start line): its table's message now

    def message(self, topic, payload, retained=False):
        """One message as the broker delivered it.  Never raises (issue 35:
        no message stops the recorder): what the protocol refuses, and
        anything this code did not foresee, is one warning and counted."""
        try:
            m = hp.parse(self.event, topic, payload)
            if m.kind == "refused":
                self.alarm.refuse("refused %s: %s" % (clip(topic), m.why))
            elif m.kind == "result":
                self.result(topic, payload, m)
            elif m.kind in ("state", "heartbeat"):
                self.state(topic, m)
            elif m.kind == "log":
                self.log(topic, payload, m)
            elif m.kind == "round" and m.table is not None:
                # a table's retained round message, maybe an earlier recorder's
                if retained and self.news.found(topic, payload):
                    self.poke = True
        except Exception as e:   # noqa: BLE001  (a bug must not stop every table's results)
            say(traceback.format_exc().rstrip())
            self.alarm.refuse("refused %s: the recorder could not handle it (%s: %s)"
                              % (clip(topic), type(e).__name__, clip(str(e), 60)))
        if len(self.refused) > MAX_REMEMBERED:
            self.refused.clear()       # (a flood of refusals: said again, once each)

    def _refuse_once(self, key, text):
        if key not in self.refused:
            self.refused.add(key)
            self.alarm.refuse(text)

    def state(self, topic, m):
        """A clock's state or heartbeat: its clock id registered to its
        account (a clock switched on says who it is), a game's start line."""
        added = self.owners.added
        body = m.value
        try:
            why = self.owners.check(m.account, m.clock)
            line = self.starts.state(m.account, m.table, body) \
                if why is None and body["game"] > 0 else None
        except OSError as e:       # (it comes again with the next heartbeat)
            self._failing(e)
            return
        if line is not None:
            self.poke = True
        if (line is not None or self.owners.added != added) and not self.waiting:
            self.alarm.ok(0)       # (a line was written: the folder takes writes again)
        if why is not None:
            self._refuse_once((m.account, m.clock),
                              "refused the states of %s: %s" % (clip(topic), why))

    def result(self, topic, payload, m):
        key = (topic, bytes(payload))
        if key not in self.waiting:
            # (decided now: a failed try may have closed its game already)
            body = m.value
            k = (body["clock"], body["game"])
            again = k in self.starts.ended and k not in self.starts.open \
                and not self.journal.has(topic, body)
            self.waiting[key] = (m.table, m.game, m.account, body, again, k in self.starts.open)
        self.store()

    def log(self, topic, payload, m):
        """A clock's game log (retained, at game over): filed by round and
        table (hall/filing.py) under its clock's name, with its
        timelines for the page.  Its identity is its account's (issue 35):
        the clock is the one of the account's own result for that game (the
        id its states and the CSV have; a simulated clock's log names its
        board's id), else the log's `# clock` line's, and only a clock of the
        publishing account names a file: no account replaces, extends or
        takes another clock's log.  A log the replay cannot read is filed all
        the same, with one line."""
        res = self.journal.last.get(hp.topic(self.event, m.table, "result", m.account, m.game))
        clock = res["clock"] if isinstance(res, dict) else m.clock
        try:
            why = self.owners.check(m.account, clock)
            if why is not None:
                return self._refuse_once((topic, m.clock), "refused the log %s: %s"
                                         % (clip(topic), why))
            rnd = self.starts.round_of(clock, m.game)
            if filing.file_log(self.folder, rnd, m.table, m.game, bytes(payload), clock) is None:
                return                      # the same log again (retained): filed already
            why = filing.write_timelines(os.path.join(self.folder, "www"), m.table,
                                         m.account, m.game, bytes(payload))
        except OSError as e:      # (the broker keeps it retained: filed at the next start)
            self.alarm.event("cannot file the log of table %d, game %d: %s"
                             % (m.table, m.game, e.strerror or e))
            return
        if why:
            say("recorder: table %d, game %d: %s (filed as it came)" % (m.table, m.game, why))

    def store(self):
        """Store and confirm every waiting result; on a failed write the
        rest waits (unconfirmed) for the next try."""
        stored = 0
        for key in list(self.waiting):
            topic, payload = key
            table, game, account, body, again, was_open = self.waiting[key]
            try:
                why = self.owners.check(account, body["clock"])
                if why is not None:
                    del self.waiting[key]
                    # (once: its clock re-sends it)
                    self._refuse_once(key, "refused %s: %s" % (clip(topic), why))
                    continue
                if self.starts.result(account, table, body) is not None:  # (start line first)
                    self.poke = True
                new = self.journal.add(topic, table, game, account, body)
            except OSError as e:
                self._failing(e)
                return stored
            del self.waiting[key]
            stored += 1
            if not new and was_open:
                # issue 27: a game the hall saw begin again whose result is a copy
                # of one already stored (a clock replaying a game, its logs wiped)
                say("recorder: table %d, clock %s, game %d: its result is the same as the "
                    "one stored at %s (same game number and times): not stored again"
                    % (table, body["clock"], game, self.journal.seen.get(topic, "?")))
            if new and again:
                self.alarm.event(
                    "table %d account %s game %d: a different result for a game already "
                    "recorded (a referee's void or resume at the clock, or a forgery): "
                    "stored, NOT counted; hall accept --table %d --account %s --game %d "
                    "takes it" % (table, account, game, table, account, game))
            self.publish(confirm_topic(self.event, account), payload, 0, False)
        self.alarm.ok(stored)
        return stored

    def _failing(self, e):
        self.alarm.failing("%s: %s" % (RESULTS, e.strerror or e), len(self.waiting))
        self.retry_at = time.monotonic() + RETRY_S

    def tick(self):
        """The main loop's turn: retry waiting results; the alarm and the
        owners if they changed."""
        if self.waiting and time.monotonic() >= self.retry_at:
            self.store()
        if self.alarm.dirty:
            self.alarm.dirty = False
            self.publish(ALARM_TOPIC % self.event, self.alarm.payload(), 1, True)
        self.publish_owners()

    def publish_owners(self):
        """Each clock's account as owners.jsonl says (issue 29), retained on
        scrabble/<event>/owner/<clock>, when it changed: the pages refuse a
        clock's messages under another account by the recorder's own rule
        (hall/page/model.js refused()).  A message per clock, so no
        message grows with the tournament; a clock gone from the file is
        emptied."""
        self.owners.refresh()      # (a clock deployed while the hall runs)
        now = self.owners.map
        if now == self.owners_sent:
            return
        for clock, account in now.items():
            if self.owners_sent.get(clock) != account:
                self.publish(OWNER_TOPIC % (self.event, clock), account.encode(), 1, True)
        for clock in self.owners_sent:
            if clock not in now:
                self.publish(OWNER_TOPIC % (self.event, clock), b"", 1, True)
        self.owners_sent = dict(now)

    def connected(self):
        """A (new) connection to the broker: the retained messages the
        recorder keeps are published again (a broker restarted empty)."""
        self.poke = True
        self.alarm.dirty = True
        self.owners_sent = {}
        self.news.again()


def run(folder, port, event, host="127.0.0.1"):
    """Connect, record, confirm, until killed.  One thread: the MQTT client
    is driven here (loop()), so an error outside the handling of one
    message ends the process with its traceback and the hall starts it
    again (never a dead reader thread in a living process)."""
    import paho.mqtt.client as mqtt
    password = service_passwords(folder)[ACCOUNT]
    # A client id nobody can guess (no one can take the recorder's session over).
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rec-" + secrets.token_hex(8),
                    clean_session=True)
    c.username_pw_set(ACCOUNT, password)
    tls.paho_tls(c, folder)    # TLS, trusting only the hall's CA
    rec = Recorder(folder, event, lambda t, p, q, r: c.publish(t, p, qos=q, retain=r))
    subs = subscriptions(event)

    def on_connect(c, u, flags, rc, props=None):
        if rc == 0:
            # (the results and logs at QoS 1; the round's retained table
            # messages: those of an earlier recorder process that are no
            # longer the round's are removed)
            c.subscribe([(s, 1 if i < 2 else 0) for i, s in enumerate(subs)])
            rec.connected()       # publish the round again on each connection
        else:   # (no result is confirmed meanwhile: the clocks keep theirs)
            say("recorder: the broker refused the recorder's account: %s" % rc)

    def on_message(c, u, m):
        try:
            topic = m.topic
        except UnicodeDecodeError:            # (the broker checks topics are UTF-8)
            topic = m._topic.decode("utf-8", "replace")
        rec.message(topic, m.payload, m.retain)

    c.on_connect = on_connect
    c.on_message = on_message
    while True:
        try:
            c.connect(host, port, keepalive=10)
            break
        except OSError:
            time.sleep(0.2)
    print("recorder: ready", flush=True)
    next_news = 0.0
    while True:
        rc = c.loop(timeout=0.1)
        if rc != mqtt.MQTT_ERR_SUCCESS:
            time.sleep(0.2)
            try:
                c.reconnect()
            except OSError:
                pass
            continue
        rec.tick()
        # `hall round` / `hall pairings` change the files; a game began
        if rec.poke or time.monotonic() >= next_news:
            rec.poke = False
            next_news = time.monotonic() + 0.5
            for topic, data in rec.news.changed():
                c.publish(topic, data, qos=1, retain=True)


if __name__ == "__main__":
    import host_sim  # noqa: F401
    try:
        run(sys.argv[1], int(sys.argv[2]), sys.argv[3])
    except KeyboardInterrupt:
        pass
