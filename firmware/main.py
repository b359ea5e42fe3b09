# Entry point on the device: MicroPython runs main.py after boot.
# `board.py` is the board file chosen at deploy time (boards/<name>.py).
import board
import machine
from app import App

App(board, machine).run()
