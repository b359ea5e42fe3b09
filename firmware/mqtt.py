# The MQTT 3.1.1 wire of the clock's hall link (firmware/net.py; issue 14,
# docs/hall.md): the packets the clock sends, and one connection to the
# broker that never blocks.  What to send and when (the state, the results,
# the outbox, retries, confirmations) is net.py's; this file knows only the
# bytes and the socket.
#
#   - the socket is non-blocking from before connect(); its completion is
#     seen by select.poll(0) (opened()); the address must be numeric (no DNS
#     lookup on the device);
#   - send() writes at most CHUNK bytes of the current packet; a full socket
#     just waits;
#   - read() reads the broker's replies, when there are some, into a
#     preallocated buffer and hands each whole packet to the owner:
#       on_connack(now, code)        CONNACK (code 0: accepted)
#       on_puback(now, pid)          PUBACK
#       on_publish(now, topic, body) PUBLISH (topic and body as bytes)
#       on_suback(now, ok)           SUBACK (ok: the subscription was granted)
#       on_reply(now)                after each packet (a PINGRESP only this)
#       on_lost(now, why)            the link failed (a one-line reason)
#     An owner that close()s the wire in one of them ends the parse.
#   - with a TLS context (net.py: the hall's CA pinned) the socket is wrapped
#     once TCP is up.  The handshake's steps are whole public-key operations
#     (verifying the broker's certificate, the key exchange: hundreds of ms
#     each on an RP2040), so where there is a second thread (_thread: the
#     RP2040's second core) the handshake runs there, blocking on its own
#     socket, and the loop only looks whether it is done (opened()); without
#     one it runs inside the first send()s of the CONNECT, in non-blocking
#     steps.  A broker whose certificate the context refuses is on_lost like
#     any other failure.
# Nothing here allocates while nothing is sent or received.
import select
import sys

try:
    import errno
except ImportError:  # older MicroPython
    import uerrno as errno

CHUNK = 536             # bytes written per send() at most
MAX_RX = 2048           # a longer packet from the broker closes the link
PINGREQ = b"\xc0\x00"
DISCONNECT = b"\xe0\x00"
REFUSED = {1: "protocol version", 2: "client id", 3: "broker unavailable",
           4: "bad user name or password", 5: "not authorised"}

_EAGAIN = (errno.EAGAIN, getattr(errno, "EWOULDBLOCK", errno.EAGAIN))
try:
    import _thread
except ImportError:
    _thread = None
HANDSHAKE_S = 10        # the handshake thread's socket timeout (each read/write)
HANDSHAKE_STACK = 16384  # its stack (MicroPython; the RP2040 takes it from the heap)
_MP = sys.implementation.name == "micropython"

try:   # CPython's ssl says "not yet" with these; MicroPython's returns None
    from ssl import SSLWantReadError, SSLWantWriteError
    _WANT = (SSLWantReadError, SSLWantWriteError)
except ImportError:
    _WANT = ()
_INPROGRESS = (errno.EINPROGRESS, errno.EAGAIN, getattr(errno, "EALREADY", 114))


def _err(e):
    return e.args[0] if e.args else 0


def _str16(b, s):
    if isinstance(s, str):
        s = s.encode()
    b.append(len(s) >> 8)
    b.append(len(s) & 255)
    b.extend(s)


def _packet(first, body):
    """Fixed header (type byte + remaining length) + body."""
    p = bytearray()
    p.append(first)
    n = len(body)
    while True:
        d = n & 127
        n >>= 7
        p.append(d | 128 if n else d)
        if not n:
            break
    p.extend(body)
    return p


def connect_packet(client_id, user, password, will_topic, will_msg, keepalive_s):
    b = bytearray(b"\x00\x04MQTT\x04")
    # user name, password, will retain, will QoS 1, will flag, clean session
    b.append(0x80 | 0x40 | 0x20 | 0x08 | 0x04 | 0x02)
    b.append(keepalive_s >> 8)
    b.append(keepalive_s & 255)
    _str16(b, client_id)
    _str16(b, will_topic)
    _str16(b, will_msg)
    _str16(b, user)
    _str16(b, password)
    return _packet(0x10, b)


def subscribe_packet(topic, pid=1):
    """SUBSCRIBE to one topic at QoS 0."""
    b = bytearray()
    b.append(pid >> 8)
    b.append(pid & 255)
    _str16(b, topic)
    b.append(0)
    return _packet(0x82, b)


def publish_packet(topic, payload, qos=0, retain=False, pid=0):
    b = bytearray()
    _str16(b, topic)
    if qos:
        b.append(pid >> 8)
        b.append(pid & 255)
    b.extend(payload.encode() if isinstance(payload, str) else payload)
    return _packet(0x30 | (qos << 1) | (1 if retain else 0), b)


def set_dup(packet):
    """Mark a PUBLISH as sent again (the DUP flag)."""
    packet[0] |= 0x08


class Wire:
    """One connection to the broker at a time (see the top of this file)."""

    def __init__(self, sock_mod, owner, tls=None, tls_name=None):
        self.sock_mod = sock_mod
        self.owner = owner
        self.tls = tls            # an ssl.SSLContext, or None: in clear
        self.tls_name = tls_name  # the name the broker's certificate must hold
        # the handshake on its own thread (_job): 0 none, 1 running, 2 done
        # (job_sock), 3 failed (job_why); gen tells a job the wire gave up on
        self.threaded = _thread is not None
        self.lock = _thread.allocate_lock() if _thread else None
        self.job = 0
        self.job_sock = None
        self.job_why = None
        self.job_live = False     # a handshake thread still runs (even a stale one)
        self.gen = 0
        self.sock = None
        self.poller = None
        self._rd = None
        self._ready = None
        self.addr = None
        self.out = b""            # the packet being written ...
        self.mv = memoryview(self.out)
        self.off = 0              # ... and how much of it went out
        self.rbuf = bytearray(128)
        self.rx = bytearray()
        self.why = None

    def open(self, now, host, port):
        """Start a TCP connect: True, or False after on_lost."""
        m = self.sock_mod
        if self.job_live:
            return False          # (a stale handshake thread ends first: at most HANDSHAKE_S)
        try:
            if self.addr is None:
                self.addr = m.getaddrinfo(host, port)[0][-1]
            s = m.socket()
        except OSError as e:
            self.owner.on_lost(now, "cannot reach %s: %s" % (host, e))
            return False
        self.sock = s
        try:
            s.setblocking(False)
            s.connect(self.addr)
        except OSError as e:
            if _err(e) not in _INPROGRESS:
                self.owner.on_lost(now, "connect: %s" % e)
                return False
        self.poller = select.poll()
        self.poller.register(s, select.POLLOUT)
        return True

    def opened(self, now=0):
        """The TCP connect (and the TLS handshake): 1 done (the broker's
        replies are read from now on), -1 refused, 0 not yet."""
        j = self.job
        if j == 1:
            return 0              # the handshake runs on the other thread
        if j == 3:
            self.job = 0
            self.owner.on_lost(now, self.job_why)
            return 0
        if j == 2:
            self.job = 0
            s = self.sock = self.job_sock
            self.job_sock = None
            self.poller.register(s, select.POLLIN)
        else:
            ev = self.poller.poll(0)
            if not ev:
                return 0
            if ev[0][1] & (select.POLLERR | select.POLLHUP):
                return -1
            s = self.sock
            if self.tls is None:
                self.poller.modify(s, select.POLLIN)  # from now on: the broker's replies
            else:
                self.poller.unregister(s)   # (CPython's wrap takes its descriptor over)
                if self.threaded and self._start_job(s):
                    return 0
                s = self._wrap(now, s, False)
                if s is None:
                    return 0      # (on_lost said why)
                self.poller.register(s, select.POLLIN)
        self._rd = getattr(s, "readinto", None) or s.recv_into
        self._ready = getattr(self.poller, "ipoll", None) or self.poller.poll
        return 1

    def _wrap(self, now, raw, handshake):
        """TLS over the connected socket; handshake False: it happens in the
        following send()s and reads.  None after on_lost if it cannot."""
        try:
            s = self._tls_socket(raw, handshake)
        except (OSError, ValueError, MemoryError) as e:
            self.owner.on_lost(now, "TLS: %s" % e)
            return None
        self.sock = s
        return s

    def _tls_socket(self, raw, handshake):
        w = getattr(self.sock_mod, "wrap_tls", None)   # (the simulator's Wi-Fi)
        if w is not None:
            return w(self.tls, raw, self.tls_name, handshake)
        return self.tls.wrap_socket(raw, server_hostname=self.tls_name,
                                    do_handshake_on_connect=handshake)

    def _start_job(self, raw):
        """The handshake on the other thread (the RP2040's second core):
        True if it started."""
        self.job = 1
        self.job_live = True
        self.sock = None          # (the job owns the socket until it is done)
        try:
            if _MP:               # (CPython keeps its default)
                _thread.stack_size(HANDSHAKE_STACK)
            _thread.start_new_thread(self._job, (raw, self.gen))
            return True
        except (OSError, RuntimeError, MemoryError):
            self.job = 0              # (no thread to be had: in the loop then)
            self.job_live = False
            self.sock = raw
            return False

    def _job(self, raw, gen):
        """The handshake thread: blocking on its own socket, bounded by
        HANDSHAKE_S per read or write; hands the socket (non-blocking) over."""
        s = None
        why = None
        try:
            raw.settimeout(HANDSHAKE_S)
            s = self._tls_socket(raw, True)
            s.setblocking(False)
        except Exception as e:   # noqa: B902 (anything ends the job, never the clock)
            why = "TLS: %s" % str(e).strip()
            s = None
            try:
                raw.close()
            except OSError:
                pass
        with self.lock:
            if gen == self.gen:
                self.job_sock = s
                self.job_why = why
                self.job = 2 if s is not None else 3
                s = None
            self.job_live = False
        if s is not None:
            try:
                s.close()             # the wire gave up on this one meanwhile
            except OSError:
                pass

    def start(self, packet):
        """The next packet to write (the last one is written whole)."""
        self.out = packet
        self.mv = memoryview(packet)
        self.off = 0

    def busy(self):
        """A packet is still being written."""
        return self.off < len(self.out)

    def send(self, now):
        """Write the next chunk: the bytes written (0: the socket is full,
        or the link failed: on_lost)."""
        o = self.off
        try:
            n = self.sock.send(self.mv[o:o + CHUNK])
        except OSError as e:
            if not isinstance(e, _WANT) and _err(e) not in _EAGAIN:
                self.owner.on_lost(now, "send: %s" % e)
            return 0
        except ValueError as e:   # MicroPython's TLS: the certificate refused
            self.owner.on_lost(now, "TLS: %s" % str(e).strip())
            return 0
        if n:
            self.off = o + n
            return n
        return 0

    def disconnect(self):
        """A DISCONNECT, between two packets (the broker drops the will)."""
        if self.off >= len(self.out):
            try:
                self.sock.send(DISCONNECT)
            except OSError:
                pass

    def read(self, now):
        # Ask poll first: a try block costs a heap frame on every call (MicroPython
        # allocates ~150 bytes for it), ipoll(0) costs nothing.
        if self.sock is None:
            return            # (a send in this same poll failed: closed)
        for _ in self._ready(0):
            self._readable(now)
            return

    def _readable(self, now):
        while True:
            n = self._recv()
            if n is None:
                return
            if n < 0:
                self.owner.on_lost(now, "read: %s" % self.why)
                return
            if n == 0:
                self.owner.on_lost(now, "broker closed the connection")
                return
            self.rx.extend(self.rbuf[:n])
            self._parse(now)
            if n < len(self.rbuf) or self.sock is None:
                return
            # a full buffer: TLS may hold more of its record than poll sees

    def _recv(self):
        """Bytes read into rbuf; None: nothing yet; -1: failed (self.why).
        (Small on purpose: a try block enlarges the frame, which must stay
        off the heap.)"""
        try:
            return self._rd(self.rbuf)
        except OSError as e:
            if isinstance(e, _WANT) or _err(e) in _EAGAIN:
                return None
            self.why = e
        except ValueError as e:   # MicroPython's TLS: the certificate refused
            self.why = "TLS: %s" % str(e).strip()
        return -1

    def _parse(self, now):
        rx = self.rx
        i = 0
        while True:
            # fixed header: type byte, remaining length (1-4 bytes of 7 bits)
            n = 0
            shift = 0
            j = i + 1
            while j < len(rx) and rx[j] & 128 and j < i + 4:
                n |= (rx[j] & 127) << shift
                shift += 7
                j += 1
            if j >= len(rx):
                break
            n |= (rx[j] & 127) << shift
            j += 1                       # the body starts at j
            if n > MAX_RX or rx[j - 1] & 128:
                self.owner.on_lost(now, "a packet too big from the broker")
                return
            if len(rx) - j < n:
                break
            kind = rx[i] >> 4
            if kind == 2 and n >= 2:            # CONNACK
                self.owner.on_connack(now, rx[j + 1])
            elif kind == 4 and n >= 2:          # PUBACK
                self.owner.on_puback(now, rx[j] << 8 | rx[j + 1])
            elif kind == 3 and n >= 2:          # PUBLISH
                self._publish(now, rx, i, j, n)
            elif kind == 9 and n >= 3:          # SUBACK
                self.owner.on_suback(now, not rx[j + 2] & 128)
            if self.sock is None:
                return                          # the owner closed the link
            self.owner.on_reply(now)
            i = j + n
        self.rx = rx[i:]  # (bytearray has no item deletion on MicroPython)

    def _publish(self, now, rx, i, j, n):
        tl = rx[j] << 8 | rx[j + 1]
        t0 = j + 2
        p0 = t0 + tl + (2 if rx[i] & 6 else 0)   # (QoS 0 asked: no id expected)
        if p0 <= j + n:
            self.owner.on_publish(now, bytes(rx[t0:t0 + tl]), bytes(rx[p0:j + n]))

    def close(self):
        """Close the socket (quietly) and forget the packet being written and
        the bytes read (a handshake thread still running closes its own)."""
        if self.lock is not None:
            with self.lock:
                self.gen += 1
                self.job = 0
                js = self.job_sock
                self.job_sock = None
            if js is not None:
                try:
                    js.close()
                except OSError:
                    pass
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.poller = None
        self.out = b""
        self.mv = memoryview(self.out)
        self.off = 0
        self.rx = bytearray()
