"""Copy the game logs off a clock and summarize them (SPEC §4 "Game log").

    python -m host_sim logs [--port PORT] [--dest DIR] [--dry-run] [--restart]

runs one mpremote command:

    mpremote connect PORT fs cp -r :games DIR/.incoming [+ reset]

into DIR/.incoming/games/ (DIR/.incoming is made first: mpremote 1.28's
`cp -r :games X` into an X that does not exist fails with "cp: -r not
specified; omitting directory" when games/ has no sub-folder, as on every
clock; tests/test_logs_pico.py), then files each gNNNN.txt under its clock,
DIR/<clock id>/
gNNNN.txt (the id from the log's `# clock` header line; a log without one
goes to DIR/no-clock-id/), and prints one line per game with its final state
(host_sim.replay on the log).  Every clock numbers its games from g0001, so
the logs of a tournament's clocks can be pulled into one DIR and nothing is
overwritten: a file already there is replaced only by a longer copy of the
same game (pulled again later); a different game of the same number is kept
beside it as gNNNN-2.txt.

A bad DIR (a file, not writable), a `.incoming` that is not our folder, or
a folder in the way of a log is one line on stderr and exit status 2.  Connecting stops the clock's
program.  It is restarted only when asked (--restart, issue 27: a referee
copying the logs in a dispute decides when the clock runs again): then a
game in progress comes back paused as after a power cut (the state is
checkpointed every 4 s of running time, firmware/session.py CHECKPOINT_MS);
without it the clock stays stopped at its prompt (the last line says so)
until it is switched off and on.

A log whose last line has no newline was cut by a power failure while that
line was written: `read_log()` keeps the line if its event is complete (the
clock writes the comment after the event) and drops it otherwise.
"""
import os
import shlex
import shutil
import sys

from host_sim import replay
from host_sim import usb

EXIT_NO_BOARD = usb.EXIT_NO_BOARD
EXIT_BAD_DEST = 2
STAGING = ".incoming"
NO_ID = "no-clock-id"   # the folder for logs written before clocks had ids
HEAD_BYTES = 4096       # the `# clock` line is in the header, near the top



class LogsError(usb.UsbError):
    """One line for the user; the exit status rides along."""


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
    lines = replay.read_lines(path)
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
        # the clock's notes of time-triggered events: "# 463610 flag right";
        # a number no game reaches (replay.MAX_MS, of any length) is a
        # person's note, not the clock's
        words = line.split()
        if len(words) >= 3 and words[0] == "#":
            t = replay.ms_or_none(words[1])
            if t is not None and t > last:
                last = t
    return Log(game, torn, restored, last)


def final_state(log):
    """The replay's state report at the log's latest time (a flag or
    forfeit noted after the last event included)."""
    clock, at = replay.run(log.game, log.last_ms)
    return replay.report(clock, at, language=log.game.lang)


def _side(rep, name):
    r = rep[name]
    t = replay.shown_time(r)
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
    moves = sum(1 for e in log.game.events if e.kind in replay.PRESSES)
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


# -- filing the logs per clock ---------------------------------------------------

def clock_of(path):
    """(clock id, table) from a log's `# clock <hex> [table N]` header line;
    (None, 0) if it has none (or one that is not an id we wrote)."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    for raw in head.split(b"\n"):
        words = raw.split()
        if not words:
            continue
        if words[0] != b"#" and words[0] not in (b"profile", b"set", b"\xef\xbb\xbfprofile"):
            break  # the events begin: no header line
        if len(words) >= 3 and words[:2] == [b"#", b"clock"]:
            cid = words[2].decode("ascii", "replace").lower()
            if not 1 <= len(cid) <= 64 or cid.strip("0123456789abcdef"):
                return None, 0
            table = 0
            if len(words) == 5 and words[3] == b"table" and words[4].isdigit() \
                    and len(words[4]) <= 4:
                table = int(words[4])
            return cid, table
    return None, 0


def _same_game(old, new):
    """True if file `old` holds a prefix of file `new` (the same game, pulled
    again after it went on)."""
    with open(old, "rb") as f:
        a = f.read()
    with open(new, "rb") as f:
        b = f.read(len(a))
    return a == b


def _target(folder, name, staged):
    """Where a staged log goes in `folder`: its own name unless another game
    is there; then gNNNN-2.txt, -3, ... (never over a different game)."""
    stem = name[:-4]
    k = 1
    while True:
        cand = os.path.join(folder, name if k == 1 else "%s-%d.txt" % (stem, k))
        if os.path.isdir(cand):
            raise LogsError("%s is a folder, not a game log: move it away and run "
                            "logs again (the games are still on the clock)" % cand,
                            EXIT_BAD_DEST)
        if not os.path.lexists(cand):
            return cand
        if os.path.isfile(cand) and not os.path.islink(cand) and _same_game(cand, staged):
            return cand
        k += 1


def file_logs(dest, staging, names):
    """Move the staged logs into dest/<clock>/; returns [(clock, table, path)]
    in game order.  Every target is worked out before anything moves."""
    plan = []
    for name in names:
        src = os.path.join(staging, name)
        cid, table = clock_of(src)
        folder = os.path.join(dest, cid or NO_ID)
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise LogsError("%s is in the way of the clock's folder: move it away" % folder,
                            EXIT_BAD_DEST)
        target = _target(folder, name, src) if os.path.isdir(folder) \
            else os.path.join(folder, name)
        plan.append((cid, table, src, target))
    done = []
    for cid, table, src, target in plan:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(src, target)
        done.append((cid, table, target))
    return done


# -- mpremote ----------------------------------------------------------------------

def fetch_command(port, dest, reset=False):
    argv = usb.connect_args(port) + ["fs", "cp", "-r", ":games", os.path.join(dest, STAGING)]
    if reset:
        argv += ["+", "reset"]
    return argv


where = usb.where


def fetch(port=None, dest="clock-games", mpremote=None, dry_run=False, reset=False,
          out=print):
    """Copy games/*.txt off the clock into dest; returns the copied paths."""
    argv = fetch_command(port, dest, reset)
    if dry_run:
        out(shlex.join(["mpremote"] + argv))
        return []
    exe = usb.find_tool("mpremote", mpremote)
    staging = os.path.join(dest, STAGING)
    _prepare(dest, staging)
    try:
        return _fetch(exe, argv, port, dest, staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fetch(exe, argv, port, dest, staging):
    status, last, _ = usb.run(exe, argv, "copying from %s" % where(port))
    if status != 0:
        usb.raise_no_board(port, last, "plug the clock in, or give --port")
        low = last.lower()
        if low.startswith("cp:") and "no such file" in low:
            raise LogsError("the clock on %s has no games/ folder: no game logged yet"
                            % where(port))
        raise LogsError("mpremote failed copying from %s: %s" % (where(port), last))
    got = os.path.join(staging, "games")  # cp -r into an existing folder: X/games/
    names = os.listdir(got) if os.path.isdir(got) else []
    names = sorted((n for n in names if game_number(n)
                    and os.path.isfile(os.path.join(got, n))), key=game_number)
    try:
        return file_logs(dest, got, names)
    except OSError as e:
        raise LogsError("cannot file the logs in %s: %s (the games are still on the clock)"
                        % (dest, e.strerror or e), EXIT_BAD_DEST)


def _prepare(dest, staging):
    """Check dest is a folder we can write and make our staging folder in it,
    empty; LogsError (one line, status 2) if not."""
    if os.path.lexists(dest) and not os.path.isdir(dest):
        raise LogsError("--dest %s is a file, not a folder" % dest, EXIT_BAD_DEST)
    if os.path.islink(staging) or (os.path.lexists(staging) and not os.path.isdir(staging)):
        raise LogsError("%s is not the folder this tool stages logs in (a link or a "
                        "file): remove it, or choose another --dest" % staging, EXIT_BAD_DEST)
    try:
        os.makedirs(dest, exist_ok=True)
        if os.path.exists(staging):
            shutil.rmtree(staging)
        # it proves dest is writable before the board is touched, and mpremote
        # must copy into a folder that exists (the module's docstring)
        os.mkdir(staging)
    except OSError as e:
        raise LogsError("cannot write to --dest %s: %s" % (dest, e.strerror or e),
                        EXIT_BAD_DEST)


def main(port=None, dest="clock-games", dry_run=False, reset=False, mpremote=None,
         out=print, err=None):
    """The `logs` command; returns the exit status."""
    err = err or (lambda msg: print(msg, file=sys.stderr))
    try:
        paths = fetch(port, dest, mpremote, dry_run, reset, out)
    except usb.UsbError as e:  # (LogsError is one)
        err("logs: %s" % e)
        return e.status
    except KeyboardInterrupt:
        err("logs: interrupted")
        return 130
    if dry_run:
        return 0
    if not paths:
        out("no game logs on the clock")
        _after(reset, out)
        return 0
    out("%d game log%s copied to %s" % (len(paths), "" if len(paths) == 1 else "s", dest))
    clocks = []
    for cid, table, p in paths:
        if cid not in clocks:
            clocks.append(cid)
    for cid in clocks:
        mine = [(t, p) for c, t, p in paths if c == cid]
        tables = sorted(set(t for t, p in mine if t))
        out("clock %s%s: %s" % (cid or "without an id (older firmware)",
                                " table " + ",".join(map(str, tables)) if tables else "",
                                os.path.join(dest, cid or NO_ID)))
        for t, p in mine:
            out("  " + describe(p))
    _after(reset, out)
    return 0


def _after(reset, out):
    out("the clock restarted: a game in progress is paused (the pause key goes on)" if reset
        else "the clock is stopped at its prompt: switch it off and on to go on (a game in "
             "progress comes back paused), or copy with --restart next time")
