# Raspberry Pi Pico W: the Pico build (boards/pico.py, same pins) with Wi-Fi
# for the tournament hall (firmware/net.py, docs/hall.md).
# Copied onto the board as board.py by `make deploy BOARD=pico_w TABLE=n`
# (with boards/pico.py written into it: the device reads one file).
# docs/wiring/pico_w.svg shows the wiring.
from pico import *  # noqa: F401,F403  (the wiring and the platform facts)

NAME = "Raspberry Pi Pico W (RP2040 + CYW43439 Wi-Fi)"

# Wi-Fi: the app starts firmware/net.py when net.json is on the board.
WIFI = True
