"""The one transition to game over in the core (issue 13 point 3: clockcore
wrote it five times): every way a game ends (TSO § 5.1 b end, § 5.2 d void,
§ 5.2 c forfeit by overtime, PFS § 6.2.1 both flags, PFS § 6.3.4 walkover
of a late player, a referee's adjustment in ready that reaches a forfeit)
leaves the clock over, the challenge window closed, the hook told once
why, and a snapshot that restores (SPEC §4 Power loss) to the same clock."""
import clockcore as cc
import profiles
from clockcore import LEFT, RIGHT

MIN = 60000


def clock(name, **over):
    heard = []
    c = cc.Clock(profiles.make_rules(name, [(k, str(v)) for k, v in over.items()]),
                 0, lambda a, b: a - b, lambda t, d: t + d,
                 lambda code, s, t, arg: heard.append((code, s, t)))
    return c, heard


def over_and_restorable(c, heard, code, side, t):
    assert c.state == cc.OVER and c.win == 0
    assert [h for h in heard if h[0] in (cc.EV_END, cc.EV_VOID, cc.EV_FORFEIT,
                                          cc.EV_OVER)] == [(code, side, t)]
    b = cc.Clock(profiles.make_rules(c.rules.name, []), 0, lambda a, b: a - b,
                 lambda t, d: t + d)
    b.restore(list(c.snapshot()))
    assert (b.state, b.side, b.rem, b.forfeited, b.win) == \
        (c.state, c.side, c.rem, c.forfeited, c.win)
    b.update(t + 10 * MIN)
    assert b.rem == c.rem  # nothing runs after the end


def test_end_inside_the_challenge_window_tso_5_1_b():
    c, heard = clock("sdev")
    c.press(LEFT, 0)
    c.press(RIGHT, 5000)          # the window opens for left's clock
    assert c.win > 0
    assert c.end(8000)
    over_and_restorable(c, heard, cc.EV_END, LEFT, 8000)


def test_void_tso_5_2_d():
    c, heard = clock("sdev", base="01:00")
    c.press(LEFT, 0)
    c.press(RIGHT, 10000)         # left runs
    c.pause(100000)               # left 40 s over: P10
    assert c.void(LEFT, 101000)
    assert c.rem[LEFT] == MIN and not c.forfeited[LEFT]
    over_and_restorable(c, heard, cc.EV_VOID, LEFT, 101000)


def test_forfeit_by_overtime_tso_5_2_c():
    c, heard = clock("sdev", base="01:00")
    c.press(LEFT, 0)              # right runs
    c.update(MIN + 301000 + 5)
    assert c.forfeited[RIGHT] and c.rem[RIGHT] == -301000
    over_and_restorable(c, heard, cc.EV_FORFEIT, RIGHT, MIN + 301000)


def test_both_flags_pfs_6_2_1():
    c, heard = clock("pfs", base="01:00")
    c.press(LEFT, 0)              # right runs out: flag, the clock pauses
    c.update(MIN)
    assert c.state == cc.PAUSED
    c.press(LEFT, MIN + 1000)     # play on: left runs alone, runs out too
    c.update(2 * MIN + 1000)
    over_and_restorable(c, heard, cc.EV_OVER, LEFT, 2 * MIN + 1000)


def test_walkover_of_a_late_player_pfs_6_3_4():
    c, heard = clock("pfs", base="01:00")
    c.start_late(RIGHT, 0)
    c.update(MIN + 10)
    assert c.forfeited[RIGHT]
    over_and_restorable(c, heard, cc.EV_FORFEIT, RIGHT, MIN)


def test_a_referee_adjustment_in_ready_that_forfeits_is_restorable():
    """Found by test_core_properties: over with no side ever run was a
    snapshot restore() refused, so a power cut lost the result."""
    c, heard = clock("sdev", base="01:00")
    assert c.adjust(RIGHT, -(MIN + 301000), 0)
    assert c.side == -1 and c.forfeited[RIGHT]
    over_and_restorable(c, heard, cc.EV_FORFEIT, RIGHT, 0)
    assert not c.can_resume()


def test_a_snapshot_running_with_no_side_is_still_refused():
    c, _ = clock("sdev")
    snap = list(c.snapshot())
    snap[1] = cc.RUNNING
    try:
        c.restore(snap)
    except ValueError:
        return
    raise AssertionError("a running clock with no side was restored")
