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
#   forget()              the game was reset: nothing to restore, the next
#                         event opens a new log
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
import persist
import gamelog

CHECKPOINT_MS = 4000    # < 5 s: at most this much running time can go uncharged
LOG_MS_MAX = gamelog.MAX_MS - 1  # log times stay below the log format's bound
_REANCHOR_MS = 1 << 27  # re-anchor the log time base well inside half a tick wrap

# restore() results
NOTHING = 0     # no saved game: a fresh `ready`
LOST = 1        # a corrupt or foreign state file: a clean `ready` (say so)
RULES = 2       # a `ready` clock with the referee's rules, no game log yet
RESTORED = 3    # a game resumed as of its last checkpoint (paused if it ran)


class Session:
    def __init__(self, clock, now, diff, fs=None, root="", clock_id="",
                 table=None):
        self.clock = clock
        self.diff = diff
        self.table = table      # () -> the table number for a new log's header
        self.store = persist.StateStore(fs, root + "clock.state")
        self.log = gamelog.GameLog(fs, root + "games", clock=clock_id)
        self.on = False         # a game file is open for this game
        self.offset = 0         # log ms at `anchor`
        self.anchor = now
        self.last_save = now

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
        self.last_save = now
        lg = self.log
        self.store.save(self.clock.snapshot(), self.log_ms(now), lg.pos, lg.number)

    def tick(self, now, running):
        """One main-loop iteration; `running`: a clock runs."""
        if running and self.diff(now, self.last_save) >= CHECKPOINT_MS:
            self.save(now)
        if self.diff(now, self.anchor) >= _REANCHOR_MS:
            self.offset = self.log_ms(now)
            self.anchor = now

    # -- the core's events ------------------------------------------------------------
    def event(self, code, side, t, arg):
        """Log the event, then checkpoint (the window's end is only shown,
        not kept).  The log stays open on the final screen: the referee's
        void and resume go into it; forget() closes it."""
        c = self.clock
        if not self.on:
            self.log.begin(c.rules, self.table() if self.table is not None else 0)
            self.on = True
            self.offset = 0
            self.anchor = t
        self.log.event(self.log_ms(t), code, side, arg, c.rem[0], c.rem[1])
        if code != cc.EV_WINDOW:
            self.save(t)

    def comment(self, t, text):
        """A comment line at log time of tick t, if a game is logged."""
        if self.on:
            self.log.comment("%d %s" % (self.log_ms(t), text))

    def forget(self):
        self.store.clear()
        self.log.close()
        self.on = False

    # -- power-up -----------------------------------------------------------------------
    def restore(self, now, rules):
        """Resume a game cut off by a power failure, paused, as of its last
        checkpoint.  `rules`: () -> the rules of a clean `ready` when the
        record cannot be used."""
        st = self.store
        got = st.load()
        if got is None:
            if st.message and st.message != persist.NO_GAME:
                return LOST
            return NOTHING
        ints, log_ms = got
        was_running = ints[1] == cc.RUNNING
        c = self.clock
        try:
            c.restore(ints, now)
        except ValueError:
            c.rules = rules()
            c.reset(now)
            return LOST
        if c.state == cc.READY and (st.game <= 0 or st.log_pos <= 0):
            return RULES    # the referee's rules for the next game (no log yet)
        self.offset = log_ms
        self.anchor = now
        # The log is cut back to where this checkpoint was taken, then
        # "<ms> pause  # power restored" (a clock that ran comes back paused;
        # a lateness clock runs on, it is not a game yet).
        self.on = self.log.restored(log_ms, was_running, st.game, st.log_pos)
        self.save(now)
        return RESTORED
