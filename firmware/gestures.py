# Gestures: debounced presses and releases (buttons.py) -> the app's actions.
#
# The contract (SPEC v5 §4 "Gestures on the device", "Buttons"):
#   * Every press is an action at once, dated at its own edge: LEFT, RIGHT,
#     PAUSE_DOWN.  Nothing waits to see whether a gesture follows.
#   * A *group* is the time during which at least one key is down: it opens
#     with a press while no key is down (`opened` is True on that action, and
#     `t0` is its edge) and closes with ALL_UP (t = the last release edge).
#     A key let go while another stays down is UP (t = its release edge).
#     On every release (UP, ALL_UP, REGROUP) `up` is the key let go.  (The
#     app's questions count their keys by these: question.Answer.)
#   * Only held keys make gestures, each at most once a group, recognised
#     the instant its keys have been held its time (never at a release), and
#     only of fresh presses: a gesture's keys all went down within fresh_ms
#     (2 s) of each other, from the first of them to the last, both ends
#     included (a key held longer than that when another went down is a
#     resting finger: it makes no gesture with the later keys).  On a
#     gesture, `key` is the first of its keys and `t0` that key's edge: what
#     the app undoes is what the keys did from that edge on.
#       REFEREE     the pause key and both player buttons all down together
#                   for referee_ms (any order, the three presses within
#                   fresh_ms; timed from the moment the last of the three
#                   went down; a release restarts it); never with a pause
#                   key pressed once both player buttons had been down
#                   together confirm_ms (SPEC v5: that was a confirmation),
#                   unless the app said it was none (uncounted(): a clock
#                   ran at the first key's edge, no question showed).
#       LATE_L/R    the pause key and exactly one player button (L or R: that
#                   player is present) down together for long_ms, the two
#                   presses within fresh_ms.
#       PAUSE_LONG  the pause key held long_ms with no player button down at
#                   any moment of that hold (the app decides whether the clock
#                   was stopped at its edge: an end request or setup).
#       CONFIRM     both player buttons down together for confirm_ms, the two
#                   presses within fresh_ms, the pause key up from the first
#                   of them on; t = that instant (the second press + confirm_ms)
#                   even when it comes out later: at a release or a pause
#                   press that the loop sees after the instant, CONFIRM comes
#                   first (the pause press next, then making no REFEREE).
#                   So the keys of a slow referee gesture, whose pause key
#                   comes later, never give it.  (Whether a confirmation
#                   counts is the app's: not while a clock ran at its first
#                   key's edge with no question showing.)
#   * Timed gestures wait while a held key may be in the middle of a release
#     (buttons.pending()), so a hold of 1999 ms never reads as 2000.
#   * A player button's release is known debounce_ms after its edge, so it can
#     come out after a later press of another key.  When such a release shows
#     that every key still down went down after it, the group really closed
#     there and a new one opened at the earliest of those presses: REGROUP
#     (t0 = that press's edge, `key` = its button).
#     After a main-loop stall, releases can come out out of edge order: a
#     key already released whose hold reached that press joins the new group
#     (t0 = its press), and one whose hold spanned the gap means none.
#
# next(now) allocates nothing (ints and preallocated bytes only) and keeps every
# frame small: MicroPython puts a frame of more than ~11 words on the heap.
from buttons import BTN_LEFT, BTN_PAUSE, array_i

# the actions' codes and names (actions.py: the session names a gesture
# in the log without importing this module or the driver)
from actions import NONE, LEFT, RIGHT, PAUSE_DOWN, PAUSE_LONG, REFEREE, \
    CONFIRM, LATE_L, LATE_R, ALL_UP, REGROUP, UP, ACTION_NAMES, GESTURES
from ticks import ticks_add

# which gestures a group has given (bits)
_G_REF = 1
_G_LATE = 2
_G_CONFIRM = 4

FRESH_MS = 2000   # a gesture's keys all go down within this (SPEC v4 §4)
_SEQ = 0x3FFFFFFF


class Gestures:
    """Call next(now) each main-loop iteration until it returns NONE; the
    action's time is in .t, the group's first edge in .t0."""

    def __init__(self, buttons, ticks_diff, long_ms=2000, referee_ms=3000,
                 confirm_ms=1000, fresh_ms=FRESH_MS, add=ticks_add):
        self.b = buttons
        self._diff = ticks_diff
        self._add = add
        self.long_ms = long_ms
        self.referee_ms = referee_ms
        self.confirm_ms = confirm_ms
        self.fresh_ms = fresh_ms
        self.t = 0
        self.t0 = 0              # the current (or last) group's first edge
        self.opened = False      # the action just returned opened a group
        self.key = 0             # the button whose press opened the group
        self.up = 0              # the key of the latest release
        self._kt = array_i(3)    # each key's latest press edge
        self._rt = array_i(3)    # each key's latest release edge
        self._ks = array_i(3)    # each key's latest press, in press order
        self._seq = 0            # (presses so far, mod 2**30)
        self._rel = 0            # keys released in this group (bits)
        self._down = bytearray(3)
        n = 0
        for i in range(3):
            if buttons.pressed(i):
                self._down[i] = 1
                n += 1
        self._n = n              # keys down
        # A key held at start (no press edge seen) is in no group of ours:
        # it gives no gesture until every key has been up once.
        self._given = 0xFF if n else 0   # gestures given in this group (bits)
        self._paused = False     # the pause key went down in this group
        self._pt = 0             # the pause key's press edge (this hold)
        self._pre = 0            # player buttons down when the pause key went down
        self._touched = False    # a player button pressed during this pause hold
        self._long = False       # PAUSE_LONG may still come for this hold
        self._all_t = -1         # all three down since (-1: not all down)
        self._one_t = -1         # pause + exactly one player button since
        self._pair_t = -1        # both player buttons down since
        self._lp = False         # this pause hold began after a confirmation's 1 s
        self._void = False       # the app did not count this group's confirmation
        self._defer = -1         # a pause press held back behind a CONFIRM ...
        self._dt = 0             # ... and its edge

    def held(self, i):
        """Is button i down now (as the actions so far have seen it)."""
        return self._down[i] == 1

    def any_held(self):
        return self._n > 0

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to the next instant a held key
        can make a timed gesture (REFEREE, LATE_L/R, CONFIRM, PAUSE_LONG:
        its keys held their time), so a hold is acted on at its ms without
        the loop polling through it.  No key down, or no gesture left to
        come of the keys: `ms`.  (An instant already past was given in the
        step just run, or needs another edge, which ends the sleep.)"""
        g = self._given
        if self._n == 0 or g == 0xFF:
            return ms
        d = self._diff
        if self._all_t != -1 and not g & _G_REF and not self._lp:
            k = self.referee_ms - d(now, self._all_t)
            if 0 < k < ms:
                ms = k
        if self._pair_t != -1 and not g & _G_CONFIRM:
            k = self.confirm_ms - d(now, self._pair_t)
            if 0 < k < ms:
                ms = k
        # (a lateness's pause + one button, the pause key's hold alone: the
        # other holds are up then)
        if self._one_t != -1 and not g & _G_LATE:
            k = self.long_ms - d(now, self._one_t)
        elif self._long and self._down[2] and self._pre == 0 and not self._touched:
            k = self.long_ms - d(now, self._pt)
        else:
            return ms
        return k if 0 < k < ms else ms

    def next(self, now):
        """The next action (NONE when there is none now)."""
        self.opened = False
        self.b.poll(now)
        while True:
            c = self._defer
            if c >= 0:
                self._defer = -1
                t = self._dt
            else:
                c = self.b.get()
                if c < 0:
                    return self._timed(now)
                t = self.b.t
            if c & 1:
                if c >> 1 == BTN_PAUSE and self._due(t):
                    # both player buttons were held their 1 s before this
                    # pause press: the confirmation first, then the press
                    self._defer = c
                    self._dt = t
                    return CONFIRM
                a = self._press(c >> 1, t)
            else:
                a = self._release(c >> 1, t)
            if a:
                return a

    # -- edges --------------------------------------------------------------------
    def _press(self, i, t):
        d = self._down
        if d[i]:
            return NONE
        d[i] = 1
        self._kt[i] = t
        self._seq = (self._seq + 1) & _SEQ
        self._ks[i] = self._seq
        if self._n == 0:
            self._open(i, t)
        self._n += 1
        self.t = t
        self._combos(t)
        if i == BTN_PAUSE:
            self._paused = True
            self._pt = t
            # SPEC v5: a pause key pressed after both player buttons were
            # held 1 s together makes no referee gesture with them
            self._lp = self._pair_t != -1 and not self._void \
                and self._diff(t, self._pair_t) >= self.confirm_ms
            self._pre = d[0] | (d[1] << 1)
            self._touched = False
            self._long = True
            return PAUSE_DOWN
        self._touched = True      # a player button during a pause hold
        return LEFT if i == BTN_LEFT else RIGHT

    def uncounted(self):
        """The app did not count this group's confirmation (a clock ran at
        its first key's edge and no question showed: both player buttons
        are presses then, SPEC v5 §4), so it was none: a pause key pressed
        after it may still make the referee gesture with them (any order
        and gaps within fresh_ms)."""
        self._void = True

    def _open(self, i, t):
        self.opened = True
        self.key = i
        self.t0 = t
        self._given = 0
        self._void = False
        self._paused = False
        self._rel = 0

    def _release(self, i, t):
        d = self._down
        if not d[i]:
            return NONE
        a = NONE
        self.up = i
        if i != BTN_PAUSE and self._due(t):
            a = CONFIRM     # its instant came before this release (seen late)
        elif i == BTN_PAUSE:
            self._long = False
        elif self._diff(t, self._pt) <= 0:
            # released before the pause key went down, known only now: it
            # was not down during this pause hold after all
            self._pre &= ~(1 << i)
        d[i] = 0
        self._rt[i] = t
        self._rel |= 1 << i
        self._n -= 1
        self._all_t = self._one_t = self._pair_t = -1
        self._combos(t)
        if a:
            return a        # (t: the confirmation's instant)
        self.t = t
        if self._n == 0:
            if self._given == 0xFF:
                self._given = 0
            return ALL_UP
        if self._given != 0xFF and self._later(t):
            return REGROUP
        return UP

    def _later(self, t):
        """Did every key still down go down after t (and no key released
        before this release came out was down from t to their presses)?
        Then the group closed at t, and a new one opened at the earliest
        of those presses (_back)."""
        d = self._down
        k = -1
        for j in range(3):
            if d[j]:
                if self._diff(self._kt[j], t) < 0:
                    return False   # (the same ms: the release came first)
                if k < 0 or self._diff(self._kt[j], self._kt[k]) < 0:
                    k = j
        return self._regroup(self._back(k), t)

    def _regroup(self, k, t):
        # (a frame of its own: _later's is full)
        if self._diff(self._kt[k], t) < 0:
            return False         # a key released later was down all along
        self.key = k
        self.t0 = self._kt[k]
        self._given = 0
        self._paused = self._down[2] == 1 or self._diff(self._pt, self.t0) >= 0
        return True

    def _back(self, k):
        """The press that began the held stretch reaching k's press: a key
        released in this group (its release out before this one) that was
        down at k's press went down earlier.  (A release and a press in the
        same ms: the release came first, as the edges do after an erase
        with interrupts off.)"""
        j = 0
        while j < 3:
            if not self._down[j] and (self._rel >> j) & 1 \
                    and self._diff(self._kt[j], self._kt[k]) < 0 \
                    and self._diff(self._kt[k], self._rt[j]) < 0:
                k = j
                j = 0
            else:
                j += 1
        return k

    def _fresh(self, m):
        """Did the keys of bit mask m (all down) go down within fresh_ms of
        each other?  Then the first of them is .key, its edge .t0."""
        f = self._pressed(m, -1)
        z = self._pressed(m, 1)
        if self._diff(self._kt[z], self._kt[f]) > self.fresh_ms:
            return False
        self.key = f
        self.t0 = self._kt[f]
        return True

    def _pressed(self, m, s):
        """Of the keys in mask m, the one pressed first (s = -1) or last (1)."""
        k = -1
        for j in range(3):
            if (m >> j) & 1 and (k < 0 or self._diff(self._ks[j], self._ks[k]) * s > 0):
                k = j
        return k

    def _due(self, t):
        """Is the confirmation due at t (both player buttons down together
        confirm_ms by then, pressed within fresh_ms, the pause key up since
        the first of them, not given in this group)?  Then it is given:
        .t its instant, .key/.t0 its first key."""
        p = self._pair_t
        if p == -1 or self._given & _G_CONFIRM \
                or self._diff(t, p) < self.confirm_ms:
            return False
        if self._pause_since(self._kt[self._pressed(3, -1)]) or not self._fresh(3):
            return False
        self._given |= _G_CONFIRM
        self.t = self._add(p, self.confirm_ms)
        return True

    def _pause_since(self, t0):
        """Was the pause key down at any moment since t0 (the first key of
        a confirmation)?  (Released at t0's very ms: before it.)"""
        if self._down[BTN_PAUSE]:
            return True
        return self._paused and self._diff(self._rt[BTN_PAUSE], t0) > 0

    def _combos(self, t):
        """Which held sets are down together, and since when (t: now)."""
        d = self._down
        both = d[0] and d[1]
        if both and d[2]:
            if self._all_t == -1:
                self._all_t = t
        else:
            self._all_t = -1
        if d[2] and (d[0] != d[1]):
            if self._one_t == -1:
                self._one_t = t
        else:
            self._one_t = -1
        if both:
            if self._pair_t == -1:
                self._pair_t = t
        else:
            self._pair_t = -1

    # -- holds ----------------------------------------------------------------------
    def _timed(self, now):
        if self._n == 0 or self.b.pending():
            return NONE
        g = self._given
        if self._all_t != -1 and not g & _G_REF and not self._lp \
                and self._diff(now, self._all_t) >= self.referee_ms and self._fresh(7):
            self._given = g | _G_REF
            self.t = now
            return REFEREE
        if self._one_t != -1 and not g & _G_LATE \
                and self._diff(now, self._one_t) >= self.long_ms \
                and self._fresh(5 if self._down[0] else 6):
            self._given = g | _G_LATE
            self.t = now
            return LATE_L if self._down[0] else LATE_R
        if self._due(now):
            return CONFIRM
        return self._timed_long(now)

    def _timed_long(self, now):
        if self._long and self._down[2] and self._pre == 0 and not self._touched \
                and self._given != 0xFF \
                and self._diff(now, self._pt) >= self.long_ms:
            self._long = False
            self.t = now
            self.key = BTN_PAUSE
            self.t0 = self._pt
            return PAUSE_LONG
        return NONE
