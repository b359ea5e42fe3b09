# A scripted game on the 16x2 whose LCD (I2C) traffic is recorded byte for
# byte (issue 28: the display path was rebuilt around a display-neutral
# frame; the 16x2 must send exactly what it sent before).  tests/data/
# lcd16x2_traffic.json holds the digests recorded on the code before that
# change; tests/test_lcd_traffic.py replays the script and compares.
#
# The script walks through what the 16x2 shows: the splash, READY, the hall
# mark, turns with the challenge window, a pause over the window (PAUSE CHL),
# the END? question dropped by its time, overtime with the flag and penalty
# points, the low-battery word, the end of a game (END? confirmed, END), NEW
# GAME?, a late arrival's lateness clock, a display that failed and came back
# ("DISPLAY RESTORED"), the setup and referee menus.
import hashlib

import rig as gestures
from rig import Rig, LEFT, RIGHT, PAUSE
from device_scenarios import write_settings


class Tap:
    """Sits on the I2C address in place of the emulator: records each
    transfer (the rig's virtual ms and the bytes), then passes it on."""

    def __init__(self, rig, emu):
        self.rig = rig
        self.emu = emu
        self.lines = []

    def writeto(self, buf):
        t = self.rig.ms() if self.rig is not None else -1  # -1: while the app is built
        self.lines.append("%d %s" % (t, bytes(buf).hex()))
        self.emu.writeto(buf)

    def readfrom(self, n):
        return self.emu.readfrom(n)


def record(board, root):
    """Play the script; returns [(phase, [transfer lines])] in order."""
    import machine
    write_settings(root, "sdev", 60)
    phases = []
    # the boot's own transfers (init, glyphs, splash) go through the tap too:
    # it is put on the bus before the app is built
    taps = []
    orig_attach = machine.I2C.attach

    def attach(self, addr, device):
        if addr == board.LCD_ADDR and not taps:
            device = Tap(None, device)
            taps.append(device)
        orig_attach(self, addr, device)

    machine.I2C.attach = attach
    try:
        rig = Rig(board, root)
    finally:
        machine.I2C.attach = orig_attach
    tap = taps[0]
    tap.rig = rig
    bus = machine.I2C(board.I2C_ID).devices
    emu = bus[board.LCD_ADDR]

    def phase(name):
        phases.append((name, tap.lines, rig.screen(), rig.app.mode))
        tap.lines = []

    phase("boot")
    rig.run(1600)
    phase("splash to ready")
    rig.app.game.show_hall(1)                   # net.HALL_WAIT
    rig.run(200)
    rig.app.game.show_hall(2)                   # net.HALL_UP
    rig.run(200)
    phase("hall mark")
    rig.press(LEFT)                             # right runs
    rig.run(3000)
    rig.press(RIGHT)                            # left runs: the window
    rig.run(2500)
    rig.press(PAUSE)                            # paused over the window
    rig.run(1500)
    phase("turns, window, pause")
    rig.perform(gestures.long_press())          # END? in paused ...
    rig.run(7000)                               # ... nobody answers
    phase("END? dropped")
    rig.press(PAUSE)                            # resume: left runs on
    rig.run(60000 + 65000)                      # left into overtime
    phase("overtime, flag, penalty")
    rig.app.battery.adc.level_u16 = 20000       # low battery
    rig.run(11000)
    rig.press(LEFT)                             # right runs: the window ...
    rig.run(22000)                              # ... closes, the centre is free
    rig.app.battery.adc.level_u16 = 0xFFFF
    rig.run(11000)
    phase("low battery")
    del bus[board.LCD_ADDR]                     # the display's bus fails
    rig.run(1200)
    rig.press(RIGHT)
    rig.run(300)
    bus[board.LCD_ADDR] = emu                   # and comes back
    rig.run(6000)
    phase("display back")
    rig.perform(gestures.end_game(True))        # END? confirmed: END
    rig.run(2000)
    phase("end")
    rig.perform(gestures.new_game())            # NEW GAME? confirmed
    rig.run(1000)
    phase("new game")
    rig.perform(gestures.late(LEFT))            # right is late: lateness runs
    rig.run(5000)
    rig.press(RIGHT)                            # right arrives: right's turn ends
    rig.run(3000)
    phase("late arrival")
    rig.press(PAUSE)
    rig.perform(gestures.referee())             # the referee menu
    rig.press(PAUSE)                            # the next item
    rig.press(RIGHT)                            # a time changed
    rig.press(PAUSE, hold=2100)                 # leave: "apply?"
    rig.perform(gestures.confirm())             # yes
    rig.run(1000)
    phase("referee menu")
    rig.perform(gestures.end_game(False))
    rig.perform(gestures.new_game())
    rig.perform(gestures.long_press())          # the setup menu
    rig.press(PAUSE)
    rig.press(RIGHT)
    rig.press(LEFT)
    rig.press(PAUSE, hold=2100)                 # saved: a new game
    rig.run(2000)
    phase("setup menu")
    return phases, rig


def digests(phases):
    """Each phase: its name, the sha256 over its transfer lines, the
    transfers, the bytes, the screen and the app's mode at its end."""
    out = []
    for name, lines, screen, mode in phases:
        h = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        n = sum((len(x.split(" ")[1]) // 2) for x in lines)
        out.append([name, h, len(lines), n, screen, mode])
    return out
