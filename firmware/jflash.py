# The running-clock journal's file and where its units lie on the raw flash
# (journal.py's base: arming and finding; issue 28 split it from the
# records).  journal.py describes the whole; this part knows only the units.
#
# The journal is an ordinary littlefs file (UNITS units of UNIT bytes) that
# arm() writes while no clock runs (littlefs erases then).  Each unit begins
# with a marker, MAGIC + a fresh 4-byte nonce + the unit's index, and is
# 0xFF after it.  The units are then found on the raw flash (the block
# device the filesystem is mounted on: rp2.Flash(), the ESP32 "vfs"
# partition; readblocks), which gives each unit's block and offset
# (littlefs stores file data as is; a unit cut by a block boundary keeps
# only the part before it): self.blk, self.start, self.end, and self.slots
# record slots in all.
#
#   JournalFile.__init__(self, fs, bdev, path, units, size, feed)
#   arm()                   the file written and its units found, at once
#   arm_start(), arm_step() the same in slices: 0 more, 1 armed, -1 failed
#   arming()                an arming is under way
#   _scan(nonce)            the units of a file found again (find(), power-up)
#   _at(k), _seek(k)        record slot k's unit and offset; the write
#                           position put there
import fsys

MAGIC = b"SCj3"         # (b"SCjn": the layout without log_hi, live, game;
                        # b"SCj2": 108-byte records, 19-int snapshots, SPEC v4)
HEAD = 10              # MAGIC, nonce (4), unit index (2)
UNIT = 1024            # 9 records of 112 B a unit (4 in 512 B: 84 % used, 98 % now)
# Arming in slices (arm_step(), one a main-loop step): ARM_UNITS units
# written, then the search for them SCAN_BLOCKS blocks at a time.  On the
# emulated Pico a 1 KB unit's write is ~8 ms (and a sector erase every 4th:
# 45 ms typical on the W25Q16) and a block's search ~6 ms; the whole search
# in one step was 1.2 s, a whole block's write 31 ms (bench/press_bench.py).
ARM_UNITS = 1
SCAN_BLOCKS = 2
NONE = 0xFFFF          # blk[]: a unit not found


def _nonce():
    try:
        import os
        return bytes(os.urandom(4))
    except (ImportError, AttributeError, OSError):
        import time
        t = time.ticks_ms() if hasattr(time, "ticks_ms") else int(time.time() * 1000)
        return bytes((t & 255, (t >> 8) & 255, (t >> 16) & 255, (t >> 24) & 127))


class JournalFile:
    def __init__(self, fs, bdev, path, units, size, feed=None):
        self.fs = fs
        self.bdev = bdev
        self.path = path
        self.units = units
        self.size = size                        # a record's bytes
        self.bs = bdev.ioctl(5, 0) or 4096      # block size
        self.nb = bdev.ioctl(4, 0)              # block count
        # One unit's bytes, allocated once (issue 30: no buffer over 1 KB
        # after boot): the arming writes each unit from it, and the search
        # for the units reads the flash into it, a block in pieces.
        self.sbuf = bytearray(UNIT)
        self.blk = [NONE] * units              # each unit's raw block ...
        self.start = [0] * units                # ... its first record slot ...
        self.end = [0] * units                  # ... and where it ends
        self.u = 0                              # the write position: unit ...
        self.p = 0                              # ... and offset in its block
        self.count = 0                          # records since arm()
        self.slots = 0                          # record slots in all units
        self.ok = False                         # armed and found
        self.error = None
        self.feed = feed                        # the watchdog's feed, if any
        self._f = None                          # the file arm_step() writes
        self._i = 0
        self._sb = -1                           # the next block to search (-1: none)
        self._key = b""
        self._found = 0
        self.nonce = b""
        self.su = 0                             # a slot found by _at()
        self.sp = 0

    # -- arming -------------------------------------------------------------------
    # The file is written ARM_UNITS units per arm_step(): littlefs erases at
    # most one sector per step (400 ms at the W25Q16's datasheet maximum),
    # and `feed` (the watchdog's, set by the session) is called after each,
    # so the 41 erases never starve the 8 s watchdog; then the units are
    # searched for, SCAN_BLOCKS blocks a step.  A power cut half-way leaves
    # the old file (littlefs commits at close).  Each step is short: the
    # session goes on arming while a game that began meanwhile runs.
    def arm(self):
        """Write a fresh journal file at once (erases happen here; the
        watchdog is fed between blocks) and find its units on the raw flash.
        False (with .error) if that failed: no journal."""
        self.arm_start()
        r = self.arm_step()
        while r == 0:
            r = self.arm_step()
        return r > 0

    def arm_start(self):
        """Begin writing a fresh journal file (arm_step() writes it)."""
        self.ok = False
        self._abort()
        self.nonce = _nonce()
        self._i = 0
        self._unit()
        try:
            self._f = self.fs.open(self.path, "wb")
        except OSError as e:
            self._fail(e)

    def arming(self):
        return self._f is not None or self._sb >= 0

    def arm_step(self):
        """One slice of the arming: the units up to the next block boundary.
        0: more to do; 1: armed (ok); -1: failed (.error, no journal)."""
        f = self._f
        if f is None:
            if self._sb >= 0:
                return self._scan_some(SCAN_BLOCKS)
            return 1 if self.ok else -1
        per = ARM_UNITS
        buf = self.sbuf         # (the unit's bytes, from arm_start())
        try:
            k = 0
            while k < per and self._i < self.units:
                i = self._i
                buf[8] = i & 255
                buf[9] = i >> 8
                f.write(buf)
                self._i = i + 1
                k += 1
            if self._i >= self.units:
                self._f = None
                f.close()
        except OSError as e:
            self._fail(e)
            return -1
        self._fed()
        if self._f is None:
            self._scan_begin(self.nonce)    # the search: the next steps
        return 0

    def _scan_some(self, n):
        """n blocks of the search: 0 more to do; 1 found (ok); -1 not."""
        if not self._scan_blocks(n):
            return 0
        return 1 if self._scan_end() else -1

    def _unit(self):
        """A unit's bytes (its index at 8-9 is set for each): the buffer,
        0xFF after the marker."""
        b = self.sbuf
        k = HEAD
        while k < UNIT:
            b[k] = 255
            k += 1
        b[0:4] = MAGIC
        b[4:8] = self.nonce
        return b

    def _abort(self):
        f = self._f
        self._f = None
        self._sb = -1
        fsys.close(f)

    def _fail(self, e):
        self._abort()
        self.ok = False
        self.error = "journal: error %s" % (e.args[0] if e.args else e)

    def _fed(self):
        if self.feed is not None:
            self.feed()

    def _scan(self, nonce):
        """Find the units (MAGIC + nonce + index) on the raw flash, at once."""
        self._scan_begin(nonce)
        self._scan_blocks(self.nb)
        return self._scan_end()

    def _scan_begin(self, nonce):
        self._key = MAGIC + nonce
        for i in range(self.units):
            self.blk[i] = NONE
        self._found = 0
        self._sb = 0

    def _scan_blocks(self, k):
        """Up to k more blocks searched; True when every block was, or every
        unit was found (or the flash refused: .error)."""
        # Each block in pieces of the 1 KB buffer, overlapping by HEAD: a
        # marker (littlefs puts a file's units anywhere in a block, after
        # its skip-list pointers) lies whole in one piece.
        # It ends once every unit is found: a later copy of a marker would
        # be passed over anyway (_note keeps the first of each unit).
        n = len(self.sbuf)
        step = n - HEAD
        try:
            while k > 0 and self._sb < self.nb and self._found < self.units:
                b = self._sb
                if b & 63 == 63:
                    self._fed()
                off = 0
                while True:
                    if off + n > self.bs:
                        off = self.bs - n   # the last piece ends with the block
                    self.bdev.readblocks(b, self.sbuf, off)
                    self._found += self._markers(b, off)
                    if off + n >= self.bs:
                        break
                    off += step
                self._sb = b + 1
                k -= 1
        except OSError as e:
            self.error = "journal: error %s" % (e.args[0] if e.args else e)
            self._found = -1
            return True
        return self._sb >= self.nb or self._found >= self.units

    def _scan_end(self):
        self._sb = -1
        if self._found < 0:
            return False
        units = self.units
        self.slots = 0
        for i in range(units):
            if self.blk[i] != NONE:
                self.slots += (self.end[i] - self.start[i]) // self.size
        self._seek(0)
        self.count = 0
        self.ok = self._found > 0
        if not self.ok:
            self.error = "journal: not found on the flash"
        return self.ok

    def _markers(self, b, off):
        """The units whose marker lies whole in self.sbuf (block b's bytes
        from off on): their places noted; how many were new.  (Few locals
        here and in _note(): MicroPython puts a frame of more than 11 words
        on the heap, and the search runs while a game's first clock runs.)"""
        found = 0
        at = self.sbuf.find(self._key)
        while at >= 0:
            found += self._note(b, off + at, at)
            at = self.sbuf.find(self._key, at + HEAD)
        return found

    def _note(self, b, p, at):
        """The marker at self.sbuf[at:] (flash offset p of block b): 1 if it
        names a unit not yet found whose slots fit in its block, noted."""
        if at + HEAD > len(self.sbuf):
            return 0        # cut by the piece's end: whole in the next one
        i = self.sbuf[at + 8] | (self.sbuf[at + 9] << 8)
        end = p + UNIT if p + UNIT < self.bs else self.bs
        if i >= self.units or self.blk[i] != NONE or p + HEAD + self.size > end:
            return 0
        self.blk[i] = b
        self.start[i] = p + HEAD
        self.end[i] = end
        return 1

    def _at(self, k):
        """Record slot k's unit and offset into self.su, self.sp (units, 0
        past the last).  No allocation: kill() runs in a game."""
        n = self.size
        u = 0
        while u < self.units:
            if self.blk[u] != NONE:
                c = (self.end[u] - self.start[u]) // n
                if k < c:
                    self.su = u
                    self.sp = self.start[u] + k * n
                    return
                k -= c
            u += 1
        self.su = self.units
        self.sp = 0

    def _seek(self, k):
        """Put the write position at slot k."""
        self._at(k)
        self.u = self.su
        self.p = self.sp

    def _erased(self, u, p):
        buf = bytearray(self.size)
        self.bdev.readblocks(self.blk[u], buf, p)
        return buf == bytearray(b"\xff" * self.size)
