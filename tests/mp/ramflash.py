# A littlefs "flash" for the qemu MPS2_AN385 target (host_sim/target.py).
#
# The qemu image has no flash filesystem.  host_sim/target.py builds a littlefs
# image of the suites' .mpy files (with a /tmp for the files they write) with
# the Pico's geometry (4096-byte blocks, 352 of them, prog size 256 as the rp2
# port's _boot.py mounts it); qemu loads it into the board's otherwise unused
# 16 MB PSRAM at 0x21000000, and this source, sent over the REPL, mounts it at
# /.  The disk takes no MicroPython heap.  Reads and writes copy byte by byte through one uctypes
# view made at mount time: the block device itself allocates nothing, so heap
# figures measured on it are littlefs's own (rp2.Flash is C on the Pico).
import os
try:
    import uctypes
except ImportError:  # CPython: only the bytearray form
    uctypes = None

BASE = 0x21000000
BLOCK = 4096
COUNT = 352


class RamFlash:
    """The NOR model; on `ram` (a bytearray of count blocks) where given,
    else the qemu board's PSRAM.  Counts erases (the journal tests)."""

    def __init__(self, base=BASE, count=COUNT, ram=None):
        self.m = ram if ram is not None else uctypes.bytearray_at(base, count * BLOCK)
        self.count = count
        self.erases = 0

    # (small frames: these run inside the journal's measured 0-byte path)
    def readblocks(self, blk, buf, off=0):
        _copy(self.m, blk * BLOCK + off, buf)

    def writeblocks(self, blk, buf, off=None):
        if off is None:  # simple interface: erase the blocks first
            off = 0
            _fill(self.m, blk * BLOCK, len(buf))
        _and(self.m, blk * BLOCK + off, buf)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.count
        if op == 5:  # block size
            return BLOCK
        if op == 6:  # erase
            self.erases += 1
            _fill(self.m, arg * BLOCK, BLOCK)
            return 0
        return 0


def _copy(m, a, buf):
    i = 0
    n = len(buf)
    while i < n:
        buf[i] = m[a + i]
        i += 1


def _and(m, a, buf):
    i = 0
    n = len(buf)
    while i < n:
        m[a + i] &= buf[i]  # NOR: programming only clears bits
        i += 1


def _fill(m, a, n):
    i = 0
    while i < n:
        m[a + i] = 0xFF
        i += 1


def mount(path="/", fresh=False):
    """Mount the disk at `path` (as the rp2 port mounts its flash); `fresh`
    formats it first, else it holds the image host_sim/target.py loaded."""
    bdev = RamFlash()
    if fresh:
        os.VfsLfs2.mkfs(bdev, progsize=256)
    os.mount(os.VfsLfs2(bdev, progsize=256), path)
    return bdev


def mount_rom(addr, size, path="/rom"):
    """The ROMFS image host_sim/target.py loaded at `addr` (`size` bytes)
    mounted at `path`, first on the board's import path: its .mpy files run
    in place, as a Pico runs its frozen modules (the board's own path, not a
    host program's: tests/test_plumbing.py)."""
    import sys
    import vfs
    vfs.mount(vfs.VfsRom(uctypes.bytearray_at(addr, size)), path)
    sys.path.insert(0, path)
