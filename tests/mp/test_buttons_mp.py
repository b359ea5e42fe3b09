# Buttons and Gestures under the real MicroPython interpreter (run by
# tests/test_micropython.py through tests/mp/mptest.py).
#
# The key scenarios of tests/test_buttons.py, plus what only MicroPython can
# tell: the IRQ path allocates nothing (heap locked, as in a hard IRQ), and
# Gestures.next() allocates nothing in steady state, idle or with events
# flowing (gc.mem_alloc() before/after).
import gc
import random

import machine
import micropython
import buttons as B
from mptest import eq
from buttons_rig import Rig, PERIOD, DIFF, ADD, START_MS, L, R, P


def test_first_edge_is_the_press_time_despite_bounce():
    r = Rig()
    r.loop(100)
    r.bounce(L, 100.3, 0, [0.1, 0.3, 0.1, 1.2, 0.5, 2.0])
    r.loop(130)
    eq(r.names(), [("left", 100)], "press dated at its first edge")


def test_press_time_is_the_edge_even_if_the_loop_is_late():
    r = Rig()
    r.press(R, 250)
    r.at(700)
    r.drain()
    eq(r.names(), [("right", 250)], "late loop")


def test_bounce_trains_give_one_press_one_release():
    random.seed(7)
    r = Rig()
    t = 50.0
    want = []
    got = []
    for _ in range(20):
        gaps = [random.uniform(0.1, 5.0) for _ in range(2 * random.randint(1, 10))]
        end = r.bounce(L, t, 0, gaps)
        want.append((L, B.PRESS, int(t)))
        hold = end + random.uniform(26, 300)
        got += r.raw_loop(int(hold), 3)
        gaps = [random.uniform(0.1, 5.0) for _ in range(2 * random.randint(1, 10))]
        want.append((L, B.RELEASE, int(hold)))
        end = r.bounce(L, hold, 1, gaps)
        t = end + 26 + random.uniform(0, 200)
        got += r.raw_loop(int(t), 3)
    got += r.raw_loop(int(t) + 100)
    eq(got, want, "one press and one release per burst")


def test_quick_double_press_is_two_presses():
    r = Rig()
    r.press(L, 100)
    r.release(L, 160)
    r.press(L, 186)
    r.release(L, 240)
    eq(r.raw_loop(400), [(L, 1, 100), (L, 0, 160), (L, 1, 186), (L, 0, 240)], "double tap")


def test_held_button_does_not_repeat():
    r = Rig()
    r.press(R, 10)
    r.loop(3000, 7)
    r.bounce(R, 3000, 0, [0.5, 0.5])        # chatter while held
    r.loop(15000, 13)
    eq(r.names(), [("right", 10)], "one press")
    assert r.g.held(R)


def test_both_player_buttons_within_1ms_in_edge_order():
    r = Rig()
    r.loop(100)
    r.bounce(R, 100.2, 0, [0.1, 0.4])
    r.bounce(L, 101.1, 0, [0.3, 0.2])
    r.loop(400)
    eq(r.names(), [("right", 100), ("left", 101)], "edge order")


def test_pause_short_and_long():
    r = Rig()
    r.press(P, 500)
    r.loop(800)
    r.release(P, 800)
    r.loop(2000)
    eq(r.names(), [("pause_down", 500), ("pause_short", 800)], "short")
    r.press(P, 3000)
    r.loop(4999)
    eq(len(r.names()), 3, "not long yet")
    r.loop(5000)
    eq(r.names()[3], ("pause_long", 3000), "long")
    r.loop(20000, 10)
    r.release(P, 20000)
    r.loop(21000)
    eq(len(r.names()), 4, "nothing more on release, never referee")


def test_referee_needs_3s_of_all_three():
    r = Rig()
    r.press(P, 100)
    r.press(L, 400)
    r.press(R, 600)
    r.loop(3599)
    eq(r.names(), [("pause_down", 100)], "no game actions, no long")
    r.loop(3600)
    eq(r.names(), [("pause_down", 100), ("referee", 3600)], "referee")
    r.release(R, 5000)
    r.release(L, 5100)
    r.release(P, 5200)
    r.loop(6000)
    eq(len(r.names()), 2, "once, nothing on release")


def test_pause_with_one_player_button_is_late_never_referee():
    r = Rig()
    r.press(P, 100)
    r.press(L, 150)
    r.loop(12000, 5)
    eq(r.names(), [("pause_down", 100), ("late_l", 2150)], "no referee, no long")


def test_across_the_wrap():
    r = Rig(start_ms=PERIOD - 2000)
    r.press(P, 0)
    r.loop(1500)
    r.press(L, 1500)
    r.press(R, 1600)                        # tick 2**30 - 400
    r.loop(4599)
    eq(r.names(), [("pause_down", 0)], "before")
    r.loop(4600)                            # tick 2600
    eq(r.names(), [("pause_down", 0), ("referee", 4600)], "referee across the wrap")
    r2 = Rig()
    r2.press(P, 1000)                       # long hold from 2**30 - 500
    r2.loop(2999)
    eq(len(r2.names()), 1, "not yet")
    r2.loop(3000)
    eq(r2.names(), [("pause_down", 1000), ("pause_long", 1000)], "long across the wrap")


def test_ring_overflow_keeps_the_oldest():
    r = Rig()
    t = 100
    for k in range(40):
        r.press(k % 2, t)
        r.release(k % 2, t + 40)
        t += 100
    assert r.b.dropped > 0
    evs = r.raw_loop(t + 200)
    kept = (B.RING - 1) // 2
    eq([e for e in evs if e[1] == B.PRESS][:kept], [(k % 2, 1, 100 + 100 * k) for k in range(kept)], "oldest kept")
    assert not r.b.pressed(0) and not r.b.pressed(1)


def _mash_edges(end, want, pauses):
    """The pin edges of `end` ms of random mashing, yielded lazily in time
    order (issue 11: the whole list does not fit a Pico's 240 KB heap).
    Every press is an edge, a 0.5 ms bounce, and a release; presses of one
    button never overlap.  Appends to want[i] the tick (ms) at which each
    player press must be a game action (its first edge finds the pause key
    up), and one entry to `pauses` per pause press."""
    queues = ([], [], [])       # each button's edges not yet yielded, in order
    free = [0.0, 0.0, 0.0]
    hold = (-1.0, -1.0)         # the latest pause press: (down, up)
    t = 10.0                    # no later press starts before t
    while True:
        while True:             # yield every edge that no new press can precede
            best = -1
            for i in (0, 1, 2):
                if queues[i] and (best < 0 or queues[i][0][0] < queues[best][0][0]):
                    best = i
            if best < 0 or (t < end and queues[best][0][0] >= t):
                break
            yield queues[best].pop(0)
        if t >= end:
            return
        i = random.choice((0, 1, 0, 1, 2))
        t0 = max(t, free[i] + 26)
        dur = random.uniform(30, 1900) if i == 2 else random.uniform(30, 2500)
        q = queues[i]
        q.append((t0, i, 0))
        q.append((t0 + 1.5, i, 1))
        q.append((t0 + 2.0, i, 0))      # a bounce
        q.append((t0 + 2.0 + dur, i, 1))
        if i == 2:
            hold = (t0, t0 + 2.0 + dur)
            pauses.append(t0)
        elif not hold[0] < t0 < hold[1]:
            want[i].append(int(t0 * 1000 + 0.5) // 1000)
        free[i] = t0 + 2.0 + dur
        t = t0 + random.uniform(20, 500)


def test_mashing_ten_minutes_never_referee():
    random.seed(11)
    r = Rig()
    want = ([], [])
    pauses = []
    got = {"pause_down": 0, "left": 0, "right": 0}
    end = 10 * 60 * 1000
    edges = _mash_edges(end, want, pauses)
    nxt = next(edges, None)
    loop_at = 0
    while True:
        if nxt is not None and nxt[0] <= loop_at:
            ms, i, lv = nxt
            r.at(ms)
            r.pins[i].drive(None if lv else 0)
            nxt = next(edges, None)
            continue
        if nxt is None:
            r.loop(end + 5000, 10)
        else:
            r.at(loop_at)
            r.drain()
            loop_at += random.choice((1, 5, 10, 30))
        for name, t in r.names():       # checked as they come, then dropped
            assert name not in ("referee", "pause_long"), (name, t)
            if name in got:
                got[name] += 1
            if name in ("left", "right"):
                i = 0 if name == "left" else 1
                # every player press whose first edge found the pause key up
                # is a game action at that edge's tick, in order
                assert want[i], (name, t)
                eq(t, want[i].pop(0), name)
        r.actions.clear()
        if nxt is None:
            break
    eq(want, ([], []), "presses that never became actions")
    eq(got["pause_down"], len(pauses), "pause presses")
    assert got["left"] + got["right"] > 300


# -- allocation ---------------------------------------------------------------

def test_irq_path_allocates_nothing():
    for hard in (False, True):
        r = Rig(hard=hard)
        r.loop(10)
        r.press(L, 10)                      # warm up
        r.release(L, 60)
        r.loop(200)
        micropython.heap_lock()
        try:
            r.pins[L].drive(0)              # the handler runs with the heap locked
            r.pins[L].drive(None)
            r.pins[L].drive(0)
            r.pins[P].drive(0)
        finally:
            micropython.heap_unlock()
        r.loop(300)
        eq(r.names(), [("left", 10), ("left", 200), ("pause_down", 200)], "recorded under heap lock")


def _alloc(fn, n=300):
    """Bytes left allocated by n calls (after a warm-up)."""
    for _ in range(5):
        fn()
    gc.collect()
    a = gc.mem_alloc()
    for _ in range(n):
        fn()
    return gc.mem_alloc() - a


def _provokes_gc(fn, n=300):
    """Did n calls allocate at all, even memory freed again at once (call
    frames too big for the C stack are heap-allocated and freed on return,
    invisible to mem_alloc)?  With a low gc threshold any allocation soon
    triggers a collection, which frees a piece of garbage left on purpose."""
    for _ in range(5):
        fn()
    gc.collect()
    gc.threshold(512)
    junk = bytearray(3000)
    junk = None
    a = gc.mem_alloc()
    for _ in range(n):
        fn()
    freed = a - gc.mem_alloc()
    gc.threshold(-1)
    return freed > 0


# Module-level state for the measured loops (a closure's cells would count).
S = {}


def _idle():                                # empty queue
    r = S["r"]
    r.us += 1000
    S["g"].next(r.ticks_ms())


def _drain_into(seen):
    r = S["r"]
    g = S["g"]
    now = r.ticks_ms()
    while True:
        a = g.next(now)
        if a == 0:
            return
        seen[a] = 1


def _flow():                                # bounce, presses, releases, gestures
    r = S["r"]
    pins = r.pins
    seen = S["seen"]
    r.us += 1000
    pins[0].drive(0)
    pins[0].drive(None)
    pins[0].drive(0)                        # LEFT, with bounce
    _drain_into(seen)
    r.us += 60000
    pins[0].drive(None)
    pins[2].drive(0)                        # PAUSE_DOWN ...
    pins[1].drive(0)                        # ... with a player press (no game action)
    _drain_into(seen)
    r.us += 40000
    pins[1].drive(None)
    pins[2].drive(None)
    _drain_into(seen)
    r.us += 40000
    pins[2].drive(0)                        # PAUSE_DOWN, PAUSE_SHORT
    _drain_into(seen)
    r.us += 30000
    pins[2].drive(None)
    _drain_into(seen)
    r.us += 30000
    _drain_into(seen)


def _stalled():                             # bursts queued behind each other
    r = S["r"]
    pins = r.pins
    r.us += 1000
    pins[2].drive(0)
    r.us += 300000
    pins[2].drive(None)                     # pause up ...
    r.us += 5000
    pins[1].drive(0)                        # ... a player press behind it ...
    r.us += 30000
    pins[2].drive(0)                        # ... and the pause again, all queued
    r.us += 300000
    pins[2].drive(None)
    pins[1].drive(None)
    r.us += 100000
    _drain_into(S["seen"])


def _big(a, b, c, d, e):                    # a frame too big for the C stack
    f = a + b
    g = c + d
    h = e + f
    i = g + h
    j = i + a
    k = j + b
    m = k + c
    n = m + d
    return n + e


def _calls_big():
    _big(1, 2, 3, 4, 5)


def test_next_allocates_nothing_idle_or_with_events_flowing():
    # the detector works: a big frame is caught, a plain call is not
    assert _provokes_gc(_calls_big, 2000)
    S["r"] = r = Rig()
    S["g"] = r.g
    S["seen"] = seen = bytearray(8)
    assert not _provokes_gc(_idle, 2000)
    eq(_alloc(_idle, 2000), 0, "next() idle: bytes")
    eq(_alloc(_flow), 0, "next() with events flowing: bytes")
    assert not _provokes_gc(_flow), "next() with events flowing allocates"
    assert not _provokes_gc(_stalled), "queued bursts allocate"
    assert seen[B.LEFT] and seen[B.RIGHT] and seen[B.PAUSE_DOWN] and seen[B.PAUSE_SHORT]
    eq(r.b.dropped, 0, "dropped")
    S.clear()
