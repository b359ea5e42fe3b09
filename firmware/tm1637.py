# TM1637 4-digit 7-segment modules: the big times, one module facing each
# player, beside the LCD (which keeps the menus and the words).
#
# Runs unchanged on MicroPython (>= 1.22) and CPython 3.11.  Hardware at the
# edge: a Tm1637 gets two initialised machine.Pin objects, CLK and DIO, both
# open-drain (Pin.OPEN_DRAIN, released = 1; the modules carry 10 k pull-ups to
# their VCC, so power them from 3V3), and only calls them: pin(0) pulls the
# line low, pin(1) releases it, pin() reads it.  It never imports `machine`;
# on a PC the fake machine's pins and host_sim/fakehw/tm1637_emu.py stand in.
#
# The wire protocol (TM1637 datasheet, "interface interpretation"): two
# wires, not I2C.  START = DIO falls while CLK is high, STOP = DIO rises while
# CLK is high; data changes while CLK is low and is taken on CLK's rising
# edge, least significant bit first; after the 8th bit's falling edge the chip
# pulls DIO low (ACK) until the 9th clock's falling edge.  Three commands, each
# framed by START ... STOP:
#   0x40           data command: write display registers, auto-increment
#   0xC0 d0..d3    address command (register 0) and the four digits' segments
#   0x88 | b       display control: on, brightness b = 0..7 (pulse 1/16..14/16)
# No ACK (a module unplugged, a broken wire: the released DIO stays high) is a
# bus error: show() says so and the module is tried again with back-off
# (Modules.draw), as the LCD keeper does; nothing raises.  All three
# commands go out on every change, so a module that lost power and came back
# between two changes is switched on again by the next one.
#
# Segments: bit 0..6 = a..g, bit 7 = the colon on the second digit (the
# common modules wire the colon to digit 1's "dp"; the other dp's are not
# fitted).  Bit-banged from MicroPython a module update (7 bytes, 63 clocks)
# takes about 1-2 ms on an RP2040; no delays are needed (the chip takes
# 250 kHz and more).
#
# What a module shows (boards/README.md has the same table):
#   remaining time          "24:58"  mm:ss rounded up (profiles.shown_secs),
#                                    capped at 99:59 like the LCD
#   overtime under 10 min   "-0:12"  rounded down, minus in the first digit
#   overtime from 10 min    "-12 "   whole minutes only (the LCD has mm:ss)
#   whose turn              while a clock runs, the waiting side's module is
#                           dimmed (brightness TM_BRIGHTNESS - 5, at least 0)
#   flag (flag profiles)    "FLAG"   the side is out of time (PFS § 6.2.1)
#   game lost (forfeit)     "LOSt"   (TSO § 5.2 c)
# Before the game, paused and at the end both modules are at full brightness.
# Nothing here allocates after construction: preallocated buffers, small
# methods (MicroPython puts a frame of more than ~11 words on the heap).
#
# The display family (firmware/display.py's contract): a board file with
# DISPLAY = ("hd44780", "tm1637") and the TM_* names (boards/pico_tm1637.py)
# gets make(board, machine) -> Family: digits only (rows = 0: the LCD keeps
# the menus and the words), draw(frame) per frame.py's fields.  It never
# raises: each module keeps its own back-off, so one unplugged module leaves
# the other and the LCD alone; it is retried when frames are drawn (every
# second while a clock runs), after 1, 2, then 4 skipped draws.
import frame as framemod
from profiles import shown_secs
from rows import MAX_SECS, copy

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_DATA = const(0x40)     # data command: write, auto-increment
_ADDR = const(0xC0)     # address command: register 0
_CTRL = const(0x88)     # display control: display on | brightness
COLON = const(0x80)     # digit 1's bit 7
MINUS = const(0x40)     # segment g
DIM = const(5)          # the waiting side: this much less bright

# Segment patterns (bit 0 = a ... bit 6 = g).
DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"
FLAG = b"\x71\x38\x77\x3d"   # F L A G
LOST = b"\x38\x3f\x6d\x78"   # L O S t
RETRY = 1          # a module without ACK: draws skipped before a retry, doubling ...
RETRY_MAX = 4      # ... up to this (about 4 s while a clock runs)


class Tm1637:
    """One module on its CLK and DIO pins."""

    def __init__(self, clk, dio, brightness=7):
        self.clk = clk
        self.dio = dio
        self.ctrl = _CTRL | (brightness & 7)
        self.shown = bytearray(4)   # what the module holds (while valid)
        self.valid = False
        self.ack = True             # the last byte's ACK
        clk(1)
        dio(1)

    def show(self, segs):
        """Make the module show `segs` (4 segment bytes).  Sends only when
        they differ from what it holds.  False: no ACK (the module is
        unplugged or dead); it holds nothing known then."""
        if self.valid and self.shown == segs:
            return True
        self.valid = False
        if not (self._cmd(_DATA) and self._digits(segs) and self._cmd(self.ctrl)):
            return False
        copy(self.shown, segs)
        self.valid = True
        return True

    def invalidate(self):
        """Forget what the module holds: the next show() sends in full."""
        self.valid = False

    def brightness(self, b):
        """0..7; sent with the next show()."""
        c = _CTRL | (b & 7)
        if c != self.ctrl:
            self.ctrl = c
            self.valid = False

    # -- the wire ---------------------------------------------------------------
    def _cmd(self, c):
        self._start()
        self._byte(c)
        self._stop()
        return self.ack

    def _digits(self, segs):
        self._start()
        self._byte(_ADDR)
        i = 0
        while i < 4 and self.ack:
            self._byte(segs[i])
            i += 1
        self._stop()
        return self.ack

    def _start(self):
        # from idle (both high); a torn transfer is ended by the release
        self.dio(1)
        self.clk(1)
        self.dio(0)
        self.clk(0)

    def _stop(self):
        self.dio(0)
        self.clk(1)
        self.dio(1)

    def _byte(self, b):
        clk = self.clk
        dio = self.dio
        for _ in range(8):
            dio(b & 1)
            clk(1)
            clk(0)
            b >>= 1
        dio(1)            # release: the chip pulls DIO low after the 8th fall
        clk(1)
        self.ack = dio() == 0
        clk(0)            # the 9th fall: the chip lets DIO go


# -- what a module shows -----------------------------------------------------
def time_segs(buf, rem):
    """Fill buf (4 bytes) with remaining time `rem` ms as shown (see the
    table at the top)."""
    secs = shown_secs(rem)
    over = secs < 0
    if over:
        secs = -secs
    if secs > MAX_SECS:     # 99:59, as the LCD's rows.mmss
        secs = MAX_SECS
    if over:
        _over(buf, secs)
    else:
        _mmss(buf, secs)


def _mmss(buf, secs):
    m = secs // 60
    s = secs % 60
    buf[0] = DIGITS[m // 10]
    buf[1] = DIGITS[m % 10] | COLON
    buf[2] = DIGITS[s // 10]
    buf[3] = DIGITS[s % 10]


def _over(buf, secs):
    buf[0] = MINUS
    m = secs // 60
    if m < 10:
        buf[1] = DIGITS[m] | COLON
        buf[2] = DIGITS[(secs % 60) // 10]
        buf[3] = DIGITS[secs % 10]
    else:
        buf[1] = DIGITS[m // 10]
        buf[2] = DIGITS[m % 10]
        buf[3] = 0


class Modules:
    """The two modules (left player's, right player's), each kept on its own:
    one that stops answering is tried again with back-off while the other
    and the LCD go on.  The back-off counts draws, not milliseconds (a
    family gets no clock; draws come with every change of the frame, every
    second while a clock runs): after a failure RETRY draws are skipped,
    doubling up to RETRY_MAX."""

    def __init__(self, left, right):
        self.mods = (left, right)
        self.bufs = (bytearray(4), bytearray(4))
        self.down = bytearray(2)           # 1: no ACK at the last try
        self.skip = bytearray(2)           # draws still to skip before a retry
        self.backoff = bytearray(2)        # the next failure's skip
        self.backoff[0] = self.backoff[1] = RETRY
        self.errors = 0                    # bus errors seen (a figure for tests)

    def draw(self, s):
        """Send side s's buffer (bufs[s]) unless its module is backing off."""
        if self.skip[s]:
            self.skip[s] -= 1
            return
        if self.mods[s].show(self.bufs[s]):
            self.down[s] = 0
            self.backoff[s] = RETRY
        else:
            self._failed(s)

    def _failed(self, s):
        self.errors += 1
        self.down[s] = 1
        b = self.backoff[s]
        self.skip[s] = b
        self.backoff[s] = b * 2 if b * 2 < RETRY_MAX else RETRY_MAX


# -- the display family ---------------------------------------------------------
# The board file's names this family reads (tests/test_boards.py checks them
# on every board whose DISPLAY names "tm1637"; boards/README.md).
BOARD_PINS = ("TM_LEFT_CLK", "TM_LEFT_DIO", "TM_RIGHT_CLK", "TM_RIGHT_DIO")
BOARD_NAMES = {"TM_LEFT_CLK": int, "TM_LEFT_DIO": int, "TM_RIGHT_CLK": int,
               "TM_RIGHT_DIO": int, "TM_BRIGHTNESS": int}


def make(board, machine):
    """The board's two modules on open-drain pins (released: high)."""
    Pin = machine.Pin

    def pin(n):
        return Pin(n, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1)

    b = board.TM_BRIGHTNESS
    return Family(Modules(Tm1637(pin(board.TM_LEFT_CLK), pin(board.TM_LEFT_DIO), b),
                          Tm1637(pin(board.TM_RIGHT_CLK), pin(board.TM_RIGHT_DIO), b)), b)


ALL_SEGS = 0xFF     # every segment of a digit and the colon (digit 1's bit 7)


class Family:
    name = "tm1637"
    cols = 0
    rows = 0        # digits only: no text, no menus

    def __init__(self, mods, brightness):
        self.mods = mods
        self.bright = brightness

    def start(self):
        """Forget what the modules show: the next draw sends everything."""
        self.mods.mods[0].invalidate()
        self.mods.mods[1].invalidate()

    def draw(self, f):
        self._side(f, 0)
        self._side(f, 1)

    def test(self, k):
        """The self-test (display.py's contract): pattern 0 lights every
        segment and the colon of both modules at full brightness, patterns
        1-7 one segment (a .. g) of every digit; True if both modules
        answered (ACK), None past the last.  start() then sends the times
        again."""
        if k > 7:
            return None
        segs = bytearray(4)
        for i in range(4):
            segs[i] = ALL_SEGS if k == 0 else 1 << (k - 1)
        ok = True
        for m in self.mods.mods:
            m.brightness(7)
            if not m.show(segs):
                ok = False
        return ok

    def _side(self, f, s):
        m = self.mods
        info = f.info[s]
        if info == framemod.I_LOST:
            copy(m.bufs[s], LOST)
        elif info == framemod.I_TIME:
            copy(m.bufs[s], FLAG)
        else:
            time_segs(m.bufs[s], f.rem[s])
        b = self.bright
        if f.run >= 0 and f.run != s:
            b = b - DIM if b > DIM else 0
        m.mods[s].brightness(b)
        m.draw(s)
