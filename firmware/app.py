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
import gestures as gst
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

LOCK_MS = 500          # a side just started ignores its own button this long
                       # (SPEC v3 §4 Buttons: no Scrabble turn is that short)
SLOT_MODE = 3          # the game's snapshot slot taken on entering the game
                       # screen with keys held (slots 0-2: each key's press)

ASK_NONE = 0
ASK_END = 1            # "END? hold L+R": the end of the game, confirmed
ASK_NEW = 2            # "NEW GAME? L+R": leave the final screen, confirmed

_BEEPS = {cc.EV_WINDOW: outputs.BEEP_WINDOW, cc.EV_FLAG: outputs.BEEP_FLAG,
          cc.EV_FORFEIT: outputs.BEEP_FORFEIT, cc.EV_OVER: outputs.BEEP_FORFEIT}


def _copy(src, dst):
    """dst[:] = src for two lists of the same length, allocating nothing."""
    i = 0
    n = len(src)
    while i < n:
        dst[i] = src[i]
        i += 1


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
        self.gestures = gst.Gestures(self.buttons, self.diff)
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
        # SPEC v3 §4 Gestures: the game before each key's latest press (a
        # snapshot slot per key, preallocated), and which one is the group's
        self.snaps = [[0] * cc.SNAPSHOT_LEN for _ in range(SLOT_MODE + 1)]
        self.gslot = -1           # -1: the group began outside the game screen
        self.gask = ASK_NONE      # the question showing when the group began
        self.seen = self.buttons.edges()  # the keys' edge count step() began with
        self.lock_side = -1       # the side just started by a player button ...
        self.lock_until = now     # ... ignores its own button until then
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
            self.net = net.start(self.hall_source(), self.store.fs, root,
                                 self.ticks_ms, self.diff, self.add)
        self.settings.hall = self.net  # (the setup menu's "Hall" item)
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

    # -- the hall's door (net.py sees only this, through source.py) -------------
    def hall_source(self):
        """What net.py publishes of this clock, and its hall mark."""
        import source
        return source.Source(self.clock, self.session, self.battery,
                             self.settings, self.log, self.show_hall)

    def show_hall(self, h):
        """The hall's state changed (net.HALL_*): the game screen's mark."""
        self.view.hall = h
        self.dirty = True

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
        self.seen = self.buttons.edges()  # (_sleep: an edge after this wakes it)
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
        while a != gst.NONE:
            if self.mode == MODE_GAME:
                self._game_action(a, g.t)  # (a small frame: no allocation)
            else:
                self._action(a, g.t, now)
            a = g.next(now)

    def _game_tick(self, now):
        c = self.clock
        c.update(now)
        if self.lock_side >= 0 and self.diff(now, self.lock_until) >= 0:
            self.lock_side = -1   # over (and never stale across a tick wrap)
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
            if self.gestures.any_held():
                return               # it may be being answered: wait
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
            self._sleep(sleep_ms, self._pause_ms())

    def _sleep(self, sleep_ms, ms):
        """Sleep up to ms, in 1 ms slices, and wake at once when a key's edge
        arrives (the pin IRQ stamps it during the sleep): a press is acted on
        and shown within a slice of its edge (SPEC v3 §6: 30 ms).  An edge
        that came while the step ran, after it read the keys (an LCD write
        takes milliseconds), ends it before it begins: the count is the one
        step() saw before reading them."""
        b = self.buttons
        e = self.seen
        while ms > 0 and b.edges() == e:
            sleep_ms(1)
            ms -= 1

    def _feed(self):
        if self.wdt_feed is not None and self.healthy:
            self.wdt_feed()

    def _pause_ms(self):
        """The main loop's sleep: LOOP_MS while a key is down or settling, a
        beep plays, or a menu or the boot screen shows; IDLE_LOOP_MS
        otherwise, so the core idles between the display's second boundaries
        (each shown at most IDLE_LOOP_MS late).  A key's edge ends the sleep
        at once (_sleep)."""
        if self.mode != MODE_GAME or self.buzzer.active() \
                or self.buttons.pending() or self.gestures.any_held():
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
        """A key or gesture outside the game screen (the menus)."""
        mode = self.mode
        if mode == MODE_SPLASH:
            return  # keys during the 1.5 s boot screen do nothing
        g = self.gestures
        if g.opened or a == gst.REGROUP:
            self.gslot = -1
            self.menu.mark()
        if a == gst.ALL_UP:
            return
        if a in gst.GESTURES:
            # Gestures undo their keys in a menu too; the pause key held 2 s
            # leaves the menu, both player buttons answer its question.
            if self.menu.undo(t) == menumod.RULES:
                self._menu_done(menumod.RULES, now)
            if a == gst.PAUSE_LONG:
                m = menumod.A_DONE
            elif a == gst.CONFIRM:
                m = menumod.A_CONFIRM
            else:
                return
        elif a == gst.REGROUP:
            return
        else:
            m = menumod.A_LEFT if a == gst.LEFT else menumod.A_RIGHT \
                if a == gst.RIGHT else menumod.A_NEXT
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
        if mode == MODE_GAME and self.gestures.any_held():
            # keys still held from the menu: a gesture they make from here
            # undoes only what they do on the game screen
            self._keep(SLOT_MODE, self.ticks_ms())
            self.gslot = SLOT_MODE
        elif mode != MODE_GAME and self.menu is not None:
            self.menu.mark()

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

    # -- the game screen: keys at their edges, gestures that undo them -------------
    # SPEC v3 §4 Gestures on the device.  (Split into small methods: a press in
    # a running game must not allocate, and MicroPython puts a frame of more
    # than ~11 words on the heap.)
    def _game_action(self, a, t):
        if a <= gst.PAUSE_DOWN:
            self._edge(a - 1, t)
        elif a == gst.ALL_UP:
            self._all_up(t)
        elif a == gst.REGROUP:
            # a release known late: the group began at a later press
            self.gslot = self.gestures.key
            self.gask = self.ask
        else:
            self._gesture(a, t)

    def _edge(self, k, t):
        """Key k's leading edge (0 left, 1 right, 2 pause): first the game as
        it is (the snapshot a gesture of this group may go back to), then
        what the key does at once."""
        self._keep(k, t)
        if self.gestures.opened:
            self.gslot = k
            self.gask = self.ask
        if k == 2:
            self.clock.pause(t)  # TSO § 4.1: the whole clock stops (or goes on)
        else:
            self._player(k, t)

    def _keep(self, k, t):
        """Snapshot slot k: the clock settled to t, copied (no allocation),
        and where the game log stands.  (The copy is a function of its own:
        a loop here made this frame too large to stay off the heap, 136 B at
        every press on the unix port.)"""
        c = self.clock
        c.update(t)
        _copy(c.snapshot(), self.snaps[k])
        self.session.mark(k)

    def _player(self, x, t):
        # SPEC v3 §4 Buttons: after a player button starts a side, that
        # side's own button is ignored for LOCK_MS (both players pressing
        # together change the turn once); the ignored press is logged.
        if x == self.lock_side and self.diff(t, self.lock_until) < 0:
            self.session.ignored(t, 1 - x)
            return
        c = self.clock
        if c.press(x, t) and c.state == cc.RUNNING:
            self.lock_side = c.side
            self.lock_until = self.add(t, LOCK_MS)

    def _all_up(self, t):
        # Every key is up.  A question that showed when these keys went down
        # and that they did not confirm is answered "no"; a 2 s hold in ready
        # opens the setup menu now (a slow referee who adds both player
        # buttons later gets the referee menu instead).
        if self.ask != ASK_NONE and self.gask == self.ask:
            self._unask()
        if self.setup_due:
            self.setup_due = False
            if self.clock.state == cc.READY:
                self.menu = menumod.SetupMenu(self.settings)
                self._set_mode(MODE_SETUP)

    def _group_state(self):
        """The clock's state when the group's first key went down (-1: the
        group began outside the game screen)."""
        k = self.gslot
        return self.snaps[k][1] if k >= 0 else -1

    def _undo(self):
        """A gesture undoes its keys: the clock as it was before the group's
        first edge, and stopped from that edge (SPEC v3 §4); the game log
        drops what the keys logged and records the gesture instead."""
        c = self.clock
        k = self.gslot
        t0 = self.gestures.t0
        c.restore(self.snaps[k])   # settled to t0: the time charged up to it
        self.session.retract(k, self.ticks_ms())
        self.lock_side = -1
        self.dirty = True
        if self.net is not None:
            self.net.dirty = True
        if c.state == cc.RUNNING or c.state == cc.LATE:
            c.pause(t0)

    def _gesture(self, a, t):
        st = self._group_state()
        if st < 0:
            return  # begun in a menu: nothing on the game screen to undo
        if a == gst.PAUSE_LONG and (st == cc.RUNNING or st == cc.LATE):
            return  # pressed while a clock ran: a held pause key only stops it
        if (a == gst.LATE_L or a == gst.LATE_R) and st != cc.READY:
            return  # late arrival is a gesture in ready only
        ask = self.ask
        self._undo()
        self.session.gesture(a, t)
        c = self.clock
        if a == gst.REFEREE:
            self._unask()
            self.setup_due = False
            if c.state == cc.READY or c.state == cc.PAUSED or c.state == cc.OVER:
                self.menu = menumod.RefereeMenu(c, self.settings.lang)
                self._set_mode(MODE_REFEREE)
        elif a == gst.CONFIRM:
            # A confirmation with no question showing does nothing more.
            self._unask()
            if ask == ASK_END:
                c.end(t)
            elif ask == ASK_NEW:
                self.new_game(t)
        elif a == gst.PAUSE_LONG:
            if c.state == cc.READY:
                self.setup_due = True
            elif c.state == cc.PAUSED:
                self._ask(ASK_END, t)
            elif c.state == cc.OVER:
                self._ask(ASK_NEW, t)
        else:
            # The present player (the pause key and their own button, held
            # 2 s) starts the absent opponent's clock from the first of
            # those keys' edges (PFS § 2.4, TSO § 2.4).
            c.start_late(cc.RIGHT if a == gst.LATE_L else cc.LEFT, self.gestures.t0)

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
        self.clock.set_rules(rules if rules is not None else self.settings.rules(), now)
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
