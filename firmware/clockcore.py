# The timing core of the Scrabble clock: pure, tiny, integer milliseconds.
#
# No I/O, no `machine`.  Every call carries the tick time of its event
# (captured when the button edge was seen), and the core charges each side
# exactly the ticks between the event that started it and the event that
# stopped it.  Time-triggered transitions (00:00, forfeit, lateness limit,
# challenge window closing) happen at their exact instant, splitting the
# interval, whenever the core is advanced past them.  Differences are taken
# with an injected ticks_diff, so the boards' 2**30 ms wrap-around changes
# nothing.
#
# The steady-state calls (update, the queries) allocate nothing: ints only,
# preallocated lists, no tuples returned.
#
# Rules: SPEC §4 (version 4); see docs/rules.md for the clause behind each
# branch.  Nothing is ever rolled back by itself: `end` charges a running side
# up to the end (TSO § 5.1 b i); TSO § 5.2 d is the referee's explicit
# void(); resume() undoes a mistaken end.
from ticks import ticks_diff, ticks_add
from profiles import ZERO_FLAG, code_of, name_of, LATE_NONE, LATE_BASE, MIN_BASE_MS, MAX_BASE_MS

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

# A clock left running in overtime with no forfeit limit stops by itself at
# this much overtime (6.2 days): every number stays a small int on the
# boards' 31-bit ints, and the state file's 32-bit fields never overflow.
OVERTIME_CAP = 1 << 29


def is_action(code):
    """A key or a referee action (a replay event), not a time-triggered note."""
    return code <= EV_ADJUST or EV_LATE <= code <= EV_RESUME or code == EV_BASE


SNAPSHOT_VERSION = 2
SNAPSHOT_LEN = 19
# The snapshot's layout, for snapshot() and restore() alike: [0] the version,
# [1] state, [2] side, [3:5] rem, [5:9] the Clock's _CLOCK_SLOTS, [9]
# unused (0; it was the time at a lateness clock's start: the lateness is
# base - rem now), [10] the forfeit bits, [11:13] the rules' base, [13:18]
# their _RULES_SLOTS, [18] the profile's code (profiles.py: stable, so a
# profile added later changes no saved game).
_CLOCK_SLOTS = ("void_side", "void_rem", "win", "t")
_RULES_SLOTS = ("zero", "penalty", "forfeit", "window", "late")
_NO_LIMIT = 0x3FFFFFFF


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
        """ms of lateness so far (in `late` only, else 0).  A side's lateness
        is one account for the game (SPEC v4 §4 Late arrival): the time
        charged to it before the game, base - remaining, so a lateness clock
        stopped and started again goes on from what was already charged,
        and the referee's elapsed time for a late player (TSO § 2.4 c) is
        part of it.  A credit before the game never makes it negative."""
        if self.state != LATE:
            return 0
        s = self.side
        d = self.rules.base[s] - self.rem[s]
        return d if d > 0 else 0

    def can_resume(self):
        """An end may be undone: not after a forfeit or both flags (those
        ends are the rules'), unless a void withdrew the forfeit."""
        if self.state != OVER or self.side < 0:
            return False
        if self.forfeited[0] or self.forfeited[1]:
            return False
        return not (self.out(0) and self.out(1))

    def can_void(self, s):
        """TSO § 5.2 d applies to side s now (SPEC §4)."""
        st = self.state
        return (s == self.void_side and s >= 0
                and (st == RUNNING or st == PAUSED or st == OVER))

    # -- the events -----------------------------------------------------------
    def update(self, t):
        """Let time run to t (call it every loop iteration)."""
        self._advance(t)

    def press(self, x, t):
        """Player x's button.  Returns True if it changed anything."""
        self._advance(t)
        st = self.state
        if st == READY or st == LATE:
            # The opponent of the starting player starts the game (after a
            # lateness: the late player has arrived).  Nobody moved: no window.
            self._start(1 - x)
            self.win = 0
        elif st == RUNNING:
            if self.side != x:
                self._emit(EV_LEFT + x, x, t, 0)  # logged, no effect
                return False
            self._move(x)                          # end of x's turn
        elif st == PAUSED:
            if self.side == x and not self.out(x):
                self._move(x)  # the mover ends a turn in dead time (PFS § 3.2.1 h)
            else:
                # The opponent restarts the mover's clock (TSO § 3.1.1), or
                # after a flag: the remaining player runs.  Nobody moved.
                self._start(1 - x)
        else:
            return False
        self._emit(EV_LEFT + x, x, t, 0)
        return True

    def pause(self, t):
        """The pause key (short press)."""
        self._advance(t)
        st = self.state
        if st == RUNNING:
            self.state = PAUSED
        elif st == PAUSED:
            if self.out(self.side):
                # After a flag the clock stays stopped: a flag during a move
                # is a referee matter (PFS § 6.2.2, § 6.1); a player button
                # runs the remaining player.
                return False
            self.state = RUNNING
        elif st == LATE:
            # The late player has arrived and stopped their clock; the game
            # then begins normally (TSO § 2.4 b i, PFS § 6.3.2).
            self.state = READY
        else:
            return False
        self._emit(EV_PAUSE, self.side, t, 0)
        return True

    def end(self, t):
        """End of game: the clock stops, a running side is charged up to t,
        nothing is rolled back (TSO § 5.1 b i, § 5.1 b iii, § 3.4 b)."""
        self._advance(t)
        st = self.state
        if st != RUNNING and st != PAUSED:
            return False
        self._over(EV_END, self.side, t, False)
        return True

    def void(self, s, t):
        """TSO § 5.2 d, applied by the referee: side s, whose turn the last
        turn-ending press started, gets back all the time charged since that
        press; a forfeit it reached since is withdrawn; the game is over."""
        self._advance(t)
        if not self.can_void(s):
            return False
        self.rem[s] = self.void_rem
        self.forfeited[s] = False
        self._over(EV_VOID, s, t, False)
        return True

    def resume(self, t):
        """The referee undoes an end: paused, with the side that was last
        running or paused, times unchanged."""
        self._advance(t)
        if not self.can_resume():
            return False
        self.state = PAUSED
        self._emit(EV_RESUME, self.side, t, 0)
        return True

    def start_late(self, s, t):
        """Start absent player s's clock before the game (`late <side>`)."""
        self._advance(t)
        if self.state != READY or self.out(s):
            return False
        self.state = LATE
        self.side = s
        self.win = 0
        self._emit(EV_LATE, s, t, 0)
        self._check_late(s, t)  # an account already past the limit
        return True

    def rebase(self, s, base, t):
        """Referee: side s's base time becomes `base` ms, before the game
        (ready or late).  Time already charged stays charged: remaining =
        base - charged (SPEC v4 §4 Referee functions), so a lateness goes
        on with its count.  Refused (False) outside MIN_BASE_MS..MAX_BASE_MS,
        for a running lateness clock that it would take to 00:00 (its
        instants are the core's own), and in a flag profile below 00:00 (a
        side's time stops there); otherwise 00:00 and the forfeit act as
        after an adjustment."""
        self._advance(t)
        st = self.state
        old = self.rules.base[s]
        r = self.rem[s] + base - old
        if (st != READY and st != LATE) or (st == LATE and s == self.side
                                            and r <= 0) \
                or (r < 0 and self.rules.zero == ZERO_FLAG) \
                or not MIN_BASE_MS <= base <= MAX_BASE_MS:
            return False
        if base != old:
            b = self.rules.base
            # a copy: the rules object may be shared (a replay's, the settings')
            self.rules = self.rules.with_base(base if s == 0 else b[0],
                                              base if s == 1 else b[1])
            self.rem[s] = r
        # at self.t: a running lateness is settled to the later of t and the
        # time it already ran to (a key's time may be known a little late)
        self._emit(EV_BASE, s, self.t, base)
        self._check_limits(s, self.t)
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
        if s == self.void_side:
            # The referee's change is not part of the turn: a later void
            # (TSO § 5.2 d) must keep it.
            self.void_rem += r - self.rem[s]
        self.rem[s] = r  # a credited flag side is back in the game
        self._emit(EV_ADJUST, s, t, delta)
        self._check_limits(s, t)
        return True

    # -- internals ------------------------------------------------------------
    def _emit(self, code, s, t, arg):
        h = self.hook
        if h is not None:
            h(code, s, t, arg)

    def _start(self, s):
        """A press starts side s (or, if s is out, keeps the other running)."""
        if self.out(s):
            s = 1 - s
        self.state = RUNNING
        self.side = s

    def _move(self, x):
        """x's turn-ending press: the other side starts, the challenge window
        opens, and that turn is the one a void (TSO § 5.2 d) gives back."""
        self._start(1 - x)
        self.win = self.rules.window
        self.void_side = self.side
        self.void_rem = self.rem[self.side]

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
            self.rem[self.side] -= d
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
            lim = self._late_limit()
            if lim and lim - self.lateness() < b:
                b = lim - self.lateness()              # lateness limit
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
        elif -self.rem[s] == OVERTIME_CAP:
            # Nobody stopped it for 6 days: the clock stops itself (paused,
            # or before a game: ready).  A note, not a key: replay does it too.
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
        for i in range(4):
            b[5 + i] = getattr(self, _CLOCK_SLOTS[i])
        for i in range(5):
            b[13 + i] = getattr(r, _RULES_SLOTS[i])
        b[10] = (1 if self.forfeited[0] else 0) | (2 if self.forfeited[1] else 0)
        b[11] = r.base[0]
        b[12] = r.base[1]
        b[18] = code_of(r.name)
        return b

    def restore(self, snap, t=None):
        """Load a snapshot.  With t, the tick counter is re-anchored there
        (after a reboot the ticks restart); a running game comes back paused
        then.  A lateness clock (not a game yet) keeps running."""
        if len(snap) != SNAPSHOT_LEN or snap[0] != SNAPSHOT_VERSION:
            raise ValueError("not a clock snapshot")
        if not (READY <= snap[1] <= LATE) or not (-1 <= snap[2] <= 1) \
                or not (-1 <= snap[5] <= 1):
            raise ValueError("clock snapshot out of range")
        if snap[1] != READY and snap[1] != OVER and snap[2] < 0:
            # (over may have no side: a referee's adjustment in ready that
            # reaches a forfeit or both flags ends a game never started)
            raise ValueError("clock snapshot out of range")
        r = self.rules
        r.base[0] = snap[11]
        r.base[1] = snap[12]
        self._restore_slots(snap, r)
        name = name_of(snap[18])
        if name is not None:
            r.name = name
        self.state = snap[1]
        self.side = snap[2]
        self.rem[0] = snap[3]
        self.rem[1] = snap[4]
        self.forfeited[0] = bool(snap[10] & 1)
        self.forfeited[1] = bool(snap[10] & 2)
        if t is not None:
            self.t = t
            if self.state == RUNNING:
                self.state = PAUSED

    def _restore_slots(self, snap, r):
        """restore()'s table-driven part (its own frame: restore()'s would
        outgrow the stack and be heap-allocated on MicroPython)."""
        for i in range(5):
            setattr(r, _RULES_SLOTS[i], snap[13 + i])
        for i in range(4):
            setattr(self, _CLOCK_SLOTS[i], snap[5 + i])


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
