"""Issue 28, "one path each", for the menus: the settings are data only (the
hall's state reaches the setup menu through the door between the clock and
the hall, firmware/source.py, never through settings.json's object), and a
profile is one entry in firmware/profiles.py whose stable code, not a place
in a list, is what a saved game keeps (docs/architecture.md, "Menus and
settings")."""
from host_sim.hall_sim import attach
from host_sim.sim import load_board
from rig import Rig, LEFT, RIGHT, PAUSE, long_press
from test_power_loss import FakeFlash

import net
import settings as st
import setupmenu

CFG = {"host": "127.0.0.1", "port": 1, "event": "cup", "table": 5, "password": "pw"}
SETTINGS = (b'{"v": 1, "profile": "sdev", "base_left": 60000, "base_right": 60000, '
            b'"lang": "en", "sound": false}')
HALL_WORDS = {net.HALL_DOWN: "no hall", net.HALL_WAIT: "connecting",
              net.HALL_UP: "connected"}


def hall_clock():
    """A simulated clock with the real net.py attached as on a Wi-Fi board
    (port 1: it never connects), net.json's table 5, no menu table."""
    rig = Rig(load_board("sim"), "", fs=FakeFlash({"settings.json": SETTINGS}, dirs={"games"}))
    attach(rig.app, CFG, "t005")
    rig.run(500)
    return rig


def to_item(rig, item):
    """In the setup menu: short pause presses until `item` shows."""
    for _ in range(20):
        if rig.app.menu.item == item:
            return rig.screen()
        rig.press(PAUSE)
    raise AssertionError("no item %d in %r" % (item, rig.app.menu.items()))


def test_the_settings_hold_nothing_of_the_hall():
    """The settings object is what settings.json holds (and where it is
    saved): no part of the network hangs on it."""
    rig = hall_clock()
    app = rig.app
    assert app.net is not None and app.source is app.net.src
    kept = vars(app.settings).values()
    assert not [v for v in kept if v is app.net or v is app.source]
    assert not hasattr(app.settings, "hall") and not hasattr(st.Settings(), "log_table")


def test_the_setup_menu_reads_the_hall_through_the_source_door():
    """docs/hall.md "The clock's side": the setup menu's Hall item shows the
    hall's state and the table the clock publishes under now; a new table in
    the menu takes effect when the menu is left (the game log's header
    carries it from then on)."""
    rig = hall_clock()
    app = rig.app
    rig.perform(long_press())                 # ready: the setup menu
    assert app.mode == 2
    rows = to_item(rig, setupmenu.S_HALL)
    assert rows[0] == "Hall, table    5", rows
    assert rows[1].strip() == HALL_WORDS[app.source.hall()], rows
    assert app.log_table() == 5               # net.json's table, no menu table
    to_item(rig, setupmenu.S_TABLE)
    rig.press(RIGHT)
    rig.press(RIGHT)
    rig.press(LEFT)
    assert to_item(rig, setupmenu.S_TABLE)[1] == "<      1       >"
    assert to_item(rig, setupmenu.S_HALL)[0] == "Hall, table    5"   # not yet
    rig.perform(long_press())                 # saved, a new game, retabled
    assert app.mode == 1 and app.net.table == 1
    rig.perform(long_press())
    assert to_item(rig, setupmenu.S_HALL)[0] == "Hall, table    1"
    assert app.log_table() == 1
