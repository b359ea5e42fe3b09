# Raspberry Pi Pico / Pico W (RP2040), 16x2 LCD plus two TM1637 4-digit
# 7-segment modules with a colon, one facing each player: the times in
# digits ~14 mm tall (0.56" modules), readable across the hall; the LCD
# keeps the menus, the words and the details (penalties, challenge window).
# Copied onto the board as board.py by `make deploy BOARD=pico_tm1637` (with
# boards/pico.py written into it: the device reads one file).
# docs/wiring/pico_tm1637.svg shows the wiring, boards/README.md the why.
from pico import *  # noqa: F401,F403  (the wiring and the platform facts)

NAME = "Raspberry Pi Pico / Pico W (RP2040), 16x2 LCD + 2 x TM1637"

# The modules: CLK and DIO each on its own GPIO (open-drain, the module's
# 10 k pull-ups; power the modules from 3V3, pin 36, never 5 V: the pull-ups
# would put 5 V on the RP2040's pins).  Left player's module on GP10/GP11
# (pins 14/15, GND on pin 13), right player's on GP20/GP21 (pins 26/27,
# GND on pin 28).
TM_LEFT_CLK = 10
TM_LEFT_DIO = 11
TM_RIGHT_CLK = 20
TM_RIGHT_DIO = 21
TM_BRIGHTNESS = 7   # 0..7 (pulse width 1/16 .. 14/16); 7 for a lit hall

# The display families (firmware/display.py): the LCD for the menus and the
# words, firmware/tm1637.py for the two modules.
DISPLAY = ("hd44780", "tm1637")
