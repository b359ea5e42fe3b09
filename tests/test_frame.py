"""Issue 28: screens render a display-neutral frame, display families draw it
(firmware/frame.py, display.py's family contract, hd44780.py, bigview.py;
docs/display.md)."""
import glob
import os
import re

import clockcore as cc
import display as dispmod
import frame as framemod
import hd44780
import bigview
import profiles
import lang
import view
from conftest import ROOT


def clock(name="sdev", over=None):
    return cc.Clock(profiles.make_rules(name, over or {"base": "01:00"}), 0,
                    lambda a, b: a - b, lambda a, b: a + b)


# -- the frame ------------------------------------------------------------------------

def test_the_frame_carries_what_the_game_shows():
    """Times, whose turn, the paused side, flag, penalty and LOST (TSO § 5.2),
    the challenge window: all from the clock, nothing of any display."""
    c = clock()
    f = framemod.Frame()
    c.press(cc.LEFT, 0)                     # right runs
    c.press(cc.RIGHT, 1000)                 # left runs: the window opens
    c.update(2000)
    f.fill(c)
    assert f.run == cc.LEFT and f.paused == -1 and f.state == cc.RUNNING
    assert f.rem == [59000, 59000] and f.win == c.win > 0
    c.update(1000 + 60000 + 61000)          # left 61 s over: 20 points
    c.pause(1000 + 60000 + 61000)
    f.fill(c)
    assert f.run == -1 and f.paused == cc.LEFT and f.state == cc.PAUSED
    assert f.rem[0] == -61000 and f.flag[0] == 1 and f.flag[1] == 0
    assert f.pen == [20, 0] and f.info[0] == framemod.I_NONE
    c.pause(1000 + 60000 + 61000)           # resumed at once
    c.update(1000 + 60000 + 302000)         # past 5:00 over: lost
    f.fill(c)
    assert f.info[0] == framemod.I_LOST and f.lost and f.state == cc.OVER


def test_a_flag_profile_and_a_lateness_in_the_frame():
    c = clock("pfs")
    f = framemod.Frame()
    c.press(cc.RIGHT, 0)                    # left runs to 00:00 (PFS § 6.2.1)
    c.update(61000)
    f.fill(c)
    assert f.info[0] == framemod.I_TIME and f.rem[0] == 0
    d = clock("sdev")
    d.start_late(cc.LEFT, 0)                # the left player is late (PFS § 2.4)
    d.update(5000)
    f.fill(d)
    assert f.state == cc.LATE and f.late == 5000 and f.info[cc.LEFT] == framemod.I_LATE


def test_the_frame_is_due_only_when_something_shown_changes():
    c = clock()
    f = framemod.Frame()
    assert f.due(c)
    f.fill(c)
    assert not f.due(c)
    c.press(cc.LEFT, 0)
    assert f.due(c)                         # the running side changed
    f.fill(c)
    c.update(500)
    assert not f.due(c)                     # 59.5 s left still shows 01:00
    c.update(1000)
    assert f.due(c)                         # 00:59
    f.fill(c)
    f.set_hall(2)
    assert f.due(c) and f.take() and not f.take()


def test_no_module_writes_another_objects_attributes_of_the_display():
    """Issue 28: nobody writes a frame's (or a view's) attributes except
    through its methods."""
    bad = []
    for path in glob.glob(os.path.join(ROOT, "firmware", "*.py")):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\.(frame|view)\.\w+(\[[^\]]*\])?\s*=[^=]", text):
            bad.append("%s: %s" % (os.path.basename(path), m.group(0)))
    assert bad == []


def test_questions_name_their_words_by_key():
    src = open(os.path.join(ROOT, "firmware", "question.py"), encoding="utf-8").read()
    assert "display.view" not in src and ".words" not in src


# -- the families -----------------------------------------------------------------------

class Probe:
    """A digits-only family (rows = 0), as tm1637.py is: records the frames
    it is given; fails like a bus while `broken`."""
    cols = rows = 0

    def __init__(self):
        self.drawn = []
        self.broken = False
        self.starts = 0

    def start(self):
        if self.broken:
            raise OSError(5)
        self.starts += 1

    def draw(self, f):
        if self.broken:
            raise OSError(5)
        self.drawn.append((f.seq, f.rem[0], f.rem[1], f.run))


class Board:
    I2C_ID = 0
    LCD_ADDR = 0x27
    LCD_COLS = 16
    LCD_ROWS = 2
    I2C_SDA = I2C_SCL = 0
    I2C_FREQ = 100000


def test_two_families_draw_the_same_frame_and_fail_on_their_own():
    """DISPLAY = ("hd44780", <digits>): the frame goes to both, the text rows
    (menus) to the LCD only; a family whose bus fails is retried alone
    while the other goes on drawing (issue 12's back-off, per display)."""
    import machine
    import hd44780_emu
    machine.reset_world()
    emu = hd44780_emu.attach(Board, machine)
    probe = Probe()
    fams = [hd44780.make(Board, machine), probe]
    t = [0]
    f = framemod.Frame()
    d = dispmod.Display(fams, f, 0, lambda: t[0], lambda a, b: a - b, lambda a, b: a + b)
    assert d.text.fam is fams[0] and d.cols == 16 and d.nrows == 2 and probe.starts == 1
    c = clock()
    c.press(cc.LEFT, 0)
    c.update(3000)
    f.fill(c)
    d.draw_frame()
    assert probe.drawn == [(f.seq, 60000, 57000, cc.RIGHT)]
    assert emu.text_rows()[0] == "  01:00   00:57\u25b6"
    d.draw([bytearray(b"menu".ljust(16)), bytearray(16)])
    assert emu.text_rows()[0].strip() == "menu" and len(probe.drawn) == 1
    probe.broken = True
    c.update(4000)
    f.fill(c)
    d.draw_frame()                          # the probe's bus fails ...
    assert d.down and d.outs[1].down and not d.outs[0].down and d.errors == 1
    c.update(5000)
    f.fill(c)
    d.draw_frame()                          # ... the LCD draws on
    assert "00:55" in emu.text_rows()[0]
    probe.broken = False
    t[0] = 100
    d.tick(100)                              # retried after 100 ms: back
    assert not d.down and probe.starts == 2 and f.notice == f.words["LCDBACK"]


def test_a_board_names_its_families():
    class B(Board):
        DISPLAY = ("hd44780",)
    import machine
    machine.reset_world()
    fams = dispmod.families(B, machine)
    assert [type(x).__name__ for x in fams] == ["Hd44780"]
    assert [type(x).__name__ for x in dispmod.families(Board, machine)] == ["Hd44780"]


# -- the 20x4's big digits -------------------------------------------------------------

def big(c, **kw):
    return hd44780.text_of(c, 20, 4, **kw)


def digit_cells(d):
    return tuple(bigview.FONT[d * 4 + i] for i in range(4))


def test_the_big_font_tells_every_digit_apart():
    """Ten digits, the minus and the blank: twelve different 2x2 pictures
    from eight glyphs, each glyph a different 5x8 pattern."""
    assert len({digit_cells(d) for d in range(12)}) == 12
    assert sorted(bigview.GLYPHS) == list(range(8))
    assert len(set(bigview.GLYPHS.values())) == 8
    assert all(len(p) == 8 and max(p) < 32 for p in bigview.GLYPHS.values())


def test_big_digits_times_marks_words_and_rules():
    import device_scenarios as ds
    c = clock()
    rows = big(c, hall=2)
    assert ds.big_time(rows, 0) == " 1:00" and ds.big_time(rows, 11) == " 1:00"
    assert rows[2].strip() == lang.text("en", "READY_WHO") and rows[3] == "     sdev 01:00    *"
    c.press(cc.RIGHT, 0)                   # left runs
    c.update(60000 + 65000)                # left 65 s over: a big minus
    rows = big(c)
    assert ds.big_time(rows, 0) == "-1:05" and rows[0][9] == "\u2190" == rows[1][9]
    assert rows[2].startswith("P20")
    c.pause(125000)
    rows = big(c)
    assert rows[0][9] == "\u2588" and "PAUSE" in rows[2]
    d = clock("sdev", {"base": "25:00"})
    rows = big(d)
    assert ds.big_time(rows, 0) == "25:00"


def test_ten_minutes_over_shows_four_digits():
    """Beyond the minus's room: the four digits, the penalty beside them."""
    c = clock("sdev", {"base": "00:01", "forfeit": "20:00"})
    c.press(cc.RIGHT, 0)
    c.update(1000 + 10 * 60000 + 5000)
    rows = big(c)
    import device_scenarios as ds
    assert ds.big_time(rows, 0) == "10:05" and rows[2].startswith("P110")


def test_the_20x4_menus_get_their_flag_glyph_back(tmp_path):
    """The digits' glyphs take all eight CGRAM codes; a menu shows the
    16x2 glyphs again (its flag), the game screen the digits again."""
    from host_sim.boards import load
    from rig import Rig
    import rig as gestures
    r = Rig(load("sim_2004"), str(tmp_path) + "/")
    r.run(1600)
    assert bytes(r.lcd.cgram_pattern(2)) == bigview.GLYPHS[2]
    r.perform(gestures.referee())
    assert r.app.mode == 3
    assert bytes(r.lcd.cgram_pattern(2)) == view.GLYPHS[view.G_FLAG]
    r.press(gestures.PAUSE, hold=2100)     # leave the menu
    assert r.app.mode == 1
    assert all(bytes(r.lcd.cgram_pattern(k)) == bigview.GLYPHS[k] for k in range(8))


def test_the_simulator_draws_other_families_from_their_emulators(tmp_path):
    """A family's emulator with face_lines() is drawn under the LCD by the
    terminal simulator, which needs no change for a new family."""
    from host_sim import sim

    class Digits:
        def face_lines(self):
            return ["12:34   56:07"]

    s = sim.Sim(sim.load_board("sim"), str(tmp_path) + "/")
    assert s.face_lines() == []
    s.rig.emus["digits"] = Digits()
    assert s.face_lines() == ["12:34   56:07"]
