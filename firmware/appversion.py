# The app's version, as the splash and every game log's header show it.
#
# VERSION is the release; COMMIT the app's git commit, from buildinfo.py,
# which the build writes (tools/fwimage.py freezes it into the image,
# tools/deploy.py copies it with the .mpy files; "+" after the hash: built
# from a changed checkout).  Without buildinfo (the simulator, the tests)
# COMMIT is "".  LABEL is what a 16-column splash has room for: the commit
# if known (an organizer compares it across the hall's clocks), else the
# release.
VERSION = "1.0.0"
try:
    from buildinfo import COMMIT
except ImportError:
    COMMIT = ""
LABEL = COMMIT if COMMIT else "v" + VERSION
# the game log's header line (firmware/gamelog.py): only a built app has
# one (the simulator's and the tests' logs have none)
LOG_LINE = "# firmware %s %s\n" % (VERSION, COMMIT) if COMMIT else ""
