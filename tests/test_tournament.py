"""Rounds, seating and the results CSV of a round (issue 21;
hall/tournament.py, docs/hall.md "A round").  The files are written as
the hall writes them: results.jsonl by the recorder's Journal
(hall/recorder.py), games.jsonl and rounds.jsonl by
tournament.py."""
import io
import json
import os
import time

import pytest

from hall import pairings
from hall import tournament as T
from hall import recorder as REC
from hall.recorder import Journal

DATA = os.path.join(os.path.dirname(__file__), "data")


def body(clock, table, game, left=(60000, 0, 0), right=(0, 70000, 20), forfeit=None,
         t_ms=200000):
    """A clock's result (firmware/net.py's fields)."""
    def side(v, name):
        rem, over, pen = v
        return {"remaining_ms": rem, "overtime_ms": over, "penalty": pen,
                "flag": rem == 0, "forfeit": forfeit == name}
    return {"profile": "sdev", "t_ms": t_ms, "running": None, "paused": False,
            "over": True, "challenge_ms": 0, "late": None, "left": side(left, "left"),
            "right": side(right, "right"), "clock": clock, "table": table, "game": game}


def state(clock, table, game, running="left", over=False):
    return {"profile": "sdev", "t_ms": 1000, "running": running, "paused": False,
            "over": over, "challenge_ms": 0, "late": None, "clock": clock,
            "table": table, "game": game}


class Hall:
    """What the recorder does with each message (the order it does it in)."""

    def __init__(self, folder):
        self.folder = folder
        self.starts = T.Starts(folder)
        self.journal = Journal(folder)

    def state(self, account, b):
        return self.starts.state(account, b["table"], b)

    def result(self, account, b):
        self.starts.result(account, b["table"], b)
        topic = "scrabble/cup/%d/result/%d/%s" % (b["table"], b["game"], account)
        self.journal.add(topic, b["table"], b["game"], account, b)

    def restart(self):
        self.journal.close()
        self.__init__(self.folder)


@pytest.fixture
def hall(tmp_path):
    h = Hall(str(tmp_path))
    yield h
    h.journal.close()


def csv_rows(folder, rnd=None, warn=None):
    out = io.StringIO()
    T.write_csv(T.rows(folder, rnd, warn or (lambda m: None)), out)
    return out.getvalue().splitlines()


def test_the_round_is_1_until_set_and_each_setting_is_kept(tmp_path):
    folder = str(tmp_path)
    assert T.current_round(folder) == 1
    T.set_round(folder, 2)
    T.set_round(folder, 3)
    assert T.current_round(folder) == 3
    with open(os.path.join(folder, T.ROUNDS)) as f:
        assert [json.loads(x)["round"] for x in f] == [2, 3]
    for bad in (0, -1, 1000, "2", 2.0, None):
        with pytest.raises(T.TournamentError):
            T.set_round(folder, bad)
    # a torn last line (power cut mid-append): one warning, the round before
    with open(os.path.join(folder, T.ROUNDS), "ab") as f:
        f.write(b'{"round": 4, "se')
    warned = []
    assert T.current_round(folder, warned.append) == 3
    assert len(warned) == 1 and "rounds.jsonl:3: skipped" in warned[0]
    T.set_round(folder, 4)                 # a new line after the torn one
    assert T.current_round(folder, lambda m: None) == 4


def test_a_game_belongs_to_the_round_of_its_first_press(hall):
    """Issue 21: every game belongs to the round current when its first
    press was seen, and is never moved by a later round, a hall restart (the
    retained state of a running game comes again) or a clock that restarts
    its game numbers."""
    f = hall.folder
    assert hall.state("7", state("c7", 7, 1, running=None)) is None   # ready: no game
    line = hall.state("7", state("c7", 7, 1))                         # first press
    assert line["round"] == 1 and line["table"] == 7 and line["clock"] == "c7"
    assert hall.state("7", state("c7", 7, 1, running="right")) is None
    T.set_round(f, 2)                          # the director moves on too early
    assert hall.state("7", state("c7", 7, 1)) is None
    hall.restart()                             # the hall computer restarts
    assert hall.state("7", state("c7", 7, 1)) is None   # retained state again
    hall.result("7", body("c7", 7, 1))
    # game 2 of the same clock, in round 2
    hall.state("7", state("c7", 7, 2))
    hall.result("7", body("c7", 7, 2, left=(5000, 0, 0), right=(9000, 0, 0)))
    time.sleep(1.1)  # (the new-game confirmation alone takes 1 s on a clock)
    # the clock's logs are wiped: it counts from game 1 again, in round 3
    T.set_round(f, 3)
    line = hall.state("7", state("c7", 7, 1))
    assert line is not None and line["round"] == 3
    hall.result("7", body("c7", 7, 1, left=(1000, 0, 0), right=(2000, 0, 0)))
    rows = T.rows(f, warn=lambda m: None)
    assert [(r["round"], r["game"], r["left_time"]) for r in rows] == [
        (1, 1, 60000), (2, 2, 5000), (3, 1, 1000)]
    hall.restart()
    assert hall.starts.open == set()
    assert [r["round"] for r in T.rows(f, warn=lambda m: None)] == [1, 2, 3]


def test_a_resumed_game_and_its_final_state_again_are_no_new_game(hall):
    """The referee's `Resume game` after an end: the same game runs on (its
    game time goes on from the result's) and ends again: one game, one row;
    the retained final state coming again after a restart is no game.  The
    second result is a re-publish (issue 29): it counts once the director
    takes it (`hall accept`), and until then it is one warning."""
    hall.state("4", state("c4", 4, 1))
    b = body("c4", 4, 1, t_ms=100000)
    hall.result("4", b)
    T.set_round(hall.folder, 2)
    assert hall.state("4", dict(state("c4", 4, 1), t_ms=100500)) is None   # resumed
    hall.result("4", body("c4", 4, 1, t_ms=150000, left=(7000, 0, 0)))
    hall.restart()
    assert hall.state("4", state("c4", 4, 1, running=None, over=True)) is None
    hall.result("4", body("c4", 4, 1, t_ms=150000, left=(7000, 0, 0)))     # re-sent
    warned = []
    rows = T.rows(hall.folder, warn=warned.append)
    assert [(r["round"], r["left_time"]) for r in rows] == [(1, 60000)]
    assert len(warned) == 1 and "hall accept --table 4 --account 4 --game 1" in warned[0]
    REC.accept(hall.folder, 4, "4", 1, out=io.StringIO())
    rows = T.rows(hall.folder, warn=lambda m: None)
    assert [(r["round"], r["left_time"]) for r in rows] == [(1, 7000)]


def test_a_void_published_again_is_one_row_that_counts_when_accepted(hall):
    """A referee's void after the end (TSO § 5.2 d) publishes the game's
    result again: one row; the new times count once the director accepts
    them (issue 29: a re-publish alone never changes a result), the end
    time stays the first."""
    hall.state("3", state("c3", 3, 1))
    hall.result("3", body("c3", 3, 1, forfeit="right", right=(0, 301000, 50)))
    first = T.rows(hall.folder, warn=lambda m: None)
    hall.result("3", body("c3", 3, 1, right=(1000, 0, 0)))
    rows = T.rows(hall.folder, warn=lambda m: None)
    assert len(rows) == 1 and rows[0]["forfeit"] == "right"
    REC.accept(hall.folder, 3, "3", 1, out=io.StringIO())
    rows = T.rows(hall.folder, warn=lambda m: None)
    assert len(rows) == 1 and rows[0]["forfeit"] == "" and rows[0]["right_time"] == 1000
    assert rows[0]["end_time"] == first[0]["end_time"]


def test_a_result_whose_start_was_not_seen_takes_the_round_at_its_arrival(hall):
    """A clock offline for its whole game: its result is the first the hall
    sees of it; the game belongs to the round current then."""
    T.set_round(hall.folder, 4)
    hall.result("9", body("c9", 9, 5))
    assert [r["round"] for r in T.rows(hall.folder, warn=lambda m: None)] == [4]


def test_the_csv_of_a_round_has_names_times_penalties_and_the_end(hall, tmp_path):
    """Issue 21: `hall results --round N --csv`: round, table, both names,
    each side's overtime, penalty points and forfeit, the end time of day,
    the clock and its game number."""
    f = hall.folder
    rnd = pairings.read(os.path.join(DATA, "open2026.t"), 2)
    T.store_pairings(f, rnd, "open2026.t")
    T.set_round(f, 2)
    hall.state("1", state("c1", 8, 3))
    hall.result("1", body("c1", 8, 3, right=(0, 301000, 60), forfeit="right"))
    hall.state("2", state("c2", 99, 1))              # a table not in the pairings
    hall.result("2", body("c2", 99, 1))
    lines = csv_rows(f, 2)
    assert lines[0] == ",".join(T.CSV_FIELDS)
    left, right = rnd.pairs[8].left, rnd.pairs[8].right
    assert "," in left          # "Last, First": quoted in the CSV
    import csv as csvmod
    got = list(csvmod.DictReader(io.StringIO("\n".join(lines))))
    assert [(g["round"], g["table"]) for g in got] == [("2", "8"), ("2", "99"), ("2", "")]
    # issue 27: the bye is a row (its player, TSH number), after the games
    assert (got[2]["left_player"], got[2]["left_tsh"], got[2]["bye"]) == (
        rnd.byes[0], str(rnd.bye_numbers[0]), "bye")
    assert (got[0]["left_clock"], got[0]["right_clock"]) == ("01:00", "-05:01")
    g = got[0]
    assert (g["left_player"], g["right_player"]) == (left, right)
    assert (g["left_time"], g["right_time"]) == ("60000", "-301000")
    assert (g["right_overtime_ms"], g["right_penalty"], g["forfeit"]) == ("301000", "60", "right")
    assert (g["clock"], g["game"]) == ("c1", "3")
    assert len(g["end_local"]) == 8 and g["end_local"][2] == ":"     # hh:mm:ss
    assert g["end_local"] == T.time_of_day(g["end_time"]) and g["end_time"].endswith("Z")
    assert g["account"] == "1"
    assert got[1]["left_player"] == "" and got[1]["right_player"] == ""
    assert csv_rows(f, 1) == [",".join(T.CSV_FIELDS)]     # nothing in round 1


def test_pairings_reloaded_replace_the_round_and_a_broken_file_is_one_line(tmp_path):
    f = str(tmp_path)
    r = pairings.from_csv(["1,Ann,Bob"], 1)
    T.store_pairings(f, r, "r1.csv")
    assert T.seating(f, 1) == {1: ("Ann", "Bob")}
    r = pairings.from_csv(["1,Cid,Dee", "2,Ann,Bob"], 1)
    T.store_pairings(f, r, "r1.csv")
    assert T.seating(f, 1) == {1: ("Cid", "Dee"), 2: ("Ann", "Bob")}
    with open(T.pairings_path(f, 1), "w") as fh:
        fh.write('{"tables": {"1": ["only one"]}}')
    warned = []
    assert T.seating(f, 1, warned.append) == {} and len(warned) == 1
    assert T.seating(f, 2) == {}


def test_started_is_the_first_press():
    assert not T.started(state("c", 1, 1, running=None))
    assert not T.started(dict(state("c", 1, 1, running="left"), late="left"))  # lateness
    assert T.started(dict(state("c", 1, 1, running=None), paused=True))
    assert T.started(state("c", 1, 1, running=None, over=True))
    assert not T.started("not a dict")


def test_a_result_is_never_dated_before_its_start_line(monkeypatch):
    """Issue 27 (found by tests/test_results_desk.py, 1 run in 5): time.gmtime()
    without an argument reads the kernel's coarse clock, a few ms behind
    time.time(); a result stored right after its start line (a clock's
    first message is its result) got the second before it and round 0.
    Both stamps read one clock."""
    from hall import recorder as REC
    monkeypatch.setattr(time, "time", lambda: 1764000000.9995)
    assert T.utc_now_ms() == "2025-11-24T16:00:00.999Z"
    assert REC.utc_now() == T.utc_now() == "2025-11-24T16:00:00Z"


def test_round_messages_stay_small_at_500_tables(tmp_path):
    """Issues 27 and 29: the round's seating went into one retained message
    that grows with the hall (near the broker's message_size_limit at 500
    tables, 64-character names).  Now one message per table: at 500 tables
    with names of pairings.MAX_NAME characters and three games each, every
    table's message is under 1 KB and the round's own (the table numbers and
    the byes) under 4 KB."""
    folder = str(tmp_path)
    rnd = pairings.Round(1)
    for t in range(1, 501):
        rnd.pairs[t] = pairings.Pair(t, "\u017b" * pairings.MAX_NAME, "W" * pairings.MAX_NAME,
                                     2 * t - 1, 2 * t)
    rnd.byes, rnd.bye_numbers = ["B" * pairings.MAX_NAME], [1001]
    T.store_pairings(folder, rnd, "big.t")
    h = Hall(folder)
    try:
        for t in range(1, 501):
            for g in (1, 2, 3):
                h.state(str(t), state("c%03d-%s" % (t, "f" * 32), t, g))
    finally:
        h.journal.close()
    msgs = T.messages(folder, "cup")
    assert len(msgs) == 501
    tables = {k: v for k, v in msgs.items() if k != T.ROUND_TOPIC % "cup"}
    assert max(len(v) for v in tables.values()) < 1024
    assert len(msgs[T.ROUND_TOPIC % "cup"]) < 4096
    one = json.loads(msgs[T.TABLE_TOPIC % ("cup", 500)])
    assert one["left"] == "\u017b" * 64 and len(one["games"]) == 3


def test_a_csv_cell_beginning_like_a_formula_is_text_and_numbers_stay_numbers():
    """Issue 35, OWASP's CSV injection guidance: every text cell beginning
    with one of T.FORMULA_START (=, +, -, @, tab, CR) gets a leading `'`;
    numbers (ints), the clock's signed mm:ss and plain digits are values and
    stay as they are."""
    assert set(T.FORMULA_START) == {"=", "+", "-", "@", "\t", "\r"}
    for c in T.FORMULA_START:
        assert T.csv_cell(c + "SUM(A1)") == "'" + c + "SUM(A1)"
        assert T.csv_cell(c) == "'" + c
    for v in (-50, 0, 412, "-05:01", "01:00", "12", "", "Kowalski, Jan", " =x"):
        assert T.csv_cell(v) == v
    assert T.csv_cell("-1-1") == "'-1-1" and T.csv_cell("-05:01+1") == "'-05:01+1"
