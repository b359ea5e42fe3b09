"""`python -m host_sim sim`: the clock in a terminal (stdlib curses only).

What runs is the real device app (firmware/app.py) on the fake `machine`,
through host_sim/fakehw/rig.py: the keys drive the button pins (so debounce,
gestures and the edge timestamps are the device's own), and the screen is
read back from the HD44780 emulator on the fake I2C bus -- the characters a
real display would show, with the app's CGRAM glyphs rendered through
view.GLYPH_CHARS.  The LEDs are read from their pins, the beep from the app's
Buzzer.

Time.  Virtual time is a pure function of the monotonic clock:
    virtual_ms = v0 + (monotonic_ns() - m0) * speed / 1e6
computed afresh every frame (never by adding up frame sleeps), so the
displayed seconds tick exactly, at any --speed, however late a frame is.
The rig runs the app's main loop every few virtual ms up to that instant.

Keys.  A terminal reports key presses, not releases, so a key means "button
down now, up after KEY_HOLD_MS of virtual time" (terminal auto-repeat, while a
key is held, just extends the hold: one press, as on the device).  As on the
device (SPEC v4 §4), each key acts at its own press edge: `a` / `l` end a
turn and `space` stops or restarts the clock on the next loop step, while
the key is still down.  Gestures are held keys; the other keys play the
quick-reference cards' gestures (host_sim/fakehw/rig.py), and a gesture
undoes what its own keys did at their edges: `e` the pause key held 2 s
(setup menu in READY; the END? question when stopped; NEW GAME? on the final
screen), `y` both player buttons held 1 s (yes; also "Apply new times?" in
the referee menu; with no question on a stopped clock its presses are
undone; while a clock runs it is two presses, SPEC v4: left's, then
right's 20 ms later), `r` the referee's three keys, pressed within 2 s,
held 3 s, `[` / `]` the late arrival (the left / right player present:
pause key, then their button, held 2 s, in READY).  A key the terminal
holds longer than 2 s is a resting finger: it makes no gesture with later
keys.

Real holds (--real-holds, issue 37).  The shortcuts above mean a trainee
never holds a key for its 1-3 s.  A terminal reports no release, so in this
mode a, l and space each toggle their button: one tap puts it down (the face
shows it "down"), the next tap lets it up, each at its own instant; a
gesture is made by hand (e.g. the end: stop, space, wait 2 s, space, then a
and l down, wait 1 s, both up) and the gesture shortcuts are off.  A
character repeated within REPEAT_GAP_S is the terminal's auto-repeat (the
key held down) and changes nothing.

Replay.  --replay FILE applies the file's events to the app's timing core at
their own virtual times (ms since power-up, as in the game log), while the
LCD shows the game live, in the log's language (`# lang de`; --lang
overrides it); virtual time stops at the last event, or at a later
`# <ms> over` line (a game that ended by itself, SPEC v4 §5) -- the screen
then shows exactly what `python -m host_sim replay FILE` reports -- and any
game key resumes live play from that state.
"""
import os
import shutil
import sys
import tempfile
import time
from fractions import Fraction

import host_sim
import rig as gestures  # noqa: E402  (host_sim's importer finds fakehw/)

KEY_HOLD_MS = 120        # a tap: down, then up this much later (virtual ms)
FRAME_S = 0.05           # redraw ~20x per second
POLL_MS = 10             # key wait per loop iteration
BEEP_SHOW_S = 0.4        # a beep stays visible at least this long (real s)

from host_sim import boards as boardfiles  # noqa: E402
import lang as langmod  # noqa: E402

# The simulator's boards: every board file for the fake machine (no MCU).
BOARDS = tuple(b for b in boardfiles.names()
               if not boardfiles.is_hardware(boardfiles.load(b)))
LANGS = langmod.LANGS  # the one language table (firmware/lang.py)
LEFT, RIGHT, PAUSE = 0, 1, 2

FACE_W = 58              # the clock face's outer width (fits in 80 columns)
# `[` / `]`: the late arrival, the left / right player present (issue 27: the
# bar said `[ ] late` without the sides)
HELP = "a left l right  spc pause  e pause 2s  y L+R  r ref  [ ] late: L/R here  q quit"
# In a menu (setup, referee, results) the same keys move through it
# (firmware/menu.py: pause = next item, the player buttons -/+, the pause key
# held 2 s leaves, both player buttons held 1 s say yes to its question).
MENU_HELP = "menu: spc next item  a - / l +  e leave (pause 2s)  y yes (L+R 1s)  q quit"
# --real-holds (issue 37): a terminal never reports a key's release, so each
# game key toggles its button: one tap down, the next tap up; a trainee holds
# a gesture's keys for its real 1-3 s (no shortcut does it for them).
REAL_HELP = "REAL HOLDS: a l spc: key down, again: up  hold them as the card says  q quit"
REAL_MENU_HELP = "REAL HOLDS menu: spc down=next  a - / l +  spc 2s=leave  a+l 1s=yes  q quit"
# A character of the same key this soon after the last one is the terminal's
# auto-repeat (a key held down: 25-40 a second), not a tap: --real-holds
# ignores it.  (A person's fastest double tap is slower.  The first repeat
# comes after the terminal's repeat delay, 0.25-0.6 s, and toggles: a key is
# tapped in this mode, not held.)
REPEAT_GAP_S = 0.06
HELD = float("inf")      # release_at of a key toggled down: no release due

# Drawing characters: Unicode, and an ASCII set for terminals without UTF-8.
UNI = {"tl": "\u256d", "tr": "\u256e", "bl": "\u2570", "br": "\u256f",
       "h": "\u2500", "v": "\u2502",
       "ltl": "\u250f", "ltr": "\u2513", "lbl": "\u2517", "lbr": "\u251b",
       "lh": "\u2501", "lv": "\u2503",
       "on": "\u25cf", "off": "\u25cb", "beep": "\u266a", "dot": "\u00b7"}
ASCII = {"tl": "+", "tr": "+", "bl": "+", "br": "+", "h": "-", "v": "|",
         "ltl": "#", "ltr": "#", "lbl": "#", "lbr": "#", "lh": "=", "lv": "#",
         "on": "*", "off": "o", "beep": "!", "dot": "-"}
_ASCII_LCD = {"\u25c0": "<", "\u25b6": ">", "\u2691": "F", "\u00e4": "a",
              "\u00f6": "o", "\u00fc": "u", "\u00df": "B", "\u2192": ">",
              "\u2190": "<", "\u00a5": "Y"}

BEEP_NAMES = ("window", "flag", "time over", "key")


# -- set-up (no curses) ---------------------------------------------------------
def load_board(name):
    """boards/<name>.py as a module."""
    if name not in BOARDS:
        raise ValueError("unknown simulator board %r (%s)" % (name, ", ".join(BOARDS)))
    return boardfiles.load(name)


def parse_speed(text):
    """'20', '0.5', '1/4' -> a positive Fraction (exact, so time stays exact)."""
    try:
        s = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError("expected a positive number, got %r" % text)
    if s <= 0 or s > 100000:
        raise ValueError("speed must be > 0 and at most 100000, got %r" % text)
    return s


def parse_base(text):
    """'25:00' -> ms, within what the clock can show (00:01-99:59)."""
    import profiles
    return profiles.make_rules("custom", [("base", text)]).base[0]


def write_settings(root, profile=None, base_left=None, base_right=None,
                   lang=None):
    """Put the options into the settings file under `root`, so the app boots
    with them exactly as the device would (None leaves a field as saved; a
    profile resets the base times to its default first, as the setup menu
    does).  A base time the file cannot hold (the menu's range is whole
    minutes 01:00-99:00; a quick trial may want 00:30) is left out of the
    file: the returned (base_left, base_right) are the ones still to apply
    in memory (None = nothing to do)."""
    import settings as setmod
    s = setmod.Settings.load(root + "settings.json", None)
    if profile is not None:
        s.set_profile(profile)
    if lang is not None:
        s.lang = lang
    extra = [None, None]
    for i, v in enumerate((base_left, base_right)):
        if v is None:
            continue
        if v % 1000 == 0 and setmod.BASE_MIN <= v <= setmod.BASE_MAX:
            if i == 0:
                s.base_left = v
            else:
                s.base_right = v
        else:
            extra[i] = v
    if not s.save():
        raise OSError(s.problem or "cannot save the settings")
    return tuple(extra)


def step_for(speed):
    """The rig's main-loop period in virtual ms: 5 ms (about the device's
    loop) up to x20, then speed/4 (at most 250 ms), so a frame (50 ms of
    real time) costs at most ~200 loop iterations.  Button edges carry
    their own timestamps and the core's flag, window and forfeit instants
    are exact whatever the step; only the display's refresh is coarser."""
    s = int(speed / 4)
    return 5 if s < 5 else 250 if s > 250 else s


class Sim:
    """The clock on the bench plus the simulator's key and replay schedule.
    No curses here: tests drive it directly."""

    def __init__(self, board, root, speed=1, game=None, base=(None, None), uid=None):
        import rig as rigmod
        import machine
        self.board = board
        # uid: this clock's machine.unique_id() (None: the fake board's own)
        self.rig = rigmod.Rig(board, root, step_ms=step_for(speed), uid=uid)
        self.leds = tuple(None if n is None else machine.pin(n)
                          for n in (board.LED_LEFT, board.LED_RIGHT))
        self.release_at = [None, None, None]  # virtual ms each key goes up
        self.downs = []                       # [(t, button, release_at)]
        self.game = game
        self.next_ev = 0
        self.stop_at = None   # virtual time stops here (end of a replay)
        if base[0] is not None or base[1] is not None:
            self._set_base(base)
        if game is not None:
            self._start_replay(game)

    def _set_base(self, base):
        """Base times outside the settings file's range: into the app's
        settings in memory (so a new game keeps them) and the fresh clock."""
        app = self.rig.app
        st = app.settings
        if base[0] is not None:
            st.base_left = base[0]
        if base[1] is not None:
            st.base_right = base[1]
        app.new_game(self.rig.now)

    @property
    def app(self):
        return self.rig.app

    def now(self):
        """Virtual ms since power-up."""
        return self.rig.ms()

    # -- replay --------------------------------------------------------------
    def _start_replay(self, game):
        # A fresh game with the file's rules (not a game a --state-dir may
        # have restored), the game screen from the first loop on (no boot
        # screen or boot notice to hide a replay ending early).
        app = self.rig.app
        now = self.rig.now
        app.new_game(now, game.rules)
        app.show_game(now)
        self.stop_at = game.end_t()  # as `replay` reports it (SPEC v4 §5)

    def replaying(self):
        return self.game is not None and self.next_ev < len(self.game.events)

    def _apply(self, ev):
        from host_sim import replay
        # The file's ms since power-up is the rig's; the core takes ticks.
        replay.apply(self.rig.app.clock,
                     replay.Event(self.rig.now, ev.kind, ev.side, ev.delta, ev.line))

    # -- keys ------------------------------------------------------------------
    def held(self, b):
        return self.release_at[b] is not None

    def toggle(self, b):
        """--real-holds: button b down now if it is up (and held until the
        next toggle), else up now; returns whether it is down now."""
        if self.release_at[b] is None:
            self.rig.down(b)
            self.release_at[b] = HELD
            return True
        self.rig.up(b)
        self.release_at[b] = None
        return False

    def key(self, b, hold=KEY_HOLD_MS):
        """Button b down now (if it isn't) and up `hold` ms from now; a key
        already held is held longer (terminal auto-repeat; a key toggled
        down stays down)."""
        end = self.now() + hold
        if self.release_at[b] is None:
            self.rig.down(b)
            self.release_at[b] = end
        elif end > self.release_at[b]:
            self.release_at[b] = end

    def play(self, gesture):
        """Schedule one of the cards' gestures (a list of (ms, button,
        level) from host_sim/fakehw/rig.py) from now on."""
        now = self.now()
        for i, (off, b, level) in enumerate(gesture):
            if level:
                up = next(o for o, b2, lv in gesture[i + 1:] if b2 == b and not lv)
                self.downs.append((now + off, b, now + up))
        self.downs.sort()

    def long_press(self):
        """`e`: the pause key held 2 s."""
        self.play(gestures.long_press())

    def confirm(self):
        """`y`: both player buttons held 1 s (yes)."""
        self.play(gestures.confirm())

    def referee_gesture(self):
        """`r`: pause, then both player buttons, all held 3 s."""
        self.play(gestures.referee())

    def late(self, present):
        """`[` / `]`: the present player starts the absent one's clock."""
        self.play(gestures.late(present))

    def asking(self):
        """The clock asks END? or NEW GAME? (firmware/question.py): it waits
        question.ASK_MS for both player buttons; the clock is stopped."""
        g = self.app.game
        return g is not None and g.question.kind != 0

    def rate(self, speed):
        """Virtual ms per real ms now: `speed`, but 1 while a question shows
        (issue 27: at --speed 10 its 6 s were 0.6 s of real time, gone
        before it could be read; the clock is stopped meanwhile, so only
        the question's own time and a lateness clock are slowed)."""
        return Fraction(1) if speed > 1 and self.asking() else speed

    def resume_live(self):
        """After a replay: let virtual time run on from where it stopped."""
        self.stop_at = None

    # -- time --------------------------------------------------------------------
    def _next_due(self):
        """(time, kind, arg) of the next scheduled thing, or None."""
        best = None
        for b in (LEFT, RIGHT, PAUSE):
            t = self.release_at[b]
            if t is not None and (best is None or t < best[0]):
                best = (t, "up", b)
        if self.downs and (best is None or self.downs[0][0] < best[0]):
            best = (self.downs[0][0], "down", 0)
        if self.replaying():
            t = self.game.events[self.next_ev].t
            if best is None or t < best[0]:
                best = (t, "event", 0)
        return best

    def advance(self, target):
        """Run virtual time to `target` ms since power-up (never backwards;
        not past the end of a replay), doing every key release, delayed
        press and replay event at its own ms on the way."""
        if self.stop_at is not None and target > self.stop_at:
            target = self.stop_at
        rig = self.rig
        while True:
            due = self._next_due()
            if due is None or due[0] > target:
                break
            t, kind, b = due
            if t > rig.ms():
                rig.run(t - rig.ms())
            if kind == "up":
                rig.up(b)
                self.release_at[b] = None
            elif kind == "down":
                _, b, up = self.downs.pop(0)
                if self.release_at[b] is None:
                    rig.down(b)
                    self.release_at[b] = up
                elif up > self.release_at[b]:
                    self.release_at[b] = up
            else:
                self._apply(self.game.events[self.next_ev])
                self.next_ev += 1
                rig.app.step()  # the display catches up at this very ms
        if target > rig.ms():
            rig.run(target - rig.ms())

    # -- what a person sees --------------------------------------------------------
    def lcd_rows(self):
        return self.rig.lcd.text_rows()

    def face_lines(self):
        """What the terminal draws of the board's other displays (e.g. digit
        modules): each family's emulator may offer face_lines() -> [str]
        (docs/display.md); none: nothing."""
        out = []
        for name, emu in self.rig.emus.items():
            if name != "hd44780" and hasattr(emu, "face_lines"):
                out += emu.face_lines()
        return out

    def lcd_lines(self):
        """What the terminal draws of the LCD: its text rows, and on a 20x4
        rows 0-1 (the big digits, firmware/bigview.py) twice as tall, each
        CGRAM cell drawn from its 5x8 dots in quadrant blocks."""
        lcd = self.rig.lcd
        rows = lcd.text_rows()
        if lcd.rows < 4:
            return rows
        out = []
        for r in range(lcd.rows):
            if r >= 2:
                out.append(rows[r])
                continue
            top, bottom = "", ""
            for c, code in enumerate(lcd.row_codes(r)):
                if code < 16:
                    t, b = glyph_lines(lcd.cgram_pattern(code))
                else:
                    t, b = rows[r][c], " "
                top += t
                bottom += b
            out += [top, bottom]
        return out

    def led(self, side):
        p = self.leds[side]
        return p is not None and p.value() == 1


# -- the terminal ----------------------------------------------------------------
# quadrant blocks by their quarters: upper-left 8, upper-right 4, lower-left
# 2, lower-right 1
QUADS = " \u2597\u2596\u2584\u259d\u2590\u259e\u259f\u2598\u259a\u258c\u2599\u2580\u259c\u259b\u2588"


def glyph_lines(pattern):
    """A 5x8 glyph as two characters, one above the other: each a 2x2 of
    quadrants over its dots (the left two columns, the right two; two dot
    rows each), a quadrant on where any of its dots is."""
    out = []
    for half in (pattern[0:4], pattern[4:8]):
        q = 0
        for i, rows in enumerate((half[0:2], half[2:4])):
            if any(v & 0x18 for v in rows):
                q |= 8 >> (2 * i)
            if any(v & 0x03 for v in rows):
                q |= 4 >> (2 * i)
        out.append(QUADS[q])
    return out[0], out[1]


def fmt_vtime(ms):
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return "%d:%02d:%02d.%d" % (h, m, s, ms // 100)


def fmt_speed(speed):
    if speed.denominator == 1:
        return "%d" % speed.numerator
    return ("%.3f" % float(speed)).rstrip("0")


class Tui:
    """Draws the clock face from the Sim and turns keys into button presses."""

    def __init__(self, scr, sim, speed, label, real_holds=False):
        import curses
        self.real_holds = real_holds
        self.last_key = {}       # key -> monotonic time of its last character
        enc = (getattr(scr, "encoding", "") or "").lower().replace("-", "").replace("_", "")
        utf8 = enc == "utf8"
        self.curses = curses
        self.scr = scr
        self.sim = sim
        self.speed = speed
        self.label = label if utf8 else label.replace(UNI["dot"], ASCII["dot"])
        self.g = UNI if utf8 else ASCII
        self.utf8 = utf8
        self.seen_beeps = sim.app.buzzer.beeps
        self.beep_until = 0.0
        self.note = ""
        self.note_until = 0.0
        self.attr_lcd = curses.A_BOLD
        self.attr_led = curses.A_BOLD
        self.attr_beep = curses.A_REVERSE | curses.A_BOLD
        if curses.has_colors():
            try:
                curses.start_color()
                curses.use_default_colors()
                curses.init_pair(1, curses.COLOR_BLACK, curses.COLOR_GREEN)
                curses.init_pair(2, curses.COLOR_RED, -1)
                curses.init_pair(3, curses.COLOR_YELLOW, -1)
                self.attr_lcd = curses.color_pair(1)
                self.attr_led = curses.color_pair(2) | curses.A_BOLD
                self.attr_beep = curses.color_pair(3) | curses.A_BOLD | curses.A_REVERSE
            except curses.error:
                pass

    # -- the loop ------------------------------------------------------------------
    def run(self):
        curses = self.curses
        scr = self.scr
        try:
            curses.curs_set(0)
        except curses.error:
            pass
        scr.keypad(True)
        scr.timeout(POLL_MS)
        sim = self.sim
        rate = self.speed
        num, den = rate.numerator, rate.denominator * 1000000
        m0 = time.monotonic_ns()
        v0 = sim.now()
        last_draw = -1.0
        gone = terminal_watch()
        while True:
            ch = scr.getch()
            if ch == -1 and gone():
                return  # the terminal went away (closed, hung up): leave
            # Virtual time from the monotonic clock, afresh each time (from
            # where it was when the rate last changed: a question shows at 1x).
            now_ns = time.monotonic_ns()
            sim.advance(v0 + (now_ns - m0) * num // den)
            if sim.rate(self.speed) != rate:
                rate = sim.rate(self.speed)
                num, den = rate.numerator, rate.denominator * 1000000
                m0, v0 = now_ns, sim.now()
            if ch == curses.KEY_RESIZE:
                scr.clear()
                last_draw = -1.0
            elif ch != -1:
                burst = self.burst(ch)
                if ord("q") in burst or ord("Q") in burst:
                    return
                for i, c in enumerate(burst):
                    if c == curses.KEY_RESIZE:
                        scr.clear()
                        last_draw = -1.0
                        continue
                    # (--real-holds: the same key twice in one burst is the
                    # terminal's auto-repeat, however slow this loop was)
                    act = self.key_action(c, c in burst[:i])
                    if act is None:
                        continue
                    if sim.replaying():
                        self.flash("replaying: keys take over when it ends")
                    else:
                        if sim.stop_at is not None:
                            # The replay is over: live play from here on.
                            sim.resume_live()
                            m0 = time.monotonic_ns()
                            v0 = sim.now()
                        act()
                        last_draw = -1.0
            b = sim.app.buzzer.beeps
            t = time.monotonic()
            if b != self.seen_beeps:
                self.seen_beeps = b
                self.beep_until = t + BEEP_SHOW_S
            if t - last_draw >= FRAME_S:
                last_draw = t
                try:
                    self.draw()
                except (curses.error, OSError):
                    if gone():   # a write error on a terminal that is gone
                        return
                    raise

    def burst(self, ch):
        """ch and the keys already waiting behind it (they came together)."""
        out = [ch]
        self.scr.nodelay(True)
        try:
            while len(out) < 64:
                c = self.scr.getch()
                if c == -1:
                    break
                out.append(c)
        finally:
            self.scr.timeout(POLL_MS)
        return out

    def key_action(self, ch, repeated=False):
        sim = self.sim
        if self.real_holds:
            return self.real_action(ch, repeated)
        if ch in (ord("a"), ord("A")):
            return lambda: sim.key(LEFT)
        if ch in (ord("l"), ord("L")):
            return lambda: sim.key(RIGHT)
        if ch == ord(" "):
            return lambda: sim.key(PAUSE)
        if ch in (ord("e"), ord("E")):
            return sim.long_press
        if ch in (ord("y"), ord("Y")):
            return sim.confirm
        if ch in (ord("r"), ord("R")):
            return sim.referee_gesture
        if ch == ord("["):
            return lambda: sim.late(LEFT)
        if ch == ord("]"):
            return lambda: sim.late(RIGHT)
        return None

    def real_action(self, ch, repeated=False):
        """--real-holds: a / l / space toggle their button (auto-repeat
        ignored: `repeated`, the same key again in one burst, or within
        REPEAT_GAP_S); the gesture shortcuts are off: the trainee makes them."""
        b = {ord("a"): LEFT, ord("A"): LEFT, ord("l"): RIGHT, ord("L"): RIGHT,
             ord(" "): PAUSE}.get(ch)
        if b is None:
            if ch in tuple(ord(c) for c in "eEyYrR[]"):
                return lambda: self.flash("real holds: hold the keys yourself "
                                          "(a l space: down, tap again: up)")
            return None
        t = time.monotonic()
        last = self.last_key.get(b)
        self.last_key[b] = t
        if repeated or (last is not None and t - last < REPEAT_GAP_S):
            return None          # the terminal's auto-repeat: the key is held
        return lambda: self.sim.toggle(b)

    def help_line(self):
        """The footer: the keys of what shows (the game, or a menu)."""
        import app as appmod
        menu = self.sim.app.mode in (appmod.MODE_SETUP, appmod.MODE_REFEREE,
                                     appmod.MODE_RESULTS)
        if self.real_holds:
            return REAL_MENU_HELP if menu else REAL_HELP
        return MENU_HELP if menu else HELP

    def flash(self, text):
        self.note = text
        self.note_until = time.monotonic() + 2.0

    # -- drawing -------------------------------------------------------------------
    def put(self, y, x, text, attr=0):
        h, w = self.scr.getmaxyx()
        if y < 0 or y >= h or x >= w:
            return
        text = text[:max(0, w - x)]
        try:
            self.scr.addstr(y, x, text, attr)
        except self.curses.error:
            pass  # the bottom-right cell: curses writes it, then complains

    def lcd_text(self, row):
        if self.utf8:
            return row
        return "".join(_ASCII_LCD.get(c, "#" if c in QUADS[1:] else c if c < "\x7f" else "?")
                       for c in row)

    def size_needed(self):
        return FACE_W, self.block_h() + 1

    def block_h(self):
        # title, the face (the LCD's lines as drawn + 11), status, note
        extra = len(self.sim.face_lines())
        return len(self.sim.lcd_lines()) + 14 + (extra + 1 if extra else 0)

    def draw(self):
        scr = self.scr
        scr.erase()
        h, w = scr.getmaxyx()
        need_w, need_h = self.size_needed()
        if w < need_w or h < need_h:
            for msg in ("Terminal too small for the clock: need %dx%d, have %dx%d (q quits)",
                        "Too small: need %dx%d, have %dx%d", "Too small: need %dx%d",
                        "Too small"):
                msg = msg % (need_w, need_h, w, h)[:msg.count("%d")]
                if len(msg) < w:
                    break
            self.put(0, 0, msg[:w - 1] if w > 1 else "")
            scr.refresh()
            return
        g = self.g
        sim = self.sim
        app = sim.app
        board = sim.board
        cols, nrows = board.LCD_COLS, board.LCD_ROWS
        x0 = (w - FACE_W) // 2
        inner = FACE_W - 2
        y = max(0, (h - 1 - self.block_h()) // 2)
        title = "Scrabble clock simulator %s %s" % (g["dot"], self.label)
        # (a long label, a hall's clock id, centres on the terminal, not the face)
        self.put(y, x0 if len(title) <= FACE_W else max(0, (w - len(title)) // 2),
                 title.center(FACE_W))
        y += 1
        # the case
        self.put(y, x0, g["tl"] + g["h"] * inner + g["tr"])
        face_top = y
        y += 2
        # the display
        lx = x0 + (FACE_W - cols - 2) // 2
        self.put(y, lx, g["ltl"] + g["lh"] * cols + g["ltr"])
        y += 1
        for row in sim.lcd_lines():
            self.put(y, lx, g["lv"])
            self.put(y, lx + 1, self.lcd_text(row), self.attr_lcd)
            self.put(y, lx + 1 + cols, g["lv"])
            y += 1
        self.put(y, lx, g["lbl"] + g["lh"] * cols + g["lbr"])
        y += 2
        faces = sim.face_lines()          # the other displays (digit modules)
        for line in faces:
            self.put(y, x0 + (FACE_W - len(line)) // 2, self.lcd_text(line), self.attr_lcd)
            y += 1
        if faces:
            y += 1
        # LEDs under their side, the beeper in the middle
        third = inner // 3
        lcx = x0 + 1 + third // 2
        ccx = x0 + 1 + inner // 2
        rcx = x0 + 1 + inner - third // 2
        for side, cx in ((LEFT, lcx), (RIGHT, rcx)):
            lit = sim.led(side)
            s = (g["on"] if lit else g["off"]) + " LED"
            self.put(y, cx - len(s) // 2, s, self.attr_led if lit else 0)
        if app.buzzer.sounding or time.monotonic() < self.beep_until:
            last = app.buzzer.last
            name = BEEP_NAMES[last] if 0 <= last < len(BEEP_NAMES) else ""
            s = " %s BEEP %s " % (g["beep"], name)
            self.put(y, ccx - len(s) // 2, s, self.attr_beep)
        y += 2
        # the three keys and their state
        keys = ((LEFT, lcx, "[a] left", "down"), (PAUSE, ccx, "[space] pause key", "held"),
                (RIGHT, rcx, "[l] right", "down"))
        for b, cx, name, down in keys:
            self.put(y, cx - len(name) // 2, name)
            st = down if sim.held(b) else "up"
            self.put(y + 1, cx - len(st) // 2, st,
                     self.curses.A_REVERSE if sim.held(b) else 0)
        y += 3
        self.put(y, x0, g["bl"] + g["h"] * inner + g["br"])
        for yy in range(face_top + 1, y):
            self.put(yy, x0, g["v"])
            self.put(yy, x0 + FACE_W - 1, g["v"])
        y += 1
        # status and help
        st = self.status()
        sx = x0 if x0 + len(st) < w else max(0, w - 1 - len(st))
        self.put(y, sx, st[:w - 1])
        if self.note and time.monotonic() < self.note_until:
            self.put(y + 1, x0, self.note[:w - x0 - 1], self.curses.A_BOLD)
        help_ = self.help_line()
        self.put(h - 1, max(0, (w - len(help_)) // 2), help_[:w - 1], self.curses.A_REVERSE)
        scr.refresh()

    def status(self):
        import app as appmod
        sim = self.sim
        app = sim.app
        parts = [app.clock.rules.name, "t " + fmt_vtime(sim.now()),
                 "x " + fmt_speed(self.speed)]
        if app.mode == appmod.MODE_SETUP:
            parts.append("setup menu")
        elif app.mode == appmod.MODE_REFEREE:
            parts.append("referee menu")
        if sim.game is not None:
            n = len(sim.game.events)
            if sim.replaying():
                parts.append("replay %d/%d" % (sim.next_ev, n))
            elif sim.stop_at is not None:
                parts.append("replay end: time stopped (a key plays on)")
            else:
                parts.append("replay done, live")
        return ("  %s  " % self.g["dot"]).join(parts)


def _set_locale():
    # curses draws wide characters only under the user's locale.
    import locale
    try:
        locale.setlocale(locale.LC_ALL, "")
    except locale.Error:
        pass


def terminal_watch(fds=None):
    """A function telling whether the terminal has gone away: the input or
    output file hung up, failed or closed (poll() reports POLLHUP, POLLERR or
    POLLNVAL).  curses's getch() returns -1 for
    "no key" and for "no terminal" alike, so without this a simulator whose
    terminal closed without a SIGHUP reaching it (started with setsid or
    nohup, or the hang-up lost) would spin on a dead terminal forever.
    Where poll() does not exist (Windows) it always says no."""
    import select
    if not hasattr(select, "poll"):
        return lambda: False
    if fds is None:
        fds = []
        for f in (sys.stdin, sys.stdout):
            try:
                fds.append(f.fileno())
            except (AttributeError, OSError, ValueError):
                pass
    p = select.poll()
    for fd in fds:
        p.register(fd, select.POLLIN)
    bad = select.POLLHUP | select.POLLERR | select.POLLNVAL

    def gone():
        for fd, ev in p.poll(0):
            if ev & bad:
                return True
        return False
    return gone


def _exit_on_hangup():
    """A closed terminal or a kill: leave like `q` does (curses.wrapper
    restores the terminal, the temporary state dir is removed)."""
    import signal

    def bye(sig, frame):
        raise SystemExit(128 + sig)
    for name in ("SIGHUP", "SIGTERM"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, bye)


# -- the command -------------------------------------------------------------------
def add_arguments(p):
    import profiles
    p.add_argument("--profile", choices=profiles.NAMES,
                   help="rule profile (default: the saved setting, sdev on a fresh state dir)")
    p.add_argument("--base", type=_arg(parse_base), metavar="MM:SS",
                   help="base time for both sides (below the setup menu's 01:00 it "
                        "is used for this run but not saved)")
    p.add_argument("--base-left", type=_arg(parse_base), metavar="MM:SS",
                   help="the left side's base time (handicap, late arrival)")
    p.add_argument("--base-right", type=_arg(parse_base), metavar="MM:SS")
    p.add_argument("--lang", choices=LANGS, help="display language")
    p.add_argument("--board", choices=BOARDS, default="sim",
                   help="sim: 16x2 LCD (default); sim_2004: 20x4")
    p.add_argument("--speed", type=_arg(parse_speed), default=Fraction(1), metavar="N",
                   help="virtual time runs N times faster than real time (default 1)")
    p.add_argument("--replay", metavar="FILE",
                   help="play a game log / replay file back on the clock")
    p.add_argument("--state-dir", metavar="DIR", default=None,
                   help="where the clock's flash lives: settings, the game in progress "
                        "and its game logs (games/), kept after the simulator ends, as "
                        "a clock keeps them (default build/sim)")
    p.add_argument("--fresh", action="store_true",
                   help="a new clock: a temporary state folder, removed at exit")
    p.add_argument("--real-holds", action="store_true",
                   help="practise the real holds: a, l and space each put their key "
                        "down at one tap and up at the next (a terminal never reports "
                        "a release), with no shortcut for the held gestures")


def _arg(fn):
    import argparse

    def conv(text):
        try:
            return fn(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e))
    conv.__name__ = fn.__name__
    return conv


# issue 27: the simulator's flash is kept (it was a temporary folder removed at
# exit, and the game logs with it): settings, a game left running (it comes
# back paused, as after a power cut) and the logs stay, as on a clock.
DEFAULT_STATE = os.path.join(host_sim.ROOT, "build", "sim")


def state_folder(args):
    """(temporary folder to remove at exit or None, the state folder)."""
    if getattr(args, "fresh", False) and args.state_dir is None:
        temp = tempfile.mkdtemp(prefix="scrabble-clock-sim-")
        return temp, temp
    state_dir = args.state_dir or DEFAULT_STATE
    os.makedirs(state_dir, exist_ok=True)
    return None, state_dir


def run(args, join=None, uid=None):
    """The `sim` subcommand.  Returns the exit status.  join(sim): attaches
    what else the clock has (the hall's network part, `python -m hall sim`:
    the simulator itself never imports the hall) and returns words for the
    status label; uid: the clock's machine.unique_id() (its logs' `# clock`
    line; the hall's joined clock publishes the same id)."""
    try:
        import curses
    except ImportError:
        print("the simulator needs the curses module "
              "(on Windows: pip install windows-curses)", file=sys.stderr)
        return 1
    game = None
    if args.replay is not None:
        from host_sim import replay
        if args.profile or args.base or args.base_left or args.base_right:
            print("--replay takes the profile and base times from the file; "
                  "drop --profile/--base*", file=sys.stderr)
            return 2
        game = replay.load_or_report(args.replay, sys.stderr)
        if game is None:
            return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("the simulator needs a terminal (stdin and stdout)", file=sys.stderr)
        return 1
    board = load_board(args.board)
    temp, state_dir = state_folder(args)
    root = os.path.join(os.path.abspath(state_dir), "")
    try:
        try:
            if game is not None:
                r = game.rules
                extra = write_settings(root, r.name, r.base[0], r.base[1],
                                       args.lang or game.lang)  # the log's language
            else:
                bl = args.base_left if args.base_left is not None else args.base
                br = args.base_right if args.base_right is not None else args.base
                extra = write_settings(root, args.profile, bl, br, args.lang)
        except OSError as e:
            print("state dir %s: %s" % (state_dir, e), file=sys.stderr)
            return 1
        sim = Sim(board, root, args.speed, game, extra, uid)
        label = "%dx%d" % (board.LCD_COLS, board.LCD_ROWS)
        if join is not None:
            label += join(sim)
        if game is not None:
            label += " " + UNI["dot"] + " replay " + os.path.basename(args.replay)
        _set_locale()
        _exit_on_hangup()
        # The terminal's own size (its ioctl), never LINES/COLUMNS left in
        # the environment, which ncurses would take first (a shell's or a
        # test runner's 80x24: a 40x10 window drawn as 80x24, never told it
        # is too small; curses.use_env(False) would take terminfo's 80x24)
        for k in ("LINES", "COLUMNS"):
            os.environ.pop(k, None)
        try:
            curses.wrapper(lambda scr: Tui(scr, sim, args.speed, label,
                                           getattr(args, "real_holds", False)).run())
        except KeyboardInterrupt:
            pass
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    if temp is None:
        print("the clock's settings, game and logs are kept in %s (games/: the logs; "
              "--state-dir DIR for another clock, --fresh for a new one)"
              % os.path.relpath(state_dir), flush=True)
    return 0
