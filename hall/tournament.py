"""The hall as a tournament (issue 21, docs/hall.md "A round"): rounds, who
sat where, and the results as a pairing program takes them.

Three files in the hall folder, next to the recorder's results.jsonl
(hall/recorder.py), each appended or replaced so that a power cut
leaves the old or the new content:

    rounds.jsonl     {"round": 3, "set": "2026-11-24T14:00:05Z"} a line per
                     `hall round N`; the current round is the last line's
                     (1 before any line: the first round needs no command)
    games.jsonl      {"clock": "e661...", "account": "12", "table": 12,
                     "game": 4, "round": 3, "seen": "...Z"} a line per game
                     the first time the hall sees it started (its first
                     press: a state with a running clock, a pause, an end,
                     or its result, whichever comes first)
    pairings-3.json  round 3's seating, {"round": 3, "source": "div.t",
                     "tables": {"12": ["left name", "right name"]},
                     "byes": [...]}, from `hall pairings --round 3 FILE`
                     (hall/pairings.py reads the file)

A game belongs to the round of its games.jsonl line: the round current when
its first press was seen.  That line is written once and never rewritten, so
a later `hall round`, a hall restart (the retained state of a running game
comes again: the game is already open) or a clock that starts its game
numbers again (its game 1 after an earlier game 1 that has its result: a new
game) never moves a game to another round.  A result is matched to the last
start line of the same clock and game number seen before it.
"""
import csv
import fcntl
import json
import os
import re
import sys
import time

import hallproto as hp

from hall import durable
from host_sim import replay
from hall.files import (utc_now, num, read_lines,
                        read_records, read_accepted, counted)

ROUNDS = "rounds.jsonl"
GAMES = "games.jsonl"
MAX_ROUND = 999


class TournamentError(Exception):
    pass


# -- durable little files -------------------------------------------------------------
def _append(path, obj):
    """One JSON line, on disk before this returns (fsync); a torn last line
    from a power cut is ended first."""
    line = (json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # one writer at a time (the desk's threads, `hall scores`, the
        # recorder): the torn check and the line together
        fcntl.flock(fd, fcntl.LOCK_EX)
        if durable.torn(path, fd):
            line = b"\n" + line
        durable.write_all(fd, line)
    finally:
        os.close(fd)


def _warn(msg):
    print(msg, file=sys.stderr)


def _is_round(v):
    return type(v) is int and 1 <= v <= MAX_ROUND


# -- rounds ---------------------------------------------------------------------------
def _check_round(obj):
    if not isinstance(obj, dict) or not _is_round(obj.get("round")) \
            or not isinstance(obj.get("set"), str):
        return "not a round line"
    return None


def current_round(folder, warn=_warn):
    lines = read_lines(os.path.join(folder, ROUNDS), _check_round, warn)
    return lines[-1]["round"] if lines else 1


def set_round(folder, n):
    if not _is_round(n):
        raise TournamentError("a round is a number 1-%d, got %r" % (MAX_ROUND, n))
    os.makedirs(folder, exist_ok=True)
    _append(os.path.join(folder, ROUNDS), {"round": n, "set": utc_now()})


# -- pairings -------------------------------------------------------------------------
def pairings_path(folder, n):
    return os.path.join(folder, "pairings-%d.json" % n)


def store_pairings(folder, rnd, source):
    """Round rnd (a pairings.Round) as the round's seating, replacing an
    earlier one atomically.  "numbers": each table's TSH player numbers
    (left, right), "bye_numbers" the byes' (null from a CSV)."""
    data = {"round": rnd.number, "source": os.path.basename(source),
            "tables": {str(p.table): [p.left, p.right] for p in rnd.tables()},
            "numbers": {str(p.table): [p.left_no, p.right_no] for p in rnd.tables()},
            "byes": list(rnd.byes), "bye_numbers": list(rnd.bye_numbers)}
    path = pairings_path(folder, rnd.number)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return data


class Seating:
    """A round's stored seating: tables {table: (left, right)}, numbers
    {table: (left_no, right_no)} (TSH player numbers; None where unknown),
    byes [(name, number or None)], source (the file's name)."""

    def __init__(self, tables=None, numbers=None, byes=(), source=""):
        self.tables = tables or {}
        self.numbers = numbers or {}
        self.byes = list(byes)
        self.source = source


def _tsh_no(v):
    return v if type(v) is int and 0 < v < 100000 else None


def load_seating(folder, n, warn=_warn):
    """Round n's Seating (empty if none was loaded; a file that is not a
    seating is one warning and empty)."""
    path = pairings_path(folder, n)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        tables, numbers = {}, {}
        nums = data.get("numbers") or {}
        for t, names in data["tables"].items():
            if number(t, 1, 999) is None or not isinstance(names, list) or len(names) != 2 \
                    or not all(isinstance(x, str) for x in names):
                raise ValueError("table %r" % t)
            # (the one name rule, hallproto.clean_name, also on a file written
            # before it or by hand: the CSV, the desk and the pages get it clean)
            tables[int(t)] = (hp.clean_name(names[0]), hp.clean_name(names[1]))
            no = nums.get(t) if isinstance(nums, dict) else None
            numbers[int(t)] = (_tsh_no(no[0]), _tsh_no(no[1])) \
                if isinstance(no, list) and len(no) == 2 else (None, None)
        byes = data.get("byes") or []
        bnums = data.get("bye_numbers") or []
        if not isinstance(byes, list) or not all(isinstance(b, str) for b in byes):
            raise ValueError("byes")
        byes = [(hp.clean_name(b), _tsh_no(bnums[i])
                 if isinstance(bnums, list) and i < len(bnums) else None)
                for i, b in enumerate(byes)]
        return Seating(tables, numbers, byes, str(data.get("source", "")))
    except FileNotFoundError:
        return Seating()
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        warn("%s: skipped: not a seating (%s)" % (os.path.basename(path), e))
        return Seating()


def seating(folder, n, warn=_warn):
    """{table: (left, right)} of round n; {} if none was loaded."""
    return load_seating(folder, n, warn).tables


# -- which game is in which round -------------------------------------------------------
def _check_start(obj):
    if not isinstance(obj, dict):
        return "not an object"
    if not isinstance(obj.get("clock"), str) or type(obj.get("game")) is not int \
            or type(obj.get("table")) is not int or not _is_round(obj.get("round")) \
            or not isinstance(obj.get("seen"), str) or not isinstance(obj.get("account"), str):
        return "not a game start line"
    return None


def started(state):
    """Has the game of this state report begun (its first press was made)?
    A lateness clock before the start is no game yet."""
    if not isinstance(state, dict):
        return False
    return state.get("running") in ("left", "right") and state.get("late") is None \
        or state.get("paused") is True or state.get("over") is True


class Starts:
    """games.jsonl: the recorder's side.  state()/result() for every state
    and result message; a game's line is written the first time it is seen
    started.

    A (clock, game number) is open from its start line to its result.  After
    its result, a state of the same number is a new game only when it has
    not ended and its game time (t_ms, from the game's first press) is
    below the result's: the clock counts its games from 1 again.  A later
    time is the same game resumed by the referee (`Resume game`), and its
    final state or its result again (a re-sent copy, a void) is no new game
    either."""

    def __init__(self, folder, warn=_warn):
        self.folder = folder
        self.path = os.path.join(folder, GAMES)
        self.open = set()       # (clock, game) started and without a result since
        self.ended = {}         # (clock, game) -> t_ms of its last result
        self.rounds = {}        # (clock, game) -> the round of its last start line
        starts = read_lines(self.path, _check_start, warn)
        for s in starts:
            self.rounds[(s["clock"], s["game"])] = s["round"]
        done = {}
        for g in games(starts, _result_records(folder, warn)):
            if g["records"]:
                body = g["records"][-1]["result"]
                self.ended[(body["clock"], body["game"])] = body["t_ms"]
                if g["start"] is not None:
                    done[id(g["start"])] = True
        for s in starts:       # the last start of each (clock, game) decides
            k = (s["clock"], s["game"])
            if id(s) in done:
                self.open.discard(k)
            else:
                self.open.add(k)

    def state(self, account, table, body):
        """A state (or heartbeat) of a clock: a new game's line if it began."""
        if not started(body) or not isinstance(body.get("clock"), str) \
                or type(body.get("game")) is not int:
            return None
        k = (body["clock"], body["game"])
        if k in self.ended and k not in self.open:
            t = body.get("t_ms")
            if body.get("over") is True or type(t) is not int or t >= self.ended[k]:
                return None   # the ended game itself (its final state, a resume)
        return self._start(body["clock"], account, table, body["game"])

    def result(self, account, table, body):
        """A result: its game's line if the hall never saw it start (the
        clock was offline), then the game is closed.  Call it before the
        result's line is stored."""
        k = (body["clock"], body["game"])
        line = None
        if k not in self.open and k not in self.ended:
            line = self._start(body["clock"], account, table, body["game"])
        self.open.discard(k)
        self.ended[k] = body["t_ms"]
        return line

    def _start(self, clock, account, table, game):
        k = (clock, game)
        if k in self.open:
            return None
        line = {"clock": clock, "account": str(account), "table": table, "game": game,
                "round": current_round(self.folder), "seen": utc_now_ms()}
        _append(self.path, line)
        self.open.add(k)
        self.rounds[k] = line["round"]
        return line

    def round_of(self, clock, game):
        """The round of a clock's game (its last start line), else the
        current round (a game the hall has not seen begin yet)."""
        r = self.rounds.get((clock, game))
        return r if r is not None else current_round(self.folder, lambda m: None)


def utc_now_ms():
    """UTC with milliseconds: a start line sorts before a result stored in
    the same second ('05.120Z' < '05Z'), and a new game's start (at least
    the 1 s of the new-game confirmation after its clock's last result)
    after it."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def _result_records(folder, warn):
    """Every valid line of the recorder's results.jsonl, in order."""
    try:
        return read_records(folder, warn)
    except FileNotFoundError:
        return []


def games(starts, records):
    """The games: result records grouped by the start line they follow (the
    last start of the same clock and game number seen at or before the
    record; None if none): [{"start": line or None, "records": [...]}], in
    the order of each game's first record, plus started games without a
    result (records []).  Within a game a later record is the game's result
    published again (rows_from() counts the first body unless the director
    accepted another), the first seen time is the end."""
    by_key = {}
    for s in starts:
        by_key.setdefault((s["clock"], s["game"]), []).append(s)
    groups = {}
    order = []
    for r in records:
        body = r["result"]
        cand = by_key.get((body["clock"], r["game"]), [])
        start = None
        for s in cand:
            if s["seen"] <= r["seen"]:
                start = s
        k = (id(start), body["clock"], r["game"], r["table"])
        if k not in groups:
            groups[k] = {"start": start, "records": []}
            order.append(k)
        groups[k]["records"].append(r)
    out = [groups[k] for k in order]
    used = {id(g["start"]) for g in out}
    out += [{"start": s, "records": []} for s in starts if id(s) not in used]
    return out


# -- the scores from the score sheets (the results desk) -----------------------------
SCORES = "scores.jsonl"
MAX_SCORE = 9999


def _check_score(obj):
    if not isinstance(obj, dict) or not _is_round(obj.get("round")) \
            or type(obj.get("table")) is not int or not 1 <= obj["table"] <= 999 \
            or not all(type(obj.get(k)) is int and -MAX_SCORE <= obj[k] <= MAX_SCORE
                       for k in ("left", "right")):
        return "not a score line"
    return None


def set_scores(folder, rnd, table, left, right):
    """The two scores of a table's game as its score sheet says (left and
    right as seated), on disk before this returns; a later line for the same
    round and table replaces it (a typing error corrected)."""
    if not _is_round(rnd):
        raise TournamentError("--round: a number 1-%d" % MAX_ROUND)
    if type(table) is not int or not 1 <= table <= 999:
        raise TournamentError("--table: a number 1-999")
    for v in (left, right):
        if type(v) is not int or not -MAX_SCORE <= v <= MAX_SCORE:
            raise TournamentError("a score is a whole number -%d..%d, got %r"
                                  % (MAX_SCORE, MAX_SCORE, v))
    # issue 35: a score sheet belongs to a seated table of a seated round
    seat = load_seating(folder, rnd, lambda m: None)
    if not seat.tables:
        raise TournamentError("round %d has no seating: load its pairings first (hall "
                              "pairings --round %d FILE); no score stored" % (rnd, rnd))
    if table not in seat.tables:
        raise TournamentError("round %d has no table %d in its seating (tables %s); no "
                              "score stored" % (rnd, table, _spans(sorted(seat.tables))))
    os.makedirs(folder, exist_ok=True)
    _append(os.path.join(folder, SCORES), {"round": rnd, "table": table, "left": left,
                                           "right": right, "set": utc_now()})


def _spans(nums):
    """[1, 2, 3, 7, 9, 10] -> '1-3, 7, 9-10'."""
    out = []
    for n in nums:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in out)


def number(text, lo, hi):
    """A whole number lo..hi typed as ASCII digits (an optional leading -),
    else None: str.isdigit() and int() also take fullwidth `４１２` and other
    Unicode digits (issue 35), which no score sheet means."""
    if not isinstance(text, str):
        return None
    body = text[1:] if text[:1] == "-" else text
    if not replay._digits(body) or len(body) > 9:
        return None
    v = int(text)
    return v if lo <= v <= hi else None


def whole(text):
    """argparse's type for --round, --table, --game, --bye-score: ASCII
    digits only (number())."""
    v = number(text, -10 ** 9, 10 ** 9)
    if v is None:
        raise ValueError(text)
    return v


def scores(folder, rnd, warn=_warn):
    """{table: (left, right)} of round rnd: the last line of each table."""
    out = {}
    for s in read_lines(os.path.join(folder, SCORES), _check_score, warn):
        if s["round"] == rnd:
            out[s["table"]] = (s["left"], s["right"])
    return out


# -- the CSV ----------------------------------------------------------------------------
# One row per game, then one per bye (issue 27).  left/right_clock: the final
# times as the clock shows them (mm:ss, -mm:ss overtime); left/right_tsh: the
# players' TSH numbers (from the .t file); left/right_score: the scores typed
# at the results desk from the score sheet; left/right_adjusted: the score
# minus the clock's penalty (TSO § 5.2 b, computed by the clock by the game's
# profile); bye: "bye" on a bye's row (its player in left_player).
# end_local: the end's time of day on the hall computer's clock (hh:mm:ss);
# end_time: the same moment in UTC with its date (when the recorder stored
# the result: the clocks have no wall clock).
CSV_FIELDS = ("round", "table", "left_player", "right_player", "left_tsh", "right_tsh",
              "left_clock", "right_clock", "left_score", "right_score", "left_penalty",
              "right_penalty", "left_adjusted", "right_adjusted", "forfeit", "bye",
              "left_time", "right_time", "left_overtime_ms", "right_overtime_ms",
              "end_local", "end_time", "clock", "game", "account", "profile", "end_ms")


def _signed(side):
    return side["remaining_ms"] if not side["overtime_ms"] else -side["overtime_ms"]


def time_of_day(utc_iso):
    """'2026-11-24T14:32:05Z' -> '15:32:05' in the hall computer's time zone."""
    t = time.strptime(utc_iso, "%Y-%m-%dT%H:%M:%SZ")
    import calendar
    return time.strftime("%H:%M:%S", time.localtime(calendar.timegm(t)))


def rows(folder, round_no=None, warn=_warn, byes=True):
    """The finished games of the hall folder as CSV rows (and each round's
    byes); only round_no's if given."""
    starts = read_lines(os.path.join(folder, GAMES), _check_start, warn)
    seats, scored = {}, {}

    def seats_of(n):
        if n not in seats:
            seats[n] = load_seating(folder, n, warn) if n else Seating()
        return seats[n]

    def scores_of(n):
        if n not in scored:
            scored[n] = scores(folder, n, warn) if n else {}
        return scored[n]
    out = rows_from(_result_records(folder, warn), starts, seats_of, round_no, scores_of,
                    read_accepted(folder, warn), warn)
    if byes:
        rounds = [round_no] if round_no is not None else sorted(
            {r["round"] for r in out} | _seated_rounds(folder))
        for n in rounds:
            out += bye_rows(n, seats_of(n))
        out.sort(key=lambda r: (r["round"], r["bye"] != "", r["table"] or 0))
    return out


def _seated_rounds(folder):
    out = set()
    for name in os.listdir(folder):
        if name.startswith("pairings-") and name.endswith(".json") \
                and num(name[9:-5], 1, MAX_ROUND) is not None:
            out.add(int(name[9:-5]))
    return out


def bye_rows(n, seat):
    return [dict({k: "" for k in CSV_FIELDS}, round=n, left_player=name,
                 left_tsh="" if no is None else no, bye="bye") for name, no in seat.byes]


def rows_from(records, starts=(), seats_of=lambda n: Seating(), round_no=None,
              scores_of=lambda n: {}, accepted=None, warn=None):
    """The one place that turns recorded results into CSV rows: one row per
    game (games(): a body re-published for the same game is the same game;
    a clock counting from game 1 again is another), in the round of its
    start line (0: none, a result recorded before rounds existed), with the
    round's names and TSH numbers at its table and the scores typed for it;
    sorted by round, table, account, game.  A game's result is its first
    body, or the one the director took last with `hall accept` (accepted:
    {topic: [body_id, ...]} in order, from corrections.jsonl); each other
    body re-published is one warning (issue 29)."""
    import profiles as prof   # (firmware/: the clock's own mm:ss)
    out = []
    for g in games(list(starts), records):
        if not g["records"]:
            continue
        first, last = g["records"][0], counted(g["records"], accepted or {}, warn)
        body = last["result"]
        rnd = g["start"]["round"] if g["start"] is not None else 0
        if round_no is not None and rnd != round_no:
            continue
        seat = seats_of(rnd)
        left_name, right_name = seat.tables.get(last["table"], ("", ""))
        left_no, right_no = seat.numbers.get(last["table"], (None, None))
        sc = scores_of(rnd).get(last["table"])
        left, right = body["left"], body["right"]
        key = (rnd, last["table"], int(last["account"]), last["game"], first["seen"])
        out.append((key, {
            "round": rnd, "table": last["table"], "left_player": left_name,
            "right_player": right_name, "left_tsh": "" if left_no is None else left_no,
            "right_tsh": "" if right_no is None else right_no,
            "left_clock": prof.fmt_time(_signed(left)),
            "right_clock": prof.fmt_time(_signed(right)),
            "left_score": "" if sc is None else sc[0],
            "right_score": "" if sc is None else sc[1],
            "left_penalty": left["penalty"], "right_penalty": right["penalty"],
            "left_adjusted": "" if sc is None else sc[0] - left["penalty"],
            "right_adjusted": "" if sc is None else sc[1] - right["penalty"],
            "forfeit": "left" if left["forfeit"] else "right" if right["forfeit"] else "",
            "bye": "", "left_time": _signed(left),
            "right_time": _signed(right), "left_overtime_ms": left["overtime_ms"],
            "right_overtime_ms": right["overtime_ms"],
            "end_local": time_of_day(first["seen"]), "end_time": first["seen"],
            "clock": body["clock"], "game": last["game"], "account": str(last["account"]),
            "profile": body.get("profile", ""), "end_ms": body["t_ms"]}))
    out.sort(key=lambda x: x[0])
    return [r for _k, r in out]


def plain(name):
    return name


def isolated(name):
    """A name between FSI and PDI (U+2068, U+2069: Unicode's bidi
    isolates): a right-to-left name, or an override in one, never reorders
    the text around it; the desk draws each such span as a <bdi>."""
    return "\u2068" + name + "\u2069"


def missing(folder, rnd, found, warn=_warn, iso=plain):
    """One line per table of round rnd's seating without a result, with
    more than one, or with a result but no scores typed; and per result at
    a table outside the seating (issue 27: never silently missing).  Each
    name in a line is iso(name) (isolated() for the desk)."""
    seat = load_seating(folder, rnd, warn)
    games_at = {}
    for r in found:
        if r["round"] == rnd and not r["bye"]:
            games_at.setdefault(r["table"], []).append(r)
    out = []
    for t in sorted(seat.tables):
        names = "%s \u2013 %s" % tuple(iso(n) for n in seat.tables[t])
        got = games_at.get(t, [])
        if not got:
            out.append("round %d, table %d (%s): no result from its clock yet" % (rnd, t, names))
        elif len(got) > 1:
            out.append("round %d, table %d (%s): %d results (clocks %s): keep one with a "
                       "referee's correction (none goes to TSH until then)"
                       % (rnd, t, names, len(got), ", ".join(r["clock"] for r in got)))
        elif got[0]["left_score"] == "":
            out.append("round %d, table %d (%s): no scores typed yet (hall scores --round %d "
                       "--table %d LEFT RIGHT)" % (rnd, t, names, rnd, t))
    for t in sorted(set(games_at) - set(seat.tables)):
        if seat.tables:
            out.append("round %d, table %d: a result (clock %s) at a table not in the round's "
                       "seating" % (rnd, t, games_at[t][0]["clock"]))
    return out


# OWASP's CSV injection guidance: a cell beginning with one of these is
# read as a formula by Excel and LibreOffice (a name `=HYPERLINK(...)`, the
# clock's free-text profile field): such a text cell gets a leading `'` (the
# spreadsheets' "this is text" mark) and is quoted.  A value the hall writes
# as a number stays one: a score of -50 (an int), the clock's -05:01.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER_TEXT = re.compile(r"-?[0-9]+(?::[0-9]{2})*\Z")


def csv_cell(v):
    """A CSV cell as text a spreadsheet shows and never runs (above)."""
    if isinstance(v, str) and v.startswith(FORMULA_START) and not _NUMBER_TEXT.match(v):
        return "'" + v
    return v


def write_csv(found, out, excel=False):
    """The rows as CSV; excel: UTF-8 with a byte-order mark and `;` between
    cells (what Excel opens with its umlauts and ogoneks right, in the
    locales whose decimal comma makes `;` its list separator).  Every text
    cell quoted and neutralized (csv_cell), numbers bare."""
    if excel:
        out.write("\ufeff")
    end, sep = ("\r\n", ";") if excel else ("\n", ",")
    out.write(sep.join(CSV_FIELDS) + end)
    w = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator=end, delimiter=sep,
                       quoting=csv.QUOTE_NONNUMERIC)
    for r in found:
        w.writerow({k: csv_cell(v) for k, v in r.items()})


BYE_SCORE = 50   # TSH's bye entry: "usually 50" (its documentation; TSO § 6.1.1 a)

# A division's name as TSH takes it in `a ROUND DIVISION` (one word of its
# command line, ASCII: the same bytes in TSH's ISO-8859-1 and UTF-8).
_DIVISION = re.compile(r"[A-Za-z0-9_]{1,32}\Z")


def division(folder, rnd, given=None):
    """The division of round rnd's TSH entry: `given` (--division) if it is
    a plain word, else the .t file's name if that is one (`a.t`: a); a
    TournamentError of one line otherwise (`open a.t` is no division)."""
    if given is not None:
        if not _DIVISION.match(given):
            raise TournamentError("--division %r: TSH takes a division's name as one word "
                                  "(ASCII letters, digits, _; at most 32)" % given[:40])
        return given
    src = load_seating(folder, rnd, lambda m: None).source
    if not src.lower().endswith(".t"):
        raise TournamentError("round %d's seating is not from a TSH .t file: give --division "
                              "NAME (the division's name in TSH's config.tsh)" % rnd)
    if not _DIVISION.match(src[:-2]):
        raise TournamentError("round %d's seating is from %r, whose name is not one word TSH "
                              "takes as a division: give --division NAME (the division's name "
                              "in TSH's config.tsh)" % (rnd, src[:60]))
    return src[:-2]


def tsh_lines(found, rnd, division, bye_score=BYE_SCORE, iso=plain):
    """(lines, problems): round rnd in TSH's score-entry form, for pasting at
    its `tsh>` prompt: `a ROUND DIVISION` (the entry mode), then one game a
    line, `player1 score1 player2 score2` (the TSH numbers and the adjusted
    scores, the player who went first, sitting left, first), one line per
    bye (`player score`), and an empty line (back to the prompt).  A game
    without scores or at a table with more than one result is no line (and
    missing() says so); one without TSH numbers or lost by a forfeit (TSO §
    5.2 c, scored by § 6.1.1, which the director decides) is no line but a
    problem.  No line to enter at all (lines [], one problem) when no game
    of the round has its scores typed."""
    lines = ["a %d %s" % (rnd, division)]
    problems = []
    mine = [r for r in found if r["round"] == rnd]
    at = {}
    for r in mine:
        if not r["bye"]:
            at.setdefault(r["table"], []).append(r)
    for r in mine:
        if r["bye"]:
            if r["left_tsh"] == "":
                problems.append("round %d: the bye of %s has no TSH number: enter it by hand"
                                % (rnd, iso(r["left_player"])))
            else:
                lines.append("%d %d" % (r["left_tsh"], bye_score))
            continue
        where = "round %d, table %d" % (rnd, r["table"])
        if len(at[r["table"]]) > 1 or r["left_score"] == "":
            continue        # (missing() names it)
        if r["left_tsh"] == "" or r["right_tsh"] == "":
            problems.append("%s: no TSH player numbers (not seated from a .t file): not "
                            "exported" % where)
        elif r["forfeit"]:
            problems.append("%s: %s lost by overtime (TSO § 5.2 c): score it by § 6.1.1 and "
                            "enter it by hand" % (where, iso(r[r["forfeit"] + "_player"])
                                                  if r[r["forfeit"] + "_player"] else r["forfeit"]))
        else:
            lines.append("%d %d %d %d" % (r["left_tsh"], r["left_adjusted"], r["right_tsh"],
                                          r["right_adjusted"]))
    if not any(r["left_score"] != "" for rs in at.values() for r in rs):
        return [], ["round %d: no scores typed for any of its games yet (%d with a result): "
                    "nothing to enter in TSH" % (rnd, len(at))]
    lines.append("")
    return lines, problems


def tsh_export(folder, rnd, division_name=None, bye_score=BYE_SCORE, warn=_warn, iso=plain):
    """What `hall results --round N --tsh` and the results desk's TSH view
    give: (lines, messages): the entry block (tsh_lines; [] if nothing to
    enter) and every line the director must read: each table without a
    result or scores, each result outside the seating (missing()), each
    game not exported and why; the one line of a round without scores.
    Raises TournamentError (one line) for a division TSH would not take."""
    div = division(folder, rnd, division_name)
    found = rows(folder, rnd, warn)
    lines, problems = tsh_lines(found, rnd, div, bye_score, iso)
    if not lines:
        return lines, problems
    return lines, missing(folder, rnd, found, lambda m: None, iso) + problems


ROUND_TOPIC = hp.hall_topic("%s", "round")
TABLE_TOPIC = hp.hall_topic("%s", "round", "%d")


def round_games(folder, n, warn=_warn):
    """{table: [[account, clock, game], ...]}: the games of round n (their
    start lines in games.jsonl), at the table of their first press."""
    out = {}
    for s in read_lines(os.path.join(folder, GAMES), _check_start, warn):
        if s["round"] == n:
            out.setdefault(s["table"], []).append([s["account"], s["clock"], s["game"]])
    return out


def messages(folder, event, warn=lambda m: None):
    """{topic: payload} the pages read, retained (issue 27: one message per
    table, so none grows with the hall: 500 tables are 500 small messages):

      scrabble/<event>/round      {"round": 3, "tables": [1, 2, ...],
                                   "byes": ["name", ...]}
      scrabble/<event>/round/<t>  {"round": 3, "left": "name", "right": "name",
                                   "games": [["12", "e661...", 4], ...]}

    one per table of the seating or with a game of the round: the names
    ("" unseated) and the round's games there (account, clock, game number:
    a clock's state of any other game that has begun belongs to an earlier
    round and the pages show nothing of it)."""
    n = current_round(folder, warn)
    seat = load_seating(folder, n, warn)
    games = round_games(folder, n, warn)
    out = {ROUND_TOPIC % event: _dumps({"round": n, "tables": sorted(seat.tables),
                                         "byes": [b for b, _no in seat.byes]})}
    for t in sorted(set(seat.tables) | set(games)):
        left, right = seat.tables.get(t, ("", ""))
        out[TABLE_TOPIC % (event, t)] = _dumps({"round": n, "left": left, "right": right,
                                               "games": games.get(t, [])})
    return out


def _dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


class RoundNews:
    """The recorder's side of messages(): changed() gives the [(topic,
    payload)] to publish (retained) when rounds.jsonl, games.jsonl or the
    round's pairings file changed since the last call: the messages that
    differ from what was published, and b"" for a table published before and
    gone now (its retained message is removed)."""

    def __init__(self, folder, event):
        self.folder = folder
        self.event = event
        self.seen = None
        self.published = {}

    def _stamp(self):
        out = []
        for name in (ROUNDS, GAMES,
                     "pairings-%d.json" % current_round(self.folder, lambda m: None)):
            try:
                st = os.stat(os.path.join(self.folder, name))
                out.append((name, st.st_mtime_ns, st.st_size))
            except OSError:
                out.append((name, None, None))
        return out

    def again(self):
        """Publish everything again (a new connection to the broker)."""
        self.seen = None
        self.published = {t: None for t in self.published}

    def found(self, topic, data):
        """A retained table message the broker holds (from an earlier
        recorder process): True if it is not what this one published, so
        changed() must replace or remove it."""
        if self.published.get(topic) == data:
            return False
        self.published[topic] = data
        self.seen = None
        return True

    def changed(self):
        stamp = self._stamp()
        if stamp == self.seen:
            return []
        self.seen = stamp
        now = messages(self.folder, self.event)
        out = [(t, p) for t, p in now.items() if self.published.get(t) != p]
        out += [(t, b"") for t in self.published if t not in now and self.published[t]]
        self.published.update(out)
        return out


def payload(folder, event="open"):
    """The round's summary message (tests)."""
    return messages(folder, event)[ROUND_TOPIC % event]


# -- the commands (hall/commands/ calls these) ----------------------------------------
def cmd_round(folder, n, out=sys.stdout):
    """`hall round N`: from now on new games are round N."""
    set_round(folder, n)
    seats = seating(folder, n)
    print("round %d from now on: games whose first press comes from now are round %d%s"
          % (n, n, "" if seats else "; no pairings loaded for it yet (hall pairings "
             "--round %d FILE)" % n), file=out)
    return 0


def cmd_pairings(folder, n, path, out=sys.stdout, err=sys.stderr):
    """`hall pairings --round N FILE`: the round's seating from a TSH .t file
    or a table,player1,player2 CSV.  Each malformed line is one line on err;
    the good lines' tables are stored all the same (status 1 then: fix the
    file and load it again, it replaces the round's seating)."""
    from hall import pairings
    try:
        rnd = pairings.read(path, n)
    except OSError as e:
        print("hall: %s: %s" % (path, e.strerror or e), file=err)
        return 2
    except ValueError as e:
        print("hall: %s" % e, file=err)
        return 2
    for p in rnd.problems + rnd.warnings:
        print(p, file=err)
    if not rnd.pairs:
        print("hall: %s: no table of round %d could be read; nothing stored" % (path, n),
              file=err)
        return 2
    os.makedirs(folder, exist_ok=True)
    store_pairings(folder, rnd, path)
    byes = ("; bye: " + ", ".join(rnd.byes)) if rnd.byes else ""
    print("round %d: %d tables from %s%s" % (n, len(rnd.pairs), os.path.basename(path), byes),
          file=out)
    if rnd.problems:
        print("hall: %d line%s above could not be read: fix the file and load it again"
              % (len(rnd.problems), "" if len(rnd.problems) == 1 else "s"), file=err)
        return 1
    return 0
