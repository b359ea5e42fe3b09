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
#   mark(h)        the hall's state changed (net.HALL_*): the LCD's mark
#
# Each is one attribute read or one call: the main loop calls state(),
# low() and pending() and nothing here allocates (nor needs a heap frame).
import report


class Source:
    def __init__(self, clock, session, battery, settings, log, mark):
        self.clock = clock
        self.session = session
        self.battery = battery
        self.settings = settings
        self.log = log
        self.mark = mark          # the app's callback for the hall mark

    def state(self):
        return self.clock.state

    def report(self, t):
        s = self.session
        return report.state(self.clock, s.log_ms(t) if s.on else 0)

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
