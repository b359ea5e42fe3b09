"""The recorder never dies silently (issue 29): the hall folder on a real,
small filesystem (a 6 MB tmpfs, mounted for the test: root, as in CI) is
filled up while three simulated clocks (the device app + firmware/net.py)
play against the real Mosquitto and the real recorder.  While the disk is
full no result is confirmed (each stays on its clock and is re-sent), the
recorder says so on stderr and the director's page shows it in red; the
recorder killed meanwhile is started again by the hall's supervisor; once
space returns every game is stored and confirmed by itself, exactly once,
with each clock's own times."""
import json
import os
import pathlib
import shutil
import signal
import tempfile

import pytest

from hallkit import PATIENT_S, csv_rows, hall_cmd, needs_browser, page_until, seed_pki, state_body, until
from hall.supervise import free_port
from hall.folder import Hall
from bench.browser import headless_chromium
from hall import recorder as REC
from hall.rehearsal import clocks as rehearsal
from bench import smalldisk

import net
import outbox

pytestmark = needs_browser

SPEED = 10   # the games end ~10 s after the start: the disk is full by then


@pytest.fixture
def small_disk(tmp_path):
    try:
        with smalldisk.mounted("6m", str(tmp_path / "disk")) as mnt:
            yield pathlib.Path(mnt)
    except smalldisk.NoMount as e:
        pytest.skip(str(e))


def test_a_full_disk_keeps_results_on_the_clocks_says_so_and_resumes(small_disk, tmp_path):
    folder = str(small_disk / "hall")
    h = Hall(folder, event="cup", tables=4, port=free_port(), ws_port=free_port())
    seed_pki(folder)
    h.write()
    err_path = tmp_path / "recorder.err"
    err = open(err_path, "w")
    profile = tempfile.mkdtemp(prefix="hall-chromium-")
    browser = headless_chromium(profile, folder)
    fleet = None
    try:
        h.start_broker()
        h.start_recorder(stderr=err)
        h.start_pages()
        fleet = rehearsal.Fleet(h, 3, speed=SPEED, folder=str(tmp_path / "clocks"))
        browser.get(h.url())
        assert fleet.run(seconds=PATIENT_S, until=lambda: all(
            c.net.st == net.UP and c.rig.ms() > 3000 for c in fleet.clocks))
        db = os.path.join(folder, "mosquitto.db")
        assert until(lambda: os.path.exists(db), lambda ok: ok)   # its first save
        filler = smalldisk.Filler(os.path.join(folder, "filler"))
        # the broker's next save of its database (every second) finds the disk
        # full and leaves its file empty: the space it freed is filled again
        t_full = os.stat(filler.path).st_mtime_ns
        assert until(lambda: os.stat(db).st_mtime_ns > t_full and os.stat(db).st_size == 0,
                     lambda ok: ok)
        assert until(lambda: os.statvfs(folder).f_bfree, lambda n: n == 0) == 0
        assert fleet.finished() == 0, "a game ended before the disk was full"
        # every game ends; no result can be stored: none is confirmed
        assert fleet.run(seconds=PATIENT_S, until=lambda: fleet.finished() == 3)
        t = fleet.clocks[0].rig.ms()
        fleet.run(seconds=PATIENT_S,
                  until=lambda: fleet.clocks[0].rig.ms() > t + 3 * net.RESEND_MS)
        assert all(c.net.q1 and c.net.confirmed == 0 for c in fleet.clocks), \
            [(c.net.note, len(c.net.q1), c.net.confirmed, c.over()) for c in fleet.clocks]
        assert all(os.path.isfile(c.root + outbox.OUTBOX) for c in fleet.clocks)
        assert not REC.read_records(folder, lambda m: None)
        alarm = json.loads(h.collect(REC.ALARM_TOPIC % "cup")[REC.ALARM_TOPIC % "cup"])
        assert "No space left on device" in alarm["writing"] and alarm["waiting"] >= 1, alarm
        shown = page_until(browser, "return document.getElementById('alarmtext').textContent",
                           lambda x: x.startswith("RESULTS ARE NOT BEING STORED"))
        assert shown.startswith("RESULTS ARE NOT BEING STORED: results.jsonl: No space left "
                                "on device"), shown
        # the recorder dies meanwhile: the hall's supervisor starts it again
        h.rec_proc.send_signal(signal.SIGKILL)
        h.rec_proc.wait()
        h.watch(seconds=1.5, say=lambda m: err.write(m + "\n"))
        assert h.rec_proc.poll() is None
        # ... and it too finds the disk full when the clocks send their results again
        assert fleet.run(seconds=PATIENT_S, until=lambda: open(err_path).read().count(
            "recorder: ALARM") >= 2), open(err_path).read()
        # space returns: everything is stored and confirmed, by itself
        filler.remove()
        assert fleet.run(seconds=PATIENT_S,
                         until=lambda: all(not c.net.q1 for c in fleet.clocks)), \
            [(c.net.note, len(c.net.q1), c.net.confirmed, c.over()) for c in fleet.clocks]
        assert all(c.net.confirmed == 1 for c in fleet.clocks)
        shown = page_until(browser, "return document.getElementById('alarm').className",
                           lambda x: x == "alarm")
        assert shown == "alarm"
    finally:
        if fleet is not None:
            fleet.close()
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
        h.stop()
        err.close()
    text = open(err_path).read()
    lines = text.splitlines()
    assert sum("recorder: ALARM: cannot store results (results.jsonl: No space left on "
               "device)" in x for x in lines) == 2, text
    assert "hall: the recorder stopped (exit -9); starting it again" in lines, text
    assert any(x.startswith("recorder: storing again since ") for x in lines), text
    assert "Traceback" not in text, text
    recs = REC.read_records(folder, lambda m: None)
    assert sorted(r["topic"] for r in recs) == ["scrabble/cup/%d/result/1/%d" % (t, t)
                                                for t in (1, 2, 3)]
    rows = csv_rows(hall_cmd(folder, "results", "--csv"))
    assert sorted((r["table"], r["clock"]) for r in rows) == [
        (str(c.table), c.id) for c in fleet.clocks]   # their own ids (issue 37)
    for r in rows:
        c = fleet.clocks[int(r["table"]) - 1]
        assert (int(r["left_time"]), int(r["right_time"])) == tuple(c.rig.clock.rem[:2]), r


def test_the_halls_keys_are_made_on_a_disk_of_its_own(small_disk):
    """A hall folder on a filesystem of its own (a USB stick, a small
    partition): the CA and the broker's key and certificate are made there
    and renamed into place on that filesystem (the work folder was /tmp's,
    and `make bench` failed with "Invalid cross-device link")."""
    from hall import tls as TLS
    folder = str(small_disk / "hall")
    assert TLS.ensure(folder)
    for name in (TLS.CA_KEY, TLS.BROKER_KEY):
        assert os.stat(os.path.join(folder, name)).st_mode & 0o777 == 0o600
    assert TLS.broker_ips(folder) >= {"127.0.0.1"}
    assert not [n for n in os.listdir(folder) if n.startswith(".hall-ca-")]


def test_a_full_disk_under_the_recorders_own_log_is_named_on_the_alarm_topic(small_disk):
    """Issue 35: `hall start` writes the hall's lines (the recorder's too) to
    hall.log in the hall folder: when that disk is full, the recorder once
    died writing its alarm there, and the hall said only "the recorder
    stopped (exit 1)".  Now the recorder lives on (the same process), names
    the full disk on the retained alarm topic (the director's page and `hall
    status` read it from the broker's memory: no disk needed), keeps the
    result unconfirmed, and stores and confirms it once there is space."""
    import hallproto as hp
    from bench import hall_attacks as A
    folder = str(small_disk / "hall")
    h = Hall(folder, event="cup", tables=2, port=free_port(), ws_port=free_port())
    seed_pki(folder)
    h.write()
    log = open(os.path.join(folder, "hall.log"), "a")
    body = state_body(1, 2, t_ms=1000, running=None, over=True, clock="sim001", table=1)
    result = json.dumps(body).encode()
    topic = hp.topic("cup", 1, "result", 1, 1)
    alarm_topic = REC.ALARM_TOPIC % "cup"
    filler = None
    try:
        h.start_broker()
        h.start_recorder(stderr=log)
        pid = h.rec_proc.pid
        c = A._client(h, "1", h.passwords()[1], subscribe=[hp.confirm_topic("cup", "1")])
        filler = smalldisk.Filler(os.path.join(folder, "filler"))
        assert until(lambda: os.statvfs(folder).f_bfree, lambda n: n == 0) == 0
        A._publish(c, hp.topic("cup", "\u00b9", "state", 1), b"{}")      # a refusal: a line
        A._publish(c, topic, result)
        alarm = until(lambda: json.loads(h.collect(alarm_topic).get(alarm_topic, b"{}")),
                      lambda a: a.get("writing"))
        assert "No space left on device" in alarm["writing"] and alarm["waiting"] == 1, alarm
        assert alarm["refused"] == 1, alarm
        assert c.got == [] and h.rec_proc.poll() is None and h.rec_proc.pid == pid
        filler.remove()
        filler = None
        A._publish(c, topic, result)                   # the clock's re-send
        got = until(lambda: list(c.got), lambda g: g)
        assert got == [(hp.confirm_topic("cup", "1"), result)]
        A._close(c)
        alarm = until(lambda: json.loads(h.collect(alarm_topic).get(alarm_topic, b"{}")),
                      lambda a: a.get("writing") is None)
        assert alarm["writing"] is None and h.rec_proc.pid == pid
    finally:
        if filler is not None:
            filler.remove()
        h.stop()
        log.close()
    assert [r["topic"] for r in REC.read_records(folder, lambda m: None)] == [topic]
