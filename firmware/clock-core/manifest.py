# The clock app without network code: every board gets this package.
#
# micropython-lib manifest style, laid out as micropython-lib lays out a
# split package (aioble-core, aioble-central, ...): the modules live flat in
# firmware/, as they do on the board; each package is a folder holding only
# its manifest.py, which lists its modules with base_path="..", and a package
# that needs another one says require("its-folder-name").  Packages:
#
#   clock-core  (this one)  the app: game, screens, storage, buttons
#   clock-net               require("clock-core") + the tournament hall's
#                           network modules (firmware/clock-net/manifest.py)
#
# No display family driver is listed (hd44780.py, tm1637.py, ...): the board
# decides.  A board gets its package's modules plus the families its DISPLAY
# names (host_sim.board_files(board), docs/display.md "Adding a family").
# The host reads both manifests as data: `make deploy`, `make bundle` and
# `make firmware` take clock-net for a board with WIFI = True
# (boards/pico_w.py, esp32.py) and clock-core for the others (a Pico without
# Wi-Fi carries no network code; the app imports net only when board.WIFI),
# each with the board's families; the 32-bit test images and
# tests/test_mpy_cross.py take every package and every family some board in
# boards/ names (host_sim.firmware_files()).  The board file is not listed:
# it is per build and goes onto the board as board.py (source, editable in
# Thonny).
#
# Add a new firmware module here (or to clock-net if only the network needs
# it); a new display family goes in no manifest, a board file names it.
# tests/test_plumbing.py fails while a firmware/*.py is in no package and
# is no family a board names.
metadata(description="Scrabble tournament clock: the app without network", version="4")

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
module("hw.py", base_path="..")
module("jflash.py", base_path="..")
module("journal.py", base_path="..")
module("lang.py", base_path="..")
module("lcd.py", base_path="..")
module("logtime.py", base_path="..")
module("marks.py", base_path="..")
module("menu.py", base_path="..")
module("nap.py", base_path="..")
module("outputs.py", base_path="..")
module("persist.py", base_path="..")
module("powerup.py", base_path="..")
module("profiles.py", base_path="..")
module("provision.py", base_path="..")
module("question.py", base_path="..")
module("refereemenu.py", base_path="..")
module("report.py", base_path="..")
module("results.py", base_path="..")
module("resultsmenu.py", base_path="..")
module("rows.py", base_path="..")
module("selftest.py", base_path="..")
module("session.py", base_path="..")
module("settings.py", base_path="..")
module("setupmenu.py", base_path="..")
module("spool.py", base_path="..")
module("ticks.py", base_path="..")
module("view.py", base_path="..")
