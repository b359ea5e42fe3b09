"""The CPython side of the Scrabble clock: the simulator, the replay tool,
the log copier, the emulated targets.  The tournament hall (hall/) builds on
it; this package never imports the hall (tests/test_layers.py).

The device code lives in firmware/ as flat MicroPython modules; the hardware
fakes (machine, the HD44780 + PCF8574 emulator) in host_sim/fakehw/.
Importing host_sim installs the one importer that finds them
(host_sim/paths.py: the folders of pytest.ini's `pythonpath` in a checkout,
the installed package's copies otherwise), so the simulator, the hall, the
tools and the bench import exactly the modules the board runs.

* the modules that go onto the board are listed by the package manifests
  firmware/clock-core/manifest.py and firmware/clock-net/manifest.py (it
  require()s clock-core), read here by `firmware_files()`, plus the display
  family drivers the board file's DISPLAY names (firmware/<family>.py, in
  no manifest): `board_files()` is what deploy, bundle and the frozen image
  take for a board (`board_package()`: clock-net for a board with WIFI);
  the target images and the mpy-cross test take every package and every
  family some board in boards/ names (`firmware_files()`).

A tool run by its path (`python tools/x.py`) finds this package through
tools/repo_root.py, the only place that touches sys.path.
"""
import os

from host_sim import paths
from host_sim.paths import ROOT, FIRMWARE, BOARDS, FAKEHW, host_paths  # noqa: F401
MP_TESTS = os.path.join(ROOT, "tests", "mp")
MANIFEST = "manifest.py"

paths.install()


class ManifestError(Exception):
    """A package manifest is missing or asks for something we cannot read."""


# The packages of firmware/ (firmware/clock-core/manifest.py explains the
# layout): every board gets CORE; a board with Wi-Fi (board.WIFI, the flag
# the app itself reads before it imports net) gets NET, which requires CORE.
CORE = "clock-core"
NET = "clock-net"


def board_package(board):
    """The package `make deploy`/`make bundle` copy for a board module."""
    return NET if getattr(board, "WIFI", False) else CORE


def families(board):
    """The module names of the display families the board module's DISPLAY
    names (firmware/display.py's names(), the app's own reading)."""
    import display
    return display.names(board)


def all_families(boards_dir=BOARDS, firmware_dir=FIRMWARE):
    """["<family>.py"]: every display family some board file in boards_dir
    names, sorted; ManifestError (one line, naming the board) for one that
    is no module of firmware_dir or is a module of a package too."""
    from host_sim import boards as boardfiles
    listed = firmware_files(firmware_dir, boards_dir=None)
    out = set()
    for name in boardfiles.names(boards_dir):
        out.update(_families_of(name, boardfiles.load(name, boards_dir), firmware_dir, listed))
    return sorted(out)


def _families_of(name, board_mod, firmware_dir, listed):
    fams = family_files(families(board_mod), firmware_dir, "boards/%s.py" % name)
    for f in fams:
        if f in listed:
            raise ManifestError("boards/%s.py: DISPLAY names %s, a module of a package "
                                "manifest: a display family is in none (docs/display.md)"
                                % (name, f[:-3]))
    return fams


def family_files(names, firmware_dir=FIRMWARE, who="a board"):
    """["<family>.py"] for the family names; ManifestError (one line) for a
    name that is no module of firmware_dir."""
    out = []
    for n in names:
        if not isinstance(n, str) or not n.isidentifier() \
                or not os.path.isfile(os.path.join(firmware_dir, n + ".py")):
            raise ManifestError("%s: DISPLAY names the display family %r, but there is no "
                                "firmware/%s.py (docs/display.md: adding a family)"
                                % (who, n, n))
        if n + ".py" not in out:
            out.append(n + ".py")
    return out


def board_files(board, firmware_dir=FIRMWARE, boards_dir=BOARDS):
    """The firmware files a board gets, by board name: its package's
    modules (board_package, firmware_files), then the display families its
    DISPLAY names.  Deploy, bundle and the frozen image all take this.
    BoardError for an unknown board, ManifestError (one line) for a family
    that does not exist or a package's module listed as a family too."""
    from host_sim import boards as boardfiles
    mod = boardfiles.load(board, boards_dir)
    return (firmware_files(firmware_dir, board_package(mod))
            + _families_of(board, mod, firmware_dir, firmware_files(firmware_dir, boards_dir=None)))


def packages(firmware_dir=FIRMWARE):
    """The package names in firmware_dir: its sub-folders holding a manifest.py."""
    try:
        names = os.listdir(firmware_dir)
    except OSError as e:
        raise ManifestError("cannot read %s: %s" % (firmware_dir, e.strerror or e))
    return sorted(n for n in names if os.path.isfile(os.path.join(firmware_dir, n, MANIFEST)))


def firmware_files(firmware_dir=FIRMWARE, package=None, boards_dir=BOARDS):
    """The file names `package` lists with module(), after those of the
    packages it require()s, in order; package=None: every package's, then
    every display family a board file in boards_dir names (all_families;
    boards_dir=None: none) -- the test images, the mpy-cross test, the
    plumbing check.  A board's files are board_files().

    The manifests are micropython-lib style and read the way its
    tools/manifestfile.py reads them, restricted to what a flat app needs:
    metadata() first; module("x.py", base_path="..") naming a file of firmware_dir
    itself (the board's top folder is flat); require("name"), the package
    whose manifest is firmware_dir/name/manifest.py (micropython-lib finds
    `**/name/manifest.py` in its library folders; here the library is
    firmware_dir).  A package required twice is read once, as there.
    Anything else (include, package, freeze, options, a file listed by two
    packages) is refused with a one-line ManifestError."""
    files = []
    seen = set()
    names = packages(firmware_dir) if package is None else [package]
    if not names:
        raise ManifestError("%s: no package (a folder holding %s)" % (firmware_dir, MANIFEST))
    for name in names:
        _read_package(firmware_dir, name, files, seen, ())
    if package is None and boards_dir is not None:
        files += all_families(boards_dir, firmware_dir)
    return files


def _read_package(firmware_dir, name, files, seen, chain):
    if name in seen:
        return
    seen.add(name)
    path = os.path.join(firmware_dir, name, MANIFEST)
    if "/" in name or "\\" in name or name.startswith("."):
        raise ManifestError("require(%r): a package is a folder name in %s"
                            % (name, firmware_dir))
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        where = " (required by %s)" % chain[-1] if chain else ""
        raise ManifestError("cannot read %s%s: %s" % (path, where, e.strerror or e))
    here = os.path.dirname(path)
    top = os.path.normpath(firmware_dir)
    begun = []

    def first():
        # micropython-lib's compile mode: "metadata() must be the first command"
        if not begun:
            raise ManifestError("%s: metadata() must be the first command" % path)

    def module(mod, base_path=".", opt=None):
        first()
        base = os.path.normpath(os.path.join(here, base_path))
        if base != top or "/" in mod or "\\" in mod or not mod.endswith(".py"):
            raise ManifestError("%s: module(%r, base_path=%r): only a .py file of %s "
                                "(base_path=\"..\")" % (path, mod, base_path, firmware_dir))
        if mod in files:
            raise ManifestError("%s: %s listed twice" % (path, mod))
        files.append(mod)

    def require(req, version=None, library=None, **_kw):
        first()
        _read_package(firmware_dir, req, files, seen, chain + (name,))

    def metadata(**_kw):
        if begun:
            raise ManifestError("%s: metadata() twice" % path)
        begun.append(True)

    def refuse(*_a, **_kw):
        raise ManifestError("%s: only metadata(), require() and module() are read here" % path)

    scope = {"module": module, "require": require, "metadata": metadata,
             "__builtins__": {}}
    for verb in ("include", "freeze", "package", "options", "add_library"):
        scope[verb] = refuse
    try:
        exec(compile(text, path, "exec"), scope)
    except ManifestError:
        raise
    except Exception as e:
        raise ManifestError("%s: %s: %s" % (path, type(e).__name__, e))


def app_commit(root=ROOT):
    """The app's commit as the device shows it (the splash, every game
    log's header: firmware/appversion.py), written into the image and the
    .mpy bundle as buildinfo.py: git's short hash, with "+" when firmware/
    or boards/ differ from it; $SCRABBLE_COMMIT if set; "" without git."""
    import subprocess
    if os.environ.get("SCRABBLE_COMMIT"):
        return os.environ["SCRABBLE_COMMIT"][:12]
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short=7", "HEAD"],
                              capture_output=True, text=True, timeout=30)
        if head.returncode:
            return ""
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain",
                                "--untracked-files=no", "--", "firmware", "boards"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")
