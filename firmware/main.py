# Entry point on the device: MicroPython runs main.py after boot.
# `board.py` is the board file chosen at deploy time (boards/<name>.py); a
# board file lacking a name it must have stops here with one line saying
# which (boardfacts.py), before any pin is touched.
#
# A hardware watchdog (machine.WDT, the board's WDT_MS; hw.watchdog) is fed
# by the main loop: a hang, or a failure that repeats, reboots the clock into
# its restored, paused game (App.run).  The flash work (the journal's arming
# and folding) feeds it between its slices.
import board
import boardfacts

why = boardfacts.check(board)
if why:
    print(why)
    raise SystemExit
import machine
import hw
from app import App

feed = hw.watchdog(board, machine)
# (fed from the restore at power-up on: the journal's flash work feeds it
# between its slices, firmware/session.py)
App(board, machine, feed=feed).run(feed=feed)
