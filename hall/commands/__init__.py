"""The hall's commands, a module each (hall/cli.py parses the command line
and calls the action's `command(hall, args)`): run (the default), start,
stop, status, results, scores, logs, rounds (`round N`), pairings,
clock_config (`clock-config`), revoke, accept.  Each returns the exit
status and raises HallError for what the director is told in one line."""
import sys


def say(m):
    """A line for the director on stderr."""
    print("hall: " + m, file=sys.stderr)
