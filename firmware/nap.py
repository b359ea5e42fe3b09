# The main loop's sleep (issue 30 "A battery clock", issue 37): until an
# instant, or a key's edge, whichever comes first (App._sleep asks for the
# instant; buttons.py's pin IRQ counts the edges in Buttons.edges()).
#
# Where the port polls Python objects (MicroPython: select.poll over an
# io.IOBase with an ioctl, as asyncio's ThreadSafeFlag is made), one call,
# poll.ipoll(ms), waits the whole time: the port's poll loop waits for an
# interrupt (rp2: WFE, up to the time left) and asks ioctl() after each, so
# the core sleeps until the pin IRQ that stamps an edge (or any other
# interrupt) wakes it, and ipoll returns at once when edges() moved.  The
# edge is not missed between the ask and the wait: an interrupt's return
# sets the core's event flag, so the WFE after it returns at once.
# Elsewhere (CPython, an injected sleep: the rig's virtual time) the sleep
# is taken in SLICE_MS slices of sleep_ms, as before, and App._sleep asks
# edges() after each.
#
# Nothing here allocates once made: ipoll keeps its result tuple, ioctl's
# arguments and result are small ints (tests/test_loop_pause.py, under
# the real MicroPython).
import ticks

try:
    import select
    from io import IOBase
except ImportError:         # a port without them: slices
    select = None
    IOBase = object

SLICE_MS = 1                # the slices where nothing can be polled
_POLL = 3                   # MP_STREAM_POLL, the only ioctl poll makes


class Nap(IOBase):
    """sleep(ms, seen): back after ms, or as soon as the keys' edge count is
    not `seen` any more (where the port can poll: `polls`), or after a
    slice (elsewhere: the caller asks again)."""

    def __init__(self, buttons, sleep_ms=None):
        self.buttons = buttons
        self.seen = buttons.edges()
        self.sleep_ms = sleep_ms or ticks.sleep_ms
        self.poll = None
        if sleep_ms is None and select is not None:
            try:
                p = select.poll()
                p.register(self, select.POLLIN)
                self.poll = p
            except (TypeError, ValueError, OSError, AttributeError):
                pass                # CPython: select polls file descriptors only
        self.polls = self.poll is not None

    def ioctl(self, req, flags):
        if req == _POLL:
            return flags if self.buttons.edges() != self.seen else 0
        return -22                  # -EINVAL: nothing else is asked of it

    def sleep(self, ms, seen):
        if self.poll is None:
            self.sleep_ms(SLICE_MS)
        else:
            self.seen = seen
            self.poll.ipoll(ms)
