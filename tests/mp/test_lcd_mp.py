# The LCD driver + HD44780 emulator under the real MicroPython interpreter
# (run by tests/mp/mptest.py; also runs under CPython).
#
# Besides the round trip and the byte counts, this is where "show() allocates
# nothing" is measured, on the interpreter the clock runs.  Two meters:
# * gc.mem_alloc() before/after: bytes still allocated (garbage left behind);
# * micropython.mem_total(): every byte ever allocated, including blocks that
#   were freed again at once.  MicroPython puts the frame of a function whose
#   locals + stack exceed 11 words on the heap for the duration of the call;
#   mem_alloc() cannot see that, mem_total() can.  Both must stay at 0.
# The whole path is measured: driver -> fake machine.I2C -> emulator decode.
import gc

import lcd
import machine
from hd44780_emu import Hd44780Pcf8574, LcdProtocolError
from mptest import eq

try:
    from micropython import mem_total
except ImportError:  # CPython, or a build without MICROPY_MEM_STATS
    mem_total = None

E, RS, BL = 0x04, 0x01, 0x08


def make(cols=16, rows=2):
    machine.reset_world()
    emu = Hd44780Pcf8574(cols, rows)
    bus = machine.I2C(0)
    bus.attach(0x27, emu)
    d = lcd.Lcd(bus, 0x27, cols, rows)
    emu.reset_counters()
    return d, emu


def raw_byte(rs, v):
    hi = BL | rs | (v & 0xF0)
    lo = BL | rs | ((v << 4) & 0xF0)
    return bytes([hi | E, hi, lo | E, lo])


def test_init_decoded():
    d, emu = make()
    assert emu.initialised and not emu.eight_bit and emu.two_line
    assert emu.display_on and emu.backlight
    eq(emu.text_rows(), [" " * 16, " " * 16], "blank after init")


def test_round_trip_16x2():
    d, emu = make()
    d.show(0, b"L 25:00  R 25:00")
    d.show(1, bytearray(b"sdev     running"))
    eq(emu.text_rows(), ["L 25:00  R 25:00", "sdev     running"], "rows")
    eq(emu.transfers, 2, "one transfer per show")


def test_byte_counts():
    d, emu = make()
    d.show(0, b"L 25:00  R 25:00")
    d.show(1, b"sdev     running")
    emu.reset_counters()
    d.show(0, b"L 25:00  R 25:00")
    eq(emu.bytes_received, 0, "unchanged row")
    d.show(0, b"L 25:00  R 24:00")
    eq(emu.bytes_received, 8, "one char: set-address + char")
    eq(emu.transfers, 1, "in one transfer")
    emu.reset_counters()
    d.show(0, b"L 24:00  R 25:00")
    eq(emu.bytes_received, 16, "two separated chars")
    eq(emu.instructions, 2, "two set-addresses")
    emu.reset_counters()
    d.show(0, b"L 23:59  R 25:00")
    eq(emu.bytes_received, 20, "gap of one rewritten: address + 4 chars")
    eq(emu.text_rows()[0], "L 23:59  R 25:00", "text")


def test_round_trip_20x4():
    d, emu = make(20, 4)
    texts = [b"row zero 0123456789", b"row one  abcdefghij", b"row two  ABCDEFGHIJ", b"row three klmnopqrs"]
    texts = [t + b"!" for t in texts]
    for r in (3, 1, 2, 0):
        d.show(r, texts[r])
    eq(emu.text_rows(), [t.decode() for t in texts], "20x4 rows")
    for r, base in enumerate((0x00, 0x40, 0x14, 0x54)):
        eq(emu.ddram[base], texts[r][0], "row %d at 0x%02x" % (r, base))


def test_glyphs():
    d, emu = make()
    for code in range(8):
        d.glyph(code, [(code + i) & 0x1F for i in range(8)])
    d.show(1, bytes(range(8)) + b"  glyphs")
    eq(emu.row_codes(1), bytes(range(8)) + b"  glyphs", "codes")
    eq(emu.cgram_pattern(5), [(5 + i) & 0x1F for i in range(8)], "pattern")
    emu.glyph_char[0] = "#"
    eq(emu.text_rows()[1][0], "#", "glyph_char")


def test_emulator_rejects_protocol_errors():
    emu = Hd44780Pcf8574()
    try:
        emu.writeto(bytes([BL]) + raw_byte(RS, 0x41))
        assert False, "data before init accepted"
    except LcdProtocolError:
        pass
    d, emu = make()
    try:
        emu.writeto(raw_byte(0, 0x80 | 0x10))
        assert False, "invisible address accepted"
    except LcdProtocolError:
        pass


def _clock_row(sec):
    s = "L %02d:%02d  R 25:00" % (sec // 60, sec % 60)
    return s.encode()


def test_one_minute_bytes_vs_naive():
    d, emu = make()
    d.show(0, _clock_row(1500))
    d.show(1, b"sdev     running")
    emu.reset_counters()
    naive = 0
    for t in range(1, 61):
        d.show(0, _clock_row(1500 - t))
        d.show(1, b"sdev     running")
        naive += 2 * 16 * (4 + 4)  # both rows, set-address before each char
    eq(emu.text_rows()[0], "L 24:00  R 25:00", "after a minute")
    eq(emu.bytes_received, 512, "ours")
    eq(naive, 15360, "naive")
    assert naive >= 10 * emu.bytes_received


def _measure(fn):
    """(bytes left allocated, bytes allocated in total) by one fn() call.
    Under CPython (no gc.mem_alloc) there is nothing to measure: (0, 0)."""
    if not hasattr(gc, "mem_alloc"):
        fn()
        return 0, 0
    fn()
    fn()  # warm up: one-time allocations happen here
    gc.collect()
    t0 = mem_total() if mem_total else 0
    a0 = gc.mem_alloc()
    fn()
    a1 = gc.mem_alloc()
    t1 = mem_total() if mem_total else 0
    return a1 - a0, t1 - t0


A = b"L 24:59  R 25:00"
B = b"L 24:58  R 25:00"
C = b"L 23:49  R 25:00"  # two runs a gap of one apart
D = b"X 24:59  R 25:0Y"  # two runs far apart
ROW1 = b"sdev     running"


def test_show_allocates_nothing_when_unchanged():
    d, emu = make()
    d.show(0, A)
    d.show(1, ROW1)

    def loop():
        for _ in range(50):
            d.show(0, A)
            d.show(1, ROW1)

    eq(_measure(loop), (0, 0), "unchanged: (mem_alloc delta, mem_total delta)")
    eq(emu.text_rows()[0], A.decode(), "text")


def test_show_allocates_nothing_when_a_few_chars_change():
    d, emu = make()

    def loop():
        for _ in range(25):
            d.show(0, A)
            d.show(0, B)  # one char
            d.show(0, C)  # three cells, one address
            d.show(0, D)  # two runs, two addresses
            d.show(1, ROW1)

    eq(_measure(loop), (0, 0), "changes: (mem_alloc delta, mem_total delta)")
    eq(emu.text_rows(), [D.decode(), ROW1.decode()], "text")
    assert emu.bytes_received > 0


def test_full_rewrite_backlight_and_emulator_decode_allocate_nothing():
    d, emu = make()
    d.show(0, A)

    def rewrite():
        d.invalidate()
        d.show(0, A)
        d.backlight(False)
        d.backlight(True)

    eq(_measure(rewrite), (0, 0), "invalidate + full row + backlight")
    frame = raw_byte(0, 0x06)

    def decode():
        emu.writeto(frame)

    eq(_measure(decode), (0, 0), "emulator decode")
