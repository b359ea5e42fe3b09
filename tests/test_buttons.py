"""Buttons (firmware/buttons.py): pin edges -> debounced presses and
releases, each dated at its own edge (SPEC v3 §4 "Buttons": "A press is taken
on its leading edge and dated at that edge; contacts bounce, so debounce
without adding latency to the first edge.  Held buttons do not repeat.").
What the app makes of them (groups, gestures) is tests/test_gestures.py.

The pins are the fake machine.Pin: drive(0) presses (the IRQ handler runs
synchronously, as a hard IRQ would), drive(None) releases.  A virtual clock in
microseconds is behind the injected ticks_ms, wrapped at the boards' 2**30 ms
and started just before the wrap, so every scenario also crosses it.  The
tests read Buttons' own events (Rig.raw_loop / Rig.events), never Gestures.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython (where the
last test checks that the IRQ path allocates nothing),
tests/test_target_qemu.py on the 32-bit image.
"""
import machine
import buttons as B
from buttons_rig import Rig, PERIOD, DIFF, ADD, START_MS, L, R, P  # noqa: F401
from mptest import Random, eq, micropython_only, parametrize
from mptest import small_heap


def rig_ms(t):
    """The millisecond the rig's tick reads at t ms (it keeps whole µs)."""
    return int(t * 1000 + 0.5) // 1000


def seen(r, until_ms):
    """Poll every ms up to until_ms: [(button, kind, t, ms it came out)]."""
    out = []
    t = r.us / 1000
    while True:
        out += [e + (rig_ms(t),) for e in r.events()]
        if t >= until_ms:
            return out
        t = min(int(t) + 1, until_ms)
        r.at(t)


# -- debounce ------------------------------------------------------------------

def test_press_is_dated_at_its_first_edge_despite_bounce():
    r = Rig()
    r.raw_loop(100)
    r.at(100.3)                       # mid-millisecond: the tick reads 100
    end = r.bounce(L, 100.3, 0, [0.1, 0.3, 0.1, 1.2, 0.5, 2.0, 0.2])
    # available at the first poll after the train (0 ms latency in t), once
    assert r.events() == [(L, B.PRESS, 100)]
    assert rig_ms(end) == 104
    assert r.raw_loop(400) == []


def test_press_time_is_the_edge_not_when_the_loop_reads_it():
    r = Rig()
    r.raw_loop(200)
    r.press(R, 250)                   # the main loop is busy (LCD, flash) for 400 ms
    r.at(650)
    assert r.events() == [(R, B.PRESS, 250)]


@parametrize("seed", range(20))
def test_bounce_trains_give_one_press_and_one_release(seed):
    rnd = Random(seed)
    r = Rig()
    t = 50.0
    expect = []
    evs = []
    for _ in range(30):
        gaps = [rnd.uniform(0.1, 5.0) for _ in range(2 * rnd.randint(1, 12))]
        end = r.bounce(L, t, 0, gaps)                  # press train, ends low
        expect.append((L, B.PRESS, rig_ms(t)))
        hold = end + rnd.uniform(26, 400)
        evs += r.raw_loop(hold, every_ms=rnd.choice((1, 3, 10)))
        gaps = [rnd.uniform(0.1, 5.0) for _ in range(2 * rnd.randint(1, 12))]
        expect.append((L, B.RELEASE, rig_ms(hold)))
        end = r.bounce(L, hold, 1, gaps)               # release train, ends high
        t = end + 25 + rnd.uniform(0.01, 300)
        evs += r.raw_loop(t, every_ms=rnd.choice((1, 3, 10)))
    evs += r.raw_loop(t + 100)
    assert evs == expect


def test_bounces_between_loop_iterations_give_one_event_each():
    r = Rig()
    r.at(10)
    r.bounce(P, 10, 0, [0.2] * 30)    # 31 edges, no loop iteration in between
    r.at(300)
    r.bounce(P, 300, 1, [0.3] * 20)
    r.at(400)
    assert r.raw_loop(500) == [(P, B.PRESS, 10), (P, B.RELEASE, 300)]


def test_release_waits_for_a_quiet_line_but_keeps_its_edge_time():
    r = Rig(debounce_ms=25)
    r.press(L, 10)
    r.raw_loop(200)
    r.bounce(L, 200, 1, [1, 3])       # release burst 200..204
    evs = r.raw_loop(228)
    assert evs == []                  # 24 ms after the last edge: not yet
    assert r.b.pending()
    assert r.raw_loop(229) == [(L, B.RELEASE, 200)]
    assert not r.b.pending()


def test_quick_double_press_after_debounce_gives_two_presses():
    r = Rig(debounce_ms=25)
    r.press(L, 100)
    r.release(L, 160)
    r.press(L, 186)                   # 26 ms after the release
    r.release(L, 240)
    assert r.raw_loop(400) == [(L, B.PRESS, 100), (L, B.RELEASE, 160),
                               (L, B.PRESS, 186), (L, B.RELEASE, 240)]


def test_double_press_between_loop_iterations_is_not_lost():
    r = Rig()
    r.press(R, 100)
    r.release(R, 150)
    r.press(R, 250)
    r.release(R, 300)                 # all while the loop is stalled
    r.at(800)
    assert r.raw_loop(800) == [(R, B.PRESS, 100), (R, B.RELEASE, 150),
                               (R, B.PRESS, 250), (R, B.RELEASE, 300)]


def test_tap_shorter_than_debounce_is_one_press_and_one_release():
    r = Rig(debounce_ms=25)
    r.bounce(L, 100, 0, [0.2, 0.2])
    r.bounce(L, 110, 1, [0.5, 0.5])   # released 10 ms after the press
    assert r.raw_loop(300) == [(L, B.PRESS, 100), (L, B.RELEASE, 111)]
    assert not r.b.pressed(L)


def test_held_button_does_not_repeat_and_chatter_is_not_a_release():
    r = Rig()
    r.press(R, 10)
    evs = r.raw_loop(3000, every_ms=7)
    r.bounce(R, 3000, 0, [0.5, 0.5])  # contact chatter while held
    evs += r.raw_loop(20000, every_ms=13)
    assert evs == [(R, B.PRESS, 10)]
    assert r.b.pressed(R)


def test_missed_release_edge_does_not_leave_a_button_stuck():
    r = Rig()
    r.press(L, 10)
    r.raw_loop(100)
    pin = r.pins[L]
    h = pin._handler
    pin._handler = None               # the IRQ misses the release edge
    r.release(L, 100)
    pin._handler = h
    evs = r.raw_loop(200)
    assert evs == [(L, B.RELEASE, 10)]   # dated at its last seen edge (best known)
    assert not r.b.pressed(L)
    r.press(L, 300)
    assert r.raw_loop(310) == [(L, B.PRESS, 300)]


def test_button_held_at_start_gives_no_press_and_its_release_is_known():
    machine.reset_world()
    pins = tuple(machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (14, 15, 16))
    pins[P].drive(0)
    clk = [START_MS]
    b = B.Buttons(pins, lambda: clk[0], DIFF)
    assert b.pressed(P) and not b.pressed(L)
    out = []

    def run(k0, k1):
        for k in range(k0, k1):
            clk[0] = ADD(START_MS, k)
            b.poll(clk[0])
            while b.get() >= 0:
                out.append((b.i, b.kind, DIFF(b.t, START_MS), k))

    run(0, 5000)
    assert out == []                  # held 5 s: no press, no repeat
    pins[P].drive(None)               # released at 4999 (the clock's last tick)
    run(5000, 5100)
    assert out == [(P, B.RELEASE, 4999, 5024)]
    assert not b.pressed(P)
    clk[0] = ADD(START_MS, 5200)
    pins[P].drive(0)
    run(5200, 5201)
    assert out[1:] == [(P, B.PRESS, 5200, 5200)]     # and it works as any key


def test_release_dated_across_the_wrap():
    r = Rig()
    r.press(L, 1400)
    r.bounce(L, 1490, 1, [3, 4, 5, 1])  # release burst 2**30 - 10 .. tick 3
    assert r.raw_loop(1600) == [(L, B.PRESS, 1400), (L, B.RELEASE, 1490)]
    assert r.ms(1490) == PERIOD - 10


def test_presses_and_releases_across_the_wrap():
    # START_MS is 1.5 s before the 2**30 wrap
    r = Rig()
    assert r.ms(1499) == PERIOD - 1 and r.ms(1500) == 0
    evs = r.raw_loop(1400)
    r.press(L, 1400)
    evs += r.raw_loop(1450)
    r.release(L, 1450)
    evs += r.raw_loop(1499.5)
    r.press(R, 1499.5)                # tick 2**30 - 1
    evs += r.raw_loop(1520)
    r.release(R, 1520)                # tick 20, a release across the wrap
    evs += r.raw_loop(1800)
    r.press(P, 1800)                  # tick 300, after the wrap
    evs += r.raw_loop(1900)
    r.release(P, 1900)
    assert evs + r.raw_loop(2500) == [(L, B.PRESS, 1400), (L, B.RELEASE, 1450),
                                (R, B.PRESS, 1499), (R, B.RELEASE, 1520),
                                (P, B.PRESS, 1800), (P, B.RELEASE, 1900)]


def test_ring_overflow_keeps_the_oldest_presses_and_resyncs():
    r = Rig()
    r.raw_loop(10)
    t = 100
    for k in range(40):               # the main loop stalls through 40 taps
        r.press(L if k % 2 == 0 else R, t)
        r.release(L if k % 2 == 0 else R, t + 40)
        t += 100
    assert r.b.dropped > 0
    evs = r.raw_loop(t + 200)
    kept = B.RING - 1                 # bursts held by the ring
    presses = [e for e in evs if e[1] == B.PRESS]
    assert presses[: kept // 2] == [(L if k % 2 == 0 else R, B.PRESS, 100 + 100 * k) for k in range(kept // 2)]
    assert r.b.dropped == 80 - kept
    assert not r.b.pressed(L) and not r.b.pressed(R)
    # events for a button alternate press/release: never two presses in a row
    for i in (L, R):
        kinds = [k for b, k, _ in evs if b == i]
        assert kinds == [B.PRESS, B.RELEASE] * (len(kinds) // 2)
    r.press(R, t + 300)               # and the buttons still work
    assert r.raw_loop(t + 310) == [(R, B.PRESS, t + 300)]


def test_event_queue_never_drops_when_the_app_does_not_read():
    r = Rig()
    t = 100
    for k in range(12):               # 24 events, more than EVENTS, polled but not read
        r.press(L, t)
        r.at(t + 1)
        r.b.poll(r.ticks_ms())
        r.release(L, t + 40)
        t += 100
        r.at(t)
        r.b.poll(r.ticks_ms())
    assert r.b.dropped == 0
    evs = r.raw_loop(t + 100)
    assert evs == [x for k in range(12) for x in ((L, B.PRESS, 100 + 100 * k), (L, B.RELEASE, 140 + 100 * k))]


# -- order: presses never wait -------------------------------------------------
# SPEC v3 §4 "Buttons": a press by one player "never delays, swallows or
# changes any other key's press".  Presses come out in the order of their
# first edges, each at the first poll after it; a release is known only
# debounce_ms after its edge, so it may come out after a later press of
# another key (gestures.py copes: REGROUP, tests/test_gestures.py).

@parametrize("first,second", [(L, R), (R, L)])
def test_both_player_buttons_within_one_ms_come_out_in_edge_order(first, second):
    r = Rig()
    r.raw_loop(100)
    r.bounce(first, 100.2, 0, [0.1, 0.4])
    got = seen(r, 101.1)
    r.bounce(second, 101.1, 0, [0.3, 0.2])
    got += seen(r, 400)
    assert got == [(first, B.PRESS, 100, 100), (second, B.PRESS, 101, 101)]


def test_same_millisecond_presses_keep_edge_order():
    r = Rig()
    r.raw_loop(50)
    r.press(R, 50.1)
    r.press(L, 50.6)
    assert r.raw_loop(200) == [(R, B.PRESS, 50), (L, B.PRESS, 50)]


def test_a_press_is_not_delayed_by_the_other_players_buttons():
    r = Rig()
    r.press(R, 100)
    got = seen(r, 1000)
    for ms, pin, lv in ((1000, R, 1), (1001, R, 0), (1002, R, 1), (1002.5, L, 0),
                        (1003, R, 0), (1003.4, R, 1)):
        r.at(ms)                          # R's finger lifts, bouncing, as L presses
        r.pins[pin].drive(None if lv else 0)
        got += [e + (rig_ms(ms),) for e in r.events()]
    got += seen(r, 1500)
    r.release(L, 1500)
    got += seen(r, 2000)
    for ms, pin, lv in ((2000, R, 0), (2000.5, L, 0), (2000.8, R, 1)):
        r.at(ms)                          # R presses and, mid-bounce, L presses
        r.pins[pin].drive(None if lv else 0)
        got += [e + (rig_ms(ms),) for e in r.events()]
    r.at(2001.5)
    r.pins[R].drive(0)
    got += seen(r, 2100)
    assert [e for e in got if e[1] == B.PRESS] == [
        (R, B.PRESS, 100, 100), (L, B.PRESS, 1002, 1002),
        (R, B.PRESS, 2000, 2000), (L, B.PRESS, 2000, 2000)]
    # R's release (its first edge, 1000) is known 25 ms after its last edge
    assert [e for e in got if e[1] == B.RELEASE] == [(R, B.RELEASE, 1000, 1028),
                                                     (L, B.RELEASE, 1500, 1525)]


def test_a_press_right_after_a_pause_release_does_not_wait_for_it():
    """SPEC v3 §4: no press waits.  The pause key's release at 600 is known
    at 626; the left press 10 ms after it comes out at once, at 610."""
    r = Rig()
    r.press(P, 100)
    r.raw_loop(600)
    r.bounce(P, 600, 1, [0.5, 0.5])   # pause released at 600 (settles at 626)
    r.bounce(L, 610, 0, [0.2, 0.2])   # left pressed 10 ms later
    assert seen(r, 700) == [(L, B.PRESS, 610, 610), (P, B.RELEASE, 600, 626)]


# -- an IRQ can land anywhere in the main loop --------------------------------

class _InterruptingPin:
    """Wraps a fake pin; the main loop's level reads through it may be
    'interrupted' by pending outside-world edges (their IRQ handlers run
    right there, before the read completes, as a hard IRQ would)."""

    def __init__(self, pin, world):
        self.pin = pin
        self.world = world
        self.IRQ_FALLING = pin.IRQ_FALLING
        self.IRQ_RISING = pin.IRQ_RISING

    def irq(self, handler, trigger, **kw):
        return self.pin.irq(handler, trigger, **kw)

    def value(self):
        self.world.maybe_interrupt()
        return self.pin.value()


class _World:
    def __init__(self, seed):
        self.rnd = Random(seed)
        self.due = []                  # edges waiting to happen: (pin, level)
        self.countdown = -1

    def maybe_interrupt(self):
        if self.countdown > 0:
            self.countdown -= 1
        if self.countdown == 0 and self.due:
            self.countdown = -1
            for pin, level in self.due:
                pin.drive(level)
            self.due = []


@parametrize("seed", range(8))
def test_edges_interrupting_the_main_loop_anywhere(seed):
    world = _World(seed)
    rnd = world.rnd
    machine.reset_world()
    real = tuple(machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (14, 15, 16))
    pins = tuple(_InterruptingPin(p, world) for p in real)
    clk = [START_MS]
    b = B.Buttons(pins, lambda: clk[0], DIFF)
    # a plan: each pin pressed and released in turn, each edge at a whole ms,
    # sometimes with same-ms bounce
    plan = {}                          # ms -> [(pin, level)]
    expect = []
    t = 10
    state = [1, 1, 1]
    for _ in range(120 if small_heap() else 400):   # the plan fits a Pico's heap
        i = rnd.randrange(3)
        t += rnd.choice((1, 3, 10, 30, 60))
        level = 1 - state[i]
        if level == 1 and t < last_press_t(expect, i) + 30:
            t = last_press_t(expect, i) + 30
        edges = [(real[i], None if level else 0)]
        if rnd.random() < 0.3:
            edges = [(real[i], None if level else 0), (real[i], 0 if level else None)] + edges
        plan.setdefault(t, []).extend(edges)
        expect.append((i, B.PRESS if level == 0 else B.RELEASE, t))
        state[i] = level
        t += 26                        # next burst on any pin at least D later
    got = []
    end = t + 100
    for ms in range(end + 1):
        clk[0] = ADD(START_MS, ms)
        if ms in plan:
            how = rnd.random()
            if how < 0.3:
                for p, lv in plan[ms]:
                    p.drive(lv)
            else:
                world.due = plan[ms]
                world.countdown = rnd.randint(1, 6)
        b.poll(clk[0])
        if world.due:                  # the poll made fewer reads: deliver now
            for p, lv in world.due:
                p.drive(lv)
            world.due = []
            world.countdown = -1
        while True:
            c = b.get()
            if c < 0:
                break
            got.append((b.i, b.kind, DIFF(b.t, START_MS)))
    # per button: alternating, exact times
    for i in range(3):
        assert [e for e in got if e[0] == i] == [e for e in expect if e[0] == i]
    assert sorted(got, key=lambda e: e[2]) == got      # in time order overall


def last_press_t(expect, i):
    for b, k, t in reversed(expect):
        if b == i:
            return t
    return -1000


# -- allocation (MicroPython only) ---------------------------------------------
# The IRQ path allocates nothing (heap locked, as in a hard IRQ).  Gestures.next()
# (which polls Buttons) is measured in tests/test_gestures.py.

@micropython_only
def test_irq_path_allocates_nothing():
    import micropython
    for hard in (False, True):
        r = Rig(hard=hard)
        r.raw_loop(10)
        r.press(L, 10)                      # warm up
        r.release(L, 60)
        evs = r.raw_loop(200)
        micropython.heap_lock()
        try:
            r.pins[L].drive(0)              # the handler runs with the heap locked
            r.pins[L].drive(None)
            r.pins[L].drive(0)
            r.pins[P].drive(0)
        finally:
            micropython.heap_unlock()
        evs += r.raw_loop(300)
        eq(evs, [(L, B.PRESS, 10), (L, B.RELEASE, 60), (L, B.PRESS, 200), (P, B.PRESS, 200)],
           "recorded under heap lock")
