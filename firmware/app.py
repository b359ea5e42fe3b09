# The device app: the main loop, the wiring and the mode switch.  Each mode
# is a screen with handle(action, t), which returns one code, and a render:
# the game screen (game.py; question.py's END? and NEW GAME? over it)
# renders a display-neutral frame (frame.py), the setup and referee menus
# and the results (setupmenu.py, refereemenu.py, resultsmenu.py; what they
# share: menu.py) text rows; the boot screen (game.Splash) only renders.
# The app gives the keys' actions to the screen showing, acts on its codes
# and hands what it rendered to the display keeper (display.py), which
# draws it on the board's display families.  The hardware
# comes from hw.py, built from the board file and the `machine` module it is
# given (the fakes of host_sim/fakehw on the PC).  step() is one main-loop
# iteration: in a running game, presses included, it allocates nothing
# (tests/test_device.py, `make bench`).  Between steps run() sleeps until
# the next instant anything shown changes or has work due, or a key's edge
# (a battery clock, issue 30: _pause_ms, _wake, _sleep; nap.py waits).  The
# self-test (selftest.py, from the setup menu) drives the hardware itself.
import ticks
import clockcore as cc
import frame as framemod
import gestures as gst
import hw
import outputs
import settings as setmod
import menu as menumod
import setupmenu
import refereemenu
import resultsmenu
import session as sessmod
import gamelog
import display as dispmod
import game as gamemod
import errlog
import appversion
import nap as napmod
import selftest
from profiles import shown_secs

MODE_SPLASH = 0
MODE_GAME = 1
MODE_SETUP = 2
MODE_REFEREE = 3
MODE_RESULTS = 4
MODE_SELFTEST = 5

SPLASH_MS = 1500
LOOP_MS = 2            # the main loop's pause while something is pending ...
MAX_SLEEP_MS = 1000    # ... else until the next change, at most this (the
                       # watchdog fed, the battery read; bench: CPU busy)
SLICE_MS = napmod.SLICE_MS  # the sleep's slices where the port polls nothing


def _take_table_block(board, fs, root):
    """A table image's net.json and table (provision.py), before the
    settings and the hall read them; a flash that cannot take them is one
    line and the clock starts as it was."""
    import provision
    raw = getattr(fs, "raw", None)       # (a test's filesystem may have none)
    try:
        return provision.apply(fs, root, hw.table_block(board, raw() if raw else None),
                               setmod.Settings)
    except OSError as e:
        print("table image: cannot write its net.json (%s); the clock keeps its own" % e)
        return 0


class App:
    def __init__(self, board, machine, fs=None, ticks_ms=None, diff=None,
                 add=None, root="", feed=None):
        self.ticks_ms = ticks_ms or ticks.ticks_ms
        self.diff = diff or ticks.ticks_diff
        self.add = add or ticks.ticks_add
        self.root = root
        now = self.ticks_ms()
        # -- the hardware, built from the board file (hw.py)
        fs = fs if fs is not None else hw.filesystem(board)
        self.retabled = 0         # a table image's table, taken at this power-up
        if hw.fact(board, "WIFI"):
            self.retabled = _take_table_block(board, fs, root)
        self.buttons = hw.buttons(board, machine, self.ticks_ms, self.diff)
        self.nap = napmod.Nap(self.buttons)   # run()'s sleep, woken by an edge
        self.gestures = gst.Gestures(self.buttons, self.diff, add=self.add)
        self.settings = setmod.Settings.load(root + "settings.json", fs)
        self.frame = framemod.Frame(self.settings.lang)
        self.display = dispmod.Display(dispmod.families(board, machine), self.frame,
                                       now, self.ticks_ms, self.diff, self.add)
        self.buzzer = hw.buzzer(board, machine, self.diff, self.add,
                                self.settings.sound)
        self.leds = hw.leds(board, machine)
        self.battery = hw.battery(board, machine, self.diff, self.add)
        # -- the game: the core, the power-loss store and the game log (the
        # watchdog's `feed` between slices of flash work; run() sets it too)
        self.clock = cc.Clock(self.settings.rules(), now, self.diff, self.add,
                              self._on_event)
        self.wdt_feed = feed
        self.source = None        # the hall's door (source.py), with a hall
        self.session = sessmod.Session(self.clock, now, self.diff, fs, root,
                                       gamelog.clock_id(machine), self.log_table,
                                       self._feed)
        self.store = self.session.store
        self.tested = selftest.Result()     # the last self-test since power-up
        self.log = self.session.log
        self.log.set_lang(self.settings.lang)   # named in each game log's header
        self._setup_was = None  # the settings' rules as the setup menu opened
        self.errlog = errlog.ErrLog(self.store.fs, root + "errors.txt", now,
                                    self.diff, self.session.log_ms)
        # -- the screens: the game's frame, the others' text rows
        self.rows = self.display.text_rows()
        self.game = gamemod.Game(self.clock, self.session, self.gestures,
                                 self.display, self.buzzer, now, self.ticks_ms,
                                 self.diff, self.add)
        self.game.header()
        self.menu = None          # the menu showing (setup, referee, results)
        self.menu_k = 0           # the lateness seconds the referee menu drew
        self.mode = MODE_SPLASH
        self.splash_until = self.add(now, SPLASH_MS)
        self.seen = self.buttons.edges()  # the keys' edge count step() began with
        self.wake_at = now        # the end of the main loop's sleep (_sleep)
        # The hall (net.py): a board with Wi-Fi and a net.json (hall/rehearsal: its own)
        self.net = None
        if hw.fact(board, "WIFI"):
            import net
            self.net = net.start(self.hall_source(), self.store.fs, root,
                                 self.ticks_ms, self.diff, self.add,
                                 hw.fact(board, "TLS_THREAD_STACK"))
        splash = gamemod.Splash(appversion.LABEL, self.clock.rules.name)
        self.display.draw(splash.render(self.rows))
        if self.settings.notice:
            self.display.note("SETRESET")
        self.game.restore(now, self.settings.rules)

    def hall_source(self):
        """The one door between this clock and the hall (source.py), made at
        the first call: net.py is given it, the setup menu reads it."""
        if self.source is None:
            import source
            self.source = source.Source(self.clock, self.session, self.battery, self.settings,
                                        self.log, self.game.show_hall, self.tested)
        return self.source

    def log_table(self):
        """The table in a new game log's header: the setup menu's, else the
        hall's on a clock that has one (source.py); 0: none."""
        src = self.source
        return src.log_table() if src is not None else self.settings.table

    def _on_event(self, code, side, t, arg):
        """The core's events: logged, kept, shown, sounded (game.py)."""
        self.game.event(code, side, t, arg)
        if self.net is not None:
            self.net.event(code, side, t, arg)

    # -- the main loop ------------------------------------------------------------
    def step(self):
        """One main-loop iteration (small methods: MicroPython puts a frame
        of more than 11 words on the heap, and this must not allocate)."""
        now = self.ticks_ms()
        self.seen = self.buttons.edges()  # (_sleep: an edge after this wakes it)
        self._inputs(now)
        self.session.program()            # the keys' records, before the draw
        self.display.tick(now)
        mode = self.mode
        if mode == MODE_GAME:
            self._game_tick(now)
        elif mode == MODE_SPLASH:
            if self.diff(now, self.splash_until) >= 0:
                self._to_game()
                self.display.show_note(now)  # notices are timed from here
        elif mode == MODE_SELFTEST:
            self.menu.tick(now)     # (it draws, lights and beeps itself)
        else:
            if mode != MODE_REFEREE or self._referee_due(now):
                self.display.draw(self.menu.render(self.rows))
            self.leds.show(-1)
        self.buzzer.update(now)
        self._flash(now, mode)
        self.battery.update(now)
        if self.net is not None:
            self.net.poll(now)

    def _flash(self, now, mode):
        """After the LCD: a reset's file work (game.py settle), this step's
        journal records not programmed before the draw, flash work
        (session.py)."""
        self.game.settle()
        self.session.tick(now, self.clock.running() >= 0, mode == MODE_GAME)

    def _referee_due(self, now):
        """The referee menu is drawn when something it shows changed: a key,
        the display (the frame touched), a running lateness's seconds (SPEC
        v4 §4): over a lateness no render (heap frames) when nothing did."""
        c = self.clock
        f = self.frame
        if c.running() >= 0:
            self._late_menu(now)
            if self.mode != MODE_REFEREE:
                return False
            k = shown_secs(c.rem[c.side])   # the 20x4 menu shows it
            if k != self.menu_k:
                self.menu_k = k
                f.touch()
        return f.take()

    def _late_menu(self, now):
        """The referee menu over a lateness (SPEC v4 §4): if the lateness's
        limit ends the game meanwhile, the menu closes on the final screen."""
        self.clock.update(now)
        if self.clock.state != cc.LATE:
            self._switch(menumod.EXIT, now)

    def _game_tick(self, now):
        """The game screen: its clock, notices, LEDs, and a redraw if needed."""
        self.game.tick(now, self.battery.low)
        self.session.program()            # a flag's, a forfeit's: before the draw
        self.display.notices(now)
        self.leds.show(self.clock.running())
        if self.game.render() is not None:     # (the display's frame, filled)
            self.display.draw_frame()

    def _inputs(self, now):
        """Each action of the keys, at its own time, to the screen showing."""
        g = self.gestures
        a = g.next(now)
        while a != gst.NONE:
            if self.mode == MODE_GAME:
                self._game_key(a, g.t)  # (a small frame: no allocation)
            elif self.mode != MODE_SPLASH:
                self._menu_key(a, g.t, now)
            a = g.next(now)

    def run(self, sleep_ms=None, feed=None):
        """The main loop: a failure is logged and it goes on; one that repeats
        stops feeding the watchdog (`feed`: main.py, errlog.py).  `sleep_ms`:
        a sleep of the caller's, taken in slices (else nap.py's)."""
        if feed is not None:
            self.wdt_feed = feed
        nap = self.nap if sleep_ms is None else napmod.Nap(self.buttons, sleep_ms)
        while True:
            ms = LOOP_MS              # after a failure: the next step soon
            try:
                self.step()
                ms = self._pause_ms(self.ticks_ms())
            except Exception as e:  # noqa: BLE001 - the clock must not stop
                self.errlog.failed(e, self.ticks_ms())
            self._feed()
            self._sleep(nap, self.ticks_ms(), ms)

    def _sleep(self, nap, now, ms):
        """Sleep until ms after now (nap.py), or a key's edge since step()
        read the keys (SPEC v3 §6: a press shown within 30 ms), timed by the
        tick counter: a change due at the end is drawn at its instant."""
        self.wake_at = self.add(now, ms)
        while self._asleep():
            nap.sleep(self.diff(self.wake_at, self.ticks_ms()), self.seen)

    def _asleep(self):
        """No key's edge since step() read the keys, the sleep not over (a
        frame of its own: _sleep's must stay off the heap)."""
        return self.buttons.edges() == self.seen \
            and self.diff(self.wake_at, self.ticks_ms()) > 0

    def _feed(self):
        if self.wdt_feed is not None and self.errlog.healthy:
            self.wdt_feed()

    def _pause_ms(self, now):
        """How long the loop sleeps after a step: LOOP_MS while a key is
        settling, a menu shows or something waits for the next step; else
        until the next change or work due (_wake), or a held key's next
        gesture (Gestures.wake), at most MAX_SLEEP_MS."""
        mode = self.mode
        if mode == MODE_SPLASH:
            ms = self.diff(self.splash_until, now)
            ms = ms if ms < MAX_SLEEP_MS else MAX_SLEEP_MS
        elif mode != MODE_GAME or self.frame.dirty or self.buttons.pending():
            return LOOP_MS
        else:
            ms = self.gestures.wake(now, self._wake(now))
        return ms if ms > 0 else LOOP_MS

    def _wake(self, now):
        """ms until the game screen or a part next has something to do by
        itself: game.py (the clock's changes, a question's end), display.py,
        the beep, session.py (checkpoint, flash work), net.py.  Anything
        else that changes the screen at a time of its own must be asked here."""
        ms = self.game.wake(now, MAX_SLEEP_MS)
        ms = self.display.wake(now, ms)
        ms = self.buzzer.wake(now, ms)
        ms = self.session.wake(now, ms, self.clock.running() >= 0)
        if self.net is not None:
            ms = self.net.wake(now, ms)
        return ms

    # -- the mode switch ------------------------------------------------------------
    def _game_key(self, a, t):
        r = self.game.handle(a, t)
        if r is not None:
            if r != gamemod.SETUP and self.net is not None:
                self.net.changed()        # a gesture undid its keys
            self._switch(r, t)

    def _menu_key(self, a, t, now):
        """A key or gesture in a menu, as the menu's action (menu.py)."""
        if self.gestures.opened or a == gst.REGROUP:
            self.game.elsewhere()
            self.menu.mark()
        if a in gst.GESTURES:
            self.menu.undo(t)   # gestures undo their keys here too
        self.frame.touch()          # (the referee menu: redraw it)
        m = menumod.action(a)
        if m:
            if a <= gst.PAUSE_DOWN:
                self.buzzer.beep(outputs.BEEP_KEY, now)
            self._switch(self.menu.handle(m, t), now)

    def _switch(self, r, now):
        """What a screen's handle() returned: one code (game.py, menu.py)."""
        if r == gamemod.SETUP:
            self._setup_was = self.settings.rules()     # (leave_setup())
            self._open(MODE_SETUP, setupmenu.SetupMenu(self.settings, self.source, self.tested))
        elif r == gamemod.REFEREE:
            self._open(MODE_REFEREE, refereemenu.RefereeMenu(self.clock, self.settings.lang,
                                                             self.gestures.held))
        elif r == gamemod.NEW:
            # confirmed on the final screen: shown at once, the file work after
            # the draw (game.py forget)
            self.game.new(now, self.settings.rules(), True)
        elif r == menumod.SAVE or r == menumod.RESULTS or r == menumod.SELFTEST:
            self.leave_setup(now)
            if r == menumod.RESULTS:
                self._open(MODE_RESULTS, resultsmenu.ResultsMenu.of(self.log, self.settings.lang))
            elif r == menumod.SELFTEST:
                self._open(MODE_SELFTEST, selftest.SelfTest.of(self, now))
        elif r == menumod.RESET or r == menumod.EXIT:
            if r == menumod.RESET:
                self.game.forget(True)  # the referee reset the game: a new game
            self.game.header()
            self._to_game()
            if self.net is not None:
                self.net.changed()      # (a self-test's result: published)

    def _open(self, mode, menu):
        self.menu = menu
        self.mode = mode
        self.frame.touch()
        menu.mark()     # keys still held: their gesture undoes only from here

    def _to_game(self):
        self.mode = MODE_GAME
        self.game.enter(self.ticks_ms())

    # -- the public API (the host tools use only this and the attributes) -----
    def leave_setup(self, now):
        """Setup left: its settings saved, in force; a new game if the rules changed."""
        s = self.settings
        s.save()
        self.buzzer.set_enabled(s.sound)
        self.frame.set_language(s.lang)
        self.log.set_lang(s.lang)
        was, self._setup_was = self._setup_was, None
        if not _same_rules(was, s.rules()):
            self.new_game(now, None, True)
        self._to_game()
        if self.net is not None:
            self.net.retable(now)  # the menu's table, from this game on

    def new_game(self, now, rules=None, keep=False):
        """A new game in `ready` with `rules` (a profiles.Rules; None: the
        settings'), the old one forgotten (game.py); `keep`: _renew()."""
        _renew(self.game, self.clock, rules or self.settings.rules(), now, keep)

    def show_game(self, now):
        """The game screen from the next step on, no notices (a replay)."""
        self.splash_until = now
        self.display.clear(now)


# -- the setup menu left in ready (issue 26; docs/rules.md "Setup in ready") ------
def _same_rules(a, b):
    """The same game rules: the same profile and `set` items (what a game
    log's header rebuilds them from); None: not known."""
    return a is not None and a.name == b.name and a.overrides() == b.overrides()


def _charged(c):
    """The time each side was charged in `ready`, base - remaining (the
    referee's adjustments, a lateness stopped: SPEC v4 §4 Referee
    functions, TSO § 2.4 c), and its lateness account (SPEC v5: its own),
    as (charged left, charged right, lateness left, lateness right); None
    in any other state."""
    if c.state != cc.READY:
        return None
    return (c.rules.base[0] - c.rem[0], c.rules.base[1] - c.rem[1],
            c.late_ms[0], c.late_ms[1])


def _renew(game, c, rules, now, keep):
    """A new game with `rules` (game.py); `keep`: what each side was
    charged in `ready` (_charged()) charged again: its lateness account as
    the referee's `lateness` (SPEC v5: still lateness, against the new
    rules' limit), the rest as an adjustment: the first lines of the new
    game's log."""
    ch = _charged(c) if keep else None
    game.new(now, rules)
    if ch is not None:
        for s in (0, 1):
            adj = ch[s]
            if ch[2 + s] and c.set_lateness(s, ch[2 + s], now):
                adj -= ch[2 + s]
            if adj:
                c.adjust(s, -adj, now)
