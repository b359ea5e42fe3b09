"""firmware/net.py inside the real MicroPython (unix port) against the real
Mosquitto (issue 14, point 3): the main loop allocates nothing while nothing
is published, and a whole game's state, result and log reach the broker."""
import json
import os
import shutil

import pytest

from hall import broker
from hall.supervise import free_port
from hall.folder import Hall
from hall.paths import MQTT_JS
from hallkit import seed_pki
from test_micropython import run_micropython

pytestmark = pytest.mark.skipif(
    broker.find_mosquitto() is None or not os.path.isfile(MQTT_JS),
    reason="mosquitto missing: `make test` installs it (make tools-os hall-page)")

NET_RIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "net_rig.py")


def mp_hall(tmp_path):
    """Hall "mp" (two tables) on free ports, written; (hall, the clocks' password)."""
    h = Hall(str(tmp_path / "hall"), event="mp", tables=2, port=free_port(),
               ws_port=free_port())
    seed_pki(h.folder)
    return h, h.write()[1]


def rig(tmp_path, h, password, scenario, *args):
    """tests/mp/net_rig.py `scenario` inside MicroPython against hall h: its
    JSON line of figures."""
    root = str(tmp_path / ("clock" + "".join(args))) + "/"
    os.mkdir(root)
    shutil.copy(os.path.join(h.folder, "ca.crt"), root)   # TLS (issue 29)
    proc = run_micropython([NET_RIG, root, str(h.port), password, scenario] + list(args),
                           timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_no_heap_per_iteration_and_the_game_reaches_the_broker(tmp_path):
    h, pw = mp_hall(tmp_path)
    h.start()
    try:
        r = rig(tmp_path, h, pw, "heap")
        assert r["connected"], r["note"]
        # The loop's budget (issue 14, 3): 0 bytes per iteration, connected,
        # in ready and in a running game between heartbeats.
        assert r["ready_bytes_per_iter"] == 0, r
        assert r["running_bytes_per_iter"] == 0, r
        assert r["messages"] == 21  # one state message per call: 20 measured + the warm-up
        # SPEC §6 (no garbage collection in a game): the state a press
        # publishes, a heartbeat and a ping with its reply allocate nothing
        # either, over TLS (firmware/hallmsg.py writes them in place)
        assert r["bytes_per_state_message"] == 0, r
        assert r["heartbeats"] == 11 and r["bytes_per_heartbeat"] == 0, r
        assert r["bytes_per_ping"] == 0 and r["note_after_pings"] == "connected", r
        assert r["over"] and r["acked"], r
        msgs = h.collect("scrabble/mp/1/#")
        # the result reached the recorder's file (it confirmed it: "acked")
        res = {x["topic"]: x["result"] for x in h.records()}[
            "scrabble/mp/1/result/%d/1" % r["game"]]
        assert [res["left"]["remaining_ms"], res["right"]["remaining_ms"]] == r["rem"]
        assert res["over"] and res["clock"] == "mp001" and res["table"] == 1
        assert msgs["scrabble/mp/1/log/%d/1" % r["game"]].startswith(b"profile sdev")
    finally:
        h.stop()


def test_no_heap_per_iteration_while_a_result_waits_for_its_confirmation(tmp_path):
    """issue 19: with no recorder running, the result the broker acknowledged
    stays queued; the loop allocates nothing while it waits, and re-sends it
    (net.RESEND_MS) without dropping it."""
    h, pw = mp_hall(tmp_path)
    h.start_broker()              # no recorder: nobody confirms
    try:
        r = rig(tmp_path, h, pw, "waiting")
        assert r["connected"] and r["acked_unconfirmed"], r
        assert r["waiting_bytes_per_iter"] == 0, r
        assert r["resent"] >= 1 and r["kept"] == 1, r
    finally:
        h.stop()


def test_the_boards_tls_thread_stack_decides_where_the_handshake_runs(tmp_path):
    """issue 28 (every platform fact in the board file): TLS_THREAD_STACK 0
    runs the TLS handshake in the loop's own non-blocking steps, a stack
    size runs it on its own thread (the RP2040's second core); both reach
    the real broker over TLS, in the real MicroPython."""
    h, pw = mp_hall(tmp_path)
    h.start()
    try:
        steps = rig(tmp_path, h, pw, "stack", "0")
        assert steps["connected"] and not steps["thread"], steps
        thread = rig(tmp_path, h, pw, "stack", "16384")
        assert thread["connected"] and thread["thread"], thread
    finally:
        h.stop()
