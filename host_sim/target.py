"""The firmware on real 32-bit MicroPython images (issue 11).

Two emulated targets, both running the official MicroPython v1.28.0 builds
kept in ../shared/emu (or $SCRABBLE_EMU_DIR):

- qemu: QEMU_MPS2_AN385 (Cortex-M3, 31-bit small ints, a Pico-sized 240 KB
  heap, littlefs) under Debian's qemu-system-arm.  Its UART is a pty; the
  real `mpremote` runs the suites' .mpy files in place from a ROMFS, their
  files on a littlefs image, both loaded by qemu into the board's PSRAM
  (`QemuBoard`, tests/mp/ramflash.py).
- pico: RPI_PICO on the npm rp2040js emulator (target/harness.js), with a
  NOR-flash model in a file, the button GPIOs, the I2C0 LCD traffic and the
  USB-CDC REPL over its stdin/stdout (`Pico`).

Nothing here imitates the firmware: both run the real interpreter on the
real .mpy bundle.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from host_sim import FIRMWARE, ROOT, firmware_files
import provision  # firmware/: where every image of ours keeps its filesystem
VENV_BIN = os.path.join(ROOT, ".venv", "bin")

PICO_UF2 = "RPI_PICO-v1.28.0.uf2"
BOOTROM = "rp2040-bootrom-b1.bin"
QEMU_ELF = "QEMU_MPS2_AN385-v1.28.0.elf"

MISSING_HELP = ("target run: no MicroPython images in %s (skipped; under CI=true it fails); the official RPI_PICO "
                "v1.28.0 image comes from the MicroPython download page "
                "(micropython.org/download/RPI_PICO), see ../shared/emu/BUILD.md for the "
                "others; point the run at them with SCRABBLE_EMU_DIR=/path/to/emu")


def emu_dir():
    """Where the images are: $SCRABBLE_EMU_DIR, else ../shared/emu beside the repo."""
    d = os.environ.get("SCRABBLE_EMU_DIR")
    if d:
        return os.path.abspath(d)
    return os.path.abspath(os.path.join(ROOT, "..", "shared", "emu"))


def image(name):
    """Path of an image file, or None if it is not there."""
    p = os.path.join(emu_dir(), name)
    return p if os.path.isfile(p) else None


def tool(name):
    p = os.path.join(VENV_BIN, name)
    return p if os.path.exists(p) else shutil.which(name)


def missing(images=(), tools=()):
    """One line saying what is missing for a target run, or None."""
    gone = [n for n in images if image(n) is None]
    if gone:
        return MISSING_HELP % emu_dir() + " (missing: %s)" % ", ".join(gone)
    gone = [n for n in tools if tool(n) is None]
    if gone:
        return "target run: %s not installed (make test installs it)" % ", ".join(gone)
    return None


# -- a folder of .mpy files, as the device holds them -----------------------------

def compile_tree(dest, sources, keep_py=()):
    """mpy-cross every .py of `sources` (files) into `dest`; names in keep_py
    are copied as source (main.py must stay a .py to be run at boot)."""
    exe = tool("mpy-cross")
    os.makedirs(dest, exist_ok=True)
    for src in sources:
        base = os.path.basename(src)
        if base in keep_py:
            shutil.copy(src, os.path.join(dest, base))
            continue
        out = os.path.join(dest, base[:-3] + ".mpy")
        proc = subprocess.run([exe, "-o", out, src], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError("mpy-cross %s: %s" % (src, proc.stderr.strip()))
    return dest


def mp_suites():
    """{module name: path} of the test files that run inside MicroPython:
    every tests/test_*.py written for both interpreters (it imports the
    shared bench tests/mp/mptest.py) and the tests/mp/test_*_mp.py suites."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "test_*.py"))):
        with open(path, encoding="utf-8") as f:
            if re.search(r"^(from mptest import|import mptest)", f.read(), re.M):
                out[os.path.basename(path)[:-3]] = path
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "mp", "test_*_mp.py"))):
        out[os.path.basename(path)[:-3]] = path
    return out


def mp_suite_files():
    """What the MicroPython suites import: the firmware (every package and
    every display family a board names: host_sim.firmware_files()), hardware fakes, boards, the benches in tests/mp and the suites."""
    files = [os.path.join(FIRMWARE, f) for f in sorted(firmware_files())]
    for p in ["host_sim/fakehw/*.py", "boards/*.py", "tests/mp/*.py"]:
        files += sorted(glob.glob(os.path.join(ROOT, p)))
    files += [p for p in mp_suites().values() if p not in files]
    return [f for f in files if os.path.basename(f) != "main.py"]


# -- qemu -----------------------------------------------------------------------

class QemuBoard:
    """qemu-system-arm running the MPS2_AN385 image, its UART on a pty."""

    def __init__(self, loader=None, rom=None):
        self.loader = loader    # a disk image qemu puts at PSRAM
        self.rom = rom          # a ROMFS image qemu puts at ROMFS
        self.proc = None
        self.pty = None

    def start(self, timeout=600):
        """qemu up, its UART's pty known (`timeout`: a bound for a broken run,
        not a budget: a loaded host may take long to start it)."""
        self.proc = subprocess.Popen(
            [tool("qemu-system-arm"), "-M", "mps2-an385", "-display", "none",
             "-monitor", "none", "-semihosting", "-serial", "pty",
             "-kernel", image(QEMU_ELF)]
            + (["-device", "loader,file=%s,addr=0x%x,force-raw=on" % (self.loader, PSRAM)]
               if self.loader else [])
            + (["-device", "loader,file=%s,addr=0x%x,force-raw=on" % (self.rom, ROMFS)]
               if self.rom else []),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            text=True)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.proc.stdout.readline()
            m = re.search(r"(/dev/pts/\d+)", line or "")
            if m:
                self.pty = m.group(1)
                return self
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError("qemu did not open its serial pty")

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            if self.proc.stdout:
                self.proc.stdout.close()
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def run(self, code, timeout=None):
        """`mpremote exec code` on the board, with patient_env()'s limits (qemu,
        too, runs slower on a loaded host): (returncode, output)."""
        proc = subprocess.run(
            [tool("mpremote"), "connect", self.pty, "exec", code],
            capture_output=True, text=True, timeout=timeout or HOST_PROGRAM_BOUND_S,
            env=patient_env())
        return proc.returncode, proc.stdout + proc.stderr


PSRAM = 0x21000000          # where qemu loads the disk image (tests/mp/ramflash.py)
LFS_BLOCK = 4096            # the Pico's flash filesystem: blocks of 4 KB, prog 256,
LFS_BLOCKS = 352            # the official RPI_PICO image's 352 (the flash's last 1408 KB)
# every image of ours (tools/fwimage.py), Pico and Pico W alike: the last 848 KB
IMAGE_LFS_BLOCKS = provision.FS_BYTES // LFS_BLOCK
# (the harness puts a --fs-image at the flash's end, whichever its size)


def littlefs_image(folder, dirs=("tmp",), extra=None, blocks=LFS_BLOCKS):
    """A littlefs image (bytes) of every file in `folder`, with the Pico's
    geometry (`blocks`: the official image's region, or IMAGE_LFS_BLOCKS for
    an image of ours), plus the empty directories `dirs` and the files of
    `extra` ({name: bytes})."""
    from littlefs import LittleFS
    fs = LittleFS(block_size=LFS_BLOCK, block_count=blocks, prog_size=256,
                  read_size=32, lookahead_size=32, disk_version=0x00020000)
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as src, fs.open(name, "wb") as dst:
            dst.write(src.read())
    for name, data in sorted((extra or {}).items()):
        with fs.open(name, "wb") as dst:
            dst.write(data)
    for d in dirs:
        fs.mkdir(d)
    return bytes(fs.context.buffer)


_SUITE_IMAGE = {}                # {(path, mtime) of every file: littlefs image bytes}
_SUITE_LOCK = threading.Lock()


def mp_suite_image():
    """The littlefs image (bytes) of mp_suite_files() as .mpy files, compiled
    once per process while the files stay unchanged: every suite's run loads
    the same image (mpy-cross over all of it took 2-5 s a suite)."""
    return _suite_images()[0]


def mp_suite_romfs():
    """The same .mpy files as a ROMFS image (bytes): the qemu board runs them
    in place, as the Pico runs its frozen modules from flash.  Loaded from
    littlefs, every module's bytecode and strings took the board's heap (the
    whole app about 100 KB of the 240 KB), which the Pico never spends."""
    return _suite_images()[1]


def _suite_images():
    sources = mp_suite_files()
    key = tuple((p, os.stat(p).st_mtime_ns) for p in sources)
    with _SUITE_LOCK:
        if key not in _SUITE_IMAGE:
            with tempfile.TemporaryDirectory(prefix="mpq-") as tmp:
                files = os.path.join(tmp, "files")
                compile_tree(files, sources)
                _SUITE_IMAGE.clear()
                _SUITE_IMAGE[key] = (littlefs_image(files), romfs_image(files))
        return _SUITE_IMAGE[key]


def romfs_image(folder):
    """A ROMFS image (bytes) of every file in `folder` (mpremote's writer,
    the format `mpremote romfs deploy` puts on a board)."""
    from mpremote.romfs import VfsRomWriter
    vfs = VfsRomWriter()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            vfs.mkfile(name, f.read())
    return vfs.finalise()


ROMFS = PSRAM + 0xC00000    # the suites' ROMFS, 12 MB into the 16 MB PSRAM (the
                            # disks below it: ramflash.BASE and the journal tests')


def run_mp_suite_on_qemu(module, timeout=None):
    """One MicroPython suite (mp_suites()) on the Cortex-M3 image: (returncode, output).
    The suite and everything it imports are .mpy files run in place from a
    ROMFS (mp_suite_romfs()), first on sys.path; the files the suites write
    go to littlefs, which holds the same .mpy files too."""
    with tempfile.TemporaryDirectory(prefix="mpq-") as tmp:
        img = os.path.join(tmp, "flash.img")
        with open(img, "wb") as f:
            f.write(mp_suite_image())
        rom = os.path.join(tmp, "romfs.img")
        romfs = mp_suite_romfs()
        with open(rom, "wb") as f:
            f.write(romfs)
        with open(os.path.join(ROOT, "tests", "mp", "ramflash.py")) as f:
            mount = f.read()
        code = mount + ("\nmount('/')\nos.chdir('/')\n"
                        "mount_rom(0x%x, %d)\n"
                        "import mptest\n"
                        "print('MPTEST-EXIT', mptest.run([%r]))\n" % (ROMFS, len(romfs), module))
        with QemuBoard(loader=img, rom=rom) as board:
            return board.run(code, timeout=timeout)


# -- the emulated Pico (rp2040js, target/harness.js) ------------------------------

HARNESS = os.path.join(ROOT, "target", "harness.js")

# The host programs on the emulated board's USB line (mpremote, make deploy,
# `host_sim logs`) have real-time limits tuned for a real board (mpremote:
# 10 s without a character), while the emulated board runs slower, and far
# slower on a host loaded with other work.  patient_env() gives such a
# program (and every Python program it starts) limits PATIENCE times longer
# (target/patient/sitecustomize.py); nothing else in it changes.
PATIENCE = 30
PATIENT_DIR = os.path.join(ROOT, "target", "patient")
# with_pty's bound on one host program: the hour that says a run is broken
# (what it waits on is the program's end), not a budget (make bench has those)
HOST_PROGRAM_BOUND_S = 3600


def patient_env(env=None):
    """os.environ (or `env`) for a host program on the emulated board's REPL:
    PATIENT_DIR first on PYTHONPATH, SCRABBLE_PATIENCE set."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PATIENT_DIR, env.get("PYTHONPATH")) if p)
    env["SCRABBLE_PATIENCE"] = str(PATIENCE)
    return env


def tm1637_pins(board):
    """A board's TM1637 modules as Pico(tm1637=) takes them: ((clk, dio) of
    the left module, (clk, dio) of the right), from its board file; () for
    a board without them."""
    from host_sim import boards
    b = boards.load(board)
    if not hasattr(b, "TM_LEFT_CLK"):
        return ()
    return ((b.TM_LEFT_CLK, b.TM_LEFT_DIO), (b.TM_RIGHT_CLK, b.TM_RIGHT_DIO))


# The Pico W's radio (target/cyw43.js): the blobs cyw43-driver compiles into
# an RPI_PICO_W image (Wi-Fi + Bluetooth firmware with its CLM, and the NVRAM),
# read from the driver's sources, against which the model checks the upload.
CYW43_FW_HEADER = "wb43439A0_7_95_49_00_combined.h"
CYW43_NVRAM_HEADER = "wifi_nvram_43439.h"


def cyw43_blobs():
    """(firmware header, NVRAM header) of lib/cyw43-driver/firmware in the
    MicroPython sources the firmware build unpacked (tools/fwimage.py's
    cache, or $MICROPY_SRC as a tree), or None if there are none."""
    from tools import fwimage
    roots = []
    if os.environ.get("MICROPY_SRC") and os.path.isdir(os.environ["MICROPY_SRC"]):
        roots.append(os.environ["MICROPY_SRC"])
    roots += sorted(glob.glob(os.path.join(fwimage.cache_dir(), "src-*", "micropython")),
                    key=os.path.getmtime, reverse=True)
    for root in roots:
        d = os.path.join(root, "lib", "cyw43-driver", "firmware")
        fw, nv = os.path.join(d, CYW43_FW_HEADER), os.path.join(d, CYW43_NVRAM_HEADER)
        if os.path.isfile(fw) and os.path.isfile(nv):
            return fw, nv
    return None


def pico_missing():
    why = missing(images=[PICO_UF2, BOOTROM], tools=["node", "mpy-cross"])
    if why is None and not os.path.isdir(os.path.join(ROOT, "target", "node_modules", "rp2040js")):
        why = "target run: rp2040js not installed (make test runs `npm ci` in target/)"
    return why


_BUNDLES = {}                    # {(board, (path, mtime) of its inputs): {name: bytes}}
_BUNDLES_LOCK = threading.Lock()


def _bundle_inputs():
    """What a bundle is built from (tools/deploy.py: the firmware, the board
    files, deploy.py itself), each (path, mtime)."""
    paths = [os.path.join(ROOT, "tools", "deploy.py")]
    for top in (FIRMWARE, os.path.join(ROOT, "boards")):
        for d, _dirs, names in os.walk(top):
            paths += [os.path.join(d, n) for n in names if n.endswith(".py")]
    return tuple((p, os.stat(p).st_mtime_ns) for p in sorted(paths))


def bundle_image(dest, board="pico", extra=None, blocks=LFS_BLOCKS):
    """littlefs image (bytes) of `tools/deploy.py bundle --board`'s output:
    what `make deploy` copies onto the board (plus `extra` files); `blocks`
    as littlefs_image's.  The bundle is built once per process while its
    sources stay unchanged (mpy-cross over every module: seconds a board;
    make bench asked for it ten times), and written to dest/bundle."""
    out = os.path.join(dest, "bundle")
    key = (board, _bundle_inputs())
    with _BUNDLES_LOCK:
        files = _BUNDLES.get(key)
    if files is None:
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deploy.py"),
                               "bundle", "--board", board, "--out", out, "--mpy-cross",
                               tool("mpy-cross")], capture_output=True, text=True, cwd=ROOT)
        if proc.returncode:
            raise RuntimeError("deploy.py bundle: " + proc.stdout + proc.stderr)
        files = {}
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), "rb") as f:
                files[name] = f.read()
        with _BUNDLES_LOCK:
            _BUNDLES[key] = files
    else:
        os.makedirs(out, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
    return littlefs_image(out, dirs=(), extra=extra, blocks=blocks)


def cpu_s(pid):
    """The CPU seconds process `pid` has used so far (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def ready_words(language="en"):
    """What the READY screen says (lang READY_WHO: READY and who presses to
    start, issue 37), as the benches and tests look for it."""
    import lang
    return lang.text(language, "READY_WHO")


class Pico:
    """One run of the emulated Pico on a flash file.  `stop()` (or killing the
    process) is a power cut; a new Pico on the same file powers up again.

        pico = Pico(flash_path, fs_image=img).start()
        pico.run_to(2000)              # simulated ms
        pico.pin(14, 0)                # drive a button low (pressed)
        pico.lcd.text_rows()           # the LCD, decoded from the I2C0 bytes
    """

    # The W25Q16's datasheet times (typical, maximum): a 4 KB sector erase
    # and a 256-byte page program.  Pico(erase_ms=, program_us=) makes the
    # emulated flash busy that long (0: at once, the default).
    ERASE_MS = (45, 400)
    PROGRAM_US = (400, 3000)
    # make bench: at most this many emulators at a time, whichever thread
    # starts them (a threading.BoundedSemaphore: a slot taken at start(),
    # given back at stop()), run at a lower priority (nice), so that the
    # hall's figures beside them get the CPU they ask for.  The emulated
    # Pico keeps its own simulated time: neither changes what it measures.
    slots = None
    nice = 0
    asked = 0       # starts asked for so far while slots are set (the bench's order)
    on_stop = None  # make bench -v: called (pico, who, cpu_s, wall_s) as each run stops

    def __init__(self, flash, fs_image=None, advance_ms=0, cols=16, rows=2, lcd_addr=0x27,
                 battery_mv=3900, uid=0, erase_ms=0, program_us=0, uf2=None, reflash=False,
                 lcd_times=False, tm1637=(), cyw43=None, cyw43_trace=False,
                 every_poll=False, ap=None, relay=None, time_fn=None):
        from host_sim.fakehw.hd44780_emu import Hd44780Pcf8574
        self.flash = flash
        self.fs_image = fs_image
        self.advance_ms = advance_ms
        self.battery_mv = battery_mv
        self.uid = uid            # 0-255: another board's unique id (harness --uid)
        self.erase_ms = erase_ms
        self.program_us = program_us
        # a busy flash's status polls: by default (core 1 not launched) the
        # poll gets its answer when the flash is ready, the time passing at
        # once (target/harness.js waitReady); every_poll: each one emulated
        self.every_poll = every_poll
        # the image a blank flash gets (default: the official RPI_PICO one;
        # e.g. build/firmware/pico.uf2, the app frozen in), and with
        # reflash=True copied over a used flash first (an upgrade: BOOTSEL)
        self.uf2 = uf2 or image(PICO_UF2)
        self.reflash = reflash
        self.lcd = Hd44780Pcf8574(cols, rows)
        self.lcd_addr = lcd_addr
        self.serial = bytearray()
        self.lcd_times = lcd_times
        self.on_lcd = None        # lcd_times: called after each LCD transfer with its simulated us
        # TM1637 modules: ((clk, dio), ...) GPIOs -> self.tm[clk], the emulator
        # (host_sim/fakehw/tm1637_emu.py) fed the lines' levels (target/tm1637.js)
        self.tm_pins = tuple(tm1637)
        self.tm = {}
        self.on_tm = None         # called (clk, us) after each TM1637 transfer
        # the Pico W's radio: None (none), or (firmware header, NVRAM header)
        # (cyw43_blobs(); (None, None): the upload's length and checksum unchecked);
        # its "W" lines (target/cyw43.js) collect in self.wifi
        self.cyw43 = cyw43
        self.cyw43_trace = cyw43_trace
        # the model's simulated access point: (ssid, passphrase), None: none in range
        self.ap = ap
        # what the AP's network relays to this host's loopback besides the
        # gateway's ports (target/netpeer.js): {"ip": True} (every port, the
        # same port) or {("ip", port): host_port}
        self.relay = relay or {}
        # a function of the image timed on core 0 (its entry address, e.g.
        # gc_collect's): each call's (simulated us at its return, its us) in
        # self.fn_calls (harness --time-fn)
        self.time_fn = time_fn
        self.fn_calls = []
        self.wifi = []
        self.proc = None
        self._pty = None
        self._slot = None
        self.t_ms = 0

    def start(self):
        if self.slots is not None and self._slot is None:
            Pico.asked += 1
            self.slots.acquire()
            self._slot = self.slots
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        self._began = time.monotonic()
        args = ["node", HARNESS, "--bootrom", image(BOOTROM), "--uf2", self.uf2,
                "--flash", self.flash]
        if self.reflash:
            args.append("--reflash")
        if self.fs_image:
            args += ["--fs-image", self.fs_image]
        if self.advance_ms:
            args += ["--advance-ms", str(self.advance_ms)]
        args += ["--battery-mv", str(self.battery_mv)]
        if self.uid:
            args += ["--uid", str(self.uid)]
        if self.lcd_times:
            args += ["--i2c-us"]
        if self.erase_ms or self.program_us:
            args += ["--erase-ms", str(self.erase_ms), "--program-us", str(self.program_us)]
        if self.every_poll:
            args.append("--every-poll")
        if self.tm_pins:
            from host_sim.fakehw.tm1637_emu import Tm1637Emu
            self.tm = {clk: Tm1637Emu() for clk, _dio in self.tm_pins}
            args += ["--tm1637", ",".join("%d,%d" % p for p in self.tm_pins)]
        if self.cyw43 is not None:
            args.append("--cyw43")
            fw, nv = self.cyw43
            if fw:
                args += ["--cyw43-fw", fw]
            if nv:
                args += ["--cyw43-nvram", nv]
            if self.cyw43_trace:
                args.append("--cyw43-trace")
            if self.ap:
                args += ["--ap-ssid", self.ap[0], "--ap-pass", self.ap[1]]
            if self.relay:
                args += ["--net-relay", ",".join(
                    k if v is True else "%s:%d=%d" % (k[0], k[1], v) for k, v in sorted(self.relay.items(), key=str))]
        if self.time_fn:
            args += ["--time-fn", "%x" % self.time_fn]
        if self.nice:
            args = ["nice", "-n", str(self.nice)] + args
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._buf = b""
        self._expect("READY")
        return self

    def _send(self, line):
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def _line(self):
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            data = os.read(fd, 65536)
            if not data:
                raise RuntimeError("the emulated Pico stopped")
            self._buf += data
        raw, self._buf = self._buf.split(b"\n", 1)
        line = raw.decode()
        if line.startswith("S "):
            data = bytes.fromhex(line[2:])
            self.serial += data
            if self._pty is not None:
                os.write(self._pty[0], data)
        elif line.startswith("I "):
            w = line.split(" ")
            if int(w[1]) == self.lcd_addr:
                self.lcd.writeto(bytes.fromhex(w[2]))
                if self.on_lcd is not None and len(w) > 3:
                    self.on_lcd(int(w[3]))  # the simulated us of the transfer's end
        elif line.startswith("W "):
            self.wifi.append(line[2:])
        elif line.startswith("G "):
            self.fn_calls.append(tuple(int(v) for v in line.split()[1:3]))
        elif line.startswith("T "):
            _t, clk, us, levels = line.split(" ")
            self.tm[int(clk)].feed(levels)
            if self.on_tm is not None:
                self.on_tm(int(clk), int(us))
        return line

    def _expect(self, word):
        while True:
            line = self._line()
            if line.split(" ", 1)[0] == word:
                return line

    def run_to(self, ms):
        """Run until simulated time `ms` (since power-up)."""
        self._send("RUNTO %d" % ms)
        self.t_ms = int(self._expect("AT").split()[1])
        return self.t_ms

    def shows(self, words, row=None):
        """Whether the LCD's `row` (None: any row; a 20x4 shows READY on its
        third) holds `words` (a Wi-Fi clock's row may end in the hall's
        mark)."""
        rows = self.lcd.text_rows()
        return any(words in r for r in (rows if row is None else rows[row:row + 1]))

    def run_until(self, cond, limit_ms, step_ms=10, wall_s=None):
        """Run in steps of `step_ms` simulated ms until cond() (True), or
        until simulated `limit_ms` (False: simulated, so a slow host never
        fails it) or, if given, `wall_s` seconds of wall time (a hung run)."""
        end = None if wall_s is None else time.monotonic() + wall_s
        while not cond():
            if self.t_ms >= limit_ms or (end is not None and time.monotonic() > end):
                return False
            self.run_to(min(self.t_ms + step_ms, limit_ms))
        return True

    def run_until_shown(self, words, row=None, limit_ms=20000, step_ms=10):
        """Run until shows(words, row): the simulated ms it first did.  A
        RuntimeError naming what the LCD showed if it has not by `limit_ms`
        (run_until)."""
        if not self.run_until(lambda: self.shows(words, row), limit_ms, step_ms):
            raise RuntimeError("no %r on the LCD by %d simulated ms: %r"
                               % (words, self.t_ms, self.lcd.text_rows()))
        return self.t_ms

    def run_to_ready(self, language="en", limit_ms=20000):
        """Run until the clock's READY screen (ready_words: READY and who
        presses to start) shows after power-up: the simulated ms it did."""
        return self.run_until_shown(ready_words(language), limit_ms=limit_ms)

    def pin(self, gpio, level):
        self._send("P %d %d" % (gpio, 1 if level else 0))

    def pin_at_flash(self, gpio, level):
        """Drive a pin when the next flash erase or page program starts (the
        edge lands in flash work: stats() edge_max_wait_us)."""
        self._send("F %d %d" % (gpio, 1 if level else 0))

    def press(self, gpio, at_ms, bounce=(1, 2), hold_ms=100):
        """A press at `at_ms`: the first falling edge, bounces (edges spaced
        by `bounce` ms), low for `hold_ms`, then released (no bounce)."""
        t = at_ms
        self.run_to(t)
        self.pin(gpio, 0)
        level = 0
        for g in bounce:
            t += g
            self.run_to(t)
            level = 1 - level
            self.pin(gpio, level)
        if level:
            self.pin(gpio, 0)
        self.run_to(at_ms + hold_ms)
        self.pin(gpio, 1)

    def ping(self, ip, seq=1):
        """The access point's network sends an ICMP echo request to `ip`
        (with ap=: target/netpeer.js); the reply shows in self.wifi."""
        self._send("PING %s %d" % (ip, seq))

    # Faults on the radio (with ap=; target/harness.js): each acts at the
    # simulated instant reached (between run_to()s) and is logged in self.wifi
    # as a "FAULT ..." line, what it costs as "DROP ..." lines.
    def ap_down(self):
        """The access point vanishes: the clock deauthenticated, its link down,
        no frame passes, a join refused (target/cyw43.js apDown)."""
        self._send("AP DOWN")

    def ap_up(self):
        """The access point is back; the clock must join it again."""
        self._send("AP UP")

    def drop_frames(self, every):
        """Every `every`-th frame each way lost from now on (0: none;
        target/netpeer.js setDrop)."""
        self._send("DROP %d" % every)

    def move_address(self, old, new):
        """The relayed address `old` becomes `new`: `old` answers nothing, its
        connections gone (target/netpeer.js move)."""
        self._send("MOVE %s %s" % (old, new))

    def stats(self):
        self._send("STATS")
        line = self._expect("STATS")
        return {k: int(v) for k, v in (w.split("=") for w in line.split()[1:])}

    def peek(self, addr, words):
        """`words` 32-bit words of the emulated memory from `addr` (unsigned)."""
        self._send("PEEK %x %d" % (addr, words))
        line = self._expect("PEEK")
        return [int(v) for v in line.split(" ", 1)[1].split(",")] if words else []

    def write_serial(self, data):
        self._send("S " + bytes(data).hex())

    def type_serial(self, data, chunk=32, gap_ms=4):
        """Send data as a terminal would, a little at a time (the board's
        USB-CDC receive buffer is small): `chunk` bytes every `gap_ms`."""
        for i in range(0, len(data), chunk):
            self.write_serial(data[i:i + chunk])
            self.run_to(self.t_ms + gap_ms)

    def paste(self, code, until, timeout_s=None, step_ms=100):
        """Run `code` in the REPL's paste mode (the app stopped at its prompt
        first, or no app) until a line starting with `until` appears, or a
        traceback ends it: that line's rest, stripped (None: timed out or
        raised; self.pasted holds the output)."""
        import time
        n0 = len(self.serial)
        self.type_serial(b"\x05")
        self.type_serial(code.replace("\n", "\r\n").encode())
        self.type_serial(b"\x04")
        end = time.monotonic() + (timeout_s or HOST_PROGRAM_BOUND_S)
        mark = "\n" + until
        while time.monotonic() < end:
            self.run_to(self.t_ms + step_ms)
            out = self.serial[n0:].decode(errors="replace").replace("\r", "")
            self.pasted = out
            if mark in out:
                return out.split(mark, 1)[1].split("\n", 1)[0].strip()
            if "Traceback" in out[-3000:] and out.endswith(">>> "):
                return None
        return None

    def stop(self):
        if self.proc is not None and Pico.on_stop is not None:     # (a plain function)
            Pico.on_stop(self, sys._getframe(1).f_code.co_name, cpu_s(self.proc.pid),
                         time.monotonic() - self._began)
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()           # a power cut: nothing is flushed
            self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.proc = None
        if self._pty is not None:
            os.close(self._pty[0])
            os.close(self._pty[1])
            self._pty = None
        if self._slot is not None:
            self._slot, slot = None, self._slot
            slot.release()

    def with_pty(self, argv_of, timeout=HOST_PROGRAM_BOUND_S):
        """Run a host program against the board's USB-CDC REPL: the board runs
        freely while `argv_of(pty_path)` (e.g. an mpremote command line) runs
        with the REPL on a pty, with patient_env()'s limits, until it ends
        (or `timeout` s pass: it is killed); then the board halts.
        (returncode, output)"""
        self._open_pty()
        out = tempfile.TemporaryFile()
        prog = subprocess.Popen(argv_of(os.ttyname(self._pty[1])), stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT,
                                env=patient_env())
        self._send("GO")
        end = time.monotonic() + timeout
        while prog.poll() is None and time.monotonic() < end:
            if not self._pump():
                break
        if prog.poll() is None:
            prog.kill()
        prog.wait()
        self._send("HALT")
        self.t_ms = int(self._expect("AT").split()[1])
        out.seek(0)
        text = out.read().decode(errors="replace")
        out.close()
        return prog.returncode, text

    def _open_pty(self):
        import tty
        if self._pty is None:
            master, slave = os.openpty()
            tty.setraw(slave)
            self._pty = (master, slave)

    def _pump(self):
        """Carry the USB-CDC bytes both ways for up to 0.1 s; False once the
        emulator has stopped."""
        import select
        master = self._pty[0]
        fd = self.proc.stdout.fileno()
        if self._buf:
            self._line_if_complete()
        r, _, _ = select.select([fd, master], [], [], 0.1)
        if master in r:
            self.write_serial(os.read(master, 4096))
        if fd in r:
            data = os.read(fd, 65536)
            if not data:
                return False
            self._buf += data
            self._line_if_complete()
        return True

    def plug(self, link):
        """The board's USB is plugged in: it runs freely, its REPL on a pty
        that the symlink `link` points at (as /dev/ttyACM0 appears for a
        real Pico), until unplug().  A host program may open `link` any
        number of times meanwhile (tools/deploy.py tables: start it with
        patient_env())."""
        import threading
        self._open_pty()
        self._link = link
        self._running = threading.Event()
        self._running.set()
        self._send("GO")

        def relay():
            while self._running.is_set() and self._pump():
                pass

        self._relay = threading.Thread(target=relay, daemon=True)
        self._relay.start()
        os.symlink(os.ttyname(self._pty[1]), link)
        return self

    def unplug(self):
        """The port disappears and the board halts (its flash kept: stop()
        is then the power going)."""
        os.remove(self._link)
        self._running.clear()
        self._relay.join()
        self._send("HALT")
        self.t_ms = int(self._expect("AT").split()[1])

    def _line_if_complete(self):
        while b"\n" in self._buf:
            self._line()


if __name__ == "__main__":  # python -m host_sim.target qemu test_core
    if len(sys.argv) >= 3 and sys.argv[1] == "qemu":
        rc, out = run_mp_suite_on_qemu(sys.argv[2])
        print(out)
        sys.exit(rc)
    print("usage: python -m host_sim.target qemu SUITE")
    sys.exit(2)
