"""tools/deploy.py: `make bundle` and `make deploy`, without a board.

The bundle is built for real (mpy-cross) and its .mpy files are imported and
run by the real `micropython` executable.  `deploy` is driven through a fake
`mpremote` placed first on PATH, which records its arguments and answers the
board's .mpy query, so the real code path is exercised: the commands it runs
are exactly the ones --dry-run prints, a board reading another .mpy version
gets .py sources, and a missing board is one line and exit status 2.
"""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

import deploy
from conftest import FAKEHW, FIRMWARE, ROOT, venv_tool
from host_sim import CORE, NET, all_families, board_files, board_package, firmware_files
from host_sim import boards as boardfiles

DEPLOY = os.path.join(ROOT, "tools", "deploy.py")
PORT = "/dev/ttyFAKE0"


def run_deploy(args, env=None, **kw):
    return subprocess.run([sys.executable, DEPLOY] + args, capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300, **kw)


def mpy_cross_version():
    exe = venv_tool("mpy-cross")
    assert exe, "mpy-cross not installed: run `make venv`"
    return deploy.mpy_cross_version(exe)


def firmware_modules(board="pico"):
    """The modules a board gets (host_sim.board_files): the pico bundle's
    are clock-core's and the LCD's family, pico_w's clock-net's and it."""
    return sorted(f[:-3] for f in board_files(board))


def run_micropython(args, path, cwd):
    exe = venv_tool("micropython")
    assert exe, "micropython not installed: run `make venv`"
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(path))
    return subprocess.run([exe] + args, capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


# --- bundle -----------------------------------------------------------------

def make_bundle(tmp_path_factory, board):
    """`tools/deploy.py bundle --board BOARD` into a fresh folder: the folder."""
    out = tmp_path_factory.mktemp("bundle-" + board)
    proc = run_deploy(["bundle", "--board", board, "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory):
    return make_bundle(tmp_path_factory, "pico")


def test_bundle_holds_every_firmware_module_compiled(bundle_dir):
    ver, _sub = mpy_cross_version()
    files = set(os.listdir(bundle_dir))
    for mod in firmware_modules():
        if mod == "main":
            continue
        data = (bundle_dir / (mod + ".mpy")).read_bytes()
        assert data[0] == ord("M"), mod
        assert data[1] == ver, (mod, data[1], ver)
        assert mod + ".py" not in files, "a .py twin would shadow " + mod + ".mpy"


def test_bundle_main_and_board_are_sources(bundle_dir):
    files = set(os.listdir(bundle_dir))
    assert "main.mpy" not in files and "board.mpy" not in files
    with open(os.path.join(ROOT, "boards", "pico.py"), "rb") as f:
        assert (bundle_dir / "board.py").read_bytes() == f.read()
    if os.path.exists(os.path.join(FIRMWARE, "main.py")):
        with open(os.path.join(FIRMWARE, "main.py"), "rb") as f:
            assert (bundle_dir / "main.py").read_bytes() == f.read()
    expected = {m + ".mpy" for m in firmware_modules() if m != "main"} | {
        "board.py", "buildinfo.mpy", "README.txt", deploy.MARKER}
    if "main" in firmware_modules():
        expected.add("main.py")
    assert files == expected


def test_bundle_readme_lists_the_files(bundle_dir):
    readme = (bundle_dir / "README.txt").read_text()
    assert "Thonny" in readme and "Upload to /" in readme
    for f in os.listdir(bundle_dir):
        if f != "README.txt":
            assert f in readme, f
    assert "Raspberry Pi Pico" in readme


def test_bundle_modules_import_under_micropython(bundle_dir, tmp_path):
    """Every compiled firmware module imports under the real MicroPython from
    its .mpy (with the fake machine module for the hardware) wherever its
    source does, and ticks.mpy runs."""
    code = "import ticks; print(ticks.__file__.split('/')[-1], ticks.ticks_diff(ticks.ticks_add(5, 10), 5))"
    proc = run_micropython(["-c", code], [str(bundle_dir)], str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split() == ["ticks.mpy", "10"], proc.stdout
    broken = []
    for mod in firmware_modules():
        if mod == "main":  # importing main starts the clock
            continue
        code = "import %s as m; print(m.__file__.split('/')[-1])" % mod
        proc = run_micropython(["-c", code], [str(bundle_dir), FAKEHW], str(tmp_path))
        if proc.returncode == 0:
            assert proc.stdout.split() == [mod + ".mpy"], proc.stdout
            continue
        # Not the bundle's fault if the firmware's own source fails the same way
        # (a module still being written); test_micropython.py covers sources.
        src = run_micropython(["-c", code], [FIRMWARE, FAKEHW], str(tmp_path))
        if src.returncode == 0:
            broken.append((mod, (proc.stdout + proc.stderr).strip().splitlines()[-1:]))
    assert not broken, broken



# --- packages: a board without Wi-Fi carries no network code (issue 22) -------

# Written by hand from boards/*.py: WIFI = True on pico_w and esp32 only.
BOARD_PACKAGES = {"esp32": NET, "pico": CORE, "pico_2004": CORE, "pico_w": NET,
                  "sim": CORE, "sim_2004": CORE, "pico_tm1637": CORE, "sim_tm1637": CORE}
NET_WORDS = (b"network", b"socket", b"mqtt", b"MQTT")   # what network code names


def test_each_board_gets_the_package_its_wifi_flag_says():
    """Issue 22: `make deploy BOARD=pico` carries no network code, pico_w
    does; the board's WIFI flag (the one the app reads before it imports
    net) decides."""
    assert {b: deploy.package(b) for b in boardfiles.names()} == BOARD_PACKAGES
    assert set(firmware_files(package=CORE)) < set(firmware_files(package=NET))
    assert "net.py" in set(firmware_files(package=NET)) - set(firmware_files(package=CORE))


@pytest.fixture(scope="module")
def bundle_w_dir(tmp_path_factory):
    return make_bundle(tmp_path_factory, "pico_w")


def _named(folder, words):
    return sorted(n for n in os.listdir(folder) if n != "README.txt"
                  and any(w in (folder / n).read_bytes() for w in words))


def test_a_pico_bundle_has_no_network_code_and_a_pico_w_bundle_has_it(bundle_dir,
                                                                      bundle_w_dir):
    """The pico bundle holds clock-core's modules and no file of it names
    the network, a socket or MQTT; the pico_w bundle holds clock-net's:
    clock-core's and the network modules."""
    net_only = sorted(m[:-3] for m in set(firmware_files(package=NET))
                      - set(firmware_files(package=CORE)))
    pico = {os.path.splitext(n)[0] for n in os.listdir(bundle_dir)}
    pico_w = {os.path.splitext(n)[0] for n in os.listdir(bundle_w_dir)}
    assert "net" in net_only and not pico & set(net_only)
    assert _named(bundle_dir, NET_WORDS) == []
    assert set(net_only) <= pico_w and set(firmware_modules("pico_w")) <= pico_w
    assert "net.mpy" in _named(bundle_w_dir, NET_WORDS)
    assert "package clock-core" in (bundle_dir / "README.txt").read_text()
    assert "package clock-net" in (bundle_w_dir / "README.txt").read_text()


BOOT = """
import board, rig
try:
    import net
    print("net", net.__file__.split("/")[-1])
except ImportError:
    print("net none")
r = rig.Rig(board, %r)
r.run(2500)
print("wifi", getattr(board, "WIFI", False), "hall", r.app.net is not None)
r.press(rig.LEFT)
r.run(3000)
print("running", r.clock.running())
print("|".join(r.screen()))
"""


@pytest.mark.parametrize("board", ["pico", "pico_w"])
def test_the_app_boots_from_its_bundle_under_micropython(board, bundle_dir, bundle_w_dir,
                                                         tmp_path):
    """Issue 22: a Pico without net.py boots and runs a game.  The app from
    the compiled bundle alone (and the fake machine), under the real
    MicroPython: the pico bundle has no net module to import, the pico_w
    bundle has it and the app starts its hall door (off: no net.json)."""
    folder = bundle_dir if board == "pico" else bundle_w_dir
    root = tmp_path / "fs"
    root.mkdir()
    proc = run_micropython(["-c", BOOT % (str(root) + "/")], [str(folder), FAKEHW],
                           str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    if board == "pico":
        assert out[:2] == ["net none", "wifi False hall False"], out
    else:
        assert out[0] == "net net.mpy" and out[1].startswith("wifi True hall"), out
    assert out[2] == "running 1", out           # the left press started the right's clock
    # the default 30:00 game: the left's clock untouched, the right's run for
    # 3 s after the press (the press and its settling: under 3.1 s, shown
    # rounded up to the second)
    assert "30:00" in out[3] and "29:57" in out[3], out


FAKE_FIRMWARE = {
    "helper.py": (
        "def total(xs):\n"
        "    n = 0\n"
        "    for x in xs:\n"
        "        n += x\n"
        "    return n\n"
        "class Clock:\n"
        "    def __init__(self, ms):\n"
        "        self.ms = ms\n"
        "    def text(self):\n"
        "        s = self.ms // 1000\n"
        "        return '%02d:%02d' % (s // 60, s % 60)\n"),
    "main.py": (
        "import helper, board\n"
        "print('main', helper.total(range(10)), helper.Clock(1500000).text(), board.LCD_COLS)\n"),
}


# Every display family a board file names (hd44780: DISPLAY's default,
# tm1637: pico_tm1637's, ...), as a stand-in driver: in no manifest, bundled
# only for a board that names it (issue 28); deploy asks them all to exist.
FAKE_FAMILY = {f: "def make(board, machine):\n    return None\n" for f in all_families()}


@pytest.fixture
def fake_firmware(tmp_path):
    fw = tmp_path / "firmware"
    fw.mkdir()
    for name, text in list(FAKE_FIRMWARE.items()) + list(FAKE_FAMILY.items()):
        (fw / name).write_text(text)
    write_fake_manifest(fw)
    return fw


def write_fake_manifest(fw, extra=()):
    """The two packages, as firmware/ has them: clock-core lists the fake
    modules (and `extra`); clock-net requires it and adds nothing."""
    names = sorted(FAKE_FIRMWARE) + list(extra)
    for pkg, text in ((CORE, "metadata()\n" + "".join('module("%s", base_path="..")\n' % n
                                                    for n in names)),
                      (NET, 'metadata()\nrequire("%s")\n' % CORE)):
        (fw / pkg).mkdir(exist_ok=True)
        (fw / pkg / "manifest.py").write_text(text)


def test_bundle_of_a_small_app_runs_under_micropython(fake_firmware, tmp_path):
    out = tmp_path / "bundle"
    proc = run_deploy(["bundle", "--board", "pico_2004", "--firmware", str(fake_firmware),
                       "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [deploy.MARKER, "README.txt", "board.py", "buildinfo.mpy",
                                       "hd44780.mpy", "helper.mpy", "main.py"]
    assert (out / "main.py").read_text() == FAKE_FIRMWARE["main.py"]
    assert (out / "helper.mpy").read_bytes()[:2] == bytes([ord("M"), mpy_cross_version()[0]])
    # main.py as MicroPython runs it at boot, importing helper from helper.mpy
    proc = run_micropython([str(out / "main.py")], [str(out)], str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split() == ["main", "45", "25:00", "20"]


def test_bundle_sources(fake_firmware, tmp_path):
    out = tmp_path / "bundle"
    proc = run_deploy(["bundle", "--board", "esp32", "--sources", "--firmware",
                       str(fake_firmware), "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [deploy.MARKER, "README.txt", "board.py", "buildinfo.py",
                                       "hd44780.py", "helper.py", "main.py"]


def one_line(proc, status, *words):
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("deploy: "), proc.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_bundle_and_deploy_refuse_a_folder_they_do_not_own(fake_firmware, tmp_path):
    """Issue 12 item 5: --out / --build-dir never delete the user's files: a
    non-empty folder without the tool's marker is refused, one line, exit 2."""
    mine = tmp_path / "my-project"
    mine.mkdir()
    files = {"clockcore.py": "# my own edit", "old.mpy": "M\x06", "README.txt": "mine",
             "notes.md": "mine"}
    for name, text in files.items():
        (mine / name).write_text(text)
    for args in (["bundle", "--board", "pico", "--out", str(mine)],
                 ["bundle", "--board", "pico", "--sources", "--out", str(mine)],
                 ["deploy", "--board", "pico", "--dry-run", "--build-dir", str(mine)]):
        one_line(run_deploy(args), 2, str(mine), "not empty", "not made by this tool")
        assert {f: (mine / f).read_text() for f in os.listdir(mine)} == files
    afile = tmp_path / "afile"
    afile.write_text("mine")
    one_line(run_deploy(["bundle", "--board", "pico", "--out", str(afile)]), 2, "is a file")
    assert afile.read_text() == "mine"


def test_a_rebuild_removes_only_the_files_the_last_build_wrote(fake_firmware, tmp_path):
    """Issue 12 item 5: the marker lists what the build wrote; the next build
    removes those (a module gone from firmware/ goes from the folder too) and
    nothing else, even if the marker was edited to name other files."""
    out = tmp_path / "bundle"
    (fake_firmware / "extra.py").write_text("X = 1\n")
    write_fake_manifest(fake_firmware, ["extra.py"])
    args = ["bundle", "--board", "pico", "--firmware", str(fake_firmware), "--out", str(out)]
    assert run_deploy(args).returncode == 0
    assert "extra.mpy" in os.listdir(out)
    (out / "notes.md").write_text("mine")          # the user's files, added later
    (out / "mine.py").write_text("mine")
    (tmp_path / "outside.py").write_text("mine")
    with open(out / deploy.MARKER, "a") as f:       # a marker edited by hand
        f.write("../outside.py\nnotes.md/\n.hidden\n")
    (fake_firmware / "extra.py").unlink()
    write_fake_manifest(fake_firmware)
    proc = run_deploy(args)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [deploy.MARKER, "README.txt", "board.py", "buildinfo.mpy",
                                       "hd44780.mpy", "helper.mpy", "main.py", "mine.py",
                                       "notes.md"]
    assert (out / "notes.md").read_text() == (out / "mine.py").read_text() == "mine"
    assert (tmp_path / "outside.py").read_text() == "mine"
    assert sorted(deploy.read_manifest(str(out))) == ["README.txt", "board.py", "buildinfo.mpy",
                                                      "hd44780.mpy", "helper.mpy", "main.py"]


def test_unknown_board_is_one_line(tmp_path):
    proc = run_deploy(["bundle", "--board", "nosuch", "--out", str(tmp_path / "b")])
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "boards/nosuch.py" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- the .mpy version rule --------------------------------------------------

def test_decode_sys_mpy():
    assert deploy.decode_sys_mpy(6 | 3 << 8 | 4 << 10) == (6, 3, "armv6m")  # rp2
    assert deploy.decode_sys_mpy(6 | 3 << 8 | 10 << 10) == (6, 3, "xtensawin")  # esp32
    assert deploy.decode_sys_mpy(2822) == (6, 3, "x64")  # the unix port here


def test_mpy_compatibility_rule():
    ok = lambda *a, **k: deploy.mpy_compatible(*a, **k)[0]  # noqa: E731
    rp2_63 = 6 | 3 << 8 | 4 << 10
    rp2_62 = 6 | 2 << 8 | 4 << 10
    assert ok(rp2_63, (6, 3))
    assert ok(rp2_63, (6, 3), (1, 19))
    assert not ok(5 | 4 << 10, (6, 3), (1, 18))  # major version differs
    assert not ok(0, (6, 3))  # no .mpy support at all
    assert ok(rp2_62, (6, 3), (1, 22))  # bytecode ignores the sub-version
    assert not ok(rp2_62, (6, 3), (1, 19))  # 1.19 checked those bits as flags
    assert not ok(rp2_62, (6, 3), None)  # unknown firmware: play safe
    assert not ok(rp2_62, (6, 3), (1, 22), native=True)  # native code must match


def test_parse_board_answer():
    assert deploy.parse_board_answer("4870 1 28\r\n") == (4870, (1, 28))
    assert deploy.parse_board_answer("4870\n") == (4870, None)
    assert deploy.parse_board_answer("") == (0, None)


# --- deploy -----------------------------------------------------------------

def dry_run(build_dir, extra=()):
    proc = run_deploy(["deploy", "--board", "pico", "--port", PORT, "--dry-run",
                       "--build-dir", str(build_dir)] + list(extra))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_dry_run_prints_the_mpremote_commands(tmp_path):
    build = tmp_path / "stage"
    lines = dry_run(build)
    assert len(lines) == 3, lines
    cmds = [shlex.split(l) for l in lines]
    for c in cmds:
        assert c[:3] == ["mpremote", "connect", PORT]
    # 1: ask the board which .mpy it reads
    assert cmds[0][3] == "exec" and "_mpy" in cmds[0][4]
    # 2: delete stale twins, then copy every file into the board's root
    c = cmds[1]
    assert c[3] == "exec" and c[5] == "+" and c[6] == "cp" and c[-1] == ":"
    copied = c[7:-1]
    staged = sorted(f for f in os.listdir(build) if f != deploy.MARKER)
    assert sorted(os.path.basename(p) for p in copied) == staged
    assert all(os.path.isfile(p) for p in copied)
    assert os.path.basename(copied[-1]) == ("main.py" if "main.py" in staged else copied[-1])
    mods = [m for m in firmware_modules() if m != "main"]
    assert staged == sorted([m + ".mpy" for m in mods] + ["board.py", "buildinfo.mpy"]
                            + (["main.py"] if "main" in firmware_modules() else []))
    for m in mods:
        assert '"%s.py"' % m in c[4], "the stale %s.py must go" % m
    assert '"board.mpy"' in c[4]
    # the old main.py goes before anything is copied, the new one comes last
    assert c[4].index('"main.py"') < c[4].index('"board.mpy"')
    # a board once deployed as pico_w loses the network modules (both kinds)
    for m in sorted(set(firmware_modules("pico_w")) - set(firmware_modules("pico"))):
        assert '"%s.mpy"' % m in c[4] and '"%s.py"' % m in c[4], m
    # 3: reset
    assert cmds[2][3:] == ["reset"]


def test_dry_run_for_a_board_with_wifi_keeps_the_network_modules(tmp_path):
    proc = run_deploy(["deploy", "--board", "pico_w", "--port", PORT, "--dry-run",
                       "--build-dir", str(tmp_path / "stage")])
    assert proc.returncode == 0, proc.stderr
    c = shlex.split(proc.stdout.splitlines()[1])
    copied = {os.path.basename(p) for p in c[7:-1]}
    assert {m + ".mpy" for m in firmware_modules("pico_w") if m != "main"} <= copied
    assert '"net.mpy"' not in c[4] and '"net.py"' in c[4]    # only its stale twin goes


def test_dry_run_sources(tmp_path):
    lines = dry_run(tmp_path / "stage", ["--sources"])
    cp = shlex.split(lines[1])
    assert all(p.endswith(".py") for p in cp[7:-1])
    for m in firmware_modules():
        if m != "main":
            assert '"%s.mpy"' % m in cp[4]


FAKE_MPREMOTE = """#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_MPREMOTE_LOG"], "a") as f:
    f.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_MPREMOTE_NOBOARD"):
    sys.stderr.write("mpremote: no device found\\n")
    sys.exit(1)
if "cp" in args:
    for p in args[args.index("cp") + 1:-1]:
        if not os.path.isfile(p):
            sys.stderr.write("mpremote: cp: %s: No such file or directory\\n" % p)
            sys.exit(1)
if "exec" in args and "_mpy" in args[args.index("exec") + 1]:
    print(os.environ["FAKE_MPY"])
# With FAKE_BOARD_FS the board's flash is that folder: `exec` runs the clean-up
# there, `cp` copies file by file (failing as a pulled cable does after
# FAKE_CP_FAIL_AFTER files), `reset` can fail (FAKE_RESET_FAIL).
board = os.environ.get("FAKE_BOARD_FS")
if board:
    import shutil
    if "exec" in args and "_mpy" not in args[args.index("exec") + 1]:
        here = os.getcwd()
        os.chdir(board)
        exec(args[args.index("exec") + 1], {{}})
        os.chdir(here)
    if "cp" in args:
        fail = int(os.environ.get("FAKE_CP_FAIL_AFTER", "-1"))
        for i, p in enumerate(args[args.index("cp") + 1:-1]):
            if i == fail:
                sys.stdout.write("cp %s :\\n ... copying  40%% [####------]\\r" % p)
                sys.stderr.write("Traceback (most recent call last):\\n"
                                 "  File \\"mpremote/transport_serial.py\\", line 250\\n"
                                 "OSError: [Errno 5] Input/output error\\n")
                sys.exit(1)
            print("cp %s :" % p)
            shutil.copyfile(p, os.path.join(board, os.path.basename(p)))
    if args[-1] == "reset" and os.environ.get("FAKE_RESET_FAIL"):
        sys.stderr.write("mpremote: failed to access /dev/ttyFAKE0 (it may be in use by "
                         "another program)\\n")
        sys.exit(1)
"""


@pytest.fixture
def fake_board(tmp_path):
    """A fake mpremote first on PATH; returns (env, read_log)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "mpremote"
    exe.write_text(FAKE_MPREMOTE.format(python=sys.executable))
    exe.chmod(0o755)
    log = tmp_path / "mpremote.log"
    ver, sub = mpy_cross_version()
    env = dict(os.environ)
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["FAKE_MPREMOTE_LOG"] = str(log)
    env["FAKE_MPY"] = "%d 1 28" % (ver | sub << 8 | 4 << 10)  # an rp2 board, same .mpy

    def read_log():
        if not log.exists():
            return []
        return [json.loads(l) for l in log.read_text().splitlines()]

    return env, read_log


def test_deploy_runs_mpremote_exactly_as_dry_run_prints(tmp_path, fake_board):
    env, read_log = fake_board
    build = tmp_path / "stage"
    expected = [shlex.split(l)[1:] for l in dry_run(build)]
    proc = run_deploy(["deploy", "--board", "pico", "--port", PORT, "--build-dir", str(build)],
                      env=env)
    assert proc.returncode == 0, proc.stderr
    assert read_log() == expected
    assert "Traceback" not in proc.stderr


def test_deploy_falls_back_to_sources_on_another_mpy_version(tmp_path, fake_board):
    env, read_log = fake_board
    env["FAKE_MPY"] = "%d 1 18" % (5 | 4 << 10)  # MicroPython 1.18: .mpy v5
    build = tmp_path / "stage"
    proc = run_deploy(["deploy", "--board", "pico", "--port", PORT, "--build-dir", str(build)],
                      env=env)
    assert proc.returncode == 0, proc.stderr
    said = [l for l in proc.stderr.splitlines() if "sources" in l and "instead" in l]
    assert len(said) == 1, proc.stderr
    assert "v5" in said[0]
    log = read_log()
    assert len(log) == 3
    cp = log[1]
    copied = cp[cp.index("cp") + 1:-1]
    assert copied and all(p.endswith(".py") for p in copied)
    assert sorted(os.path.basename(p) for p in copied) == sorted(
        f for f in os.listdir(build) if f != deploy.MARKER)
    assert {os.path.basename(p) for p in copied} >= {m + ".py" for m in firmware_modules()}
    for m in firmware_modules():
        if m != "main":
            assert '"%s.mpy"' % m in cp[cp.index("exec") + 1]  # stale .mpy removed
    assert log[2][-1] == "reset"


def test_deploy_keeps_mpy_when_only_the_sub_version_differs(tmp_path, fake_board):
    env, read_log = fake_board
    ver, sub = mpy_cross_version()
    other = (sub + 1) % 4
    env["FAKE_MPY"] = "%d 1 30" % (ver | other << 8 | 10 << 10)  # esp32, newer firmware
    build = tmp_path / "stage"
    proc = run_deploy(["deploy", "--board", "esp32", "--port", PORT, "--build-dir",
                       str(build)], env=env)
    assert proc.returncode == 0, proc.stderr
    cp = read_log()[1]
    assert any(p.endswith(".mpy") for p in cp[cp.index("cp") + 1:-1])


def test_no_board_is_one_line_and_exit_2(tmp_path, fake_board):
    env, read_log = fake_board
    env["FAKE_MPREMOTE_NOBOARD"] = "1"
    proc = run_deploy(["deploy", "--board", "pico", "--port", PORT, "--build-dir",
                       str(tmp_path / "stage")], env=env)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "no MicroPython board found on %s" % PORT in lines[0]
    assert "PORT=" in lines[0]
    assert len(read_log()) == 1  # asked, then stopped: nothing copied


def test_no_board_with_the_real_mpremote(tmp_path):
    if not venv_tool("mpremote"):
        pytest.skip("mpremote not installed")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(venv_tool("mpremote")) + os.pathsep + env.get("PATH", "")
    port = str(tmp_path / "ttyNOTHERE")
    proc = run_deploy(["deploy", "--board", "esp32", "--port", port, "--build-dir",
                       str(tmp_path / "stage")], env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "no MicroPython board found on " + port in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_makefile_targets_call_deploy():
    out = subprocess.run(["make", "-n", "deploy", "BOARD=esp32",
                          "PORT=/dev/ttyUSB9", "DRY_RUN=1"],
                         capture_output=True, text=True, cwd=ROOT).stdout
    assert re.search(r"tools/deploy\.py deploy --board esp32 --port /dev/ttyUSB9 +--dry-run",
                     out), out
    out = subprocess.run(["make", "-n", "bundle", "BOARD=pico_2004"], capture_output=True,
                         text=True, cwd=ROOT).stdout
    assert "tools/deploy.py bundle --board pico_2004" in out, out


def old_board(tmp_path):
    """A board running an older version of the small app."""
    board = tmp_path / "flash"
    board.mkdir()
    (board / "main.py").write_text("import helper\nprint('old main', helper.OLD)\n")
    (board / "helper.mpy").write_bytes(b"M\x06old")
    (board / "board.py").write_text("LCD_COLS = 16\n")
    return board


def test_a_copy_cut_off_midway_leaves_no_main_py_and_says_why(fake_firmware, tmp_path,
                                                              fake_board):
    """Issue 12 item 5: the old main.py goes before anything is copied and
    the new one comes last, so a copy cut off midway never leaves a board
    that boots a mix of old and new modules; the error is mpremote's own
    reason (its last stderr line), not its progress output.  A good deploy
    then boots the new app (run by the real micropython)."""
    env, read_log = fake_board
    board = old_board(tmp_path)
    env["FAKE_BOARD_FS"] = str(board)
    build = tmp_path / "stage"
    args = ["deploy", "--board", "pico", "--port", PORT, "--firmware", str(fake_firmware),
            "--build-dir", str(build)]
    for fail_after in (0, 1, 2):
        env["FAKE_CP_FAIL_AFTER"] = str(fail_after)
        line = one_line(run_deploy(args, env=env), 1, "OSError: [Errno 5] Input/output error",
                        "no main.py")
        assert "%" not in line and "cp " not in line and "no MicroPython board" not in line
        assert "main.py" not in os.listdir(board)   # boots to the REPL, not a mix
    del env["FAKE_CP_FAIL_AFTER"]
    proc = run_deploy(args, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (board / "main.py").read_text() == FAKE_FIRMWARE["main.py"]
    boot = run_micropython([str(board / "main.py")], [str(board)], str(tmp_path))
    assert boot.stdout.split() == ["main", "45", "25:00", "16"], boot.stdout + boot.stderr


def test_a_reset_failing_after_a_good_copy_is_not_no_board(fake_firmware, tmp_path,
                                                           fake_board):
    """Issue 12 item 5: the files are on the board; only the restart failed,
    and the message says so with mpremote's reason."""
    env, read_log = fake_board
    board = old_board(tmp_path)
    env["FAKE_BOARD_FS"] = str(board)
    env["FAKE_RESET_FAIL"] = "1"
    line = one_line(run_deploy(["deploy", "--board", "pico", "--port", PORT, "--firmware",
                                str(fake_firmware), "--build-dir", str(tmp_path / "stage")],
                               env=env), 1, "copied", "resetting the board failed",
                    "failed to access /dev/ttyFAKE0", "reset button")
    assert "no MicroPython board found" not in line
    assert (board / "main.py").read_text() == FAKE_FIRMWARE["main.py"]


def test_reason_skips_progress_lines():
    # progress output alone is no reason
    assert deploy.reason("", "cp a.mpy :\n ... copying  40% [####------]\r", 1) == \
        "exit status 1"
    assert deploy.reason("mpremote: cp: No space left on device\n",
                         "cp a.mpy :\n ... copying  40% [####---]\r", 1) == \
        "cp: No space left on device"
    assert deploy.reason("", "", 3) == "exit status 3"


def test_net_json_goes_onto_the_board(tmp_path):
    """make deploy BOARD=pico_w TABLE=n (issue 14): the hall's net.json is
    staged and copied with the app, as written."""
    cfg = tmp_path / "net-12.json"
    cfg.write_text('{"table": 12}')
    build = tmp_path / "stage"
    lines = []
    deploy.deploy("pico_w", port=PORT, dry_run=True, build_dir=str(build),
                  out=lines.append, net_json=str(cfg))
    copied = shlex.split(lines[1])[7:-1]
    assert os.path.basename(copied[0]) == "net.json"
    assert (build / "net.json").read_text() == '{"table": 12}'


def test_two_deploys_at_once_stage_in_folders_of_their_own(tmp_path, monkeypatch):
    """Two clocks deployed at once (two ports, two terminals, two test
    workers) must not build into one folder: each default deploy stages in
    a folder of its own under build/, and leaves none behind."""
    import threading
    monkeypatch.setattr(deploy, "ROOT", str(tmp_path))
    runs = [[], []]
    threads = [threading.Thread(target=deploy.deploy, args=("pico",),
                                kwargs=dict(port=PORT, dry_run=True, out=lines.append))
               for lines in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    folders = set()
    for lines in runs:
        cp = [shlex.split(line) for line in lines if " cp " in line]
        assert len(cp) == 1, lines
        files = cp[0][cp[0].index("cp") + 1:-1]
        assert len({os.path.dirname(f) for f in files}) == 1
        folders.add(os.path.dirname(files[0]))
    assert len(folders) == 2 and all(f.startswith("build/deploy-pico-") for f in folders)
    assert os.listdir(tmp_path / "build") == []
