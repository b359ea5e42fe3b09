# The clock as the hall sees it: the one door through which firmware/net.py
# reads what it publishes and tells the clock its hall state (issue 22,
# "narrow doors").  App builds it from its parts (App.hall_source()); net.py
# sees these methods only, never App.
#
#   state()        the clock's state (clockcore READY .. OVER)
#   report(t)      the state report's fields at tick t (report.py: the same
#                  ones as `replay --json`, minus lcd; allocates a dict)
#   game()         the game number (its log file's)
#   pending()      the game's last lines are not yet in its log file
#   low()          the battery is low
#   table()        the setup menu's table number (0: none)
#   log_open(n)    game n's log file, open to be read in pieces, and its
#                  size in bytes (OSError if there is none)
#   clock_id()     the clock's id (machine.unique_id() in hex)
#   selftest()     the last self-test's result (selftest.Result.summary():
#                  None, "pass", "fail <items>"), the state's one field of it
#   mark(h)        the hall's state changed (HALL_*): kept, and the
#                  LCD's mark shown
#   tabled(t)      the clock publishes under table t from now on (at the
#                  start and when a new table takes effect: hallmsg.py)
#   wifi(w)        why there is no Wi-Fi changed (WIFI_*: a wrong
#                  password, no such network, or no reason known)
#
# The other way through the same door, what the clock knows of the hall
# (the setup menu's "Hall" item, setupmenu.py; the game log's table):
#
#   hall()         the hall's state as net.py last marked it (HALL_*),
#                  -1: no hall (no net.py on this clock, or not started)
#   hall_table()   the table the clock publishes under now (0: none)
#   bad_password() no hall, and the Wi-Fi refused its password as net.py
#                  last told (WIFI_BADAUTH)
#   log_table()    the table in a new game log's header: the setup menu's,
#                  else the hall's (net.json's) on a clock that has one
#
# Each is one attribute read or one call: the main loop calls state(),
# low() and pending() and nothing here allocates (nor needs a heap frame).
# The settings (settings.py) stay data: nothing of the hall is kept there.
import report

# The hall as the clock's user sees it (net.py's Net.hall, told through
# mark(): the LCD mark, view.py, and the setup menu's "Hall" item):
HALL_DOWN = 0   # no hall: the last try failed, the Wi-Fi refused the password,
                #   or no Wi-Fi after net.WAIT_MS
HALL_WAIT = 1   # connecting: since the boot or a new table, not failed yet
HALL_UP = 2     # connected: the broker accepted the clock (CONNACK)

# Why there is no Wi-Fi, as the link's status() says (net.py's Net.wifi,
# told through wifi(): the setup menu's "Hall" item says a wrong password):
WIFI_OK = 0             # connected, or trying, or the link cannot say
WIFI_BADAUTH = 1        # the access point refused the password
WIFI_NONET = 2          # no access point of that name in range


class Source:
    def __init__(self, clock, session, battery, settings, log, show, tested=None):
        self.clock = clock
        self.session = session
        self.battery = battery
        self.settings = settings
        self.log = log
        self.show = show          # the app's callback for the hall mark
        self.tested = tested      # the app's selftest.Result
        self._hall = -1           # HALL_*, -1: no hall
        self._table = 0           # the table net.py publishes under
        self._wifi = WIFI_OK       # why there is no Wi-Fi (WIFI_OK: no reason known)

    # -- net.py tells the clock ----------------------------------------------------
    def mark(self, h):
        self._hall = h
        self.show(h)

    def wifi(self, w):
        self._wifi = w

    def tabled(self, t):
        self._table = t

    # -- the clock reads (the setup menu, the game log) ---------------------------
    def hall(self):
        return self._hall

    def bad_password(self):
        return self._hall != HALL_UP and self._wifi == WIFI_BADAUTH

    def hall_table(self):
        return self._table

    def log_table(self):
        t = self.settings.table
        return t if t else self._table

    # -- net.py reads ----------------------------------------------------------------
    def state(self):
        return self.clock.state

    def _log_ms(self, t):
        s = self.session
        return s.log_ms(t) if s.on else 0

    def report(self, t):
        """The state report (a dict)."""
        return report.state(self.clock, self._log_ms(t))

    def emit(self, t, o):
        """The state report's fields into writer o (report.emit)."""
        report.emit(self.clock, self._log_ms(t), o)

    def game(self):
        return self.log.number

    def pending(self):
        return self.session.pending()

    def low(self):
        return self.battery.low

    def table(self):
        return self.settings.table

    def log_open(self, n):
        return self.log.open_game(n)

    def clock_id(self):
        return self.log.clock

    def selftest(self):
        t = self.tested
        return t.summary() if t is not None else None
