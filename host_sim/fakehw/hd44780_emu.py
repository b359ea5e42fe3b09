# An HD44780 character LCD behind a PCF8574 I2C backpack, emulated from the
# bytes on the bus.  Runs under CPython and the MicroPython unix port.
#
#   import machine
#   from hd44780_emu import Hd44780Pcf8574
#   emu = Hd44780Pcf8574(16, 2)
#   machine.I2C(0).attach(0x27, emu)     # the fake bus calls emu.writeto(buf)
#   ... the firmware drives the LCD ...
#   emu.text_rows()  -> ["L 24:59  R 25:00", "..."]
#
# What it models, the way the chip sees it:
# * The PCF8574 drives its pins from each byte: P0=RS, P1=RW, P2=E,
#   P3=backlight, P4..P7=D4..D7.  After power-on its pins are all high.
# * The HD44780 latches RS/RW/D4..D7 on the falling edge of E, with the values
#   they had while E was high.  A falling edge that also changes RS, RW or the
#   data violates the hold time: rejected.  The edge that ends the power-on
#   "E high" state is no bus cycle of anybody's and is ignored (with RW high
#   there it would be a harmless read anyway).
# * Power-on state: 8-bit interface, where every E pulse is a whole
#   instruction; D0..D3 are not wired on the backpack and read as 1 (the
#   chip's internal pull-ups), so nibble 0x3 is function set 0x3F and 0x2 is
#   0x2F (switch to 4 bits).  In 4-bit mode two pulses make one byte, high
#   nibble first.  Function set with DL=1 in 4-bit mode returns to 8 bits, so
#   the datasheet's 0x3,0x3,0x3,0x2 sequence resynchronises from any state
#   (what happens when only the MCU resets).
# * The whole instruction set, DDRAM (2-line: 0x00-0x27 and 0x40-0x67,
#   1-line: 0x00-0x4F) with the chip's wrap-around of the address counter,
#   CGRAM (8 glyphs x 8 rows), entry mode, display/cursor shift.
# * Geometry: physical row r shows line r & 1 from position (r >> 1) * cols,
#   so 16x2 rows start at 0x00 0x40 and 20x4 at 0x00 0x40 0x14 0x54.
#
# It rejects (raises LcdProtocolError) what a real chip would turn into
# garbage or what only a buggy driver sends, instead of guessing:
# * data written before initialisation finished (a function set in 4-bit mode
#   after the switch), or the switch to 4 bits without three 0x3 reset nibbles
#   right before it;
# * RS changing between the two nibbles of a byte in 4-bit mode;
# * RW=1 (a read cycle: reads are not emulated);
# * RS/RW/data changing on the falling edge of E;
# * set-DDRAM-address outside the DDRAM of the current line mode;
# * strict=True (default) also: a set-DDRAM-address or a character written to
#   a DDRAM cell no row of this geometry shows, and 1-line mode on a display
#   with more than one row.
#
# Decoding allocates nothing (preallocated bytearrays, int counters, small
# functions whose frames stay on the C stack under MicroPython), so
# allocation measurements of the firmware through the fake bus are honest.
#
# What a person sees: text_rows() renders each cell with the A00 character
# ROM (ASCII 0x20-0x7D, 0x5C is a yen sign, 0x7E/0x7F arrows, 0xA1-0xDF
# katakana, 0xE0-0xFF Greek and symbols, undefined codes blank).  Codes 0..7
# (and their mirrors 8..15) are the CGRAM glyphs and are rendered by
# `glyph_char[code]`, a list of 8 one-character strings the caller may set
# (e.g. emu.glyph_char[0] = "\u2691" for a flag glyph); the defaults are the
# circled digits 0..7 so a test can see which glyph sits where.  Nothing is
# shown while the display is off (display_on False): rows are blank.

_RS = 0x01
_RW = 0x02
_E = 0x04
_BL = 0x08

_A00_E0 = "\u03b1\u00e4\u03b2\u03b5\u03bc\u03c3\u03c1g\u221a\u00b9j\u02e3\u00a2\u00a3\u00f1\u00f6pq\u03b8\u221e\u03a9\u00fc\u03a3\u03c0xy\u5343\u4e07\u5186\u00f7 \u2588"
GLYPH_CHARS = ["\u24ea", "\u2460", "\u2461", "\u2462", "\u2463", "\u2464", "\u2465", "\u2466"]


class LcdProtocolError(Exception):
    pass


def a00_char(code):
    """The character the HD44780A00 ROM shows for `code` (not 0..15)."""
    if 0x20 <= code <= 0x7D:
        return "\u00a5" if code == 0x5C else chr(code)
    if code == 0x7E:
        return "\u2192"
    if code == 0x7F:
        return "\u2190"
    if code == 0xDF:
        return "\u00b0"
    if 0xA1 <= code <= 0xDE:
        return chr(0xFF61 + code - 0xA1)  # JIS X 0201 half-width katakana
    if code >= 0xE0:
        return _A00_E0[code - 0xE0]
    return " "


class Hd44780Pcf8574:
    def __init__(self, cols=16, rows=2, strict=True):
        if rows not in (1, 2, 4) or cols * rows > 80:
            raise ValueError("geometry")
        self.cols = cols
        self.rows = rows
        self.strict = strict
        self.glyph_char = list(GLYPH_CHARS)
        # how a person reads a glyph by its pattern (bytes of 8 rows): the
        # firmware redefines CGRAM codes (hd44780.py), so a code alone does
        # not say what a cell shows; set by attach() from the firmware's sets
        self.pattern_char = {}
        self.ddram = bytearray(128)  # indexed by DDRAM address
        self.cgram = bytearray(64)
        self.reset_counters()
        self.power_on()

    def power_on(self):
        """The state after Vcc comes up (the chip's internal reset)."""
        self._pins = 0xFF  # PCF8574 outputs are high after its power-on reset
        self._hi = 0xFF  # pins while E was high
        self._armed = False  # E went high by a byte we saw
        self.backlight = True
        self.eight_bit = True
        self.initialised = False
        self._pend = -1  # first nibble of a 4-bit byte, or -1
        self._pend_rs = 0
        self._resets = 0  # consecutive 0x3 nibbles (RS=0) just received
        for i in range(128):
            self.ddram[i] = 0x20
        self.ac = 0
        self.cg = False  # address counter points into CGRAM
        self.inc = True  # entry mode I/D
        self.entry_shift = False  # entry mode S
        self.display_on = False
        self.cursor_on = False
        self.blink_on = False
        self.two_line = False  # function set N
        self.font_5x10 = False  # function set F
        self.shift = 0  # display shift, in positions to the left

    def reset_counters(self):
        self.bytes_received = 0
        self.transfers = 0
        self.instructions = 0
        self.data_writes = 0

    # -- the bus --------------------------------------------------------------
    def writeto(self, buf):
        self.transfers += 1
        self.bytes_received += len(buf)
        for b in buf:
            self._byte(b)

    def readfrom(self, n):
        return bytes([self._pins]) * n

    def _byte(self, b):
        # The pins follow the byte first, so they stay right even when the
        # chip-side decode below raises.
        self.backlight = (b & _BL) != 0
        fall = self._armed and self._pins & _E and not b & _E
        self._pins = b
        if b & _E:
            self._hi = b
            self._armed = True
            return
        self._armed = False
        if fall:
            if (b ^ self._hi) & 0xF3:
                raise LcdProtocolError(
                    "RS/RW/data changed on the falling edge of E (%02x -> %02x)" % (self._hi, b))
            self._latch(self._hi)

    def _latch(self, p):
        if p & _RW:
            raise LcdProtocolError("RW=1: read cycles are not emulated")
        nib = p >> 4
        rs = p & _RS
        if rs == 0 and nib == 3:
            self._resets += 1
        elif rs or nib != 2:
            self._resets = 0
        if self.eight_bit:
            self._execute(rs, (nib << 4) | 0x0F)  # D0..D3 pulled up
        elif self._pend < 0:
            self._pend = nib
            self._pend_rs = rs
        else:
            if rs != self._pend_rs:
                raise LcdProtocolError("RS changed between the two nibbles of a byte")
            b = (self._pend << 4) | nib
            self._pend = -1
            self._execute(rs, b)

    def _execute(self, rs, b):
        if rs:
            self._data(b)
        else:
            self.instructions += 1
            if b >= 0x80:
                self._set_ddram(b & 0x7F)
            elif b >= 0x40:
                self.ac = b & 0x3F
                self.cg = True
            elif b >= 0x20:
                self._function_set(b)
            elif b >= 0x10:
                self._shift(b)
            else:
                self._control(b)

    def _control(self, b):
        if b >= 0x08:
            self.display_on = (b & 4) != 0
            self.cursor_on = (b & 2) != 0
            self.blink_on = (b & 1) != 0
        elif b >= 0x04:
            self.inc = (b & 2) != 0
            self.entry_shift = (b & 1) != 0
        elif b >= 0x02:  # return home
            self.ac = 0
            self.cg = False
            self.shift = 0
        elif b == 0x01:  # clear display
            for i in range(128):
                self.ddram[i] = 0x20
            self.ac = 0
            self.cg = False
            self.inc = True
            self.shift = 0

    def _function_set(self, b):
        if self.eight_bit and not b & 0x10:
            if self._resets < 3:
                raise LcdProtocolError("switch to 4-bit mode without the 0x3,0x3,0x3 reset nibbles before it")
            self.eight_bit = False
            self._pend = -1
        elif not self.eight_bit and b & 0x10:
            self.eight_bit = True  # back to 8 bits (resynchronisation)
            self.initialised = False
        elif not self.eight_bit:
            if self.strict and not b & 0x08 and self.rows > 1:
                raise LcdProtocolError("1-line mode on a %d-row display" % self.rows)
            self.initialised = True
        self.two_line = (b & 0x08) != 0
        self.font_5x10 = (b & 0x04) != 0

    def _shift(self, b):
        if b & 0x08:  # display shift
            self.shift = (self.shift + (-1 if b & 0x04 else 1)) % self._linelen()
        elif self.cg:
            self.ac = (self.ac + (1 if b & 0x04 else -1)) & 0x3F
        else:
            self.ac = self._step(self.ac, b & 0x04)

    def _linelen(self):
        return 40 if self.two_line else 80

    def _step(self, a, up):
        # The DDRAM address counter after one increment/decrement.
        if self.two_line:
            if up:
                a += 1
                return 0x40 if a == 0x28 else (0 if a == 0x68 else a)
            if a == 0:
                return 0x67
            return 0x27 if a == 0x40 else a - 1
        if up:
            return 0 if a == 0x4F else a + 1
        return 0x4F if a == 0 else a - 1

    def _valid(self, a):
        if self.two_line:
            return a < 0x28 or 0x40 <= a < 0x68
        return a < 0x50

    def cell_row(self, a):
        """The physical row that shows DDRAM address `a` now, or -1."""
        if self.two_line:
            line = 1 if a >= 0x40 else 0
            rel = (a - line * 0x40 - self.shift) % 40
            r = (rel // self.cols) * 2 + line
        else:
            r = (a - self.shift) % 80 // self.cols
        return r if r < self.rows and r * self.cols < 80 else -1

    def _set_ddram(self, a):
        if not self._valid(a):
            raise LcdProtocolError("DDRAM address 0x%02x does not exist in %s mode"
                                   % (a, "2-line" if self.two_line else "1-line"))
        if self.strict and self.cell_row(a) < 0:
            raise LcdProtocolError("DDRAM address 0x%02x is not shown on a %dx%d display"
                                   % (a, self.cols, self.rows))
        self.ac = a
        self.cg = False

    def _data(self, b):
        if not self.initialised:
            raise LcdProtocolError("data written before the initialisation sequence finished")
        self.data_writes += 1
        if self.cg:
            self.cgram[self.ac] = b
            self.ac = (self.ac + (1 if self.inc else -1)) & 0x3F
            return
        if self.strict and self.cell_row(self.ac) < 0:
            raise LcdProtocolError("character 0x%02x written to DDRAM 0x%02x, which no row shows"
                                   % (b, self.ac))
        self.ddram[self.ac] = b
        self.ac = self._step(self.ac, self.inc)
        if self.entry_shift:
            self.shift = (self.shift + (1 if self.inc else -1)) % self._linelen()

    # -- what a person sees -----------------------------------------------------
    def cell_addr(self, r, c):
        """DDRAM address shown at row r, column c (with the display shift)."""
        if self.two_line:
            return (r & 1) * 0x40 + ((r >> 1) * self.cols + c + self.shift) % 40
        return (r * self.cols + c + self.shift) % 80

    def row_codes(self, r):
        """The raw character codes row r shows (spaces while the display is
        off), as bytes."""
        if not self.display_on:
            return b" " * self.cols
        return bytes([self.ddram[self.cell_addr(r, c)] for c in range(self.cols)])

    def text_rows(self):
        """What a person reads, one str per row (see the module comment)."""
        out = []
        for r in range(self.rows):
            s = ""
            for code in self.row_codes(r):
                s += self._glyph(code & 7) if code < 16 else a00_char(code)
            out.append(s)
        return out

    def _glyph(self, code):
        c = self.pattern_char.get(bytes(self.cgram[code * 8:code * 8 + 8]))
        return c if c is not None else self.glyph_char[code]

    def cgram_pattern(self, code):
        """The 8 row bytes of CGRAM glyph `code` (0..7)."""
        return [self.cgram[(code & 7) * 8 + i] for i in range(8)]

    def glyph_rows(self, code):
        """Glyph `code` as 8 strings of 5 dots ('#' on, '.' off)."""
        return ["".join("#" if v & (0x10 >> i) else "." for i in range(5)) for v in self.cgram_pattern(code)]


def attach(board, machine):
    """The display family's emulator (firmware/display.py's contract): an
    HD44780 of the board's LCD_COLS x LCD_ROWS on the fake I2C bus at its
    LCD_ADDR, its glyphs read as the firmware means them (hd44780.CHARS)."""
    import hd44780
    emu = Hd44780Pcf8574(board.LCD_COLS, board.LCD_ROWS)
    emu.pattern_char.update(hd44780.chars())
    machine.I2C(board.I2C_ID).attach(board.LCD_ADDR, emu)
    return emu
