# The running-clock journal: checkpoints and events while a clock runs,
# with no flash erase and no heap allocation (issue 11 "Flash erases",
# SPEC §6: no garbage collection in a game; SPEC §4 "Power loss").
#
# Why.  Every file write on littlefs (copy-on-write) sooner or later erases a
# 4 KB sector, and the rp2 port erases with interrupts off (~45 ms on the
# Pico's W25Q16): a checkpoint file every 4 s cost ~360 erases an hour, all
# while a clock ran.  NOR flash can also be *programmed* without an erase:
# a program only clears bits (1 -> 0), so re-programming a page with its
# current bytes plus new bytes in its still-erased (0xFF) part changes only
# that part.
#
# How.  The journal is an ordinary littlefs file (`journal.bin`, UNITS units
# of UNIT bytes) that arm() writes while no clock runs (littlefs erases
# then).  Each unit begins with a marker, MAGIC + a fresh 4-byte nonce + the
# unit's index, and is 0xFF after it.  arm() then finds the markers on the
# raw flash (the block device the filesystem is mounted on: rp2.Flash(),
# the ESP32 "vfs" partition; readblocks), which gives each unit's block and
# offset (littlefs stores file data as is; a unit cut by a block boundary
# keeps only the part before it).  While a clock runs, append() programs one
# record into the erased part of a unit: it reads the 256-byte page(s) the
# record falls in, ANDs the record into them and programs them back
# (writeblocks(block, page, offset): a program, never an erase).  No file
# operation, no erase, no allocation (preallocated buffers only).
# (Issue 28: the file, its arming and the search for its units are
# jflash.py's JournalFile, the base of Journal; this file has the records.)
#
# A record (record_size(n) bytes, little-endian 32-bit ints as persist's; the
# checksum is a small Fletcher-16, whose loop fits MicroPython's stack frame):
#   0  kind (KIND_*), 1 n (snapshot ints)
#   2  log_hi: the log time's part in units of 10**9 ms (logtime.py)
#   3  live: 0xFF; anything else: void (a gesture undid the record: kill()
#      programs it to 0 after the KIND_UNDO record; not in the checksum)
#   4  base: the state store's seq when the record was made (records with a
#      base below the stored seq were folded into the files already)
#   8  log_ms (the log time's part below 10**9 ms)   12 code  13 side (+1)
#   14-15 the game's number (its log file's, gamelog; 0: not known)   16 arg
#   20 rem left 24 rem right   28 the clock's snapshot (n ints)
#   28+4n checksum: Fletcher-16 (a, b) of bytes 0 .. 27+4n but byte 3, then
#      a^255, b^255
# Only this file knows these offsets: the session and its spool make and read records
# with the functions at its end (new_record, set_event, set_kind,
# set_time, set_clock; kind, code, side, arg, base, log_hi, log_ms, game,
# void, rem, snapshot).  A record slot that is all 0xFF is the journal's
# end; a record whose checksum does not match was torn by a power cut (and
# ends the journal too).  (MAGIC names this layout: a journal of another
# layout is not found, and re-armed.)
#
# The session's spool (spool.py) folds the journal into the game log and the state
# file where nobody waits (in ready or over, a slice a main-loop step; not
# at a pause), and re-arms it when it is more than half full (arm_start()
# and arm_step(), a short slice a step, the watchdog fed between); folding
# and a power-up read the records back one at a time (rewind(), read_next():
# a whole game's records would not fit in the heap).  Where the filesystem
# offers no raw block device (CPython, the unix port) there is no journal
# unless a test gives one (tests/test_journal.py: littlefs on a NOR model).
from persist import put_i32 as _put, get_i32 as _get

import jflash
from jflash import MAGIC, HEAD, UNIT, SCAN_BLOCKS, NONE as _NONE
# 160 KB: ~1380 records (littlefs on 4 KB blocks), ~86 min of running time
# at 8 records a 30 s turn (a checkpoint per 4 s, one per press): a whole
# sdev game (2 x 25 min + overtime up to 2 x 10 min) without a stop.  Arming
# rewrites it while no clock runs: 41 sector erases (1.85 s at the W25Q16's
# typical 45 ms, 16.4 s at its datasheet maximum, 400 ms: hence the slices).
UNITS = 160
PAGE = 256             # NOR program page
KIND_CHECK = 1         # a checkpoint
KIND_EVENT = 2         # a core event (its log line), with the checkpoint after it
KIND_PAIR = 3          # a press ignored: pressed together with the other side
KIND_NOTE = 4          # a gesture (its code) recognised: a comment in the log
KIND_UNDO = 5          # a gesture undid its keys: the records from index
                       # `arg` up to this one are void (no log line)
# the record's fields (the layout above)
_KIND = 0
_N = 1
_HI = 2
_LIVE = 3
_BASE = 4
_MS = 8
_CODE = 12
_SIDE = 13
_GAME = 14
_ARG = 16
_REM = 20              # left; right at _REM + 4
_SNAP = 28


def record_size(n):
    return 32 + 4 * n


class Journal(jflash.JournalFile):
    """The records (jflash.JournalFile: the file and its units)."""
    def __init__(self, fs, bdev, path="journal.bin", n=19, units=0, feed=None):
        jflash.JournalFile.__init__(self, fs, bdev, path, units or UNITS,
                                    record_size(n), feed)
        self.n = n
        self.rec = new_record(n)                # the record append() writes
        self.page = bytearray(PAGE)
        self.ru = 0                             # the read cursor (folding):
        self.rp = 0                             # unit, offset,
        self.rk = 0                             # and its record's index

    def find(self):
        """At power-up: find the journal file's units (False: no usable
        journal, arm() it).  The write position is after the last record
        slot that is not erased."""
        self.ok = False
        try:
            f = self.fs.open(self.path, "rb")
            try:
                head = f.read(HEAD)
            finally:
                f.close()
            if self.fs.stat(self.path)[6] != self.units * UNIT:
                return False
        except OSError:
            return False
        if head is None or len(head) < HEAD or head[0:4] != MAGIC:
            return False
        if not self._scan(bytes(head[4:8])):
            return False
        # the write position: after the whole records, and after a torn one
        buf = bytearray(self.size)
        self.rewind(0)
        while self.read_next(buf):
            pass
        k = self.rk
        if k < self.slots:
            self._seek(k)
            if not self._erased(self.u, self.p):
                k += 1
        self._seek(k)
        self.count = k
        return True

    # -- while a clock runs: program one record -----------------------------------
    # (Small functions, no try/loop together: MicroPython puts a call frame of
    # more than ~11 words on the heap.  tests/test_journal.py (MicroPython) measures
    # 0 bytes per main-loop iteration with a record.)
    def full(self):
        return self.u >= self.units

    def roomy(self):
        """Re-arm?  (Full, or more than half of the slots used.)"""
        return self.u >= self.units or 2 * self.count > self.slots

    def append(self, r=None):
        """Program record r (default: self.rec; filled by the caller, the
        checksum is added here) at the write position.  False if the
        journal is full or the flash refused (then .ok is False: the caller
        falls back to the files)."""
        if r is not None:
            self.rec = r
        if not self.ok:
            return False
        self._next()
        if self.u >= self.units:
            return False
        seal(self.rec, self.size)
        if not self._safe():
            return False
        self.p += self.size
        self.count += 1
        return True

    def _next(self):
        while self.u < self.units and (self.blk[self.u] == _NONE or
                                       self.p + self.size > self.end[self.u]):
            self.u += 1
            if self.u < self.units:
                self.p = self.start[self.u]

    def _safe(self):
        try:
            self._program()
        except OSError:
            self.ok = False
            return False
        return True

    def _program(self):
        """The record at the write position: each page it touches is read,
        the record ANDed in, and the page programmed back."""
        k = 0
        while k < self.size:
            k = self._page(k)

    def _page(self, k):
        a = self.p + k
        ps = a & -PAGE
        self.bdev.readblocks(self.blk[self.u], self.page, ps)
        k = self._and(a - ps, k)
        self.bdev.writeblocks(self.blk[self.u], self.page, ps)
        return k

    def _and(self, i, k):
        pg = self.page
        while i < PAGE and k < self.size:
            pg[i] &= self.rec[k]
            i += 1
            k += 1
        return k

    def kill(self, k):
        """Record k becomes void (a gesture undid it): its live byte is
        programmed to 0 (one page program, no erase, no allocation; the
        checksum leaves that byte out).  False if the flash refused."""
        self._at(k)
        if self.su >= self.units:
            return False
        a = self.sp + _LIVE
        ps = a & -PAGE
        return self._clear(self.blk[self.su], ps, a - ps)

    def kill_range(self, a, b):
        """Records a .. b-1 become void (an UNDO record undid them)."""
        while a < b:
            self.kill(a)
            a += 1

    def _clear(self, blk, ps, i):
        pg = self.page
        try:
            self.bdev.readblocks(blk, pg, ps)
            if pg[i] != 0:
                pg[i] = 0
                self.bdev.writeblocks(blk, pg, ps)
        except OSError:
            return False
        return True

    # -- reading back (power-up, folding) -------------------------------------------
    def rewind(self, k=0):
        """Put the read cursor at record slot k (read_next() reads on)."""
        self._at(k)
        self.ru = self.su
        self.rp = self.sp
        self.rk = k

    def read_next(self, buf):
        """The record at the read cursor into buf (len self.size), the
        cursor moved on: True; False at the end (an erased or torn slot, or
        no slot left).  Allocates nothing: the fold and the power-up read a
        whole game's records this way, one at a time."""
        while self.ru < self.units and (self.blk[self.ru] == _NONE or
                                        self.rp + self.size > self.end[self.ru]):
            self.ru += 1
            if self.ru < self.units:
                self.rp = self.start[self.ru]
        if self.ru >= self.units:
            return False
        self.bdev.readblocks(self.blk[self.ru], buf, self.rp)
        if not sealed(buf, self.size):
            return False            # erased (the end) or torn
        self.rp += self.size
        self.rk += 1
        return True

    def unfolded(self, seq, b):
        """At power-up: find() the journal; the index of its first record
        made at state store seq `seq` or later (-1: none, or no journal),
        the last record left in b.  The records an UNDO record undid are
        made void (again: a power cut may have cut its kills short)."""
        if not self.find():
            return -1
        first = -1
        self.rewind(0)
        while self.read_next(b):
            if first < 0 and base(b) >= seq:
                first = self.rk - 1
            if kind(b) == KIND_UNDO:
                self.kill_range(arg(b), self.rk - 1)
        if first < 0:
            return -1
        self.rewind(self.rk - 1)
        self.read_next(b)       # the last one again, into b
        return first

    def records(self, skip=0):
        """The whole records since arm(), in order, as bytes, from the
        (skip+1)-th on; stops at the first erased or torn slot.  (A list:
        for the tests; the firmware reads with read_next().)"""
        out = []
        buf = bytearray(self.size)
        self.rewind(skip)
        while self.read_next(buf):
            out.append(bytes(buf))
        return out


def _sum(r, n):
    """Fletcher-16 of r[0:n] but the live byte, as (b << 8) | a; a, b < 255."""
    return _run(r, _LIVE + 1, n, _run(r, 0, _LIVE, 0))


def _run(r, i, n, v):
    """Fletcher-16 (v = (b << 8) | a so far) on over r[i:n]."""
    a = v & 255
    b = v >> 8
    while i < n:
        a = (a + r[i]) % 255
        b = (b + a) % 255
        i += 1
    return (b << 8) | a


def seal(r, size):
    """The record's last 4 bytes: its checksum a, b and their complements.
    An erased (0xFF) or partly programmed trailer never matches: a and b
    are below 255."""
    v = _sum(r, size - 4)
    r[size - 4] = v & 255
    r[size - 3] = v >> 8
    r[size - 2] = (v & 255) ^ 255
    r[size - 1] = (v >> 8) ^ 255


def sealed(r, size):
    """Is r a whole record (not erased, not torn)?"""
    v = _sum(r, size - 4)
    return (r[size - 4] == v & 255 and r[size - 3] == v >> 8 and
            r[size - 2] == (v & 255) ^ 255 and r[size - 1] == (v >> 8) ^ 255)


# -- a record's fields: the only code that knows the layout ------------------------
# (Small frames, no allocation except new_record() and snapshot(): the
# session fills a staged record at every press and checkpoint.)
def new_record(n):
    """A blank record for a snapshot of n ints."""
    r = bytearray(record_size(n))
    r[_N] = n
    r[_LIVE] = 255
    return r


def set_event(r, code, side, arg):
    """An event record (KIND_EVENT; set_kind() makes it another kind): the
    core's event code, side (-1: none) and argument."""
    r[_KIND] = KIND_EVENT
    r[_CODE] = code
    r[_SIDE] = side + 1
    _put(r, _ARG, arg)


def set_kind(r, kind):
    r[_KIND] = kind


def set_time(r, base, hi, ms):
    """When: the state store's seq (`base`) and the log time, hi * 10**9
    + ms (logtime.py; hi below 256)."""
    _put(r, _BASE, base)
    r[_HI] = hi if hi < 256 else 255
    _put(r, _MS, ms)


def set_game(r, n):
    """The game's number (its log file's; 0: none, or past 65535)."""
    if n > 65535:
        n = 0
    r[_GAME] = n & 255
    r[_GAME + 1] = n >> 8


def set_clock(r, clock):
    """What the clock shows: its remaining times and its snapshot."""
    rem = clock.rem
    _put(r, _REM, rem[0])
    _put(r, _REM + 4, rem[1])
    _put_snap(r, clock.snapshot())


def _put_snap(r, snap):
    n = len(snap)
    k = 0
    while k < n:
        _put(r, _SNAP + 4 * k, snap[k])
        k += 1


def kind(r):
    return r[_KIND]


def code(r):
    return r[_CODE]


def side(r):
    return r[_SIDE] - 1


def arg(r):
    return _get(r, _ARG)


def base(r):
    """The state store's seq when the record was made."""
    return _get(r, _BASE)


def log_ms(r):
    """The log time's part below 10**9 ms (log_hi(r): the rest)."""
    return _get(r, _MS)


def log_hi(r):
    return r[_HI]


def game(r):
    return r[_GAME] | (r[_GAME + 1] << 8)


def void(r):
    """Did a gesture undo the record (kill())?"""
    return r[_LIVE] != 255


def rem(r, s):
    """Side s's remaining time at the record."""
    return _get(r, _REM + 4 * s)


def snapshot(r):
    """The clock snapshot a record carries, as a list of ints."""
    return [_get(r, _SNAP + 4 * k) for k in range(r[_N])]
