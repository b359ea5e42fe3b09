"""press_to_lcd_ms (issue 18, SPEC v3 §6): from a key's pin edge to the LCD
showing what the key did, for `make bench` (bench/run.py).

Two measurements of the real firmware, each on a random mix of presses (the
mover's button ending the turn, the pause key stopping the running clock,
the pause key restarting it), each press at a random instant:

rig   the device app on host_sim/fakehw (fake pins, the HD44780 + PCF8574
      emulator) in virtual time, driven by its own main loop App.run() with an
      injected sleep_ms that moves virtual time on.  Virtual time is kept in
      microseconds: a loop iteration costs STEP_US of processor time after it
      has read the keys (the emulated Pico's figure, 494 iterations a second
      in a busy loop) and every I2C transfer to the display costs its bus time
      at the board's I2C_FREQ (9 clocks a byte, the address byte included).  A
      press's edge falls wherever the loop happens to be: asleep (the 1 ms
      slices of App._sleep), reading the keys or drawing.  The LCD's effect is
      read from the emulator's DDRAM after every transfer; the side LEDs (and,
      for the menu presses, the key beep) are read after every iteration and
      must change in the same iteration as the LCD.
pico  the official RPI_PICO image on rp2040js (host_sim/target.py) running
      main.py from the deployed bundle: the button GPIO is driven at a random
      simulated millisecond and the emulator is run 1 ms at a time; the LCD is
      decoded from the real I2C traffic.  Resolution 1 ms (the figure is the
      first whole ms at which the display showed the effect).

`python bench/press_bench.py rig|pico` prints the raw result as JSON.  Run
with another checkout's host_sim first on PYTHONPATH (and that checkout as
the working directory) it measures that checkout's firmware: that is how
bench/run.py measures the baseline, the design before SPEC v3 (commit
cb82dd4, a player press acted on buttons.CHORD_MS = 320 ms after its edge).
Only App.run, App.step, App._inputs and the rig's pins and LCD are used, which
both designs have.
"""
import json
import os
import random
import sys
import tempfile

BASE_COMMIT = "cb82dd4"
STEP_US = 2024            # 1e6 / 494: one App.step() on the emulated Pico
G_RUN = (0, 1)            # view.G_RUN_L, G_RUN_R (CGRAM codes)
G_PAUSE = 3               # view.G_PAUSE

# pico_game's gaps from a press shown to the next press's edge (ms, a
# random integer in the range): in a game's first seconds, and later
FRESH_GAP_MS = (600, 900)
GAP_MS = (600, 1400)


def dense_gap_ms():
    """Gaps as close as a player may press: a turn-ending press locks the
    side it starts out for game.LOCK_MS (SPEC v4 §4), and the next press is
    that side's.  The same presses in fewer simulated seconds, for runs no
    kept baseline was measured against with GAP_MS.  (A function: this file
    also runs as a script on an older checkout, whose firmware may have no
    LOCK_MS.)"""
    from game import LOCK_MS  # (firmware/, on host_sim's path)
    return (LOCK_MS + 50, 900)


class Done(BaseException):
    """Ends App.run() (raised from the injected sleep; not an Exception, so
    the loop's own error handling does not catch it)."""


# the 20x4's marks between its big digits (firmware/bigview.py: RUN, STOP),
# as the 16x2's glyph codes
BIG_MARKS = {0x7F: G_RUN[0], 0x7E: G_RUN[1], 0xFF: G_PAUSE}


def marker(codes, side, cols):
    """The glyph in a side's marker cell of row 0 (None: not a glyph); on
    a 20x4 (cols 20) its mark beside the big digits, as that glyph."""
    if cols >= 20:
        return BIG_MARKS.get(codes[9 + side])
    c = codes[0 if side == 0 else cols - 1]
    return c & 7 if c < 16 else None


def expect(state, side, kind):
    """(the marker glyph, the side it is on, the lit LED side, the press's
    name: 'player', 'stop' or 'restart') a press of `kind` ('player' or
    'pause') shows, from a clock in `state` (1 running, 2 paused) on
    `side`."""
    if kind == "player":
        return G_RUN[1 - side], 1 - side, 1 - side, "player"
    if state == 1:
        return G_PAUSE, side, -1, "stop"
    return G_RUN[side], side, side, "restart"


def pct(values):
    v = sorted(values)
    return v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.99))]


# -- the rig, in virtual time ------------------------------------------------------

class VirtualRig:
    """The app's real main loop on the rig, with a microsecond virtual clock
    and pin edges scheduled at any microsecond."""

    def __init__(self, rig, i2c_hz):
        self.rig = rig
        self.app = rig.app
        self.us = rig.ms() * 1000
        self.byte_us = 9 * 1000000.0 / i2c_hz
        self.edges = []           # [(t_us, button, level)], in time order
        self.steps = 0
        self.in_step = False      # the loop is in App.step() (else asleep)
        self.on_edge = None       # called as on_edge(button, level) at the edge
        self.on_mark = None       # called at an entry with button -1
        self.after_transfer = None
        self.after_step = None
        self.stop = None          # returns True when the run is over
        lcd = rig.lcd
        orig_write = lcd.writeto
        app = self.app
        orig_step = app.step
        orig_inputs = app._inputs

        def writeto(buf):
            orig_write(buf)
            self.advance((len(buf) + 1) * self.byte_us)
            if self.after_transfer:
                self.after_transfer()

        def step():
            self.steps += 1
            self.in_step = True
            orig_step()
            self.in_step = False
            if self.after_step:
                self.after_step()

        def inputs(now):
            orig_inputs(now)
            self.advance(STEP_US)   # the rest of the iteration's work

        lcd.writeto = writeto
        app.step = step
        app._inputs = inputs

    def _set(self, us):
        self.us = us
        self.rig.now = self.rig.add(self.rig.t0, int(us // 1000))

    def advance(self, d):
        end = self.us + d
        while self.edges and self.edges[0][0] <= end:
            t, b, level = self.edges.pop(0)
            self._set(max(t, self.us))
            if b < 0:
                self.on_mark()
                continue
            if level:
                self.rig.down(b)
            else:
                self.rig.up(b)
            if self.on_edge:
                self.on_edge(b, level)
        self._set(end)

    def sleep_ms(self, ms):
        if self.stop and self.stop():
            raise Done()
        self.advance(ms * 1000)

    def at(self, t_us, b, level):
        self.edges.append((t_us, b, level))
        self.edges.sort()

    def run(self):
        try:
            self.app.run(sleep_ms=self.sleep_ms)
        except Done:
            pass


def _leds(app):
    pins = app.leds.pins
    lit = [p is not None and p.value() == 1 for p in pins]
    return 0 if lit[0] and not lit[1] else 1 if lit[1] and not lit[0] else \
        -1 if not lit[0] and not lit[1] else -2


def rig_game(presses=300, seed=18, board="pico"):
    """Game presses on the rig: {'lat_ms': [...], 'kinds': [...], 'same_step':
    n, 'led_steps_differ': n}."""
    from host_sim import boards
    from rig import Rig
    bd = boards.load(board)
    rng = random.Random(seed)
    res = {"lat_ms": [], "kinds": [], "led_steps_differ": 0, "in_step": 0}
    with tempfile.TemporaryDirectory() as d:
        rig = Rig(bd, os.path.join(d, ""), step_ms=5)
        v = VirtualRig(rig, bd.I2C_FREQ)
        app = v.app
        cols = bd.LCD_COLS
        st = {"want": None, "edge": None, "lcd": None, "lcd_step": None,
              "led_step": None, "n": 0, "next": None}

        def schedule(after_us):
            # the next press at a random instant 0.6-1.6 s on (past the
            # 500 ms lock-out of the side just started)
            v.at(after_us + rng.uniform(600000, 1600000), -1, 1)  # decide() then

        def decide():
            # at the press instant: which key, and what it must show
            c = app.clock
            side = c.side
            kind = "pause" if c.state == 2 or rng.random() < 0.3 else "player"
            b = 2 if kind == "pause" else side
            st["want"] = expect(c.state, side, kind)
            st["edge"] = v.us
            st["lcd"] = st["lcd_step"] = st["led_step"] = None
            res["in_step"] += 1 if v.in_step else 0
            rig.down(b)
            v.at(v.us + rng.uniform(60000, 200000), b, 0)

        v.on_mark = decide

        def after_transfer():
            w = st["want"]
            if w is not None and st["lcd"] is None:
                if marker(rig.lcd.row_codes(0), w[1], cols) == w[0]:
                    st["lcd"] = v.us
                    st["lcd_step"] = v.steps

        def after_step():
            w = st["want"]
            if w is None:
                return
            if st["led_step"] is None and _leds(app) == w[2]:
                st["led_step"] = v.steps
            if st["lcd"] is not None and st["led_step"] is not None \
                    and not v.edges:
                res["lat_ms"].append((st["lcd"] - st["edge"]) / 1000.0)
                res["kinds"].append(w[3])
                if st["led_step"] != st["lcd_step"]:
                    res["led_steps_differ"] += 1
                st["want"] = None
                st["n"] += 1
                if st["n"] < presses:
                    schedule(v.us)

        v.after_transfer = after_transfer
        v.after_step = after_step
        v.stop = lambda: st["n"] >= presses

        # boot (the splash), then the game starts: the left player's press
        v.at(2000000, 0, 1)
        v.at(2100000, 0, 0)
        started = {"ok": False}

        def boot_step():
            if not started["ok"] and app.clock.state == 1 and not v.edges:
                started["ok"] = True
                v.after_step = after_step
                schedule(v.us)
        v.after_step = boot_step
        v.run()
    if len(res["lat_ms"]) != presses:
        raise RuntimeError("only %d of %d presses were shown" % (len(res["lat_ms"]), presses))
    return res


def rig_menu(presses=30, seed=19, board="pico"):
    """Pause-key presses in the setup menu (next item): the LCD and the key
    beep.  {'lat_ms': [...], 'beep_steps_differ': n}."""
    from host_sim import boards
    from rig import Rig, long_press
    bd = boards.load(board)
    rng = random.Random(seed)
    res = {"lat_ms": [], "beep_steps_differ": 0}
    with tempfile.TemporaryDirectory() as d:
        rig = Rig(bd, os.path.join(d, ""), step_ms=5)
        rig.run(2000)
        rig.perform(long_press())
        if rig.app.mode != 2:
            raise RuntimeError("the setup menu did not open")
        rig.run(500)
        v = VirtualRig(rig, bd.I2C_FREQ)
        app = v.app
        st = {"edge": None, "row": None, "lcd": None, "lcd_step": None,
              "beeps": 0, "beep_step": None, "n": 0}

        def on_edge(b, level):
            if level:
                st["edge"] = v.us
                st["row"] = rig.lcd.row_codes(0)
                st["beeps"] = app.buzzer.beeps
                st["lcd"] = st["lcd_step"] = st["beep_step"] = None

        def after_transfer():
            if st["edge"] is not None and st["lcd"] is None \
                    and rig.lcd.row_codes(0) != st["row"]:
                st["lcd"] = v.us
                st["lcd_step"] = v.steps

        def after_step():
            if st["edge"] is None:
                return
            if st["beep_step"] is None and app.buzzer.beeps != st["beeps"]:
                st["beep_step"] = v.steps
            if st["lcd"] is not None and st["beep_step"] is not None and not v.edges:
                res["lat_ms"].append((st["lcd"] - st["edge"]) / 1000.0)
                if st["beep_step"] != st["lcd_step"]:
                    res["beep_steps_differ"] += 1
                st["edge"] = None
                st["n"] += 1
                if st["n"] < presses:
                    t = v.us + rng.uniform(300000, 900000)
                    v.at(t, 2, 1)
                    v.at(t + rng.uniform(60000, 200000), 2, 0)

        v.on_edge = on_edge
        v.after_transfer = after_transfer
        v.after_step = after_step
        v.stop = lambda: st["n"] >= presses
        t = v.us + 300000
        v.at(t, 2, 1)
        v.at(t + 100000, 2, 0)
        v.run()
    if len(res["lat_ms"]) != presses:
        raise RuntimeError("only %d of %d menu presses were shown" % (len(res["lat_ms"]), presses))
    return res


# -- the emulated Pico -------------------------------------------------------------

PICO_PINS = (14, 15, 13)   # boards/pico.py: BTN_LEFT, BTN_RIGHT, BTN_PAUSE


def _pico_new_game(pico, t, state):
    """From a game at time t (state 1 running, 2 paused) to a new one in
    `ready`, as the cards say: a stop, the pause key held 2 s (END?), both
    player buttons (yes: over), the pause key held 2 s (NEW GAME?), both
    player buttons (yes: ready).  Returns the time it is ready."""
    if state == 1:
        pico.press(PICO_PINS[2], t, hold_ms=80)
        t += 500
    for _ in range(2):
        pico.press(PICO_PINS[2], t, bounce=(), hold_ms=2100)
        t += 2400
        pico.run_to(t)
        pico.pin(PICO_PINS[0], 0)
        pico.run_to(t + 20)
        pico.pin(PICO_PINS[1], 0)
        pico.run_to(t + 1120)
        pico.pin(PICO_PINS[0], 1)
        pico.pin(PICO_PINS[1], 1)
        t += 2500
    pico.run_to(t)
    from host_sim import target
    if not pico.shows(target.ready_words()):
        raise RuntimeError("no new game: %r" % pico.lcd.text_rows())
    return t


def lcd_shows(pico, want):
    """The press shows on the LCD: its marker glyph on its side."""
    return marker(pico.lcd.row_codes(0), want[1], pico.lcd.cols) == want[0]


def tm1637_shows(pico, want):
    """The press shows on the TM1637 modules (firmware/tm1637.py): the side
    whose clock now runs bright, the other dimmed; after a stop both bright."""
    bright = [m.brightness for m in (pico.tm[c] for c, _ in pico.tm_pins)]
    lit = want[2]
    if lit < 0:
        return bright[0] == bright[1]
    return bright[lit] > bright[1 - lit]


def pico_tm1637(presses=40, seed=28, new_game=1, gap_ms=GAP_MS):
    """pico_game on boards/pico_tm1637.py, the press read from the TM1637
    modules' wire (issue 28: the same press-to-display p99 for every display
    family)."""
    return pico_game(presses, seed, new_game=new_game, board="pico_tm1637",
                     shown=tm1637_shows, gap_ms=gap_ms)


def timed_press(pico, t, gpio, want, hold, limit_ms=3000, shown=lcd_shows):
    """A key pressed at simulated ms `t` (its pin low, released after `hold`
    ms): the ms from its edge until `shown(pico, want)` (want: expect()'s),
    the LCD polled every 1 ms for 60 ms, then every 2 ms; a RuntimeError
    after `limit_ms`."""
    pico.run_to(t)
    pico.pin(gpio, 0)
    got = None
    up = False
    ms = 0
    while ms < limit_ms:
        ms += 1 if ms < 60 else 2
        if not up and ms >= hold:
            pico.run_to(t + hold)
            pico.pin(gpio, 1)
            up = True
        pico.run_to(t + ms)
        if shown(pico, want):
            got = ms
            break
    if got is None:
        raise RuntimeError("the Pico's display did not show a %s press within %d ms: %r"
                           % (want[3], limit_ms, pico.lcd.text_rows()))
    if not up:
        pico.run_to(t + hold)
        pico.pin(gpio, 1)
    return got


def pico_presses(pico, rng, res, start, presses=40, limit_ms=3000, new_game=1,
                 shown=lcd_shows, gap_ms=GAP_MS):
    """pico_game's presses on a running Pico whose app shows READY: the game
    starts at `start` (simulated ms); the latencies, kinds and times since
    the game's start are appended to res's lists (and each press's edge,
    simulated ms, to res["at_ms"] if it has one).  `gap_ms`: the later
    presses' gaps (the first two of a game: FRESH_GAP_MS)."""
    g = PicoPlayer(pico, rng)
    g.start(start)
    t = start
    fresh = 2           # presses left in the game's first seconds
    for k in range(presses):
        if new_game and k == presses // 2 and presses >= 4:
            start = _pico_new_game(pico, t + 1000, g.state) + 500
            g.start(start)
            t, fresh = start, 2
        t += rng.randint(*FRESH_GAP_MS) if fresh else rng.randint(*gap_ms)
        fresh = fresh - 1 if fresh else 0
        got, kind = g.press(t, limit_ms, shown)
        res["lat_ms"].append(got)
        res["kinds"].append(kind)
        res["after_start_ms"].append(t - start)
        if "at_ms" in res:
            res["at_ms"].append(t)
        t = pico.t_ms


class PicoPlayer:
    """Players at the emulated Pico: the game started with the left button
    (right runs), then each press the mover's button or the pause key (3 in
    10; only the pause key while paused), held 60-200 ms, timed from its
    edge to the LCD (timed_press); the clock's state (1 running, 2 paused)
    and running side followed."""

    def __init__(self, pico, rng):
        self.pico, self.rng = pico, rng
        self.state, self.side = 1, 1

    def start(self, t):
        self.pico.press(PICO_PINS[0], t)   # the game starts: right runs
        self.state, self.side = 1, 1

    def press(self, t, limit_ms=3000, shown=lcd_shows):
        """One press at simulated ms t: (ms to the LCD, 'player', 'stop' or
        'restart')."""
        kind = "pause" if self.state == 2 or self.rng.random() < 0.3 else "player"
        want = expect(self.state, self.side, kind)
        got = timed_press(self.pico, t, PICO_PINS[2 if kind == "pause" else self.side], want,
                          self.rng.randint(60, 200), limit_ms, shown)
        if kind == "player":
            self.side = 1 - self.side
        else:
            self.state = 2 if self.state == 1 else 1
        return got, want[3]


def pico_game(presses=40, seed=18, limit_ms=3000, new_game=1, board="pico", shown=lcd_shows,
              gap_ms=GAP_MS):
    """Game presses on the emulated Pico: {'lat_ms': [...], 'kinds': [...],
    'after_start_ms': [...]} (each press's time since its game's start).
    The game starts right after power-up (the journal is still being set
    up then), and a new game begins half-way (after its end, as the cards
    say; new_game=0: not, for a design whose keys differ); the first
    presses of each game come 0.6-0.9 s after its start,
    the others 0.6-1.4 s apart: a press in a game's first seconds is
    always measured (SPEC v4 §4, §6: no press waits for the flash work a
    start leaves; a 2.6 s step there hid until 2026-11-26)."""
    from host_sim import target
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    rng = random.Random(seed)
    res = {"lat_ms": [], "kinds": [], "after_start_ms": []}
    with tempfile.TemporaryDirectory(prefix="pico-press-") as d:
        img = os.path.join(d, "fs.img")
        with open(img, "wb") as f:
            f.write(target.bundle_image(d, board))
        from host_sim import boards
        bd = boards.load(board)
        pico = target.Pico(os.path.join(d, "flash.bin"), fs_image=img, cols=bd.LCD_COLS,
                           rows=bd.LCD_ROWS, tm1637=target.tm1637_pins(board)).start()
        try:
            pico.run_to_ready()
            pico_presses(pico, rng, res, 2500, presses, limit_ms, new_game, shown, gap_ms)
        finally:
            pico.stop()
    return res


def main(argv):
    which = argv[0] if argv else "rig"
    kw = {}
    for a in argv[1:]:
        k, _, val = a.partition("=")
        kw[k] = int(val) if val.lstrip("-").isdigit() else val
    if which == "rig":
        out = rig_game(**kw)
    elif which == "menu":
        out = rig_menu(**kw)
    elif which == "pico":
        out = pico_game(**kw)
    else:
        raise SystemExit("usage: press_bench.py rig|menu|pico [presses=N] [seed=N]")
    print(json.dumps(out))


if __name__ == "__main__":
    if "host_sim" not in sys.modules:
        import host_sim  # noqa: F401  (its importer: firmware/ and fakehw/)
    main(sys.argv[1:])
