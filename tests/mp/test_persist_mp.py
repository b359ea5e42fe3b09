# Power loss (SPEC §4 "Power loss", "Game log"; TSO § 4.1 f) under the real
# MicroPython interpreter, with its real os and open() on files in a folder
# of its own (mptest.tmp_path):
# checkpoints round-trip through clockcore, torn and corrupt files fall back,
# the game log is cut back to its checkpoint, and the heap cost of a save()
# is measured (printed as "alloc ..." lines).
import gc
import os

import clockcore as cc
import gamelog
import persist
import profiles
import ticks
from mptest import eq, tmp_path

DIFF, ADD = ticks.wrapping(1 << 30)
T0 = (1 << 30) - 20000

DIR = tmp_path("scrabble_persist_mp")


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


def fresh():
    _rm_tree(DIR)
    os.mkdir(DIR)
    return persist.StateStore(path=DIR + "/clock.state", count=cc.SNAPSHOT_LEN)


def write(name, data):
    f = open(DIR + "/" + name, "wb")
    f.write(data)
    f.close()


def read(name):
    f = open(DIR + "/" + name, "rb")
    d = f.read()
    f.close()
    return d


def game():
    c = cc.Clock(profiles.make_rules("sdev", {"base": "01:00"}), T0, DIFF, ADD)
    c.press(cc.LEFT, ADD(T0, 0))
    c.press(cc.RIGHT, ADD(T0, 30000))
    c.update(ADD(T0, 130000))  # left 40 s over: penalty, and across the wrap
    return c


def test_crc_is_zlibs_crc32():
    eq(persist.crc32(b"123456789"), 0xCBF43926, "check value")
    eq(persist.crc_into is persist._crc_into_py, True, "integer-only CRC on MicroPython")


def test_save_load_restores_a_paused_game():
    st = fresh()
    eq(st.load(), None, "nothing yet")
    eq(st.message, persist.NO_GAME, "message")
    c = game()
    for k in range(4):
        eq(st.save(c.snapshot(), 130000 + k, 321, 7), True, "save")
    eq(sorted(os.listdir(DIR)), ["clock.state.a", "clock.state.b"], "files")
    eq(len(read("clock.state.a")), persist.record_size(cc.SNAPSHOT_LEN), "record size")
    st2 = persist.StateStore(path=DIR + "/clock.state", count=cc.SNAPSHOT_LEN)
    ints, log_ms = st2.load()
    eq((log_ms, st2.log_pos, st2.game, st2.seq, st2.message), (130003, 321, 7, 4, None), "record")
    r = cc.Clock(profiles.make_rules("sdev"), 0, DIFF, ADD)
    r.restore(ints, t=555)
    eq(r.state, cc.PAUSED, "comes back paused")
    eq(r.rem, c.rem, "times")
    eq(r.penalty(cc.LEFT), 10, "penalty")
    eq(r.rules.base, [60000, 60000], "rules from the snapshot")


def test_torn_temp_file_falls_back_to_the_last_record():
    st = fresh()
    c = game()
    st.save(c.snapshot(), 1)
    st.save(c.snapshot(), 2)
    good = read("clock.state.a")  # seq 2
    for cut in (0, 1, 50, 99):
        write("clock.state.tmp", good[:cut])
        s2 = persist.StateStore(path=DIR + "/clock.state")
        eq(s2.load()[1], 2, "torn temp ignored")
        eq(s2.message, None, "no alarm for an unfinished save")
    # a complete temp file (power failed before the rename) is the newest
    c.update(ADD(T0, 140000))
    st.save(c.snapshot(), 3)
    newest = read("clock.state.b")
    os.rename(DIR + "/clock.state.b", DIR + "/clock.state.tmp")
    write("clock.state.b", good)
    s3 = persist.StateStore(path=DIR + "/clock.state")
    eq(s3.load()[1], 3, "the temp record")
    eq("clock.state.tmp" in os.listdir(DIR), False, "rename finished")
    eq(read("clock.state.b"), newest, "promoted into its slot")


def test_truncated_empty_or_garbage_slots():
    st = fresh()
    c = game()
    st.save(c.snapshot(), 1)   # seq 1 -> b
    st.save(c.snapshot(), 2)   # seq 2 -> a
    good = read("clock.state.a")
    for bad in (b"", good[:1], good[:60], good[:99], b"\xff" * 100, b"hello",
                good[:50] + bytes([good[50] ^ 4]) + good[51:]):
        write("clock.state.a", bad)
        s2 = persist.StateStore(path=DIR + "/clock.state")
        got = s2.load()
        eq(got[1], 1, "the previous record")
        eq(s2.message, persist.CORRUPT_FALLBACK, "message")
        write("clock.state.b", bad)
        s3 = persist.StateStore(path=DIR + "/clock.state")
        eq(s3.load(), None, "nothing usable")
        eq(s3.message, persist.CORRUPT_NONE, "message")
        st.save(c.snapshot(), 1)
        st.save(c.snapshot(), 2)


def test_missing_folder_and_clear():
    st = persist.StateStore(path=DIR + "/no_such_folder/clock.state")
    eq(st.load(), None, "missing folder")
    eq(st.save([0] * 18, 0), False, "save refused, no exception")
    st = fresh()
    st.save(game().snapshot(), 5)
    st.clear()
    eq(os.listdir(DIR), [], "cleared")
    eq(st.load(), None, "no saved game")


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
    eq(lg2.restored(2500, True, 1, pos), True, "restored")
    lg2.event(2600, cc.EV_PAUSE, 0, 0, 1500000, 1497500)
    lg2.close()
    eq(lg2.read("g0001.txt"), "profile sdev  # game 1\nset base=25:00\n"
       "0 left  # L 25:00 R 25:00\n2500 pause  # power restored\n"
       "2600 pause  # L 25:00 R 24:58\n", "log")
    eq(lg2.list_games(), ["g0001.txt"], "list")
    eq(gamelog.GameLog(folder=DIR + "/games").begin(profiles.make_rules("pfs")), 2, "next game")


class _Uid:
    def unique_id(self):
        return b"\xe6\x61\x4c\x31\x1b\x5f\x2a\x37"


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


def test_heap_per_save():
    st = fresh()
    c = game()
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
    # tests/mp/test_journal_mp.py), where a collection costs nobody time.  It
    # must still not grow with the number of saves: one littlefs file cache
    # (prog size 256 -> 1 KB on the Pico) and the names, measured 1344 B.
    if per_save > 2048:
        raise AssertionError("save() allocates %d bytes" % per_save)


def test_zz_cleanup():
    _rm_tree(DIR)
