# The referee menu (SPEC §4 Referee functions; menu.py: the keys, the
# layout, the codes, the drawing).
import lang
import profiles
import question as qmod
from clockcore import READY, OVER, LATE, MAX_LATENESS_MS
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE, A_CONFIRM, A_UP, EXIT, RESET, \
    center, arrows, cycle, base_step, can_shift, frame, both_mmss
from rows import mmss, put

# Items (label key in the comment).  SPEC v4 §4: moving through the menu never
# changes the game, and every item that does acts only after a confirmation
# (both player buttons held 1 s; SPEC v5: at that instant, and the keys
# answer a question showing as on the game screen, question.Answer: a
# player button let go before the yes, or the pause key, says no): a time change is kept aside as a pending
# change per side while the referee adjusts, shown as the new time, and is
# applied as a whole, one clock.adjust() a side (logged, EV_ADJUST with its
# delta), when the referee leaves the menu and confirms; TSO § 5.2 d, resume
# and reset each ask first.  The base time before the game (ready or late)
# is pending the same way and applied with them, one clock.rebase() a side
# (EV_BASE): it keeps the time each side was charged (remaining = new base
# - charged), so a lateness or a confirmed adjustment is never erased.
# The late-arrival items set each side's lateness account (SPEC v5 §4 Late
# arrival: its own account, kept apart from the remaining time), pending
# the same way and applied with them, one clock.set_lateness() a side
# (EV_LATENESS, the `lateness` line); the +/- 1 s and 1 min items are time
# adjustments (EV_ADJUST, `adjust`), which never touch the account.
R_L_SEC = 0    # T_ADJ_L_S  left  -/+ 1 s      (TSO § 7.3.2.2 Zeitabzug/Gutschrift)
R_L_MIN = 1    # T_ADJ_L_M  left  -/+ 1 min
R_R_SEC = 2    # T_ADJ_R_S  right -/+ 1 s
R_R_MIN = 3    # T_ADJ_R_M  right -/+ 1 min
R_LATE_L = 4   # T_LATE_L   elapsed lateness of a late left player, 1-min steps
R_LATE_R = 5   # T_LATE_R   (TSO § 2.4 c, PFS § 6.3.3); ready only
R_BASE = 6     # T_BASE     base time, both sides; ready and late only
R_RESET = 7    # T_RESET    reset the game, with confirmation (TSO § 1.4.1 a)
R_EXIT = 8     # T_EXIT     (with pending time changes: T_APPLY asks)
R_VOID = 9     # T_VOID_L/R TSO § 5.2 d for the side the last move started
R_RESUME = 10  # T_RESUME   undo an end (over only, not after a forfeit)

_R_LABEL = ("T_ADJ_L_S", "T_ADJ_L_M", "T_ADJ_R_S", "T_ADJ_R_M", "T_LATE_L",
            "T_LATE_R", "T_BASE", "T_RESET", "T_EXIT", "T_VOID_L", "T_RESUME")
_R_READY = (R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_LATE_L, R_LATE_R, R_BASE,
            R_RESET, R_EXIT)
# After the start a lateness is no more set (SPEC v5 §5: ready or late):
# the time items correct a side's time.
_R_PAUSED = (R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_RESET, R_EXIT)
_R_PAUSED_V = (R_VOID, R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_RESET, R_EXIT)
# A lateness runs (SPEC v4): no time adjustments while a clock runs (they
# are for ready and paused); the base time, a reset, or back to `late`.
_R_LATE = (R_BASE, R_RESET, R_EXIT)
# The final screen (SPEC v2 §4): § 5.2 d, resume, a new game.
_R_OVER = (R_RESET, R_EXIT)
_R_OVER_V = (R_VOID, R_RESET, R_EXIT)
_R_OVER_R = (R_RESUME, R_RESET, R_EXIT)
_R_OVER_VR = (R_VOID, R_RESUME, R_RESET, R_EXIT)


def _none_held(i):
    """(A menu made without the keys, e.g. in a test: no key is down.)"""
    return False


class RefereeMenu:
    """Referee functions (SPEC §4), entered only in ready, paused, late or
    over (the app checks; in late the lateness clock runs on meanwhile).
    handle(action, t) returns None, EXIT (leave the menu) or RESET (the
    clock has been reset to ready: the app starts a new game log and leaves
    the menu)."""

    def __init__(self, clock, language="en", held=None):
        self.clock = clock
        self.language = language
        # what the keys say to a question (held(i): gestures.Gestures.held)
        self.answer = qmod.Answer(held or _none_held)
        self.item = self.items()[0]   # the final screen has no time items
        self.pend = [0, 0]     # time changes not applied yet, ms a side
        b = clock.rules.base
        self.pbase = [b[0], b[1]]   # the base times as they will be
        self.plate = [0, 0]    # lateness account changes not applied yet, ms
        self.ask = -1          # the item whose question shows (-1: none)
        self._saved = [0, 0, 0, -1, 0, 0, 0, 0]
        self.mark()

    def items(self):
        c = self.clock
        v = c.can_void(c.void_side)
        st = c.state
        if st == READY:
            return _R_READY
        if st == LATE:
            return _R_LATE
        if st == OVER:
            r = c.can_resume()
            return _R_OVER_VR if v and r else _R_OVER_V if v else \
                _R_OVER_R if r else _R_OVER
        return _R_PAUSED_V if v else _R_PAUSED

    def mark(self):
        b = self._saved
        b[0] = self.item
        b[1] = self.pend[0]
        b[2] = self.pend[1]
        b[3] = self.ask
        b[4] = self.pbase[0]
        b[5] = self.pbase[1]
        b[6] = self.plate[0]
        b[7] = self.plate[1]

    def undo(self, t=None):
        """Back to the mark (a gesture undoes its keys).  Nothing in the menu
        changes the game before a confirmation, so the clock is untouched."""
        b = self._saved
        self.item = b[0]
        self.pend[0] = b[1]
        self.pend[1] = b[2]
        self.ask = b[3]
        self.pbase[0] = b[4]
        self.pbase[1] = b[5]
        self.plate[0] = b[6]
        self.plate[1] = b[7]

    def rem(self, s):
        """Side s's time as it will be with the pending changes (a new base
        keeps what was charged: remaining = base - charged; a lateness
        account set takes or gives back its difference)."""
        c = self.clock
        return c.rem[s] + self.pend[s] + self.pbase[s] - c.rules.base[s] \
            - self.plate[s]

    def _rebased(self):
        """A base-time change is pending."""
        b = self.clock.rules.base
        return self.pbase[0] != b[0] or self.pbase[1] != b[1]

    def _pending(self):
        return self.pend[0] or self.pend[1] or self._rebased() \
            or self.plate[0] or self.plate[1]

    def _base_ok(self, up):
        """The base item can step: both bases move together (keeping a
        handicap), within the setup's bounds, and each side keeps time after
        what it was charged (SPEC v4: the charged time stays)."""
        b = self.pbase
        if not can_shift(b[0], b[1], up):
            return False
        return up or (self._keeps(0) and self._keeps(1))

    def _keeps(self, s):
        """Side s keeps time after the next step down of its base."""
        b = self.pbase[s]
        return self.rem(s) - b + base_step(b, False) > 0

    def handle(self, action, t):
        if self.ask >= 0:
            return self._answer(action, t)
        if action == A_DONE:
            return self._leave()
        if action == A_NEXT:
            items = self.items()
            self.item = cycle(items, self.item, True)
            return None
        if action != A_LEFT and action != A_RIGHT:
            return None
        up = action == A_RIGHT
        it = self.item
        c = self.clock
        if it <= R_R_MIN:
            side = 0 if it <= R_L_MIN else 1
            step = 1000 if it == R_L_SEC or it == R_R_SEC else 60000
            self.pend[side] += step if up else -self._takeable(side, step)
        elif it == R_LATE_L or it == R_LATE_R:
            self._late(0 if it == R_LATE_L else 1, up)
        elif it == R_BASE:
            if self._base_ok(up):
                b = self.pbase
                b[0] = base_step(b[0], up)
                b[1] = base_step(b[1], up)
        elif it == R_EXIT:
            return self._leave()
        elif up:
            self._ask(it)   # R_RESET, R_VOID, R_RESUME: asked first
        return None

    def _ask(self, it):
        self.ask = it
        self.answer.clear()

    def _leave(self):
        if self._pending():
            self._ask(R_EXIT)   # apply the time changes?
            return None
        return EXIT

    def _answer(self, action, t):
        """A question shows: both player buttons held 1 s say yes (A_CONFIRM),
        at that instant; a player button does nothing but begin an answer,
        and let go before the yes it says no (question.Answer: the keys then
        held undo no further than that no, mark()); the pause key says no
        (held 2 s at the time question: leave without the changes)."""
        it = self.ask
        if action == A_LEFT or action == A_RIGHT:
            self.answer.key(action - A_LEFT)
        elif action == A_UP:
            if self.answer.let_go():
                self.ask = -1
                self.mark()
        elif action == A_NEXT:
            if self.answer.key(2):
                self.ask = -1
        elif action == A_DONE:
            self.ask = -1
            if it == R_EXIT:
                self._drop()
                return EXIT
        elif action == A_CONFIRM:
            self.ask = -1
            return self._act(it, t)
        return None

    def _act(self, it, t):
        c = self.clock
        if it == R_EXIT:
            # the adjustments, the lateness accounts, then the base (before
            # the game: it keeps the time charged, so the order changes no
            # time); each logged as its own replay event
            for s in (0, 1):
                if self.pend[s]:
                    c.adjust(s, self.pend[s], t)
            for s in (0, 1):
                if self.plate[s]:
                    c.set_lateness(s, c.late_ms[s] + self.plate[s], t)
            for s in (0, 1):
                if self.pbase[s] != c.rules.base[s]:
                    c.rebase(s, self.pbase[s], t)
            self._drop()
            return EXIT
        if it == R_RESET:
            c.reset(t)
            return RESET
        if it == R_VOID:
            # TSO § 5.2 d: the game is over and the final screen shows the
            # corrected times.
            if c.void(c.void_side, t):
                return EXIT
        elif it == R_RESUME:
            if c.resume(t):
                return EXIT
        return None

    def _drop(self):
        """No pending change any more (applied or given up)."""
        c = self.clock
        b = c.rules.base
        self.pend[0] = self.pend[1] = 0
        self.pbase[0] = b[0]
        self.pbase[1] = b[1]
        self.plate[0] = self.plate[1] = 0

    def _takeable(self, side, step):
        """How much of `step` a deduction can take from `side`: all of it,
        except in a flag profile, where a side's time stops at 00:00 (PFS §
        6.2.1), so the logged delta is the change actually made."""
        if self.clock.rules.zero != profiles.ZERO_FLAG:
            return step
        r = self.rem(side)
        if r <= 0:
            return 0
        return step if r >= step else r

    def _late(self, side, up):
        """Late arrival: the side's lateness account (SPEC v5: its own, not
        base - remaining) goes up or down by a minute, and its time with
        it.  The last step up stops at 00:00 remaining (or at the most a
        lateness can be), the last step down at no lateness."""
        el = self.clock.late_ms[side] + self.plate[side]
        if up:
            rem = self.rem(side)
            d = 60000 if rem >= 60000 else rem
            if d > MAX_LATENESS_MS - el:
                d = MAX_LATENESS_MS - el
            if d > 0:
                self.plate[side] += d
        else:
            self.plate[side] -= 60000 if el >= 60000 else el

    # Drawing: small methods, none with a frame MicroPython puts on the heap
    # (more than ~11 words): over a lateness the menu is redrawn every
    # second for minutes (the 20x4 shows the times), allocating nothing.
    def render(self, rows):
        k = frame(rows, lang.table(self.language)["TITLE_REF"], self.items(),
                   self.item)
        if k:
            self._times(rows[3])
        if self.ask >= 0:
            self._question(rows[k], rows[k + 1])
        else:
            self._item(rows[k], rows[k + 1])
        return rows

    def _times(self, both):
        mmss(both, 1, self.rem(0))
        mmss(both, len(both) - 7, self.rem(1))

    def _question(self, label, value):
        w = lang.table(self.language)
        a = self.ask
        put(label, 0, w["T_APPLY"] if a == R_EXIT else
            w["T_VOID_R"] if a == R_VOID and self.clock.void_side == 1 else
            w[_R_LABEL[a]])
        center(value, w["V_CONFIRM"])

    def _item(self, label, value):
        it = self.item
        if it == R_VOID and self.clock.void_side == 1:
            put(label, 0, lang.table(self.language)["T_VOID_R"])
        else:
            put(label, 0, lang.table(self.language)[_R_LABEL[it]])
        if it == R_VOID:
            self._void(value)
        elif it == R_RESUME or it == R_RESET:
            arrows(value, False, True)
        elif it <= R_R_MIN:
            self._adjusted(value, 0 if it <= R_L_MIN else 1)
        elif it == R_LATE_L or it == R_LATE_R:
            self._elapsed(value, 0 if it == R_LATE_L else 1)
        elif it == R_BASE:
            self._base(value)
        else:  # R_EXIT: either arrow leaves; the pause key goes on round
            arrows(value, True, True)
            center(value, lang.table(self.language)["V_MENU_KEYS"])

    def _void(self, value):
        # what the side gets back: "+01:15"
        c = self.clock
        n = len(value)
        arrows(value, False, True)
        mmss(value, (n - 6) // 2, c.rem[c.void_side] - c.void_rem)
        value[(n - 6) // 2] = 0x2B

    def _adjusted(self, value, s):
        arrows(value, self._takeable(s, 1000) > 0, True)
        mmss(value, (len(value) - 6) // 2, self.rem(s))
        self._pending_mark(value, s)

    def _elapsed(self, value, s):
        el = self.clock.late_ms[s] + self.plate[s]
        p = (len(value) - 6) // 2
        arrows(value, el > 0, self.rem(s) > 0 and el < MAX_LATENESS_MS)
        # counting up, as the game screen's lateness: rounded down
        mmss(value, p, -el)
        value[p] = 0x20
        if self.plate[s]:
            value[p + 6] = 0x2A   # "*": changed, not applied yet

    def _base(self, value):
        b = self.pbase
        arrows(value, self._base_ok(False), self._base_ok(True))
        both_mmss(value, b[0], b[1])
        if self._rebased():
            # "*" after the time: changed, not applied yet
            n = len(value)
            value[n // 2 + 6 if b[0] != b[1] else 2 + (n - 9) // 2 + 5] = 0x2A

    def _pending_mark(self, value, s):
        # "*" after the time: changed, not applied yet
        if self.pend[s]:
            value[(len(value) - 6) // 2 + 6] = 0x2A
