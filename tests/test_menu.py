"""The setup menu and the referee menu (firmware/menu.py), driven by action
codes exactly as the app passes them, checked on the rendered LCD rows.

Rules behind the menus: SPEC §4 Setup and Referee functions; TSO § 7.3.2.2
(referee deducts or credits time), TSO § 2.4 and PFS § 6.3.2-6.3.3 (late
players: the elapsed time is set on the clock), TSO § 1.4.1 a (no reset by
accident), TSO § 1.1 b / PFS § 1.2 (base times per profile).
"""
import itertools

import pytest

import clockcore as cc
import lang
import menu
import profiles
import settings
import view
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE

MIN = 60000


def rows_of(cols=16, n=2):
    return [bytearray(b" " * cols) for _ in range(n)]


def shown(m, cols=16, n=2):
    return [view.to_text(r) for r in m.render(rows_of(cols, n))]


def press(m, *actions):
    out = None
    for a in actions:
        out = m.handle(a)
    return out


# -- setup menu -------------------------------------------------------------------

def test_action_codes_are_the_apps():
    assert (A_LEFT, A_RIGHT, A_NEXT, A_DONE) == (1, 2, 3, 4)


def test_setup_walk_default_profile_items_and_wrap():
    """sdev/pfs show profile, time, language, sound, the table number and the
    last games' results (SPEC v2 §4); A_NEXT wraps round."""
    m = menu.SetupMenu(settings.Settings())
    seen = []
    for _ in range(7):
        seen.append(shown(m))
        assert m.handle(A_NEXT) is None
    assert seen == [
        ["Rules           ", "<  SDeV (TSO)  >"],
        ["Time per player ", "<    30:00     >"],
        ["Language        ", "<   English    >"],
        ["Sound           ", "<      on      >"],
        ["Table number    ", "      none     >"],
        ["Last games      ", "               >"],
        ["Rules           ", "<  SDeV (TSO)  >"],
    ]
    goto(m, "Last games")
    assert m.handle(A_RIGHT) == "results" and m.handle(A_LEFT) == "results"


def test_setup_profile_change_jumps_base_to_profile_default():
    """TSO § 1.1 b: 30 min; PFS § 1.2: 20 min usual; custom starts at 20."""
    s = settings.Settings()
    m = menu.SetupMenu(s)
    m.handle(A_NEXT)
    press(m, A_LEFT, A_LEFT, A_LEFT, A_LEFT, A_LEFT)       # 25:00 (TSO option)
    assert (s.base_left, s.base_right) == (25 * MIN, 25 * MIN)
    for _ in range(5):
        m.handle(A_NEXT)                                   # back to profile
    assert m.handle(A_RIGHT) is None
    assert s.profile == "pfs" and (s.base_left, s.base_right) == (20 * MIN, 20 * MIN)
    assert shown(m) == ["Rules           ", "<     PFS      >"]
    m.handle(A_RIGHT)
    assert s.profile == "custom" and s.base_left == 20 * MIN
    assert shown(m)[1] == "<    Custom    >"
    m.handle(A_RIGHT)
    assert s.profile == "sdev" and s.base_right == 30 * MIN   # wraps
    m.handle(A_LEFT)
    assert s.profile == "custom"                               # and back


def test_setup_base_time_bounds_one_minute_steps():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    m.handle(A_NEXT)
    m.handle(A_RIGHT)
    assert s.base_left == s.base_right == 31 * MIN
    for _ in range(200):
        m.handle(A_RIGHT)
    assert s.base_left == s.base_right == settings.BASE_MAX == 99 * MIN
    assert shown(m)[1] == "<    99:00      "          # no '>' at the top
    for _ in range(200):
        m.handle(A_LEFT)
    assert s.base_left == settings.BASE_MIN == MIN
    assert shown(m)[1] == "     01:00     >"


def test_setup_custom_walkthrough_every_item():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    m.handle(A_RIGHT), m.handle(A_RIGHT)                   # custom
    seen = []
    for _ in range(13):
        seen.append(shown(m))
        m.handle(A_NEXT)
    assert seen == [
        ["Rules           ", "<    Custom    >"],
        ["Time per player ", "<    20:00     >"],
        ["Time: left      ", "<    20:00     >"],
        ["Time: right     ", "<    20:00     >"],
        ["At 00:00        ", "<   Overtime   >"],
        ["Penalty/minute  ", "      none     >"],
        ["Forfeit after   ", "     never     >"],
        ["Challenge time  ", "      none     >"],
        ["Language        ", "<   English    >"],
        ["Sound           ", "<      on      >"],
        ["Table number    ", "      none     >"],
        ["Last games      ", "               >"],
        ["Rules           ", "<    Custom    >"],
    ]


def goto(m, label):
    for _ in range(14):
        if shown(m, 16, 2)[0].rstrip() == label:
            return
        m.handle(A_NEXT)
    raise AssertionError("no item " + label)


def custom_menu():
    s = settings.Settings()
    s.set_profile("custom")
    return s, menu.SetupMenu(s)


def test_setup_custom_sdev_like_rules_and_their_rules_object():
    """Rebuild the TSO numbers by hand: 25:00, overtime, 10 points per started
    minute, lost beyond 5:00, 20 s challenge window (TSO § 5.2, § 3.1.2)."""
    s, m = custom_menu()
    goto(m, "Time per player")
    press(m, *[A_RIGHT] * 5)
    goto(m, "Penalty/minute")
    press(m, A_RIGHT, A_RIGHT)
    assert shown(m)[1] == "<      10      >"
    goto(m, "Forfeit after")
    press(m, *[A_RIGHT] * 5)
    assert shown(m)[1] == "<    05:00     >"
    goto(m, "Challenge time")
    press(m, *[A_RIGHT] * 4)
    assert shown(m)[1] == "<     20 s     >"
    assert m.handle(A_DONE) == "save"
    assert (s.penalty, s.forfeit, s.window) == (10, 300, 20000)
    want = profiles.make_rules("sdev", {"base": "25:00", "late": "none"})
    # the setup menu offers no lateness limit for custom: none (SPEC §3
    # allows any; the referee handles lateness in custom games)
    assert s.rules().as_ints() == want.as_ints()


def test_setup_penalty_bounds_0_to_50_step_5():
    s, m = custom_menu()
    goto(m, "Penalty/minute")
    values = []
    for _ in range(12):
        m.handle(A_RIGHT)
        values.append(s.penalty)
    assert values == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 50, 50]
    assert shown(m)[1] == "<      50       "
    for _ in range(11):
        m.handle(A_LEFT)
    assert s.penalty == 0
    s.penalty = 7                                          # hand-edited file
    m.handle(A_RIGHT)
    assert s.penalty == 10                                 # snaps to the grid


def test_setup_forfeit_none_then_1_to_10_minutes():
    s, m = custom_menu()
    goto(m, "Forfeit after")
    values = []
    for _ in range(12):
        m.handle(A_RIGHT)
        values.append(s.forfeit)
    assert values == [60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 600, 600]
    assert shown(m)[1] == "<    10:00      "
    for _ in range(9):
        m.handle(A_LEFT)
    assert s.forfeit == 60
    m.handle(A_LEFT)
    assert s.forfeit == -1
    assert shown(m)[1] == "     never     >"
    m.handle(A_LEFT)
    assert s.forfeit == -1


def test_setup_window_bounds_0_to_60_s_step_5():
    s, m = custom_menu()
    goto(m, "Challenge time")
    for _ in range(20):
        m.handle(A_RIGHT)
    assert s.window == 60000
    assert shown(m)[1] == "<     60 s      "
    m.handle(A_LEFT)
    assert s.window == 55000
    for _ in range(20):
        m.handle(A_LEFT)
    assert s.window == 0
    assert shown(m)[1] == "      none     >"


def test_setup_flag_at_zero_hides_penalty_and_forfeit():
    """PFS § 6.2.1: with a flag there is no overtime to penalize."""
    s, m = custom_menu()
    goto(m, "At 00:00")
    m.handle(A_RIGHT)
    assert s.zero == profiles.ZERO_FLAG
    assert shown(m) == ["At 00:00        ", "<     Flag     >"]
    labels = []
    for _ in range(10):
        m.handle(A_NEXT)
        labels.append(shown(m)[0].rstrip())
    assert labels == ["Challenge time", "Language", "Sound", "Table number", "Last games",
                      "Rules",
                      "Time per player", "Time: left", "Time: right", "At 00:00"]
    m.handle(A_LEFT)
    assert s.zero == profiles.ZERO_OVERTIME


def test_setup_per_side_times_and_the_both_item_keeps_the_difference():
    s, m = custom_menu()
    goto(m, "Time: left")
    press(m, A_LEFT, A_LEFT, A_LEFT, A_LEFT, A_LEFT)
    assert (s.base_left, s.base_right) == (15 * MIN, 20 * MIN)
    goto(m, "Time per player")
    assert shown(m)[1] == "< 15:00  20:00 >"
    m.handle(A_RIGHT)
    assert (s.base_left, s.base_right) == (16 * MIN, 21 * MIN)
    r = s.rules()
    assert r.base == [16 * MIN, 21 * MIN]


def test_setup_language_switches_the_menu_words_at_once():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    goto(m, "Language")
    m.handle(A_RIGHT)
    assert s.lang == "de"
    assert shown(m) == ["Sprache         ", "<   Deutsch    >"]
    m.handle(A_RIGHT)
    assert s.lang == "pl"
    assert shown(m) == ["J\x65zyk           ", "<    Polski    >"]
    m.handle(A_RIGHT)
    assert s.lang == "en"
    m.handle(A_LEFT)
    assert s.lang == "pl"


def test_setup_german_and_polish_rows_with_rom_letters():
    s = settings.Settings()
    s.lang = "de"
    s.set_profile("custom")
    m = menu.SetupMenu(s)
    goto(m, "Bei 00:00")
    assert shown(m)[1] == "<  Hochzählen  >"
    raw = m.render(rows_of())[1]
    assert 0xE1 in raw                                     # ä from the A00 ROM
    s.lang = "pl"
    assert shown(m) == ["Przy 00:00      ", "< Liczy dalej  >"]


def test_setup_sound_toggles():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    goto(m, "Sound")
    m.handle(A_RIGHT)
    assert s.sound is False and shown(m)[1] == "<     off      >"
    m.handle(A_LEFT)
    assert s.sound is True


def test_setup_done_returns_save_and_the_settings_survive_a_reload():
    fs_files = {}

    class Fs:
        def open(self, p, mode):
            import io
            if "r" in mode:
                if p not in fs_files:
                    raise OSError(2)
                return io.BytesIO(fs_files[p])
            f = io.StringIO()
            f.close = lambda: fs_files.__setitem__(p, f.getvalue().encode())
            return f

        def rename(self, a, b):
            fs_files[b] = fs_files.pop(a)

        def remove(self, p):
            fs_files.pop(p, None)

    s = settings.Settings.load(fs=Fs())
    m = menu.SetupMenu(s)
    m.handle(A_RIGHT)                                      # pfs
    goto(m, "Language")
    m.handle(A_RIGHT)
    assert m.handle(A_DONE) == "save"
    assert s.save()
    t = settings.Settings.load(fs=Fs())
    assert (t.profile, t.lang, t.base_left) == ("pfs", "de", 20 * MIN)


def test_setup_render_20x4_title_position_hint():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    assert shown(m, 20, 4) == ["Setup            1/6",
                               "Rules               ",
                               "<    SDeV (TSO)    >",
                               "Pause=next hold=OK  "]
    s.set_profile("custom")
    m.handle(A_NEXT)
    assert shown(m, 20, 4)[:3] == ["Setup           2/12",
                                   "Time per player     ",
                                   "<      20:00       >"]


def test_setup_table_number_none_then_1_to_99():
    """Issue 12 item 4: the table number (0 = none) every game log carries."""
    s = settings.Settings()
    m = menu.SetupMenu(s)
    goto(m, "Table number")
    assert shown(m) == ["Table number    ", "      none     >"]
    assert m.handle(A_RIGHT) is None and s.table == 1
    assert shown(m) == ["Table number    ", "<      1       >"]
    for _ in range(120):
        m.handle(A_RIGHT)
    assert s.table == settings.TABLE_MAX == 99
    assert shown(m) == ["Table number    ", "<      99       "]
    for _ in range(120):
        m.handle(A_LEFT)
    assert s.table == 0
    for lg in settings.LANGS:
        s.lang = lg
        assert shown(m)[0].rstrip() == view.to_text(lang.word(lg, "T_TABLE"))


def test_setup_unknown_actions_do_nothing():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    before = s.as_dict()
    for a in (0, 5, -1, 99):
        assert m.handle(a) is None
    assert s.as_dict() == before


# -- referee menu -----------------------------------------------------------------

class Log:
    def __init__(self):
        self.ev = []

    def __call__(self, code, side, t, arg):
        self.ev.append((code, side, t, arg))

    def adjusts(self):
        return [(s, a) for c, s, t, a in self.ev if c == cc.EV_ADJUST]


def clock(name="sdev", over=None):
    log = Log()
    c = cc.Clock(profiles.make_rules(name, over), 0, lambda a, b: a - b,
                 lambda t, d: t + d, log)
    return c, log


def paused_game(name="sdev", moved=False):
    """Right ran 61.5 s, left 30.25 s; paused with left to move.  The left
    press starts the game and right's press ends the first turn; unless
    `moved`, the referee then reset the void mark (the tests of the
    adjustment items see the same list every time)."""
    c, log = clock(name)
    c.press(cc.LEFT, 0)
    c.press(cc.RIGHT, 61500)
    c.pause(91750)
    assert c.state == cc.PAUSED
    if not moved:
        c.void_side = -1
    log.ev.clear()
    return c, log


def ref_goto(m, label, t=0):
    for _ in range(10):
        if shown(m)[0].rstrip() == label:
            return
        m.handle(A_NEXT, t)
    raise AssertionError("no item " + label)


@pytest.mark.parametrize("state", ["ready", "paused"])
@pytest.mark.parametrize("label,side,step", [
    ("Left +/- 1 s", 0, 1000), ("Left +/- 1 min", 0, MIN),
    ("Right +/- 1 s", 1, 1000), ("Right +/- 1 min", 1, MIN)])
def test_referee_adjust_items_change_by_exactly_the_step_and_log_it(state, label, side, step):
    """TSO § 7.3.2.2: time deducted or credited by the referee; every press is
    one clock.adjust(), so the game log gets EV_ADJUST with the delta."""
    c, log = paused_game() if state == "paused" else clock()
    m = menu.RefereeMenu(c)
    ref_goto(m, label)
    before = list(c.rem)
    assert m.handle(A_RIGHT, 100000) is None
    assert c.rem[side] == before[side] + step and c.rem[1 - side] == before[1 - side]
    m.handle(A_LEFT, 100001)
    m.handle(A_LEFT, 100002)
    assert c.rem[side] == before[side] - step
    assert log.adjusts() == [(side, step), (side, -step), (side, -step)]
    assert [e[2] for e in log.ev] == [100000, 100001, 100002]   # at the press


def test_referee_adjust_rows_show_that_sides_time():
    c, log = paused_game()
    m = menu.RefereeMenu(c)
    assert shown(m) == ["Left +/- 1 s    ", "<     29:30    >"]  # 29:29.75 rounds up
    m.handle(A_LEFT, 92000)
    assert shown(m)[1] == "<     29:29    >"
    ref_goto(m, "Right +/- 1 min")
    assert shown(m)[1] == "<     28:59    >"                      # 28:58.5
    for _ in range(30):
        m.handle(A_LEFT, 92000)
    assert shown(m)[1] == "<    -01:01    >"      # -1:01.5 over, shown rounded down


def test_referee_adjust_into_forfeit_ends_the_game_and_further_presses_do_nothing():
    c, log = paused_game()
    m = menu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    for _ in range(40):
        m.handle(A_LEFT, 92000)
    assert c.state == cc.OVER and c.forfeited[cc.LEFT]             # TSO § 5.2 c
    n = len(log.ev)
    m.handle(A_RIGHT, 92000)
    assert len(log.ev) == n


def test_late_arrival_sets_elapsed_time_in_minute_steps_tso_2_4_pfs_6_3_3():
    """Both players late 7 and 4 minutes: the referee sets each side's
    elapsed time before the start (PFS § 6.3.3, TSO § 2.4 c)."""
    c, log = clock("pfs")
    m = menu.RefereeMenu(c, "pl")
    ref_goto(m, "Spoznienie L")
    assert shown(m)[1] == "      00:00    >"
    for _ in range(7):
        m.handle(A_RIGHT, 5)
    assert shown(m) == ["Spoznienie L    ", "<     07:00    >"]
    m.handle(A_NEXT, 5)
    for _ in range(5):
        m.handle(A_RIGHT, 5)
    m.handle(A_LEFT, 5)
    assert c.rem == [13 * MIN, 16 * MIN]
    assert log.adjusts() == [(0, -MIN)] * 7 + [(1, -MIN)] * 5 + [(1, MIN)]
    assert c.state == cc.READY


def test_late_arrival_after_the_clock_ran_tso_2_4_b():
    """The referee started the late player's clock; on arrival it is paused
    and the menu shows the elapsed time; a minute step keeps the seconds."""
    c, log = clock("sdev")
    c.press(cc.RIGHT, 0)                 # the late left player's clock runs
    c.pause(7 * MIN + 23000)
    log.ev.clear()
    m = menu.RefereeMenu(c)
    ref_goto(m, "Late arrival L")
    assert shown(m)[1] == "<     07:23    >"
    m.handle(A_RIGHT, 7 * MIN + 24000)
    assert shown(m)[1] == "<     08:23    >"
    assert log.adjusts() == [(0, -MIN)]


def test_late_arrival_stays_within_0_and_the_base_time():
    c, log = clock("sdev", {"base": "01:30"})
    m = menu.RefereeMenu(c)
    ref_goto(m, "Late arrival R")
    m.handle(A_LEFT, 0)                  # nothing elapsed: nothing to take back
    assert log.ev == []
    m.handle(A_RIGHT, 0)
    m.handle(A_RIGHT, 0)                 # the last step stops at 00:00 left
    m.handle(A_RIGHT, 0)
    assert c.rem[1] == 0
    assert log.adjusts() == [(1, -MIN), (1, -30000)]
    assert shown(m)[1] == "<     01:30     "
    m.handle(A_LEFT, 0)
    m.handle(A_LEFT, 0)
    assert c.rem[1] == 90000 and log.adjusts()[-2:] == [(1, MIN), (1, 30000)]


def test_base_time_change_only_in_ready_and_resets_the_clock():
    c, log = clock("sdev")
    m = menu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    m.handle(A_LEFT, 0)                  # an adjustment before the change ...
    ref_goto(m, "Time per player")
    assert shown(m)[1] == "<    30:00     >"
    # TSO § 1.1 b: 25 minutes; each step tells the app (a new game log)
    assert [m.handle(A_LEFT, 10) for _ in range(5)] == [menu.RULES] * 5
    assert c.rules.base == [25 * MIN, 25 * MIN]
    assert c.rem == [25 * MIN, 25 * MIN]  # ... is gone: a fresh ready clock
    assert c.state == cc.READY
    assert shown(m)[1] == "<    25:00     >"


def test_base_time_item_absent_when_paused():
    c, log = paused_game()
    m = menu.RefereeMenu(c)
    labels = []
    for _ in range(8):
        labels.append(shown(m)[0].rstrip())
        assert m.handle(A_NEXT, 0) is None
    assert labels == ["Left +/- 1 s", "Left +/- 1 min", "Right +/- 1 s",
                      "Right +/- 1 min", "Late arrival L", "Late arrival R",
                      "Reset game", "Exit"]
    assert shown(m)[0].rstrip() == "Left +/- 1 s"     # wrapped
    assert c.rules.base == [30 * MIN, 30 * MIN]


def test_reset_needs_two_right_presses_tso_1_4_1_a():
    c, log = paused_game()
    rem = list(c.rem)
    m = menu.RefereeMenu(c)
    ref_goto(m, "Reset game")
    assert shown(m) == ["Reset game      ", "               >"]
    assert m.handle(A_RIGHT, 1) is None
    assert shown(m) == ["Reset game      ", "  Reset? R=yes  "]
    assert c.state == cc.PAUSED and c.rem == rem
    assert m.handle(A_RIGHT, 2) == "reset"
    assert c.state == cc.READY and c.rem == [30 * MIN, 30 * MIN]


@pytest.mark.parametrize("cancel", [A_LEFT, A_NEXT, A_DONE])
def test_any_other_key_cancels_the_reset_question(cancel):
    c, log = paused_game()
    m = menu.RefereeMenu(c)
    ref_goto(m, "Reset game")
    m.handle(A_RIGHT, 1)
    assert m.handle(cancel, 2) is None     # cancels, and does nothing else
    assert shown(m) == ["Reset game      ", "               >"]
    assert c.state == cc.PAUSED
    assert m.handle(A_RIGHT, 3) is None    # asks again
    assert c.state == cc.PAUSED


def test_mashing_left_and_next_never_resets():
    """Every sequence of up to 9 presses of A_LEFT/A_NEXT (all items reached)."""
    for n in range(1, 10):
        for seq in itertools.product((A_LEFT, A_NEXT), repeat=n):
            c, log = paused_game()
            m = menu.RefereeMenu(c)
            for i, a in enumerate(seq):
                assert m.handle(a, 100 + i) != "reset"
            assert c.state in (cc.PAUSED, cc.OVER)


def test_one_right_press_on_any_item_never_resets():
    for k in range(9):
        c, log = paused_game()
        m = menu.RefereeMenu(c)
        for _ in range(k):
            m.handle(A_NEXT, 0)
        out = m.handle(A_RIGHT, 1)
        assert out in (None, "exit")
        assert c.state == cc.PAUSED


def test_exit_by_long_press_or_the_exit_item():
    c, log = paused_game()
    m = menu.RefereeMenu(c)
    assert m.handle(A_DONE, 0) == "exit"
    ref_goto(m, "Exit")
    assert shown(m) == ["Exit            ", "<              >"]
    assert m.handle(A_LEFT, 0) == "exit"
    assert m.handle(A_RIGHT, 0) == "exit"
    assert log.ev == []


def test_referee_render_20x4_shows_both_times():
    c, log = paused_game()
    m = menu.RefereeMenu(c, "de")
    assert shown(m, 20, 4) == ["Schiedsrichter   1/8",
                               "Links +/- 1 s       ",
                               "<       29:30      >",
                               "  29:30       28:59 "]


def test_referee_german_labels_with_umlaut():
    c, log = clock()
    m = menu.RefereeMenu(c, "de")
    ref_goto(m, "Verspätung L")
    for _ in range(3):
        m.handle(A_NEXT, 0)
    assert shown(m) == ["Reset der Uhr   ", "               >"]
    m.handle(A_RIGHT, 0)
    assert shown(m)[1] == "  Reset? R=ja   "
    m.handle(A_NEXT, 0)
    m.handle(A_NEXT, 0)
    assert shown(m)[0] == "Zurück          "


def test_render_reuses_the_rows():
    c, log = clock()
    m = menu.RefereeMenu(c)
    rows = rows_of()
    assert m.render(rows) is rows
    s = menu.SetupMenu(settings.Settings())
    assert s.render(rows) is rows


def test_both_sides_base_item_stops_at_a_bound_keeping_the_difference():
    s, m = custom_menu()
    s.base_left, s.base_right = 2 * MIN, 5 * MIN
    goto(m, "Time per player")
    m.handle(A_LEFT)
    assert (s.base_left, s.base_right) == (MIN, 4 * MIN)
    assert shown(m)[1] == "  01:00  04:00 >"          # no '<': left is at 01:00
    m.handle(A_LEFT)
    assert (s.base_left, s.base_right) == (MIN, 4 * MIN)


def test_deduction_in_a_flag_profile_stops_at_zero_and_logs_what_was_taken():
    """PFS § 6.2.1: a side's time ends at 00:00; the log's delta is the real change."""
    c, log = clock("pfs", {"base": "00:40"})
    m = menu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    m.handle(A_LEFT, 0)
    assert c.rem[0] == 0 and log.adjusts() == [(0, -40000)]
    assert shown(m)[1] == "      00:00    >"
    m.handle(A_LEFT, 0)
    assert log.adjusts() == [(0, -40000)]                 # nothing left to take
    m.handle(A_RIGHT, 0)
    assert c.rem[0] == MIN
