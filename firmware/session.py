# The game session: what survives a power cut (SPEC §4 "Power loss", "Game
# log"; TSO § 4.1 f: the clock is stopped for a power failure).
#
# Session owns the state store (persist.StateStore), the game log
# (gamelog.GameLog), the log's time base and the order of their writes; App
# only calls it:
#
#   Session(clock, now, diff, fs, root, clock_id, table, feed)
#   restore(now, rules)   at power-up: NOTHING | LOST | RULES | RESTORED
#   event(code, side, t, arg)   the core's hook: the log line first, then
#                         the checkpoint that records how far the log got
#                         (a power cut between the two loses neither)
#   tick(now, running, work=True)   every main-loop iteration, after the
#                         display is drawn: the staged records written, a
#                         checkpoint every CHECKPOINT_MS of running time, the
#                         time base moved on; with `work`, one slice of flash
#                         work where nobody waits (below)
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
#   pending() / fold(now) journal records not yet in the files? / put them
#                         there now (the files' writes and erases: not in a game)
#   feed                  the watchdog's feed (App), called between slices
#
# What is deferred, and where it is written (issue 20; with the journal,
# i.e. on the boards; without one every write happens at once, as before):
#
#   1. An event, an ignored press or a checkpoint is STAGED: event(),
#      ignored() and tick()'s checkpoint fill a record (the clock as it is at
#      that instant, its log time, the state store's seq) into one of STAGE
#      preallocated buffers (self.st[0:self.nst]).  Nothing is written.
#   2. tick() -- App.step() calls it last, after the LEDs and the LCD show
#      the change -- PROGRAMS the staged records into the journal, in order
#      (flush(); journal.append: page programs, no erase, no allocation).
#      save() and everything that writes a file flush first.  A power cut
#      before that loses the staged records, as a cut in the step would.
#   3. The journal's records are FOLDED into the files (their log lines,
#      then one state file save) only where nobody waits for the display:
#      tick(work=True) in `ready` or `over`, FOLD_SLICE records a step in
#      one log append (self.folded: how many are in the files), and at once
#      in forget() and at power-up.  A pause does not fold: a game's log
#      file is written at its end.  Then, when more than half used, the
#      journal is RE-ARMED (its file rewritten: 41 erases) one 4 KB block a
#      step; a record staged meanwhile finishes the arming first.
#   A power cut anywhere loses nothing programmed: at power-up the journal's
#   records newer than the state file (by seq) are read back one at a time
#   and logged (restore()); the log is first cut back to the state file's
#   length, so a fold cut half-way is redone, not doubled.
#   To take back what was done since a mark (a retracted gesture): the
#   staged records are self.st[:self.nst]; the programmed ones are
#   self.j.count - (count at the mark); none of them is in the files while
#   the game is on (folding waits for ready/over).
#
# The log time base (logtime.py, self.lt).  Log times are ms since the game
# began, never decreasing, continuing across power cuts: the log time at an
# anchor tick plus diff(t, anchor).  The first event of a game anchors it at
# 0; a restore anchors it at the checkpoint's log time (the outage and the
# running time after the checkpoint are in neither the clock nor the log).
# Ticks wrap (2**30 ms on the boards), so tick() moves the anchor on every
# logtime.REANCHOR ms, well inside half a wrap.  A log time is two small
# ints (hi: units of 10**9 ms, lo) in the records and the state file, and
# one decimal number in the log: exact after a pause of any length, with no
# long int on the boards (tests/test_session.py, pauses of 7, 13, 25 days).
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
from gestures import ACTION_NAMES
from buttons import array_i

_set_event = jmod.set_event

CHECKPOINT_MS = 4000    # < 5 s: at most this much running time can go uncharged
STAGE = 4               # records staged in a step before they are programmed
FOLD_SLICE = 16         # journal records folded into the log per step (one append)

# restore() results
NOTHING = 0     # no saved game: a fresh `ready`
LOST = 1        # a corrupt or foreign state file: a clean `ready` (say so)
RULES = 2       # a `ready` clock with the referee's rules, no game log yet
RESTORED = 3    # a game resumed as of its last checkpoint (paused if it ran)

_PAIR = "%s %s ignored: pressed together with %s"
_GESTURE = "%s gesture %s: the presses of its keys are undone"
MARKS = 4               # mark slots: one per key, and one for a mode change


class Session:
    def __init__(self, clock, now, diff, fs=None, root="", clock_id="",
                 table=None, feed=None):
        self.clock = clock
        self.diff = diff
        self.table = table      # () -> the table number for a new log's header
        self.feed = feed        # the watchdog's feed (App.run), or None
        fs = fs if fs is not None else fsys.OsFS()
        # (a record of another snapshot length, from another firmware, is
        # not restored: "state lost", a clean ready)
        self.store = persist.StateStore(fs, root + "clock.state", cc.SNAPSHOT_LEN)
        self.log = gamelog.GameLog(fs, root + "games", clock=clock_id)
        self.on = False         # a game is on: its log time base is set
        self.begun = False      # its game file is open
        self.lt = logtime.LogTime(diff, now)    # the log's time base
        self.last_save = now
        # The running-clock journal (journal.py), where the filesystem has a
        # raw block device (the boards); else every write goes to the files.
        raw = getattr(fs, "raw", None)
        bdev = raw() if raw is not None else None
        self.j = None
        if bdev is not None:
            try:
                self.j = jmod.Journal(fs, bdev, root + "journal.bin", cc.SNAPSHOT_LEN)
            except (OSError, AttributeError, TypeError):
                self.j = None
        self.folded = 0         # journal records already in the files
        self.arm_due = False    # re-arm the journal where nobody waits
        self.fcur = False       # the journal's read cursor is at `folded`
        if self.j is not None:
            n = self.j.size
            self.st = [jmod.new_record(cc.SNAPSHOT_LEN) for _ in range(STAGE)]  # staged
            self.rb = bytearray(n)      # one record read back (fold, power-up)
        self.nst = 0            # records staged, not yet programmed
        self.calm = False       # the last step was in ready/over already

        # Gesture marks (mark/retract): per slot, the first journal record
        # after the mark, where the first log line after it went (-1: none
        # yet), and whether the game had begun (an event, its log time base
        # set) then.
        self._mk = array_i(MARKS)
        self._mp = array_i(MARKS)
        self._mon = bytearray(MARKS)
        for k in range(MARKS):
            self._mp[k] = -1

    def _fed(self):
        if self.feed is not None:
            self.feed()

    # -- the log time base --------------------------------------------------------
    def log_ms(self, t):
        """ms since the game began, as one int (never negative; a long int
        past 2**30 ms on the boards: for the state report and the error
        log; the log and the files take the two parts, logtime.py)."""
        lt = self.lt
        lt.at(t)
        return logtime.value(lt.h, lt.l)

    def _stamp(self, t):
        """The log time of tick t as the log writes it."""
        lt = self.lt
        lt.at(t)
        return logtime.text(lt.h, lt.l)

    def _keep(self, t):
        """The state file's checkpoint: the clock now, the log time of tick
        t, the log's length and number."""
        lt = self.lt
        lg = self.log
        lt.at(t)
        self.store.save(self.clock.snapshot(), lt.l, lg.pos, lg.number, lt.h)

    # -- checkpoints ----------------------------------------------------------------
    def save(self, now):
        """A checkpoint now: into the journal while a clock runs, else
        (after folding the journal) into the state file."""
        self.last_save = now
        if self.clock.running() >= 0 and self._usable():
            jmod.set_kind(self._stage(0, -1, 0, now), jmod.KIND_CHECK)
            self.flush(now)
            return
        self._save_file(now)

    def _save_file(self, now):
        if self.nst:
            self.flush(now)
        if self.pending():
            self.fold(now)      # saves too
            return
        self._keep(now)

    def tick(self, now, running, work=True):
        """One main-loop iteration, after the display was drawn; `running`:
        a clock runs.  The staged records are programmed into the journal
        (then a checkpoint, every CHECKPOINT_MS of running time); with
        `work` and the clock in ready or over (nobody waits for it), one
        slice of the flash work: folding the journal into the files, or
        re-arming it."""
        if running and self.diff(now, self.last_save) >= CHECKPOINT_MS:
            self.save(now)
        elif self.nst:
            self.flush(now)
        if work and not running and self.j is not None:
            self._work(now)
        else:
            self.calm = False
        self.lt.move(now)

    # -- the core's events ------------------------------------------------------------
    def event(self, code, side, t, arg):
        """Log the event, then checkpoint (the window's end is only shown,
        not kept).  The log stays open on the final screen: the referee's
        void and resume go into it; forget() closes it.  While the journal
        takes records, both are one journal record, staged here and
        programmed by the next tick() (after the display is drawn)."""
        if not self.on:
            self._start(t)
        if self._usable():
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
        self._cut_here(0x3FFFFFFF)
        self.log.event(self._stamp(t), code, side, arg, c.rem[0], c.rem[1])
        if code != cc.EV_WINDOW:
            self.save(t)

    def ignored(self, t, x):
        """Side 1-x's press at t was ignored: pressed together with side x."""
        if not self.on:
            return
        if self._usable():
            jmod.set_kind(self._stage(0, x, 0, t), jmod.KIND_PAIR)
            return
        self._begin()
        self._cut_here(0x3FFFFFFF)
        self.log.comment(_PAIR % (self._stamp(t), cc.SIDE_NAMES[1 - x], cc.SIDE_NAMES[x]))

    def gesture(self, code, t):
        """A gesture was recognised (its keys' presses were undone): a
        comment in the log, so a referee reading it sees why."""
        if not self.on:
            return
        if self._usable():
            jmod.set_kind(self._stage(code, -1, 0, t), jmod.KIND_NOTE)
            return
        self._begin()
        self._cut_here(0x3FFFFFFF)  # a later gesture of the group cuts it too
        self.log.comment(_GESTURE % (self._stamp(t), ACTION_NAMES[code]))

    # -- gestures: mark and retract ---------------------------------------------------
    def mark(self, k):
        """Slot k: the log as it stands now (before a key's edge acts).
        Allocation-free: it runs at every press."""
        j = self.j
        # the records after the mark: the programmed ones from j.count on,
        # then the staged ones, in order
        self._mk[k] = j.count + self.nst if j is not None else 0
        self._mp[k] = -1
        self._mon[k] = 1 if self.on else 0

    def _cut_here(self, index):
        # A log line of journal record `index` (direct lines: any index) is
        # about to be written: the first one after a mark is where a retract
        # cuts the file back to.
        k = 0
        while k < MARKS:
            if self._mp[k] < 0 and index >= self._mk[k]:
                self._mp[k] = self.log.pos
            k += 1

    def retract(self, k, now):
        """A gesture undoes what its keys did since mark(k): the journal's
        records before the mark go to the files, those after it are dropped;
        log lines already written after the mark are cut off (the whole game
        file if the game had no event before the mark); the clock, already
        restored by the caller, is checkpointed in the state file.  (A
        gesture is rare and leaves the clock stopped: file work is allowed
        here.)

        Power-cut order: the checkpoint (which names the log's new length,
        or no game) is written before the file is cut or removed, so a cut at
        any point restores a clock its log replays to: before the
        checkpoint, the old record and the whole old log; after it, the
        restored clock and a log that the restore cuts back to its length.
        The checkpoint is a state-file record, never a journal record: the
        dropped records are still in the journal, and only a newer state
        file record (store.seq) makes a restore pass over them."""
        if self._undo_record(k, now):
            self._cut_lines(k, now)
            return
        self._drop(k, now)
        lg = self.log
        cut = self._mp[k]
        if not self._mon[k]:
            self.on = False     # no event before the mark: the game's log
                                # time base starts again at its first event
        if self.begun and not self._mon[k]:
            name = lg.name      # begun for the undone keys only
            lg.close()
            self.begun = False
            self._checkpoint(now)
            lg.remove(name)
            self._reserve()
            return
        if self.begun and 0 <= cut < lg.pos:
            lg.pos = cut        # the checkpoint names the cut log ...
            self._checkpoint(now)
            self._fed()
            lg.reopen(lg.number, cut)   # ... then the file is cut
        else:
            self._checkpoint(now)
        if cut >= 0:
            for m in range(MARKS):
                if self._mp[m] > cut:
                    self._mp[m] = -1    # what it marked is cut off too

    def _undo_record(self, k, now):
        """With the journal, in a game: the staged records after mark k are
        dropped, and one KIND_UNDO record (staged like any, programmed after
        the draw: no file work, no erase) makes the programmed ones void; it
        carries the restored clock, so a power-up restores that.  False when
        the journal cannot take it (no journal, full, or too many voids in
        the journal is being armed): then retract() folds and checkpoints
        into the files.
        Any number of undos: the records are made void on the flash once
        the UNDO record is programmed (_program), no table in RAM."""
        j = self.j
        if j is None or not self._usable() or j.arming():
            return False
        mk = self._mk[k]
        n = mk - j.count        # staged records made before the mark
        if self.nst > n:
            self.nst = n if n > 0 else 0
        if j.count > mk:
            jmod.set_kind(self._stage(0, -1, mk, self.clock.t), jmod.KIND_UNDO)
        else:
            jmod.set_kind(self._stage(0, -1, 0, self.clock.t), jmod.KIND_CHECK)
        self.last_save = now
        if not self._mon[k]:
            self.on = False     # no event before the mark (see retract)
        return True

    def _cut_lines(self, k, now):
        # log lines already folded after the mark (a fold in ready or over
        # since): the state file names the cut log first, then it is cut
        lg = self.log
        cut = self._mp[k]
        if not self.begun or cut < 0 or cut >= lg.pos:
            return
        self.flush(now)
        if self.pending():
            while not self._fold_step(FOLD_SLICE):
                pass
            self.folded = self.j.count
            self.fcur = False
        lg.pos = cut
        self._checkpoint(now)
        lg.reopen(lg.number, cut)
        for m in range(MARKS):
            if self._mp[m] > cut:
                self._mp[m] = -1

    def _drop(self, k, now):
        # retract(): the journal's records before mark k become log lines,
        # the rest are passed over (folded without a line).  Staged records
        # made before the mark are programmed first; those after it never.
        j = self.j
        if j is None:
            return
        mk = self._mk[k]
        if self.nst:
            n = mk - j.count    # staged before the mark
            if n > 0:
                if n < self.nst:
                    self.nst = n
                self.flush(now)
            self.nst = 0
        j = self.j
        if j is None or not j.ok or j.arming() or j.count <= self.folded:
            return
        if not self.fcur:
            j.rewind(self.folded)
            self.fcur = True
        while not self._lines(FOLD_SLICE, mk):
            pass                # (in slices: the watchdog is fed between)
        self.folded = j.count
        self.fcur = False

    def _checkpoint(self, now):
        # retract(): the restored clock into the state file, at its own time
        # (the snapshot is settled to the group's first edge: a running
        # clock's power line must be dated there, not at `now`)
        self.last_save = now
        self._keep(self.clock.t)
        self._fed()

    def _begin(self, number=0):
        """The game's file, begun at its first line: under `number` (a
        journal record's), else the one reserved for the game (log.number;
        0 without the journal: the next)."""
        if not self.begun:
            lg = self.log
            lg.begin(self.clock.rules, self.table() if self.table is not None else 0,
                     number or lg.number)
            self.begun = True

    # -- the journal: records while a clock runs (no erase, no allocation) ------------
    # (Small frames: MicroPython puts a frame of more than ~11 words on the heap.)
    def _usable(self):
        """Does the next record go to the journal?  (Armed and not full, or
        being armed: the record's flush finishes the arming first.)"""
        j = self.j
        if j is None:
            return False
        if j.arming():
            return True
        return j.ok and not j.full()

    def _stage(self, code, side, arg, t):
        """An event record made now (the clock as it is at the event),
        programmed by flush(); returned, so that a checkpoint or a pair
        sets its kind."""
        if self.nst >= STAGE:
            self.flush(t)       # (a burst: the oldest go now)
        r = self.st[self.nst]
        _set_event(r, code, side, arg)     # (a global: a small frame)
        self._fill(r, t)
        self.nst += 1
        return r

    def _fill(self, r, t):
        s = self.store.seq
        lt = self.lt
        lt.at(t)
        jmod.set_time(r, s if s > 0 else 0, lt.h, lt.l)
        jmod.set_game(r, self.log.number)
        jmod.set_clock(r, self.clock)

    def flush(self, now):
        """Program the staged records into the journal, in order.  If it is
        full or the flash refuses, the rest go to the files (a spill)."""
        k = 0
        while k < self.nst:
            if not self._program(self.st[k]):
                self._spill(k, now)
                break
            k += 1
        self.nst = 0

    def _program(self, r):
        j = self.j
        if j is not None and j.arming():
            self._arm_finish()  # a game began before the arming was done
            j = self.j
        if j is None:
            return False
        j.rec = r
        if not j.append():
            return False
        if jmod.kind(r) == jmod.KIND_UNDO:
            self._kill(jmod.arg(r), j.count - 1)
        return True

    def _kill(self, a, b):
        """Journal records a .. b-1 are void (an UNDO record, programmed,
        undid them): page programs, no erase, no allocation."""
        j = self.j
        while a < b:
            j.kill(a)
            a += 1

    def _spill(self, k, now):
        """The journal took no more (full, or the flash refused): what it
        holds goes to the files, then the staged records from k on (their
        log lines), then one state file save; it is re-armed where nobody
        waits.  (Erases while a clock may run: only past a whole game's
        worth of running time without an end, or on a failing flash.)"""
        if self.j is not None and self.j.count > self.folded:
            self._fold_all()
            self.folded = self.j.count
            self.fcur = False
        n = self.j.count if self.j is not None else 0
        while k < self.nst:
            self._line(self.st[k], n + k)
            self._fed()
            k += 1
        self.nst = 0
        self.last_save = now
        self._keep(now)
        self.arm_due = True

    def pending(self):
        """Journal records not yet in the files (staged ones included)?"""
        return self.j is not None and (self.j.count > self.folded or self.nst > 0)

    # -- folding the journal into the files, and re-arming it ------------------------
    # Only where nobody waits (tick(work=True) in ready or over, one slice
    # a step; forget(); power-up), or all at once when asked (fold()).
    def fold(self, now, arm=True):
        """The journal's records since the last fold go into the files: the
        log lines, then one checkpoint of the clock as it is now.  The
        journal is re-armed when more than half full (erases: call this
        only while no clock runs; arm=False: only marked, for tick())."""
        if self.nst:
            self.flush(now)
        j = self.j
        if j is None:
            return
        if j.ok and not j.arming():
            self._fold_all()
        self._fold_end(now)
        j = self.j
        if j is not None and not j.arming() and (not j.ok or self._roomy()):
            self.arm_due = not arm
            if arm:
                self._arm()

    def _fold_all(self):
        while not self._fold_step(FOLD_SLICE):
            pass

    def _fold_step(self, n):
        """Up to n records' log lines; True at the journal's end."""
        if not self.fcur:
            self.j.rewind(self.folded)
            self.fcur = True
        return self._lines(n)

    def _lines(self, n, stop=0x3FFFFFFF):
        """The log lines of up to n records from the journal's read cursor,
        written in one append (one flash commit), the watchdog fed after;
        True at the journal's end (or at record `stop`)."""
        j = self.j
        b = self.rb
        end = False
        self.log.hold()
        try:
            while n > 0:
                if j.rk >= stop or not j.read_next(b):
                    end = True
                    break
                if not jmod.void(b):
                    self._line(b, j.rk - 1)
                n -= 1
        finally:
            self.log.release()
        self._fed()
        return end

    def _fold_end(self, now):
        """Every record is in the log: one state file save records it."""
        self.folded = self.j.count
        self.fcur = False
        self.last_save = now
        self._keep(now)

    def _work(self, now):
        """One slice of flash work, in ready or over (no clock runs), from
        the step after the one that got there: the step that ends a game
        (or resets it) draws and allocates nothing more."""
        st = self.clock.state
        if st != cc.READY and st != cc.OVER:
            self.calm = False
            return
        if not self.calm:
            self.calm = True
            return
        j = self.j
        if j.arming():
            self._arm_step()
        elif j.ok and j.count > self.folded:
            if self._fold_step(FOLD_SLICE):
                self._fold_end(now)
                if self._roomy():
                    self.arm_due = True
        elif self.arm_due or not j.ok:
            self.arm_due = False
            j.feed = self.feed
            j.arm_start()
            self.fcur = False

    def _arm_step(self):
        r = self.j.arm_step()
        if r < 0:
            self.j = None       # the flash refused: the files only, from now on
        elif r > 0:
            self._rearmed()

    def _rearmed(self):
        self.folded = 0
        for k in range(MARKS):  # every record from now on is after each mark
            self._mk[k] = 0

    def _arm_finish(self):
        while self.j is not None and self.j.arming():
            self._arm_step()

    def _arm(self):
        """Re-arm the journal at once (sliced inside, the watchdog fed)."""
        self._rearmed()
        self.fcur = False
        self.j.feed = self.feed
        if not self.j.arm():
            self.j = None       # the flash refused: the files only, from now on

    def _line(self, rec, index=-1):
        """A journal record's log line (events, ignored presses, gestures);
        index: its place in the journal (-1: after a power cut, no marks)."""
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

    def forget(self):
        """The game was reset: its journal records go to its log first, then
        nothing is left to restore; the next event opens a new log.  (With
        the journal: a `ready` record in the state file marks its records as
        old.)"""
        if self.pending():
            self.fold(self.lt.anchor, False)
        j = self.j
        if j is not None and (j.count or j.arming()):
            # The journal keeps this game's records until it is re-armed
            # (when more than half full, where nobody waits): a state record
            # newer than them (the reset clock, no log) keeps a power-up
            # from taking them back, and the next game's follow them.
            self.store.save(self.clock.snapshot(), 0, 0, 0)
            if j.ok and self._roomy():
                self.arm_due = True
        else:
            self.store.clear()
        self.log.close()
        self.on = False
        self.begun = False
        self._reserve()

    def _reserve(self):
        """With the journal the next game's file is begun only when its
        clock first stops: its number is reserved now, while no clock runs
        (a read of the folder), so the game has it from its first press
        (net.py publishes it; the file then gets the same number)."""
        if self.j is not None and not self.begun:
            self.log.reserve()

    # -- power-up -----------------------------------------------------------------------
    def restore(self, now, rules):
        """Resume a game cut off by a power failure, paused, as of its last
        checkpoint (the state file's, or a newer one in the journal).
        `rules`: () -> the rules of a clean `ready` when the record cannot
        be used.  The journal is read one record at a time (a whole game's
        records would not fit in the heap) and its lines go to the log now,
        the watchdog fed after each."""
        st = self.store
        got = st.load()
        first = self._unfolded()
        if self.j is not None:
            self.folded = self.j.count  # all of it is in hand now
        if first < 0:
            r = self._restore_file(now, rules, got)
        else:
            r = self._restore_journal(now, rules, got, first)
        j = self.j
        if j is not None and (not j.ok or self._roomy()):
            # no journal yet, or little room left: a game that comes back
            # paused gets a fresh one now (the splash shows meanwhile); a
            # ready or finished one in slices from the main loop
            st = self.clock.state
            if st == cc.READY or st == cc.OVER:
                self.arm_due = True
            else:
                self._arm()
        self._reserve()
        return r

    def _roomy(self):
        """Re-arm the journal?  (It is full, or more than half used.)"""
        j = self.j
        return j.full() or 2 * j.count > j.slots

    def _unfolded(self):
        """The index of the journal's first record newer than the state
        file's record (-1: none); the last record is left in self.rb.  The
        records an UNDO record undid are made void (again: a power cut may
        have cut its kills short)."""
        j = self.j
        if j is None or not j.find():
            return -1
        seq = self.store.seq if self.store.seq > 0 else 0
        b = self.rb
        first = -1
        j.rewind(0)
        while j.read_next(b):
            if first < 0 and jmod.base(b) >= seq:
                first = j.rk - 1
            if jmod.kind(b) == jmod.KIND_UNDO:
                self._kill(jmod.arg(b), j.rk - 1)
        if first < 0:
            return -1
        j.rewind(j.rk - 1)
        j.read_next(b)          # the last one again, into b
        return first

    def _clock_from(self, ints, now, rules):
        """The clock restored from a snapshot (paused if it ran); False,
        and a clean `ready` with `rules()`, if the snapshot is not one."""
        c = self.clock
        try:
            c.restore(ints, now)
        except ValueError:
            c.set_rules(rules(), now)
            return False
        return True

    def _restore_file(self, now, rules, got):
        st = self.store
        if got is None:
            if st.message and st.message != persist.NO_GAME:
                return LOST
            return NOTHING
        ints, log_ms = got
        c = self.clock
        if not self._clock_from(ints, now, rules):
            return LOST
        if c.state == cc.READY and (st.game <= 0 or st.log_pos <= 0):
            return RULES    # the referee's rules for the next game (no log yet)
        self.lt.start(now, st.log_hi, log_ms)
        # The log is cut back to where this checkpoint was taken, then
        # "<ms> pause  # power restored" (a clock that ran comes back paused;
        # a lateness clock runs on, it is not a game yet).
        self.on = self.begun = self.log.restored(logtime.text(st.log_hi, log_ms),
                                                 ints[1] == cc.RUNNING, st.game, st.log_pos)
        self.save(now)
        return RESTORED

    def _restore_journal(self, now, rules, got, first):
        """The state file's record (if any), then the journal's records after
        it: the log is cut back to the file record's length, the journal's
        lines follow, then the power line; the clock is the last record's
        (in self.rb)."""
        st = self.store
        last = self.rb
        ints = jmod.snapshot(last)
        c = self.clock
        if not self._clock_from(ints, now, rules):
            return LOST
        self.lt.start(now, jmod.log_hi(last), jmod.log_ms(last))
        self.on = True
        self.begun = got is not None and st.game > 0 and st.log_pos > 0 and \
            self.log.reopen(st.game, st.log_pos)
        self.j.rewind(first)
        while not self._lines(FOLD_SLICE):
            pass
        if self.begun:
            self.log.power_line(self._stamp(now), ints[1] == cc.RUNNING)
        self.last_save = now
        self._keep(now)
        if c.state == cc.READY and not self.begun:
            self.on = False     # every record since was undone by a gesture:
            return RULES        # a ready clock, no game (nothing to announce)
        return RESTORED
