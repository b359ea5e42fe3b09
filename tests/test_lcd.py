"""The HD44780/PCF8574 driver (firmware/lcd.py) against the chip emulator
(host_sim/fakehw/hd44780_emu.py).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython (where the
last part measures the heap show() allocates), tests/test_target_qemu.py on
the 32-bit image.

Every check goes through the real byte stream: the driver writes to the fake
machine.I2C bus, the emulator decodes it like the chip would, and the tests
look at what the display then shows and at what was sent.
"""
import hd44780_emu
import lcd
import machine
from profiles import fmt_time as mmss  # the display's mm:ss
from hd44780_emu import Hd44780Pcf8574, LcdProtocolError
from mptest import eq, micropython_only, parametrize, raises

E, RS, RW, BL = 0x04, 0x01, 0x02, 0x08


# -- helpers ------------------------------------------------------------------
class Recorder:
    """A bus device that keeps every transfer and passes it on to the emulator."""

    def __init__(self, emu, log):
        self.emu = emu
        self.log = log

    def writeto(self, buf):
        self.log.append(("tx", bytes(buf)))
        self.emu.writeto(buf)


def new_log():
    """Event log of transfers and driver sleeps; sleeps are recorded, not slept
    (as host_sim/fakehw/rig.py does, the driver's sleep_ms is replaced)."""
    events = []
    lcd.sleep_ms = lambda ms: events.append(("sleep", ms))
    return events


def make(log, cols=16, rows=2, backlight=True, record=False, emu=None):
    machine.reset_world()
    emu = emu or Hd44780Pcf8574(cols, rows)
    bus = machine.I2C(0)
    bus.attach(0x27, Recorder(emu, log) if record else emu)
    d = lcd.Lcd(bus, 0x27, cols, rows, backlight)
    emu.reset_counters()
    del log[:]
    return d, emu


def nibbles(stream, prev=BL):
    """Decode PCF8574 bytes into (rs, nibble) at each falling edge of E
    (`prev`: the byte before the stream; the default has E low)."""
    out = []
    for b in stream:
        if prev & E and not b & E:
            out.append((prev & RS, prev >> 4))
        prev = b
    return out


def raw(rs, nib, bl=BL):
    b = bl | rs | (nib << 4)
    return bytes([b | E, b])


def raw_byte(rs, v):
    return raw(rs, v >> 4) + raw(rs, v & 15)


def boot_emu(cols=16, rows=2, strict=True):
    """An emulator taken through the standard 4-bit init by hand."""
    emu = Hd44780Pcf8574(cols, rows, strict=strict)
    emu.writeto(bytes([BL]) + raw(0, 3) + raw(0, 3) + raw(0, 3) + raw(0, 2))
    emu.writeto(raw_byte(0, 0x28) + raw_byte(0, 0x0C) + raw_byte(0, 0x01) + raw_byte(0, 0x06))
    return emu


def row(s, cols=16):
    b = s.encode() if isinstance(s, str) else bytes(s)
    assert len(b) == cols
    return b


# -- initialisation -----------------------------------------------------------
def test_init_sends_datasheet_sequence_with_waits_and_emulator_ends_ready():
    log = new_log()
    machine.reset_world()
    emu = Hd44780Pcf8574(16, 2)
    bus = machine.I2C(0)
    bus.attach(0x27, Recorder(emu, log))
    lcd.Lcd(bus)
    # what went over the bus, nibble by nibble, and the sleeps between
    assert log[0] == ("tx", bytes([BL]))  # lines low first, E low: no cycle
    seq = []
    for kind, v in log[1:]:
        if kind == "sleep":
            seq.append(("sleep", v))
        else:
            seq.extend(nibbles(v))
    assert seq == [
        ("sleep", 50),
        (0, 3), ("sleep", 5),
        (0, 3), ("sleep", 1),
        (0, 3), ("sleep", 1),
        (0, 2), ("sleep", 1),
        (0, 2), (0, 8),  # function set: 4-bit, 2 lines, 5x8
        (0, 0), (0, 0xC),  # display on, cursor off, blink off
        (0, 0), (0, 1), ("sleep", 2),  # clear (1.52 ms)
        (0, 0), (0, 6),  # entry mode: increment, no shift
    ]
    # and the emulator decoded it as an initialised 4-bit, 2-line display
    assert emu.initialised and not emu.eight_bit and emu.two_line
    assert emu.display_on and not emu.cursor_on and not emu.blink_on
    assert emu.inc and not emu.entry_shift and emu.backlight
    assert emu.instructions == 8  # 4 in 8-bit mode + 4 in 4-bit mode
    assert emu.data_writes == 0
    assert emu.text_rows() == [" " * 16, " " * 16]


def test_reinit_resynchronises_a_display_left_in_4bit_mode():
    log = new_log()
    # An MCU-only reset (watchdog, brown-out of the board, soft reboot): the
    # LCD keeps power and stays in 4-bit mode; the new driver must recover.
    d, emu = make(log)
    d.show(0, row("before reset    "))
    bus = machine.I2C(0)
    d2 = lcd.Lcd(bus)
    assert emu.initialised and not emu.eight_bit
    d2.show(1, row("after reset     "))
    assert emu.text_rows() == [" " * 16, "after reset     "]  # init cleared


def test_reinit_recovers_from_reset_half_way_through_an_instruction():
    log = new_log()
    d, emu = make(log)
    emu.writeto(raw(0, 0x8))  # first nibble of a set-address, then the MCU died
    d2 = lcd.Lcd(machine.I2C(0))
    d2.show(0, row("recovered       "))
    assert emu.text_rows()[0] == "recovered       "


# -- show(): what is displayed and what is sent --------------------------------
def test_show_full_row_displays_the_text():
    log = new_log()
    d, emu = make(log)
    d.show(0, row("L 25:00  R 25:00"))
    d.show(1, bytearray(b"sdev     running"))
    assert emu.text_rows() == ["L 25:00  R 25:00", "sdev     running"]
    assert emu.row_codes(0) == b"L 25:00  R 25:00"
    assert emu.transfers == 2  # one transfer per show()


def test_unchanged_buffer_sends_zero_bytes():
    log = new_log()
    d, emu = make(log)
    buf = row("L 25:00  R 25:00")
    d.show(0, buf)
    emu.reset_counters()
    for _ in range(100):
        d.show(0, buf)
        d.show(0, bytearray(buf))  # equal content in another object
        d.show(1, row(" " * 16))  # row 1 still blank since the clear
    assert emu.bytes_received == 0 and emu.transfers == 0


def sent(d, emu, r, text):
    """What showing `text` on row r sends, the emulated screen then showing
    it: bytes on the bus, I2C transfers, instructions, data writes."""
    emu.reset_counters()
    d.show(r, row(text))
    assert emu.text_rows()[r] == text, emu.text_rows()
    return {"bytes": emu.bytes_received, "transfers": emu.transfers,
            "instructions": emu.instructions, "writes": emu.data_writes}


def cost(nbytes, transfers, instructions, writes):
    return {"bytes": nbytes, "transfers": transfers, "instructions": instructions,
            "writes": writes}


def test_one_changed_char_is_one_set_address_plus_one_char_in_one_transfer():
    d, emu = make(new_log())
    d.show(0, row("L 25:00  R 25:00"))
    d.show(1, row("sdev     running"))  # moves the chip's cursor off row 0
    # set-DDRAM-address + one character, one transfer
    assert sent(d, emu, 0, "L 25:00  R 24:00") == cost(4 + 4, 1, 1, 1)


def test_two_separated_changes_use_two_set_addresses():
    d, emu = make(new_log())
    d.show(0, row("L 25:00  R 25:00"))
    # columns 3 and 12
    assert sent(d, emu, 0, "L 24:00  R 24:00") == cost(2 * (4 + 4), 1, 2, 2)


def test_one_cell_gap_is_rewritten_instead_of_a_second_set_address():
    d, emu = make(new_log())
    d.show(0, row("L 25:00  R 25:00"))
    # columns 3, 5, 6; the ':' between stays: address + 4 chars (gap
    # rewritten) = 20 bytes; jumping would also cost 20 (2 addresses + 3
    # chars), so the tie goes to fewer cursor moves
    assert sent(d, emu, 0, "L 24:59  R 25:00") == cost(20, 1, 1, 4)
    # columns 3 and 5: address + '3' + ':' (gap) + '4'
    assert sent(d, emu, 0, "L 23:49  R 25:00")["bytes"] == 16
    # columns 2 and 6: gap of 3 -> jump
    c = sent(d, emu, 0, "L 13:40  R 25:00")
    assert c["bytes"] == 4 + 4 + 4 + 4 and c["instructions"] == 2


def test_run_starting_at_the_cursor_needs_no_set_address():
    d, emu = make(new_log())
    d.show(0, row("abc             "))  # after clear the cursor is at 0: no address
    assert emu.instructions == 0 and emu.data_writes == 3
    # the cursor is at column 3 now: one character, no instruction
    c = sent(d, emu, 0, "abcd            ")
    assert c["bytes"] == 4 and c["instructions"] == 0


def test_glyph_moves_cursor_into_cgram_so_next_show_sets_the_address():
    d, emu = make(new_log())
    d.show(0, row("abc             "))
    d.glyph(0, [0x1F] * 8)
    # same column as before, but AC is in CGRAM: one set-address
    assert sent(d, emu, 0, "abcd            ")["instructions"] == 1
    assert emu.cgram_pattern(0) == [0x1F] * 8  # not overwritten by the 'd'


def test_long_runs_and_full_rewrite_stay_within_one_transfer():
    d, emu = make(new_log())
    d.show(0, row("0123456789ABCDEF"))
    assert sent(d, emu, 0, "FEDCBA9876543210") == cost(4 * 17, 1, 1, 16)


def test_show_rejects_a_buffer_of_the_wrong_length():
    log = new_log()
    d, emu = make(log)
    raises(ValueError, lambda: d.show(0, b"short"))


# -- address maps -------------------------------------------------------------
@parametrize(
    "cols,rows,bases",
    [(16, 2, [0x00, 0x40]), (20, 4, [0x00, 0x40, 0x14, 0x54]), (20, 2, [0x00, 0x40]), (16, 4, [0x00, 0x40, 0x10, 0x50]),
     (20, 1, [0x00])],
)
def test_address_map_puts_every_row_where_the_chip_shows_it(cols, rows, bases):
    log = new_log()
    d, emu = make(log, cols, rows)
    texts = []
    for r in range(rows):
        t = ("row%d" % r + "".join(chr(0x41 + (r * 7 + c) % 26) for c in range(cols)))[:cols]
        texts.append(t)
    for r in reversed(range(rows)):
        d.show(r, texts[r].encode())
    assert emu.text_rows() == texts
    for r in range(rows):
        assert emu.ddram[bases[r]] == ord(texts[r][0])
        assert emu.ddram[bases[r] + cols - 1] == ord(texts[r][-1])
    # a change in the last column of each row lands there and nowhere else
    for r in range(rows):
        texts[r] = texts[r][:-1] + "*"
        d.show(r, texts[r].encode())
    assert emu.text_rows() == texts


def test_20x4_row_2_continues_row_0_in_ddram():
    log = new_log()
    # Row 0 ends at 0x13 and row 2 starts at 0x14: after a full row 0 the
    # chip's cursor is already at row 2, column 0.
    d, emu = make(log, 20, 4)
    d.show(0, b"A" * 20)
    emu.reset_counters()
    d.show(2, b"B" * 20)
    assert emu.instructions == 0 and emu.data_writes == 20
    d.show(3, b"D" * 20)
    d.show(1, b"C" * 20)
    assert emu.text_rows() == ["A" * 20, "C" * 20, "B" * 20, "D" * 20]


# -- glyphs -------------------------------------------------------------------
PATTERNS = [[(code * 8 + r) & 0x1F for r in range(8)] for code in range(8)]


def test_glyphs_are_defined_in_cgram_and_displayed_by_code():
    log = new_log()
    d, emu = make(log)
    for code in range(8):
        d.glyph(code, PATTERNS[code])
    for code in range(8):
        assert emu.cgram_pattern(code) == PATTERNS[code]
    d.show(1, bytes(range(8)) + b" glyphs!")
    assert emu.row_codes(1) == bytes(range(8)) + b" glyphs!"
    assert emu.text_rows()[1] == "".join(hd44780_emu.GLYPH_CHARS) + " glyphs!"
    emu.glyph_char[0] = "F"  # the caller's rendering of glyph 0
    assert emu.text_rows()[1][0] == "F"


def test_redefining_a_glyph_on_screen_needs_no_ddram_write():
    log = new_log()
    d, emu = make(log)
    d.glyph(2, [0] * 8)
    d.show(0, b"\x02" + b" " * 15)
    emu.reset_counters()
    d.glyph(2, [0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F, 0])
    assert emu.instructions == 1 and emu.data_writes == 8  # CGRAM only
    assert emu.bytes_received == 36 and emu.transfers == 1
    assert emu.row_codes(0)[0] == 2
    assert emu.glyph_rows(2)[:2] == ["#####", "#...#"]
    # only the low 5 bits are sent
    d.glyph(2, [0xFF] * 8)
    assert emu.cgram_pattern(2) == [0x1F] * 8


def test_glyph_rejects_bad_code_or_pattern():
    log = new_log()
    d, emu = make(log)
    raises(ValueError, lambda: d.glyph(8, [0] * 8))
    raises(ValueError, lambda: d.glyph(0, [0] * 7))


# -- backlight, clear, invalidate, bus errors -------------------------------------
def test_backlight_bit_follows_backlight_and_rides_on_every_byte():
    log = new_log()
    d, emu = make(log, record=True)
    d.backlight(False)
    assert emu.backlight is False
    assert log[-1] == ("tx", b"\x00")  # one byte, E low: no cycle for the chip
    assert emu.instructions == 0 and emu.data_writes == 0
    d.show(0, row("dark            "))
    assert emu.backlight is False
    assert all(b & BL == 0 for b in log[-1][1])
    d.backlight(True)
    assert emu.backlight is True
    d.show(0, row("lit             "))
    assert emu.backlight is True
    assert all(b & BL for b in log[-1][1])
    assert emu.text_rows()[0] == "lit             "


def test_backlight_off_from_the_start():
    log = new_log()
    d, emu = make(log, backlight=False)
    assert emu.backlight is False
    d.show(0, row("x" * 16))
    assert emu.backlight is False


def test_clear_blanks_display_and_resets_shadow():
    log = new_log()
    d, emu = make(log)
    d.show(0, row("L 25:00  R 25:00"))
    d.show(1, row("sdev     running"))
    log.clear()
    d.clear()
    assert emu.text_rows() == [" " * 16] * 2
    assert ("sleep", 2) in log
    emu.reset_counters()
    d.show(1, row(" " * 16))  # matches the cleared display: nothing to send
    assert emu.bytes_received == 0
    d.show(0, row("L 25:00  R 25:00"))  # the shadow forgot the old text
    assert emu.text_rows()[0] == "L 25:00  R 25:00"
    assert emu.data_writes > 0


def test_invalidate_makes_next_show_rewrite_the_whole_row():
    log = new_log()
    d, emu = make(log)
    buf = row("L 25:00  R 25:00")
    d.show(0, buf)
    # a glitch garbles the display behind the driver's back
    emu.ddram[3] = ord("#")
    assert emu.text_rows()[0] != "L 25:00  R 25:00"
    emu.reset_counters()
    d.show(0, buf)
    assert emu.bytes_received == 0  # the driver cannot know
    d.invalidate()
    d.show(0, buf)
    assert emu.text_rows()[0] == "L 25:00  R 25:00"
    assert emu.data_writes == 16 and emu.instructions == 1 and emu.transfers == 1


class FlakyBus:
    def __init__(self, emu):
        self.emu = emu
        self.fail = False

    def writeto(self, addr, buf):
        if self.fail:
            self.fail = False
            # a NACK half-way: the first bytes did reach the display
            self.emu.writeto(bytes(buf[: len(buf) // 2 // 4 * 4]))
            raise OSError(5)
        self.emu.writeto(buf)


def test_failed_write_leaves_the_row_to_be_rewritten():
    log = new_log()
    emu = Hd44780Pcf8574(16, 2)
    bus = FlakyBus(emu)
    d = lcd.Lcd(bus)
    d.show(0, row("L 25:00  R 25:00"))
    bus.fail = True
    raises(OSError, lambda: d.show(0, row("L 24:59  R 24:59")))
    assert emu.text_rows()[0] != "L 24:59  R 24:59"
    emu.reset_counters()
    d.show(0, row("L 24:59  R 24:59"))
    assert emu.text_rows()[0] == "L 24:59  R 24:59"
    assert emu.data_writes == 16  # rewritten in full, not just the diff


def test_display_power_loss_is_caught_and_a_new_lcd_recovers():
    log = new_log()
    d, emu = make(log)
    d.show(0, row("L 25:00  R 25:00"))
    emu.power_on()  # the LCD lost power; the board did not
    e = raises(LcdProtocolError, lambda: d.show(0, row("L 24:59  R 25:00")))  # 8-bit mode again: not silently garbled
    assert "before the initialisation" in str(e)
    d = lcd.Lcd(machine.I2C(0))
    d.show(0, row("L 24:59  R 25:00"))
    assert emu.text_rows()[0] == "L 24:59  R 25:00"


def test_absent_display_raises_enodev():
    log = new_log()
    machine.reset_world()
    raises(OSError, lambda: lcd.Lcd(machine.I2C(0)))


def test_geometry_is_checked():
    log = new_log()
    for cols, rows in ((16, 3), (40, 4), (81, 1), (41, 2)):
        raises(ValueError, lambda: lcd.Lcd(machine.I2C(0), 0x27, cols, rows))


# -- the emulator rejects protocol errors -----------------------------------------
def test_emulator_rejects_data_before_init():
    emu = Hd44780Pcf8574()
    e = raises(LcdProtocolError, lambda: emu.writeto(bytes([BL]) + raw(RS, 4)))  # 8-bit mode: one pulse = data 0x4F
    assert "before the initialisation" in str(e)
    emu = Hd44780Pcf8574()
    emu.writeto(bytes([BL]) + raw(0, 3) + raw(0, 3) + raw(0, 3) + raw(0, 2))  # 4-bit, no function set yet
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(RS, 0x41)))
    assert "before the initialisation" in str(e)


def test_emulator_rejects_4bit_switch_without_reset_nibbles():
    emu = Hd44780Pcf8574()
    e = raises(LcdProtocolError, lambda: emu.writeto(bytes([BL]) + raw(0, 3) + raw(0, 2)))
    assert "reset nibbles" in str(e)


def test_emulator_rejects_rs_change_half_way_through_a_byte():
    emu = boot_emu()
    e = raises(LcdProtocolError, lambda: emu.writeto(raw(RS, 4) + raw(0, 1)))
    assert "RS changed" in str(e)


def test_emulator_rejects_read_cycles():
    emu = boot_emu()
    e = raises(LcdProtocolError, lambda: emu.writeto(bytes([BL | RW | E, BL | RW])))
    assert "RW=1" in str(e)


def test_emulator_rejects_data_changing_on_the_falling_edge_of_e():
    emu = boot_emu()
    e = raises(LcdProtocolError, lambda: emu.writeto(bytes([BL | E | 0x40, BL | 0x50])))
    assert "falling edge" in str(e)


def test_emulator_rejects_ddram_addresses_that_do_not_exist_or_are_not_shown():
    emu = boot_emu()
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(0, 0x80 | 0x30)))  # gap between the two lines
    assert "does not exist" in str(e)
    emu = boot_emu()
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(0, 0x80 | 0x10)))  # column 16 of a 16-column display
    assert "not shown on a 16x2" in str(e)
    emu = boot_emu(20, 2)
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(0, 0x80 | 0x54)))  # row 3 of a 20x4, but this is a 20x2
    assert "not shown on a 20x2" in str(e)
    emu = boot_emu(20, 4)
    emu.writeto(raw_byte(0, 0x80 | 0x54))  # ... which a 20x4 shows
    assert emu.cell_row(0x54) == 3
    emu = boot_emu(strict=False)
    emu.writeto(raw_byte(0, 0x80 | 0x10) + raw_byte(RS, 0x41))  # allowed when not strict
    assert emu.ddram[0x10] == 0x41 and emu.text_rows()[0] == " " * 16


def test_emulator_rejects_characters_running_off_the_visible_row():
    emu = boot_emu()
    emu.writeto(raw_byte(0, 0x80 | 0x0F) + raw_byte(RS, 0x41))  # last column: fine
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(RS, 0x42)))  # auto-increment took it to 0x10
    assert "no row shows" in str(e)


def test_emulator_rejects_1_line_mode_on_a_2_row_display():
    emu = Hd44780Pcf8574()
    emu.writeto(bytes([BL]) + raw(0, 3) + raw(0, 3) + raw(0, 3) + raw(0, 2))
    e = raises(LcdProtocolError, lambda: emu.writeto(raw_byte(0, 0x20)))
    assert "1-line" in str(e)


def test_driver_byte_stream_passes_a_recorded_protocol_check():
    log = new_log()
    # The driver's whole stream never trips the hold-time rule: E falls with
    # everything else unchanged, and nibbles come in pairs per RS value.
    d, emu = make(log, record=True)
    d.glyph(1, PATTERNS[1])
    d.show(0, row("L 25:00  R 25:00"))
    d.show(1, row("\x01 sdev   running"))
    d.backlight(False)
    d.clear()
    stream = b"".join(v for k, v in log if k == "tx")
    prev = None
    for b in stream:
        if prev is not None and prev & E and not b & E:
            assert (prev ^ b) & 0xFB == 0
        prev = b
    n = nibbles(stream)
    assert len(n) % 2 == 0
    assert all(n[i][0] == n[i + 1][0] for i in range(0, len(n), 2))


# -- the emulator's instruction set beyond what the driver uses ---------------------
def test_emulator_entry_mode_decrement_and_display_shift():
    emu = boot_emu()
    emu.writeto(raw_byte(0, 0x04))  # entry mode: decrement
    emu.writeto(raw_byte(0, 0x80 | 0x05) + raw_byte(RS, ord("b")) + raw_byte(RS, ord("a")))
    assert emu.text_rows()[0] == "    ab          "
    emu.writeto(raw_byte(0, 0x18))  # shift display left
    assert emu.text_rows()[0] == "   ab           "
    emu.writeto(raw_byte(0, 0x1C) + raw_byte(0, 0x1C))  # right twice
    assert emu.text_rows()[0] == "     ab         "
    emu.writeto(raw_byte(0, 0x02))  # return home undoes the shift
    assert emu.text_rows()[0] == "    ab          " and emu.ac == 0


def test_emulator_cursor_shift_display_off_and_address_wrap():
    emu = boot_emu(strict=False)
    emu.writeto(raw_byte(0, 0x80 | 0x27) + raw_byte(RS, ord("x")))
    assert emu.ac == 0x40  # 2-line mode: 0x27 -> 0x40
    emu.writeto(raw_byte(0, 0x80 | 0x67) + raw_byte(RS, ord("y")))
    assert emu.ac == 0x00  # 0x67 -> 0x00
    emu.writeto(raw_byte(0, 0x14) + raw_byte(0, 0x14) + raw_byte(0, 0x10))  # cursor right, right, left
    assert emu.ac == 0x01
    emu.writeto(raw_byte(RS, ord("z")))
    assert emu.text_rows()[0] == " z              "
    emu.writeto(raw_byte(0, 0x08))  # display off: nothing visible, RAM kept
    assert not emu.display_on and emu.text_rows()[0] == " " * 16
    emu.writeto(raw_byte(0, 0x0F))
    assert emu.display_on and emu.cursor_on and emu.blink_on
    assert emu.text_rows()[0] == " z              "


def test_emulator_renders_the_a00_rom():
    emu = boot_emu()
    emu.writeto(raw_byte(0, 0x80) + b"".join(raw_byte(RS, c) for c in (0x5C, 0x7E, 0x7F, 0xDF, 0xB1, 0xF4, 0xFF, 0x10)))
    assert emu.text_rows()[0] == "\u00a5\u2192\u2190\u00b0\uff71\u03a9\u2588 " + " " * 8


# -- the point of it all: bytes per minute ------------------------------------------
def clock_rows(left_ms, right_ms):
    return [("L %s  R %s" % (mmss(left_ms), mmss(right_ms))).encode(), b"sdev     running"]


def naive_show(emu, rows):
    """The naive driver: every cell rewritten, a cursor move before each."""
    for r, text in enumerate(rows):
        stream = b""
        for c, ch in enumerate(text):
            stream += raw_byte(0, 0x80 | (r * 0x40 + c)) + raw_byte(RS, ch)
        emu.writeto(stream)


def test_one_minute_of_clock_display_costs_10x_fewer_bytes_than_naive():
    log = new_log()
    d, ours = make(log)
    naive = boot_emu()
    start = 25 * 60 * 1000
    for r, t in enumerate(clock_rows(start, start)):
        d.show(r, t)
    naive_show(naive, clock_rows(start, start))
    ours.reset_counters()
    naive.reset_counters()
    # the main loop runs every 20 ms and calls show() for both rows each
    # time; the naive driver repaints both rows once a second
    for t in range(20, 60 * 1000 + 1, 20):
        rows = clock_rows(start - t, start)
        for r in range(2):
            d.show(r, rows[r])
        if t % 1000 == 0:
            naive_show(naive, rows)
        assert ours.text_rows() == [x.decode() for x in rows]
    assert naive.text_rows() == ours.text_rows() == ["L 24:00  R 25:00", "sdev     running"]
    ours_bytes, naive_bytes = ours.bytes_received, naive.bytes_received
    print("one minute: ours %d bytes in %d transfers, naive %d bytes" % (ours_bytes, ours.transfers, naive_bytes))
    assert naive_bytes == 60 * 2 * 16 * 8
    # 25:00 -> 24:59 changes three digits around the ':' (address + 4
    # chars = 20 bytes), x0 -> (x-1)9 two adjacent digits five times (12),
    # the other 54 seconds one digit (8)
    assert ours_bytes == 20 + 5 * 12 + 54 * 8
    assert ours.transfers == 60
    assert naive_bytes >= 10 * ours_bytes


# -- no allocation in show() (MicroPython only) -------------------------------------
# Where "show() allocates nothing" is measured, on the interpreter the clock
# runs.  Two meters:
# * gc.mem_alloc() before/after: bytes still allocated (garbage left behind);
# * micropython.mem_total(): every byte ever allocated, including blocks that
#   were freed again at once.  MicroPython puts the frame of a function whose
#   locals + stack exceed 11 words on the heap for the duration of the call;
#   mem_alloc() cannot see that, mem_total() can.  Both must stay at 0.
# The whole path is measured: driver -> fake machine.I2C -> emulator decode.
def _measure(fn):
    """(bytes left allocated, bytes allocated in total) by one fn() call."""
    import gc
    try:
        from micropython import mem_total
    except ImportError:  # a build without MICROPY_MEM_STATS
        mem_total = None
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


@micropython_only
def test_show_allocates_nothing_when_unchanged():
    d, emu = make(new_log())
    d.show(0, A)
    d.show(1, ROW1)

    def loop():
        for _ in range(50):
            d.show(0, A)
            d.show(1, ROW1)

    eq(_measure(loop), (0, 0), "unchanged: (mem_alloc delta, mem_total delta)")
    eq(emu.text_rows()[0], A.decode(), "text")


@micropython_only
def test_show_allocates_nothing_when_a_few_chars_change():
    d, emu = make(new_log())

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


@micropython_only
def test_full_rewrite_backlight_and_emulator_decode_allocate_nothing():
    d, emu = make(new_log())
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
