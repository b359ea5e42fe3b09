"""The main loop's pause (firmware/app.py App.run, _sleep, _pause_ms, _wake;
issue 11 item 3 "Idle work", issue 30 "A battery clock": the core idles
while nothing visible changes; issue 18, SPEC v3 §4 "Gestures on the
device" and §6: a key is acted on and shown at once).

After each step the loop sleeps until the next instant something shown
changes or has work due (clockcore.next_change: the running side's shown
second, the challenge window's, a flag, a forfeit; a notice's or a
question's end; a beep's next tone; the journal's checkpoint; the hall
link), at most MAX_SLEEP_MS, and to a held key's next gesture instant
(Gestures.wake, issue 37); LOOP_MS while a key is settling or a menu
shows.  The sleep here is a sleep_ms the test injects (virtual time),
which App.run takes in SLICE_MS slices (firmware/nap.py), timed by the tick
counter, and it ends as soon as a key's edge arrives (the pin IRQ counts it
in Buttons.edges()), so a press landing anywhere in a sleep is acted on,
and drawn, within one slice of its edge, and charged at the edge itself
(SPEC §4 Timekeeping: presses are stamped by the pin IRQ).  The device's
own sleep, one select.poll wait that the edge ends: tests/test_selftest.py
(the unix port) and tests/test_target_nap.py (the emulated Pico)."""
import app as appmod
import clockcore as cc
import profiles
from host_sim.sim import load_board
from rig import Rig, LEFT, RIGHT, PAUSE
import question as qmod
from test_micropython import run_micropython


class _Stop(BaseException):
    pass


class Loop:
    """App.run() for n main-loop iterations on the rig's virtual clock.
    Each sleep slice advances the clock by its ms; `during(lp, ms)` (the ms
    since the loop began, before the slice) may act inside the sleep,
    `after(i)` at the end of iteration i's step.  Records, per iteration:
    the ms slept after it (`naps`), and when it ran, which side ran and the
    top LCD row after it (`steps`); every slice's length (`slices`)."""

    def __init__(self, rig, n, during=None, after=None):
        self.rig = rig
        self.naps = []
        self.steps = []
        self.slices = []
        app = rig.app
        step = app.step
        start = rig.now

        def spy_step():
            if len(self.naps) == n:
                raise _Stop()
            self.naps.append(0)
            step()
            if after is not None:
                after(len(self.naps) - 1)
            self.steps.append((rig.diff(rig.now, start), app.clock.running(),
                               rig.screen()[0]))

        def sleep_ms(ms):
            self.slices.append(ms)
            self.naps[-1] += ms
            if during is not None:
                during(self, rig.diff(rig.now, start))
            rig.now = rig.add(rig.now, ms)

        app.step = spy_step
        try:
            app.run(sleep_ms)
        except _Stop:
            pass
        finally:
            del app.step


def booted(tmp_path, board="sim"):
    rig = Rig(load_board(board), str(tmp_path) + "/")
    rig.run(2000)  # past the boot screen
    assert rig.app.mode == appmod.MODE_GAME
    return rig


def short_game(rig, left="00:05", right="00:03", profile="sdev"):
    """A new game with these base times (a flag or a forfeit soon)."""
    rig.app.new_game(rig.now, profiles.make_rules(profile, [("base_left", left),
                                                            ("base_right", right)]))
    rig.run(100)


def test_ready_sleeps_the_longest_and_a_held_key_short(tmp_path):
    rig = booted(tmp_path)
    lp = Loop(rig, 5)
    assert lp.naps == [appmod.MAX_SLEEP_MS] * 5              # ready: nothing changes
    assert set(lp.slices) == {appmod.SLICE_MS}               # in slices
    rig.down(LEFT)
    lp = Loop(rig, 5)
    assert lp.naps == [appmod.LOOP_MS] * 5                    # a key is down
    # SPEC v3 §4: the press acted at its edge, in the first step after it
    # (no wait to tell it from a gesture)
    assert [s[1] for s in lp.steps] == [RIGHT] * 5
    rig.up(LEFT)
    p = Loop(rig, 40).naps
    # while the release settles (debounce_ms after its edge): short; then
    # until the next second of right's running clock
    debounce = rig.app.buttons.debounce_ms
    short = [x for x in p if x == appmod.LOOP_MS]
    assert p[0] == appmod.LOOP_MS and p == short + p[len(short):]
    assert debounce - appmod.LOOP_MS <= sum(short) <= debounce + 2 * appmod.LOOP_MS
    assert all(appmod.LOOP_MS < x <= 1000 for x in p[len(short):]), p
    assert rig.clock.running() == RIGHT                       # right runs


def test_a_running_clock_wakes_at_each_second_it_shows_and_only_then(tmp_path):
    """Issue 30: while a clock runs and nothing is pressed, every step
    after the first lands on an instant the shown time changes (SPEC §4
    rounding: a whole 1000 ms of the running side's time), and the LCD's
    top row changes at each of them; about one step a second."""
    rig = booted(tmp_path)
    rig.press(LEFT)                    # right runs; the challenge window opens
    rig.run(1357)
    lp = Loop(rig, 30)
    c = rig.clock
    wakes = lp.steps[1:]
    assert all(lp.naps[i] <= 1000 for i in range(len(lp.naps)))
    assert wakes[-1][0] - wakes[0][0] == 1000 * (len(wakes) - 1)   # one a second
    rows = [s[2] for s in lp.steps]
    assert all(rows[i] != rows[i - 1] for i in range(1, len(rows)))
    assert c.rem[RIGHT] % 1000 == 0    # the last step: on a second of right's time


def test_a_flag_and_a_forfeit_are_drawn_at_their_instant(tmp_path):
    """Issue 30: time-triggered changes are drawn at their own ms, though
    the loop sleeps up to a second: a step runs at the exact instant and the
    LCD changes then.  sdev: the flag with -00:01 (TSO § 5.2 a) and the
    forfeit at the overtime limit (clockcore EV_FORFEIT); pfs: 00:00 pauses
    the clock with the flag (PFS § 6.2.1)."""
    for profile in ("sdev", "pfs"):
        rig = booted(tmp_path / profile)
        short_game(rig, profile=profile)           # right has 3 s
        start = rig.now
        rig.down(LEFT)                             # right runs from this edge
        rig.run(80)
        rig.up(LEFT)
        rig.run(157)
        lim = rig.clock._limit()
        instants = [3000] if profile == "pfs" else [4000, 3000 + lim]
        l0 = rig.now
        lp = Loop(rig, (3000 + lim) // 1000 + 20)   # (+ the beeps' tones)
        at = [rig.diff(rig.add(start, x), l0) for x in instants]
        for x in at:
            i = [k for k in range(len(lp.steps)) if lp.steps[k][0] >= x][0]
            assert lp.steps[i][0] == x, (profile, x, lp.steps)
            assert lp.steps[i][2] != lp.steps[i - 1][2], (profile, x)
        assert rig.clock.state == (cc.OVER if profile == "sdev" else cc.PAUSED)
        assert rig.clock.forfeited[RIGHT] == (profile == "sdev")
        assert "\u2691" in lp.steps[-1][2]                    # the flag shows


def test_a_notice_ends_on_time(tmp_path):
    """A timed notice (display.NOTICE_MS) goes at its own instant, not at a
    MAX_SLEEP_MS boundary after it."""
    rig = booted(tmp_path)
    rig.app.display.note("LCDBACK")            # 4 s, in ready: nothing else runs
    end = rig.app.display.until
    rig.run(333)
    l0 = rig.now
    lp = Loop(rig, 8)
    times = [rig.add(l0, s[0]) for s in lp.steps]
    assert end in times
    assert rig.app.frame.notice is None


def _press_in_sleep(tmp_path, offset):
    """Right's clock runs, the loop sleeps to its next second; right's
    button goes down `offset` ms into the third iteration's sleep.  Returns
    (rig, loop, the edge in loop ms, the edge's rig tick, right's time at
    the loop's start, the loop's start tick)."""
    rig = booted(tmp_path)
    rig.press(LEFT)              # right's clock runs
    rig.run(1000)
    c = rig.clock
    t0 = rig.now
    c.update(t0)
    right0 = c.rem[RIGHT]
    edge = []

    def during(lp, ms):
        if not edge and len(lp.steps) == 3 and ms == lp.steps[2][0] + offset:
            edge.append((ms, rig.now))
            rig.down(RIGHT)      # the pin IRQ stamps it now
        if edge and ms == edge[0][0] + 200:
            rig.up(RIGHT)

    lp = Loop(rig, 300, during)
    return rig, lp, edge[0][0], edge[0][1], right0, t0


def test_a_press_inside_a_long_sleep_is_acted_on_within_a_slice(tmp_path):
    """SPEC v3 §4 Gestures ("a key acts at its own edge ... shown at once")
    and §6 (30 ms): right presses 7 ms into a sleep of up to a second; the
    sleep ends after that slice, the next step (1 ms after the edge) runs
    left's clock and draws it, and right is charged up to the edge exactly."""
    rig, lp, at, edge, right0, t0 = _press_in_sleep(tmp_path, 7)
    before = [s for s in lp.steps if s[0] <= at]
    after = [s for s in lp.steps if s[0] > at]
    assert lp.naps[2] < 20                      # that sleep was cut short
    assert after[0][0] == at + appmod.SLICE_MS  # the next step: a slice after the edge
    assert after[0][1] == LEFT                  # left's clock runs ...
    assert after[0][2] != before[-1][2]         # ... and the LCD shows it
    c = rig.clock
    assert c.running() == LEFT
    assert c.rem[RIGHT] == right0 - rig.diff(edge, t0)


def test_a_press_at_any_phase_of_the_sleep_is_shown_within_a_slice(tmp_path):
    """The same at many ms of a sleep (its first slice to near its last):
    the step that acts on the press runs within one slice of its edge."""
    for offset in range(0, 990, 37):
        rig, lp, at, edge, right0, t0 = _press_in_sleep(tmp_path / str(offset), offset)
        after = [s for s in lp.steps if s[0] > at]
        assert after[0][0] - at <= appmod.SLICE_MS, (offset, after[0])
        assert after[0][1] == LEFT, (offset, after[0])
        assert rig.clock.rem[RIGHT] == right0 - rig.diff(edge, t0), offset


def test_a_press_during_a_step_skips_the_sleep_after_it(tmp_path):
    """A press whose edge comes while a step runs, after the step read the
    keys (e.g. while it writes the LCD: milliseconds on the I2C bus): the
    sleep after that step must not begin, so the press is acted on in the
    next step at once, not a sleep later (SPEC v3 §4 "shown at once", §6)."""
    rig = booted(tmp_path)
    rig.press(LEFT)              # right's clock runs
    rig.run(1000)

    def after(i):
        if i == 2:
            rig.down(RIGHT)      # the IRQ stamps it at the step's end

    lp = Loop(rig, 6, after=after)
    assert lp.naps[0] > appmod.LOOP_MS and lp.naps[1] > appmod.LOOP_MS
    assert lp.naps[2] == 0, lp.naps            # no sleep after the step it came in
    assert lp.steps[2][1] == RIGHT and lp.steps[3][1] == LEFT
    assert lp.steps[3][0] == lp.steps[2][0]    # acted on at once


def _first(lp, seen):
    """The first step after which seen(app) held: its ms since the loop
    began, and how many steps ran up to it."""
    for i, ok in enumerate(lp.seen):
        if ok:
            return lp.steps[i][0], i + 1
    raise AssertionError("never seen in %d steps: %r" % (len(lp.steps), lp.naps))


def _watch(rig, n, seen):
    marks = []
    lp = Loop(rig, n, after=lambda i: marks.append(seen(rig.app)))
    lp.seen = marks
    return lp


def test_a_held_pause_key_sleeps_until_its_question(tmp_path):
    """Issue 37 (a held key no longer keeps the loop polling): the pause
    key held on a stopped clock asks END? at the instant it has been held
    long_ms (SPEC v5 §4: a gesture acts the instant it is recognized), and
    the loop sleeps through the hold: short pauses only while the press
    settles, then one sleep to that instant."""
    rig = booted(tmp_path)
    rig.press(LEFT)                    # right runs
    rig.run(1500)
    rig.press(PAUSE)                   # stopped (TSO § 1.4.1: the pause key)
    rig.run(500)
    assert rig.clock.state == cc.PAUSED
    rig.down(PAUSE)                    # its edge: now, the loop's 0 ms
    g = rig.app.gestures
    lp = _watch(rig, 60, lambda app: app.game.question.kind == qmod.END)
    at, steps = _first(lp, None)
    assert at == g.long_ms, lp.naps
    # the press settling, then at least a step a MAX_SLEEP_MS (and one for
    # the pause screen's own change); polling would be long_ms / LOOP_MS
    settle = rig.app.buttons.debounce_ms // appmod.LOOP_MS
    assert steps <= settle + g.long_ms // appmod.MAX_SLEEP_MS + 3, (steps, lp.naps)
    assert rig.clock.state == cc.PAUSED
    rig.up(PAUSE)


def test_both_player_buttons_held_answer_at_their_instant_asleep(tmp_path):
    """Issue 37: END? showing, both player buttons held: the yes comes at
    the second press + confirm_ms (SPEC v5 §4 CONFIRM, TSO § 1.4.1 a: the
    end confirmed), and the game is over at that ms, with the loop asleep
    between the presses' settling and that instant."""
    rig = booted(tmp_path)
    rig.press(LEFT)
    rig.run(1500)
    rig.press(PAUSE)
    rig.run(500)
    rig.press(PAUSE, hold=rig.app.gestures.long_ms + 100)
    assert rig.app.game.question.kind == qmod.END
    rig.down(LEFT)
    rig.run(150)
    rig.down(RIGHT)                    # the second press: the loop's 0 ms
    g = rig.app.gestures
    lp = _watch(rig, 60, lambda app: app.clock.state == cc.OVER)
    at, steps = _first(lp, None)
    assert at == g.confirm_ms, lp.naps
    settle = rig.app.buttons.debounce_ms // appmod.LOOP_MS
    assert steps <= settle + g.confirm_ms // appmod.MAX_SLEEP_MS + 3, (steps, lp.naps)
    rig.up(LEFT)
    rig.up(RIGHT)


def test_a_held_key_no_gesture_can_come_of_sleeps_as_if_up(tmp_path):
    """One player button held on a running clock (a resting finger): no
    timed gesture can come of it alone, so once it settled the loop
    sleeps to the running side's next shown second, as with no key down."""
    rig = booted(tmp_path)
    rig.press(LEFT)                    # right runs
    rig.run(1300)
    rig.down(LEFT)                     # left's button rests (not its turn)
    p = Loop(rig, 24).naps
    short = [x for x in p if x == appmod.LOOP_MS]
    assert p == short + p[len(short):]
    assert len(short) <= rig.app.buttons.debounce_ms // appmod.LOOP_MS + 1, p
    assert all(appmod.LOOP_MS < x <= 1000 for x in p[len(short):]), p
    assert sum(p[len(short):]) >= 5000, p      # (polling: 2 ms each)
    assert rig.clock.running() == RIGHT
    rig.up(LEFT)


def test_a_beep_and_the_menus_keep_the_pause_short(tmp_path):
    rig = booted(tmp_path)
    rig.app.buzzer.beep(appmod.outputs.BEEP_FLAG, rig.now)   # 90 ms on, 70 off, x3
    naps = Loop(rig, 8).naps
    assert naps[:5] == [90, 70, 90, 70, 90]        # each tone switched on time
    rig.run(3000)  # the beep is over
    assert Loop(rig, 1).naps == [appmod.MAX_SLEEP_MS]
    rig.app._open(appmod.MODE_SETUP, appmod.setupmenu.SetupMenu(rig.app.settings))
    assert Loop(rig, 3).naps == [appmod.LOOP_MS] * 3


MP_SCRIPT = """
import micropython
import sim as board
import nap as napmod
from rig import Rig, LEFT
rig = Rig(board, %r)
rig.run(2000)
rig.press(LEFT)
rig.run(1000)
a = rig.app
p = a._pause_ms
def sleep_ms(ms):
    rig.now = rig.add(rig.now, ms)
nap = napmod.Nap(a.buttons, sleep_ms)
u = a.clock.update
t = rig.ticks_ms
def one():
    u(t())
    a._sleep(nap, t(), p(t()))
one()
i = n = 0               # (globals made before the count: no dict growth in it)
n = micropython.mem_total()
while i < 200:
    one()
    i += 1
print("BYTES", micropython.mem_total() - n, p(t()) <= %d)
"""


def test_the_pause_allocates_nothing_under_micropython(tmp_path):
    """No heap allocation in the steady-state main loop (developer rules):
    in a running game, _pause_ms (the next change: clockcore.next_change and
    every part's wake) and the sliced _sleep, 200 times a sleep of up to a
    second (the step itself: tests/test_device.py)."""
    script = tmp_path / "pause.py"
    root = tmp_path / "clock"
    root.mkdir()
    script.write_text(MP_SCRIPT % (str(root) + "/", appmod.MAX_SLEEP_MS))
    proc = run_micropython([str(script)], timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split("BYTES")[-1].split() == ["0", "True"], proc.stdout
