# The questions on the game screen (SPEC v5 §4 Gestures): "END? hold L+R"
# (the pause key held 2 s in paused) and "NEW GAME? L+R" (held on the final
# screen), and Answer, the one rule of what the keys say to a question,
# which the referee menu's questions use too.
#
# A question shows in the game screen's centre field (display.py holds the
# notices meanwhile) for ASK_MS.  While it shows, the keys answer it and
# leave the clock alone (game.py): a key's edge changes no time and no
# turn.  Both player buttons held together 1 s, the pause key up
# (gestures.CONFIRM), answer yes, at that instant (not at their release).
# Anything else answers no: a player button pressed while it showed and let
# go before that instant, the pause key's press, the question's time running
# out (also while a key is held).  The question then closes, the clock stays
# as it was, and later presses act as the state table says.  The referee
# gesture drops it.
#
# key(i) / let_go() / yes(t) take the game screen's key actions while a
# question shows; game.py acts on the answer (END: the end, NEW: a new game).
from buttons import BTN_PAUSE

NONE = 0
END = 1                # "END? hold L+R": the end of the game, confirmed
NEW = 2                # "NEW GAME? L+R": leave the final screen, confirmed

ASK_MS = 6000          # a question waits this long for L+R


class Answer:
    """What the keys say to a question showing (SPEC v5 §4 Gestures).  A
    player button pressed while it shows begins an answer; let go before
    the yes (gestures.CONFIRM, which the screen takes), it answers no; the
    pause key's press answers no.  A key held from before the question (the
    press that asked it) answers nothing by its release.  `held(i)`: is
    key i down now (gestures.Gestures.held)."""

    def __init__(self, held):
        self.held = held
        self.keys = 0          # the player buttons pressed while it showed (bits)

    def clear(self):
        """A question is asked: no key has answered it yet."""
        self.keys = 0

    def key(self, i):
        """Key i went down while the question shows: True if that answers
        no (the pause key); a player button only begins an answer."""
        if i == BTN_PAUSE:
            return True
        self.keys |= 1 << i
        return False

    def let_go(self):
        """A key was let go: True if that answers no (a player button that
        began an answer is up before the yes)."""
        k = self.keys
        return (k & 1 and not self.held(0)) or (k & 2 and not self.held(1))


class Question:
    def __init__(self, display, gestures, diff, add):
        self.display = display
        self.gestures = gestures
        self.diff = diff
        self.add = add
        self.kind = NONE      # the question showing
        self.until = 0        # when it times out
        self.answer = Answer(gestures.held)

    def ask(self, kind, now):
        self.kind = kind
        self.answer.clear()
        self.display.hold("ASK_END" if kind == END else "ASK_NEW")
        self.until = self.add(now, ASK_MS)

    def key(self, i):
        """Key i's edge: True if a question showing takes it (then the key
        does nothing else; the pause key answers no)."""
        if self.kind == NONE:
            return False
        if self.answer.key(i):
            self.drop()
        return True

    def let_go(self):
        """A key was let go (UP, ALL_UP, REGROUP)."""
        if self.kind != NONE and self.answer.let_go():
            self.drop()

    def yes(self, t):
        """Both player buttons held 1 s at instant t (gestures.CONFIRM): the
        question answered yes (END or NEW), or NONE when none showed then
        (its time had run out before t)."""
        k = self.kind
        if k != NONE and self.diff(t, self.until) >= 0:
            k = NONE
        self.drop()
        return k

    def drop(self):
        if self.kind != NONE:
            self.kind = NONE
            self.display.release(self.display.ticks_ms())

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to the question's time running out."""
        if self.kind != NONE:
            d = self.diff(self.until, now)
            if d < ms:
                return d
        return ms

    def tick(self, now):
        """On the game screen, every iteration: nobody answered in time
        (SPEC v5: a no, also while a key is held)."""
        if self.kind != NONE and self.diff(now, self.until) >= 0:
            self.kind = NONE
            self.display.release(now)
