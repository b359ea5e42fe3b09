"""Buttons (edge capture + debounce) and Gestures (the app's actions).

The pins are the fake machine.Pin: drive(0) presses (the IRQ handler runs
synchronously, as a hard IRQ would), drive(None) releases.  A virtual clock in
microseconds is behind the injected ticks_ms, wrapped at the boards' 2**30 ms
and started just before the wrap, so every scenario also crosses it.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython (where the
last part measures the heap the IRQ path and Gestures.next() allocate),
tests/test_target_qemu.py on the 32-bit image.
"""
import machine
import buttons as B
from buttons_rig import Rig, PERIOD, DIFF, ADD, START_MS, L, R, P  # noqa: F401
from mptest import Random, bytes_left, cpython_only, eq, micropython_only, parametrize
from mptest import small_heap


def rig_ms(t):
    """The millisecond the rig's tick reads at t ms (it keeps whole µs)."""
    return int(t * 1000 + 0.5) // 1000


# -- debounce: Buttons --------------------------------------------------------

def test_press_is_dated_at_its_first_edge_despite_bounce():
    r = Rig()
    r.loop(100)
    r.at(100.3)                       # mid-millisecond: the tick reads 100
    r.bounce(L, 100.3, 0, [0.1, 0.3, 0.1, 1.2, 0.5, 2.0, 0.2])
    r.drain()
    assert r.names() == [("left", 100)]
    assert r.actions[0][2] == 104     # available at the first loop after the edge (0 ms latency in t)


def test_press_time_is_the_edge_not_when_the_loop_reads_it():
    r = Rig()
    r.loop(200)
    r.press(R, 250)                   # the main loop is busy (LCD, flash) for 400 ms
    r.at(650)
    r.drain()
    assert r.names() == [("right", 250)]
    assert r.actions[0][2] == 650


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
    r.loop(200)
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
    r.loop(3000, every_ms=7)
    r.bounce(R, 3000, 0, [0.5, 0.5])  # contact chatter while held
    r.loop(20000, every_ms=13)
    assert r.names() == [("right", 10)]
    assert r.b.pressed(R) and r.g.held(R)


def test_missed_release_edge_does_not_leave_a_button_stuck():
    r = Rig()
    r.press(L, 10)
    r.loop(100)
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


def test_button_held_at_start_gives_no_press():
    machine.reset_world()
    pins = tuple(machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (14, 15, 16))
    pins[P].drive(0)
    clk = [START_MS]
    b = B.Buttons(pins, lambda: clk[0], DIFF)
    g = B.Gestures(b, DIFF)
    assert b.pressed(P) and g.held(P)
    out = []
    for k in range(5000):
        clk[0] = ADD(START_MS, k)
        a = g.next(clk[0])
        if a:
            out.append(a)
    pins[P].drive(None)
    for k in range(5000, 5100):
        clk[0] = ADD(START_MS, k)
        a = g.next(clk[0])
        if a:
            out.append(a)
    assert out == []                  # no PAUSE_DOWN, no PAUSE_LONG, no PAUSE_SHORT
    assert not g.held(P)


# -- gestures -----------------------------------------------------------------

def test_player_presses_are_immediate_game_actions():
    r = Rig()
    r.loop(100)
    r.press(L, 100)
    r.loop(180)
    r.release(L, 180)
    r.loop(2000)
    r.press(R, 2000)
    r.loop(2090)
    r.release(R, 2090)
    r.loop(3000)
    assert r.names() == [("left", 100), ("right", 2000)]
    assert [seen for _, _, seen in r.actions] == [100, 2000]


@parametrize("first,second", [(L, R), (R, L)])
def test_both_player_buttons_within_one_ms_come_out_in_edge_order(first, second):
    r = Rig()
    r.loop(100)
    r.bounce(first, 100.2, 0, [0.1, 0.4])
    r.bounce(second, 101.1, 0, [0.3, 0.2])
    r.loop(400)
    name = {L: "left", R: "right"}
    assert r.names() == [(name[first], 100), (name[second], 101)]


def test_same_millisecond_presses_keep_edge_order():
    r = Rig()
    r.loop(50)
    r.press(R, 50.1)
    r.press(L, 50.6)
    r.loop(200)
    assert r.names() == [("right", 50), ("left", 50)]


def test_pause_short_press():
    r = Rig()
    r.bounce(P, 500, 0, [0.3, 0.3])
    r.bounce(P, 800, 1, [0.5, 0.5])
    r.loop(5000)
    assert r.names() == [("pause_down", 500), ("pause_short", 800)]


def test_pause_released_just_before_long_is_short():
    r = Rig()
    r.press(P, 500)
    r.loop(2499)
    r.bounce(P, 2499, 1, [0.5, 0.5])  # 1999 ms hold
    r.loop(6000)
    assert r.names() == [("pause_down", 500), ("pause_short", 2499)]


def test_pause_long_press_fires_once_when_the_hold_reaches_long_ms():
    r = Rig()
    r.bounce(P, 500, 0, [0.3, 0.3, 1.0, 2.0])
    r.loop(60000, every_ms=1)         # a whole minute held
    r.release(P, 60000)
    r.loop(61000)
    assert r.names() == [("pause_down", 500), ("pause_long", 500)]
    assert r.actions[1][2] == 2500    # detected exactly when the hold reached 2 s


def test_referee_gesture_needs_three_seconds_of_all_three():
    r = Rig()
    r.press(P, 100)
    r.press(L, 400)
    r.press(R, 600)                   # all three down from 600
    r.loop(3599)
    assert r.names() == [("pause_down", 100)]      # no LEFT/RIGHT, no PAUSE_LONG
    r.loop(3600)
    assert r.names() == [("pause_down", 100), ("referee", 3600)]
    r.loop(10000, every_ms=3)
    r.release(R, 10000)
    r.release(L, 10100)
    r.release(P, 10200)
    r.loop(12000)
    assert r.names() == [("pause_down", 100), ("referee", 3600)]   # once; nothing on release


def test_referee_gesture_broken_early_gives_nothing():
    r = Rig()
    r.press(P, 100)
    r.press(L, 200)
    r.press(R, 300)
    r.release(R, 3250)                # 2950 ms of all three
    r.loop(3400)
    r.press(R, 3400)                  # the timer restarts from here
    r.loop(6399)
    assert r.names() == [("pause_down", 100)]
    r.loop(6400)
    assert r.names() == [("pause_down", 100), ("referee", 6400)]


def test_player_buttons_first_then_pause_never_ends_the_game():
    r = Rig()
    r.press(L, 100)
    r.press(R, 200)
    r.press(P, 300)
    r.loop(3299)
    assert r.names() == [("left", 100), ("right", 200), ("pause_down", 300)]   # no pause_long
    r.loop(3300)
    assert r.names()[-1] == ("referee", 3300)


def test_pause_with_one_player_button_is_never_referee_nor_long():
    """SPEC v2 §4 Gestures: the pause key, then one player button, held:
    that player is present and the other is late (LATE_L once, after
    long_ms); never REFEREE, never PAUSE_LONG (no end, no setup)."""
    r = Rig()
    r.press(P, 100)
    r.press(L, 150)
    r.loop(20000, every_ms=5)
    r.release(L, 20000)
    r.release(P, 20100)
    r.loop(21000)
    assert r.names() == [("pause_down", 100), ("late_l", 2150)]


def test_player_press_while_pause_held_cancels_the_short_press():
    r = Rig()
    r.press(P, 100)
    r.press(R, 200)
    r.release(R, 260)
    r.release(P, 400)
    r.loop(1000)
    assert r.names() == [("pause_down", 100)]


def test_press_right_after_a_pause_release_is_a_game_action_in_time_order():
    r = Rig()
    r.press(P, 100)
    r.loop(600)
    r.bounce(P, 600, 1, [0.5, 0.5])   # pause released at 600 (settles at 626)
    r.bounce(L, 610, 0, [0.2, 0.2])   # left pressed 10 ms later
    r.loop(1000)
    assert r.names() == [("pause_down", 100), ("pause_short", 600), ("left", 610)]


def test_pause_pressed_as_a_player_lifts_a_finger_is_still_alone():
    # The player's release (500) is confirmed only at 528, after the pause
    # press (510) came out: the pause hold still counts as alone.
    r = Rig()
    r.press(L, 100)
    r.loop(500)
    r.bounce(L, 500, 1, [1, 2])
    r.loop(510)
    r.press(P, 510)
    r.loop(800)
    r.release(P, 800)
    r.loop(1000)
    assert r.names() == [("left", 100), ("pause_down", 510), ("pause_short", 800)]
    assert [seen for _, _, seen in r.actions] == [100, 510, 825]
    r.press(R, 2000)
    r.loop(2400)
    r.bounce(R, 2400, 1, [1, 2])
    r.press(P, 2405)
    r.loop(6000)
    assert r.names()[-2:] == [("pause_down", 2405), ("pause_long", 2405)]
    assert r.actions[-1][2] == 4405


def test_a_press_is_not_delayed_by_the_other_players_buttons():
    r = Rig()
    r.press(R, 100)
    r.loop(1000)
    for ms, pin, lv in ((1000, R, 1), (1001, R, 0), (1002, R, 1), (1002.5, L, 0),
                        (1003, R, 0), (1003.4, R, 1)):
        r.at(ms)                          # R's finger lifts, bouncing, as L presses
        r.pins[pin].drive(None if lv else 0)
    r.loop(1010)
    r.release(L, 1500)
    r.loop(2000)
    for ms, pin, lv in ((2000, R, 0), (2000.5, L, 0), (2000.8, R, 1)):
        r.at(ms)                          # R presses and, mid-bounce, L presses
        r.pins[pin].drive(None if lv else 0)
    r.loop(2001)
    r.at(2001.5)
    r.pins[R].drive(0)
    r.loop(2100)
    assert r.names() == [("right", 100), ("left", 1002), ("right", 2000), ("left", 2000)]
    assert [seen for _, _, seen in r.actions] == [100, 1003, 2000, 2000]


def test_long_pause_alone_never_produces_referee():
    r = Rig()
    for k in range(5):
        r.press(P, 1000 + k * 20000)
        r.loop(1000 + k * 20000 + 15000, every_ms=10)
        r.release(P)
        r.loop(1000 + (k + 1) * 20000 - 1, every_ms=10)
    kinds = [n for n, _ in r.names()]
    assert kinds == ["pause_down", "pause_long"] * 5


def test_across_the_tick_wrap():
    # START_MS is 1.5 s before the 2**30 wrap: presses, a long hold and a
    # referee gesture all straddle it.
    r = Rig()
    assert r.ms(1499) == PERIOD - 1 and r.ms(1500) == 0
    r.press(L, 1400)
    r.release(L, 1450)
    r.press(R, 1499.5)                # tick 2**30 - 1
    r.release(R, 1520)                # tick 20, a release across the wrap
    r.press(P, 1800)                  # pause at tick 300, after the wrap
    r.release(P, 1900)
    r.loop(2500)
    assert r.names() == [("left", 1400), ("right", 1499), ("pause_down", 1800), ("pause_short", 1900)]

    r1 = Rig()
    r1.press(P, 1000)                 # long hold from tick 2**30 - 500
    r1.loop(5000)
    assert r1.names() == [("pause_down", 1000), ("pause_long", 1000)]
    assert r1.actions[1][2] == 3000   # detected at tick 1500 after the wrap

    r2 = Rig(start_ms=PERIOD - 2000)
    r2.press(P, 0)
    r2.loop(1500)
    r2.press(L, 1500)
    r2.press(R, 1600)                 # all three from tick 2**30 - 400 ...
    r2.loop(4599)
    assert r2.names() == [("pause_down", 0)]
    r2.loop(4600)                     # ... to tick 2600 after the wrap
    assert r2.names() == [("pause_down", 0), ("referee", 4600)]
    assert r2.ms(4600) == 2600


def test_release_dated_across_the_wrap():
    r = Rig()
    r.press(L, 1400)
    r.bounce(L, 1490, 1, [3, 4, 5, 1])  # release burst 2**30 - 10 .. tick 3
    assert r.raw_loop(1600) == [(L, B.PRESS, 1400), (L, B.RELEASE, 1490)]
    assert r.ms(1490) == PERIOD - 10


def test_ring_overflow_keeps_the_oldest_presses_and_resyncs():
    r = Rig()
    r.loop(10)
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


# -- mashing: a simulated hour ----------------------------------------------

def _tick(ms):
    """The (relative) tick a scenario time reads as (Rig.at rounds to 1 us)."""
    return int(round(ms * 1000)) // 1000


def _burst(rnd, t, final):
    """A train of edges starting at t ending at level `final`: [(ms, level)]."""
    gaps = [rnd.uniform(0.1, 5) for _ in range(2 * rnd.randint(0, 6))]
    lvl = final if len(gaps) % 2 == 0 else 1 - final
    out = [(t, lvl)]
    for g in gaps:
        t += g
        lvl = 1 - lvl
        out.append((t, lvl))
    return out


def _mash(seed, hours, stalls=False):
    """Players hammer the buttons: taps and holds of the player buttons,
    pause presses shorter than long_ms (often together with player buttons),
    every contact bouncing, a main loop of varying period.  Returns the rig,
    the plan of edges and each pin's presses as (first edge, release edge)."""
    rnd = Random(seed)
    r = Rig()
    end_ms = hours * 3600 * 1000
    plan = []                          # (ms, pin, level)
    holds = {L: [], R: [], P: []}      # (press first edge, release first edge)
    free = [0.0, 0.0, 0.0]             # per pin: line quiet from
    t = 10.0
    while t < end_ms:
        i = rnd.choice((L, R, L, R, P))
        t0 = max(t, free[i] + 26)
        if i == P:
            dur = rnd.uniform(30, 1900)                  # shorter than long_ms
        else:
            dur = rnd.choice((rnd.uniform(30, 200), rnd.uniform(200, 2500)))
        down = _burst(rnd, t0, 0)
        t1 = down[-1][0] + dur
        up = _burst(rnd, t1, 1)
        plan += [(ms, i, lvl) for ms, lvl in down + up]
        holds[i].append((t0, t1))
        free[i] = up[-1][0]
        t = t0 + rnd.expovariate(1 / 250.0)              # frantic: a press every 0.25 s
    plan.sort(key=lambda e: e[0])
    loop_at = 0.0
    k = 0
    while k < len(plan):
        if plan[k][0] <= loop_at:
            ms, i, lvl = plan[k]
            r.at(ms)
            r.pins[i].drive(None if lvl else 0)
            k += 1
            continue
        r.at(loop_at)
        r.drain()
        loop_at += rnd.choice((1, 2, 5, 10, 20, 40, 150, 400) if stalls else (1, 2, 5, 10, 20, 40))
    r.loop(end_ms + 3000, every_ms=10)
    return r, plan, holds


@cpython_only  # its edge plan is a list (MicroPython: the ten minutes below)
@parametrize("seed,hours,stalls", [(1, 1.0, False), (2, 0.25, False), (3, 0.25, True)])
def test_mashing_never_gives_referee_and_loses_no_press(seed, hours, stalls):
    # stalls: the main loop sometimes takes 150-400 ms (flash writes)
    r, plan, holds = _mash(seed, hours, stalls)
    assert r.b.dropped == 0
    names = r.names()
    kinds = [n for n, _ in names]
    assert "referee" not in kinds
    assert "pause_long" not in kinds
    assert len(holds[L]) + len(holds[R]) > 1000 * hours
    # every pause press, at its first edge
    assert [t for n, t in names if n == "pause_down"] == [_tick(p) for p, _ in holds[P]]

    def pause_held(t):
        return any(p < t < q for p, q in holds[P])

    def overlaps(p, q):
        return any(s < q and e > p for i in (L, R) for s, e in holds[i])

    # every player press is a game action at its first edge's time, exactly
    # when the pause key was up at that edge
    for i, n in ((L, "left"), (R, "right")):
        want = [_tick(s) for s, _ in holds[i] if not pause_held(s)]
        assert [t for k, t in names if k == n] == want
    assert any(pause_held(s) for s, _ in holds[L])          # the case occurred
    # a short pause press counts only when no player button was down meanwhile
    want = [_tick(q) for p, q in holds[P] if not overlaps(p, q)]
    assert [t for k, t in names if k == "pause_short"] == want
    assert 0 < len(want) < len(holds[P])
    # and nothing is left held
    assert not any(r.g.held(i) or r.b.pressed(i) for i in (L, R, P))


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


# -- ten minutes of mashing, in a Pico's heap ------------------------------------

def _mash_edges(rnd, end, want, pauses):
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
        i = rnd.choice((0, 1, 0, 1, 2))
        t0 = max(t, free[i] + 26)
        dur = rnd.uniform(30, 1900) if i == 2 else rnd.uniform(30, 2500)
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
        t = t0 + rnd.uniform(20, 500)


def test_mashing_ten_minutes_never_referee():
    """Issue 11: mashing with lazily made edges, so it also runs in a Pico's
    heap (the 32-bit image); no referee, no long pause, every press kept."""
    rnd = Random(11)
    r = Rig()
    want = ([], [])
    pauses = []
    got = {"pause_down": 0, "left": 0, "right": 0}
    end = 10 * 60 * 1000
    edges = _mash_edges(rnd, end, want, pauses)
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
            loop_at += rnd.choice((1, 5, 10, 30))
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


# -- allocation (MicroPython only) ---------------------------------------------
# What only MicroPython can tell: the IRQ path allocates nothing (heap locked,
# as in a hard IRQ), and Gestures.next() allocates nothing in steady state,
# idle or with events flowing (gc.mem_alloc() before/after).

@micropython_only
def test_irq_path_allocates_nothing():
    import micropython
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
    return bytes_left(fn, n, warm=5)


def _provokes_gc(fn, n=300):
    """Did n calls allocate at all, even memory freed again at once (call
    frames too big for the C stack are heap-allocated and freed on return,
    invisible to mem_alloc)?  With a low gc threshold any allocation soon
    triggers a collection, which frees a piece of garbage left on purpose."""
    import gc
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


@micropython_only
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
