"""Littlefs on a NOR-flash model, for the running-clock journal's tests
(firmware/journal.py).

The filesystem is the real littlefs (littlefs-python, the C library) with
the Pico's geometry (4096-byte blocks, prog size 256); what it stores goes
through Nor, a NOR model: a program only clears bits (new = old AND data),
an erase sets a block to 0xFF and is counted.  NorFS is the firmware's
filesystem API (fsys.OsFS: open, rename, remove, listdir, stat, mkdir)
over it, plus raw(): the block device under it (readblocks/writeblocks with
an offset, ioctl), as rp2.Flash() is on the Pico.

Time (issue 20): with `busy` set (a function of ms), every erase and page
program calls it with the W25Q16's time for it, `erase_ms` and `prog_ms`
(default: the datasheet's maxima, tSE 400 ms a 4 KB sector, tPP 3 ms a
256-byte page), so a test can let that time pass on its virtual clock
(tests/test_watchdog.py).

Power cuts in the journal: with `budget` set, each byte that a raw program
changes uses one unit; when none is left the program stops there (the bytes
before stay programmed) and PowerCut is raised.  boot() mounts the same
flash again, as a power-up does.

Power cuts anywhere: with `hook` set, hook(block, offset, data) is called
before every flash operation (littlefs's page programs and erases, data
None for an erase; the journal's raw programs), so a test can take the
flash as a cut there leaves it (tests/test_journal.py: a cut at every
operation of the fold).
"""
import errno

from littlefs import LittleFS, UserContext
from littlefs.errors import LittleFSError

from norraw import BLOCK, PowerCut, Raw  # noqa: F401  (the journal's view, shared with norflash.py)

BLOCKS = 96           # 384 KB: the bundle is not on it, the games and the journal are
ERASE_MAX_MS = 400    # W25Q16JV datasheet: sector erase (4 KB), tSE max (typ. 45)
PROG_MAX_MS = 3       # page program (256 bytes), tPP max (typ. 0.4)


class Nor(UserContext):
    def __init__(self, blocks=BLOCKS):
        UserContext.__init__(self, buffsize=blocks * BLOCK)
        self.blocks = blocks
        self.erases = 0
        self.programs = 0       # littlefs page programs
        self.raw_programs = 0   # the journal's page programs
        self.budget = None
        self.hook = None        # hook(block, offset, data): before each operation
        self.busy = None        # busy(ms): the flash's time passes
        self.erase_ms = ERASE_MAX_MS
        self.prog_ms = PROG_MAX_MS

    def prog(self, cfg, block, off, data):
        if self.hook is not None:
            self.hook(block, off, data)
        a = block * BLOCK + off
        b = self.buffer
        for i, x in enumerate(data):
            b[a + i] &= x
        self.programs += 1
        if self.busy is not None:
            self.busy(self.prog_ms * ((len(data) + 255) // 256))
        return 0

    def erase(self, cfg, block):
        if self.hook is not None:
            self.hook(block, 0, None)
        self.erases += 1
        if self.busy is not None:
            self.busy(self.erase_ms)
        return UserContext.erase(self, cfg, block)


def _oserror(e):
    if isinstance(e, LittleFSError):
        return OSError(errno.ENOENT if e.code == -2 else errno.EIO, str(e))
    return e


class NorFS:
    """fsys.OsFS's API on littlefs over `nor` (mounted: formatted first
    if `fresh`)."""

    def __init__(self, nor=None, fresh=None):
        self.nor = nor if nor is not None else Nor()
        self.lfs = LittleFS(context=self.nor, block_size=BLOCK, block_count=self.nor.blocks,
                            prog_size=256, read_size=1, mount=False)
        if fresh or (fresh is None and nor is None):
            self.lfs.format()
        self.lfs.mount()

    def boot(self):
        """A power-up on the same flash."""
        return NorFS(self.nor, fresh=False)

    def raw(self):
        return Raw(self.nor)

    def _do(self, fn, *a):
        try:
            return fn(*a)
        except LittleFSError as e:
            raise _oserror(e)

    def open(self, path, mode):
        return self._do(self.lfs.open, path, mode, 0)  # unbuffered: flush() syncs

    def rename(self, old, new):
        self._do(self.lfs.rename, old, new)

    def remove(self, path):
        self._do(self.lfs.remove, path)

    def listdir(self, path):
        return self._do(self.lfs.listdir, path)

    def stat(self, path):
        st = self._do(self.lfs.stat, path)
        return (0x4000 if st.type == 2 else 0x8000, 0, 0, 0, 0, 0, st.size, 0, 0, 0)

    def mkdir(self, path):
        self._do(self.lfs.mkdir, path)

    def read(self, path):
        with self.lfs.open(path, "rb") as f:
            return f.read()

    def files(self, folder="/"):
        return self.lfs.listdir(folder)
