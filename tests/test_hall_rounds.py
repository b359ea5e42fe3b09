"""A round run from the hall (issue 21), end to end: the real Mosquitto and
recorder (host_sim/hall.py, hall_recorder.py), simulated clocks (the device
app with firmware/net.py), and the director's commands as typed:
`hall pairings --round N FILE`, `hall round N`, `hall results --round N --csv`
(host_sim/tournament.py)."""
import json
import os

import pytest

from conftest import ROOT
from hallkit import csv_rows, hall_cmd, needs_broker, running_hall, seed_pki, until
from host_sim import hall as H
from host_sim import hall_sim
from host_sim import pairings
from host_sim import tournament as T

pytestmark = needs_broker

OPEN = os.path.join(ROOT, "tests", "data", "open2026.t")


@pytest.fixture
def hall(tmp_path):
    with running_hall(tmp_path, tables=12) as h:
        yield h


def cmd(h, *args):
    return hall_cmd(h.folder, *args, event=h.event, port=h.port)


def results(h, rnd):
    return csv_rows(cmd(h, "results", "--round", str(rnd), "--csv"))


def started(h):
    try:
        with open(os.path.join(h.folder, T.GAMES)) as f:
            return [json.loads(x) for x in f if x.strip()]
    except FileNotFoundError:
        return []


def test_a_round_from_pairings_to_the_csv(hall):
    """Issue 21: the round's seating from a TSH file, the games in the round
    current at their first press (not moved by `hall round 2` while they
    run, nor by a hall restart mid-game), and `hall results --round 1 --csv`
    with both names, the times, overtime, penalties, forfeit, the end time
    of day, the clock and its game; the pages get the round and its
    seating retained."""
    proc = cmd(hall, "pairings", OPEN, "--round", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("round 1: 20 tables from open2026.t; bye: ")
    proc = cmd(hall, "round", "1")
    assert proc.returncode == 0 and "round 1 from now on" in proc.stdout, proc.stderr
    seat = pairings.read(OPEN, 1)
    fleet = hall_sim.Fleet(hall, 4, speed=40)
    try:
        assert fleet.run(seconds=30, until=lambda: len(started(hall)) == 4)
        assert cmd(hall, "round", "2").returncode == 0   # too early: games still run
        hall.stop()                                      # ... and the hall restarts
        hall.start()
        assert fleet.run(seconds=90), [c.net.note for c in fleet.clocks]
    finally:
        fleet.close()
    assert [s["round"] for s in started(hall)] == [1, 1, 1, 1]
    rows = results(hall, 1)
    assert [int(r["table"]) for r in rows] == [1, 2, 3, 4]
    for r, c in zip(rows, fleet.clocks):
        p = seat.pairs[c.table]
        assert (r["round"], r["left_player"], r["right_player"]) == ("1", p.left, p.right)
        assert (int(r["left_time"]), int(r["right_time"])) == tuple(c.rig.clock.rem)
        k = c.rig.clock
        assert (int(r["left_penalty"]), int(r["right_penalty"])) == (k.penalty(0), k.penalty(1))
        assert (int(r["left_overtime_ms"]), int(r["right_overtime_ms"])) == (
            k.overtime(0), k.overtime(1))
        assert r["forfeit"] in ("", "left", "right")
        assert (r["clock"], r["game"]) == (c.id, "1")
        assert r["end_local"] == T.time_of_day(r["end_time"])
    assert results(hall, 2) == []
    # the round and its seating for the pages (retained, from the recorder)
    got = H.collect(hall.port, T.ROUND_TOPIC % "cup", folder=hall.folder)
    msg = json.loads(got[T.ROUND_TOPIC % "cup"])
    assert msg == {"round": 2, "tables": {}}
    assert cmd(hall, "pairings", OPEN, "--round", "2").returncode == 0
    msg = until(lambda: json.loads(H.collect(hall.port, T.ROUND_TOPIC % "cup",
                                             folder=hall.folder)[T.ROUND_TOPIC % "cup"]),
                lambda m: m["tables"], seconds=10, every=0)
    two = pairings.read(OPEN, 2)
    assert msg["round"] == 2 and msg["tables"]["5"] == [two.pairs[5].left, two.pairs[5].right]


@pytest.mark.parametrize("args, words", [
    (["round"], "needs the round's number"),
    (["round", "x"], "needs the round's number"),
    (["round", "0"], "1-999"),
    (["pairings", OPEN], "needs --round N"),
    (["pairings", "--round", "0", OPEN], "1-999"),
    (["pairings", "--round", "1", "/nonexistent.t"], "No such file"),
    (["results", "--round", "0", "--csv"], "rounds start at 1"),
])
def test_director_commands_refuse_in_one_line(tmp_path, args, words):
    h = H.Hall(str(tmp_path / "hall"), event="cup", tables=4)
    seed_pki(h.folder)
    h.write()
    open(os.path.join(h.folder, "results.jsonl"), "w").close()
    proc = cmd(h, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr


def test_a_pairings_file_with_broken_lines_stores_the_rest_and_says_so(tmp_path):
    h = H.Hall(str(tmp_path / "hall"), event="cup", tables=4)
    f = tmp_path / "r1.csv"
    f.write_text("table,player1,player2\n1,Ann,Bob\n2,Cid\n3,Dee,Eve\n")
    proc = cmd(h, "pairings", "--round", "1", str(f))
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0].startswith("r1.csv:3: expected table,player1,player2")
    assert "fix the file and load it again" in proc.stderr
    assert T.seating(h.folder, 1) == {1: ("Ann", "Bob"), 3: ("Dee", "Eve")}


def test_both_pages_show_the_names_of_the_round(hall, tmp_path):
    """Issue 21 ("the page shows both names per table"): through the real
    broker, the director's page has a players column from the round's
    seating, and the projector view a card per table with both names and
    the round's progress."""
    import shutil
    import tempfile
    if None in H.browser_tools():
        pytest.skip("chromium / chromium-driver missing (make deps)")
    assert cmd(hall, "pairings", OPEN, "--round", "1").returncode == 0
    seat = pairings.read(OPEN, 1)
    fleet = hall_sim.Fleet(hall, 3, speed=40)
    profile = tempfile.mkdtemp(prefix="hall-chromium-")
    drv = H.headless_chromium(profile, hall.folder)
    try:
        assert fleet.run(seconds=90), [c.net.note for c in fleet.clocks]
        drv.get(hall.url())
        want = {str(t): "%s \u2013 %s" % (seat.pairs[t].left, seat.pairs[t].right)
                for t in (1, 2, 3)}
        got = until(lambda: drv.execute_script(
            "var o = {}; document.querySelectorAll('#rows tr').forEach(function (tr) {"
            " o[tr.dataset.table] = tr.querySelector('.players').textContent; });"
            " return o;"), lambda g: g == want, seconds=20)
        assert got == want
        assert drv.find_element("id", "round").text == "round 1"
        drv.get(hall.url() + "projector.html")
        cards = until(lambda: drv.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#grid .card'),"
            " function (c) { return [c.querySelector('.num').textContent,"
            " c.querySelector('.nl').textContent, c.querySelector('.nr').textContent,"
            " c.className]; });"), lambda c: len(c) == 20 and c[0][1], seconds=20)
        # the round's 20 seated tables: 3 with their clock, finished; 17 without one
        assert [c[0] for c in cards] == [str(t) for t in range(1, 21)]
        for t in (1, 2, 3):
            c = cards[t - 1]
            assert (c[1], c[2]) == (seat.pairs[t].left, seat.pairs[t].right)
            assert "finished" in c[3]
        assert "noclock" in cards[3][3]
        assert drv.find_element("id", "progress").text == "3 of 20 finished"
        assert drv.find_element("id", "conn").text == "live"
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
        fleet.close()
