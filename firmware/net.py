# The clock on the tournament hall's network: what it publishes over MQTT
# 3.1.1, and when, without ever stalling the main loop (issue 14;
# docs/hall.md).  The wire (packets, the non-blocking socket) is mqtt.py;
# what is published comes through a state source (source.py: the clock's
# state and report, the game number, the battery, the menu's table, the
# game logs), files through the injected filesystem, time through the
# injected ticks.  This file never sees the app.
#
# The topics (status, state, heartbeat, result, log under
# scrabble/<event>/<table>/, each ending in the clock's account; the one
# subscription, confirm/<user>, which only the recorder may write) are
# hallproto.py's, tabled in docs/hall.md "Topics and accounts".  Nothing
# the clock receives can change it; a confirmation only lets it forget a result.
#
# No result lost (issue 19): a result stays in the queue (and on flash,
# outbox.py) until the recorder (hall/recorder.py) echoes its body
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
# outbox.MAX_QOS1, the oldest dropped first) and are re-sent with DUP set,
# also after a power cut (below).
# poll() allocates nothing when there is nothing to publish.
#
# The Wi-Fi (issue 38): a lost link closes the connection at once; a link
# down REJOIN_MS is joined again, as often (docs/hall.md "The Wi-Fi").  A
# game's result queued (its files written) the heap is collected (build.md).
#
# The QoS 1 queue is also on flash (outbox.py) until each PUBACK (a result:
# its confirmation), so a power cut loses none; net.json is netcfg.py's.
#
# The rooms: netcfg (the settings), hallmsg.Messages (the topics, the
# state's JSON, the result and log at the game's end), outbox.Outbox (the
# queue and its file), mqtt.Wire (the packets and the socket;
# tlsjob.Handshake under it, the TLS set-up), and Net here: the state
# machine that decides what goes out when (each written through its methods).
try:
    import socket
except ImportError:     # a port without a network (the qemu test image): Net(sock_mod=)
    socket = None

import boardfacts
import clockcore as cc
import gc
import hallmsg
import mqtt
import netcfg
import outbox
from source import HALL_DOWN, HALL_WAIT, HALL_UP, WIFI_OK, WIFI_BADAUTH, WIFI_NONET

HEARTBEAT_MS = 5000
PING_MS = 10000         # a PINGREQ this often (the broker must answer it)
REPLY_MS = 10000        # CONNACK / PUBACK / PINGRESP must come within this
CONNECT_MS = 15000      # TCP connect and the TLS handshake must complete within this
READ_MS = 50            # how often the broker's replies are read
BACKOFF_MIN = 1000
BACKOFF_MAX = 30000
RESEND_MS = 5000        # an acknowledged, unconfirmed result is sent again

# The hall as the clock's user sees it (HALL_*) and why there is no Wi-Fi
# (WIFI_*): defined in source.py, the door both sides read them through.
WAIT_MS = 15000         # "connecting" without Wi-Fi at most this long
REJOIN_MS = 10000       # the Wi-Fi down this long: join it again (then as often)
# network.WLAN.status()'s codes (MicroPython: STAT_WRONG_PASSWORD -3,
# STAT_NO_AP_FOUND -2 on the cyw43 and ESP32 ports); start() takes the
# port's own where it has them
STAT_WRONG_PASSWORD = -3
STAT_NO_AP_FOUND = -2

IDLE = 0        # no socket; (re)connect at retry_at
CONNECTING = 1  # TCP connect in progress
HANDSHAKE = 2   # CONNECT sent, waiting for CONNACK
UP = 3

class Net:
    """The publisher.  The app calls event() from its core hook and poll()
    once per main-loop iteration; nothing here waits on the network.

    src: the state source (source.py); fs: the filesystem (fsys.py's
    methods), root: the folder of the app's files; ticks_ms, diff, add: the
    tick functions (ticks.py); clock_id: the id the state publishes; link:
    the Wi-Fi interface (isconnected()), None: wired; sock_mod: the socket
    module (the simulator's may fail like a board's); stack: the board's
    TLS_THREAD_STACK (boardfacts.py: 0 runs the TLS handshake in the loop)."""

    def __init__(self, cfg, src, fs, root, ticks_ms, diff, add, clock_id,
                 link=None, sock_mod=socket,
                 stack=boardfacts.DEFAULTS["TLS_THREAD_STACK"]):
        self.src = src
        self.box = outbox.Outbox(fs, root + outbox.OUTBOX)
        self.q1 = self.box.q      # (read-only here: the queue's messages, for the hall tools)
        self.diff = diff
        self.add = add
        self.link = link
        # the link's status() if it has one (bound once: no allocation per call)
        self._status = getattr(link, "status", None) if link is not None else None
        # start()'s join, asked again (a link without connect(): never)
        self.ssid, self.wifi_key = cfg.get("ssid"), cfg.get("wifi_password", "")
        self._join = getattr(link, "connect", None) if self.ssid else None
        self.linked = False       # the link was up at the last look
        self.rejoins = 0          # joins asked again
        self.wifi = WIFI_OK
        # TLS with the pinned CA (a net.json always has one: check_config);
        # without "ca" (tests of the wire on fake sockets only) in clear
        ca = cfg.get("ca")
        self.wire = mqtt.Wire(sock_mod, self, netcfg.tls_context(ca) if ca else None,
                              netcfg.TLS_NAME, stack)
        self.host = cfg["host"]
        self.port = cfg["port"]
        self.password = cfg["password"]
        # The MQTT client id: net.json's (random, from `hall clock-config`), or
        # random for this boot; never the clock id the state publishes.
        self.client_id = cfg.get("client_id") or netcfg.random_id()
        now = ticks_ms()
        self.msg = hallmsg.Messages(cfg, src, clock_id, now)  # what is published
        self.st = IDLE
        self.resend_at = now
        self.sub_due = False
        self.subscribed = False   # the broker took the confirm subscription
        self.confirmed = 0        # results the recorder confirmed
        self.dirty = True         # the state changed since it was published
        self.online_due = False
        self.retry_at = now
        self.backoff = BACKOFF_MIN
        self.deadline = now       # a reply or the connect must come by then
        self.waiting = False
        self.read_at = now
        self.ping_at = now
        self.hb_at = now
        self.note = "not connected yet"
        self.connects = 0
        self.published = 0
        self.lowbat = False       # the battery warning as last published
        self.hall = -1
        self.wait_until = self.add(now, WAIT_MS)
        self.rejoin_at = self.add(now, REJOIN_MS)   # (start() asked the first)
        self._show(HALL_WAIT)
        self.box.load()

    # -- the app's side (App calls these) ------------------------------------------
    def event(self, code, side, t, arg):
        """A core event: publish the state; at game over, the result and log."""
        self.dirty = True
        self.msg.event(code, t)

    def poll(self, now):
        if self.msg.final_due and self.msg.final(self.box):
            self._save()          # (on flash until acknowledged)
            self.msg.kept()
            if hasattr(gc, "mem_free"):   # (MicroPython's heap, not CPython's)
                gc.collect()
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
        if self.msg.final_due or self.wire.busy():
            return 0
        s = self.st
        if s == IDLE:
            d = self.diff(self.retry_at, now)
        elif s != UP:
            d = READ_MS
        elif self.box.unsent or self.dirty or self.online_due or self.sub_due:
            return 0
        else:
            d = self.diff(self.read_at, now)
        return d if d < ms else ms

    def changed(self):
        """The clock's state changed without a core event (a gesture undid
        its keys): published again."""
        self.dirty = True

    @property
    def table(self):
        """The table the clock publishes under (the menu's, else net.json's)."""
        return self.msg.table

    def retable(self, now):
        """The setup menu was left: a new table number takes effect now (the
        game is reset).  Reconnect under it and empty the old table's
        retained state and status."""
        if not self.msg.retable(self.box):
            return
        self._save()
        if self.st == UP:
            self.wire.disconnect()  # the old table's will is dropped
        if self.st != IDLE:
            self._fail(now, "table changed", 1)
        self.backoff = BACKOFF_MIN
        self.wait_until = self.add(now, WAIT_MS)
        self._show(HALL_WAIT)  # a reconnect by choice, not a failure

    def _save(self):
        """The queue onto flash; a failing flash costs a note, not the game."""
        why = self.box.save()
        if why:
            self.note = why

    # -- connection states --------------------------------------------------------
    def _open(self, now):
        if self.link is not None and not self.link.isconnected():
            self.retry_at = self.add(now, 500)
            if self.linked:       # just lost: a rejoin REJOIN_MS on
                self.linked = False
                self.rejoin_at = self.add(now, REJOIN_MS)
            elif self._join is not None and self.diff(now, self.rejoin_at) >= 0:
                self.rejoin_at, self.rejoins = self.add(now, REJOIN_MS), self.rejoins + 1
                try:
                    self._join(self.ssid, self.wifi_key)    # (returns at once)
                except OSError:   # (the ESP32's own retry may be under way)
                    pass
            self._wifi_why()
            # (a refused password is a failed try at once: the mark says "no
            # hall" now, not after WAIT_MS; any other no-Wi-Fi may be the
            # radio still joining)
            if self.hall == HALL_WAIT and (self.wifi == WIFI_BADAUTH
                                           or self.diff(now, self.wait_until) >= 0):
                self._show(HALL_DOWN)
            return
        self.linked = True
        if self.wire.open(now, self.host, self.port):
            self.st = CONNECTING
            self.deadline = self.add(now, CONNECT_MS)

    def _wifi_why(self):
        """No Wi-Fi: why, as the link's status() says; the source told of a
        change (constant strings and small ints: nothing allocated)."""
        st = self._status() if self._status is not None else None
        if st == STAT_WRONG_PASSWORD:
            w, self.note = WIFI_BADAUTH, "no Wi-Fi: wrong password"
        elif st == STAT_NO_AP_FOUND:
            w, self.note = WIFI_NONET, "no Wi-Fi: no such network"
        else:
            w, self.note = WIFI_OK, "no Wi-Fi"
        if w != self.wifi:
            self.wifi = w
            wifi = getattr(self.src, "wifi", None)
            if wifi is not None:
                wifi(w)

    def _connecting(self, now):
        r = self.wire.opened(now)
        if r > 0:
            self._start(self.msg.connect(self.client_id, self.password))
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
        elif self.box.unsent or self.dirty or self.online_due or self.sub_due:
            self._next(now)
        elif self.box.acked and self.diff(now, self.resend_at) >= 0:
            self.box.resend()
        elif self.src.state() == cc.RUNNING and self.diff(now, self.hb_at) >= 0:
            self._report(now, False)
        elif self.diff(now, self.ping_at) >= 0:   # (even between states: a
            self.ping_at = self.add(now, PING_MS)  # silent broker is seen)
            self._start(mqtt.PINGREQ)
            self._wait(now)
        if self.diff(now, self.read_at) >= 0:
            self.read_at = self.add(now, READ_MS)
            if self.link is not None and not self.link.isconnected():
                return self._fail(now, "Wi-Fi lost")
            self.wire.read(now)
        if self.waiting and self.st == UP and self.diff(now, self.deadline) >= 0:
            self._fail(now, "broker stopped answering")
        elif self.st == UP and self.diff(now, self.ping_at) >= REPLY_MS:
            self._fail(now, "the broker takes nothing")   # (no room to ping)

    def _report(self, now, state):
        """The state's JSON: on state/ (retained) or, while a game runs, on
        heartbeat/; the next heartbeat is due HEARTBEAT_MS after either.
        (Its own frame: _up's and _next's must stay small enough to stay
        off the heap.)"""
        self.hb_at = self.add(now, HEARTBEAT_MS)
        m = self.msg
        self._start(m.report(now, state), m.a, m.b)   # (in place: hallmsg.py)

    def _next(self, now):
        if self.sub_due:
            self.sub_due = False
            self._start(self.msg.sub_packet)
        elif self.online_due:
            self.online_due = False
            self._start(self.msg.online())
        elif self.box.unsent:
            self._publish(self.box.next(), now)
        else:
            self.dirty = False
            self._report(now, True)

    def _publish(self, m, now):
        """Start writing queued message m (a game log: streamed from its
        file; one whose file is gone is dropped)."""
        self.box.sending(m)
        if m.log is None:
            self._start(m.packet)
        elif self.msg.stream(self.wire, m):
            self.published += 1
        else:
            self.box.drop(m)
            self._save()
            return
        self._wait(now)

    def _wait(self, now):
        if not self.waiting:
            self.waiting = True
            self.deadline = self.add(now, REPLY_MS)

    def _start(self, packet, a=0, b=-1):
        self.wire.start(packet, a, b)
        self.published += 1

    def _send(self, now):
        self.wire.send(now)

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
        r = self.box.puback(pid)
        if r == 1:
            self._save()
        elif r == 2:                     # a result: now wait for the recorder
            self.resend_at = self.add(now, RESEND_MS)

    def on_publish(self, now, topic, body):
        """A confirmation: the recorder echoes a result's body once it is
        in its file; that result is forgotten (anything else is ignored)."""
        if topic == self.msg.confirm_b and self.box.confirm(body):
            self.confirmed += 1
            self._save()

    def on_suback(self, now, ok):
        self.subscribed = ok
        if not ok:
            self.note = "confirmations refused by the broker"

    def on_reply(self, now):
        """Is a PUBACK (or PINGRESP) due?  A result already acknowledged
        waits for its confirmation, not for the broker."""
        w = self.box.waiting()
        self.waiting = w
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
        self.box.relink()
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


def start(src, fs, root, ticks_ms, diff, add,
          stack=boardfacts.DEFAULTS["TLS_THREAD_STACK"]):
    """The Net for a board with Wi-Fi and a net.json written by
    `make deploy ... TABLE=n`; None (after one line) if there is none."""
    cfg = netcfg.load(fs, root)
    if cfg is None:
        return None
    link = None
    if cfg.get("ssid"):
        import network
        global STAT_WRONG_PASSWORD, STAT_NO_AP_FOUND
        STAT_WRONG_PASSWORD = getattr(network, "STAT_WRONG_PASSWORD", STAT_WRONG_PASSWORD)
        STAT_NO_AP_FOUND = getattr(network, "STAT_NO_AP_FOUND", STAT_NO_AP_FOUND)
        link = network.WLAN(network.STA_IF)
        link.active(True)
        link.connect(cfg["ssid"], cfg.get("wifi_password", ""))  # returns at once
    # the clock id: machine.unique_id() in hex (gamelog.clock_id)
    return Net(cfg, src, fs, root, ticks_ms, diff, add, src.clock_id(), link,
               stack=stack)
