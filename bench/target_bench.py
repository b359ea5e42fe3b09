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
3. (issue 20) main.py with its watchdog on a fresh flash whose erases and
   page programs take the W25Q16's datasheet maxima: the first power-up,
   a game with stops, its end; the harness times the watchdog's feeds.
4. (issue 20) At the REPL, the app's main loop as App.run has it (step,
   then the sleep _pause_ms() asks, cut short by a key's edge), measured
   over a game of 40 player presses and 30 stops at the flash's typical
   times: collections (drops of gc.mem_alloc()), the idle, press and stop
   step costs, when the flash work starts in a stop step, and how long a
   button edge driven into a page program waits for interrupts.

5. (issue 30) main.py plays a game of the `custom` profile with one
   minute a side, a 20 s challenge window and a forfeit at 60 s of
   overtime; nobody presses after the first move, so every change on the
   LCD for two minutes is time-triggered: each second of the running side,
   the window's seconds and its end, the flag with -00:01, the penalty,
   the forfeit.  The harness dates every I2C transfer to the LCD: how late
   each change was drawn after its instant.

    python -m bench.target_bench [game] [steps] [wdt] [stops] [timed]
    python -m bench.target_bench tm1637     run 2 on boards/pico_tm1637.py
"""
import os
import re
import tempfile

from host_sim import target

LEFT, RIGHT, PAUSE = 14, 15, 13
RUN_MS = 40000          # the running-clock window of run 1 (simulated)
BUSY_GOAL = 0.15        # issue 30: the core's busy share while a clock runs (a battery)
PRESS_EVERY_MS = 10000

# App.step() run for ms at the device's REPL, its iterations and the heap
# they allocated (gc off): STEP_CODE's and bench/answer_bench.py's; and
# idle(ms), the app's own loop for ms (a step, then the sleep it asks for,
# as App.run has it), to bring the app where a count begins: stepping
# back to back there kept the emulated core busy for seconds that measured
# nothing (half the CPU of these runs)
RUN_FN = """\
def idle(ms):
    t0 = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t0) < ms:
        a.step()
        now = time.ticks_ms()
        a._sleep(a.nap, now, a._pause_ms(now))
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
"""
STEP_CODE = """\
import gc
gc.collect()
print('BARE', gc.mem_free())
import time, board, machine
from app import App
import clockcore as cc
a = App(board, machine)
""" + RUN_FN + """idle(2000)
j = a.session.sp.j
while j is not None and j.arming():
    idle(500)
print('ARMED', 1 if j is not None and j.ok else 0)
idle(1500)
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
print('JOURNAL', 1 if s.sp.j is not None and s.sp.j.ok else 0, c.running())
print('SAVE', alloc(lambda: s.save(time.ticks_ms()), 10))
print('LOGLINE', alloc(lambda: s.event(cc.EV_WINDOW, 0, time.ticks_ms(), 0), 10))
print('END', 'OK')
"""


def _paste(pico, code):
    pico.type_serial(b"\x05")                        # paste mode
    pico.type_serial(code.replace("\n", "\r\n").encode())
    pico.type_serial(b"\x04")


def at_repl(pico, code):
    """Stop main.py during its splash and paste `code` at the REPL; where
    its output starts in pico.serial."""
    pico.run_to(300)
    pico.write_serial(b"\x03\x03")
    pico.run_to(600)
    n0 = len(pico.serial)
    _paste(pico, code)
    return n0


def _game_run(img, flash, res):
    """Run 1: main.py plays a game; flash and CPU figures while a clock runs."""
    pico = target.Pico(flash, fs_image=img).start()
    try:
        pico.run_to_ready()
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


def _step_run(img, flash, res, **pico_kw):
    """Run 2: App.step() counted at the REPL (see the module's docstring)."""
    pico = target.Pico(flash, fs_image=img, **pico_kw).start()
    try:
        n0 = at_repl(pico, STEP_CODE)
        # the counted 6 s window starts ~1.5 s after the journal is armed
        # (a game begun before that, in the first seconds after power-up,
        # writes its records to the files: its log file opened, ~3.4 KB
        # once); the game starts in it with a press of the left key
        deadline = pico.t_ms + 30000
        while b"ARMED" not in pico.serial[n0:] and pico.t_ms < deadline:
            pico.run_to(pico.t_ms + 100)
        pico.press(LEFT, pico.t_ms + 3000)
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


# == issue 20: stops, the watchdog, edges in flash work ============================

WDT_RUN_PRESSES = 6

def _wdt_run(img, flash, res):
    """Run 3: main.py with its watchdog on a fresh flash whose erases and
    page programs take the W25Q16's datasheet maxima (400 ms, 3 ms): the
    first power-up sets the journal up (41 erases), a game with stops, its
    end (the journal folded into the files), a new game.  The harness times
    the watchdog's feeds and counts its triggers."""
    pico = target.Pico(flash, fs_image=img, erase_ms=target.Pico.ERASE_MS[1],
                       program_us=target.Pico.PROGRAM_US[1]).start()
    try:
        t = 3000
        pico.run_to(t)
        # the journal is set up in ready, a block a step (~20 s at the maxima)
        while not pico.shows(target.ready_words()) or t < 24000:
            t += 1000
            pico.run_to(t)
            if t > 60000:
                raise RuntimeError("the app did not come up: %r" % pico.lcd.text_rows())
        side = LEFT
        for k in range(WDT_RUN_PRESSES):
            pico.press(side, t)
            side = RIGHT if side == LEFT else LEFT
            t += 1500
            if k % 3 == 2:
                pico.press(PAUSE, t)          # a stop ...
                pico.press(PAUSE, t + 800)    # ... and on
                t += 1600
        pico.press(PAUSE, t)                  # the end: stop, END? hold, confirm
        long_pause(pico, t + 600)
        both_keys(pico, t + 3200)
        t += 5000
        pico.run_to(t)
        if pico.lcd.text_rows()[1].strip() != "END":
            raise RuntimeError("the game did not end: %r" % pico.lcd.text_rows())
        pico.run_to(t + 8000)                 # over: folded meanwhile
        st = pico.stats()
    finally:
        pico.stop()
    res["wdt_max_gap_ms"] = st["wdt_max_gap_us"] / 1000.0
    res["wdt_triggers"] = st["wdt_triggers"]
    res["wdt_feeds"] = st["wdt_feeds"]
    res["wdt_erases"] = st["erases"]
    res["wdt_busy_ms"] = st["flash_busy_us"] // 1000


def long_pause(pico, at):
    pico.press(PAUSE, at, bounce=(), hold_ms=2100)


def stopped_turns(pico, t, n, gap_ms, side, other):
    """n turns from simulated ms t: the mover's press, then a stop (the
    pause key, and again to resume), gap_ms apart, the sides taking turns
    from `side`; the ms after the last."""
    for _k in range(n):
        pico.press(side, t)
        side, other = other, side
        pico.press(PAUSE, t + gap_ms)
        pico.press(PAUSE, t + 2 * gap_ms)
        t += 3 * gap_ms
    return t


def both_keys(pico, at):
    pico.run_to(at)
    pico.pin(LEFT, 0)
    pico.run_to(at + 20)
    pico.pin(RIGHT, 0)
    pico.run_to(at + 1150)
    pico.pin(LEFT, 1)
    pico.pin(RIGHT, 1)


GAME_PRESSES = 40       # player presses in run 4 (a game's forty) ...
GAME_STOPS = 30         # ... and stops (a pause, then a resume)
GAME_GAP_MS = 500       # between them (the lock-out, 500 ms, is the other side's)
EDGE_IN_FLASH_EVERY = 6    # every 6th stop's pause edge lands in a page program (5 in
                           # the game; each waits up to seconds for the next checkpoint)

GAME_CODE = """\
import gc, time, board, machine
from app import App
import clockcore as cc
a = App(board, machine)
c = a.clock
S = [0] * 16
# 0 steps 1 drops 2 idle max us 3 press max 4 stop max 5 idle sum 6 idle n
# 7 press draw max (step start to the flash work after the draw) 8 stop draw max 9 mark
# 10 stop n 11 press n 12 flash mark 13 running-game steps
orig = a._flash
def tflash(now, mode):
    S[12] = time.ticks_us()
    orig(now, mode)
a._flash = tflash
def one():
    st = c.state
    sd = c.side
    t0 = time.ticks_us()
    a.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    dd = time.ticks_diff(S[12], t0)
    if c.state != st and (st == cc.RUNNING or st == cc.PAUSED):
        S[10] += 1
        if dt > S[4]:
            S[4] = dt
        if dd > S[8]:
            S[8] = dd
    elif st == cc.RUNNING and c.state == cc.RUNNING and c.side != sd:
        S[11] += 1
        if dt > S[3]:
            S[3] = dt
        if dd > S[7]:
            S[7] = dd
    elif st == cc.RUNNING:
        S[5] += dt
        S[6] += 1
        if dt > S[2]:
            S[2] = dt
def pause():
    now = time.ticks_ms()
    a._sleep(a.nap, now, a._pause_ms(now))
def game():
    while c.state == cc.READY:
        a.step()
        pause()
    gc.collect()
    last = gc.mem_alloc()
    low = last
    while c.state != cc.OVER:
        one()
        S[0] += 1
        m = gc.mem_alloc()
        if m < last:
            S[1] += 1
        last = m
        pause()
    S[13] = last - low
game()
print('GAME', ' '.join(str(x) for x in S))
print('END', 'OK')
"""


def _stops_run(img, flash, res):
    """Run 4: at the REPL, the app's main loop as App.run has it (step,
    then the sleep _pause_ms() asks, App._sleep), measured: a game of GAME_PRESSES
    player presses and GAME_STOPS stops (a pause and a resume each) driven
    through the GPIOs, with the W25Q16's typical times (45 ms an erase,
    0.4 ms a page program).  gc.mem_alloc() after every step (a drop is a
    collection) and each step's cost: idle (a running clock, nothing
    pressed), press (the turn changes), stop (the state changes: pause,
    resume, end); and how long after the step began the flash work after
    the draw began (the step's records programmed, then everything drawn,
    by then).  Some pause presses are driven at the start
    of a flash page program (the press record of the turn before): the
    harness times how long that edge waits for interrupts."""
    pico = target.Pico(flash, fs_image=img, erase_ms=target.Pico.ERASE_MS[0],
                       program_us=target.Pico.PROGRAM_US[0]).start()
    try:
        n0 = at_repl(pico, GAME_CODE)
        t = pico.t_ms + 6000                  # booted, the journal set up
        pico.run_to(t)
        side = LEFT
        stops = 0
        for k in range(GAME_PRESSES):
            pico.press(side, t)
            side = RIGHT if side == LEFT else LEFT
            t += GAME_GAP_MS
            if stops < GAME_STOPS and (k % 4 != 3):
                if stops % EDGE_IN_FLASH_EVERY == 0:
                    # the pause key's edge at the start of the next page
                    # program (a checkpoint of the running clock: the battery
                    # loop programs the press's own record in its step), the
                    # rest of the schedule from there
                    pico.run_to(t - GAME_GAP_MS + 50)
                    e0 = pico.stats()["edges"]
                    pico.pin_at_flash(PAUSE, 0)
                    while pico.stats()["edges"] == e0 and pico.t_ms < t + 6000:
                        pico.run_to(pico.t_ms + 20)
                    t = pico.t_ms + 100
                    pico.run_to(t)
                    pico.pin(PAUSE, 1)      # (held from the program on)
                else:
                    pico.press(PAUSE, t)
                pico.press(PAUSE, t + GAME_GAP_MS)
                stops += 1
                t += 2 * GAME_GAP_MS
        pico.run_to(t)
        on = pico.stats()                     # the edges while the game was on
        pico.press(PAUSE, t)
        long_pause(pico, t + 600)
        both_keys(pico, t + 3200)
        t += 5000
        deadline = t + 30000
        while b"END OK" not in pico.serial[n0:] and pico.t_ms < deadline:
            pico.run_to(pico.t_ms + 1000)
        st = pico.stats()
        out = pico.serial[n0:].decode(errors="replace")
    finally:
        pico.stop()
    m = re.search(r"^GAME (.*)$", out, re.M)
    if not m:
        raise RuntimeError("the game run did not finish:\n" + out[-1500:])
    S = [int(x) for x in m.group(1).split()]
    if S[11] < GAME_PRESSES - 2 or S[10] < 2 * GAME_STOPS:
        raise RuntimeError("the game run missed presses or stops (%d presses, %d stops)"
                           % (S[11], S[10]))
    res["game_steps"] = S[0]
    res["gc_per_game"] = S[1]
    res["game_heap_growth"] = S[13]
    res["idle_step_ms"] = S[5] / 1000.0 / max(S[6], 1)
    res["idle_step_max_ms"] = S[2] / 1000.0
    res["press_step_ms"] = S[3] / 1000.0
    res["stop_step_ms"] = S[4] / 1000.0
    res["press_draw_ms"] = S[7] / 1000.0
    res["stop_draw_ms"] = S[8] / 1000.0
    res["game_presses"] = S[11]
    res["game_stops"] = S[10]
    res["edges_in_flash"] = on["edges_in_flash"]
    res["edge_max_wait_ms"] = on["edge_max_wait_us"] / 1000.0
    res["edges_in_flash_all"] = st["edges_in_flash"]
    res["edge_max_wait_all_ms"] = st["edge_max_wait_us"] / 1000.0


# == issue 30: time-triggered changes ============================================

TIMED_SETTINGS = (b'{"v": 1, "profile": "custom", "base_left": 60000, "base_right": 60000, '
                  b'"lang": "en", "sound": false, "zero": "overtime", "penalty": 10, '
                  b'"forfeit": 60, "window": 20000}')
TIMED_PRESS_MS = 3000   # the game starts: the right side runs ...
TIMED_MOVE_MS = 4500    # ... and ends its turn: the left side's minute starts
TIMED_SECONDS = 121     # its minute, then 61 s of overtime: the forfeit
SETTLE_MS = 200         # a row's change is drawn within this (else: not drawn)


def _timed_run(d, flash, res):
    """Run 5: how late the LCD shows time-triggered changes (module doc).
    The right side's move starts the left side's clock and the challenge
    window at its edge, a whole ms; from then on something changes at every
    whole second after it: row 0 (the running side's time; the flag at
    61 s) at each, row 1 (the window's seconds to 20 s, the penalty at
    61 s, LOST at 121 s) at some.  A row's change is dated by the last
    transfer that changed it (the row then shows it whole)."""
    sub = os.path.join(d, "timed")
    os.makedirs(sub)
    img = os.path.join(sub, "fs.img")
    with open(img, "wb") as f:
        f.write(target.bundle_image(sub, extra={"settings.json": TIMED_SETTINGS}))
    pico = target.Pico(flash, fs_image=img, lcd_times=True).start()
    trace = []
    try:
        pico.run_to_ready()
        pico.on_lcd = lambda us: trace.append((us, pico.lcd.text_rows()))
        pico.press(LEFT, TIMED_PRESS_MS, bounce=())    # right runs
        t = TIMED_MOVE_MS
        pico.run_to(t)
        pico.pin(RIGHT, 0)                   # the edge: left's minute starts
        pico.run_to(t + 100)
        pico.pin(RIGHT, 1)
        s0 = pico.stats()
        end = t + 1000 * TIMED_SECONDS + 1000
        while pico.t_ms < end:
            pico.run_to(min(pico.t_ms + 5000, end))
        rows = pico.lcd.text_rows()
        st = pico.stats()
    finally:
        pico.stop()
    if "LOST" not in rows[1]:
        raise RuntimeError("the left side did not forfeit: %r" % rows)
    late = []           # (k, row, ms late)
    for k in range(1, TIMED_SECONDS + 1):
        x = (t + 1000 * k) * 1000
        before = [e for e in trace if e[0] < x]
        after = [e for e in trace if x <= e[0] < x + SETTLE_MS * 1000]
        if not before:
            raise RuntimeError("nothing on the LCD before second %d" % k)
        for r in (0, 1):
            shown = before[-1][1][r]
            last = None
            for us, text in after:
                if text[r] != shown:
                    last = us
                    shown = text[r]
            if last is not None:
                late.append((k, r, (last - x) / 1000.0))
            elif r == 0:
                raise RuntimeError("second %d: the running side's time was not drawn "
                                   "within %d ms" % (k, SETTLE_MS))
    res["timed_late_ms"] = [v for _k, _r, v in late]
    res["timed_changes"] = len(late)
    res["timed_flag_ms"] = max(v for k, r, v in late if k == 61)
    res["timed_forfeit_ms"] = max(v for k, r, v in late if k == TIMED_SECONDS)
    window = [v for k, r, v in late if k <= 20 and r == 1]
    if len(window) != 20:
        raise RuntimeError("the challenge window's seconds were drawn %d times, not 20"
                           % len(window))
    res["timed_window_ms"] = max(window)
    busy = st["busy_ns"] - s0["busy_ns"]
    res["timed_busy"] = busy / float(busy + st["wait_ns"] - s0["wait_ns"])


def tm1637_steps():
    """Run 2 on boards/pico_tm1637.py (issue 28: the TM1637 display family,
    its modules decoded from the GPIO lines, target/tm1637.js): heap per
    main-loop iteration while a clock runs, iterations per second, free
    heap after boot; and what the modules showed at the end."""
    res = {}
    with tempfile.TemporaryDirectory(prefix="pico-bench-tm-") as d:
        img = _bundle(d, "pico_tm1637")
        _step_run(img, os.path.join(d, "flash.bin"), res,
                  tm1637=target.tm1637_pins("pico_tm1637"))
    return {"tm1637_" + k: v for k, v in res.items()}


def _bundle(d, board="pico"):
    """The board's deployed bundle as a littlefs image in d (its path);
    RuntimeError if the target cannot run (target.pico_missing() says why)."""
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    img = os.path.join(d, "fs.img")
    with open(img, "wb") as f:
        f.write(target.bundle_image(d, board=board))
    return img


def measure(game=True, steps=True, stops=True, wdt=True, timed=True):
    """A dict of the on-target figures; raises RuntimeError if the target
    cannot run (target.pico_missing() says why)."""
    res = {}
    with tempfile.TemporaryDirectory(prefix="pico-bench-") as d:
        img = _bundle(d)
        if game:
            _game_run(img, os.path.join(d, "flash.bin"), res)
        if steps:
            _step_run(img, os.path.join(d, "flash2.bin"), res)
        if wdt:
            _wdt_run(img, os.path.join(d, "flash3.bin"), res)
        if stops:
            _stops_run(img, os.path.join(d, "flash4.bin"), res)
        if timed:
            _timed_run(d, os.path.join(d, "flash5.bin"), res)
    return res


if __name__ == "__main__":
    # (run as a file with another checkout's host_sim first on PYTHONPATH,
    # it measures that checkout's firmware: bench/run.py --baselines)
    import json
    import sys
    only = sys.argv[1:]
    if only == ["tm1637"]:
        print(json.dumps(tm1637_steps()))
        sys.exit(0)
    got = measure(game=not only or "game" in only, steps=not only or "steps" in only,
                  stops=not only or "stops" in only, wdt=not only or "wdt" in only,
                  timed=not only or "timed" in only)
    for k, v in sorted(got.items()):
        print(k, v if not isinstance(v, list) else "%d values" % len(v))
    print(json.dumps(got))
