# The TLS set-up of the hall link (mqtt.Wire; issue 29): the socket wrapped
# with the context that pins the hall's CA, and the handshake kept off the
# main loop.  The handshake's steps are whole public-key operations
# (verifying the broker's certificate, the key exchange: hundreds of ms each
# on an RP2040), so where the board gives it a thread (TLS_THREAD_STACK,
# boardfacts.py; the RP2040's second core) it runs there, blocking on its
# own socket, and the loop only looks whether it is done (state()); with
# stack 0, or no _thread, the wire runs it inside its first send()s of the
# CONNECT, in non-blocking steps (wrap(raw, False)).
#
# The thread and the loop share only job, sock, why and live, under the
# lock; gen tells a thread the wire gave up on (cancel()) that its socket is
# nobody's.
import sys

try:
    import _thread
except ImportError:
    _thread = None

HANDSHAKE_S = 10        # the handshake thread's socket timeout (each read/write)
_MP = sys.implementation.name == "micropython"

IDLE = 0                # no handshake on the thread
RUNNING = 1
DONE = 2                # take() the socket
FAILED = 3              # take() None, why says why


class Handshake:
    """sock_mod: the socket module (the simulator's may wrap TLS itself:
    wrap_tls); tls: an ssl.SSLContext; name: the name the broker's
    certificate must hold; stack: the thread's stack in bytes, 0: no thread."""

    def __init__(self, sock_mod, tls, name, stack):
        self.sock_mod = sock_mod
        self.tls = tls
        self.name = name
        self.stack = stack if _thread is not None else 0
        self.lock = _thread.allocate_lock() if _thread is not None else None
        self.job = IDLE
        self.sock = None          # the thread's result ...
        self.why = None           # ... or why it failed
        self.live = False         # a handshake thread still runs (even a stale one)
        self.gen = 0
        self.threads = 0          # handshakes started on the thread (a figure)

    def wrap(self, raw, handshake):
        """TLS over the connected socket raw; handshake False: it happens
        in the following sends and reads.  Raises OSError, ValueError."""
        w = getattr(self.sock_mod, "wrap_tls", None)   # (the simulator's Wi-Fi)
        if w is not None:
            return w(self.tls, raw, self.name, handshake)
        return self.tls.wrap_socket(raw, server_hostname=self.name,
                                    do_handshake_on_connect=handshake)

    def begin(self, raw):
        """The handshake over raw on the thread: True if it started (the
        thread owns raw until state() is DONE or FAILED)."""
        if not self.stack:
            return False
        self.job = RUNNING
        self.live = True
        try:
            if _MP:               # (CPython keeps its default)
                _thread.stack_size(self.stack)
            _thread.start_new_thread(self._run, (raw, self.gen))
            self.threads += 1
            return True
        except (OSError, RuntimeError, MemoryError):
            self.job = IDLE       # (no thread to be had: in the loop then)
            self.live = False
            return False

    def state(self):
        return self.job

    def take(self):
        """The finished handshake's socket (non-blocking), or None (why)."""
        s = self.sock
        self.sock = None
        self.job = IDLE
        return s

    def _run(self, raw, gen):
        """The thread: blocking on its own socket, bounded by HANDSHAKE_S
        per read or write; hands the socket (non-blocking) over."""
        s = None
        why = None
        try:
            raw.settimeout(HANDSHAKE_S)
            s = self.wrap(raw, True)
            s.setblocking(False)
        except Exception as e:   # noqa: B902 (anything ends the job, never the clock)
            why = "TLS: %s" % str(e).strip()
            s = None
            _close(raw)
        with self.lock:
            if gen == self.gen:
                self.sock = s
                self.why = why
                self.job = DONE if s is not None else FAILED
                s = None
            self.live = False
        if s is not None:
            _close(s)             # the wire gave up on this one meanwhile

    def cancel(self):
        """The wire gave up: a running thread's socket is closed when it
        ends, a finished one's now."""
        if self.lock is None:
            return
        with self.lock:
            self.gen += 1
            self.job = IDLE
            s = self.sock
            self.sock = None
        if s is not None:
            _close(s)


def _close(s):
    try:
        s.close()
    except OSError:
        pass
