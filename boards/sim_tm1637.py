# The host simulator's board with the two TM1637 big-digit modules
# (boards/pico_tm1637.py) on the fake machine's pins: `python -m host_sim sim
# --board sim_tm1637` draws them beside the LCD.
from pico_tm1637 import *  # noqa: F401,F403

NAME = "Host simulator (fake machine), 16x2 LCD + 2 x TM1637"
MCU = None
RAW_FLASH = None   # the PC's files: no journal (as boards/sim.py)
