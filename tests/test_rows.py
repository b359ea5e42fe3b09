"""The LCD-row toolkit (firmware/rows.py, issue 13 point 3): what each
helper writes (the codes the game screen and the menus show) and that none of
them allocates (the render paths of view.py and menu.py are built from them;
SPEC: no allocation in the loop).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image; the heap check is
MicroPython's (micropython.mem_total())."""
import rows
from mptest import eq, heap_bytes, micropython_only

ROW = bytearray(b" " * 16)


def text():
    return bytes(ROW).decode()


def test_mmss_rounds_like_the_display_spec_4():
    for ms, want in ((1500000, " 25:00"), (1, " 00:01"), (0, " 00:00"),
                     (-999, " 00:00"), (-1000, "-00:01"), (-301000, "-05:01"),
                     (6000000, " 99:59"), (-6000000, "-99:59")):
        rows.blank(ROW)
        rows.mmss(ROW, 2, ms)
        eq(text()[2:8], want, "mmss %d" % ms)


def test_words_and_numbers():
    rows.blank(ROW)
    rows.word(ROW, 0, 16, b"READY", 2)
    eq(text(), "     READY      ", "centered")
    rows.word(ROW, 11, 5, b"LOST", 1)
    eq(text(), "     READY  LOST", "right-aligned in its field")
    rows.word(ROW, 0, 5, b"PAUSED", 0)
    eq(text(), "PAUSEREADY  LOST", "cut to its field")
    rows.put(ROW, 13, b"LONGER")
    eq(text(), "PAUSEREADY  LLON", "cut at the row's end")
    rows.blank(ROW)
    eq(rows.num(ROW, 3, 1207), 7, "num returns the column after it")
    rows.uint(ROW, 8, 3, 7)
    eq(text(), "   1207 007     ", "num / uint")
    eq((rows.ndigits(0), rows.ndigits(9), rows.ndigits(10), rows.ndigits(9999)),
       (1, 1, 2, 4), "ndigits")


@micropython_only
def test_no_helper_allocates():
    other = bytearray(b"x" * 16)
    for what, fn in (("blank", lambda: rows.blank(ROW)),
                     ("fill", lambda: rows.fill(ROW, 3, 5)),
                     ("copy", lambda: rows.copy(ROW, other)),
                     ("put", lambda: rows.put(ROW, 12, b"PAUSE")),
                     ("word", lambda: rows.word(ROW, 5, 6, b"CHL", 2)),
                     ("num", lambda: rows.num(ROW, 0, 9999)),
                     ("mmss", lambda: rows.mmss(ROW, 1, -301000)),
                     ("mmss capped", lambda: rows.mmss(ROW, 1, 9000000))):
        eq(heap_bytes(fn), 0, what + " bytes")
