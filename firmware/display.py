# The LCD keeper: it sends the rows a screen rendered to the display, keeps
# the clock going when the display's bus fails (retried with back-off, and
# redrawn in full when it answers again) and shows the notices (boot and
# fault messages: "Restored", "Display back" ...) in turn in the game
# screen's centre field.
#
# A question (question.py) takes that field over while it shows: hold() and
# release(); the notices wait meanwhile.  Nothing here allocates in the main
# loop (a notice allocates when it is queued, not when it shows).
import view as viewmod

LCD_RETRY_MS = 100     # a failed display is retried after this, doubling ...
LCD_RETRY_MAX = 2000   # ... up to this
NOTICE_MS = 4000       # a timed notice shows this long


class Display:
    def __init__(self, lcd, view, now, ticks_ms, diff, add):
        self.lcd = lcd
        self.nrows = view.rows
        self.view = view          # the game screen's: notice, dirty, words
        self.ticks_ms = ticks_ms
        self.diff = diff
        self.add = add
        self.down = False         # the display's bus failed: retry later
        self.retry_at = now
        self.backoff = LCD_RETRY_MS
        self.errors = 0           # bus errors seen (a figure for the log/tests)
        self.notes = []           # notices, shown in turn: [word, ms]
        self.until = None         # when the notice showing ends (None: a key)
        self.held = False         # a question shows instead of the notices
        if not self._start():
            self._failed(now)

    # -- drawing --------------------------------------------------------------------
    def draw(self, rows):
        if self.down:
            return
        try:
            self._show(rows)
        except OSError:
            # A NACK or a timeout on the display's bus (a loose cable,
            # static): the clock goes on, the display is retried.  (A call
            # without arguments: a deeper stack here would put this frame
            # on the heap every iteration.)
            self._lost()

    def _show(self, rows):
        # (its own frame: a try block and a loop in one function make the
        # frame too large for MicroPython to keep it off the heap)
        lcd = self.lcd
        for r in range(self.nrows):
            lcd.show(r, rows[r])

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to when tick() or notices() next
        has work: the display's retry, or the end of the notice showing."""
        t = self.retry_at if self.down else self.until
        if t is not None:
            d = self.diff(t, now)
            if d < ms:
                return d
        return ms

    # -- the display's bus ----------------------------------------------------------
    def tick(self, now):
        """Every main-loop iteration: a failed display is tried again when
        its back-off is over."""
        if self.down and self.diff(now, self.retry_at) >= 0:
            self._retry(now)

    def _start(self):
        try:
            self.lcd.reinit()
            for code in viewmod.GLYPHS:
                self.lcd.glyph(code, viewmod.GLYPHS[code])
            return True
        except OSError:
            return False

    def _lost(self):
        self._failed(self.ticks_ms())

    def _failed(self, now):
        self.errors += 1
        self.down = True
        self.retry_at = self.add(now, self.backoff)
        b = self.backoff * 2
        self.backoff = b if b < LCD_RETRY_MAX else LCD_RETRY_MAX

    def _retry(self, now):
        """Init the backpack again; on success everything is redrawn (the
        driver forgot what the display holds) and the display says so."""
        if not self._start():
            self._failed(now)
            return
        self.down = False
        self.backoff = LCD_RETRY_MS
        self.view.dirty = True    # the driver forgot the screen: redraw it all
        self.note("LCDBACK")

    # -- notices --------------------------------------------------------------------
    def note(self, key, ms=NOTICE_MS):
        """Queue a notice (lang.py's word `key`; ms = 0: until a key)."""
        self.notes.append([self.view.words[key], ms])
        if len(self.notes) == 1 and not self.held:
            self.show_note(self.ticks_ms())

    def clear(self, now):
        """No notices any more (a key press, a new game)."""
        self.notes = []
        self.show_note(now)

    def show_note(self, now):
        """The first notice into the view, timed from now."""
        self.view.dirty = True
        if self.held:
            return
        if self.notes:
            w, ms = self.notes[0]
            self.view.notice = w
            self.until = self.add(now, ms) if ms else None
        else:
            self.view.notice = None
            self.until = None

    def notices(self, now):
        """On the game screen, every iteration: the next notice when the
        one showing is over."""
        if self.until is not None and self.diff(now, self.until) >= 0:
            if self.notes:
                self.notes.pop(0)
            self.show_note(now)

    def hold(self, word):
        """A question shows `word` instead of the notices until release()."""
        self.held = True
        self.until = None
        self.view.notice = word
        self.view.dirty = True

    def release(self, now):
        self.held = False
        self.show_note(now)
