# placeholder: the 20x4 big digits (next commit)
import view as viewmod
GLYPHS = {}
GLYPH_CHARS = {}


class Big(viewmod.View):
    def __init__(self, cols, rows):
        viewmod.View.__init__(self, cols, 2)
        self.rows = rows
        self.buf = [bytearray(b" " * cols) for _ in range(rows)]
