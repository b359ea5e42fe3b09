"""One hall per folder, supervised (issue 29): `python -m hall` as a
director types it in a terminal (a session and process group of its own),
against the real Mosquitto and recorder.  The terminal closing (SIGHUP to
the process group), `hall stop` (SIGTERM) and a SIGKILL of the hall each
leave no process of it behind; a second hall on the same folder, or on
ports another one holds, refuses in one line naming who holds them; `hall
status` says what runs; `hall revoke` acts on the broker that really runs
and proves it; hall.pid never sends a signal to a process that merely has
its pid."""
import os
import signal
import subprocess
import sys

import paho.mqtt.client as mqtt

from conftest import ROOT
from hallkit import hall_cmd, needs_broker, seed_pki, until
from hall import accounts
from hall import supervise
from hall.supervise import free_port
from hall import tls as TLS
from hall.folder import Hall
import json
from bench import hall_attacks as A

pytestmark = needs_broker


def start_hall(folder, port, ws):
    """`hall` as typed in a terminal (its own session: the terminal's process
    group), once it said it runs."""
    p = subprocess.Popen([sys.executable, "-m", "hall", "--dir", folder, "--tables",
                          "4", "--event", "cup", "--port", str(port), "--ws-port", str(ws)],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    line = p.stdout.readline()
    assert line.startswith("hall: broker on port %d" % port), (line, p.poll())
    return p


def new_hall(tmp_path):
    """A hall in tmp_path/hall on two free ports: (folder, port, ws port,
    its process), started as typed in a terminal."""
    folder = str(tmp_path / "hall")
    port, ws = free_port(), free_port()
    return folder, port, ws, start_hall(folder, port, ws)


def processes(folder):
    info = supervise.read_pidfile(folder)
    got = {k: info.get(k) for k in ("hall", "broker", "recorder")}
    assert all(supervise.alive(e) for e in got.values()), got
    return got


def all_gone(entries):
    return until(lambda: [k for k, e in entries.items() if supervise.alive(e)],
                 lambda x: not x) == []


def test_the_terminal_closing_stops_every_process_and_one_hall_per_folder(tmp_path):
    folder, port, ws, p = new_hall(tmp_path)
    try:
        procs = processes(folder)
        st = hall_cmd(folder, "status")
        assert st.returncode == 0, st.stdout + st.stderr
        for k in ("broker", "recorder"):
            assert "the %s: running, pid %d" % (k, procs[k]["pid"]) in st.stdout, st.stdout
        assert "the broker answers on port %d" % port in st.stdout
        assert "the recorder: storing results" in st.stdout, st.stdout
        # a second hall on the same folder: one line naming the running one
        again = subprocess.run([sys.executable, "-m", "hall", "--dir", folder,
                                "--port", str(free_port()), "--ws-port", str(free_port())],
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert again.returncode == 2 and again.stdout == "", again
        assert again.stderr.count("\n") == 1 and again.stderr.startswith(
            "hall: a hall already runs in %s (pid %d, broker pid %d" % (
                folder, procs["hall"]["pid"], procs["broker"]["pid"])), again.stderr
        # another folder on the same ports: one line naming the process holding them
        other = subprocess.run([sys.executable, "-m", "hall", "--dir",
                                str(tmp_path / "other"), "--port", str(port), "--ws-port",
                                str(free_port())], cwd=ROOT, capture_output=True, text=True,
                               timeout=60)
        assert other.returncode == 2 and other.stderr.count("\n") == 1, other
        assert other.stderr.startswith("hall: port %d is held by pid %d (" % (
            port, procs["broker"]["pid"])) and "mosquitto" in other.stderr, other.stderr
        assert processes(folder) == procs   # neither touched the running hall
        # the terminal goes away: SIGHUP to its process group
        os.killpg(p.pid, signal.SIGHUP)
        assert p.wait(30) == 0
        assert all_gone(procs)
        assert supervise.port_holder(port) is None and supervise.port_holder(ws) is None
        assert "hall: stopped (SIGHUP): the recorder and the broker are stopped" in \
            p.stderr.read()
        assert not os.path.exists(os.path.join(folder, supervise.PIDFILE))
        st = hall_cmd(folder, "status")
        assert st.returncode == 3 and st.stdout == "hall: no hall runs in %s\n" % folder
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_hall_stop_and_a_killed_hall_leave_nothing_running(tmp_path):
    folder, port, ws, p = new_hall(tmp_path)
    try:
        procs = processes(folder)
        stop = hall_cmd(folder, "stop")
        assert stop.returncode == 0 and stop.stdout.startswith(
            "hall: stopped the hall in %s (pid %d" % (folder, procs["hall"]["pid"])), stop
        assert p.wait(30) == 0 and all_gone(procs)
        assert "stopped (SIGTERM)" in p.stderr.read()
        assert hall_cmd(folder, "stop").stdout == "hall: no hall runs in %s\n" % folder
        # SIGKILL (no chance to clean up): the broker and the recorder die with it
        p = start_hall(folder, port, ws)
        procs = processes(folder)
        p.kill()
        p.wait()
        assert all_gone(procs)
        # ... and the folder is free for the next hall at once
        p = start_hall(folder, port, ws)
        processes(folder)
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            p.wait(30)


def _connect(port, user, password, folder):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, password)
    TLS.paho_tls(c, folder)
    got = []
    c.on_connect = lambda cl, u, f, rc, pr=None: got.append(rc)
    c.connect("127.0.0.1", port)
    c.loop_start()
    until(lambda: got, lambda g: g, seconds=10, every=0.02)
    return c, got[0] if got else None


def test_revoke_acts_on_the_broker_that_runs_and_proves_it(tmp_path):
    folder, port, ws, p = new_hall(tmp_path)
    try:
        old = Hall(folder, event="cup", tables=4).passwords()[3]
        thief, rc = _connect(port, "3", old, folder)       # a stolen clock, connected
        assert not rc.is_failure
        # typed with the default ports: revoke uses the running hall's (hall.pid)
        out = hall_cmd(folder, "revoke", "--tables", "4", "--table", "3")
        assert out.returncode == 0, out.stderr
        assert "the running broker (pid %d) reloaded it: the old password is refused and a " \
            "connection open with it was dropped (checked" % processes(folder)["broker"]["pid"] \
            in out.stdout, out.stdout
        assert until(thief.is_connected, lambda up: not up) is False
        thief.loop_stop()
        c, rc = _connect(port, "3", old, folder)
        assert rc is not None and rc.is_failure, rc
        c.loop_stop()
        new = Hall(folder, event="cup", tables=4).passwords()[3]
        c, rc = _connect(port, "3", new, folder)
        assert not rc.is_failure
        c.loop_stop()
        c.disconnect()
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(30)
    out = hall_cmd(folder, "revoke", "--tables", "4", "--table", "3")
    assert out.returncode == 0 and "no hall runs in %s: the new password counts when it " \
        "starts" % folder in out.stdout, out


def test_hall_pid_never_signals_a_stranger(tmp_path):
    """A hall.pid naming a process that is not the hall's (a recycled pid:
    another start time; or the right pid and start time but another
    program): stop, status and revoke send it nothing (sleep would die of
    SIGTERM or SIGHUP)."""
    folder = str(tmp_path / "hall")
    h = Hall(folder, event="cup", tables=4, port=free_port(), ws_port=free_port())
    seed_pki(folder)
    h.write()
    stranger = subprocess.Popen(["sleep", "600"])
    try:
        start = supervise.proc_identity(stranger.pid)[0]
        for recycled in ({"pid": stranger.pid, "start": start + 1, "marker": "sleep"},
                         {"pid": stranger.pid, "start": start, "marker": h.conf},
                         {"pid": stranger.pid, "start": start,
                          "marker": "hall.recorder"}):
            accounts.write_secret(os.path.join(folder, supervise.PIDFILE), json.dumps(
                {"folder": folder, "event": "cup", "port": h.port, "ws_port": h.ws_port,
                 "hall": recycled, "broker": recycled, "recorder": recycled}))
            assert hall_cmd(folder, "stop").stdout == "hall: no hall runs in %s\n" % folder
            assert hall_cmd(folder, "status").returncode == 3
            rv = hall_cmd(folder, "revoke", "--tables", "4", "--table", "2")
            assert rv.returncode == 0 and "no hall runs" in rv.stdout, rv
            assert not supervise.send(recycled, signal.SIGTERM)
            assert stranger.poll() is None, "a stranger got a signal"
        # and the hall starts on that folder (the stale file is no obstacle)
        h.start()
        assert supervise.alive(supervise.read_pidfile(folder)["broker"])
        h.stop()
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_hall_start_runs_it_as_a_service_apart_from_the_terminal(tmp_path):
    """`hall start`: the hall in a session of its own (a terminal closing
    does not reach it), up when the command returns; `hall start` again
    refuses in one line; `hall stop` ends it all."""
    folder = str(tmp_path / "hall")
    port, ws = free_port(), free_port()
    args = ("start", "--tables", "4", "--ws-port", str(ws))
    up = hall_cmd(folder, *args, event="cup", port=port)
    assert up.returncode == 0, up.stderr
    assert up.stdout.startswith("hall: broker on port %d" % port), up.stdout
    assert "running in the background" in up.stdout
    procs = processes(folder)
    assert os.getsid(procs["hall"]["pid"]) == procs["hall"]["pid"]   # its own session
    again = hall_cmd(folder, *args, event="cup", port=port)
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again
    assert again.stderr.startswith("hall: a hall already runs in %s" % folder), again.stderr
    assert processes(folder) == procs
    assert hall_cmd(folder, "status").returncode == 0
    stop = hall_cmd(folder, "stop")
    assert stop.returncode == 0 and all_gone(procs), stop
    log = open(os.path.join(folder, "hall.log")).read()
    assert "hall: stopped (SIGTERM): the recorder and the broker are stopped" in log, log
