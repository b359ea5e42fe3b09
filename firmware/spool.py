# The running-clock journal's records on their way to the files: staged,
# programmed, folded, and the journal re-armed (issue 20, issue 28: a part
# of the session of its own).  session.py owns one Spool and is its only
# user; the order of the writes and why are described there.
#
#   Spool(j, out, log, marks, feed)
#                   j: a journal.Journal (None: no raw flash, every write
#                   goes to the files); out: the session, which turns a
#                   record into its log line and takes the checkpoints:
#                     out.line(rec, index)  a record's log line (index: its
#                                           place in the journal; -1 none)
#                     out.keep(now)         one state file checkpoint now
#                   log: the game log (held: a slice's lines, one append);
#                   marks: the gesture marks (marks.py; re-armed: reset);
#                   feed: the watchdog's feed, between slices
#   usable() / arming()  does the next record go to the journal? / is
#                   the journal being armed?
#   slot(t)         the next staged record's buffer (filled by the session)
#   program()       before the draw: the staged records the journal takes
#                   programmed now, the rest left staged (for flush)
#   flush(now)      the staged records programmed (a spill: to the files)
#   index()         where the next record will be (a gesture's mark)
#   pending()       records not yet in the files (staged ones included)?
#   busy(running, state)  a step has work: staged records, a slice due
#   work(now, go, state)  one slice of flash work (go: no clock runs, or
#                   an arming a game began during goes on)
#   fold(now, arm)  every record into the files now (+ re-arm)
#   fold_lines(now) every record's log line now, no checkpoint
#   undo(mk)        drop the staged records after journal index mk;
#                   True if programmed ones follow it (an UNDO record)
#   drop(mk, now)   the records before mk become log lines, the rest not
#   reset()         a game reset: records kept for a power-up?
#   unfolded(seq) / replay(first) / restored(calm)   power-up (powerup.py)
# Read, never written, by the session and powerup.py: nst (records staged),
# j (the journal; None once the flash refused), rb (the record read back).
#
# tick() calls flush() and work() every main-loop step: they allocate
# nothing and keep their frames small (MicroPython puts a frame of more
# than ~11 words on the heap); the files are written only in ready or over.
import clockcore as cc
import journal as jmod

STAGE = 4               # records staged in a step before they are programmed
FOLD_SLICE = 16         # journal records folded into the log per step (one append)


class Spool:
    def __init__(self, j, out, log, marks, feed=None):
        self.j = j
        self.out = out
        self.log = log
        self.marks = marks
        self.feed = feed
        self.folded = 0         # journal records already in the files
        self.arm_due = False    # re-arm the journal where nobody waits
        self.fcur = False       # the journal's read cursor is at `folded`
        self.nst = 0            # records staged, not yet programmed
        self.calm = False       # the last step was in ready/over already
        if j is not None:
            self.st = [jmod.new_record(j.n) for _ in range(STAGE)]  # staged
            self.rb = bytearray(j.size)     # one record read back (fold, power-up)

    def _fed(self):
        if self.feed is not None:
            self.feed()

    # -- staging and programming (no erase, no allocation) ----------------------------
    def usable(self):
        """Does the next record go to the journal?  (Armed and not full, or
        being armed: the records staged meanwhile go to the files.)"""
        j = self.j
        return j is not None and (j.arming() or (j.ok and not j.full()))

    def arming(self):
        return self.j is not None and self.j.arming()

    def slot(self, t):
        """The next staged record's buffer (programmed by flush())."""
        if self.nst >= STAGE:
            self.flush(t)       # (a burst: the oldest go now)
        r = self.st[self.nst]
        self.nst += 1
        return r

    def index(self):
        """The journal index the next record gets (staged ones count)."""
        j = self.j
        return j.count + self.nst if j is not None else 0

    def program(self):
        """Before the step's draw (SPEC §4 Power loss: a transition's record
        follows the key's edge within a few ms, the display within 30): the
        staged records, in order, while the journal takes them (armed, not
        full).  What it does not take stays staged, first in line, for
        flush() after the draw (a spill writes files: never before a draw).
        The number programmed."""
        st = self.st
        n = self.nst
        k = 0
        while k < n and self._program(st[k]):
            k += 1
        if k:
            i = k
            while i < n:        # (buffers swapped: nothing allocated)
                st[i - k], st[i] = st[i], st[i - k]
                i += 1
            self.nst = n - k
        return k

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
        if j is None or j.arming():
            return False        # (a game began before the arming was done:
                                # the files take it, _spill; the arming goes
                                # on a slice a step, work())
        if not j.append(r):
            return False
        if jmod.kind(r) == jmod.KIND_UNDO:
            j.kill_range(jmod.arg(r), j.count - 1)
        return True

    def _spill(self, k, now):
        """The journal took no more (full, or the flash refused): what it
        holds goes to the files, then the staged records from k on (their
        log lines), then one state file save; it is re-armed where nobody
        waits.  (Erases while a clock may run: only past a whole game's
        worth of running time without an end, or on a failing flash.)"""
        j = self.j
        arming = j is not None and j.arming()
        if j is not None and not arming and j.count > self.folded:
            self._fold_all()
        n = self.j.count if self.j is not None else 0
        while k < self.nst:
            self.out.line(self.st[k], n + k)
            self._fed()
            k += 1
        self.nst = 0
        self.out.keep(now)
        self.arm_due = not arming

    def pending(self):
        """Journal records not yet in the files (staged ones included)?"""
        return self.j is not None and (self.j.count > self.folded or self.nst > 0)

    def busy(self, running, state):
        """A step has work at once: staged records, a slice of flash work in
        ready or over, or a slice of an arming a game began during."""
        return self.nst > 0 or self.arming() or (not running and self._due(state))

    def _due(self, state):
        """work() has a slice to do (or is one step from it)."""
        j = self.j
        if j is None or (state != cc.READY and state != cc.OVER):
            return False
        return not self.calm or j.arming() or not j.ok or self.arm_due \
            or j.count > self.folded

    # -- folding into the files, and re-arming -----------------------------------------
    # Only where nobody waits (work() in ready or over, one slice a step;
    # the session's forget(); power-up), or all at once when asked (fold()).
    def fold(self, now, arm=True):
        """The journal's records since the last fold go into the files: the
        log lines, then one checkpoint of the clock as it is now.  The
        journal is re-armed when more than half full (erases: call this
        only while no clock runs; arm=False: only marked, for work())."""
        if self.nst:
            self.flush(now)
        j = self.j
        if j is None:
            return
        if j.ok and not j.arming():
            self._fold_all()
        self._fold_end(now)
        j = self.j
        if j is not None and not j.arming() and (not j.ok or j.roomy()):
            self.arm_due = not arm
            if arm:
                self._arm()

    def fold_lines(self, now):
        """The staged records programmed, then every record's log line (a
        retract cuts the log after them; the session checkpoints)."""
        self.flush(now)
        if self.pending():
            self._fold_all()

    def _fold_all(self, stop=0x3FFFFFFF):
        """Every record's log line (up to `stop`), in slices: the watchdog is
        fed between; then they are folded."""
        while not self._fold_step(FOLD_SLICE, stop):
            pass
        self.folded = self.j.count
        self.fcur = False

    def _fold_step(self, n, stop=0x3FFFFFFF):
        """Up to n records' log lines; True at the journal's end (or `stop`)."""
        if not self.fcur:
            self.j.rewind(self.folded)
            self.fcur = True
        return self._lines(n, stop)

    def _lines(self, n, stop=0x3FFFFFFF):
        """The log lines of up to n records from the journal's read cursor,
        written in one append (one flash commit),
        the watchdog fed after; True at the journal's end (or at `stop`)."""
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
                    self.out.line(b, j.rk - 1)
                n -= 1
        finally:
            self.log.release()
        self._fed()
        return end

    def _fold_end(self, now):
        """Every record is in the log: one state file save records it."""
        self.folded = self.j.count
        self.fcur = False
        self.out.keep(now)

    def work(self, now, go, st):
        """tick(): one slice of flash work if `go` (no clock runs, or one
        runs while an arming goes on), in ready or over (no clock runs),
        from the step after the one that got there: the step that ends a
        game (or resets it) draws and allocates nothing more.  A clock
        running (st): only a slice of an arming a game began during."""
        j = self.j
        if not go or j is None or (st != cc.READY and st != cc.OVER):
            self.calm = False
            if go and j is not None and j.arming():
                self._arm_step()    # a game began while it was armed
            return
        if not self.calm:
            self.calm = True
            return
        if j.arming():
            self._arm_step()
        elif j.ok and j.count > self.folded:
            if self._fold_step(FOLD_SLICE):
                self._fold_end(now)
                if self.j.roomy():
                    self.arm_due = True
        elif self.arm_due or not j.ok:
            self.arm_due = False
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
        self.marks.rearmed()    # every record from now on is after each mark

    def _arm(self):
        """Re-arm the journal at once (sliced inside, the watchdog fed)."""
        self._rearmed()
        self.fcur = False
        if not self.j.arm():
            self.j = None       # the flash refused: the files only, from now on

    # -- a gesture's undo ---------------------------------------------------------------
    def undo(self, mk):
        """The staged records made after journal index mk are dropped; True
        if programmed records follow mk (an UNDO record must void them)."""
        j = self.j
        n = mk - j.count        # staged records made before the mark
        if self.nst > n:
            self.nst = n if n > 0 else 0
        return j.count > mk

    def drop(self, mk, now):
        """The journal's records before index mk become log lines, the rest
        are passed over (folded without a line).  Staged records made before
        the mark are programmed first; those after it never."""
        j = self.j
        if j is None:
            return
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
        self._fold_all(mk)

    # -- a reset: the records stay until re-armed ------------------------------------
    def reset(self):
        """forget(): does the journal hold records (or is it being armed)?
        Then a state record newer than them must keep a power-up from
        taking them back; it is re-armed where nobody waits if more than
        half used."""
        j = self.j
        if j is None or (j.count == 0 and not j.arming()):
            return False
        if j.ok and j.roomy():
            self.arm_due = True
        return True

    # -- power-up ----------------------------------------------------------------------
    def unfolded(self, seq):
        """The index of the journal's first record newer than the state
        file's record, `seq` (-1: none), the last record left in self.rb
        (Journal.unfolded); all of it is in hand after this (folded)."""
        j = self.j
        if j is None:
            return -1
        first = j.unfolded(seq, self.rb)
        self.folded = j.count
        return first

    def replay(self, first):
        """The log lines of the records from index `first` on (power-up)."""
        self.j.rewind(first)
        while not self._lines(FOLD_SLICE):
            pass

    def restored(self, calm):
        """After a power-up: no journal yet, or little room left: a game
        that comes back paused gets a fresh one now (the splash shows
        meanwhile); a ready or finished one (`calm`) in slices."""
        j = self.j
        if j is not None and (not j.ok or j.roomy()):
            if calm:
                self.arm_due = True
            else:
                self._arm()
