# The HD44780 16x2 game screen (hd44780.py's layout for two rows): a pure
# function from the frame (frame.py, the display-neutral picture of the
# game) to the LCD's character rows.
#
# render() fills preallocated bytearrays (one per LCD row) with HD44780 codes;
# it formats digits by hand, so it allocates nothing.  The LCD driver then
# sends only the characters that changed.  The 20x4 draws the times in big
# digits instead (bigview.py); the menus draw with rows.py too.
#
# 16x2 layout:
#
#   col  0  1-6    7 |  8  9-14  15
#   row0 ◀ " 24:58" ⚑ |  ⚑ "-01:23" ▶      ◀/▶ marks the running side,
#                                          ‖ the side stopped by a pause
#   row1 [info L 5][ center 6 ][info R 5]  info: penalty "P20", "LOST", "TIME",
#                                          "LATE"
#                                          center: READY/PAUSE/END/"CHL 17"
#                                          (frozen while paused), lateness
#                                          "+03:12" while a late clock runs
#   READY (issue 37): "READY 2nd press" over the free fields, columns 0-14
#     (SPEC §4: a player button starts the other side: the player who moves
#     second presses); the final screen of a forfeit names the loser over
#     its info field and the centre: "LEFT LOST     P20", "P10  RIGHT LOST".
#
# The hall mark (a clock on the hall's network, net.py): one glyph in the
# last column of row 1, wherever that column is free: connected,
# connecting, no hall (net.HALL_*).  A right-side info word (penalty,
# LOST, ...) takes the column over; the mark comes back when it goes.  A
# clock without a hall shows none.
#
# Rounding (SPEC §4): remaining time is shown rounded up to the second, so
# 00:00 appears exactly when time runs out; overtime is shown rounded down
# with a minus sign, so -00:01 appears after one whole second over (TSO § 5.2 a).
# The rule is written once, profiles.shown_secs (drawn by rows.mmss); the log
# and the host tools print the same seconds with profiles.fmt_time.  The
# row-writing helpers (blank, word, digits) are rows.py's, shared with the
# menus.
from clockcore import READY, PAUSED, OVER, LATE
import frame as framemod
from rows import SP, blank, mmss, uint, ndigits, word  # the LCD-row toolkit

# CGRAM glyph codes and their 5x8 patterns (the app loads them at boot).
G_RUN_L = 0  # points at the left player: the left clock runs
G_RUN_R = 1
G_FLAG = 2
G_PAUSE = 3  # the side whose clock a pause stopped
G_HALL = 4   # + net.HALL_DOWN / HALL_WAIT / HALL_UP: the hall mark
GLYPHS = {
    G_RUN_L: b"\x02\x06\x0e\x1e\x0e\x06\x02\x00",
    G_RUN_R: b"\x08\x0c\x0e\x0f\x0e\x0c\x08\x00",
    G_FLAG: b"\x10\x1e\x1f\x1e\x10\x10\x10\x00",
    G_PAUSE: b"\x00\x1b\x1b\x1b\x1b\x1b\x1b\x00",
    G_HALL: b"\x00\x11\x0a\x04\x0a\x11\x00\x00",      # no hall: a cross
    G_HALL + 1: b"\x00\x01\x03\x05\x09\x1f\x00\x00",  # connecting: hollow bars
    G_HALL + 2: b"\x00\x01\x03\x07\x0f\x1f\x00\x00",  # connected: full bars
}
# How a person reads them (simulator, JSON state report).
GLYPH_CHARS = {G_RUN_L: "\u25c0", G_RUN_R: "\u25b6", G_FLAG: "\u2691",
               G_PAUSE: "\u2016", G_HALL: "\u2715", G_HALL + 1: "\u25ff",
               G_HALL + 2: "\u25e2"}
# A00 ROM characters above ASCII that lang.py uses.
ROM_CHARS = {0xE1: "\u00e4", 0xEF: "\u00f6", 0xF5: "\u00fc", 0xE2: "\u00df"}


class View:
    """The 16x2 game screen of a frame (hd44780.py picks the layout)."""

    def __init__(self, cols=16, rows=2):
        if cols < 16 or rows < 2:
            raise ValueError("the clock needs at least a 16x2 display")
        self.cols = cols
        self.rows = rows
        self.buf = [bytearray(b" " * cols) for _ in range(rows)]
        self._ipos = (0, cols - 5)  # info fields: penalty, LOST, TIME
        self._ppos = (0, -(cols - 1))  # penalty: left-aligned / right-aligned
        self._cpos, self._cwidth = 5, cols - 10
        # the words of the frame's language (_language; every attribute made
        # here: one added later grows the instance's dict, an allocation)
        self._words = None
        self.w_ready = self.w_pause = self.w_end = self.w_chal = self.w_lost = b""
        self.w_flag = self.w_lowbat = self.w_late = self.w_ready_who = b""
        self.w_lost_s = [b"", b""]   # LOST_L, LOST_R
        self.w_pen = 0x50

    def text(self, codes):
        """A row as a person reads it (host side)."""
        return to_text(codes)

    def _language(self, w):
        # the words of the frame's language, looked up once per language
        self._words = w
        self.w_ready = w["READY"]
        self.w_pause = w["PAUSE"]
        self.w_end = w["END"]
        self.w_chal = w["CHAL"]
        self.w_pen = w["PEN"][0]
        self.w_lost = w["LOST"]
        self.w_flag = w["FLAG"]
        self.w_lowbat = w["LOWBAT"]
        self.w_late = w["LATE"]
        self.w_ready_who = w["READY_WHO"]
        self.w_lost_s[0] = w["LOST_L"]
        self.w_lost_s[1] = w["LOST_R"]

    # -- rendering ------------------------------------------------------------
    def render(self, f, rows=None):
        """Fill `rows` (default: self.buf) from the frame f and return
        them.  Allocates nothing (each helper is kept small so MicroPython
        keeps its frame on the stack)."""
        b = self.buf if rows is None else rows
        if f.words is not self._words:
            self._language(f.words)
        blank(b[1])
        self._times(b[0], f)
        self._infos(b[1], f)
        self._center(b[1], f)
        if f.hall >= 0:
            self._hall(b[1], f.hall)
        return b

    def _hall(self, row, h):
        c = self.cols - 1
        if row[c] == SP:
            row[c] = G_HALL + h

    def _times(self, row, f):
        c = self.cols
        blank(row)
        row[0] = _mark(f, 0, G_RUN_L)
        row[c - 1] = _mark(f, 1, G_RUN_R)
        mmss(row, 1, f.rem[0])
        mmss(row, c - 7, f.rem[1])
        # TSO § 5.2 a: in overtime profiles the flag shows with -00:01
        row[7] = G_FLAG if f.flag[0] else SP
        row[c - 8] = G_FLAG if f.flag[1] else SP

    def _infos(self, row, f):
        self._info(row, f, 0)
        self._info(row, f, 1)

    # The helpers below take few arguments and keep few locals on purpose:
    # MicroPython moves a call's frame to the heap when locals plus stack
    # exceed 11 words, and these run every main-loop iteration.
    def _info(self, row, f, s):
        w = self._word(f.info[s])
        if w is not None:
            word(row, self._ipos[s], 5, w, s)
        elif f.pen[s] > 0:
            self._pen(row, f, s)

    def _word(self, i):
        return self.w_lost if i == framemod.I_LOST else self.w_flag if i == framemod.I_TIME \
            else self.w_late if i == framemod.I_LATE else None

    def _pen(self, row, f, s):
        _points(row, self._ppos[s], self.w_pen, f.pen[s])

    def _center(self, row, f):
        st = f.state
        w = f.notice
        if w is not None:
            # a notice or a question (NEW GAME? L+R) shows even over LOST:
            # a confirmation needs a question the display shows (SPEC v3 §4)
            self._say(row, w)
        elif st == OVER and f.lost:
            self._lost(row, f)  # LOST names its side; END would touch it
        elif st == PAUSED:
            self._paused(row, f)
        elif st == OVER:
            self._say(row, self.w_end)
        elif st == READY:
            self._ready(row)
        elif st == LATE:
            _lateness(row, self._cpos + (self._cwidth - 6) // 2, f.late)
        elif f.win > 0:
            self._window(row, f.win, self._cpos, self._cwidth)
        elif f.lowbat:
            word(row, self._cpos, self._cwidth, self.w_lowbat, 2)

    def _ready(self, row):
        """READY and who presses to start, over the info fields when both
        are free (a referee's adjustment can leave a penalty there), the
        last column left to the hall mark; else READY alone."""
        if _free(row, self._ipos[0]) and _free(row, self._ipos[1]):
            word(row, 0, self.cols - 1, self.w_ready_who, 2)
        else:
            self._say(row, self.w_ready)

    def _lost(self, row, f):
        """The final screen of a forfeit: "LEFT LOST" over the loser's info
        field and the centre (LOST was drawn there), on its own side."""
        s = 0 if f.info[0] == framemod.I_LOST else 1
        word(row, self._cpos * s, self._cwidth + 5, self.w_lost_s[s], s)

    def _say(self, row, w):
        if len(w) > self._cwidth:  # a long notice takes the whole row
            word(row, 0, self.cols, w, 2)
        else:
            word(row, self._cpos, self._cwidth, w, 2)

    def _paused(self, row, f):
        """PAUSE, and the challenge window's frozen seconds: the window
        alone if no info field is free (the ‖ mark says paused)."""
        if f.win <= 0:
            self._say(row, self.w_pause)
        else:
            self._paused16(row, f.win, f.paused)

    def _paused16(self, row, win, s):
        """16x2: PAUSE in a free info field (the paused side's first) and the
        frozen window beside it, a column apart: "PAUSE CHL 17"."""
        if not _free(row, self._ipos[s]):
            s = 1 - s
        if not _free(row, self._ipos[s]):
            self._window(row, win, self._cpos, self._cwidth)  # ‖ says paused
            return
        word(row, self._ipos[s], 5, self.w_pause, s)
        self._window(row, win, self._cpos + 1 - 2 * s, self._cwidth)

    def _window(self, row, win, pos, width):
        # label + space + two digits, centered: "CHL 17"; "CHL120" from 100 s
        chl(row, pos + (width - 6) // 2, self.w_chal, win)


def _mark(f, s, run_glyph):
    if f.run == s:
        return run_glyph
    if f.paused == s:
        return G_PAUSE  # whose clock the pause stopped (SPEC §4 Gestures)
    return SP


def chl(row, start, label, win):
    """The challenge window, 6 columns: "CHL 17"."""
    word(row, start, 3, label, 0)
    _secs(row, start + 3, (win + 999) // 1000)


def _free(row, pos):
    """Five blank columns at pos (an info field with nothing in it)."""
    for i in range(pos, pos + 5):
        if row[i] != SP:
            return False
    return True


def _secs(row, pos, secs):
    """3 columns: ' 17' or '120' (at most 999)."""
    if secs > 99:
        uint(row, pos, 3, secs if secs < 999 else 999)
    else:
        row[pos] = SP
        uint(row, pos + 1, 2, secs)


def _lateness(row, pos, ms):
    """'+mm:ss', counting up like overtime (floor): 15:01 shows at 901 s."""
    mmss(row, pos, -ms)
    row[pos] = 0x2B


def _points(row, pos, prefix, p):
    """prefix + p (at most 4 digits), left-aligned at pos, or right-aligned
    ending at -pos when pos is negative."""
    if p > 9999:
        p = 9999
    n = ndigits(p)
    if pos < 0:
        pos = -pos - n
    row[pos] = prefix
    uint(row, pos + 1, n, p)


def to_text(codes):
    """LCD codes -> the str a person reads (host side: allocates)."""
    out = []
    for b in codes:
        if b in GLYPH_CHARS:
            out.append(GLYPH_CHARS[b])
        elif b in ROM_CHARS:
            out.append(ROM_CHARS[b])
        else:
            out.append(chr(b))
    return "".join(out)
