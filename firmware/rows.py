# The LCD-row toolkit: text and digits written into a preallocated bytearray
# (one per display row) as HD44780 character codes.  The game screen
# (view.py), the menus (menu.py) and the boot splash (game.py) all draw with
# these, so the render paths allocate nothing: no str, no slices, digits by
# hand.  Each helper keeps few arguments and locals on purpose: MicroPython
# moves a call's frame to the heap when locals plus stack exceed 11 words.
from profiles import shown_secs

SP = 0x20
DIGITS = b"0123456789"
MAX_SECS = 99 * 60 + 59  # the most mm:ss shows in its 5 columns


def blank(row):
    """The whole row to spaces."""
    fill(row, 0, len(row))


def fill(buf, pos, width):
    for i in range(pos, pos + width):
        buf[i] = SP


def copy(dst, src):
    for i in range(len(dst)):
        dst[i] = src[i]


def put(row, pos, word):
    """word's codes at pos, cut at the row's end."""
    n = len(word)
    if pos + n > len(row):
        n = len(row) - pos
    _put(row, pos, word, n)


def _put(buf, pos, word, n):
    for i in range(n):
        buf[pos + i] = word[i]


def word(buf, pos, width, w, align):
    """w into buf[pos:pos+width], the rest blank; align 0 left, 1 right,
    2 center.  A longer w is cut to the width."""
    fill(buf, pos, width)
    n = len(w)
    if n > width:
        n = width
    if align == 1:
        pos += width - n
    elif align == 2:
        pos += (width - n) // 2
    _put(buf, pos, w, n)


def ndigits(v):
    """How many decimal digits the non-negative v has."""
    n = 1
    while v >= 10:
        v //= 10
        n += 1
    return n


def uint(buf, pos, n, v):
    """v as exactly n digits (zero-padded) at pos."""
    i = pos + n - 1
    while i >= pos:
        buf[i] = DIGITS[v % 10]
        v //= 10
        i -= 1


def num(row, pos, v):
    """Non-negative v in decimal at pos; returns the column after it."""
    n = ndigits(v)
    uint(row, pos, n, v)
    return pos + n


def mmss(buf, pos, rem):
    """6 columns: sign + mm:ss, the display's rounding (profiles.shown_secs:
    remaining up, overtime down with '-' from one whole second over), capped
    at 99:59 where the columns end."""
    secs = shown_secs(rem)
    buf[pos] = SP
    if secs < 0:
        secs = -secs
        buf[pos] = 0x2D
    if secs > MAX_SECS:
        secs = MAX_SECS
    uint(buf, pos + 1, 2, secs // 60)
    buf[pos + 3] = 0x3A
    uint(buf, pos + 4, 2, secs % 60)
