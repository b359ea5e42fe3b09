"""A listener on the hall's Wi-Fi (issue 29: "nothing on the air lets anyone
forge, alter or replay a result or impersonate a clock, and no secret
crosses it in clear"): real clock traffic (simulated clocks = the device app
+ firmware/net.py on CPython, and net.py inside the real MicroPython) is
relayed to the real Mosquitto through bench/hall_sniff.py's Relay, which
keeps every byte; then the captured material is tried against the hall.
Without TLS (main before issue 29) every assertion on the capture fails:
the CONNECT carries the password and the results travel as JSON."""
import json
import os
import shutil
import time

import pytest

from hallkit import needs_broker, new_hall, seed_pki
from hall.supervise import free_port
from hall.folder import Hall
from hall.rehearsal import clocks as rehearsal
from bench import hall_sniff as S
from rig import LEFT, RIGHT
from test_micropython import run_micropython

import net

pytestmark = needs_broker

NET_RIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "net_rig.py")
QUICK = [(1500, LEFT, 80), (2500, RIGHT, 80), (3400, LEFT, 80), (4000, rehearsal.END, 0)]
CLOCKS = 3


def through(fleet, port):
    """Every clock of the fleet reaches the broker at `port` (the relay)."""
    for c in fleet.clocks:
        c.cfg["port"] = port
        c.net.port = port


def finals(fleet):
    """{table: (left ms, right ms)} as each clock itself ended its game."""
    return {c.table: (c.rig.clock.rem[0], c.rig.clock.rem[1]) for c in fleet.clocks}


def recorded(hall):
    """{table: (left ms, right ms)} of the recorder's file."""
    return {r["table"]: (r["result"]["left"]["remaining_ms"],
                         r["result"]["right"]["remaining_ms"])
            for r in hall.records(lambda m: None)}


@pytest.fixture(scope="module")
def sniffed(tmp_path_factory):
    """A round of CLOCKS simulated clocks through the relay (every game's
    result recorded), the fleet kept running (connected, idle) for the
    attacks; and net.py inside MicroPython playing a game through a relay
    to a second hall (event "mp", as tests/mp/net_rig.py publishes)."""
    tmp = tmp_path_factory.mktemp("sniff")
    h = new_hall(tmp, tables=4)
    h.start()
    relay = S.Relay(h.port)
    fleet = rehearsal.Fleet(h, CLOCKS, speed=4, scripts={t: QUICK for t in range(1, CLOCKS + 1)})
    through(fleet, relay.port)
    mp = Hall(str(tmp / "mphall"), event="mp", tables=2, port=free_port(),
                ws_port=free_port())
    seed_pki(mp.folder)
    mp_pw = mp.write()[1]
    mp.start()
    mp_relay = S.Relay(mp.port)
    try:
        assert fleet.run(seconds=60), [c.net.note for c in fleet.clocks]
        root = str(tmp / "mpclock") + "/"
        os.mkdir(root)
        shutil.copy(os.path.join(mp.folder, "ca.crt"), root)
        proc = run_micropython([NET_RIG, root, str(mp_relay.port), mp_pw, "heap"], timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        mp_run = json.loads(proc.stdout.strip().splitlines()[-1])
        assert mp_run["connected"] and mp_run["acked"], mp_run
        lock = fleet.background(0.005)
        yield {"hall": h, "relay": relay, "fleet": fleet, "lock": lock, "mp": mp,
               "mp_relay": mp_relay, "mp_run": mp_run,
               "captured": relay.captured() + mp_relay.captured(),
               "secrets": S.secrets_of(h) + S.secrets_of(mp)}
    finally:
        fleet.close()
        relay.close()
        mp_relay.close()
        mp.stop()
        h.stop()


def test_the_capture_is_real_clock_traffic(sniffed):
    """The relay did carry the round: every game's result reached the
    recorder through it, with the clock's own times (the MicroPython
    clock's too), over at least one connection per clock."""
    fleet, h = sniffed["fleet"], sniffed["hall"]
    with sniffed["lock"]:
        assert recorded(h) == finals(fleet)
    assert len(sniffed["captured"]) >= CLOCKS + 1
    mp_rec = {x["topic"]: x["result"] for x in sniffed["mp"].records()}
    r = sniffed["mp_run"]
    res = mp_rec["scrabble/mp/1/result/%d/1" % r["game"]]
    assert [res["left"]["remaining_ms"], res["right"]["remaining_ms"]] == r["rem"]


def test_no_secret_and_no_result_crosses_the_air_in_clear(sniffed):
    """Every byte each way is TLS records (the first a handshake); no
    password (the clocks', the recorder's, the viewer's), no topic, no
    result body, no MQTT CONNECT appears anywhere in the capture."""
    caps = sniffed["captured"]
    assert sniffed["secrets"] and all(len(p) >= 12 for p in sniffed["secrets"])
    for up, down in caps:
        for data in (up, down):
            if not data:
                continue
            recs = S.tls_records(data)
            assert recs is not None and recs[0][0] == 22, data[:16]
            for secret in sniffed["secrets"]:
                assert secret.encode() not in data
            for clear in (b"MQTT", b"scrabble/", b"remaining_ms", b"overtime_ms", b"online",
                          b"hall/recorder", b"profile sdev"):
                assert clear not in data, clear


def test_replayed_frames_neither_connect_nor_change_a_result(sniffed):
    """Each captured connection of a clock sent again to the broker, whole
    and record by record: no MQTT comes back in clear, no connection takes
    any clock's session over (each stays connected, its connects count the
    same), and the recorder's file is byte for byte what it was."""
    h, fleet, lock = sniffed["hall"], sniffed["fleet"], sniffed["lock"]
    before = open(os.path.join(h.folder, "results.jsonl"), "rb").read()
    with lock:
        connects = [c.net.connects for c in fleet.clocks]
    for up, _ in sniffed["relay"].captured()[:CLOCKS + 1]:
        for by_record in (False, True):
            back = S.replay(h.port, up, by_record, wait_s=0.5)
            assert not S.mqtt_in_clear(back)
            assert b"\x20\x02\x00\x00" not in back     # no CONNACK "accepted" in clear
    time.sleep(1.0)
    with lock:
        assert [c.net.connects for c in fleet.clocks] == connects
        assert all(c.net.st == net.UP for c in fleet.clocks), [c.net.note for c in fleet.clocks]
    assert open(os.path.join(h.folder, "results.jsonl"), "rb").read() == before


def test_whatever_the_capture_holds_opens_no_account(sniffed):
    """A sniffer's best guesses (the longest printable runs of the capture)
    tried as the password of every clock account: all refused."""
    h = sniffed["hall"]
    runs = set()
    for up, down in sniffed["captured"]:
        runs |= S.printable_runs(up, 8) | S.printable_runs(down, 8)
    assert not runs & set(sniffed["secrets"])
    guesses = sorted(runs, key=len, reverse=True)[:40]
    assert S.connack(h, "1", h.passwords()[1]) == 0      # (the check itself works)
    for g in guesses:
        for t in range(1, CLOCKS + 1):
            assert S.connack(h, str(t), g) == 5, (t, g)   # "not authorised"


def test_an_altered_frame_is_dropped_and_the_result_arrives_unaltered(tmp_path):
    """One bit flipped in the first encrypted record of a clock's first two
    connections (a man in the middle on the Wi-Fi): the broker drops each
    such connection; the clock connects again and its result is recorded
    with exactly its own times."""
    h = new_hall(tmp_path, tables=2)
    h.start()
    relay = S.Relay(h.port, tamper=True, tamper_conns=2)
    fleet = rehearsal.Fleet(h, 1, speed=4, scripts={1: QUICK})
    through(fleet, relay.port)
    try:
        assert fleet.run(seconds=60), fleet.clocks[0].net.note
        assert relay.tampered == 2
        assert len(relay.captured()) >= 3          # two dropped, then the honest one
        assert fleet.clocks[0].net.connects >= 1
        assert recorded(h) == finals(fleet)
    finally:
        fleet.close()
        relay.close()
        h.stop()


@pytest.mark.parametrize("tls", [True, False], ids=["other-ca", "in-clear"])
def test_a_broker_that_is_not_the_halls_gets_no_password(tmp_path, tls):
    """A laptop in the hall poses as the broker: with a certificate for the
    very name the clocks check but of another CA, or without TLS.  The clock
    (net.py on CPython and inside MicroPython) refuses it: no handshake
    completes, nothing but a TLS ClientHello reaches it, the clock shows
    "no hall" and says why."""
    fake = S.FakeBroker(str(tmp_path / "attacker"), tls=tls)
    h = Hall(str(tmp_path / "hall"), event="mp", tables=2, port=fake.port,
               ws_port=free_port())
    seed_pki(h.folder)
    pw = h.write()
    fleet = rehearsal.Fleet(h, 1, speed=4, scripts={1: []})
    c = fleet.clocks[0]
    try:
        fleet.run(seconds=10, until=lambda: c.net.note != "not connected yet"
                  and fake.got)
        assert c.net.connects == 0 and c.net.st != net.UP
        assert c.net.hall == net.HALL_DOWN
        if tls:   # (in clear the fake just waits: the clock gives up on it)
            assert "certificate" in c.net.note.lower(), c.net.note
    finally:
        fleet.close()
    root = str(tmp_path / "mpclock") + "/"
    os.mkdir(root)
    shutil.copy(os.path.join(h.folder, "ca.crt"), root)
    proc = run_micropython([NET_RIG, root, str(fake.port), pw[1], "refused"], timeout=60)
    fake.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not r["up"] and r["connects"] == 0 and r["hall"] == net.HALL_DOWN, r
    if tls:
        assert "CA" in r["note"] or "certificate" in r["note"].lower(), r
    assert fake.handshakes == 0, fake.failed
    for got in fake.got:
        for p in pw.values():
            assert p.encode() not in got
        assert b"MQTT" not in got
        if got:
            recs = S.tls_records(got)
            assert recs is not None and recs[0][0] == 22, got[:16]
