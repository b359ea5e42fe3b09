"""The App's public API for the host tools (issue 13 point 1): a new game
with given rules in one call, and the game screen without the boot screen;
the simulator uses only these.  Played on the real app through the Rig."""
import os

import clockcore as cc
import refereemenu
import profiles
import lang
import rig as gestures
from rig import Rig, LEFT, RIGHT, PAUSE
from host_sim import replay, sim
from host_sim.boards import load as load_board  # the one board loader


def boot(tmp_path, board="sim", splash=True):
    r = Rig(load_board(board), str(tmp_path) + "/")
    if splash:
        r.run(1600)
    return r


def referee_adjust_in_ready(r):
    """The referee gives left a minute before the start (SPEC §4 Referee);
    leaving the menu asks first, both player buttons held 1 s confirm (SPEC
    v3 §4 Gestures: a time adjustment acts as a whole, confirmed)."""
    r.perform(gestures.referee())
    assert r.app.mode == 3, r.screen()
    for _ in range(12):
        if r.app.menu.item == refereemenu.R_L_MIN:
            break
        r.press(PAUSE)
    r.press(RIGHT)                # left +1:00 (pending)
    r.press(PAUSE, hold=2100)     # leave the menu: "Apply new times?"
    assert r.app.mode == 3 and r.clock.rem[LEFT] == 30 * 60000, r.clock.rem
    r.perform(gestures.confirm())
    assert r.app.mode == 1 and r.clock.rem[LEFT] == 31 * 60000, r.clock.rem


def test_new_game_with_rules_sets_clock_header_and_forgets_the_old_game(tmp_path):
    r = boot(tmp_path, "sim_2004")
    r.press(LEFT)
    r.run(5000)
    assert r.app.session.on and r.app.store.load() is not None
    rules = profiles.make_rules("pfs", [("base", "12:00")])
    r.app.new_game(r.now, rules)
    r.run(100)
    assert r.clock.state == cc.READY and r.clock.rules is rules
    assert r.clock.rem == [12 * 60000, 12 * 60000]
    assert r.screen()[3].strip() == "pfs 12:00"      # the 20x4's rules row
    assert not r.app.session.on and r.app.store.load() is None  # nothing to restore
    r.app.new_game(r.now)                            # the settings' rules
    r.run(100)
    assert r.clock.rules.name == "sdev" and r.screen()[3].strip() == "sdev 30:00"


def test_show_game_skips_the_boot_screen_and_its_notices(tmp_path):
    (tmp_path / "settings.json").write_bytes(b"{not json")   # "Settings reset"
    r = boot(tmp_path, splash=False)
    assert r.screen()[0].strip() == "Scrabble clock"
    r.app.show_game(r.now)
    r.run(10)
    # READY and who presses to start (issue 37): columns 0-14, the last the hall mark's
    assert r.screen() == ["  30:00   30:00 ", lang.text("en", "READY_WHO").center(15) + " "], \
        r.screen()


def test_the_simulator_replays_through_the_public_api(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("profile pfs\nset base=05:00\n0 left\n65000 right\n")
    game = replay.load(str(path))
    s = sim.Sim(load_board("sim"), str(tmp_path) + "/", game=game)
    assert s.app.clock.rules.base == [5 * 60000, 5 * 60000]
    s.rig.run(10)                    # one loop: the game screen, no splash
    assert s.app.mode == 1 and s.app.frame.notice is None
    assert s.rig.screen()[1].strip() == lang.text("en", "READY_WHO"), s.rig.screen()
