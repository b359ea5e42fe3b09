# The display keeper: it hands the game screen's frame (frame.py) and the
# menus' text rows to the board's display families, keeps the clock going
# when a display's bus fails (each retried with back-off, and redrawn in
# full when it answers again) and shows the notices (boot and fault
# messages: "Restored", "Display back" ...) in turn in the frame's centre.
#
# A question (question.py) takes the centre over while it shows: hold()
# and release(); the notices wait meanwhile.  Nothing here allocates in
# the main loop (a notice allocates when it is queued, not when it shows).
#
# -- The display-family contract (issue 28) ---------------------------------
# The board file names its families: DISPLAY = "hd44780" (the default when
# it names none, boardfacts.py) or a tuple, DISPLAY = ("hd44780", "tm1637").  A family is
# the firmware module of that name; families() imports it by name and calls
#     make(board, machine) -> the family's object
# which builds its hardware from the board file's names and the `machine`
# module (real, or host_sim/fakehw's) and only calls it; nothing is sent
# yet.  The object has:
#     cols, rows   its text geometry; rows = 0: it shows no text (no menus,
#                  no splash, no words): a digits-only family
#     start()      (re)initialise the hardware (glyphs and all) and forget
#                  what it shows, so that the next draw sends everything;
#                  raises OSError while its bus fails (the keeper retries)
#     draw(frame)  draw the game screen from the frame; allocates nothing;
#                  called when the frame changed (frame.seq tells a new
#                  one), raises OSError on a bus error
#     show(rows)   text families only: show `rows` (rows bytearrays of cols
#                  character codes: menus, splash); OSError as draw
#     name         the family's name (the self-test's results)
#     test(k)      the self-test's pattern k = 0, 1, ... (selftest.py): every
#                  cell, glyph or segment the family has, lit in turn; True
#                  shown, False no answer on its bus (or OSError), None past
#                  its last pattern; start() afterwards draws as before
# The first family with text rows shows the menus and the splash; the others
# keep the game's last frame meanwhile.  The simulator finds a family's
# emulator in host_sim/fakehw/<family>_emu.py (host_sim/fakehw/rig.py):
#     attach(board, machine) -> the emulator, put on the fake bus or pins
# and, for the terminal simulator, optionally emu.face_lines() -> [str].
import boardfacts

LCD_RETRY_MS = 100     # a failed display is retried after this, doubling ...
LCD_RETRY_MAX = 2000   # ... up to this
NOTICE_MS = 4000       # a timed notice shows this long


def names(board):
    """The names of the board's display families (boardfacts: DISPLAY, by
    default the HD44780 LCD)."""
    n = boardfacts.fact(board, "DISPLAY")
    return (n,) if isinstance(n, str) else tuple(n)


def families(board, machine):
    """The board's display families, built (the contract above)."""
    return [__import__(n).make(board, machine) for n in names(board)]


class Out:
    """One family and the state of its bus: down, when it is retried."""

    def __init__(self, fam, now):
        self.fam = fam
        self.down = False         # the bus failed: retry later
        self.retry_at = now
        self.backoff = LCD_RETRY_MS
        self.errors = 0           # bus errors seen (a figure for the log/tests)


class Display:
    def __init__(self, fams, frame, now, ticks_ms, diff, add):
        self.outs = [Out(f, now) for f in fams]
        self.text = None          # the Out that shows text (menus, splash)
        for o in self.outs:
            if o.fam.rows and self.text is None:
                self.text = o
        t = self.text.fam if self.text is not None else None
        self.cols = t.cols if t is not None else 16
        self.nrows = t.rows if t is not None else 2
        self.frame = frame        # the game screen's: notice, touch
        self.ticks_ms = ticks_ms
        self.diff = diff
        self.add = add
        self.notes = []           # notices, shown in turn: [word, ms]
        self.until = None         # when the notice showing ends (None: a key)
        self.held = False         # a question shows instead of the notices
        self.ndown = 0            # how many displays are down
        for o in self.outs:
            if not self._start(o):
                self._failed(o, now)

    def text_rows(self):
        """Preallocated rows for the screens that draw text (menus, splash)."""
        return [bytearray(b" " * self.cols) for _ in range(self.nrows)]

    @property
    def down(self):
        """Is any display's bus down?"""
        return self.ndown > 0

    @property
    def errors(self):
        return sum(o.errors for o in self.outs)

    @property
    def backoff(self):
        return self.outs[0].backoff

    # -- drawing --------------------------------------------------------------------
    def draw(self, rows):
        """Text rows (menus, splash) to the text display."""
        if self.text is None or self.text.down:
            return
        try:
            self.text.fam.show(rows)
        except OSError:
            # A NACK or a timeout on the display's bus (a loose cable,
            # static): the clock goes on, the display is retried.  (A call
            # with one argument: a deeper stack here would put this frame
            # on the heap every iteration.)
            self._lost(self.text)

    def draw_frame(self):
        """The game screen's frame to every display."""
        outs = self.outs
        i = 0
        while i < len(outs):
            if not outs[i].down:
                self._frame(outs[i])
            i += 1

    def _frame(self, o):
        # (its own frame, with one argument: a try block and a loop or more
        # arguments in one function make the frame too large for MicroPython
        # to keep it off the heap)
        try:
            o.fam.draw(self.frame)
        except OSError:
            self._lost(o)

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to when tick() or notices() next
        has work: a display's retry, or the end of the notice showing."""
        if self.ndown:
            ms = self._retries(now, ms)
        if self.until is not None:
            d = self.diff(self.until, now)
            if d < ms:
                return d
        return ms

    def _retries(self, now, ms):
        outs = self.outs
        i = 0
        while i < len(outs):
            if outs[i].down:
                d = self.diff(outs[i].retry_at, now)
                ms = d if d < ms else ms
            i += 1
        return ms

    # -- the self-test (selftest.py) ----------------------------------------------------
    def test(self, i, k):
        """Display i's self-test pattern k (its family's test(k)): 1 shown,
        0 its bus failed, -1 past its last pattern (or it has none)."""
        o = self.outs[i]
        t = getattr(o.fam, "test", None)
        if t is None:
            return -1
        try:
            r = t(k)
        except OSError:
            o.errors += 1
            return 0
        return -1 if r is None else (1 if r else 0)

    def restart(self, now):
        """After the self-test: each display started afresh (its glyphs
        loaded back) and drawn in full from the next draw on."""
        for o in self.outs:
            if not self._start(o):
                self._failed(o, now)
        self.frame.touch()

    # -- the displays' buses ----------------------------------------------------------
    def tick(self, now):
        """Every main-loop iteration: a failed display is tried again when
        its back-off is over."""
        if not self.ndown:
            return
        outs = self.outs
        i = 0
        while i < len(outs):
            if outs[i].down and self.diff(now, outs[i].retry_at) >= 0:
                self._retry(outs[i], now)
            i += 1

    def _start(self, o):
        try:
            o.fam.start()
            return True
        except OSError:
            return False

    def _lost(self, o):
        self._failed(o, self.ticks_ms())

    def _failed(self, o, now):
        o.errors += 1
        if not o.down:
            o.down = True
            self.ndown += 1
        o.retry_at = self.add(now, o.backoff)
        b = o.backoff * 2
        o.backoff = b if b < LCD_RETRY_MAX else LCD_RETRY_MAX

    def _retry(self, o, now):
        """Init the display again; on success everything is redrawn (the
        driver forgot what the display holds) and the display says so."""
        if not self._start(o):
            self._failed(o, now)
            return
        o.down = False
        self.ndown -= 1
        o.backoff = LCD_RETRY_MS
        self.frame.touch()        # the driver forgot the screen: redraw it all
        self.note("LCDBACK")

    # -- notices --------------------------------------------------------------------
    def note(self, key, ms=NOTICE_MS):
        """Queue a notice (lang.py's word `key`; ms = 0: until a key)."""
        self.notes.append([self.frame.words[key], ms])
        if len(self.notes) == 1 and not self.held:
            self.show_note(self.ticks_ms())

    def clear(self, now):
        """No notices any more (a key press, a new game)."""
        self.notes = []
        self.show_note(now)

    def show_note(self, now):
        """The first notice into the frame, timed from now."""
        self.frame.touch()
        if self.held:
            return
        if self.notes:
            w, ms = self.notes[0]
            self.frame.set_notice(w)
            self.until = self.add(now, ms) if ms else None
        else:
            self.frame.set_notice(None)
            self.until = None

    def notices(self, now):
        """On the game screen, every iteration: the next notice when the
        one showing is over."""
        if self.until is not None and self.diff(now, self.until) >= 0:
            if self.notes:
                self.notes.pop(0)
            self.show_note(now)

    def hold(self, key):
        """A question shows lang.py's word `key` instead of the notices
        until release()."""
        self.held = True
        self.until = None
        self.frame.set_notice(self.frame.words[key])

    def release(self, now):
        self.held = False
        self.show_note(now)
