"""The main loop's pause (firmware/app.py App.run / _pause_ms; issue 11 item
3 "Idle work": the core idles while nothing visible changes).  It sleeps
IDLE_LOOP_MS when nothing is pending and LOOP_MS while a key is down or
settling, a press waits CHORD_MS to be told from a gesture, a beep plays or a
menu shows.  A press landing anywhere in a long sleep is still charged at its
pin edge (SPEC §4: presses are stamped by the pin IRQ)."""
import os

import app as appmod
import buttons as btn
from host_sim.sim import load_board
from rig import Rig, LEFT, RIGHT, PAUSE
from test_micropython import run_micropython


class _Stop(BaseException):
    pass


def loop(rig, n, during=None):
    """App.run() for n iterations; each sleep advances the rig's clock by the
    asked ms (`during(i, ms)` may act inside it).  Returns the pauses."""
    pauses = []

    def sleep_ms(ms):
        pauses.append(ms)
        if during is not None:
            during(len(pauses) - 1, ms)
        else:
            rig.now = rig.add(rig.now, ms)
        if len(pauses) >= n:
            raise _Stop()

    try:
        rig.app.run(sleep_ms)
    except _Stop:
        pass
    return pauses


def booted(tmp_path):
    rig = Rig(load_board("sim"), str(tmp_path) + "/")
    rig.run(2000)  # past the boot screen
    assert rig.app.mode == appmod.MODE_GAME
    return rig


def test_idle_game_sleeps_long_and_a_held_key_short(tmp_path):
    rig = booted(tmp_path)
    assert loop(rig, 10) == [appmod.IDLE_LOOP_MS] * 10       # ready, keys up
    rig.down(LEFT)
    assert set(loop(rig, 5)) == {appmod.LOOP_MS}              # a key is down
    rig.up(LEFT)
    p = loop(rig, 200)
    # while the press waits CHORD_MS and the key settles: short; then long
    assert p[0] == appmod.LOOP_MS and p[-1] == appmod.IDLE_LOOP_MS
    assert sum(x for x in p if x == appmod.LOOP_MS) >= btn.CHORD_MS - 2 * appmod.IDLE_LOOP_MS
    assert rig.clock.running() == 1                            # right runs
    assert loop(rig, 10) == [appmod.IDLE_LOOP_MS] * 10       # running, nothing pending


def test_a_beep_and_the_menus_keep_the_short_pause(tmp_path):
    rig = booted(tmp_path)
    rig.app.buzzer.beep(appmod.outputs.BEEP_KEY, rig.now)
    assert loop(rig, 1) == [appmod.LOOP_MS]
    rig.run(3000)  # the beep is over
    assert loop(rig, 1) == [appmod.IDLE_LOOP_MS]
    rig.app._set_mode(appmod.MODE_SETUP)
    rig.app.menu = appmod.menumod.SetupMenu(rig.app.settings)
    assert loop(rig, 3) == [appmod.LOOP_MS] * 3


def test_a_press_inside_a_long_sleep_is_charged_at_its_edge(tmp_path):
    """Right's clock runs; right presses 7 ms into a 20 ms sleep: right is
    charged up to that edge, not to the end of the sleep, and left runs."""
    rig = booted(tmp_path)
    rig.press(LEFT)              # right's clock runs
    rig.run(1000)
    assert loop(rig, 5) == [appmod.IDLE_LOOP_MS] * 5
    c = rig.clock
    t0 = rig.now
    c.update(t0)
    right0 = c.rem[1]
    edge = []

    def during(i, ms):
        if i == 2:
            assert ms == appmod.IDLE_LOOP_MS
            rig.now = rig.add(rig.now, 7)
            edge.append(rig.now)
            rig.down(RIGHT)          # the pin IRQ stamps it now
            rig.now = rig.add(rig.now, ms - 7)
        else:
            rig.now = rig.add(rig.now, ms)
        if i == 6:
            rig.up(RIGHT)

    loop(rig, 400, during)
    assert c.running() == 0              # left runs now
    assert c.rem[1] == right0 - rig.diff(edge[0], t0)


MP_SCRIPT = """
import micropython
import sim as board
from rig import Rig
rig = Rig(board, %r)
rig.run(2000)
a = rig.app
p = a._pause_ms
p()
i = 0
n = micropython.mem_total()
while i < 2000:
    p()
    i += 1
print("BYTES", micropython.mem_total() - n, p())
"""


def test_the_pause_allocates_nothing_under_micropython(tmp_path):
    """No heap allocation in the steady-state main loop (developer rules):
    _pause_ms runs every iteration."""
    script = tmp_path / "pause.py"
    root = tmp_path / "clock"
    root.mkdir()
    script.write_text(MP_SCRIPT % (str(root) + "/"))
    proc = run_micropython([str(script)], timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split("BYTES")[-1].split() == ["0", str(appmod.IDLE_LOOP_MS)], \
        proc.stdout
