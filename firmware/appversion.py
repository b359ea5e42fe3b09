# The app's version, as the splash, the setup menu's "Version" item and
# every game log's header show it.
#
# VERSION is the release; COMMIT the app's git commit, from buildinfo.py,
# which the build writes (tools/fwimage.py freezes it into the image,
# tools/deploy.py copies it with the .mpy files; "+" after the hash: built
# from a changed checkout).  Without buildinfo (the simulator, the tests)
# COMMIT is "".  LABEL is what a 16-column splash has room for: the commit
# if known (an organizer compares it across the hall's clocks), else the
# release.  RUNTIME names the interpreter the app runs on, from
# sys.implementation (the same release os.uname() gives on a board):
# "MicroPy 1.28.0" on a clock and under the unix port, "CPython 3.11.2"
# in the simulator.
import sys

VERSION = "1.0.0"
try:
    from buildinfo import COMMIT
except ImportError:
    COMMIT = ""
LABEL = COMMIT if COMMIT else "v" + VERSION
NO_COMMIT = "dev"   # the log's word for an app run from the sources (no build)
# The game log's header line (firmware/gamelog.py), in every game's log:
# `# firmware 1.0.0 <commit>`, `# firmware 1.0.0 dev` without a build.
LOG_LINE = "# firmware %s %s\n" % (VERSION, COMMIT or NO_COMMIT)
_NAMES = {"micropython": "MicroPy", "cpython": "CPython"}


def runtime(impl=None):
    """The interpreter and its release, at most 16 columns: "MicroPy
    1.28.0" (a pre-release's tag, "preview", has no room)."""
    impl = impl or sys.implementation
    v = impl.version
    return ("%s %d.%d.%d" % (_NAMES.get(impl.name, impl.name), v[0], v[1], v[2]))[:16]


RUNTIME = runtime()
