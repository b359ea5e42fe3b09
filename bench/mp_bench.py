# The heap figures of `make bench`, measured inside the real MicroPython
# interpreter (the unix port).  bench/run.py starts it as
#
#   MICROPYPATH=<the app as deployed: .mpy + main.py + board.py>:host_sim/fakehw:tests/mp \
#       micropython -X heapsize=1M bench/mp_bench.py STATE_DIR
#
# and reads back the last line, `RESULT {json}`.  Anything that goes wrong
# raises, so the interpreter exits non-zero and the bench fails loudly.
#
# Allocation is counted as tests/mp/mptest.py heap_bytes() does: the larger of
# the gc.mem_alloc() and micropython.mem_total() deltas (mem_alloc alone misses
# the short-lived heap frames MicroPython makes for calls with many locals).
import gc
import json
import os
import sys

import micropython

if not hasattr(micropython, "mem_total"):
    raise SystemExit("this MicroPython has no micropython.mem_total(): cannot count allocations")
mem_total = micropython.mem_total

STATE = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
T0 = (1 << 30) - 5000   # the tick counter wraps 5 s after power-up


def in_use():
    gc.collect()
    return gc.mem_alloc()


def subdir(name):
    path = STATE + "/" + name
    try:
        os.mkdir(path)
    except OSError:
        pass
    return path + "/"


# -- heap after boot -------------------------------------------------------------
bare = in_use()
import board  # noqa: E402  (the deployed board.py: ours)
ours = in_use() - bare
import machine  # noqa: E402  (the fake hardware: not on a real board)
from hd44780_emu import Hd44780Pcf8574  # noqa: E402

machine.reset_world()
emu = Hd44780Pcf8574(board.LCD_COLS, board.LCD_ROWS)
machine.I2C(board.I2C_ID).attach(board.LCD_ADDR, emu)
clock_now = [T0]


def ticks_ms():
    return clock_now[0]


before_app = in_use()
import ticks  # noqa: E402
import app as appmod  # noqa: E402

diff, add = ticks.wrapping(1 << 30)
dev = appmod.App(board, machine, None, ticks_ms, diff, add, subdir("boot"))
while dev.mode == appmod.MODE_SPLASH:
    clock_now[0] = add(clock_now[0], 5)
    dev.step()
    if diff(clock_now[0], T0) > 5000:
        raise SystemExit("the app did not leave its splash screen")
boot = in_use() - before_app + ours
del dev
emu = None
gc.collect()

# -- per-loop allocation on the rig ------------------------------------------------
import clockcore as cc  # noqa: E402
import profiles  # noqa: E402
import lcd as lcdmod  # noqa: E402
from mptest import heap_bytes  # noqa: E402
from rig import Rig  # noqa: E402

rig = Rig(board, subdir("loop"))
app = rig.app
rig.run(2000)
rig.press(0)          # the game starts: the right player's clock runs
rig.run(1234)
rig.press(1)          # right ends a turn: left runs
rig.run(2345)
rig.press(0)          # left ends a turn: right runs, the challenge window counts
if rig.clock.running() != cc.RIGHT or rig.clock.win <= 0:
    raise SystemExit("the rig's game did not start as planned")
rig.run(200)          # the release has settled: no key activity from here on


def measure_steps(n):
    """Run n main-loop iterations 1 ms apart; sort each one's allocation by
    what happened in it: the LCD changed, a checkpoint was saved, or neither."""
    emu = rig.lcd
    store = app.store
    res = [0, 0, 0, 0, 0, 0]  # max steady, max lcd, max checkpoint, counts
    i = 0
    while i < n:
        rig.now = rig.add(rig.now, 1)
        b0 = emu.bytes_received
        w0 = store.writes
        a0 = gc.mem_alloc()
        t0 = mem_total()
        app.step()
        t1 = mem_total()
        a1 = gc.mem_alloc()
        d = t1 - t0
        if a1 - a0 > d:
            d = a1 - a0
        if store.writes != w0:
            k = 2
        elif emu.bytes_received != b0:
            k = 1
        else:
            k = 0
        if d > res[k]:
            res[k] = d
        res[3 + k] += 1
        i += 1
    return res


def noop():
    pass


# The measurement itself must not allocate.
gc.collect()
if heap_bytes(noop, 100) != 0:
    raise SystemExit("the allocation counter is not quiet: cannot measure")
steps = measure_steps(6000)   # 6 s: window countdown, 6 second boundaries, a checkpoint
if steps[3] < 1000 or steps[4] < 5:
    raise SystemExit("too few quiet (%d) or display-changing (%d) iterations" % (steps[3], steps[4]))

notes = []
c = rig.clock
lcdfam = app.display.text.fam    # the HD44780 family (hd44780.py)
rows = lcdfam.screen.buf
parts = (
    ("Buttons.poll", lambda: app.buttons.poll(rig.now)),
    ("Gestures.next", lambda: app.gestures.next(rig.now)),
    ("Clock.update", lambda: c.update(rig.now)),
    ("Frame.fill", lambda: app.frame.fill(c)),
    ("View.render", lambda: lcdfam.screen.render(app.frame)),
    ("Leds.show", lambda: app.leds.show(c.running())),
    ("Lcd.show (unchanged row)", lambda: lcdfam.lcd.show(0, rows[0])),
    ("Buzzer.update", lambda: app.buzzer.update(rig.now)),
    ("Battery.update", lambda: app.battery.update(rig.now)),
)
found = []
for name, fn in parts:
    b = heap_bytes(fn, 50) // 50
    if b:
        found.append("%s %d" % (name, b))
if steps[0]:
    notes.append("where a quiet App.step() allocates (bytes per call): %s; the rest is "
                 "App.step's own frame (MicroPython puts frames of more than 11 words "
                 "on the heap)" % (", ".join(found) if found else "none of its callees"))
notes.append("a checkpoint iteration (StateStore.save, every 4 s of running time) "
             "allocated up to %d bytes" % steps[2])

# -- the baseline: a naive main loop ------------------------------------------------------


class NaiveLoop:
    """What a first MicroPython clock looks like: format the rows as strings
    every iteration, encode them, hand them to the (change-only) driver."""

    def __init__(self, clock, lcd, ticks_ms):
        self.clock = clock
        self.lcd = lcd
        self.ticks_ms = ticks_ms

    def step(self):
        now = self.ticks_ms()
        c = self.clock
        c.update(now)
        left = (c.rem[0] + 999) // 1000
        right = (c.rem[1] + 999) // 1000
        top = "%02d:%02d      %02d:%02d" % (left // 60, left % 60, right // 60, right % 60)
        bottom = "     CHL %2d     " % ((c.win + 999) // 1000)
        self.lcd.show(0, top.encode())
        self.lcd.show(1, bottom.encode())


naive_emu = Hd44780Pcf8574(16, 2)
machine.I2C(3).attach(0x27, naive_emu)
naive_clock = cc.Clock(profiles.make_rules("sdev"), rig.now, rig.diff, rig.add)
naive_clock.press(0, rig.now)
naive = NaiveLoop(naive_clock, lcdmod.Lcd(machine.I2C(3), 0x27, 16, 2), rig.ticks_ms)


# The emulator's own share of a transfer (16 set-DDRAM-address instructions).
probe = bytearray(b"\x8c\x88\x0c\x08" * 16)
emu_alloc = heap_bytes(lambda: naive_emu.writeto(probe), 20) // 20
if emu_alloc:
    notes.append("the LCD emulator itself allocates %d bytes per transfer (included above)"
                 % emu_alloc)


def naive_step():
    rig.now = rig.add(rig.now, 1)
    naive.step()


n = 500
naive_per_loop = heap_bytes(naive_step, n) // n

gc.collect()
print("RESULT " + json.dumps({
    "heap_in_use_at_end": gc.mem_alloc(), "heap_free_at_end": gc.mem_free(),
    "steady": steps[0], "second": steps[1], "checkpoint": steps[2],
    "loops_steady": steps[3], "loops_second": steps[4], "loops_checkpoint": steps[5],
    "naive": naive_per_loop, "boot": boot, "bare": bare, "notes": notes,
}))
