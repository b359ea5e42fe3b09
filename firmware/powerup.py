# The restore at power-up (SPEC §4 "Power loss"; TSO § 4.1 f: the clock is
# stopped for a power failure): a game cut off comes back paused, as of its
# last checkpoint -- the state file's, or a newer one in the running-clock
# journal -- and its log is cut back to that checkpoint's length, the
# journal's lines after it, then the power line (session.py describes the
# order of the writes; tests/test_power_cuts_app.py cuts the power at every
# flash operation).
#
#   restore(s, now, rules)  s: the Session (its clock, state store, game
#                           log, time base and spool); rules: () -> the rules
#                           of a clean `ready` when the record cannot be
#                           used.  NOTHING | LOST | RULES | RESTORED
#                           (session.py's constants)
#
# The journal is read one record at a time (a whole game's records would
# not fit in the heap) and its lines go to the log now, the watchdog fed
# after each slice.  The session's own state changes only through its
# methods: resumed(on, begun), save(), keep(), reserve().
import clockcore as cc
import persist
import logtime
import journal as jmod

NOTHING = 0     # no saved game: a fresh `ready`
LOST = 1        # a corrupt or foreign state file: a clean `ready` (say so)
RULES = 2       # a `ready` clock with the referee's rules, no game log yet
RESTORED = 3    # a game resumed as of its last checkpoint (paused if it ran)


def restore(s, now, rules):
    st = s.store
    got = st.load()
    first = s.sp.unfolded(st.seq if st.seq > 0 else 0)
    if first < 0:
        r = _from_file(s, now, rules, got)
    else:
        r = _from_journal(s, now, rules, got, first)
    state = s.clock.state
    s.sp.restored(state == cc.READY or state == cc.OVER)
    s.reserve()
    return r


def _clock_from(c, ints, now, rules):
    """The clock restored from a snapshot (paused if it ran); False, and a
    clean `ready` with `rules()`, if the snapshot is not one."""
    try:
        c.restore(ints, now)
    except ValueError:
        c.set_rules(rules(), now)
        return False
    return True


def _from_file(s, now, rules, got):
    st = s.store
    if got is None:
        if st.message and st.message != persist.NO_GAME:
            return LOST
        return NOTHING
    ints, log_ms = got
    c = s.clock
    if not _clock_from(c, ints, now, rules):
        return LOST
    if c.state == cc.READY and (st.game <= 0 or st.log_pos <= 0):
        return RULES    # the referee's rules for the next game (no log yet)
    s.lt.start(now, st.log_hi, log_ms)
    # The log is cut back to where this checkpoint was taken, then
    # "<ms> pause  # power restored" (a clock that ran comes back paused;
    # a lateness clock runs on, it is not a game yet).
    b = s.log.restored(logtime.text(st.log_hi, log_ms), ints[1],
                       st.game, st.log_pos)
    s.resumed(b, b)
    s.save(now)
    return RESTORED


def _from_journal(s, now, rules, got, first):
    """The state file's record (if any), then the journal's records after
    it: the log is cut back to the file record's length, the journal's
    lines follow, then the power line; the clock is the last record's (left
    in the spool's read buffer)."""
    st = s.store
    last = s.sp.rb
    ints = jmod.snapshot(last)
    c = s.clock
    if not _clock_from(c, ints, now, rules):
        return LOST
    s.lt.start(now, jmod.log_hi(last), jmod.log_ms(last))
    b = got is not None and st.game > 0 and st.log_pos > 0 and \
        s.log.reopen(st.game, st.log_pos)
    s.resumed(True, b)
    s.sp.replay(first)
    if s.begun:
        s.log.power_line(s.lt.stamp(now), ints[1])
    s.keep(now)
    if c.state == cc.READY and not s.begun:
        s.resumed(False, False)     # every record since was undone by a
        return RULES                # gesture: a ready clock, no game
    return RESTORED
