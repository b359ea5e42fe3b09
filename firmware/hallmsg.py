# What the clock publishes to the tournament hall (net.py says when): its
# topics under scrabble/<event>/<table>/, the state's JSON, the game's
# result and log once the game is over, and the MQTT packets for them.
# The clock's state comes through the state source (source.py); the queue
# the result and log go into is outbox.Outbox.  The topics, the limits and
# the fields are the hall's protocol, hallproto.py (the hall reads with it).
import json

import clockcore as cc
import hallproto as hp
import mqtt

KEEPALIVE_S = 20        # the broker sends the last will 30 s after a clock goes silent
LOG_MAX = hp.LOG_CUT    # a longer game log is cut (the clock keeps it whole)


class Messages:
    """cfg: net.json's settings (netcfg.py); src: the state source;
    clock_id: the id the state publishes; now: the tick it starts at."""

    def __init__(self, cfg, src, clock_id, now):
        self.src = src
        self.clock_id = clock_id
        self.home = cfg["table"]  # net.json's table: the menu's wins if set
        self.user = cfg.get("user") or str(cfg["table"])  # the clock's account
        self.event_name = cfg["event"]
        self.confirm = hp.confirm_topic(cfg["event"], self.user)
        self.confirm_b = self.confirm.encode()
        self.sub_packet = mqtt.subscribe_packet(self.confirm)
        self.table = self._menu_table()
        self.prefix = self._prefix(self.table)
        src.tabled(self.table)    # (the setup menu's "Hall" item shows it)
        self.over_seen = False
        self.end_t = now          # tick of the game's end (state over)
        self.final_due = False    # the result and log wait to be queued

    # -- the table and the topics ------------------------------------------------
    def _menu_table(self):
        t = self.src.table()
        return t if t else self.home

    def _prefix(self, table):
        return hp.prefix(self.event_name, table)

    def topic(self, kind, prefix=None):
        """scrabble/<event>/<table>/<kind>/<user> (hallproto.topic's grammar, on the
        table's prefix: a kind of hallproto.CLOCK_KINDS)."""
        return (prefix or self.prefix) + kind + "/" + self.user

    def retable(self, box):
        """The setup menu's table, if it changed: taken, and the old table's
        retained state and status emptied (queued in box).  False if it
        did not change."""
        t = self._menu_table()
        if t == self.table:
            return False
        old = self.prefix
        self.table = t
        self.prefix = self._prefix(t)
        self.src.tabled(t)
        box.add(self.topic("state", old), b"", "C " + self.topic("state", old), True)
        box.add(self.topic("status", old), b"", "C " + self.topic("status", old), True)
        return True

    # -- the game's end -----------------------------------------------------------
    def event(self, code, t):
        """A core event: at game over (or a referee's void, which changes
        the result) the result and log become due."""
        if self.src.state() != cc.OVER:
            self.over_seen = False
        elif not self.over_seen or code == cc.EV_VOID:
            self.over_seen = True
            self.end_t = t
            # The result and its log go out once the log is on flash: with
            # the running-clock journal (session.py) the game's lines reach
            # the log file when the session folds it, in the steps after the
            # game ended (a slice a step, in over; net.poll() runs after each).
            self.final_due = True

    def final(self, box):
        """The game's result and its log queued in box once the log is on
        flash (a game log only by its number: its file is read as it goes
        out); True if they were (then the caller keeps the queue on flash
        and calls kept()).  Twice is once: a message still waiting with the
        same line is not queued again."""
        if not self.final_due or self.src.pending():
            return False
        d = self.fields(self.end_t)
        n = self.src.game()
        topic = hp.topic(self.event_name, self.table, "result", self.user, n)
        text = json.dumps(d)
        box.add(topic, text, "R %s %s" % (topic, text), False, text.encode())
        if n:
            topic = hp.topic(self.event_name, self.table, "log", self.user, n)
            box.add_log(topic, n, "L %s %d" % (topic, n))
        return True

    def kept(self):
        """The result and log are queued and on flash: no longer due.  (Only
        then: if queueing or keeping them failed, a MemoryError on a
        fragmented heap, the next poll tries again.)"""
        self.final_due = False

    # -- the packets ----------------------------------------------------------------
    def fields(self, now):
        s = self.src
        if s.state() == cc.OVER:
            now = self.end_t  # the game's end, not the time since
        d = s.report(now)
        d["clock"] = self.clock_id
        d["table"] = self.table
        d["game"] = s.game()
        d["lowbat"] = s.low()   # the battery is low (outputs.Battery)
        return d

    def report(self, now, state):
        """The state's JSON on state/ (retained) or heartbeat/: fields() and
        `selftest`, the last self-test's result (selftest.py; null: none
        since power-up, "pass", or "fail" and the failed items)."""
        d = self.fields(now)
        d["selftest"] = self.src.selftest()
        return mqtt.publish_packet(self.topic("state" if state else "heartbeat"),
                                   json.dumps(d), 0, state)

    def online(self):
        return mqtt.publish_packet(self.topic("status"), "online", 0, True)

    def connect(self, client_id, password):
        """The CONNECT, with the last will "offline" on status/."""
        return mqtt.connect_packet(client_id, self.user, password, self.topic("status"),
                                   "offline", KEEPALIVE_S)

    def stream(self, wire, m):
        """Start writing queued message m, game m.log's log, on wire: its
        file streamed (cut at LOG_MAX, at a character's start); False if it
        cannot be read any more (it was removed)."""
        try:
            f, size = self.src.log_open(m.log)
        except (OSError, ValueError):
            return False
        n = size
        tail = b""
        if size > LOG_MAX:
            n = _cut(f, LOG_MAX)
            tail = ("\n# cut at %d bytes\n" % LOG_MAX).encode()
        wire.stream(m.packet, f, n, tail)
        return True


def _cut(f, at):
    """Where to cut the file f (longer than `at` bytes) at or before `at`
    so that no UTF-8 character is split; f is left at its start."""
    f.seek(at - 3)
    b = f.read(4)
    f.seek(0)
    k = 3
    while k > 0 and b[k] & 0xC0 == 0x80:
        k -= 1
    return at - 3 + k
