"""On-target figures (issue 11): the deployed bundle on the emulated Pico.

The official MicroPython RPI_PICO v1.28.0 image on rp2040js at 125 MHz
(host_sim/target.py, target/harness.js), booted from a littlefs image of what
`make deploy BOARD=pico` copies.  Two runs:

1. main.py runs the app as on a real clock; a game is started with the left
   key and played with a press every 10 s.  The harness counts the flash
   erases and page programs (NOR-flash model) and the emulated core's busy
   and sleeping time while a clock runs.
2. Ctrl-C at the REPL, then App(board, machine).step() in a counted loop
   (gc disabled, so no collection hides an allocation): iterations per
   simulated second and heap bytes per iteration while a clock runs (the
   window holds a turn-ending press, its log line and checkpoints), the
   heap a checkpoint (Session.save) and an event's log line (Session.event)
   take while the clock runs (records in the journal on the board's own
   flash, firmware/journal.py), and the free heap once the app has booted.
"""
import os
import re
import tempfile

from host_sim import target

LEFT, RIGHT = 14, 15
RUN_MS = 40000          # the running-clock window of run 1 (simulated)
PRESS_EVERY_MS = 10000

STEP_CODE = """\
import gc
gc.collect()
print('BARE', gc.mem_free())
import time, board, machine
from app import App
import clockcore as cc
a = App(board, machine)
def run(ms):
    n = 0
    gc.collect()
    gc.disable()
    m0 = gc.mem_alloc()
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms:
        a.step()
        n += 1
    m1 = gc.mem_alloc()
    gc.enable()
    return n, m1 - m0
s = run(2000)
gc.collect()
print('FREE', gc.mem_free())
r = run(6000)
print('RUN', r[0], r[1], a.clock.running())
def alloc(fn, k):
    gc.collect()
    gc.disable()
    m0 = gc.mem_alloc()
    for i in range(k):
        fn()
    m1 = gc.mem_alloc()
    gc.enable()
    return (m1 - m0) // k
c = a.clock
s = a.session
print('JOURNAL', 1 if s.j is not None and s.j.ok else 0, c.running())
print('SAVE', alloc(lambda: s.save(time.ticks_ms()), 10))
print('LOGLINE', alloc(lambda: s.event(cc.EV_WINDOW, 0, time.ticks_ms(), 0), 10))
print('END', 'OK')
"""


def _paste(pico, code):
    pico.type_serial(b"\x05")                        # paste mode
    pico.type_serial(code.replace("\n", "\r\n").encode())
    pico.type_serial(b"\x04")


def _game_run(img, flash, res):
    """Run 1: main.py plays a game; flash and CPU figures while a clock runs."""
    pico = target.Pico(flash, fs_image=img).start()
    try:
        pico.run_to(2400)
        if pico.lcd.text_rows()[1].strip() != "READY":
            raise RuntimeError("the app did not boot: %r" % pico.lcd.text_rows())
        pico.press(LEFT, 2500)
        t = 4000
        pico.run_to(t)
        a = pico.stats()
        side = RIGHT
        while t < 4000 + RUN_MS:
            pico.press(side, t + PRESS_EVERY_MS // 2)
            side = LEFT if side == RIGHT else RIGHT
            t += PRESS_EVERY_MS
            pico.run_to(t)
        b = pico.stats()
    finally:
        pico.stop()
    res["erases"] = b["erases"] - a["erases"]
    res["programs"] = b["programs"] - a["programs"]
    res["run_ms"] = b["t_ms"] - a["t_ms"]
    busy = b["busy_ns"] - a["busy_ns"]
    res["busy"] = busy / float(busy + b["wait_ns"] - a["wait_ns"])


def _step_run(img, flash, res):
    """Run 2: App.step() counted at the REPL (see the module's docstring)."""
    pico = target.Pico(flash, fs_image=img).start()
    try:
        pico.run_to(300)
        pico.write_serial(b"\x03\x03")     # stop main.py during its splash
        pico.run_to(600)
        n0 = len(pico.serial)
        _paste(pico, STEP_CODE)
        # the counted 6 s window starts ~2 s after the code: the game starts
        # in it with a press of the left key
        pico.press(LEFT, pico.t_ms + 3500)
        deadline = pico.t_ms + 30000
        while b"END OK" not in pico.serial[n0:] and pico.t_ms < deadline:
            pico.run_to(pico.t_ms + 1000)
        out = pico.serial[n0:].decode(errors="replace")
    finally:
        pico.stop()
    m = {k: re.search(r"^%s (.*)$" % k, out, re.M)
         for k in ("BARE", "FREE", "RUN", "JOURNAL", "SAVE", "LOGLINE")}
    if not all(m.values()):
        raise RuntimeError("the REPL measurement did not finish:\n" + out[-1500:])
    res["free_after_boot"] = int(m["FREE"].group(1).split()[0])
    res["free_bare"] = int(m["BARE"].group(1).split()[0])
    n, alloc, running = (int(x) for x in m["RUN"].group(1).split()[:3])
    if running < 0:
        raise RuntimeError("no clock ran in the counted window")
    res["iterations_per_s"] = n / 6.0
    res["heap_per_iteration"] = alloc / float(n)
    res["heap_run_window"] = alloc
    journal_on, running = (int(x) for x in m["JOURNAL"].group(1).split()[:2])
    if not journal_on or running < 0:
        raise RuntimeError("no journal, or no clock ran, for the checkpoint figures:\n" + out[-1500:])
    res["heap_per_save"] = int(m["SAVE"].group(1).split()[0])
    res["heap_per_log_line"] = int(m["LOGLINE"].group(1).split()[0])


def measure(game=True, steps=True):
    """A dict of the on-target figures; raises RuntimeError if the target
    cannot run (target.pico_missing() says why)."""
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    res = {}
    with tempfile.TemporaryDirectory(prefix="pico-bench-") as d:
        img = os.path.join(d, "fs.img")
        with open(img, "wb") as f:
            f.write(target.bundle_image(d))
        if game:
            _game_run(img, os.path.join(d, "flash.bin"), res)
        if steps:
            _step_run(img, os.path.join(d, "flash2.bin"), res)
    return res


if __name__ == "__main__":
    import sys
    for k, v in sorted(measure(game="steps" not in sys.argv[1:]).items()):
        print(k, v)
