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
# (Modules.draw), like the LCD keeper does; nothing raises.  All three
# commands go out on every change, so a module that lost power and came back
# between two changes is switched on again by the next one.
#
# Segments: bit 0..6 = a..g, bit 7 = the colon on the second digit (the
# common modules wire the colon to digit 1's "dp"; the other dp's are not
# fitted).  Bit-banged from MicroPython a module update (7 bytes, 63 clocks)
# takes about 1-2 ms on an RP2040; no delays are needed (the chip takes
# 250 kHz and more).
#
# What a module shows (docs/wiring/README.md has the same table):
#   remaining time          "24:58"  mm:ss rounded up (profiles.shown_secs),
#                                    capped at 99:59 like the LCD
#   overtime under 10 min   "-0:12"  rounded down, minus in the first digit
#   overtime from 10 min    "-12 "   whole minutes only (the LCD has mm:ss)
#   running side            the colon blinks, on for the first half of each
#                           shown second; a stopped side's colon stays on
#   flag (flag profiles)    "FLAG"   the side's time is out (PFS § 6.3.4)
#   game lost (forfeit)     "LOSt"   (TSO § 5.2 c)
# Nothing here allocates after construction: preallocated buffers, small
# methods (MicroPython puts a frame of more than ~11 words on the heap).
from profiles import shown_secs
from ticks import ticks_diff, ticks_add

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
MAX_SECS = const(5999)  # 99:59, as the LCD's rows.mmss

# Segment patterns (bit 0 = a ... bit 6 = g).
DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"
FLAG = b"\x71\x38\x77\x3d"   # F L A G
LOST = b"\x38\x3f\x6d\x78"   # L O S t
RETRY_MS = 100     # a module without ACK is tried again after this, doubling ...
RETRY_MAX = 2000   # ... up to this


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
        word_segs(self.shown, segs)
        self.valid = True
        return True

    def invalidate(self):
        """Forget what the module holds: the next show() sends in full."""
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
def time_segs(buf, rem, running):
    """Fill buf (4 bytes) with remaining time `rem` ms as shown (see the
    table at the top); `running`: the colon blinks."""
    secs = shown_secs(rem)
    if secs < 0:
        _over(buf, -secs)
    else:
        _mmss(buf, secs if secs < MAX_SECS else MAX_SECS)
    if running and (rem - 1) % 1000 < 500:
        buf[1] &= 0x7F    # the second half of the shown second: colon off


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
        m = m if m < 99 else 99
        buf[1] = DIGITS[m // 10]
        buf[2] = DIGITS[m % 10]
        buf[3] = 0


def word_segs(buf, w):
    """Copy 4 segment bytes into buf (FLAG, LOST)."""
    buf[0] = w[0]
    buf[1] = w[1]
    buf[2] = w[2]
    buf[3] = w[3]


class Modules:
    """The two modules (left player's, right player's), each kept on its own:
    one that stops answering is tried again with back-off while the other
    and the LCD go on."""

    def __init__(self, left, right, now, diff=ticks_diff, add=ticks_add):
        self.mods = (left, right)
        self.diff = diff
        self.add = add
        self.bufs = (bytearray(4), bytearray(4))
        self.down = bytearray(2)           # 1: no ACK, waiting for retry_at
        self.retry_at = [now, now]
        self.backoff = [RETRY_MS, RETRY_MS]
        self.errors = 0                    # bus errors seen (a figure for tests)

    def draw(self, s, now):
        """Send side s's buffer (bufs[s]) if its module is up or due again."""
        if self.down[s] and self.diff(now, self.retry_at[s]) < 0:
            return
        if self.mods[s].show(self.bufs[s]):
            self._up(s)
        else:
            self._failed(s, now)

    def _up(self, s):
        if self.down[s]:
            self.down[s] = 0
            self.backoff[s] = RETRY_MS

    def _failed(self, s, now):
        self.errors += 1
        self.down[s] = 1
        self.retry_at[s] = self.add(now, self.backoff[s])
        b = self.backoff[s] * 2
        self.backoff[s] = b if b < RETRY_MAX else RETRY_MAX
