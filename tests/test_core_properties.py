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
    ("sdev", [("base", "01:00"), ("late", "00:20")]),
    ("pfs", [("base", "00:40"), ("late", "none")]),
]

op = st.tuples(
    st.integers(0, 90000),                                   # gap before it, ms
    st.sampled_from(["left", "right", "pause", "left", "right", "end", "adjust",
                     "late", "void", "resume", "late", "pause", "base",
                     "lateness"]),
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
    side = cc.LEFT if amount % 2 else cc.RIGHT
    if kind == "late":
        return c.start_late(side, t)
    if kind == "void":
        return c.void(side, t)
    if kind == "resume":
        return c.resume(t)
    if kind == "base":
        # the referee's base time (SPEC v4: it keeps the time charged)
        return c.rebase(side, 30000 + abs(amount) // 1000 * 1000, t)
    if kind == "lateness":
        # the referee's elapsed lateness (SPEC v5 §5), up to 10:00
        return c.set_lateness(side, lateness_ms(amount), t)
    return c.adjust(side, amount, t)


def lateness_ms(amount):
    return abs(amount) * 5


def observable(c):
    return (c.state, c.side, c.rem[0], c.rem[1], c.win,
            c.forfeited[0], c.forfeited[1], c.penalty(0), c.penalty(1),
            c.lateness(), c.void_side, c.late_ms[0], c.late_ms[1])


def check_invariants(c):
    r = c.rules
    assert c.running() in (-1, 0, 1)
    ticking = c.state == cc.RUNNING or c.state == cc.LATE
    assert (c.running() >= 0) == ticking                   # never two sides
    for s in (0, 1):
        assert c.remaining(s) >= 0 and c.overtime(s) >= 0
        secs = c.overtime(s) // 1000
        assert c.penalty(s) == r.penalty * -(-secs // 60)   # TSO § 5.2 b
        if r.zero == profiles.ZERO_FLAG:
            assert c.rem[s] >= 0                             # stops at 00:00
        elif r.forfeit >= 0:
            lim = (r.forfeit + 1) * 1000
            # (past the limit only by a referee's change: lost at once)
            if c.overtime(s) >= lim:
                assert c.forfeited[s] and c.state == cc.OVER
        if c.forfeited[s] and not (r.forfeit >= 0 and c.overtime(s) >= (r.forfeit + 1) * 1000):
            # lost by lateness (TSO § 5.3 b) or walkover (PFS § 6.3.4)
            assert (r.late >= 0 and c.late_ms[s] >= (r.late + 1) * 1000
                    or r.zero == profiles.ZERO_FLAG and c.rem[s] == 0)
            assert c.side == s or c.late_ms[s] > 0     # (the referee's, in ready)
        assert 0 <= c.late_ms[s] <= cc.OVERTIME_CAP
    assert 0 <= c.win <= r.window


def turn_ending(c, kind, side, state):
    """Independently of the core: was this press a move (SPEC §4 Player
    button: x in running(x), or x in paused(x) when x is not out)?"""
    x = cc.LEFT if kind == "left" else cc.RIGHT
    if side != x:
        return False
    return state == cc.RUNNING or (state == cc.PAUSED and not c.out(x))


@settings(max_examples=400, deadline=None)
@given(games)
def test_every_running_ms_is_charged_exactly_once(game):
    """SPEC §6 zero accumulated error: each interval is charged to the side
    that ran it, to the millisecond; pauses, ready and over charge nothing;
    `end` charges up to the end and rolls nothing back (TSO § 5.1 b i); a
    void gives back exactly the time since the last move (TSO § 5.2 d)."""
    idx, ops = game
    hooks = []
    c = make(idx, hook=lambda code, s, t, a: hooks.append((code, s, t)))
    t = 0
    void_turn = None   # (side started by the last move, its time then)
    # Each side's lateness account, kept here from the lateness intervals
    # and the referee's `lateness` alone (SPEC v5 §4 Late arrival: its own
    # account; an adjustment or a base change never touches it).
    pregame = [0, 0]
    for gap, kind, amount in ops:
        before = (c.state, c.side, list(c.rem))
        del hooks[:]
        t2 = t + gap
        c.update(t2)
        state, side, rem = before
        if state in (cc.RUNNING, cc.LATE):
            stop = t2
            if c.state != state:
                stop = hooks[-1][2]          # the flag/forfeit instant
                assert t < stop <= t2
            assert rem[side] - c.rem[side] == stop - t
            assert c.rem[1 - side] == rem[1 - side]
            if state == cc.LATE:
                pregame[side] += stop - t
        else:
            assert c.rem == rem
        check_invariants(c)
        t = t2
        before_rem = list(c.rem)
        before_base = list(c.rules.base)
        st0, s, win0 = c.state, c.side, c.win
        move = kind in ("left", "right") and turn_ending(c, kind, s, st0)
        ok = apply(c, kind, amount, t)
        if kind == "base":
            bs = cc.LEFT if amount % 2 else cc.RIGHT
            nb = 30000 + abs(amount) // 1000 * 1000
            charged = before_base[bs] - before_rem[bs]
            flag = c.rules.zero == profiles.ZERO_FLAG
            assert ok == ((st0 == cc.READY or st0 == cc.LATE and (bs != s or nb - charged > 0))
                          and not (flag and nb - charged < 0))
            if ok:   # remaining = new base - charged, the other side untouched
                assert c.rem[bs] == c.rules.base[bs] - charged
                assert c.rem[1 - bs] == before_rem[1 - bs]
            else:
                assert c.rem == before_rem
        if kind == "lateness":
            ls = cc.LEFT if amount % 2 else cc.RIGHT
            ms = lateness_ms(amount)
            flag = c.rules.zero == profiles.ZERO_FLAG
            r = before_rem[ls] - (ms - pregame[ls])
            assert ok == (st0 in (cc.READY, cc.LATE) and not (flag and r < 0))
            if ok:   # the account becomes ms, the time moves by the difference
                pregame[ls] = ms
                assert c.rem[ls] == r and c.rem[1 - ls] == before_rem[1 - ls]
            else:
                assert c.rem == before_rem
        assert c.late_ms == pregame                            # only these two change it
        if c.state == cc.LATE:
            assert c.lateness() == pregame[c.side]
        if kind == "adjust" and ok and void_turn and void_turn[0] == (cc.LEFT if amount % 2 else cc.RIGHT):
            # a referee change on the voidable side stays through a void
            vs = void_turn[0]
            void_turn = (vs, void_turn[1] + c.rem[vs] - before_rem[vs])
        if kind in ("left", "right", "pause", "end", "late", "resume"):
            assert c.rem == before_rem                        # events charge nothing themselves
        if move:
            assert ok and c.win == c.rules.window
            void_turn = (c.side, c.rem[c.side])
        elif kind in ("left", "right") and ok:
            assert c.win <= win0                              # only a move opens the window
        if kind == "end" and ok:
            assert st0 in (cc.RUNNING, cc.PAUSED) and c.state == cc.OVER
        if kind == "void":
            vs = cc.LEFT if amount % 2 else cc.RIGHT
            assert ok == (void_turn is not None and void_turn[0] == vs
                          and st0 in (cc.RUNNING, cc.PAUSED, cc.OVER))
            if ok:
                assert c.rem[vs] == void_turn[1] and c.state == cc.OVER
                assert c.rem[1 - vs] == before_rem[1 - vs] and not c.forfeited[vs]
        if kind == "resume" and ok:
            assert st0 == cc.OVER and c.state == cc.PAUSED and c.side == s
        check_invariants(c)
        if c.state == cc.OVER:
            # Over stops everything but the referee's void and resume.
            b = make(idx)
            b.restore(list(c.snapshot()))
            frozen = observable(b)
            b.update(t + 10 ** 6)
            for k in ("left", "right", "pause", "end", "adjust", "late", "base", "lateness"):
                apply(b, k, 1000, t + 10 ** 6)
            assert observable(b) == frozen


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
