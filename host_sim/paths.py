"""Where the host finds what it runs, in one place (issue 35): the folders
(ROOT, FIRMWARE, BOARDS, FAKEHW) and the one importer of the device's flat
modules.  host_sim/__init__.py re-exports the folders and installs the
importer; host_sim/boards.py and the hall take them from here, so the
package and its board reader import each other in no circle.

The firmware is a folder of flat MicroPython modules (`import clockcore`),
as they sit in the board's flash, and the simulator, the replay and the
hall import exactly those files.  Two layouts:

* a checkout: firmware/ and boards/ beside host_sim/, and the folders of
  pytest.ini's `pythonpath` (the firmware, the hardware fakes, the benches
  shared with the MicroPython suites, tools/; pyrightconfig.json repeats
  them for editors, tests/test_plumbing.py keeps the two equal);
* an installed package (pip install, pyproject.toml): the same firmware/*.py
  and boards/*.py installed as host_sim/firmware/ and host_sim/boardfiles/
  (package data, never imported as host_sim.firmware.x), and the fakes.

`FlatModules`, a finder on sys.meta_path (no sys.path edit), answers for a
top-level module name that is a `<name>.py` of one of those folders and for
nothing else; it stands before the path finder, as the folders stood first
on sys.path before issue 35, so a firmware module is the board's own even
where a library of the same name is installed.
"""
import configparser
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))       # host_sim/
ROOT = os.path.dirname(HERE)                             # the checkout (or site-packages)
CHECKOUT = os.path.isfile(os.path.join(ROOT, "firmware", "clock-core", "manifest.py"))
FIRMWARE = os.path.join(ROOT, "firmware") if CHECKOUT else os.path.join(HERE, "firmware")
BOARDS = os.path.join(ROOT, "boards") if CHECKOUT else os.path.join(HERE, "boardfiles")
FAKEHW = os.path.join(HERE, "fakehw")
INI = os.path.join(ROOT, "pytest.ini")


def host_paths():
    """The folders the flat modules come from, first one first: in a
    checkout pytest.ini's `pythonpath` as absolute folders (the project root
    among them, which holds no flat module); installed, the firmware and
    the hardware fakes."""
    if not CHECKOUT or not os.path.isfile(INI):
        return [FAKEHW, FIRMWARE]
    ini = configparser.ConfigParser()
    ini.read(INI)
    return [os.path.normpath(os.path.join(ROOT, p))
            for p in ini.get("pytest", "pythonpath").split()]


class FlatModules:
    """A meta path finder for the flat modules of `folders`: a top-level
    name whose <name>.py is in one of them (first folder first)."""

    def __init__(self, folders):
        self.folders = [f for f in folders if os.path.normpath(f) != os.path.normpath(ROOT)]

    def where(self, name):
        """The file a top-level module `name` is imported from, or None."""
        if "." in name:
            return None
        for folder in self.folders:
            path = os.path.join(folder, name + ".py")
            if os.path.isfile(path):
                return path
        return None

    def find_spec(self, name, path=None, target=None):
        if path is not None:
            return None                       # a package's submodule: not ours
        found = self.where(name)
        if found is None:
            return None
        return importlib.util.spec_from_file_location(
            name, found, loader=importlib.machinery.SourceFileLoader(name, found))

    def invalidate_caches(self):
        pass


def install():
    """The finder on sys.meta_path, once, just before the path finder (the
    built-in and frozen modules stay first); returns it."""
    for f in sys.meta_path:
        if isinstance(f, FlatModules):
            return f
    finder = FlatModules(host_paths())
    at = next((i for i, f in enumerate(sys.meta_path)
               if f is importlib.machinery.PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, finder)
    return finder

