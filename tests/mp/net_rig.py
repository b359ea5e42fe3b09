# The clock with firmware/net.py inside the real MicroPython (unix port),
# against a real broker: shared by tests/test_net_mp.py and bench/hall_bench.py.
#
#   micropython net_rig.py ROOT PORT PASSWORD SCENARIO
#
# ROOT/ca.crt, if there, is the hall's CA: the clock speaks TLS (issue 29).
# Prints one JSON line with the figures.  Scenarios:
#   heap     connected; bytes allocated per main-loop iteration while nothing
#            is published (ready, and running between heartbeats), per
#            published state message, heartbeat and ping (its reply read);
#            then a whole game (result + log sent)
#   loop     the worst and mean main-loop iteration (us) for N iterations of
#            a running game (PORT 0: without the network, the baseline); the
#            host makes the broker down, hung or restarting meanwhile
#   blocking what one blocking connect (as umqtt.simple's) costs the loop
#   waiting  a result acknowledged by the broker, never confirmed (no
#            recorder): bytes per iteration meanwhile, and its re-send
#   refused  the first try to connect: the note (a broker that is not the
#            hall's is refused)
#   tlsloop  N THREADED: the worst loop iteration while reconnecting over TLS
import gc
import json
import sys
import time

import micropython
import hallmsg
import mqtt
import net
import sim as board  # boards/sim.py: on MICROPYPATH
import rig as gestures
from rig import Rig, LEFT, RIGHT

mem_total = micropython.mem_total


def settings(root, base_s):
    f = open(root + "settings.json", "w")
    f.write('{"v": 1, "profile": "sdev", "base_left": %d, "base_right": %d, '
            '"lang": "en", "sound": false}' % (base_s * 1000, base_s * 1000))
    f.close()


def make(root, port, password, table=1, step_ms=5, stack=None):
    settings(root, 60)
    rig = Rig(board, root, step_ms=step_ms)
    cfg = {"host": "127.0.0.1", "port": port, "event": "mp", "table": table,
           "password": password}
    try:   # the hall's CA (the host puts its ca.crt in ROOT): TLS, as on a clock
        f = open(root + "ca.crt")
        cfg["ca"] = f.read()
        f.close()
    except OSError:
        pass
    a = rig.app   # (as App does on a board with Wi-Fi; hall.rehearsal.clocks.attach)
    kw = {} if stack is None else {"stack": stack}   # (else the board's default)
    a.net = net.Net(cfg, a.hall_source(), a.store.fs, a.root, a.ticks_ms, a.diff,
                    a.add, "mp%03d" % table, **kw)
    return rig


def until(rig, cond, ms=20000):
    end = rig.ms() + ms
    while rig.ms() < end:
        rig.run(20)
        if cond():
            return True
        time.sleep_ms(1)  # let the broker answer (real time)
    return False


def alloc(fn, n):
    fn()
    gc.collect()
    a = mem_total()
    for _ in range(n):
        fn()
    return (mem_total() - a) / n


def heap(root, port, password):
    rig = make(root, port, password)
    n = rig.app.net
    # (and the SUBACK of its confirm subscription read: nothing arrives)
    ok = until(rig, lambda: n.st == net.UP and not n.dirty and not n.wire.busy()
               and n.subscribed)
    out = {"connected": ok, "note": n.note}
    step = rig.app.step

    def idle():
        rig.now = rig.add(rig.now, 5)
        step()

    out["ready_bytes_per_iter"] = alloc(idle, 500)
    rig.press(LEFT)  # right's clock runs
    until(rig, lambda: not n.dirty and not n.wire.busy())
    n.hb_at = rig.add(rig.now, 100000)  # no heartbeat inside the window
    n.ping_at = rig.add(rig.now, 100000)
    out["running_bytes_per_iter"] = alloc(idle, 500)
    before = n.published

    def one_state():
        n.dirty = True
        idle()
        while n.wire.busy():
            idle()

    out["bytes_per_state_message"] = alloc(one_state, 20)
    out["messages"] = n.published - before

    def heartbeat():
        n.hb_at = rig.now
        idle()
        while n.wire.busy():
            idle()

    hb = n.published
    out["bytes_per_heartbeat"] = alloc(heartbeat, 10)
    out["heartbeats"] = n.published - hb

    def ping():               # a PINGREQ, and the broker's PINGRESP read
        n.ping_at = rig.now
        idle()
        while n.waiting or n.wire.busy():
            time.sleep_ms(1)  # (real time: the broker answers)
            idle()

    out["bytes_per_ping"] = alloc(ping, 10)
    out["note_after_pings"] = n.note
    # The rest of a game: turns, then the end: result + log go out, QoS 1.
    for s in (RIGHT, LEFT, RIGHT):
        rig.run(3000)
        rig.press(s)
    rig.perform(gestures.end_game(True))  # stop, hold 2 s, L+R: the end
    out["over"] = rig.clock.state == 3
    out["acked"] = until(rig, lambda: not n.q1 and not n.wire.busy())
    out["rem"] = [rig.clock.rem[0], rig.clock.rem[1]]
    out["game"] = rig.app.log.number
    return out


def waiting(root, port, password):
    """A finished game whose result the broker acknowledged but no recorder
    confirms (the host runs none): bytes per main-loop iteration while the
    result waits (between re-sends), and the re-sends."""
    rig = make(root, port, password)
    n = rig.app.net
    ok = until(rig, lambda: n.st == net.UP and n.subscribed)
    rig.press(LEFT)
    rig.run(3000)
    rig.press(RIGHT)
    rig.perform(gestures.end_game(True))
    acked = until(rig, lambda: n.box.acked == 1 and not n.box.unsent and not n.wire.busy()
                  and len(n.q1) == 1)
    step = rig.app.step

    def idle():
        rig.now = rig.add(rig.now, 5)
        step()

    n.ping_at = rig.add(rig.now, 100000)
    n.resend_at = rig.add(rig.now, 100000)   # no re-send inside the window
    per_iter = alloc(idle, 500)
    n.resend_at = rig.now
    before = n.published
    until(rig, lambda: n.published > before and n.box.acked == 1, 3000)
    return {"connected": ok, "acked_unconfirmed": acked, "waiting_bytes_per_iter": per_iter,
            "resent": n.published - before, "kept": len(n.q1), "note": n.note}


def refused(root, port, password):
    """The first try to connect (issue 29: to a broker that is not the
    hall's): the clock's note, whether it ever connected."""
    rig = make(root, port, password)
    n = rig.app.net
    until(rig, lambda: n.note != "not connected yet", 15000)
    return {"note": n.note, "connects": n.connects, "up": n.st == net.UP, "hall": n.hall}


def loop(root, port, password, n_iter, threaded=None):
    """The worst and mean iteration of a running game.  threaded 1 / 0
    (issue 29): the clock connects over TLS again and again (a reconnect
    forced every 200 iterations: a TLS handshake each time), the handshake
    on its own thread (1) or in the loop's own steps (0)."""
    stack = None if threaded is None else (board.TLS_THREAD_STACK if threaded else 0)
    rig = make(root, port, password, step_ms=5, stack=stack)
    if port == 0:
        rig.app.net = None  # the baseline: the same loop without the network
    n = rig.app.net
    rig.run(1700)
    rig.press(LEFT)
    worst = 0
    total = 0
    step = rig.app.step
    for i in range(n_iter):
        if threaded is not None and i % 200 == 199 and n.st == net.UP:
            n._fail(rig.now, "bench: connect again", 1)
        rig.now = rig.add(rig.now, 5)
        t = time.ticks_us()
        step()
        d = time.ticks_diff(time.ticks_us(), t)
        total += d
        if d > worst:
            worst = d
        time.sleep_ms(1)  # real time passes too: the broker's side moves
    return {"worst_us": worst, "mean_us": total // n_iter,
            "note": n.note if n else "", "connects": n.connects if n else 0, "rem": [rig.clock.rem[0], rig.clock.rem[1]]}


def stack(root, port, password, size):
    """A board whose TLS_THREAD_STACK is `size` (0: the handshake in the
    loop's own steps): does it connect, and did a thread do the handshake."""
    rig = make(root, port, password, stack=size)
    n = rig.app.net
    ok = until(rig, lambda: n.st == net.UP and n.subscribed)
    return {"connected": ok, "note": n.note, "thread": n.wire.hs.threads > 0}


def blocking_connect(port, password, timeout_s):
    """What a blocking client (umqtt.simple's connect(): socket.connect, then
    read(4) for the CONNACK) costs one loop iteration: us until it returns,
    bounded here by a socket timeout (umqtt.simple sets none by default)."""
    import socket
    t = time.ticks_us()
    s = socket.socket()
    try:
        s.settimeout(timeout_s)
        s.connect(socket.getaddrinfo("127.0.0.1", port)[0][-1])
        s.write(mqtt.connect_packet("blocking", "1", password, "scrabble/mp/1/status", "x",
                                     hallmsg.KEEPALIVE_S))
        s.read(4)
    except OSError:
        pass
    s.close()
    return time.ticks_diff(time.ticks_us(), t)


if __name__ == "__main__":
    root, port, password, what = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if what == "heap":
        r = heap(root, port, password)
    elif what == "waiting":
        r = waiting(root, port, password)
    elif what == "tlsloop":
        r = loop(root, port, password, int(sys.argv[5]), int(sys.argv[6]))
    elif what == "stack":
        r = stack(root, port, password, int(sys.argv[5]))
    elif what == "refused":
        r = refused(root, port, password)
    elif what == "blocking":
        r = {"worst_us": blocking_connect(port, password, 3)}
    else:
        r = loop(root, port, password, int(sys.argv[5]) if len(sys.argv) > 5 else 3000)
    print(json.dumps(r))
