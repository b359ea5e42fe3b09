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
# Rules: SPEC §4 (version 5); see docs/rules.md for the clause behind each
# branch.  Nothing is ever rolled back by itself: `end` charges a running side
# up to the end (TSO § 5.1 b i); TSO § 5.2 d is the referee's explicit
# void(); resume() undoes a mistaken end.
#
# Two modules, one core: clocktime.ClockTime keeps the time (charging the
# running side, 00:00, forfeits, the window, the lateness limit, each at its
# instant); Clock here adds the events (player keys, pause, the referee's
# acts) and the snapshot.  Import this module only: it re-exports clocktime's
# constants and next_change.
from ticks import ticks_diff, ticks_add
from profiles import ZERO_FLAG, code_of, name_of, MIN_BASE_MS, MAX_BASE_MS
from clocktime import ClockTime, next_change, is_action  # noqa: F401
from clocktime import LEFT, RIGHT, SIDE_NAMES  # noqa: F401
from clocktime import READY, RUNNING, PAUSED, OVER, LATE
from clocktime import (EV_LEFT, EV_RIGHT, EV_PAUSE, EV_END, EV_ADJUST,  # noqa: F401
                       EV_FLAG, EV_FORFEIT, EV_WINDOW, EV_OVER, EV_LATE, EV_VOID,
                       EV_RESUME, EV_CAP, EV_BASE, EV_LATENESS, OVERTIME_CAP)

SNAPSHOT_VERSION = 3
SNAPSHOT_LEN = 20
SNAPSHOT_LEN_V2 = 19    # version 2 (SPEC v4 firmware): still restored
# The snapshot's layout, for snapshot() and restore() alike: [0] the version,
# [1] state, [2] side, [3:5] rem, [5:9] the Clock's _CLOCK_SLOTS, [9] left's
# lateness account (late_ms), [10] the forfeit bits (1 left, 2 right) and,
# from bit 2 on, the base times the game was set up with (start_base: the
# log header's), in whole seconds, left's in bits 2-14, right's from bit 15
# (at most 5999 s each: 28 bits, a small int), [11:13] the rules' base,
# [13:18] their _RULES_SLOTS, [18] the profile's code (profiles.py: stable,
# so a profile added later changes no saved game), [19] right's lateness
# account.  (20 ints: a journal record of 112 bytes, 9 to a 1 KB unit.)
# Version 2 is 19 ints, [9] unused, [10] the forfeit bits alone: its
# lateness was base - rem (SPEC v4), so a side's account is taken as that
# before the game, 0 after its start, and the set-up base as the base.
_CLOCK_SLOTS = ("void_side", "void_rem", "win", "t")
_RULES_SLOTS = ("zero", "penalty", "forfeit", "window", "late")
# a referee's elapsed lateness: what mm:ss shows, more than any base time
MAX_LATENESS_MS = MAX_BASE_MS


def _check_version(snap):
    """A snapshot of this version, or of version 2 (restore(): its own
    frame, so that restore()'s stays off MicroPython's heap)."""
    n = len(snap)
    if n == SNAPSHOT_LEN and snap[0] == SNAPSHOT_VERSION:
        if not (0 <= snap[9] <= OVERTIME_CAP and 0 <= snap[19] <= OVERTIME_CAP
                and 0 <= snap[10] < 1 << 28):
            raise ValueError("clock snapshot out of range")
    elif n != SNAPSHOT_LEN_V2 or snap[0] != 2:
        raise ValueError("not a clock snapshot")


class Clock(ClockTime):
    def __init__(self, rules, t=0, diff=ticks_diff, add=ticks_add, hook=None):
        self._snap = [0] * SNAPSHOT_LEN
        ClockTime.__init__(self, rules, t, diff, add, hook)

    # -- queries (no allocation) --------------------------------------------
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

    def set_lateness(self, s, ms, t):
        """Referee: side s's elapsed lateness becomes ms, before the game
        (ready or late; TSO § 2.4 c, PFS § 6.3.3: the referee sets the
        elapsed time).  Its lateness account becomes ms and its remaining
        time changes by the difference (SPEC v5 §5 `lateness`); the limit
        applies to the account at once (_check_lateness).  Refused (False)
        after the game's start, outside 0..MAX_LATENESS_MS, and in a flag
        profile below 00:00 (a side's time stops there)."""
        self._advance(t)
        st = self.state
        r = self.rem[s] - (ms - self.late_ms[s])
        if (st != READY and st != LATE) or not 0 <= ms <= MAX_LATENESS_MS \
                or (r < 0 and self.rules.zero == ZERO_FLAG):
            return False
        self.late_ms[s] = ms
        self.rem[s] = r
        # at self.t, as rebase(): a running lateness is settled there
        self._emit(EV_LATENESS, s, self.t, ms)
        self._check_lateness(s, self.t)
        return True

    def start_rules(self):
        """The rules the game was set up with (its log header, SPEC v5 §5):
        these rules with the base times before any referee base change.
        Allocates: for a log's header only."""
        b = self.start_base
        return self.rules.with_base(b[0], b[1])

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
        b[9] = self.late_ms[0]
        b[10] = (1 if self.forfeited[0] else 0) | (2 if self.forfeited[1] else 0) \
            | (self.start_base[0] // 1000) << 2 | (self.start_base[1] // 1000) << 15
        b[11] = r.base[0]
        b[12] = r.base[1]
        b[18] = code_of(r.name)
        b[19] = self.late_ms[1]
        return b

    def restore(self, snap, t=None):
        """Load a snapshot.  With t, the tick counter is re-anchored there
        (after a reboot the ticks restart); a running game comes back paused
        then.  A lateness clock (not a game yet) keeps running."""
        _check_version(snap)
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
        self._restore_late(snap)
        if t is not None:
            self.t = t
            if self.state == RUNNING:
                self.state = PAUSED

    def _restore_late(self, snap):
        """The lateness accounts and the set-up base times (version 3), or
        what a version 2 snapshot meant by them (its own frame, as
        _restore_slots; range(), not a tuple: no iterator on the heap)."""
        v3 = len(snap) == SNAPSHOT_LEN
        pre = self.state == READY or self.state == LATE
        for s in range(2):
            if v3:
                self.late_ms[s] = snap[9 + 10 * s]
                self.start_base[s] = (snap[10] >> (2 + 13 * s) & 8191) * 1000
            else:
                d = self.rules.base[s] - self.rem[s]
                self.late_ms[s] = d if pre and d > 0 else 0
                self.start_base[s] = self.rules.base[s]

    def _restore_slots(self, snap, r):
        """restore()'s table-driven part (its own frame: restore()'s would
        outgrow the stack and be heap-allocated on MicroPython)."""
        for i in range(5):
            setattr(r, _RULES_SLOTS[i], snap[13 + i])
        for i in range(4):
            setattr(self, _CLOCK_SLOTS[i], snap[5 + i])
