"""firmware/session.py on a fake filesystem (issue 13 item 1: the session owns
the state store, the game log, the log time base and the log-then-checkpoint
order, as code; SPEC v2 §4 "Power loss" and "Game log").

The real core (clockcore.Clock) drives a Session as the app does: its event
hook is Session.event, the main loop calls Session.tick.  FakeFlash
(tests/test_power_loss.py) journals every file operation, so the order of
the writes is checked, not assumed.
"""
import pytest

import clockcore as cc
import gamelog
import persist
import profiles
import session
import ticks
from host_sim import replay
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
    assert d.s.store.log_pos == len(flash.files["games/g0001.txt"])
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


def test_log_time_runs_on_across_the_tick_wrap_and_is_capped():
    flash = FakeFlash()
    d = Device(flash)
    d.press(cc.LEFT)
    d.run(30000, step=1000)               # the wrap is 20 s in
    assert d.s.log_ms(d.t) == 30000
    assert d.s.log_ms(ADD(d.t, -5000)) == 25000
    # a tick before the anchor never gives a negative time
    assert d.s.log_ms(ADD(d.s.anchor, -1)) == d.s.offset
    d.s.offset = session.LOG_MS_MAX - 10
    assert d.s.log_ms(ADD(d.s.anchor, 100)) == session.LOG_MS_MAX < gamelog.MAX_MS


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
    assert DIFF(d.t, d.s.anchor) < (1 << 27)


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
    game = replay.parse(text.split("\n"))
    clock, _ = replay.run(game, saved)
    assert replay.report(clock, saved) == replay.report(d2.clock, saved)


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
    d.clock.rules.base = [120000, 120000]
    d.clock.reset(d.t)
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


@pytest.mark.parametrize("on", [True, False])
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
