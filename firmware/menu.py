# The menus: setup, referee and the results of the last games, three of the
# app's screens (app.py): small state machines on the clock's three keys,
# drawn into the app's LCD rows.  Each menu is a file of its own
# (setupmenu.py, refereemenu.py, resultsmenu.py); this is what they share:
# the action codes, the codes handle() returns (the only thing the app reads
# from a menu), action() for the app, and the drawing helpers.
#
# The app turns keys into action codes (action()) and calls handle(), each
# key at its own leading edge (SPEC v3 §4 Gestures):
#   A_LEFT    (left player button)  decrease / previous value
#   A_RIGHT   (right player button) increase / next value / ask
#   A_NEXT    (pause key)           next item (wraps round); drops a question
#   A_DONE    (pause key held 2 s)  leave the menu
#   A_CONFIRM (both player buttons held 1 s, pause up)  yes to the question,
#             at that instant (SPEC v5)
#   A_UP      (a key let go)  with a question showing: a player button that
#             began an answer let go before the yes answers no (question.Answer)
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
import settings as st
from rows import SP, blank, put, num, ndigits, mmss  # the LCD-row toolkit

# The menus' actions (action() turns the keys into them; the table above).
A_LEFT = 1
A_RIGHT = 2
A_NEXT = 3
A_DONE = 4
A_CONFIRM = 5
A_UP = 6

# What handle() returns: one code, the only thing the app reads from a menu
# (None: stay in the menu, nothing for the app to do).
SAVE = "save"        # setup done: the app saves the settings, a new game
RESULTS = "results"  # setup: save as SAVE, then show the last games' results
EXIT = "exit"        # back to the game screen
RESET = "reset"      # referee: the clock was reset: a new game log, back
SELFTEST = "selftest"  # setup: save as SAVE, then the self-test (selftest.py)

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
    if a == gst.UP or a == gst.ALL_UP or a == gst.REGROUP:
        return A_UP
    return 0


# -- small drawing helpers (no allocation; rows.py writes the codes) --------------
def center(row, word):
    """word centered between the arrow columns (cols 2..cols-3)."""
    w = len(row) - 4
    n = len(word)
    if n > w:
        n = w
    put(row, 2 + (w - n) // 2, word)


def center_num(row, v, unit):
    """v plus an optional one-letter unit (' s'), centered."""
    n = ndigits(v) + (2 if unit else 0)
    pos = 2 + (len(row) - 4 - n) // 2
    pos = num(row, pos, v)
    if unit:
        row[pos + 1] = unit


def center_mmss(row, ms):
    """A positive duration as mm:ss (5 columns), centered."""
    mmss(row, 2 + (len(row) - 4 - 5) // 2 - 1, ms)


def lim(can_dec, can_inc):
    return (1 if can_dec else 0) | (2 if can_inc else 0)


def arrows(row, can_dec, can_inc):
    row[0] = LT if can_dec else SP
    row[len(row) - 1] = GT if can_inc else SP


def position(row, idx, n):
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


def step(v, step, up, lo, hi):
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


def cycle(seq, cur, up):
    n = len(seq)
    for i in range(n):
        if seq[i] == cur:
            return seq[(i + (1 if up else n - 1)) % n]
    return seq[0]


def base_step(v, up):
    return step(v, st.BASE_STEP, up, st.BASE_MIN, st.BASE_MAX)


def can_shift(a, b, up):
    """Both base times move together, keeping a handicap difference; at a
    bound neither moves."""
    if up:
        return a < st.BASE_MAX and b < st.BASE_MAX
    return a > st.BASE_MIN and b > st.BASE_MIN


def frame(rows, title, items, it):
    """Both menus' frame: every row blank; on 20x4 the title and the item's
    place 'n/N' in row 0.  Returns the label row's index (the value row is
    the next one)."""
    for r in rows:
        blank(r)
    if len(rows) < 4:
        return 0
    put(rows[0], 0, title)
    position(rows[0], _index(items, it) + 1, len(items))
    return 1


def _index(items, it):
    for i in range(len(items)):
        if items[i] == it:
            return i
    return 0


def both_mmss(row, a, b):
    """One mm:ss centered if a == b, else 'mm:ss  mm:ss' (left, right)."""
    if a == b:
        center_mmss(row, a)
    else:
        mid = len(row) // 2
        mmss(row, mid - 7, a)  # mm:ss at mid-6 .. mid-2
        mmss(row, mid, b)      # mm:ss at mid+1 .. mid+5


