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
#     just waits; a packet may be a part of a buffer kept for it (start()'s
#     a and b: hallmsg.py's state), and over TLS on MicroPython it is
#     written from the buffer itself, send(buf, off, n), with no slice made
#     (a memoryview slice is an allocation: SPEC §6);
#   - a PUBLISH whose payload is a file (a game's log, net.py) is streamed:
#     stream() puts the remaining length in its header from the file's size,
#     and send() reads the payload a CHUNK at a time into one buffer made
#     with the wire, so no packet is ever whole in memory (issue 30: no
#     allocation over 1 KB after boot);
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
#     once TCP is up, by tlsjob.Handshake: on the thread the board gives it
#     (TLS_THREAD_STACK; the RP2040's second core), the loop only looking
#     whether it is done (opened()), else inside the first send()s of the
#     CONNECT, in non-blocking steps.  A broker whose certificate the
#     context refuses is on_lost like any other failure.
# Nothing here allocates in a steady state: not while nothing is sent or
# received, not writing a packet held in a buffer (over TLS on MicroPython),
# not reading a PINGRESP (SPEC §6; tests/test_net_mp.py).
import select
import sys

import tlsjob

# MicroPython's TLS socket writes from an offset in a buffer: send(buf, off,
# n) (py/stream.c's write1, extmod/modtls_mbedtls.c); CPython's takes one
# buffer, a memoryview slice
_OFFSET_SEND = sys.implementation.name == "micropython"

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


def _remaining(p, n):
    """Append the remaining length n (MQTT 3.1.1 § 2.2.3: 7 bits a byte)."""
    while True:
        d = n & 127
        n >>= 7
        p.append(d | 128 if n else d)
        if not n:
            break


def _packet(first, body):
    """Fixed header (type byte + remaining length) + body."""
    p = bytearray()
    p.append(first)
    _remaining(p, len(body))
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


def publish_head(topic, qos=0, retain=False, pid=0):
    """A PUBLISH without its remaining length and payload: the first byte,
    the topic and the packet id, for Wire.stream() (set_dup() works on it)."""
    b = bytearray()
    b.append(0x30 | (qos << 1) | (1 if retain else 0))
    _str16(b, topic)
    if qos:
        b.append(pid >> 8)
        b.append(pid & 255)
    return b


def set_dup(packet):
    """Mark a PUBLISH as sent again (the DUP flag)."""
    packet[0] |= 0x08


class Wire:
    """One connection to the broker at a time (see the top of this file)."""

    def __init__(self, sock_mod, owner, tls=None, tls_name=None, stack=0):
        """tls: an ssl.SSLContext, or None: in clear; tls_name: the name the
        broker's certificate must hold; stack: the handshake thread's stack
        (the board's TLS_THREAD_STACK; 0: in the loop's steps)."""
        self.sock_mod = sock_mod
        self.owner = owner
        self.hs = tlsjob.Handshake(sock_mod, tls, tls_name, stack) if tls else None
        self.sock = None
        self.poller = None
        self._rd = None
        self._ready = None
        self.addr = None
        self.out = b""            # the packet being written (out[off:end]) ...
        self.off = 0              # ... how much of it went out ...
        self.end = 0              # ... and where it ends
        self.k = 0                # (the bytes the next write may take)
        self._wr = self._sliced   # write(buf, off, n): the socket's, or a slice's
        self.rbuf = bytearray(128)
        # the broker's bytes not parsed yet, rx[:rn]: at most one packet's
        # part (MAX_RX and its header) and one read
        self.rx = bytearray(MAX_RX + 5 + len(self.rbuf))
        self.rn = 0
        self.j = 0                # (the body of the packet being parsed)
        self.sbuf = bytearray(CHUNK)  # a streamed payload's piece (stream())
        self.smv = memoryview(self.sbuf)
        self.sf = None            # the file being streamed ...
        self.sleft = 0            # ... the bytes of it still to send
        self.tail = b""           # ... and what follows them
        self.why = None

    def open(self, now, host, port):
        """Start a TCP connect: True, or False after on_lost."""
        m = self.sock_mod
        if self.hs is not None and self.hs.live:
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
        hs = self.hs
        j = hs.state() if hs is not None else 0
        if j == tlsjob.RUNNING:
            return 0              # the handshake runs on the other thread
        if j == tlsjob.FAILED:
            hs.take()
            self.owner.on_lost(now, hs.why)
            return 0
        if j == tlsjob.DONE:
            s = self.sock = hs.take()
            self.poller.register(s, select.POLLIN)
        else:
            ev = self.poller.poll(0)
            if not ev:
                return 0
            if ev[0][1] & (select.POLLERR | select.POLLHUP):
                return -1
            s = self.sock
            if hs is None:
                self.poller.modify(s, select.POLLIN)  # from now on: the broker's replies
            else:
                self.poller.unregister(s)   # (CPython's wrap takes its descriptor over)
                if hs.begin(s):
                    self.sock = None        # (the thread owns it until it is done)
                    return 0
                s = self._wrap(now, s)
                if s is None:
                    return 0      # (on_lost said why)
                self.poller.register(s, select.POLLIN)
        self._rd = getattr(s, "readinto", None) or s.recv_into
        self._wr = s.send if _OFFSET_SEND and hs is not None else self._sliced
        self._ready = getattr(self.poller, "ipoll", None) or self.poller.poll
        return 1

    def _wrap(self, now, raw):
        """TLS over the connected socket, its handshake in the following
        send()s and reads.  None after on_lost if it cannot."""
        try:
            s = self.hs.wrap(raw, False)
        except (OSError, ValueError, MemoryError) as e:
            self.owner.on_lost(now, "TLS: %s" % e)
            return None
        self.sock = s
        return s

    def start(self, packet, a=0, b=-1):
        """The next packet to write, packet[a:b] (b -1: to its end; the last
        one is written whole)."""
        self.out = packet
        self.off = a
        self.end = len(packet) if b < 0 else b

    def stream(self, head, f, n, tail=b""):
        """The next packet: a PUBLISH whose payload is the next n bytes of
        the open file f, then `tail`; head: publish_head()'s.  The file is
        read a CHUNK at a time as the socket takes it, and closed at the
        end (or by close())."""
        p = bytearray()
        p.append(head[0])
        _remaining(p, len(head) - 1 + n + len(tail))
        p.extend(memoryview(head)[1:])
        self.start(p)
        self.sf = f
        self.sleft = n
        self.tail = tail

    def busy(self):
        """A packet is still being written."""
        return self.off < self.end or self.sf is not None

    def _piece(self, now):
        """The next piece of a streamed payload (the file's, then the tail)
        as the packet being written; False when none is left, or when the
        file ended early (the link is dropped: on_lost; a PUBLISH cut short
        cannot be finished)."""
        f = self.sf
        k = self.sleft
        if k > 0:
            r = f.readinto(self.smv[:k if k < CHUNK else CHUNK])
            if not r:
                self.owner.on_lost(now, "the file being sent ended early")
                return False
            self.sleft = k - r
            self.start(self.sbuf, 0, r)
        else:
            self._unstream()
            self.start(self.tail)
        return self.end > 0

    def _unstream(self):
        f = self.sf
        self.sf = None
        self.sleft = 0
        if f is not None:
            try:
                f.close()
            except OSError:
                pass

    def send(self, now):
        """Write the next chunk: the bytes written (0: the socket is full,
        or the link failed: on_lost)."""
        if self.off >= self.end and (self.sf is None or not self._piece(now)):
            return 0
        k = self.end - self.off
        self.k = k if k < CHUNK else CHUNK
        n = self._write()
        if n < 0:
            w = self.why
            self.owner.on_lost(now, w if isinstance(w, str) else "send: %s" % w)
            return 0
        self.off += n
        return n

    def _write(self):
        """Bytes of the packet written, at most self.k; 0: the socket is
        full; -1: failed (self.why).  (No `except ... as e` here: the
        binding's clean-up block would put the frame on the heap at every
        call; _why() writes again to see why, only when it failed.)"""
        try:
            return self._wr(self.out, self.off, self.k) or 0
        except Exception:
            return self._why()

    def _why(self):
        """_write() once more, the failure kept (self.why): -1; or 0, the
        socket is full (CPython's TLS says so with an exception); or what
        it wrote after all."""
        try:
            return self._wr(self.out, self.off, self.k) or 0
        except (OSError, ValueError) as e:
            return 0 if self._not_yet(e) else -1

    def _sliced(self, buf, o, n):
        return self.sock.send(memoryview(buf)[o:o + n])

    def disconnect(self):
        """A DISCONNECT, between two packets (the broker drops the will)."""
        if not self.busy():
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
            if not self._take(n):
                self.owner.on_lost(now, "a packet too big from the broker")
                return
            self._parse(now)
            if n < len(self.rbuf) or self.sock is None:
                return
            # a full buffer: TLS may hold more of its record than poll sees

    def _recv(self):
        """Bytes read into rbuf; None: nothing yet; -1: failed (self.why).
        (Small on purpose: a try block enlarges the frame, which must stay
        off the heap; no `except ... as e`, as _write.)"""
        try:
            return self._rd(self.rbuf)
        except Exception:
            return self._why_read()

    def _why_read(self):
        """_recv() once more, the failure kept (self.why): -1; None, nothing
        yet (CPython's TLS says so with an exception); or what it read."""
        try:
            return self._rd(self.rbuf)
        except (OSError, ValueError) as e:
            return None if self._not_yet(e) else -1

    def _not_yet(self, e):
        """A write's or read's exception: True if it only says "not yet"
        (the socket full or empty); else the failure kept in self.why."""
        if isinstance(e, ValueError):   # MicroPython's TLS: the certificate refused
            self.why = "TLS: %s" % str(e).strip()
        elif isinstance(e, _WANT) or _err(e) in _EAGAIN:
            return True
        else:
            self.why = e
        return False

    def _take(self, n):
        """rbuf's n bytes read onto the end of rx; False if no room."""
        rx = self.rx
        k = self.rn
        if k + n > len(rx):
            return False
        i = 0
        while i < n:              # (a for loop's iterator would put the frame on the heap)
            rx[k + i] = self.rbuf[i]
            i += 1
        self.rn = k + n
        return True

    def _parse(self, now):
        """Each whole packet in rx to the owner, then the rest moved to
        rx's start.  (Nothing allocated for a PINGRESP, the one reply of
        a steady state: its frames small, the packet not copied.)"""
        i = 0
        while True:
            n = self._length(i)
            if n == -1:
                break
            if n < 0:
                self.owner.on_lost(now, "a packet too big from the broker")
                return
            if self.rx[i] >> 4 != 13:           # (PINGRESP: nothing in it)
                self._packet(now, i, n)
                if self.sock is None:
                    return                      # the owner closed the link
            self.owner.on_reply(now)
            i = self.j + n
        self._shift(i)

    def _length(self, i):
        """The remaining length of the packet at rx[i] (MQTT 3.1.1 § 2.2.3:
        1-4 bytes of 7 bits), its body at self.j; -1: not whole yet; -2:
        longer than MAX_RX."""
        rx = self.rx
        e = self.rn
        n = shift = 0
        j = i + 1
        while j < e and rx[j] & 128 and j < i + 4:
            n |= (rx[j] & 127) << shift
            shift += 7
            j += 1
        if j >= e:
            return -1
        n |= (rx[j] & 127) << shift
        self.j = j = j + 1
        if n > MAX_RX or rx[j - 1] & 128:
            return -2
        return n if e - j >= n else -1

    def _packet(self, now, i, n):
        rx = self.rx
        j = self.j
        kind = rx[i] >> 4
        if kind == 2 and n >= 2:            # CONNACK
            self.owner.on_connack(now, rx[j + 1])
        elif kind == 4 and n >= 2:          # PUBACK
            self.owner.on_puback(now, rx[j] << 8 | rx[j + 1])
        elif kind == 3 and n >= 2:          # PUBLISH
            self._publish(now, rx, i, j, n)
        elif kind == 9 and n >= 3:          # SUBACK
            self.owner.on_suback(now, not rx[j + 2] & 128)

    def _shift(self, i):
        """rx[i:rn] moved to rx's start."""
        rx = self.rx
        e = self.rn
        k = i
        while k < e:
            rx[k - i] = rx[k]
            k += 1
        self.rn = e - i

    def _publish(self, now, rx, i, j, n):
        tl = rx[j] << 8 | rx[j + 1]
        t0 = j + 2
        p0 = t0 + tl + (2 if rx[i] & 6 else 0)   # (QoS 0 asked: no id expected)
        if p0 <= j + n:
            self.owner.on_publish(now, bytes(rx[t0:t0 + tl]), bytes(rx[p0:j + n]))

    def close(self):
        """Close the socket (quietly) and forget the packet being written and
        the bytes read (a handshake thread still running closes its own)."""
        if self.hs is not None:
            self.hs.cancel()
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.poller = None
        self._unstream()
        self.start(b"")
        self.rn = 0
