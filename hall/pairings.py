"""Who sits where in a round (issue 21): a TSH `.t` file or a plain CSV.

TSH (Tournament Software Helper, the pairing program of Scrabble
tournaments) keeps one `.t` file per division, one line per player:

    Kowalski, Jan        1712  12 7 0; 412 388 50; board 6 3 0; p12 1 2 0

the name (any text ending in a non-space), the rating (ASCII digits,
optionally with `.` or `+` parts), the opponent of each round (the
opponent's player number = its line number among the player lines, 0 = a
bye, 00 = not yet defined), `;`, the scores of the rounds played so far,
then optional fields `; key value ...`, among them `board` (the table of
each round), `p12` (1: the player went first, 2: second; 0, 3, 4: a bye,
or not decided) and `off` (the player withdrew: paired with 0, yet no bye).
The name ends where the rest of the line first reads as a rating and
opponents, as TSH reads it (`Jan 2 Kowalski 1500 3`: Jan 2 Kowalski, rated
1500).  Only the round asked for is read; scores and unknown fields are
skipped.  A .t file is UTF-8 (TSH's Polish realm: tfile_encoding utf8) or,
if it is not, ISO-8859-1 (TSH's default), with one warning line.  Numbers
are ASCII digits only (a fullwidth `１２` is no table and no player).

A plain CSV any director can write by hand is the fallback:

    table,player1,player2
    1,"Kowalski, Jan",Anna Müller

Who sits left: player 1 of a pair.  In a `.t` file that is the player whose
`p12` is 1 in that round; without a usable `p12` (missing, 0, 3, 4, or both
players claiming the same) the one whose line comes first.  In the CSV,
player1.  A `.t` file without `board` gets tables 1, 2, ... in the order of
each pair's first line (as TSH numbers its boards when none are assigned).

Every malformed line is one line `FILE:LINE: what is wrong`; the pairs from
the good lines are still read, so nothing the file does say is lost.
Blank lines and lines starting with `#` are no players (they do not count
in the player numbers).
"""
import collections
import csv
import io
import os
import re

import hallproto as hp

from host_sim import replay


class Pair:
    """A table's two players; left_no/right_no: their TSH player numbers
    (None from a CSV)."""
    __slots__ = ("table", "left", "right", "left_no", "right_no")

    def __init__(self, table, left, right, left_no=None, right_no=None):
        self.table = table
        self.left = left
        self.right = right
        self.left_no = left_no
        self.right_no = right_no

    def __repr__(self):
        return "Pair(%d, %r, %r)" % (self.table, self.left, self.right)


class Round:
    """One round's seating: pairs {table: Pair}, byes (names), bye_numbers
    (their TSH numbers, None from a CSV), problems (one-line messages,
    FILE:LINE: ...: a line not read) and warnings (read, but changed: a name
    cut to MAX_NAME characters)."""

    def __init__(self, number):
        self.number = number
        self.pairs = {}
        self.byes = []
        self.bye_numbers = []
        self.problems = []
        self.warnings = []

    def tables(self):
        return [self.pairs[t] for t in sorted(self.pairs)]


# One player's line of a .t file, as read (never changed after).
_Player = collections.namedtuple("_Player", "number line name opp board p12 withdrawn")


MAX_TABLE = 999
# A player's name as the hall shows and stores it: the protocol's one rule
# (firmware/hallproto.py clean_name, also the pages'): at most this many code
# points (the pages' cards hold ~30; TSH's own names are shorter), without
# control or bidi-override characters.  A longer one is cut, a character
# removed, with one warning line (issue 27: a 10 MB "name" went into every
# retained round message; issue 35: 64 astral letters were 128 for the pages,
# a right-to-left override reversed the opponent's name).
MAX_NAME = hp.NAME_MAX


def _name(rnd, name, where):
    clean = hp.clean_name(name)
    if clean == name:
        return name
    removed = sum(1 for c in name if not hp.clean_name(c))
    why = []
    if removed:
        why.append("has %d control or bidi-override character%s: removed"
                   % (removed, "" if removed == 1 else "s"))
    if len(name) - removed > MAX_NAME:
        why.append("is longer than %d characters: cut to %d" % (MAX_NAME, MAX_NAME))
    rnd.warnings.append("%s: the name %r... %s" % (where, name[:20], "; ".join(why)))
    return clean


def read(path, round_no):
    """The Round `round_no` (1-based) of a `.t` or `.csv` file.  Raises
    OSError (cannot read) and ValueError (not a pairings file at all); a bad
    line is a problem in the Round, not an exception."""
    if round_no < 1:
        raise ValueError("round numbers start at 1, got %d" % round_no)
    name = os.path.basename(path)
    latin1 = None
    try:
        lines = replay.read_lines(path)
    except replay.ReplayError as e:
        lines = None if path.lower().endswith(".csv") else _latin1(path)
        if lines is None:
            raise ValueError("%s:%d: %s" % (path, e.line, e.message))
        latin1 = ("%s: not UTF-8 (line %d): read as ISO-8859-1, TSH's own encoding of .t "
                  "files without tfile_encoding" % (name, e.line))
    if path.lower().endswith(".csv"):
        return from_csv(lines, round_no, name)
    rnd = from_tsh(lines, round_no, name)
    if latin1:
        rnd.warnings.insert(0, latin1)
    return rnd


# C0 and C1 control characters but tab, CR, LF: not in a text file
_CONTROL = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]")


def _latin1(path):
    """The lines of a .t file in ISO-8859-1 (TSH reads .t files so unless
    its configuration sets tfile_encoding: TSH.md), or None if it holds
    control characters (not a text file in any encoding)."""
    with open(path, "rb") as f:
        text = f.read().decode("latin-1")
    return None if _CONTROL.search(text) else text.split("\n")


# -- TSH .t ---------------------------------------------------------------------------
# A .t line as TSH reads it (/work/shared/TSH.md): the name (any text ending
# in a non-space), white space, the rating (ASCII digits, optionally with `.`
# or `+` parts), the opponents (ASCII digits), `;`, the scores, then `; key
# value ...` extras.  TSH takes the shortest name after which the rest reads
# as a rating and opponents: `Jan 2 Kowalski 1500 3` is Jan 2 Kowalski rated
# 1500, `X -10 1` is a player named `X -10` rated 1.
_WORD = re.compile(r"\S+")
_RATING = re.compile(r"[0-9]+(?:[.+][0-9]*)*\Z")
UNDEFINED = "00"     # TSH: an opponent not yet defined (0 alone is a bye)


def _ints(words):
    out = []
    for w in words:
        if not replay._digits(w) or len(w) > 6:
            return None
        out.append(int(w))
    return out


def _opponents(words):
    """The opponents of rounds 1, 2, ...: a player number, 0 (a bye) or None
    (TSH's `00`, not yet defined); None if a word is not a number."""
    if any(not replay._digits(w) or len(w) > 6 for w in words):
        return None
    return [None if w == UNDEFINED else int(w) for w in words]


def _player(text):
    """(name, opponents, {field: [ints]}, withdrawn) or a message."""
    parts = text.split(";")
    spans = [(m.start(), m.group()) for m in _WORD.finditer(parts[0])]
    words = [w for _at, w in spans]
    j = len(words)             # the trailing run of plain numbers starts at j
    while j > 0 and replay._digits(words[j - 1]):
        j -= 1
    first = next((k for k in range(1, len(words)) if _RATING.match(words[k])), None)
    if first is None:
        if not words or replay._digits(words[0]):
            return "expected `Name Rating opponents...; scores...`, got %r" % replay.short(text, 40)
        return "no rating after the name %r" % replay.short(" ".join(words), 40)
    k = max(1, j - 1)
    if k < len(words) and not _RATING.match(words[k]):
        k += 1
    if k >= len(words):
        return "the opponents must be player numbers, got %r" % replay.short(
            " ".join(words[first + 1:]), 40)
    opps = _opponents(words[k + 1:])
    if opps is None:
        return "the opponents must be player numbers of at most 6 digits, got %r" \
            % replay.short(" ".join(words[k + 1:]), 40)
    fields = {}
    withdrawn = False
    for part in parts[2:]:
        words = part.split()
        if not words:
            continue
        if words[0] == "off":
            withdrawn = True
        if words[0] in ("board", "p12"):
            v = _ints(words[1:])
            if v is None:
                return "`%s` must be whole numbers, got %r" % (words[0], replay.short(part.strip(), 40))
            fields[words[0]] = v
    return parts[0][:spans[k][0]].rstrip(), opps, fields, withdrawn


def from_tsh(lines, round_no, name="pairings.t"):
    rnd = Round(round_no)
    players = []
    paired = 0      # the rounds the file has opponents for
    for lineno, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        got = _player(text)
        number = len(players) + 1  # player numbers count every player line
        if isinstance(got, str):
            rnd.problems.append("%s:%d: %s" % (name, lineno, got))
            players.append(None)
            continue
        pname, opps, fields, withdrawn = got
        pname = _name(rnd, pname, "%s:%d" % (name, lineno))
        defined = [k for k, o in enumerate(opps) if o is not None]
        paired = max(paired, defined[-1] + 1 if defined else 0)
        i = round_no - 1
        opp = opps[i] if i < len(opps) else None
        board = fields.get("board", [])
        p12 = fields.get("p12", [])
        players.append(_Player(number, lineno, pname, opp,
                               board[i] if i < len(board) else None,
                               p12[i] if i < len(p12) else None, withdrawn))
    if not players:
        raise ValueError("%s: no player lines" % name)
    if all(p is None or p.opp is None for p in players):
        # issue 27: one line, not one per player
        raise ValueError("%s: round %d is not paired in it yet (its players have opponents "
                         "for rounds 1-%d): pair it in TSH and save, then load it again"
                         % (name, round_no, paired) if paired else
                         "%s: no opponents in it: no round is paired yet" % name)
    _pair_up(rnd, players, name)
    return rnd


def _pair_up(rnd, players, name):
    n = len(players)
    done = set()
    later = []
    for p in players:
        if p is None or p.number in done:
            continue
        if p.opp is None:
            rnd.problems.append("%s:%d: %s has no opponent for round %d"
                                % (name, p.line, p.name, rnd.number))
            continue
        if p.opp == 0 and p.withdrawn:
            # TSH's `off`: withdrawn, paired with 0 but no bye (TSH.md)
            rnd.warnings.append("%s:%d: %s is withdrawn (off): no bye, no table in round %d"
                                % (name, p.line, p.name, rnd.number))
            continue
        if p.opp == 0:
            rnd.byes.append(p.name)
            rnd.bye_numbers.append(p.number)
            continue
        if p.opp > n or p.opp == p.number:
            rnd.problems.append("%s:%d: %s's round %d opponent is player %d, not another "
                                "of the %d players" % (name, p.line, p.name, rnd.number, p.opp, n))
            continue
        q = players[p.opp - 1]
        if q is None:
            rnd.problems.append("%s:%d: %s's round %d opponent, player %d, is on a malformed "
                                "line" % (name, p.line, p.name, rnd.number, p.opp))
            continue
        if q.opp != p.number:
            rnd.problems.append("%s:%d: %s plays %s (player %d) in round %d, but %s's line "
                                "says player %s" % (name, p.line, p.name, q.name, q.number,
                                                    rnd.number, q.name, q.opp))
            continue
        done.add(p.number)
        done.add(q.number)
        if p.board is not None and q.board is not None and p.board != q.board:
            rnd.problems.append("%s:%d: %s and %s are at boards %d and %d in round %d"
                                % (name, q.line, p.name, q.name, p.board, q.board, rnd.number))
            continue
        board = p.board if p.board is not None else q.board
        left, right = _seats(rnd, p, q, name)
        if board is None or board == 0:
            later.append((left, right, p.line))
            continue
        _add(rnd, board, left, right, name, p.line)
    nxt = 1
    for left, right, line in later:  # no board: the next free table
        while nxt in rnd.pairs:
            nxt += 1
        _add(rnd, nxt, left, right, name, line)


def _seats(rnd, p, q, name):
    """(left, right): p12 1 sits left; else line order."""
    if q.number < p.number:
        p, q = q, p
    if p.p12 in (1, 2) and q.p12 in (1, 2):
        if p.p12 != q.p12:
            return (p, q) if p.p12 == 1 else (q, p)
        rnd.problems.append("%s:%d: %s and %s both have p12 %d in round %d; seated by "
                            "line order" % (name, q.line, p.name, q.name, p.p12, rnd.number))
    elif p.p12 in (1, 2):
        return (p, q) if p.p12 == 1 else (q, p)
    elif q.p12 in (1, 2):
        return (q, p) if q.p12 == 1 else (p, q)
    return p, q


def _add(rnd, table, left, right, name, line):
    """Seat left and right (players, or names from a CSV) at table."""
    lno = rno = None
    if isinstance(left, _Player):
        left, right, lno, rno = left.name, right.name, left.number, right.number
    if table > MAX_TABLE:
        rnd.problems.append("%s:%d: table %d is beyond %d" % (name, line, table, MAX_TABLE))
    elif table in rnd.pairs:
        rnd.problems.append("%s:%d: table %d twice in round %d (%s - %s and %s - %s)"
                            % (name, line, table, rnd.number, rnd.pairs[table].left,
                               rnd.pairs[table].right, left, right))
    else:
        rnd.pairs[table] = Pair(table, left, right, lno, rno)


# -- the plain CSV --------------------------------------------------------------------
def from_csv(lines, round_no, name="pairings.csv"):
    rnd = Round(round_no)
    seen = {}
    rows = 0
    header = False
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            cells = next(csv.reader(io.StringIO(raw)))
        except (csv.Error, StopIteration) as e:
            rnd.problems.append("%s:%d: not a CSV line: %s" % (name, lineno, e))
            continue
        cells = [c.strip() for c in cells]
        if rows == 0 and not header and cells and cells[0].lower() == "table":
            header = True
            continue  # the header
        rows += 1
        if len(cells) != 3:
            rnd.problems.append("%s:%d: expected table,player1,player2 (3 cells), got %d"
                                % (name, lineno, len(cells)))
            continue
        t, left, right = cells
        left = _name(rnd, left, "%s:%d" % (name, lineno))
        right = _name(rnd, right, "%s:%d" % (name, lineno))
        if not replay._digits(t) or len(t) > 3 or int(t) == 0:
            rnd.problems.append("%s:%d: the table must be a number 1-%d, got %r"
                                % (name, lineno, MAX_TABLE, replay.short(t)))
            continue
        if not left or not right:
            rnd.problems.append("%s:%d: table %s needs both players' names" % (name, lineno, t))
            continue
        dup = [p for p in (left, right) if p in seen]
        if dup:
            rnd.problems.append("%s:%d: %s already sits at table %d"
                                % (name, lineno, dup[0], seen[dup[0]]))
            continue
        before = len(rnd.problems)
        _add(rnd, int(t), left, right, name, lineno)
        if len(rnd.problems) == before:
            seen[left] = seen[right] = int(t)
    if not rows:
        raise ValueError("%s: no pairings in it" % name)
    return rnd
