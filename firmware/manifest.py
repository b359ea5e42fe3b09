# The modules that make the clock app: the one list of them.
#
# micropython-lib manifest style.  The host reads it as data
# (host_sim.firmware_files): `make deploy` and `make bundle` copy exactly
# these (tools/deploy.py), the 32-bit test images hold them
# (host_sim/target.py), and tests/test_mpy_cross.py compiles them.  A frozen
# firmware build can include() this file from its board manifest as well;
# the board file is not listed: it is per build and goes onto the board's
# filesystem as board.py (source, editable in Thonny).
#
# Add a new firmware module here: tests/test_plumbing.py fails while a
# firmware/*.py is missing from this list.
metadata(description="Scrabble tournament clock", version="2")

module("main.py")
module("app.py")
module("buttons.py")
module("clockcore.py")
module("display.py")
module("errlog.py")
module("fsys.py")
module("game.py")
module("gamelog.py")
module("gestures.py")
module("hw.py")
module("journal.py")
module("lang.py")
module("lcd.py")
module("menu.py")
module("net.py")
module("outputs.py")
module("persist.py")
module("profiles.py")
module("question.py")
module("report.py")
module("results.py")
module("rows.py")
module("session.py")
module("settings.py")
module("ticks.py")
module("view.py")
