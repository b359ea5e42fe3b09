# End-to-end device scenarios, run by tests/test_device.py on CPython and
# inside the real MicroPython interpreter.
#
# Each scenario boots the real app (firmware/app.py) on the fake machine with
# the HD44780 + PCF8574 emulator on its I2C bus and virtual time that wraps
# at 2**30 during the game, presses the buttons through the pins' IRQs, and
# asserts what the emulated LCD shows and what the core recorded.
import os

import clockcore as cc
import lang
import rig as gestures
from rig import Rig, LEFT, RIGHT, PAUSE, SETTLE_MS

RUN_L = "\u25c0"
RUN_R = "\u25b6"
FLAG = "\u2691"


def fresh_dir(path):
    try:
        os.mkdir(path)
    except OSError:
        pass
    for sub in ("games",):
        try:
            for n in os.listdir(path + "/" + sub):
                os.remove(path + "/" + sub + "/" + n)
        except OSError:
            pass
    for n in os.listdir(path):
        if n != "games":
            os.remove(path + "/" + n)
    return path + "/"


def write_settings(root, profile, base_s, lang="en"):
    f = open(root + "settings.json", "w")
    f.write('{"v": 1, "profile": "%s", "base_left": %d, "base_right": %d, '
            '"lang": "%s", "sound": true}' % (profile, base_s * 1000, base_s * 1000, lang))
    f.close()


def boot(board, root):
    rig = Rig(board, root)
    assert rig.screen()[0].strip() == "Scrabble clock", rig.screen()
    rig.run(1600)  # the splash
    return rig


def expect(cond, what, rig):
    if not cond:
        raise AssertionError("%s; screen %r" % (what, rig.screen()))


def scenario_boot_setup_menu(board, root):
    """Boot shows the version, then `ready`; a long pause press in ready opens
    the setup menu; choosing pfs and saving gives a 20:00 pfs clock and a
    settings file (SPEC §4 Setup)."""
    rig = boot(board, root)
    expect(rig.screen()[0] == "  30:00   30:00 ", "ready shows 30:00 each (TSO § 1.1 b)", rig)
    # READY and who presses to start (issue 37; SPEC §4: the opponent of
    # the first mover presses)
    expect(rig.screen()[1].strip() == lang.text("en", "READY_WHO"), "READY", rig)
    rig.press(PAUSE, hold=2100)                 # long press in ready: setup
    expect(rig.app.mode == 2, "setup menu open", rig)
    rig.press(RIGHT)                            # profile: sdev -> next
    rig.press(PAUSE, hold=2100)                 # save
    expect(rig.app.mode == 1, "back to the game", rig)
    expect(rig.clock.rules.name == rig.app.settings.profile, "rules follow settings", rig)
    f = open(root + "settings.json")
    saved = f.read()
    f.close()
    expect(rig.app.settings.profile in saved, "settings saved", rig)
    return rig


def scenario_sdev_overtime_forfeit(board, root):
    """A whole SDeV game on a 1-minute base: turns, the challenge window,
    overtime in -mm:ss with penalty points, forfeit at -05:01 (TSO § 5.2)."""
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(LEFT)                             # right's clock starts
    expect(rig.clock.running() == RIGHT, "right runs", rig)
    rig.run(10000)
    rig.press(RIGHT)                            # right ends the turn
    expect(rig.clock.running() == LEFT, "left runs", rig)
    rig.run(1000)
    expect("CHL 19" in rig.screen()[1], "challenge window counting", rig)
    expect(rig.screen()[0][0] == RUN_L, "left marker", rig)
    rig.run(60000 + 61000)                      # left: 61 s over
    row0, row1 = rig.screen()
    expect(row0[1:7] == "-01:01" or row0[1:7] == "-01:02", "overtime -mm:ss", rig)
    expect(row1.startswith("P20"), "20 penalty points", rig)
    rig.run(240000)                             # past 5:00 over
    expect(rig.clock.state == cc.OVER and rig.clock.forfeited[LEFT], "forfeit", rig)
    # LOST names the side that lost (issue 37), under its time
    expect(rig.screen()[1].startswith(lang.text("en", "LOST_L")), "LOST shown", rig)
    expect(rig.screen()[0][1:7] == "-05:01", "-05:01 shown", rig)
    expect(rig.app.buzzer.beeps >= 2, "beeps at window close / 00:00 / forfeit", rig)
    return rig


def scenario_pfs_flag(board, root):
    """PFS: at 00:00 the side is flagged and the clock pauses; a key runs the
    remaining player; both out ends the game (PFS § 6.2.1)."""
    write_settings(root, "pfs", 60)
    rig = boot(board, root)
    rig.press(RIGHT)                            # left runs
    rig.run(61000)
    expect(rig.clock.flag(LEFT) and rig.clock.state == cc.PAUSED, "flag pauses", rig)
    row0, row1 = rig.screen()
    expect(row0[1:8] == " 00:00" + FLAG, "00:00 with the flag", rig)
    expect(row1.startswith("TIME"), "TIME under the flagged side", rig)
    rig.press(LEFT)                             # a player button: right plays on
    expect(rig.clock.running() == RIGHT, "right runs alone", rig)
    rig.run(61000)
    expect(rig.clock.state == cc.OVER, "both out: over", rig)
    expect("END" in rig.screen()[1], "END shown", rig)
    return rig


def scenario_bounce_trains(board, root):
    """Contacts bounce: one physical press is one turn, charged at its first
    edge; the pause key acts at its press edge too, both ways (SPEC v3 §4
    Buttons, Pause key)."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    t_start = rig.ms()                          # left's first edge
    rig.press(LEFT, bounce=(1, 2, 3, 5, 8))     # start: right runs
    rig.run(5000)
    t_end = rig.ms()                            # right's first edge
    rig.press(RIGHT, bounce=(1, 2, 4, 7, 9, 12, 15))
    expect(rig.clock.running() == LEFT, "one press ended one turn", rig)
    used = 600000 - rig.clock.rem[RIGHT]
    expect(used == t_end - t_start, "right charged edge to edge: %d vs %d"
           % (used, t_end - t_start), rig)
    rig.run(3000)
    t_pause = rig.ms()                          # the pause key's first edge
    rig.press(PAUSE, bounce=(1, 3, 6))          # pause
    expect(rig.clock.state == cc.PAUSED, "one pause", rig)
    used = 600000 - rig.clock.rem[LEFT]
    expect(used == t_pause - t_end, "left charged to the pause key's first edge: "
           "%d vs %d" % (used, t_pause - t_end), rig)
    rig.run(2000)
    t_resume = rig.ms()
    rig.down(PAUSE, bounce=(2, 4))              # resume at the press edge ...
    rig.run(rig.step_ms)                        # (one main-loop iteration)
    expect(rig.clock.running() == LEFT, "resumed at once, the key still down", rig)
    rig.run(1000)
    rig.up(PAUSE)                               # ... nothing at the release
    rig.run(SETTLE_MS)
    expect(rig.clock.running() == LEFT, "resumed once", rig)
    used = 600000 - rig.clock.rem[LEFT]
    expect(used == t_pause - t_end + rig.ms() - t_resume, "left runs from the "
           "resume's first edge", rig)
    return rig


def scenario_both_buttons_together(board, root):
    """Two player buttons pressed together (SPEC v3 §4 Buttons): the first
    edge wins, and the side it started ignores its own button for 500 ms,
    so the turn changes once (the ignored press is logged as a comment)."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    t_start = rig.ms()
    rig.press(LEFT)                             # right runs
    rig.run(3000)
    t_edge = rig.ms()
    rig.down(RIGHT)                             # right ends the turn ...
    rig.now = rig.add(rig.now, 1)
    rig.down(LEFT)                              # ... left hits 1 ms later
    rig.run(SETTLE_MS)
    rig.up(RIGHT)
    rig.up(LEFT)
    rig.run(50)
    expect(rig.clock.running() == LEFT, "the first edge (right's) won", rig)
    expect(600000 - rig.clock.rem[RIGHT] == t_edge - t_start, "right charged to its edge", rig)
    expect(rig.clock.rem[LEFT] < 600000, "left's clock is running (not ended by its 1 ms-later press)", rig)
    # the same 100 ms apart, left first this time: left's press moves,
    # right's (inside right's 500 ms lock-out) changes nothing
    rig.run(3000)
    t_l = rig.ms()
    rig.down(LEFT)
    rig.run(100)
    rig.down(RIGHT)
    rig.run(SETTLE_MS)
    rig.up(LEFT)
    rig.up(RIGHT)
    rig.run(50)
    expect(rig.clock.running() == RIGHT, "left's press (first) won, once", rig)
    expect(600000 - rig.clock.rem[RIGHT] == t_edge - t_start + rig.ms() - t_l,
           "right runs from left's edge", rig)
    return rig


def scenario_end_keeps_the_last_movers_turn(board, root):
    """SPEC v3 §4 End of game, the issue's case: base 1:00, left's last turn
    starts at 00:40 and takes 3 minutes (-02:20, P30).  Left stops the clock
    and ends the game with the end gesture (the held pause key resumes the
    clock at its edge and the confirmation's left press moves: both are
    undone by their gestures): the final turn is left's own (TSO § 5.1 b i),
    charged to the stop, the penalty stays."""
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(RIGHT)                            # left runs
    rig.run(20000 - SETTLE_MS)
    rig.press(LEFT)                             # left at 00:40; right runs
    rig.run(5000)
    rig.press(RIGHT)                            # left's last turn starts
    rig.run(180000 - SETTLE_MS)
    expect(rig.screen()[0][:8] == RUN_L + "-02:20" + FLAG, "-02:20 with the flag", rig)
    expect(rig.screen()[1].startswith("P30"), "P30", rig)
    over = rig.clock.overtime(LEFT)
    rig.perform(gestures.end_game(True))
    c = rig.clock
    expect(c.state == cc.OVER, "game over", rig)
    expect(c.overtime(LEFT) == over, "left charged up to the stop (%d vs %d)"
           % (c.overtime(LEFT), over), rig)
    expect(c.penalty(LEFT) == 30, "the penalty is kept (TSO § 5.1 b i)", rig)
    expect("END" in rig.screen()[1] and "-02:20" in rig.screen()[0], "final screen", rig)
    return rig


def scenario_void_after_a_stop(board, root):
    """TSO § 5.2 d through the referee menu after someone stopped the clock:
    right's last press started left's clock, nobody noticed for 90 s; the
    referee's void gives left it all back and ends the game."""
    import refereemenu
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(10000)
    rig.press(RIGHT)                            # right's last move: left runs
    rig.run(90000)
    rig.press(PAUSE)                            # someone stops it: -00:30 P10
    expect(rig.clock.penalty(LEFT) == 10, "P10 before the void", rig)
    rig.perform(gestures.referee())
    expect(rig.app.mode == 3, "referee menu", rig)
    gestures.menu_pick(rig, refereemenu.R_VOID)
    expect("5.2d" in rig.screen()[0], "the 5.2d item names its side", rig)
    rig.press(RIGHT)                            # asks first (SPEC v3 §4)
    expect(rig.clock.state == cc.PAUSED, "nothing before the confirmation", rig)
    rig.perform(gestures.confirm())             # yes
    c = rig.clock
    expect(c.state == cc.OVER and c.rem[LEFT] == 60000 and c.penalty(LEFT) == 0,
           "void: left gets everything since right's press back", rig)
    expect(rig.app.mode == 1 and "END" in rig.screen()[1], "final screen", rig)
    return rig


def scenario_void_after_a_forfeit(board, root):
    """TSO § 5.2 d after the clock declared a forfeit (nobody noticed for five
    minutes): the referee menu on the final screen withdraws it."""
    import refereemenu
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(LEFT)
    rig.run(10000)
    rig.press(RIGHT)                            # left runs on and on
    rig.run(60000 + 301000)
    expect(rig.clock.forfeited[LEFT] and "LOST" in rig.screen()[1], "LOST", rig)
    rig.perform(gestures.referee())
    expect(rig.app.mode == 3, "the referee menu opens on the final screen", rig)
    expect(rig.app.menu.item == refereemenu.R_VOID and "5.2d" in rig.screen()[0],
           "the final screen's menu starts at its first item, 5.2d", rig)
    rig.press(RIGHT)                            # asks first (SPEC v3 §4)
    expect(rig.clock.forfeited[LEFT], "nothing before the confirmation", rig)
    rig.perform(gestures.confirm())             # yes
    c = rig.clock
    expect(not c.forfeited[LEFT] and c.rem[LEFT] == 60000, "forfeit withdrawn", rig)
    expect("LOST" not in rig.screen()[1] and "END" in rig.screen()[1], "END", rig)
    return rig


def scenario_pause_held_through_a_challenge(board, root):
    """SPEC v3 §4 Gestures: holding the pause key through a challenge (2, 5,
    10 s) or a chattering pause key never ends a game: pressed while a clock
    runs, the held key only stops it (no question, nothing undone); a tap
    then resumes."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    rig.press(LEFT)
    rig.run(3000)
    rig.press(RIGHT)                            # a move: left runs, window
    for hold in (2100, 5000, 10000):
        rig.press(PAUSE, hold=hold)             # the challenger holds the key
        expect(rig.clock.state == cc.PAUSED, "paused, not over (%d ms)" % hold, rig)
        expect("?" not in rig.screen()[1], "no question asked", rig)
        rig.press(PAUSE)                        # resume
        expect(rig.clock.running() == LEFT, "resumed", rig)
    # a worn key: closed for 2.6 s with a 5-15 ms chatter all along
    offs = []
    t = 0
    while t < 2600:
        t += 5 + (t // 5) % 11
        offs.append(t)
    rig.press(PAUSE, hold=100, bounce=tuple(offs))
    rig.run(3000)
    expect(rig.clock.state != cc.OVER, "a chattering key never ends a game", rig)
    return rig


def scenario_slow_referee(board, root):
    """A slow referee: the pause key, then 2 s later (SPEC v4: a gesture's
    keys go down within 2 s, 2000 ms included) both player buttons.  The
    menu opens; the pause stopped the running side at its edge; no end, no
    question, no turn change.  In ready the pause key, held alone 2 s by
    then, does not open the setup menu first."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(4000)
    before = rig.clock.rem[RIGHT]
    t0 = rig.ms()
    rig.perform([(0, PAUSE, 1), (2000, LEFT, 1), (2000, RIGHT, 1),
                 (5200, LEFT, 0), (5200, RIGHT, 0), (5200, PAUSE, 0)])
    c = rig.clock
    expect(rig.app.mode == 3, "referee menu", rig)
    expect(c.state == cc.PAUSED and c.side == RIGHT, "paused, right's turn", rig)
    expect(before - c.rem[RIGHT] == 0, "stopped at the pause edge (%d ms after %d)"
           % (before - c.rem[RIGHT], t0), rig)
    rig.press(PAUSE, hold=2100)                 # leave the menu
    # ... and before a game: the 2 s hold must not open the setup menu first
    rig.perform(gestures.end_game(False))
    rig.ended_rem = [c.rem[0], c.rem[1]]        # for the log check
    rig.perform(gestures.new_game())
    expect(c.state == cc.READY, "ready", rig)
    rig.perform([(0, PAUSE, 1), (2000, LEFT, 1), (2000, RIGHT, 1),
                 (5200, LEFT, 0), (5200, RIGHT, 0), (5200, PAUSE, 0)])
    expect(rig.app.mode == 3, "referee menu in ready, not the setup menu", rig)
    return rig


def chord_case(board, root, order, gap, start="running"):
    """The referee gesture in one order of its keys, `gap` ms apart, made
    while right's clock runs (`start`: or paused, in ready, on the final
    screen): it opens the menu, changes no turn, and charges right exactly
    up to the first key's edge (SPEC v3 §4: a gesture undoes its keys and
    stops the clock from that edge); a stopped clock keeps its times and
    its state."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    if start != "ready":
        rig.press(LEFT)                         # right runs
        rig.run(2000)
    if start == "paused":
        rig.press(PAUSE)
    elif start == "over":
        rig.perform(gestures.end_game(True))
    c = rig.clock
    state = c.state
    expect(state == {"running": cc.RUNNING, "paused": cc.PAUSED, "ready": cc.READY,
                     "over": cc.OVER}[start], "the start state", rig)
    rig.run(500)
    c.update(rig.now)
    before = [c.rem[0], c.rem[1]]
    t0 = rig.ms()
    rig.perform(gestures.referee(order, gap))
    names = "%s %s, %d ms" % (start, "".join("LRP"[b] for b in order), gap)
    expect(rig.app.mode == 3, "referee menu (%s)" % names, rig)
    want = cc.PAUSED if state == cc.RUNNING else state
    expect(c.state == want and c.side == (RIGHT if start != "ready" else c.side),
           "no turn change (%s)" % names, rig)
    expect(c.rem[LEFT] == before[LEFT], "left untouched (%s)" % names, rig)
    expect(before[RIGHT] == c.rem[RIGHT], "right charged to the first key's "
           "edge only: %d ms more (%s)" % (before[RIGHT] - c.rem[RIGHT], names), rig)
    expect(t0 <= rig.ms(), "time ran", rig)
    rig.press(PAUSE, hold=2100)                 # leave the menu
    expect(rig.app.mode == 1 and c.state == want, "back, as it was (%s)" % names, rig)
    return rig


ORDERS = ((PAUSE, LEFT, RIGHT), (PAUSE, RIGHT, LEFT), (LEFT, PAUSE, RIGHT),
          (RIGHT, PAUSE, LEFT), (LEFT, RIGHT, PAUSE), (RIGHT, LEFT, PAUSE))
# 400: a player button inside the 500 ms lock-out of the side the other one
# just started; 700: outside it (it moves again); 1000: the slowest referee
# (SPEC v4: the three keys within 2 s, first to last, 2000 ms included)
GAPS = (0, 150, 400, 700, 1000)


def _gap(order, gap):
    """SPEC v5: on a stopped clock both player buttons down together 1 s
    before the pause key are a confirmation, and the pause key after it
    makes no referee gesture (test_answers.py, test_gestures.py): with the
    pause key last, it comes within 990 ms of the second player button.
    (While a clock runs they are presses, never a confirmation: any gap.)"""
    return min(gap, 990) if order[2] == PAUSE else gap


def scenario_chords(board, root):
    """All six orders of the referee's keys, the first to the last 0 to 2 s
    apart, while a clock runs (SPEC v4 §4 Gestures: any order, within
    2 s)."""
    rig = None
    for order in ORDERS:
        for gap in GAPS:
            rig = chord_case(board, fresh_dir(root[:-1]), order, gap)
    return rig


def scenario_chords_on_a_stopped_clock(board, root):
    """The same, 0 and 2 s from the first to the last, in ready, paused and on the final screen
    (issue 18: from ready, paused, running and over).  (The last case is on
    the final screen, so the game log the replay check reads is its game.)"""
    rig = None
    for start in ("ready", "paused", "over"):
        for order in ORDERS:
            for gap in (0, 1000):
                rig = chord_case(board, fresh_dir(root[:-1]), order, _gap(order, gap), start)
    return rig


def scenario_second_hold_on_the_final_screen(board, root):
    """The final screen stays until a confirmed new game: a second hold only
    asks; without L+R nothing changes; with it, a new game."""
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(LEFT)
    rig.run(5000)
    rig.press(RIGHT)
    rig.run(2000)
    rig.perform(gestures.end_game(True))
    final = rig.screen()
    rem = [rig.clock.rem[0], rig.clock.rem[1]]
    expect(rig.clock.state == cc.OVER, "over", rig)
    rig.perform(gestures.long_press())
    expect("NEW GAME" in rig.screen()[1], "the clock asks", rig)
    rig.run(7000)                               # nobody answers
    expect(rig.screen() == final and rig.clock.state == cc.OVER, "final screen stays", rig)
    rig.perform(gestures.long_press())
    rig.press(PAUSE)                            # a tap answers no
    expect(rig.screen() == final, "still the final screen", rig)
    expect([rig.clock.rem[0], rig.clock.rem[1]] == rem, "times unchanged", rig)
    rig.ended_rem = rem                         # for the log check
    rig.perform(gestures.new_game())
    expect(rig.clock.state == cc.READY and "READY" in rig.screen()[1], "new game", rig)
    return rig


def scenario_results_of_the_last_games(board, root):
    """SPEC v3 §4: the results of the last games (both final times, overtime,
    penalty points, a forfeit, when the game ended) can be read on the clock
    afterwards, from the setup menu, out of the game logs."""
    import setupmenu
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    # game 1: right forfeits (TSO § 5.2 c)
    rig.press(RIGHT)                            # left runs
    rig.run(5000)
    rig.press(LEFT)                             # right runs on and on
    rig.run(60000 + 302000)
    expect(rig.clock.forfeited[RIGHT], "game 1: right forfeits", rig)
    rig.perform(gestures.new_game())
    # game 2: left ends 1:10 over (P20), ended with the end gesture
    rig.press(LEFT)                             # right runs
    rig.run(3000)
    rig.press(RIGHT)                            # left runs into overtime
    rig.run(60000 + 70000)
    rig.perform(gestures.end_game(True))
    end2 = _log_times(root)[-1]                 # the end line's time
    final = rig.screen()
    rig.ended_rem = [rig.clock.rem[0], rig.clock.rem[1]]   # for the log check
    rig.perform(gestures.new_game())
    expect(rig.clock.state == cc.READY, "ready for game 3", rig)
    rig.perform(gestures.long_press())          # the setup menu
    for _ in range(12):
        if rig.app.menu.item == setupmenu.S_RESULTS:
            break
        rig.press(PAUSE)
    expect("Last games" in rig.screen()[0], "the results item", rig)
    rig.press(RIGHT)
    expect(rig.app.mode == 4, "the results", rig)
    row0, row1 = rig.screen()
    expect(row0[1:15] == final[0][1:15], "game 2's final times %r vs %r"
           % (row0, final[0]), rig)
    expect(row1.startswith("Penalty") and row1.rstrip().endswith("L20"),
           "in words: penalty, 20 points on the left", rig)
    expect(row0[0] == "<" and row0[15] == " ", "an older game, no newer", rig)
    rig.press(PAUSE)                            # the other page: when it ended
    secs = (end2 + 999) // 1000                 # shown as the clock shows mm:ss
    expect(rig.screen()[0].startswith("#2") and rig.screen()[0].endswith(
        "%02d:%02d" % (secs // 60, secs % 60)), "ended at", rig)
    expect(rig.screen()[1].startswith("sdev") and "01:00" in rig.screen()[1], "rules", rig)
    rig.press(PAUSE)
    rig.press(LEFT)                             # older: game 1
    row0, row1 = rig.screen()
    expect(row0[9:15] == "-05:01" and row1.rstrip() == "Right lost: time",
           "game 1: right lost at -05:01", rig)
    rig.press(PAUSE)
    expect(rig.screen()[0].startswith("#1"), "game 1's number", rig)
    rig.press(PAUSE, hold=2100)                 # back
    expect(rig.app.mode == 1 and rig.clock.state == cc.READY, "back to ready", rig)
    return rig


def _bus(board):
    import machine
    return machine.I2C(board.I2C_ID).devices


def _expected_screen(rig):
    import hd44780
    a = rig.app
    f = a.frame
    return hd44780.text_of(rig.clock, a.display.cols, a.display.nrows, f.language,
                           f.hall, f.notice)


def scenario_bus_faults(board, root):
    """Issue 12: the display's bus NACKs for 1 s, for 10 s, and on and off for
    60 s while a game runs.  The clock keeps time to the millisecond (turns
    taken during the faults are charged at their edges), the display comes
    back by itself with everything redrawn and says so, nothing is lost."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    bus = _bus(board)
    addr = board.LCD_ADDR
    emu = bus[addr]
    t0 = rig.ms()                               # left's press edge: right runs
    rig.press(LEFT)
    edges = []
    for outage in (1000, 10000):
        rig.run(3000)
        del bus[addr]                           # NACK: no answer from the backpack
        rig.run(outage // 2)
        edges.append(rig.ms())
        rig.press(rig.clock.running())          # a move during the outage
        rig.run(outage // 2)
        bus[addr] = emu                         # the cable is back
        rig.run(2500)                           # retried within the backoff
        expect(not rig.app.display.down, "the display is back after %d ms" % outage, rig)
        expect(rig.screen()[1].strip() == "DISPLAY RESTORED", "it says so", rig)
        rig.run(4500)
        expect(rig.screen() == _expected_screen(rig), "everything redrawn", rig)
    # 60 s of a flaky cable: on and off every 0.2-0.9 s, moves meanwhile
    k = 0
    while k < 60000:
        gap = 200 + (k * 7919) % 700
        if addr in bus:
            del bus[addr]
        else:
            bus[addr] = emu
        rig.run(gap)
        k += gap
        if k % 7 == 0 or (k // gap) % 9 == 0:
            edges.append(rig.ms())
            rig.press(rig.clock.running())
            k += SETTLE_MS
    bus[addr] = emu
    rig.run(7000)
    expect(not rig.app.display.down and rig.app.display.errors > 10, "flaky bus survived", rig)
    expect(rig.screen() == _expected_screen(rig), "the display shows the clock", rig)
    # time to the ms: the two sides add up exactly to the time that ran
    # (a clock ran all along), and every move changed the turn
    c = rig.clock
    used = 1200000 - c.rem[0] - c.rem[1]
    expect(c.state == cc.RUNNING and used == rig.ms() - t0,
           "charged %d ms in %d ms of play" % (used, rig.ms() - t0), rig)
    expect(len(edges) > 10, "moves during the faults (%d)" % len(edges), rig)
    return rig


def _failures(rig, ms):
    """The rig's ms at which the display's bus failed (each failed draw or
    retry), stepping `ms` of virtual time."""
    d = rig.app.display
    n = d.errors
    out = []
    end = rig.ms() + ms
    while rig.ms() < end:
        rig.run(rig.step_ms)
        if d.errors != n:
            n = d.errors
            out.append(rig.ms())
    return out


def scenario_display_backoff(board, root):
    """Issue 12, firmware/display.py: a display whose bus fails is tried again
    after 100 ms, then after twice as long each time, up to 2 s, while the
    clock runs on; when it answers, the wait starts again at 100 ms."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    bus = _bus(board)
    emu = bus[board.LCD_ADDR]
    rig.press(LEFT)                             # right runs: a redraw each second
    del bus[board.LCD_ADDR]
    fails = _failures(rig, 12000)
    gaps = [b - a for a, b in zip(fails, fails[1:])]
    expect(gaps[:7] == [100, 200, 400, 800, 1600, 2000, 2000],
           "retried after %r ms" % gaps, rig)
    bus[board.LCD_ADDR] = emu
    rig.run(2100)
    d = rig.app.display
    expect(not d.down and d.backoff == 100, "back, the wait reset", rig)
    del bus[board.LCD_ADDR]
    fails = _failures(rig, 1500)                # the next fault: 100 ms first
    expect([b - a for a, b in zip(fails, fails[1:])][:2] == [100, 200],
           "retried after %r ms" % fails, rig)
    bus[board.LCD_ADDR] = emu
    return rig


def _centres(rig, ms):
    """Row 1's words in turn, each with how long it showed (100 ms steps)."""
    out = []
    end = rig.ms() + ms
    while rig.ms() < end:
        rig.run(100)
        w = rig.screen()[1].strip()
        if out and out[-1][0] == w:
            out[-1][1] += 100
        else:
            out.append([w, 100])
    return out


def scenario_notice_waits_for_the_question(board, root):
    """firmware/display.py, question.py: a notice that comes while END?
    shows waits for it (the question keeps the centre field, SPEC v3 §4),
    then shows its whole 4 s; then the paused game's PAUSE."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    bus = _bus(board)
    emu = bus[board.LCD_ADDR]
    rig.press(LEFT)
    rig.run(1000)
    rig.press(PAUSE)
    rig.run(500)
    del bus[board.LCD_ADDR]                     # the END? redraw fails
    rig.perform(gestures.long_press(), 0)
    q = rig.app.game.question
    expect(q.kind != 0 and rig.app.display.down, "END? asked, the display down", rig)
    bus[board.LCD_ADDR] = emu                   # "Display restored" waits
    seen = _centres(rig, 12000)[1:]             # (the stale PAUSE while down)
    words = [w for w, _ in seen]
    expect(words == ["END? hold L+R", "DISPLAY RESTORED", "PAUSE"],
           "in turn: %r" % seen, rig)
    expect(seen[1][1] == 4000, "the notice's whole 4 s: %r" % seen, rig)
    return rig


def scenario_late_sdev(board, root):
    """TSO § 2.4 b ii, § 5.3 b: the present player (left) starts the absent
    right player's clock; the lateness counts up; at 15:01 right has lost."""
    write_settings(root, "sdev", 1800)
    rig = boot(board, root)
    rig.perform(gestures.late(LEFT))
    c = rig.clock
    expect(c.state == cc.LATE and c.late() == RIGHT, "right's lateness runs", rig)
    rig.run(897000 - c.lateness())
    expect("LATE" in rig.screen()[1] and "+14:57" in rig.screen()[1], "lateness shown", rig)
    rig.run(900999 - c.lateness())
    expect(c.state == cc.LATE, "15:00 may still show", rig)
    rig.run(1)
    expect(c.state == cc.OVER and c.forfeited[RIGHT], "15:01: lost", rig)
    expect("LOST" in rig.screen()[1], "LOST", rig)
    return rig


def _referee_minutes(rig, item, n, button):
    """The referee menu in ready: n presses of `button` on `item`, then
    `Apply new times?` confirmed."""
    import refereemenu
    rig.perform(gestures.referee())
    expect(rig.app.mode == 3, "the referee menu", rig)
    gestures.menu_pick(rig, getattr(refereemenu, item))
    for _ in range(n):
        rig.press(button)
    rig.perform(gestures.long_press())
    rig.perform(gestures.confirm())
    expect(rig.app.mode == 1, "back to the game", rig)


def scenario_late_sdev_after_a_credit(board, root):
    """SPEC v5 (issue 36), TSO § 2.4 b ii, § 5.3 b, § 7.3.2.2: the referee
    credits right 5:00 in ready (an `adjust`, no lateness), right is late:
    its lateness counts from +00:00 and right has lost at +15:01, with
    20:00 - 1 s left (v4 hid 5:00 of lateness)."""
    write_settings(root, "sdev", 1800)
    rig = boot(board, root)
    _referee_minutes(rig, "R_R_MIN", 5, RIGHT)
    c = rig.clock
    expect(c.rem[RIGHT] == 35 * 60000 and c.late_ms[RIGHT] == 0, "a credit, no lateness", rig)
    rig.perform(gestures.late(LEFT))
    expect(c.state == cc.LATE and c.late() == RIGHT, "right's lateness runs", rig)
    rig.run(60000 - c.lateness())
    expect("+01:00" in rig.screen()[1], "+01:00 a minute in", rig)
    rig.run(900999 - c.lateness())
    expect(c.state == cc.LATE, "15:00 may still show", rig)
    rig.run(1)
    expect(c.state == cc.OVER and c.forfeited[RIGHT], "15:01: lost", rig)
    expect(c.rem[RIGHT] == 35 * 60000 - 901000, "the credit stays", rig)
    return rig


def scenario_late_pfs_after_a_deduction(board, root):
    """SPEC v5 (issue 36), PFS § 6.3.4: pfs 1:00; the referee takes 0:10
    from right (`adjust`, no lateness), then right is late: the walkover
    comes at 00:00 of the time as corrected, after 50 s of lateness."""
    write_settings(root, "pfs", 60)
    rig = boot(board, root)
    _referee_minutes(rig, "R_R_SEC", 10, LEFT)
    c = rig.clock
    expect(c.rem[RIGHT] == 50000 and c.late_ms == [0, 0], "a deduction, no lateness", rig)
    rig.perform(gestures.late(LEFT))
    rig.run(49999 - c.lateness())
    expect(c.state == cc.LATE and "+00:49" in rig.screen()[1], "+00:49", rig)
    rig.run(1)
    expect(c.state == cc.OVER and c.forfeited[RIGHT] and c.late_ms[RIGHT] == 50000,
           "walkover at 00:00", rig)
    return rig


def _late_ref(rig, absent, t0):
    """The pure core with the clock's rules on the rig's own ticks, fed only
    the real moves: absent's lateness clock from t0."""
    ref = cc.Clock(rig.app.settings.rules(), t0, rig.diff, rig.add)
    ref.start_late(absent, t0)
    return ref


def _same(rig, ref, what):
    ref.update(rig.now)
    c = rig.clock
    expect(c.t == rig.now, what + ": settled", rig)
    expect((c.state, c.side, c.rem[0], c.rem[1], c.forfeited[0], c.forfeited[1])
           == (ref.state, ref.side, ref.rem[0], ref.rem[1], ref.forfeited[0],
               ref.forfeited[1]), what + ": the timeline of the real moves", rig)


def scenario_referee_menu_during_a_lateness(board, root):
    """SPEC v4 §4 Late arrival, Referee functions (issue 26), pfs with a
    1-minute base: the referee gesture in late(left) opens the menu and the
    lateness runs on; the base time raised to 2:00 acts only after the
    confirmation and keeps the 0:15 charged; the menu left, late(left) goes
    on; the pause key stops the lateness, the late-arrival gesture starts it
    again and its count goes on; the walkover comes when left's whole time
    is gone (PFS § 6.3.4) -- all as the pure core fed only those moves."""
    write_settings(root, "pfs", 60)
    rig = boot(board, root)
    t0 = rig.now
    rig.perform(gestures.late(RIGHT))           # left is late from t0
    ref = _late_ref(rig, LEFT, t0)
    rig.run(12000)
    rig.perform(gestures.referee())
    c = rig.clock
    expect(rig.app.mode == 3 and c.state == cc.LATE, "the menu over the lateness", rig)
    _same(rig, ref, "the gesture's keys undone, the lateness runs on")
    rig.press(RIGHT)                            # base 02:00, pending
    expect(c.rules.base[LEFT] == 60000, "pending", rig)
    rig.perform(gestures.long_press())          # leave: "Apply new times?"
    expect(rig.app.mode == 3 and c.rules.base[LEFT] == 60000, "asked first", rig)
    rig.perform(gestures.confirm())             # yes
    expect(rig.app.mode == 1 and c.state == cc.LATE, "back to late", rig)
    expect(c.rules.base == [120000, 120000], "02:00 each", rig)
    ref.rebase(LEFT, 120000, rig.now)
    ref.rebase(RIGHT, 120000, rig.now)
    _same(rig, ref, "the new base keeps the lateness charged")
    expect("+00:" in rig.screen()[1], "the lateness still shown", rig)
    rig.run(3000)
    t = rig.now
    rig.press(PAUSE)                            # the lateness clock stopped
    ref.pause(t)
    expect(c.state == cc.READY, "stopped", rig)
    rig.run(4000)
    t = rig.now
    rig.perform(gestures.late(RIGHT))           # started again
    ref.start_late(LEFT, t)
    _same(rig, ref, "one account: it goes on")
    expect(c.lateness() > 20000, "the count goes on, not from zero", rig)
    rig.run(ref.rem[LEFT] - rig.diff(rig.now, ref.t) - 1)
    expect(c.state == cc.LATE, "00:01 left", rig)
    rig.run(1)
    _same(rig, ref, "walkover at 00:00")
    expect(c.state == cc.OVER and c.forfeited[LEFT], "walkover", rig)
    return rig


def scenario_late_sdev_restarted_and_the_limit_in_the_menu(board, root):
    """TSO § 2.4 b ii, § 5.3 b (issue 26): right 9:00 late, the lateness
    stopped by mistake and started again 24 s later, goes on from 9:00; the
    referee opens the menu at +14:57 (the lateness runs on meanwhile); at
    +15:01 of the one account right has lost, and the menu closes on the
    final screen (LOST)."""
    write_settings(root, "sdev", 1800)
    rig = boot(board, root)
    t0 = rig.now
    rig.perform(gestures.late(LEFT))
    ref = _late_ref(rig, RIGHT, t0)
    c = rig.clock
    rig.run(540000 - c.lateness())
    t = rig.now
    rig.press(PAUSE)
    ref.pause(t)
    rig.run(24000)
    t = rig.now
    rig.perform(gestures.late(LEFT))
    ref.start_late(RIGHT, t)
    _same(rig, ref, "restarted")
    expect("+09:0" in rig.screen()[1], "shown from 9:00 on", rig)
    rig.run(897000 - c.lateness())
    rig.perform(gestures.referee())
    expect(rig.app.mode == 3 and c.state == cc.LATE, "the menu over the lateness", rig)
    _same(rig, ref, "runs on in the menu")
    rig.run(900999 - c.lateness())
    expect(rig.app.mode == 3 and c.state == cc.LATE, "+15:00 may still show", rig)
    rig.run(1)
    _same(rig, ref, "lost at +15:01 of the account")
    expect(c.state == cc.OVER and c.forfeited[RIGHT], "right lost", rig)
    expect(c.rem[RIGHT] == 1800000 - 901000, "charged 15:01", rig)
    rig.run(20)
    expect(rig.app.mode == 1 and "LOST" in rig.screen()[1], "the final screen", rig)
    return rig


def scenario_late_arrival_begins_the_game(board, root):
    """The late player arrives: a player button begins the game as from
    ready, with the shortened time and no challenge window."""
    write_settings(root, "sdev", 1800)
    rig = boot(board, root)
    rig.perform(gestures.late(RIGHT))           # left is late
    rig.run(125000)
    rig.press(RIGHT)                            # left moves first: right presses
    c = rig.clock
    expect(c.running() == LEFT and c.late() == -1, "the game begins", rig)
    expect(c.win == 0 and "CHL" not in rig.screen()[1], "no challenge window", rig)
    expect(1800000 - c.rem[LEFT] > 125000, "left's lateness was charged", rig)
    return rig


def scenario_late_pfs(board, root):
    """PFS § 6.3.4: a late player whose whole time runs out loses by
    walkover."""
    write_settings(root, "pfs", 60)
    rig = boot(board, root)
    rig.perform(gestures.late(RIGHT))           # left is late
    rig.run(60000)
    c = rig.clock
    expect(c.state == cc.OVER and c.forfeited[LEFT] and c.rem[LEFT] == 0,
           "walkover at 00:00", rig)
    return rig


def scenario_pfs_flag_then_pause(board, root):
    """SPEC v3 §4: after a PFS flag the pause key leaves the clock stopped
    (PFS § 6.2.2, § 6.1); a player button then runs the remaining player."""
    write_settings(root, "pfs", 60)
    rig = boot(board, root)
    rig.press(RIGHT)                            # left runs
    rig.run(61000)
    c = rig.clock
    expect(c.flag(LEFT) and c.state == cc.PAUSED, "flag: stopped", rig)
    right = c.rem[RIGHT]
    rig.press(PAUSE)
    rig.run(5000)
    expect(c.running() == -1 and c.rem[RIGHT] == right, "the pause key leaves it stopped", rig)
    rig.press(LEFT)
    expect(c.running() == RIGHT, "a player button runs the remaining player", rig)
    return rig


def scenario_referee_gesture(board, root):
    """The referee gesture (pause + both player buttons held 3 s) made while
    right's clock runs: the pause key stops it at its edge, the menu opens
    (SPEC v3 §4: ready, paused or over; a running clock is paused from the
    first key's edge); an adjustment is pending until the referee leaves
    the menu and confirms it, then goes through the core (TSO § 7.3.2.2)."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(2000)
    rig.down(PAUSE)                             # pauses on the edge
    rig.run(100)
    rig.down(LEFT)
    rig.down(RIGHT)
    rig.run(3200)
    rig.up(LEFT)
    rig.up(RIGHT)
    rig.up(PAUSE)
    rig.run(100)
    expect(rig.app.mode == 3, "referee menu", rig)
    before = rig.clock.rem[LEFT]
    rig.press(LEFT)                             # first item: left -1 s
    expect(rig.clock.rem[LEFT] == before, "SPEC v3: pending until confirmed", rig)
    rig.press(PAUSE, hold=2100)                 # done: "Apply new times?"
    expect(rig.app.mode == 3 and rig.clock.rem[LEFT] == before, "asked first", rig)
    rig.perform(gestures.confirm())             # yes
    expect(rig.clock.rem[LEFT] == before - 1000, "left -1 s", rig)
    expect(rig.app.mode == 1 and rig.clock.state == cc.PAUSED, "back, paused", rig)
    return rig


def scenario_press_during_lcd_write(board, root):
    """A press that lands while the LCD is being written is charged at its
    edge, not when the loop gets to it (SPEC §6)."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    t_start = rig.ms()
    rig.press(LEFT)                             # right runs
    rig.run(1997 - (rig.ms() - t_start))        # just before 09:59 -> 09:58
    lcd = rig.lcd
    real = lcd.writeto
    state = {"edge": None}

    def slow_write(buf):
        # A slow bus: 7 ms per transfer; right's button closes mid-transfer.
        rig.now = rig.add(rig.now, 3)
        if state["edge"] is None:
            state["edge"] = rig.ms()
            rig.down(RIGHT)
        rig.now = rig.add(rig.now, 4)
        real(buf)

    lcd.writeto = slow_write
    before = rig.clock.rem[RIGHT]
    start = rig.ms()
    rig.run(10)                                 # the 1 s boundary: LCD writes
    lcd.writeto = real
    rig.up(RIGHT)
    rig.run(SETTLE_MS)
    expect(state["edge"] is not None, "an LCD write happened", rig)
    charged = before - rig.clock.rem[RIGHT]
    # right ran from `start` (already charged up to it) to the edge
    expect(rig.clock.running() == LEFT, "turn ended", rig)
    expect(charged == state["edge"] - start, "charged to the edge: %d vs %d"
           % (charged, state["edge"] - start), rig)
    return rig


def big_time(rows, pos):
    """The time the 20x4's big digits show at column pos of rows 0-1, read
    back from the emulator's text through bigview.py's font ("-0:01")."""
    import bigview
    chars = {}
    for d in range(12):
        cells = ""
        for i in range(4):
            code = bigview.FONT[d * 4 + i]
            cells += bigview.GLYPH_CHARS[code] if code < 8 else " "
        chars[cells] = "0123456789- "[d]
    out = ""
    for p in (pos, pos + 2, -1, pos + 5, pos + 7):
        if p < 0:
            dot = bigview.ROM_TEXT[bigview.COLON]
            out += ":" if rows[0][pos + 4] == rows[1][pos + 4] == dot else "?"
            continue
        out += chars.get(rows[0][p:p + 2] + rows[1][p:p + 2], "?")
    return out


def scenario_20x4_layout(board4, root):
    """A 20x4 display (boards/sim_2004.py): the times in big digits on rows
    0-1 with the marks between them, info and status on row 2, the rules on
    row 3 (issue 28, docs/display.md)."""
    write_settings(root, "sdev", 60)
    rig = boot(board4, root)
    rows = rig.screen()
    expect(big_time(rows, 0) == " 1:00" and big_time(rows, 11) == " 1:00", "big times", rig)
    expect(rows[3].strip() == "sdev 01:00", "rules row", rig)
    expect(rows[2].strip() == lang.text("en", "READY_WHO"), "status", rig)
    expect(rows[0][9:11] == "  ", "no marks in ready", rig)
    rig.press(LEFT)
    rows = rig.screen()
    expect(rows[0][9:11] == " \u2192" and rows[1][9:11] == " \u2192", "right runs: ->", rig)
    rig.run(61500)
    rows = rig.screen()
    expect(big_time(rows, 11) == "-0:01", "right in overtime: a big minus", rig)
    expect(big_time(rows, 0) == " 1:00", "left untouched", rig)
    expect(rows[2].rstrip().endswith("P10"), "penalty under the right time", rig)
    rig.press(PAUSE)
    rows = rig.screen()
    expect(rows[0][9:11] == " \u2588", "the side the pause stopped: a block", rig)
    expect("PAUSE" in rows[2], "PAUSE", rig)
    return rig


def scenario_power_cut(board, root):
    """Pulling the plug mid-game (TSO § 4.1 f, SPEC §4 Power loss): on power-up
    the game is back, paused, marked restored, with at most 5 s of the
    running side's time uncharged and no transition lost."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(20000)
    rig.press(RIGHT)                            # left runs
    rig.run(33333)
    truth = [rig.clock.rem[0], rig.clock.rem[1]]
    # The plug is pulled: a new boot on the same flash, ticks start anew.
    rig2 = Rig(board, root, t0=12345)
    rig2.run(1600)
    c = rig2.clock
    expect(c.state == cc.PAUSED and c.side == LEFT, "restored paused, left's turn", rig2)
    expect(c.rem[RIGHT] == truth[RIGHT], "right's finished turn kept exactly", rig2)
    lost = c.rem[LEFT] - truth[LEFT]
    expect(0 <= lost <= 5000, "at most 5 s of left's time uncharged (%d ms)" % lost, rig2)
    expect("RESTORED" in rig2.screen()[1], "the screen says restored", rig2)
    rig2.press(PAUSE)                           # the players resume
    expect(c.running() == LEFT, "left runs again", rig2)
    expect("RESTORED" not in rig2.screen()[1], "notice gone after the key", rig2)
    rig2.run(5000)
    rig2.press(LEFT)
    rig2.run(3000)
    rig2.perform(gestures.end_game(True))       # end of game
    expect(c.state == cc.OVER, "game over", rig2)
    return rig2


SCENARIOS = (
    scenario_boot_setup_menu,
    scenario_sdev_overtime_forfeit,
    scenario_pfs_flag,
    scenario_bounce_trains,
    scenario_both_buttons_together,
    scenario_end_keeps_the_last_movers_turn,
    scenario_referee_gesture,
    scenario_press_during_lcd_write,
    scenario_power_cut,
)

# SPEC v3 gestures (issues 10, 18): each of these also replays from the device's
# own game log to exactly the live clock (tests/test_device.py).
def scenario_the_keys_answer_end(board, root):
    """SPEC v5 §4 Gestures: while END? shows, the player buttons answer it
    and leave the clock alone.  A pause tap under it answers no and leaves
    the clock stopped; asked again, left presses, right joins 300 ms later
    (at each of the 1 s the times and the turn are as they were), and the
    game is over at the instant both have been down 1 s, while both still
    hold (TSO § 5.1 b i: the last mover's time is theirs)."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(3000)
    rig.press(PAUSE)
    rig.run(500)
    c = rig.clock
    rem = [c.rem[0], c.rem[1]]
    rig.perform(gestures.long_press())
    expect("END?" in rig.screen()[1], "END? asked", rig)
    rig.press(PAUSE)                            # no: and nothing else
    expect("END?" not in rig.screen()[1] and c.state == cc.PAUSED, "no, still paused", rig)
    rig.perform(gestures.long_press())
    rig.down(LEFT)
    rig.run(300)
    rig.down(RIGHT)
    for _ in range(199):                        # 995 ms of the 1 s, 5 ms steps
        rig.run(5)
        expect(c.state == cc.PAUSED and [c.rem[0], c.rem[1]] == rem and
               "END?" in rig.screen()[1], "the keys leave the clock alone", rig)
    rig.run(5 + 5)
    expect(c.state == cc.OVER and [c.rem[0], c.rem[1]] == rem, "over at the 1 s", rig)
    rig.up(LEFT)
    rig.up(RIGHT)
    rig.run(200)
    return rig


GESTURE_SCENARIOS = (
    scenario_the_keys_answer_end,
    scenario_end_keeps_the_last_movers_turn,
    scenario_void_after_a_stop,
    scenario_void_after_a_forfeit,
    scenario_pause_held_through_a_challenge,
    scenario_slow_referee,
    scenario_second_hold_on_the_final_screen,
    scenario_late_sdev,
    scenario_late_arrival_begins_the_game,
    scenario_late_pfs,
    scenario_referee_menu_during_a_lateness,
    scenario_late_sdev_restarted_and_the_limit_in_the_menu,
    scenario_late_sdev_after_a_credit,
    scenario_late_pfs_after_a_deduction,
    scenario_pfs_flag_then_pause,
    scenario_chords,
    scenario_chords_on_a_stopped_clock,
    scenario_results_of_the_last_games,
)

# Faults (issue 12): each also replays from its log to the live clock.
FAULT_SCENARIOS = (
    scenario_bus_faults,
    scenario_display_backoff,
    scenario_notice_waits_for_the_question,
)


DAY = 86400000


def _log_times(root):
    """The ms of every event and note in the newest game log, in order."""
    names = sorted(n for n in os.listdir(root + "games") if n.endswith(".txt"))
    f = open(root + "games/" + names[-1])
    text = f.read()
    f.close()
    out = []
    for line in text.split("\n"):
        w = line.replace("#", " ").split()
        if w and w[0].isdigit():
            out.append(int(w[0]))
    return out


def _run_days(rig, days):
    """Let `days` pass (a day at a time: Rig.run takes less than half a wrap),
    the main loop every minute."""
    rig.step_ms = 60000
    for _ in range(days):
        rig.run(DAY)
    rig.step_ms = 5


def scenario_thirty_days(board, root):
    """Issue 12 "any uptime works": 30 simulated days idle in ready, then a
    press (never taken for 'pressed together' with a stale one), 30 days
    paused, 30 days running in a custom profile with no forfeit (the clock
    stops itself at 6.2 days of overtime), across many 2**30 tick wraps.
    Log times never negative, never decreasing, and past 10**9 ms (11.6
    days: once the log's bound; issue 26, logtime.py) they go on exactly."""
    f = open(root + "settings.json", "w")
    f.write('{"v": 1, "profile": "custom", "base_left": 60000, "base_right": 60000, '
            '"lang": "en", "sound": true, "zero": "overtime", "penalty": 0, '
            '"forfeit": -1, "window": 0}')
    f.close()
    rig = boot(board, root)
    _run_days(rig, 30)                          # idle: 2.4 tick wraps
    rig.press(LEFT)                             # right runs
    rig.run(500)                                # (SPEC v3: no turn is that short)
    rig.press(RIGHT)                            # a move: left runs
    c = rig.clock
    expect(c.running() == LEFT, "both presses taken after 30 idle days", rig)
    rig.press(PAUSE)
    _run_days(rig, 30)                          # paused 30 days
    rig.press(PAUSE)                            # resumed
    expect(c.running() == LEFT, "resumed after 30 paused days", rig)
    _run_days(rig, 30)                          # nobody stops it for 30 days
    rig.run(100)
    expect(c.state == cc.PAUSED and c.overtime(LEFT) == cc.OVERTIME_CAP,
           "stopped at the clock's own limit", rig)
    expect(rig.screen()[0][1:7] == "-99:59", "the display's largest overtime", rig)
    times = _log_times(root)
    expect(times == sorted(times) and times[0] >= 0,
           "log times never negative, never decreasing: %r" % times[-3:], rig)
    expect(times[-2] >= 30 * 86400000 and times[-1] - times[-2] > 6 * 86400000,
           "the resume 30 days on, the overtime limit 6.2 days later: %r" % times[-3:], rig)
    return rig

