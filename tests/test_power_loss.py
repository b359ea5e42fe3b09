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
"""
import errno
import random

import pytest

import clockcore as cc
import persist
import profiles
import ticks

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
    rng = random.Random(seed)
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


@pytest.fixture(scope="module")
def hour_game():
    flash, saves, clock = record_game(1, "sdev", {"base": "35:00"}, minutes=60, adjust_every=3)
    return flash, saves, clock


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


def test_power_cut_at_every_step_of_every_save(hour_game):
    """SPEC §4 Power loss: a cut anywhere in a save restores the previous
    record or the one being written, never garbage, never an exception."""
    flash, saves, clock = hour_game
    rng = random.Random(7)
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
        with pytest.raises(PowerCut):
            st.save(saves[i].ints, 1, 0, 1)
        check_restore(ff.files, saves, i, [i], None)
        # after the rename
        after = files_after(flash, s.j1)
        check_restore(after, saves, i, [i], None)
        checked += 4
    assert checked > 5000


def test_torn_rename_and_flipped_bits_fall_back(hour_game):
    """A slot left truncated or empty by the rename (a filesystem without
    atomic rename), or a committed record with flipped bits, is rejected by the
    CRC: the other slot's record is restored with a message, or nothing."""
    flash, saves, clock = hour_game
    rng = random.Random(11)
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


@pytest.mark.parametrize("seed,profile,over", [
    (2, "pfs", {"base": "15:00"}),          # flags pause the clock; the game ends when both are out
    (3, "sdev", {"base": "10:00"}),         # overtime, penalties and the forfeit
    (4, "custom", {"base_left": "12:00", "base_right": "08:00", "window": "10"}),
])
def test_other_profiles_restore_at_every_save(seed, profile, over):
    flash, saves, clock = record_game(seed, profile, over, minutes=40, adjust_every=4)
    assert len(saves) > 100
    rng = random.Random(seed)
    for i, s in enumerate(saves):
        create, write, rename = flash.journal[s.j0:s.j1]
        b = rng.randrange(RECORD)
        check_restore(files_after_write(write, b), saves, i, [i - 1 if i else None])
        check_restore(files_after(flash, s.j1), saves, i, [i])


# -- the store on its own -------------------------------------------------------------

SNAP = list(range(-9, 10))  # clockcore.SNAPSHOT_LEN ints


def store_on(files=None):
    ff = flash_with(files or {})
    return ff, persist.StateStore(fs=ff, count=cc.SNAPSHOT_LEN)


def test_record_format_is_fixed_size_with_a_crc32():
    ff, st = store_on()
    assert st.save(SNAP, 1234, 56, 7)
    data = ff.files["clock.state.b"]
    assert len(data) == RECORD == 104
    assert data[:4] == b"SClk" and data[4] == 1 and data[5] == 19
    assert int.from_bytes(data[6:8], "little") == 104
    assert int.from_bytes(data[8:12], "little") == 1
    assert [int.from_bytes(data[12 + 4 * k:16 + 4 * k], "little", signed=True)
            for k in range(19)] == SNAP
    import zlib
    assert int.from_bytes(data[100:104], "little") == zlib.crc32(data[:100])
    assert st.load() == (SNAP, 1234) and (st.log_pos, st.game, st.seq) == (56, 7, 1)


def test_crc_matches_zlib():
    """The integer-only CRC the boards run gives zlib's CRC-32 (CPython uses
    the C one: the same values, faster)."""
    import zlib
    rng = random.Random(3)
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
    with pytest.raises(ValueError):
        st.save([2 ** 31] + [0] * 17, 0)


@pytest.mark.parametrize("content", [
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
    rng = random.Random(5)
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
    with pytest.raises(PowerCut):  # the fake's power cut is not an OSError
        st.save(SNAP, 2)

    class Full(FakeFlash):
        def _write(self, path, data):
            raise OSError(errno.ENOSPC, "no space")

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
