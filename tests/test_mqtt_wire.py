"""The clock's MQTT wire (firmware/mqtt.py; issue 22: "the MQTT wire is its
own file"): the packets it builds, byte for byte as MQTT 3.1.1 (OASIS
standard, 2014) defines them, and the broker's replies it reads from a real
socket (a CPython socket pair standing in for the broker), split anywhere,
each handed whole to its owner.  The whole path against the real Mosquitto
is tests/test_hall.py and, under MicroPython, tests/test_net_mp.py.
Written once: the packets are checked under CPython, the MicroPython unix
port and the qemu image (tests/mp/mptest.py); the socket pair is CPython's.
"""
from mptest import cpython_only

import mqtt


# -- packets (MQTT 3.1.1 § 2.2 fixed header, § 3 control packets) ----------------------
def test_publish_qos1_retained_byte_for_byte():
    """§ 3.3: type 3, DUP 0, QoS 1, RETAIN 1 -> 0x33; remaining length 9 =
    topic (2 + 3) + packet id (2) + payload (2)."""
    assert bytes(mqtt.publish_packet("a/b", "hi", 1, True, 10)) == \
        b"\x33\x09\x00\x03a/b\x00\x0ahi"
    # QoS 0, not retained: no packet id (§ 3.3.2.2)
    assert bytes(mqtt.publish_packet("a/b", b"hi")) == b"\x30\x07\x00\x03a/b" + b"hi"


def test_the_remaining_length_takes_seven_bits_a_byte():
    """§ 2.2.3: 203 = 0x4B + 1 * 128 -> 0xCB 0x01; 16384 -> 0x80 0x80 0x01."""
    p = mqtt.publish_packet("t", b"x" * 200)
    assert bytes(p[:5]) == b"\x30\xcb\x01\x00\x01" and len(p) == 3 + 203
    p = mqtt.publish_packet("t", b"x" * (16384 - 3))
    assert bytes(p[:6]) == b"\x30\x80\x80\x01\x00\x01" and len(p) == 4 + 16384


def test_connect_with_a_retained_qos1_will_and_credentials():
    """§ 3.1: protocol name MQTT, level 4; flags user + password + will
    retain + will QoS 1 + will + clean session = 0xEE; keep alive 20 s;
    then client id, will topic, will message, user, password (§ 3.1.3)."""
    p = bytes(mqtt.connect_packet("cid", "u", "pw", "w/t", "off", 20))
    body = (b"\x00\x04MQTT\x04\xee\x00\x14" + b"\x00\x03cid" + b"\x00\x03w/t"
            + b"\x00\x03off" + b"\x00\x01u" + b"\x00\x02pw")
    assert p == b"\x10" + bytes([len(body)]) + body


def test_subscribe_one_topic_at_qos0():
    """§ 3.8: 0x82 (the reserved bits 0010), packet id, topic, QoS 0."""
    assert bytes(mqtt.subscribe_packet("x/y", 1)) == b"\x82\x08\x00\x01\x00\x03x/y\x00"


def test_dup_marks_a_publish_sent_again():
    """§ 3.3.1.1: DUP is bit 3 of the first byte; nothing else changes."""
    p = mqtt.publish_packet("t", b"x", 1, False, 7)
    before = bytes(p)
    mqtt.set_dup(p)
    assert p[0] == 0x3a and bytes(p[1:]) == before[1:]


def test_pingreq_and_disconnect():
    """§ 3.12 and § 3.14: two bytes each."""
    assert mqtt.PINGREQ == b"\xc0\x00" and mqtt.DISCONNECT == b"\xe0\x00"


# -- the wire on a socket -----------------------------------------------------------------
class Owner:
    """What net.Net is to the wire: records every call."""

    def __init__(self):
        self.got = []
        self.wire = None
        self.close_on_connack = False

    def on_connack(self, now, code):
        self.got.append(("connack", code))
        if self.close_on_connack:
            self.wire.close()

    def on_puback(self, now, pid):
        self.got.append(("puback", pid))

    def on_publish(self, now, topic, body):
        self.got.append(("publish", topic, body))

    def on_suback(self, now, ok):
        self.got.append(("suback", ok))

    def on_reply(self, now):
        self.got.append("reply")

    def on_lost(self, now, why):
        self.got.append(("lost", why))
        self.wire.close()


class PairSockets:
    """A `socket` module whose one socket is an end of a socket pair; the
    other end (broker) is the test's."""

    def __init__(self):
        import socket
        self.clock_end, self.broker = socket.socketpair()

    def getaddrinfo(self, host, port):
        return [(2, 1, 0, "", (host, port))]   # (AF_INET, SOCK_STREAM, ...)

    def socket(self):
        return End(self.clock_end)


class End:
    def __init__(self, s):
        self.s = s

    def setblocking(self, flag):
        self.s.setblocking(flag)

    def connect(self, addr):
        pass  # (a socket pair is connected already)

    def send(self, data):
        return self.s.send(data)

    def recv_into(self, buf):
        return self.s.recv_into(buf)

    def fileno(self):
        return self.s.fileno()

    def close(self):
        self.s.close()


def wire():
    owner = Owner()
    sm = PairSockets()
    w = owner.wire = mqtt.Wire(sm, owner)
    assert w.open(0, "10.0.0.2", 1883)
    assert w.opened() == 1
    sm.broker.settimeout(2)
    return w, owner, sm.broker


def feed(w, broker, data):
    broker.sendall(data)
    for _ in range(100):          # the bytes cross the pair at once; read them all
        w.read(0)
        if w.sock is None or not _pending(w):
            break


def _pending(w):
    import select
    return bool(select.select([w.sock.s], [], [], 0)[0])


@cpython_only
def test_replies_split_anywhere_are_handed_over_whole():
    """CONNACK (§ 3.2), PUBACK (§ 3.4), a PUBLISH at QoS 0 (§ 3.3), SUBACK
    granted and refused (§ 3.9: 0x80 = failure) and PINGRESP (§ 3.13), fed
    one byte at a time: each reaches the owner once, whole, in order, and
    on_reply follows each."""
    w, owner, broker = wire()
    stream = (b"\x20\x02\x00\x00" + b"\x40\x02\x01\x02"
              + b"\x30\x0a\x00\x05c/o/n" + b"{}\n"
              + b"\x90\x03\x00\x01\x00" + b"\x90\x03\x00\x01\x80" + b"\xd0\x00")
    for i in range(len(stream)):
        feed(w, broker, stream[i:i + 1])
    assert owner.got == [("connack", 0), "reply", ("puback", 0x0102), "reply",
                         ("publish", b"c/o/n", b"{}\n"), "reply",
                         ("suback", True), "reply", ("suback", False), "reply", "reply"]


@cpython_only
def test_many_replies_in_one_read():
    w, owner, broker = wire()
    feed(w, broker, b"\x40\x02\x00\x07" * 3 + b"\x20\x02\x00\x05")
    assert owner.got == [("puback", 7), "reply"] * 3 + [("connack", 5), "reply"]


@cpython_only
def test_an_owner_that_closes_the_link_ends_the_parse():
    """A refused CONNACK closes the link (net.py): what came after it in the
    same read is not handed over."""
    w, owner, broker = wire()
    owner.close_on_connack = True
    feed(w, broker, b"\x20\x02\x00\x05" + b"\x40\x02\x00\x07")
    assert owner.got == [("connack", 5)] and w.sock is None


@cpython_only
def test_a_packet_too_big_or_a_bad_length_loses_the_link():
    """§ 2.2.3: at most four length bytes; the clock takes at most
    mqtt.MAX_RX bytes from the broker."""
    w, owner, broker = wire()
    n = mqtt.MAX_RX + 1
    feed(w, broker, bytes([0x30, (n & 127) | 128, n >> 7]))
    assert owner.got == [("lost", "a packet too big from the broker")]
    w, owner, broker = wire()
    feed(w, broker, b"\x30\xff\xff\xff\xff\x01")
    assert owner.got == [("lost", "a packet too big from the broker")]


@cpython_only
def test_the_broker_closing_is_a_lost_link():
    w, owner, broker = wire()
    broker.close()
    w.read(0)
    assert owner.got == [("lost", "broker closed the connection")]


@cpython_only
def test_a_long_packet_goes_out_a_chunk_at_a_time_and_whole():
    w, owner, broker = wire()
    p = mqtt.publish_packet("scrabble/cup/1/log/1/1", b"abcdefgh" * 400, 1, True, 3)
    w.start(p)
    got = b""
    sends = 0
    while w.busy():
        n = w.send(0)
        assert 0 < n <= mqtt.CHUNK
        sends += 1
        got += broker.recv(65536)
    while len(got) < len(p):
        got += broker.recv(65536)
    assert got == bytes(p) and sends >= len(p) // mqtt.CHUNK
    w.disconnect()                 # between packets: DISCONNECT goes out
    assert broker.recv(16) == mqtt.DISCONNECT


@cpython_only
def test_disconnect_waits_for_a_packet_being_written():
    w, owner, broker = wire()
    w.start(mqtt.publish_packet("t", b"x" * 2000))
    w.send(0)
    assert w.busy()
    w.disconnect()                 # mid-packet: it would corrupt the stream
    got = broker.recv(65536)
    assert mqtt.DISCONNECT not in got[-2:] and len(got) == mqtt.CHUNK


def test_an_address_that_cannot_be_had_is_one_line():
    class NoNet:
        def getaddrinfo(self, host, port):
            raise OSError(101, "Network is unreachable")

    owner = Owner()
    w = owner.wire = mqtt.Wire(NoNet(), owner)
    assert not w.open(0, "10.0.0.2", 1883)
    (what, why), = owner.got
    assert what == "lost" and why.startswith("cannot reach 10.0.0.2: ") and "\n" not in why


# -- a PUBLISH whose payload is a file (issue 30: the game log streamed) --------------
class Piecemeal:
    """A socket that takes at most `most` bytes a send(), nothing every
    third call (full), and keeps every byte and every send's size."""

    def __init__(self, most):
        self.most = most
        self.data = bytearray()
        self.sizes = []
        self.calls = 0

    def send(self, b):
        self.calls += 1
        if self.calls % 3 == 0:
            return 0
        n = min(len(b), self.most)
        self.sizes.append(len(b))
        self.data.extend(bytes(b[:n]))
        return n

    def close(self):
        pass


class File:
    """A file open for reading ("rb"): readinto() and close() (what the
    wire calls), over `data`."""

    def __init__(self, data):
        self.data = data
        self.at = 0
        self.closed = False
        self.reads = 0

    def readinto(self, buf):
        self.reads += 1
        n = min(len(buf), len(self.data) - self.at)
        for i in range(n):
            buf[i] = self.data[self.at + i]
        self.at += n
        return n

    def close(self):
        self.closed = True


def streamed(data, n, tail, most=300, dup=False):
    owner = Owner()
    w = owner.wire = mqtt.Wire(None, owner)
    sock = w.sock = Piecemeal(most)
    head = mqtt.publish_head("scrabble/cup/1/log/7/1", 1, True, 10)
    if dup:
        mqtt.set_dup(head)
    f = File(data)
    w.stream(head, f, n, tail)
    k = 0
    while w.busy() and w.sock is not None and k < 1000:
        w.send(0)
        k += 1
    return owner, w, sock, f


def test_a_file_goes_out_as_one_publish_read_a_chunk_at_a_time():
    """§ 3.3: the same bytes as publish_packet() of the whole payload (the
    remaining length from the file's size and the tail, § 2.2.3), written
    in pieces of at most CHUNK bytes, the file read a CHUNK at a time into
    the wire's one buffer and closed at the end."""
    data = bytes([65 + i % 26 for i in range(3 * mqtt.CHUNK + 77)])
    tail = b"\n# cut\n"
    owner, w, sock, f = streamed(data, len(data), tail)
    want = mqtt.publish_packet("scrabble/cup/1/log/7/1", data + tail, 1, True, 10)
    assert bytes(sock.data) == bytes(want)
    assert max(sock.sizes) <= mqtt.CHUNK and f.reads == 4
    assert f.closed and not w.busy() and owner.got == []


def test_only_the_first_n_bytes_of_the_file_go_out_with_dup_set():
    """A file that grew since its size was taken: only the n bytes the
    header promised; a re-send carries DUP (§ 3.3.1.1)."""
    data = b"x" * 1000 + b"LATER"
    owner, w, sock, f = streamed(data, 1000, b"", dup=True)
    want = mqtt.publish_packet("scrabble/cup/1/log/7/1", b"x" * 1000, 1, True, 10)
    mqtt.set_dup(want)
    assert bytes(sock.data) == bytes(want) and f.closed


def test_a_file_that_ends_early_loses_the_link():
    """The header promised n bytes: a file cut short (removed, truncated)
    cannot finish the packet, so the link is dropped (net.py sends it again
    on the next one) and the file closed."""
    owner, w, sock, f = streamed(b"y" * 700, 2000, b"")
    assert owner.got == [("lost", "the file being sent ended early")]
    assert w.sock is None and not w.busy() and f.closed
