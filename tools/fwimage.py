#!/usr/bin/env python3
"""One firmware file per clock: MicroPython v1.28.0 with the app frozen in.

    python tools/fwimage.py build --board pico            # build/firmware/pico.uf2
    python tools/fwimage.py build --board pico_w --port-board RPI_PICO
    python tools/fwimage.py tables --board pico_w --tables 1-40 --broker IP ...

(`make firmware BOARD=...` and `make firmware-tables ...` call these;
docs/build.md says what an organizer does with the files.)

The image is the rp2 port of MicroPython built from the sources in
../shared/micropython (a tarball with the submodules and picotool; or
MICROPY_SRC=a tarball / an unpacked tree) with a manifest that freezes:

* the app: the modules of the board's package (clock-core, or clock-net for a
  board with WIFI = True; firmware/*/manifest.py) and the display family
  drivers its DISPLAY names (host_sim.board_files) -- bytecode run in place
  from flash, so it costs no heap and leaves the heap in one piece;
* the board file as the default `board` module (flattened as `make deploy`
  writes it: host_sim/boards.py).  A board.py on the filesystem comes first
  on sys.path, so an organizer can still fix a pin in Thonny;
* buildinfo.py, generated: the app's git commit (host_sim.app_commit), which
  the splash and every game log's header show (firmware/appversion.py);
* what the port's own board manifest freezes (asyncio, onewire, ...), so the
  image is the official one plus the clock.

Every rp2 image keeps its filesystem in the same place, the flash's last
848 KB (firmware/provision.py: the board header's region is rewritten), and
holds no filesystem block: flashing any of them over a used clock (BOOTSEL,
copy the file) keeps settings, results and game logs.  `tables` writes,
per table, the image plus the table block (that table's net.json, the hall
account `make deploy TABLE=n` writes) below the filesystem, which the clock
takes at power-up: a clock for the hall in one copy that loses nothing it
held.  Before anything is built it refuses a board without Wi-Fi and a
broker no clock could reach (hall.broker.clock_broker); it writes the
folder's manifest.csv and this run's labels.pdf (tools/tablelabels.py).

The work is cached outside the repository, so a fresh clone on the same
machine (CI) reuses it: ${SCRABBLE_FIRMWARE_CACHE:-${XDG_CACHE_HOME:-~/.cache}
/scrabble-clock/firmware}:

    src-<sha>/         the unpacked sources, mpy-cross and picotool built
    tree-<sha>-<port board>-<options>[-fs848k]/
                       one CMake build tree per port board and option set
                       (board/: the board definition, app/: the staged
                       frozen files, build/: objects); a new app commit
                       only regenerates the frozen content and relinks
    img/<key>.uf2      finished images, keyed by a hash of everything that
                       goes in (the sources' hash, this recipe, the port
                       board, the options, every frozen file): the same key
                       copies the image and runs no build at all

Each build writes <out>.json beside the image: the key, the commit, whether
the image was reused (`"reused": true`) and the sizes.  Builds run under
`nice`, with a lock per tree (two builds of one tree wait for each other,
the waiting one saying so); each step says what it runs and how long it
has taken (Progress).

Options (a variant for a test, e.g. TLS on a Pico without Wi-Fi):
--define NAME=VALUE adds `#define NAME (VALUE)` to the board's
mpconfigboard.h, --cmake NAME=VALUE `set(NAME VALUE)` to its
mpconfigboard.cmake; each option set gets its own tree and image name.
"""
import argparse
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import time

import repo_root  # noqa: F401  (this checkout's host_sim)
import buildparts  # what tools/deploy.py uses too
from host_sim import FIRMWARE, ROOT, ManifestError, app_commit, board_files
from host_sim import boards as boardfiles
import provision  # firmware/: the RP2040 images' one flash layout, the table block

MICROPY_VERSION = "v1.28.0"
ARCHIVE_GLOB = "micropython-*-src.tar.*"
EXIT_MISSING = 3      # a tool or the sources are not there (one line)
EXIT_FAILED = 1       # the build ran and failed
KEEP_IMAGES = 16      # finished images kept in the cache (newest first)

# The MicroPython board each clock board is built on: MCU and WIFI decide.
PORT_BOARDS = {("rp2040", False): ("rp2", "RPI_PICO"),
               ("rp2040", True): ("rp2", "RPI_PICO_W"),
               ("esp32", False): ("esp32", "ESP32_GENERIC"),
               ("esp32", True): ("esp32", "ESP32_GENERIC")}
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
UF2_FAMILY_RP2040 = 0xE48BFF56
XIP_BASE = 0x10000000
FLASH_BYTES = provision.FLASH_BYTES      # Pico and Pico W: a 2 MB W25Q16
# Every rp2 image keeps its filesystem in the same place (issue 37: the
# official RPI_PICO puts it at 0x100a0000, 1408 KB, RPI_PICO_W at
# 0x1012c000, 848 KB, where the Pico W's code reaches 319 KB into the
# other's): the board header's region is replaced by this one.
FS_BYTES = provision.FS_BYTES
STORAGE_DEFINE = re.compile(rb"^#define\s+MICROPY_HW_FLASH_STORAGE_BYTES\s.*$", re.M)
LFS_BLOCK = 4096                          # the rp2 port's littlefs (modules/_boot.py,
LFS_PROG, LFS_READ, LFS_LOOKAHEAD = 256, 32, 32   # extmod/vfs_lfs.c defaults)
# its cache: MIN(block, 4 * MAX(read, prog)) (extmod/vfs_lfsx.c).  A reader
# with a smaller one takes the clock's inline files (up to a cache) for
# corrupt ones: a 410-byte game log read as LFS_ERR_CORRUPT.
LFS_CACHE = min(LFS_BLOCK, 4 * max(LFS_READ, LFS_PROG))


class FirmwareError(Exception):
    """One line for the user; the exit status rides along."""

    def __init__(self, msg, status=EXIT_FAILED):
        Exception.__init__(self, msg)
        self.status = status


def say(msg):
    print("firmware: " + msg, file=sys.stderr, flush=True)


def cache_dir():
    d = os.environ.get("SCRABBLE_FIRMWARE_CACHE")
    if d:
        return os.path.abspath(d)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "scrabble-clock", "firmware")


def default_src():
    """$MICROPY_SRC, else ../shared/micropython beside the repository."""
    return os.environ.get("MICROPY_SRC") or os.path.join(ROOT, "..", "shared", "micropython")


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# -- what a long build says while it runs ----------------------------------------------
# A cold build is minutes of compiler: each step says when it starts and
# ends, and while it runs a line every PROGRESS_S with its elapsed time and
# how far make got (the "[ 45%]" its log shows); where the output is a
# terminal, one line redrawn every BAR_S with a bar instead.  A build that
# waits for another one's lock on the same tree says so, and how long.
PROGRESS_S = 20.0
BAR_S = 1.0
BAR_CELLS = 24
PERCENT = re.compile(rb"\[\s*(\d{1,3})%\]")


def _clock(secs):
    secs = int(secs)
    return "%d:%02d" % (secs // 60, secs % 60)


class Progress:
    """The numbered steps of one build and their progress, on `out`
    (stderr; a terminal gets the bar)."""

    def __init__(self, total=0, out=None):
        self.total = total
        self.n = 0
        self.out = out

    def _stream(self):
        return self.out or sys.stderr

    def tty(self):
        f = self._stream()
        return bool(getattr(f, "isatty", lambda: False)())

    def line(self, text, redraw=False):
        f = self._stream()
        if redraw:
            f.write("\r\x1b[Kfirmware: " + text)
        else:
            f.write("firmware: " + text + "\n")
        f.flush()

    def step(self, what):
        """The next step's label ("step 3/5 make (rp2 RPI_PICO)")."""
        self.n += 1
        if self.total < self.n:
            self.total = self.n
        return "step %d/%d %s" % (self.n, self.total, what)

    @staticmethod
    def percent(log):
        """How far make got, from the last "[ NN%]" in its log; None."""
        try:
            with open(log, "rb") as f:
                f.seek(max(0, os.path.getsize(log) - 8192))
                found = PERCENT.findall(f.read())
        except OSError:
            return None
        return min(100, int(found[-1])) if found else None

    def running(self, label, elapsed, pct):
        if self.tty():
            if pct is None:
                bar = "%-*s" % (BAR_CELLS, "." * (int(elapsed) % (BAR_CELLS + 1)))
                self.line("%s [%s] %s" % (label, bar, _clock(elapsed)), redraw=True)
            else:
                k = pct * BAR_CELLS // 100
                self.line("%s [%s%s] %3d %% %s" % (label, "#" * k, "-" * (BAR_CELLS - k), pct,
                                                   _clock(elapsed)), redraw=True)
        else:
            self.line("%s: %s elapsed%s" % (label, _clock(elapsed),
                                             "" if pct is None else ", %d %%" % pct))

    def done(self, label, elapsed, failed=False):
        if self.tty():
            self._stream().write("\n")
        self.line("%s %s after %s" % (label, "failed" if failed else "done", _clock(elapsed)))


class BuildLock:
    """An exclusive flock on `path` while in the with-block.  Waiting for
    another build's says so (`progress`), who holds it and for how long."""

    def __init__(self, path, progress=None, what="the build cache"):
        self.path = path
        self.progress = progress or Progress()
        self.what = what

    def _holder(self):
        try:
            with open(self.path) as f:
                return f.read().strip()[:200]
        except OSError:
            return ""

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "a+")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._wait()
        self.f.seek(0)
        self.f.truncate()
        self.f.write("pid %d: %s\n" % (os.getpid(), " ".join(sys.argv)[:160]))
        self.f.flush()
        return self

    def _wait(self):
        p = self.progress
        who = self._holder()
        p.line("waiting for %s: another build holds %s%s" % (
            self.what, os.path.basename(self.path), " (%s)" % who if who else ""))
        began = time.monotonic()
        shown = began
        while True:
            try:
                fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                pass
            time.sleep(min(0.2, BAR_S, PROGRESS_S))
            now = time.monotonic()
            if now - shown >= (BAR_S if p.tty() else PROGRESS_S):
                shown = now
                p.line("still waiting for %s: %s so far" % (self.what, _clock(now - began)),
                       redraw=p.tty())
        if p.tty():
            p._stream().write("\n")
        p.line("got %s after waiting %s" % (self.what, _clock(time.monotonic() - began)))

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def run_step(argv, log, cwd=None, env=None, what="build", progress=None):
    """Run a build step under nice, its output appended to `log`, saying
    how it goes (Progress); FirmwareError with the log's last lines if it
    fails."""
    p = progress or Progress()
    label = p.step(what)
    with open(log, "ab") as f:
        f.write(("\n$ %s\n" % " ".join(argv)).encode())
        f.flush()
        size0 = f.tell()
        p.line("%s (log: %s)" % (label, log))
        began = time.monotonic()
        proc = subprocess.Popen(["nice", "-n", "10"] + argv, stdout=f, stderr=subprocess.STDOUT,
                                cwd=cwd, env=env)
        shown = began
        while True:
            try:
                rc = proc.wait(timeout=min(BAR_S, PROGRESS_S))
                break
            except subprocess.TimeoutExpired:
                pass
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            now = time.monotonic()
            if now - shown >= (BAR_S if p.tty() else PROGRESS_S):
                shown = now
                pct = Progress.percent(log) if os.path.getsize(log) > size0 else None
                p.running(label, now - began, pct)
    p.done(label, time.monotonic() - began, failed=bool(rc))
    if rc:
        with open(log, "rb") as f:
            tail = f.read()[-1500:].decode(errors="replace")
        raise FirmwareError("%s failed (exit %d); the end of %s:\n%s" % (what, rc, log, tail))


def jobs():
    return str(max(1, min(4, os.cpu_count() or 1)))


# -- the sources ----------------------------------------------------------------

def find_sources(src=None):
    """(kind, path, sha) of the MicroPython sources: kind 'archive' (a
    tarball; sha of the file) or 'tree' (a folder holding micropython/ and
    picotool/; sha of every file's name, size and mtime)."""
    src = os.path.abspath(src or default_src())
    if os.path.isdir(src) and os.path.isdir(os.path.join(src, "micropython", "ports", "rp2")):
        h = hashlib.sha256()
        for top in ("micropython", "picotool"):
            for dirpath, dirs, files in os.walk(os.path.join(src, top)):
                dirs[:] = sorted(d for d in dirs if not d.startswith("build"))
                for n in sorted(files):
                    p = os.path.join(dirpath, n)
                    st = os.stat(p)
                    h.update(("%s %d %d\n" % (os.path.relpath(p, src), st.st_size,
                                              st.st_mtime_ns)).encode())
        return "tree", src, h.hexdigest()
    if os.path.isdir(src):
        found = sorted(glob.glob(os.path.join(src, ARCHIVE_GLOB)))
        if not found:
            raise FirmwareError("no MicroPython sources in %s (expected %s or a folder with "
                                "micropython/ and picotool/); give MICROPY_SRC=..."
                                % (src, ARCHIVE_GLOB), EXIT_MISSING)
        src = found[-1]
    if not os.path.isfile(src):
        raise FirmwareError("no MicroPython sources at %s; give MICROPY_SRC=<tarball or folder>"
                            % src, EXIT_MISSING)
    return "archive", src, file_sha(src)


def prepare_sources(kind, path, sha, log=None, progress=None):
    """The folder holding micropython/ (mpy-cross built) and picotool
    installed in tools/picotool; unpacked and built once per sources."""
    p = progress or Progress()
    root = os.path.join(cache_dir(), "src-" + sha[:12])
    ready = os.path.join(root, ".ready")
    if os.path.isfile(ready):
        return root
    for tool in ("cmake", "make", "arm-none-eabi-gcc", "cc"):
        if shutil.which(tool) is None:
            raise FirmwareError("%s not found: install the toolchain with `make deps` (Debian: "
                                "gcc-arm-none-eabi libnewlib-arm-none-eabi "
                                "libstdc++-arm-none-eabi-newlib cmake build-essential)" % tool,
                                EXIT_MISSING)
    with BuildLock(root + ".lock", p, "the MicroPython sources' lock"):
        if os.path.isfile(ready):
            return root
        log = log or os.path.join(cache_dir(), "src-%s.log" % sha[:12])
        if kind == "archive":
            if os.path.isdir(root):
                shutil.rmtree(root)
            tmp = root + ".partial"
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            label = p.step("unpacking %s" % os.path.basename(path))
            p.line(label)
            began = time.monotonic()
            with tarfile.open(path) as t:
                t.extractall(tmp, filter="data")
            p.done(label, time.monotonic() - began)
            os.rename(tmp, root)
            mp, pt = os.path.join(root, "micropython"), os.path.join(root, "picotool")
        else:
            os.makedirs(root, exist_ok=True)
            mp, pt = os.path.join(path, "micropython"), os.path.join(path, "picotool")
            for name, target in (("micropython", mp), ("picotool", pt)):
                link = os.path.join(root, name)
                if not os.path.islink(link):
                    os.symlink(target, link)
        say("building mpy-cross and picotool (once per MicroPython sources)")
        run_step(["make", "-C", os.path.join(mp, "mpy-cross"), "-j" + jobs()], log, what="mpy-cross",
             progress=p)
        ptb = os.path.join(root, "picotool-build")
        run_step(["cmake", "-S", pt, "-B", ptb,
              "-DPICO_SDK_PATH=" + os.path.join(mp, "lib", "pico-sdk"),
              "-DPICOTOOL_NO_LIBUSB=1", "-DPICOTOOL_FLAT_INSTALL=1",
              "-DCMAKE_INSTALL_PREFIX=" + os.path.join(root, "tools")], log,
             what="cmake (picotool)", progress=p)
        run_step(["make", "-C", ptb, "-j" + jobs(), "install"], log, what="make (picotool)",
             progress=p)
        with open(ready, "w") as f:
            f.write("%s %s\n" % (kind, path))
    return root


# -- what goes in -----------------------------------------------------------------

# A board with Wi-Fi built on a MicroPython board without it (the emulated
# Pico runs no CYW43 radio): the Pico W's network stack, lwIP with the
# socket and network modules, goes in without the radio, so the app's
# network modules load and run (a connection fails: no interface).
NET_WITHOUT_RADIO = {"cmake": [("MICROPY_PY_LWIP", "1")], "define": [("MICROPY_PY_NETWORK", "1")]}


def port_board(board, override=None):
    """(port, MicroPython board) for a clock board (PORT_BOARDS); `override`
    names another MicroPython board of the same port (a test image)."""
    mod = _load(board)
    key = (getattr(mod, "MCU", None), bool(getattr(mod, "WIFI", False)))
    if key not in PORT_BOARDS:
        raise FirmwareError("board %s has MCU = %r: no firmware image for it (boards: %s)"
                            % (board, key[0], ", ".join(sorted(
                                b for b in boardfiles.names()
                                if getattr(_load(b), "MCU", None) in ("rp2040", "esp32")))), 2)
    port, name = PORT_BOARDS[key]
    return port, (override or name)


def _load(board):
    try:
        return boardfiles.load(board)
    except boardfiles.BoardError as e:
        raise FirmwareError(str(e), 2)


def app_files(board, commit):
    """{file name: bytes} frozen into the image: the board's firmware files
    (host_sim.board_files: its package's modules and its display families),
    board.py and buildinfo.py.  Each gets a module() line in the generated
    manifest (_stage) and goes into the image's key (image_key)."""
    try:
        mods = board_files(board)
    except (ManifestError, boardfiles.BoardError) as e:
        raise FirmwareError(str(e), 2)
    out = {}
    for m in mods:
        with open(os.path.join(FIRMWARE, m), "rb") as f:
            out[m] = f.read()
    if "board.py" in out or "buildinfo.py" in out:
        raise FirmwareError("firmware/ must not hold board.py or buildinfo.py (generated)", 2)
    out["board.py"] = boardfiles.source(board).encode()
    out["buildinfo.py"] = buildparts.buildinfo_source(commit).encode()
    return out


def _options_id(defines, cmake):
    if not defines and not cmake:
        return "std"
    return _sha(json.dumps([sorted(defines), sorted(cmake)]).encode())[:8]


def _recipe_sha():
    with open(os.path.abspath(__file__), "rb") as f:
        return _sha(f.read())


def image_key(src_sha, port, mpboard, defines, cmake, files):
    h = hashlib.sha256()
    h.update(json.dumps({"src": src_sha, "recipe": _recipe_sha(), "port": port,
                         "board": mpboard, "fs_bytes": FS_BYTES, "defines": sorted(defines),
                         "cmake": sorted(cmake)}, sort_keys=True).encode())
    for name in sorted(files):
        h.update(b"\0%s\0%d\0" % (name.encode(), len(files[name])))
        h.update(files[name])
    return h.hexdigest()


def _write_if_changed(path, data):
    """Write only a changed file (mpy-cross in makemanifest goes by mtime)."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except OSError:
        pass
    with open(path, "wb") as f:
        f.write(data)
    return True


def one_region(header, name):
    """An rp2 board header with the filesystem region every image for the
    chip shares (FS_BYTES at the flash's end)."""
    line = (b"#define MICROPY_HW_FLASH_STORAGE_BYTES (%d * 1024)  "
            b"// tools/fwimage.py: every RP2040 image's one region (firmware/provision.py)"
            % (FS_BYTES // 1024))
    new, n = STORAGE_DEFINE.subn(line, header)
    if n != 1:
        raise FirmwareError("%s defines MICROPY_HW_FLASH_STORAGE_BYTES %d times (expected "
                            "once): cannot give it the shared region" % (name, n))
    return new


# The rp2 image's _boot.py is the clock's (firmware/provision.py boot(): it
# moves an older layout's files instead of formatting over them): the
# port's manifest freezes its modules but its own _boot.py.
BOOT_PY = (b"# Generated by tools/fwimage.py: the clock's filesystem at power-up.\n"
           b"import vfs, rp2, uctypes, provision as p\n"
           b"p.boot(vfs, rp2.Flash(), uctypes.bytearray_at(p.XIP_BASE + p.LEGACY_OFFSET,\n"
           b"                                              p.LEGACY_BLOCKS * p.LFS_BLOCK))\n"
           b"del vfs, rp2, uctypes, p\n")
PORT_FREEZE = 'freeze("$(PORT_DIR)/modules")'
PORT_MANIFEST = '"$(PORT_DIR)/boards/manifest.py"'


def _clock_boot_manifests(tree, src_root, own):
    """Copies of the rp2 port's manifest (and of the board's own, which
    includes it) freezing every port module but _boot.py; the path of the
    one the generated manifest includes."""
    port_dir = os.path.join(src_root, "micropython", "ports", "rp2")
    mods = sorted(n for n in os.listdir(os.path.join(port_dir, "modules"))
                  if n.endswith(".py") and n != "_boot.py")

    def copy(src, old, new, name):
        with open(src) as f:
            text = f.read()
        if text.count(old) != 1:
            raise FirmwareError("%s has %d lines %s (expected one): cannot give the image "
                                "the clock's _boot.py" % (src, text.count(old), old), 2)
        path = os.path.join(tree, name)
        _write_if_changed(path, text.replace(old, new).encode())
        return path

    port_man = copy(os.path.join(port_dir, "boards", "manifest.py"), PORT_FREEZE,
                    'freeze("$(PORT_DIR)/modules", %r)  # not _boot.py: the clock\'s' % (
                        tuple(mods),), "port-manifest.py")
    if not os.path.isfile(own):
        return port_man
    return copy(own, PORT_MANIFEST, repr(port_man), "board-manifest.py")


def _tree_name(ssha, port, mpboard, defines, cmake):
    """The CMake tree of a port board and option set (rp2: with the shared
    region, so a tree of the board's own layout is never reused)."""
    return "tree-%s-%s-%s%s" % (ssha[:12], mpboard, _options_id(defines, cmake),
                                "-fs%dk" % (FS_BYTES // 1024) if port == "rp2" else "")


def _stage(tree, src_root, port, mpboard, defines, cmake, files):
    """The tree's board definition, frozen files and manifest; returns the
    manifest path."""
    official = os.path.join(src_root, "micropython", "ports", port, "boards", mpboard)
    if not os.path.isdir(official):
        raise FirmwareError("MicroPython has no board %s in ports/%s" % (mpboard, port), 2)
    bdir = os.path.join(tree, "board", mpboard)
    os.makedirs(bdir, exist_ok=True)
    for n in sorted(os.listdir(official)):
        p = os.path.join(official, n)
        if os.path.isfile(p):
            with open(p, "rb") as f:
                data = f.read()
            if n == "mpconfigboard.h" and port == "rp2":
                data = one_region(data, n)
            if n == "mpconfigboard.h" and defines:
                data += b"\n// tools/fwimage.py --define\n" + b"".join(
                    b"#define %s (%s)\n" % (k.encode(), v.encode()) for k, v in defines)
            if n == "mpconfigboard.cmake" and cmake:
                data += b"\n# tools/fwimage.py --cmake\n" + b"".join(
                    b"set(%s %s)\n" % (k.encode(), v.encode()) for k, v in cmake)
            _write_if_changed(os.path.join(bdir, n), data)
    app = os.path.join(tree, "app")
    os.makedirs(app, exist_ok=True)
    for n in os.listdir(app):
        if n not in files:
            os.remove(os.path.join(app, n))
    for n, data in files.items():
        _write_if_changed(os.path.join(app, n), data)
    own = os.path.join(official, "manifest.py")
    base = own if os.path.isfile(own) else "$(PORT_DIR)/boards/manifest.py"
    if port == "rp2":
        base = _clock_boot_manifests(tree, src_root, own)
    # The clock's network modules (clock-net) import ssl, which MicroPython
    # v1.28 has as a micropython-lib module over its built-in tls: an rp2
    # board whose own manifest brings no networking bundle (a Wi-Fi clock
    # built on RPI_PICO, the emulated Pico's) needs it required here, or
    # net.py finds no ssl and the clock stays off the hall.
    need_ssl = "net.py" in files and port == "rp2" and not os.path.isfile(own)
    text = ("# Generated by tools/fwimage.py: the port board's own frozen modules and the clock.\n"
            "include(%r)\n" % base
            + ('require("ssl")\n' if need_ssl else "")
            + "".join("module(%r, base_path=%r)\n" % (n, app) for n in sorted(files)))
    man = os.path.join(tree, "manifest.py")
    _write_if_changed(man, text.encode())
    return man


def make_runs(tree):
    try:
        with open(os.path.join(tree, "make-runs")) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def _check_esp_idf():
    if os.environ.get("IDF_PATH") and shutil.which("idf.py"):
        return
    raise FirmwareError("BOARD=esp32 needs ESP-IDF (v5.3-v5.5.1, as MicroPython v1.28.0 asks, with its xtensa-esp32 toolchain): "
                        "not found (no IDF_PATH / idf.py); install it, run its export.sh, "
                        "then make firmware BOARD=esp32 again", EXIT_MISSING)


def _build_tree(tree, src_root, port, mpboard, manifest, progress=None):
    """Configure once, then make: the frozen content is regenerated from
    the staged files, only what changed is rebuilt.  Returns firmware.uf2's
    (or the esp32 port's image's) path."""
    log = os.path.join(tree, "build.log")
    bdir = os.path.join(tree, "board", mpboard)
    build = os.path.join(tree, "build")
    env = dict(os.environ)
    mp = os.path.join(src_root, "micropython")
    if port == "rp2":
        if not os.path.isfile(os.path.join(build, "Makefile")):
            run_step(["cmake", "-S", os.path.join(mp, "ports", "rp2"), "-B", build,
                  "-DPICO_BUILD_DOCS=0", "-DMICROPY_BOARD=" + mpboard,
                  "-DMICROPY_BOARD_DIR=" + bdir, "-DMICROPY_FROZEN_MANIFEST=" + manifest,
                  "-Dpicotool_DIR=" + os.path.join(src_root, "tools", "picotool")],
                 log, env=env, what="cmake (rp2 %s)" % mpboard, progress=progress)
        run_step(["make", "-C", build, "-j" + jobs()], log, env=env, what="make (rp2 %s)" % mpboard,
             progress=progress)
        out = os.path.join(build, "firmware.uf2")
    else:
        _check_esp_idf()
        # (not tried here: this machine has no ESP-IDF; the port's own make
        # wrapper around idf.py, with the same manifest)
        run_step(["make", "-C", os.path.join(mp, "ports", "esp32"), "BOARD=" + mpboard,
              "BOARD_DIR=" + bdir, "BUILD=" + build, "FROZEN_MANIFEST=" + manifest], log,
             env=env, what="make (esp32 %s)" % mpboard, progress=progress)
        out = os.path.join(build, "firmware.bin")
    with open(os.path.join(tree, "make-runs"), "w") as f:
        f.write("%d\n" % (make_runs(tree) + 1))
    if not os.path.isfile(out):
        raise FirmwareError("the build wrote no %s (see %s)" % (out, log))
    return out


def _steps_to_go(kind, ssha, tree, port):
    """How many steps a build has before it: the sources' (once: unpacking
    a tarball, mpy-cross, picotool's two), the tree's configuration (once),
    make."""
    n = 1
    if not os.path.isfile(os.path.join(cache_dir(), "src-" + ssha[:12], ".ready")):
        n += 4 if kind == "archive" else 3
    if port == "rp2" and not os.path.isfile(os.path.join(tree, "build", "Makefile")):
        n += 1
    return n


def _prune_images(img_dir, keep=KEEP_IMAGES):
    files = sorted(glob.glob(os.path.join(img_dir, "*.img")), key=os.path.getmtime, reverse=True)
    for p in files[keep:]:
        for q in (p, p[:-4] + ".json"):
            try:
                os.remove(q)
            except OSError:
                pass


def default_name(board, port_board_override=None, defines=(), cmake=()):
    name = board
    if port_board_override:
        name += "-" + port_board_override.lower()
    if defines or cmake:
        name += "-" + _options_id(defines, cmake)
    return name


def build(board, port_board_override=None, defines=(), cmake=(), out=None, src=None,
          commit=None):
    """Build (or reuse) the image for `board`; returns its info dict
    (also written as <out>.json): path, key, commit, reused, sizes."""
    defines = user_defines = [tuple(d) for d in defines]
    cmake = user_cmake = [tuple(c) for c in cmake]
    port, mpboard = port_board(board, port_board_override)
    if port == "esp32":
        _check_esp_idf()
    if port_board_override and getattr(_load(board), "WIFI", False) \
            and port_board(board)[1] != mpboard and mpboard == "RPI_PICO":
        cmake = NET_WITHOUT_RADIO["cmake"] + [c for c in cmake if c not in NET_WITHOUT_RADIO["cmake"]]
        defines = NET_WITHOUT_RADIO["define"] + [d for d in defines
                                                 if d not in NET_WITHOUT_RADIO["define"]]
    commit = app_commit() if commit is None else commit
    files = app_files(board, commit)
    if port == "rp2":
        files["_boot.py"] = BOOT_PY
    kind, spath, ssha = find_sources(src)
    key = image_key(ssha, port, mpboard, defines, cmake, files)
    ext = ".uf2" if port == "rp2" else ".bin"
    out = os.path.abspath(out or os.path.join(
        ROOT, "build", "firmware", default_name(board, port_board_override, user_defines,
                                                user_cmake) + ext))
    img_dir = os.path.join(cache_dir(), "img")
    cached = os.path.join(img_dir, key + ".img")
    tree = os.path.join(cache_dir(), _tree_name(ssha, port, mpboard, defines, cmake))
    reused = os.path.isfile(cached)
    if not reused:
        progress = Progress(_steps_to_go(kind, ssha, tree, port))
        src_root = prepare_sources(kind, spath, ssha, progress=progress)
        with BuildLock(os.path.join(tree + ".lock"), progress, "the build tree's lock"):
            reused = os.path.isfile(cached)   # (built meanwhile by another run)
            if not reused:
                os.makedirs(tree, exist_ok=True)
                man = _stage(tree, src_root, port, mpboard, defines, cmake, files)
                say("building %s (MicroPython %s, %s, app %s) in %s"
                    % (board, MICROPY_VERSION, mpboard, commit, tree))
                made = _build_tree(tree, src_root, port, mpboard, man, progress)
                if port == "rp2":
                    check_layout(made)
                os.makedirs(img_dir, exist_ok=True)
                part = "%s.%d.part" % (cached, os.getpid())
                shutil.copyfile(made, part)
                os.replace(part, cached)
    os.utime(cached)      # (newest first when the cache is pruned)
    _prune_images(img_dir)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    part = "%s.%d.part" % (out, os.getpid())   # (two runs may write one `out` at once)
    shutil.copyfile(cached, part)
    os.replace(part, out)
    info = {"board": board, "port": port, "micropython_board": mpboard,
            "micropython": MICROPY_VERSION, "commit": commit, "key": key,
            "defines": defines, "cmake": cmake, "reused": reused,
            "tree": tree, "make_runs": make_runs(tree), "path": out,
            "bytes": os.path.getsize(out), "frozen": sorted(files)}
    if port == "rp2":
        info["flash_bytes"] = sum(len(p) for _a, p in uf2_blocks(out))
    part = "%s.json.%d.part" % (out, os.getpid())
    with open(part, "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(part, out + ".json")
    say("%s %s (%d bytes%s)" % ("reused" if reused else "built", os.path.relpath(out, os.getcwd()),
                                info["bytes"], ", from the cache" if reused else ""))
    return info


# -- UF2 and the flash layout ----------------------------------------------------------

def check_layout(uf2):
    """FirmwareError unless the image's blocks all lie below the table
    block (firmware/provision.py): its code never reaches the table block or
    the filesystem another image left."""
    top = max(a + len(p) for a, p in uf2_blocks(uf2))
    limit = XIP_BASE + provision.BLOCK_OFFSET
    if top > limit:
        raise FirmwareError("the image's code ends at 0x%08x, %d KB past 0x%08x where the "
                            "table block and the filesystem begin: it would destroy the "
                            "files another image left (make the app smaller)"
                            % (top, (top - limit + 1023) // 1024, limit))
    return top


def uf2_blocks(path):
    """[(flash address, payload)] of a UF2 file."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for off in range(0, len(data) - 511, 512):
        m0, m1, _flags, addr, size = struct.unpack_from("<5I", data, off)
        if (m0, m1) == UF2_MAGIC[:2]:
            out.append((addr, data[off + 32:off + 32 + size]))
    return out


def write_uf2(path, blocks, family=UF2_FAMILY_RP2040, mode=0o644):
    """A UF2 file of [(address, 256-byte payload)], numbered 0..n-1 of n."""
    n = len(blocks)
    fd = os.open(path + ".part", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    os.fchmod(fd, mode)
    with os.fdopen(fd, "wb") as f:
        for i, (addr, payload) in enumerate(blocks):
            head = struct.pack("<8I", UF2_MAGIC[0], UF2_MAGIC[1], 0x00002000, addr,
                               len(payload), i, n, family)
            f.write(head + payload + b"\0" * (476 - len(payload)) + struct.pack("<I", UF2_MAGIC[2]))
    os.replace(path + ".part", path)


def littlefs_region(files, region_bytes, dirs=()):
    """The filesystem region's bytes: a littlefs the rp2 port mounts
    (vfs.VfsLfs2(rp2.Flash(), progsize=256)) holding `files` {name: bytes}."""
    from littlefs import LittleFS
    fs = LittleFS(block_size=LFS_BLOCK, block_count=region_bytes // LFS_BLOCK,
                  prog_size=LFS_PROG, read_size=LFS_READ, lookahead_size=LFS_LOOKAHEAD, cache_size=LFS_CACHE,
                  disk_version=0x00020000)
    for d in dirs:
        fs.mkdir(d)
    for name, data in sorted(files.items()):
        with fs.open(name, "wb") as f:
            f.write(data)
    return bytes(fs.context.buffer)


def littlefs_files(region, region_bytes=None):
    """{path: bytes} of every file in a filesystem region (the bytes of
    littlefs_region(), or of a flash's last region_bytes)."""
    from littlefs import LittleFS, UserContext
    if region_bytes is not None:
        region = region[len(region) - region_bytes:]
    ctx = UserContext(len(region))
    ctx.buffer[:] = region
    fs = LittleFS(context=ctx, block_size=LFS_BLOCK, block_count=len(region) // LFS_BLOCK,
                  prog_size=LFS_PROG, read_size=LFS_READ, lookahead_size=LFS_LOOKAHEAD, cache_size=LFS_CACHE,
                  mount=True)
    out = {}
    for top, _dirs, files in fs.walk("/"):
        for n in files:
            p = (top.rstrip("/") + "/" + n).lstrip("/")
            with fs.open(p, "rb") as f:
                out[p] = f.read()
    return out


def with_table_block(image, out, payload, mode=0o600):
    """A table's image: the firmware image plus the table block holding
    `payload` (its net.json; firmware/provision.py), and no filesystem block:
    copied over a used clock it leaves every file there (the clock takes the
    block at power-up)."""
    check_layout(image)
    blocks = list(uf2_blocks(image))
    data = provision.block(payload)
    data += b"\xff" * (-len(data) % 256)
    base = XIP_BASE + provision.BLOCK_OFFSET
    for p in range(0, len(data), 256):
        blocks.append((base + p, data[p:p + 256]))
    write_uf2(out, blocks, mode=mode)


MANIFEST = "manifest.csv"
MANIFEST_FIELDS = ("table", "file", "sha256", "commit", "event", "broker", "board",
                   "micropython", "built")
LABELS = "labels.pdf"


def read_manifest(out_dir):
    """The rows of a tables folder's manifest.csv whose file is still there
    with the SHA-256 it records ({table: row}); {} without one."""
    import csv
    rows = {}
    try:
        with open(os.path.join(out_dir, MANIFEST), newline="") as f:
            for r in csv.DictReader(f):
                p = os.path.join(out_dir, r.get("file") or "-")
                if r.get("table", "").isdigit() and os.path.isfile(p) \
                        and file_sha(p) == r.get("sha256"):
                    rows[int(r["table"])] = {k: r.get(k, "") for k in MANIFEST_FIELDS}
    except (OSError, ValueError):
        pass
    return rows


def write_manifest(out_dir, rows):
    """manifest.csv: one row a table (MANIFEST_FIELDS), by table number;
    no passwords (those stay in the images and the hall folder)."""
    import csv
    path = os.path.join(out_dir, MANIFEST)
    with open(path + ".part", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=MANIFEST_FIELDS, lineterminator="\n")
        w.writeheader()
        for t in sorted(rows):
            w.writerow(rows[t])
    os.replace(path + ".part", path)
    return path


def tables(board, table_list, broker, ssid="", wifi_password="", event="open", hall_dir=None,
           port_board_override=None, out_dir=None, src=None, say_=say, labels=True):
    """build/firmware/tables-<board>/table-NN.uf2 per table: the image plus
    that table's net.json in the table block (files 0600, folder 0700), the
    folder's manifest.csv and this run's label sheet (labels.pdf).  Every
    refusal (a board without Wi-Fi, a broker no clock could reach, a bad
    event or hall folder) comes before anything is built."""
    from hall.broker import clock_broker
    from hall.errors import HallError
    from hall.folder import Hall
    from hall.paths import DEFAULT_DIR
    if not getattr(_load(board), "WIFI", False):
        raise FirmwareError("board %s has no Wi-Fi: the hall's per-table images are for a "
                            "board with WIFI = True (BOARD=pico_w)" % board, 2)
    try:
        host, note = clock_broker(broker)
    except HallError as e:
        raise FirmwareError(str(e), 2)
    if note:
        say_(note)
    try:
        hall = Hall(hall_dir or DEFAULT_DIR, event,
                            tables=max(100, max(table_list)))
        hall.clock_config(table_list[0], host)
    except (HallError, OSError) as e:
        raise FirmwareError("the hall in %s: %s" % (hall_dir or DEFAULT_DIR, e), 2)
    info = build(board, port_board_override, src=src)
    out_dir = os.path.abspath(out_dir or os.path.join(
        ROOT, "build", "firmware", "tables-" + default_name(board, port_board_override)))
    os.makedirs(out_dir, mode=0o700, exist_ok=True)
    os.chmod(out_dir, 0o700)
    rows = read_manifest(out_dir)
    built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    written = []
    for t in table_list:
        cfg = json.dumps(hall.clock_config(t, host, ssid, wifi_password)) + "\n"
        name = "table-%02d.uf2" % t
        path = os.path.join(out_dir, name)
        try:
            with_table_block(info["path"], path, cfg.encode())
        except ValueError as e:
            raise FirmwareError(str(e), 2)
        rows[t] = {"table": t, "file": name, "sha256": file_sha(path),
                   "commit": info["commit"], "event": event, "broker": host,
                   "board": board, "micropython": MICROPY_VERSION, "built": built}
        written.append(path)
    write_manifest(out_dir, rows)
    sheet = None
    if labels:
        import tablelabels
        try:
            sheet = tablelabels.sheet([rows[t] for t in table_list],
                                      os.path.join(out_dir, LABELS))
        except tablelabels.LabelError as e:
            say_("no label sheet: %s" % e)
    say_("wrote %d images (%s) to %s: copy table-NN.uf2 onto the clock for table NN (BOOTSEL); "
         "%s lists them%s" % (len(written), info["commit"], os.path.relpath(out_dir, os.getcwd()),
                              MANIFEST, ", %s labels them" % LABELS if sheet else ""))
    return written


# -- command line ------------------------------------------------------------------

def _pairs(items, what):
    out = []
    for s in items or ():
        k, eq, v = s.partition("=")
        if not eq or not re.match(r"^[A-Z_][A-Z0-9_]*$", k) or not re.match(r"^[\w.+-]+$", v):
            raise FirmwareError("%s: expected NAME=VALUE (upper-case name), got %r" % (what, s), 2)
        out.append((k, v))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="fwimage.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build/firmware/BOARD.uf2: MicroPython with the app frozen")
    t = sub.add_parser("tables", help="one image per table with its net.json (the hall)")
    for p in (b, t):
        p.add_argument("--board", default="pico", help="a boards/*.py name (default pico)")
        p.add_argument("--port-board", default=None,
                       help="build on this MicroPython board instead (e.g. RPI_PICO for pico_w: "
                            "the emulated Pico runs no CYW43)")
        p.add_argument("--src", default=None, help="MicroPython sources (default $MICROPY_SRC, "
                       "else ../shared/micropython)")
    b.add_argument("--out", default=None, help="the image (default build/firmware/BOARD.uf2)")
    b.add_argument("--define", action="append", help="NAME=VALUE into mpconfigboard.h")
    b.add_argument("--cmake", action="append", help="NAME=VALUE into mpconfigboard.cmake")
    t.add_argument("--tables", required=True, help="1-40 or 3,5,9")
    t.add_argument("--broker", default="", help="the hall computer's IPv4 address on the "
                   "hall's network (or a name that resolves to it here)")
    t.add_argument("--ssid", default="")
    t.add_argument("--wifi-password", default="")
    t.add_argument("--event", default="open")
    t.add_argument("--hall-dir", default=None, help="the hall's folder (default build/hall)")
    t.add_argument("--out-dir", default=None)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            build(args.board, args.port_board, _pairs(args.define, "--define"),
                  _pairs(args.cmake, "--cmake"), out=args.out, src=args.src)
        else:
            try:
                tl = buildparts.parse_tables(args.tables)
            except buildparts.TablesError as e:
                raise FirmwareError(str(e), 2)
            tables(args.board, tl, args.broker, args.ssid, args.wifi_password, args.event,
                   args.hall_dir, args.port_board, args.out_dir, args.src)
    except FirmwareError as e:
        print("firmware: %s" % e, file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print("firmware: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
