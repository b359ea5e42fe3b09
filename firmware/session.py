# The game session: what survives a power cut (SPEC §4 "Power loss", "Game
# log"; TSO § 4.1 f: the clock is stopped for a power failure).
#
# Session owns the state store (persist.StateStore), the game log
# (gamelog.GameLog), the log's time base and the order of their writes; App
# only calls it:
#
#   Session(clock, now, diff, fs, root, clock_id, table)
#   restore(now, rules)   at power-up: NOTHING | LOST | RULES | RESTORED
#   event(code, side, t, arg)   the core's hook: the log line first, then
#                         the checkpoint that records how far the log got
#                         (a power cut between the two loses neither)
#   tick(now, running)    every main-loop iteration: a checkpoint every
#                         CHECKPOINT_MS of running time, the time base moved on
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
#
# The log time base.  Log times are ms since the game began, never
# decreasing, continuing across power cuts: log_ms(t) = offset + diff(t,
# anchor).  The first event of a game anchors it at 0; a restore anchors it
# at the checkpoint's log_ms (the outage and the running time after the
# checkpoint are in neither the clock nor the log).  Ticks wrap (2**30 ms on
# the boards), so the anchor is moved on every _REANCHOR_MS, well inside
# half a wrap; log times stop at LOG_MS_MAX, below the log format's bound.
#
# A checkpoint carries the log's length, and a restore cuts the log back to
# it (gamelog.GameLog.restored), so the log and the restored clock agree:
# the log replays to exactly the restored clock (tests/test_power_cuts_app.py).
#
# tick() runs every main-loop iteration: it is kept small (MicroPython puts a
# call frame of more than ~11 words on the heap) and allocates nothing unless
# a checkpoint is due.
import clockcore as cc
import fsys
import persist
import gamelog
import journal as jmod
from gestures import ACTION_NAMES
from buttons import array_i

_put = persist._put

CHECKPOINT_MS = 4000    # < 5 s: at most this much running time can go uncharged
LOG_MS_MAX = gamelog.MAX_MS - 1  # log times stay below the log format's bound
_REANCHOR_MS = 1 << 27  # re-anchor the log time base well inside half a tick wrap

# restore() results
NOTHING = 0     # no saved game: a fresh `ready`
LOST = 1        # a corrupt or foreign state file: a clean `ready` (say so)
RULES = 2       # a `ready` clock with the referee's rules, no game log yet
RESTORED = 3    # a game resumed as of its last checkpoint (paused if it ran)

_PAIR = "%d %s ignored: pressed together with %s"
_GESTURE = "%d gesture %s: the presses of its keys are undone"
MARKS = 4               # mark slots: one per key, and one for a mode change


class Session:
    def __init__(self, clock, now, diff, fs=None, root="", clock_id="",
                 table=None):
        self.clock = clock
        self.diff = diff
        self.table = table      # () -> the table number for a new log's header
        fs = fs if fs is not None else fsys.OsFS()
        # (a record of another snapshot length, from another firmware, is
        # not restored: "state lost", a clean ready)
        self.store = persist.StateStore(fs, root + "clock.state", cc.SNAPSHOT_LEN)
        self.log = gamelog.GameLog(fs, root + "games", clock=clock_id)
        self.on = False         # a game is on: its log time base is set
        self.begun = False      # its game file is open
        self.offset = 0         # log ms at `anchor`
        self.anchor = now
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
        # Gesture marks (mark/retract): per slot, the first journal record
        # after the mark, where the first log line after it went (-1: none
        # yet), and whether the game's log time base was set then.
        self._mk = array_i(MARKS)
        self._mp = array_i(MARKS)
        self._mon = bytearray(MARKS)
        self._mb = bytearray(MARKS)
        for k in range(MARKS):
            self._mp[k] = -1

    # -- the log time base --------------------------------------------------------
    def log_ms(self, t):
        """ms since the game began: never negative, never past LOG_MS_MAX
        (a stale anchor is moved on by tick() long before half a wrap)."""
        d = self.diff(t, self.anchor)
        if d < 0:
            d = 0
        m = self.offset + d
        return m if m < LOG_MS_MAX else LOG_MS_MAX

    # -- checkpoints ----------------------------------------------------------------
    def save(self, now):
        """A checkpoint: into the journal while a clock runs, else (after
        folding the journal) into the state file."""
        self.last_save = now
        if self.j is not None and self.clock.running() >= 0:
            if self._journal(jmod.KIND_CHECK, 0, -1, 0, now):
                return
        self._save_file(now)

    def _save_file(self, now):
        if self.pending():
            self.fold(now)      # saves too
            return
        lg = self.log
        self.store.save(self.clock.snapshot(), self.log_ms(now), lg.pos, lg.number)

    def tick(self, now, running):
        """One main-loop iteration; `running`: a clock runs."""
        if running:
            if self.diff(now, self.last_save) >= CHECKPOINT_MS:
                self.save(now)
        elif self.j is not None and self.j.count > self.folded:
            self.fold(now)      # the clock stopped: the journal goes to the files
        if self.diff(now, self.anchor) >= _REANCHOR_MS:
            self.offset = self.log_ms(now)
            self.anchor = now

    # -- the core's events ------------------------------------------------------------
    def event(self, code, side, t, arg):
        """Log the event, then checkpoint (the window's end is only shown,
        not kept).  The log stays open on the final screen: the referee's
        void and resume go into it; forget() closes it.  While the journal
        takes records, both are one journal record (no file write)."""
        if not self.on:
            self._start(t)
        if not self._jevent(code, side, t, arg):
            self._direct(code, side, t, arg)

    def _start(self, t):
        self.on = True
        self.offset = 0
        self.anchor = t

    def _jevent(self, code, side, t, arg):
        if self.j is None or not self.j.ok:
            return False
        r = self.j.rec
        r[0] = jmod.KIND_EVENT
        r[12] = code
        r[13] = side + 1
        _put(r, 16, arg)
        if self._record(t):
            self.last_save = t
            return True
        self.fold(t)        # full or failing: the files, as without one
        return False

    def _direct(self, code, side, t, arg):
        c = self.clock
        self._begin()
        self._cut_here(0x3FFFFFFF)
        self.log.event(self.log_ms(t), code, side, arg, c.rem[0], c.rem[1])
        if code != cc.EV_WINDOW:
            self.save(t)

    def ignored(self, t, x):
        """Side 1-x's press at t was ignored: pressed together with side x."""
        if not self.on:
            return
        if self.j is not None and self._journal(jmod.KIND_PAIR, 0, x, 0, t):
            return
        self._begin()
        self._cut_here(0x3FFFFFFF)
        self.log.comment(_PAIR % (self.log_ms(t), cc.SIDE_NAMES[1 - x], cc.SIDE_NAMES[x]))

    def gesture(self, code, t):
        """A gesture was recognised (its keys' presses were undone): a
        comment in the log, so a referee reading it sees why."""
        if not self.on:
            return
        if self.j is not None and self._journal(jmod.KIND_NOTE, code, -1, 0, t):
            return
        self._begin()
        self.log.comment(_GESTURE % (self.log_ms(t), ACTION_NAMES[code]))

    # -- gestures: mark and retract ---------------------------------------------------
    def mark(self, k):
        """Slot k: the log as it stands now (before a key's edge acts).
        Allocation-free: it runs at every press."""
        j = self.j
        self._mk[k] = j.count if j is not None else 0
        self._mp[k] = -1
        self._mon[k] = 1 if self.on else 0
        self._mb[k] = 1 if self.begun else 0

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
        log lines already written after the mark are cut off; then the
        clock, already restored by the caller, is checkpointed.  (A gesture
        is rare and leaves the clock stopped: file work is allowed here.)"""
        j = self.j
        if j is not None and j.ok and j.count > self.folded:
            recs = j.records(self.folded)
            i = self.folded
            for rec in recs:
                if i >= self._mk[k]:
                    break
                self._line(rec, i)
                i += 1
            self.folded = j.count
        cut = self._mp[k]
        if self.begun and not self._mb[k]:
            self.log.discard()  # begun for the undone keys only
            self.begun = False
            self._reserve()
        elif cut >= 0 and self.begun and cut < self.log.pos:
            self.log.reopen(self.log.number, cut)
        if not self._mon[k]:
            self.on = False     # nothing was logged before: the game's log
                                # time base starts again at its first event
        if cut >= 0:
            for m in range(MARKS):
                if self._mp[m] > cut:
                    self._mp[m] = -1    # what it marked is cut off too
        self.save(now)

    def _begin(self):
        if not self.begun:
            self.log.begin(self.clock.rules, self.table() if self.table is not None else 0)
            self.begun = True

    # -- the journal: records while a clock runs (no erase, no allocation) ------------
    # (Small frames: MicroPython puts a frame of more than ~11 words on the heap.)
    def _journal(self, kind, code, side, arg, t):
        if not self.j.ok:
            return False
        r = self.j.rec
        r[0] = kind
        r[12] = code
        r[13] = side + 1
        _put(r, 16, arg)
        return self._record(t)

    def _record(self, t):
        r = self.j.rec
        s = self.store.seq
        _put(r, 4, s if s > 0 else 0)
        _put(r, 8, self.log_ms(t))
        self._rems(r)
        self._snap(r)
        return self.j.append()

    def _rems(self, r):
        c = self.clock
        _put(r, 20, c.rem[0])
        _put(r, 24, c.rem[1])

    def _snap(self, r):
        s = self.clock.snapshot()
        n = len(s)
        k = 0
        while k < n:
            _put(r, 28 + 4 * k, s[k])
            k += 1

    def pending(self):
        return self.j is not None and self.j.count > self.folded

    def fold(self, now):
        """The journal's records since the last fold go into the files: the
        log lines, then one checkpoint of the clock as it is now.  The
        journal is re-armed when more than half full (erases: call this
        only while no clock runs, unless the journal is full)."""
        j = self.j
        recs = j.records(self.folded) if j.ok else []
        i = self.folded
        self.folded = j.count
        for rec in recs:
            self._line(rec, i)
            i += 1
        lg = self.log
        self.last_save = now
        self.store.save(self.clock.snapshot(), self.log_ms(now), lg.pos, lg.number)
        if not j.ok or self._roomy():
            self._arm()

    def _arm(self):
        self.folded = 0
        for k in range(MARKS):  # every record from now on is after each mark
            self._mk[k] = 0
        if not self.j.arm():
            self.j = None       # the flash refused: the files only, from now on

    def _line(self, rec, index=-1):
        """A journal record's log line (events, ignored presses, gestures);
        index: its place in the journal (-1: after a power cut, no marks)."""
        kind = rec[0]
        if kind == jmod.KIND_CHECK:
            return
        self._begin()
        if index >= 0:
            self._cut_here(index)
        ms = jmod.field(rec, 8)
        side = rec[13] - 1
        if kind == jmod.KIND_NOTE:
            self.log.comment(_GESTURE % (ms, ACTION_NAMES[rec[12]]))
        elif kind == jmod.KIND_PAIR:
            self.log.comment(_PAIR % (ms, cc.SIDE_NAMES[1 - side], cc.SIDE_NAMES[side]))
        else:
            self.log.event(ms, rec[12], side, jmod.field(rec, 16),
                           jmod.field(rec, 20), jmod.field(rec, 24))

    def forget(self):
        """The game was reset: its journal records go to its log first, then
        nothing is left to restore; the next event opens a new log."""
        if self.pending():
            self.fold(self.anchor)
        if self.j is not None and self.j.count:
            self._arm()
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
        be used."""
        st = self.store
        got = st.load()
        recs = self._unfolded()
        if self.j is not None:
            self.folded = self.j.count  # all of it is in hand now
        if not recs:
            r = self._restore_file(now, rules, got)
        else:
            r = self._restore_journal(now, rules, got, recs)
        j = self.j
        if j is not None and (not j.ok or self._roomy()):
            self._arm()         # no journal yet, or little room left
        self._reserve()
        return r

    def _roomy(self):
        """Re-arm the journal?  (It is full, or more than half used.)"""
        j = self.j
        return j.full() or 2 * j.count > j.slots

    def _unfolded(self):
        """The journal's records newer than the state file's record."""
        j = self.j
        if j is None or not j.find():
            return []
        seq = self.store.seq if self.store.seq > 0 else 0
        return [r for r in j.records() if jmod.field(r, 4) >= seq]

    def _clock_from(self, ints, now, rules):
        """The clock restored from a snapshot (paused if it ran); False,
        and a clean `ready` with `rules()`, if the snapshot is not one."""
        c = self.clock
        try:
            c.restore(ints, now)
        except ValueError:
            c.rules = rules()
            c.reset(now)
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
        self.offset = log_ms
        self.anchor = now
        # The log is cut back to where this checkpoint was taken, then
        # "<ms> pause  # power restored" (a clock that ran comes back paused;
        # a lateness clock runs on, it is not a game yet).
        self.on = self.begun = self.log.restored(log_ms, ints[1] == cc.RUNNING,
                                                 st.game, st.log_pos)
        self.save(now)
        return RESTORED

    def _restore_journal(self, now, rules, got, recs):
        """The state file's record (if any), then the journal's records after
        it: the log is cut back to the file record's length, the journal's
        lines follow, then the power line; the clock is the last record's."""
        st = self.store
        last = recs[-1]
        ints = jmod.snapshot(last)
        log_ms = jmod.field(last, 8)
        c = self.clock
        if not self._clock_from(ints, now, rules):
            return LOST
        self.offset = log_ms
        self.anchor = now
        self.on = True
        self.begun = got is not None and st.game > 0 and st.log_pos > 0 and \
            self.log.reopen(st.game, st.log_pos)
        for rec in recs:
            self._line(rec)
        if self.begun:
            self.log.power_line(log_ms, ints[1] == cc.RUNNING)
        self.last_save = now
        lg = self.log
        st.save(c.snapshot(), log_ms, lg.pos, lg.number)
        return RESTORED
