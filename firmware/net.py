# The clock on the tournament hall's network: what it publishes over MQTT
# 3.1.1, and when, without ever stalling the main loop (issue 14;
# docs/hall.md).  The wire (packets, the non-blocking socket) is mqtt.py;
# what is published comes through a state source (source.py: the clock's
# state and report, the game number, the battery, the menu's table, the
# game logs), files through the injected filesystem, time through the
# injected ticks.  This file never sees the app.
#
# The clock publishes under scrabble/<event>/<table>/, each topic ending in
# its account name (<user>: the broker's ACL lets an account write only
# topics that end in its own name, at any table):
#   status/<user>          "online" (retained) after each connect; the last
#                          will "offline" (retained, QoS 1) when the broker
#                          loses it
#   state/<user>           retained JSON after every event: the replay
#                          report's fields minus lcd, plus clock id, table,
#                          game number and lowbat (the battery is low; also
#                          sent when that changes)
#   heartbeat/<user>       the same JSON every HEARTBEAT_MS while a game runs
#   result/<game>/<user>   the final state, QoS 1, kept and re-sent until the
#                          hall's recorder confirms it (below)
#   log/<game>/<user>      the game's log file (replay format), retained, QoS 1;
#                          streamed from the file as it goes out (mqtt.Wire
#                          stream()), never whole in memory (issue 30)
# It subscribes to one topic, scrabble/<event>/confirm/<user>, at QoS 0:
# only the hall's recorder may write there (the broker's ACL).  Nothing it
# receives can change the clock; a confirmation only lets it forget a result.
#
# No result lost (issue 19): a result stays in the queue (and on flash,
# OUTBOX) until the recorder (host_sim/hall_recorder.py) echoes its body
# byte for byte on the confirm topic, which it does only after the result
# is fsynced in its file.  A PUBACK only means the broker has it (in memory:
# a broker killed now loses it), so after a PUBACK the result is sent again
# every RESEND_MS, and after every reconnect, until confirmed; the recorder
# collapses the copies.
#
# The table: the setup menu's (source table()) when it is not 0, else
# net.json's.  A new one takes effect at the next game (retable(), when the
# setup menu is left) or at boot: the clock reconnects (its last will moves
# with it) and empties its retained state and status under the old table
# (QoS 1, re-sent until acknowledged), so the page shows no ghost there.
#
# Why not umqtt.simple: its connect() and publish(qos=1) block on the socket
# (connect waits for CONNACK, QoS 1 waits for PUBACK, wait_msg() reads
# blocking), so a dead or slow broker would stop the clock's main loop
# (bench/hall_bench.py measures this).  Here every step is non-blocking
# (mqtt.py); the replies (CONNACK, PUBACK, PINGRESP) are read every READ_MS;
# any error, EOF or missed reply closes the socket and retries after a
# back-off (1 s doubling to 30 s); QoS 1 messages stay queued (at most
# MAX_QOS1, the oldest dropped first) and are re-sent with DUP set, also
# after a power cut (OUTBOX below).
# poll() allocates nothing when there is nothing to publish.
#
# The QoS 1 queue is also kept on flash (OUTBOX, next to the app, written
# atomically by fsys.write_atomic) from the moment a message is
# queued until its PUBACK (a result: until its confirmation): a result not
# yet confirmed when the power is cut is sent again after the boot.  One
# line per message: "R <topic> <JSON>" (a result), "L <topic> <game>" (a
# game's log, read again from its file), "C <topic>" (an emptied retained
# topic).
import json
try:
    import socket
except ImportError:     # a port without a network (the qemu test image): Net(sock_mod=)
    socket = None

import clockcore as cc
import fsys
import mqtt

HEARTBEAT_MS = 5000
KEEPALIVE_S = 20        # the broker sends the last will 30 s after a clock goes silent
PING_MS = 10000         # a PINGREQ when nothing else went out for this long
REPLY_MS = 10000        # CONNACK / PUBACK / PINGRESP must come within this
CONNECT_MS = 15000      # TCP connect and the TLS handshake must complete within this
READ_MS = 50            # how often the broker's replies are read
BACKOFF_MIN = 1000
BACKOFF_MAX = 30000
MAX_QOS1 = 8            # results and logs waiting for PUBACK / confirmation
RESEND_MS = 5000        # an acknowledged, unconfirmed result is sent again
LOG_MAX = 16384         # a longer game log is cut (the clock keeps it whole)
OUTBOX = "net.out"      # the QoS 1 queue on flash, until each PUBACK
OUTBOX_MAX = 8192       # a longer outbox file is not ours
CONFIG = "net.json"     # the clock's hall settings (`make deploy ... TABLE=n`)

# The hall as the clock's user sees it (Net.hall; the source's mark(): the
# LCD mark, view.py, and the setup menu's "Hall" item, through source.py):
HALL_DOWN = 0   # no hall: the last try failed, or no Wi-Fi after WAIT_MS
HALL_WAIT = 1   # connecting: since the boot or a new table, not failed yet
HALL_UP = 2     # connected: the broker accepted the clock (CONNACK)
WAIT_MS = 15000         # "connecting" without Wi-Fi at most this long

IDLE = 0        # no socket; (re)connect at retry_at
CONNECTING = 1  # TCP connect in progress
HANDSHAKE = 2   # CONNECT sent, waiting for CONNACK
UP = 3

CONFIG_KEYS = ("host", "port", "event", "table", "password", "ca")
# TLS (issue 29): the clock speaks MQTT only over TLS, and only to a broker
# whose certificate the hall's own CA signed (net.json's "ca", PEM, put there
# by `hall clock-config`: the clock pins it) for this name (host_sim/hall_tls.py
# makes that certificate).  The name, not the IP address: the CA signs
# nothing but this hall's broker, and the broker's address may change.
TLS_NAME = "scrabble-hall"
ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def is_ipv4(host):
    """A dotted IPv4 address: the clock never resolves a name (a DNS lookup
    would block its loop)."""
    p = host.split(".")
    if len(p) != 4:
        return False
    for x in p:
        if not x or len(x) > 3 or not x.isdigit() or int(x) > 255:
            return False
    return True


def random_id():
    """A client id nobody can guess, for a net.json without "client_id"."""
    try:
        import os
        b = os.urandom(8)
    except (ImportError, AttributeError, OSError):
        import random
        b = bytes([random.getrandbits(8) for _ in range(8)])
    return "c" + "".join(["%02x" % x for x in b])


def check_config(cfg):
    """A settings dict from net.json, or a one-line reason it is unusable."""
    if not isinstance(cfg, dict):
        return "net.json: expected a JSON object"
    for k in CONFIG_KEYS:
        if k not in cfg:
            return "net.json: missing %r" % k
    t = cfg["table"]
    if not isinstance(t, int) or t < 1 or t > 9999:
        return "net.json: table must be a number 1-9999"
    p = cfg["port"]
    if not isinstance(p, int) or p < 1 or p > 65535:
        return "net.json: port must be 1-65535"
    for k in ("host", "event", "password"):
        if not isinstance(cfg[k], str) or not cfg[k]:
            return "net.json: %r must be a non-empty text" % k
    if not is_ipv4(cfg["host"]):
        return ("net.json: host must be the hall computer's IP address (like "
                "192.168.1.10), not a name: the clock does no DNS lookup")
    cid = cfg.get("client_id", "c0-x")
    if not isinstance(cid, str) or not 4 <= len(cid) <= 64:
        return "net.json: client_id must be a text of 4-64 letters, digits, - or _"
    for ch in cid:
        if ch not in ID_CHARS:
            return "net.json: client_id must be a text of 4-64 letters, digits, - or _"
    ca = cfg["ca"]
    if not isinstance(ca, str) or "-----BEGIN CERTIFICATE-----" not in ca or len(ca) > 4096:
        return "net.json: 'ca' must be the hall's CA certificate (PEM, from hall clock-config)"
    for k in ("event", "user"):
        v = cfg.get(k, "x")
        if not isinstance(v, str) or not v:
            return "net.json: %r must be a non-empty text" % k
        for ch in "+#/ ":
            if ch in v:
                return "net.json: %s must not contain %r" % (k, ch)
    return None


def ca_der(pem):
    """The DER bytes of a PEM certificate (the boards' mbedtls reads DER only)."""
    import binascii
    lines = []
    inside = False
    for line in pem.split("\n"):
        line = line.strip()
        if line.startswith("-----BEGIN"):
            inside = True
        elif line.startswith("-----END"):
            break
        elif inside:
            lines.append(line)
    return binascii.a2b_base64("".join(lines))


def tls_context(pem):
    """A TLS client context that trusts only the hall's CA (`pem`) and
    refuses any other broker.  Raises ValueError for a bad certificate,
    ImportError on a firmware without ssl."""
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED   # (MicroPython's default is CERT_NONE)
    try:
        ctx.load_verify_locations(cadata=ca_der(pem))
    except (OSError, ValueError) as e:    # (CPython: ssl.SSLError)
        raise ValueError("not a certificate: %s" % e)
    return ctx


class Net:
    """The publisher.  The app calls event() from its core hook and poll()
    once per main-loop iteration; nothing here waits on the network.

    src: the state source (source.py); fs: the filesystem (fsys.py's
    methods), root: the folder of the app's files; ticks_ms, diff, add: the
    tick functions (ticks.py); clock_id: the id the state publishes; link:
    the Wi-Fi interface (isconnected()), None: wired; sock_mod: the socket
    module (the simulator's may fail like a board's)."""

    def __init__(self, cfg, src, fs, root, ticks_ms, diff, add, clock_id,
                 link=None, sock_mod=socket):
        self.src = src
        self.fs = fs
        self.outbox = root + OUTBOX
        self.diff = diff
        self.add = add
        self.link = link
        # TLS with the pinned CA (a net.json always has one: check_config);
        # without "ca" (tests of the wire on fake sockets only) in clear
        ca = cfg.get("ca")
        self.wire = mqtt.Wire(sock_mod, self, tls_context(ca) if ca else None, TLS_NAME)
        self.host = cfg["host"]
        self.port = cfg["port"]
        self.home = cfg["table"]  # net.json's table: the menu's wins if set
        self.user = cfg.get("user") or str(cfg["table"])  # the clock's account
        self.password = cfg["password"]
        self.clock_id = clock_id
        # The MQTT client id: net.json's (random, from `hall clock-config`), or
        # random for this boot; never the clock id the state publishes.
        self.client_id = cfg.get("client_id") or random_id()
        self.event_name = cfg["event"]
        self.confirm = "scrabble/%s/confirm/%s" % (cfg["event"], self.user)
        self.confirm_b = self.confirm.encode()
        self.sub_packet = mqtt.subscribe_packet(self.confirm)
        self.table = self._menu_table()
        self.prefix = self._prefix(self.table)
        src.tabled(self.table)    # (the setup menu's "Hall" item shows it)
        now = ticks_ms()
        self.st = IDLE
        # [pid, packet, sent, OUTBOX line, echo, acked, log]: echo is a
        # result's body (bytes) the recorder confirms by sending it back,
        # None for others (taken off at the PUBACK); acked: the broker has
        # this copy; log: a game log's number (packet: mqtt.publish_head(),
        # the payload streamed from the file when it is sent), else None
        self.q1 = []
        self.unsent = 0           # q1 entries not yet written on this link
        self.acked_r = 0          # results acknowledged, not yet confirmed
        self.resend_at = now
        self.sub_due = False
        self.subscribed = False   # the broker took the confirm subscription
        self.confirmed = 0
        self.pid = 0
        self.dirty = True         # the state changed since it was published
        self.online_due = False
        self.over_seen = False
        self.end_t = now          # tick of the game's end (state over)
        self.final_due = False    # the result and log wait to be queued
        self.retry_at = now
        self.backoff = BACKOFF_MIN
        self.deadline = now       # a reply or the connect must come by then
        self.waiting = False
        self.read_at = now
        self.ping_at = now
        self.hb_at = now
        self.note = "not connected yet"
        self.connects = 0
        self.dropped = 0          # QoS 1 messages lost to a full queue
        self.published = 0
        self.outbox_writes = 0
        self.lowbat = False       # the battery warning as last published
        self.hall = -1
        self.wait_until = self.add(now, WAIT_MS)
        self._show(HALL_WAIT)
        self._load_outbox()

    # -- the app's side (App calls these) ------------------------------------------
    def event(self, code, side, t, arg):
        """A core event: publish the state; at game over, the result and log."""
        self.dirty = True
        st = self.src.state()
        if st != cc.OVER:
            self.over_seen = False
        elif not self.over_seen or code == cc.EV_VOID:
            # (a referee's void changes the result: it is published again)
            self.over_seen = True
            self.end_t = t
            # The result and its log go out once the log is on flash: with
            # the running-clock journal (session.py) the game's lines reach
            # the log file when the session folds it, in the steps after the
            # game ended (a slice a step, in over; poll() runs after each).
            self.final_due = True

    def _final_ready(self):
        if self.final_due and not self.src.pending():
            self._final()
            # Only now: if queueing them failed (a MemoryError on a
            # fragmented heap), the next poll tries again; once queued they
            # are on flash (OUTBOX) until acknowledged.
            self.final_due = False

    def poll(self, now):
        if self.final_due:
            self._final_ready()
        if self.src.low() != self.lowbat:   # (the projector's alert)
            self.lowbat = self.src.low()
            self.dirty = True
        s = self.st
        if s == UP:
            self._up(now)
        elif s == IDLE:
            if self.diff(now, self.retry_at) >= 0:
                self._open(now)
        elif s == CONNECTING:
            self._connecting(now)
        else:
            self._handshake(now)

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to when poll() next has work: at
        once while something waits to go out, else the next read of the
        broker's replies (every READ_MS while connected or connecting: the
        heartbeat, the ping, a re-send and a reply's deadline come at most
        that late) or the next connection attempt."""
        if self.final_due or self.wire.busy():
            return 0
        s = self.st
        if s == IDLE:
            d = self.diff(self.retry_at, now)
        elif s != UP:
            d = READ_MS
        elif self.unsent or self.dirty or self.online_due or self.sub_due:
            return 0
        else:
            d = self.diff(self.read_at, now)
        return d if d < ms else ms

    def retable(self, now):
        """The setup menu was left: a new table number takes effect now (the
        game is reset).  Reconnect under it and empty the old table's
        retained state and status."""
        t = self._menu_table()
        if t == self.table:
            return
        old = self.prefix
        self.table = t
        self.prefix = self._prefix(t)
        self.src.tabled(t)
        self.enqueue(self.topic("state", old), b"", "C " + self.topic("state", old), True)
        self.enqueue(self.topic("status", old), b"", "C " + self.topic("status", old), True)
        self.save_outbox()
        if self.st == UP:
            self.wire.disconnect()  # the old table's will is dropped
        if self.st != IDLE:
            self._fail(now, "table changed", 1)
        self.backoff = BACKOFF_MIN
        self.wait_until = self.add(now, WAIT_MS)
        self._show(HALL_WAIT)  # a reconnect by choice, not a failure

    def _menu_table(self):
        t = self.src.table()
        return t if t else self.home

    def _prefix(self, table):
        return "scrabble/%s/%d/" % (self.event_name, table)

    def topic(self, kind, prefix=None):
        """scrabble/<event>/<table>/<kind>/<user> (kind may hold "result/<n>")."""
        return (prefix or self.prefix) + kind + "/" + self.user

    # -- what gets published ----------------------------------------------------
    def _fields(self, now):
        s = self.src
        if s.state() == cc.OVER:
            now = self.end_t  # the game's end, not the time since
        d = s.report(now)
        d["clock"] = self.clock_id
        d["table"] = self.table
        d["game"] = s.game()
        d["lowbat"] = s.low()   # the battery is low (outputs.Battery)
        return d

    def _final(self):
        """The game's result and its log queued (a game log only by its
        number: its file is read as it goes out).  Twice is once: a
        message still waiting with the same OUTBOX line is not queued
        again."""
        d = self._fields(self.end_t)
        n = self.src.game()
        topic = self.topic("result/%d" % n)
        text = json.dumps(d)
        self.enqueue(topic, text, "R %s %s" % (topic, text), False, text.encode())
        if n:
            topic = self.topic("log/%d" % n)
            self.enqueue_log(topic, n, "L %s %d" % (topic, n))
        self.save_outbox()

    def _stream(self, m):
        """Start writing message m, game m[6]'s log: its file streamed
        (cut at LOG_MAX, at a character's start); False if it cannot be
        read any more (it was removed)."""
        try:
            f, size = self.src.log_open(m[6])
        except (OSError, ValueError):
            return False
        n = size
        tail = b""
        if size > LOG_MAX:
            n = _cut(f, LOG_MAX)
            tail = ("\n# cut at %d bytes\n" % LOG_MAX).encode()
        self.wire.stream(m[1], f, n, tail)
        self.published += 1
        return True

    def enqueue_log(self, topic, n, line):
        """Queue game n's log (retained, QoS 1), streamed from its file
        when it is sent (and each time it is sent again)."""
        if self._queued(line):
            return
        self._room()
        self.pid = self.pid % 65535 + 1
        self.q1.append([self.pid, mqtt.publish_head(topic, 1, True, self.pid), False,
                        line, None, False, n])
        self.unsent += 1

    def _queued(self, line):
        """A message with this OUTBOX line waits unsent (it would go out
        the same)."""
        for m in self.q1:
            if not m[2] and m[3] == line:
                return True
        return False

    def enqueue(self, topic, payload, line, retain, echo=None):
        """Queue a QoS 1 message; `line` is its OUTBOX line; `echo`: a
        result's body, kept until the recorder confirms it."""
        if self._queued(line):
            return
        self._room()
        self.pid = self.pid % 65535 + 1
        self.q1.append([self.pid, mqtt.publish_packet(topic, payload, 1, retain, self.pid),
                        False, line, echo, False, None])
        self.unsent += 1

    def _room(self):
        """A full queue drops its oldest log or emptied topic first, a
        result only if nothing else is left."""
        q = self.q1
        if len(q) >= MAX_QOS1:
            i = 0
            for j in range(len(q)):
                if q[j][4] is None:
                    i = j
                    break
            self._unqueue(i)
            self.dropped += 1

    def _unqueue(self, i):
        m = self.q1.pop(i)
        if not m[2]:
            self.unsent -= 1
        if m[5]:
            self.acked_r -= 1

    # -- the QoS 1 queue on flash ---------------------------------------------------
    def save_outbox(self):
        """Write the queue's lines (temp file + rename), or remove the file
        when the queue is empty.  A failing flash costs a note, not the game."""
        fs = self.fs
        path = self.outbox
        try:
            if not self.q1:
                try:
                    fs.remove(path)
                except OSError:
                    pass
                return
            fsys.write_atomic(fs, path, "".join([m[3] + "\n" for m in self.q1]).encode())
            self.outbox_writes += 1
        except OSError as e:
            self.note = "cannot keep the queue on flash: %s" % e

    def _load_outbox(self):
        """The messages a power cut left unacknowledged: queued again."""
        try:
            f = self.fs.open(self.outbox, "rb")
        except OSError:
            return
        try:
            data = f.read(OUTBOX_MAX + 1)
        finally:
            f.close()
        bad = len(data) > OUTBOX_MAX
        try:
            lines = data.decode().split("\n")
        except UnicodeError:
            lines = ()
            bad = True
        for line in lines:
            if line and not bad:
                bad = not self._requeue(line)
        if bad:
            print("%s: not a queue of this clock's messages; ignored" % OUTBOX)

    def _requeue(self, line):
        p = line.split(" ", 2)
        if len(p) < 2 or not p[1].startswith("scrabble/"):
            return False
        if p[0] == "C" and len(p) == 2:
            self.enqueue(p[1], b"", line, True)
        elif p[0] == "R" and len(p) == 3:
            self.enqueue(p[1], p[2], line, False, p[2].encode())
        elif p[0] == "L" and len(p) == 3:
            try:
                n = int(p[2])
            except ValueError:
                return False
            self.enqueue_log(p[1], n, line)
        else:
            return False
        return True

    # -- connection states --------------------------------------------------------
    def _open(self, now):
        if self.link is not None and not self.link.isconnected():
            self.retry_at = self.add(now, 500)
            self.note = "no Wi-Fi"
            if self.hall == HALL_WAIT and self.diff(now, self.wait_until) >= 0:
                self._show(HALL_DOWN)
            return
        if self.wire.open(now, self.host, self.port):
            self.st = CONNECTING
            self.deadline = self.add(now, CONNECT_MS)

    def _connecting(self, now):
        r = self.wire.opened(now)
        if r > 0:
            self._start(mqtt.connect_packet(self.client_id, self.user,
                                            self.password, self.topic("status"),
                                            "offline", KEEPALIVE_S))
            self.st = HANDSHAKE
            self.deadline = self.add(now, REPLY_MS)
        elif r < 0:
            self._fail(now, "broker not listening")
        elif self.st == CONNECTING and self.diff(now, self.deadline) >= 0:
            self._fail(now, "connect timed out")

    def _handshake(self, now):
        if self.wire.busy():
            self._send(now)
        self.wire.read(now)
        if self.st == HANDSHAKE and self.diff(now, self.deadline) >= 0:
            self._fail(now, "no CONNACK")

    def _up(self, now):
        if self.wire.busy():
            self._send(now)
        elif self.unsent or self.dirty or self.online_due or self.sub_due:
            self._next(now)
        elif self.acked_r and self.diff(now, self.resend_at) >= 0:
            self._resend()
        elif self.src.state() == cc.RUNNING and self.diff(now, self.hb_at) >= 0:
            self._report(now, False)
        elif self.diff(now, self.ping_at) >= 0:
            self._start(mqtt.PINGREQ)
            self._wait(now)
        if self.diff(now, self.read_at) >= 0:
            self.read_at = self.add(now, READ_MS)
            self.wire.read(now)
        if self.waiting and self.st == UP and self.diff(now, self.deadline) >= 0:
            self._fail(now, "broker stopped answering")

    def _report(self, now, state):
        """The state's JSON: on state/ (retained) or, while a game runs, on
        heartbeat/; the next heartbeat is due HEARTBEAT_MS after either.
        (Its own frame: _up's and _next's must stay small enough to stay
        off the heap.)"""
        self.hb_at = self.add(now, HEARTBEAT_MS)
        p = mqtt.publish_packet(self.topic("state" if state else "heartbeat"),
                                json.dumps(self._fields(now)), 0, state)
        self._start(p)

    def _resend(self):
        """The broker has these results but the recorder has not confirmed
        them (it may be down, or the broker may lose them): send them again."""
        for m in self.q1:
            if m[5]:
                m[5] = False
                m[2] = False
                self.unsent += 1
        self.acked_r = 0

    def _next(self, now):
        if self.sub_due:
            self.sub_due = False
            self._start(self.sub_packet)
        elif self.online_due:
            self.online_due = False
            self._start(mqtt.publish_packet(self.topic("status"), "online", 0, True))
        elif self.unsent:
            for m in self.q1:
                if not m[2]:
                    self._publish(m, now)
                    return
        else:
            self.dirty = False
            self._report(now, True)

    def _publish(self, m, now):
        """Start writing queued message m (a game log: streamed from its
        file; one whose file is gone is dropped)."""
        m[2] = True
        self.unsent -= 1
        if m[6] is None:
            self._start(m[1])
        elif not self._stream(m):
            self._unqueue(self.q1.index(m))
            self.dropped += 1
            self.save_outbox()
            return
        self._wait(now)

    def _wait(self, now):
        if not self.waiting:
            self.waiting = True
            self.deadline = self.add(now, REPLY_MS)

    def _start(self, packet):
        self.wire.start(packet)
        self.published += 1

    def _send(self, now):
        if self.wire.send(now):
            self.ping_at = self.add(now, PING_MS)

    # -- the broker's replies (mqtt.Wire calls these) -------------------------------
    def on_connack(self, now, code):
        if code:
            self._fail(now, "broker refused: %s" % mqtt.REFUSED.get(code, code),
                       BACKOFF_MAX)
            return
        self.st = UP
        self.backoff = BACKOFF_MIN
        self.connects += 1
        self.note = "connected"
        self._show(HALL_UP)
        self.online_due = True
        self.sub_due = True
        self.dirty = True
        self.ping_at = self.add(now, PING_MS)

    def on_puback(self, now, pid):
        q = self.q1
        for i in range(len(q)):
            m = q[i]
            if m[0] == pid and m[2] and not m[5]:
                if m[4] is None:
                    self._unqueue(i)
                    self.save_outbox()
                else:                    # a result: now wait for the recorder
                    m[5] = True
                    self.acked_r += 1
                    self.resend_at = self.add(now, RESEND_MS)
                return

    def on_publish(self, now, topic, body):
        """A confirmation: the recorder echoes a result's body once it is
        in its file; that result is forgotten (anything else is ignored)."""
        if topic != self.confirm_b:
            return
        q = self.q1
        for k in range(len(q)):
            if q[k][4] is not None and q[k][4] == body:
                self._unqueue(k)
                self.confirmed += 1
                self.save_outbox()
                return

    def on_suback(self, now, ok):
        self.subscribed = ok
        if not ok:
            self.note = "confirmations refused by the broker"

    def on_reply(self, now):
        """Is a PUBACK (or PINGRESP) due?  A result already acknowledged
        waits for its confirmation, not for the broker."""
        w = 0
        for m in self.q1:
            if m[2] and not m[5]:
                w = 1
                break
        self.waiting = bool(w)
        if w:
            self.deadline = self.add(now, REPLY_MS)

    def on_lost(self, now, why):
        self._fail(now, why)

    def _fail(self, now, why, backoff=0):
        """Close the link; try again after the back-off.  Nothing is lost:
        the state is republished and unacknowledged QoS 1 messages re-sent
        (with DUP set) on the next connection."""
        self.note = why
        self.wire.close()
        self.st = IDLE
        self.waiting = False
        for m in self.q1:
            if m[2]:
                mqtt.set_dup(m[1])
                m[2] = False
            m[5] = False
        self.unsent = len(self.q1)
        self.acked_r = 0
        self.sub_due = False
        self.subscribed = False
        self.dirty = True
        b = backoff or self.backoff
        self.retry_at = self.add(now, b)
        self.backoff = min(self.backoff * 2, BACKOFF_MAX)
        self._show(HALL_DOWN)

    def _show(self, h):
        """A new hall state: the source's mark() (the game screen's mark
        redraws; only on a change: nothing happens here in a steady loop)."""
        if h != self.hall:
            self.hall = h
            self.src.mark(h)


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


def start(src, fs, root, ticks_ms, diff, add):
    """The Net for a board with Wi-Fi and a net.json written by
    `make deploy ... TABLE=n`; None (after one line) if there is none."""
    try:
        f = fs.open(root + CONFIG, "rb")
        try:
            data = f.read()
        finally:
            f.close()
    except OSError:
        return None
    try:
        cfg = json.loads(data)
    except ValueError:
        print("net.json: not valid JSON; the clock stays off the network")
        return None
    why = check_config(cfg)
    if not why:
        try:
            tls_context(cfg["ca"])
        except ValueError as e:
            why = "net.json: 'ca' is %s" % e
        except ImportError:
            why = "this firmware has no ssl module: the clock cannot reach the hall safely"
    if why:
        print(why + "; the clock stays off the network")
        return None
    link = None
    if cfg.get("ssid"):
        import network
        link = network.WLAN(network.STA_IF)
        link.active(True)
        link.connect(cfg["ssid"], cfg.get("wifi_password", ""))  # returns at once
    # the clock id: machine.unique_id() in hex (gamelog.clock_id)
    return Net(cfg, src, fs, root, ticks_ms, diff, add, src.clock_id(), link)
