# A TM1637 LED driver with a 4-digit 7-segment display (the common module),
# emulated from the levels on its two wires.  Runs under CPython and the
# MicroPython unix port.
#
#   import machine
#   from tm1637_emu import Tm1637Emu
#   emu = Tm1637Emu().connect(machine, clk_id, dio_id)   # the fake machine's pins
#   ... the firmware drives the module ...
#   emu.text()  -> "24:58"          emu.big()  -> three lines of 7-segment art
#
# Or without a machine: emu.clk(level) / emu.dio(level) are the two lines,
# and emu.dio_low() tells whether the chip pulls DIO low (its ACK).
#
# What it models, the way the chip sees it (TM1637 datasheet):
# * START: DIO falls while CLK is high; STOP: DIO rises while CLK is high.  A
#   START in the middle of a byte (or a STOP) abandons that byte.
# * A bit is taken on CLK's rising edge, least significant first.  After the
#   8th bit's falling edge the chip pulls DIO low (ACK) and lets it go at the
#   9th clock's falling edge; the byte then counts.
# * The first byte after START is a command: 0x40-0x4F data command (bit 2:
#   fixed address; bit 1 set: read key scan, not emulated: an error), 0x80-0x8F
#   display control (bit 3 on, bits 0-2 brightness), 0xC0-0xC5 address
#   command; the bytes after an address command are display data for that
#   register on (auto-increment) or the same register (fixed).  Each data byte
#   is stored when its ACK ends.
# * Power-on: registers 0, display off, auto-increment.
# Malformed traffic is counted and named in `errors` (a list of short
# strings), never raised: clocks without a START (ignored, no ACK), a STOP
# or START in the middle of a byte (the byte is lost), data past register 5
# (lost), unknown commands (ignored), data after a data or display command.
# A test that expects clean traffic asserts errors == [].
#
# Decoding allocates nothing except when it records an error.

# 7-segment patterns -> the character they read as (digits, the letters the
# clock uses and a few more).
_READ = {0x00: " ", 0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4",
         0x6D: "5", 0x7D: "6", 0x07: "7", 0x7F: "8", 0x6F: "9", 0x40: "-",
         0x77: "A", 0x7C: "b", 0x39: "C", 0x5E: "d", 0x79: "E", 0x71: "F",
         0x3D: "G", 0x76: "H", 0x38: "L", 0x54: "n", 0x5C: "o", 0x73: "P",
         0x50: "r", 0x78: "t", 0x3E: "U", 0x74: "h", 0x08: "_"}


class Tm1637Emu:
    def __init__(self):
        self.regs = bytearray(6)    # display registers 0xC0..0xC5
        self.on = False             # display control: on/off
        self.brightness = 0         # 0..7
        self.fixed = False          # data command: fixed address
        self.errors = []
        self.frames = 0             # STOP-terminated transfers with >= 1 byte
        self.writes = 0             # display-data bytes stored
        self._clk = 1
        self._dio = 1               # the line as the MCU leaves it
        self._ack = False           # the chip pulls DIO low
        self._started = False
        self._bits = 0              # bits of the current byte so far (0..9)
        self._byte = 0
        self._n = 0                 # bytes in this transfer
        self._cmd = -1              # this transfer's command byte
        self._addr = 0
        self._machine = None
        self._dio_id = None

    # -- the wires ------------------------------------------------------------
    def connect(self, machine, clk_id, dio_id):
        """Listen to the fake machine's lines clk_id and dio_id."""
        self._machine = machine
        self._clk_id = clk_id
        self._dio_id = dio_id
        machine.wire(clk_id, self._line)
        machine.wire(dio_id, self._line)
        return self

    def disconnect(self):
        """Unplug the module: the lines float up to the MCU's pull-ups."""
        m = self._machine
        m.wire(self._clk_id, None)
        m.wire(self._dio_id, None)
        if self._ack:
            self._ack = False
            self._pull(None)
        self._machine = None

    def _line(self, id, level):
        if id == self._clk_id:
            self.clk(level)
        elif not self._ack:       # our own ACK on DIO is no news to us
            self.dio(level)

    def _pull(self, level):
        if self._machine is not None:
            self._machine.pin(self._dio_id).drive(level)

    def feed(self, levels):
        """Line transitions as letters: c/C CLK low/high, d/D DIO low/high
        (target/tm1637.js reports them from the emulated Pico)."""
        for ch in levels:
            if ch == "c" or ch == "C":
                self.clk(ch == "C")
            else:
                self.dio(ch == "D")

    def dio_low(self):
        """True while the chip pulls DIO low (the ACK)."""
        return self._ack

    def dio(self, level):
        level = 1 if level else 0
        if level == self._dio:
            return
        self._dio = level
        if self._clk:
            if level:
                self._stop()
            else:
                self._start()

    def clk(self, level):
        level = 1 if level else 0
        if level == self._clk:
            return
        self._clk = level
        if not self._started:
            return
        if level:
            if self._bits < 8:
                self._byte |= self._dio << self._bits
            self._bits += 1
        elif self._bits == 8:
            self._ack = True      # the 8th fall: ACK until the 9th
            self._pull(0)
        elif self._bits == 9:
            self._ack = False
            self._pull(None)
            self._got(self._byte)
            self._bits = 0
            self._byte = 0

    # -- conditions and bytes --------------------------------------------------
    # (The rising CLK edge that precedes a START or a STOP was counted as a
    # bit: a byte was under way only if more than that one came before.)
    def _start(self):
        if self._started and self._bits > 1:
            self._error("start inside a byte")
        self._started = True
        self._bits = 0
        self._byte = 0
        self._n = 0
        self._cmd = -1

    def _stop(self):
        if not self._started:
            return
        if self._bits > 1:
            self._error("stop inside a byte")
        if self._n:
            self.frames += 1
        self._started = False
        self._bits = 0

    def _got(self, b):
        n = self._n
        self._n = n + 1
        if n == 0:
            self._command(b)
        elif self._cmd == 0xC0:
            self._data(b)
        else:
            self._error("byte after command 0x%02x" % self._cmd)

    def _command(self, b):
        top = b & 0xC0
        if top == 0x40:
            if b & 0x02:
                self._error("read command 0x%02x" % b)
            self.fixed = bool(b & 0x04)
            self._cmd = 0x40
        elif top == 0x80:
            self.on = bool(b & 0x08)
            self.brightness = b & 7
            self._cmd = 0x80
        elif top == 0xC0 and (b & 0x3F) < 6:
            self._addr = b & 0x3F
            self._cmd = 0xC0
        else:
            self._error("unknown command 0x%02x" % b)
            self._cmd = b

    def _data(self, b):
        if self._addr > 5:
            self._error("data past register 5")
            return
        self.regs[self._addr] = b
        self.writes += 1
        if not self.fixed:
            self._addr += 1

    def _error(self, what):
        self.errors.append(what)

    # -- what a person sees ------------------------------------------------------
    def segments(self, n=4):
        """The first n registers as shown (all 0 while the display is off)."""
        return bytes(self.regs[:n]) if self.on else bytes(n)

    def text(self):
        """The 4 digits as text, the colon (digit 1's bit 7) as ':' between
        digits 1 and 2; unknown patterns read '?'."""
        s = self.segments()
        out = ""
        for i in range(4):
            out += _READ.get(s[i] & 0x7F, "?")
            if i == 1:
                out += ":" if s[1] & 0x80 else " "
        return out

    def big(self):
        """Three lines of 7-segment art (3 columns a digit, the colon between
        digits 1 and 2): what a player sees across the table."""
        s = self.segments()
        rows = ["", "", ""]
        for i in range(4):
            d = s[i]
            rows[0] += " " + ("_" if d & 0x01 else " ") + " "
            rows[1] += ("|" if d & 0x20 else " ") + ("_" if d & 0x40 else " ") + ("|" if d & 0x02 else " ")
            rows[2] += ("|" if d & 0x10 else " ") + ("_" if d & 0x08 else " ") + ("|" if d & 0x04 else " ")
            if i == 1:
                c = s[1] & 0x80
                rows[0] += " "
                rows[1] += "." if c else " "
                rows[2] += "." if c else " "
        return rows


class Pair:
    """The two modules of a board (left player's, right player's)."""

    def __init__(self, left, right):
        self.mods = (left, right)

    def text(self):
        """(left, right) as text."""
        return self.mods[0].text(), self.mods[1].text()

    def face_lines(self):
        """What the simulator draws under the LCD (host_sim/sim.py,
        docs/display.md): the two modules' 7-segment art side by side, the
        left player's on the left; a dimmed module (the waiting side) drawn
        in light strokes ('.' and ':')."""
        arts = []
        for m in self.mods:
            art = m.big()
            if m.brightness <= 3:
                art = [line.replace("_", ".").replace("|", ":") for line in art]
            arts.append(art)
        return [arts[0][i] + "          " + arts[1][i] for i in range(3)]


def attach(board, machine):
    """The display family's emulator (firmware/display.py's contract): the
    board's two modules on the fake machine's TM_* pins."""
    return Pair(Tm1637Emu().connect(machine, board.TM_LEFT_CLK, board.TM_LEFT_DIO),
                Tm1637Emu().connect(machine, board.TM_RIGHT_CLK, board.TM_RIGHT_DIO))
