# Buttons: the pins' edge IRQs -> debounced presses and releases, each dated
# at its own edge.  (gestures.py turns them into the app's actions.)
#
# Free of `machine` (takes initialised Pin objects: pull-up inputs, active
# low, pressed = 0) and of the clock source (ticks_ms / ticks_diff are
# injected, so the boards' 2**30 ms wrap is exercised in tests).
#
# Debounce (SPEC §4 "Buttons": leading edge, no added latency, no repeat).
#   A press is taken on its first edge and dated at that edge.  A release is
#   accepted only once the line has stayed high for debounce_ms with no edge
#   (so bounce and contact chatter of a held button are never a release), and
#   is dated at the first edge of the burst that ended high (for a tap so
#   short that press and release are one burst: at its last edge).  Edges closer
#   than debounce_ms to the previous edge of the same pin belong to the same
#   burst ("train"): a bounce train on press or on release yields one press or
#   one release.  A press that starts debounce_ms or more after the end of the
#   release burst is a new press (a quick double tap is seen); a re-press less
#   than debounce_ms after the release burst is taken as bounce (no human can
#   lift and press again that fast).  Held buttons do not repeat.  There is no
#   glitch filter: a noise pulse on a released line reads as a tap.
#
# Concurrency.  The IRQ handler (hard or soft) can interrupt the main loop
# anywhere but is never interrupted by it, so each piece of state has exactly
# one writer:
#   * the handler only records: the time and level of the latest edge per pin,
#     an edge counter, and - for the first edge of each train - one entry in a
#     preallocated ring (time, previous edge time, level before the train).
#     Bounces only overwrite the per-pin slots, so a train costs one entry.
#   * poll(now), in the main loop, makes every decision from those records and
#     the live pin levels (re-read under an edge-counter check, so a level and
#     its edge time are always consistent).  No edge can leave a button stuck:
#     a release whose last edge came in a burst is resolved by poll once the
#     line has been quiet for debounce_ms.
# Nothing allocates in the handler (ints in arrays only) nor in poll/get/next
# in steady state.  That includes call frames: MicroPython puts the frame of
# a function needing more than 11 slots (arguments + locals + operand stack)
# on the heap - freed on return, so gc.mem_alloc() does not show it, yet it
# counts towards the next collection.  Hence the many small methods below;
# tests/test_gestures.py (under MicroPython) checks that no collection is provoked.
#
# Ordering.  Presses come out in the order of their first edges, each with
# its own edge time (two player buttons pressed 1 ms apart: in that order),
# and never wait for anything (SPEC v3 §4: a key acts at its own edge).  A
# release is known only debounce_ms after its first edge, so it can come out
# after a later press of another button; gestures.py copes with that.
#
# Timestamps are taken in the handler.  With hard=True (the board file's
# HARD_IRQ, hw.py: the port's pin interrupts are hard) that is the edge
# itself; with soft IRQs (the default) it is when MicroPython runs the
# scheduled handler - normally within microseconds, at worst after a long C
# call such as an I2C transfer.  Which ports have which: boards/README.md.
#
# Ring overflow (the main loop stalled for more than RING-1 bursts): the IRQ
# cannot touch the reader's index, so it drops the *newest* bursts and counts
# them in `dropped`; the oldest - the press that ended a turn first - is kept.
# poll() then re-syncs each button with its live level, so nothing stays stuck.

from array import array

PRESS = 1
RELEASE = 0

BTN_LEFT = 0
BTN_RIGHT = 1
BTN_PAUSE = 2

RING = 16          # IRQ -> main entries (one per burst); a power of two
EVENTS = 16        # debounced events waiting for get(); a power of two
_MASK30 = 0x3FFFFFFF
_STALE = 1 << 27   # a pin quiet this long (1.5 days) has its old times moved up


def array_i(n):
    return array("i", [0] * n)


class Buttons:
    def __init__(self, pins, ticks_ms, ticks_diff, debounce_ms=25, hard=False):
        n = len(pins)
        self.pins = pins
        self._n = n
        self._ticks_ms = ticks_ms
        self._diff = ticks_diff
        self.debounce_ms = debounce_ms
        # -- written by the IRQ handler only --
        self._lt = array_i(n)       # time of the latest edge
        self._ll = bytearray(n)     # level read at the latest edge
        self._ec = array_i(n)       # edges seen (mod 2**30)
        self._seen = bytearray(n)   # any edge yet
        self._tq = array_i(n)       # bursts queued (mod 2**30)
        self._rt = array_i(RING)    # ring: first edge of a burst
        self._rp = array_i(RING)    # ring: latest edge before the burst
        self._rf = bytearray(RING)  # ring: pin | level-before << 2
        self._head = 0
        self._rr = 0                # the pin whose old times poll() checks next
        self.dropped = 0            # bursts lost to a full ring
        # -- written by the main loop only --
        self._tail = 0
        self._td = array_i(n)       # bursts taken
        self._st = bytearray(n)     # debounced state, 1 = pressed
        self._tt = array_i(n)       # start of the pin's latest burst
        self._tp = bytearray(n)     # ... and it is the press's own burst
        self._xt = array_i(n)       # time of the latest accepted transition
        self._qt = array_i(EVENTS)  # event queue: time
        self._qc = bytearray(EVENTS)  # event queue: pin << 1 | kind
        self._qh = 0
        self._qn = 0
        self._slv = 1               # snapshot of a pin: level ...
        self._slt = 0               # ... and latest edge time
        self._now = ticks_ms()
        self.t = 0                  # time of the event get() returned
        self.i = 0                  # ... its button
        self.kind = 0               # ... PRESS or RELEASE
        for i in range(n):
            lv = pins[i].value()
            self._st[i] = 1 if lv == 0 else 0   # held at start: no event
            self._ll[i] = lv
            self._lt[i] = self._now
            self._xt[i] = self._now
        handlers = (self._irq0, self._irq1, self._irq2, self._irq3)
        for i in range(n):
            p = pins[i]
            trig = p.IRQ_FALLING | p.IRQ_RISING
            if hard:
                p.irq(handlers[i], trig, hard=True)
            else:
                p.irq(handlers[i], trig)

    # -- IRQ side: record only, no allocation --------------------------------
    def _irq0(self, pin):
        self._edge(0, pin)

    def _irq1(self, pin):
        self._edge(1, pin)

    def _irq2(self, pin):
        self._edge(2, pin)

    def _irq3(self, pin):
        self._edge(3, pin)

    def _edge(self, i, pin):
        t = self._ticks_ms()
        d = self._diff(t, self._lt[i])
        # A new burst after debounce_ms of quiet (or after an idle period so
        # long that the difference wrapped negative).
        if d >= self.debounce_ms or d < 0 or not self._seen[i]:
            self._enqueue(i, t)
        self._lt[i] = t
        self._ll[i] = pin.value()
        self._ec[i] = (self._ec[i] + 1) & _MASK30

    def _enqueue(self, i, t):
        self._seen[i] = 1
        h = self._head
        if ((h + 1) & (RING - 1)) == self._tail:
            self.dropped += 1
            return
        self._rt[h] = t
        self._rp[h] = self._lt[i]
        self._rf[h] = i | (self._ll[i] << 2)
        self._tq[i] = (self._tq[i] + 1) & _MASK30
        self._head = (h + 1) & (RING - 1)

    # -- main loop side -------------------------------------------------------
    def poll(self, now):
        """Turn recorded edges into events (call every main-loop iteration)."""
        self._now = now
        while self._tail != self._head and self._qn < EVENTS - self._n:
            self._take(self._tail)
        i = 0
        while i < self._n:
            if self._qn < EVENTS:
                self._settle(i, now)
            i += 1
        self._freshen(now)

    def _freshen(self, now):
        # Any uptime (issue 12): a time older than _STALE is moved up to
        # now - _STALE, one pin per poll, so no stored time ever gets half a
        # tick wrap (6.2 days) old and compares the wrong way round.  (The
        # IRQ may write _lt meanwhile: then it is fresh anyway.)
        i = self._rr
        self._rr = i + 1 if i + 1 < self._n else 0
        old = (now - _STALE) & _MASK30
        if self._diff(now, self._lt[i]) > _STALE:
            self._lt[i] = old
        if self._diff(now, self._xt[i]) > _STALE:
            self._xt[i] = old
        if self._diff(now, self._tt[i]) > _STALE:
            self._tt[i] = old

    def _take(self, j):
        # The oldest recorded burst, ring slot j.
        i = self._rf[j] & 3
        self._burst(i, j)
        self._td[i] = (self._td[i] + 1) & _MASK30
        self._tail = (j + 1) & (RING - 1)

    def _burst(self, i, j):
        # A burst of edges started at t on pin i; the level before it is
        # where the line rested, for >= debounce_ms.
        t = self._rt[j]
        if self._st[i]:
            if not self._rf[j] >> 2:
                # held, then chatter or a release starting
                self._tt[i] = t
                self._tp[i] = 0
                return
            # It had rested high: the previous burst was a release.
            if self._tp[i]:
                d = self._rp[j]
            else:
                d = self._tt[i]
            self._push(i, RELEASE, d)
        self._push(i, PRESS, t)     # a released button's first edge: a press
        self._tt[i] = t
        self._tp[i] = 1

    def _settle(self, i, now):
        # Decide button i from its live level (none of its bursts queued).
        if not self._snap(i):
            return
        if self._st[i]:
            self._settle_held(i, now)
        elif not self._slv:
            self._lost_press(i, now)

    def _snap(self, i):
        # Level and latest edge time of pin i, consistent with each other
        # (no edge in between) and with no burst of i still queued.
        e = self._ec[i]
        if self._td[i] != self._tq[i]:
            return False
        self._slv = self.pins[i].value()
        self._slt = self._lt[i]
        return self._ec[i] == e

    def _settle_held(self, i, now):
        # Not quiet yet (high may become a release), or resting low: held.
        if self._diff(now, self._slt) < self.debounce_ms or not self._slv:
            return
        if self._tp[i]:
            d = self._slt           # press and release in one burst
        else:
            d = self._tt[i]
        self._push(i, RELEASE, d)

    def _lost_press(self, i, now):
        # Low, released, nothing queued: its edges were lost (full ring).
        if self._diff(self._slt, self._xt[i]) > 0:
            d = self._slt
        else:
            d = now
        self._push(i, PRESS, d)
        self._tt[i] = d
        self._tp[i] = 1

    def _push(self, i, kind, t):
        self._st[i] = kind
        self._xt[i] = t
        j = (self._qh + self._qn) & (EVENTS - 1)
        self._qt[j] = t
        self._qc[j] = (i << 1) | kind
        self._qn += 1

    def get(self):
        """The next event as (button << 1 | kind), or -1 if none; its time in
        .t, its button in .i, PRESS/RELEASE in .kind."""
        if self._qn == 0:
            return -1
        j = self._qh
        c = self._qc[j]
        self.t = self._qt[j]
        self.i = c >> 1
        self.kind = c & 1
        self._qh = (j + 1) & (EVENTS - 1)
        self._qn -= 1
        return c

    def edges(self):
        """Changes each time an edge starts a new burst (the main loop's
        sleep ends when it does)."""
        return self._head

    def pressed(self, i):
        """Debounced state of button i (as of the last poll)."""
        return self._st[i] == 1

    def pending(self):
        """Anything not yet settled: events or recorded bursts waiting, or a
        held button that had an edge in the last debounce_ms (it may be in
        the middle of being released)."""
        if self._qn or self._tail != self._head:
            return True
        k = 0
        while k < self._n:
            if self._st[k] and self._diff(self._now, self._lt[k]) < self.debounce_ms:
                return True
            k += 1
        return False
