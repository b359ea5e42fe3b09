# The buttons test bench of tests/test_buttons.py, which runs on CPython and
# inside the real MicroPython interpreter: three fake
# pins, a virtual clock in microseconds behind the injected ticks_ms (wrapped
# at the boards' 2**30 ms and started just before the wrap, so every scenario
# crosses it), and the real Buttons and Gestures.
import machine
import ticks
import buttons as B
import gestures as G

PERIOD = 1 << 30
DIFF, ADD = ticks.wrapping(PERIOD)
START_MS = PERIOD - 1500          # the wrap comes 1.5 s into every scenario
L, R, P = B.BTN_LEFT, B.BTN_RIGHT, B.BTN_PAUSE


class Rig:
    """Three fake pins, a virtual clock, Buttons and Gestures."""

    def __init__(self, debounce_ms=25, long_ms=2000, referee_ms=3000, start_ms=START_MS,
                 hard=False, confirm_ms=1000):
        machine.reset_world()
        self.us = 0
        self.start = start_ms
        self.pins = tuple(machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (14, 15, 16))
        self.b = B.Buttons(self.pins, self.ticks_ms, DIFF, debounce_ms, hard)
        self.g = G.Gestures(self.b, DIFF, long_ms, referee_ms, confirm_ms, add=ADD)
        self.actions = []          # (action, t_ms_relative, seen_at_ms_relative)
        self.groups = []           # (action name, t0 relative, key): each action that
                                   # opened a group, and each REGROUP

    # -- the clock ----------------------------------------------------------
    def ticks_ms(self):
        return ADD(self.start, self.us // 1000)

    def ms(self, rel_ms):
        """Absolute (wrapped) tick value of a scenario time."""
        return ADD(self.start, rel_ms)

    def rel(self, t):
        return DIFF(t, self.start)

    def at(self, ms):
        us = int(ms * 1000 + 0.5)
        assert us >= self.us, "time goes forward"
        self.us = us

    # -- the outside world --------------------------------------------------
    def press(self, i, ms=None):
        if ms is not None:
            self.at(ms)
        self.pins[i].drive(0)

    def release(self, i, ms=None):
        if ms is not None:
            self.at(ms)
        self.pins[i].drive(None)

    def bounce(self, i, ms, final, gaps_ms):
        """Edges on pin i starting at ms, alternating towards `final` (0 =
        pressed), spaced by gaps_ms; the last one leaves the level at final."""
        self.at(ms)
        n = len(gaps_ms) + 1
        level = final if n % 2 else 1 - final
        self.pins[i].drive(None if level else 0)
        t = ms
        for g in gaps_ms:
            t += g
            level = 1 - level
            self.at(t)
            self.pins[i].drive(None if level else 0)
        assert level == final
        return t

    # -- the main loop --------------------------------------------------------
    def loop(self, until_ms, every_ms=1):
        """Run the main loop from now to until_ms, every every_ms."""
        t = self.us / 1000
        while True:
            self.drain()
            if t >= until_ms:
                break
            t = min(t + every_ms, until_ms)
            self.at(t)

    def drain(self):
        now = self.ticks_ms()
        while True:
            a = self.g.next(now)
            if a == G.NONE:
                return
            self.actions.append((a, self.rel(self.g.t), self.rel(now)))
            if self.g.opened or a == G.REGROUP:
                self.groups.append((G.ACTION_NAMES[a], self.rel(self.g.t0), self.g.key))

    def names(self, ups=False):
        """The actions (name, t); a key let go while another stays down
        (UP, SPEC v5: the questions' answers count them) only with `ups`."""
        return [(G.ACTION_NAMES[a], t) for a, t, _ in self.actions if ups or a != G.UP]

    def events(self):
        """Raw Buttons events (bypassing Gestures): [(button, kind, t)]."""
        out = []
        self.b.poll(self.ticks_ms())
        while True:
            c = self.b.get()
            if c < 0:
                return out
            out.append((self.b.i, self.b.kind, self.rel(self.b.t)))

    def raw_loop(self, until_ms, every_ms=1):
        evs = []
        t = self.us / 1000
        while True:
            evs += self.events()
            if t >= until_ms:
                return evs
            t = min(t + every_ms, until_ms)
            self.at(t)
