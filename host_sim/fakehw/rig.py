# A whole clock on the bench: the real device app on the fake `machine`, with
# an HD44780 + PCF8574 emulator on the I2C bus and a virtual millisecond clock
# that wraps at 2**30 like the boards' ticks.
#
# Runs under CPython and the MicroPython unix port, so the device scenarios
# (tests/test_device.py, on both interpreters), the simulator and the
# benchmarks all drive exactly the code that runs on the clock.
import machine
import ticks
try:
    import _thread
except ImportError:           # (a MicroPython port without threads)
    _thread = None
from app import App
import display as dispmod
import lcd as lcdmod

PERIOD = 1 << 30
LEFT = 0
RIGHT = 1
PAUSE = 2

# -- the gestures of the quick-reference cards, as data -----------------------
# A gesture is a list of (ms from its start, button, 1 = down / 0 = up), in
# time order.  Rig.perform() plays one in virtual time; the terminal
# simulator schedules the same lists in its own timeline, so every tool
# makes exactly the gestures the cards describe (SPEC v3 §4: each key acts at
# its press; a gesture is keys held together, and undoes what its keys did).
TAP_MS = 80
LONG_MS = 2100      # past the 2 s long press
CONFIRM_MS = 1100   # both player buttons, past the 1 s confirmation
REFEREE_MS = 3100   # the referee's three keys, past 3 s
SETTLE_MS = 60      # a release is known debounce_ms after its edge


def tap(b, hold=TAP_MS):
    return [(0, b, 1), (hold, b, 0)]


def long_press():
    """The pause key held 2 s alone: the setup menu (ready), the END?
    question (paused), the NEW GAME? question (over)."""
    return tap(PAUSE, LONG_MS)


def confirm():
    """Both player buttons held 1 s, the pause key up: yes."""
    return [(0, LEFT, 1), (20, RIGHT, 1), (CONFIRM_MS + 20, LEFT, 0),
            (CONFIRM_MS + 20, RIGHT, 0)]


def referee(order=(PAUSE, LEFT, RIGHT), gap=40, hold=REFEREE_MS):
    """The referee's gesture: the three keys `gap` ms apart in `order` (any
    order; the first to the last within 2 s, SPEC v4: gap <= 1000), all held
    `hold` ms from the last one."""
    out = []
    for i in range(3):
        out.append((i * gap, order[i], 1))
    end = 2 * gap + hold
    for b in order:
        out.append((end, b, 0))
    return out


def late(present):
    """The present player: the pause key and their own button held together
    2 s (here the pause key first); the absent opponent's clock runs from
    the first press."""
    return [(0, PAUSE, 1), (100, present, 1), (100 + LONG_MS, present, 0),
            (100 + LONG_MS, PAUSE, 0)]


def end_game(running):
    """End a game as the cards say: stop the clock (if it runs), hold the
    pause key 2 s, then confirm with both player buttons."""
    out = []
    t = 0
    if running:
        out = tap(PAUSE)
        t = 400
    for off, b, lv in long_press() + [(LONG_MS + 300 + o, b2, l2) for o, b2, l2 in confirm()]:
        out.append((t + off, b, lv))
    return out


def new_game():
    """Leave the final screen: hold the pause key 2 s, then confirm."""
    return end_game(False)


def menu_pick(rig, item):
    """In the referee menu: short pause presses until `item` is shown."""
    for _ in range(12):
        if rig.app.menu.item == item:
            return
        rig.press(PAUSE)
    raise AssertionError("no such menu item %d" % item)


def attach_displays(board):
    """{family: its emulator}, each attached to the fake machine."""
    return {n: __import__(n + "_emu").attach(board, machine) for n in dispmod.names(board)}


# The fake machine is one world per process (its pins, buses, wires and
# unique id are module globals), which a rig's construction resets and
# fills: the app takes its pins and buses from it, and the rig its buttons.
# Rigs built on several threads at once (make bench runs the hall's rounds
# side by side, each a fleet of simulated clocks) must not interleave
# there, or one clock's rig drives another clock's buttons (its own app
# never sees a press).  Once built, each rig holds its own objects.
_BUILDING = _thread.allocate_lock() if _thread is not None else None


class Rig:
    def __init__(self, board, root, t0=PERIOD - 30000, period=PERIOD, step_ms=5, fs=None,
                 feed=None, uid=None):
        if _BUILDING is None:
            self._build(board, root, t0, period, step_ms, fs, feed, uid)
            return
        _BUILDING.acquire()
        try:
            self._build(board, root, t0, period, step_ms, fs, feed, uid)
        finally:
            _BUILDING.release()

    def _build(self, board, root, t0, period, step_ms, fs, feed, uid):
        machine.reset_world()
        if uid is not None:       # this board's machine.unique_id()
            machine.set_unique_id(uid)
        self.board = board
        self.diff, self.add = ticks.wrapping(period)
        self.now = t0
        self.t0 = t0
        self.step_ms = step_ms
        # each display family's emulator, host_sim/fakehw/<family>_emu.py
        # (display.py's contract); self.lcd: the HD44780's, if the board has one
        self.emus = attach_displays(board)
        self.lcd = self.emus.get("hd44780")
        # The LCD driver's init delays (about 60 ms) pass in virtual time,
        # and none at all while the app is built (virtual time starts when
        # the app's main loop does, as the scenarios and replays count it).
        self._booting = True
        lcdmod.sleep_ms = self._sleep
        self.app = App(board, machine, fs, self.ticks_ms, self.diff, self.add, root,
                       feed=feed)
        self._booting = False
        self.pins = (machine.pin(board.BTN_LEFT), machine.pin(board.BTN_RIGHT),
                     machine.pin(board.BTN_PAUSE))

    def ticks_ms(self):
        return self.now

    def _sleep(self, ms):
        if not self._booting:
            self.now = self.add(self.now, ms)

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

    def press(self, b, hold=TAP_MS, bounce=()):
        """A whole press: down (with bounce), held `hold` ms, released; the
        main loop keeps running meanwhile until the release has settled."""
        self.down(b, bounce)
        self.run(hold)
        self.up(b)
        self.run(SETTLE_MS - hold if hold < SETTLE_MS - 40 else 40)

    def perform(self, gesture, settle=SETTLE_MS):
        """Play a gesture (a list of (ms, button, level)), then let it be
        decided."""
        t = 0
        for off, b, level in gesture:
            if off > t:
                self.run(off - t)
                t = off
            if level:
                self.down(b)
            else:
                self.up(b)
        self.run(settle)

    def screen(self):
        return self.lcd.text_rows()
