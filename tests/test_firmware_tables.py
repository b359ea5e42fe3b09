"""The organizer's evening (issue 37), the parts that need no image:

* `make firmware-tables` refuses, in one line and before anything is built,
  a BROKER no clock in the hall could reach (none, this computer's loopback,
  a name that does not resolve) and a board without Wi-Fi;
* a long build step says what it is doing and for how long (a line every
  PROGRESS_S, or a bar on a terminal), and a build waiting for another
  one's lock says so and how long it waited;
* a table's image is the plain image plus the table block, below the shared
  filesystem region: it writes no filesystem block (firmware/provision.py),
  and an image whose code would reach that block is refused;
* the clock takes a table block once (net.json and the menu's table), and
  leaves every other file alone.

The images themselves, on the emulated Pico: tests/test_firmware_image.py.
"""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

import fwimage
import provision
from conftest import ROOT
from hall.broker import clock_broker
from hall.errors import HallError

FWIMAGE = os.path.join(ROOT, "tools", "fwimage.py")
MAKE_TRAILER = "make: ***"      # make's own line after a failed recipe


def make_tables(tmp_path, **vars_):
    """`make firmware-tables` with these variables, on an empty build cache
    and sources that are not there: a refusal must come before either is
    looked at (else the message would be about the sources)."""
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    env = dict(os.environ, SCRABBLE_FIRMWARE_CACHE=str(cache),
               MICROPY_SRC=str(tmp_path / "no-sources"))
    for k in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS"):   # under `make test` our make is
        env.pop(k, None)                             # no make[1] (its trailer's name)
    args = ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", "firmware-tables",
            "HALL_DIR=%s" % (tmp_path / "hall"), "TABLES=1-3"]
    args += ["%s=%s" % kv for kv in vars_.items()]
    proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith(MAKE_TRAILER)]
    assert os.listdir(cache) == [], os.listdir(cache)           # nothing built
    assert not (tmp_path / "hall").exists()                      # no hall folder made
    return proc.returncode, lines, proc.stdout


@pytest.mark.parametrize("broker, words", [
    ("", "BROKER is missing"),
    ("127.0.0.1", "loopback"),
    ("127.8.9.10", "loopback"),
    ("localhost", "this computer itself"),
    ("LocalHost.", "this computer itself"),
    ("::1", "this computer itself"),
    ("no-such-hall.invalid", "does not resolve here"),
    ("0.0.0.0", "not a host's address"),
])
def test_a_broker_no_clock_could_reach_is_refused_in_one_line(tmp_path, broker, words):
    """Issue 37: `make firmware-tables` with BROKER left out exited 0 and
    built 40 clocks whose broker was 127.0.0.1 (themselves).  Now each such
    BROKER is one line naming what to give instead, exit 2, nothing built.
    (.invalid never resolves: RFC 6761 § 6.4.)"""
    rc, lines, out = make_tables(tmp_path, BOARD="pico_w", BROKER=broker)
    assert rc == 2 and out == ""
    assert len(lines) == 1 and lines[0].startswith("firmware: "), lines
    assert words in lines[0] and "192.168.1.10" in lines[0], lines


def test_a_board_without_wifi_is_refused_in_one_line(tmp_path):
    """BOARD left at its default (pico) or any board without Wi-Fi: the
    table images are for the hall's clocks; one line, before the broker."""
    for board in ("pico", "pico_2004"):
        rc, lines, _out = make_tables(tmp_path, BOARD=board, BROKER="192.168.1.10")
        assert rc == 2 and len(lines) == 1, lines
        assert "has no Wi-Fi" in lines[0] and "BOARD=pico_w" in lines[0], lines


def test_a_broker_name_is_resolved_once_and_loopback_names_refused():
    """A name is resolved here and its address goes into net.json (the
    clock does no DNS lookup: netcfg.is_ipv4), saying so; a name that is this
    computer (Debian maps its own host name to 127.0.1.1) is refused.
    (The resolver is the fake: this machine has no hall network.)"""
    def resolver(table):
        def getaddrinfo(name, *_a):
            if name not in table:
                raise OSError(-2, "Name or service not known")
            return [(2, 1, 6, "", (table[name], 0))]
        return getaddrinfo
    addr, note = clock_broker("hall-laptop", resolver({"hall-laptop": "192.168.7.2"}))
    assert addr == "192.168.7.2" and "192.168.7.2" in note and "hall-laptop" in note
    import netcfg
    assert netcfg.is_ipv4(addr)
    for name in ("my-laptop", "other"):
        with pytest.raises(HallError) as e:
            clock_broker(name, resolver({"my-laptop": "127.0.1.1"}))
        assert "\n" not in str(e.value)
        assert ("loopback" if name == "my-laptop" else "does not resolve") in str(e.value)
    assert clock_broker(" 10.0.0.5 ") == ("10.0.0.5", None)
    with pytest.raises(HallError) as e:
        clock_broker("fe80::1")
    assert "IPv4 only" in str(e.value)


# -- progress --------------------------------------------------------------------------

class Out:
    """A stream the progress writes to, as a terminal or not; its text so far."""

    def __init__(self, tty):
        self.tty = tty
        self.buf = io.StringIO()
        self.lock = threading.Lock()

    def isatty(self):
        return self.tty

    def write(self, s):
        with self.lock:
            self.buf.write(s)

    def flush(self):
        pass

    def text(self):
        with self.lock:
            return self.buf.getvalue()


def wait_for(out, words, proc_or_thread=None, bound_s=120):
    """Wait (a generous bound, not a measured time) until `words` shows."""
    end = time.monotonic() + bound_s
    while words not in out.text():
        assert time.monotonic() < end, out.text()
        time.sleep(0.01)


def run_fake_step(tmp_path, tty, monkeypatch):
    """A build step that prints make's "[ NN%]" lines into its log and
    then waits for a file the test creates: the progress it shows meanwhile."""
    monkeypatch.setattr(fwimage, "PROGRESS_S", 0.05)
    monkeypatch.setattr(fwimage, "BAR_S", 0.05)
    go = tmp_path / "go"
    log = str(tmp_path / "build.log")
    script = ("echo '[  3%%] Building C object a.o'; echo '[ 45%%] Building C object b.o'; "
              "while [ ! -e %s ]; do sleep 0.02; done" % go)
    out = Out(tty)
    p = fwimage.Progress(total=2, out=out)
    p.step("cmake (rp2 RPI_PICO)")              # (the step before it)
    t = threading.Thread(target=fwimage.run_step, args=(["sh", "-c", script], log),
                         kwargs={"what": "make (rp2 RPI_PICO)", "progress": p})
    t.start()
    try:
        wait_for(out, "45 %")
    finally:
        go.touch()
        t.join(120)
    return out.text()


def test_a_long_step_says_its_step_time_and_how_far_make_got(tmp_path, monkeypatch):
    """Issue 37: a cold `make firmware` was silent for minutes.  Not a
    terminal (CI, a log file): the step's number and name when it starts,
    then lines with its elapsed time and make's percentage, then how long
    it took; no bar, no carriage returns."""
    text = run_fake_step(tmp_path, False, monkeypatch)
    lines = text.splitlines()
    assert lines[0].startswith("firmware: step 2/2 make (rp2 RPI_PICO) (log: ")
    running = [ln for ln in lines if ln.startswith("firmware: step 2/2 make (rp2 RPI_PICO): ")]
    assert running and all(" elapsed" in ln for ln in running), lines
    assert running[-1].endswith(", 45 %"), running
    assert lines[-1].startswith("firmware: step 2/2 make (rp2 RPI_PICO) done after 0:")
    assert "\r" not in text and "#" not in text


def test_on_a_terminal_the_step_is_one_line_with_a_bar(tmp_path, monkeypatch):
    """On a terminal the same step redraws one line (carriage return, erase
    to its end) with a bar as long as make's percentage, then ends it."""
    text = run_fake_step(tmp_path, True, monkeypatch)
    cells = fwimage.BAR_CELLS
    k = 45 * cells // 100
    assert "\r\x1b[Kfirmware: step 2/2 make (rp2 RPI_PICO) [%s%s]  45 %% 0:" % (
        "#" * k, "-" * (cells - k)) in text, repr(text)
    assert text.rstrip("\n").splitlines()[-1].startswith(
        "firmware: step 2/2 make (rp2 RPI_PICO) done after ")


def test_a_build_waiting_for_the_cache_lock_says_so_and_how_long(tmp_path, monkeypatch):
    """Issue 37: a firmware-tables waiting on the build cache's lock was
    silent for 100 s.  Another build holds the tree's lock: the waiting one
    says whose lock, who holds it, then how long it has waited, and when
    it got it."""
    import fcntl
    monkeypatch.setattr(fwimage, "PROGRESS_S", 0.05)
    path = str(tmp_path / "tree-x.lock")
    with open(path, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("pid 4242: tools/fwimage.py build --board pico_w\n")
        held.flush()
        out = Out(False)
        got = threading.Event()

        def take():
            with fwimage.BuildLock(path, fwimage.Progress(out=out), "the build tree's lock"):
                got.set()
        t = threading.Thread(target=take)
        t.start()
        wait_for(out, "so far")
        assert not got.is_set()
        fcntl.flock(held, fcntl.LOCK_UN)
    t.join(120)
    assert got.is_set()
    lines = out.text().splitlines()
    assert lines[0] == ("firmware: waiting for the build tree's lock: another build holds "
                        "tree-x.lock (pid 4242: tools/fwimage.py build --board pico_w)")
    assert lines[1].startswith("firmware: still waiting for the build tree's lock: 0:")
    assert lines[-1].startswith("firmware: got the build tree's lock after waiting 0:")
    with open(path) as f:                      # it now says who holds it
        assert f.read().startswith("pid %d: " % os.getpid())


# -- the table block ---------------------------------------------------------------------

def fake_uf2(path, top):
    """A UF2 whose blocks fill the flash from 0 up to `top` (an offset)."""
    fwimage.write_uf2(str(path), [(fwimage.XIP_BASE + a, b"\x5a" * 256)
                                  for a in range(0, top, 256)])
    return str(path)


def test_the_layout_leaves_the_table_block_and_the_filesystem_alone(tmp_path):
    """Every RP2040 image mounts its filesystem on the flash's last
    FS_BYTES (the Pico W's own region, so pico.uf2 and pico_w.uf2 share
    it); the table block is the sector below.  An image whose code would
    reach it is refused in one line."""
    assert provision.FS_OFFSET + provision.FS_BYTES == provision.FLASH_BYTES
    assert provision.BLOCK_OFFSET + provision.BLOCK_BYTES == provision.FS_OFFSET
    assert provision.FS_OFFSET == 0x12C000 and provision.FS_OFFSET % 4096 == 0
    ok = fake_uf2(tmp_path / "ok.uf2", provision.BLOCK_OFFSET)
    assert fwimage.check_layout(ok) == fwimage.XIP_BASE + provision.BLOCK_OFFSET
    big = fake_uf2(tmp_path / "big.uf2", provision.BLOCK_OFFSET + 256)
    with pytest.raises(fwimage.FirmwareError) as e:
        fwimage.check_layout(big)
    assert "\n" not in str(e.value) and "0x1012b000" in str(e.value)
    # the board headers get the one region, and a header without the line is refused
    h = b"#define MICROPY_HW_BOARD_NAME \"x\"\n#define MICROPY_HW_FLASH_STORAGE_BYTES (1408 * 1024)\n"
    new = fwimage.one_region(h, "mpconfigboard.h")
    assert b"(%d * 1024)" % (provision.FS_BYTES // 1024) in new and b"1408" not in new
    with pytest.raises(fwimage.FirmwareError):
        fwimage.one_region(b"#define X 1\n", "mpconfigboard.h")


def test_a_table_image_writes_only_the_table_block_below_the_filesystem(tmp_path):
    """A table's image is the plain image's blocks plus the table block's
    (MAGIC, length, SHA-256, net.json): nothing in the filesystem region,
    so copying it over a used clock cannot touch a file there."""
    plain = fake_uf2(tmp_path / "plain.uf2", 64 * 1024)
    payload = json.dumps({"table": 12, "host": "10.0.0.5"}).encode()
    out = str(tmp_path / "table-12.uf2")
    fwimage.with_table_block(plain, out, payload)
    assert os.stat(out).st_mode & 0o777 == 0o600
    blocks = fwimage.uf2_blocks(out)
    base = fwimage.XIP_BASE + provision.BLOCK_OFFSET
    assert blocks[:len(fwimage.uf2_blocks(plain))] == fwimage.uf2_blocks(plain)
    extra = blocks[len(fwimage.uf2_blocks(plain)):]
    assert all(base <= a < base + provision.BLOCK_BYTES for a, _p in extra)
    assert max(a + len(p) for a, p in blocks) <= fwimage.XIP_BASE + provision.FS_OFFSET
    data = b"".join(p for _a, p in extra)
    found = provision.payload_of(data[:provision.HEAD], lambda at, n: data[at:at + n])
    assert found is not None and found[0] == payload
    with pytest.raises(ValueError):
        provision.block(b"x" * provision.BLOCK_BYTES)


class MemFS:
    """A filesystem in a dict, with fsys.OsFS's methods."""

    def __init__(self, files):
        self.files = dict(files)

    def open(self, path, mode):
        fs = self

        class F(io.BytesIO):
            def close(self):
                if "w" in mode:
                    v = self.getvalue()
                    fs.files[path] = v if "b" in mode else v
                io.BytesIO.close(self)
        if "r" in mode:
            if path not in self.files:
                raise OSError(2, "ENOENT")
            return io.BytesIO(self.files[path])
        f = F()
        if "b" not in mode:
            w = f.write
            f.write = lambda s: w(s.encode()) and len(s)
        return f

    def rename(self, old, new):
        self.files[new] = self.files.pop(old)

    def remove(self, path):
        del self.files[path]


def test_the_clock_takes_a_table_block_once_and_keeps_everything_else():
    """Issue 37: copying table-12.uf2 onto a clock that had played erased
    its settings, both game logs and any result not yet sent.  The clock
    now takes the block at power-up: net.json replaced, the setup menu's
    table set to 12 (the menu's table wins over net.json's), the rest of
    the settings and every other file as they were.  The same block again
    (a reboot, the same file copied again) changes nothing; a damaged one is
    ignored."""
    import settings as setmod
    old = setmod.Settings()
    old.profile, old.table, old.lang = "pfs", 14, "pl"
    games = {"games/g0001.txt": b"# clock\n0 start\n", "games/g0002.txt": b"# clock\n",
             "outbox.bin": b"\x01unsent result", "settings.json": json.dumps(old.as_dict()).encode(),
             "net.json": b'{"table": 14}'}
    fs = MemFS(games)
    cfg = json.dumps({"table": 12, "user": "12"}).encode()
    blk = provision.block(cfg)
    found = provision.payload_of(blk[:provision.HEAD], lambda at, n: blk[at:at + n])
    assert provision.apply(fs, "", found, setmod.Settings) == 12
    assert fs.files["net.json"] == cfg
    s = setmod.Settings.load("settings.json", fs)
    assert (s.table, s.profile, s.lang) == (12, "pfs", "pl")
    for name in ("games/g0001.txt", "games/g0002.txt", "outbox.bin"):
        assert fs.files[name] == games[name]
    # the menu moves the clock to table 7 later: a reboot keeps that
    s.table = 7
    s.save()
    assert provision.apply(fs, "", found, setmod.Settings) == 0
    assert setmod.Settings.load("settings.json", fs).table == 7
    bad = bytearray(blk)
    bad[-1] ^= 1
    assert provision.payload_of(bytes(bad[:provision.HEAD]), lambda at, n: bad[at:at + n]) is None
    assert provision.payload_of(b"\xff" * provision.HEAD, lambda at, n: b"") is None
    assert provision.apply(fs, "", None, setmod.Settings) == 0


# -- the label sheet ---------------------------------------------------------------------

@pytest.mark.skipif(not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium"))
                    or not shutil.which("pdftoppm"),
                    reason="chromium or poppler-utils missing (make deps)")
def test_the_label_sheet_has_one_label_per_table(tmp_path):
    """Issue 37: a printable label sheet, one label per table with its
    number and what it is for.  22 tables: two A4 pages of 3 x 7 labels
    (tools/tablelabels.py), as pictures (pdftoppm, as tests/test_cards.py
    reads the cards): ink in each of page 1's 21 cells and in page 2's
    first only; as text (pdftotext): every table's number, large, and the
    file, the event and the hall's address."""
    import tablelabels
    from hallkit import png_pixels
    rows = [{"table": t, "file": "table-%02d.uf2" % t, "sha256": "%064x" % t, "commit": "c39ae82",
             "event": "cup", "broker": "192.168.1.10", "board": "pico_w",
             "micropython": "v1.28.0", "built": "2026-12-01 22:00 UTC"} for t in range(1, 23)]
    pdf = tablelabels.sheet(rows, str(tmp_path / "labels.pdf"))
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, timeout=60).stdout
    assert re.search(r"Pages:\s+2\n", info) and "(A4)" in info, info
    text = subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True, text=True,
                          timeout=60).stdout
    for r in rows:
        assert "Table %d" % r["table"] in text and r["file"] in text
    assert len(re.findall(r"\bcup\b", text)) == 22 and text.count("192.168.1.10") == 22
    bbox = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          timeout=60).stdout
    heights = [float(m.group(2)) - float(m.group(1)) for m in re.finditer(
        r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">Table<', bbox)]
    assert len(heights) == 22 and min(heights) > 20, heights       # (24 pt: across a table)
    subprocess.run(["pdftoppm", "-r", "30", "-png", pdf, str(tmp_path / "p")], check=True,
                   timeout=120)
    cells = []
    for page in (1, 2):
        pw, ph, px = png_pixels(open(str(tmp_path / ("p-%d.png" % page)), "rb").read())
        top, left = round(ph * 15.1 / 297), round(pw * 7.2 / 210)
        cw, ch, gap = pw * 63.5 / 210, ph * 38.1 / 297, pw * 2.5 / 210
        for r in range(7):
            for c in range(3):      # the middle of a cell: inside its dashed frame
                x0, y0 = int(left + c * (cw + gap) + cw * 0.1), int(top + r * ch + ch * 0.1)
                ink = sum(1 for row in px[y0:int(y0 + ch * 0.8)]
                          for p in row[x0:int(x0 + cw * 0.8)] if max(p) < 100)
                cells.append(ink)
    assert all(n > 20 for n in cells[:22]), cells
    assert all(n == 0 for n in cells[22:]), cells
