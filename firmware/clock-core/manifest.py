# The clock app without network code: every board gets this package.
#
# micropython-lib manifest style, laid out as micropython-lib lays out a
# split package (aioble-core, aioble-central, ...): the modules live flat in
# firmware/, as they do on the board; each package is a folder holding only
# its manifest.py, which lists its modules with base_path="..", and a package
# that needs another one says require("its-folder-name").  Packages:
#
#   clock-core  (this one)  the app: game, screens, storage, LCD, buttons
#   clock-net               require("clock-core") + the tournament hall's
#                           network modules (firmware/clock-net/manifest.py)
#
# The host reads both as data (host_sim.firmware_files): `make deploy` and
# `make bundle` copy clock-net for a board with WIFI = True (boards/pico_w.py,
# esp32.py) and clock-core for the others (a Pico without Wi-Fi carries no
# network code; the app imports net only when board.WIFI), the 32-bit test
# images hold every package, and tests/test_mpy_cross.py compiles them.  A
# frozen firmware build can use them too: add_library("clock", ".../firmware")
# and require("clock-core") or require("clock-net") in the board manifest.
# The board file is not listed: it is per build and goes onto the board's
# filesystem as board.py (source, editable in Thonny).
#
# Add a new firmware module here (or to clock-net if only the network needs
# it): tests/test_plumbing.py fails while a firmware/*.py is in no package.
metadata(description="Scrabble tournament clock: the app without network", version="3")

module("main.py", base_path="..")
module("actions.py", base_path="..")
module("app.py", base_path="..")
module("appversion.py", base_path="..")
module("bigview.py", base_path="..")
module("boardfacts.py", base_path="..")
module("buttons.py", base_path="..")
module("clockcore.py", base_path="..")
module("clocktime.py", base_path="..")
module("display.py", base_path="..")
module("errlog.py", base_path="..")
module("frame.py", base_path="..")
module("fsys.py", base_path="..")
module("game.py", base_path="..")
module("gamefiles.py", base_path="..")
module("gamelog.py", base_path="..")
module("gestures.py", base_path="..")
module("hd44780.py", base_path="..")
module("hw.py", base_path="..")
module("jflash.py", base_path="..")
module("journal.py", base_path="..")
module("lang.py", base_path="..")
module("lcd.py", base_path="..")
module("logtime.py", base_path="..")
module("marks.py", base_path="..")
module("menu.py", base_path="..")
module("outputs.py", base_path="..")
module("persist.py", base_path="..")
module("powerup.py", base_path="..")
module("profiles.py", base_path="..")
module("question.py", base_path="..")
module("refereemenu.py", base_path="..")
module("report.py", base_path="..")
module("results.py", base_path="..")
module("resultsmenu.py", base_path="..")
module("rows.py", base_path="..")
module("session.py", base_path="..")
module("settings.py", base_path="..")
module("setupmenu.py", base_path="..")
module("spool.py", base_path="..")
module("ticks.py", base_path="..")
module("tm1637.py", base_path="..")
module("view.py", base_path="..")
