# The clock's time, the lower half of the timing core: pure, tiny, integer
# milliseconds.  clockcore.Clock builds the players' keys and the referee's
# acts on this class; nothing else imports it (import clockcore, which
# re-exports the names below).
#
# ClockTime holds a game's time (state, the running side, each side's
# remaining ms, the challenge window) and runs it forward: every call carries
# the tick time of its event, a side is charged exactly the ticks it ran, and
# the time-triggered transitions (00:00, forfeit, the lateness limit, the
# challenge window closing, the overtime cap) happen at their exact instant,
# splitting the interval, whenever the time is advanced past them.
# Differences are taken with an injected ticks_diff, so the boards' 2**30 ms
# wrap-around changes nothing.  update() and the queries allocate nothing:
# ints only, preallocated lists, no tuples returned, small frames.
#
# Each side's lateness is its own account (late_ms, SPEC v5 §4 Late
# arrival): the ms its lateness clock ran plus the elapsed lateness a referee
# set; the lateness limit applies to it, and neither an adjustment nor a base
# change touches it.
#
# Rules: SPEC §4 (version 5); docs/rules.md names the clause behind each
# branch.
from ticks import ticks_diff, ticks_add
from profiles import ZERO_FLAG, LATE_NONE

LEFT = 0
RIGHT = 1
SIDE_NAMES = ("left", "right")

READY = 0
RUNNING = 1
PAUSED = 2
OVER = 3
LATE = 4      # before the game: an absent player's clock runs (PFS § 2.4)

# Event codes passed to the hook: hook(code, side, t, arg).  Codes up to
# EV_ADJUST and from EV_LATE on are replay events (a key or a referee action);
# EV_FLAG..EV_OVER are time-triggered (the replay recomputes them).
EV_LEFT = 1        # player button, side = whose button
EV_RIGHT = 2
EV_PAUSE = 3       # pause key (short press)
EV_END = 4         # end of game
EV_ADJUST = 5      # referee adjustment, arg = +/- ms
EV_FLAG = 6        # side reached 00:00 (time-triggered)
EV_FORFEIT = 7     # side lost on time (overtime or lateness limit): game over
EV_WINDOW = 8      # challenge window closed (time-triggered)
EV_OVER = 9        # game over because both sides are out (flag profiles)
EV_LATE = 10       # an absent player's clock is started (before the game)
EV_VOID = 11       # referee: TSO § 5.2 d for `side`
EV_RESUME = 12     # referee: the end is undone
EV_CAP = 13        # a side reached OVERTIME_CAP: its clock stops (time-triggered)
EV_BASE = 14       # referee: side's base time, arg = the new base (ms)
EV_LATENESS = 15   # referee: side's elapsed lateness, arg = the account (ms)

# A clock left running in overtime with no forfeit limit stops by itself at
# this much overtime (6.2 days): every number stays a small int on the
# boards' 31-bit ints, and the state file's 32-bit fields never overflow.
OVERTIME_CAP = 1 << 29


def is_action(code):
    """A key or a referee action (a replay event), not a time-triggered note."""
    return (code <= EV_ADJUST or EV_LATE <= code <= EV_RESUME or code == EV_BASE
            or code == EV_LATENESS)


_NO_LIMIT = 0x3FFFFFFF


class ClockTime:
    """A game's time and its time-triggered transitions (clockcore.Clock
    adds the events that change it: keys, referee acts, a restore)."""

    def __init__(self, rules, t=0, diff=ticks_diff, add=ticks_add, hook=None):
        self.rules = rules
        self._diff = diff
        self._add = add
        self.hook = hook
        self.rem = [0, 0]
        self.late_ms = [0, 0]      # each side's lateness account, ms
        self.start_base = [0, 0]   # the base times the game was set up with
        self.forfeited = [False, False]
        self.reset(t)

    # -- set-up -------------------------------------------------------------
    def set_rules(self, rules, t):
        """The one way rules (a profiles.Rules) reach the clock after it
        is made: the settings' at a new game, the referee's base time, a
        clock that cannot be restored.  A fresh game with them (`ready`)."""
        self.rules = rules
        self.reset(t)

    def reset(self, t):
        """A fresh game with the current rules (state `ready`)."""
        r = self.rules
        self.state = READY
        self.side = -1          # the running or paused side (kept in `over`)
        self.rem[0] = r.base[0]  # signed: negative is overtime
        self.rem[1] = r.base[1]
        self.late_ms[0] = self.late_ms[1] = 0
        # (the game log's header states these: a referee's base change
        # before the first press is its own event, SPEC v5 §5)
        self.start_base[0] = r.base[0]
        self.start_base[1] = r.base[1]
        self.forfeited[0] = self.forfeited[1] = False
        self.void_side = -1     # the side the last turn-ending press started
        self.void_rem = 0       # ... and its time at that press (TSO § 5.2 d)
        self.win = 0            # challenge window left, ms
        self.t = t              # the tick time everything is settled to

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

    def flag_shown(self, s):
        """The display's flag mark: in overtime profiles together with -00:01
        (TSO § 5.2 a: a shown flag counts as exceeded time), in flag
        profiles at 00:00."""
        if self.rules.zero == ZERO_FLAG:
            return self.rem[s] <= 0
        return self.rem[s] <= -1000

    def out(self, s):
        """A side that is out never runs again (flag profiles)."""
        return self.rules.zero == ZERO_FLAG and self.rem[s] <= 0

    def penalty(self, s):
        """Points for each started minute of shown overtime (TSO § 5.2 b)."""
        secs = self.overtime(s) // 1000
        return self.rules.penalty * ((secs + 59) // 60)

    def running(self):
        """The side whose clock runs (in `late` too), or -1."""
        st = self.state
        return self.side if st == RUNNING or st == LATE else -1

    def late(self):
        """The side whose lateness clock runs, or -1."""
        return self.side if self.state == LATE else -1

    def lateness(self):
        """ms of lateness shown (in `late` only, else 0): the late side's
        account, late_ms.  A side's lateness is one account for the game
        (SPEC v5 §4 Late arrival): the time its lateness clock ran plus the
        elapsed lateness the referee set for it (TSO § 2.4 c, PFS § 6.3.3),
        so a lateness clock stopped and started again goes on from it; a
        credit or a deduction (TSO § 7.3.2.2) and a base change never touch
        it."""
        if self.state != LATE:
            return 0
        return self.late_ms[self.side]

    # -- the events -----------------------------------------------------------
    def update(self, t):
        """Let time run to t (call it every loop iteration)."""
        self._advance(t)

    # -- internals ------------------------------------------------------------
    def _emit(self, code, s, t, arg):
        h = self.hook
        if h is not None:
            h(code, s, t, arg)

    def _over(self, code, s, t, forfeit):
        """The game is over (an end, a void, or by the rules): the one
        transition to OVER, then the hook hears why."""
        self._stop(s, forfeit)
        self._emit(code, s, t, 0)

    def _stop(self, s, forfeit):
        """The state of a finished game (side s lost on time if forfeit)."""
        if forfeit:
            self.forfeited[s] = True
        self.state = OVER
        self.win = 0

    def _limit(self):
        """Overtime (ms) at which the side forfeits, or 0 for none."""
        f = self.rules.forfeit
        return (f + 1) * 1000 if f >= 0 else 0

    def _late_limit(self):
        """Lateness (ms) at which the late side forfeits, or 0 for none."""
        f = self.rules.late
        return (f + 1) * 1000 if f >= 0 else 0

    def _check_limits(self, s, t):
        """After an adjustment: 00:00 in a flag profile, forfeit in overtime."""
        if self.state == OVER:
            return
        if self.rules.zero == ZERO_FLAG:
            if self.rem[0] <= 0 and self.rem[1] <= 0:
                self._over(EV_OVER, s, t, False)
        else:
            lim = self._limit()
            if lim and -self.rem[s] >= lim:
                self._over(EV_FORFEIT, s, t, True)

    def _check_late(self, s, t):
        """A lateness clock started on an account already at the limit (the
        referee's elapsed time, TSO § 2.4 c): lost at once (TSO § 5.3 b)."""
        lim = self._late_limit()
        if lim and self.lateness() >= lim:
            self._over(EV_FORFEIT, s, t, True)

    def _check_lateness(self, s, t):
        """After the referee set side s's lateness (ready or late): more
        than the limit late is lost (TSO § 2.4 b ii, § 5.3 b); in a flag
        profile with a lateness limit, a late side whose whole time is gone
        loses by walkover (PFS § 6.3.4), with none its time just stops
        there; otherwise 00:00 and the forfeit act as after an adjustment."""
        if self.state == OVER:
            return
        lim = self._late_limit()
        flag = self.rules.zero == ZERO_FLAG and self.rem[s] <= 0
        if (lim and self.late_ms[s] >= lim) or (flag and self.rules.late != LATE_NONE):
            self._over(EV_FORFEIT, s, t, True)
            return
        if flag and self.state == LATE and self.side == s:
            self.state = READY
        self._check_limits(s, t)

    def _advance(self, t):
        # Kept small: MicroPython puts a frame with many locals on the heap,
        # and this runs every loop iteration.
        d = self._diff(t, self.t)
        if d <= 0:
            if d < 0 and self.running() < 0:
                # Nothing accrues unless a clock runs, so settling to an
                # earlier stamp loses nothing.
                self.t = t
            return
        if self.running() < 0:
            self.t = t
            return
        if d < self._boundary():
            # The common case: no 00:00, forfeit or window end in between.
            s = self.side
            self.rem[s] -= d
            if self.state == LATE:
                self.late_ms[s] += d
            if self.win > 0:
                self.win -= d
            self.t = t
            return
        self._cross(t, d)

    def _boundary(self):
        """ms until the next time-triggered transition of the running side."""
        r = self.rem[self.side]
        b = self.win if self.win > 0 else _NO_LIMIT
        if r > 0:
            if r < b:
                b = r                                  # 00:00
        else:
            lim = self._limit()
            if lim and r + lim < b:
                b = r + lim                            # forfeit instant
            if r + OVERTIME_CAP < b:
                b = r + OVERTIME_CAP                   # the clock's own limit
        if self.state == LATE:
            a = self.late_ms[self.side]
            lim = self._late_limit()
            if lim and lim - a < b:
                b = lim - a                            # lateness limit
            if OVERTIME_CAP - a < b:
                b = OVERTIME_CAP - a                   # the account's own limit
        return b

    def _cross(self, t, d):
        """Run time forward across transitions, each at its exact instant."""
        while d > 0 and self.running() >= 0:
            step = self._boundary()
            if step > d:
                step = d
            d -= step
            self._tick(step)
        self.t = t

    def _tick(self, step):
        """step ms of the running side, then whatever happens at its end."""
        s = self.side
        r = self.rem[s]
        self.rem[s] = r - step
        if self.state == LATE:
            self.late_ms[s] += step
        self.t = self._add(self.t, step)
        if self.win > 0:
            self.win -= step
            if self.win == 0:
                self._emit(EV_WINDOW, s, self.t, 0)
        if r > 0 and r == step:
            if self.rules.zero == ZERO_FLAG:
                self._flagged(s)
                return
            self._emit(EV_FLAG, s, self.t, 0)
        if self.state == LATE:
            lim = self._late_limit()
            if lim and self.lateness() >= lim:
                # More than the limit late: lost (TSO § 2.4 b ii, § 5.3 b).
                self._over(EV_FORFEIT, s, self.t, True)
                return
        lim = self._limit()
        if r <= 0 and lim and -self.rem[s] == lim:
            self._over(EV_FORFEIT, s, self.t, True)
        elif -self.rem[s] == OVERTIME_CAP or (self.state == LATE and
                                              self.late_ms[s] == OVERTIME_CAP):
            # Nobody stopped it for 6 days: the clock stops itself (paused,
            # or before a game: ready; a lateness account stays a small
            # int).  A note, not a key: replay does it too.
            self.state = PAUSED if self.state == RUNNING else READY
            self._emit(EV_CAP, s, self.t, 0)

    def _flagged(self, s):
        """Side s reached 00:00 in a flag profile.  The state changes first,
        then the hook hears of the flag: a checkpoint taken at EV_FLAG is the
        state after the flag (a power cut then restores exactly that)."""
        if self.state == LATE:
            if self.rules.late != LATE_NONE:
                # A late player whose whole time ran out: walkover (PFS § 6.3.4).
                self._stop(s, True)
                self._emit(EV_FLAG, s, self.t, 0)
                self._emit(EV_FORFEIT, s, self.t, 0)
            else:
                self.state = READY  # no lateness limit: the clock just stops
                self._emit(EV_FLAG, s, self.t, 0)
            return
        # The flag pauses the whole clock (dead time, PFS § 6.2.1); both
        # flags end the game.
        both = self.rem[1 - s] <= 0
        if both:
            self._stop(s, False)
        else:
            self.state = PAUSED
        self._emit(EV_FLAG, s, self.t, 0)
        if both:
            self._emit(EV_OVER, s, self.t, 0)


def next_change(c):
    """ms after c.t (the tick the clock is settled to) until what it shows
    next changes by itself, or -1 when no clock runs (then only a key
    changes it): the running side's shown second (profiles.shown_secs moves
    at every multiple of 1000 ms of rem, above zero and in overtime alike:
    the flag mark and the penalty with it), the challenge window's second,
    the lateness's, or a time-triggered transition (00:00, a forfeit, the
    window's end, the lateness limit).  The main loop sleeps until then
    (app.py).  Allocates nothing."""
    s = c.running()
    if s < 0:
        return -1
    b = c._boundary()
    m = c.rem[s] % 1000 or 1000
    if m < b:
        b = m
    if c.win > 0:
        m = c.win % 1000 or 1000
        if m < b:
            b = m
    if c.state == LATE:
        m = 1000 - c.lateness() % 1000
        if m < b:
            b = m
    return b
