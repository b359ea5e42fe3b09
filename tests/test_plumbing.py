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
    """firmware/manifest.py is the one list of the app's modules: a module
    added to firmware/ but not to the manifest would be left off the board."""
    on_disk = {os.path.basename(p) for p in glob.glob(os.path.join(FIRMWARE, "*.py"))}
    on_disk.discard(host_sim.MANIFEST)
    listed = host_sim.firmware_files()
    missing = sorted(on_disk - set(listed))
    assert not missing, "add to firmware/manifest.py: " + ", ".join(
        'module("%s")' % m for m in missing)
    assert sorted(set(listed) - on_disk) == [], "listed in the manifest, not in firmware/"
    assert {"main.py", "app.py", "clockcore.py"} <= set(listed)


def test_bundle_holds_exactly_the_manifest(tmp_path):
    """make bundle copies what the manifest lists (compiled, main.py as source)
    plus the board, and nothing else from firmware/."""
    out = tmp_path / "b"
    names = deploy.build(str(out), "pico", compiled=False)
    assert sorted(names) == sorted(host_sim.firmware_files() + ["board.py"])


def _manifest(tmp_path, text):
    (tmp_path / "manifest.py").write_text(text)
    return str(tmp_path)


def test_manifest_reader_refuses_what_it_does_not_read(tmp_path):
    assert host_sim.firmware_files(_manifest(
        tmp_path, 'metadata(version="1")\nmodule("a.py")\nmodule("b.py")\n')) == ["a.py", "b.py"]
    for text, why in [('include("x/manifest.py")\n', "only module() and metadata()"),
                      ('module("sub/a.py")\n', "only a .py file beside the manifest"),
                      ('module("a.py")\nmodule("a.py")\n', "listed twice"),
                      ('module("a.mpy")\n', "only a .py file"),
                      ('import os\n', "ImportError"),
                      ('module(\n', "SyntaxError")]:
        with pytest.raises(host_sim.ManifestError, match=re.escape(why)):
            host_sim.firmware_files(_manifest(tmp_path, text))
    with pytest.raises(host_sim.ManifestError, match="cannot read"):
        host_sim.firmware_files(str(tmp_path / "nowhere"))


def test_deploy_without_a_manifest_says_so_in_one_line(tmp_path):
    (tmp_path / "main.py").write_text("print(1)\n")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deploy.py"), "bundle",
                           "--board", "pico", "--firmware", str(tmp_path),
                           "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "manifest.py" in lines[0], proc.stderr


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
    """Issue 13 item 5: the import path is set in one place (pytest.ini,
    read by host_sim/__init__.py), not edited file by file."""
    edits = []
    for top in ("bench", "firmware", "host_sim", "tests", "tools", "boards"):
        for path in glob.glob(os.path.join(ROOT, top, "**", "*.py"), recursive=True):
            if os.path.samefile(path, __file__):
                continue
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if re.search(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=", line):
                        edits.append("%s:%d" % (os.path.relpath(path, ROOT), n))
    assert edits == ["host_sim/__init__.py:%d" % _line_of("host_sim/__init__.py"),
                     "tools/repo_root.py:%d" % _line_of("tools/repo_root.py")], edits


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
