# What the clock publishes to the tournament hall (net.py says when): its
# topics under scrabble/<event>/<table>/, the state's JSON, the game's
# result and log once the game is over, and the MQTT packets for them.
# The clock's state comes through the state source (source.py); the queue
# the result and log go into is outbox.Outbox.  The topics, the limits and
# the fields are the hall's protocol, hallproto.py (the hall reads with it).
#
# The state and the heartbeat, published at every press and every
# HEARTBEAT_MS of a running game, are written into one buffer made with
# the Messages (jsonout.JSONOut, the PUBLISH framed in front of it): no
# allocation, so no garbage collection in a game (SPEC §6).  The result
# and its log, once a game, are built the ordinary way.
import json

import clockcore as cc
import hallproto as hp
import jsonout
import mqtt
import report

KEEPALIVE_S = 20        # the broker sends the last will 30 s after a clock goes silent
LOG_MAX = hp.LOG_CUT    # a longer game log is cut (the clock keeps it whole)
# The state's PUBLISH: its payload from PAYLOAD_AT (the header and topic in
# front of it: at most 3 + 2 + the topic's bytes, hp.MAX_TOPIC characters
# of ASCII), the buffer PACKET long.  The longest state the protocol allows
# fits (tests/test_jsonout.py); one that would not is built the
# ordinary way.
PAYLOAD_AT = 5 + hp.MAX_TOPIC
PACKET = PAYLOAD_AT + 1024


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
        self.pkt = bytearray(PACKET)
        self.out = jsonout.JSONOut(self.pkt, PAYLOAD_AT)
        self.a = self.b = 0       # the last report's packet: last[a:b]
        self.last = self.pkt
        self._topics()
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

    def _topics(self):
        """The state's and the heartbeat's topics, encoded (the table's)."""
        self.topic_b = (self.topic("heartbeat").encode(), self.topic("state").encode())

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
        self._topics()
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
    def _emit(self, now, o):
        """The state's fields into writer o (report.emit's protocol)."""
        s = self.src
        if s.state() == cc.OVER:
            now = self.end_t  # the game's end, not the time since
        s.emit(now, o)
        o.field("clock", self.clock_id)
        o.field("table", self.table)
        o.field("game", s.game())
        o.field("lowbat", s.low())   # the battery is low (outputs.Battery)

    def fields(self, now):
        """The state's fields as a dict (the result's)."""
        o = report.Fields()
        self._emit(now, o)
        return o.d

    def report(self, now, state):
        """The PUBLISH of the state's JSON on state/ (retained) or
        heartbeat/: the fields and `selftest`, the last self-test's result
        (selftest.py; null: none since power-up, "pass", or "fail" and the
        failed items).  Returns the buffer holding it at [self.a:self.b]
        (self.pkt, written in place: nothing allocated; each function here
        small enough for its frame to stay off the heap); packet() copies it."""
        o = self.out
        o.begin()
        self._emit(now, o)
        o.field("selftest", self.src.selftest())
        o.end()
        if o.over or not self._put_topic(state):
            return self._whole(now, state)
        self._put_head(state, o.n)
        self.last = self.pkt
        return self.pkt

    def packet(self):
        """A copy of the last report's PUBLISH (allocates: for the tools)."""
        return bytes(self.last[self.a:self.b])

    def _put_topic(self, state):
        """The topic (and its length) in front of the payload at PAYLOAD_AT
        (MQTT 3.1.1 § 3.3.2); self.a where it begins.  False if it does not fit."""
        t = self.topic_b[1 if state else 0]
        a = PAYLOAD_AT - len(t) - 2
        if a < 3:
            return False
        self.pkt[a + 2:PAYLOAD_AT] = t
        self.pkt[a] = len(t) >> 8
        self.pkt[a + 1] = len(t) & 255
        self.a = a
        return True

    def _put_head(self, retain, end):
        """The fixed header in front of the topic (QoS 0; the remaining
        length < 16384: two bytes at most): the packet is pkt[a:b]."""
        p = self.pkt
        a = self.a
        n = end - a
        if n < 128:
            a -= 2
            p[a + 1] = n
        else:
            a -= 3
            p[a + 1] = (n & 127) | 128
            p[a + 2] = n >> 7
        p[a] = 0x31 if retain else 0x30
        self.a = a
        self.b = end

    def _whole(self, now, state):
        """The state's PUBLISH built the ordinary way (allocates): one too
        long for the buffer."""
        d = self.fields(now)
        d["selftest"] = self.src.selftest()
        p = mqtt.publish_packet(self.topic("state" if state else "heartbeat"),
                                json.dumps(d), 0, state)
        self.a = 0
        self.b = len(p)
        self.last = p
        return p

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
