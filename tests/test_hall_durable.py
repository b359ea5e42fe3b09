"""No result lost, ever (issue 19): the broker (SIGKILL) and the recorder
(SIGKILL) die at random moments through a round of 20 simulated clocks (the
device app + firmware/net.py against the real Mosquitto and the real
recorder process); afterwards every game is in the recorder's file exactly
once and the CSV has each clock's own final times.  Three rounds, three
seeds, each with at least 3 kills of each."""
import csv
import io
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from hallkit import new_hall
from hall import broker
from hall.paths import MQTT_JS
from hall import recorder as REC
from hall.rehearsal import clocks as rehearsal

pytestmark = pytest.mark.skipif(
    broker.find_mosquitto() is None or not os.path.isfile(MQTT_JS),
    reason="mosquitto or the page's mqtt.js missing (make tools-os hall-page)")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_game_exactly_once_through_broker_and_recorder_kills(tmp_path, seed):
    h = new_hall(tmp_path, tables=20)
    h.start()
    try:
        got = rehearsal.chaos_round(h, n=20, seed=seed, speed=10, kills=3)
    finally:
        h.stop()
    assert got["broker_kills"] >= 3 and got["recorder_kills"] >= 3, got
    assert got["finished"] == 20, got
    assert got["unconfirmed"] == 0, "results still waiting on the clocks: %r" % got
    # The file: one line per game, whatever the kills (copies collapsed).
    with open(os.path.join(h.folder, REC.RESULTS), "rb") as f:
        lines = [json.loads(x) for x in f.read().split(b"\n") if x.strip()]
    topics = [x["topic"] for x in lines]
    assert sorted(topics) == sorted("scrabble/cup/%d/result/1/%d" % (t, t)
                                    for t in range(1, 21)), topics
    # The CSV (the real command, reading the file with the broker stopped).
    proc = subprocess.run(
        [sys.executable, "-m", "hall", "results", "--csv", "--dir", h.folder],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == 20
    for r in rows:
        t = int(r["table"])
        left, right, clock_id = got["finals"][t]
        assert (r["account"], r["game"], r["clock"]) == (str(t), "1", clock_id)
        assert (int(r["left_time"]), int(r["right_time"])) == (left, right), r


def test_the_running_hall_restarts_a_dead_recorder(tmp_path, capfd):
    import signal
    h = new_hall(tmp_path, tables=2)
    h.start()
    try:
        old = h.rec_proc
        old.send_signal(signal.SIGKILL)
        old.wait()
        h.watch(seconds=1.5)
        assert h.rec_proc is not old and h.rec_proc.poll() is None
        err = capfd.readouterr().err
        assert err.count("hall: the recorder stopped (exit -9); starting it again\n") == 1
    finally:
        h.stop()
