# The questions on the game screen (SPEC v3 §4 Gestures): "END? hold L+R"
# (the pause key held 2 s in paused) and "NEW GAME? L+R" (held on the final
# screen).  A question shows in the game screen's centre field (display.py
# holds the notices meanwhile) for ASK_MS; only both player buttons held
# 1 s, the pause key up (gestures.CONFIRM), answer it yes.  The keys still
# play under it, and the gesture undoes them (game.py).  It is dropped by:
# the keys of a group that began while it showed, all up without that
# confirmation; the referee gesture; its time running out (not while a key
# is held: it may be being answered).
#
# handle(action, t) takes the game screen's group actions and returns the
# question answered yes (END or NEW) or NONE; the game screen acts on it.
import gestures as gst

NONE = 0
END = 1                # "END? hold L+R": the end of the game, confirmed
NEW = 2                # "NEW GAME? L+R": leave the final screen, confirmed

ASK_MS = 6000          # a question waits this long for L+R


class Question:
    def __init__(self, display, gestures, diff, add):
        self.display = display
        self.gestures = gestures
        self.diff = diff
        self.add = add
        self.kind = NONE      # the question showing
        self.group = NONE     # the question showing when the keys' group began
        self.until = 0        # when it times out

    def ask(self, kind, now):
        self.kind = kind
        self.display.hold("ASK_END" if kind == END else "ASK_NEW")
        self.until = self.add(now, ASK_MS)

    def mark(self):
        """The first key of a group went down (or a group began anew)."""
        self.group = self.kind

    def handle(self, action, t):
        k = self.kind
        if action == gst.ALL_UP:
            # a question that showed when these keys went down and that
            # they did not confirm is answered "no"
            if k != NONE and self.group == k:
                self.drop()
        elif action == gst.CONFIRM or action == gst.REFEREE:
            self.drop()
            if action == gst.CONFIRM:
                return k      # (NONE: no question showing does nothing)
        return NONE

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
        """On the game screen, every iteration: nobody answered in time."""
        if self.kind != NONE and self.diff(now, self.until) >= 0 \
                and not self.gestures.any_held():
            self.kind = NONE
            self.display.release(now)
