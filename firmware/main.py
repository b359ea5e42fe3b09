# Entry point on the device: MicroPython runs main.py after boot.
# `board.py` is the board file chosen at deploy time (boards/<name>.py).
#
# A hardware watchdog (machine.WDT, on the boards that have one) is fed by the
# main loop: a hang, or a failure that repeats, reboots the clock into its
# restored, paused game (App.run).  rp2 allows at most 8388 ms.  The flash
# work (the journal's arming and folding) feeds it between its slices.
import board
import machine
from app import App

wdt = None
ms = getattr(board, "WDT_MS", 8000)
if ms and hasattr(machine, "WDT"):
    wdt = machine.WDT(timeout=ms)
feed = wdt.feed if wdt is not None else None
# (fed from the restore at power-up on: the journal's flash work feeds it
# between its slices, firmware/session.py)
App(board, machine, feed=feed).run(feed=feed)
