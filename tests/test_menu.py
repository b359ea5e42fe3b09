"""The setup menu and the referee menu (firmware/setupmenu.py, refereemenu.py;
what they share: menu.py), driven by action
codes exactly as the app passes them, checked on the rendered LCD rows.

Rules behind the menus: SPEC §4 Setup and Referee functions; TSO § 7.3.2.2
(referee deducts or credits time), TSO § 2.4 and PFS § 6.3.2-6.3.3 (late
players: the elapsed time is set on the clock), TSO § 1.4.1 a (no reset by
accident), TSO § 1.1 b / PFS § 1.2 (base times per profile).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython (where the
last test measures the heap render() allocates), tests/test_target_qemu.py
on the 32-bit image.
"""
import appversion
import clockcore as cc
import lang
import menu
import refereemenu
import setupmenu
import profiles
import settings
import view
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE, A_CONFIRM
from mptest import Random, bytes_left, cpython_only, micropython_only, parametrize

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


def items(m, n, *t):
    """What the menu shows at each of n items, walked with A_NEXT (which
    stays in the menu: None)."""
    out = []
    for _ in range(n):
        out.append(shown(m))
        assert m.handle(A_NEXT, *t) is None
    return out


def labels(m, n, *t):
    """The labels (first rows) of items(m, n, *t)."""
    return [s[0].rstrip() for s in items(m, n, *t)]


def walk(m, action, n, read):
    """read() after each of n presses of action."""
    out = []
    for _ in range(n):
        m.handle(action)
        out.append(read())
    return out


# -- setup menu -------------------------------------------------------------------
# issue 37: the version item, "Version" and the app's commit (appversion.LABEL:
# "v1.0.0" without a build) right-aligned, then the interpreter's release
VERSION_ROW = "Version" + " " * (16 - len("Version") - len(appversion.LABEL)) \
    + appversion.LABEL
RUNTIME_ROW = (" " * ((16 - len(appversion.RUNTIME)) // 2) + appversion.RUNTIME
               + " " * 16)[:16]

def test_action_codes_are_the_apps():
    assert (A_LEFT, A_RIGHT, A_NEXT, A_DONE) == (1, 2, 3, 4)


def test_setup_walk_default_profile_items_and_wrap():
    """sdev/pfs show profile, time, language, sound, the table number and the
    last games' results (SPEC v2 §4), then the self-test and the version
    (issue 37); A_NEXT wraps round."""
    m = setupmenu.SetupMenu(settings.Settings())
    assert items(m, 9) == [
        ["Rules           ", "<  SDeV (TSO)  >"],
        ["Time per player ", "<    30:00     >"],
        ["Language        ", "<   English    >"],
        ["Sound           ", "<      on      >"],
        ["Table number    ", "      none     >"],
        ["Last games      ", "               >"],
        ["Self-test       ", "    not run    >"],
        [VERSION_ROW, RUNTIME_ROW],
        ["Rules           ", "<  SDeV (TSO)  >"],
    ]
    goto(m, "Last games")
    assert m.handle(A_RIGHT) == "results" and m.handle(A_LEFT) == "results"


def test_setup_profile_change_jumps_base_to_profile_default():
    """TSO § 1.1 b: 30 min; PFS § 1.2: 20 min usual; custom starts at 20."""
    s = settings.Settings()
    m = setupmenu.SetupMenu(s)
    m.handle(A_NEXT)
    press(m, A_LEFT, A_LEFT, A_LEFT, A_LEFT, A_LEFT)       # 25:00 (TSO option)
    assert (s.base_left, s.base_right) == (25 * MIN, 25 * MIN)
    for _ in range(7):
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
    m = setupmenu.SetupMenu(s)
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
    m = setupmenu.SetupMenu(s)
    m.handle(A_RIGHT), m.handle(A_RIGHT)                   # custom
    assert items(m, 15) == [
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
        ["Self-test       ", "    not run    >"],
        [VERSION_ROW, RUNTIME_ROW],
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
    return s, setupmenu.SetupMenu(s)


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
    assert s.rules().name == "custom"            # with sdev's numbers:
    assert dict(s.rules().__dict__, name="sdev") == want.__dict__


def test_setup_penalty_bounds_0_to_50_step_5():
    s, m = custom_menu()
    goto(m, "Penalty/minute")
    assert walk(m, A_RIGHT, 12, lambda: s.penalty) == [5, 10, 15, 20, 25, 30, 35, 40, 45,
                                                       50, 50, 50]
    assert shown(m)[1] == "<      50       "
    press(m, *[A_LEFT] * 11)
    assert s.penalty == 0
    s.penalty = 7                                          # hand-edited file
    m.handle(A_RIGHT)
    assert s.penalty == 10                                 # snaps to the grid


def test_setup_forfeit_none_then_1_to_10_minutes():
    s, m = custom_menu()
    goto(m, "Forfeit after")
    assert walk(m, A_RIGHT, 12, lambda: s.forfeit) == [60, 120, 180, 240, 300, 360, 420,
                                                       480, 540, 600, 600, 600]
    assert shown(m)[1] == "<    10:00      "
    press(m, *[A_LEFT] * 9)
    assert s.forfeit == 60
    m.handle(A_LEFT)
    assert s.forfeit == -1
    assert shown(m)[1] == "     never     >"
    m.handle(A_LEFT)
    assert s.forfeit == -1


def test_setup_window_bounds_0_to_60_s_step_5():
    s, m = custom_menu()
    goto(m, "Challenge time")
    press(m, *[A_RIGHT] * 20)
    assert s.window == 60000
    assert shown(m)[1] == "<     60 s      "
    m.handle(A_LEFT)
    assert s.window == 55000
    press(m, *[A_LEFT] * 20)
    assert s.window == 0
    assert shown(m)[1] == "      none     >"


def test_setup_flag_at_zero_hides_penalty_and_forfeit():
    """PFS § 6.2.1: with a flag there is no overtime to penalize."""
    s, m = custom_menu()
    goto(m, "At 00:00")
    m.handle(A_RIGHT)
    assert s.zero == profiles.ZERO_FLAG
    assert shown(m) == ["At 00:00        ", "<     Flag     >"]
    seen = walk(m, A_NEXT, 12, lambda: shown(m)[0].rstrip())
    assert seen == ["Challenge time", "Language", "Sound", "Table number", "Last games",
                    "Self-test", VERSION_ROW.rstrip(), "Rules",
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
    m = setupmenu.SetupMenu(s)
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
    m = setupmenu.SetupMenu(s)
    goto(m, "Bei 00:00")
    assert shown(m)[1] == "<  Hochzählen  >"
    raw = m.render(rows_of())[1]
    assert b"\xe1" in raw                                  # ä from the A00 ROM
    s.lang = "pl"
    assert shown(m) == ["Przy 00:00      ", "< Liczy dalej  >"]


def test_setup_sound_toggles():
    s = settings.Settings()
    m = setupmenu.SetupMenu(s)
    goto(m, "Sound")
    m.handle(A_RIGHT)
    assert s.sound is False and shown(m)[1] == "<     off      >"
    m.handle(A_LEFT)
    assert s.sound is True


@cpython_only  # io.StringIO with a close() hook: the settings file on CPython's io
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
    m = setupmenu.SetupMenu(s)
    m.handle(A_RIGHT)                                      # pfs
    goto(m, "Language")
    m.handle(A_RIGHT)
    assert m.handle(A_DONE) == "save"
    assert s.save()
    t = settings.Settings.load(fs=Fs())
    assert (t.profile, t.lang, t.base_left) == ("pfs", "de", 20 * MIN)


def test_setup_render_20x4_title_position_hint():
    s = settings.Settings()
    m = setupmenu.SetupMenu(s)
    assert shown(m, 20, 4) == ["Setup            1/8",
                               "Rules               ",
                               "<    SDeV (TSO)    >",
                               "Pause=next hold=OK  "]
    s.set_profile("custom")
    m.handle(A_NEXT)
    assert shown(m, 20, 4)[:3] == ["Setup           2/14",
                                   "Time per player     ",
                                   "<      20:00       >"]


def test_setup_table_number_none_then_1_to_99():
    """Issue 12 item 4: the table number (0 = none) every game log carries."""
    s = settings.Settings()
    m = setupmenu.SetupMenu(s)
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
    m = setupmenu.SetupMenu(s)
    before = s.as_dict()
    for a in (0, 5, -1, 99):
        assert m.handle(a) is None
    assert s.as_dict() == before


# -- referee menu -----------------------------------------------------------------
# SPEC v3 §4 Referee functions and Gestures: "In the menu, every item that
# changes the game (TSO § 5.2 d, undoing an end, reset, a time adjustment as a
# whole when the referee leaves it) acts only after a confirmation; moving
# through the menu never changes the game."  The confirmation is A_CONFIRM
# (both player buttons held 1 s, the pause key up); the app turns the keys
# into action codes at their edges and undoes a gesture's keys with
# mark()/undo() before passing the gesture on (firmware/app.py).

class Log:
    def __init__(self):
        self.ev = []

    def __call__(self, code, side, t, arg):
        self.ev.append((code, side, t, arg))

    def adjusts(self):
        return [(s, a) for c, s, t, a in self.ev if c == cc.EV_ADJUST]

    def latenesses(self):
        return [(s, a) for c, s, t, a in self.ev if c == cc.EV_LATENESS]


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


def over_game():
    """As paused_game(moved=True), then ended at 91750 while left ran: left's
    30.25 s since right's turn-ending press is what TSO § 5.2 d gives back."""
    c, log = clock()
    c.press(cc.LEFT, 0)
    c.press(cc.RIGHT, 61500)
    c.end(91750)
    assert c.state == cc.OVER and c.void_side == cc.LEFT
    log.ev.clear()
    return c, log


def ref_goto(m, label, t=0):
    for _ in range(12):
        if shown(m)[0].rstrip() == label:
            return
        m.handle(A_NEXT, t)
    raise AssertionError("no item " + label)


def referee_menu(label):
    """paused_game() and its referee menu at the item `label`: (clock, log, menu)."""
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, label)
    return c, log, m


def test_confirm_action_code_is_the_apps():
    assert A_CONFIRM == 5 and len(set((A_LEFT, A_RIGHT, A_NEXT, A_DONE, A_CONFIRM))) == 5


@parametrize("state,label,side,step", [
    (state, label, side, step) for state in ("ready", "paused")
    for label, side, step in (("Left +/- 1 s", 0, 1000), ("Left +/- 1 min", 0, MIN),
                              ("Right +/- 1 s", 1, 1000), ("Right +/- 1 min", 1, MIN))])
def test_referee_adjust_items_change_a_pending_time_applied_as_a_whole_on_confirm(
        state, label, side, step):
    """TSO § 7.3.2.2: time deducted or credited by the referee.  SPEC v3 §4:
    the presses change a pending time (shown with '*'), the clock and the
    log untouched; leaving asks; A_CONFIRM applies the side's net change as
    one clock.adjust() (EV_ADJUST with the delta) at the confirmation."""
    c, log = paused_game() if state == "paused" else clock()
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, label)
    before = list(c.rem)
    assert m.handle(A_RIGHT, 100000) is None
    assert c.rem == before and log.ev == []
    assert m.rem(side) == before[side] + step and m.rem(1 - side) == before[1 - side]
    assert shown(m)[1][11] == "*"
    m.handle(A_LEFT, 100001)
    m.handle(A_LEFT, 100002)
    assert m.rem(side) == before[side] - step and c.rem == before and log.ev == []
    assert m.handle(A_DONE, 100003) is None                  # leaving asks
    assert shown(m) == ["Apply new times?", "  L+R 1s = yes  "]
    assert c.rem == before and log.ev == []
    assert m.handle(A_CONFIRM, 100500) == "exit"
    assert log.adjusts() == [(side, -step)]                  # as a whole
    assert [e[2] for e in log.ev] == [100500]                # at the confirmation
    assert c.rem[side] == before[side] - step and c.rem[1 - side] == before[1 - side]
    assert m.pend == [0, 0]


def test_changes_back_to_nothing_leave_without_a_question():
    c, log, m = referee_menu("Right +/- 1 min")
    m.handle(A_RIGHT, 1)
    m.handle(A_LEFT, 2)
    assert shown(m)[1] == "<     28:59    >"                 # no '*': nothing pending
    assert m.handle(A_DONE, 3) == "exit"
    assert log.ev == []


def test_both_sides_pending_apply_as_one_adjust_each():
    c, log, m = referee_menu("Left +/- 1 min")
    m.handle(A_RIGHT, 1)
    m.handle(A_RIGHT, 2)
    ref_goto(m, "Right +/- 1 s")
    for k in range(5):
        m.handle(A_LEFT, 3 + k)
    ref_goto(m, "Exit")
    assert m.handle(A_RIGHT, 10) is None                     # the Exit item asks too
    assert shown(m)[0] == "Apply new times?"
    assert m.handle(A_CONFIRM, 2000) == "exit"
    assert log.adjusts() == [(0, 2 * MIN), (1, -5000)]


def test_referee_adjust_rows_show_the_pending_time_with_a_star():
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    assert shown(m) == ["Left +/- 1 s    ", "<     29:30    >"]  # 29:29.75 rounds up
    m.handle(A_LEFT, 92000)
    assert shown(m)[1] == "<     29:29*   >"
    ref_goto(m, "Right +/- 1 min")
    assert shown(m)[1] == "<     28:59    >"                      # 28:58.5
    for _ in range(30):
        m.handle(A_LEFT, 92000)
    assert shown(m)[1] == "<    -01:01*   >"      # -1:01.5 over, shown rounded down
    assert shown(m, 20, 4)[3] == "  29:29      -01:01 "             # both, pending
    assert c.rem == [30 * MIN - 30250, 30 * MIN - 61500] and log.ev == []


@parametrize("other", [A_NEXT, A_LEFT, A_RIGHT])
def test_the_apply_question_a_pause_tap_drops_it_and_keeps_the_changes(other):
    """A_NEXT (a pause tap) drops the question, the changes stay pending;
    a single player button does nothing (it may be the first key of the
    confirmation); leaving again asks again."""
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    m.handle(A_RIGHT, 1)                                     # left +1 s pending
    assert m.handle(A_DONE, 2) is None
    assert m.handle(other, 3) is None
    if other == A_NEXT:
        assert shown(m) == ["Left +/- 1 s    ", "<     29:31*   >"]
    else:
        assert shown(m)[0] == "Apply new times?"
    assert m.pend == [1000, 0] and log.ev == []
    assert m.handle(A_DONE, 4) is None if other == A_NEXT else m.handle(A_NEXT, 4) is None
    if other != A_NEXT:
        assert m.handle(A_DONE, 5) is None
    assert shown(m)[0] == "Apply new times?"
    assert m.handle(A_CONFIRM, 6) == "exit" and log.adjusts() == [(0, 1000)]


def test_the_apply_question_a_long_pause_leaves_without_the_changes():
    """At "Apply new times?" the pause key held 2 s (A_DONE) leaves the menu
    and drops the changes: nothing is logged, the clock keeps its times.
    (The app: the pause key's edge is A_NEXT, which drops the question; the
    hold is a gesture, so undo() brings the question back, then A_DONE.)"""
    c, log = paused_game()
    before = list(c.rem)
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Right +/- 1 min")
    m.handle(A_LEFT, 1)
    m.handle(A_DONE, 2)
    m.mark()                                                 # the pause key goes down
    m.handle(A_NEXT, 3)
    assert m.ask < 0
    m.undo()                                                 # held 2 s: a gesture
    assert shown(m)[0] == "Apply new times?"
    assert m.handle(A_DONE, 2003) == "exit"
    assert log.ev == [] and c.rem == before and m.pend == [0, 0]


def test_referee_adjust_into_forfeit_ends_the_game_at_the_confirmation():
    """TSO § 5.2 c: 40 minutes deducted push left past the forfeit limit:
    nothing happens before the confirmation; then one adjust, game over."""
    c, log, m = referee_menu("Left +/- 1 min")
    for _ in range(40):
        m.handle(A_LEFT, 92000)
    assert c.state == cc.PAUSED and not c.forfeited[cc.LEFT]
    m.handle(A_DONE, 92100)
    assert m.handle(A_CONFIRM, 93000) == "exit"
    assert c.state == cc.OVER and c.forfeited[cc.LEFT]
    assert log.adjusts() == [(0, -40 * MIN)]


def test_late_arrival_sets_elapsed_time_in_minute_steps_tso_2_4_pfs_6_3_3():
    """Both players late 7 and 4 minutes: the referee sets each side's
    elapsed time before the start (PFS § 6.3.3, TSO § 2.4 c), applied as
    one `lateness` a side when confirmed (SPEC v5: the lateness account,
    not an adjustment)."""
    c, log = clock("pfs")
    m = refereemenu.RefereeMenu(c, "pl")
    ref_goto(m, "Spoznienie L")
    assert shown(m)[1] == "      00:00    >"
    for _ in range(7):
        m.handle(A_RIGHT, 5)
    assert shown(m) == ["Spoznienie L    ", "<     07:00*   >"]
    m.handle(A_NEXT, 5)
    for _ in range(5):
        m.handle(A_RIGHT, 5)
    m.handle(A_LEFT, 5)
    assert [m.rem(0), m.rem(1)] == [13 * MIN, 16 * MIN] and log.ev == []
    m.handle(A_DONE, 6)
    assert shown(m) == ["Zmienic czasy?  ", "  L+P 1s = tak  "]   # no ć in the ROM
    assert m.handle(A_CONFIRM, 1006) == "exit"
    assert c.rem == [13 * MIN, 16 * MIN] and c.late_ms == [7 * MIN, 4 * MIN]
    assert log.latenesses() == [(0, 7 * MIN), (1, 4 * MIN)] and log.adjusts() == []
    assert c.state == cc.READY


def test_late_arrival_item_shows_the_account_and_goes_on_from_it_tso_2_4_b_ii():
    """The lateness clock ran 7:23 (stopped: ready); the item shows that
    account, a minute step keeps its seconds, and the confirmed account is
    one `lateness` line; the lateness clock started again goes on from it
    (TSO § 2.4 b ii: more than 15 minutes is counted over the whole)."""
    c, log = clock("sdev")
    c.start_late(cc.LEFT, 0)
    c.pause(7 * MIN + 23000)
    log.ev.clear()
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Late arrival L")
    assert shown(m)[1] == "<     07:23    >"
    m.handle(A_RIGHT, 7 * MIN + 24000)
    assert shown(m)[1] == "<     08:23*   >"
    m.handle(A_DONE, 7 * MIN + 25000)
    m.handle(A_CONFIRM, 7 * MIN + 26000)
    assert log.latenesses() == [(0, 8 * MIN + 23000)] and log.adjusts() == []
    assert c.rem[cc.LEFT] == 30 * MIN - 8 * MIN - 23000
    c.start_late(cc.LEFT, 8 * MIN)
    c.update(8 * MIN + 6 * MIN + 37000)             # +15:00 of the account
    assert c.state == cc.LATE
    c.update(8 * MIN + 6 * MIN + 38000)             # +15:01: lost
    assert c.state == cc.OVER and c.forfeited[cc.LEFT]


def test_a_credit_and_a_lateness_in_one_visit_stay_apart_tso_7_3_2_2_2_4_b_ii():
    """SPEC v5 §7: the +/- 1 min item writes `adjust`, the late-arrival
    item `lateness`; a credit of 5:00 leaves the account at what the
    referee set (3:00), and the lateness limit counts from that alone."""
    c, log = clock("sdev")
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    for _ in range(5):
        m.handle(A_RIGHT, 10)
    ref_goto(m, "Late arrival L", 10)
    for _ in range(3):
        m.handle(A_RIGHT, 10)
    assert shown(m)[1] == "<     03:00*   >"
    assert m.rem(cc.LEFT) == 30 * MIN + 5 * MIN - 3 * MIN
    m.handle(A_DONE, 20)
    assert m.handle(A_CONFIRM, 1020) == "exit"
    assert log.adjusts() == [(0, 5 * MIN)] and log.latenesses() == [(0, 3 * MIN)]
    assert c.late_ms == [3 * MIN, 0] and c.rem[cc.LEFT] == 32 * MIN
    c.start_late(cc.LEFT, 2000)
    c.update(2000 + 12 * MIN + 1000)                # +15:01
    assert c.state == cc.OVER and c.forfeited[cc.LEFT]


def test_late_arrival_stays_within_0_and_the_base_time():
    c, log = clock("sdev", {"base": "01:30"})
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Late arrival R")
    m.handle(A_LEFT, 0)                  # nothing elapsed: nothing to take back
    assert m.plate == [0, 0]
    m.handle(A_RIGHT, 0)
    m.handle(A_RIGHT, 0)                 # the last step stops at 00:00 left
    m.handle(A_RIGHT, 0)
    assert m.rem(1) == 0 and m.plate == [0, 90000] and m.pend == [0, 0]
    assert shown(m)[1] == "<     01:30*    "
    m.handle(A_LEFT, 0)                  # a minute back, then the 30 s left
    assert m.rem(1) == MIN
    m.handle(A_LEFT, 0)
    assert m.rem(1) == 90000 and m.plate == [0, 0]
    m.handle(A_LEFT, 0)
    assert m.plate == [0, 0]
    assert m.handle(A_DONE, 0) == "exit" and log.ev == []


def test_no_late_arrival_item_after_the_start_spec_5():
    """SPEC v5 §5: a lateness is set before the game only (ready or late);
    once it began, the time items correct a side's time."""
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    assert refereemenu.R_LATE_L not in m.items() and refereemenu.R_LATE_R not in m.items()
    assert refereemenu.R_L_MIN in m.items()


def test_base_time_change_acts_only_after_a_confirmation():
    """SPEC v4 §4 Referee functions: a base-time change, like an
    adjustment, acts only after a confirmation; each step only shows it."""
    c, log = clock("sdev")
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Time per player")
    assert shown(m)[1] == "<    30:00     >"
    # TSO § 1.1 b: 25 minutes
    assert [m.handle(A_LEFT, 10) for _ in range(5)] == [None] * 5
    assert shown(m)[1] == "<    25:00*    >"
    assert c.rules.base == [30 * MIN, 30 * MIN] and c.rem == [30 * MIN, 30 * MIN]
    assert log.ev == []
    assert m.handle(A_DONE, 20) is None               # asks first
    assert shown(m) == ["Apply new times?", "  L+R 1s = yes  "]
    assert m.handle(A_CONFIRM, 1020) == "exit"
    assert c.rules.base == [25 * MIN, 25 * MIN] and c.rem == [25 * MIN, 25 * MIN]
    assert [(e[0], e[1], e[3]) for e in log.ev] == \
        [(cc.EV_BASE, 0, 25 * MIN), (cc.EV_BASE, 1, 25 * MIN)]
    assert c.state == cc.READY


def test_base_time_change_given_up_changes_nothing():
    c, log = clock("sdev")
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Time per player")
    m.handle(A_LEFT, 10)
    m.handle(A_DONE, 20)
    assert m.handle(A_DONE, 2020) == "exit"           # "no": left without it
    assert c.rules.base == [30 * MIN, 30 * MIN] and log.ev == []
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Time per player")
    m.handle(A_LEFT, 10)
    m.handle(A_DONE, 20)
    m.handle(A_NEXT, 30)                              # the question dropped
    assert c.rules.base == [30 * MIN, 30 * MIN] and log.ev == []


def test_base_time_change_keeps_the_charged_time_tso_2_4_b_i():
    """A lateness (7:00) and a confirmed adjustment (-1:00 right) stay
    charged: remaining = new base - charged, on both sides."""
    for s in (cc.LEFT, cc.RIGHT):
        c, log = clock("sdev")
        c.start_late(s, 0)
        c.pause(7 * MIN)                              # arrived: 7:00 late
        assert c.adjust(1 - s, -MIN, 7 * MIN)
        log.ev.clear()
        m = refereemenu.RefereeMenu(c)
        ref_goto(m, "Time per player")
        for _ in range(5):
            m.handle(A_LEFT, 8 * MIN)
        assert m.rem(s) == 18 * MIN and m.rem(1 - s) == 24 * MIN
        m.handle(A_DONE, 8 * MIN)
        assert m.handle(A_CONFIRM, 8 * MIN + 1000) == "exit"
        assert c.rem[s] == 18 * MIN and c.rem[1 - s] == 24 * MIN
        assert c.rules.base == [25 * MIN, 25 * MIN] and c.state == cc.READY


def test_base_time_step_down_stops_before_a_side_would_have_no_time():
    c, log = clock("pfs", {"base": "05:00"})
    c.start_late(cc.RIGHT, 0)
    c.pause(3 * MIN + 30000)                          # 3:30 charged
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Time per player")
    assert shown(m)[1] == "<    05:00     >"
    m.handle(A_LEFT, 0)
    assert shown(m)[1] == "     04:00*    >"  # 3:30 charged: 4:00 is the last step
    m.handle(A_LEFT, 0)
    assert m.pbase == [4 * MIN, 4 * MIN] and m.rem(cc.RIGHT) == 30000


def test_late_referee_menu_base_reset_exit_and_the_lateness_runs_on():
    """SPEC v4 §4: the referee menu opens during a lateness, which runs on;
    time adjustments are for ready and paused only, so the menu offers the
    base time, a reset and the way back to `late`; the lateness account
    runs on under the menu and is untouched by the base (SPEC v5)."""
    for s in (cc.LEFT, cc.RIGHT):
        c, log = clock("sdev")
        c.start_late(s, 0)
        c.update(5 * MIN)
        m = refereemenu.RefereeMenu(c)
        assert labels(m, 4, 5 * MIN) == ["Time per player", "Reset game", "Exit",
                                         "Time per player"]
        ref_goto(m, "Time per player", 5 * MIN)
        assert m.handle(A_RIGHT, 5 * MIN) is None     # 31:00, pending
        m.handle(A_DONE, 6 * MIN)
        c.update(7 * MIN)                             # it runs meanwhile
        assert m.handle(A_CONFIRM, 7 * MIN) == "exit"
        assert c.state == cc.LATE and c.lateness() == 7 * MIN
        assert c.rules.base[s] == 31 * MIN and c.rem[s] == 24 * MIN
        c.update(31 * MIN)
        assert c.state == cc.OVER and c.forfeited[s]  # 15:01 of the one account
        assert c.lateness() == 0 and c.rem[s] == 31 * MIN - 15 * MIN - 1000


def test_base_time_item_absent_when_paused():
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    assert labels(m, 6, 0) == ["Left +/- 1 s", "Left +/- 1 min", "Right +/- 1 s",
                      "Right +/- 1 min", "Reset game", "Exit"]
    assert shown(m)[0].rstrip() == "Left +/- 1 s"     # wrapped
    assert c.rules.base == [30 * MIN, 30 * MIN]


def test_reset_asks_and_acts_only_on_the_confirmation_tso_1_4_1_a():
    c, log = paused_game()
    rem = list(c.rem)
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Reset game")
    assert shown(m) == ["Reset game      ", "               >"]
    assert m.handle(A_RIGHT, 1) is None
    assert shown(m) == ["Reset game      ", "  L+R 1s = yes  "]
    for a in (A_RIGHT, A_LEFT, A_RIGHT):          # player buttons alone: nothing
        assert m.handle(a, 2) is None
    assert shown(m)[1] == "  L+R 1s = yes  "
    assert c.state == cc.PAUSED and c.rem == rem and log.ev == []
    assert m.handle(A_CONFIRM, 1002) == "reset"
    assert c.state == cc.READY and c.rem == [30 * MIN, 30 * MIN]


@parametrize("cancel", [A_NEXT, A_DONE])
def test_the_pause_key_drops_a_question(cancel):
    """A_NEXT (a tap) or A_DONE (a hold) at the reset question drops it and
    does nothing else (the menu stays); asking again needs A_RIGHT again."""
    c, log, m = referee_menu("Reset game")
    m.handle(A_RIGHT, 1)
    assert m.handle(cancel, 2) is None
    assert shown(m) == ["Reset game      ", "               >"]
    assert m.handle(A_CONFIRM, 3) is None          # no question: nothing
    assert c.state == cc.PAUSED and log.ev == []
    assert m.handle(A_RIGHT, 4) is None            # asks again
    assert c.state == cc.PAUSED


def test_a_confirmation_with_no_question_does_nothing_and_its_keys_are_undone():
    """SPEC v3 §4: a confirmation held when no question shows does nothing,
    and its presses are undone like any gesture's: the app calls mark() at
    the first key's edge, the keys act (here: two time steps), the
    confirmation is recognised, undo() takes the steps back, then
    A_CONFIRM does nothing."""
    c, log, m = referee_menu("Right +/- 1 s")
    m.mark()
    m.handle(A_LEFT, 1)
    m.handle(A_RIGHT, 2)
    m.handle(A_RIGHT, 3)
    assert m.pend == [0, 1000]
    m.undo()
    assert m.handle(A_CONFIRM, 1003) is None
    assert m.pend == [0, 0] and log.ev == [] and shown(m)[0] == "Right +/- 1 s   "


def test_asking_and_confirming_with_the_keys_of_one_group_does_nothing():
    """The right button held on "Reset game" asks; the left one joins and
    both are held 1 s: that confirmation undoes its own keys (the question
    they asked too), so it finds no question and resets nothing.  A reset
    takes two separate acts: ask, then confirm (TSO § 1.4.1 a)."""
    c, log, m = referee_menu("Reset game")
    m.mark()                                       # right goes down
    m.handle(A_RIGHT, 1)
    m.handle(A_LEFT, 2)
    assert shown(m)[1] == "  L+R 1s = yes  "
    m.undo()                                       # the confirmation, recognised
    assert m.handle(A_CONFIRM, 1002) is None
    assert c.state == cc.PAUSED and log.ev == []
    assert shown(m) == ["Reset game      ", "               >"]


def test_mark_and_undo_restore_item_pending_times_and_question():
    c, log, m = referee_menu("Left +/- 1 min")
    m.handle(A_LEFT, 1)
    m.handle(A_DONE, 2)                            # the apply question shows
    m.mark()
    m.handle(A_NEXT, 3)                            # drops it
    m.handle(A_NEXT, 4)
    m.handle(A_RIGHT, 5)
    m.handle(A_RIGHT, 6)
    assert m.ask < 0 and m.pend == [-MIN, 2000]
    m.undo()
    assert m.ask == refereemenu.R_EXIT and m.pend == [-MIN, 0] and m.item == refereemenu.R_L_MIN
    assert shown(m)[0] == "Apply new times?"
    assert log.ev == []


def _any_keys_but_confirm(c, seq):
    m = refereemenu.RefereeMenu(c)
    out = []
    for i, a in enumerate(seq):
        r = m.handle(a, 100 + i)
        out.append(r)
        if r == "exit":
            m = refereemenu.RefereeMenu(c)        # the referee opens it again
    return out


@parametrize("state", ["paused", "over", "ready"])
def test_scrolling_and_any_keys_without_a_confirmation_never_change_the_game(state):
    """SPEC v3 §4: moving through the menu never changes the game; every
    sequence of up to 5 of A_LEFT / A_RIGHT / A_NEXT / A_DONE, and random
    ones of 40, with no A_CONFIRM: no reset, no void, no resume, no
    adjustment, no base change, nothing logged (v4: the base time too
    waits for a confirmation)."""
    acts = (A_LEFT, A_RIGHT, A_NEXT, A_DONE)

    def check(seq):
        if state == "paused":
            c, log = paused_game(moved=True)
        elif state == "over":
            c, log = over_game()
        else:
            c, log = clock()
        st, rem = c.state, list(c.rem)
        out = _any_keys_but_confirm(c, seq)
        assert "reset" not in out
        assert c.state == st
        assert c.rem == rem and log.ev == [], (seq, log.ev)
        assert c.rules.base == [30 * MIN, 30 * MIN]

    for n in range(1, 6):
        for k in range(4 ** n):
            check([acts[(k >> (2 * i)) & 3] for i in range(n)])
    rnd = Random(18)
    for _ in range(100):
        check([rnd.choice(acts) for _ in range(40)])


def test_one_right_press_on_any_item_never_resets():
    for k in range(9):
        c, log = paused_game()
        m = refereemenu.RefereeMenu(c)
        for _ in range(k):
            m.handle(A_NEXT, 0)
        out = m.handle(A_RIGHT, 1)
        assert out in (None, "exit")
        assert c.state == cc.PAUSED and log.ev == []


def test_exit_by_long_press_or_the_exit_item():
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c)
    assert m.handle(A_DONE, 0) == "exit"
    ref_goto(m, "Exit")
    # issue 37: the Exit item says how to move on (its arrows leave)
    assert shown(m) == ["Exit            ", "<  Pause=next  >"]
    assert m.handle(A_LEFT, 0) == "exit"
    assert m.handle(A_RIGHT, 0) == "exit"
    assert log.ev == []


def test_void_5_2_d_asks_and_acts_only_on_the_confirmation():
    """TSO § 5.2 d on the final screen: left's clock ran 30.25 s after
    right's last move; the item shows what left gets back, A_RIGHT asks,
    only A_CONFIRM applies it (the game stays over, times corrected)."""
    c, log = over_game()
    m = refereemenu.RefereeMenu(c)
    assert [shown(m)[0].rstrip() for _ in (0,)] == ["5.2d: refund L"]
    # 30.25 s: the shown time goes from 29:30 to 30:00
    assert shown(m)[1] == "     +00:30    >"
    assert m.handle(A_RIGHT, 100000) is None
    assert shown(m) == ["5.2d: refund L  ", "  L+R 1s = yes  "]
    m.handle(A_LEFT, 100001)
    assert log.ev == [] and c.rem[0] == 30 * MIN - 30250
    assert m.handle(A_CONFIRM, 101000) == "exit"
    assert c.state == cc.OVER and c.rem[0] == 30 * MIN
    assert [e[0] for e in log.ev] == [cc.EV_VOID]


def test_resume_asks_and_acts_only_on_the_confirmation():
    """Undoing an end made by mistake (SPEC §4): A_RIGHT asks, A_NEXT drops
    the question, A_CONFIRM resumes (paused, times unchanged)."""
    c, log = over_game()
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Resume game")
    assert m.handle(A_RIGHT, 1) is None
    assert shown(m) == ["Resume game     ", "  L+R 1s = yes  "]
    assert m.handle(A_NEXT, 2) is None
    assert c.state == cc.OVER and log.ev == []
    m.handle(A_RIGHT, 3)
    rem = list(c.rem)
    assert m.handle(A_CONFIRM, 1003) == "exit"
    assert c.state == cc.PAUSED and c.rem == rem
    assert [e[0] for e in log.ev] == [cc.EV_RESUME]


def test_over_menu_has_no_time_items():
    c, log = over_game()
    m = refereemenu.RefereeMenu(c)
    assert labels(m, 4, 0) == ["5.2d: refund L", "Resume game", "Reset game", "Exit"]


def test_referee_render_20x4_shows_both_times():
    c, log = paused_game()
    m = refereemenu.RefereeMenu(c, "de")
    assert shown(m, 20, 4) == ["Schiedsrichter   1/6",
                               "Links +/- 1 s       ",
                               "<       29:30      >",
                               "  29:30       28:59 "]


def test_referee_german_labels_with_umlaut():
    c, log = clock()
    m = refereemenu.RefereeMenu(c, "de")
    ref_goto(m, "Verspätung L")
    for _ in range(3):
        m.handle(A_NEXT, 0)
    assert shown(m) == ["Reset der Uhr   ", "               >"]
    m.handle(A_RIGHT, 0)
    assert shown(m)[1] == "  L+R 1s = ja   "
    m.handle(A_NEXT, 0)
    m.handle(A_NEXT, 0)
    assert shown(m)[0] == "Zurück          "


def test_render_reuses_the_rows():
    c, log = clock()
    m = refereemenu.RefereeMenu(c)
    rows = rows_of()
    assert m.render(rows) is rows
    s = setupmenu.SetupMenu(settings.Settings())
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


def test_deduction_in_a_flag_profile_stops_at_zero_and_logs_the_net_change():
    """PFS § 6.2.1: a side's time ends at 00:00; the pending change stops
    there, and the log's delta is the real change, applied as a whole."""
    c, log = clock("pfs", {"base": "00:40"})
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    m.handle(A_LEFT, 0)
    assert m.rem(0) == 0 and m.pend == [-40000, 0]
    assert shown(m)[1] == "      00:00*   >"
    m.handle(A_LEFT, 0)
    assert m.pend == [-40000, 0]                          # nothing left to take
    m.handle(A_DONE, 0)
    assert m.handle(A_CONFIRM, 1000) == "exit"
    assert c.rem[0] == 0 and log.adjusts() == [(0, -40000)]
    m = refereemenu.RefereeMenu(c)
    ref_goto(m, "Left +/- 1 min")
    m.handle(A_RIGHT, 2000)
    m.handle(A_DONE, 2001)
    m.handle(A_CONFIRM, 3000)
    assert c.rem[0] == MIN and log.adjusts()[-1] == (0, MIN)


# -- no allocation in render() (MicroPython only) -----------------------------------

def _alloc(fn, n=100):
    """Bytes left allocated by n calls (gc.mem_alloc()), as this test has
    always measured.  micropython.mem_total() also counts short-lived heap
    frames, and render() still takes some (heap_bytes() is not 0 here)."""
    return bytes_left(fn, n)


@micropython_only
def test_render_allocates_nothing():
    c, log = paused_game()
    r2 = rows_of()
    r4 = rows_of(20, 4)
    s = settings.Settings()
    s.set_profile("custom")
    s.lang = "de"
    sm = setupmenu.SetupMenu(s)
    rm = refereemenu.RefereeMenu(c, "pl")
    for i in range(10):
        assert _alloc(lambda: sm.render(r2)) == 0, "setup render item %d" % sm.item
        assert _alloc(lambda: sm.render(r4)) == 0, "setup 20x4 item %d" % sm.item
        sm.handle(A_NEXT)
        sm.handle(A_RIGHT)
    for i in range(8):
        assert _alloc(lambda: rm.render(r2)) == 0, "referee render item %d" % rm.item
        assert _alloc(lambda: rm.render(r4)) == 0, "referee 20x4 item %d" % rm.item
        rm.handle(A_NEXT, 0)
    rm.handle(A_LEFT, 0)                           # a pending change: '*'
    assert rm.pend != [0, 0]
    for ask in (refereemenu.R_EXIT, refereemenu.R_RESET):        # a question showing
        rm.ask = ask
        assert _alloc(lambda: rm.render(r2)) == 0, "referee question %d" % ask
        assert _alloc(lambda: rm.render(r4)) == 0, "referee 20x4 question %d" % ask
    om = refereemenu.RefereeMenu(over_game()[0], "de")    # the final screen: 5.2 d
    assert _alloc(lambda: om.render(r2)) == 0, "referee 5.2d item"
    om.handle(A_RIGHT, 0)
    assert _alloc(lambda: om.render(r4)) == 0, "referee 5.2d question"


def test_a_gesture_undoes_a_base_time_step_its_key_made():
    """SPEC v3 §4 Gestures: a recognised gesture undoes what its own keys did
    at their edges, in the referee menu too.  A confirmation held with no
    question, whose left press stepped the pending base down, puts it back;
    the clock never changed (v4: a base change waits for its confirmation)."""
    c = cc.Clock(profiles.make_rules("sdev"), 0)
    m = refereemenu.RefereeMenu(c)
    while m.item != refereemenu.R_BASE:
        m.handle(menu.A_NEXT, 0)
    m.mark()                                   # the group's first key goes down
    assert m.handle(menu.A_LEFT, 10) is None
    assert m.pbase == [29 * 60000, 29 * 60000] and c.rules.base == [30 * 60000, 30 * 60000]
    assert m.undo(1200) is None                # the confirmation, recognised
    assert m.pbase == [30 * 60000, 30 * 60000]
    assert c.rem == [30 * 60000, 30 * 60000] and c.state == cc.READY
    assert m.handle(menu.A_DONE, 2000) == "exit"   # nothing pending
