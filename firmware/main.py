# Entry point on the device: MicroPython runs main.py after boot.
# `board.py` is the board file chosen at deploy time (boards/<name>.py).
#
# A hardware watchdog (machine.WDT, on the boards that have one) is fed by the
# main loop: a hang, or a failure that repeats, reboots the clock into its
# restored, paused game (App.run).  rp2 allows at most 8388 ms.
import board
import machine
from app import App

wdt = None
ms = getattr(board, "WDT_MS", 8000)
if ms and hasattr(machine, "WDT"):
    wdt = machine.WDT(timeout=ms)
App(board, machine).run(feed=wdt.feed if wdt is not None else None)
