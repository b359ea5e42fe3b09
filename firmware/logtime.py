# The game log's time base (SPEC §4 "Game log", §5): log times are ms since
# the game began, never decreasing, continuing across power cuts, exact
# after a pause of any length (issue 26: a log of a game paused for 7, 13 or
# 25 days still replays to the clock's times).
#
# The boards' small ints are 31 bits (arithmetic past 2**30 - 1 makes a long
# int on the heap) and their ticks wrap at 2**30 ms (12.4 days), so a log
# time is two small ints: hi, in units of UNIT = 10**9 ms (11.6 days), and
# lo, 0 <= lo < UNIT.  Written out it is one decimal number, text(hi, lo)
# ("%d%09d" past UNIT): the replay (host_sim/replay.py) reads it as a plain
# integer, up to LIMIT.  The journal keeps hi in a byte of its record, the
# state file in a field of its own (journal.py, persist.py).
#
#   lt = LogTime(diff, t)   the time base at tick t, log time 0
#   lt.start(t, hi, lo)     log time (hi, lo) at tick t: a game's first
#                           event (0, 0), a restore (the checkpoint's time)
#   lt.at(t)                the log time of tick t into lt.h, lt.l (no
#                           allocation: the session fills a journal record
#                           with it at every press)
#   lt.stamp(t)             the log time of tick t as the log writes it
#   lt.ms(t)                ... as one int (reports, the error log)
#   lt.move(t)              every main-loop iteration: the anchor moved on
#                           every REANCHOR ms, well inside half a tick wrap
#                           (diff() is good only within half a wrap)
#   text(hi, lo)            the decimal text of a log time
#   value(hi, lo)           its value as one int (a long int past 2**30 on
#                           the boards: for reports and the error log only)
UNIT = 1000000000       # lo < UNIT; UNIT < 2**30: a small int on the boards
HI_MAX = 255            # hi fits a byte (the journal record's): ~8 years
LIMIT = (HI_MAX + 1) * UNIT - 1     # the last log time (replay.MAX_MS)
REANCHOR = 1 << 27      # 1.55 days: the anchor moves on well inside 2**29


class LogTime:
    def __init__(self, diff, t):
        self.diff = diff
        self.hi = 0             # the log time at `anchor` ...
        self.lo = 0
        self.anchor = t         # ... a tick
        self.h = 0              # at(): the log time of the tick asked
        self.l = 0

    def start(self, t, hi=0, lo=0):
        self.hi = hi
        self.lo = lo
        self.anchor = t

    def at(self, t):
        """The log time of tick t (never before the anchor's) into self.h,
        self.l; returns self.l.  d < 2**29 (move() keeps the anchor inside
        half a wrap): at most one carry, every sum below 2**30."""
        d = self.diff(t, self.anchor)
        if d < 0:
            d = 0
        room = UNIT - self.lo
        if d < room:
            self.h = self.hi
            self.l = self.lo + d
        elif self.hi < HI_MAX:
            self.h = self.hi + 1
            self.l = d - room
        else:
            self.h = HI_MAX
            self.l = UNIT - 1
        return self.l

    def stamp(self, t):
        """The log time of tick t as the log writes it (text())."""
        self.at(t)
        return text(self.h, self.l)

    def ms(self, t):
        """The log time of tick t as one int (never negative; a long int
        past 2**30 ms on the boards: for the state report and the error
        log; the log and the files take the two parts)."""
        self.at(t)
        return value(self.h, self.l)

    def move(self, t):
        """Move the anchor on to t if it is REANCHOR or more behind."""
        if self.diff(t, self.anchor) >= REANCHOR:
            self.at(t)
            self.hi = self.h
            self.lo = self.l
            self.anchor = t


def text(hi, lo):
    """A log time as the log writes it: one decimal number."""
    if hi:
        return "%d%09d" % (hi, lo)
    return "%d" % lo


def value(hi, lo):
    return hi * UNIT + lo if hi else lo
