"""The director's page when a referee renumbers a clock in its setup menu
(issue 14, 2; docs/hall.md "Which table"): the old table's row goes (the
clock emptied its retained state there) and the clock shows under its new
table, live, in a real headless Chromium against the real Mosquitto."""
import time

from hallkit import needs_browser, new_hall, page_until
from hall.rehearsal import clocks as rehearsal
from test_hall_page import browser, ROWS_JS  # noqa: F401  (the fixture)

pytestmark = needs_browser


def rows_until(browser, cond):
    return page_until(browser, ROWS_JS, cond)


def test_a_renumbered_clock_leaves_no_ghost_row(tmp_path, browser):
    h = new_hall(tmp_path, tables=4)
    h.start()
    fleet = rehearsal.Fleet(h, 2, speed=1, scripts={1: [], 2: []})
    try:
        lock = fleet.background(0.005)
        browser.get(h.url())
        rows = rows_until(browser, lambda r: {"1", "2"} <= set(k for k in r if not r[k][3]))
        assert {"1", "2"} <= set(k for k in rows if not rows[k][3]), rows
        c = fleet.clocks[0]
        with lock:
            c.rig.app.settings.table = 3      # the referee's setup menu ...
            c.rig.app.leave_setup(c.rig.now)  # ... left: from the next game on
        rows = rows_until(browser, lambda r: "1" not in r and "3" in r and not r["3"][3])
        assert "1" not in rows, "a ghost row for the old table: %r" % rows
        assert "3" in rows and not rows["3"][3] and "2" in rows, rows
        # a fresh page shows the same: nothing retained under table 1
        browser.refresh()
        rows = rows_until(browser, lambda r: "3" in r and "2" in r)
        time.sleep(1)
        rows = browser.execute_script(ROWS_JS)
        assert "1" not in rows and "3" in rows, rows
    finally:
        fleet.close()
        h.stop()
