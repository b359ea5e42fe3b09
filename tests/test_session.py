"""firmware/session.py on a fake filesystem (issue 13 item 1: the session owns
the state store, the game log, the log time base and the log-then-checkpoint
order, as code; SPEC v3 §4 "Power loss" and "Game log"; issue 18: a
gesture's mark and retract).

The real core (clockcore.Clock) drives a Session as the app does: its event
hook is Session.event, the main loop calls Session.tick.  FakeFlash
(tests/test_power_loss.py) journals every file operation, so the order of
the writes is checked, not assumed; the journal's way runs on littlefs over
the NOR model (tests/mp/norflash.py).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython,
tests/test_target_qemu.py on the 32-bit image (its flash models in the
board's PSRAM, tests/mp/norflash.py).  The log's
replay check (host_sim.replay, the simulator's) is CPython's.
"""
import clockcore as cc
import gamelog
import logtime
import norflash
import persist
import profiles
import session
import ticks
from mptest import MICROPYTHON, parametrize
from test_power_loss import FakeFlash

WRAP = 1 << 30
DIFF, ADD = ticks.wrapping(WRAP)
T0 = WRAP - 20000          # the tick counter wraps 20 s after power-up


class Device:
    """A clock and its session on `flash`, wired as firmware/app.py does."""

    def __init__(self, flash, t0=T0, profile="sdev", table=0):
        self.t = t0
        self.clock = cc.Clock(profiles.make_rules(profile), t0, DIFF, ADD, self._hook)
        self.s = session.Session(self.clock, t0, DIFF, flash, "", "c0ffee",
                                 lambda: table)
        self.restored = self.s.restore(t0, lambda: profiles.make_rules(profile))

    def _hook(self, code, side, t, arg):
        self.s.event(code, side, t, arg)

    def run(self, ms, step=100):
        end = ADD(self.t, ms)
        while DIFF(end, self.t) > 0:
            self.t = ADD(self.t, min(step, DIFF(end, self.t)))
            self.clock.update(self.t)
            self.s.tick(self.t, self.clock.running() >= 0)

    def press(self, side):
        self.clock.press(side, self.t)


def replays(text, clock, at):
    """On CPython: the log `text` replays to `clock` at log time `at`."""
    if MICROPYTHON:
        return
    from host_sim import replay
    got, _ = replay.run(replay.parse(text.split("\n")), at)
    assert replay.report(got, at) == replay.report(clock, at), text


def newest_log(flash):
    games = sorted(p for p in flash.files if p.startswith("games/g"))
    return flash.files[games[-1]].decode()


def test_the_log_line_is_written_before_its_checkpoint():
    """SPEC §4 Power loss: a power cut between the two loses neither; the
    checkpoint records the log's length, so the line must come first."""
    flash = FakeFlash()
    d = Device(flash)
    n = len(flash.journal)
    d.press(cc.LEFT)                      # the game starts: right runs
    ops = [(op[0], op[1]) for op in flash.journal[n:]]
    line = max(i for i, o in enumerate(ops) if o[0] == "write" and o[1].startswith("games/"))
    save = [i for i, o in enumerate(ops) if o[1] == "clock.state.tmp" and o[0] == "write"]
    assert save and save[0] > line, ops
    assert d.s.store.load() is not None
    probe = persist.StateStore(fs=flash.copy(), count=cc.SNAPSHOT_LEN)
    assert probe.load()[0] == list(d.clock.snapshot())
    assert probe.log_pos == len(flash.files["games/g0001.txt"])
    assert d.s.store.game == 1


def test_first_event_opens_the_log_at_zero_with_the_clock_and_table():
    flash = FakeFlash()
    d = Device(flash, table=7)
    d.run(3000)
    d.press(cc.LEFT)
    text = newest_log(flash)
    assert text.startswith("profile sdev  # game 1\n# clock c0ffee table 7\n"), text
    assert "\n0 left  # L 30:00 R 30:00\n" in text, text


def test_a_checkpoint_every_checkpoint_ms_of_running_time_only():
    """SPEC §4: at most 5 s of running time uncharged after a power cut."""
    assert session.CHECKPOINT_MS < 5000
    flash = FakeFlash()
    d = Device(flash)
    d.run(20000)                          # ready: no clock runs, no checkpoint
    assert d.s.store.writes == 0
    d.press(cc.LEFT)
    w = d.s.store.writes                  # the event's checkpoint
    d.run(4 * session.CHECKPOINT_MS + 50)  # across the tick wrap
    assert d.s.store.writes == w + 4
    d.clock.pause(d.t)
    w = d.s.store.writes
    d.run(30000)                          # paused: nothing more
    assert d.s.store.writes == w


def test_the_window_end_is_logged_but_not_checkpointed():
    flash = FakeFlash()
    d = Device(flash, profile="sdev")
    d.clock.rules.window = 5000
    d.press(cc.LEFT)
    d.run(1000)
    d.press(cc.RIGHT)                     # left runs, right's window opens
    w = d.s.store.writes
    pos = d.s.log.pos
    d.run(5100, step=5100)                # the window closes in this step
    assert "window closed" in newest_log(flash)
    assert d.s.log.pos > pos
    assert d.s.store.writes == w + 1      # the periodic one only (5.1 s > 4 s)


def test_log_time_runs_on_across_the_tick_wrap():
    flash = FakeFlash()
    d = Device(flash)
    d.press(cc.LEFT)
    d.run(30000, step=1000)               # the wrap is 20 s in
    assert d.s.log_ms(d.t) == 30000
    assert d.s.log_ms(ADD(d.t, -5000)) == 25000
    # a tick before the anchor never gives a negative time
    lt = d.s.lt
    assert d.s.log_ms(ADD(lt.anchor, -1)) == logtime.value(lt.hi, lt.lo)


def test_the_anchor_moves_on_before_half_a_wrap():
    """Days of uptime: diff() is only good within half a wrap (2**29 ms),
    so tick() moves the anchor on; the log time keeps counting."""
    flash = FakeFlash()
    d = Device(flash)
    d.press(cc.LEFT)
    d.clock.pause(d.t)                    # paused: only the time base moves
    start = d.s.log_ms(d.t)
    total = 0
    for _ in range(7):                    # 7 x 2**27 ms: most of a wrap, past it
        d.t = ADD(d.t, 1 << 27)
        total += 1 << 27
        d.s.tick(d.t, False)
    assert d.s.log_ms(d.t) == start + total
    assert DIFF(d.t, d.s.lt.anchor) < logtime.REANCHOR <= (1 << 27)


def test_a_log_time_is_one_decimal_number():
    """logtime.py: two small ints (hi: 10**9 ms, lo), written as one number."""
    assert logtime.text(0, 0) == "0" and logtime.text(0, 999999999) == "999999999"
    assert logtime.text(2, 5) == "2000000005" and logtime.text(25, 123) == "25000000123"
    assert logtime.LIMIT == gamelog.MAX_MS and logtime.UNIT < (1 << 30)
    lt = logtime.LogTime(DIFF, T0)
    lt.start(T0, 0, logtime.UNIT - 10)
    assert lt.at(ADD(T0, 25)) == 15 and lt.h == 1            # the carry
    lt.start(T0, logtime.HI_MAX, logtime.UNIT - 10)
    lt.at(ADD(T0, 25))
    assert (lt.h, lt.l) == (logtime.HI_MAX, logtime.UNIT - 1)  # the last one


def test_restore_nothing_lost_and_restored():
    flash = FakeFlash()
    assert Device(flash).restored == session.NOTHING
    bad = FakeFlash({"clock.state.a": b"garbage"})
    assert Device(bad).restored == session.LOST
    d = Device(flash)
    d.press(cc.LEFT)
    d.run(6000)                           # a periodic checkpoint at 4 s
    d.press(cc.RIGHT)
    d.run(3000)                           # the truth: 3 s more, not saved
    probe = persist.StateStore(fs=flash.copy())
    assert probe.load() is not None
    saved = probe.log_ms
    d2 = Device(flash, t0=12345)          # power-up
    assert d2.restored == session.RESTORED
    assert d2.clock.state == cc.PAUSED
    assert d2.s.log_ms(12345) == d.s.log_ms(d.t) - 3000 == saved
    text = newest_log(flash)
    assert text.endswith("%d pause  # power restored\n" % saved), text
    replays(text, d2.clock, saved)


def test_restore_cuts_the_log_back_to_the_checkpoint():
    """A line whose checkpoint never completed is not in the restored clock:
    it goes from the log too (gamelog.GameLog.restored)."""
    flash = FakeFlash()
    d = Device(flash)
    d.press(cc.LEFT)
    d.run(1000)
    pos = d.s.log.pos
    d.s.store.save = lambda *a: False     # the next checkpoint fails
    d.press(cc.RIGHT)
    assert d.s.log.pos > pos
    d2 = Device(flash, t0=500)
    assert d2.restored == session.RESTORED
    text = newest_log(flash)
    assert "right" not in text.split("\n", 3)[3].split("pause")[0], text
    # the clock of the last good checkpoint (the first press), paused
    assert d2.clock.state == cc.PAUSED and d2.clock.rem == [1800000, 1800000]


def test_ready_with_the_referees_rules_and_no_log():
    flash = FakeFlash()
    d = Device(flash)
    d.clock.set_rules(d.clock.rules.with_base(120000, 120000), d.t)
    d.s.save(d.t)                         # what the referee menu does
    d2 = Device(flash, t0=0)
    assert d2.restored == session.RULES
    assert d2.clock.rules.base == [120000, 120000]
    assert not d2.s.on and not any(p.startswith("games/g") for p in flash.files)


def test_forget_clears_the_state_and_the_next_event_opens_a_new_game():
    flash = FakeFlash()
    d = Device(flash)
    d.press(cc.LEFT)
    d.run(1000)
    d.s.forget()
    assert not any(p.startswith("clock.state") for p in flash.files)
    assert not d.s.on and Device(flash.copy()).restored == session.NOTHING
    d.clock.reset(d.t)
    d.run(500)
    d.press(cc.LEFT)
    probe = persist.StateStore(fs=flash.copy())
    assert probe.load() is not None
    assert d.s.log.number == 2 and probe.game == 2


@parametrize("on", [True, False])
def test_an_ignored_press_is_a_comment_only_when_a_game_is_logged(on):
    flash = FakeFlash()
    d = Device(flash)
    if on:
        d.press(cc.LEFT)
        d.run(250)
    d.s.ignored(d.t, cc.LEFT)
    if on:
        assert newest_log(flash).endswith("# 250 right ignored: pressed together with left\n")
    else:
        assert not any(p.startswith("games/g") for p in flash.files)


def test_a_failing_filesystem_never_stops_the_clock():
    class Full(FakeFlash):
        def open(self, path, mode):
            if "r" not in mode:
                raise OSError(28, "no space")
            return FakeFlash.open(self, path, mode)

    d = Device(Full())
    d.press(cc.LEFT)
    d.run(9000)
    assert d.clock.running() == cc.RIGHT
    assert d.s.store.message.startswith("cannot save the game")
    assert persist.NO_GAME  # the store says why; the clock goes on


# -- gestures: mark and retract (SPEC v3 §4 "Gestures on the device", issue 18) ------------
# The app's part, as firmware/app.py does it: before a key's edge acts, the
# clock's snapshot is copied into the key's slot and Session.mark(k) notes
# where the log stands; a recognised gesture restores the snapshot, calls
# Session.retract(k, now), then pauses a clock that was running at the
# group's first edge t0.  Both ways the session writes: straight to the files
# (FakeFlash, no raw flash) and through the running-clock journal (littlefs
# on the NOR model, tests/mp/norflash.py).

def _fs(journal):
    if journal:
        return norflash.NorFS()
    return FakeFlash()


def _log(fs):
    if isinstance(fs, FakeFlash):
        games = sorted(p for p in fs.files if p.startswith("games/g"))
        return fs.files[games[-1]].decode() if games else None
    games = sorted(n for n in fs.files("games") if n.startswith("g"))
    return fs.read("games/" + games[-1]).decode() if games else None


def _power_cut(fs):
    """The flash as it is now, for a power-up that leaves `fs` alone."""
    if isinstance(fs, FakeFlash):
        return fs.copy()
    return norflash.power_cut(fs)


class Gesture:
    """One key's slot (the game screen's Game.snaps[k] and Session.mark(k))."""

    def __init__(self, d, k=0):
        self.d = d
        self.k = k
        d.clock.update(d.t)
        self.t0 = d.t
        self.snap = list(d.clock.snapshot())
        d.s.mark(k)

    def undo(self):
        """What Game._undo does when the gesture is recognised, and the end
        of that step: with the journal, retract() stages a record (KIND_UNDO
        or a checkpoint) that the step programs before its draw (program())."""
        d = self.d
        c = d.clock
        c.restore(self.snap)
        d.s.retract(self.k, d.t)
        d.s.tick(d.t, c.running() >= 0)

    def stop(self):
        c = self.d.clock
        if c.state == cc.RUNNING or c.state == cc.LATE:
            c.pause(self.t0)


def _replays(fs, clock, s, t):
    text = _log(fs)
    replays(text, clock, s.log_ms(t))
    return text


# the two ways the session writes: the files only, and the journal
WAYS = [False, True]
WAY_IDS = ["files", "journal"]


def _game(d):
    """Two moves; left runs (log: 0 left, 3000 right)."""
    d.press(cc.LEFT)                      # right runs
    d.run(3000)
    d.press(cc.RIGHT)                     # left runs
    d.run(1000)


@parametrize("journal, stopped", [(j, st) for j in WAYS for st in (False, True)],
             ids=[w + "-" + st for w in WAY_IDS for st in ("running", "stopped")])
def test_retract_drops_the_lines_after_the_mark_and_keeps_those_before(journal, stopped):
    """A gesture's keys in a running game: left's move, a press locked out
    ("pressed together"), the pause key (`stopped`: the clock stopped in the
    group, so with the journal its records went to the files before the
    gesture).  retract(): every line since the mark is gone, every line
    before it kept; the restored clock, paused at the first edge, is what
    the log replays to, and left is charged exactly up to that edge."""
    fs = _fs(journal)
    d = Device(fs)
    assert (d.s.sp.j is not None) == journal
    _game(d)
    g = Gesture(d)
    left = d.clock.rem[cc.LEFT]
    d.press(cc.LEFT)                      # left's move: right runs (undone)
    d.run(300)
    d.s.ignored(d.t, cc.LEFT)             # right locked out (undone)
    if stopped:
        d.clock.pause(d.t)                # the pause key (undone)
    d.run(2700)                           # held: a stopped clock folds the journal
    if journal and stopped:
        assert d.s.sp.j.count == d.s.sp.folded and " pause  # " in _log(fs)
    g.undo()
    g.stop()
    d.run(500)
    c = d.clock
    assert c.state == cc.PAUSED and c.side == cc.LEFT and c.rem[cc.LEFT] == left
    assert c.rem[cc.RIGHT] == 1800000 - 3000
    text = _replays(fs, c, d.s, d.t)
    lines = [ln for ln in text.split("\n") if ln and ln[0].isdigit()]
    assert [ln.split("  #")[0] for ln in lines] == ["0 left", "3000 right", "4000 pause"], text
    assert "ignored" not in text


@parametrize("journal, when", [(j, w) for j in WAYS for w in ("retract", "stop")],
             ids=[w + "-" + when for w in WAY_IDS for when in ("retract", "stop")])
def test_a_power_cut_right_after_a_retract_restores_the_retracted_state(journal, when):
    """SPEC §4 Power loss with a gesture: the power fails right after
    retract() (the restored clock still running as before the group) or
    right after the stop at the first edge; the power-up gives that clock,
    paused, and its log (without the undone presses) replays to it.  With
    the journal the undone records are still on the flash: the restore must
    pass over them."""
    fs = _fs(journal)
    d = Device(fs)
    _game(d)
    g = Gesture(d)
    d.press(cc.LEFT)                      # undone
    d.run(200)
    d.s.ignored(d.t, cc.LEFT)             # undone
    d.run(2800)
    g.undo()
    if when == "stop":
        g.stop()
    want = list(d.clock.snapshot())
    d2 = Device(_power_cut(fs), t0=4242)
    assert d2.restored == session.RESTORED
    c = d2.clock
    assert c.state == cc.PAUSED and c.side == cc.LEFT
    assert c.rem == want[3:5] and c.rem[cc.LEFT] == 1800000 - 1000
    text = _replays(d2.s.store.fs, c, d2.s, d2.t)
    assert "ignored" not in text and text.count(" left  #") == 1, text


@parametrize("journal", WAYS, ids=WAY_IDS)
def test_retract_of_a_games_first_press_leaves_no_game(journal):
    """Late arrival's keys in ready: the player button started the game (a
    game file begun for it, or a journal record); the gesture undoes it.
    Nothing is left to restore or to read: no game file, a clean ready after
    a power cut; the game's first event opens game 1 at log time 0."""
    fs = _fs(journal)
    d = Device(fs)
    d.run(1000)
    g = Gesture(d)
    d.press(cc.LEFT)                      # right runs: the game "began"
    d.run(2000)
    assert d.s.on
    g.undo()
    assert d.clock.state == cc.READY and not d.s.on and not d.s.begun
    assert _log(fs) is None
    d2 = Device(_power_cut(fs), t0=77)
    assert d2.restored in (session.NOTHING, session.RULES) and d2.clock.state == cc.READY
    d.clock.start_late(cc.RIGHT, g.t0)    # the gesture's effect, from its first edge
    d.run(1000)
    d.press(cc.LEFT)                      # right arrives
    d.run(1000)
    d.clock.pause(d.t)
    d.run(100)
    d.s.sp.fold(d.t)                      # (with the journal: at the game's end)
    assert d.s.log.number == 1
    text = _replays(fs, d.clock, d.s, d.t)
    assert "\n0 late right  #" in text and "\n3000 left  #" in text, text


def test_the_checkpoint_names_the_cut_log_before_the_file_is_cut():
    """The power-cut order of retract() (files): the state file's record
    with the log's new length is written before the log file is cut, so a
    cut between them restores the retracted clock and cuts the log itself."""
    flash = FakeFlash()
    d = Device(flash)
    _game(d)
    g = Gesture(d)
    d.press(cc.LEFT)
    d.run(500)
    n = len(flash.journal)
    g.undo()
    ops = [(op[0], op[1]) for op in flash.journal[n:]]
    saved = max(i for i, o in enumerate(ops) if o == ("rename", "clock.state.tmp"))
    cut = [i for i, o in enumerate(ops) if o[1].startswith("games/")]
    assert cut and min(cut) > saved, ops
    probe = persist.StateStore(fs=flash.copy(), count=cc.SNAPSHOT_LEN)
    assert probe.load()[0] == list(d.clock.snapshot())
    assert probe.log_pos == len(flash.files["games/g0001.txt"])


@parametrize("journal", WAYS, ids=WAY_IDS)
def test_a_later_gesture_of_the_group_cuts_an_earlier_ones_comment(journal):
    """One group, two gestures (the pause key held alone 2 s on a stopped
    clock, then both player buttons added for the referee gesture): the
    second undoes the group's keys again, the first one's effect and its log
    comment with them; the log shows the gesture that stood (SPEC v3 §4: the
    log records the gesture).  The first comment is the first line after
    the mark when the keys' edges logged nothing (over, paused)."""
    import gestures as gst
    fs = _fs(journal)
    d = Device(fs)
    _game(d)
    d.clock.pause(d.t)
    d.run(1000)
    g = Gesture(d)
    d.run(2000)
    g.undo()
    d.s.gesture(gst.PAUSE_LONG, d.t)
    d.run(3000)
    g.undo()
    d.s.gesture(gst.REFEREE, d.t)
    d.run(100)
    text = _replays(fs, d.clock, d.s, d.t)
    assert "gesture referee" in text and "gesture pause_long" not in text, text


# -- the log time base: pauses of days (issue 26) ----------------------------------

DAY = 86400000


def _long_pause(d, ms):
    """A paused clock left alone for `ms` (main-loop iterations of ~18.6
    hours: the ticks wrap every 2**30 ms, 12.4 days, under it)."""
    while ms > 0:
        step = ms if ms < (1 << 26) else 1 << 26
        d.t = ADD(d.t, step)
        d.clock.update(d.t)
        d.s.tick(d.t, d.clock.running() >= 0)
        ms -= step


@parametrize("days, journal", [(n, j) for n in (7, 13, 25) for j in WAYS],
             ids=["%d-days-%s" % (n, w) for n in (7, 13, 25) for w in WAY_IDS])
def test_the_log_keeps_the_clocks_times_after_a_pause_of_days(days, journal):
    """Issue 26: a game paused for days (7, 13 and 25: past 10**9 ms, past
    2**30 ms, past 2**31 ms; the ticks wrap once or twice meanwhile) goes on
    with its log at the clock's times, not stamped 999999999: every line
    after the pause carries its exact time, and the log replays to the
    clock, before a power cut and after it (the state file and the journal
    keep the log time's two parts: logtime.py)."""
    fs = _fs(journal)
    d = Device(fs)
    d.press(cc.LEFT)                      # 0 left: right runs
    d.run(3000)
    d.clock.pause(d.t)                    # 3000 pause
    d.s.tick(d.t, False)
    _long_pause(d, days * DAY)
    back = 3000 + days * DAY
    assert d.s.log_ms(d.t) == back
    d.clock.pause(d.t)                    # right runs again
    d.run(6000)                           # a checkpoint (4 s)
    d.press(cc.RIGHT)                     # left runs
    d.run(2000)
    if journal:                           # (with the journal the lines are
        d.clock.pause(d.t)                # written at the end of the game)
        d.clock.end(d.t)
        for _ in range(200):
            d.run(100)
    text = _log(fs)
    assert "\n%d pause  # " % back in text, text
    assert "\n%d right  # " % (back + 6000) in text, text
    assert "99999999" not in text, text
    replays(text, d.clock, d.s.log_ms(d.t))
    if journal:
        return
    # a power cut: the clock comes back paused as of the checkpoint at
    # back + 6000, and the log goes on from there
    d2 = Device(_power_cut(fs), t0=777)
    assert d2.restored == session.RESTORED
    assert d2.s.log_ms(777) == back + 6000
    text = _log(d2.s.log.fs)
    assert text.endswith("\n%d pause  # power restored\n" % (back + 6000)), text
    replays(text, d2.clock, back + 6000)


@parametrize("journal", WAYS, ids=WAY_IDS)
def test_a_power_cut_after_a_pause_of_days_restores_the_log_time(journal):
    """The same across a power cut while the clock runs after 25 days'
    pause: the checkpoint (the journal's record or the state file's)
    carries the log time past 2**31 ms; the restored clock's log replays."""
    fs = _fs(journal)
    d = Device(fs)
    d.press(cc.LEFT)
    d.run(1000)
    d.clock.pause(d.t)
    d.s.tick(d.t, False)
    _long_pause(d, 25 * DAY)
    d.clock.pause(d.t)                    # right runs again
    d.run(5000)                           # a checkpoint at 4 s
    d.press(cc.RIGHT)                     # its record
    d.run(500)
    at = 1000 + 25 * DAY + 5000
    d2 = Device(_power_cut(fs), t0=5)
    assert d2.restored == session.RESTORED
    assert d2.clock.state == cc.PAUSED
    assert d2.s.log_ms(5) == at
    text = _log(d2.s.log.fs)
    assert "\n%d right  # " % at in text, text
    assert text.endswith("%d pause  # power restored\n" % at), text
    replays(text, d2.clock, at)


# -- any number of undos, none of them folds (issue 26) ------------------------------

def _undos(d, n):
    """n gestures in a running game, each undoing one move of the mover's
    (the press and 300 ms), every other one followed by a real move; a
    step at a time, as the app's main loop.  Returns the real moves made
    and the littlefs operations (programs + erases) seen in a step that
    began or ended with a clock running."""
    nor = d.s.log.fs.nor
    moves = 0
    busy = 0
    for k in range(n):
        assert d.clock.running() >= 0
        g = Gesture(d)
        ops = nor.programs + nor.erases
        d.press(d.clock.running())        # a move (undone)
        d.run(300)
        g.undo()                          # its records void: no fold, no file
        busy += nor.programs + nor.erases - ops
        d.run(700)
        if k % 2:
            d.press(d.clock.running())    # a real move
            moves += 1
            d.run(1000)
    return moves, busy


def test_fifty_undos_in_one_arming_never_fold_while_a_clock_runs():
    """Issue 26: a ninth undo in one journal arming folded the journal inside
    the step with a clock running (littlefs writes and erases: 1 248 ms at
    the flash's datasheet maxima).  Now 50 undos: no littlefs program or
    erase in any step while a clock runs (the undone records are made void
    on the flash by page programs of the journal's own, Journal.kill); at
    the end the fold writes the real moves only and the log replays; a
    power-up meanwhile (even with an UNDO record's kills cut short) brings
    back no undone move."""
    fs = norflash.NorFS()
    d = Device(fs)
    for _ in range(400):                  # ready: the journal armed in slices
        if d.s.sp.j.ok and not d.s.sp.arm_due:
            break
        d.run(20)
    assert d.s.sp.j.ok and not d.s.sp.j.arming()
    d.press(cc.LEFT)                      # 0 left: right runs
    d.run(2000)
    e, p = fs.nor.erases, fs.nor.programs
    moves, busy = _undos(d, 50)
    assert busy == 0 and (fs.nor.erases, fs.nor.programs) == (e, p)
    assert d.s.sp.folded == 0 and d.clock.running() >= 0
    presses = 1 + moves                   # the first press and the real moves
    d2 = Device(_power_cut(fs), t0=555)   # a power-up: the journal's lines
    assert d2.restored == session.RESTORED
    text = _log(d2.s.log.fs)
    assert _presses(text) == presses, text
    replays(text, d2.clock, d2.s.log_ms(555))
    d.run(1000)
    d.clock.pause(d.t)
    d.clock.end(d.t)
    for _ in range(50):                   # over: folded where nobody waits
        d.run(100)
    assert d.s.sp.folded == d.s.sp.j.count or d.s.sp.j.count == 0
    text = _log(fs)
    assert _presses(text) == presses, text
    assert text.count(" pause  # ") == 1 and " end  # " in text
    replays(text, d.clock, d.s.log_ms(d.t))
    # the restored game goes on: one more undone move, and the power fails
    # after its UNDO record, before its records were made void
    d2.clock.pause(d2.t)                  # running again
    d2.run(500)
    d2.s.sp.j.kill_range = lambda a, b: None
    g = Gesture(d2)
    d2.press(d2.clock.running())
    d2.run(300)
    g.undo()
    d3 = Device(_power_cut(d2.s.log.fs), t0=99)
    assert d3.restored == session.RESTORED
    text = _log(d3.s.log.fs)
    assert _presses(text) == presses, text
    replays(text, d3.clock, d3.s.log_ms(99))


def _presses(text):
    return sum(1 for ln in text.split("\n") if ln.split(" ")[1:2] in (["left"], ["right"]))
