"""The host's plumbing (issue 13 item 5): one list of firmware modules, one
import path, no other sys.path edits."""
import configparser
import glob
import json
import os
import re
import subprocess
import sys

import pytest

import deploy
import host_sim
from conftest import FIRMWARE, ROOT


def test_manifest_lists_every_firmware_module_issue_13_5():
    """The package manifests (firmware/clock-core/, firmware/clock-net/) are
    the one list of the app's modules, and a board file's DISPLAY the list
    of its display families (issue 28: a family is in no manifest): a
    module of firmware/ in neither would be left off every board."""
    on_disk = {os.path.basename(p) for p in glob.glob(os.path.join(FIRMWARE, "*.py"))}
    listed = host_sim.firmware_files()
    missing = sorted(on_disk - set(listed))
    assert not missing, ("add to firmware/clock-core/manifest.py (or, a display family, "
                         "name it in a board file's DISPLAY): " + ", ".join(
                             'module("%s", base_path="..")' % m for m in missing))
    assert sorted(set(listed) - on_disk) == [], "listed in a manifest, not in firmware/"
    assert {"main.py", "app.py", "clockcore.py"} <= set(listed)
    assert host_sim.packages() == [host_sim.CORE, host_sim.NET]
    fams = host_sim.all_families()
    assert {"hd44780.py", "tm1637.py"} <= set(fams)
    assert not set(fams) & set(host_sim.firmware_files(boards_dir=None)), "a family in a manifest"
    assert listed == host_sim.firmware_files(boards_dir=None) + fams


def test_a_board_gets_its_package_and_exactly_its_families_issue_28():
    """The board decides which display families are bundled: pico's LCD
    only, pico_tm1637 the LCD and the TM1637 driver, each once, after its
    package's modules."""
    core = host_sim.firmware_files(package=host_sim.CORE)
    assert host_sim.board_files("pico") == core + ["hd44780.py"]
    assert host_sim.board_files("pico_tm1637") == core + ["hd44780.py", "tm1637.py"]
    assert host_sim.board_files("pico_w") == (host_sim.firmware_files(package=host_sim.NET)
                                              + ["hd44780.py"])


def _odd_board(tmp_path, display):
    """A copy of boards/pico.py under tmp_path/boards naming `display`."""
    boards = tmp_path / "boards"
    boards.mkdir(exist_ok=True)
    with open(os.path.join(ROOT, "boards", "pico.py")) as f:
        text = f.read()
    (boards / "odd.py").write_text(re.sub(r"(?m)^DISPLAY = .*$", "DISPLAY = %r" % (display,),
                                          text))
    return str(boards)


@pytest.mark.parametrize("display", [("hd44780", "ledbarx"), "../hd44780", ("main",)])
def test_a_board_naming_an_unknown_family_says_so_in_one_line_issue_28(tmp_path, display):
    """A family a board names must be a firmware module that is in no
    manifest; else one line naming the board (make deploy, make firmware
    and the test images all ask board_files/all_families)."""
    boards = _odd_board(tmp_path, display)
    for call in (lambda: host_sim.board_files("odd", boards_dir=boards),
                 lambda: host_sim.all_families(boards)):
        with pytest.raises(host_sim.ManifestError) as e:
            call()
        msg = str(e.value)
        assert "\n" not in msg and "boards/odd.py" in msg, msg
        assert ("no firmware/" in msg) if display != ("main",) else ("in none" in msg), msg


def test_make_deploy_and_firmware_refuse_a_missing_family_in_one_line(tmp_path, monkeypatch):
    """`make bundle`/`make deploy` with firmware lacking the board's family,
    and `make firmware` for a board naming an unknown one: one line, exit 2,
    before anything is built."""
    (tmp_path / "fw").mkdir()
    fw = _packages(tmp_path / "fw",
                   clock_core='metadata()\nmodule("main.py", base_path="..")\n',
                   clock_net='metadata()\nrequire("clock-core")\n')
    (tmp_path / "fw" / "main.py").write_text("print(1)\n")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deploy.py"), "bundle",
                           "--board", "pico", "--firmware", fw, "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "boards/pico.py" in lines[0] and "firmware/hd44780.py" in lines[0], lines
    assert not (tmp_path / "out").exists()
    import fwimage
    boards = _odd_board(tmp_path, ("hd44780", "ledbarx"))
    monkeypatch.setattr(fwimage, "board_files",
                        lambda b: host_sim.board_files(b, boards_dir=boards))
    with pytest.raises(fwimage.FirmwareError) as e:
        fwimage.app_files("odd", "abc1234")
    assert e.value.status == 2 and "'ledbarx'" in str(e.value) and "\n" not in str(e.value)


def test_bundle_holds_exactly_the_manifest(tmp_path):
    """make bundle copies what the board's package lists (compiled, main.py
    as source) plus the board and the generated buildinfo (the app's
    commit), and nothing else from firmware/: no display family the board
    does not name (issue 28)."""
    for board, package in (("pico", host_sim.CORE), ("pico_w", host_sim.NET),
                           ("pico_tm1637", host_sim.CORE)):
        names = deploy.build(str(tmp_path / board), board, compiled=False)
        assert sorted(names) == sorted(host_sim.board_files(board)
                                       + ["board.py", "buildinfo.py"])
        assert sorted(names) == sorted(host_sim.firmware_files(package=package)
                                       + list(_families(board)) + ["board.py", "buildinfo.py"])


def _families(board):
    import display
    from host_sim import boards as boardfiles
    return [n + ".py" for n in display.names(boardfiles.load(board))]


def _packages(tmp_path, **texts):
    """A firmware folder with one package a keyword (clock_core -> clock-core)."""
    for name, text in texts.items():
        d = tmp_path / name.replace("_", "-")
        d.mkdir(exist_ok=True)
        (d / "manifest.py").write_text(text)
    return str(tmp_path)


def test_manifest_reader_resolves_require_in_order(tmp_path):
    """require("name") reads the package whose manifest is firmware/name/
    (micropython-lib: `**/name/manifest.py` in a library), its modules
    first; a package required twice is read once."""
    fw = _packages(tmp_path,
                   a_core='metadata(version="1")\nmodule("a.py", base_path="..")\n',
                   b_mid='metadata()\nrequire("a-core")\nmodule("b.py", base_path="..")\n',
                   c_top='metadata()\nrequire("b-mid")\nrequire("a-core")\n'
                         'module("c.py", base_path="..")\n')
    assert host_sim.firmware_files(fw, "a-core") == ["a.py"]
    assert host_sim.firmware_files(fw, "c-top") == ["a.py", "b.py", "c.py"]
    assert host_sim.firmware_files(fw, boards_dir=None) == ["a.py", "b.py", "c.py"]  # every package
    assert host_sim.packages(fw) == ["a-core", "b-mid", "c-top"]


def test_manifest_reader_refuses_what_it_does_not_read(tmp_path):
    only = "only metadata(), require() and module()"
    for text, why in [('module("a.py", base_path="..")\n', "metadata() must be the first"),
                      ('require("a")\n', "metadata() must be the first"),
                      ('metadata()\nmetadata()\n', "metadata() twice"),
                      ('metadata()\ninclude("x/manifest.py")\n', only),
                      ('metadata()\npackage("p")\n', only),
                      ('metadata()\nmodule("a.py")\n', "only a .py file of"),  # beside the manifest
                      ('metadata()\nmodule("a.py", base_path="../..")\n', "only a .py file of"),
                      ('metadata()\nmodule("sub/a.py", base_path="..")\n', "only a .py file of"),
                      ('metadata()\n' + 'module("a.py", base_path="..")\n' * 2, "listed twice"),
                      ('metadata()\nmodule("a.mpy", base_path="..")\n', "only a .py file"),
                      ('metadata()\nrequire("nosuch")\n', "cannot read"),
                      ('metadata()\nrequire("../x")\n', "a package is a folder name"),
                      ('metadata()\nimport os\n', "ImportError"),
                      ('metadata()\nmodule(\n', "SyntaxError")]:
        fw = _packages(tmp_path, p=text)
        with pytest.raises(host_sim.ManifestError, match=re.escape(why)):
            host_sim.firmware_files(fw, "p")
    with pytest.raises(host_sim.ManifestError, match="cannot read"):
        host_sim.firmware_files(str(tmp_path / "nowhere"))
    two = tmp_path / "two"
    two.mkdir()
    with pytest.raises(host_sim.ManifestError, match="listed twice"):   # by two packages
        host_sim.firmware_files(_packages(two, x='metadata()\nmodule("a.py", base_path="..")\n',
                                          y='metadata()\nmodule("a.py", base_path="..")\n'))


def test_deploy_without_a_manifest_says_so_in_one_line(tmp_path):
    (tmp_path / "main.py").write_text("print(1)\n")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deploy.py"), "bundle",
                           "--board", "pico", "--firmware", str(tmp_path),
                           "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "clock-core/manifest.py" in lines[0], proc.stderr


def _pytest_paths():
    ini = configparser.ConfigParser()
    ini.read(os.path.join(ROOT, "pytest.ini"))
    return ini.get("pytest", "pythonpath").split()


def test_editors_see_the_same_import_path_as_pytest_and_the_tools():
    with open(os.path.join(ROOT, "pyrightconfig.json")) as f:
        extra = json.load(f)["extraPaths"]
    assert extra == _pytest_paths()
    assert host_sim.host_paths() == [os.path.normpath(os.path.join(ROOT, p))
                                     for p in _pytest_paths()]
    for folder in host_sim.host_paths():
        assert folder in sys.path          # what pytest put there
        assert os.path.isdir(folder)


def test_nothing_else_edits_sys_path():
    """Issue 13 item 5: the import path is set in one place (pytest.ini);
    issue 35: no product module edits sys.path, the flat modules are found
    by host_sim/paths.py's importer (FlatModules, on sys.meta_path).  Only
    a tool run by its path puts its checkout first (tools/repo_root.py),
    and the qemu board's own path gets its ROMFS first (tests/mp/ramflash.py:
    code that runs on the board, not on the host)."""
    edits = []
    for top in ("bench", "firmware", "hall", "host_sim", "tests", "tools", "boards"):
        for path in glob.glob(os.path.join(ROOT, top, "**", "*.py"), recursive=True):
            if os.path.samefile(path, __file__):
                continue
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=", line):
                        edits.append("%s:%d" % (os.path.relpath(path, ROOT), n))
    assert edits == ["tests/mp/ramflash.py:%d" % _line_of("tests/mp/ramflash.py"),
                     "tools/repo_root.py:%d" % _line_of("tools/repo_root.py")], edits


def test_the_flat_modules_come_from_the_folders_of_the_import_path_issue_35():
    """One importer answers for the flat modules, exactly from pytest.ini's
    folders, first folder first: a firmware module, a hardware fake, a
    shared bench and a tool are the checkout's files; a package's module
    or an unknown name is not its business."""
    finder = next(f for f in sys.meta_path if isinstance(f, host_sim.paths.FlatModules))
    assert finder.folders == [p for p in host_sim.host_paths() if p != ROOT]
    import clockcore
    import machine
    import mptest
    assert clockcore.__file__ == os.path.join(FIRMWARE, "clockcore.py")
    assert machine.__file__ == os.path.join(host_sim.FAKEHW, "machine.py")
    assert mptest.__file__ == os.path.join(host_sim.MP_TESTS, "mptest.py")
    assert finder.where("deploy") == os.path.join(ROOT, "tools", "deploy.py")
    assert finder.find_spec("clockcore", path=["x"]) is None      # a package's submodule
    assert finder.where("no_such_module_x") is None and finder.where("hall.cli") is None
    idx = sys.meta_path.index(finder)
    assert sys.meta_path[idx + 1:].count(__import__("importlib").machinery.PathFinder) == 1


def _line_of(path):
    with open(os.path.join(ROOT, path)) as f:
        return next(n for n, line in enumerate(f, 1) if "sys.path.insert" in line)


def _as_a_user(cmd):
    """cmd run as an ordinary user (make deps installs only as root)."""
    if os.getuid() != 0:
        return cmd
    import shutil
    runuser = shutil.which("runuser")
    if runuser is None:
        pytest.skip("root without runuser: cannot run make deps as a user")
    return [runuser, "-u", "nobody", "--"] + cmd


@pytest.mark.parametrize("ci", ["", "true"])
def test_make_deps_names_what_is_missing_in_one_line(ci):
    """Issue 13 item 5: without root, make deps prints one line naming the
    missing package and goes on (the tests that need it skip); under
    CI=true it fails the run."""
    env = dict(os.environ, CI=ci)
    proc = subprocess.run(_as_a_user(["make", "-s", "--no-print-directory", "deps",
                                      "OS_TOOLS=sh:dash no-such-tool-x:no-such-package-x"]),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout.strip().splitlines()
    assert len(out) == 1 and "no-such-package-x" in out[0] and "dash" not in out[0], proc
    if ci:
        assert proc.returncode != 0 and out[0].startswith("error:")
    else:
        assert proc.returncode == 0 and out[0].startswith("note: install")
