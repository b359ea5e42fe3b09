# The game screen: what the keys do in a game (SPEC v5 §4 Buttons and
# Gestures on the device) and the game as a frame (frame.py) the display
# families draw.
#
# handle(action, t) takes each action of gestures.py at its own edge time.
# A key acts at its leading edge; first it keeps a snapshot of the game (a
# slot per key, preallocated), so that a gesture then made of fresh presses
# (gestures.py: its keys all down within 2 s) can undo exactly what was done
# from its first key's edge on, and do its own thing, at the instant it is
# recognised.  Whether a gesture counts is decided by the game as it was at
# that first edge: a held pause key stops a running clock and no more; late
# arrival only from `ready`; a confirmation not while a clock ran, unless a
# question shows (the two player buttons are then presses, however long
# held).  While a question shows (question.py), the keys answer it and
# leave the clock alone: their edges change no time and no turn, and the
# yes acts at its instant.  No gesture undoes the rules' own end: when the
# rules ended the game or flagged a side (a forfeit, both flags, the
# lateness limit, a flag in a flag profile) after a gesture's first key,
# its undo goes back to that instant only (slot SLOT_RULE, taken then).
# It returns one code, the only thing the app reads (None: nothing for the
# app to do):
#   SETUP    the pause key held 2 s in ready, then every key up: the setup menu
#   REFEREE  the referee gesture in ready, paused, late or over: the referee
#            menu (in late the lateness clock runs on meanwhile)
#   NEW      "NEW GAME?" confirmed on the final screen: a new game
#   UNDONE   any other gesture: it undid its keys (the hall publishes again)
# The questions END? and NEW GAME? are question.py's, over this screen.
#
# render() fills the frame from the clock when something shown changed and
# returns it; else it returns None (nothing to send to the displays).
#
# Split into small methods: a press in a running game must not allocate, and
# MicroPython puts a call frame of more than ~11 words on the heap.
import clockcore as cc
import gestures as gst
import outputs
from profiles import ZERO_FLAG
import question as qmod
import rows as rowsmod
import session as sessmod

LOCK_MS = 500          # a side started by a turn-ending press ignores its own
                       # button this long (SPEC v4 §4 Buttons: no Scrabble turn
                       # is that short); not after the opponent's restart
SLOT_MODE = 3          # the snapshot slot taken on entering the game screen
                       # with keys held (slots 0-2: each key's press)
SLOT_RULE = 4          # ... and the one taken when the rules ended the game or
                       # flagged a side (SPEC v5 §4: no gesture undoes that)

SETUP = "setup"
REFEREE = "referee"
NEW = "new"
UNDONE = "undone"

_BEEPS = {cc.EV_WINDOW: outputs.BEEP_WINDOW, cc.EV_FLAG: outputs.BEEP_FLAG,
          cc.EV_FORFEIT: outputs.BEEP_FORFEIT, cc.EV_OVER: outputs.BEEP_FORFEIT}


def _copy(src, dst):
    """dst[:] = src for two lists of the same length, allocating nothing."""
    i = 0
    n = len(src)
    while i < n:
        dst[i] = src[i]
        i += 1


class Game:
    def __init__(self, clock, session, gestures, display, buzzer, now,
                 ticks_ms, diff, add):
        self.clock = clock
        self.session = session
        self.gestures = gestures
        self.display = display
        self.buzzer = buzzer
        self.frame = display.frame
        self.question = qmod.Question(display, gestures, diff, add)
        self.ticks_ms = ticks_ms
        self.diff = diff
        self.add = add
        # the game before each key's latest press (slots 0-2), on entering
        # (3), at the rules' last end or flag (4)
        self.snaps = [[0] * cc.SNAPSHOT_LEN for _ in range(SLOT_RULE + 1)]
        self.valid = 0            # the slots (bits) taken on this game screen
        self.ruled = 0            # the slots (bits) taken before SLOT_RULE
        self.lock_side = -1       # the side just started by a player button ...
        self.lock_until = now     # ... ignores its own button until then
        self.setup_due = False    # a 2 s hold in ready: setup when released alone
        self.forget_due = False   # a reset's file work, after this step's draw

    # -- the game ------------------------------------------------------------------
    def event(self, code, side, t, arg):
        """The core's event hook (through the app): the log line, then the
        checkpoint (session.py); a redraw; a key press dismisses the
        notices; the buzzer."""
        self.frame.touch()
        self.session.event(code, side, t, arg)
        if code == cc.EV_FORFEIT or code == cc.EV_OVER or \
                (code == cc.EV_FLAG and self.clock.rules.zero == ZERO_FLAG):
            self._ruled()
        if cc.is_action(code) and self.display.notes:
            self.display.clear(t)
        if code in _BEEPS:
            self.buzzer.beep(_BEEPS[code], t)

    def _ruled(self):
        """The rules ended the game or flagged a side, now (the core's hook:
        the clock is the state after it, its record staged): the slot a
        gesture whose first key came before goes back to, no further (SPEC
        v5 §4; TSO § 5.2 c, PFS § 6.2.1)."""
        _copy(self.clock.snapshot(), self.snaps[SLOT_RULE])
        self.session.mark(SLOT_RULE)
        self.ruled = self.valid & ~(1 << SLOT_RULE)
        self.valid |= 1 << SLOT_RULE

    def new(self, now, rules, after_draw=False):
        """A new game in `ready` with `rules`: the clock reset, the old game
        forgotten (`after_draw`: see forget()), the rules in the frame."""
        self.clock.set_rules(rules, now)
        self.forget(after_draw)
        self.header()

    def show_hall(self, h):
        """The hall's state (net.HALL_*): the mark on the game screen."""
        self.frame.set_hall(h)

    def forget(self, after_draw=False):
        """The clock was reset: nothing to restore, next event opens a new
        log, no notices.  `after_draw`: in settle(), once this step has
        drawn the new game (a confirmed new game or reset, SPEC v5, §6: the
        answer shown within 30 ms; the old game's records folded into its
        log and the reset recorded then take 130-280 ms on the Pico's
        flash).  Nothing that logs comes in between: the clock is in
        `ready`, and the keys still held at the yes log nothing there."""
        if after_draw:
            self.forget_due = True
            return
        self.forget_due = False
        self.session.forget()
        self.display.clear(self.ticks_ms())

    def settle(self):
        """After the draw, every step (app.py _flash): a forget() left for
        after it."""
        if self.forget_due:
            self.forget()

    def header(self):
        """The game's rules in the frame (a 20x4 shows them)."""
        self.frame.set_rules(self.clock.rules)

    def restore(self, now, rules):
        """Resume a game cut off by a power failure (TSO § 4.1 f): paused, as
        of the last checkpoint, with a notice on the screen.  `rules`: the
        settings' (a function), for a state file without a game."""
        r = self.session.restore(now, rules)
        if r == sessmod.LOST:
            # Corrupt or foreign state file: a clean `ready`, and say so.
            self.display.note("STATELOST")
        elif r != sessmod.NOTHING:
            self.header()  # the restored game's rules, not the settings'
            if r == sessmod.RESTORED:
                # The notice stays until the next key press resumes play.
                self.display.note("RESTORED", 0)

    # -- the screen -----------------------------------------------------------------
    def enter(self, now):
        """The game screen shows again: keys still held from a menu make a
        gesture that undoes only what they do from here."""
        self.frame.touch()
        self.valid = self.ruled = 0
        if self.gestures.any_held():
            self._keep(SLOT_MODE, now)
            self.valid = 1 << SLOT_MODE

    def elsewhere(self):
        """Keys went down outside the game screen: a gesture of theirs has
        nothing here to undo."""
        self.valid = 0

    def tick(self, now, lowbat):
        """Every iteration on the game screen: the clock to now, the lock
        and the question's time, the battery warning."""
        self.clock.update(now)
        if self.lock_side >= 0 and self.diff(now, self.lock_until) >= 0:
            self.lock_side = -1   # over (and never stale across a tick wrap)
        self.question.tick(now)
        self.frame.set_lowbat(lowbat)

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to the next instant the game
        screen changes by itself: what the clock shows
        (clockcore.next_change: a second, a flag, a forfeit, the challenge
        window) or the question's time running out."""
        c = self.clock
        n = cc.next_change(c)
        if n >= 0:
            n -= self.diff(now, c.t)
            if n < ms:
                ms = n
        return self.question.wake(now, ms)

    def render(self):
        f = self.frame
        if f.due(self.clock):
            f.fill(self.clock)
            return f
        return None  # nothing visible changed: no fill, no display traffic

    # -- keys at their edges, gestures that undo them ---------------------------------
    def handle(self, a, t):
        if a <= gst.PAUSE_DOWN:
            self._edge(a - 1, t)
        elif a == gst.ALL_UP:
            return self._all_up(t)
        elif a == gst.UP or a == gst.REGROUP:
            # (REGROUP: a release known late, the group began at a later press)
            self.question.let_go()
        elif a == gst.CONFIRM and self.question.kind != qmod.NONE:
            return self._yes(t)
        else:
            return self._gesture(a, t)
        return None

    def _edge(self, k, t):
        """Key k's leading edge (0 left, 1 right, 2 pause): first the game as
        it is (the snapshot a gesture of this group may go back to), then
        what the key does at once, unless a question showing takes it (SPEC
        v5: it answers and leaves the clock alone)."""
        self._keep(k, t)
        self.valid |= 1 << k
        if self.question.key(k):
            return
        if k == 2:
            self.clock.pause(t)  # TSO § 4.1: the whole clock stops (or goes on)
        else:
            self._player(k, t)

    def _keep(self, k, t):
        """Snapshot slot k: the clock settled to t, copied (no allocation),
        and where the game log stands.  (The copy is a function of its own:
        a loop here made this frame too large to stay off the heap, 136 B at
        every press on the unix port.)"""
        c = self.clock
        c.update(t)
        _copy(c.snapshot(), self.snaps[k])
        self.session.mark(k)
        self.ruled &= ~(1 << k)

    def _player(self, x, t):
        # SPEC v4 §4 Buttons: after a press that ends a turn starts the
        # other side, that side's own button is ignored for LOCK_MS (both
        # players pressing together change the turn once); the ignored press
        # is logged.  The opponent restarting the mover's clock from a pause
        # (TSO § 3.1.1) sets none: the mover's own press right after it ends
        # the mover's turn.  (The game's start press sets it too: both
        # players pressing to begin begin once.)
        if x == self.lock_side and self.diff(t, self.lock_until) < 0:
            self.session.ignored(t, 1 - x)
            return
        c = self.clock
        restart = c.state == cc.PAUSED and c.side != x
        if c.press(x, t) and c.state == cc.RUNNING and not restart:
            self.lock_side = c.side
            self.lock_until = self.add(t, LOCK_MS)

    def _all_up(self, t):
        # Every key is up.  A question that a player button pressed under it
        # did not confirm is answered "no"; a 2 s hold in ready opens the
        # setup menu now (a slow referee who adds both player buttons later
        # gets the referee menu instead).
        self.question.let_go()
        if self.setup_due:
            self.setup_due = False
            if self.clock.state == cc.READY:
                return SETUP
        return None

    def _slot(self):
        """The snapshot slot of the gesture's first key (gestures.key): the
        game before that key's edge; the one taken on entering this screen
        if the key went down before; -1 if neither (begun in a menu)."""
        k = self.gestures.key
        if (self.valid >> k) & 1:
            return k
        if (self.valid >> SLOT_MODE) & 1:
            return SLOT_MODE
        return -1

    def _counts(self, a, st):
        """Is gesture a one at all, the clock in state st at its first key's
        edge (SPEC v4 §4 Gestures)?"""
        if a == gst.PAUSE_LONG:
            # pressed while a clock ran, a held pause key only stops it
            return st != cc.RUNNING and st != cc.LATE
        if a == gst.LATE_L or a == gst.LATE_R:
            return st == cc.READY   # late arrival is a gesture in ready only
        if a == gst.CONFIRM:
            # while a clock runs, both player buttons are presses, never a
            # confirmation, unless a question is showing
            return (st != cc.RUNNING and st != cc.LATE) \
                or self.question.kind != qmod.NONE
        return True

    def _undo(self, k):
        """A gesture undoes its keys: the clock as it was before its first
        key's edge, and stopped from that edge (SPEC v4 §4); if the rules
        ended the game or flagged a side since, as it was then (SPEC v5:
        the end or the flag stands); the game log drops what was logged
        since and records the gesture instead."""
        if (self.ruled >> k) & 1:
            k = SLOT_RULE
        c = self.clock
        t0 = self.gestures.t0
        c.restore(self.snaps[k])   # settled to t0: the time charged up to it
        now = self.ticks_ms()
        self.session.retract(k, now)
        self.lock_side = -1
        self.frame.touch()
        if c.state == cc.RUNNING:
            c.pause(t0)
        elif c.state == cc.LATE:
            # A lateness clock runs on (SPEC v4 §4): charged since t0 and
            # checkpointed now, so a power cut loses no more than ever.
            c.update(now)
            self.session.save(now)

    def _gesture(self, a, t):
        k = self._slot()
        if k < 0:
            return None  # begun in a menu: nothing on the game screen to undo
        if not self._counts(a, self.snaps[k][1]):
            if a == gst.CONFIRM:
                self.gestures.uncounted()   # no confirmation: a referee may follow
            return None  # no gesture: each key's press stands
        self._undo(k)
        if a == gst.LATE_L or a == gst.LATE_R:
            # The present player (the pause key and their own button, held
            # 2 s) starts the absent opponent's clock from the first of
            # those keys' edges (PFS § 2.4, TSO § 2.4); the log begins
            # with it, then the gesture's line.
            self.clock.start_late(cc.RIGHT if a == gst.LATE_L else cc.LEFT,
                                  self.gestures.t0)
            self.session.gesture(a, t)
            return UNDONE
        self.session.gesture(a, t)
        if a == gst.REFEREE or a == gst.CONFIRM:
            return self._answer(a, t)
        c = self.clock
        if c.state == cc.READY:
            self.setup_due = True
        elif c.state == cc.PAUSED:
            self.question.ask(qmod.END, t)
        elif c.state == cc.OVER:
            self.question.ask(qmod.NEW, t)
        return UNDONE

    def _answer(self, a, t):
        """The referee gesture (it drops a question) or a confirmation with
        no question showing (nothing more)."""
        self.question.drop()
        if a == gst.REFEREE:
            self.setup_due = False
            if self.clock.state != cc.RUNNING:
                return REFEREE  # ready, paused, over; late: it runs on (SPEC v4)
        return UNDONE

    def _yes(self, t):
        """Both player buttons held 1 s while a question shows: yes, at that
        instant t (SPEC v5).  Their edges did nothing, so nothing is undone;
        the answer is a transition like any (END: the end's record is staged
        now, in the journal before this step's draw; NEW: the app's new game
        is drawn, then its state record written, in this step).  A question whose time ran out
        before t: a confirmation with no question (its presses undone)."""
        k = self.question.yes(t)
        if k == qmod.NONE:
            return self._gesture(gst.CONFIRM, t)
        self.session.gesture(gst.CONFIRM, t)
        if k == qmod.NEW:
            return NEW
        self.clock.end(t)
        return UNDONE


class Splash:
    """The boot screen: the name, the version (the app's commit) and the rules, drawn once
    for the app's SPLASH_MS (the keys do nothing meanwhile)."""

    def __init__(self, label, rules_name):
        self.top = b"Scrabble clock"
        self.line = (label + " " + rules_name).encode()  # appversion.LABEL

    def render(self, rows):
        for r in rows:
            rowsmod.blank(r)
        rowsmod.word(rows[0], 0, len(rows[0]), self.top, 2)
        rowsmod.word(rows[1], 0, len(rows[1]), self.line, 2)
        return rows
