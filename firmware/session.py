# The game session: what survives a power cut (SPEC §4 "Power loss", "Game
# log"; TSO § 4.1 f: the clock is stopped for a power failure).
#
# Session owns the state store (persist.StateStore), the game log
# (gamelog.GameLog) and the order of their writes, and four parts, each in
# its own module: the log's time base (logtime.LogTime, self.lt), the
# running-clock journal's records on their way to the files (spool.Spool,
# self.sp: staged, programmed, folded, re-armed), the gesture marks and the
# retract (marks.py, self.marks), and the restore at power-up (powerup.py).
# App and Game only call it:
#
#   Session(clock, now, diff, fs, root, clock_id, table, feed)
#   restore(now, rules)   at power-up: NOTHING | LOST | RULES | RESTORED
#   event(code, side, t, arg)   the core's hook: the log line first, then
#                         the checkpoint that records how far the log got
#                         (a power cut between the two loses neither)
#   program()             every main-loop iteration, before the draw: the
#                         staged records the journal takes, programmed
#   tick(now, running, work=True)   every main-loop iteration, after the
#                         display is drawn: the staged records left written, a
#                         checkpoint every CHECKPOINT_MS of running time, the
#                         time base moved on; with `work`, one slice of flash
#                         work where nobody waits (below)
#   wake(now, ms, running)  the main loop's sleep, cut to tick()'s next work
#   save(now)             a checkpoint now (e.g. the referee's base time)
#   ignored(t, x)         a press ignored (pressed together with side x)
#   mark(k)               slot k (a key) remembers where the log stands now,
#                         before that key's edge acts (SPEC v3 §4 Gestures)
#   retract(k, now)       a gesture undoes its keys: every log line and journal
#                         record made since mark(k) is dropped, the rest is
#                         folded, and the (restored) clock is checkpointed
#   gesture(code, t)      the recognised gesture, as a comment in the log
#   forget()              the game was reset: nothing to restore, the next
#                         event opens a new log (with the journal: its
#                         number, log.number, is reserved now)
#   log_ms(t)             the log time of tick t
#   pending()             journal records not yet in the files? (the spool's
#                         fold(now) puts them there: not in a game)
# and, for its parts only: line(rec, index) and keep(now) (the spool's
# output: a record's log line, a state file checkpoint), resumed(on, begun),
# reserve() (powerup.py), undo_record(), checkpoint() (marks.py).
#
# What is deferred, and where it is written (issue 20; with the journal,
# i.e. on the boards; without one every write happens at once, as before):
#
#   1. An event, an ignored press or a checkpoint is STAGED: event(),
#      ignored() and tick()'s checkpoint fill a record (the clock as it is at
#      that instant, its log time, the state store's seq) into one of the
#      spool's STAGE preallocated buffers (spool.py, slot()).  Nothing is written.
#   2. program() -- App.step() calls it after the keys acted, before the
#      LEDs and the LCD show the change -- PROGRAMS the staged records into
#      the journal, in order (sp.program(); journal.append: page programs,
#      no erase, no allocation): SPEC §4 "Power loss" has the record follow
#      the key's edge within a few ms, the display within 30 ms (a yes's
#      END took some 15 ms to draw: a record programmed after it was on
#      flash 23 ms after the yes on the emulated Pico, 8 ms before it).
#      What the journal does not take then (full, refused, being armed)
#      stays staged for tick(), last in the step, after the draw: there
#      it spills to the files.  save() and everything that writes a file
#      flush first.  A power cut before that loses the staged records, as
#      a cut in the step would.
#   3. The journal's records are FOLDED into the files (their log lines,
#      then one state file save) only where nobody waits for the display:
#      tick(work=True) in `ready` or `over`, spool.FOLD_SLICE records a step in
#      one log append, and at once in forget() and at power-up.  A pause
#      does not fold: a game's log file is written at its end.  Then, when
#      more than half used, the journal is RE-ARMED (its file rewritten: 41
#      erases, then its units searched for on the raw flash) in short
#      slices, one a step (jflash.ARM_UNITS, SCAN_BLOCKS).  A game that
#      begins meanwhile never waits for it: the arming goes on a slice a
#      step while its clock runs, and the records staged until it is armed
#      go to the files after the draw (a spill: log lines, one state file
#      save), as without a journal.  (Finishing the arming at the first
#      record was a 2.6 s step on the emulated Pico: a press 2 s into a game
#      that began right after power-up waited 570 ms; tests/test_journal.py.)
#   A power cut anywhere loses nothing programmed: at power-up the journal's
#   records newer than the state file (by seq) are read back one at a time
#   and logged (powerup.py); the log is first cut back to the state file's
#   length, so a fold cut half-way is redone, not doubled.
#   To take back what was done since a mark (a retracted gesture): the
#   staged records after it are dropped; the programmed ones are the
#   journal's from the mark's index on; none of them is in the files while
#   the game is on (folding waits for ready/over).
#
# The log time base (logtime.py).  Log times are ms since the game began,
# never decreasing, continuing across power cuts.  The first event of a game
# anchors it at 0; a restore anchors it at the checkpoint's log time (the
# outage and the running time after the checkpoint are in neither the clock
# nor the log); tick() moves the anchor on (ticks wrap).  A log time is two
# small ints in the records and the state file, one decimal number in the
# log: exact after a pause of any length (tests/test_session.py).
#
# The game's number.  With the journal, a game's file is begun at its first
# fold; its number is reserved when the game is set up (log.number) and
# every journal record carries it, so a fold cut by a power cut is redone
# into the same file (begun afresh: GameLog.begin(number=)), never into a
# second one under the next number (tests/test_journal.py, a cut at every
# flash operation of the fold).
#
# An undo (retract) while a clock runs never folds: the KIND_UNDO record is
# programmed, then each record it undoes is made void on the flash
# (Journal.kill: one byte programmed to 0, no erase); the fold and the
# power-up skip void records, and a power-up finishes the kills of an UNDO
# record a cut left half done.  No table in RAM: any number of undos.
#
# A checkpoint carries the log's length, and a restore cuts the log back to
# it (gamelog.GameLog.restored), so the log and the restored clock agree:
# the log replays to exactly the restored clock (tests/test_power_cuts_app.py).
#
# tick() runs every main-loop iteration: it is kept small (MicroPython puts a
# call frame of more than ~11 words on the heap) and allocates nothing unless
# a file is written (the fold, in ready or over).
import clockcore as cc
import fsys
import persist
import gamelog
import logtime
import journal as jmod
import spool as spmod
import powerup
import marks
from actions import ACTION_NAMES
from powerup import NOTHING, LOST, RULES, RESTORED     # restore()'s results

_set_event = jmod.set_event

CHECKPOINT_MS = 4000    # < 5 s: at most this much running time can go uncharged

_PAIR = "%s %s ignored: pressed together with %s"
_GESTURE = "%s gesture %s: the presses of its keys are undone"
_ANY = 0x3FFFFFFF       # _cut_here(): a direct line (any journal index)


class Session:
    def __init__(self, clock, now, diff, fs=None, root="", clock_id="",
                 table=None, feed=None):
        self.clock = clock
        self.diff = diff
        self.table = table      # () -> the table number for a new log's header
        self.feed = feed        # the watchdog's feed (App.run), or None
        fs = fs if fs is not None else fsys.OsFS()
        # (a record of another snapshot length, from another firmware, is
        # not restored: "state lost", a clean ready; the SPEC v4 firmware's
        # shorter snapshot still is, clockcore.Clock.restore)
        self.store = persist.StateStore(fs, root + "clock.state", cc.SNAPSHOT_LEN,
                                        cc.SNAPSHOT_LEN_V2)
        self.log = gamelog.GameLog(fs, root + "games", clock=clock_id)
        self.on = False         # a game is on: its log time base is set
        self.begun = False      # its game file is open
        self.lt = logtime.LogTime(diff, now)    # the log's time base
        self.last_save = now
        self.wrote = False      # program() wrote this step (tick: no more work)
        # The running-clock journal (journal.py), where the filesystem has a
        # raw block device (the boards); else every write goes to the files.
        raw = getattr(fs, "raw", None)
        bdev = raw() if raw is not None else None
        j = None
        if bdev is not None:
            try:
                j = jmod.Journal(fs, bdev, root + "journal.bin", cc.SNAPSHOT_LEN,
                                 feed=feed)
            except (OSError, AttributeError, TypeError):
                j = None
        self.marks = marks.Marks()    # gesture marks (mark/retract)
        self.sp = spmod.Spool(j, self, self.log, self.marks, feed)

    def _fed(self):
        if self.feed is not None:
            self.feed()

    def log_ms(self, t):
        """ms since the game began, as one int (logtime.LogTime.ms)."""
        return self.lt.ms(t)

    # -- checkpoints ----------------------------------------------------------------
    def _keep(self, t, pos=-1):
        """The state file's checkpoint: the clock now, the log time of tick
        t, the log's length (`pos`; -1: as it is) and number."""
        lt = self.lt
        lg = self.log
        lt.at(t)
        self.store.save(self.clock.snapshot(), lt.l, lg.pos if pos < 0 else pos,
                        lg.number, lt.h)

    def keep(self, now):
        """A checkpoint in the state file now (the spool's, after a fold or
        a spill)."""
        self.last_save = now
        self._keep(now)

    def save(self, now):
        """A checkpoint now: into the journal while a clock runs, else
        (after folding the journal) into the state file."""
        self.last_save = now
        sp = self.sp
        if self.clock.running() >= 0 and sp.usable():
            jmod.set_kind(self._stage(0, -1, 0, now), jmod.KIND_CHECK)
            sp.flush(now)
            return
        self._save_file(now)

    def _save_file(self, now):
        sp = self.sp
        if sp.nst:
            sp.flush(now)
        if sp.pending():
            sp.fold(now)        # saves too
            return
        self._keep(now)

    def program(self):
        """Before the step's draw: its staged records into the journal
        (what the journal takes: spool.program), so that a power cut during
        the draw keeps them (a yes's END is drawn in some 15 ms)."""
        if self.sp.nst and self.sp.program():
            self.wrote = True

    def tick(self, now, running, work=True):
        """One main-loop iteration, after the display was drawn; `running`:
        a clock runs.  The staged records left (program() took the rest
        before the draw) are programmed into the journal or spilled to the
        files (then a checkpoint, every CHECKPOINT_MS of running time); with
        `work` and the clock in ready or over (nobody waits for it), one
        slice of the flash work: folding the journal into the files, or
        re-arming it (spool.py)."""
        if running and self.diff(now, self.last_save) >= CHECKPOINT_MS:
            self.save(now)
            work = False        # (a step that wrote does no more)
        elif self.sp.nst or self.wrote:
            self.sp.flush(now)
            work = False
        self.wrote = False
        self.sp.work(now, work and (not running or self.sp.arming()),
                     self.clock.state)
        self.lt.move(now)

    def wake(self, now, ms, running):
        """The main loop's sleep `ms`, cut to when tick() next has work: at
        once for the spool's (staged records, flash work, an arming), else
        a running clock's next checkpoint."""
        if self.sp.busy(running, self.clock.state):
            return 0
        if running:
            d = CHECKPOINT_MS - self.diff(now, self.last_save)
            if d < ms:
                return d
        return ms

    def pending(self):
        """Journal records not yet in the files (staged ones included)?"""
        return self.sp.pending()

    # -- the core's events ------------------------------------------------------------
    def event(self, code, side, t, arg):
        """Log the event, then checkpoint (the window's end is only shown,
        not kept).  The log stays open on the final screen: the referee's
        void and resume go into it; forget() closes it.  While the journal
        takes records, both are one journal record, staged here and
        programmed by the step's program() (before the display is drawn;
        what the journal does not take then: tick(), after it)."""
        if not self.on:
            self._start(t)
        if self.sp.usable():
            self._stage(code, side, arg, t)     # (4 args: a small frame)
            self.last_save = t
            return
        self._direct(code, side, t, arg)

    def _start(self, t):
        self.on = True
        self.lt.start(t)

    def _direct(self, code, side, t, arg):
        c = self.clock
        self._begin()
        self._cut_here(_ANY)
        self.log.event(self.lt.stamp(t), code, side, arg, c.rem[0], c.rem[1])
        if code != cc.EV_WINDOW:
            self.save(t)

    def ignored(self, t, x):
        """Side 1-x's press at t was ignored: pressed together with side x."""
        if not self.on:
            return
        if self.sp.usable():
            jmod.set_kind(self._stage(0, x, 0, t), jmod.KIND_PAIR)
            return
        self._begin()
        self._cut_here(_ANY)
        self.log.comment(_PAIR % (self.lt.stamp(t), cc.SIDE_NAMES[1 - x], cc.SIDE_NAMES[x]))

    def gesture(self, code, t):
        """A gesture was recognised (its keys' presses were undone): a
        comment in the log, so a referee reading it sees why."""
        if not self.on:
            return
        # Its record is the clock as it is at t, like every record: a
        # lateness clock the late-arrival gesture started runs from the
        # gesture's first edge (SPEC v5 §4), so it is settled to t first.
        # (Issue 36: the record carried the clock of the first edge, dated
        # at the recognition; a power-up from it lost that lateness.)
        self.clock.update(t)
        if self.sp.usable():
            jmod.set_kind(self._stage(code, -1, 0, t), jmod.KIND_NOTE)
            return
        self._begin()
        self._cut_here(_ANY)    # a later gesture of the group cuts it too
        self.log.comment(_GESTURE % (self.lt.stamp(t), ACTION_NAMES[code]))

    def _stage(self, code, side, arg, t):
        """A journal record made now (the clock as it is at the event),
        programmed by the spool's flush(); returned, so that a checkpoint
        or a pair sets its kind."""
        r = self.sp.slot(t)
        _set_event(r, code, side, arg)     # (a global: a small frame)
        self._fill(r, t)
        return r

    def _fill(self, r, t):
        s = self.store.seq
        lt = self.lt
        lt.at(t)
        jmod.set_time(r, s if s > 0 else 0, lt.h, lt.l)
        jmod.set_game(r, self.log.number)
        jmod.set_clock(r, self.clock)

    def _begin(self, number=0):
        """The game's file, begun at its first line: under `number` (a
        journal record's), else the one reserved for the game (log.number;
        0 without the journal: the next)."""
        if not self.begun:
            lg = self.log
            # the rules the game was set up with: a base change since is
            # its own `base` lines (SPEC v5 §5), not a header's handicap
            lg.begin(self.clock.start_rules(),
                     self.table() if self.table is not None else 0,
                     number or lg.number)
            self.begun = True

    def line(self, rec, index=-1):
        """A journal record's log line (events, ignored presses, gestures);
        index: its place in the journal (-1: after a power cut, no marks).
        The spool calls it as it folds."""
        kind = jmod.kind(rec)
        if kind == jmod.KIND_CHECK or kind == jmod.KIND_UNDO:
            return
        self._begin(jmod.game(rec))
        if index >= 0:
            self._cut_here(index)
        ms = logtime.text(jmod.log_hi(rec), jmod.log_ms(rec))
        side = jmod.side(rec)
        if kind == jmod.KIND_NOTE:
            self.log.comment(_GESTURE % (ms, ACTION_NAMES[jmod.code(rec)]))
        elif kind == jmod.KIND_PAIR:
            self.log.comment(_PAIR % (ms, cc.SIDE_NAMES[1 - side], cc.SIDE_NAMES[side]))
        else:
            self.log.event(ms, jmod.code(rec), side, jmod.arg(rec),
                           jmod.rem(rec, 0), jmod.rem(rec, 1))

    # -- gestures: mark and retract ---------------------------------------------------
    def mark(self, k):
        """Slot k: the log as it stands now (before a key's edge acts): the
        records after the mark are the programmed ones from the journal's
        count on, then the staged ones, in order.  Allocation-free: it runs
        at every press."""
        self.marks.set(k, self.sp.index(), self.on)

    def _cut_here(self, index):
        # A log line of journal record `index` (direct lines: any index) is
        # about to be written: the first one after a mark is where a retract
        # cuts the file back to.
        self.marks.cut_here(index, self.log.pos)

    def retract(self, k, now):
        """A gesture undoes what its keys did since mark(k) (marks.py: the
        records and log lines after the mark are dropped, the clock,
        already restored by the caller, is checkpointed)."""
        marks.retract(self, k, now)

    def undo_record(self, mk, undo, now):
        """marks.py's retract, with the journal: a record of the restored
        clock (dated at its own time), KIND_UNDO (`undo`: the programmed
        records from journal index mk on are void) or a checkpoint."""
        if undo:
            jmod.set_kind(self._stage(0, -1, mk, self.clock.t), jmod.KIND_UNDO)
        else:
            jmod.set_kind(self._stage(0, -1, 0, self.clock.t), jmod.KIND_CHECK)
        self.last_save = now

    def checkpoint(self, now, pos=-1):
        """marks.py's retract: the restored clock into the state file, at
        its own time (the snapshot is settled to the group's first edge: a
        running clock's power line must be dated there, not at `now`);
        `pos`: the log's length it names (-1: as it is)."""
        self.last_save = now
        self._keep(self.clock.t, pos)
        self._fed()

    # -- a reset ------------------------------------------------------------------------
    def forget(self):
        """The game was reset: its journal records go to its log first, then
        nothing is left to restore; the next event opens a new log.  (With
        the journal: a `ready` record in the state file marks its records as
        old.)"""
        sp = self.sp
        if sp.pending():
            sp.fold(self.lt.anchor, False)
        if sp.reset():
            # The journal keeps this game's records until it is re-armed
            # (when more than half full, where nobody waits): a state record
            # newer than them (the reset clock, no log) keeps a power-up
            # from taking them back, and the next game's follow them.
            self.store.save(self.clock.snapshot(), 0, 0, 0)
        else:
            self.store.clear()
        self.log.close()
        self.on = False
        self.begun = False
        self.reserve()

    def reserve(self):
        """With the journal the next game's file is begun only when its
        clock first stops: its number is reserved now, while no clock runs
        (a read of the folder), so the game has it from its first press
        (net.py publishes it; the file then gets the same number)."""
        if self.sp.j is not None and not self.begun:
            self.log.reserve()

    # -- power-up (powerup.py) ------------------------------------------------------------
    def restore(self, now, rules):
        """Resume a game cut off by a power failure, paused, as of its last
        checkpoint (the state file's, or a newer one in the journal).
        `rules`: () -> the rules of a clean `ready` when the record cannot
        be used.  NOTHING | LOST | RULES | RESTORED."""
        return powerup.restore(self, now, rules)

    def resumed(self, on, begun):
        """powerup.py: the game is on (its time base set) / its file open."""
        self.on = on
        self.begun = begun
