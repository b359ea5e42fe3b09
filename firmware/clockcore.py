# The timing core of the Scrabble clock: pure, tiny, integer milliseconds.
#
# No I/O, no `machine`.  Every call carries the tick time of its event
# (captured when the button edge was seen), and the core charges each side
# exactly the ticks between the event that started it and the event that
# stopped it.  Time-triggered transitions (00:00, forfeit, challenge window
# closing) happen at their exact instant, splitting the interval, whenever the
# core is advanced past them.  Differences are taken with an injected
# ticks_diff, so the boards' 2**30 ms wrap-around changes nothing.
#
# The steady-state calls (update, the queries) allocate nothing: ints only,
# preallocated lists, no tuples returned.
#
# Rules: SPEC §4; see docs/rules.md for the clause behind each branch.
from ticks import ticks_diff, ticks_add
from profiles import ZERO_FLAG, NAMES

LEFT = 0
RIGHT = 1
SIDE_NAMES = ("left", "right")

READY = 0
RUNNING = 1
PAUSED = 2
OVER = 3
STATE_NAMES = ("ready", "running", "paused", "over")

# Event codes passed to the hook: hook(code, side, t, arg)
EV_LEFT = 1        # player button, side = whose button
EV_RIGHT = 2
EV_PAUSE = 3       # pause key (short press)
EV_END = 4         # end of game
EV_ADJUST = 5      # referee adjustment, arg = +/- ms
EV_FLAG = 6        # side reached 00:00 (time-triggered)
EV_FORFEIT = 7     # side's overtime went past the forfeit limit: game over
EV_WINDOW = 8      # challenge window closed (time-triggered)
EV_OVER = 9        # game over because both sides are out (flag profiles)

SNAPSHOT_VERSION = 1
SNAPSHOT_LEN = 18


class Clock:
    def __init__(self, rules, t=0, diff=ticks_diff, add=ticks_add, hook=None):
        self.rules = rules
        self._diff = diff
        self._add = add
        self.hook = hook
        self.rem = [0, 0]
        self.forfeited = [False, False]
        self._snap = [0] * SNAPSHOT_LEN
        self.reset(t)

    # -- set-up -------------------------------------------------------------
    def reset(self, t):
        """A fresh game with the current rules (state `ready`)."""
        r = self.rules
        self.state = READY
        self.side = -1          # the running or paused side
        self.rem[0] = r.base[0]  # signed: negative is overtime
        self.rem[1] = r.base[1]
        self.forfeited[0] = self.forfeited[1] = False
        self.turn_rem = 0       # rem[side] at the press that started its turn
        self.win = 0            # challenge window left, ms
        self.t = t              # the tick time everything is settled to
        self.pause_t = 0        # when the last pause stopped a running side
        self.pause_fresh = False  # ... and nothing has happened since

    # -- queries (no allocation) --------------------------------------------
    def remaining(self, s):
        r = self.rem[s]
        return r if r > 0 else 0

    def overtime(self, s):
        r = self.rem[s]
        return -r if r < 0 else 0

    def flag(self, s):
        """True once the side's time has reached zero (any profile)."""
        return self.rem[s] <= 0

    def out(self, s):
        """A side that is out never runs again (flag profiles)."""
        return self.rules.zero == ZERO_FLAG and self.rem[s] <= 0

    def penalty(self, s):
        """Points for each started minute of shown overtime (TSO § 5.2 b)."""
        secs = self.overtime(s) // 1000
        return self.rules.penalty * ((secs + 59) // 60)

    def running(self):
        return self.side if self.state == RUNNING else -1

    # -- the events -----------------------------------------------------------
    def update(self, t):
        """Let time run to t (call it every loop iteration)."""
        self._advance(t)

    def press(self, x, t):
        """Player x's button.  Returns True if it changed anything."""
        self._advance(t)
        st = self.state
        if st == READY:
            # The opponent of the starting player starts the game.
            self._start(1 - x, t)
        elif st == RUNNING:
            if self.side != x:
                self._emit(EV_LEFT + x, x, t, 0)  # logged, no effect
                return False
            self._start(1 - x, t)  # end of x's turn
            self.win = self.rules.window
        elif st == PAUSED:
            if self.side == x and not self.out(x):
                # The mover ends a turn in dead time (PFS § 3.4.2).
                self.win = self.rules.window
            # else: the opponent restarts the mover's clock (TSO § 3.1.1).
            self._start(1 - x, t)
        else:
            return False
        self.pause_fresh = False
        self._emit(EV_LEFT + x, x, t, 0)
        return True

    def pause(self, t):
        """The pause key (short press): running <-> paused."""
        self._advance(t)
        st = self.state
        if st == RUNNING:
            self.state = PAUSED
            self.pause_t = t
            self.pause_fresh = True
        elif st == PAUSED:
            if self.out(self.side):
                # After a flag, any key runs the remaining player's clock.
                self._start(1 - self.side, t)
            else:
                self.state = RUNNING
            self.pause_fresh = False
        else:
            return False
        self._emit(EV_PAUSE, self.side, t, 0)
        return True

    def end(self, t):
        """End of game.  A running side's time since the press that started it
        is not charged (TSO § 5.2 d).  An end at the very millisecond of a
        pause that stopped a running side counts as an end from running: that
        is the device's long press of the pause key, one gesture."""
        self._advance(t)
        st = self.state
        if st == OVER or st == READY:
            return False
        s = self.side
        rollback = st == RUNNING or (
            self.pause_fresh and self._diff(t, self.pause_t) == 0)
        if rollback:
            self.rem[s] = self.turn_rem
        self.state = OVER
        self.win = 0
        self.pause_fresh = False
        self._emit(EV_END, s, t, 0)
        return True

    def adjust(self, s, delta, t):
        """Referee: give (+) or take (-) delta ms on side s.  Only in ready and
        paused (SPEC §4 Referee functions); returns False otherwise."""
        self._advance(t)
        if self.state != READY and self.state != PAUSED:
            return False
        r = self.rem[s] + delta
        if self.rules.zero == ZERO_FLAG and r < 0:
            r = 0
        if s == self.side:
            # The referee's change is not part of the turn: an end-of-game
            # rollback (TSO § 5.2 d) must keep it.
            self.turn_rem += r - self.rem[s]
        self.rem[s] = r  # a credited flag side is back in the game
        self.pause_fresh = False
        self._emit(EV_ADJUST, s, t, delta)
        self._check_limits(s, t)
        return True

    # -- internals ------------------------------------------------------------
    def _emit(self, code, s, t, arg):
        h = self.hook
        if h is not None:
            h(code, s, t, arg)

    def _start(self, s, t):
        """A press starts side s (or, if s is out, keeps the other running)."""
        if self.out(s):
            s = 1 - s
        self.state = RUNNING
        self.side = s
        self.turn_rem = self.rem[s]

    def _limit(self):
        """Overtime (ms) at which the side forfeits, or 0 for none."""
        f = self.rules.forfeit
        return (f + 1) * 1000 if f >= 0 else 0

    def _check_limits(self, s, t):
        """After an adjustment: 00:00 in a flag profile, forfeit in overtime."""
        if self.rules.zero == ZERO_FLAG:
            if self.rem[0] <= 0 and self.rem[1] <= 0 and self.state != OVER:
                self.state = OVER
                self.win = 0
                self._emit(EV_OVER, s, t, 0)
        else:
            lim = self._limit()
            if lim and -self.rem[s] >= lim and self.state != OVER:
                self.forfeited[s] = True
                self.state = OVER
                self.win = 0
                self._emit(EV_FORFEIT, s, t, 0)

    def _advance(self, t):
        # Kept small: MicroPython puts a frame with many locals on the heap,
        # and this runs every loop iteration.
        d = self._diff(t, self.t)
        if d <= 0:
            if d < 0 and self.state != RUNNING:
                # Nothing accrues unless running, so settling to an earlier
                # stamp loses nothing (the long-press end uses this).
                self.t = t
            return
        if self.state != RUNNING:
            self.t = t
            return
        if d < self._boundary():
            # The common case: no 00:00, forfeit or window end in between.
            self.rem[self.side] -= d
            if self.win > 0:
                self.win -= d
            self.t = t
            return
        self._cross(t, d)

    def _boundary(self):
        """ms until the next time-triggered transition of the running side."""
        r = self.rem[self.side]
        b = self.win if self.win > 0 else 0x3FFFFFFF
        if r > 0:
            if r < b:
                b = r                                  # 00:00
        else:
            lim = self._limit()
            if lim and r + lim < b:
                b = r + lim                            # forfeit instant
        return b

    def _cross(self, t, d):
        """Run time forward across transitions, each at its exact instant."""
        rem = self.rem
        while d > 0 and self.state == RUNNING:
            s = self.side
            r = rem[s]
            step = self._boundary()
            if step > d:
                step = d
            w = self.win
            rem[s] = r - step
            d -= step
            self.t = self._add(self.t, step)
            if w > 0:
                self.win = w - step
                if self.win == 0:
                    self._emit(EV_WINDOW, s, self.t, 0)
            if r > 0 and r == step:
                self._emit(EV_FLAG, s, self.t, 0)
                if self.rules.zero == ZERO_FLAG:
                    # The flag pauses the whole clock (dead time).
                    self.state = PAUSED
                    self.pause_fresh = False
                    if rem[1 - s] <= 0:
                        self.state = OVER
                        self.win = 0
                        self._emit(EV_OVER, s, self.t, 0)
            elif r <= 0 and self._limit() and -rem[s] == self._limit():
                self.forfeited[s] = True
                self.state = OVER
                self.win = 0
                self._emit(EV_FORFEIT, s, self.t, 0)
        self.t = t

    # -- persistence --------------------------------------------------------------
    def snapshot(self):
        """The whole state as a list of ints (the same list every call: copy
        it if you keep it).  restore(snapshot()) gives the same future."""
        b = self._snap
        r = self.rules
        b[0] = SNAPSHOT_VERSION
        b[1] = self.state
        b[2] = self.side
        b[3] = self.rem[0]
        b[4] = self.rem[1]
        b[5] = self.turn_rem
        b[6] = self.win
        b[7] = self.t
        b[8] = self.pause_t
        b[9] = 1 if self.pause_fresh else 0
        b[10] = (1 if self.forfeited[0] else 0) | (2 if self.forfeited[1] else 0)
        b[11] = r.base[0]
        b[12] = r.base[1]
        b[13] = r.zero
        b[14] = r.penalty
        b[15] = r.forfeit
        b[16] = r.window
        b[17] = _profile_index(r.name)
        return b

    def restore(self, snap, t=None):
        """Load a snapshot.  With t, the tick counter is re-anchored there (after
        a reboot the ticks restart); a running game comes back paused then."""
        if len(snap) != SNAPSHOT_LEN or snap[0] != SNAPSHOT_VERSION:
            raise ValueError("not a clock snapshot")
        if not (READY <= snap[1] <= OVER) or not (-1 <= snap[2] <= 1):
            raise ValueError("clock snapshot out of range")
        r = self.rules
        r.base[0] = snap[11]
        r.base[1] = snap[12]
        r.zero = snap[13]
        r.penalty = snap[14]
        r.forfeit = snap[15]
        r.window = snap[16]
        if 0 <= snap[17] < len(NAMES):
            r.name = NAMES[snap[17]]
        self.state = snap[1]
        self.side = snap[2]
        self.rem[0] = snap[3]
        self.rem[1] = snap[4]
        self.turn_rem = snap[5]
        self.win = snap[6]
        self.t = snap[7]
        self.pause_t = snap[8]
        self.pause_fresh = bool(snap[9])
        self.forfeited[0] = bool(snap[10] & 1)
        self.forfeited[1] = bool(snap[10] & 2)
        if t is not None:
            self.t = t
            self.pause_fresh = False
            if self.state == RUNNING:
                self.state = PAUSED


def _profile_index(name):
    for i in range(len(NAMES)):
        if NAMES[i] == name:
            return i
    return -1
