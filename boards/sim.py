# The host simulator's board (host_sim with the fake `machine` module): the
# Pico build (boards/pico.py), whose pins are only ids here.  Everything
# optional is fitted there, so the simulator exercises the buzzer, the LEDs
# and the battery warning too.
from pico import *  # noqa: F401,F403

NAME = "Host simulator (fake machine)"
# No MCU: no pin checks, no wiring picture, no deploy.  The fake machine calls
# a pin's handler at the edge itself, like the RP2040's hard interrupts
# (HARD_IRQ stays True).
MCU = None
# No raw flash: the simulator's files are the PC's, so no journal (a test
# that wants one gives the app a filesystem with a flash model, tests/norfs.py).
RAW_FLASH = None
