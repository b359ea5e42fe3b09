# The HD44780 20x4 game screen: the times in big digits, two rows tall,
# readable from two or three metres (issue 28; docs/display.md has the
# picture and the reasons).  A pure function from the frame to the rows,
# allocating nothing, like view.py, whose row helpers it shares.
#
#   col  0-3   4   5-8   9  10  11-14 15  16-19
#   row0 [m m] :  [s s]  <- ->  [m m]  :  [s s]    big digits, 2x2 cells each;
#   row1 [m m] :  [s s]  <- ->  [m m]  :  [s s]    the marks between the times
#   row2 [info L 5][   centre 10    ][info R 5]    as the 16x2's row 1
#   row3 [       rules "sdev 30:00"         ] h    h: the hall mark
#
# Marks (ROM characters: the eight CGRAM codes all hold digit segments):
# an arrow in both rows points at the side whose clock runs (col 9 <- the
# left, col 10 -> the right); a full block (0xFF, "stop") stands there for
# the side a pause stopped.  Overtime: a big minus in place of the tens of minutes
# (-9:59 at most: beyond ten minutes over the four digits show and the
# penalty or LOST beside it tells); a leading zero of the minutes is blank.
# The flag glyph of the 16x2 is the big minus (overtime) or TIME (a flag
# profile) here.  Hall mark: 'x' no hall, a dot connecting, '*' connected.
from profiles import shown_secs
from rows import SP, blank, word, MAX_SECS
import view as viewmod

# Segment glyphs, 5x8 (bit 4 the leftmost dot), bars two dots thick.  A
# left cell's stroke is its two left dots and its bars run to its right
# edge, into the right cell; a right cell's stroke is the two dots before
# its last, and its own bars end there: one dark column keeps a digit off
# the next.  The top bar and the pair of bars serve either cell.
_F = 0x1F          # a bar across the cell
_RB = 0x1E         # a right cell's bar
_L = 0x18          # a left cell's stroke
_R = 0x06          # a right cell's stroke
GLYPHS = {
    0: bytes((_F, _F, _L, _L, _L, _L, _L, _L)),               # left + top
    1: bytes((_RB, _RB, _R, _R, _R, _R, _R, _R)),             # top + right
    2: bytes((_F, _F, 0, 0, 0, 0, 0, 0)),                     # top bar
    3: bytes((_F, _F, _L, _L, _L, _L, _F, _F)),               # left, top, bottom
    4: bytes((_RB, _RB, _R, _R, _R, _R, _RB, _RB)),           # right, top, bottom
    5: bytes((_F, _F, 0, 0, 0, 0, _F, _F)),                   # top and bottom
    6: bytes((_L, _L, _L, _L, _L, _L, _F, _F)),               # left + bottom
    7: bytes((_R, _R, _R, _R, _R, _R, _RB, _RB)),             # right + bottom
}
# How a person reads them (the simulator, the emulator's text rows)
GLYPH_CHARS = {0: "\u259b", 1: "\u259c", 2: "\u2580", 3: "[", 4: "]", 5: "=",
               6: "\u2599", 7: "\u259f"}
_ = SP
# Each digit: upper-left, upper-right, lower-left, lower-right (a 7-segment
# digit whose middle bar is the lower cells' top bar).
FONT = bytes((
    0, 1, 6, 7,     # 0
    _, 1, _, 7,     # 1
    2, 1, 3, 5,     # 2
    2, 1, 5, 4,     # 3
    6, 7, _, 1,     # 4
    0, 2, 5, 4,     # 5
    0, 2, 3, 4,     # 6
    2, 1, _, 1,     # 7
    0, 1, 3, 4,     # 8
    0, 1, 5, 4,     # 9
    _, _, 2, 2,     # minus
    _, _, _, _,     # blank
))
MINUS = 10
BLANK = 11
COLON = 0xA5       # the ROM's centred dot, one in each row
RUN = (0x7F, 0x7E)  # the ROM's arrows: <- the left runs, -> the right
STOP = 0xFF        # a full block, "stop": the side a pause stopped
HALL = b"x\xa5*"   # net.HALL_DOWN, HALL_WAIT, HALL_UP
# the ROM characters above as the A00 ROM shows them (host side)
ROM_TEXT = {COLON: "\uff65", 0x7E: "\u2192", 0x7F: "\u2190", STOP: "\u2588"}


class Big(viewmod.View):
    """The 20x4 game screen (view.View's row-1 fields on row 2)."""

    def __init__(self, cols=20, rows=4):
        if cols < 20 or rows < 4:
            raise ValueError("big digits need a 20x4 display")
        viewmod.View.__init__(self, cols, 2)
        self.rows = rows
        self.buf = [bytearray(b" " * cols) for _ in range(rows)]
        self.glyphs = GLYPHS
        self._t = self._b = self.buf[0]   # the two rows the digits go into

    def text(self, codes):
        out = []
        for b in codes:
            out.append(GLYPH_CHARS[b & 7] if b < 16 else _rom(b))
        return "".join(out)

    def render(self, f, rows=None):
        b = self.buf if rows is None else rows
        if f.words is not self._words:
            self._language(f.words)
        self._t = b[0]
        self._b = b[1]
        blank(b[0])
        blank(b[1])
        blank(b[2])
        self._time(0, f.rem[0])
        self._time(self.cols - 9, f.rem[1])
        self._marks(f, 0)
        self._marks(f, 1)
        self._infos(b[2], f)
        self._center(b[2], f)
        word(b[3], 0, self.cols, f.rules, 2)
        if f.hall >= 0:
            b[3][self.cols - 1] = HALL[f.hall]
        return b

    def _marks(self, f, s):
        c = 9 + s
        m = RUN[s] if f.run == s else STOP if f.paused == s else SP
        self._t[c] = m
        self._b[c] = m

    # (small methods: MicroPython keeps a frame of at most ~11 words off
    # the heap, and these run at every redraw)
    def _time(self, pos, rem):
        secs = shown_secs(rem)
        if secs < 0:
            self._mmss(pos, -secs, MINUS)
        else:
            self._mmss(pos, secs, BLANK)

    def _mmss(self, pos, secs, lead):
        if secs > MAX_SECS:
            secs = MAX_SECS
        self._mins(pos, secs // 60, lead)
        self._t[pos + 4] = COLON
        self._b[pos + 4] = COLON
        s = secs % 60
        self._digit(pos + 5, s // 10)
        self._digit(pos + 7, s % 10)

    def _mins(self, pos, m, lead):
        t = m // 10
        self._digit(pos, t if t else lead)
        self._digit(pos + 2, m % 10)

    def _digit(self, pos, d):
        i = d * 4
        self._t[pos] = FONT[i]
        self._t[pos + 1] = FONT[i + 1]
        self._b[pos] = FONT[i + 2]
        self._b[pos + 1] = FONT[i + 3]


def _rom(b):
    t = ROM_TEXT.get(b)
    return t if t is not None else viewmod.ROM_CHARS.get(b, chr(b))
