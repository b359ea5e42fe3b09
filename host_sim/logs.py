"""Copy the game logs off a clock and summarize them (SPEC §4 "Game log").

    python -m host_sim logs [--port PORT] [--dest DIR] [--dry-run] [--no-reset]

runs one mpremote command:

    mpremote connect PORT fs cp -r :games DIR/.incoming + reset

then moves DIR/.incoming/gNNNN.txt to DIR/ and prints one line per game with
its final state (host_sim.replay on the log).  Connecting stops the clock's
program; `reset` restarts it, and a game in progress comes back paused as
after a power cut (the state is checkpointed every 5 s of running time).

A log whose last line has no newline was cut by a power failure while that
line was written: `read_log()` keeps the line if its event is complete (the
clock writes the comment after the event) and drops it otherwise.
"""
import os
import shlex
import shutil
import subprocess
import sys

from host_sim import replay

EXIT_NO_BOARD = 2
STAGING = ".incoming"

# mpremote's words for "there is no board there" (as tools/deploy.py).
NO_BOARD = ("no device found", "failed to access", "no device with serial number",
            "could not enter raw repl", "could not open", "could not connect")


class LogsError(Exception):
    def __init__(self, message, status=1):
        Exception.__init__(self, message)
        self.status = status


def game_number(name):
    if name.startswith("g") and name.endswith(".txt") and name[1:-4].isdigit() \
            and name[1:-4].isascii():
        return int(name[1:-4])
    return 0


# -- reading a log ---------------------------------------------------------------

class Log:
    """A parsed game log: the replay Game plus what the reader noticed."""

    def __init__(self, game, torn, restored, last_ms):
        self.game = game
        self.torn = torn          # the text of a dropped torn last line, or None
        self.restored = restored  # how many times the game came back after a power cut
        self.last_ms = last_ms    # the latest time in the log, events or notes


def read_log(path):
    """Parse a game log from the clock; raises replay.ReplayError / OSError."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise replay.ReplayError(data.count(b"\n", 0, e.start) + 1,
                                 "not a text file (UTF-8): byte 0x%02x" % data[e.start])
    lines = text.split("\n")
    torn = None
    if lines[-1] != "":
        # Every line the clock writes ends with "\n": this one was cut.  Its
        # event is complete if the comment after it had begun.
        if "#" not in lines[-1]:
            torn = lines.pop()
    restored = sum(1 for l in lines if "# power restored" in l)
    game = replay.parse(lines)
    last = game.events[-1].t if game.events else 0
    for line in lines:
        # the clock's notes of time-triggered events: "# 463610 flag right"
        words = line.split()
        if len(words) >= 3 and words[0] == "#" and words[1].isdigit() and words[1].isascii():
            last = max(last, int(words[1]))
    return Log(game, torn, restored, last)


def final_state(log):
    """The replay's state report at the log's latest time (a flag or
    forfeit noted after the last event included)."""
    clock, at = replay.run(log.game, log.last_ms)
    return replay.report(clock, at)


def _side(rep, name):
    r = rep[name]
    if r["overtime_ms"]:
        t = "-" + replay.profiles.fmt_mmss(r["overtime_ms"])
    else:
        t = replay.profiles.fmt_mmss(r["remaining_ms"] + 999)
    extra = ""
    if r["penalty"]:
        extra += " P%d" % r["penalty"]
    if r["forfeit"]:
        extra += " LOST"
    elif r["flag"]:
        extra += " flag"
    return "%s %s%s" % (name[0].upper(), t, extra)


def describe(path):
    """One line: name, profile, state at the end, both sides, notes."""
    name = os.path.basename(path)
    try:
        log = read_log(path)
    except OSError as e:
        return "%s  cannot read: %s" % (name, e.strerror or e)
    except replay.ReplayError as e:
        return "%s  unreadable: line %d: %s" % (name, e.line, e.message)
    rep = final_state(log)
    state = replay.state_word(rep)
    notes = []
    if log.restored:
        notes.append("power restored x%d" % log.restored)
    if log.torn is not None:
        notes.append("torn last line dropped")
    moves = sum(1 for e in log.game.events if e.kind in ("left", "right"))
    line = "%-10s %-6s %-16s %-18s %-18s %3d presses" % (
        name, rep["profile"], state + " " + _clock_time(rep["t_ms"]),
        _side(rep, "left"), _side(rep, "right"), moves)
    if notes:
        line += "  (" + "; ".join(notes) + ")"
    return line


def _clock_time(ms):
    """Game time as h:mm:ss (a game with pauses can pass the hour)."""
    s = ms // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


# -- mpremote ----------------------------------------------------------------------

def find_mpremote(override=None):
    if override:
        return override
    found = shutil.which("mpremote")
    if found:
        return found
    cand = os.path.join(os.path.dirname(sys.executable), "mpremote")
    if os.path.exists(cand):
        return cand
    raise LogsError("mpremote not found: run `make venv` (or pip install mpremote)", 2)


def fetch_command(port, dest, reset=True):
    argv = ["connect", port or "auto", "fs", "cp", "-r", ":games",
            os.path.join(dest, STAGING)]
    if reset:
        argv += ["+", "reset"]
    return argv


def where(port):
    return port if port else "any USB serial port"


def fetch(port=None, dest="clock-games", mpremote=None, dry_run=False, reset=True,
          out=print):
    """Copy games/*.txt off the clock into dest; returns the copied paths."""
    argv = fetch_command(port, dest, reset)
    if dry_run:
        out(shlex.join(["mpremote"] + argv))
        return []
    exe = find_mpremote(mpremote)
    staging = os.path.join(dest, STAGING)
    os.makedirs(dest, exist_ok=True)
    if os.path.exists(staging):
        shutil.rmtree(staging)
    try:
        proc = subprocess.run([exe] + argv, capture_output=True, text=True, timeout=300)
    except OSError as e:
        raise LogsError("cannot run %s: %s" % (exe, e), 2)
    except subprocess.TimeoutExpired:
        raise LogsError("mpremote did not finish copying from %s in 5 minutes" % where(port))
    if proc.returncode != 0:
        # mpremote echoes what it does on stdout and reports on stderr
        lines = [l.strip() for l in proc.stderr.splitlines() if l.strip()] or \
            [l.strip() for l in proc.stdout.splitlines() if l.strip()]
        last = lines[-1] if lines else "exit status %d" % proc.returncode
        if last.startswith("mpremote: "):
            last = last[len("mpremote: "):]
        low = last.lower()
        if any(k in low for k in NO_BOARD):
            raise LogsError("no MicroPython board found on %s; plug the clock in, or "
                            "give --port [mpremote: %s]" % (where(port), last), EXIT_NO_BOARD)
        if low.startswith("cp:") and "no such file" in low:
            raise LogsError("the clock on %s has no games/ folder: no game logged yet"
                            % where(port))
        raise LogsError("mpremote failed copying from %s: %s" % (where(port), last))
    copied = []
    names = os.listdir(staging) if os.path.isdir(staging) else []
    for name in sorted(names, key=game_number):
        if game_number(name):
            target = os.path.join(dest, name)
            os.replace(os.path.join(staging, name), target)
            copied.append(target)
    shutil.rmtree(staging, ignore_errors=True)
    return copied


def main(port=None, dest="clock-games", dry_run=False, reset=True, mpremote=None,
         out=print, err=None):
    """The `logs` command; returns the exit status."""
    err = err or (lambda msg: print(msg, file=sys.stderr))
    try:
        paths = fetch(port, dest, mpremote, dry_run, reset, out)
    except LogsError as e:
        err("logs: %s" % e)
        return e.status
    except KeyboardInterrupt:
        err("logs: interrupted")
        return 130
    if dry_run:
        return 0
    if not paths:
        out("no game logs on the clock")
        return 0
    out("%d game log%s copied to %s" % (len(paths), "" if len(paths) == 1 else "s", dest))
    for p in paths:
        out(describe(p))
    return 0
