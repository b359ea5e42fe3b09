"""The CPython side of the Scrabble clock: replay tool, simulator, hall.

The device code lives in firmware/ as flat MicroPython modules; the hardware
fakes (machine, the HD44780 + PCF8574 emulator) in host_sim/fakehw/.  This
module is the one place the host finds them:

* the folders are pytest.ini's `pythonpath` (the tests get them from pytest
  itself, editors and type checkers from pyrightconfig.json, which
  tests/test_plumbing.py keeps equal); importing host_sim puts the same
  folders on sys.path, so tools, the bench and the simulator import exactly
  the modules the board runs;
* the modules that go onto the board are firmware/manifest.py, read here by
  `firmware_files()` for deploy, bundle, the target images and the
  mpy-cross test.

A tool run by its path (`python tools/x.py`) finds this package through
tools/repo_root.py, the only other place that touches sys.path.
"""
import configparser
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKEHW = os.path.join(ROOT, "host_sim", "fakehw")
BOARDS = os.path.join(ROOT, "boards")
MP_TESTS = os.path.join(ROOT, "tests", "mp")
MANIFEST = "manifest.py"


def host_paths():
    """pytest.ini's `pythonpath`, as absolute folders, first one first."""
    ini = configparser.ConfigParser()
    ini.read(os.path.join(ROOT, "pytest.ini"))
    return [os.path.normpath(os.path.join(ROOT, p))
            for p in ini.get("pytest", "pythonpath").split()]


for _p in reversed(host_paths()):
    if _p not in sys.path:
        sys.path.insert(0, _p)


class ManifestError(Exception):
    """firmware/manifest.py is missing or asks for something we cannot read."""


def firmware_files(firmware_dir=FIRMWARE):
    """The file names firmware/manifest.py lists with module(), in its order.

    The manifest is micropython-lib style (a frozen build can include() it):
    only module("name.py") is used here; anything else is refused."""
    path = os.path.join(firmware_dir, MANIFEST)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ManifestError("cannot read %s: %s" % (path, e.strerror or e))
    files = []

    def module(name, base_path=".", opt=None):
        if base_path != "." or "/" in name or not name.endswith(".py"):
            raise ManifestError("%s: module(%r): only a .py file beside the manifest"
                                % (path, name))
        if name in files:
            raise ManifestError("%s: %s listed twice" % (path, name))
        files.append(name)

    def metadata(**_kw):
        pass

    def refuse(*_a, **_kw):
        raise ManifestError("%s: only module() and metadata() are read here" % path)

    scope = {"module": module, "metadata": metadata, "__builtins__": {}}
    for name in ("include", "freeze", "package", "require", "options"):
        scope[name] = refuse
    try:
        exec(compile(text, path, "exec"), scope)
    except ManifestError:
        raise
    except Exception as e:
        raise ManifestError("%s: %s: %s" % (path, type(e).__name__, e))
    return files
