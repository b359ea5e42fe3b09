"""`python -m host_sim logs` (host_sim/logs.py): the game logs pulled off a
clock through mpremote, filed by clock id, listed with their final state
(SPEC §4 "Game log"; issue 12 item 4).  CPython only: the host tool, run
against a fake mpremote that serves a folder as the board's filesystem
(tests/test_logs_pico.py runs the real mpremote against the emulated Pico).
The clocks' logs are written by the real firmware/gamelog.py, played by the
harness of tests/test_gamelog.py."""
import os
import shutil
import subprocess
import sys

import pytest

import clockcore as cc
import gamelog
import persist
import profiles
from host_sim import logs, replay
from test_gamelog import play
from test_power_loss import FakeFlash

from conftest import ROOT


FAKE_MPREMOTE = r'''#!%(python)s
# A stand-in for mpremote: serves $FAKE_CLOCK as the board's filesystem.
import os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_MPREMOTE_CALLS"], "a") as f:
    f.write(" ".join(args) + "\n")
clock = os.environ.get("FAKE_CLOCK", "")
if args[:1] != ["connect"] or args[1] == "/dev/nothing" or not os.path.isdir(clock):
    msg = "no device found" if args[1] == "auto" else \
        "failed to access %%s (it may be in use by another program)" %% args[1]
    print("mpremote: " + msg, file=sys.stderr)
    sys.exit(1)
assert args[2:6] == ["fs", "cp", "-r", ":games"], args
src = os.path.join(clock, "games")
if not os.path.isdir(src):
    print("cp :games %%s" %% args[6])
    print("mpremote: cp: No such file or directory.", file=sys.stderr)
    sys.exit(1)
dest = args[6]
if os.path.exists(dest):
    dest = os.path.join(dest, "games")
elif not any(os.path.isdir(os.path.join(src, n)) for n in os.listdir(src)):
    # mpremote 1.28 into a folder that does not exist, with no sub-folder in
    # games/ (tests/test_logs_pico.py shows the real one doing this)
    print("mpremote: cp: -r not specified; omitting directory", file=sys.stderr)
    sys.exit(1)
os.makedirs(dest)
for name in sorted(os.listdir(src)):
    print("cp :games/%%s %%s" %% (name, dest))
    shutil.copy(os.path.join(src, name), os.path.join(dest, name))
assert args[7:] in ([], ["+", "reset"]), args
'''


@pytest.fixture
def fake_board(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "mpremote"
    exe.write_text(FAKE_MPREMOTE % {"python": sys.executable})
    exe.chmod(0o755)
    clock = tmp_path / "board"
    clock.mkdir()
    env = dict(os.environ)
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["FAKE_CLOCK"] = str(clock)
    env["FAKE_MPREMOTE_CALLS"] = str(tmp_path / "calls.txt")
    return clock, env, tmp_path


def run_logs(env, *args):
    return subprocess.run([sys.executable, "-m", "host_sim", "logs"] + list(args),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_logs_copies_the_games_and_lists_their_final_state(fake_board):
    clock, env, tmp = fake_board
    # a clock with three games: a finished one, one restored after a power
    # cut, and one whose last line a power cut tore
    ff = FakeFlash(journal=False)
    play(11, "sdev", {"base": "05:00"}, minutes=15, flash=ff)
    persist.StateStore(fs=ff).clear()   # the organizer resets the clock for the next game
    dev, _, boots = play(12, "pfs", {"base": "04:00"}, [8000], minutes=10, flash=ff)
    assert len(boots) >= 2
    gl = gamelog.GameLog(fs=ff)
    gl.begin(profiles.make_rules("custom"))
    gl.event(0, cc.EV_LEFT, 0, 0, 1200000, 1200000)
    gl.event(4000, cc.EV_RIGHT, 1, 0, 1200000, 1196000)
    ff.files["games/g0003.txt"] += b"9000 le"
    (clock / "games").mkdir()
    for path, data in ff.files.items():
        if path.startswith("games/"):
            (clock / path).write_bytes(data)
    (clock / "games" / "g0002.txt.tmp").write_bytes(b"junk")
    dest = tmp / "out"
    proc = run_logs(env, "--dest", str(dest))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "3 game logs copied to %s" % dest
    # logs from before clocks had ids are filed together, under a plain name
    assert out[1] == "clock without an id (older firmware): %s" % (dest / "no-clock-id")
    assert out[2].startswith("  g0001.txt") and " over " in out[2]
    assert out[3].startswith("  g0002.txt") and "power restored x1" in out[3]
    assert out[4].startswith("  g0003.txt") and "running: left" in out[4] and "torn last line" in out[4]
    assert sorted(os.listdir(dest)) == ["no-clock-id"]
    got = dest / "no-clock-id"
    assert sorted(os.listdir(got)) == ["g0001.txt", "g0002.txt", "g0003.txt"]
    for name in os.listdir(got):
        assert (got / name).read_bytes() == ff.files["games/" + name]
    # issue 27: the clock is restarted only when asked (--restart)
    assert (tmp / "calls.txt").read_text() == "connect auto fs cp -r :games %s\n" % (
        os.path.join(str(dest), ".incoming"))
    assert out[-1].startswith("the clock is stopped at its prompt") and "--restart" in out[-1]
    # the listed state is the live clock's at its end, flags after the last
    # press included (they are notes in the log)
    log = logs.read_log(str(got / "g0002.txt"))
    rep = logs.final_state(log)
    assert rep["over"] == (dev.clock.state == cc.OVER)
    assert rep == replay.report(dev.clock, rep["t_ms"])
    assert ("game over" if rep["over"] else "paused") in out[3]


def clock_with_games(clock_dir, cid, table, seeds):
    """Fill a fake board's flash with finished games logged by clock `cid`."""
    ff = FakeFlash(journal=False)
    for seed in seeds:
        gl = gamelog.GameLog(fs=ff, clock=cid)
        gl.begin(profiles.make_rules("sdev"), table)
        gl.event(0, cc.EV_LEFT, 0, 0, 1800000, 1800000)
        gl.event(1000 + seed, cc.EV_RIGHT, 1, 0, 1800000, 1799000 - seed)
        gl.close()
    if clock_dir.exists():
        shutil.rmtree(clock_dir)
    (clock_dir / "games").mkdir(parents=True)
    for path, data in ff.files.items():
        (clock_dir / path).write_bytes(data)
    return ff


def test_logs_of_many_clocks_pulled_into_one_folder_overwrite_nothing(fake_board):
    """Issue 12 item 4: every clock numbers its games from g0001; 40 clocks
    pulled one after another into one --dest keep all 80 games, each filed
    under its clock's id; pulling a clock again replaces its copies only by
    longer copies of the same games, and a different game of the same number
    is kept beside the first."""
    clock, env, tmp = fake_board
    dest = tmp / "out"
    ids = ["%016x" % (0xe6614c311b5f0000 + i) for i in range(40)]
    boards = {}
    for i, cid in enumerate(ids):
        boards[cid] = clock_with_games(clock, cid, i + 1, [i, 100 + i])
        proc = run_logs(env, "--dest", str(dest))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[1] == "clock %s table %d: %s" % (cid, i + 1, dest / cid)
    assert sorted(os.listdir(dest)) == ids
    for cid in ids:
        assert sorted(os.listdir(dest / cid)) == ["g0001.txt", "g0002.txt"]
        for name in ("g0001.txt", "g0002.txt"):
            assert (dest / cid / name).read_bytes() == boards[cid].files["games/" + name]
    # the first clock again: the same games (unchanged) stay one copy each;
    # after its logs were wiped, a new g0001 is a different game: kept beside
    ff = clock_with_games(clock, ids[0], 1, [0, 100])
    assert run_logs(env, "--dest", str(dest)).returncode == 0
    assert sorted(os.listdir(dest / ids[0])) == ["g0001.txt", "g0002.txt"]
    ff = clock_with_games(clock, ids[0], 1, [7])
    assert run_logs(env, "--dest", str(dest)).returncode == 0
    assert sorted(os.listdir(dest / ids[0])) == ["g0001-2.txt", "g0001.txt", "g0002.txt"]
    assert (dest / ids[0] / "g0001-2.txt").read_bytes() == ff.files["games/g0001.txt"]
    assert (dest / ids[0] / "g0001.txt").read_bytes() == boards[ids[0]].files["games/g0001.txt"]


def one_line_exit_2(proc, *words):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("logs: "), proc.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_logs_bad_dest_and_odd_folder_contents_are_one_line(fake_board):
    """Issue 12 item 4: a --dest that is a file or cannot be written, a
    `.incoming` symlink, a folder where a log goes: one line, status 2, and
    nothing outside --dest is touched (the games stay on the clock)."""
    clock, env, tmp = fake_board
    clock_with_games(clock, "00ff", 3, [1])
    afile = tmp / "afile"
    afile.write_text("mine")
    one_line_exit_2(run_logs(env, "--dest", str(afile)), "is a file")
    one_line_exit_2(run_logs(env, "--dest", str(afile / "sub")), "cannot write")
    assert afile.read_text() == "mine"
    ro = tmp / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    unwritable = "/sys" if os.access(str(ro), os.W_OK) else str(ro)   # root ignores modes
    one_line_exit_2(run_logs(env, "--dest", unwritable), "cannot write")
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    dest = tmp / "out"
    dest.mkdir()
    (dest / ".incoming").symlink_to(elsewhere)
    one_line_exit_2(run_logs(env, "--dest", str(dest)), ".incoming", "link")
    assert os.listdir(elsewhere) == []
    (dest / ".incoming").unlink()
    (dest / "00ff" / "g0001.txt").mkdir(parents=True)
    one_line_exit_2(run_logs(env, "--dest", str(dest)), "g0001.txt is a folder")
    (dest / "00ff" / "g0001.txt").rmdir()
    assert run_logs(env, "--dest", str(dest)).returncode == 0
    assert os.listdir(dest / "00ff") == ["g0001.txt"]


def test_logs_without_a_board_is_one_line_and_status_2(fake_board):
    clock, env, tmp = fake_board
    env["FAKE_CLOCK"] = str(tmp / "unplugged")
    for args, word in ((["--port", "/dev/nothing"], "/dev/nothing"), ([], "any USB serial port")):
        proc = run_logs(env, "--dest", str(tmp / "out"), *args)
        assert proc.returncode == 2
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("logs: no MicroPython board found on " + word)
        assert "Traceback" not in proc.stderr


def test_logs_on_a_clock_without_games(fake_board):
    clock, env, tmp = fake_board
    proc = run_logs(env, "--dest", str(tmp / "out"), "--port", "/dev/ttyACM0")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "logs: the clock on /dev/ttyACM0 has no games/ folder: no game logged yet"
    (clock / "games").mkdir()
    proc = run_logs(env, "--dest", str(tmp / "out"))
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == "no game logs on the clock"


def test_logs_dry_run_prints_the_mpremote_command(fake_board):
    clock, env, tmp = fake_board
    proc = run_logs(env, "--dry-run", "--port", "COM3", "--dest", "my games", "--no-reset")
    assert proc.returncode == 0
    assert proc.stdout == "mpremote connect COM3 fs cp -r :games 'my games/.incoming'\n"
    assert not (tmp / "calls.txt").exists()


def test_logs_restarts_the_clock_only_when_asked(fake_board):
    """Issue 27: `logs` used to restart the clock by default (a referee
    copying logs in a dispute found the clock running again); now only
    --restart does, and the last line says what state the clock is in."""
    clock, env, tmp = fake_board
    (clock / "games").mkdir()
    plain = run_logs(env, "--dry-run", "--port", "COM3")
    assert plain.stdout == "mpremote connect COM3 fs cp -r :games clock-games/.incoming\n"
    asked = run_logs(env, "--dry-run", "--port", "COM3", "--restart")
    assert asked.stdout == "mpremote connect COM3 fs cp -r :games clock-games/.incoming + reset\n"
    proc = run_logs(env, "--dest", str(tmp / "out"), "--restart")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1].startswith("the clock restarted")
    assert (tmp / "calls.txt").read_text().rstrip().endswith("+ reset")


def test_logs_without_mpremote(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c",
                           "import sys; sys.executable = '/nonexistent/python';"
                           "from host_sim import __main__ as m; sys.exit(m.main(['logs']))"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("logs: mpremote not found")
