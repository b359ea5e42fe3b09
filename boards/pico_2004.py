# Raspberry Pi Pico / Pico W (RP2040) with a 20x4 LCD: the pico.py wiring.
# Copied onto the board as board.py by `make deploy BOARD=pico_2004` (with
# boards/pico.py written into it: the device reads one file).
# docs/wiring/pico_2004.svg shows the wiring.
from pico import *  # noqa: F401,F403  (the wiring and the platform facts)

NAME = "Raspberry Pi Pico / Pico W (RP2040), 20x4 LCD"
LCD_COLS = 20
LCD_ROWS = 4
