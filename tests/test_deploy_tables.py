"""Many clocks in one go (issue 21): `tools/deploy.py tables` (make
deploy-tables) flashes clock after clock over USB, each with the next table's
net.json, reads every file back, and ends with a table of what went where.

The boards are the emulated Raspberry Pi Pico (the official MicroPython image
on rp2040js, host_sim/target.py), two of them (two flash files, two unique
ids), plugged in one after the other on one port path as a real Pico's
/dev/ttyACM0 comes and goes; the command drives the real mpremote."""
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import deploy
from conftest import ROOT, need
from hall.folder import Hall
from host_sim import target

DEPLOY = os.path.join(ROOT, "tools", "deploy.py")


class Command:
    """The command running, its output read line by line; its mpremote
    patient with the emulated boards (target.patient_env: a loaded host
    runs them far slower than real ones)."""

    def __init__(self, args):
        self.p = subprocess.Popen([sys.executable, DEPLOY] + args, cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1,
                                  env=target.patient_env())
        self.lines = []

    def until(self, words, timeout=target.HOST_PROGRAM_BOUND_S):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.p.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
            if words in line:
                return line
        raise AssertionError("no %r in:\n%s" % (words, "\n".join(self.lines)))

    def finish(self, timeout=target.HOST_PROGRAM_BOUND_S):
        out, _ = self.p.communicate(timeout=timeout)
        self.lines += out.splitlines()
        return self.p.returncode


def test_two_boards_in_a_row_each_with_its_table_read_back(tmp_path):
    """Issue 21 ("one command flashes clock after clock over USB, each with
    the next table number, verifies what it wrote, and ends with a table of
    what went where; tested against the emulated Pico, twice in a row as two
    boards").  The first board plugged in again for the next table is
    refused (it would lose its table).  Each board then boots the app from
    its flash, and its net.json is the hall's account of its table."""
    need(target.pico_missing())
    hall_dir = str(tmp_path / "hall")
    port = str(tmp_path / "ttyACM0")
    cmd = Command(["tables", "--board", "pico", "--tables", "4-5", "--port", port,
                   "--hall-dir", hall_dir, "--event", "cup", "--broker", "10.0.0.5",
                   "--ssid", "Hall", "--wifi-password", "pw",
                   "--wait", str(target.HOST_PROGRAM_BOUND_S)])
    boards = {}
    try:
        for table, uid in ((4, 1), (5, 2)):
            cmd.until("table %d: plug in a clock" % table)
            if table == 5:   # the clumsy director: the same clock again
                a = target.Pico(boards[4], uid=1).start()
                a.run_to(500)
                a.plug(port)
                cmd.until("is table 4 already")
                a.unplug()
                a.stop()
            boards[table] = str(tmp_path / ("flash%d.bin" % table))
            pico = target.Pico(boards[table], uid=uid).start()  # MicroPython only
            pico.run_to(500)
            pico.plug(port)
            line = cmd.until("unplug it")
            assert "table %d: clock " % table in line and "read back" in line, cmd.lines
            pico.unplug()
            pico.stop()
        assert cmd.finish() == 0, "\n".join(cmd.lines)
    finally:
        if cmd.p.poll() is None:
            cmd.p.kill()
    report = cmd.lines[cmd.lines.index("table  clock             files  result"):]
    rows = [r.split() for r in report[1:]]
    assert [r[0] for r in rows] == ["4", "5"] and all(r[3] == "verified" for r in rows)
    assert rows[0][1] != rows[1][1]                       # two boards, two clock ids
    assert rows[0][2] == rows[1][2] and int(rows[0][2]) > 20
    pw = {str(t): p for t, p in Hall(hall_dir, "cup").passwords().items()}
    # issue 29: each board's own id is its table's clock account's (owners.jsonl):
    # the recorder refuses that clock's results under any other account
    from hall import recorder as REC
    assert REC.read_owners(hall_dir) == {rows[0][1]: "4", rows[1][1]: "5"}
    assert os.stat(os.path.join(ROOT, "build", "net-4.json")).st_mode & 0o077 == 0  # 0600

    def power_up(flash):                                   # on its own
        pico = target.Pico(flash).start()
        try:
            pico.run_to_ready()    # (simulated time: a slow host never fails it)
            lcd = pico.lcd.text_rows()
            rc, out = pico.with_pty(lambda pty: [target.tool("mpremote"), "connect", pty,
                                                 "cat", ":net.json"])
        finally:
            pico.stop()
        return lcd, rc, out

    with ThreadPoolExecutor(max_workers=2) as pool:        # the two boards at once
        ups = {table: pool.submit(power_up, flash) for table, flash in boards.items()}
    for table in boards:
        lcd, rc, out = ups[table].result()
        assert lcd[1].strip() == "READY 2nd press", lcd
        assert rc == 0, out
        cfg = json.loads(out[out.index("{"):out.rindex("}") + 1])
        assert cfg["table"] == table and cfg["user"] == str(table)
        assert cfg["password"] == pw[str(table)] and cfg["host"] == "10.0.0.5"
        assert cfg["event"] == "cup" and cfg["ssid"] == "Hall"
        assert cfg["client_id"].startswith("c%d-" % table)


def test_no_board_within_the_wait_ends_with_the_table_of_nothing(tmp_path):
    """Nobody plugs a clock in: after --wait the command stops and its table
    says which tables were not flashed (status 1)."""
    cmd = Command(["tables", "--board", "pico", "--tables", "3,7", "--port",
                   str(tmp_path / "ttyNONE"), "--hall-dir", str(tmp_path / "hall"),
                   "--broker", "10.0.0.5", "--wait", "1"])
    assert cmd.finish() == 1
    assert cmd.lines[-2:] == ["table  clock             files  result", "not flashed: 3 7"]


@pytest.mark.parametrize("args, words", [
    (["--tables", "0"], "expected numbers 1-99"),
    (["--tables", "5-3"], "not a range"),
    (["--tables", "1,1"], "a table twice"),
    (["--tables", "1", "--event", "a/b"], "event must be 1-40 ASCII letters"),   # hallproto.is_id
    (["--tables", "1", "--broker", "127.0.0.1"], "loopback"),     # issue 37, as firmware-tables
    (["--tables", "1", "--broker", ""], "BROKER is missing"),
])
def test_bad_arguments_are_one_line(tmp_path, args, words):
    proc = subprocess.run([sys.executable, DEPLOY, "tables", "--board", "pico", "--broker",
                           "10.0.0.5", "--hall-dir", str(tmp_path / "hall")] + args,
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr


def test_tables_parse_and_the_report():
    assert deploy.parse_tables("1-3,7") == [1, 2, 3, 7]
    assert deploy.parse_tables("97-") == [97, 98, 99]
    rep = deploy.tables_report([(1, "e6614c31", 28, "verified")], [1, 2, 3])
    assert rep.splitlines() == ["table  clock             files  result",
                                "    1  e6614c31             28  verified",
                                "not flashed: 2 3"]


def test_dry_run_prints_the_steps_and_waits_for_no_board(tmp_path):
    """Issue 27: `make deploy-tables ... DRY_RUN=1` ignored DRY_RUN and
    waited for a board forever.  The make line passes it on, and the dry run
    prints the first table's steps (the mpremote commands: the board's id,
    the copy, the read-back; no reset) and the tables after it, touching no
    board and waiting for nothing."""
    make = subprocess.run(["make", "-n", "-o", ".venv/.installed", "deploy-tables",
                           "BOARD=pico_w", "TABLES=1-3", "BROKER=10.0.0.5", "DRY_RUN=1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert make.returncode == 0 and "tools/deploy.py tables" in make.stdout, make.stderr
    assert "--dry-run" in make.stdout
    port = str(tmp_path / "ttyNONE")
    proc = subprocess.run([sys.executable, DEPLOY, "tables", "--board", "pico_w", "--tables",
                           "1-3,8", "--port", port, "--hall-dir", str(tmp_path / "hall"),
                           "--broker", "10.0.0.5", "--dry-run"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith("dry run: no board is touched") and "table 1" in out[0]
    assert any("mpremote connect %s exec" % port in ln and "unique_id" in ln for ln in out)
    assert any(" cp " in ln for ln in out)
    assert not any(ln.endswith(" reset") for ln in out)
    assert out[-1] == "then the same for tables 2-3, 8, each with its own net.json"
    assert not os.path.exists(port)
