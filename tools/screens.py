#!/usr/bin/env python3
"""Pictures of the clock's real screens, for the quick-reference cards.

    python tools/screens.py                  # writes docs/screens/*.svg
    python tools/screens.py --out DIR        # somewhere else (the docs test)
    python tools/screens.py --list           # the scenes and their files

Nothing here draws a screen from a description.  Each scene boots the real
device app (firmware/app.py) on the bench of host_sim/fakehw/rig.py - fake
pins, the HD44780 + PCF8574 emulator on the fake I2C bus, a virtual
millisecond clock - presses the buttons the way players do (every key acts
at its press edge; the gestures, held keys, of host_sim/fakehw/rig.py; a
power cut = a new rig on the same flash) and then reads back what the
emulated display shows:
its character codes (row_codes) and, for the app's own glyphs (the running
arrows and the flag), the 5x8 dot patterns the app loaded into CGRAM.  So a
picture changes exactly when what the clock shows changes, and the scene
checks the clock's state before it takes the picture (a behaviour change
stops `make screens` instead of drawing a misleading card).

Output is deterministic (virtual time, no dates, fixed number formatting):
tests/test_docs.py regenerates into a temporary folder and compares the
bytes with docs/screens/.
"""
import argparse
import os
import shutil
import sys
import tempfile

import repo_root  # noqa: F401  (this checkout's host_sim)
from host_sim import ROOT  # also: firmware/ and host_sim/fakehw/ on sys.path

import clockcore as cc  # noqa: E402
import settings as setmod  # noqa: E402
import app as appmod  # noqa: E402
import rig as rigmod  # noqa: E402
from hd44780_emu import a00_char  # noqa: E402
from host_sim import boards as boardfiles  # noqa: E402
import lang as langmod  # noqa: E402

OUT_DIR = os.path.join(ROOT, "docs", "screens")
LANGS = langmod.LANGS  # the one language table (firmware/lang.py)
MIN = 60000

LEFT, RIGHT, PAUSE = rigmod.LEFT, rigmod.RIGHT, rigmod.PAUSE
TAP_MS = 150          # a player's button press
FINE_STEP = 5         # the main loop every 5 ms (about the device's loop)
COARSE_STEP = 500     # long waits: the core charges exactly at any step


def load_board(name):
    return boardfiles.load(name)


# -- the bench -------------------------------------------------------------------

class Bench:
    """One clock on the bench, with its own flash folder (settings, saved
    game, game log) and the gestures the cards describe."""

    def __init__(self, profile, lang, board="sim"):
        self.board = load_board(board)
        self.dir = tempfile.mkdtemp(prefix="clock-screens-")
        self.root = os.path.join(self.dir, "")
        s = setmod.Settings.load(self.root + "settings.json", None)
        s.set_profile(profile)
        s.lang = lang
        if not s.save():
            raise OSError(s.problem)
        self.power_on()
        # the splash (1.5 s) and any boot notice (4 s) are gone after 6 s
        self.wait(6000)

    def power_on(self):
        self.rig = rigmod.Rig(self.board, self.root, step_ms=FINE_STEP)

    def power_cut(self):
        """Power fails and comes back: a new app on the same flash."""
        self.align()
        self.power_on()
        self.wait(2000)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def clock(self):
        return self.rig.app.clock

    def wait(self, ms):
        r = self.rig
        r.step_ms = COARSE_STEP if ms > 10000 else FINE_STEP
        r.run(ms)
        r.step_ms = FINE_STEP

    def align(self):
        """Let the running clock reach the middle of a displayed second.
        Every time starts on a whole second, so a clock stopped (or a
        picture taken) half-way between two changes of the display shows
        the same digits even if the app's timing moves by a few ms."""
        c = self.clock
        if c.state != cc.RUNNING:
            return
        r = c.rem[c.side]
        ms = (r - 500) % 1000 if r > 0 else (500 + r) % 1000
        if ms:
            self.wait(ms)

    def tap(self, b, hold=TAP_MS):
        self.align()
        self.rig.press(b, hold)
        self.wait(50)

    def moves(self, *steps):
        """Each (key, ms): a tap of the key, then ms of play."""
        for key, ms in steps:
            self.tap(key)
            self.wait(ms)

    def gesture(self, g):
        """One of the cards' gestures (host_sim/fakehw/rig.py: long_press(),
        confirm(), referee(), late(side))."""
        self.align()
        self.rig.perform(g)
        self.wait(50)


def expect(ok, what):
    if not ok:
        raise SystemExit("screens: the clock did not reach the state for %s" % what)


# -- the scenes ------------------------------------------------------------------
# Each scene plays a short game in one language and calls shot(name) at the
# moments the cards show.  The names are the files: <lang>_<name>.svg.

def scene_sdev(lang, shot):
    """A TSO game (sdev, 30:00): start, challenge window, pause, overtime
    with penalty points, and the end of the game."""
    with Bench("sdev", lang) as b:
        c = b.clock
        expect(c.state == cc.READY, "ready")
        shot("ready", b)
        b.moves((LEFT, 102000),         # left starts the game: right thinks 1:42
                (RIGHT, 2700))          # right ends the turn: left runs, window opens
        expect(c.running() == cc.LEFT and 0 < c.win < 20000, "running")
        shot("running", b)
        b.moves((PAUSE, 1000))          # challenge: the clock stops
        expect(c.state == cc.PAUSED and c.win > 0, "paused")
        shot("paused", b)
        b.moves((PAUSE, 14 * MIN),      # runs on from the key's press: left plays on
                (LEFT, 29 * MIN + 40000))   # right runs: 28:18 left ... overtime: -01:23
        expect(c.running() == cc.RIGHT and c.penalty(cc.RIGHT) == 20, "overtime")
        shot("overtime", b)
        b.moves((RIGHT, 4000),          # right's last move; left runs
                (LEFT, 2500),           # left's last move: right runs
                (PAUSE, 3000))          # right stops the clock (TSO § 5.1 b i)
        b.gesture(rigmod.long_press())  # held 2 s: the clock asks
        expect(c.state == cc.PAUSED and b.rig.app.game.question.kind, "asks END?")
        shot("ask_end", b)
        b.gesture(rigmod.confirm())     # both player buttons held 1 s
        expect(c.state == cc.OVER and not c.forfeited[cc.RIGHT], "game over")
        shot("over", b)


def scene_forfeit(lang, shot):
    """sdev: more than 5 minutes over (TSO § 5.2 c)."""
    with Bench("sdev", lang) as b:
        b.moves((RIGHT, 11 * MIN + 7000),                 # right starts: left runs
                (LEFT, 30 * MIN + 5 * MIN + 1000 + 2000))  # right runs
        expect(b.clock.state == cc.OVER and b.clock.forfeited[cc.RIGHT], "forfeit")
        shot("forfeit", b)


def scene_pfs(lang, shot):
    """A PFS game (20:00): the flag falls, the other player plays on."""
    with Bench("pfs", lang) as b:
        c = b.clock
        b.moves((RIGHT, 9 * MIN),       # right starts: left runs
                (LEFT, 7 * MIN + 30000),  # right runs
                (PAUSE, 8000),          # dead time: right records the move
                (RIGHT, 11 * MIN + 3000))  # right ends the turn: left's 20:00 are gone
        expect(c.state == cc.PAUSED and c.out(cc.LEFT), "flag")
        shot("flag", b)
        b.moves((LEFT, 42000))          # any key: the remaining player runs
        expect(c.running() == cc.RIGHT and c.out(cc.LEFT), "playing on")
        shot("flag_on", b)


def scene_menus(lang, shot):
    """The setup menu (ready) and the referee menu (paused): a time change
    kept pending, and the question that applies it as a whole."""
    with Bench("sdev", lang) as b:
        b.gesture(rigmod.long_press())  # in ready: the setup menu
        expect(b.rig.app.mode == appmod.MODE_SETUP, "setup")
        shot("setup", b)
        b.gesture(rigmod.long_press())  # held again: saved, back to ready
        b.moves((LEFT, 95000), (PAUSE, 1000))
        b.gesture(rigmod.referee())     # paused: the referee menu
        expect(b.rig.app.mode == appmod.MODE_REFEREE, "referee")
        shot("referee", b)
        left = b.clock.rem[LEFT]
        b.tap(RIGHT)                    # left + 1 s: pending, not applied
        expect(b.rig.app.menu.pend[LEFT] == 1000 and b.clock.rem[LEFT] == left,
               "a pending time change")
        shot("referee_change", b)
        b.gesture(rigmod.long_press())  # leaving: the clock asks to apply
        expect(b.rig.app.mode == appmod.MODE_REFEREE and b.rig.app.menu.ask >= 0,
               "Apply new times?")
        shot("referee_apply", b)
        b.gesture(rigmod.confirm())     # both player buttons held 1 s: applied
        expect(b.rig.app.mode == appmod.MODE_GAME and b.clock.rem[LEFT] == left + 1000,
               "the change applied")


def scene_power(lang, shot):
    """A power cut during a game: restored, paused."""
    with Bench("sdev", lang) as b:
        b.moves((LEFT, 3 * MIN + 12000), (RIGHT, 47000))
        b.power_cut()
        c = b.clock
        expect(c.state == cc.PAUSED and c.side == cc.LEFT, "restored")
        shot("restored", b)


def scene_late(lang, shot):
    """sdev: right is late; left, present, starts right's clock (pause key,
    then the left button, both held 2 s)."""
    with Bench("sdev", lang) as b:
        b.gesture(rigmod.late(LEFT))    # ~2.3 s from the pause key's edge ...
        b.wait(3 * MIN + 10000)         # ... the lateness runs from that edge:
                                        # +03:12 (SPEC v3 §4 Gestures)
        expect(b.clock.late() == cc.RIGHT, "late")
        shot("late", b)


def scene_2004(lang, shot):
    """The 20x4 build: the times in big digits (docs/display.md)."""
    with Bench("sdev", lang, board="sim_2004") as b:
        b.moves((LEFT, 102000), (RIGHT, 2700))
        expect(b.clock.running() == cc.LEFT, "20x4 running")
        shot("2004_running", b)


SCENES = (scene_sdev, scene_forfeit, scene_pfs, scene_power, scene_menus,
          scene_late, scene_2004)


# -- the picture ---------------------------------------------------------------------

DOT = 2           # one LCD dot, px
CELL_W = 6 * DOT  # 5 dots + a one-dot gap
CELL_H = 9 * DOT  # 8 dots + a one-dot gap
PAD = 6           # glass around the characters
BEZEL = 5
BG = "#1b1f23"       # module frame
GLASS = "#9fc131"    # yellow-green backlight
CELL = "#93b52c"     # the faint unlit dots of each character cell
INK = "#17230b"
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def _esc(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


# ROM characters the pictures' fonts often lack, drawn as their look-alikes
# (the 20x4's colon between its big digits is the ROM's centred dot)
SVG_CHARS = {"\uff65": "\u00b7"}


def svg(lcd, caption):
    """The emulator's screen as an SVG: character cells, ROM characters as
    text, CGRAM glyphs as their 5x8 dots."""
    cols, rows = lcd.cols, lcd.rows
    gw = cols * CELL_W - DOT + 2 * PAD
    gh = rows * CELL_H - DOT + 2 * PAD
    w = gw + 2 * BEZEL
    h = gh + 2 * BEZEL
    text = lcd.text_rows()
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" role="img">' % (w, h, w, h),
           "<title>%s</title>" % _esc(caption),
           "<desc>%s</desc>" % _esc(" | ".join(text)),
           '<rect width="%d" height="%d" rx="6" fill="%s"/>' % (w, h, BG),
           '<rect x="%d" y="%d" width="%d" height="%d" rx="2" fill="%s"/>'
           % (BEZEL, BEZEL, gw, gh, GLASS)]
    x0 = BEZEL + PAD
    y0 = BEZEL + PAD
    cells = []
    ink = []
    for r in range(rows):
        codes = lcd.row_codes(r)
        for c in range(cols):
            x = x0 + c * CELL_W
            y = y0 + r * CELL_H
            cells.append('<rect x="%d" y="%d" width="%d" height="%d"/>'
                         % (x, y, 5 * DOT, 8 * DOT))
            code = codes[c]
            if code < 16:
                for i, bits in enumerate(lcd.cgram_pattern(code)):
                    for j in range(5):
                        if bits & (0x10 >> j):
                            ink.append('<rect x="%d" y="%d" width="%d" height="%d"/>'
                                       % (x + j * DOT, y + i * DOT, DOT, DOT))
            else:
                ch = a00_char(code)
                ch = SVG_CHARS.get(ch, ch)
                if ch != " ":
                    ink.append('<text x="%d" y="%d">%s</text>'
                               % (x + 5 * DOT // 2, y + 7 * DOT, _esc(ch)))
    out.append('<g fill="%s">' % CELL)
    out.extend(cells)
    out.append("</g>")
    out.append('<g fill="%s" font-family="%s" font-size="%d" font-weight="bold" '
               'text-anchor="middle">' % (INK, FONT, 8 * DOT))
    out.extend(ink)
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- main ----------------------------------------------------------------------------------

def generate(out_dir, langs=LANGS, log=None):
    """Play every scene in every language and write the pictures; returns
    the file names written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for lang in langs:
        for scene in SCENES:
            def shot(name, bench, lang=lang):
                bench.align()
                fname = "%s_%s.svg" % (lang, name)
                caption = "%s (%s, %dx%d)" % (name, lang, bench.board.LCD_COLS,
                                              bench.board.LCD_ROWS)
                data = svg(bench.rig.lcd, caption)
                with open(os.path.join(out_dir, fname), "w", encoding="utf-8",
                          newline="\n") as f:
                    f.write(data)
                written.append(fname)
                if log:
                    log("%-22s %s" % (fname, " | ".join(bench.rig.lcd.text_rows())))
            scene(lang, shot)
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=OUT_DIR, help="folder for the SVG files "
                   "(default docs/screens)")
    p.add_argument("--list", action="store_true",
                   help="print each picture's file name and screen text")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    out = os.path.abspath(args.out)
    log = print if args.list or not args.quiet else None
    if out == os.path.abspath(OUT_DIR):
        # regenerate from scratch: no stale pictures of removed scenes
        for name in os.listdir(out) if os.path.isdir(out) else ():
            if name.endswith(".svg"):
                os.remove(os.path.join(out, name))
    names = generate(out, log=log if args.list else None)
    if not args.quiet and not args.list:
        print("wrote %d pictures to %s" % (len(names), os.path.relpath(out, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
