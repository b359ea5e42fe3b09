# The game log on the clock (SPEC §4 "Game log", §5 replay format).
#
# One text file per game, games/gNNNN.txt, in the replay format, so
# `python -m host_sim replay games/g0012.txt` (or `python -m host_sim logs`)
# reproduces the game:
#
#   profile sdev  # game 12
#   # clock e6614c311b5f2a37 table 12
#   # firmware 1.0.0 3f2a9c1
#   set base=25:00
#   0 left  # L 25:00 R 25:00
#   41250 right  # L 24:59 R 24:19
#   # 61250 window closed
#   ...
#   1800000 end  # L 00:00 R 06:52
#
# Events are lines `<ms> left|right|pause|end|resume`, `<ms> late|void <side>`,
# `<ms> adjust <side> <+-ms>`, `<ms> base <side> <mm:ss>` (the referee's
# base time before the game: it keeps the time charged) and `<ms> lateness
# <side> <ms>` (the referee's elapsed lateness, SPEC v5 §5), each followed
# by a comment with both times after the event (as the display shows them:
# remaining rounded up, overtime rounded down with a minus).  Time-triggered
# core events (flag, forfeit, challenge window closed, game over) are comment
# lines: the replay recomputes them.  A game that ends by itself (a forfeit,
# both flags) gets a `# <ms> over` line: `replay` without --at reports there.
#
# A clock showing another language than English says which (`# lang de`):
# the replay draws the LCD in it.
#
# The `# firmware` line names the app that wrote it (appversion.LOG_LINE:
# the release and the build's commit, "dev" for an app run from the
# sources: the simulator, the tests); the replay reads it as a comment, and
# a log from before it replays as ever.
#
# The `# clock` line names the clock that wrote the log: its
# machine.unique_id() in hex, and the table number from the setup menu
# (omitted when 0 = none).  `python -m host_sim logs` files each game under
# its clock's id, so the logs of a tournament's clocks never overwrite each
# other.  The replay reads it as a comment.
#
# Log times are what the app passes: ms since the game started (the first
# event may be 0), never decreasing, continuing across power cuts, as an int
# or as its decimal text (logtime.text(): past 2**30 ms the boards' small
# ints do not hold a log time; the session passes the text).  After a
# power cut the clock resumes as of its last checkpoint, so the app continues
# from the checkpoint's log_ms (the outage and the running time lost after
# the checkpoint are not in the log) and calls restored(), which appends a
# `pause`: the replay then matches the live clock exactly.
#
# How the app wires it (the order matters for power loss):
#   on an event (the core's hook):  log.event(log_ms, code, side, arg, rem_l, rem_r)
#   then checkpoint:                store.save(clock.snapshot(), log_ms, log.pos, log.number)
#   at power-up, with a record:     clock.restore(ints, t=now)
#                                   log.restored(store.log_ms, ints[1] (the state), store.game, store.log_pos)
# The checkpoint carries the log's length: restored() cuts the file back to
# it, which drops a torn last line and any event the restored state does not
# have (its checkpoint never completed), so log and clock agree.
#
# Every line is written with one write() and flushed.  A power cut can tear
# only the last line; host_sim/logs.py reads such files (and restored() repairs
# them on the clock).  Storage stays within max_games files and max_bytes
# (oldest games deleted first); a single runaway game stops logging at
# max_bytes with a `# log full` line.  (Issue 28: the folder -- the files'
# names and numbers, the bounds, the cut-back after a power cut, reading
# back -- is gamefiles.py's GameFiles, the base of GameLog; this file has the
# game being written.)
import profiles
import clockcore as cc
import fsys
import gamefiles
from gamefiles import game_number
import appversion
import logtime

# The replay format's event words, one table for both sides of it: the log
# writes them, host_sim/replay.py reads them (its EVENTS and SIDED).
WORDS = {cc.EV_LEFT: "left", cc.EV_RIGHT: "right", cc.EV_PAUSE: "pause",
         cc.EV_END: "end", cc.EV_ADJUST: "adjust", cc.EV_LATE: "late",
         cc.EV_VOID: "void", cc.EV_RESUME: "resume", cc.EV_BASE: "base",
         cc.EV_LATENESS: "lateness"}
SIDED = (cc.EV_LATE, cc.EV_VOID)  # `<ms> late left`, `<ms> void right`
NOTES = {cc.EV_FLAG: "flag", cc.EV_FORFEIT: "forfeit",
         cc.EV_WINDOW: "window closed", cc.EV_OVER: "over",
         cc.EV_CAP: "overtime limit"}  # time-triggered: `# <ms> <note>` lines
FULL_NOTE = "# log full: later events not recorded\n"
# Log times reach at most this (logtime.LIMIT, about 8 years: more than any
# game with its pauses); the replay tool rejects later times as no game's
# (host_sim).
MAX_MS = logtime.LIMIT


def fmt_time(rem):
    """The display's mm:ss, for the comments (profiles.fmt_time: the one
    rounding rule)."""
    return profiles.fmt_time(rem)


def clock_id(machine):
    """machine.unique_id() as lower-case hex ("" if the port has none)."""
    try:
        uid = machine.unique_id()
    except Exception:
        return ""
    return "".join(["%02x" % b for b in uid])


class GameLog(gamefiles.GameFiles):
    """The game being written (gamefiles.GameFiles: the folder)."""
    def __init__(self, fs=None, folder="games", max_games=20, max_bytes=64 * 1024,
                 clock=""):
        gamefiles.GameFiles.__init__(self, fs if fs is not None else fsys.OsFS(),
                                     folder, max_games, max_bytes)
        self.clock = clock     # this clock's id (clock_id()), for the header
        self.lang = "en"       # the display's language (set_lang())
        self.number = 0        # the current game (0: none; reserve(): the next)
        self.name = None       # its path, e.g. "games/g0012.txt"
        self.pos = 0           # bytes in it (checkpointed with the state)
        self.full = False
        self.error = None      # last filesystem error (logging stops, the clock goes on)
        self.writes = 0
        self.bytes_written = 0
        self._f = None
        self._held = None      # lines written since hold(), flushed by release()

    def set_lang(self, lang):
        """The display's language, named in the next game's header."""
        self.lang = lang

    def _close(self):
        f = self._f
        self._f = None
        fsys.close(f)

    def _fail(self, e):
        self.error = "game log: error %s" % (e.args[0] if e.args else e)
        self._close()
        return False

    def hold(self):
        """The lines from now on are written without a flush until
        release() flushes them: one append (one flash commit for many
        lines: the session folds its journal so), and no text of them all
        on the heap (issue 30: no buffer over 1 KB in a game)."""
        self._held = 0

    def release(self):
        h = self._held
        self._held = None
        f = self._f
        if h and f is not None:
            try:
                f.flush()
            except OSError as e:
                return self._fail(e)
        return True

    def _write(self, text):
        """Append one or more whole lines (one write, flushed)."""
        f = self._f
        if f is None:
            return False
        data = text.encode()
        n = len(data)
        # The folder stays within max_bytes: older games go first (begin()
        # already made room for a game of the usual size, so this is rare).
        while self._old and self._old_bytes + self.pos + n > self.max_bytes:
            self._drop_oldest()
        if self.pos + n > self.max_bytes - len(FULL_NOTE):
            if self.full:
                return False
            self.full = True  # a runaway game: one note, then nothing
            data = FULL_NOTE.encode()
            n = len(data)
        try:
            f.write(data)
            if self._held is None:
                f.flush()
            else:
                self._held += 1
        except OSError as e:
            return self._fail(e)
        self.pos += n
        self.writes += 1
        self.bytes_written += n
        return not self.full

    # -- a game -----------------------------------------------------------------
    def begin(self, rules, table=0, number=0):
        """Start a new game file with the replay header for `rules`, this
        clock's id and `table` (0 = none).  `number`: the game's own
        number (the one reserve() gave it; its file, if a power cut left
        one begun, is written afresh), else the next one (_next()).
        Returns its number (0 if the filesystem refused)."""
        self._close()
        games = self._scan()
        n = number if number > 0 else self._next(games)
        self._set_old(games, n)
        biggest = 4096
        for g in self._old:
            if g[1] > biggest:
                biggest = g[1]
        self._prune(min(biggest, self.max_bytes // 2))
        head = "profile %s  # game %d\n" % (rules.name, n)
        if self.clock or table:
            head += "# clock %s" % (self.clock or "unknown")
            head += " table %d\n" % table if table else "\n"
        head += appversion.LOG_LINE
        if self.lang != "en":
            head += "# lang %s\n" % self.lang   # the replay draws the LCD in it
        over = rules.overrides()
        if over:
            head += "set " + " ".join(over) + "\n"
        path = self._path(n)
        try:
            self._f = self.fs.open(path, "wb")
        except OSError as e:
            self._fail(e)
            return 0
        self.number = n
        self.name = path
        self.pos = 0
        self.full = False
        self.error = None
        if not self._write(head):
            return 0 if self._f is None else n
        return n

    def reserve(self):
        """No game file open: .number becomes the one begin() will give the
        next game (reads only), so the game is known by its number from its
        start even while its file is not written yet (the running-clock
        journal begins it when the clock first stops).  Returns it."""
        if self._f is None and self.name is None:
            self.number = self._next(self._scan())
        return self.number

    def event(self, log_ms, kind, side, delta, rem_left, rem_right):
        """One core event (its EV_* code as the hook gives it)."""
        if self._f is None:
            return False
        w = WORDS.get(kind)
        if kind == cc.EV_ADJUST:
            line = "%s %s %s %s%d" % (log_ms, w, cc.SIDE_NAMES[side],
                                      "+" if delta >= 0 else "", delta)
        elif kind == cc.EV_BASE:
            line = "%s %s %s %s" % (log_ms, w, cc.SIDE_NAMES[side],
                                    profiles.fmt_mmss(delta))
        elif kind == cc.EV_LATENESS:
            line = "%s %s %s %d" % (log_ms, w, cc.SIDE_NAMES[side], delta)
        elif kind in SIDED:
            line = "%s %s %s" % (log_ms, w, cc.SIDE_NAMES[side])
        elif w is not None:
            line = "%s %s" % (log_ms, w)
        else:
            note = NOTES.get(kind, "event %d" % kind)
            if kind == cc.EV_FLAG or kind == cc.EV_FORFEIT or kind == cc.EV_CAP:
                note += " " + cc.SIDE_NAMES[side]
            # the times at that instant too (the results menu reads them)
            if kind == cc.EV_FORFEIT:
                # a game that ended by itself says so (SPEC v4 §5: replay
                # reports it at its `# <ms> over` line)
                self._note(log_ms, note, rem_left, rem_right)
                note = NOTES[cc.EV_OVER]
            return self._note(log_ms, note, rem_left, rem_right)
        return self._write("%s  # L %s R %s\n" % (line, fmt_time(rem_left),
                                                  fmt_time(rem_right)))

    def _note(self, log_ms, note, rem_left, rem_right):
        return self._write("# %s %s  L %s R %s\n" % (log_ms, note, fmt_time(rem_left),
                                                      fmt_time(rem_right)))

    def comment(self, text):
        """A free comment line (e.g. a referee note)."""
        return self._write("# " + text.replace("\n", " ") + "\n")

    def close(self):
        """The game is reset (a new game follows): close its file; no game
        is open any more (a checkpoint taken now records game 0)."""
        self._close()
        self.number = 0
        self.name = None
        self.pos = 0

    # -- after a power cut --------------------------------------------------------
    def restored(self, log_ms, state=cc.RUNNING, game=0, pos=-1):
        """Reopen game `game` (default: the newest) after a power cut.

        pos: the file length saved with the restored checkpoint (log.pos at
        the save).  The file is cut back to it: a torn last line and events
        whose checkpoint never completed go (the restored clock does not have
        them either).  Without a pos (<= 0, or not at a line end) only a torn
        last line goes.  Then `<log_ms> pause  # power restored`
        is appended if the game was running (the clock comes back paused as
        of the checkpoint), else a comment.  Returns False if there is no such
        game file (logging stays off: call begin())."""
        if not self.reopen(game, pos):
            return False
        return self.power_line(log_ms, state)

    def reopen(self, game=0, pos=-1):
        """The first half of restored(): the game file cut back to pos and
        opened for appending (the session adds the journal's lines, then
        power_line())."""
        self._close()
        games = self._scan()
        if not game:
            game = games[-1][0] if games else 0
        size = -1
        for g in games:
            if g[0] == game:
                size = g[1]
        if size < 0:
            return False
        path = self._path(game)
        self._set_old(games, game)
        try:
            if 0 < pos <= size and self._line_end(path, pos):
                keep = pos
            else:  # no (usable) checkpoint position: drop a torn line only
                keep = self._whole_lines(path, size)
            if keep < size:
                self._truncate(path, keep)
            self._f = self.fs.open(path, "ab")
        except OSError as e:
            return self._fail(e)
        self.number = game
        self.name = path
        self.pos = keep
        self.full = False
        self.error = None
        return True

    def power_line(self, log_ms, state):
        """`<log_ms> pause  # power restored` (a game's clock that ran comes
        back paused), else a comment that says what the clock does: a
        lateness clock runs on (it is not a game yet, SPEC v5), a stopped
        clock stays as it was."""
        if state == cc.RUNNING:
            return self._write("%s pause  # power restored\n" % log_ms)
        if state == cc.LATE:
            return self._write("# %s power restored (the lateness clock runs on)\n"
                               % log_ms)
        return self._write("# %s power restored (the clock was paused)\n" % log_ms)

