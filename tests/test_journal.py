"""The running-clock journal (issue 11 "Flash erases"; SPEC v3 §4 "Power
loss": no transition lost, at most 5 s of running time uncharged; §6: no
garbage collection in a game).

Everything runs on the real littlefs over a NOR-flash model
(tests/norfs.py): the firmware writes its files through littlefs, the
journal programs its records into the journal file's blocks on the raw
flash, and the model counts the erases.  The clock is the real core wired
to firmware/session.py as the app wires it.
"""
import pytest

import clockcore as cc
import journal
import persist
import profiles
import session
import ticks
from host_sim import replay
from norfs import NorFS, PowerCut

WRAP = 1 << 30
DIFF, ADD = ticks.wrapping(WRAP)
UNCHARGED_MS = 5000     # SPEC §4 Power loss


class Device:
    """A clock and its session on `fs`, wired as firmware/app.py does."""

    def __init__(self, fs, t0=WRAP - 20000, profile="sdev", overrides=None):
        self.fs = fs
        self.t = t0
        self.clock = cc.Clock(profiles.make_rules(profile, overrides), t0, DIFF, ADD,
                              self._hook)
        self.s = session.Session(self.clock, t0, DIFF, fs, "", "c0ffee", None)
        self.restored = self.s.restore(t0, lambda: profiles.make_rules(profile))
        self.charged = 0            # running time the live clock charged
        self.settle()

    def settle(self):
        """Main-loop steps while the session has flash work to do where
        nobody waits (ready or over: the journal armed in slices, folded)."""
        s = self.s
        k = 0
        while s.j is not None and (s.j.arming() or s.arm_due or s.pending()) \
                and self.clock.state in (cc.READY, cc.OVER) and k < 1000:
            self.run(20)
            k += 1

    def _hook(self, code, side, t, arg):
        self.s.event(code, side, t, arg)

    def run(self, ms, step=20):
        end = ADD(self.t, ms)
        while DIFF(end, self.t) > 0:
            self.t = ADD(self.t, min(step, DIFF(end, self.t)))
            self.step()

    def step(self):
        c = self.clock
        before = sum(c.rem)
        c.update(self.t)
        self.charged += before - sum(c.rem)
        self.s.tick(self.t, c.running() >= 0)

    def press(self, side):
        c = self.clock
        before = sum(c.rem)
        c.press(side, self.t)
        self.charged += before - sum(c.rem)
        self.s.tick(self.t, c.running() >= 0)

    def pause(self):
        self.clock.pause(self.t)
        self.s.tick(self.t, self.clock.running() >= 0)

    def end(self):
        """The end of the game (TSO § 5.1 b): the clock is over, and the
        journal is folded into the files in the steps that follow."""
        self.clock.end(self.t)
        self.s.tick(self.t, self.clock.running() >= 0)
        self.settle()


def newest_log(fs):
    games = sorted(n for n in fs.files("games") if n.startswith("g"))
    return fs.read("games/" + games[-1]).decode()


def replays_to(fs, clock, at):
    text = newest_log(fs)
    game = replay.parse(text.split("\n"))
    got, _ = replay.run(game, at)
    assert replay.report(got, at) == replay.report(clock, at), text
    return text


# -- the journal itself ---------------------------------------------------------------

def test_records_are_programmed_into_the_file_without_an_erase():
    fs = NorFS()
    j = journal.Journal(fs, fs.raw(), "journal.bin", 19)
    assert j.arm() and j.ok
    assert j.slots >= journal.UNITS * (journal.UNIT - journal.HEAD) // j.size * 3 // 4
    e0, p0 = fs.nor.erases, fs.nor.programs
    for k in range(40):
        journal.set_kind(j.rec, journal.KIND_CHECK)
        journal.set_time(j.rec, 0, 1000 * k)
        assert j.append()
    assert fs.nor.erases == e0 and fs.nor.programs == p0   # no littlefs write at all
    assert fs.nor.raw_programs >= 40
    got = j.records()
    assert [journal.log_ms(r) for r in got] == [1000 * k for k in range(40)]
    # littlefs still reads its file (the records are in it) and mounts again
    data = fs.boot().read("journal.bin")
    assert len(data) == journal.UNITS * journal.UNIT and data.count(bytes(j.rec[:8])) >= 1
    j2 = journal.Journal(fs.boot(), fs.raw(), "journal.bin", 19)
    assert j2.find() and j2.count == 40
    assert [journal.log_ms(r) for r in j2.records()] == [1000 * k for k in range(40)]


def test_a_torn_record_ends_the_journal():
    fs = NorFS()
    j = journal.Journal(fs, fs.raw(), "journal.bin", 19)
    j.arm()
    for k in range(3):
        journal.set_kind(j.rec, journal.KIND_CHECK)
        journal.set_time(j.rec, 0, k)
        j.append()
    fs.nor.budget = 30                      # the 4th record is cut after 30 bytes
    journal.set_kind(j.rec, journal.KIND_CHECK)
    journal.set_time(j.rec, 0, 3)
    with pytest.raises(PowerCut):
        j.append()
    fs.nor.budget = None
    j2 = journal.Journal(fs.boot(), fs.raw(), "journal.bin", 19)
    assert j2.find() and j2.count == 4      # the torn slot is not written again
    assert [journal.log_ms(r) for r in j2.records()] == [0, 1, 2]


def test_no_raw_flash_no_journal():
    """CPython's and the unix port's filesystem has no raw device: the files
    only, as before (tests/test_power_cuts_app.py covers that path)."""
    from test_power_loss import FakeFlash
    d = Device(FakeFlash())
    assert d.s.j is None


# -- the session with a journal -----------------------------------------------------------

def play(d):
    """Moves, a long think across the tick wrap with periodic checkpoints, a
    pause and a resume, and overtime (SPEC §4 states)."""
    d.run(1000)
    d.press(cc.LEFT)                         # right runs
    d.run(9000)
    d.press(cc.RIGHT)                        # left runs
    d.run(25000)                             # the wrap is 20 s after power-up
    d.press(cc.LEFT)
    d.run(3000)
    d.pause()                                # paused: nothing folded (issue 20)
    d.run(2000)
    d.pause()                                # right runs again
    d.run(4100)
    d.press(cc.RIGHT)


def test_no_erase_while_a_clock_runs_and_the_log_replays():
    fs = NorFS()
    d = Device(fs)
    assert d.s.j is not None and d.s.j.ok
    erases_running = 0
    d.run(1000)
    d.press(cc.LEFT)
    for _ in range(30):                      # 30 s of a clock running, 2 presses
        e = fs.nor.erases
        d.run(1000)
        if _ in (10, 20):
            d.press(cc.RIGHT if d.clock.running() == cc.LEFT else cc.LEFT)
        erases_running += fs.nor.erases - e
    assert d.clock.running() >= 0
    assert erases_running == 0
    # a record per press (at 0, 11 and 21 s) and a checkpoint per 4 s
    # of running time after each (SPEC §4: at most 5 s uncharged)
    assert d.s.j.count == 3 + 11 // 4 + 10 // 4 + 9 // 4
    p, e = fs.nor.programs, fs.nor.erases
    d.pause()                                # a stop writes no file (issue 20)
    d.run(3000)
    assert (fs.nor.programs, fs.nor.erases) == (p, e)
    assert d.s.j.count > d.s.folded == 0
    d.end()                                  # over: folded into the files
    assert fs.nor.programs > p               # (littlefs writes them)
    assert d.s.j.count == d.s.folded
    replays_to(fs, d.clock, d.s.log_ms(d.t))


def test_a_whole_game_runs_without_a_stop_and_without_an_erase():
    """Issue 11 "Flash erases" / jfix item 1: the journal holds a whole game
    that never stops: sdev's longest is 2 x 30 min + 2 x 5 min overtime (TSO
    § 1.1 b, § 5.2 c), 70 min of running; here 75 min (base 35:00, both
    sides end 2.5 min into overtime), a press every 25-35 s (a record each,
    a checkpoint per 4 s between them, SPEC §4).  No erase while it runs;
    the end folds it all and the log replays."""
    fs = NorFS()
    d = Device(fs, overrides={"base": "35:00"})
    assert d.s.j is not None and d.s.j.ok
    d.run(1000)
    d.press(cc.LEFT)
    e = fs.nor.erases
    presses = 0
    start = d.t
    while DIFF(d.t, start) < 75 * 60000:
        d.run(25000 + 1000 * (presses % 11), step=100)
        d.press(d.clock.running())
        presses += 1
        assert d.clock.running() >= 0, d.clock.state
    assert fs.nor.erases == e                # not one erase in 75 min
    assert min(d.clock.rem) < 0              # both in overtime, still running
    assert not d.s.j.full() and d.s.folded == 0
    # a record at least every 4 s of running time (SPEC §4), all in it
    assert d.s.j.count >= 75 * 60000 // session.CHECKPOINT_MS
    p = fs.nor.programs
    d.pause()
    d.end()                                  # over: folded into the files
    assert fs.nor.programs > p
    # more than half of the journal was used: it is re-armed at the end
    assert d.s.j.ok and d.s.j.count == d.s.folded == 0
    text = replays_to(fs, d.clock, d.s.log_ms(d.t))
    turns = [ln for ln in text.split("\n") if ln.split(" ")[1:2] in (["left"], ["right"])]
    assert len(turns) == presses + 1         # every press is in the log


def test_a_game_with_a_journal_logs_what_one_without_logs():
    """The journal changes when the files are written, not what they say."""
    from test_power_loss import FakeFlash
    plain = FakeFlash()
    b = Device(NorFS())
    a = Device(plain)
    a.run(DIFF(b.t, a.t))                    # b armed its journal meanwhile
    play(a)
    a.pause()
    play(b)
    b.pause()
    assert a.clock.snapshot() == b.clock.snapshot()
    a.end()
    b.end()                                  # (the journal is folded now)
    text_a = sorted(p for p in plain.files if p.startswith("games/g"))
    assert plain.files[text_a[-1]].decode() == newest_log(b.fs)


def test_power_up_restores_the_journal_and_the_log_replays():
    fs = NorFS()
    d = Device(fs)
    play(d)
    d.run(2500)                              # right thinks: no checkpoint since the press
    truth = d.clock.rem[:]
    d2 = Device(fs.boot(), t0=777)
    assert d2.restored == session.RESTORED
    c = d2.clock
    assert c.state == cc.PAUSED and c.side == cc.LEFT
    assert c.rem[cc.RIGHT] == truth[cc.RIGHT] and 0 <= c.rem[cc.LEFT] - truth[cc.LEFT] <= 2500
    text = replays_to(d2.fs, c, d2.s.log_ms(d2.t))
    assert text.count("pause  # power restored") == 1
    # all of it is in the files now (the journal is re-armed only when more
    # than half full: a power-up does not rewrite it)
    assert d2.s.j.ok and d2.s.j.count == d2.s.folded > 0
    # a second power-up takes nothing from the journal twice
    d3 = Device(fs.boot(), t0=999)
    assert newest_log(d3.fs) == text + "# %d power restored (the clock was paused)\n" % (
        d2.s.log_ms(777))


def test_a_full_journal_falls_back_to_the_files(monkeypatch):
    """A clock that runs longer than the journal holds: the checkpoints go
    to the files (with erases) and the journal is re-armed; nothing is lost."""
    monkeypatch.setattr(journal, "UNITS", 1)  # room for a few records only
    fs = NorFS()
    d = Device(fs)
    room = d.s.j.slots
    assert 4 <= room < 12
    d.run(1000)
    d.press(cc.LEFT)
    d.run(4000 * (room + 3))
    assert d.clock.running() == cc.RIGHT
    d2 = Device(fs.boot(), t0=5)
    assert d2.clock.state == cc.PAUSED
    assert 0 <= d2.clock.rem[cc.RIGHT] - d.clock.rem[cc.RIGHT] <= session.CHECKPOINT_MS


# -- power cuts at every byte of every record write ---------------------------------------

class Spy:
    """The last checkpoint that completed: a journal record or a state file
    save (the spies only observe)."""

    def __init__(self, monkeypatch):
        self.last = None
        spy = self
        append = journal.Journal.append
        save = persist.StateStore.save

        def spy_append(j):
            ok = append(j)
            if ok:
                spy.last = journal.snapshot(bytes(j.rec))
            return ok

        def spy_save(store, ints, *a):
            ok = save(store, ints, *a)
            if ok:
                spy.last = list(ints)
            return ok

        monkeypatch.setattr(journal.Journal, "append", spy_append)
        monkeypatch.setattr(persist.StateStore, "save", spy_save)


def _cut_run(budget):
    """play() on a fresh flash whose raw programs stop after `budget` changed
    bytes; returns (device, cut)."""
    fs = NorFS()
    d = Device(fs)
    fs.nor.budget = budget
    try:
        play(d)
        d.run(2000)
    except PowerCut:
        fs.nor.budget = None
        return d, True
    fs.nor.budget = None
    return d, False


def test_a_power_cut_at_every_byte_of_every_record_write(monkeypatch):
    """At every 5th byte the journal programs in a game (cut points inside
    every record: its first bytes, the middle, the CRC): the power-up never
    raises; the restored clock is exactly the last checkpoint that completed
    (paused), so no transition whose record was complete is lost; it is at
    most 5 s of running time behind the live clock; the log replays to it."""
    fs = NorFS()
    d = Device(fs)
    fs.nor.budget = 10 ** 9
    play(d)
    d.run(2000)
    total = 10 ** 9 - fs.nor.budget
    assert total > 1000
    spy = Spy(monkeypatch)
    checked = 0
    for budget in range(0, total, 5):
        spy.last = None
        d, cut = _cut_run(budget)
        assert cut
        live = d.clock
        want = spy.last
        d2 = Device(d.fs.boot(), t0=123)
        c = d2.clock
        lost = (c.rem[0] + c.rem[1]) - (live.rem[0] + live.rem[1])
        assert 0 <= lost <= UNCHARGED_MS, (budget, lost)
        if want is None or want[1] == cc.READY:
            assert d2.restored in (session.NOTHING, session.RULES), budget
            continue
        assert d2.restored == session.RESTORED, budget
        expect = cc.Clock(profiles.make_rules("sdev"), 0, DIFF, ADD)
        expect.restore(want, 123)
        assert c.snapshot() == expect.snapshot(), budget
        assert c.state == cc.PAUSED
        replays_to(d2.fs, c, d2.s.log_ms(d2.t))
        checked += 1
    assert checked > 100
