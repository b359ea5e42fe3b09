"""The referee during a lateness, at app level (SPEC v4 §4 Late arrival,
Referee functions; issue 26).

The real device app on the rig (host_sim/fakehw/rig.py), keys through the
pins at exact virtual ms, checked against the pure timing core fed only the
real moves -- the late-arrival gesture's first edge, the pause key that
stops a lateness, the confirmed base change -- and the game log replayed to
the live clock.  The helpers are tests/test_keys.py's.

- In `late(s)` the referee gesture (any key order, the first key to the last
  up to 2 s, SPEC v4's bound) opens the
  referee menu and the lateness clock runs on meanwhile; leaving the menu
  returns to `late(s)`.  (SPEC v3 ended the lateness there, and a lateness
  started again began its 15:00 from zero: TSO § 2.4 b ii, § 5.3 b.)
- A lateness limit reached while the menu shows ends the game at its exact
  instant and the menu closes on the final screen.
- A lateness stopped and started again goes on from its account.
"""
import pytest

import app as appmod
import clockcore as cc
import rig as rigmod
from rig import LEFT, PAUSE, RIGHT
from test_device import replay_matches_live
from test_keys import ORDERS, drop, events_of, gestures_of, keys, log_text, \
    new_lines, new_rig, seen, _order_id


def pure(rig, t0):
    """The pure core with the rig's rules, in `ready` at t0 (rig.ms() time)."""
    return cc.Clock(rig.app.settings.rules(), t0, lambda a, b: a - b,
                    lambda t, d: t + d)


def start_late(rig, present):
    """The present player's late-arrival gesture from now; returns the pure
    core with the absent side's lateness running from its first edge."""
    t0 = rig.ms()
    ref = pure(rig, t0)
    rig.perform(rigmod.late(present))
    assert ref.start_late(1 - present, t0)
    assert rig.clock.state == cc.LATE and rig.clock.side == 1 - present
    return ref


def same(rig, ref):
    ref.update(rig.ms())
    assert rig.clock.t == rig.now
    assert seen(rig.clock) == seen(ref), (seen(rig.clock), seen(ref), rig.screen())


def _cases():
    for order in ORDERS:
        for gap in (0, 500, 1000):          # (between keys: first to last 2 * gap)
            if order[2] == PAUSE and gap == 1000:
                gap = 990   # SPEC v5: a pause key after the pair's 1 s makes no referee gesture
            yield pytest.param(order, gap, LEFT, id="%s-%d-L" % (_order_id(order), gap))
    for gap in (0, 1000):
        yield pytest.param(ORDERS[0], gap, RIGHT, id="%s-%d-R" % (_order_id(ORDERS[0]), gap))


@pytest.mark.parametrize("order,gap,present", list(_cases()))
def test_referee_gesture_in_late_opens_the_menu_and_the_lateness_runs_on(order, gap, present):
    """SPEC v4 §4: in late(s) the referee gesture opens the referee menu,
    the lateness clock runs on (the late player is still absent: what the
    gesture's keys did at their edges -- the pause key ending the lateness,
    a player button beginning the game -- is undone); leaving the menu
    returns to late(s), the count going on.  The log has the lateness and
    the gesture only, and replays to the live clock."""
    rig = new_rig("sdev", 1800)
    try:
        ref = start_late(rig, present)
        rig.run(30000)
        before = log_text(rig)
        last = 2 * gap + 3100
        keys(rig, rig.ms(), [(i * gap, b, last - i * gap) for i, b in enumerate(order)])
        rig.run(100)
        assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
        same(rig, ref)                              # LATE, still running
        assert rig.clock.late() == 1 - present
        lines = new_lines(before, log_text(rig))
        assert events_of(lines) == [] and gestures_of(lines) == ["referee"], lines
        rig.run(20000)                              # in the menu: it runs on
        same(rig, ref)
        rig.press(PAUSE, hold=2100)                 # leave the menu
        assert rig.app.mode == appmod.MODE_GAME and rig.clock.state == cc.LATE
        rig.run(1000)
        same(rig, ref)
        assert "+00:5" in rig.screen()[1] or "+01:0" in rig.screen()[1], rig.screen()
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("present", (LEFT, RIGHT), ids=("L_present", "R_present"))
def test_walkover_while_the_referee_menu_shows_pfs_6_3_4(present):
    """The late side's whole time runs out while the referee menu shows (a
    pending base change there not yet confirmed): the game is over at that
    exact ms by walkover (PFS § 6.3.4), the menu closes on the final screen,
    and the pending change is dropped (a base changes only before the game)."""
    rig = new_rig("pfs", 60)
    try:
        ref = start_late(rig, present)
        rig.run(52000 - (rig.ms() - ref.t))
        rig.perform(rigmod.referee())
        assert rig.app.mode == appmod.MODE_REFEREE and rig.clock.state == cc.LATE
        rig.press(RIGHT)                            # 02:00, pending
        assert rig.app.menu.pbase == [120000, 120000]
        rig.run(60000)
        ref.update(rig.ms())
        assert ref.state == cc.OVER and ref.forfeited[1 - present]
        assert rig.app.mode == appmod.MODE_GAME, rig.screen()
        assert seen(rig.clock) == seen(ref) and rig.clock.forfeited[1 - present]
        assert rig.clock.rules.base == [60000, 60000]
        text = replay_matches_live(rig, rig.root)
        assert "# %d over" % rig.app.session.log_ms(rig.clock.t) in text or " over" in text
    finally:
        drop(rig)


@pytest.mark.parametrize("present", (LEFT, RIGHT), ids=("L_present", "R_present"))
def test_lateness_stopped_and_started_again_goes_on_tso_2_4_b_ii(present):
    """A lateness stopped (the pause key) and started again with the
    late-arrival gesture goes on from its account: with a short pfs base the
    walkover comes when the whole time is gone, and the screen's lateness
    counts on from what was charged (PFS § 6.3.4; TSO § 2.4 b ii)."""
    rig = new_rig("pfs", 60)
    try:
        ref = start_late(rig, present)
        rig.run(20000)
        t = rig.ms()
        rig.press(PAUSE)                            # arrived? stopped
        assert ref.pause(t) and rig.clock.state == cc.READY
        rig.run(5000)
        ref2 = start_late(rig, present)             # started again
        ref.start_late(1 - present, ref2.t)
        rig.run(1000)
        same(rig, ref)
        assert ref.lateness() > 21000 and rig.clock.lateness() == ref.lateness()
        assert "+00:2" in rig.screen()[1], rig.screen()
        rig.run(ref.rem[1 - present] - 1)
        assert rig.clock.state == cc.LATE
        rig.run(1)
        same(rig, ref)
        assert ref.state == cc.OVER and rig.clock.forfeited[1 - present]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


# -- SPEC v5 (issue 36): the lateness account apart from the time ---------------------

def _menu_apply(rig, item, presses, button):
    """The referee menu (from ready or late): `presses` presses of `button`
    on `item`, then leave and confirm (one event a side)."""
    rig.perform(rigmod.referee())
    assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
    rigmod.menu_pick(rig, item)
    for _ in range(presses):
        rig.press(button)
    rig.perform(rigmod.long_press())          # "Apply new times?"
    rig.perform(rigmod.confirm())
    assert rig.app.mode == appmod.MODE_GAME, rig.screen()


def _late_row(rig):
    row = rig.screen()[1]
    i = row.index("+")
    return row[i:i + 6]


def _wait(rig, ms):
    step = rig.step_ms
    rig.step_ms = 100
    try:
        rig.run(ms)
    finally:
        rig.step_ms = step


import refereemenu  # noqa: E402


@pytest.mark.parametrize("change", ("credit", "deduction", "base"))
def test_sdev_lateness_limit_counts_the_lateness_alone_tso_2_4_b_ii_5_3_b(change):
    """SPEC v5 §4, §7 on the device: a referee's credit of 5:00 in ready
    (the +/- 1 min item: `adjust`), a deduction of 5:00, or the base
    changed to 25:00 (TSO § 1.1 b) during the lateness: right's lateness
    shows +15:00 at 15:00.999 and the game is lost at 15:01 shown (TSO §
    2.4 b ii, § 5.3 b), whatever the time left.  (v4 read the lateness as
    base - remaining: the credit hid 5:00, no forfeit at 15:02; the
    deduction lost after 10:01.)  The log replays to the live clock."""
    rig = new_rig("sdev", 1800)
    try:
        if change in ("credit", "deduction"):
            _menu_apply(rig, refereemenu.R_R_MIN, 5, RIGHT if change == "credit" else LEFT)
            want = 30 * 60000 + (5 if change == "credit" else -5) * 60000
            assert rig.clock.rem[RIGHT] == want and rig.clock.late_ms == [0, 0]
            assert "adjust right %s300000" % ("+" if change == "credit" else "-") in log_text(rig)
        ref = start_late(rig, LEFT)               # right is late
        _wait(rig, 60000 - (rig.ms() - ref.t))    # (from the gesture's first edge)
        assert _late_row(rig) == "+01:00", rig.screen()
        if change == "base":
            _menu_apply(rig, refereemenu.R_BASE, 5, LEFT)    # 25:00, in late
            assert rig.clock.rules.base == [25 * 60000] * 2 and rig.clock.state == cc.LATE
        _wait(rig, 15 * 60000 + 999 - (rig.ms() - ref.t))
        assert rig.clock.state == cc.LATE and _late_row(rig) == "+15:00", rig.screen()
        _wait(rig, 1)
        assert rig.clock.state == cc.OVER and rig.clock.forfeited[RIGHT], rig.screen()
        assert rig.clock.late_ms[RIGHT] == 15 * 60000 + 1000
        text = replay_matches_live(rig, rig.root)
        assert " lateness " not in text           # no referee lateness here
    finally:
        drop(rig)


@pytest.mark.parametrize("change", ("credit", "deduction", "base"))
def test_pfs_walkover_when_the_time_is_gone_pfs_6_3_4(change):
    """pfs 1:00, the limit the whole time (PFS § 6.3.4): after a credit of
    0:30 the walkover comes at 1:30 of lateness, after a deduction of 0:30
    at 0:30, after the base changed to 2:00 during the lateness at 2:00;
    the lateness shown is the lateness clock's alone, and the log replays
    to the live clock."""
    rig = new_rig("pfs", 60)
    try:
        if change in ("credit", "deduction"):
            _menu_apply(rig, refereemenu.R_R_SEC, 30, RIGHT if change == "credit" else LEFT)
        ref = start_late(rig, LEFT)               # right is late
        _wait(rig, 20000 - (rig.ms() - ref.t))
        assert _late_row(rig) == "+00:20", rig.screen()
        if change == "base":
            _menu_apply(rig, refereemenu.R_BASE, 1, RIGHT)   # 02:00, in late
        walk = {"credit": 90000, "deduction": 30000, "base": 120000}[change]
        _wait(rig, walk - 1 - (rig.ms() - ref.t))
        assert rig.clock.state == cc.LATE and rig.clock.lateness() == walk - 1, rig.screen()
        _wait(rig, 1)
        assert rig.clock.state == cc.OVER and rig.clock.forfeited[RIGHT], rig.screen()
        assert rig.clock.rem[RIGHT] == 0 and rig.clock.late_ms == [0, walk]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_referee_lateness_is_a_lateness_line_and_the_clock_goes_on_from_it_tso_2_4_c():
    """Both late (PFS § 6.3.3, TSO § 2.4 c): right's lateness clock ran
    0:40, right arrived (ready); the referee sets left's elapsed lateness
    to 14:00 (the late-arrival item: one `lateness left 840000` line, no
    `adjust`), then left's lateness clock starts from +14:00 and the game
    is lost at +15:01 of the account, 61 s later (TSO § 2.4 b ii)."""
    rig = new_rig("sdev", 1800)
    try:
        start_late(rig, LEFT)                     # right is late
        _wait(rig, 40000)
        rig.press(PAUSE)                          # right arrived
        assert rig.clock.state == cc.READY and rig.clock.late_ms[RIGHT] > 40000
        _menu_apply(rig, refereemenu.R_LATE_L, 14, RIGHT)
        text = log_text(rig)
        assert "lateness left 840000" in text and " adjust " not in text, text
        assert rig.clock.late_ms[LEFT] == 14 * 60000 and rig.clock.rem[LEFT] == 16 * 60000
        t0 = rig.ms()
        rig.perform(rigmod.late(RIGHT))           # left is late: from +14:00
        assert rig.clock.state == cc.LATE and rig.clock.lateness() == \
            14 * 60000 + rig.ms() - t0, rig.screen()
        assert _late_row(rig) == "+14:%02d" % ((rig.ms() - t0) // 1000), rig.screen()
        _wait(rig, 61000 - (rig.ms() - t0) - 1)
        assert rig.clock.state == cc.LATE
        _wait(rig, 1)
        assert rig.clock.state == cc.OVER and rig.clock.forfeited[LEFT]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_the_log_header_states_the_rules_at_the_games_start_spec_5():
    """Issue 36: the base changed 30:00 -> 25:00 in ready, before the first
    press, wrote `set base_left=25:00 base_right=30:00` (the header came
    between the two `base` lines), a handicap that never existed.  The
    header states the rules the game was set up with; the change is its
    `base` lines only; the log replays to the live clock."""
    rig = new_rig("sdev", 1800)
    try:
        _menu_apply(rig, refereemenu.R_BASE, 5, LEFT)
        rig.press(LEFT)
        _wait(rig, 3000)
        text = log_text(rig)
        assert "set " not in text, text           # sdev's own 30:00
        assert [e[1:] for e in events_of(text.split("\n"))[:3]] == [
            ("base", "left", "25:00"), ("base", "right", "25:00"), ("left",)], text
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)
