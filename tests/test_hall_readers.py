"""Strict readers (issue 19): the recorder and the results CSV key every row
by the topic (its table and the account that published it), refuse a body
that disagrees with its topic or is not a clock's result, and skip each bad
message or line with one warning instead of crashing.  Fuzzed with what a
hostile clock account can send (bench/hall_attacks.hostile_bodies), on
the real Mosquitto and the real recorder process, and on the file."""
import csv
import io
import json
import os
import random
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from hallkit import seed_pki, until
from hall import broker
from hall.supervise import free_port
from hall.folder import Hall
from hall.paths import MQTT_JS
from hall.tournament import rows_from
from bench import hall_attacks as A
from hall import recorder as REC

needs_broker = pytest.mark.skipif(
    broker.find_mosquitto() is None or not os.path.isfile(MQTT_JS),
    reason="mosquitto or the page's mqtt.js missing (make tools-os hall-page)")

GOOD = json.loads(A._result_body(None, 3, "sim003"))


def results_csv(folder):
    proc = subprocess.run([sys.executable, "-m", "hall", "results", "--csv",
                           "--dir", folder], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    return proc, list(csv.DictReader(io.StringIO(proc.stdout)))


def _hall_recorder_to_file(tmp_path):
    """Hall "cup" (4 clock accounts) started, its recorder's stderr in
    tmp_path/recorder.err: (hall, that file)."""
    h = Hall(str(tmp_path / "hall"), event="cup", tables=4, port=free_port(),
               ws_port=free_port())
    seed_pki(h.folder)
    h.write()
    err = open(tmp_path / "recorder.err", "w")
    h.start_broker()
    h.start_recorder(stderr=err)
    return h, err


@needs_broker
def test_recorder_refuses_hostile_results_one_line_each(tmp_path):
    h, err = _hall_recorder_to_file(tmp_path)
    try:
        bodies = A.hostile_bodies(GOOD)
        c = A._client(h, "3", h.passwords()[3],
                      subscribe=[REC.confirm_topic("cup", 3)])
        topic = "scrabble/cup/3/result/1/3"
        for b in bodies:
            A._publish(c, topic, b)
        A._publish(c, "scrabble/cup/3/result/01/3", json.dumps(GOOD).encode())
        A._publish(c, topic, json.dumps(GOOD).encode())           # the real one, last
        end = time.monotonic() + 10
        while not c.got and time.monotonic() < end:
            time.sleep(0.05)
        A._close(c)
        assert h.rec_proc.poll() is None, "the recorder died"
    finally:
        h.stop()
        err.close()
    lines = open(tmp_path / "recorder.err").read().splitlines()
    assert len(lines) == len(bodies) + 1, lines          # one line per bad message
    assert all(x.startswith("recorder: refused ") for x in lines)   # (hallproto.parse)
    # only the valid result was confirmed (its body echoed) and stored
    assert c.got == [(REC.confirm_topic("cup", 3), json.dumps(GOOD).encode())]
    proc, rows = results_csv(h.folder)
    assert proc.returncode == 0 and proc.stderr == ""
    assert [(r["table"], r["account"], r["game"], r["clock"]) for r in rows] == [
        ("3", "3", "1", "sim003")]


@needs_broker
def test_recorder_keeps_a_republish_uncounted_and_refuses_another_clocks_result(tmp_path):
    """issue 29, through the real broker and recorder: clock account 3's
    result, then the same game with other values (stored and confirmed, so
    the clock forgets it, but not counted: one warning naming `hall
    accept`); account 4 publishing a result that names clock sim003 (account
    3's: its first result said so): refused, not confirmed, one warning.
    Both warnings are on the retained alarm topic the page shows."""
    h, err = _hall_recorder_to_file(tmp_path)
    try:
        pw = h.passwords()
        c3 = A._client(h, "3", pw[3], subscribe=[REC.confirm_topic("cup", 3)])
        c4 = A._client(h, "4", pw[4], subscribe=[REC.confirm_topic("cup", 4)])
        first = json.dumps(GOOD).encode()
        again = json.dumps(dict(GOOD, left=dict(GOOD["left"], penalty=-10))).encode()
        other = json.dumps(dict(GOOD, table=4)).encode()
        for n, b in ((1, first), (2, again)):
            A._publish(c3, "scrabble/cup/3/result/1/3", b)
            until(lambda: len(c3.got), lambda k: k >= n)
        A._publish(c4, "scrabble/cup/4/result/1/4", other)
        alarm = until(lambda: json.loads(h.collect(REC.ALARM_TOPIC % "cup").get(
            REC.ALARM_TOPIC % "cup", b'{"events": []}'))["events"], lambda e: len(e) >= 2)
        A._close(c3, c4)
    finally:
        h.stop()
        err.close()
    assert [p for _t, p in c3.got] == [first, again] and c4.got == []
    lines = open(tmp_path / "recorder.err").read().splitlines()
    assert lines == [
        "recorder: table 3 account 3 game 1: a different result for a game already recorded "
        "(a referee's void or resume at the clock, or a forgery): stored, NOT counted; hall "
        "accept --table 3 --account 3 --game 1 takes it",
        "recorder: refused 'scrabble/cup/4/result/1/4': clock sim003 belongs to account 3, "
        "not to account 4"], lines
    assert [e.split(" ", 1)[1] for e in alarm] == [x[len("recorder: "):] for x in lines]
    proc, rows = results_csv(h.folder)
    assert [(r["table"], r["account"], r["left_penalty"]) for r in rows] == [("3", "3", "0")]
    assert proc.stderr.count("\n") == 1 and "NOT counted" in proc.stderr


def _record(topic, body, seen="2026-11-24T18:00:00Z"):
    where = REC.parse_topic("cup", topic)
    return {"topic": topic, "account": where[2] if where else "3",
            "table": where[0] if where else 3, "game": where[1] if where else 1,
            "seen": seen, "result": body}


def test_csv_skips_bad_lines_one_warning_each(tmp_path):
    """The file as a crash, a hand edit or a disk error may leave it: a torn
    line, bodies that disagree with their topic, the issue's `"left": {}`:
    each is one warning line on stderr, the good rows are all there."""
    good3 = _record("scrabble/cup/3/result/1/3", GOOD)
    g4 = dict(GOOD, table=4, clock="sim004")
    good4 = _record("scrabble/cup/4/result/1/4", g4)
    bad = [
        json.dumps(_record("scrabble/cup/3/result/1/3", dict(GOOD, left={}))),
        json.dumps(_record("scrabble/cup/3/result/2/3", GOOD)),    # game disagrees
        json.dumps(dict(good4, account="3")),                       # account disagrees
        json.dumps(_record("scrabble/cup/4/result/1/4", dict(g4, table=5))),
        json.dumps(_record("scrabble/other/4/result/1/4", g4)),
        "[]", "null", '{"topic": 5}',
        json.dumps(good3)[:40],                                     # a torn line
    ]
    folder = tmp_path / "hall"
    folder.mkdir()
    text = "\n".join([json.dumps(good3)] + bad + [json.dumps(good4)]) + "\n"
    (folder / REC.RESULTS).write_text(text)
    proc, rows = results_csv(str(folder))
    assert proc.returncode == 0
    warns = proc.stderr.splitlines()
    assert len(warns) == len(bad), warns
    assert all(w.startswith("hall: results.jsonl:") and "skipped" in w for w in warns)
    assert [(r["table"], r["account"], r["clock"]) for r in rows] == [
        ("3", "3", "sim003"), ("4", "4", "sim004")]


def test_a_republished_result_counts_only_once_the_director_accepts_it(tmp_path):
    """issue 29 ("a referee's correction is a distinct ... act, never a plain
    re-publish"): the same game published again with other values (a
    referee's void at the clock, or anyone with the account's password) is
    one row with the FIRST values and one warning naming `hall accept`;
    `hall accept` (a line of corrections.jsonl, on the hall computer) makes
    the re-published values count, `--first` the first again; the end time
    stays the first."""
    folder = tmp_path / "hall"
    folder.mkdir()
    first = _record("scrabble/cup/3/result/1/3", GOOD, "2026-11-24T18:00:00Z")
    later = _record("scrabble/cup/3/result/1/3",
                    dict(GOOD, left=dict(GOOD["left"], penalty=10)), "2026-11-24T18:05:00Z")
    (folder / REC.RESULTS).write_text(json.dumps(first) + "\n" + json.dumps(later) + "\n")
    proc, rows = results_csv(str(folder))
    assert len(rows) == 1 and rows[0]["left_penalty"] == "0", rows
    warns = proc.stderr.splitlines()
    assert len(warns) == 1 and "NOT counted" in warns[0] and \
        "hall accept --table 3 --account 3 --game 1" in warns[0], warns
    ok = subprocess.run([sys.executable, "-m", "hall", "accept", "--table", "3",
                         "--game", "1", "--dir", str(folder)], cwd=ROOT, capture_output=True,
                        text=True, timeout=60)
    assert ok.returncode == 0 and "counts from now on" in ok.stdout, ok.stderr
    proc, rows = results_csv(str(folder))
    assert proc.stderr == "" and len(rows) == 1 and rows[0]["left_penalty"] == "10"
    assert rows[0]["end_time"] == "2026-11-24T18:00:00Z"
    back = subprocess.run([sys.executable, "-m", "hall", "accept", "--table", "3",
                           "--game", "1", "--first", "--dir", str(folder)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert back.returncode == 0, back.stderr
    proc, rows = results_csv(str(folder))
    assert rows[0]["left_penalty"] == "0"
    nothing = subprocess.run([sys.executable, "-m", "hall", "accept", "--table",
                              "4", "--game", "1", "--dir", str(folder)], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert nothing.returncode == 2 and nothing.stderr.count("\n") == 1, nothing.stderr


def test_journal_starts_a_new_line_after_a_torn_one_and_collapses_copies(tmp_path):
    folder = str(tmp_path)
    with open(os.path.join(folder, REC.RESULTS), "w") as f:
        f.write(json.dumps(_record("scrabble/cup/3/result/1/3", GOOD))[:50])  # torn
    warned = []
    j = REC.Journal(folder)
    g4 = dict(GOOD, table=4)
    assert j.add("scrabble/cup/4/result/1/4", 4, 1, "4", g4) is True
    assert j.add("scrabble/cup/4/result/1/4", 4, 1, "4", g4) is False    # a copy
    j.close()
    recs = REC.read_records(folder, warned.append)
    assert [r["topic"] for r in recs] == ["scrabble/cup/4/result/1/4"]
    assert len(warned) == 1 and "torn" in warned[0]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    REC.Journal(str(fresh)).close()       # the recorder creates it: 0600 (results)
    assert os.stat(fresh / REC.RESULTS).st_mode & 0o777 == 0o600


def test_random_mutations_never_crash_the_readers():
    """2000 random mutations of a valid result: parse_message either accepts
    it (and then result_rows makes a row of it) or gives a reason; never an
    exception."""
    rnd = random.Random(19)
    values = [None, True, False, 0, -1, 1.5, 2 ** 31, "", "x", [], {}, [1], {"a": 1}]
    topic = "scrabble/cup/3/result/1/3"
    accepted = 0
    for _ in range(2000):
        body = json.loads(json.dumps(GOOD))
        for _ in range(rnd.randint(1, 3)):
            target = body if rnd.random() < 0.5 else body.get(rnd.choice(["left", "right"]))
            if not isinstance(target, dict):
                target = body
            key = rnd.choice(sorted(target) + ["extra"])
            if rnd.random() < 0.2:
                target.pop(key, None)
            else:
                target[key] = rnd.choice(values)
        got = REC.parse_message("cup", topic, json.dumps(body).encode())
        if isinstance(got, str):
            continue
        accepted += 1
        rows = rows_from([_record(topic, got[3])])
        assert len(rows) == 1 and rows[0]["account"] == "3"
    assert 0 < accepted < 2000
