# Power-loss-safe game state (SPEC §4 "Power loss"; TSO § 4.1 f: the clock
# is stopped for a power failure).
#
# The app checkpoints the core's snapshot (clockcore.Clock.snapshot(), a list
# of ints) after every event and every session.CHECKPOINT_MS (4 s) of running
# time (firmware/session.py); after a power cut it loads the newest good
# record and resumes the game paused (Clock.restore(ints, t=now)).
#
# One record, little-endian, fixed size for a given number n of ints
# (n = clockcore.SNAPSHOT_LEN = 20 -> 112 bytes; the SPEC v4 firmware's 19
# -> 108 bytes are still read):
#
#   offset  size
#    0      4    magic b"SClk"
#    4      1    format version (2)
#    5      1    n, the number of snapshot ints
#    6      2    record length in bytes: 32 + 4n
#    8      4    seq: +1 per save (unsigned; also picks the slot: seq & 1)
#   12      4n   the snapshot ints, signed 32-bit
#   12+4n   4    log_ms  (the game log's time of the snapshot: its part
#                below 10**9 ms, logtime.py)
#   16+4n   4    log_pos (bytes in the game log file at the snapshot)
#   20+4n   4    game    (the game log's number, gNNNN)
#   24+4n   4    log_hi  (the log time's part in units of 10**9 ms)
#   28+4n   4    CRC-32 (IEEE 802.3, the value zlib.crc32 gives) of bytes 0..27+4n
#
# Version 1 (the same without log_hi, 28 + 4n bytes) is still read (log_hi 0):
# a clock updated with a game on keeps it.
#
# Files (path = "clock.state"): two slots path+".a" (even seq) and path+".b"
# (odd seq), and path+".tmp".  save() writes the record to the temp file,
# closes it and renames it over the slot of its seq's parity, so the other
# slot always keeps the previous good record.  On littlefs the rename is
# atomic; if the slot is still torn (another filesystem, flash fault) the
# CRC rejects it and load() falls back to the other slot.  A temp file that
# was written completely but not yet renamed (power failed in between) holds
# a genuine newer record: load() uses it and finishes the rename.
#
# Nothing here raises on bad file content or missing files.  The CRC is
# integer-only with 16-bit halves, so no long ints on the boards' 31-bit
# small ints.  A save writes a file (littlefs allocates its file cache, 1.3 KB
# on the Pico, and erases): on a board with a raw flash the session calls it
# only while no clock runs; the running clock's checkpoints go to the
# journal (journal.py: no erase, no allocation).  Measured under MicroPython:
# tests/test_power_loss.py, tests/test_journal.py.
import fsys

MAGIC = b"SClk"
VERSION = 2
HEADER = 12
TRAILER = 20          # log_ms, log_pos, game, log_hi, CRC (version 1: no log_hi)

NO_GAME = "no saved game"
CORRUPT_FALLBACK = "state file corrupt: using the last good record"
CORRUPT_NONE = "state file corrupt: no saved game"
OTHER_FORMAT = "saved game from another firmware version: not restored"


def record_size(n, version=VERSION):
    return HEADER + 4 * n + (TRAILER if version == VERSION else TRAILER - 4)


# (The filesystem adapter and the atomic writer are fsys.py's.)


# -- CRC-32 in 16-bit halves (no long ints on a 32-bit MicroPython port) --------

_CRC_T = bytearray(1024)  # entry i: the 32-bit table value, little-endian


def _crc_table():
    t = _CRC_T
    for n in range(256):
        lo = n
        hi = 0
        for _ in range(8):
            odd = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if odd:
                lo ^= 0x8320
                hi ^= 0xEDB8
        i = n << 2
        t[i] = lo & 0xFF
        t[i + 1] = lo >> 8
        t[i + 2] = hi & 0xFF
        t[i + 3] = hi >> 8


_crc_table()


def _crc_into_py(data, n, out, at):
    """CRC-32 of data[0:n], written little-endian into out[at:at+4]."""
    t = _CRC_T
    lo = 0xFFFF
    hi = 0xFFFF
    for i in range(n):
        e = ((lo ^ data[i]) & 0xFF) << 2
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ (t[e] | (t[e + 1] << 8))
        hi = (hi >> 8) ^ (t[e + 2] | (t[e + 3] << 8))
    lo ^= 0xFFFF
    hi ^= 0xFFFF
    out[at] = lo & 0xFF
    out[at + 1] = lo >> 8
    out[at + 2] = hi & 0xFF
    out[at + 3] = hi >> 8


def _crc_into_c(data, n, out, at):
    v = _c_crc32(memoryview(data)[:n])
    out[at] = v & 0xFF
    out[at + 1] = (v >> 8) & 0xFF
    out[at + 2] = (v >> 16) & 0xFF
    out[at + 3] = (v >> 24) & 0xFF


# On CPython (the simulator, the tests) the C crc32 gives the same value much
# faster.  On the boards binascii.crc32 is often not built in, and its result
# would be a long int: the integer-only version above is used.
try:
    import sys
    if sys.implementation.name != "cpython":
        raise ImportError
    from binascii import crc32 as _c_crc32
    crc_into = _crc_into_c
except ImportError:
    crc_into = _crc_into_py


def crc32(data):
    """CRC-32 of a whole buffer as an int (tests, host tools)."""
    b = bytearray(4)
    crc_into(data, len(data), b, 0)
    return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)


def put_i32(buf, i, v):
    """buf[i:i+4] = v, a signed 32-bit int, little-endian (ValueError
    outside that range).  The state record's and the journal's."""
    h = v >> 31
    if h != 0 and h != -1:
        raise ValueError("state value out of 32-bit range")
    buf[i] = v & 0xFF
    buf[i + 1] = (v >> 8) & 0xFF
    buf[i + 2] = (v >> 16) & 0xFF
    buf[i + 3] = (v >> 24) & 0xFF


def get_i32(data, i):
    """The signed 32-bit little-endian int at data[i:i+4]."""
    top = data[i + 3]
    if top >= 128:
        top -= 256
    return (top << 24) | (data[i + 2] << 16) | (data[i + 1] << 8) | data[i]


def _get_u(data, i):
    return ((data[i + 3] << 8 | data[i + 2]) << 16) | (data[i + 1] << 8) | data[i]


class StateStore:
    """Checkpoints of the running game.

        store = StateStore()                    # or StateStore(fs=fake)
        store.save(clock.snapshot(), log_ms, log.pos, log.number, log_hi)
        rec = store.load()                      # (ints, log_ms) or None
        store.clear()                           # game over / reset

    save() returns True, or False (with .message) if the filesystem refused
    (full, failing): the clock keeps running on its in-memory state.
    load() returns the newest valid record as (ints, log_ms), sets .log_hi,
    .log_pos, .game and .seq from it, and .message to a one-line reason when it had to
    fall back or found nothing (None when all was well).  `count`, if given,
    is the snapshot length this firmware expects, `older` one it still
    reads (an earlier firmware's, 0: none); records of another length are
    not restored.
    """

    def __init__(self, fs=None, path="clock.state", count=0, older=0):
        self.fs = fs if fs is not None else fsys.OsFS()
        self.slots = (path + ".a", path + ".b")
        self.tmp = path + ".tmp"
        self.count = count
        self.older = older
        self.seq = -1          # newest seq on flash; -1 = not looked yet
        self.message = None
        self.log_ms = 0
        self.log_hi = 0
        self.log_pos = 0
        self.game = 0
        self.writes = 0        # records written (completed saves)
        self.bytes_written = 0
        self._buf = None
        self._n = -1
        self._scratch = bytearray(4)

    # -- saving ---------------------------------------------------------------
    def save(self, ints, log_ms=0, log_pos=0, game=0, log_hi=0):
        n = len(ints)
        if n != self._n:
            if n > 255:
                raise ValueError("too many state values")
            self._buf = bytearray(record_size(n))
            self._n = n
            b = self._buf
            b[0:4] = MAGIC
            b[4] = VERSION
            b[5] = n
            size = record_size(n)
            b[6] = size & 0xFF
            b[7] = size >> 8
        if self.seq < 0:
            self._find()
        buf = self._buf
        seq = self.seq + 1
        put_i32(buf, 8, seq)
        i = HEADER
        for k in range(n):
            put_i32(buf, i, ints[k])
            i += 4
        put_i32(buf, i, log_ms)
        put_i32(buf, i + 4, log_pos)
        put_i32(buf, i + 8, game)
        put_i32(buf, i + 12, log_hi)
        crc_into(buf, i + 16, buf, i + 16)
        try:
            fsys.write_atomic(self.fs, self.slots[seq & 1], buf, self.tmp)
        except OSError as e:
            self.message = "cannot save the game: error %s" % (e.args[0] if e.args else e)
            return False
        self.seq = seq
        self.writes += 1
        self.bytes_written += len(buf)
        return True

    # -- loading --------------------------------------------------------------
    def _read(self, name):
        """(seq, ints, log_ms, log_pos, game, log_hi) of a valid record in
        file `name`; 0 if the file is missing; -1 if it is corrupt or
        foreign; -2 if it is a valid record of another snapshot length."""
        try:
            f = self.fs.open(name, "rb")
        except OSError:
            return 0
        try:
            try:
                # (the header, then the length it names: no read buffer
                # over 1 KB, issue 30)
                data = f.read(HEADER)
                if data is not None and len(data) == HEADER:
                    size = data[6] | (data[7] << 8)
                    if HEADER < size <= record_size(255):
                        data += f.read(size - HEADER + 1)
            finally:
                f.close()
        except Exception:  # an unreadable file is a corrupt one
            return -1
        try:
            if data is None or len(data) < HEADER + TRAILER - 4:
                return -1
            v = data[4]
            if data[0:4] != MAGIC or (v != VERSION and v != 1):
                return -1
            n = data[5]
            size = record_size(n, v)
            if len(data) != size or (data[6] | (data[7] << 8)) != size:
                return -1
            end = size - 4
            s = self._scratch
            crc_into(data, end, s, 0)
            if s[0] != data[end] or s[1] != data[end + 1] or \
                    s[2] != data[end + 2] or s[3] != data[end + 3]:
                return -1
            if self.count and n != self.count and (not self.older or n != self.older):
                return -2
            ints = [get_i32(data, HEADER + 4 * k) for k in range(n)]
            i = HEADER + 4 * n
            return (_get_u(data, 8), ints, get_i32(data, i), get_i32(data, i + 4),
                    get_i32(data, i + 8), get_i32(data, i + 12) if v == VERSION else 0)
        except Exception:
            return -1

    def _find(self):
        """Look at both slots and the temp file: (best record, where it came
        from: 0/1 slot, 2 temp, -1 none, corrupt slot seen, other-format seen).
        Sets self.seq to the newest valid seq (0 if none)."""
        best = None
        where = -1
        corrupt = False
        other = False
        for k in (0, 1, 2):
            r = self._read(self.tmp if k == 2 else self.slots[k])
            if r == -1:
                if k < 2:
                    corrupt = True  # a torn temp file is just an unfinished save
                continue
            if r == -2:
                other = True
                continue
            if r == 0:
                continue
            if best is None or r[0] > best[0]:
                best = r
                where = k
        self.seq = best[0] if best is not None else 0
        return best, where, corrupt, other

    def load(self):
        """The newest valid record as (ints, log_ms), or None.  Never raises."""
        try:
            best, where, corrupt, other = self._find()
        except Exception:  # belt and braces: a broken fs object, MemoryError
            self.seq = 0
            self.message = CORRUPT_NONE
            return None
        if best is None:
            self.message = OTHER_FORMAT if other else (CORRUPT_NONE if corrupt else NO_GAME)
            return None
        if where == 2:
            # A complete save whose rename was cut off: finish it, so the next
            # save (which rewrites the temp file) cannot lose it.
            try:
                self.fs.rename(self.tmp, self.slots[best[0] & 1])
            except OSError:
                pass
        self.message = CORRUPT_FALLBACK if corrupt else None
        self.log_ms = best[2]
        self.log_pos = best[3]
        self.game = best[4]
        self.log_hi = best[5]
        return best[1], best[2]

    # -- forgetting -----------------------------------------------------------
    def clear(self):
        """Forget the saved game.  Removes the temp file, then the older slot,
        then the newest: a power cut half-way leaves at most the newest
        record (the state just before clear), never an older one."""
        if self.seq < 0:
            try:
                self._find()
            except Exception:
                self.seq = 0
        newest = self.seq & 1
        for name in (self.tmp, self.slots[1 - newest], self.slots[newest]):
            try:
                self.fs.remove(name)
            except OSError:
                pass
        self.message = None
