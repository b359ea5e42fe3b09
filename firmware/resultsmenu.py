# The results of the last games (menu.py: the keys, the layout, the codes,
# the drawing; results.py: the games, from the game logs).
import lang
import profiles
import results
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE, EXIT, center, arrows, \
    position
from rows import blank, put, num, ndigits, mmss
from view import G_FLAG


class ResultsMenu:
    """The finished games' results (firmware/results.py), newest first.
    A_LEFT older, A_RIGHT newer, A_NEXT the other page (16x2), A_DONE back.
    16x2 page 1: both final times and what the game came to in words
    ("Ended in time", "Penalty  L20 R10", "Right lost: time", "Time out:
    left"); page 2: the game's number, when it ended (mm:ss after its
    start) and its rules.  20x4 shows the times, the words and the number
    with the end at once."""

    def __init__(self, results, language="en"):
        self.results = results
        self.language = language
        self.i = 0
        self.page = 0

    @classmethod
    def of(cls, log, language="en"):
        """The finished games in the clock's game logs (a gamelog.GameLog)."""
        return cls(results.finished_games(log), language)

    def handle(self, action, t=None):
        n = len(self.results)
        if action == A_DONE:
            return EXIT
        if action == A_LEFT and self.i + 1 < n:
            self.i += 1
        elif action == A_RIGHT and self.i > 0:
            self.i -= 1
        elif action == A_NEXT:
            self.page = 1 - self.page
        return None

    def mark(self):
        self._saved = (self.i, self.page)

    def undo(self, t=None):
        self.i, self.page = self._saved

    def render(self, rows):
        w = lang.table(self.language)
        for r in rows:
            blank(r)
        if not self.results:
            put(rows[0], 0, w["T_RESULTS"])
            center(rows[1], w["V_NONE"])
            return rows
        r = self.results[self.i]
        if len(rows) >= 4:
            put(rows[0], 0, w["T_RESULTS"])
            position(rows[0], self.i + 1, len(self.results))
            self._times(rows[1], r)
            self._verdict(rows[2], r, w)
            self._when(rows[3], r)
        elif self.page == 0:
            self._times(rows[0], r)
            self._verdict(rows[1], r, w)
        else:
            self._when(rows[0], r)
            self._rules(rows[1], r)
        return rows

    def _times(self, row, r):
        n = len(row)
        arrows(row, self.i + 1 < len(self.results), self.i > 0)
        mmss(row, 1, r.shown[0] * 1000)
        mmss(row, n - 7, r.shown[1] * 1000)
        flag = r.rules is not None and r.rules.zero == profiles.ZERO_FLAG
        for s, pos in ((0, 7), (1, n - 8)):
            if r.shown[s] < 0 or (flag and r.shown[s] == 0):
                row[pos] = G_FLAG

    def _verdict(self, row, r, w):
        """What the game came to, in words (results.Result.verdict)."""
        v, side = r.verdict()
        if v == results.V_LOST:
            put(row, 0, w["RES_LOST_L" if side == 0 else "RES_LOST_R"])
        elif v == results.V_FLAG:
            put(row, 0, w["RES_FLAG_L" if side == 0 else "RES_FLAG_R"])
        elif v == results.V_PENALTY:
            put(row, 0, w["RES_PEN"])
            self._points(row, r, w)
        else:
            put(row, 0, w["RES_OK"])

    def _points(self, row, r, w):
        # right-aligned "L20 R10" (only the sides with points); they win
        # over the word where both would not fit (both sides 100+ points)
        end = len(row)
        if r.penalty(1):
            end = _side_points(row, end, w["RES_R"][0], r.penalty(1)) - 1
        if r.penalty(0):
            _side_points(row, end, w["RES_L"][0], r.penalty(0))

    def _when(self, row, r):
        # "#12      53:50": the number and when the game ended
        row[0] = 0x23
        num(row, 1, r.number)
        mmss(row, len(row) - 6, r.end_ms)

    def _rules(self, row, r):
        if r.rules is None:
            return
        put(row, 0, r.rules.name.encode())
        mmss(row, len(row) - 6, r.rules.base[0])


def _side_points(row, end, letter, p):
    """letter + p ending before column `end`; returns where it starts."""
    n = ndigits(p)
    pos = end - 1 - n
    row[pos] = letter
    num(row, pos + 1, p)
    return pos
