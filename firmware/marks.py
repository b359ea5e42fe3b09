# Gesture marks (SPEC v3/v4 §4 Gestures; the session's mark() and
# retract()): before a key's edge acts, its slot remembers where the game's
# records and log stand, so that a gesture of that key can undo what its
# keys did since.  Allocation-free (a mark is set at every press): lists of
# small ints and a bytearray, made once.
#
#   m = Marks()
#   m.set(k, index, on)   slot k: the next journal record is `index`; `on`:
#                         the game had begun (an event, its time base set)
#   m.cut_here(index, pos)  a log line of journal record `index` is about to
#                         be written at log position `pos`: the first one
#                         after a mark is where a retract cuts the log to
#   m.index(k) / m.cut(k) / m.began(k)   what slot k remembers (cut: -1,
#                         no line after it yet)
#   m.cut_off(cut)        the log was cut back to `cut`: later cuts go
#   m.rearmed()           the journal was re-armed: every record from now on
#                         is after each mark
MARKS = 5               # one slot per key, one for a mode change, one for the
                        # rules' end or flag (game.py SLOT_MODE, SLOT_RULE)


class Marks:
    def __init__(self):
        self._mk = [0] * MARKS      # the first journal record after the mark
        self._mp = [-1] * MARKS     # where the first log line after it went
        self._mon = bytearray(MARKS)

    def set(self, k, index, on):
        self._mk[k] = index
        self._mp[k] = -1
        self._mon[k] = 1 if on else 0

    def cut_here(self, index, pos):
        k = 0
        while k < MARKS:
            if self._mp[k] < 0 and index >= self._mk[k]:
                self._mp[k] = pos
            k += 1

    def index(self, k):
        return self._mk[k]

    def cut(self, k):
        return self._mp[k]

    def began(self, k):
        return self._mon[k] != 0

    def cut_off(self, cut):
        for m in range(MARKS):
            if self._mp[m] > cut:
                self._mp[m] = -1    # what it marked is cut off too

    def rearmed(self):
        for k in range(MARKS):
            self._mk[k] = 0


# -- the retract: a gesture undoes what its keys did since mark(k) --------------
# (session.py's retract(); s: the Session, changed only through its methods:
# resumed(), checkpoint(), undo_record(), reserve().  A gesture is rare and leaves
# the clock stopped: file work is allowed here.)
def retract(s, k, now):
    """The journal's records before the mark go to the files, those after
    it are dropped; log lines already written after the mark are cut off
    (the whole game file if the game had no event before the mark); the
    clock, already restored by the caller, is checkpointed in the state
    file.

    Power-cut order: the checkpoint (which names the log's new length, or
    no game) is written before the file is cut or removed, so a cut at any
    point restores a clock its log replays to: before the checkpoint, the
    old record and the whole old log; after it, the restored clock and a
    log that the restore cuts back to its length.  The checkpoint is a
    state-file record, never a journal record: the dropped records are
    still in the journal, and only a newer state file record (store.seq)
    makes a restore pass over them."""
    m = s.marks
    if _undo_record(s, k, now):
        return
    s.sp.drop(m.index(k), now)
    lg = s.log
    cut = m.cut(k)
    if not m.began(k):
        # no event before the mark: the game's log time base starts again
        # at its first event
        if s.begun:
            name = lg.name      # begun for the undone keys only
            lg.close()
            s.resumed(False, False)
            s.checkpoint(now)
            lg.remove(name)
            s.reserve()
            return
        s.resumed(False, False)
    if s.begun and 0 <= cut < lg.pos:
        s.checkpoint(now, cut)      # the checkpoint names the cut log ...
        lg.reopen(lg.number, cut)   # ... then the file is cut
    else:
        s.checkpoint(now)
    if cut >= 0:
        m.cut_off(cut)


def _undo_record(s, k, now):
    """With the journal, in a game: the staged records after mark k are
    dropped, and one KIND_UNDO record (staged like any, programmed after the
    draw: no file work, no erase) makes the programmed ones void; it carries
    the restored clock, so a power-up restores that.  False when the journal
    cannot take it (no journal, full, or being armed): then retract() folds
    and checkpoints into the files.  Any number of undos: the records are
    made void on the flash once the UNDO record is programmed (spool.py),
    no table in RAM."""
    sp = s.sp
    if not sp.usable() or sp.arming():
        return False
    m = s.marks
    mk = m.index(k)
    after = sp.undo(mk)
    cut = _cut_lines(s, k, now)
    s.undo_record(mk, after, now)
    if cut:
        sp.fold_lines(now)      # the UNDO record programmed, the rest folded
    if not m.began(k):
        s.resumed(False, s.begun)   # no event before the mark (see retract)
    return True


def _cut_lines(s, k, now):
    """Log lines already folded after the mark (a fold in ready or over
    since, e.g. the pause key that ended a lateness, SPEC v5): the staged
    records before the mark are programmed, the state file names the
    restored clock and the cut log, then the log is cut; all before the
    UNDO record is made (issue 36: an UNDO record programmed before that
    checkpoint restored the undone clock with the undone lines still in
    the log).  True if it cut."""
    lg = s.log
    cut = s.marks.cut(k)
    if not s.begun or cut < 0 or cut >= lg.pos:
        return False
    s.sp.flush(now)
    s.checkpoint(now, cut)
    lg.reopen(lg.number, cut)
    s.marks.cut_off(cut)
    return True
