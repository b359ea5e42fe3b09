# HD44780 character LCD behind a PCF8574 I2C backpack.
#
# Runs unchanged on MicroPython (>= 1.22) and CPython 3.11.  The driver gets
# an initialised I2C object and only ever calls `i2c.writeto(addr, buf)`; it
# never imports `machine`, so the same code drives a real bus on the board and
# the fake bus + HD44780 emulator (host_sim/fakehw/hd44780_emu.py) on a PC.
#
# Layering (the idea borrowed from dhylands/python_lcd, which splits the
# HD44780 command logic from a per-platform HAL): the class is written in two
# halves.  The upper half knows the HD44780 instruction set and decides *what*
# to send (instruction codes, DDRAM addresses, which cells changed); the lower
# half (_put/_flush) knows the PCF8574 wiring and *how* a byte reaches the
# chip.  Unlike python_lcd, which does one I2C transaction per nibble edge and
# allocates a bytearray for each, the lower half encodes everything into one
# preallocated buffer and sends it as a single transfer, so show() allocates
# nothing and costs one I2C start/address per call.
#
# PCF8574 -> HD44780 wiring (the common backpack):
#   P0 = RS, P1 = RW, P2 = E, P3 = backlight transistor, P4..P7 = D4..D7.
# The chip latches a nibble on the falling edge of E, so each nibble is two
# bus bytes (E high, then E low) and each instruction or character is four.
#
# Timing: an instruction or character needs 37 us (clear and home 1.52 ms,
# both at the datasheet's 270 kHz chip clock).  Between the last edge of one
# instruction and the first of the next there are two bus bytes: 180 us at
# the PCF8574's rated 100 kHz, 45 us at 400 kHz (enough for a genuine HD44780,
# little margin for slow-clocked clones).  So writes in one transfer need no
# delays and only clear() sleeps; run the bus at 100 kHz where possible and
# never faster than 400 kHz.  (A clock update is 8-20 bytes: ~1-2 ms at
# 100 kHz; a full 16-column row is 68 bytes, ~6 ms.)
#
# The display content is managed as whole rows: show(row, buf) compares buf
# with a shadow copy of what the display holds and sends only the changed
# cells (see show()).

from ticks import sleep_ms

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# PCF8574 bits
_RS = const(0x01)
_E = const(0x04)
_BL = const(0x08)

# HD44780 instructions
_CLEAR = const(0x01)
_ENTRY_INC = const(0x06)  # entry mode set: increment, no display shift
_DISPLAY_ON = const(0x0C)  # display on, cursor off, blink off
_FUNC_4BIT_2LINE = const(0x28)  # 4-bit bus, 2 lines, 5x8 dots
_FUNC_4BIT_1LINE = const(0x20)
_SET_CGRAM = const(0x40)
_SET_DDRAM = const(0x80)

# Bus bytes per instruction or character (two nibbles, two edges each).
_UNIT = const(4)
# Longest run of unchanged cells that is cheaper (or no dearer) to rewrite
# than to jump over with a set-DDRAM-address instruction.  Both cost _UNIT
# bytes, so a one-cell gap is rewritten (one cursor move fewer, same bytes)
# and longer gaps are jumped.
_GAP = const(1)


class Lcd:
    def __init__(self, i2c, addr=0x27, cols=16, rows=2, backlight=True, init=True):
        if rows not in (1, 2, 4) or cols < 1 or cols * rows > 80 or (rows > 1 and cols * ((rows + 1) // 2) > 40):
            raise ValueError("unsupported LCD geometry")
        self.i2c = i2c
        self.addr = addr
        self.cols = cols
        self.rows = rows
        self._bl = _BL if backlight else 0
        # DDRAM address of column 0 of each row (2-line mode: line r & 1,
        # 4-row modules continue line 0/1 on rows 2/3): 16x2 0x00 0x40,
        # 20x4 0x00 0x40 0x14 0x54.
        self._row_addr = bytes([(r & 1) * 0x40 + (r >> 1) * cols for r in range(rows)])
        # End of a DDRAM line: the address counter jumps from here, so the
        # driver stops predicting it (see _sent()).
        self._line_end = 0x50 if rows == 1 else 0x28
        # One transfer holds at most a set-address plus a whole row, or a
        # CGRAM set-address plus 8 pattern rows.
        size = _UNIT * max(cols + 1, 9)
        self._tx = bytearray(size)
        mv = memoryview(self._tx)
        # Every transfer is a whole number of 4-byte units; views[k] is the
        # first k units, built once so sending never slices (which allocates).
        self._views = [mv[: k * _UNIT] for k in range(size // _UNIT + 1)]
        self._one = bytearray(1)
        self._n = 0  # bytes encoded into _tx so far
        self._shadow = [bytearray(cols) for _ in range(rows)]
        self._valid = bytearray(rows)  # 1 where the shadow row is known good
        self._ac = -1  # DDRAM address the chip's cursor is at, -1 unknown
        # state of the row being encoded (see _encode_row)
        self._full = False
        self._base = 0
        self._nxt = 0
        for r in range(rows):
            self._valid[r] = 0
        if init:
            self._init()

    def reinit(self):
        """Run the HD44780 init sequence again and forget what the display
        holds (after a bus fault: the module may have lost power or been
        driven into 8-bit mode by a torn transfer).  Raises OSError while
        the bus still fails; CGRAM glyphs must be loaded again after it."""
        self.invalidate()
        self._init()

    # -- upper half: HD44780 logic --------------------------------------------
    def _init(self):
        # Datasheet "initializing by instruction" (fig. 24): it works from any
        # state, including a display left in 4-bit mode by an MCU-only reset.
        self._one[0] = self._bl  # all lines low, E low
        self.i2c.writeto(self.addr, self._one)
        sleep_ms(50)  # > 40 ms after Vcc rises to 2.7 V
        self._nibble(0x03)
        sleep_ms(5)  # > 4.1 ms
        self._nibble(0x03)
        sleep_ms(1)  # > 100 us
        self._nibble(0x03)
        sleep_ms(1)
        self._nibble(0x02)  # now in 4-bit mode
        sleep_ms(1)
        self._put(0, _FUNC_4BIT_2LINE if self.rows > 1 else _FUNC_4BIT_1LINE)
        self._put(0, _DISPLAY_ON)
        self._flush()
        self.clear()
        self._put(0, _ENTRY_INC)
        self._flush()

    def glyph(self, code, pattern):
        """Define CGRAM character `code` (0..7) from 8 row bytes (low 5 bits,
        bit 4 = leftmost dot).  Cells showing that code change at once, the
        chip redraws them from CGRAM itself."""
        if not 0 <= code <= 7 or len(pattern) != 8:
            raise ValueError("glyph code 0..7 and 8 rows")
        self._put(0, _SET_CGRAM | (code << 3))
        for i in range(8):
            self._put(_RS, pattern[i] & 0x1F)
        self._ac = -1  # the address counter now points into CGRAM
        self._flush()

    def show(self, row, buf):
        """Make display row `row` show `buf` (exactly `cols` character codes).

        Only cells that differ from the shadow copy are sent: one set-DDRAM-
        address per run of changed cells, a gap of _GAP unchanged cells is
        rewritten instead of jumped, and a run that starts where the chip's
        cursor already is needs no address at all.  Everything goes out in
        one i2c.writeto().  Nothing is allocated.  If the write fails the row
        is marked unknown (it is rewritten in full next time) and the OSError
        propagates."""
        if len(buf) != self.cols:
            raise ValueError("row length")
        if self._valid[row] and self._shadow[row] == buf:
            return
        self._encode_row(row, buf)
        if self._n:
            self._send_row(row, buf)

    # Under MicroPython a function whose frame (locals + value stack) is
    # bigger than 11 words gets it from the heap on every call (freed again
    # on return, so gc.mem_alloc() does not show it, but it is an allocation
    # and can trigger a collection).  The hot path is therefore split into
    # small methods that share state through attributes; tests/mp checks it
    # with micropython.mem_total(), which counts every allocation.
    def _encode_row(self, row, buf):
        self._full = not self._valid[row]
        self._base = self._row_addr[row]
        self._nxt = self._ac - self._base  # cursor column, may be off this row
        sh = self._shadow[row]
        i = 0
        while i < self.cols:
            if self._full or sh[i] != buf[i]:
                self._cell(buf, i)
            i += 1

    def _cell(self, buf, i):
        # Encode cell i (changed), preceded by the cheapest way to put the
        # cursor there: nothing, rewriting a short unchanged gap, or a
        # set-DDRAM-address.
        nxt = self._nxt
        if i != nxt:
            if 0 <= nxt < i <= nxt + _GAP:
                while nxt < i:
                    self._put(_RS, buf[nxt])
                    nxt += 1
            else:
                self._put(0, _SET_DDRAM | (self._base + i))
        self._put(_RS, buf[i])
        self._nxt = i + 1

    def _send_row(self, row, buf):
        # Until the write has succeeded the display's state is unknown.
        self._valid[row] = 0
        self._ac = -1
        self._flush()
        sh = self._shadow[row]
        i = 0
        while i < self.cols:
            sh[i] = buf[i]
            i += 1
        self._valid[row] = 1
        self._sent(self._base + self._nxt)

    def _sent(self, ac):
        # The cursor after the last write; at a line end the chip jumps to
        # another line, which the driver does not try to predict.
        self._ac = -1 if ac == self._line_end or ac == 0x68 else ac

    def backlight(self, on):
        self._bl = _BL if on else 0
        self._one[0] = self._bl  # E stays low: no cycle reaches the HD44780
        self.i2c.writeto(self.addr, self._one)

    def clear(self):
        """Blank the display (the chip fills DDRAM with spaces) and reset the
        shadow to match."""
        self._put(0, _CLEAR)
        self._ac = -1
        self._flush()
        sleep_ms(2)  # clear takes 1.52 ms
        for r in range(self.rows):
            sh = self._shadow[r]
            for i in range(self.cols):
                sh[i] = 0x20
            self._valid[r] = 1
        self._ac = 0

    def invalidate(self):
        """Forget what the display holds (after a glitch or a bus error):
        the next show() of each row rewrites it completely.  A display that
        lost power needs the init sequence again: make a new Lcd."""
        for r in range(self.rows):
            self._valid[r] = 0
        self._ac = -1

    # -- lower half: PCF8574 transport ----------------------------------------
    def _put(self, rs, val):
        # Encode one instruction (rs=0) or character (rs=_RS) as 4 bus bytes.
        tx = self._tx
        n = self._n
        hi = rs | self._bl | (val & 0xF0)
        tx[n] = hi | _E
        tx[n + 1] = hi
        lo = rs | self._bl | ((val << 4) & 0xF0)
        tx[n + 2] = lo | _E
        tx[n + 3] = lo
        self._n = n + 4

    def _nibble(self, nib):
        # One lone nibble (RS=0): the 8-bit-mode steps of the init sequence.
        b = self._bl | (nib << 4)
        self._tx[0] = b | _E
        self._tx[1] = b
        self.i2c.writeto(self.addr, self._tx[0:2])  # init only: may allocate

    def _flush(self):
        n = self._n
        self._n = 0
        self.i2c.writeto(self.addr, self._views[n >> 2])
