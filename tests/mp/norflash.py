# Littlefs on a NOR-flash model, for the tests written once for both
# interpreters that need the running-clock journal (tests/test_journal.py,
# tests/test_session.py).
#
# On CPython it is tests/norfs.py (littlefs-python, the C library).  Under
# MicroPython it is MicroPython's own littlefs (os.VfsLfs2) over Nor, a
# bytearray with the same NOR rules and counters (a program only clears
# bits; erases, littlefs's page programs and the journal's raw programs
# counted; `budget`: a power cut after that many changed bytes of the
# journal's raw programs), each filesystem mounted at a folder of its own.
# The API is norfs.py's: NorFS() (fresh) / NorFS(nor, fresh=False),
# .boot() (a power-up on the same flash), .raw() (the block device, as
# rp2.Flash() on the Pico), .read(path), .files(folder), and the firmware's
# fsys.OsFS calls; power_cut(fs): a copy of the flash as it is now,
# mounted, leaving `fs` alone; copy_nor(nor): a copy of a flash, not
# mounted.  Nor.hook: hook(block, offset, data) before every operation
# (data None for an erase), to take the flash as a cut there leaves it.
from mptest import MICROPYTHON, small_heap

if not MICROPYTHON:
    from norfs import BLOCK, Nor, NorFS, PowerCut  # noqa: F401

else:
    import os
    from norraw import BLOCK, PowerCut, Raw

    BLOCKS = 96           # 384 KB, as norfs.py's
    _FF = b"\xff" * BLOCK
    _LIVE = []            # the mounted filesystems, oldest first
    _MOUNTS = 3           # at most this many at once (each holds its flash)
    _n = [0]

    _SMALL = small_heap()
    if _SMALL:
        # The qemu image (240 KB of heap): each flash in its 16 MB PSRAM
        # (tests/mp/ramflash.py), past the suites' disk and 64 blocks for
        # tests/test_journal.py's heap test, in a ring of _SLOTS flashes.
        import ramflash
        import uctypes
        _FIRST = ramflash.BASE + (ramflash.COUNT + 64) * BLOCK
        _SLOTS = 16
        _MOUNTS = 2       # (each mount's caches are heap)

    def _memory(blocks):
        if not _SMALL:
            return bytearray(blocks * BLOCK)
        k = _n[0] % _SLOTS
        return uctypes.bytearray_at(_FIRST + k * BLOCKS * BLOCK, blocks * BLOCK)

    class Nor:
        """The flash, and littlefs's block device (extended interface)."""

        def __init__(self, blocks=BLOCKS):
            self.blocks = blocks
            _n[0] += 1
            self.buffer = _memory(blocks)
            for b in range(blocks):
                self.buffer[b * BLOCK:(b + 1) * BLOCK] = _FF
            self.erases = 0
            self.programs = 0       # littlefs page programs
            self.raw_programs = 0   # the journal's page programs
            self.budget = None
            self.hook = None        # hook(block, offset, data): before each operation

        def readblocks(self, blk, buf, off=0):
            a = blk * BLOCK + off
            try:
                buf[:] = memoryview(self.buffer)[a:a + len(buf)]
            except MemoryError:     # a file closed by the collector: the heap is locked
                m = self.buffer
                for i in range(len(buf)):
                    buf[i] = m[a + i]

        def writeblocks(self, blk, buf, off=None):
            if off is None:
                off = 0
                for k in range(len(buf) // BLOCK):
                    self.ioctl(6, blk + k)
            if self.hook is not None:
                self.hook(blk, off, buf)
            a = blk * BLOCK + off
            m = self.buffer
            for i in range(len(buf)):
                m[a + i] &= buf[i]
            self.programs += 1

        def ioctl(self, op, arg):
            if op == 4:
                return self.blocks
            if op == 5:
                return BLOCK
            if op == 6:
                if self.hook is not None:
                    self.hook(arg, 0, None)
                self.erases += 1
                self.buffer[arg * BLOCK:(arg + 1) * BLOCK] = _FF
            return 0

    def _umount(fs):
        if fs in _LIVE:
            _LIVE.remove(fs)
            try:
                os.umount(fs.root)
            except OSError:
                pass

    class NorFS:
        """fsys.OsFS's API on littlefs over `nor`, mounted at a folder of its
        own (formatted first if `fresh`)."""

        def __init__(self, nor=None, fresh=None):
            self.nor = nor if nor is not None else Nor()
            if fresh or (fresh is None and nor is None):
                os.VfsLfs2.mkfs(self.nor, progsize=256)
            while len(_LIVE) >= _MOUNTS:
                _umount(_LIVE[0])
            _n[0] += 1
            self.root = "/nor%d" % _n[0]
            os.mount(os.VfsLfs2(self.nor, progsize=256), self.root)
            _LIVE.append(self)

        def boot(self):
            """A power-up on the same flash (this mount is gone)."""
            _umount(self)
            return NorFS(self.nor, fresh=False)

        def raw(self):
            return Raw(self.nor)

        def open(self, path, mode):
            return open(self.root + "/" + path, mode)

        def rename(self, old, new):
            os.rename(self.root + "/" + old, self.root + "/" + new)

        def remove(self, path):
            os.remove(self.root + "/" + path)

        def listdir(self, path):
            return os.listdir(self.root + "/" + path)

        def stat(self, path):
            return os.stat(self.root + "/" + path)

        def mkdir(self, path):
            os.mkdir(self.root + "/" + path)

        def read(self, path):
            f = self.open(path, "rb")
            try:
                return f.read()
            finally:
                f.close()

        def files(self, folder="/"):
            return os.listdir(self.root + "/" + folder.strip("/"))


def copy_nor(src):
    """A copy of a flash, not mounted."""
    nor = Nor(src.blocks)
    nor.buffer[:] = src.buffer
    return nor


def power_cut(fs):
    """The flash as a power cut leaves it, mounted again."""
    return NorFS(copy_nor(fs.nor), fresh=False)
