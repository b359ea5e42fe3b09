# The device app: buttons -> timing core -> view -> LCD, plus buzzer, LEDs,
# battery, settings, menus, power-loss store and game log.
#
# Hardware stays at the edge: App takes the board description (board.py) and
# a `machine` module and asks hw.py for the device objects (keys, display,
# buzzer, LEDs, battery), built once from the board's data.  The simulator and the tests pass the fake machine from
# host_sim/fakehw and an injected tick source; the device passes the real ones.
#
# step() is one main-loop iteration.  In a running game with no key pressed it
# allocates nothing (measured by tests/test_device.py and `make bench`):
# every press is timestamped by the pin IRQ, so a slow LCD write never changes
# the time charged to anyone.
import ticks
import clockcore as cc
import view as viewmod
import rows as rowsmod
import buttons as btn
import hw
import outputs
import settings as setmod
import menu as menumod
import session as sessmod
import gamelog
import results

VERSION = "1.0.0"

MODE_SPLASH = 0
MODE_GAME = 1
MODE_SETUP = 2
MODE_REFEREE = 3
MODE_RESULTS = 4

SPLASH_MS = 1500
NOTICE_MS = 4000
ASK_MS = 6000          # an END?/NEW GAME? question waits this long for L+R
LOOP_MS = 2            # the main loop's pause while something is pending ...
IDLE_LOOP_MS = 20      # ... and while nothing is (bench/target_bench.py: CPU busy)

LCD_RETRY_MS = 100     # a failed display is retried after this, doubling ...
LCD_RETRY_MAX = 2000   # ... up to this
FAIL_WINDOW_MS = 10000  # this many failed loop iterations in this window:
FAIL_LIMIT = 5          # stop feeding the watchdog (a reboot, restored paused)
ERRLOG_MAX = 4096      # errors.txt: at most this many bytes

ASK_NONE = 0
ASK_END = 1            # "END? hold L+R": the end of the game, confirmed
ASK_NEW = 2            # "NEW GAME? L+R": leave the final screen, confirmed

_BEEPS = {cc.EV_WINDOW: outputs.BEEP_WINDOW, cc.EV_FLAG: outputs.BEEP_FLAG,
          cc.EV_FORFEIT: outputs.BEEP_FORFEIT, cc.EV_OVER: outputs.BEEP_FORFEIT}


class App:
    def __init__(self, board, machine, fs=None, ticks_ms=None, diff=None,
                 add=None, root="", feed=None):
        self.ticks_ms = ticks_ms or ticks.ticks_ms
        self.diff = diff or ticks.ticks_diff
        self.add = add or ticks.ticks_add
        self.board = board
        self.root = root
        now = self.ticks_ms()
        # -- the hardware, built from the board file (hw.py)
        self.buttons = hw.buttons(board, machine, self.ticks_ms, self.diff)
        self.gestures = btn.Gestures(self.buttons, self.diff)
        self.lcd = hw.display(board, machine)
        self.nrows = board.LCD_ROWS
        self.lcd_down = False     # the display's bus failed: retry later
        self.lcd_retry_at = now
        self.lcd_backoff = LCD_RETRY_MS
        self.lcd_errors = 0       # bus errors seen (a figure for the log/tests)
        if not self._lcd_start():
            self._lcd_failed(now)
        self.settings = setmod.Settings.load(root + "settings.json", fs)
        self.buzzer = hw.buzzer(board, machine, self.diff, self.add,
                                self.settings.sound)
        self.leds = hw.leds(board, machine)
        self.battery = hw.battery(board, machine, self.diff, self.add)

        # -- the game
        self.clock = cc.Clock(self.settings.rules(), now, self.diff, self.add,
                              self._on_event)
        self.view = viewmod.View(board.LCD_COLS, board.LCD_ROWS, self.settings.lang)
        self._set_header()
        self.rows = [bytearray(b" " * board.LCD_COLS) for _ in range(board.LCD_ROWS)]
        # the power-loss store, the game log and their order (session.py)
        # (`feed`: the watchdog's, fed between slices of flash work, from
        # the restore at power-up on; run() sets it too)
        self.wdt_feed = feed
        self.healthy = True       # False: let the watchdog reboot the clock
        self.session = sessmod.Session(self.clock, now, self.diff, fs, root,
                                       gamelog.clock_id(machine), self._table,
                                       self._feed)
        self.store = self.session.store
        self.log = self.session.log
        self.pause_acted = False  # the pause key's edge paused a running clock
        self.dirty = True         # something on the game screen changed
        self._k_run = self._k_win = 0   # what the screen showed last:
        self._k_side = -2               # seconds, window seconds, side
        self.ask = ASK_NONE       # a question on the display, waiting for L+R
        self.setup_due = False    # a 2 s hold in ready: setup when released alone
        self.menu = None
        self.notes = []           # boot/fault notices, shown in turn: [word, ms]
        self.notice_until = None
        self.fails = [now] * FAIL_LIMIT  # when the last loop iterations failed
        self.fail_i = 0
        self.errors = 0
        self.mode = MODE_SPLASH
        self.splash_until = self.add(now, SPLASH_MS)
        # The tournament hall (firmware/net.py): only on a board with Wi-Fi
        # and a net.json; the hall simulator attaches its own.
        self.net = None
        if getattr(board, "WIFI", False):
            import net
            self.net = net.start(self, root)
        self._splash()
        if self.settings.notice:
            self._note("SETRESET", NOTICE_MS)
        self._restore(now)

    # -- boot -------------------------------------------------------------------
    def _splash(self):
        c = self.board.LCD_COLS
        top = b"Scrabble clock"
        line = ("v" + VERSION + " " + self.clock.rules.name).encode()
        r0 = bytearray(b" " * c)
        r1 = bytearray(b" " * c)
        rowsmod.word(r0, 0, c, top, 2)
        rowsmod.word(r1, 0, c, line, 2)
        if not self.lcd_down:
            try:
                self.lcd.show(0, r0)
                self.lcd.show(1, r1)
            except OSError:
                self._lcd_failed(self.ticks_ms())

    def _set_header(self):
        self.dirty = True
        self.view.show_rules(self.clock.rules)

    def _restore(self, now):
        """Resume a game cut off by a power failure (TSO § 4.1 f): paused, as
        of the last checkpoint, with a notice on the screen."""
        r = self.session.restore(now, self.settings.rules)
        if r == sessmod.LOST:
            # Corrupt or foreign state file: a clean `ready`, and say so.
            self._note("STATELOST", NOTICE_MS)
        elif r != sessmod.NOTHING:
            self._set_header()  # the restored game's rules, not the settings'
            if r == sessmod.RESTORED:
                # The notice stays until the next key press resumes play.
                self._note("RESTORED", 0)

    @property
    def log_on(self):
        return self.session.on

    def _log_ms(self, t):
        return self.session.log_ms(t)

    # -- the core's events: log, persist, beep ----------------------------------
    def _on_event(self, code, side, t, arg):
        self.dirty = True
        # the log line, then the checkpoint (session.py)
        self.session.event(code, side, t, arg)
        if cc.is_action(code) and self.notes:
            self.notes = []          # a key press dismisses the notices
            self._show_note(t)
        if code in _BEEPS:
            self.buzzer.beep(_BEEPS[code], t)
        if self.net is not None:
            self.net.event(code, side, t, arg)

    def _table(self):
        """The table number for the log header: the setup menu's, else the
        hall's (net.json) on a clock that has one; 0 = none."""
        t = self.settings.table
        if not t and self.net is not None:
            t = self.net.table
        return t

    # -- the main loop ------------------------------------------------------------
    def step(self):
        """One main-loop iteration.  Split into small methods: MicroPython
        puts a call frame with more than 11 words of locals and stack on the
        heap, and this must not allocate."""
        now = self.ticks_ms()
        self._inputs(now)
        if self.lcd_down and self.diff(now, self.lcd_retry_at) >= 0:
            self._lcd_retry(now)
        mode = self.mode
        if mode == MODE_GAME:
            rows = self._game_tick(now)
            if rows is not None:
                self._draw(rows)
        elif mode == MODE_SPLASH:
            if self.diff(now, self.splash_until) >= 0:
                self._set_mode(MODE_GAME)
                self._show_note(now)  # notices are timed from here
        else:
            self.menu.render(self.rows)
            self._draw(self.rows)
            self.leds.show(-1)
        self.buzzer.update(now)
        self._flash(now, mode)
        self.battery.update(now)
        if self.net is not None:
            self.net.poll(now)

    def _flash(self, now, mode):
        """After the LEDs and the LCD: the journal's records of this step
        (a checkpoint when due), then, in a game in ready or over, one slice
        of flash work (session.py)."""
        self.session.tick(now, self.clock.running() >= 0, mode == MODE_GAME)

    def _inputs(self, now):
        """Every action the buttons produced, each at its own edge time."""
        g = self.gestures
        a = g.next(now)
        while a != btn.NONE:
            if self.mode == MODE_GAME:
                self._game_action(a, g.t, now)  # (a small frame: no allocation)
            else:
                self._action(a, g.t, now)
            a = g.next(now)
        if self.setup_due and not g.held(btn.BTN_PAUSE):
            self._setup_on_release(now)

    def _setup_on_release(self, now):
        # The setup menu opens when the 2 s hold ends alone: a slow referee
        # who adds both player buttons later gets the referee menu instead.
        self.setup_due = False
        if self.mode == MODE_GAME and self.clock.state == cc.READY \
                and self.gestures.alone():
            self.menu = menumod.SetupMenu(self.settings)
            self._set_mode(MODE_SETUP)

    def _game_tick(self, now):
        c = self.clock
        g = self.gestures
        # A press waiting to be told from a gesture (buttons.CHORD_MS) is
        # charged at its edge: the clock does not run past it meanwhile.
        c.update(g.hold_t if g.holding else now)
        if self.notice_until is not None and self.diff(now, self.notice_until) >= 0:
            self._notice_over(now)
        if self.view.lowbat != self.battery.low:
            self.view.lowbat = self.battery.low
            self.dirty = True
        self.leds.show(c.running())
        if self._changed(c):
            self.dirty = False
            return self.view.render(c)
        return None  # nothing visible changed: no render, no LCD traffic

    def _changed(self, c):
        """Did anything the display shows change?  Events, notices and
        modes set `dirty`; between them only the running side's seconds,
        the challenge window's and the lateness can move."""
        r = c.running()
        k = (c.rem[r] + 999) // 1000 if r >= 0 else 0
        w = (c.win + 999) // 1000
        if k != self._k_run or w != self._k_win or r != self._k_side:
            self._k_run = k
            self._k_win = w
            self._k_side = r
            return True
        return self.dirty

    def _draw(self, rows):
        if self.lcd_down:
            return
        try:
            self._show(rows)
        except OSError:
            # A NACK or a timeout on the display's bus (a loose cable,
            # static): the clock goes on, the display is retried.  (A call
            # without arguments: a deeper stack here would put this frame
            # on the heap every iteration.)
            self._lcd_lost()

    def _show(self, rows):
        # (its own frame: a try block and a loop in one function make the
        # frame too large for MicroPython to keep it off the heap)
        lcd = self.lcd
        for r in range(self.nrows):
            lcd.show(r, rows[r])

    # -- the display's bus --------------------------------------------------------
    def _lcd_start(self):
        try:
            self.lcd.reinit()
            for code in viewmod.GLYPHS:
                self.lcd.glyph(code, viewmod.GLYPHS[code])
            return True
        except OSError:
            return False

    def _lcd_lost(self):
        self._lcd_failed(self.ticks_ms())

    def _lcd_failed(self, now):
        self.lcd_errors += 1
        self.lcd_down = True
        self.lcd_retry_at = self.add(now, self.lcd_backoff)
        b = self.lcd_backoff * 2
        self.lcd_backoff = b if b < LCD_RETRY_MAX else LCD_RETRY_MAX

    def _lcd_retry(self, now):
        """Init the backpack again; on success everything is redrawn (the
        driver forgot what the display holds) and the display says so."""
        if not self._lcd_start():
            self._lcd_failed(now)
            return
        self.lcd_down = False
        self.lcd_backoff = LCD_RETRY_MS
        self.dirty = True       # the driver forgot the screen: redraw it all
        self._note("LCDBACK", NOTICE_MS)

    # -- notices ------------------------------------------------------------------
    def _note(self, key, ms):
        """Queue a notice (ms = 0: until a key); each shows in turn."""
        self.notes.append([self.view.words[key], ms])
        if len(self.notes) == 1 and self.ask == ASK_NONE:
            self._show_note(self.ticks_ms())

    def _show_note(self, now):
        self.dirty = True
        if self.ask != ASK_NONE:
            return
        if self.notes:
            w, ms = self.notes[0]
            self.view.notice = w
            self.notice_until = self.add(now, ms) if ms else None
        else:
            self.view.notice = None
            self.notice_until = None

    def _notice_over(self, now):
        if self.ask != ASK_NONE:
            self.ask = ASK_NONE      # nobody answered the question
        elif self.notes:
            self.notes.pop(0)
        self._show_note(now)

    # -- the main loop, contained ---------------------------------------------------
    def run(self, sleep_ms=ticks.sleep_ms, feed=None):
        """The main loop.  Anything unexpected that escapes an iteration is
        written to errors.txt (bounded) and the loop goes on; only a failure
        that repeats (FAIL_LIMIT in FAIL_WINDOW_MS) stops feeding the
        watchdog (`feed`, machine.WDT.feed in main.py), which reboots the
        clock into the restored, paused game.  The session's flash work
        feeds it too, between its slices (App._feed)."""
        if feed is not None:
            self.wdt_feed = feed
        while True:
            try:
                self.step()
            except Exception as e:  # noqa: BLE001 - the clock must not stop
                self.failed(e)
            self._feed()
            sleep_ms(self._pause_ms())

    def _feed(self):
        if self.wdt_feed is not None and self.healthy:
            self.wdt_feed()

    def _pause_ms(self):
        """The main loop's sleep: LOOP_MS while a key is down or settling, a
        press waits to be told from a gesture, a beep plays, or a menu or the
        boot screen shows; IDLE_LOOP_MS otherwise, so the core idles between
        the display's second boundaries (each shown at most IDLE_LOOP_MS
        late).  Presses are stamped by the pin IRQ during the sleep: no
        charged time moves."""
        g = self.gestures
        if self.mode != MODE_GAME or g.holding or self.buzzer.active() \
                or self.buttons.pending() or g.held(0) or g.held(1) or g.held(2):
            return LOOP_MS
        return IDLE_LOOP_MS

    def failed(self, e):
        now = self.ticks_ms()
        self.errors += 1
        i = self.fail_i
        oldest = self.fails[i]
        self.fails[i] = now
        self.fail_i = (i + 1) % FAIL_LIMIT
        if self.errors >= FAIL_LIMIT and self.diff(now, oldest) < FAIL_WINDOW_MS:
            self.healthy = False
        try:
            self._errlog("%d %s: %s\n" % (self._log_ms(now), type(e).__name__, e))
        except Exception:  # noqa: BLE001 - a full or broken flash
            pass

    def _errlog(self, line):
        fs = self.store.fs
        path = self.root + "errors.txt"
        try:
            size = fs.stat(path)[6]
        except OSError:
            size = 0
        f = fs.open(path, "wb" if size + len(line) > ERRLOG_MAX else "ab")
        try:
            f.write(line.encode())
        finally:
            f.close()

    # -- actions ------------------------------------------------------------------
    def _action(self, a, t, now):
        mode = self.mode
        if mode == MODE_SPLASH:
            return  # keys during the 1.5 s boot screen do nothing
        if mode == MODE_GAME:
            self._game_action(a, t, now)
        elif a != btn.LEFT and a != btn.RIGHT and a != btn.PAUSE_SHORT \
                and a != btn.PAUSE_LONG:
            return  # the menus take taps and the long press only
        else:
            m = menumod.A_LEFT if a == btn.LEFT else menumod.A_RIGHT if a == btn.RIGHT \
                else menumod.A_NEXT if a == btn.PAUSE_SHORT else menumod.A_DONE
            self.buzzer.beep(outputs.BEEP_KEY, now)
            self._menu_done(self.menu.handle(m, t), now)

    def _menu_done(self, r, now):
        """What a menu's handle() returned (menu.py: one code)."""
        if r == menumod.SAVE or r == menumod.RESULTS:
            self._leave_setup(now)
            if r == menumod.RESULTS:
                self.menu = menumod.ResultsMenu(
                    results.finished_games(self.log), self.settings.lang)
                self._set_mode(MODE_RESULTS)
        elif r == menumod.RESET or r == menumod.RULES:
            # The referee reset the game or changed the base time before
            # the start: a new game, with the referee's rules.
            self._forget_game()
            if r == menumod.RULES:
                self.session.save(now)  # the referee's base time survives a power cut
            else:
                self._to_game()
        elif r == menumod.EXIT:
            self._to_game()

    def _to_game(self):
        self._set_header()
        self._set_mode(MODE_GAME)

    def _set_mode(self, mode):
        self.mode = mode
        self.dirty = True
        # In the menus a tap acts at once; in a game a player press waits
        # CHORD_MS to be told from the referee gesture (buttons.py).
        self.gestures.chord_ms = btn.CHORD_MS if mode == MODE_GAME else 0

    def _ask(self, kind, now):
        """Put a question on the display: only both player buttons held
        (the pause key up) answer it yes; anything else drops it."""
        self.ask = kind
        self.dirty = True
        self.view.notice = self.view.words["ASK_END" if kind == ASK_END else "ASK_NEW"]
        self.notice_until = self.add(now, ASK_MS)

    def _unask(self):
        if self.ask != ASK_NONE:
            self.ask = ASK_NONE
            self._show_note(self.ticks_ms())
            return True
        return False

    def _game_action(self, a, t, now):
        """SPEC v2 §4 Gestures on the device: no single held key ends,
        resets or starts a game; an end or a new game is confirmed by both
        player buttons held with the pause key up, which the referee
        gesture (the pause key with both buttons) can never give.
        (Split by action: a press in a running game must not allocate, and
        MicroPython puts a frame of more than ~11 words on the heap.)"""
        if a == btn.LEFT or a == btn.RIGHT:
            self._player(a, t)
        elif a == btn.PAUSE_DOWN or a == btn.PAUSE_SHORT:
            self._pause_key(a, t)
        else:
            self._gesture(a, t, now)

    def _player(self, a, t):
        if self._unask():
            return  # a single button answers "no"
        self.clock.press(cc.LEFT if a == btn.LEFT else cc.RIGHT, t)

    def _pause_key(self, a, t):
        c = self.clock
        if a == btn.PAUSE_DOWN:
            self._unask()
            # A running clock stops on the key's leading edge (TSO § 4.1); a
            # late player's clock too (the late player has arrived).
            self.pause_acted = c.running() >= 0
            if self.pause_acted:
                c.pause(t)
        else:
            # A paused clock resumes when the key is released, so that a
            # hold can be a challenge (any length) or a question.
            if not self.pause_acted and c.state == cc.PAUSED:
                c.pause(t)
            self.pause_acted = False

    def _gesture(self, a, t, now):
        c = self.clock
        st = c.state
        if a == btn.PAIR:
            if self.ask != ASK_NONE:
                return  # both held: the CONFIRM may follow
            # Both player buttons together: the first edge won, the other
            # must not end the turn it has just started.  It is logged (a
            # comment: a replay must not apply it).
            x = self.gestures.first
            c.press(x, t)
            self.session.ignored(self.gestures.t2, x)
        elif a == btn.CONFIRM:
            kind = self.ask
            self._unask()
            if kind == ASK_END:
                c.end(t)
            elif kind == ASK_NEW:
                self.new_game(now)
        elif a == btn.PAUSE_LONG:
            acted = self.pause_acted
            self.pause_acted = False
            if acted:
                return  # held through a challenge: nothing more
            if st == cc.READY:
                self.setup_due = True
            elif st == cc.PAUSED:
                self._ask(ASK_END, now)
            elif st == cc.OVER:
                self._ask(ASK_NEW, now)
        elif a == btn.LATE_L or a == btn.LATE_R:
            # The present player (pause key, then their own button, held
            # 2 s) starts the absent opponent's clock (PFS § 2.4, TSO § 2.4).
            if st == cc.READY:
                c.start_late(cc.RIGHT if a == btn.LATE_L else cc.LEFT, t)
        elif a == btn.REFEREE:
            self._unask()
            self.setup_due = False
            if st == cc.READY or st == cc.PAUSED or st == cc.OVER:
                self.menu = menumod.RefereeMenu(c, self.settings.lang)
                self._set_mode(MODE_REFEREE)

    def _leave_setup(self, now):
        s = self.settings
        s.save()
        self.buzzer.enabled = s.sound
        self.view.set_language(s.lang)
        self.new_game(now)  # what the referee changed in ready goes too
        self._set_mode(MODE_GAME)
        if self.net is not None:
            self.net.retable(now)  # the menu's table, from this game on

    # -- the public API (the host tools use only this and the attributes) -----
    def new_game(self, now, rules=None):
        """A new game in `ready` with `rules` (a profiles.Rules; None: the
        settings' rules): the clock reset, the old game's log closed and its
        checkpoint cleared, the 20x4 header rewritten.  On the clock: after
        setup, and leaving the final screen (confirmed)."""
        self.clock.rules = rules if rules is not None else self.settings.rules()
        self.clock.reset(now)
        self._forget_game()
        self._set_header()

    def show_game(self, now):
        """The game screen from the next step on: no boot screen, no
        notices (the simulator replaying a file)."""
        self.splash_until = now
        self.notes = []
        self._show_note(now)

    def _forget_game(self):
        """The clock was reset: nothing to restore, next event opens a new log."""
        self.session.forget()
        self.notes = []
        self._show_note(self.ticks_ms())
