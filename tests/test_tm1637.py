"""The TM1637 big-digit modules: the chip emulator (host_sim/fakehw/tm1637_emu.py)
against the datasheet's wire sequences, and the driver (firmware/tm1637.py)
through the fake machine's open-drain pins into that emulator.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, where the
last part measures the heap the driver allocates (0 B).

The protocol (TM1637 datasheet, "interface interpretation"): START = DIO
falls while CLK is high, STOP = DIO rises while CLK is high, bits taken on
CLK's rising edge LSB first, ACK = the chip pulls DIO low from the 8th
clock's falling edge to the 9th's; commands 0x40 (data, auto-increment),
0xC0 + register (address), 0x88 | brightness (display on).
"""
import machine
import tm1637
from rows import copy
from tm1637 import Tm1637, Modules, time_segs, FLAG, LOST, RETRY, RETRY_MAX
from tm1637_emu import Tm1637Emu
from mptest import eq, micropython_only, parametrize
from test_lcd import _measure  # (mem_alloc, mem_total) deltas of one call

CLK, DIO = 10, 11          # boards/pico_tm1637.py's left module
CLK2, DIO2 = 20, 21


# -- a bare bus master for the emulator (test only) -------------------------------
class Wire:
    """Drives the emulator's two lines the way the datasheet draws them."""

    def __init__(self, emu):
        self.emu = emu
        self.c = 1
        self.d = 1

    def clk(self, v):
        self.c = v
        self.emu.clk(v)

    def dio(self, v):
        self.d = v
        self.emu.dio(v)

    def start(self):
        self.dio(1)
        self.clk(1)
        self.dio(0)
        self.clk(0)

    def stop(self):
        self.dio(0)
        self.clk(1)
        self.dio(1)

    def bits(self, b, n=8):
        for i in range(n):
            self.dio((b >> i) & 1)
            self.clk(1)
            self.clk(0)

    def byte(self, b):
        """8 bits, then the ACK clock; True if the chip pulled DIO low
        during it (and only from the 8th fall to the 9th)."""
        self.bits(b, 7)
        self.dio((b >> 7) & 1)
        self.clk(1)
        before = self.emu.dio_low()        # not yet: the 8th clock is high
        self.clk(0)
        self.dio(1)                        # the master releases DIO
        self.clk(1)
        ack = self.emu.dio_low()
        self.clk(0)
        eq(before, False, "ACK before the 8th falling edge")
        eq(self.emu.dio_low(), False, "ACK after the 9th falling edge")
        return ack

    def frame(self, *bs):
        self.start()
        acks = [self.byte(b) for b in bs]
        self.stop()
        return acks


def show_sequence(w, digits, bright=7):
    """The datasheet's write sequence: data command, address + data, control."""
    return w.frame(0x40) + w.frame(0xC0, *digits) + w.frame(0x88 | bright)


# -- the emulator against the datasheet ----------------------------------------------
def test_emu_power_on_shows_nothing_until_display_control():
    emu = Tm1637Emu()
    w = Wire(emu)
    eq(emu.text(), "     ", "power-on")
    w.frame(0x40)
    w.frame(0xC0, 0x3F, 0x06 | 0x80, 0x5B, 0x4F)
    eq(emu.on, False, "display off until a display control command")
    eq(emu.segments(), bytes(4), "nothing lit while off")
    w.frame(0x8B)
    eq((emu.on, emu.brightness), (True, 3), "0x88 | 3")
    eq(emu.text(), "01:23", "digits and the colon")
    w.frame(0x80)
    eq(emu.on, False, "0x80: display off")
    eq(emu.errors, [], "clean traffic")


def test_emu_acks_every_byte_and_counts_frames():
    emu = Tm1637Emu()
    acks = show_sequence(Wire(emu), b"\x66\x6d\x7d\x07")
    eq(acks, [True] * 7, "one ACK per byte")
    eq((emu.frames, emu.writes), (3, 4), "frames, data bytes")
    eq(emu.text(), "45 67", "no colon without digit 1's bit 7")


def test_emu_auto_increment_and_fixed_address():
    emu = Tm1637Emu()
    w = Wire(emu)
    w.frame(0x40)
    w.frame(0xC2, 0x06, 0x5B)              # registers 2, 3
    w.frame(0x44)                          # fixed address
    w.frame(0xC0, 0x4F, 0x66)              # both into register 0
    w.frame(0x8F)
    eq(bytes(emu.regs[:4]), b"\x66\x00\x06\x5b", "registers")
    eq(emu.text(), "4  12", "shown")
    eq(emu.errors, [], "clean")


def shown_then_addressed(digits):
    """An emulator showing `digits`, then a data command and a START and
    the address command 0xC0 of the next transfer on the wire."""
    emu = Tm1637Emu()
    w = Wire(emu)
    show_sequence(w, digits)
    w.frame(0x40)
    w.start()
    eq(w.byte(0xC0), True, "address")
    return emu, w


def test_emu_stop_inside_a_byte_loses_that_byte_only():
    emu, w = shown_then_addressed(b"\x3f\x3f\x3f\x3f")
    eq(w.byte(0x06), True, "register 0")   # stored at its ACK
    w.bits(0x5B, 5)                        # register 1: five bits ...
    w.stop()                               # ... then a STOP
    eq(bytes(emu.regs[:4]), b"\x06\x3f\x3f\x3f", "register 0 written, 1 not")
    eq(emu.errors, ["stop inside a byte"], "named")
    # the bus is usable again at once
    show_sequence(w, b"\x5b\x5b\x5b\x5b")
    eq(emu.text(), "22 22", "recovered")


def test_emu_ignores_clocks_without_start():
    emu = Tm1637Emu()
    w = Wire(emu)
    show_sequence(w, b"\x06\x06\x06\x06")
    # a byte clocked out without START (the master lost track): no ACK, and
    # the data must not reach any register
    w.clk(0)
    w.dio(0)                               # while CLK is low: no START
    acks = [w.byte(0xC0), w.byte(0x3F), w.byte(0x3F)]
    w.stop()
    eq(acks, [False] * 3, "no ACK without START")
    eq(emu.text(), "11 11", "unchanged")
    eq(emu.frames, 3, "no frame counted")


def test_emu_start_inside_a_byte_restarts():
    emu, w = shown_then_addressed(b"\x06\x06\x06\x06")
    w.bits(0x3F, 3)                        # three bits of a byte ...
    w.start()                              # ... and a repeated START
    eq(w.byte(0xC3), True, "a new command after the restart")
    eq(w.byte(0x7F), True, "data")
    w.stop()
    eq(emu.text(), "11 18", "only the restarted transfer landed")
    eq(emu.errors, ["start inside a byte"], "the torn byte named")


@parametrize("frame, err", [
    ((0xC6, 0x06), "unknown command 0xc6"),
    ((0x42,), "read command 0x42"),
    ((0x88, 0x06), "byte after command 0x80"),
    ((0xC5, 0x06, 0x06), "data past register 5"),
])
def test_emu_names_malformed_commands(frame, err):
    emu = Tm1637Emu()
    w = Wire(emu)
    w.frame(*frame)
    eq(emu.errors[:1], [err], "error")
    eq(bytes(emu.regs[:5]), bytes(5), "digits 0-4 untouched")


# -- the driver through the fake machine ---------------------------------------------
def module(brightness=7):
    machine.reset_world()
    Pin = machine.Pin
    emu = Tm1637Emu().connect(machine, CLK, DIO)
    clk = Pin(CLK, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1)
    dio = Pin(DIO, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1)
    return Tm1637(clk, dio, brightness), emu


def segs_of(rem):
    b = bytearray(4)
    time_segs(b, rem)
    return b


def test_driver_sends_the_datasheet_sequence():
    d, emu = module(brightness=5)
    eq(d.show(segs_of(24 * 60000 + 58000)), True, "ACKed")
    eq(emu.text(), "24:58", "shown")
    eq((emu.on, emu.brightness, emu.fixed), (True, 5, False), "control, data command")
    eq((emu.frames, emu.writes, emu.errors), (3, 4, []), "three commands, four digits, clean")


@parametrize("rem, text", [
    (25 * 60000, "25:00"),
    (24 * 60000 + 57001, "24:58"),
    (1, "00:01"),          # rounded up: 00:00 only when time is out (SPEC §4)
    (0, "00:00"),
    (-999, "00:00"),       # overtime rounded down: no minus before 1 s
    (-1000, "-0:01"),      # TSO § 5.2 a: -00:01 after one whole second
    (-(9 * 60 + 59) * 1000, "-9:59"),
    (-600000, "-1 0 "),    # from 10 min: whole minutes, "-10 "
    (-(99 * 60 + 59) * 1000 - 500000, "-9 9 "),
    (200 * 60000, "99:59"),  # capped like the LCD
])
def test_time_as_the_module_shows_it(rem, text):
    d, emu = module()
    d.show(segs_of(rem))
    eq(emu.text(), text, "rem %d" % rem)


def test_flag_and_lost_words():
    d, emu = module()
    b = bytearray(4)
    copy(b, FLAG)
    d.show(b)
    eq(emu.text(), "FL AG", "flag")
    copy(b, LOST)
    d.show(b)
    eq(emu.segments(), LOST, "lost: L O S t")
    eq(emu.text(), "L0 5t", "(as 7 segments read)")


def test_brightness_change_is_sent():
    d, emu = module()
    d.show(segs_of(60000))
    n = emu.frames
    d.brightness(2)
    d.show(segs_of(60000))
    eq((emu.brightness, emu.frames), (2, n + 3), "same digits, new brightness: sent")
    d.brightness(2)
    d.show(segs_of(60000))
    eq(emu.frames, n + 3, "unchanged: nothing")


def test_driver_sends_only_changes():
    d, emu = module()
    d.show(segs_of(60000))
    n = emu.frames
    for _ in range(5):
        d.show(segs_of(59500))            # the same shown second: 01:00
    eq(emu.frames, n, "nothing sent while the digits stay")
    d.show(segs_of(59000))
    eq((emu.frames, emu.text()), (n + 3, "00:59"), "one update")
    d.invalidate()
    d.show(segs_of(59000))
    eq(emu.frames, n + 6, "invalidate(): sent again in full")


def test_unplugged_module_is_no_ack_and_comes_back():
    d, emu = module()
    d.show(segs_of(60000))
    emu.disconnect()                       # the cable pulled
    eq(d.show(segs_of(59000)), False, "no ACK")
    eq(d.valid, False, "holds nothing known")
    emu2 = Tm1637Emu().connect(machine, CLK, DIO)   # plugged in again: power-on state
    eq(d.show(segs_of(59000)), True, "ACK again")
    eq((emu2.text(), emu2.on), ("00:59", True), "switched on and drawn")


def test_modules_back_off_while_the_other_goes_on():
    # a module without ACK is retried after RETRY skipped draws, doubling up
    # to RETRY_MAX; the other module is drawn every time meanwhile
    machine.reset_world()
    Pin = machine.Pin
    pins = [Pin(n, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1) for n in (CLK, DIO, CLK2, DIO2)]
    right = Tm1637Emu().connect(machine, CLK2, DIO2)   # the left one is unplugged
    m = Modules(Tm1637(pins[0], pins[1]), Tm1637(pins[2], pins[3]))
    tries = []
    for k in range(40):
        time_segs(m.bufs[0], 60000 - k * 1000)
        time_segs(m.bufs[1], 60000 - k * 1000)
        e = m.errors
        m.draw(0)
        m.draw(1)
        if m.errors != e:
            tries.append(k)
        eq(right.text(), segs_text(m.bufs[1]), "right at draw %d" % k)
    eq(RETRY, 1, "the first back-off")
    eq(tries[:5], [0, 2, 5, 10, 15], "1, 2, 4, 4 draws skipped")
    left = Tm1637Emu().connect(machine, CLK, DIO)     # plugged in
    k = tries[-1] + 1
    while m.skip[0]:
        m.draw(0)
        eq(left.on, False, "not before its retry")
        k += 1
    time_segs(m.bufs[0], 1000)
    m.draw(0)
    eq((left.text(), m.down[0], m.backoff[0]), ("00:01", 0, RETRY), "back, drawn, back-off reset")
    eq(RETRY_MAX, 4, "(at most 4 draws: about 4 s while a clock runs)")


def segs_text(b):
    e = Tm1637Emu()
    e.regs[:4] = b
    e.on = True
    return e.text()


# -- no allocation (MicroPython only; test_lcd.py explains the two meters) -------------
@micropython_only
def test_update_allocates_nothing():
    # the whole path: formatting, the bit-banged wire, the fake pins, the
    # emulator's decoding, the back-off of an unplugged module
    machine.reset_world()
    Pin = machine.Pin
    pins = [Pin(n, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1) for n in (CLK, DIO, CLK2, DIO2)]
    emu = Tm1637Emu().connect(machine, CLK, DIO)
    m = Modules(Tm1637(pins[0], pins[1]), Tm1637(pins[2], pins[3]))
    st = [0]

    def loop():
        for _ in range(20):
            st[0] += 250
            now = st[0]
            time_segs(m.bufs[0], 300000 - now)
            time_segs(m.bufs[1], -now)
            m.draw(0)
            m.draw(1)

    eq(_measure(loop), (0, 0), "(mem_alloc delta, mem_total delta)")
    eq(emu.errors, [], "clean")
    assert m.errors > 0 and emu.frames > 0
