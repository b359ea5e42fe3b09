# The view: a pure function from the core's state to the LCD's character rows.
#
# render() fills preallocated bytearrays (one per LCD row) with HD44780 codes;
# it formats digits by hand, so it allocates nothing.  The device and the
# simulator both draw exactly these rows (the LCD driver then sends only the
# characters that changed).
#
# 16x2 layout (20x4 adds a header row and spreads the same fields):
#
#   col  0  1-6    7 |  8  9-14  15
#   row0 ◀ " 24:58" ⚑ |  ⚑ "-01:23" ▶      ◀/▶ marks the running side
#   row1 [info L 5][ center 6 ][info R 5]  info: penalty "P20", "LOST", "TIME"
#                                          center: READY/PAUSE/END/"CHL 17"
#
# Rounding (SPEC §4): remaining time is shown rounded up to the second, so
# 00:00 appears exactly when time runs out; overtime is shown rounded down
# with a minus sign, so -00:01 appears after one whole second over (TSO § 5.2 a).
from clockcore import READY, PAUSED, OVER
import lang

# CGRAM glyph codes and their 5x8 patterns (the app loads them at boot).
G_RUN_L = 0  # points at the left player: the left clock runs
G_RUN_R = 1
G_FLAG = 2
GLYPHS = {
    G_RUN_L: b"\x02\x06\x0e\x1e\x0e\x06\x02\x00",
    G_RUN_R: b"\x08\x0c\x0e\x0f\x0e\x0c\x08\x00",
    G_FLAG: b"\x10\x1e\x1f\x1e\x10\x10\x10\x00",
}
# How a person reads them (simulator, JSON state report).
GLYPH_CHARS = {G_RUN_L: "\u25c0", G_RUN_R: "\u25b6", G_FLAG: "\u2691"}
# A00 ROM characters above ASCII that lang.py uses.
ROM_CHARS = {0xE1: "\u00e4", 0xEF: "\u00f6", 0xF5: "\u00fc", 0xE2: "\u00df"}

SP = 0x20
_DIGITS = b"0123456789"
_MAX_SECS = 99 * 60 + 59


class View:
    def __init__(self, cols=16, rows=2, language="en"):
        if cols < 16 or rows < 2:
            raise ValueError("the clock needs at least a 16x2 display")
        self.cols = cols
        self.rows = rows
        self.buf = [bytearray(b" " * cols) for _ in range(rows)]
        self.header = bytearray(b" " * cols)
        self.notice = None  # bytes shown in the center field instead of state
        self.lowbat = False  # battery warning, shown when the center is free
        self.set_language(language)

    def set_language(self, language):
        w = lang.table(language)
        self.language = language
        self.w_ready = w["READY"]
        self.w_pause = w["PAUSE"]
        self.w_end = w["END"]
        self.w_chal = w["CHAL"]
        self.w_pen = w["PEN"][0]
        self.w_lost = w["LOST"]
        self.w_flag = w["FLAG"]
        self.w_lowbat = w["LOWBAT"]
        self.words = w

    def set_header(self, text_bytes):
        """Row 0 of a 4-row display (e.g. profile and base time)."""
        _word(self.header, 0, self.cols, text_bytes, 0)

    # -- rendering ------------------------------------------------------------
    def render(self, clock):
        """Fill self.buf from the clock's state.  Allocates nothing."""
        c = self.cols
        if self.rows >= 4:
            times, info, center = self.buf[1], self.buf[2], self.buf[3]
            top = self.buf[0]
            for i in range(c):
                top[i] = self.header[i]
        else:
            times, info, center = self.buf[0], self.buf[1], self.buf[1]
        for r in range(2 if self.rows >= 4 else 1, self.rows):
            row = self.buf[r]
            for i in range(c):
                row[i] = SP
        run = clock.running()
        # times row
        for i in range(c):
            times[i] = SP
        times[0] = G_RUN_L if run == 0 else SP
        times[c - 1] = G_RUN_R if run == 1 else SP
        _time(times, 1, clock.rem[0])
        _time(times, c - 7, clock.rem[1])
        times[7] = G_FLAG if clock.flag(0) else SP
        times[c - 8] = G_FLAG if clock.flag(1) else SP
        # info fields
        self._info(info, 0, clock, 0)
        self._info(info, c - 5, clock, 1)
        # center field
        if self.rows >= 4:
            self._center(center, 0, c, clock)
        else:
            self._center(center, 5, c - 10, clock)
        return self.buf

    def _info(self, row, pos, clock, s):
        if clock.forfeited[s]:
            _word(row, pos, 5, self.w_lost, s)
        elif clock.out(s):
            _word(row, pos, 5, self.w_flag, s)
        else:
            p = clock.penalty(s)
            if p > 0:
                n = _ndigits(p)
                if n > 4:
                    n = 4
                    p = 9999
                start = pos if s == 0 else pos + 4 - n
                row[start] = self.w_pen
                _uint(row, start + 1, n, p)

    def _center(self, row, pos, width, clock):
        st = clock.state
        if self.notice is not None:
            _word(row, pos, width, self.notice, 2)
        elif st == OVER:
            _word(row, pos, width, self.w_end, 2)
        elif st == PAUSED:
            _word(row, pos, width, self.w_pause, 2)
        elif st == READY:
            _word(row, pos, width, self.w_ready, 2)
        elif clock.win <= 0:
            if self.lowbat:
                _word(row, pos, width, self.w_lowbat, 2)
        else:
            # label + space + two digits, centered: "CHL 17"
            start = pos + (width - 6) // 2
            _word(row, start, 3, self.w_chal, 0)
            row[start + 3] = SP
            _uint(row, start + 4, 2, (clock.win + 999) // 1000)


def _time(buf, pos, rem):
    """6 columns: sign + mm:ss (ceil for remaining, floor for overtime)."""
    if rem > 0:
        secs = (rem + 999) // 1000
        sign = SP
    else:
        secs = (-rem) // 1000
        sign = 0x2D if secs > 0 else SP  # '-' from one whole second over
    if secs > _MAX_SECS:
        secs = _MAX_SECS
    m = secs // 60
    s = secs - m * 60
    buf[pos] = sign
    buf[pos + 1] = _DIGITS[m // 10]
    buf[pos + 2] = _DIGITS[m % 10]
    buf[pos + 3] = 0x3A
    buf[pos + 4] = _DIGITS[s // 10]
    buf[pos + 5] = _DIGITS[s % 10]


def _uint(buf, pos, n, v):
    """v as exactly n digits (zero-padded) at pos."""
    i = pos + n - 1
    while i >= pos:
        buf[i] = _DIGITS[v % 10]
        v //= 10
        i -= 1


def _ndigits(v):
    n = 1
    while v >= 10:
        v //= 10
        n += 1
    return n


def _word(buf, pos, width, word, align):
    """word into buf[pos:pos+width]; align 0 left, 1 right, 2 center."""
    n = len(word)
    if n > width:
        n = width
    if align == 0:
        start = pos
    elif align == 1:
        start = pos + width - n
    else:
        start = pos + (width - n) // 2
    for i in range(pos, pos + width):
        buf[i] = SP
    for i in range(n):
        buf[start + i] = word[i]


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
