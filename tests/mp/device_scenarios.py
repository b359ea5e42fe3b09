# End-to-end device scenarios, shared by CPython (tests/test_device.py) and
# the real MicroPython interpreter (tests/mp/test_device_mp.py).
#
# Each scenario boots the real app (firmware/app.py) on the fake machine with
# the HD44780 + PCF8574 emulator on its I2C bus and virtual time that wraps
# at 2**30 during the game, presses the buttons through the pins' IRQs, and
# asserts what the emulated LCD shows and what the core recorded.
import os

import clockcore as cc
from rig import Rig, LEFT, RIGHT, PAUSE

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
    expect(rig.screen()[1].strip() == "READY", "READY", rig)
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
    expect(rig.screen()[1].startswith("LOST"), "LOST shown", rig)
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
    rig.press(LEFT)                             # any key: right plays on
    expect(rig.clock.running() == RIGHT, "right runs alone", rig)
    rig.run(61000)
    expect(rig.clock.state == cc.OVER, "both out: over", rig)
    expect("END" in rig.screen()[1], "END shown", rig)
    return rig


def scenario_bounce_trains(board, root):
    """Contacts bounce: one physical press is one turn, charged at its first
    edge (SPEC §4 Buttons)."""
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
    rig.press(PAUSE, bounce=(1, 3, 6))          # pause
    expect(rig.clock.state == cc.PAUSED, "one pause", rig)
    rig.press(PAUSE, bounce=(2, 4))             # resume on release
    expect(rig.clock.running() == LEFT, "resumed once", rig)
    return rig


def scenario_both_buttons_together(board, root):
    """Two player buttons pressed together: the first edge wins."""
    write_settings(root, "sdev", 600)
    rig = boot(board, root)
    t_start = rig.ms()
    rig.press(LEFT)                             # right runs
    rig.run(3000)
    t_edge = rig.ms()
    rig.down(RIGHT)                             # right ends the turn ...
    rig.now = rig.add(rig.now, 1)
    rig.down(LEFT)                              # ... left hits 1 ms later
    rig.run(50)
    rig.up(RIGHT)
    rig.up(LEFT)
    rig.run(50)
    expect(rig.clock.running() == LEFT, "the first edge (right's) won", rig)
    expect(600000 - rig.clock.rem[RIGHT] == t_edge - t_start, "right charged to its edge", rig)
    expect(rig.clock.rem[LEFT] < 600000, "left's clock is running (not ended by its 1 ms-later press)", rig)
    return rig


def scenario_long_pause_ends_game(board, root):
    """The end-of-game gesture: a long press of the pause key ends the game at
    its leading edge, so the running side's turn is not charged (TSO § 5.2 d)."""
    write_settings(root, "sdev", 60)
    rig = boot(board, root)
    rig.press(LEFT)                             # right runs
    rig.run(5000)
    rig.press(RIGHT)                            # left runs: the last press
    rig.run(70000)                              # nobody stops it: left in overtime
    rig.press(PAUSE, hold=2200)
    expect(rig.clock.state == cc.OVER, "game over", rig)
    expect(rig.clock.rem[LEFT] == 60000, "left's last turn not charged", rig)
    expect(rig.clock.penalty(LEFT) == 0, "no penalty (TSO § 5.2 d)", rig)
    expect("END" in rig.screen()[1], "END", rig)
    return rig


def scenario_referee_gesture(board, root):
    """The referee gesture (pause + both player buttons for 3 s) opens the
    referee menu only when the clock is paused or ready; an adjustment goes
    through the core (TSO § 7.3.2.2)."""
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
    expect(rig.clock.rem[LEFT] == before - 1000, "left -1 s", rig)
    rig.press(PAUSE, hold=2100)                 # done
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
    rig.run(50)
    expect(state["edge"] is not None, "an LCD write happened", rig)
    charged = before - rig.clock.rem[RIGHT]
    # right ran from `start` (already charged up to it) to the edge
    expect(rig.clock.running() == LEFT, "turn ended", rig)
    expect(charged == state["edge"] - start, "charged to the edge: %d vs %d"
           % (charged, state["edge"] - start), rig)
    return rig


def scenario_20x4_layout(board4, root):
    """A 20x4 display (boards/sim_2004.py): header, times, info, status."""
    write_settings(root, "sdev", 60)
    rig = boot(board4, root)
    rows = rig.screen()
    expect(rows[0].startswith("sdev 01:00"), "header", rig)
    expect(rows[1] == "  01:00       01:00 ", "times row", rig)
    expect(rows[3].strip() == "READY", "status row", rig)
    rig.press(LEFT)
    rig.run(61500)
    rows = rig.screen()
    expect(rows[1][13:20] == "-00:01" + RUN_R, "right in overtime, running", rig)
    expect(rows[2].rstrip().endswith("P10"), "penalty under the right time", rig)
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
    rig2.press(PAUSE, hold=2100)                # end of game
    expect(c.state == cc.OVER, "game over", rig2)
    return rig2


SCENARIOS = (
    scenario_boot_setup_menu,
    scenario_sdev_overtime_forfeit,
    scenario_pfs_flag,
    scenario_bounce_trains,
    scenario_both_buttons_together,
    scenario_long_pause_ends_game,
    scenario_referee_gesture,
    scenario_press_during_lcd_write,
    scenario_power_cut,
)
