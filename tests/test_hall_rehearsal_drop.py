"""A rehearsal's silent table (issue 37: "a rehearsal cannot take one clock
offline to show what a silent table looks like"): `hall drop 2` takes the
simulated clock at table 2 off the network (its Wi-Fi gone: the broker sends
its last will) and `hall restore 2` brings it back, typed as the director
types them while the rehearsal runs; the director's page (real headless
Chromium, the real Mosquitto and recorder) shows the row offline and the
silent alert, then the clock back with its game.  The commands refuse what
cannot be in one line."""
import os

import pytest

from hallkit import hall_cmd, needs_broker, needs_browser, new_hall, page_until
from hall.rehearsal import clocks as rehearsal
from rig import LEFT
from test_hall_page import browser, ROWS_JS  # noqa: F401  (the fixture)

pytestmark = needs_broker


@pytest.mark.parametrize("args, words", [
    (("drop",), "one table number"),
    (("drop", "x"), "one table number"),
    (("restore", "\uff17"), "one table number"),      # a fullwidth 7 is no table
    (("drop", "2", "3"), "one table number"),
    (("drop", "7"), "no rehearsal"),
])
def test_drop_and_restore_refuse_in_one_line(tmp_path, args, words):
    proc = hall_cmd(str(tmp_path / "hall"), *args)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert words in proc.stderr, proc.stderr
    assert not os.path.exists(tmp_path / "hall" / rehearsal.SIM_CLOCKS)


@needs_browser
def test_a_dropped_table_shows_silent_then_back(tmp_path, browser):
    h = new_hall(tmp_path, tables=4)
    h.start()
    said = []
    # the rehearsal's clocks in the hall folder, as `hall --clocks 2` has them;
    # long games, so both still run while the table is away
    fleet = rehearsal.Fleet(h, 2, speed=1, base_s=600,
                            folder=os.path.join(h.folder, rehearsal.SIM_CLOCKS),
                            scripts={1: [(1500, LEFT, 80)], 2: [(1500, LEFT, 80)]})
    fleet.rehearse(said.append)
    try:
        browser.get(h.url())
        rows = page_until(browser, ROWS_JS, lambda r: {"1", "2"} <= set(r) and
                          all("running" in r[k][2] for k in ("1", "2")))
        assert "running" in rows["2"][2], rows
        other = hall_cmd(h.folder, "drop", "3")
        assert other.returncode == 2 and "no clock at table 3 (tables 1-2)" in other.stderr
        proc = hall_cmd(h.folder, "drop", "2")
        assert proc.returncode == 0 and "table 2" in proc.stdout, proc.stderr
        assert hall_cmd(h.folder, "drop", "2").stdout.strip().endswith("off the network already")
        rows = page_until(browser, ROWS_JS, lambda r: "offline" in r["2"][2])
        assert "offline" in rows["2"][2] and "running" in rows["1"][2], rows
        alert = page_until(browser, "return Array.prototype.map.call("
                           "document.querySelectorAll('#alertlist li'), function (li) {"
                           " return li.className + ' ' + li.textContent; })",
                           lambda a: any("alert-silent table 2 " in x for x in a))
        assert any("alert-silent table 2 " in x for x in alert), alert
        assert fleet.clocks[1].rig.clock.state == 1        # the clock played on meanwhile
        proc = hall_cmd(h.folder, "restore", "2")
        assert proc.returncode == 0 and "back" in proc.stdout, proc.stderr
        rows = page_until(browser, ROWS_JS, lambda r: "offline" not in r["2"][2] and
                          "running" in r["2"][2])
        assert "running" in rows["2"][2] and "offline" not in rows["2"][2], rows
        assert any("table 2's simulated clock is off the network" in m for m in said), said
        assert any("table 2's simulated clock is back on the network" in m for m in said), said
    finally:
        fleet.close()
        h.stop()
