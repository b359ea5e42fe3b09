# The host simulator's board with a 20x4 LCD (`python -m host_sim sim
# --board sim_2004`): the Pico 20x4 build (boards/pico_2004.py) on the fake
# `machine` module, like sim.py.
from pico_2004 import *  # noqa: F401,F403

NAME = "Host simulator (fake machine), 20x4 LCD"
MCU = None  # the fake machine (see sim.py)
RAW_FLASH = None  # no journal on the PC's files (see sim.py)
