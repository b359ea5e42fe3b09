"""The setup menu left in `ready` keeps the time the referee charged there
(issue 26, left open; SPEC v4 §4 Referee functions: "A base-time change
never erases time already charged"; TSO § 2.4 c: the elapsed time a referee
sets for a late player counts as lateness; docs/rules.md "Setup in ready").

The real device app on the rig, every step with the real keys: the referee
menu's adjustment in `ready`, confirmed; the setup menu opened (the pause
key held 2 s) and left (held again).  Before this, leaving the setup menu
always began a new game: the clock back to its base times and a new log,
the referee's time gone.
"""
import os

import app as appmod
import clockcore as cc
from rig import Rig, LEFT, RIGHT, PAUSE
from test_app_api import boot, referee_adjust_in_ready
from test_device import replay_matches_live

BASE = 30 * 60000       # sdev's factory base time
GIVEN = 60000           # referee_adjust_in_ready(): left +1:00


def _log(r):
    return open(os.path.join(r.root, "games", "g%04d.txt" % r.app.log.number)).read()


def _events(text):
    return [ln.split("#")[0].split()[1:] for ln in text.split("\n")
            if ln[:1].isdigit()]


def _setup(r, *keys):
    r.press(PAUSE, hold=2100)       # the setup menu (ready)
    assert r.app.mode == appmod.MODE_SETUP, r.screen()
    for k in keys:
        r.press(k)
    r.press(PAUSE, hold=2100)       # leave it (saved)
    assert r.app.mode == appmod.MODE_GAME, r.screen()


def test_setup_left_unchanged_keeps_the_referees_time_tso_2_4_c(tmp_path):
    """The setup menu opened and left without changing the rules: the same
    game goes on, the referee's adjustment made in `ready` on the clock and
    in its log (which replays to the live clock), and after a power cut."""
    r = boot(tmp_path)
    r.root = str(tmp_path) + "/"
    referee_adjust_in_ready(r)
    _setup(r)
    assert r.clock.state == cc.READY and r.clock.rem == [BASE + GIVEN, BASE], r.clock.rem
    assert _events(_log(r)) == [["adjust", "left", "+%d" % GIVEN]], _log(r)
    replay_matches_live(r, r.root)
    r2 = Rig(r.board, r.root)          # a power cut, and back
    r2.run(1600)
    assert r2.clock.rem == [BASE + GIVEN, BASE], r2.clock.rem


def test_setup_that_changes_the_rules_carries_the_charged_time_spec_v4(tmp_path):
    """The setup menu changed the rules (profile sdev -> pfs): a new game
    with them, and the time each side was charged in `ready` is charged
    again (remaining = new base - charged: SPEC v4's base-time rule), the
    new log's first line the referee's adjustment; a power cut after it
    brings back that clock."""
    r = boot(tmp_path)
    r.root = str(tmp_path) + "/"
    referee_adjust_in_ready(r)
    _setup(r, RIGHT)                    # profile sdev -> pfs
    pfs = 20 * 60000
    assert r.clock.rules.name == "pfs" and r.clock.rem == [pfs + GIVEN, pfs], r.clock.rem
    text = _log(r)
    assert text.startswith("profile pfs") and \
        _events(text) == [["adjust", "left", "+%d" % GIVEN]], text
    replay_matches_live(r, r.root)
    r2 = Rig(r.board, r.root)
    r2.root = r.root
    r2.run(1600)
    assert r2.clock.rules.name == "pfs" and r2.clock.rem == [pfs + GIVEN, pfs], r2.clock.rem
    r2.press(LEFT)                      # the game begins with it
    r2.run(3000)
    assert _events(_log(r2)) == [["adjust", "left", "+%d" % GIVEN], ["left"]], _log(r2)


def test_setup_that_changes_the_rules_keeps_the_lateness_a_lateness_spec_v5(tmp_path):
    """A lateness stopped in `ready` (right 7 s late, then the pause key)
    and a credit of 1:00 for right, then the setup menu changes the rules
    (sdev -> pfs): the new game charges again right's lateness as its
    lateness account (a `lateness` line, SPEC v5: it stays lateness, never
    an adjustment) and the credit as an adjustment; the log replays to the
    live clock, and the late clock started again goes on from +00:07."""
    import refereemenu
    import rig as rigmod
    r = boot(tmp_path)
    r.root = str(tmp_path) + "/"
    r.perform(rigmod.late(LEFT))        # right is late
    r.run(7000 - 2100)
    r.press(PAUSE)                      # right arrived: ready
    late = r.clock.late_ms[RIGHT]
    assert r.clock.state == cc.READY and late >= 7000
    r.perform(rigmod.referee())
    rigmod.menu_pick(r, refereemenu.R_R_MIN)
    r.press(RIGHT)                      # right +1:00
    r.perform(rigmod.long_press())
    r.perform(rigmod.confirm())
    _setup(r, RIGHT)                    # profile sdev -> pfs
    pfs = 20 * 60000
    c = r.clock
    assert c.rules.name == "pfs" and c.late_ms == [0, late], c.late_ms
    assert c.rem == [pfs, pfs + GIVEN - late], c.rem
    text = _log(r)
    assert _events(text) == [["lateness", "right", str(late)],
                             ["adjust", "right", "+%d" % GIVEN]], text
    replay_matches_live(r, r.root)
    r.perform(rigmod.late(LEFT))
    assert c.state == cc.LATE and c.lateness() >= late
