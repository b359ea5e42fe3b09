# The clock connecting to the hall's broker over TLS again and again, on the
# RP2040's second core, while the app runs on the first (issue 29: "press-
# to-LCD p99 at most 30 ms also while the clock connects").  bench/tls_bench.py
# pastes tls_pair.py (Box, End, contexts, TLS_NAME; CA, SERVER_CERT, SERVER_KEY
# set before it), then this file, then "connect_storm()" and "import main"
# (the app, on core 0) into the emulated Pico's REPL.
#
# Each connect is the hall link's own handshake job (tlsjob.Handshake._run:
# the code the wire's thread runs on a board, mqtt.Wire's) over an in-memory
# socket to the broker's end; the broker's end is stepped whenever the
# clock's end finds nothing to read, so its work (the broker's RSA
# signature) is done on core 1 too, never on the app's core.  Core 1
# records each connect in an array whose address connect_storm() prints
# ("STORM <address> <connects>"; the bench reads it from the emulated RAM at
# the end, so core 1 never prints): [done, failed, then per connect: start
# ms, end ms, 1 done / 0 failed].
import _thread
import time
from array import array

import boardfacts
import tlsjob
import uctypes

MAX = 200            # connects recorded


class Pumped(End):
    """The clock's socket (tls_pair.End, a stream): what the broker's end
    wrote, that end stepped first when there is nothing yet."""

    def __init__(self, inbox, outbox):
        super().__init__(inbox, outbox)
        self.srv = None
        self.sbuf = bytearray(16)

    def readinto(self, buf):
        if not self.i.b and self.srv is not None:
            try:
                self.srv.readinto(self.sbuf)
            except OSError:
                pass
        return super().readinto(buf)

    def settimeout(self, t):
        pass

    def setblocking(self, flag):
        pass

    def close(self):
        pass


def _connects(st, log, hs, sctx, box, end, pumped, ticks_ms, top, running, done):
    # (what it uses comes as arguments: MicroPython's rp2 port has no GIL,
    # and the pasted script's globals must not grow while core 1 reads them;
    # the script binds no new name after connect_storm())
    k = 0
    while st["go"]:
        a, b = box(), box()
        raw = pumped(a, b)
        t = ticks_ms()
        raw.srv = sctx.wrap_socket(end(b, a), server_side=True, do_handshake_on_connect=False)
        hs.job = running        # as Handshake.begin() leaves it for its thread
        hs.live = True
        hs._run(raw, hs.gen)
        ok = hs.state() == done
        s = hs.take()
        if ok and s is not None:
            log[0] += 1
            s.close()
        else:
            log[1] += 1
            st["why"] = hs.why
        raw.srv.close()
        raw.srv = None
        if k < top:
            log[2 + 3 * k] = t
            log[3 + 3 * k] = ticks_ms()
            log[4 + 3 * k] = 1 if ok else 0
            k += 1
    st["end"] = 1


def connect_storm():
    """Start the connects on core 1 (the wire's own thread stack size)."""
    st = {"go": 1, "done": 0, "failed": 0, "end": 0, "why": None}
    cctx, sctx = contexts()         # (tls_pair.py's)
    try:
        import board
        stack = getattr(board, "TLS_THREAD_STACK", 0)
    except ImportError:
        stack = 0
    stack = stack or boardfacts.DEFAULTS["TLS_THREAD_STACK"]
    hs = tlsjob.Handshake(None, cctx, TLS_NAME, stack)
    log = array("i", [0] * (2 + 3 * MAX))
    st["log"] = log
    _thread.stack_size(stack)          # (the board's, as Handshake.begin() takes it)
    _thread.start_new_thread(_connects, (st, log, hs, sctx, Box, End, Pumped, time.ticks_ms,
                                         MAX, tlsjob.RUNNING, tlsjob.DONE))
    print("STORM", uctypes.addressof(log), MAX)
    return st
