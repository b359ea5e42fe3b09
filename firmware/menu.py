# The menus: setup, referee and the results of the last games, three of the
# app's screens (app.py): small state machines on the clock's three keys,
# drawn into the app's LCD rows.
#
# The app turns keys into action codes (action()) and calls handle(), each
# key at its own leading edge (SPEC v3 §4 Gestures):
#   A_LEFT    (left player button)  decrease / previous value
#   A_RIGHT   (right player button) increase / next value / ask
#   A_NEXT    (pause key)           next item (wraps round); drops a question
#   A_DONE    (pause key held 2 s)  leave the menu
#   A_CONFIRM (both player buttons held 1 s, pause up)  yes to the question
# A gesture undoes what its keys did at their edges: the app calls mark()
# when the first of them goes down and undo() when it is recognised,
# and calls render(rows) with its row bytearrays (16x2 or 20x4; one
# bytearray(cols) per row) whenever it redraws.  render() allocates nothing.
#
# Layout, 16x2:                      20x4:
#   row 0  item label                  row 0  title           n/N
#   row 1  "<    value     >"          row 1  item label
#                                      row 2  "<      value       >"
#                                      row 3  hint (setup) / both times (referee)
# An arrow is drawn only where that button changes something.
#
# Words come from lang.py in the chosen language; every label fits 16 columns
# and every value 12 (tests/test_lang.py), so nothing is ever cut.
import gestures as gst
import lang
import profiles
import results
import settings as st
from clockcore import READY, OVER, LATE
from view import G_FLAG
from rows import SP, blank, put, num, ndigits, mmss  # the LCD-row toolkit

A_LEFT = 1
A_RIGHT = 2
A_NEXT = 3
A_DONE = 4
A_CONFIRM = 5

# What handle() returns: one code, the only thing the app reads from a menu
# (None: stay in the menu, nothing for the app to do).
SAVE = "save"        # setup done: the app saves the settings, a new game
RESULTS = "results"  # setup: save as SAVE, then show the last games' results
EXIT = "exit"        # back to the game screen
RESET = "reset"      # referee: the clock was reset: a new game log, back

LT = 0x3C  # '<'
GT = 0x3E  # '>'


def action(a):
    """A key's or a gesture's action (gestures.py) as the menus' (0: none
    for the menus).  The gestures' keys are undone first (undo())."""
    if a == gst.LEFT:
        return A_LEFT
    if a == gst.RIGHT:
        return A_RIGHT
    if a == gst.PAUSE_DOWN:
        return A_NEXT
    if a == gst.PAUSE_LONG:
        return A_DONE
    if a == gst.CONFIRM:
        return A_CONFIRM
    return 0


# -- small drawing helpers (no allocation; rows.py writes the codes) --------------
def _center(row, word):
    """word centered between the arrow columns (cols 2..cols-3)."""
    w = len(row) - 4
    n = len(word)
    if n > w:
        n = w
    put(row, 2 + (w - n) // 2, word)


def _center_num(row, v, unit):
    """v plus an optional one-letter unit (' s'), centered."""
    n = ndigits(v) + (2 if unit else 0)
    pos = 2 + (len(row) - 4 - n) // 2
    pos = num(row, pos, v)
    if unit:
        row[pos + 1] = unit


def _center_mmss(row, ms):
    """A positive duration as mm:ss (5 columns), centered."""
    mmss(row, 2 + (len(row) - 4 - 5) // 2 - 1, ms)


def _lim(can_dec, can_inc):
    return (1 if can_dec else 0) | (2 if can_inc else 0)


def _arrows(row, can_dec, can_inc):
    row[0] = LT if can_dec else SP
    row[len(row) - 1] = GT if can_inc else SP


def _position(row, idx, n):
    """'idx/n' right-aligned (20x4 title row).  (Small frames: the referee
    menu is redrawn every second over a lateness, allocating nothing.)"""
    pos = len(row) - ndigits(n) * 2 - 1
    _blank_from(row, pos)
    end = num(row, pos + ndigits(n) - ndigits(idx), idx)
    row[end] = 0x2F  # '/'
    num(row, end + 1, n)


def _blank_from(row, pos):
    n = len(row)
    while pos < n:
        row[pos] = SP
        pos += 1


def _step(v, step, up, lo, hi):
    """v moved one step on the grid of `step` (snapping an off-grid value to
    the grid first), clamped to lo..hi."""
    if up:
        v = (v // step + 1) * step
    else:
        v = ((v + step - 1) // step - 1) * step
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


# -- setup menu -------------------------------------------------------------------
# Items (the label key in lang.py is the comment).
S_PROFILE = 0   # T_PROFILE  sdev / pfs / custom (cycles)
S_BASE = 1      # T_BASE     both sides, 1-min steps, BASE_MIN..BASE_MAX
S_BASE_L = 2    # T_BASE_L   custom only: left side alone
S_BASE_R = 3    # T_BASE_R   custom only: right side alone
S_ZERO = 4      # T_ZERO     custom only: overtime / flag (cycles)
S_PENALTY = 5   # T_PENALTY  custom + overtime only: 0..50 points, step 5
S_FORFEIT = 6   # T_FORFEIT  custom + overtime only: none, 1:00..10:00
S_WINDOW = 7    # T_WINDOW   custom only: 0..60 s, step 5 (0 = none)
S_LANG = 8      # T_LANG     lang.LANGS (cycles)
S_SOUND = 9     # T_SOUND    on / off (cycles)
S_RESULTS = 10  # T_RESULTS  the last games' results (either arrow opens them)
S_TABLE = 11    # T_TABLE    table number, 0 (none)..TABLE_MAX, on every log
S_HALL = 12     # T_HALL     a clock on the hall's network only: its state
                #            (read only) and the table it publishes under

_S_LABEL = ("T_PROFILE", "T_BASE", "T_BASE_L", "T_BASE_R", "T_ZERO",
            "T_PENALTY", "T_FORFEIT", "T_WINDOW", "T_LANG", "T_SOUND",
            "T_RESULTS", "T_TABLE", "T_HALL")
_S_STD = (S_PROFILE, S_BASE, S_LANG, S_SOUND, S_TABLE, S_RESULTS)
_S_CUSTOM_OVERTIME = (S_PROFILE, S_BASE, S_BASE_L, S_BASE_R, S_ZERO,
                      S_PENALTY, S_FORFEIT, S_WINDOW, S_LANG, S_SOUND,
                      S_TABLE, S_RESULTS)
# With a flag at 00:00 there is no overtime, so penalty and forfeit are moot.
_S_CUSTOM_FLAG = (S_PROFILE, S_BASE, S_BASE_L, S_BASE_R, S_ZERO, S_WINDOW,
                  S_LANG, S_SOUND, S_TABLE, S_RESULTS)
# A clock on the hall's network (settings.hall: the app sets it to its net.Net) adds S_HALL
# after the table number.
_S_STD_NET = (S_PROFILE, S_BASE, S_LANG, S_SOUND, S_TABLE, S_HALL, S_RESULTS)
_S_CUSTOM_OVERTIME_NET = _S_CUSTOM_OVERTIME[:-1] + (S_HALL, S_RESULTS)
_S_CUSTOM_FLAG_NET = _S_CUSTOM_FLAG[:-1] + (S_HALL, S_RESULTS)
_HALL_WORD = ("V_HALL_DOWN", "V_HALL_WAIT", "V_HALL_UP")  # by net.HALL_*
_PROFILE_KEY = {"sdev": "P_SDEV", "pfs": "P_PFS", "custom": "V_CUSTOM"}


def _cycle(seq, cur, up):
    n = len(seq)
    for i in range(n):
        if seq[i] == cur:
            return seq[(i + (1 if up else n - 1)) % n]
    return seq[0]


class SetupMenu:
    """Before a game (SPEC §4 Setup): profile, base times, language, sound,
    and the custom profile's rules.  Edits `settings` in place; handle()
    returns SAVE on A_DONE (the app saves and goes back to ready), RESULTS
    on the results item's arrows, else None."""

    def __init__(self, settings):
        self.settings = settings
        self.item = S_PROFILE

    def items(self):
        """The items shown for the current settings (a constant tuple)."""
        s = self.settings
        net = s.hall is not None
        if s.profile != "custom":
            return _S_STD_NET if net else _S_STD
        if s.zero == profiles.ZERO_FLAG:
            return _S_CUSTOM_FLAG_NET if net else _S_CUSTOM_FLAG
        return _S_CUSTOM_OVERTIME_NET if net else _S_CUSTOM_OVERTIME

    def handle(self, action, t=None):
        if action == A_DONE:
            return SAVE
        if action == A_NEXT:
            items = self.items()
            self.item = _cycle(items, self.item, True)
        elif self.item == S_RESULTS and (action == A_LEFT or action == A_RIGHT):
            return RESULTS  # the app saves, then shows the results
        elif action == A_LEFT or action == A_RIGHT:
            self._change(action == A_RIGHT)
        return None

    def _change(self, up):
        s = self.settings
        it = self.item
        if it == S_PROFILE:
            s.set_profile(_cycle(profiles.NAMES, s.profile, up))
        elif it == S_BASE:
            if _can_shift(s.base_left, s.base_right, up):
                s.base_left = _base_step(s.base_left, up)
                s.base_right = _base_step(s.base_right, up)
        elif it == S_BASE_L:
            s.base_left = _step(s.base_left, st.BASE_STEP, up, st.BASE_MIN,
                                st.BASE_MAX)
        elif it == S_BASE_R:
            s.base_right = _step(s.base_right, st.BASE_STEP, up, st.BASE_MIN,
                                 st.BASE_MAX)
        elif it == S_ZERO:
            s.zero = profiles.ZERO_FLAG if s.zero == profiles.ZERO_OVERTIME \
                else profiles.ZERO_OVERTIME
        elif it == S_PENALTY:
            s.penalty = _step(s.penalty, st.PENALTY_STEP, up, 0,
                              st.PENALTY_MAX)
        elif it == S_FORFEIT:
            f = s.forfeit
            if f < 0:
                if up:
                    s.forfeit = st.FORFEIT_MIN
            elif not up and f <= st.FORFEIT_MIN:
                s.forfeit = -1
            else:
                s.forfeit = _step(f, st.FORFEIT_STEP, up, st.FORFEIT_MIN,
                                  st.FORFEIT_MAX)
        elif it == S_WINDOW:
            s.window = _step(s.window, st.WINDOW_STEP, up, 0, st.WINDOW_MAX)
        elif it == S_LANG:
            s.lang = _cycle(lang.LANGS, s.lang, up)
        elif it == S_SOUND:
            s.sound = not s.sound
        elif it == S_TABLE:
            s.table = _step(s.table, 1, up, 0, st.TABLE_MAX)

    def mark(self):
        self._saved = (self.item, self.settings.as_dict())

    def undo(self, t=None):
        self.item = self._saved[0]
        self.settings.restore(self._saved[1])

    def _limits(self):
        """Whether the current item can decrease (bit 0) / increase (bit 1)."""
        s = self.settings
        it = self.item
        if it == S_BASE:
            return _lim(_can_shift(s.base_left, s.base_right, False),
                        _can_shift(s.base_left, s.base_right, True))
        if it == S_BASE_L or it == S_BASE_R:
            v = s.base_left if it == S_BASE_L else s.base_right
            return _lim(v > st.BASE_MIN, v < st.BASE_MAX)
        if it == S_PENALTY:
            return _lim(s.penalty > 0, s.penalty < st.PENALTY_MAX)
        if it == S_FORFEIT:
            return _lim(s.forfeit >= 0, s.forfeit < st.FORFEIT_MAX)
        if it == S_WINDOW:
            return _lim(s.window > 0, s.window < st.WINDOW_MAX)
        if it == S_TABLE:
            return _lim(s.table > 0, s.table < st.TABLE_MAX)
        if it == S_RESULTS:
            return 2  # ">" opens them
        if it == S_HALL:
            return 0  # shown, not chosen
        return 3  # choices cycle

    def render(self, rows):
        s = self.settings
        w = lang.table(s.lang)
        k = _frame(rows, w["TITLE_SETUP"], self.items(), self.item)
        label, value = rows[k], rows[k + 1]
        if k:
            put(rows[3], 0, w["HINT"])
        it = self.item
        put(label, 0, w[_S_LABEL[it]])
        lim = self._limits()
        _arrows(value, lim & 1, lim & 2)
        if it == S_PROFILE:
            _center(value, w[_PROFILE_KEY[s.profile]])
        elif it == S_BASE:
            _both_mmss(value, s.base_left, s.base_right)
        elif it == S_BASE_L:
            _center_mmss(value, s.base_left)
        elif it == S_BASE_R:
            _center_mmss(value, s.base_right)
        elif it == S_ZERO:
            _center(value, w["V_FLAG" if s.zero == profiles.ZERO_FLAG
                             else "V_OVERTIME"])
        elif it == S_PENALTY:
            if s.penalty:
                _center_num(value, s.penalty, 0)
            else:
                _center(value, w["V_NONE"])
        elif it == S_FORFEIT:
            if s.forfeit >= 0:
                _center_mmss(value, s.forfeit * 1000)
            else:
                _center(value, w["V_NEVER"])
        elif it == S_WINDOW:
            if s.window:
                _center_num(value, s.window // 1000, 0x73)  # "20 s"
            else:
                _center(value, w["V_NONE"])
        elif it == S_LANG:
            _center(value, w["LANG"])     # the language's own name
        elif it == S_SOUND:
            _center(value, w["V_ON" if s.sound else "V_OFF"])
        elif it == S_TABLE:
            if s.table:
                _center_num(value, s.table, 0)
            else:
                _center(value, w["V_NONE"])
        elif it == S_HALL:
            self._hall(label, value, w)
        return rows

    def _hall(self, label, value, w):
        """'Hall, table   12' / 'connected': the hall's state in words and
        the table the clock publishes under now (the menu's new number
        takes effect when the menu is left)."""
        h = self.settings.hall
        num(label, len(label) - ndigits(h.table), h.table)
        _center(value, w[_HALL_WORD[h.hall]])


def _base_step(v, up):
    return _step(v, st.BASE_STEP, up, st.BASE_MIN, st.BASE_MAX)


def _can_shift(a, b, up):
    """Both base times move together, keeping a handicap difference; at a
    bound neither moves."""
    if up:
        return a < st.BASE_MAX and b < st.BASE_MAX
    return a > st.BASE_MIN and b > st.BASE_MIN


def _frame(rows, title, items, it):
    """Both menus' frame: every row blank; on 20x4 the title and the item's
    place 'n/N' in row 0.  Returns the label row's index (the value row is
    the next one)."""
    for r in rows:
        blank(r)
    if len(rows) < 4:
        return 0
    put(rows[0], 0, title)
    _position(rows[0], _index(items, it) + 1, len(items))
    return 1


def _index(items, it):
    for i in range(len(items)):
        if items[i] == it:
            return i
    return 0


def _both_mmss(row, a, b):
    """One mm:ss centered if a == b, else 'mm:ss  mm:ss' (left, right)."""
    if a == b:
        _center_mmss(row, a)
    else:
        mid = len(row) // 2
        mmss(row, mid - 7, a)  # mm:ss at mid-6 .. mid-2
        mmss(row, mid, b)      # mm:ss at mid+1 .. mid+5


# -- referee menu -----------------------------------------------------------------
# Items (label key in the comment).  SPEC v4 §4: moving through the menu never
# changes the game, and every item that does acts only after a confirmation
# (both player buttons held 1 s): a time change is kept aside as a pending
# change per side while the referee adjusts, shown as the new time, and is
# applied as a whole, one clock.adjust() a side (logged, EV_ADJUST with its
# delta), when the referee leaves the menu and confirms; TSO § 5.2 d, resume
# and reset each ask first.  The base time before the game (ready or late)
# is pending the same way and applied with them, one clock.rebase() a side
# (EV_BASE): it keeps the time each side was charged (remaining = new base
# - charged), so a lateness or a confirmed adjustment is never erased.
R_L_SEC = 0    # T_ADJ_L_S  left  -/+ 1 s      (TSO § 7.3.2.2 Zeitabzug/Gutschrift)
R_L_MIN = 1    # T_ADJ_L_M  left  -/+ 1 min
R_R_SEC = 2    # T_ADJ_R_S  right -/+ 1 s
R_R_MIN = 3    # T_ADJ_R_M  right -/+ 1 min
R_LATE_L = 4   # T_LATE_L   elapsed time of a late left player, 1-min steps
R_LATE_R = 5   # T_LATE_R   (TSO § 2.4, PFS § 6.3.2-6.3.3)
R_BASE = 6     # T_BASE     base time, both sides; ready and late only
R_RESET = 7    # T_RESET    reset the game, with confirmation (TSO § 1.4.1 a)
R_EXIT = 8     # T_EXIT     (with pending time changes: T_APPLY asks)
R_VOID = 9     # T_VOID_L/R TSO § 5.2 d for the side the last move started
R_RESUME = 10  # T_RESUME   undo an end (over only, not after a forfeit)

_R_LABEL = ("T_ADJ_L_S", "T_ADJ_L_M", "T_ADJ_R_S", "T_ADJ_R_M", "T_LATE_L",
            "T_LATE_R", "T_BASE", "T_RESET", "T_EXIT", "T_VOID_L", "T_RESUME")
_R_READY = (R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_LATE_L, R_LATE_R, R_BASE,
            R_RESET, R_EXIT)
_R_PAUSED = (R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_LATE_L, R_LATE_R,
             R_RESET, R_EXIT)
_R_PAUSED_V = (R_VOID, R_L_SEC, R_L_MIN, R_R_SEC, R_R_MIN, R_LATE_L,
               R_LATE_R, R_RESET, R_EXIT)
# A lateness runs (SPEC v4): no time adjustments while a clock runs (they
# are for ready and paused); the base time, a reset, or back to `late`.
_R_LATE = (R_BASE, R_RESET, R_EXIT)
# The final screen (SPEC v2 §4): § 5.2 d, resume, a new game.
_R_OVER = (R_RESET, R_EXIT)
_R_OVER_V = (R_VOID, R_RESET, R_EXIT)
_R_OVER_R = (R_RESUME, R_RESET, R_EXIT)
_R_OVER_VR = (R_VOID, R_RESUME, R_RESET, R_EXIT)


class RefereeMenu:
    """Referee functions (SPEC §4), entered only in ready, paused, late or
    over (the app checks; in late the lateness clock runs on meanwhile).
    handle(action, t) returns None, EXIT (leave the menu) or RESET (the
    clock has been reset to ready: the app starts a new game log and leaves
    the menu)."""

    def __init__(self, clock, language="en"):
        self.clock = clock
        self.language = language
        self.item = self.items()[0]   # the final screen has no time items
        self.pend = [0, 0]     # time changes not applied yet, ms a side
        b = clock.rules.base
        self.pbase = [b[0], b[1]]   # the base times as they will be
        self.ask = -1          # the item whose question shows (-1: none)
        self._saved = [0, 0, 0, -1, 0, 0]
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

    def rem(self, s):
        """Side s's time as it will be with the pending changes (a new base
        keeps what was charged: remaining = base - charged)."""
        c = self.clock
        return c.rem[s] + self.pend[s] + self.pbase[s] - c.rules.base[s]

    def _rebased(self):
        """A base-time change is pending."""
        b = self.clock.rules.base
        return self.pbase[0] != b[0] or self.pbase[1] != b[1]

    def _pending(self):
        return self.pend[0] or self.pend[1] or self._rebased()

    def _base_ok(self, up):
        """The base item can step: both bases move together (keeping a
        handicap), within the setup's bounds, and each side keeps time after
        what it was charged (SPEC v4: the charged time stays)."""
        b = self.pbase
        if not _can_shift(b[0], b[1], up):
            return False
        return up or (self._keeps(0) and self._keeps(1))

    def _keeps(self, s):
        """Side s keeps time after the next step down of its base."""
        b = self.pbase[s]
        return self.rem(s) - b + _base_step(b, False) > 0

    def handle(self, action, t):
        if self.ask >= 0:
            return self._answer(action, t)
        if action == A_DONE:
            return self._leave()
        if action == A_NEXT:
            items = self.items()
            self.item = _cycle(items, self.item, True)
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
                b[0] = _base_step(b[0], up)
                b[1] = _base_step(b[1], up)
        elif it == R_EXIT:
            return self._leave()
        elif up:
            self.ask = it   # R_RESET, R_VOID, R_RESUME: asked first
        return None

    def _leave(self):
        if self._pending():
            self.ask = R_EXIT   # apply the time changes?
            return None
        return EXIT

    def _answer(self, action, t):
        """A question shows: both player buttons held 1 s say yes (A_CONFIRM);
        the pause key drops it (held 2 s at the time question: leave without
        the changes); a single player button does nothing (it may be the
        first key of the confirmation)."""
        it = self.ask
        if action == A_NEXT:
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
            # the adjustments, then the base (before the game: it keeps the
            # time charged, so the order changes no time); each logged as
            # its own replay event
            for s in (0, 1):
                if self.pend[s]:
                    c.adjust(s, self.pend[s], t)
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
        b = self.clock.rules.base
        self.pend[0] = self.pend[1] = 0
        self.pbase[0] = b[0]
        self.pbase[1] = b[1]

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
        """Late arrival: the elapsed time (base - remaining) goes up or down
        by a minute.  It stays within 0..base: the last step up stops at
        00:00 remaining, the last step down at the full base time."""
        rem = self.rem(side)
        if up:
            d = 60000 if rem >= 60000 else rem
            if d > 0:
                self.pend[side] -= d
        else:
            el = self.pbase[side] - rem
            d = 60000 if el >= 60000 else el
            if d > 0:
                self.pend[side] += d

    # Drawing: small methods, none with a frame MicroPython puts on the heap
    # (more than ~11 words): over a lateness the menu is redrawn every
    # second for minutes (the 20x4 shows the times), allocating nothing.
    def render(self, rows):
        k = _frame(rows, lang.table(self.language)["TITLE_REF"], self.items(),
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
        _center(value, w["V_CONFIRM"])

    def _item(self, label, value):
        it = self.item
        if it == R_VOID and self.clock.void_side == 1:
            put(label, 0, lang.table(self.language)["T_VOID_R"])
        else:
            put(label, 0, lang.table(self.language)[_R_LABEL[it]])
        if it == R_VOID:
            self._void(value)
        elif it == R_RESUME or it == R_RESET:
            _arrows(value, False, True)
        elif it <= R_R_MIN:
            self._adjusted(value, 0 if it <= R_L_MIN else 1)
        elif it == R_LATE_L or it == R_LATE_R:
            self._elapsed(value, 0 if it == R_LATE_L else 1)
        elif it == R_BASE:
            self._base(value)
        else:  # R_EXIT
            _arrows(value, True, True)

    def _void(self, value):
        # what the side gets back: "+01:15"
        c = self.clock
        n = len(value)
        _arrows(value, False, True)
        mmss(value, (n - 6) // 2, c.rem[c.void_side] - c.void_rem)
        value[(n - 6) // 2] = 0x2B

    def _adjusted(self, value, s):
        _arrows(value, self._takeable(s, 1000) > 0, True)
        mmss(value, (len(value) - 6) // 2, self.rem(s))
        self._pending_mark(value, s)

    def _elapsed(self, value, s):
        el = self.pbase[s] - self.rem(s)
        _arrows(value, el > 0, self.rem(s) > 0)
        mmss(value, (len(value) - 6) // 2, el)
        self._pending_mark(value, s)

    def _base(self, value):
        b = self.pbase
        _arrows(value, self._base_ok(False), self._base_ok(True))
        _both_mmss(value, b[0], b[1])
        if self._rebased():
            # "*" after the time: changed, not applied yet
            n = len(value)
            value[n // 2 + 6 if b[0] != b[1] else 2 + (n - 9) // 2 + 5] = 0x2A

    def _pending_mark(self, value, s):
        # "*" after the time: changed, not applied yet
        if self.pend[s]:
            value[(len(value) - 6) // 2 + 6] = 0x2A


# -- results of the last games ------------------------------------------------------
class ResultsMenu:
    """The finished games' results (firmware/results.py), newest first.
    A_LEFT older, A_RIGHT newer, A_NEXT the other page (16x2), A_DONE back.
    16x2 page 1: both final times and what the game came to in words
    ("Ended in time", "Penalty  L20 R10", "Right lost: time", "Time out:
    left"); page 2: the game's number, when it ended (mm:ss after its
    start) and its rules.  20x4 shows the times, the words and the number
    with the end at once."""

    def __init__(self, results, language="en"):
        self.results = results
        self.language = language
        self.i = 0
        self.page = 0

    @classmethod
    def of(cls, log, language="en"):
        """The finished games in the clock's game logs (a gamelog.GameLog)."""
        return cls(results.finished_games(log), language)

    def handle(self, action, t=None):
        n = len(self.results)
        if action == A_DONE:
            return EXIT
        if action == A_LEFT and self.i + 1 < n:
            self.i += 1
        elif action == A_RIGHT and self.i > 0:
            self.i -= 1
        elif action == A_NEXT:
            self.page = 1 - self.page
        return None

    def mark(self):
        self._saved = (self.i, self.page)

    def undo(self, t=None):
        self.i, self.page = self._saved

    def render(self, rows):
        w = lang.table(self.language)
        for r in rows:
            blank(r)
        if not self.results:
            put(rows[0], 0, w["T_RESULTS"])
            _center(rows[1], w["V_NONE"])
            return rows
        r = self.results[self.i]
        if len(rows) >= 4:
            put(rows[0], 0, w["T_RESULTS"])
            _position(rows[0], self.i + 1, len(self.results))
            self._times(rows[1], r)
            self._verdict(rows[2], r, w)
            self._when(rows[3], r)
        elif self.page == 0:
            self._times(rows[0], r)
            self._verdict(rows[1], r, w)
        else:
            self._when(rows[0], r)
            self._rules(rows[1], r)
        return rows

    def _times(self, row, r):
        n = len(row)
        _arrows(row, self.i + 1 < len(self.results), self.i > 0)
        mmss(row, 1, r.shown[0] * 1000)
        mmss(row, n - 7, r.shown[1] * 1000)
        flag = r.rules is not None and r.rules.zero == profiles.ZERO_FLAG
        for s, pos in ((0, 7), (1, n - 8)):
            if r.shown[s] < 0 or (flag and r.shown[s] == 0):
                row[pos] = G_FLAG

    def _verdict(self, row, r, w):
        """What the game came to, in words (results.Result.verdict)."""
        v, side = r.verdict()
        if v == results.V_LOST:
            put(row, 0, w["RES_LOST_L" if side == 0 else "RES_LOST_R"])
        elif v == results.V_FLAG:
            put(row, 0, w["RES_FLAG_L" if side == 0 else "RES_FLAG_R"])
        elif v == results.V_PENALTY:
            put(row, 0, w["RES_PEN"])
            self._points(row, r, w)
        else:
            put(row, 0, w["RES_OK"])

    def _points(self, row, r, w):
        # right-aligned "L20 R10" (only the sides with points); they win
        # over the word where both would not fit (both sides 100+ points)
        end = len(row)
        if r.penalty(1):
            end = _side_points(row, end, w["RES_R"][0], r.penalty(1)) - 1
        if r.penalty(0):
            _side_points(row, end, w["RES_L"][0], r.penalty(0))

    def _when(self, row, r):
        # "#12      53:50": the number and when the game ended
        row[0] = 0x23
        num(row, 1, r.number)
        mmss(row, len(row) - 6, r.end_ms)

    def _rules(self, row, r):
        if r.rules is None:
            return
        put(row, 0, r.rules.name.encode())
        mmss(row, len(row) - 6, r.rules.base[0])


def _side_points(row, end, letter, p):
    """letter + p ending before column `end`; returns where it starts."""
    n = ndigits(p)
    pos = end - 1 - n
    row[pos] = letter
    num(row, pos + 1, p)
    return pos
