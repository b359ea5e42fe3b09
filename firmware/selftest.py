# The self-test (issue 37): an organizer checks a clock built by hand before
# a tournament.  The setup menu's "Self-test" item opens it (either arrow);
# it is one of the app's screens (app.py MODE_SELFTEST): handle(action, t)
# as the menus have it (menu.py's actions, at each key's edge), and tick(now)
# every main-loop step, which drives the display, the LEDs and the buzzer
# itself.  Outside a game, so it allocates freely.
#
# One page per item the clock has (an item not fitted is left out):
#   keys      every key shown as it goes down (a block while held, "+" once
#             pressed and released); passes by itself once all three have
#   display   each display family in turn (display.py's test(k)): the
#             HD44780's every cell with all dots lit, then its eight CGRAM
#             codes loaded with a staircase of bars in every cell; the
#             TM1637 modules' every segment and colon, then each segment
#             alone; over and over until the organizer answers; a bus that
#             does not answer fails it at once
#   buzzer    a beep every 2 s, even with the sound off
#   LEDs      left and right in turn
#   flash     its free space (at least MIN_FREE) and a small file written
#             through fsys.py's filesystem, read back and removed
#   battery   the voltage now, above the board's low level
# On the pages the organizer judges (display, buzzer, LEDs) the right key
# says yes, the left no.  Holding the pause key 2 s (menu.py's A_DONE: no
# key tested alone can do it) goes on to the next page, the item failed if
# it had not passed; the screen says so.  The last page shows each item's
# result; the same hold there leaves for READY.
#
# The result (Result, kept by the app from power-up) is what the setup
# menu's item shows and, on a clock in the hall, the one field `selftest`
# of its state message (hallmsg.py via source.py): None before any
# self-test, "pass", or "fail" and the failed items' codes.
import fsys
import lang
import outputs
import rows as rowsmod
from view import G_PAUSE
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE, EXIT

UNTESTED = 0
PASS = 1
FAIL = 2

K_KEYS = 0
K_DISPLAY = 1
K_BEEP = 2
K_LEDS = 3
K_FLASH = 4
K_BATTERY = 5

PATTERN_MS = 1500      # an HD44780 pattern shows this long ...
ASK_MS = 3000          # ... and the question between the rounds of them
SEGMENT_MS = 400       # a TM1637 pattern
BEEP_EVERY_MS = 2000
LED_MS = 500
SHOW_MS = 2000         # a measured item's result; the 16x2's alternating rows
KEYS_DONE_MS = 800     # all keys seen: the next page after this
MIN_FREE = 16 * 1024   # free flash for a game's log and the state files
TEST_FILE = "selftest.tmp"
BLOCK = 0xFF           # a key held down: all dots (hd44780.ALL_DOTS)
SEEN = 0x2B            # "+": pressed and released
NOT_YET = 0x5F         # "_"
GOOD = 0x2B            # "+" and "X" on the result page
BAD = 0x58
TEST_BEEP = outputs.BEEP_FLAG


class Item:
    """One thing the self-test checks: `code` its name in the hall's field,
    `title`/`short` its lang.py words, `kind` K_*, `arg` the display's
    index; `state` UNTESTED/PASS/FAIL, `info` what was measured (KB free,
    mV)."""

    def __init__(self, code, title, short, kind, arg=0):
        self.code = code
        self.title = title
        self.short = short
        self.kind = kind
        self.arg = arg
        self.state = UNTESTED
        self.info = -1


class Result:
    """The last self-test's items (None: none since power-up) and its
    verdict: UNTESTED, PASS (every item passed) or FAIL."""

    def __init__(self):
        self.items = None
        self.verdict = UNTESTED

    def set(self, items):
        self.items = items
        bad = [i for i in items if i.state != PASS]
        self.verdict = FAIL if bad else PASS

    def summary(self):
        """The hall's field: None, "pass", or "fail <code> <code> ..."."""
        if self.items is None:
            return None
        bad = [i.code for i in self.items if i.state != PASS]
        return "fail " + " ".join(bad) if bad else "pass"


def items_of(display, buzzer, leds, battery):
    """The items this clock has, in page order."""
    out = [Item("keys", "ST_I_KEYS", "ST_S_KEYS", K_KEYS)]
    for i in range(len(display.outs)):
        fam = display.outs[i].fam
        text = fam.rows > 0
        out.append(Item(getattr(fam, "name", "display"), "ST_I_LCD" if text else "ST_I_DIG",
                        "ST_S_LCD" if text else "ST_S_DIG", K_DISPLAY, i))
    if buzzer.pwm is not None:
        out.append(Item("buzzer", "ST_I_BEEP", "ST_S_BEEP", K_BEEP))
    if leds.fitted:
        out.append(Item("leds", "ST_I_LEDS", "ST_S_LEDS", K_LEDS))
    out.append(Item("flash", "ST_I_FLASH", "ST_S_FLASH", K_FLASH))
    if battery.adc is not None:
        out.append(Item("battery", "ST_I_BAT", "ST_S_BAT", K_BATTERY))
    return out


def check_flash(fs, root):
    """(free KB or -1, passed): the free space (fsys.free_bytes) and a
    small file of every byte value written, read back and removed."""
    free = fsys.free_bytes(fs, root or "/")
    data = bytes(range(256)) * 2
    path = root + TEST_FILE
    ok = False
    try:
        f = fs.open(path, "wb")
        try:
            f.write(data)
        finally:
            f.close()
        f = fs.open(path, "rb")
        try:
            back = f.read()
        finally:
            f.close()
        fs.remove(path)
        ok = back == data
    except OSError:
        pass
    kb = free // 1024 if free >= 0 else -1
    return kb, ok and (free < 0 or free >= MIN_FREE)


class SelfTest:
    """The self-test screen (the top of the file).  `result`: the app's
    Result, filled when the last page is reached."""

    def __init__(self, lang_code, rows, buttons, display, buzzer, leds, battery,
                 fs, root, result, now, diff):
        self.w = lang.table(lang_code)
        self.rows = rows
        self.buttons = buttons
        self.display = display
        self.buzzer = buzzer
        self.leds = leds
        self.battery = battery
        self.fs = fs
        self.root = root
        self.result = result
        self.diff = diff
        self.items = items_of(display, buzzer, leds, battery)
        self.page = 0             # index in items; len(items): the results
        self.down = bytearray(3)  # keys page: seen down, seen up again
        self.up = bytearray(3)
        self._begin(now)

    @classmethod
    def of(cls, app, now):
        """The self-test of app.App's parts (its public attributes)."""
        return cls(app.settings.lang, app.rows, app.buttons, app.display, app.buzzer,
                   app.leds, app.battery, app.store.fs, app.root, app.tested, now,
                   app.diff)

    # -- the menus' interface (app.py) ----------------------------------------------
    def mark(self):
        """(A gesture undoes nothing here: a key seen was seen.)"""

    def undo(self, t=None):
        pass

    def item(self):
        return self.items[self.page] if self.page < len(self.items) else None

    def handle(self, action, t):
        it = self.item()
        if it is None:
            return EXIT if action == A_DONE else None
        if action == A_DONE:
            if it.state != PASS:
                it.state = FAIL
            self._next(t)
        elif it.kind == K_KEYS:
            k = 0 if action == A_LEFT else 1 if action == A_RIGHT else \
                2 if action == A_NEXT else -1
            if k >= 0:
                self.down[k] = 1
        elif it.kind in (K_DISPLAY, K_BEEP, K_LEDS) and it.state == UNTESTED \
                and (action == A_LEFT or action == A_RIGHT):
            it.state = PASS if action == A_RIGHT else FAIL
            self._next(t)
        return None

    # -- the pages ------------------------------------------------------------------
    def _begin(self, now):
        self.t0 = now
        self.k = -1               # display: the pattern showing (-1: the question)
        self.at = now             # ... since
        self.beeped = None
        it = self.item()
        if it is None:
            self.result.set(self.items)
        elif it.kind == K_FLASH:
            it.info, ok = check_flash(self.fs, self.root)
            it.state = PASS if ok else FAIL
        elif it.kind == K_BATTERY:
            it.info = self.battery.read(now)
            it.state = PASS if it.info > self.battery.low_mv else FAIL
        elif it.kind == K_DISPLAY and self._is_text(it):
            self.k = 0            # the patterns first, on the display itself
            self._pattern(it, now)

    def _next(self, now):
        it = self.item()
        if it is not None and it.kind == K_DISPLAY:
            self.display.restart(now)
        if it is not None and it.kind == K_LEDS:
            self.leds.show(-1)
        self.page += 1
        self._begin(now)

    def _is_text(self, it):
        return self.display.outs[it.arg].fam.rows > 0

    def tick(self, now):
        """Every main-loop step: the page's hardware, then its rows (from
        the next step on where the page changed meanwhile)."""
        page = self.page
        it = self.item()
        el = self.diff(now, self.t0)
        if it is None:
            pass
        elif it.kind == K_KEYS:
            self._keys(it, now)
        elif it.kind == K_DISPLAY:
            if self._display(it, now):
                return            # a pattern shows on the text display
        elif it.kind == K_BEEP:
            if self.beeped is None or self.diff(now, self.beeped) >= BEEP_EVERY_MS:
                self.beeped = now
                self.buzzer.beep(TEST_BEEP, now, True)
        elif it.kind == K_LEDS:
            self.leds.show((el // LED_MS) % 2)
        elif el >= SHOW_MS:       # flash, battery: measured; shown, then on
            self._next(now)
        if self.page == page:
            self.display.draw(self.render(now))

    def _keys(self, it, now):
        b = self.buttons
        for k in range(3):
            if self.down[k] and not b.pressed(k):
                self.up[k] = 1
        if it.state == UNTESTED and all(self.up[k] for k in range(3)):
            it.state = PASS
            self.t0 = now
        elif it.state == PASS and self.diff(now, self.t0) >= KEYS_DONE_MS:
            self._next(now)

    def _display(self, it, now):
        """The display page's patterns, each in its time; True while one
        shows on the text display (no rows drawn over it)."""
        text = self._is_text(it)
        d = self.diff(now, self.at)
        if self.k < 0:
            if text and d < ASK_MS:
                return False
            self.k = 0
        elif d >= (PATTERN_MS if text else SEGMENT_MS):
            self.k += 1
        else:
            return text
        return self._pattern(it, now)

    def _pattern(self, it, now):
        self.at = now
        r = self.display.test(it.arg, self.k)
        if r == 0:                # its bus did not answer
            it.state = FAIL
            self._next(now)
            return False
        if r < 0:                 # past the last: the question (or again)
            if not self._is_text(it):
                self.k = 0
                self.display.test(it.arg, 0)
                return False
            self.k = -1
            self.display.restart(now)
            return False
        return self._is_text(it)

    # -- the rows -------------------------------------------------------------------
    def render(self, now):
        rows = self.rows
        for r in rows:
            rowsmod.blank(r)
        w = self.w
        it = self.item()
        if it is None:
            self._results(now)
            return rows
        alt = len(rows) < 4 and (self.diff(now, self.t0) // SHOW_MS) % 2 == 1
        top = rows[0]
        if alt:
            rowsmod.put(top, 0, w["ST_NEXT"])
        else:
            rowsmod.put(top, 0, w[it.title])
            if it.state != UNTESTED:
                v = w["ST_PASS" if it.state == PASS else "ST_FAIL"]
                rowsmod.put(top, len(top) - len(v), v)
        if len(rows) >= 4:
            rowsmod.put(rows[3], 0, w["ST_NEXT"])
        line = rows[1]
        if it.kind == K_KEYS:
            self._key_cells(line)
        elif it.kind == K_FLASH:
            if it.info >= 0:
                p = rowsmod.num(line, 0, it.info)
                rowsmod.put(line, p + 1, w["ST_FREE"])
        elif it.kind == K_BATTERY:
            p = rowsmod.num(line, 0, it.info if it.info > 0 else 0)
            rowsmod.put(line, p + 1, b"mV")
        else:
            rowsmod.put(line, 0, w["ST_ASK"])
        return rows

    def _key_cells(self, line):
        w = self.w
        names = (w["RES_L"], w["RES_R"], bytes((G_PAUSE,)))
        b = self.buttons
        for k in range(3):
            pos = 5 * k
            rowsmod.put(line, pos, names[k])
            mark = BLOCK if b.pressed(k) else SEEN if self.up[k] else NOT_YET
            line[pos + 2] = mark

    def _results(self, now):
        """Each item's result ("KEY+", "SNDX"), the verdict and how to leave:
        all at once on a 20x4, in turn every SHOW_MS on a 16x2."""
        rows = self.rows
        w = self.w
        per = (len(rows[0]) + 1) // 5         # item cells a row
        verdict = w["ST_PASS" if self.result.verdict == PASS else "ST_FAIL"]
        if len(rows) >= 4:
            rowsmod.put(rows[0], 0, w["T_SELFTEST"])
            rowsmod.put(rows[0], len(rows[0]) - len(verdict), verdict)
            self._cells(rows[1], rows[2], 0, per)
            rowsmod.put(rows[3], 0, w["ST_EXIT"])
            return
        screens = (len(self.items) + 2 * per - 1) // (2 * per)
        s = (self.diff(now, self.t0) // SHOW_MS) % (screens + 1)
        if s == 0:
            rowsmod.put(rows[0], 0, w["T_SELFTEST"])
            rowsmod.put(rows[0], len(rows[0]) - len(verdict), verdict)
            rowsmod.put(rows[1], 0, w["ST_EXIT"])
        else:
            self._cells(rows[0], rows[1], (s - 1) * 2 * per, per)

    def _cells(self, r0, r1, first, per):
        for j in range(2 * per):
            n = first + j
            if n >= len(self.items):
                return
            it = self.items[n]
            row = r0 if j < per else r1
            pos = 5 * (j % per)
            rowsmod.put(row, pos, self.w[it.short])
            row[pos + 3] = GOOD if it.state == PASS else BAD
