"""What the two command lines share (python -m host_sim, python -m hall;
the console scripts scrabble-clock-sim and scrabble-hall of pyproject.toml):
the command's name in its usage lines, one-line usage errors, and a quiet
end on a closed output pipe."""
import argparse
import os
import sys


def prog(package):
    """The command's name for its usage lines: a console script's as typed
    (scrabble-hall, scrabble-clock-sim), else `python -m <package>`."""
    me = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return me if me.startswith("scrabble-") else "python -m " + package


class Parser(argparse.ArgumentParser):
    """A usage error is one line (exit 2), not the usage text and then it."""

    def error(self, message):
        self.exit(2, "%s: error: %s (see --help)\n" % (self.prog, message))


def quiet_pipe(command, *args):
    """command(*args)'s status; a closed output pipe (`... | head -c1`) ends
    it quietly, with status 1 and no traceback."""
    try:
        status = command(*args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Python would report the pipe again while flushing stdout at exit:
        # point stdout at the null device first.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
