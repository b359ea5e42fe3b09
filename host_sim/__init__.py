"""The CPython side of the Scrabble clock: replay tool and simulator.

The device code lives in firmware/ as flat MicroPython modules; the hardware
fakes (machine, the HD44780 + PCF8574 emulator) in host_sim/fakehw/.  Importing
host_sim puts both on sys.path so the very same modules run here.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKEHW = os.path.join(ROOT, "host_sim", "fakehw")
for _p in (FAKEHW, FIRMWARE):
    if _p not in sys.path:
        sys.path.insert(0, _p)
