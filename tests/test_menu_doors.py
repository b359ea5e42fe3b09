"""Issue 28, "one path each", for the menus: the settings are data only (the
hall's state reaches the setup menu through the door between the clock and
the hall, firmware/source.py, never through settings.json's object), and a
profile is one entry in firmware/profiles.py whose stable code, not a place
in a list, is what a saved game keeps (docs/architecture.md, "Menus and
settings")."""
from hall.rehearsal.clocks import attach
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


# -- a profile in one place ----------------------------------------------------------------
# A custom game (15:00 / 17:00, flag at 00:00, a 5 s window), right's clock
# paused at 15:57, as the firmware before profile codes saved it
# (persist.py record, clock.state.b): the profile was its index in
# ("sdev", "pfs", "custom"), 2 at snapshot int [18].
TODAYS_CUSTOM_RECORD = bytes.fromhex(
    "53436c6b02136c000100000002000000020000000000000018a80d00489a0e0000000000a0bb0d00"
    "00000000701101000000000000000000a0bb0d0060900f000100000000000000ffffffff88130000"
    "ffffffff0200000039300000430000000300000000000000aa3987db")

ADDED = '''    ("absp", {"code": 3, "label": "ABSP",
              "base": 25 * 60000, "zero": ZERO_OVERTIME, "penalty": 10,
              "forfeit": -1, "window": 0, "late": LATE_NONE}),
'''


def restored(record):
    """The clock a saved record restores (the session's path: persist.py,
    then Clock.restore)."""
    import clockcore as cc
    import persist
    import profiles
    fs = FakeFlash({"clock.state.b": record})
    # (as the session opens it: this firmware's snapshot, or the SPEC v4
    # firmware's 19 ints)
    got = persist.StateStore(fs, "clock.state", cc.SNAPSHOT_LEN, cc.SNAPSHOT_LEN_V2).load()
    assert got is not None
    c = cc.Clock(profiles.make_rules("sdev"), 0)
    c.restore(got[0], 100)
    return c


def test_a_saved_game_from_before_profile_codes_keeps_its_profile():
    """SPEC §4 Power loss: the game comes back as it was, rules included:
    the bytes the firmware wrote before profiles had codes restore the
    custom game (codes 0-2 are the old places)."""
    import profiles
    c = restored(TODAYS_CUSTOM_RECORD)
    r = c.rules
    assert r.name == "custom" and r.base == [900000, 1020000]
    assert (r.zero, r.window) == (profiles.ZERO_FLAG, 5000)
    assert c.state == 2 and c.side == 0 and c.rem == [895000, 957000]   # paused
    # a version 2 snapshot (before the lateness accounts, SPEC v5): a game
    # already begun has no lateness account; its header's base is its base
    assert c.late_ms == [0, 0] and c.start_rules().base == [900000, 1020000]
    assert [profiles.code_of(n) for n in ("sdev", "pfs", "custom")] == [0, 1, 2]


def test_profile_codes_are_unique_and_labels_fit_the_menu():
    """A saved game names its profile by code, so no two share one; each
    label fits the menu's value field (12 columns) in LCD codes the A00 ROM
    shows (tests/test_lang.py's rule for every word)."""
    import lang
    import profiles
    codes = [profiles.PROFILES[n]["code"] for n in profiles.NAMES]
    assert len(set(codes)) == len(codes) and all(type(c) is int and c >= 0 for c in codes)
    assert set(profiles.NAMES) == set(profiles.PROFILES)
    for n in profiles.NAMES:
        label = profiles.PROFILES[n]["label"]
        assert (label is None) == (n == "custom"), n
        if label is not None:
            code = lang.encode(label)
            assert 0 < len(code) <= lang.VALUE and all(0x20 <= b < 0x7E for b in code)
        assert profiles.name_of(profiles.code_of(n)) == n


def test_adding_a_profile_is_one_entry_and_breaks_no_saved_game(tmp_path):
    """Issue 28: a profile is added in one place.  A copy of the firmware
    with one entry added to profiles.py (before custom, the place that moved
    custom's index before codes) offers it in the setup menu under its
    label, keeps it in settings.json, restores a game of it, and still
    restores the custom game saved before (TODAYS_CUSTOM_RECORD) as custom."""
    import os
    import shutil
    import subprocess
    import sys
    from conftest import FAKEHW, FIRMWARE, ROOT
    fw = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, fw)
    src = (fw / "profiles.py").read_text(encoding="utf-8")
    at = src.index('    ("custom", {')
    at = src.rindex("\n    # Anything an organizer sets", 0, at) + 1
    (fw / "profiles.py").write_text(src[:at] + ADDED + src[at:], encoding="utf-8")
    script = r'''
import clockcore as cc, menu, profiles, settings, setupmenu, view
from test_menu_doors import TODAYS_CUSTOM_RECORD, restored
assert profiles.NAMES == ("sdev", "pfs", "absp", "custom"), profiles.NAMES
s = settings.Settings()
m = setupmenu.SetupMenu(s)
seen = []
for _ in range(4):
    rows = [bytearray(16), bytearray(16)]
    m.render(rows)
    seen.append((s.profile, view.to_text(rows[1]).strip("<> "), s.base_left))
    m.handle(menu.A_RIGHT)
assert seen == [("sdev", "SDeV (TSO)", 1800000), ("pfs", "PFS", 1200000),
                ("absp", "ABSP", 1500000), ("custom", "Custom", 1200000)], seen
s.set_profile("absp")
assert s.problem_with() is None, s.problem_with()
assert s.save("settings.json"), s.problem      # (in the test's own folder)
t = settings.Settings.load("settings.json")
assert t.profile == "absp" and not t.notice and t.rules().penalty == 10
c = cc.Clock(t.rules(), 0)
c.press(0, 1000)
back = cc.Clock(profiles.make_rules("sdev"), 0)
back.restore(list(c.snapshot()), 5000)
assert back.rules.name == "absp" and back.rules.base == [1500000, 1500000]
assert restored(TODAYS_CUSTOM_RECORD).rules.name == "custom"
print("ok")
'''
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(fw), FAKEHW, ROOT, os.path.join(ROOT, "tests"),
                                         os.path.join(ROOT, "tests", "mp")])
    proc = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stdout + proc.stderr
