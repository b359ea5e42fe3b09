"""Property-based tests of the timing core over random games (SPEC §4, §6).

Random event sequences with random gaps are driven through the real core.  An
observer checks every interval independently of the core's own bookkeeping:
the running side is charged exactly the ms it ran, nobody else anything.
"""
from hypothesis import given, settings, strategies as st

import clockcore as cc
import profiles
import ticks

RULESETS = [
    ("sdev", [("base", "01:00")]),
    ("sdev", []),
    ("pfs", [("base", "01:00")]),
    ("pfs", [("base_left", "00:30"), ("base_right", "02:00")]),
    ("custom", [("window", "5"), ("penalty", "3"), ("forfeit", "00:10")]),
    ("custom", [("zero", "flag"), ("window", "7")]),
]

op = st.tuples(
    st.integers(0, 90000),                                   # gap before it, ms
    st.sampled_from(["left", "right", "pause", "left", "right", "end", "adjust"]),
    st.integers(-120000, 120000),                            # adjust amount
)
games = st.tuples(st.integers(0, len(RULESETS) - 1), st.lists(op, max_size=60))


def make(idx, t0=0, diff=None, add=None, hook=None):
    name, over = RULESETS[idx]
    rules = profiles.make_rules(name, over)
    if diff is None:
        return cc.Clock(rules, t0, lambda a, b: a - b, lambda t, d: t + d, hook)
    return cc.Clock(rules, t0, diff, add, hook)


def apply(c, kind, amount, t):
    if kind == "left":
        return c.press(cc.LEFT, t)
    if kind == "right":
        return c.press(cc.RIGHT, t)
    if kind == "pause":
        return c.pause(t)
    if kind == "end":
        return c.end(t)
    return c.adjust(cc.LEFT if amount % 2 else cc.RIGHT, amount, t)


def observable(c):
    return (c.state, c.side, c.rem[0], c.rem[1], c.win,
            c.forfeited[0], c.forfeited[1], c.penalty(0), c.penalty(1))


def check_invariants(c):
    r = c.rules
    assert c.running() in (-1, 0, 1)
    assert (c.running() >= 0) == (c.state == cc.RUNNING)   # never two sides
    for s in (0, 1):
        assert c.remaining(s) >= 0 and c.overtime(s) >= 0
        secs = c.overtime(s) // 1000
        assert c.penalty(s) == r.penalty * -(-secs // 60)   # TSO § 5.2 b
        if r.zero == profiles.ZERO_FLAG:
            assert c.rem[s] >= 0                             # stops at 00:00
        elif r.forfeit >= 0:
            assert c.overtime(s) <= (r.forfeit + 1) * 1000
            assert c.forfeited[s] == (c.overtime(s) == (r.forfeit + 1) * 1000)
    assert 0 <= c.win <= r.window


@settings(max_examples=300, deadline=None)
@given(games)
def test_every_running_ms_is_charged_exactly_once(game):
    """SPEC §6 zero accumulated error: each interval is charged to the side
    that ran it, to the millisecond; pauses, ready and over charge nothing."""
    idx, ops = game
    hooks = []
    c = make(idx, hook=lambda code, s, t, a: hooks.append((code, s, t)))
    t = 0
    turn_start_rem = None
    for gap, kind, amount in ops:
        before = (c.state, c.side, list(c.rem))
        del hooks[:]
        t2 = t + gap
        c.update(t2)
        state, side, rem = before
        if state == cc.RUNNING:
            stop = t2
            if c.state != cc.RUNNING:
                stop = hooks[-1][2]          # the flag/forfeit instant
                assert t < stop <= t2
            assert rem[side] - c.rem[side] == stop - t
            assert c.rem[1 - side] == rem[1 - side]
        else:
            assert c.rem == rem
        check_invariants(c)
        t = t2
        before_rem = list(c.rem)
        was_running, s = c.state == cc.RUNNING, c.side
        ok = apply(c, kind, amount, t)
        if kind == "adjust" and ok and turn_start_rem and turn_start_rem[0] == s:
            # a referee change on the side whose turn it is stays through a
            # later end-of-game rollback
            turn_start_rem = (s, turn_start_rem[1] + c.rem[s] - before_rem[s])
        if kind in ("left", "right", "pause"):
            assert c.rem == before_rem                        # events charge nothing themselves
            # A turn starts with a press, or with the key that runs the
            # remaining player after a flag (not with a plain resume).
            if ok and c.state == cc.RUNNING and (kind != "pause" or c.side != s):
                turn_start_rem = (c.side, c.rem[c.side])
        elif kind == "end" and ok and was_running:
            # TSO § 5.2 d: the running side's turn is not charged
            assert turn_start_rem[0] == s
            assert c.rem[s] == turn_start_rem[1]
        check_invariants(c)
        if c.state == cc.OVER:
            frozen = observable(c)
            c.update(t + 10 ** 6)
            for k in ("left", "right", "pause", "end", "adjust"):
                apply(c, k, 1000, t + 10 ** 6)
            assert observable(c) == frozen                   # over stops everything
            break


@settings(max_examples=200, deadline=None)
@given(games, st.integers(1, 200000))
def test_identical_across_the_2_30_tick_wrap(game, before_wrap):
    """Tick wrap-around (2**30 ms on the boards) must not disturb anything."""
    idx, ops = game
    diff, add = ticks.wrapping(1 << 30)
    t0 = (1 << 30) - before_wrap
    a = make(idx)
    b = make(idx, t0, diff, add)
    t = 0
    for gap, kind, amount in ops:
        t += gap
        a.update(t)
        b.update(add(t0, t))
        apply(a, kind, amount, t)
        apply(b, kind, amount, add(t0, t))
        assert observable(a) == observable(b)


@settings(max_examples=200, deadline=None)
@given(games, st.integers(0, 60))
def test_snapshot_restore_gives_the_same_future(game, split):
    idx, ops = game
    a = make(idx)
    t = 0
    for gap, kind, amount in ops[:split]:
        t += gap
        apply(a, kind, amount, t)
    b = make(idx)
    b.restore(list(a.snapshot()))
    for gap, kind, amount in ops[split:]:
        t += gap
        apply(a, kind, amount, t)
        apply(b, kind, amount, t)
        assert observable(a) == observable(b)


@settings(max_examples=100, deadline=None)
@given(games, st.lists(st.integers(1, 5000), min_size=1, max_size=30))
def test_update_frequency_changes_nothing(game, splits):
    """No per-loop accumulation: updating often or rarely gives the same."""
    idx, ops = game
    a = make(idx)
    b = make(idx)
    t = 0
    for gap, kind, amount in ops:
        u = t
        for sp in splits:
            u = min(u + sp, t + gap)
            b.update(u)
        t += gap
        apply(a, kind, amount, t)
        apply(b, kind, amount, t)
        assert observable(a) == observable(b)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([1 << 8, 1 << 30, 1 << 62]), st.data())
def test_wrapping_is_modular_arithmetic(period, data):
    """ticks.wrapping (issue 11: no intermediate beyond the period, so no
    bigints on 32-bit ports) equals the textbook modular definitions."""
    diff, add = ticks.wrapping(period)
    half, mask = period >> 1, period - 1
    a = data.draw(st.integers(0, mask))
    b = data.draw(st.integers(0, mask))
    d = data.draw(st.integers(-half, half - 1))
    assert diff(a, b) == ((a - b + half) & mask) - half
    assert add(a, d) == (a + d) & mask
