"""The tournament hall (issue 14) against the real Mosquitto on a free
loopback port: simulated clocks are the real device app on fake hardware with
the real firmware/net.py publisher over CPython sockets.

Each test cites the issue's point ("issue 14, 6" = What to build, point 6).
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from hallkit import PATIENT_S, csv_rows, hall_cmd, needs_broker, pki_dir, running_hall, until
from hall import accounts
from hall import clients
from hall import supervise
from hall.supervise import free_port
from hall import tls as TLS
from hall.rehearsal import clocks as rehearsal
from host_sim import replay

import net
import netcfg
import outbox as outboxmod

CA = open(os.path.join(pki_dir(), TLS.CA_CERT)).read()   # a hall CA (PEM)

pytestmark = needs_broker

SPEED = 40  # virtual ms per real ms: a 1-minute game takes ~3 s


@pytest.fixture
def hall(tmp_path):
    with running_hall(tmp_path, tables=12) as h:
        yield h


def results_csv(h):
    """The real command: python -m hall results --csv."""
    return csv_rows(hall_cmd(h.folder, "results", "--csv", event=h.event, port=h.port))


def final(c):
    """What the clock itself shows at the end: (left ms, right ms), signed."""
    r = c.rig.clock.rem
    return (r[0], r[1])


def check_rows(rows, fleet):
    """One row per game, each the clock's own final times to the ms (issue 14, 5)."""
    assert len(rows) == len(fleet.clocks), rows
    keys = [(r["table"], r["clock"], r["game"]) for r in rows]
    assert len(set(keys)) == len(keys), "a result twice in the CSV"
    by_table = {int(r["table"]): r for r in rows}
    for c in fleet.clocks:
        r = by_table[c.table]
        assert r["clock"] == c.id
        assert (int(r["left_time"]), int(r["right_time"])) == final(c), c.table
        k = c.rig.clock
        assert int(r["left_penalty"]) == k.penalty(0)
        assert int(r["right_penalty"]) == k.penalty(1)
        assert int(r["left_overtime_ms"]) == k.overtime(0)
        assert int(r["end_ms"]) > 0
        # end_time: when the hall (its recorder) first had the result, UTC
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", r["end_time"]), r


def test_every_clock_state_reaches_the_subscriber_and_results_csv(hall):
    """issue 14, 2 + 5 + 6: each clock's retained state, status and log reach a
    subscriber; the CSV has every finished game with the clock's own times."""
    fleet = rehearsal.Fleet(hall, 8, speed=SPEED)
    try:
        assert fleet.run(seconds=PATIENT_S), [c.net.note for c in fleet.clocks]
        msgs = hall.collect("scrabble/cup/#")
        for c in fleet.clocks:
            p = "scrabble/cup/%d/" % c.table
            st = json.loads(msgs[p + "state/%d" % c.table])
            assert st["over"] and st["clock"] == c.id and st["table"] == c.table
            assert (st["left"]["remaining_ms"], st["right"]["remaining_ms"]) == (
                c.rig.clock.remaining(0), c.rig.clock.remaining(1))
            assert msgs[p + "status/%d" % c.table] == b"online"
            log = msgs[p + "log/1/%d" % c.table].decode()
            assert log.startswith("profile sdev") and " end " in log.replace("\n", " \n ")
            # The published fields are the replay report's (minus lcd) of the
            # published log: net.py and host_sim/replay.py agree.
            clock, at = replay.run(replay.parse(log.split("\n")))
            want = replay.report(clock, at)
            del want["lcd"]
            assert st["lowbat"] is False          # (the battery: issue 21's projector)
            assert st["selftest"] is None         # (no self-test run: issue 37)
            got = {k: v for k, v in st.items()
                   if k not in ("clock", "table", "game", "lowbat", "selftest")}
            assert got == want
        check_rows(results_csv(hall), fleet)
    finally:
        fleet.close()


def test_results_survive_a_broker_restart_mid_round(hall):
    """issue 14, 2 + 6: results are retained, QoS 1 and re-sent until PUBACK:
    stop the broker while games end, start it again: none lost, none twice."""
    fleet = rehearsal.Fleet(hall, 8, speed=SPEED)
    try:
        assert fleet.run(seconds=PATIENT_S, until=lambda: fleet.finished() >= 2)
        done_before = fleet.finished()
        hall.stop()
        fleet.run(seconds=PATIENT_S, until=lambda: fleet.finished() >= done_before + 2)
        assert fleet.finished() > done_before, "games ended while the broker was down"
        assert any(c.net.q1 for c in fleet.clocks), "results wait for the broker"
        hall.start()
        assert fleet.run(seconds=PATIENT_S), [c.net.note for c in fleet.clocks]
        # (a clock idle since its result was confirmed may still be in its
        # back-off, up to 30 s of its time: it reconnects when that ends)
        fleet.run(seconds=PATIENT_S, until=lambda: all(c.net.connects >= 2 for c in fleet.clocks))
        assert all(c.net.connects >= 2 for c in fleet.clocks)
        rows = results_csv(hall)
        check_rows(rows, fleet)
    finally:
        fleet.close()


def test_wifi_down_for_a_minute_catches_up_and_keeps_time(hall):
    """issue 14, 3 + 6: two clocks play the same game; one loses its Wi-Fi for
    a minute mid-game.  Its times stay the same to the ms, and once back it
    publishes its state and result."""
    script = rehearsal.plan(7, 60)
    fleet = rehearsal.Fleet(hall, 2, speed=SPEED, scripts={1: script, 2: script})
    a, b = fleet.clocks
    try:
        fleet.run(seconds=PATIENT_S, until=lambda: b.rig.ms() >= 20000)
        assert b.net.st == net.UP
        b.link.up = False
        start = b.rig.ms()
        fleet.run(seconds=PATIENT_S, until=lambda: b.rig.ms() >= start + 60000)
        assert b.net.st != net.UP, b.net.note
        b.link.up = True
        assert fleet.run(seconds=PATIENT_S), [c.net.note for c in fleet.clocks]
        assert final(a) == final(b)
        assert b.net.connects >= 2
        msgs = {r["topic"]: r["result"] for r in hall.records()}
        ra = msgs["scrabble/cup/1/result/1/1"]
        rb = msgs["scrabble/cup/2/result/1/2"]
        for k in ("left", "right", "t_ms"):
            assert ra[k] == rb[k], k
    finally:
        fleet.close()


class _Recorder:
    def __init__(self, hall, topic):
        self.got = []
        self.c = clients.viewer_client(hall.port, folder=hall.folder)
        self.c.on_message = lambda c, u, m: self.got.append((m.topic, m.payload))
        self.c.subscribe(topic)
        self.c.loop_start()

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


def _publisher(hall, user, password):
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, password)
    TLS.paho_tls(c, hall.folder)
    rc = []
    c.on_connect = lambda c, u, f, r, p=None: rc.append(r)
    c.connect("127.0.0.1", hall.port)
    c.loop_start()
    end = time.monotonic() + 5
    while not rc and time.monotonic() < end:
        time.sleep(0.02)
    return c, rc


def test_wrong_password_and_other_tables_topic_are_refused(hall):
    """issue 14, 1 + 6: one account per clock: a wrong password is refused at
    CONNECT; a clock cannot publish another table's clock's topics (nor
    another clock's at its own table, nor in another event), and the page's
    account cannot publish at all."""
    pw = hall.passwords()
    rec = _Recorder(hall, "scrabble/cup/#")
    try:
        c, rc = _publisher(hall, "3", "not-the-password")
        assert rc and rc[0].is_failure, rc
        c.loop_stop()

        c, rc = _publisher(hall, "3", pw[3])
        assert rc and not rc[0].is_failure
        # another clock's topics, at its table or at this clock's own
        c.publish("scrabble/cup/4/state/4", b"forged", qos=1).wait_for_publish(PATIENT_S)
        c.publish("scrabble/cup/3/state/4", b"forged", qos=1).wait_for_publish(PATIENT_S)
        c.publish("scrabble/cup/4/result/1/4", b"forged", qos=1).wait_for_publish(PATIENT_S)
        c.publish("scrabble/other/3/state/3", b"forged", qos=1).wait_for_publish(PATIENT_S)
        c.publish("scrabble/cup/3/state/3", b"own", qos=1).wait_for_publish(PATIENT_S)
        c.loop_stop()
        c.disconnect()
        v, rc = _publisher(hall, accounts.VIEWER, hall.viewer_password())
        v.publish("scrabble/cup/5/state/5", b"viewer", qos=1).wait_for_publish(PATIENT_S)
        v.loop_stop()
        v.disconnect()
        payloads = until(lambda: [p for t, p in rec.got], lambda g: b"own" in g)
        assert b"own" in payloads, "control: the clock's own table gets through"
        assert b"forged" not in payloads and b"viewer" not in payloads
    finally:
        rec.close()

    # The firmware's publisher with a wrong password: refused, says so, backs off.
    fleet = rehearsal.Fleet(hall, 1, speed=SPEED)
    try:
        c = fleet.clocks[0]
        c.net.password = "wrong"
        fleet.run(seconds=PATIENT_S, until=lambda: "refused" in c.net.note)
        assert c.net.note == "broker refused: not authorised", c.net.note
        assert c.net.st == net.IDLE and c.net.connects == 0
    finally:
        fleet.close()


def _cfg(**kw):
    """A net.json that check_config accepts, with `kw` changed (None: left out)."""
    c = {"host": "10.0.0.2", "port": 8883, "event": "cup", "table": 3, "password": "x",
         "ca": CA}
    c.update(kw)
    return {k: v for k, v in c.items() if v is not None}


@pytest.mark.parametrize("cfg, word", [
    (_cfg(table=None), "table"),
    (_cfg(table=0), "table"),
    (_cfg(port=99999), "port"),
    (_cfg(event="a/b"), "event"),
    ([], "object"),
    # issue 19: a host name would need a DNS lookup, which blocks the clock's loop
    (_cfg(host="hall.local"), "IP address"),
    (_cfg(host="192.168.1.256"), "IP address"),
    (_cfg(host="10.0.0"), "IP address"),
    (_cfg(client_id="a b"), "client_id"),
    # issue 29: the clock speaks only TLS, pinning the hall's CA
    (_cfg(ca=None), "'ca'"),
    (_cfg(ca="not a certificate"), "CA certificate"),
    (_cfg(ca=CA * 4), "CA certificate"),
])
def test_bad_net_json_is_one_clear_line(cfg, word):
    """Bad input gets one clear line (common rules): check_config names the key."""
    msg = netcfg.check_config(cfg)
    assert msg and msg.startswith("net.json: ") and word in msg and "\n" not in msg


def test_clock_config_is_a_valid_net_json(hall):
    """`hall clock-config --table n` writes what firmware/net.py accepts."""
    proc = hall_cmd(hall.folder, "clock-config", "--tables", "12", "--table", "12",
                    "--host", "192.168.1.10", "--ssid", "Hall", event="cup", port=hall.port)
    assert proc.returncode == 0, proc.stderr
    cfg = json.loads(proc.stdout)
    assert netcfg.check_config(cfg) is None
    assert cfg["table"] == 12 and cfg["password"] == hall.passwords()[12]
    bad = hall_cmd(hall.folder, "clock-config", "--tables", "12", "--table", "40",
                   "--host", "10.0.0.1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "table 40" in bad.stderr
    named = hall_cmd(hall.folder, "clock-config", "--tables", "12", "--table", "3",
                     "--host", "hall.local")
    assert named.returncode == 2 and named.stdout == "" and named.stderr.count("\n") == 1
    assert "IP address" in named.stderr and "DNS" in named.stderr
    # --out (make deploy): the net.json, created 0600 (its password, issue 19)
    out = os.path.join(hall.folder, "net-12.json")
    made = hall_cmd(hall.folder, "clock-config", "--tables", "12", "--table", "12",
                    "--host", "192.168.1.10", "--out", out, event="cup")
    assert made.returncode == 0 and made.stdout == "", made.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600
    assert netcfg.check_config(json.load(open(out))) is None
    # Each clock's client id is its own secret (issue 19: not guessable).
    assert re.match(r"^c12-[0-9a-f]{16}$", cfg["client_id"])
    nohost = hall_cmd(hall.folder, "clock-config", "--tables", "12", "--table", "3")
    assert nohost.returncode == 2 and nohost.stderr.count("\n") == 1 and "--host" in nohost.stderr


def test_last_will_marks_a_vanished_clock_offline(hall):
    """issue 14, 2: the last will: a clock that drops off without a word is
    `offline` (retained), and `online` again when it is back."""
    fleet = rehearsal.Fleet(hall, 1, speed=SPEED)
    c = fleet.clocks[0]
    try:
        fleet.run(seconds=PATIENT_S, until=lambda: c.net.st == net.UP and not c.net.dirty)
        topic = "scrabble/cup/1/status/1"
        assert hall.collect(topic)[topic] == b"online"
        c.link.up = False
        c.net.wire.sock.s.shutdown(2)  # the radio is gone: no DISCONNECT goes out
        fleet.run(seconds=PATIENT_S, until=lambda: c.net.st != net.UP)
        assert until(lambda: hall.collect(topic).get(topic), lambda v: v == b"offline") \
            == b"offline"
        c.link.up = True
        fleet.run(seconds=PATIENT_S, until=lambda: c.net.st == net.UP and not c.net.online_due)
        assert until(lambda: hall.collect(topic).get(topic), lambda v: v == b"online") \
            == b"online"
    finally:
        fleet.close()


def _wifi_board():
    from host_sim.sim import load_board
    b = load_board("sim")
    b.WIFI = True
    return b


def test_app_starts_net_only_with_wifi_and_a_good_net_json(tmp_path, capsys):
    """issue 14, 2: the app builds its publisher only on a board with Wi-Fi and
    a net.json; a bad net.json is one line and the clock plays on."""
    from rig import Rig
    root = str(tmp_path) + "/"
    assert Rig(rehearsal.load_board("sim"), root).app.net is None  # no WIFI
    assert Rig(_wifi_board(), root).app.net is None               # no net.json
    (tmp_path / "net.json").write_text(json.dumps({"host": "10.0.0.2", "port": 1883,
                                                   "event": "cup", "table": 12,
                                                   "password": "pw", "ca": CA}))
    app = Rig(_wifi_board(), root).app
    assert app.net is not None and app.net.msg.prefix == "scrabble/cup/12/"
    assert app.net.link is None  # no ssid: a wired (or unix-port) clock
    (tmp_path / "net.json").write_text('{"host": "10.0.0.2", "port": 1883}')
    capsys.readouterr()
    rig = Rig(_wifi_board(), root)
    assert rig.app.net is None
    out = capsys.readouterr().out
    assert out == "net.json: missing 'event'; the clock stays off the network\n"
    rig.run(2000)
    rig.press(0)
    assert rig.clock.running() == 1  # it still plays


def test_hall_command_runs_clocks_and_results_come_from_the_recorders_file(tmp_path):
    """issue 14, 1 + 6; issue 19 ("the CSV reads the recorder's file, not the
    broker's memory"): `python -m hall --clocks N` starts Mosquitto
    and the recorder and plays N whole games; `hall results` after the hall
    stopped (no broker) has every game; a folder without results is one line."""
    port, ws, page = free_port(), free_port(), free_port()
    proc = hall_cmd(str(tmp_path / "h"), "--tables", "3", "--clocks", "3",
                    "--speed", str(SPEED), "--seconds", "12", "--ws-port", str(ws),
                    "--page-port", str(page), port=port)
    assert proc.returncode == 0, proc.stderr
    assert "the director's page at https://127.0.0.1:%d/" % page in proc.stdout
    assert "round 1: all 3 simulated games are over" in proc.stdout
    assert "the results desk" in proc.stdout or "no results desk" in proc.stderr   # issue 27
    # issue 27: Mosquitto's own start-up lines go to its log file, not the terminal
    assert "mosquitto" not in proc.stderr.lower() and "warning" not in proc.stderr.lower(), \
        proc.stderr
    assert os.path.isfile(tmp_path / "h" / "mosquitto.log")
    assert os.stat(tmp_path / "h" / "clocks.json").st_mode & 0o077 == 0
    ok = hall_cmd(str(tmp_path / "h"), "results", "--csv", port=port)
    assert ok.stderr == ""
    rows = csv_rows(ok)
    assert sorted((r["table"], r["account"], r["game"]) for r in rows) == [
        ("1", "1", "1"), ("2", "2", "1"), ("3", "3", "1")]
    bad = hall_cmd(str(tmp_path / "empty"), "results", "--csv")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("hall: no results in ") and bad.stderr.count("\n") == 1


def _settings_table(c, table):
    """The referee sets the table in the setup menu (the menu's own code:
    settings.table, then leaving the menu)."""
    app = c.rig.app
    app.settings.table = table
    app.leave_setup(c.rig.now)


def test_menu_table_wins_and_renumbering_leaves_no_ghost(hall):
    """issue 14, 2 ("the table number ... from the setup menu"), docs/hall.md
    "Which table": the menu's non-zero table wins over net.json's from the
    next game on; the clock reconnects under it (its last will with it),
    publishes there with its own account, and empties its retained state and
    status under the old table, so the page shows no ghost."""
    fleet = rehearsal.Fleet(hall, 1, speed=SPEED, scripts={1: []})
    c = fleet.clocks[0]
    n = c.net
    try:
        assert fleet.run(seconds=PATIENT_S, until=lambda: n.st == net.UP and not n.dirty
                         and not n.wire.busy())
        msgs = until(lambda: hall.collect("scrabble/cup/#"),     # the broker has them
                     lambda m: "scrabble/cup/1/state/1" in m and "scrabble/cup/1/status/1" in m)
        assert json.loads(msgs["scrabble/cup/1/state/1"])["table"] == 1
        assert msgs["scrabble/cup/1/status/1"] == b"online"
        connects = n.connects
        _settings_table(c, 7)
        assert n.msg.table == 7 and c.rig.app.log_table() == 7
        assert fleet.run(seconds=PATIENT_S, until=lambda: n.connects > connects and not n.q1
                         and not n.dirty and not n.wire.busy())
        msgs = until(lambda: hall.collect("scrabble/cup/#"),
                     lambda m: not [t for t in m if t.startswith("scrabble/cup/1/")]
                     and "scrabble/cup/7/status/1" in m and "scrabble/cup/7/state/1" in m)
        assert not [t for t in msgs if t.startswith("scrabble/cup/1/")], msgs
        st = json.loads(msgs["scrabble/cup/7/state/1"])
        assert st["table"] == 7 and st["clock"] == c.id
        assert msgs["scrabble/cup/7/status/1"] == b"online"
        # The next game's log header and result carry the new table.
        c.rig.press(rehearsal.LEFT)
        app = c.rig.app
        assert " table 7\n" in app.log.read(app.log.number)
        # Back to 0 in the menu: net.json's table again.
        _settings_table(c, 0)
        assert n.msg.table == 1
    finally:
        fleet.close()


def _freeze(hall, on):
    """The broker stops answering (SIGSTOP) or goes on (SIGCONT): what the
    clock wrote meanwhile waits in the broker's socket buffer."""
    import signal
    hall.proc.send_signal(signal.SIGSTOP if on else signal.SIGCONT)


@pytest.mark.parametrize("cut", ["after_publish", "broker_down"])
def test_unacknowledged_result_survives_a_power_cut(hall, cut):
    """issue 14, 2 ("the final result (retained, QoS 1, sent again until
    acknowledged)"): a result the broker has not acknowledged when the power
    is cut is kept on flash (net.out) and sent again after the boot; the CSV
    has it exactly once.  after_publish: the result went out, the PUBACK did
    not come back (the broker frozen); broker_down: it never left the clock."""
    fleet = rehearsal.Fleet(hall, 1, speed=SPEED)
    c = fleet.clocks[0]
    outbox = c.root + outboxmod.OUTBOX
    try:
        # Up to just before the end gesture's confirmation.
        end = c.script[-1][0]
        fleet.run(seconds=PATIENT_S, until=lambda: c.rig.ms() >= end - 3000)
        assert c.net.st == net.UP and not c.rig.app.clock.state == 3
        if cut == "after_publish":
            _freeze(hall, True)
        else:
            hall.stop()
        fleet.run(seconds=PATIENT_S, until=lambda: c.over())
        assert fleet.run(seconds=PATIENT_S, until=lambda: any(m.sent for m in c.net.q1)
                         if cut == "after_publish" else c.net.st == net.IDLE)
        assert c.net.q1, "the result waits for its PUBACK"
        assert os.path.isfile(outbox)
        with open(outbox) as f:
            kept = f.read()
        assert kept.startswith("R scrabble/cup/1/result/1/1 {"), kept
        times = final(c)
        c.power_cut()
        assert [m.line[0] for m in c.net.q1] == ["R", "L"], "queued again from flash"
        if cut == "after_publish":
            _freeze(hall, False)
        else:
            hall.start()
        assert fleet.run(seconds=PATIENT_S), c.net.note
        assert not os.path.exists(outbox), "removed once acknowledged"
        assert final(c) == times  # the restored game is the same game
        rows = results_csv(hall)
        check_rows(rows, fleet)  # one row, the clock's own times
        assert len(rows) == 1
        msgs = hall.collect("scrabble/cup/1/log/+/+")
        assert msgs["scrabble/cup/1/log/1/1"].startswith(b"profile sdev")
    finally:
        if cut == "after_publish" and hall.proc is not None:
            _freeze(hall, False)
        fleet.close()


def test_a_result_stays_on_flash_until_the_recorder_confirms_it(hall):
    """issue 19 ("a clock keeps each result until it knows the hall has it on
    disk"): with the recorder down, the broker's PUBACK does not take the
    result off the clock's queue or net.out; it is sent again every
    net.RESEND_MS; once the recorder runs it stores it once, echoes it, and
    the clock forgets it."""
    hall.stop_recorder()
    fleet = rehearsal.Fleet(hall, 1, speed=SPEED)
    c = fleet.clocks[0]
    n = c.net
    outbox = c.root + outboxmod.OUTBOX
    try:
        assert fleet.run(seconds=PATIENT_S, until=lambda: c.over() and any(m.acked for m in n.q1))
        result = [m for m in n.q1 if m.echo is not None]
        assert len(result) == 1 and result[0].acked, "acknowledged by the broker, kept"
        with open(outbox) as f:
            assert f.read().startswith("R scrabble/cup/1/result/1/1 {")
        sent = n.published
        start = c.rig.ms()
        fleet.run(seconds=PATIENT_S, until=lambda: c.rig.ms() > start + 3 * net.RESEND_MS)
        assert n.published >= sent + 2, "re-sent while unconfirmed"
        assert n.q1 and os.path.isfile(outbox) and n.confirmed == 0
        hall.start_recorder()
        assert fleet.run(seconds=PATIENT_S, until=lambda: not n.q1)
        assert n.confirmed == 1 and not os.path.exists(outbox)
        recs = hall.records()
        assert [r["topic"] for r in recs] == ["scrabble/cup/1/result/1/1"]
        assert recs[0]["result"] == json.loads(result[0].echo)
    finally:
        fleet.close()


def test_the_brokers_own_lines_go_to_its_log_file_not_the_terminal(tmp_path):
    """Issue 27: Mosquitto's raw start-up warnings ("should not be run as
    root" ...) reached the director's terminal.  The running hall's broker
    writes to <hall>/mosquitto.log (its stderr is that file); the start-up
    line names it."""
    folder = tmp_path / "h"
    port, ws = free_port(), free_port()
    p = subprocess.Popen([sys.executable, "-m", "hall", "--dir", str(folder),
                          "--tables", "2", "--port", str(port), "--ws-port", str(ws),
                          "--seconds", "6"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        # (hall.pid names each process with its identity, issue 29)
        info = until(lambda: supervise.read_pidfile(str(folder)) or {}, lambda d: d.get("broker"),
                     every=0.1)
        pid = info["broker"]["pid"]
        assert os.readlink("/proc/%d/fd/2" % pid) == str(folder / "mosquitto.log")
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "the broker's own log: %s" % (folder / "mosquitto.log") in out
    assert "mosquitto" not in err.lower(), err
