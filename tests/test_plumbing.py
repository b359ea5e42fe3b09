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
    the one list of the app's modules: a module added to firmware/ but to no
    package would be left off the board."""
    on_disk = {os.path.basename(p) for p in glob.glob(os.path.join(FIRMWARE, "*.py"))}
    listed = host_sim.firmware_files()
    missing = sorted(on_disk - set(listed))
    assert not missing, "add to firmware/clock-core/manifest.py: " + ", ".join(
        'module("%s", base_path="..")' % m for m in missing)
    assert sorted(set(listed) - on_disk) == [], "listed in a manifest, not in firmware/"
    assert {"main.py", "app.py", "clockcore.py"} <= set(listed)
    assert host_sim.packages() == [host_sim.CORE, host_sim.NET]


def test_bundle_holds_exactly_the_manifest(tmp_path):
    """make bundle copies what the board's package lists (compiled, main.py
    as source) plus the board and the generated buildinfo (the app's
    commit), and nothing else from firmware/."""
    for board, package in (("pico", host_sim.CORE), ("pico_w", host_sim.NET)):
        names = deploy.build(str(tmp_path / board), board, compiled=False)
        assert sorted(names) == sorted(host_sim.firmware_files(package=package)
                                       + ["board.py", "buildinfo.py"])


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
    assert host_sim.firmware_files(fw) == ["a.py", "b.py", "c.py"]     # every package
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
