# The HD44780 display family (display.py's contract): a character LCD on a
# PCF8574 I2C backpack (lcd.py, built by hw.display from the board file's
# I2C_* and LCD_* names).  It shows the menus and the splash as text rows
# and the game screen from the frame: on a 16x2 as view.py lays it out, on
# a 20x4 with the times in big digits (bigview.py, docs/display.md).
#
# Its CGRAM: the marks of view.py (GLYPHS, codes 0-6) on the 16x2 and for
# the menus; the 20x4's game screen loads bigview.py's digit segments over
# them and the menus' flag back when text shows again (one glyph each way).
import frame as framemod
import hw
import view as viewmod


# The self-test's glyphs (test()): code k a bar of the bottom k + 1 dot
# rows, so the eight codes side by side are a staircase; how a person reads
# them (the emulator, chars()).
TEST_GLYPHS = dict([(k, bytes([0x1F if r >= 7 - k else 0 for r in range(8)]))
                    for k in range(8)])
TEST_CHARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
ALL_DOTS = 0xFF     # the A00 ROM's character with all 5x8 dots lit


def make(board, machine):
    return Hd44780(hw.display(board, machine), board.LCD_COLS, board.LCD_ROWS)


def layout(cols, rows):
    """The game screen's layout for this geometry."""
    if rows >= 4:
        import bigview
        return bigview.Big(cols, rows)
    return viewmod.View(cols, rows)


class Hd44780:
    name = "hd44780"

    def __init__(self, lcd, cols, rows):
        self.lcd = lcd
        self.cols = cols
        self.rows = rows
        self.screen = layout(cols, rows)
        self.glyphs = getattr(self.screen, "glyphs", None)  # the big digits' set
        self.game = False         # the CGRAM holds the game screen's glyphs

    def start(self):
        self.lcd.reinit()
        self._load(viewmod.GLYPHS)
        self.game = False

    def draw(self, frame):
        if self.glyphs is not None and not self.game:
            self._load(self.glyphs)
            self.game = True
        self._rows(self.screen.render(frame))

    def show(self, rows):
        """Text rows (menus, splash): the menus' glyphs first."""
        if self.game:
            self._load(viewmod.GLYPHS)
            self.game = False
        self._rows(rows)

    def test(self, k):
        """The self-test (display.py's contract): pattern 0 lights every dot
        of every cell; pattern 1 loads the eight CGRAM codes with
        TEST_GLYPHS and shows them in every cell (a staircase each 8
        columns, shifted a cell each row).  start() loads the menus' glyphs
        back.  (Allocates: not in a game.)"""
        if k > 1:
            return None
        if k == 1:
            self._load(TEST_GLYPHS)
            self.game = True        # (show() loads the menus' glyphs again)
        rows = [bytearray(self.cols) for _ in range(self.rows)]
        for r in range(self.rows):
            for c in range(self.cols):
                rows[r][c] = ALL_DOTS if k == 0 else (c + r) % 8
        self._rows(rows)
        return True

    def _rows(self, rows):
        lcd = self.lcd
        for r in range(self.rows):
            lcd.show(r, rows[r])

    def _load(self, glyphs):
        # only the codes a set redefines (allocates nothing: dict iteration)
        for code in glyphs:
            self.lcd.glyph(code, glyphs[code])


def chars():
    """{glyph pattern: the character a person reads} for every glyph this
    family loads (host side: the emulator's and the simulator's reading)."""
    out = {}
    for code in viewmod.GLYPHS:
        out[viewmod.GLYPHS[code]] = viewmod.GLYPH_CHARS[code]
    import bigview
    for code in bigview.GLYPHS:
        out[bigview.GLYPHS[code]] = bigview.GLYPH_CHARS[code]
    for code in TEST_GLYPHS:
        out[TEST_GLYPHS[code]] = TEST_CHARS[code]
    return out


def text_of(clock, cols=16, rows=2, language="en", hall=-1, notice=None):
    """What the game screen shows for `clock` on a cols x rows LCD, as str
    rows a person reads (host side: the replay tools, the tests)."""
    f = framemod.Frame(language)
    f.set_rules(clock.rules)
    f.set_hall(hall)
    f.set_notice(notice)
    f.fill(clock)
    lay = layout(cols, rows)
    return [lay.text(r) for r in lay.render(f)]
