"""The main loop's pause (firmware/app.py App.run, _sleep, _pause_ms; issue
11 item 3 "Idle work": the core idles while nothing visible changes; issue
18, SPEC v3 §4 "Gestures on the device" and §6: a key is acted on and shown
at once).

Each iteration sleeps up to IDLE_LOOP_MS when nothing is pending and LOOP_MS
while a key is down or settling, a beep plays or a menu shows; the sleep is
taken in 1 ms slices and ends as soon as a key's edge arrives (the pin IRQ
counts it in Buttons.edges()), so a press landing anywhere in a sleep is
acted on, and drawn, within one slice of its edge, and charged at the edge
itself (SPEC §4 Timekeeping: presses are stamped by the pin IRQ)."""
import app as appmod
from host_sim.sim import load_board
from rig import Rig, LEFT, RIGHT
from test_micropython import run_micropython


class _Stop(BaseException):
    pass


class Loop:
    """App.run() for n main-loop iterations on the rig's virtual clock.
    Each sleep slice advances the clock by its ms; `during(ms)` (the ms since
    the loop began, before the slice) may act inside the sleep, `after(i)`
    at the end of iteration i's step.  Records,
    per iteration: the ms slept after it (`naps`), and when it ran, which
    side ran and the top LCD row after it (`steps`); every slice's length
    (`slices`)."""

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
                during(rig.diff(rig.now, start))
            rig.now = rig.add(rig.now, ms)

        app.step = spy_step
        try:
            app.run(sleep_ms)
        except _Stop:
            pass
        finally:
            del app.step


def booted(tmp_path):
    rig = Rig(load_board("sim"), str(tmp_path) + "/")
    rig.run(2000)  # past the boot screen
    assert rig.app.mode == appmod.MODE_GAME
    return rig


def test_idle_game_sleeps_long_and_a_held_key_short(tmp_path):
    rig = booted(tmp_path)
    lp = Loop(rig, 10)
    assert lp.naps == [appmod.IDLE_LOOP_MS] * 10              # ready, keys up
    assert set(lp.slices) == {1}                              # in 1 ms slices
    rig.down(LEFT)
    lp = Loop(rig, 5)
    assert lp.naps == [appmod.LOOP_MS] * 5                    # a key is down
    # SPEC v3 §4: the press acted at its edge, in the first step after it
    # (no wait to tell it from a gesture)
    assert [s[1] for s in lp.steps] == [RIGHT] * 5
    rig.up(LEFT)
    p = Loop(rig, 100).naps
    # while the release settles (debounce_ms after its edge): short; then long
    debounce = rig.app.buttons.debounce_ms
    short = [x for x in p if x == appmod.LOOP_MS]
    assert p[0] == appmod.LOOP_MS and p[-1] == appmod.IDLE_LOOP_MS
    assert p == short + [appmod.IDLE_LOOP_MS] * (len(p) - len(short))
    assert debounce - appmod.LOOP_MS <= sum(short) <= debounce + 2 * appmod.LOOP_MS
    assert rig.clock.running() == RIGHT                       # right runs
    assert Loop(rig, 10).naps == [appmod.IDLE_LOOP_MS] * 10   # running, nothing pending


def test_a_beep_and_the_menus_keep_the_short_pause(tmp_path):
    rig = booted(tmp_path)
    rig.app.buzzer.beep(appmod.outputs.BEEP_KEY, rig.now)
    assert Loop(rig, 1).naps == [appmod.LOOP_MS]
    rig.run(3000)  # the beep is over
    assert Loop(rig, 1).naps == [appmod.IDLE_LOOP_MS]
    rig.app._open(appmod.MODE_SETUP, appmod.menumod.SetupMenu(rig.app.settings))
    assert Loop(rig, 3).naps == [appmod.LOOP_MS] * 3


def _press_in_sleep(tmp_path, offset):
    """Right's clock runs, the loop idles; right's button goes down `offset`
    ms into the third iteration's sleep.  Returns (rig, loop, the edge in
    loop ms, the edge's rig tick, right's time at the loop's start, the
    loop's start tick, the top row before the edge)."""
    rig = booted(tmp_path)
    rig.press(LEFT)              # right's clock runs
    rig.run(1000)
    assert Loop(rig, 5).naps == [appmod.IDLE_LOOP_MS] * 5
    c = rig.clock
    t0 = rig.now
    c.update(t0)
    right0 = c.rem[RIGHT]
    # the first step runs at t0, then sleeps IDLE_LOOP_MS; the third sleep
    # begins 2 * IDLE_LOOP_MS ms later
    at = 2 * appmod.IDLE_LOOP_MS + offset
    edge = []

    def during(ms):
        if ms == at:
            edge.append(rig.now)
            rig.down(RIGHT)      # the pin IRQ stamps it now
        if ms == at + 200:
            rig.up(RIGHT)

    lp = Loop(rig, 300, during)
    return rig, lp, at, edge[0], right0, t0


def test_a_press_inside_a_long_sleep_is_acted_on_within_a_slice(tmp_path):
    """SPEC v3 §4 Gestures ("a key acts at its own edge ... shown at once")
    and §6 (30 ms): right presses 7 ms into a 20 ms idle sleep; the sleep
    ends after that slice, the next step (1 ms after the edge) runs left's
    clock and draws it, and right is charged up to the edge exactly."""
    rig, lp, at, edge, right0, t0 = _press_in_sleep(tmp_path, 7)
    before = [s for s in lp.steps if s[0] <= at]
    after = [s for s in lp.steps if s[0] > at]
    assert before[-1][1] == RIGHT
    assert after[0][0] == at + 1                # the next step: 1 ms after the edge
    assert after[0][1] == LEFT                  # left's clock runs ...
    assert after[0][2] != before[-1][2]         # ... and the LCD shows it
    c = rig.clock
    assert c.running() == LEFT
    assert c.rem[RIGHT] == right0 - rig.diff(edge, t0)


def test_a_press_at_any_phase_of_the_sleep_is_shown_within_a_slice(tmp_path):
    """The same at every ms of an idle sleep (its first slice to its last):
    the step that acts on the press runs within one slice of its edge."""
    for offset in range(appmod.IDLE_LOOP_MS):
        rig, lp, at, edge, right0, t0 = _press_in_sleep(tmp_path, offset)
        after = [s for s in lp.steps if s[0] > at]
        assert after[0][0] - at <= 1, (offset, after[0])
        assert after[0][1] == LEFT, (offset, after[0])
        assert rig.clock.rem[RIGHT] == right0 - rig.diff(edge, t0), offset


def test_a_press_during_a_step_skips_the_sleep_after_it(tmp_path):
    """A press whose edge comes while a step runs, after the step read the
    keys (e.g. while it writes the LCD: milliseconds on the I2C bus): the
    sleep after that step must not begin, so the press is acted on in the
    next step at once, not a sleep later (SPEC v3 §4 "shown at once", §6).
    (Before, the sleep read the edge count only when it began: the press
    waited LOOP_MS, or IDLE_LOOP_MS if its edge came after _pause_ms().)"""
    rig = booted(tmp_path)
    rig.press(LEFT)              # right's clock runs
    rig.run(1000)
    assert Loop(rig, 3).naps == [appmod.IDLE_LOOP_MS] * 3

    def after(i):
        if i == 2:
            rig.down(RIGHT)      # the IRQ stamps it at the step's end

    lp = Loop(rig, 6, after=after)
    assert lp.naps[:2] == [appmod.IDLE_LOOP_MS] * 2
    assert lp.naps[2] == 0, lp.naps            # no sleep after the step it came in
    assert lp.steps[2][1] == RIGHT and lp.steps[3][1] == LEFT
    assert lp.steps[3][0] == lp.steps[2][0]    # acted on at once


MP_SCRIPT = """
import micropython
import sim as board
from rig import Rig
rig = Rig(board, %r)
rig.run(2000)
a = rig.app
p = a._pause_ms
p()
def nap(ms):
    pass
a._sleep(nap, 20)
i = n = 0               # (globals made before the count: no dict growth in it)
n = micropython.mem_total()
while i < 2000:
    p()
    a._sleep(nap, 20)
    i += 1
print("BYTES", micropython.mem_total() - n, p())
"""


def test_the_pause_allocates_nothing_under_micropython(tmp_path):
    """No heap allocation in the steady-state main loop (developer rules):
    _pause_ms and the sliced _sleep run every iteration."""
    script = tmp_path / "pause.py"
    root = tmp_path / "clock"
    root.mkdir()
    script.write_text(MP_SCRIPT % (str(root) + "/"))
    proc = run_micropython([str(script)], timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split("BYTES")[-1].split() == ["0", str(appmod.IDLE_LOOP_MS)], \
        proc.stdout
