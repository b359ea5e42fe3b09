"""Power loss (SPEC §4 "Power loss"; TSO § 4.1 f: the clock is stopped for a
power failure): fault injection on the real firmware/persist.py.

A fake flash filesystem (the StateStore's fs API) records every operation.  A
long game is played on the real timing core, checkpointed as the app does
(after every event, and every 5 s of running time).  Then, for every save it
made, the power is cut at every operation boundary, inside the record write
(at byte boundaries), with the rename torn (target truncated or empty), and
with bits flipped in committed records.  Every restore must give either a
consistent paused game, exactly one of the records really saved, at most 5 s
of running time behind the truth and missing no transition whose checkpoint
had completed, or a clean "no saved game".  Never an exception.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image.  The fault injection on the
fake flash (an hour's game, every cut) runs on CPython; the last part runs
the store on the interpreter's real os and open() in a folder of its own
(mptest.tmp_path): checkpoints round-trip through clockcore, torn and
corrupt files fall back, the game log is cut back to its checkpoint, and on
MicroPython the heap cost of a save() is measured ("alloc ..." lines).
Other tests import FakeFlash and PowerCut from here.
"""
import errno
import gc
import os

import appversion
import clockcore as cc
import gamelog
import persist
import profiles
import ticks
from mptest import (MICROPYTHON, Random, cpython_only, eq, micropython_only,
                    parametrize, raises, tmp_path)

if not MICROPYTHON:
    import pytest

DIFF, ADD = ticks.wrapping(1 << 30)
T0 = (1 << 30) - 600000          # the tick counter wraps 10 min into the game
CHECKPOINT_MS = 5000             # SPEC §4: at most 5 s of running time lost
LOOP_MS = 100                    # the simulated main loop's period
RECORD = persist.record_size(cc.SNAPSHOT_LEN)


# -- a fake flash filesystem ----------------------------------------------------------

class PowerCut(Exception):
    """Raised by FakeFlash when its budget of flash steps runs out."""


def _enoent():
    return OSError(errno.ENOENT, "no such file")


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def read(self, n=-1):
        end = len(self.data) if n is None or n < 0 else self.at + n
        out = self.data[self.at:end]
        self.at += len(out)
        return out

    def readinto(self, buf):
        out = self.read(len(buf))
        buf[:len(out)] = out
        return len(out)

    def seek(self, pos):
        self.at = pos
        return pos

    def close(self):
        pass


class _Writer:
    def __init__(self, flash, path):
        self.flash = flash
        self.path = path
        self.closed = False

    def write(self, data):
        assert not self.closed
        self.flash._write(self.path, bytes(data))
        return len(data)

    def flush(self):
        pass

    def close(self):
        self.closed = True


class FakeFlash:
    """Files as bytes in a dict.  Every mutating operation is journaled with
    the files as they were before it (op, path, data/new path, before).

    Live power cuts: with `budget` set, each step (create, rename, remove,
    mkdir: 1; each written byte: 1) uses one unit; when none is left the
    operation stops part-way (a write keeps the bytes written so far) and
    PowerCut is raised, as a real power failure would stop the program."""

    def __init__(self, files=None, dirs=None, journal=True):
        self.files = dict(files or {})
        self.dirs = set(dirs or ())
        self.journal = [] if journal else None
        self.budget = None
        self.counts = {}

    def copy(self):
        return FakeFlash(self.files, self.dirs, journal=False)

    def _count(self, op):
        self.counts[op] = self.counts.get(op, 0) + 1

    def _log(self, op, a, b=None):
        if self.journal is not None:
            self.journal.append((op, a, b, dict(self.files)))

    def _step(self, n=1):
        if self.budget is None:
            return n
        if self.budget <= 0:
            raise PowerCut()
        take = min(n, self.budget)
        self.budget -= take
        return take

    # -- the fs API (persist.OsFS) --
    def open(self, path, mode):
        self._count("open")
        if "r" in mode:
            if path not in self.files:
                raise _enoent()
            return _Reader(self.files[path])
        self._check_dir(path)
        if "w" in mode or path not in self.files:
            self._step()
            self._log("create", path)
            self.files[path] = b""
        return _Writer(self, path)

    def _write(self, path, data):
        self._count("write")
        if path not in self.files:
            raise _enoent()
        n = self._step(len(data)) if data else 0
        self._log("write", path, data)
        self.files[path] = self.files[path] + data[:n]
        if n < len(data):
            raise PowerCut()

    def rename(self, old, new):
        self._count("rename")
        if old not in self.files:
            raise _enoent()
        self._step()
        self._log("rename", old, new)
        self.files[new] = self.files.pop(old)

    def remove(self, path):
        self._count("remove")
        if path not in self.files:
            raise _enoent()
        self._step()
        self._log("remove", path)
        del self.files[path]

    def listdir(self, path):
        self._count("listdir")
        if path not in self.dirs:
            raise _enoent()
        pre = path + "/"
        return [p[len(pre):] for p in self.files if p.startswith(pre) and "/" not in p[len(pre):]]

    def stat(self, path):
        self._count("stat")
        if path in self.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if path not in self.files:
            raise _enoent()
        return (0x8000, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)

    def mkdir(self, path):
        self._count("mkdir")
        if path in self.dirs or path in self.files:
            raise OSError(errno.EEXIST, "exists")
        self._step()
        self._log("mkdir", path)
        self.dirs.add(path)

    def _check_dir(self, path):
        if "/" in path and path.rsplit("/", 1)[0] not in self.dirs:
            raise _enoent()

    def dir_bytes(self, folder):
        pre = folder + "/"
        return sum(len(v) for p, v in self.files.items() if p.startswith(pre))


def flash_with(files):
    return FakeFlash(files, journal=False)


# -- a long game, checkpointed as the app does ----------------------------------------

class Save:
    __slots__ = ("seq", "ints", "log_ms", "j0", "j1", "charged", "transitions",
                 "event", "state")


def charged(ints):
    """Running time charged so far, from a snapshot (rem left/right, bases)."""
    return (ints[11] - ints[3]) + (ints[12] - ints[4])


def record_game(seed, profile="sdev", overrides=None, minutes=60, adjust_every=0):
    """Play `minutes` of simulated time with random presses, pauses and
    referee adjustments on the real core; checkpoint after every event
    (including the time-triggered ones) and after every 5 s of running time.
    Returns (flash, saves, clock)."""
    rng = Random(seed)
    flash = FakeFlash()
    store = persist.StateStore(fs=flash, count=cc.SNAPSHOT_LEN)
    assert store.load() is None and store.message == persist.NO_GAME
    fired = []
    clock = cc.Clock(profiles.make_rules(profile, overrides), T0, DIFF, ADD,
                     lambda code, s, t, a: fired.append(code))
    saves = []
    transitions = [0]
    adjusted = [0]  # running time = charged + what the referee took away
    state = {"last": None}

    def checkpoint(now_ms, event):
        snap = list(clock.snapshot())
        j0 = len(flash.journal)
        assert store.save(snap, now_ms, 0, 1)
        s = Save()
        s.seq, s.ints, s.log_ms = store.seq, snap, now_ms
        s.j0, s.j1 = j0, len(flash.journal)
        s.charged = charged(snap) + adjusted[0]
        s.transitions = transitions[0]
        s.event = event
        s.state = clock.state
        saves.append(s)
        state["last"] = s

    t_ms = 0
    end_ms = minutes * 60000
    next_press = rng.randrange(2000, 40000)
    while t_ms < end_ms and clock.state != cc.OVER:
        t_ms += LOOP_MS
        now = ADD(T0, t_ms)
        changed = False
        if t_ms >= next_press:
            # an event at its own timestamp, inside this loop period
            at = ADD(T0, t_ms - rng.randrange(LOOP_MS))
            r = rng.random()
            if clock.state == cc.PAUSED and adjust_every and rng.random() < 1.0 / adjust_every:
                before = charged(clock.snapshot())
                changed = clock.adjust(rng.randrange(2), rng.choice((-60000, -1000, 1000, 60000)), at)
                adjusted[0] += before - charged(clock.snapshot())
            elif r < 0.08:
                changed = clock.pause(at)
            elif r < 0.1:
                changed = clock.press(rng.randrange(2), at)  # maybe the wrong player
            else:
                side = clock.side if clock.state != cc.READY else rng.randrange(2)
                changed = clock.press(side if side >= 0 else 0, at)
            next_press = t_ms + (rng.randrange(1000, 20000) if clock.state == cc.PAUSED
                                 else rng.randrange(3000, 45000))
        clock.update(now)
        if changed:
            transitions[0] += 1
        if fired:
            transitions[0] += sum(1 for c in fired if c >= cc.EV_FLAG and c != cc.EV_WINDOW)
            del fired[:]
            checkpoint(t_ms, True)
        elif changed:
            checkpoint(t_ms, True)
        else:
            last = state["last"]
            snap = clock.snapshot()
            since = charged(snap) + adjusted[0] - (last.charged if last else 0)
            if clock.state == cc.RUNNING and since >= CHECKPOINT_MS - LOOP_MS:
                checkpoint(t_ms, False)
    if clock.state != cc.OVER:
        before = charged(clock.snapshot())
        clock.end(ADD(T0, t_ms))  # TSO § 5.2 d: the unfinished turn is not charged
        adjusted[0] += before - charged(clock.snapshot())
        del fired[:]
        transitions[0] += 1
        checkpoint(t_ms, True)
    return flash, saves, clock


# -- the checks -----------------------------------------------------------------------

def restore_from(files):
    """What the clock does at power-up: load, then resume paused."""
    store = persist.StateStore(fs=flash_with(files), count=cc.SNAPSHOT_LEN)
    rec = store.load()  # must never raise
    if rec is None:
        return store, None, None
    ints, log_ms = rec
    clock = cc.Clock(profiles.make_rules("sdev"), 0, DIFF, ADD)
    clock.restore(ints, t=12345)  # a fresh boot: ticks restart anywhere
    assert clock.state != cc.RUNNING, "a restored game comes back paused"
    if ints[1] == cc.RUNNING:
        assert clock.state == cc.PAUSED and clock.side == ints[2]
    assert clock.rem == [ints[3], ints[4]]
    # ... and it plays on without trouble
    clock.pause(12400)
    clock.update(14000)
    clock.press(cc.LEFT, 15000)
    return store, ints, log_ms


def by_seq(saves):
    return {s.seq: s for s in saves}


def check_restore(files, saves, i, allowed, message=None):
    """Restore from `files` (a cut during save i): the result must be one of
    the saves whose index is in `allowed` (None: no saved game)."""
    store, ints, log_ms = restore_from(files)
    if ints is None:
        assert None in allowed, "no saved game, but save %s should be there (%s)" % (
            allowed, store.message)
        assert store.message in (persist.NO_GAME, persist.CORRUPT_NONE)
        return None
    got = store.seq
    idx = [k for k in allowed if k is not None and k >= 0 and saves[k].seq == got]
    assert idx, "restored seq %d, expected one of saves %s" % (got, allowed)
    k = idx[0]
    assert ints == saves[k].ints and log_ms == saves[k].log_ms, "record differs from what was saved"
    # at most 5 s of running time behind the state being saved at the cut
    assert 0 <= saves[i].charged - saves[k].charged <= CHECKPOINT_MS
    # every transition whose checkpoint completed before the cut is there
    if i >= 1:
        assert saves[k].transitions >= saves[i - 1].transitions
    if message is not None:
        assert store.message == message, store.message
    return k


def files_after_write(op, nbytes):
    """The files if power fails after `nbytes` of journal write `op`."""
    kind, path, data, before = op
    assert kind == "write"
    files = dict(before)
    files[path] = before[path] + data[:nbytes]
    return files


def files_after(flash, j):
    """The files after journal entries [0, j) (j = len: now)."""
    if j < len(flash.journal):
        return dict(flash.journal[j][3])
    return dict(flash.files)


if not MICROPYTHON:
    @pytest.fixture(scope="module")
    def hour_game():
        flash, saves, clock = record_game(1, "sdev", {"base": "35:00"}, minutes=60, adjust_every=3)
        return flash, saves, clock


@cpython_only
def test_the_recorded_game_is_long_and_varied(hour_game):
    flash, saves, clock = hour_game
    events = [s for s in saves if s.event]
    periodic = [s for s in saves if not s.event]
    assert len(saves) > 500 and len(events) > 80 and len(periodic) > 400
    assert {s.ints[1] for s in saves} >= {cc.RUNNING, cc.PAUSED, cc.OVER}
    assert any(s.ints[3] != s.ints[11] and s.ints[4] != s.ints[12] for s in saves)
    # consecutive checkpoints never leave more than 5 s of running time
    for a, b in zip(saves, saves[1:]):
        assert 0 <= b.charged - a.charged <= CHECKPOINT_MS
    # every save is exactly: create temp, write the record, rename it over a slot
    for s in saves:
        ops = [(o[0], o[1], o[2] if o[0] == "rename" else None) for o in flash.journal[s.j0:s.j1]]
        assert ops == [("create", "clock.state.tmp", None), ("write", "clock.state.tmp", None),
                       ("rename", "clock.state.tmp", "clock.state." + "ab"[s.seq & 1])]


@cpython_only
def test_power_cut_at_every_step_of_every_save(hour_game):
    """SPEC §4 Power loss: a cut anywhere in a save restores the previous
    record or the one being written, never garbage, never an exception."""
    flash, saves, clock = hour_game
    rng = Random(7)
    checked = 0
    for i, s in enumerate(saves):
        journal = flash.journal[s.j0:s.j1]
        create, write, rename = journal
        prev = i - 1 if i > 0 else None
        # before the temp file is created, and with it created empty
        check_restore(create[3], saves, i, [prev], None)
        check_restore(write[3], saves, i, [prev], None)
        # inside the record write: every byte boundary for some saves, samples for the rest
        if i < 3 or i % 40 == 0 or i == len(saves) - 1:
            cuts = range(RECORD + 1)
        else:
            cuts = {0, 1, RECORD - 1, RECORD} | {rng.randrange(RECORD) for _ in range(3)}
        for b in cuts:
            files = files_after_write(write, b)
            want = [i] if b == RECORD else [prev]
            check_restore(files, saves, i, want, None)
            checked += 1
        # after the write (temp complete), before the rename: the temp record
        # is used and the rename finished, so the next save cannot lose it
        files = files_after_write(write, RECORD)
        k = check_restore(files, saves, i, [i], None)
        assert k == i
        ff = flash_with(files)
        st = persist.StateStore(fs=ff, count=cc.SNAPSHOT_LEN)
        st.load()
        assert "clock.state.tmp" not in ff.files
        ff.budget = 1 + RECORD // 2   # the next save is cut half-way
        raises(PowerCut, st.save, saves[i].ints, 1, 0, 1)
        check_restore(ff.files, saves, i, [i], None)
        # after the rename
        after = files_after(flash, s.j1)
        check_restore(after, saves, i, [i], None)
        checked += 4
    assert checked > 5000


@cpython_only
def test_torn_rename_and_flipped_bits_fall_back(hour_game):
    """A slot left truncated or empty by the rename (a filesystem without
    atomic rename), or a committed record with flipped bits, is rejected by the
    CRC: the other slot's record is restored with a message, or nothing."""
    flash, saves, clock = hour_game
    rng = Random(11)
    for i, s in enumerate(saves):
        create, write, rename = flash.journal[s.j0:s.j1]
        full = rename[3]["clock.state.tmp"]
        slot = rename[2]
        other = "clock.state." + "ba"[s.seq & 1]
        prev = i - 1 if i > 0 else None
        for b in (0, 1, RECORD // 2, RECORD - 1):
            torn = dict(rename[3])
            del torn["clock.state.tmp"]
            torn[slot] = full[:b]
            check_restore(torn, saves, i, [prev],
                          persist.CORRUPT_FALLBACK if prev is not None else persist.CORRUPT_NONE)
            torn["clock.state.tmp"] = full  # the temp file survived: it wins
            check_restore(torn, saves, i, [i], None)
        after = files_after(flash, s.j1)
        for _ in range(2):
            pos = rng.randrange(RECORD * 8)
            flipped = dict(after)
            data = bytearray(after[slot])
            data[pos // 8] ^= 1 << (pos % 8)
            flipped[slot] = bytes(data)
            check_restore(flipped, saves, i, [prev],
                          persist.CORRUPT_FALLBACK if prev is not None else persist.CORRUPT_NONE)
            if other in after:
                data = bytearray(after[other])
                data[pos // 8] ^= 1 << (pos % 8)
                flipped[other] = bytes(data)
                check_restore(flipped, saves, i, [None], persist.CORRUPT_NONE)
                flipped[slot] = after[slot]
                check_restore(flipped, saves, i, [i], persist.CORRUPT_FALLBACK)


@cpython_only
def test_power_cut_during_clear_never_brings_back_an_older_state(hour_game):
    flash, saves, clock = hour_game
    ff = flash_with(flash.files)
    ff.journal = []
    st = persist.StateStore(fs=ff, count=cc.SNAPSHOT_LEN)
    st.load()
    ff.files["clock.state.tmp"] = b"half a record"
    ff.journal = []
    st.clear()
    assert not ff.files
    assert [o[0] for o in ff.journal] == ["remove"] * 3
    for j in range(len(ff.journal) + 1):
        files = files_after(ff, j)
        check_restore(files, saves, len(saves) - 1, [len(saves) - 1, None], None)


@cpython_only
@parametrize("seed,profile,over", [
    (2, "pfs", {"base": "15:00"}),          # flags pause the clock; the game ends when both are out
    (3, "sdev", {"base": "10:00"}),         # overtime, penalties and the forfeit
    (4, "custom", {"base_left": "12:00", "base_right": "08:00", "window": "10"}),
])
def test_other_profiles_restore_at_every_save(seed, profile, over):
    flash, saves, clock = record_game(seed, profile, over, minutes=40, adjust_every=4)
    assert len(saves) > 100
    rng = Random(seed)
    for i, s in enumerate(saves):
        create, write, rename = flash.journal[s.j0:s.j1]
        b = rng.randrange(RECORD)
        check_restore(files_after_write(write, b), saves, i, [i - 1 if i else None])
        check_restore(files_after(flash, s.j1), saves, i, [i])


# -- the store on its own -------------------------------------------------------------

SNAP = list(range(-10, 10))  # clockcore.SNAPSHOT_LEN ints
assert len(SNAP) == cc.SNAPSHOT_LEN


def store_on(files=None):
    ff = flash_with(files or {})
    return ff, persist.StateStore(fs=ff, count=cc.SNAPSHOT_LEN)


@cpython_only
def test_record_format_is_fixed_size_with_a_crc32():
    ff, st = store_on()
    assert st.save(SNAP, 1234, 56, 7, 25)
    data = ff.files["clock.state.b"]
    n = cc.SNAPSHOT_LEN
    end = 12 + 4 * n + 16                                   # the CRC's offset
    assert len(data) == RECORD == end + 4 == 112
    assert data[:4] == b"SClk" and data[4] == 2 and data[5] == n
    assert int.from_bytes(data[6:8], "little") == RECORD
    assert int.from_bytes(data[8:12], "little") == 1
    assert [int.from_bytes(data[12 + 4 * k:16 + 4 * k], "little", signed=True)
            for k in range(n)] == SNAP
    assert int.from_bytes(data[end - 4:end], "little") == 25     # log_hi (logtime.py)
    import zlib
    assert int.from_bytes(data[end:end + 4], "little") == zlib.crc32(data[:end])
    assert st.load() == (SNAP, 1234) and (st.log_pos, st.game, st.seq, st.log_hi) == (
        56, 7, 1, 25)


@cpython_only
def test_a_record_of_the_spec_v4_snapshot_is_still_read_where_asked():
    """A state file of the SPEC v4 firmware (19-int snapshot, 108 bytes) is
    read by a store that names that length as `older` (the session's), and
    is another firmware's for one that does not."""
    import struct
    import zlib
    old = list(range(-9, 10))
    assert len(old) == cc.SNAPSHOT_LEN_V2
    body = b"SClk" + bytes([2, 19]) + struct.pack("<HI", 108, 5) + \
        struct.pack("<19i", *old) + struct.pack("<iiii", 4321, 65, 8, 0)
    rec = {"clock.state.b": body + struct.pack("<I", zlib.crc32(body))}
    ff, st = store_on(rec)
    assert st.load() is None and st.message == persist.OTHER_FORMAT
    st = persist.StateStore(fs=flash_with(rec), count=cc.SNAPSHOT_LEN,
                            older=cc.SNAPSHOT_LEN_V2)
    assert st.load() == (old, 4321) and st.message is None


@cpython_only
def test_a_version_1_record_is_still_restored():
    """A clock updated with a game on (the state file of the firmware before
    log_hi, 104 bytes) restores it: log_hi 0."""
    import struct
    import zlib
    n = len(SNAP)
    body = b"SClk" + bytes([1, n]) + struct.pack("<HI", 12 + 4 * n + 16, 3) + \
        struct.pack("<%di" % n, *SNAP) + struct.pack("<iii", 4321, 65, 8)
    ff, st = store_on({"clock.state.b": body + struct.pack("<I", zlib.crc32(body))})
    assert st.load() == (SNAP, 4321) and (st.log_pos, st.game, st.seq, st.log_hi) == (
        65, 8, 3, 0)
    assert st.message is None


@cpython_only
def test_crc_matches_zlib():
    """The integer-only CRC the boards run gives zlib's CRC-32 (CPython uses
    the C one: the same values, faster)."""
    import zlib
    rng = Random(3)
    out = bytearray(4)
    for n in list(range(0, 40)) + [100, 1000]:
        data = bytes(rng.randrange(256) for _ in range(n))
        persist._crc_into_py(data, n, out, 0)
        assert int.from_bytes(out, "little") == zlib.crc32(data) == persist.crc32(data)
    assert persist.crc32(b"123456789") == 0xCBF43926


def test_values_beyond_16_bits_and_negative_round_trip():
    ff, st = store_on()
    vals = [2 ** 31 - 1, -2 ** 31, 0, -1, 1 << 30, -(1 << 30), 65536, -65537] + [5] * 10
    st.save(vals, 2 ** 31 - 1)
    assert persist.StateStore(fs=ff).load() == (vals, 2 ** 31 - 1)
    raises(ValueError, st.save, [2 ** 31] + [0] * 17, 0)


@parametrize("content", [
    b"", b"S", b"SClk", b"\x00" * 100, b"\xff" * 100, b"SClk\x02" + b"\x00" * 95,
    b"profile sdev\n0 left\n", bytes(range(256)) * 4, b"SClk\x01\x12\x64\x00" + b"\x00" * 4000,
])
def test_any_file_content_is_no_saved_game_never_an_exception(content):
    for names in (["clock.state.a"], ["clock.state.b"], ["clock.state.a", "clock.state.b"],
                  ["clock.state.tmp"]):
        ff, st = store_on({n: content for n in names})
        assert st.load() is None
        assert st.message in (persist.CORRUPT_NONE, persist.NO_GAME)
        if names != ["clock.state.tmp"]:
            assert st.message == persist.CORRUPT_NONE
        # ... and saving over the debris works
        assert st.save(SNAP, 5)
        assert persist.StateStore(fs=ff).load() == (SNAP, 5)


def test_random_bytes_never_raise():
    rng = Random(5)
    for _ in range(2000):
        n = rng.choice((rng.randrange(120), 100))
        data = bytes(rng.randrange(256) for _ in range(n))
        if n >= 8 and rng.random() < 0.5:
            data = b"SClk\x01\x12\x64\x00" + data[8:]
        ff, st = store_on({"clock.state.a": data})
        assert st.load() is None


def test_a_record_of_another_length_is_not_restored():
    ff, st = store_on()
    persist.StateStore(fs=ff).save([1, 2, 3], 9)
    assert st.load() is None and st.message == persist.OTHER_FORMAT
    assert persist.StateStore(fs=ff).load() == ([1, 2, 3], 9)


def test_missing_files_and_a_missing_folder():
    assert persist.StateStore(fs=flash_with({}), path="nodir/clock.state").load() is None
    st = persist.StateStore(fs=flash_with({}), path="nodir/clock.state")
    assert st.save(SNAP, 1) is False and "cannot save" in st.message


def test_a_failing_filesystem_makes_save_return_false():
    ff, st = store_on()
    assert st.save(SNAP, 1)
    ff.budget = 10
    raises(PowerCut, st.save, SNAP, 2)  # the fake's power cut is not an OSError

    class Full(FakeFlash):
        def _write(self, path, data):
            raise OSError(28, "no space")  # ENOSPC (MicroPython's errno has no name for it)

    full = Full(dict(ff.files))
    st2 = persist.StateStore(fs=full)
    assert st2.save(SNAP, 3) is False and "28" in st2.message
    assert persist.StateStore(fs=full).load() == (SNAP, 1)


def test_seq_continues_across_reboots_and_clear():
    ff, st = store_on()
    for k in range(5):
        st.save(SNAP, k)
    st2 = persist.StateStore(fs=ff)
    st2.save(SNAP, 99)  # without a load first: it looks the sequence up
    assert st2.seq == 6 and persist.StateStore(fs=ff).load() == (SNAP, 99)
    st2.clear()
    assert not ff.files and st2.load() is None and st2.message == persist.NO_GAME
    st2.save(SNAP, 100)
    assert persist.StateStore(fs=ff).load() == (SNAP, 100)


def test_counters_and_file_operations_per_save():
    ff, st = store_on()
    ff.counts.clear()
    for k in range(10):
        st.save(SNAP, k)
    assert st.writes == 10 and st.bytes_written == 10 * RECORD
    # the first save looks for earlier records (3 opens), then 3 ops per save
    assert ff.counts == {"open": 3 + 10, "write": 10, "rename": 10}
    ff.counts.clear()
    persist.StateStore(fs=ff).load()
    assert ff.counts == {"open": 3}  # both slots + the temp file (missing)


# -- the store on the interpreter's real os and open() ------------------------------
# (SPEC §4 "Power loss", "Game log"; TSO § 4.1 f; on MicroPython the unix
# port's files, on the qemu image its own /tmp)

T0_RT = (1 << 30) - 20000


DIR = None  # the running test's own folder (on_disk)


def on_disk(fn):
    """The test runs in a fresh folder of its own (DIR), removed after it,
    pass or fail: no test finds another's files or must run last.  (On
    MicroPython under the runner's SCLOCK_MP_TMP, tests/mp/mptest.py
    tmp_path(); on CPython a tempfile.mkdtemp() folder.)"""
    def run():
        global DIR
        if MICROPYTHON:
            DIR = tmp_path("scrabble_persist_mp")
            _rm_tree(DIR)
            os.mkdir(DIR)
        else:
            import tempfile
            DIR = tempfile.mkdtemp(prefix="scrabble_persist_")
        try:
            fn()
        finally:
            _rm_tree(DIR)
    return run


def _rm_tree(path):
    try:
        names = os.listdir(path)
    except OSError:
        return
    for n in names:
        p = path + "/" + n
        if os.stat(p)[0] & 0x4000:
            _rm_tree(p)
        else:
            os.remove(p)
    os.rmdir(path)


def fresh_dir():
    _rm_tree(DIR)
    os.mkdir(DIR)
    return persist.StateStore(path=DIR + "/clock.state", count=cc.SNAPSHOT_LEN)


def write_file(name, data):
    f = open(DIR + "/" + name, "wb")
    f.write(data)
    f.close()


def read_file(name):
    f = open(DIR + "/" + name, "rb")
    d = f.read()
    f.close()
    return d


def real_game():
    c = cc.Clock(profiles.make_rules("sdev", {"base": "01:00"}), T0_RT, DIFF, ADD)
    c.press(cc.LEFT, ADD(T0_RT, 0))
    c.press(cc.RIGHT, ADD(T0_RT, 30000))
    c.update(ADD(T0_RT, 130000))  # left 40 s over: penalty, and across the wrap
    return c


@micropython_only
def test_crc_is_zlibs_crc32():
    eq(persist.crc32(b"123456789"), 0xCBF43926, "check value")
    eq(persist.crc_into is persist._crc_into_py, True, "integer-only CRC on MicroPython")


@on_disk
def test_save_load_restores_a_paused_game():
    st = fresh_dir()
    eq(st.load(), None, "nothing yet")
    eq(st.message, persist.NO_GAME, "message")
    c = real_game()
    for k in range(4):
        eq(st.save(c.snapshot(), 130000 + k, 321, 7), True, "save")
    eq(sorted(os.listdir(DIR)), ["clock.state.a", "clock.state.b"], "files")
    eq(len(read_file("clock.state.a")), persist.record_size(cc.SNAPSHOT_LEN), "record size")
    st2 = persist.StateStore(path=DIR + "/clock.state", count=cc.SNAPSHOT_LEN)
    ints, log_ms = st2.load()
    eq((log_ms, st2.log_pos, st2.game, st2.seq, st2.message), (130003, 321, 7, 4, None), "record")
    r = cc.Clock(profiles.make_rules("sdev"), 0, DIFF, ADD)
    r.restore(ints, t=555)
    eq(r.state, cc.PAUSED, "comes back paused")
    eq(r.rem, c.rem, "times")
    eq(r.penalty(cc.LEFT), 10, "penalty")
    eq(r.rules.base, [60000, 60000], "rules from the snapshot")


@on_disk
def test_torn_temp_file_falls_back_to_the_last_record():
    st = fresh_dir()
    c = real_game()
    st.save(c.snapshot(), 1)
    st.save(c.snapshot(), 2)
    good = read_file("clock.state.a")  # seq 2
    for cut in (0, 1, 50, 99):
        write_file("clock.state.tmp", good[:cut])
        s2 = persist.StateStore(path=DIR + "/clock.state")
        eq(s2.load()[1], 2, "torn temp ignored")
        eq(s2.message, None, "no alarm for an unfinished save")
    # a complete temp file (power failed before the rename) is the newest
    c.update(ADD(T0_RT, 140000))
    st.save(c.snapshot(), 3)
    newest = read_file("clock.state.b")
    os.rename(DIR + "/clock.state.b", DIR + "/clock.state.tmp")
    write_file("clock.state.b", good)
    s3 = persist.StateStore(path=DIR + "/clock.state")
    eq(s3.load()[1], 3, "the temp record")
    eq("clock.state.tmp" in os.listdir(DIR), False, "rename finished")
    eq(read_file("clock.state.b"), newest, "promoted into its slot")


@on_disk
def test_truncated_empty_or_garbage_slots():
    st = fresh_dir()
    c = real_game()
    st.save(c.snapshot(), 1)   # seq 1 -> b
    st.save(c.snapshot(), 2)   # seq 2 -> a
    good = read_file("clock.state.a")
    for bad in (b"", good[:1], good[:60], good[:99], b"\xff" * 100, b"hello",
                good[:50] + bytes([good[50] ^ 4]) + good[51:]):
        write_file("clock.state.a", bad)
        s2 = persist.StateStore(path=DIR + "/clock.state")
        got = s2.load()
        eq(got[1], 1, "the previous record")
        eq(s2.message, persist.CORRUPT_FALLBACK, "message")
        write_file("clock.state.b", bad)
        s3 = persist.StateStore(path=DIR + "/clock.state")
        eq(s3.load(), None, "nothing usable")
        eq(s3.message, persist.CORRUPT_NONE, "message")
        st.save(c.snapshot(), 1)
        st.save(c.snapshot(), 2)


@on_disk
def test_missing_folder_and_clear():
    st = persist.StateStore(path=DIR + "/no_such_folder/clock.state")
    eq(st.load(), None, "missing folder")
    eq(st.save([0] * 18, 0), False, "save refused, no exception")
    st = fresh_dir()
    st.save(real_game().snapshot(), 5)
    st.clear()
    eq(os.listdir(DIR), [], "cleared")
    eq(st.load(), None, "no saved game")


@on_disk
def test_game_log_cut_back_to_the_checkpoint():
    _rm_tree(DIR)
    os.mkdir(DIR)
    lg = gamelog.GameLog(folder=DIR + "/games")
    eq(lg.begin(profiles.make_rules("sdev", {"base": "25:00"})), 1, "first game")
    lg.event(0, cc.EV_LEFT, 0, 0, 1500000, 1500000)
    pos = lg.pos
    lg.event(4000, cc.EV_RIGHT, 1, 0, 1500000, 1496000)
    lg.close()
    f = open(DIR + "/games/g0001.txt", "ab")
    f.write(b"9000 le")
    f.close()
    lg2 = gamelog.GameLog(folder=DIR + "/games")
    eq(lg2.restored(2500, cc.RUNNING, 1, pos), True, "restored")
    lg2.event(2600, cc.EV_PAUSE, 0, 0, 1500000, 1497500)
    lg2.close()
    eq(lg2.read("g0001.txt"), "profile sdev  # game 1\n" + appversion.LOG_LINE + "set base=25:00\n"
       "0 left  # L 25:00 R 25:00\n2500 pause  # power restored\n"
       "2600 pause  # L 25:00 R 24:58\n", "log")
    eq(lg2.list_games(), ["g0001.txt"], "list")
    eq(gamelog.GameLog(folder=DIR + "/games").begin(profiles.make_rules("pfs")), 2, "next game")


class _Uid:
    def unique_id(self):
        return b"\xe6\x61\x4c\x31\x1b\x5f\x2a\x37"


@on_disk
def test_game_log_header_names_the_clock():
    """Issue 12 item 4, on MicroPython: unique_id() as hex and the table."""
    _rm_tree(DIR)
    os.mkdir(DIR)
    eq(gamelog.clock_id(_Uid()), "e6614c311b5f2a37", "clock id")
    eq(gamelog.clock_id(object()), "", "no unique_id()")
    lg = gamelog.GameLog(folder=DIR + "/games", clock=gamelog.clock_id(_Uid()))
    lg.begin(profiles.make_rules("sdev"), 7)
    lg.close()
    eq(lg.read(1).split("\n")[:2], ["profile sdev  # game 1",
                                    "# clock e6614c311b5f2a37 table 7"], "header")


def _alloc(fn, n=8):
    worst = 0
    for _ in range(n):
        gc.collect()
        a = gc.mem_alloc()
        fn()
        d = gc.mem_alloc() - a
        if d > worst:
            worst = d
    return worst


@micropython_only
@on_disk
def test_heap_per_save():
    st = fresh_dir()
    c = real_game()
    snap = c.snapshot()
    st.save(snap, 1)  # the record buffer is made once, on the first save
    per_save = _alloc(lambda: st.save(snap, 123456, 789, 3))
    print("alloc persist.save(): %d bytes per save (open() of the temp file)" % per_save)
    per_load = _alloc(lambda: persist.StateStore(path=DIR + "/clock.state").load(), 3)
    print("alloc persist.load(): %d bytes (power-up only)" % per_load)
    _rm_tree(DIR)
    os.mkdir(DIR)
    lg = gamelog.GameLog(folder=DIR + "/games")
    lg.begin(profiles.make_rules("sdev"))
    k = [0]

    def ev():
        k[0] += 1
        lg.event(k[0] * 1000, cc.EV_LEFT + (k[0] & 1), k[0] & 1, 0, 1234567, 765432)

    per_event = _alloc(ev)
    print("alloc gamelog.event(): %d bytes per logged event" % per_event)
    lg.close()
    # A state file save runs only while no clock runs (firmware/session.py:
    # the running clock's checkpoints and events are journal records, 0 bytes,
    # tests/test_journal.py under MicroPython), where a collection costs nobody time.  It
    # must still not grow with the number of saves: one littlefs file cache
    # (prog size 256 -> 1 KB on the Pico) and the names, measured 1344 B.
    if per_save > 2048:
        raise AssertionError("save() allocates %d bytes" % per_save)

