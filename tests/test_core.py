"""The timing core against the tournament rules (SPEC §2-§4).

Each test names the clause it proves.  Times are integer ms; the core is fed
event timestamps exactly as the device captures them.
"""
import clockcore as cc
import profiles
import view
from clockcore import LEFT, RIGHT

MIN = 60000


def plain(rules, hook=None):
    return cc.Clock(rules, 0, lambda a, b: a - b, lambda t, d: t + d, hook)


def sdev(**over):
    return plain(profiles.make_rules("sdev", {k: str(v) for k, v in over.items()}))


def pfs(**over):
    return plain(profiles.make_rules("pfs", {k: str(v) for k, v in over.items()}))


def shown(clock, s):
    """The 6 characters the LCD shows for side s."""
    v = view.View(16, 2)
    row = view.to_text(v.render(clock)[0])
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


def test_end_rolls_back_time_since_the_last_press_tso_5_2_d():
    c = sdev(base="01:00")
    c.press(LEFT, 0)                        # right runs
    c.press(RIGHT, 50000)                   # right ends turn at 50 s: left runs
    c.update(50000 + MIN + 90000)           # left overtime 1:30 (nobody stopped it)
    assert c.penalty(LEFT) == 20
    c.end(50000 + MIN + 90000)
    assert c.state == cc.OVER
    assert c.remaining(LEFT) == MIN and c.penalty(LEFT) == 0
    assert c.remaining(RIGHT) == 10000       # right keeps what it used


def test_end_from_paused_charges_the_paused_turn_pfs_3_4_2():
    """The mover stopped the clock (dead time) after the last move: that
    thinking time is the mover's own, so `end` from paused rolls nothing back."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)
    c.pause(20000)
    c.end(25000)
    assert c.remaining(RIGHT) == 40000 and c.state == cc.OVER


def test_long_press_end_at_the_pause_instant_counts_as_end_from_running():
    """The device's end gesture is a long press of the pause key: its leading
    edge paused the running clock, the end carries that same timestamp and
    rolls back like an end from running (TSO § 5.2 d)."""
    c = sdev(base="01:00")
    c.press(LEFT, 0)
    c.press(RIGHT, 5000)                    # left runs from 5 s
    c.pause(30000)                          # pause key goes down
    c.update(32000)                         # held 2 s ...
    c.end(30000)                            # ... long press: end at the edge
    assert c.remaining(LEFT) == MIN
    c2 = sdev(base="01:00")
    c2.press(LEFT, 0)
    c2.press(RIGHT, 5000)
    c2.pause(30000)
    c2.end(30001)                           # a separate later end: no rollback
    assert c2.remaining(LEFT) == MIN - 25000


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
    row = view.to_text(view.View().render(c)[1])
    assert "CHL 20" in row
    c.update(1000 + 19001)
    assert "CHL 01" in view.to_text(view.View().render(c)[1])


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


def test_pause_key_after_flag_runs_the_remaining_player_pfs_6_2_1():
    c = pfs(base="01:00")
    c.press(LEFT, 0)
    c.update(MIN)
    c.pause(MIN + 5000)
    assert c.running() == LEFT


def test_flag_before_the_clock_was_stopped_is_visible_pfs_6_2_2():
    """A move made after the flag fell is withdrawn: the referee must see
    that the flag fell before the pause."""
    events = []
    c = plain(profiles.make_rules("pfs", {"base": "01:00"}),
              lambda code, s, t, a: events.append((code, s, t)))
    c.press(LEFT, 0)
    c.pause(MIN + 300)                      # stopped 0.3 s too late
    # The flag fell first (the clock paused itself at 00:00), so this key
    # press already runs the remaining player's clock (SPEC §4 flag profiles).
    assert events == [(cc.EV_LEFT, LEFT, 0), (cc.EV_FLAG, RIGHT, MIN),
                      (cc.EV_PAUSE, LEFT, MIN + 300)]
    assert c.flag(RIGHT) and c.running() == LEFT and c.remaining(RIGHT) == 0
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


def test_adjustment_survives_the_end_rollback_tso_7_3_2_2_and_5_2_d():
    """A referee's deduction during a paused turn is not part of that turn:
    ending the game in that turn rolls back the running time only."""
    c = sdev()
    c.press(LEFT, 0)                        # right runs
    c.pause(10000)
    c.adjust(RIGHT, -60000, 11000)          # referee deducts a minute
    c.pause(12000)
    c.end(15000)                            # end from running: rollback
    assert c.rem[RIGHT] == 30 * MIN - 60000


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


def test_restore_rejects_foreign_data():
    c = sdev()
    for bad in ([], [0] * cc.SNAPSHOT_LEN, [cc.SNAPSHOT_VERSION, 9] + [0] * 16):
        try:
            c.restore(bad)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (bad,))
