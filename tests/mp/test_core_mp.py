# The timing core and the view under the real MicroPython interpreter.
#
# Real game scenarios with asserted results (the same rules as
# tests/test_core.py), played on a tick counter that wraps at 2**30 like the
# boards', plus heap-allocation measurements of the steady-state calls.
import clockcore as cc
import profiles
import ticks
import view
from mptest import eq, heap_bytes as _alloc

MIN = 60000
DIFF, ADD = ticks.wrapping(1 << 30)
T0 = (1 << 30) - 45000  # the counter wraps 45 s into every game


def clock(name, over=None, hook=None):
    return cc.Clock(profiles.make_rules(name, over), T0, DIFF, ADD, hook)


def at(ms):
    return ADD(T0, ms)


def rows(c, cols=16, nrows=2):
    v = view.View(cols, nrows)
    return [view.to_text(b) for b in v.render(c)]


def test_sdev_game_overtime_penalty_and_forfeit_tso_5_2():
    events = []
    c = clock("sdev", {"base": "01:00"}, lambda code, s, t, a: events.append((code, s, DIFF(t, T0))))
    c.press(cc.LEFT, at(0))                  # right runs (across the wrap)
    c.press(cc.RIGHT, at(50000))             # left runs, window opens
    eq(c.win, 20000, "window")
    c.update(at(50000 + MIN + 61000))
    eq(c.overtime(cc.LEFT), 61000, "overtime")
    eq(c.penalty(cc.LEFT), 20, "penalty at 61 s over")
    eq(rows(c)[0], "\u25c0-01:01\u2691  00:10 ", "row0")
    eq(rows(c)[1], "P20             ", "row1")
    c.update(at(50000 + MIN + 301000))
    eq(c.state, cc.OVER, "forfeit ends the game")
    eq(c.forfeited[cc.LEFT], True, "forfeit flag")
    eq(events[-1], (cc.EV_FORFEIT, cc.LEFT, 50000 + MIN + 301000), "forfeit instant")
    eq(rows(c)[1][:5], "LOST ", "row1 shows the loss")


def test_end_charges_the_last_turn_and_void_gives_it_back_tso_5_1_b_i_5_2_d():
    c = clock("sdev", {"base": "01:00"})
    c.press(cc.LEFT, at(0))
    c.press(cc.RIGHT, at(20000))
    c.update(at(200000))
    c.end(at(200000))
    eq(c.rem, [-120000, 40000], "the end charges left's last turn (TSO § 5.1 b i)")
    eq(c.void(cc.RIGHT, at(201000)), False, "void for the wrong side: nothing")
    eq(c.void(cc.LEFT, at(201000)), True, "void (TSO § 5.2 d)")
    eq(c.rem, [MIN, 40000], "left gets back all since right's press")
    eq(c.resume(at(202000)), True, "resume undoes the end")
    eq(c.state, cc.PAUSED, "paused after resume")


def test_pfs_flag_then_other_plays_on_pfs_6_2_1():
    c = clock("pfs", {"base": "01:00"})
    c.press(cc.LEFT, at(0))
    c.update(at(70000))
    eq(c.state, cc.PAUSED, "flag pauses")
    eq(c.flag(cc.RIGHT), True, "flag")
    c.pause(at(71000))
    eq(c.running(), -1, "the pause key leaves a flagged clock stopped (PFS § 6.2.2)")
    c.press(cc.RIGHT, at(71000))
    eq(c.running(), cc.LEFT, "a player button runs the remaining player")
    c.update(at(71000 + MIN))
    eq(c.state, cc.OVER, "both out")


def test_snapshot_restore_same_future():
    a = clock("sdev")
    a.press(cc.LEFT, at(0))
    a.press(cc.RIGHT, at(12345))
    b = clock("sdev")
    b.restore(list(a.snapshot()))
    for c in (a, b):
        c.pause(at(20000))
        c.pause(at(25000))
        c.update(at(99999))
    eq(a.rem, b.rem, "rem")
    eq(a.win, b.win, "win")


def test_steady_state_calls_allocate_nothing():
    c = clock("sdev", {"base": "01:00"})
    v = view.View(16, 2)
    v4 = view.View(20, 4)
    c.press(cc.LEFT, at(0))
    c.press(cc.RIGHT, at(1000))
    state = {"t": 1000}

    def tick():  # per-loop update, 1 ms apart, no boundary
        state["t"] += 1
        c.update(at(state["t"]))

    def query():
        c.remaining(0)
        c.overtime(1)
        c.penalty(0)
        c.running()
        c.flag(1)
        c.out(0)

    def render():
        v.render(c)
        v4.render(c)

    eq(_alloc(tick), 0, "update() bytes")
    eq(_alloc(query), 0, "queries bytes")
    eq(_alloc(render), 0, "view render bytes")
    c.update(at(1000 + MIN + 70000))    # in overtime with penalties shown
    eq(_alloc(render), 0, "view render in overtime bytes")
    c.pause(at(1000 + MIN + 70000))
    eq(_alloc(render), 0, "view render paused bytes")
    d = clock("sdev")
    d.start_late(cc.LEFT, at(0))
    d.update(at(5000))

    def render_late():
        d.update(at(5001))
        v.render(d)
        v4.render(d)
    eq(_alloc(render_late), 0, "view render of a lateness bytes")


def test_wrapping_ticks_exact_and_allocation_free_at_the_wrap():
    # issue 11: on a 32-bit port (31-bit small ints) the old `(t + d) & mask`
    # made a heap bigint near 2**30.  The pair must give the modular answer
    # and allocate nothing, as the C time.ticks_diff/ticks_add do.
    top = (1 << 30) - 1
    eq(ADD(top, 1), 0, "add across the wrap")
    eq(ADD(top - 5, 10), 4, "add past the wrap")
    eq(ADD(3, -10), top - 6, "add backwards across the wrap")
    eq(DIFF(4, top - 5), 10, "diff across the wrap")
    eq(DIFF(top - 5, 4), -10, "diff backwards across the wrap")
    eq(DIFF(1 << 29, 0), -(1 << 29), "half a period is negative")
    eq(DIFF((1 << 29) - 1, 0), (1 << 29) - 1, "just under half a period")

    def near_wrap():
        ADD(top - 100, 1000)
        ADD(top, top)
        DIFF(5, top - 5)
        DIFF(top, 0)

    eq(_alloc(near_wrap), 0, "bytes allocated by ticks arithmetic at the wrap")
