# The frame: what the game screen shows, display-neutral (issue 28).
#
# The game screen (game.py) fills one Frame from the core's clock; every
# display family (display.py, e.g. hd44780.py, tm1637.py) draws the same
# frame in its own way.  A frame knows no characters, glyphs or segments;
# the words it carries (notice, rules) are lang.py's bytes, which a text
# display shows and a digit display leaves out.  Preallocated: fill() and
# due() allocate nothing (0 B per main-loop iteration).
#
# What a frame holds (families only read these; they change only through
# the methods below):
#   rem[s]     ms left per side (s 0 = left, 1 = right); negative: overtime.
#              Shown with profiles.shown_secs (remaining rounded up,
#              overtime down: SPEC §4, TSO § 5.2 a) -- rows.mmss draws it.
#   run        the side whose clock runs, -1 none
#   paused     the side whose clock a pause stopped (SPEC §4 Gestures), -1
#   state      the core's state: clockcore.READY RUNNING PAUSED OVER LATE
#   flag[s]    1: the flag shows beside that side's time (TSO § 5.2 a)
#   info[s]    I_NONE / I_LOST (forfeited) / I_TIME (out of time, PFS
#              § 6.2.1) / I_LATE (that side's lateness clock runs, PFS § 2.4)
#   pen[s]     penalty points so far (TSO § 5.2 b), 0 none
#   lost       1: a side forfeited (LOST says it all on a small display)
#   win        the challenge window's ms left (0: none; frozen while paused)
#   late       the lateness's ms (state LATE)
#   notice     bytes for the centre (a notice or a question), None: none
#   hall       the hall mark: net.HALL_*, -1 = no hall
#   lowbat     the battery warning (shown where the centre is free)
#   rules      bytes: the game's profile and base time, "sdev 30:00"
#   words      lang.table(language): the words a text display shows
#   seq        bumped by each fill(): a family drawing two ways can tell
#              a new frame
import clockcore as cc
import lang
from profiles import fmt_mmss, shown_secs

I_NONE = 0
I_LOST = 1
I_TIME = 2
I_LATE = 3


class Frame:
    def __init__(self, language="en"):
        self.rem = [0, 0]
        self.run = -1
        self.paused = -1
        self.state = cc.READY
        self.flag = bytearray(2)
        self.info = bytearray(2)
        self.pen = [0, 0]
        self.lost = 0
        self.win = 0
        self.late = 0
        self.notice = None
        self.hall = -1
        self.lowbat = False
        self.rules = b""
        self.seq = 0
        self.dirty = True         # something shown changed: fill and draw again
        self._k_run = self._k_win = 0   # what the frame showed last: seconds,
        self._k_side = -2               # window seconds, running side,
        self._k_late = 0                # lateness seconds
        self.set_language(language)

    # -- what others change, each through a method ------------------------------------
    def touch(self):
        """Something shown changed (an event, a mode, a redraw after a bus
        fault): the game screen fills and draws the frame again."""
        self.dirty = True

    def take(self):
        """Was the frame touched?  (And now it is not.)"""
        d = self.dirty
        self.dirty = False
        return d

    def set_notice(self, w):
        """The centre word (lang bytes; None: the state's own)."""
        self.notice = w
        self.dirty = True

    def set_hall(self, h):
        self.hall = h
        self.dirty = True

    def set_lowbat(self, low):
        if self.lowbat != low:
            self.lowbat = low
            self.dirty = True

    def set_rules(self, rules):
        """The game's profile and base time, "sdev 30:00" (allocates: when
        the rules change, not every loop)."""
        self.rules = ("%s %s" % (rules.name, fmt_mmss(rules.base[0]))).encode()
        self.dirty = True

    def set_language(self, language):
        self.language = language
        self.words = lang.table(language)
        self.dirty = True

    # -- the game screen fills it -----------------------------------------------------------
    def due(self, c):
        """Did anything shown change?  Events, notices and modes touch the
        frame; between them only the running side's seconds, the challenge
        window's and the lateness can move (the lateness is its own account,
        SPEC v5: its second need not turn with the remaining time's)."""
        r = c.running()
        k = shown_secs(c.rem[r]) if r >= 0 else 0   # (the one display rounding)
        w = (c.win + 999) // 1000
        n = c.lateness() // 1000
        if k != self._k_run or w != self._k_win or r != self._k_side \
                or n != self._k_late:
            self._k_run = k
            self._k_win = w
            self._k_side = r
            self._k_late = n
            return True
        return self.dirty

    def fill(self, c):
        """Everything shown, from the clock c (clockcore.Clock)."""
        self.dirty = False
        self.seq += 1
        st = c.state
        self.state = st
        self.run = c.running()
        self.paused = c.side if st == cc.PAUSED else -1
        self.rem[0] = c.rem[0]
        self.rem[1] = c.rem[1]
        self.win = c.win
        self.late = c.lateness() if st == cc.LATE else 0
        self._side(c, 0)
        self._side(c, 1)
        self.lost = self.info[0] == I_LOST or self.info[1] == I_LOST

    def _side(self, c, s):
        self.flag[s] = 1 if c.flag_shown(s) else 0
        self.pen[s] = c.penalty(s)
        self.info[s] = I_LOST if c.forfeited[s] else I_TIME if c.out(s) \
            else I_LATE if c.late() == s else I_NONE
