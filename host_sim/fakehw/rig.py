# A whole clock on the bench: the real device app on the fake `machine`, with
# an HD44780 + PCF8574 emulator on the I2C bus and a virtual millisecond clock
# that wraps at 2**30 like the boards' ticks.
#
# Runs under CPython and the MicroPython unix port, so the device scenarios
# (tests/test_device.py, tests/mp/test_device_mp.py), the simulator and the
# benchmarks all drive exactly the code that runs on the clock.
import machine
import ticks
from hd44780_emu import Hd44780Pcf8574
from app import App
from view import GLYPH_CHARS

PERIOD = 1 << 30
LEFT = 0
RIGHT = 1
PAUSE = 2


class Rig:
    def __init__(self, board, root, t0=PERIOD - 30000, period=PERIOD, step_ms=5):
        machine.reset_world()
        self.board = board
        self.diff, self.add = ticks.wrapping(period)
        self.now = t0
        self.t0 = t0
        self.step_ms = step_ms
        self.lcd = Hd44780Pcf8574(board.LCD_COLS, board.LCD_ROWS)
        for code in GLYPH_CHARS:  # show CGRAM glyphs as a person reads them
            self.lcd.glyph_char[code] = GLYPH_CHARS[code]
        machine.I2C(board.I2C_ID).attach(board.LCD_ADDR, self.lcd)
        self.app = App(board, machine, None, self.ticks_ms, self.diff, self.add, root)
        self.pins = (machine.pin(board.BTN_LEFT), machine.pin(board.BTN_RIGHT),
                     machine.pin(board.BTN_PAUSE))

    def ticks_ms(self):
        return self.now

    @property
    def clock(self):
        return self.app.clock

    def ms(self):
        """Virtual ms since the rig started (unwrapped)."""
        return self.diff(self.now, self.t0)

    def run(self, ms):
        """Let `ms` pass, running the main loop every step_ms."""
        end = self.add(self.now, ms)
        while self.diff(end, self.now) > 0:
            d = self.diff(end, self.now)
            self.now = self.add(self.now, self.step_ms if d > self.step_ms else d)
            self.app.step()

    def down(self, b, bounce=()):
        """Press button b (0 left, 1 right, 2 pause): the contact closes now,
        then bounces open/closed at the given ms offsets."""
        p = self.pins[b]
        p.drive(0)
        t = 0
        for off in bounce:
            self.now = self.add(self.now, off - t)
            t = off
            p.drive(1 if p.value() == 0 else 0)
        if p.value() != 0:
            p.drive(0)

    def up(self, b):
        self.pins[b].drive(None)

    def press(self, b, hold=80, bounce=()):
        """A whole press: down (with bounce), held `hold` ms, released; the
        main loop keeps running meanwhile."""
        self.down(b, bounce)
        self.run(hold)
        self.up(b)
        self.run(40)  # past the 25 ms release debounce

    def screen(self):
        return self.lcd.text_rows()
