"""The timing core against the tournament rules (SPEC §2-§4).

Each test names the clause it proves.  Times are integer ms; the core is fed
event timestamps exactly as the device captures them.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image.  The last part plays games on
a tick counter that wraps at 2**30 like the boards', and measures the heap
the steady-state calls allocate (MicroPython only).
"""
import clockcore as cc
import profiles
import ticks
import frame as framemod
import hd44780
import view
from clockcore import LEFT, RIGHT
from mptest import eq, heap_bytes as _alloc, micropython_only

MIN = 60000


def plain(rules, hook=None):
    return cc.Clock(rules, 0, lambda a, b: a - b, lambda t, d: t + d, hook)


def sdev(**over):
    return plain(profiles.make_rules("sdev", {k: str(v) for k, v in over.items()}))


def pfs(**over):
    return plain(profiles.make_rules("pfs", {k: str(v) for k, v in over.items()}))


def shown(clock, s):
    """The 6 characters the LCD shows for side s."""
    row = hd44780.text_of(clock)[0]
    return row[1:7] if s == LEFT else row[9:15]


def run_right_for(clock, ms, t0=0):
    """Start the game so that right runs from t0, then let ms pass."""
    clock.press(LEFT, t0)
    clock.update(t0 + ms)
    return t0 + ms


# -- display (TSO § 1.4.2 a i/ii, § 5.2 a) ---------------------------------------

def test_countdown_shows_mmss_rounded_up_tso_1_4_2_a_i():
    c = sdev(base="25:00")
    assert shown(c, RIGHT) == " 25:00"
    run_right_for(c, 1)
    assert shown(c, RIGHT) == " 25:00"      # 1 499 999 ms left: ceil
    c.update(1000)
    assert shown(c, RIGHT) == " 24:59"
    c.update(25 * MIN - 1)
    assert shown(c, RIGHT) == " 00:01"      # 1 ms left still shows 00:01
    c.update(25 * MIN)
    assert shown(c, RIGHT) == " 00:00"      # 00:00 exactly when time runs out


def test_overtime_counts_up_rounded_down_tso_1_4_2_a_ii_and_5_2_a():
    c = sdev(base="01:00")
    run_right_for(c, MIN + 999)
    assert shown(c, RIGHT) == " 00:00"      # not yet exceeded
    assert c.overtime(RIGHT) == 999
    c.update(MIN + 1000)
    assert shown(c, RIGHT) == "-00:01"      # TSO § 5.2 a: exceeded now
    c.update(MIN + 61000)
    assert shown(c, RIGHT) == "-01:01"


# -- penalties and forfeit (TSO § 5.2 b, c) --------------------------------------

def test_penalty_per_started_minute_boundaries_tso_5_2_b():
    expected = {0: 0, 999: 0, 1000: 10, 60000: 10, 60999: 10, 61000: 20,
                120999: 20, 121000: 30, 240999: 40, 241000: 50, 300999: 50}
    for over_ms, pen in expected.items():
        c = sdev(base="01:00")
        run_right_for(c, MIN + over_ms)
        assert c.overtime(RIGHT) == over_ms
        assert c.penalty(RIGHT) == pen, over_ms
        assert not c.forfeited[RIGHT] and c.state == cc.RUNNING, over_ms


def test_forfeit_beyond_five_minutes_stops_clock_tso_5_2_c():
    events = []
    c = plain(profiles.make_rules("sdev", {"base": "01:00"}),
              lambda code, s, t, a: events.append((code, s, t)))
    run_right_for(c, MIN + 300999)
    assert not c.forfeited[RIGHT]
    assert shown(c, RIGHT) == "-05:00"      # the last overtime that may show
    c.update(MIN + 301000)
    assert c.forfeited[RIGHT] and c.state == cc.OVER
    assert shown(c, RIGHT) == "-05:01"
    c.update(MIN + 900000)                  # a late update charges nothing more
    assert c.overtime(RIGHT) == 301000
    assert (cc.EV_FORFEIT, RIGHT, MIN + 301000) in events


def test_forfeit_instant_exact_even_with_a_coarse_update_tso_5_2_c():
    c = sdev(base="01:00")
    run_right_for(c, 10 * MIN)              # one update far past the limit
    assert c.overtime(RIGHT) == 301000 and c.forfeited[RIGHT]
    assert c.remaining(LEFT) == MIN          # left never ran


def test_end_charges_the_last_movers_final_turn_tso_5_1_b_i():
    """SPEC v2 §4 End of game: the issue's case.  Base 1:00, left's last turn
    starts at 00:40 and takes 3 minutes: the end keeps -02:20 and P30."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)                        # right runs
    c.press(RIGHT, 0)                       # left runs from 0 ...
    c.pause(20000)                          # ... 20 s, then dead time
    c.pause(30000)
    c.press(LEFT, 30000)                    # right's turn
    c.press(RIGHT, 40000)                   # left's last turn starts at 00:40
    c.update(40000 + 3 * MIN)
    assert shown(c, LEFT) == "-02:20" and c.penalty(LEFT) == 30
    c.end(40000 + 3 * MIN)                  # the end gesture from left's own clock
    assert c.state == cc.OVER
    assert c.overtime(LEFT) == 140000 and c.penalty(LEFT) == 30
    assert c.remaining(RIGHT) == 50000


def test_end_charges_a_reservations_thinking_time_tso_5_1_b_iii_and_records_3_4_b():
    """After the last move the opponent's clock is restarted at once; that
    time, and records completed on a restarted clock, are charged."""
    c = sdev(base="10:00")
    c.press(LEFT, 0)                        # right runs
    c.press(RIGHT, 60000)                   # right's last move: left thinks
    c.end(60000 + 45000)                    # 45 s of reservation thinking time
    assert c.remaining(LEFT) == 10 * MIN - 45000
    assert c.remaining(RIGHT) == 10 * MIN - 60000


def test_end_from_paused_charges_the_paused_turn():
    """The mover stopped the clock after the last move: the end adds
    nothing and takes nothing back."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)
    c.pause(20000)
    c.end(25000)
    assert c.remaining(RIGHT) == 40000 and c.state == cc.OVER


def test_end_is_refused_before_the_start_and_after_the_end():
    c = sdev()
    assert not c.end(10) and c.state == cc.READY
    c.press(LEFT, 0)
    assert c.end(1000)
    assert not c.end(2000)


def test_void_gives_back_the_time_since_the_last_turn_ending_press_tso_5_2_d():
    """TSO § 5.2 d, the referee's void: right pressed instead of stopping;
    left's overtime since that press carries no penalty."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)                        # right runs
    c.press(RIGHT, 50000)                   # right's last move: left runs
    c.update(50000 + MIN + 90000)           # left -01:30 (nobody stopped it)
    assert c.penalty(LEFT) == 20
    assert not c.can_void(RIGHT) and c.can_void(LEFT)
    assert not c.void(RIGHT, 50000 + MIN + 90000)   # the wrong side: nothing
    assert c.state == cc.RUNNING
    assert c.void(LEFT, 50000 + MIN + 90000)
    assert c.state == cc.OVER
    assert c.remaining(LEFT) == MIN and c.penalty(LEFT) == 0
    assert c.remaining(RIGHT) == 10000       # right keeps what it used


def test_void_after_a_stop_and_after_an_end_tso_5_2_d():
    """SPEC v2 §7: § 5.2 d also after someone stopped the clock, or ended it."""
    for how in ("pause", "end"):
        c = sdev(base="01:00")
        c.press(LEFT, 0)
        c.press(RIGHT, 50000)               # left runs
        c.update(50000 + MIN + 30000)
        getattr(c, how)(50000 + MIN + 30000)
        c.update(50000 + 5 * MIN)           # dead time: nothing runs
        assert c.penalty(LEFT) == 10
        assert c.void(LEFT, 50000 + 5 * MIN)
        assert c.penalty(LEFT) == 0 and c.remaining(LEFT) == MIN, how


def test_void_withdraws_a_forfeit_reached_since_the_press_tso_5_2_d_and_5_2_c():
    """Nobody noticed for 5 minutes: the clock declared left LOST; the
    referee's void undoes it."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)
    c.press(RIGHT, 1000)                    # left runs
    c.update(1000 + MIN + 301000)
    assert c.forfeited[LEFT] and c.state == cc.OVER
    assert not c.resume(1000 + MIN + 302000)   # a forfeit is the rules' end
    assert c.void(LEFT, 1000 + MIN + 302000)
    assert not c.forfeited[LEFT] and c.remaining(LEFT) == MIN
    assert c.state == cc.OVER and c.can_resume()


def test_void_keeps_a_referee_adjustment_made_in_that_turn_tso_7_3_2_2():
    """A referee's deduction during the voided turn is not part of it."""
    c = sdev()
    c.press(LEFT, 0)
    c.press(RIGHT, 1000)                    # left runs from 1 s
    c.pause(10000)
    c.adjust(LEFT, -60000, 11000)           # referee deducts a minute
    c.pause(12000)
    c.end(15000)
    c.void(LEFT, 16000)
    assert c.rem[LEFT] == 30 * MIN - 60000


def test_void_before_any_move_changes_nothing():
    c = sdev()
    c.press(LEFT, 0)                        # the start is not a move
    c.pause(5000)
    assert not c.void(RIGHT, 6000) and not c.void(LEFT, 6000)
    assert c.state == cc.PAUSED and c.remaining(RIGHT) == 30 * MIN - 5000


def test_resume_undoes_a_mistaken_end():
    """SPEC v2 §4 Undoing an end: over -> paused(s), times unchanged."""
    c = sdev(base="05:00")
    c.press(LEFT, 0)                        # right runs
    c.press(RIGHT, 10000)                   # left runs
    c.end(25000)
    assert c.resume(40000)
    assert c.state == cc.PAUSED and c.side == LEFT
    assert c.remaining(LEFT) == 5 * MIN - 15000
    c.pause(41000)                          # the pause key runs left again
    assert c.running() == LEFT
    assert not c.resume(42000)              # not over: nothing to undo


def test_resume_refused_after_both_flags_pfs_6_2_1():
    c = pfs(base="01:00")
    c.press(LEFT, 0)
    c.update(MIN)                           # right out
    c.press(LEFT, MIN)                      # left runs alone
    c.update(2 * MIN)                       # left out: both out, over
    assert c.state == cc.OVER and not c.resume(2 * MIN + 1)


def test_late_arrival_clock_runs_and_counts_lateness_pfs_2_4():
    """`late left`: the absent player's clock runs, the game has not begun;
    the arrival (a player button) begins it as from ready, no window."""
    c = sdev()
    assert c.start_late(LEFT, 0)
    assert c.state == cc.LATE and c.running() == LEFT and c.late() == LEFT
    c.update(7 * MIN)
    assert c.lateness() == 7 * MIN and c.remaining(LEFT) == 23 * MIN
    assert not c.start_late(RIGHT, 7 * MIN)       # only from ready
    assert not c.adjust(LEFT, 1000, 7 * MIN)      # a clock runs: refused
    c.press(RIGHT, 7 * MIN)                        # left is first: right presses
    assert c.state == cc.RUNNING and c.running() == LEFT
    assert c.win == 0                              # nobody moved
    assert c.late() == -1 and c.lateness() == 0


def test_pause_key_ends_a_lateness_tso_2_4_b_i():
    c = sdev()
    c.start_late(RIGHT, 0)
    c.update(60000)
    assert c.pause(60000) and c.state == cc.READY
    c.update(120000)
    assert c.remaining(RIGHT) == 29 * MIN   # stopped at the arrival


def test_more_than_15_minutes_late_loses_tso_2_4_b_ii_and_5_3_b():
    c = sdev()
    c.start_late(LEFT, 0)
    c.update(15 * MIN + 999)                # 15:00 of lateness still shown
    assert c.state == cc.LATE
    c.update(15 * MIN + 1000)               # 15:01 shown: lost
    assert c.state == cc.OVER and c.forfeited[LEFT]
    assert c.remaining(LEFT) == 15 * MIN - 1000
    assert not c.resume(16 * MIN)


def test_late_player_whose_time_runs_out_loses_by_walkover_pfs_6_3_4():
    c = pfs(base="15:00")
    c.start_late(RIGHT, 0)
    c.update(15 * MIN - 1)
    assert c.state == cc.LATE
    c.update(15 * MIN)
    assert c.state == cc.OVER and c.forfeited[RIGHT] and c.flag(RIGHT)


def test_late_limit_none_and_set_late():
    c = plain(profiles.make_rules("sdev", [("late", "none")]))
    c.start_late(LEFT, 0)
    c.update(20 * MIN)
    assert c.state == cc.LATE and c.lateness() == 20 * MIN
    c = plain(profiles.make_rules("sdev", [("late", "10:00")]))
    c.start_late(LEFT, 0)
    c.update(10 * MIN + 1000)
    assert c.forfeited[LEFT]
    assert profiles.make_rules("sdev", [("late", "10:00")]).overrides() == ["late=10:00"]
    assert profiles.make_rules("pfs", [("late", "none")]).overrides() == ["late=none"]


# -- lateness: one account for the game (SPEC v4 §4 Late arrival) -----------------

def _late_twice(c, s, first, gap, t_again):
    """s is late `first` ms, the lateness clock is stopped (pause key, back
    to ready) for `gap` ms, then started again at t_again."""
    assert c.start_late(s, 0)
    c.update(first)
    assert c.pause(first) and c.state == cc.READY
    c.update(first + gap)
    assert c.start_late(s, t_again)


def test_lateness_stopped_and_started_again_goes_on_tso_2_4_b_ii_5_3_b():
    """A player 9:00 late, the clock stopped by mistake, started again:
    15:24 of lateness is more than 15 minutes -- lost at +15:01 of the
    whole account, not 15:01 after the restart (TSO § 2.4 b ii, § 5.3 b)."""
    for s in (LEFT, RIGHT):
        c = sdev()
        _late_twice(c, s, 9 * MIN, 30000, 9 * MIN + 30000)
        assert c.lateness() == 9 * MIN             # the count goes on ...
        c.update(15 * MIN + 30000 - 1)             # 6:00 - 1 ms after the restart
        assert c.state == cc.LATE and c.lateness() == 15 * MIN - 1
        c.update(15 * MIN + 30000 + 999)           # +15:00 still shown
        assert c.state == cc.LATE
        c.update(15 * MIN + 31000)                 # +15:01 of the account: lost
        assert c.state == cc.OVER and c.forfeited[s] and not c.forfeited[1 - s]
        assert c.remaining(s) == 30 * MIN - 15 * MIN - 1000
        c2 = sdev()
        _late_twice(c2, s, 9 * MIN, 0, 9 * MIN)
        c2.update(9 * MIN + 6 * MIN + 24000)       # "15:24 late": long lost
        assert c2.state == cc.OVER and c2.forfeited[s]


def test_lateness_restarted_at_the_limit_loses_at_once_tso_5_3_b():
    """Stopped at +15:00.999 (still allowed), started again: the next ms
    is +15:01 -- lost; an account already past the limit (the referee's
    elapsed time, TSO § 2.4 c) loses when its clock starts."""
    for s in (LEFT, RIGHT):
        c = sdev()
        _late_twice(c, s, 15 * MIN + 999, 5000, 15 * MIN + 5999)
        assert c.state == cc.LATE
        c.update(15 * MIN + 6000)
        assert c.state == cc.OVER and c.forfeited[s]
        c = sdev()
        assert c.set_lateness(s, 15 * MIN, 0)      # the referee's 15:00, ready
        assert c.state == cc.READY and c.rem[s] == 15 * MIN
        c.start_late(s, 1000)                      # its clock: 15:00 shown
        assert c.state == cc.LATE and c.lateness() == 15 * MIN
        c.update(2000)                             # 15:01 of the one account
        assert c.state == cc.OVER and c.forfeited[s]
        c = sdev()
        assert c.set_lateness(s, 16 * MIN, 0)      # 16:00 late: lost at once
        assert c.state == cc.OVER and c.forfeited[s] and not c.forfeited[1 - s]
        assert c.rem[s] == 14 * MIN and c.late_ms[s] == 16 * MIN


def test_lateness_account_in_pfs_goes_on_to_the_walkover_pfs_6_3_4():
    for s in (LEFT, RIGHT):
        c = pfs(base="15:00")
        _late_twice(c, s, 10 * MIN, 60000, 11 * MIN)
        assert c.lateness() == 10 * MIN            # shown +10:00, not +00:00
        c.update(16 * MIN - 1)
        assert c.state == cc.LATE and c.lateness() == 15 * MIN - 1
        c.update(16 * MIN)                         # whole time gone: walkover
        assert c.state == cc.OVER and c.forfeited[s] and c.flag(s)


def test_lateness_account_in_overtime_near_the_forfeit_tso_5_2_c():
    """A late side past 00:00 (a short base): overtime and its forfeit apply
    as to a running clock, and the restarted lateness keeps the overtime."""
    c = plain(profiles.make_rules("sdev", [("base", "05:00")]))
    _late_twice(c, RIGHT, 10 * MIN, 1000, 10 * MIN + 1000)
    assert c.overtime(RIGHT) == 5 * MIN and c.lateness() == 10 * MIN
    assert shown(c, RIGHT) == "-05:00"
    c.update(10 * MIN + 1999)
    assert c.state == cc.LATE
    c.update(10 * MIN + 2000)                      # overtime 5:01: lost
    assert c.state == cc.OVER and c.forfeited[RIGHT]


# -- lateness: its own account (SPEC v5 §4 Late arrival, §5 `lateness`) -----------

def _late_shown(c):
    """The lateness the LCD shows ('+mm:ss' on its second row)."""
    row = hd44780.text_of(c)[1]
    i = row.index("+")
    return row[i:i + 6]


def test_a_credit_before_the_game_hides_no_lateness_tso_2_4_b_ii_5_3_b():
    """SPEC v5 §7: a referee's +5:00 in ready hid 5:00 of lateness (+00:00
    a minute into it, no forfeit at 15:02).  The account counts the
    lateness clock alone: +01:00 after a minute, lost at +15:01 (TSO § 2.4
    b ii, § 5.3 b); the credit stays on the side's time (TSO § 7.3.2.2)."""
    for s in (LEFT, RIGHT):
        c = sdev()
        assert c.adjust(s, 5 * MIN, 0)             # a credit in ready
        assert c.late_ms == [0, 0]
        assert c.start_late(s, 0)
        c.update(MIN)
        assert c.lateness() == MIN and _late_shown(c) == "+01:00"
        c.update(15 * MIN + 999)
        assert c.state == cc.LATE and _late_shown(c) == "+15:00"
        c.update(15 * MIN + 1000)                  # 15:01 shown: lost
        assert c.state == cc.OVER and c.forfeited[s]
        assert c.rem[s] == 35 * MIN - 15 * MIN - 1000 and c.late_ms[s] == 15 * MIN + 1000


def test_a_deduction_before_the_game_is_no_lateness_tso_2_4_b_ii_7_3_2_2():
    """SPEC v5 §7: a deduction of 5:00 counted as lateness (lost after
    10:01).  It is a time penalty only: the lateness starts at +00:00 and
    the game is lost at +15:01, with 10:00 - 15:01 left on the clock."""
    for s in (LEFT, RIGHT):
        c = sdev()
        assert c.adjust(s, -5 * MIN, 0)            # a deduction in ready
        assert c.start_late(s, 0)
        assert c.lateness() == 0 and _late_shown(c) == "+00:00"
        c.update(10 * MIN + 1000)                  # v4 lost here
        assert c.state == cc.LATE and c.lateness() == 10 * MIN + 1000
        c.update(15 * MIN + 1000)
        assert c.state == cc.OVER and c.forfeited[s]
        assert c.rem[s] == 25 * MIN - 15 * MIN - 1000


def test_a_deduction_during_a_paused_lateness_counts_no_lateness_tso_2_4_b_ii():
    """Late 6:00, stopped (ready), the referee deducts 5:00, the lateness
    clock starts again: it goes on from +06:00 (not +11:00)."""
    c = sdev()
    _late_twice(c, LEFT, 6 * MIN, 1000, 6 * MIN + 1000)
    assert c.pause(6 * MIN + 1000)                 # stopped again: ready
    assert c.adjust(LEFT, -5 * MIN, 6 * MIN + 2000)
    assert c.start_late(LEFT, 6 * MIN + 3000) and c.lateness() == 6 * MIN
    c.update(6 * MIN + 3000 + 9 * MIN + 999)       # +15:00.999
    assert c.state == cc.LATE
    c.update(6 * MIN + 3000 + 9 * MIN + 1000)
    assert c.state == cc.OVER and c.forfeited[LEFT]


def test_a_base_change_during_a_lateness_keeps_the_account_tso_1_1_b_2_4_b_ii():
    """The referee sets 25:00 (TSO § 1.1 b) while right is 4:00 late: the
    account stays +04:00 and the limit stays 15:01 of it; the time keeps
    what was charged (21:00 left)."""
    c = sdev()
    assert c.start_late(RIGHT, 0)
    c.update(4 * MIN)
    assert c.rebase(RIGHT, 25 * MIN, 4 * MIN) and c.rebase(LEFT, 25 * MIN, 4 * MIN)
    assert c.lateness() == 4 * MIN and c.rem == [25 * MIN, 21 * MIN]
    c.update(15 * MIN + 1000)
    assert c.state == cc.OVER and c.forfeited[RIGHT] and c.rem[RIGHT] == 25 * MIN - 15 * MIN - 1000


def test_pfs_walkover_comes_when_the_time_is_gone_whatever_the_account_pfs_6_3_4():
    """pfs: the limit is the whole time (PFS § 6.3.4: the late player whose
    time falls gets a walkover), so a credit, a deduction or a base change
    moves the walkover with the time, at 00:00, while the account shows
    only the lateness clock's time."""
    for s in (LEFT, RIGHT):
        for change, walk in (("credit", 25 * MIN), ("deduction", 15 * MIN),
                             ("base", 15 * MIN)):
            c = pfs()                              # 20:00
            if change == "credit":
                assert c.adjust(s, 5 * MIN, 0)
            elif change == "deduction":
                assert c.adjust(s, -5 * MIN, 0)
            else:
                assert c.rebase(s, 15 * MIN, 0)
            assert c.start_late(s, 0)
            c.update(walk - 1)
            assert c.state == cc.LATE and c.lateness() == walk - 1
            assert shown(c, 1 - s).strip() == "20:00"
            c.update(walk)                         # 00:00: walkover
            assert c.state == cc.OVER and c.forfeited[s] and c.rem[s] == 0, change
            assert c.late_ms[s] == walk and c.late_ms[1 - s] == 0


def test_the_referee_sets_both_elapsed_times_pfs_6_3_3_tso_2_4_c():
    """Both late (PFS § 6.3.3): the referee's clock ran for left; right
    arrived first and stopped it (ready); the referee sets right's elapsed
    time, left's clock runs on from its account; left arrives; both have
    their time less their lateness (TSO § 2.4 c)."""
    events = []
    c = plain(profiles.make_rules("pfs"), lambda code, s, t, a: events.append((code, s, t, a)))
    assert c.start_late(LEFT, 0)
    assert c.pause(3 * MIN) and c.state == cc.READY   # right arrived
    assert c.set_lateness(RIGHT, 3 * MIN, 3 * MIN + 5000)
    assert events[-1] == (cc.EV_LATENESS, RIGHT, 3 * MIN + 5000, 3 * MIN)
    assert cc.is_action(cc.EV_LATENESS)
    assert c.start_late(LEFT, 3 * MIN + 6000) and c.lateness() == 3 * MIN
    c.update(5 * MIN + 6000)
    assert c.pause(5 * MIN + 6000)                 # left arrived: 5:00 late
    assert c.late_ms == [5 * MIN, 3 * MIN] and c.rem == [15 * MIN, 17 * MIN]
    assert c.press(RIGHT, 6 * MIN)                 # the game begins
    assert not c.set_lateness(LEFT, 0, 6 * MIN)    # not after the start
    c.update(7 * MIN)
    assert c.late_ms == [5 * MIN, 3 * MIN] and c.rem == [14 * MIN, 17 * MIN]


def test_set_lateness_sets_the_account_and_moves_the_time_by_the_difference_spec_5():
    """`lateness <side> <ms>` (SPEC v5 §5): in ready or late the account
    becomes ms and the remaining time changes by the difference; during a
    lateness the clock runs on from the new account."""
    for s in (LEFT, RIGHT):
        c = sdev()
        assert c.set_lateness(s, 7 * MIN, 0)
        assert c.rem[s] == 23 * MIN and c.rem[1 - s] == 30 * MIN
        assert c.set_lateness(s, 2 * MIN, 1)       # down: time given back
        assert c.rem[s] == 28 * MIN and c.late_ms[s] == 2 * MIN
        assert c.start_late(s, 10)
        c.update(10 + 30000)
        assert c.lateness() == 2 * MIN + 30000
        assert c.set_lateness(s, MIN, 10 + 30000)  # in late: back to +01:00
        assert c.state == cc.LATE and c.lateness() == MIN
        assert c.rem[s] == 29 * MIN
        c.update(10 + 30000 + 14 * MIN + 999)
        assert c.state == cc.LATE
        c.update(10 + 30000 + 14 * MIN + 1000)     # +15:01 of the account
        assert c.state == cc.OVER and c.forfeited[s]
        assert not c.set_lateness(s, 0, 20 * MIN)  # over: refused


def test_set_lateness_refusals_and_its_bounds():
    """Refused after the start (running, paused, over), past what mm:ss
    shows (99:59) or below 0, and in a flag profile past 00:00 (a side's
    time stops there); exactly 00:00 in pfs is the walkover (PFS § 6.3.4),
    in a flag profile without a lateness limit the side is out."""
    c = sdev()
    assert not c.set_lateness(LEFT, -1, 0)
    assert not c.set_lateness(LEFT, cc.MAX_LATENESS_MS + 1, 0)
    assert c.set_lateness(LEFT, 0, 0) and c.rem == [30 * MIN, 30 * MIN]
    c.press(LEFT, 0)
    assert not c.set_lateness(LEFT, MIN, 1)        # running
    c.pause(2)
    assert not c.set_lateness(LEFT, MIN, 3)        # paused
    assert c.late_ms == [0, 0]
    c = pfs(base="10:00")
    assert not c.set_lateness(RIGHT, 10 * MIN + 1, 0)
    assert c.rem[RIGHT] == 10 * MIN and c.state == cc.READY
    assert c.set_lateness(RIGHT, 10 * MIN, 0)      # time gone: walkover
    assert c.state == cc.OVER and c.forfeited[RIGHT]
    c = plain(profiles.make_rules("pfs", [("base", "10:00"), ("late", "none")]))
    assert c.start_late(RIGHT, 0)
    assert c.set_lateness(RIGHT, 10 * MIN, 1000)   # no limit: it just stops
    assert c.state == cc.READY and c.out(RIGHT) and not c.forfeited[RIGHT]


def test_a_lateness_past_the_base_runs_into_overtime_and_its_forfeit_tso_5_2_c():
    """A short base (05:00): an elapsed lateness of 09:00 leaves -04:00,
    overtime with its penalty (TSO § 5.2 b); 10:01 would be overtime 5:01,
    lost (TSO § 5.2 c) before the lateness limit."""
    c = sdev(base="05:00")
    assert c.set_lateness(LEFT, 9 * MIN, 0)
    assert c.state == cc.READY and c.overtime(LEFT) == 4 * MIN and c.penalty(LEFT) == 40
    assert c.set_lateness(LEFT, 10 * MIN + 1000, 1)
    assert c.state == cc.OVER and c.forfeited[LEFT]


def test_the_lateness_account_never_passes_the_clocks_own_limit():
    """No lateness limit, nobody stops it: the account stops at
    OVERTIME_CAP (a small int on the boards) as the clock does."""
    c = plain(profiles.make_rules("sdev", [("late", "none"), ("forfeit", "none")]))
    assert c.set_lateness(LEFT, cc.MAX_LATENESS_MS, 0)
    assert c.start_late(LEFT, 0)
    c.update(cc.OVERTIME_CAP)
    assert c.state == cc.READY and c.late_ms[LEFT] == cc.OVERTIME_CAP
    assert c.rem[LEFT] == 30 * MIN - cc.OVERTIME_CAP


# -- the referee's base time (SPEC v4 §4 Referee functions) ------------------------

def test_base_change_with_nothing_charged_sets_the_time():
    for s in (LEFT, RIGHT):
        events = []
        c = plain(profiles.make_rules("sdev"), lambda code, side, t, a: events.append((code, side, a)))
        assert c.rebase(s, 25 * MIN, 500)
        assert c.rem[s] == 25 * MIN and c.rem[1 - s] == 30 * MIN
        assert c.rules.base[s] == 25 * MIN and c.state == cc.READY
        assert events == [(cc.EV_BASE, s, 25 * MIN)] and cc.is_action(cc.EV_BASE)


def test_base_change_keeps_charged_lateness_and_adjustments_tso_2_4_b_i():
    """remaining = new base - charged: a lateness (or a confirmed
    adjustment) stays charged; the lateness limit counts on."""
    for s in (LEFT, RIGHT):
        c = sdev()
        c.start_late(s, 0)
        c.update(7 * MIN)
        assert c.rebase(s, 25 * MIN, 7 * MIN)       # during the lateness
        assert c.state == cc.LATE and c.lateness() == 7 * MIN
        assert c.rem[s] == 18 * MIN
        assert c.adjust(1 - s, -MIN, 7 * MIN) is False   # a clock runs
        c.pause(8 * MIN)                            # arrived: 8:00 charged
        assert c.adjust(1 - s, -MIN, 8 * MIN)       # the other side: 1:00
        assert c.rebase(s, 20 * MIN, 9 * MIN) and c.rebase(1 - s, 20 * MIN, 9 * MIN)
        assert c.rem[s] == 12 * MIN and c.rem[1 - s] == 19 * MIN
        c.start_late(s, 10 * MIN)                   # the account still 8:00
        assert c.lateness() == 8 * MIN
        c.update(10 * MIN + 7 * MIN + 999)
        assert c.state == cc.LATE
        c.update(10 * MIN + 7 * MIN + 1000)         # 15:01: lost
        assert c.state == cc.OVER and c.forfeited[s]


def test_base_change_only_before_the_game_and_leaving_time():
    c = pfs()
    c.start_late(LEFT, 0)
    c.update(10 * MIN)
    assert not c.rebase(LEFT, 10 * MIN, 10 * MIN)   # would stop it at 00:00
    assert not c.rebase(LEFT, 0, 10 * MIN)
    assert not c.rebase(LEFT, 100 * MIN, 10 * MIN)  # past 99:59
    assert c.rebase(LEFT, 11 * MIN, 10 * MIN) and c.rem[LEFT] == MIN
    c.update(11 * MIN)                              # its whole time: walkover
    assert c.state == cc.OVER and c.forfeited[LEFT]
    c = sdev()
    c.press(LEFT, 0)
    assert not c.rebase(RIGHT, 25 * MIN, 1000)      # running
    c.pause(2000)
    assert not c.rebase(RIGHT, 25 * MIN, 3000)      # paused: the game is on
    c.end(4000)
    assert not c.rebase(LEFT, 25 * MIN, 5000)       # over
    assert c.rules.base == [30 * MIN, 30 * MIN]


def test_base_change_in_ready_past_00_00_acts_as_an_adjustment_would():
    """In ready nothing runs: a base below what was charged leaves the side
    in overtime (or out, pfs), and the limits act as after an adjustment."""
    c = sdev()
    c.adjust(LEFT, -(30 * MIN), 0)                 # the referee's elapsed 30:00
    assert c.rebase(LEFT, 25 * MIN, 0) and c.overtime(LEFT) == 5 * MIN
    assert c.state == cc.READY
    assert c.rebase(LEFT, 24 * MIN, 0)             # -06:00: past the forfeit
    assert c.state == cc.OVER and c.forfeited[LEFT]
    c = pfs(base="01:00")
    c.adjust(RIGHT, -MIN, 0)                       # right out before the game
    assert not c.rebase(RIGHT, 30000, 0)           # below 00:00: refused (flag)
    assert c.rebase(LEFT, 30000, 0) and c.rem[LEFT] == 30000
    c = pfs(base="01:00")
    c.start_late(LEFT, 0)
    c.update(30000)
    assert c.rebase(RIGHT, 1000, 30000) and c.rem[RIGHT] == 1000   # not the late side
    assert not c.rebase(LEFT, 30000, 30000)        # the late side: 00:00 refused


def test_base_change_does_not_touch_shared_rules():
    r = profiles.make_rules("sdev")
    c = plain(r)
    c.rebase(LEFT, 20 * MIN, 0)
    assert r.base == [30 * MIN, 30 * MIN] and c.rules.base == [20 * MIN, 30 * MIN]


# -- pause (TSO § 1.4.2 a iii, § 4.1; PFS § 3.4.2) --------------------------------

def test_pause_stops_the_whole_clock_and_resumes_same_side_tso_4_1():
    c = sdev()
    c.press(LEFT, 0)
    c.pause(10000)
    assert c.state == cc.PAUSED and c.running() == -1
    c.update(500000)
    assert c.remaining(RIGHT) == 30 * MIN - 10000
    c.pause(500000)
    assert c.running() == RIGHT
    c.update(501000)
    assert c.remaining(RIGHT) == 30 * MIN - 11000


def test_pause_does_nothing_in_ready_and_over():
    c = sdev()
    assert not c.pause(100) and c.state == cc.READY
    c.press(LEFT, 0)
    c.end(1000)
    assert not c.pause(2000) and c.state == cc.OVER


# -- buttons (SPEC §4 Player button) ----------------------------------------------

def test_first_press_starts_the_opponents_clock_tso_2_3():
    c = sdev()
    c.press(RIGHT, 0)
    assert c.running() == LEFT and c.win == 0  # no challenge window at the start


def test_press_by_the_waiting_player_is_ignored():
    c = sdev()
    c.press(LEFT, 0)                        # right runs
    assert not c.press(LEFT, 3000)          # wrong player / bounce
    assert c.running() == RIGHT
    c.update(4000)
    assert c.remaining(RIGHT) == 30 * MIN - 4000


def test_opponent_restarts_the_movers_clock_tso_3_1_1():
    c = sdev()
    c.press(LEFT, 0)                        # right moves
    c.pause(5000)                           # right stops the clock
    c.press(LEFT, 8000)                     # left restarts right's clock
    assert c.running() == RIGHT and c.win == 0
    c.update(10000)
    assert c.remaining(RIGHT) == 30 * MIN - 7000


def test_dead_time_flow_end_of_turn_from_paused_pfs_3_2_1():
    c = plain(profiles.make_rules("custom", {"window": "20", "zero": "flag"}))
    c.press(LEFT, 0)                        # right moves
    c.pause(5000)                           # stops the clock, records the move
    c.press(RIGHT, 9000)                    # ends the turn: left runs
    assert c.running() == LEFT and c.win == 20000
    assert c.remaining(RIGHT) == 20 * MIN - 5000


def test_charges_each_press_at_its_own_timestamp_spec_4_timekeeping():
    a = sdev()
    b = sdev()
    for c in (a, b):
        c.press(LEFT, 0)
    for t in range(1, 12346):               # a busy loop updating every ms ...
        a.update(t)
    a.press(RIGHT, 12345)
    b.press(RIGHT, 12345)                   # ... or nothing in between
    assert a.rem == b.rem == [30 * MIN, 30 * MIN - 12345]


def test_per_side_base_times_tso_2_4_pfs_6_3():
    c = plain(profiles.make_rules("pfs", {"base_left": "12:00", "base_right": "20:00"}))
    assert c.rem == [12 * MIN, 20 * MIN]
    assert shown(c, LEFT) == " 12:00" and shown(c, RIGHT) == " 20:00"


# -- challenge window (TSO § 3.1.2, § 3.1.3) ---------------------------------------

def test_challenge_window_20s_opens_freezes_restarts_closes_tso_3_1_2():
    events = []
    c = plain(profiles.make_rules("sdev"), lambda code, s, t, a: events.append((code, t)))
    c.press(LEFT, 0)
    assert c.win == 0
    c.press(RIGHT, 30000)                   # turn-ending press
    assert c.win == 20000
    c.update(35000)
    assert c.win == 15000
    c.pause(35000)
    c.update(90000)
    assert c.win == 15000                   # frozen in pause
    c.pause(90000)
    c.update(95000)
    assert c.win == 10000
    c.press(LEFT, 95000)                    # next turn-ending press restarts it
    assert c.win == 20000
    c.update(200000)
    assert c.win == 0
    assert (cc.EV_WINDOW, 115000) in events  # closed at its exact instant


def test_challenge_window_seconds_on_the_display_tso_1_4_2_a_iv():
    c = sdev()
    c.press(LEFT, 0)
    c.press(RIGHT, 1000)
    c.update(1001)
    row = hd44780.text_of(c)[1]
    assert "CHL 20" in row
    c.update(1000 + 19001)
    assert "CHL 01" in hd44780.text_of(c)[1]


def test_pfs_has_no_challenge_window_pfs_4_9():
    c = pfs()
    c.press(LEFT, 0)
    c.press(RIGHT, 1000)
    assert c.win == 0


# -- flag profiles (PFS § 6.2.1, § 5.1.1 c, § 6.2.2) --------------------------------

def test_flag_pauses_the_clock_other_plays_on_both_out_is_over_pfs_6_2_1():
    events = []
    c = plain(profiles.make_rules("pfs", {"base": "01:00"}),
              lambda code, s, t, a: events.append((code, s, t)))
    c.press(LEFT, 0)                        # right runs
    c.update(70000)
    assert c.flag(RIGHT) and c.out(RIGHT) and c.remaining(RIGHT) == 0
    assert c.state == cc.PAUSED             # dead time at the flag
    assert (cc.EV_FLAG, RIGHT, MIN) in events  # exact instant for the referee
    assert shown(c, RIGHT) == " 00:00"
    c.press(LEFT, 80000)                    # any key: left (remaining) runs
    assert c.running() == LEFT
    c.press(LEFT, 90000)                    # left ends a turn: right is out
    assert c.running() == LEFT
    assert not c.press(RIGHT, 95000)        # the out player can't start anything
    c.update(80000 + MIN + 5000)
    assert c.state == cc.OVER and c.flag(LEFT)
    assert c.remaining(LEFT) == 0 and c.overtime(LEFT) == 0


def test_pause_key_after_flag_leaves_the_clock_stopped_pfs_6_2_2_and_6_1():
    """SPEC v2: a flag during a move is a referee matter; the pause key keeps
    the clock stopped, a player button runs the remaining player."""
    c = pfs(base="01:00")
    c.press(LEFT, 0)
    c.update(MIN)                           # right flagged: dead time
    assert not c.pause(MIN + 5000)
    assert c.state == cc.PAUSED and c.running() == -1
    c.update(MIN + 60000)
    assert c.remaining(LEFT) == MIN         # nothing ran
    for x in (LEFT, RIGHT):                 # either player button ...
        d = pfs(base="01:00")
        d.press(LEFT, 0)
        d.update(MIN)
        d.press(x, MIN + 1000)
        assert d.running() == LEFT and d.win == 0   # ... runs the remaining player


def test_flag_before_the_clock_was_stopped_is_visible_pfs_6_2_2():
    """A move made after the flag fell is withdrawn: the referee must see
    that the flag fell before the pause."""
    events = []
    c = plain(profiles.make_rules("pfs", {"base": "01:00"}),
              lambda code, s, t, a: events.append((code, s, t)))
    c.press(LEFT, 0)
    c.pause(MIN + 300)                      # stopped 0.3 s too late
    # The flag fell first (the clock paused itself at 00:00); the late pause
    # key changes nothing, and the log shows the flag's own instant.
    assert events == [(cc.EV_LEFT, LEFT, 0), (cc.EV_FLAG, RIGHT, MIN)]
    assert c.flag(RIGHT) and c.running() == -1 and c.remaining(RIGHT) == 0
    c2 = pfs(base="01:00")
    c2.press(LEFT, 0)
    c2.pause(MIN - 1)                       # 1 ms in time
    assert not c2.flag(RIGHT) and c2.remaining(RIGHT) == 1


# -- referee (TSO § 7.3.2.2, PFS § 6.3.2-6.3.4) ------------------------------------

def test_referee_adjust_only_in_ready_and_paused_tso_7_3_2_2():
    c = sdev()
    assert c.adjust(LEFT, -60000, 0)        # ready: late arrival
    assert c.rem[LEFT] == 29 * MIN
    c.press(LEFT, 0)
    assert not c.adjust(RIGHT, 30000, 1000)  # running: refused
    c.pause(2000)
    assert c.adjust(RIGHT, 30000, 2000)     # paused: credit 30 s
    assert c.rem[RIGHT] == 30 * MIN - 2000 + 30000


def test_adjust_into_overtime_past_the_limit_forfeits_tso_5_2_c():
    c = sdev(base="01:00")
    c.press(LEFT, 0)
    c.pause(1000)
    c.adjust(RIGHT, -(MIN + 301000), 1000)
    assert c.forfeited[RIGHT] and c.state == cc.OVER


def test_adjust_in_flag_profile_can_flag_and_unflag():
    c = pfs(base="01:00")
    c.press(LEFT, 0)
    c.pause(1000)
    c.adjust(LEFT, -2 * MIN, 1000)          # takes all of left's time
    assert c.out(LEFT) and c.rem[LEFT] == 0
    c.adjust(LEFT, 30000, 1000)             # referee credits it back
    assert not c.out(LEFT) and c.rem[LEFT] == 30000


# -- reset protection (TSO § 1.4.1 a) -------------------------------------------------

def test_no_player_event_resets_a_game_tso_1_4_1_a():
    c = sdev()
    c.press(LEFT, 0)
    c.press(RIGHT, 1000)
    for i, t in enumerate(range(2000, 10000, 37)):
        (c.press if i % 3 else lambda s, t: c.pause(t))(i % 2, t)
    assert c.state != cc.READY
    assert c.rem[0] + c.rem[1] < 2 * 30 * MIN


# -- snapshot ---------------------------------------------------------------------------

def test_restore_after_power_up_resumes_paused_spec_4_power_loss():
    c = sdev()
    c.press(LEFT, 0)
    c.update(5000)
    snap = list(c.snapshot())
    d = sdev()
    d.restore(snap, t=123)                  # ticks restarted after the cut
    assert d.state == cc.PAUSED and d.side == RIGHT
    assert d.rem == [30 * MIN, 30 * MIN - 5000]
    d.pause(1123)
    d.update(2123)
    assert d.rem[RIGHT] == 30 * MIN - 6000


def test_snapshot_carries_the_lateness_accounts_and_the_set_up_base_spec_5():
    """SPEC v5 §4 Power loss: the lateness account is part of the game (a
    power cut at a lateness's start kept 0 where the log said 2.1 s), and
    the base the game was set up with names the log header's rules."""
    c = sdev()
    c.start_late(RIGHT, 0)
    c.update(2100)
    c.rebase(LEFT, 25 * MIN, 2100)
    snap = list(c.snapshot())
    assert len(snap) == cc.SNAPSHOT_LEN and snap[0] == cc.SNAPSHOT_VERSION
    d = sdev()
    d.restore(snap, t=50)                   # a lateness clock runs on
    assert d.state == cc.LATE and d.lateness() == 2100 and d.late_ms == [0, 2100]
    assert d.start_rules().base == [30 * MIN, 30 * MIN]
    assert d.rules.base == [25 * MIN, 30 * MIN]
    d.update(1050)
    assert d.lateness() == 3100 and d.rem[RIGHT] == 30 * MIN - 3100


def test_the_set_up_base_times_survive_the_snapshot_at_their_bounds():
    """The set-up base times ride in the forfeit-bits int, in whole seconds
    (what a log header's mm:ss states): 99:59 and 00:01, a forfeit on
    each side, all come back."""
    c = plain(profiles.make_rules("custom", [("base_left", "99:59"), ("base_right", "00:01")]))
    c.rebase(LEFT, 5 * MIN, 0)
    c.forfeited[0] = c.forfeited[1] = True
    snap = list(c.snapshot())
    assert 0 <= snap[10] < 1 << 28
    d = sdev()
    d.restore(snap)
    assert d.start_rules().base == [profiles.MAX_BASE_MS, 1000]
    assert d.rules.base == [5 * MIN, 1000] and d.forfeited == [True, True]


def test_a_version_2_snapshot_still_restores():
    """The SPEC v4 firmware's 19-int snapshot (its lateness was base -
    remaining): before the game that is the account, after the start 0."""
    v2 = [2, cc.LATE, RIGHT, 30 * MIN, 30 * MIN - 7000, -1, 0, 0, 1234, 0, 0,
          30 * MIN, 30 * MIN, 0, 10, 300, 20000, 900, 0]
    assert len(v2) == cc.SNAPSHOT_LEN_V2
    c = sdev()
    c.restore(v2, t=0)
    assert c.state == cc.LATE and c.lateness() == 7000 and c.late_ms == [0, 7000]
    assert c.start_rules().base == [30 * MIN, 30 * MIN]
    v2[1] = cc.PAUSED
    c.restore(v2, t=0)
    assert c.state == cc.PAUSED and c.late_ms == [0, 0]
    assert len(c.snapshot()) == cc.SNAPSHOT_LEN


def test_restore_rejects_foreign_data():
    c = sdev()
    late = list(c.snapshot())
    late[9] = -1                            # a lateness account below 0
    over = list(c.snapshot())
    over[19] = cc.OVERTIME_CAP + 1
    v2_long = [2] + [0] * (cc.SNAPSHOT_LEN - 1)
    for bad in ([], [0] * cc.SNAPSHOT_LEN, [cc.SNAPSHOT_VERSION, 9] + [0] * 16,
                late, over, v2_long, [cc.SNAPSHOT_VERSION] + [0] * (cc.SNAPSHOT_LEN_V2 - 1)):
        try:
            c.restore(bad)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (bad,))


# -- on the boards' tick counter, which wraps at 2**30 ---------------------------

DIFF, ADD = ticks.wrapping(1 << 30)
T0 = (1 << 30) - 45000  # the counter wraps 45 s into every game


def clock(name, over=None, hook=None):
    """A clock on the boards' wrapping ticks, started T0."""
    return cc.Clock(profiles.make_rules(name, over), T0, DIFF, ADD, hook)


def at(ms):
    return ADD(T0, ms)


def rows(c, cols=16, nrows=2):
    return hd44780.text_of(c, cols, nrows)


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
    eq(rows(c)[1][:10], "LEFT LOST ", "row1 shows the loss, naming its side (issue 37)")


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


@micropython_only
def test_steady_state_calls_allocate_nothing():
    c = clock("sdev", {"base": "01:00"})
    f = framemod.Frame()
    v = view.View(16, 2)
    v4 = hd44780.layout(20, 4)
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
        f.fill(c)
        v.render(f)
        v4.render(f)

    eq(_alloc(tick), 0, "update() bytes")
    eq(_alloc(query), 0, "queries bytes")
    eq(_alloc(render), 0, "view render bytes")
    c.update(at(1000 + MIN + 70000))    # in overtime with penalties shown
    eq(_alloc(render), 0, "view render in overtime bytes")
    c.pause(at(1000 + MIN + 70000))
    eq(_alloc(render), 0, "view render paused bytes")
    snap = list(c.snapshot())           # a checkpoint and a power-up's restore
    eq(_alloc(c.snapshot), 0, "snapshot() bytes")
    eq(_alloc(lambda: c.restore(snap)), 0, "restore() bytes")
    eq(c.snapshot(), snap, "restore(snapshot()) gives the same state")
    d = clock("sdev")
    d.start_late(cc.LEFT, at(0))
    d.update(at(5000))

    late_t = {"t": 5001}

    def render_late():
        late_t["t"] += 1
        d.update(at(late_t["t"]))
        d.lateness()
        f.due(d)
        f.fill(d)
        v.render(f)
        v4.render(f)
    eq(_alloc(render_late), 0, "view render of a lateness bytes")
    eq(d.lateness(), late_t["t"], "the account ran with the clock")


def test_wrapping_ticks_exact_at_the_wrap():
    # issue 11: on a 32-bit port (31-bit small ints) the old `(t + d) & mask`
    # made a heap bigint near 2**30.  The pair must give the modular answer
    # (and allocate nothing, below), as the C time.ticks_diff/ticks_add do.
    top = (1 << 30) - 1
    eq(ADD(top, 1), 0, "add across the wrap")
    eq(ADD(top - 5, 10), 4, "add past the wrap")
    eq(ADD(3, -10), top - 6, "add backwards across the wrap")
    eq(DIFF(4, top - 5), 10, "diff across the wrap")
    eq(DIFF(top - 5, 4), -10, "diff backwards across the wrap")
    eq(DIFF(1 << 29, 0), -(1 << 29), "half a period is negative")
    eq(DIFF((1 << 29) - 1, 0), (1 << 29) - 1, "just under half a period")


@micropython_only
def test_ticks_arithmetic_allocation_free_at_the_wrap_issue_11():
    top = (1 << 30) - 1

    def near_wrap():
        ADD(top - 100, 1000)
        ADD(top, top)
        DIFF(5, top - 5)
        DIFF(top, 0)

    eq(_alloc(near_wrap), 0, "bytes allocated by ticks arithmetic at the wrap")
