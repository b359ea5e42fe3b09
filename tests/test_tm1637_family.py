"""The TM1637 display family in the whole clock (issue 28): the real app on
the fake machine with boards/sim_tm1637.py (DISPLAY = ("hd44780",
"tm1637")), the LCD emulator on the I2C bus and a TM1637 emulator on each
module's two pins.  What the modules show is read from the wire.

Written once for both interpreters (tests/mp/mptest.py); inside MicroPython
the last test measures the main loop's allocation with the modules fitted
(0 B per iteration, issue 28).
"""
import clockcore as cc
import machine
from device_scenarios import fresh_dir, write_settings
from rig import Rig, LEFT, RIGHT
from tm1637_emu import Tm1637Emu
from mptest import MICROPYTHON, cpython_only, eq, micropython_only, tmp_path

if MICROPYTHON:
    import sim_tm1637 as board             # boards/ is on MICROPYPATH
else:
    from host_sim.boards import load       # the one board loader
    board = load("sim_tm1637")

BRIGHT = board.TM_BRIGHTNESS
DIMMED = BRIGHT - 5


def boot(profile, base_s, step_ms=5):
    root = fresh_dir(tmp_path("tm1637fam"))
    write_settings(root, profile, base_s)
    rig = Rig(board, root, step_ms=step_ms)
    rig.run(1600)                          # the splash
    return rig, rig.emus["tm1637"]


def lcd_time(rig, s):
    """The LCD's mm:ss of side s, as the module writes it (5 characters)."""
    row = rig.screen()[0]
    t = row[1:7] if s == LEFT else row[9:15]
    return t.strip().replace("-0", "-", 1) if t.startswith("-0") else t.strip()


def test_modules_show_the_times_and_whose_turn():
    rig, tm = boot("sdev", 60)
    eq(tm.text(), ("01:00", "01:00"), "ready: the base times")
    eq((tm.mods[0].brightness, tm.mods[1].brightness), (BRIGHT, BRIGHT), "ready: both bright")
    rig.press(RIGHT)                       # left runs
    rig.run(2300)
    eq(rig.clock.running(), LEFT, "left runs")
    eq(tm.text(), (lcd_time(rig, LEFT), "01:00"), "left counts down with the LCD")
    eq(tm.text()[0], "00:58", "2.3 s gone, rounded up")
    eq((tm.mods[0].brightness, tm.mods[1].brightness), (BRIGHT, DIMMED), "the waiting side dimmed")
    rig.press(LEFT)                        # right runs
    rig.run(2000)
    eq((tm.mods[0].brightness, tm.mods[1].brightness), (DIMMED, BRIGHT), "turned")
    eq(tm.text()[1], lcd_time(rig, RIGHT), "right counts down with the LCD")
    for m in tm.mods:
        eq(m.errors, [], "clean wire")


@cpython_only  # (minutes of virtual play: the heap test below runs on MicroPython)
def test_overtime_then_lost():
    # sdev: overtime counts up with a minus (TSO § 5.2 a), 5:01 over is a
    # lost game (TSO § 5.2 c)
    rig, tm = boot("sdev", 60, step_ms=20)
    rig.press(RIGHT)
    rig.run(61000)
    eq(tm.text()[0], "-0:01", "one whole second over")
    eq(tm.text()[0], lcd_time(rig, LEFT), "as the LCD")
    rig.run(300000)
    eq(rig.clock.forfeited[LEFT], True, "forfeit")
    eq(tm.mods[0].segments(), b"\x38\x3f\x6d\x78", "LOSt")
    eq(tm.text()[1], "01:00", "the other side keeps its time")


@cpython_only  # (minutes of virtual play: the heap test below runs on MicroPython)
def test_flag_in_a_flag_profile():
    # pfs: at 00:00 the side is flagged and the clock pauses (PFS § 6.2.1)
    rig, tm = boot("pfs", 60, step_ms=20)
    rig.press(RIGHT)
    rig.run(61000)
    eq(rig.clock.state, cc.PAUSED, "flag pauses")
    eq(tm.text(), ("FL AG", "01:00"), "FLAG on the flagged side")
    eq((tm.mods[0].brightness, tm.mods[1].brightness), (BRIGHT, BRIGHT), "paused: both bright")


@cpython_only  # (minutes of virtual play: the heap test below runs on MicroPython)
def test_unplugged_module_leaves_the_rest_alone_and_comes_back():
    rig, tm = boot("sdev", 600)
    rig.press(RIGHT)                       # left runs
    rig.run(1000)
    tm.mods[0].disconnect()                # the left module's cable pulled
    rig.run(5000)
    eq(rig.clock.running(), LEFT, "the clock goes on")
    eq(rig.screen()[0][1:7], " 09:54", "the LCD goes on")
    rig.press(LEFT)                        # right runs: its module follows
    rig.run(3000)
    eq(tm.mods[1].text(), lcd_time(rig, RIGHT), "the right module goes on")
    back = Tm1637Emu().connect(machine, board.TM_LEFT_CLK, board.TM_LEFT_DIO)
    rig.press(RIGHT)                       # left runs again
    rig.run(3000)                          # past the longest back-off (2 s)
    eq(back.text(), lcd_time(rig, LEFT), "plugged in again: drawn")
    eq(back.on, True, "switched on")
    eq(back.errors, [], "clean wire")


def test_digits_family_has_no_text():
    # the menus and the splash stay on the LCD (rows = 0: a digits-only family)
    rig, tm = boot("sdev", 60)
    fams = [o.fam for o in rig.app.display.outs]
    eq([f.rows for f in fams], [2, 0], "LCD 16x2, then the modules")
    eq(rig.app.display.text.fam is fams[0], True, "the LCD shows text")


@cpython_only
def test_simulator_draws_the_modules():
    # host_sim/sim.py draws every other display's face_lines() under the
    # LCD: here both modules' 7-segment art, the waiting side's dimmed
    from host_sim.sim import Sim
    root = fresh_dir(tmp_path("tm1637sim"))
    write_settings(root, "sdev", 60)
    sim = Sim(board, root)
    sim.advance(1600)
    art = [" _      _  _ ", "| |  |.| || |", "|_|  |.|_||_|"]       # 01:00
    gap = " " * 10
    eq(sim.face_lines(), [a + gap + a for a in art], "both modules lit before the game")
    sim.key(RIGHT)                         # left runs: the right module dims
    sim.advance(3000)
    dim = [a.replace("_", ".").replace("|", ":") for a in art]
    eq([line[len(art[0]):] for line in sim.face_lines()], [gap + d for d in dim], "right dimmed")


@micropython_only
def test_family_draw_allocates_nothing_in_the_running_clock():
    # Every draw the app makes of the modules, measured where it happens
    # (inside the main loop, with the game's own frames): a clock running,
    # a turn, and a module without ACK backing off (overtime's digits:
    # test_tm1637.py::test_update_allocates_nothing).
    from micropython import mem_total
    rig, tm = boot("sdev", 60)
    fam = rig.app.display.outs[1].fam
    draw = fam.draw
    st = [0, 0]                            # draws, worst bytes

    def measured(f):
        a = mem_total()
        draw(f)
        b = mem_total()
        st[0] += 1
        if b - a > st[1]:
            st[1] = b - a

    fam.draw = measured
    rig.press(RIGHT)
    rig.run(3000)
    tm.mods[1].disconnect()
    rig.press(LEFT)
    rig.run(3000)
    rig.press(RIGHT)
    rig.run(3000)
    eq(tm.text()[0], "00:54", "drawn meanwhile")
    eq(st[1], 0, "bytes allocated by the worst draw")
    assert st[0] > 8, st
