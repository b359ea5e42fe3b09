"""The end of a game on a small, fragmented heap (issue 30, "No large
allocation in a game"): a Pico W's MicroPython heap is about 210 KB, and
after the app is loaded it is in pieces.  The game log (several KB) must
still reach the hall: firmware/net.py streams it from its file through
firmware/mqtt.py (Wire.stream), and `final_due` is cleared only once the
result and log are queued.

Written for both interpreters (tests/mp/mptest.py); it runs inside
MicroPython: the unix port (tests/test_micropython.py) and the 32-bit qemu
image with the Pico's 240 KB heap, cut to a Pico W's 210 KB
(tests/test_target_qemu.py).  There is no network there: the clock's socket
is a fake speaking MQTT 3.1.1 as a broker does (CONNACK, SUBACK, PUBACK),
which checks each PUBLISH as it streams past without keeping it (a copy
would need the large block the test takes away)."""
from mptest import MICROPYTHON, eq, micropython_only, tmp_path

PICO_W_HEAP = 210 * 1024     # RPI_PICO_W v1.28.0: __GcHeapStart .. __GcHeapEnd
HOLE = 1024                  # the largest free block left for the game


if MICROPYTHON:
    import io

    class Broker(io.IOBase):
        """One connection to a broker, as the clock's socket: what the
        clock writes is parsed byte by byte; replies wait in `out`.
        PUBLISH payloads are not kept: their length and a checksum are."""

        def __init__(self):
            self.out = bytearray()
            self.st = 0          # 0 type, 1 length, 2 body
            self.kind = 0
            self.n = 0
            self.shift = 0
            self.left = 0
            self.pos = 0         # bytes of the body so far
            self.head = bytearray()   # a PUBLISH's topic (+ id) as it comes
            self.sum = 0
            self.got = []        # the logs: (topic, payload length, checksum, qos)
            self.published = 0   # every PUBLISH
            self.closed = False

        # -- the socket's side (mqtt.Wire calls these) ----------------------
        def setblocking(self, flag):
            pass

        def connect(self, addr):
            pass

        def send(self, b):
            for x in b:
                self._byte(x)
            return len(b)

        def readinto(self, buf):
            n = min(len(buf), len(self.out))
            if not n:
                raise OSError(11)          # EAGAIN
            for i in range(n):
                buf[i] = self.out[i]
            self.out = self.out[n:]
            return n

        def ioctl(self, req, arg):
            if req == 3:                   # MP_STREAM_POLL
                return arg & ((1 if self.out else 0) | 4)
            return 0

        def close(self):
            self.closed = True

        # -- the broker's side ------------------------------------------------
        def _byte(self, x):
            if self.st == 0:
                self.kind = x
                self.n = self.shift = 0
                self.st = 1
            elif self.st == 1:
                self.n |= (x & 127) << self.shift
                self.shift += 7
                if not x & 128:
                    self.left = self.n
                    self.pos = 0
                    self.head = bytearray()
                    self.sum = 0
                    self.st = 2
                    if not self.n:
                        self._end()
            else:
                self._body(x)
                self.pos += 1
                self.left -= 1
                if not self.left:
                    self._end()

        def _body(self, x):
            if self.kind >> 4 != 3:
                if len(self.head) < 8:
                    self.head.append(x)      # CONNECT/SUBSCRIBE: the id is enough
                return
            qos = (self.kind >> 1) & 3
            h = len(self.head)
            tlen = (self.head[0] << 8 | self.head[1]) if h >= 2 else -1
            if h < 2 or h < 2 + tlen + (2 if qos else 0):
                self.head.append(x)
            else:
                self.sum = (self.sum * 31 + x) & 0xFFFFFF

        def _end(self):
            t = self.kind >> 4
            self.st = 0
            if t == 1:
                self.out.extend(b"\x20\x02\x00\x00")                   # CONNACK
            elif t == 8:
                self.out.extend(b"\x90\x03" + bytes(self.head[:2]) + b"\x00")  # SUBACK
            elif t == 3:
                qos = (self.kind >> 1) & 3
                tlen = self.head[0] << 8 | self.head[1]
                topic = bytes(self.head[2:2 + tlen])
                size = self.n - 2 - tlen - (2 if qos else 0)
                self.published += 1
                if topic.find(b"/log/") >= 0:
                    self.got.append((topic, size, self.sum, qos))
                if qos:
                    self.out.extend(b"\x40\x02" + bytes(self.head[2 + tlen:4 + tlen]))
            elif t == 12:
                self.out.extend(b"\xd0\x00")                           # PINGRESP

    class Sockets:
        """The `socket` module the clock's Net is given."""

        def __init__(self):
            self.broker = Broker()

        def getaddrinfo(self, host, port):
            return [(2, 1, 0, "", (host, port))]

        def socket(self):
            return self.broker


def _fresh(path):
    """An empty folder at path (a clock's flash with nothing on it)."""
    import os
    try:
        names = os.listdir(path)
    except OSError:
        os.mkdir(path)
        return path
    for n in names:
        p = path + "/" + n
        try:
            os.remove(p)
        except OSError:
            _fresh(p)
            os.rmdir(p)
    return path


def _checksum(path):
    """Length and checksum of a file, read in small pieces."""
    f = open(path, "rb")
    s = n = 0
    b = bytearray(64)
    while True:
        k = f.readinto(b)
        if not k:
            break
        for i in range(k):
            s = (s * 31 + b[i]) & 0xFFFFFF
        n += k
    f.close()
    return n, s


def _fragment(keep_free):
    """Leave a Pico W's heap, in pieces: at most what a 210 KB heap would
    have free beside what is allocated now (the qemu image's heap is the
    Pico's 240 KB; on the unix port's larger one, `keep_free`), all of it
    in HOLE-sized holes between kept blocks.  Returns (the blocks, which
    must stay referenced; the free bytes; the largest block that can still
    be had)."""
    import gc
    gc.collect()
    room = PICO_W_HEAP - gc.mem_alloc()
    if room < keep_free:
        keep_free = room
    blocks = []
    try:
        while True:
            blocks.append(bytearray(HOLE - 32))
    except MemoryError:
        pass
    blocks.pop()            # (room for the list itself to be freed into)
    freed = 0
    for i in range(0, len(blocks), 2):
        if freed >= keep_free:
            break
        blocks[i] = None
        freed += HOLE
    gc.collect()
    free = gc.mem_free()
    big = 0
    try:
        while True:
            bytearray(big + 256)
            big += 256
    except MemoryError:
        pass
    return blocks, free, big


@micropython_only
def test_a_game_log_reaches_the_hall_from_a_fragmented_pico_w_heap():
    import gc
    import os
    import net
    import rig as gestures
    import sim as board
    from rig import Rig, LEFT, RIGHT, PAUSE
    root = _fresh(tmp_path("sclock_net_heap")) + "/"
    f = open(root + "settings.json", "w")
    f.write('{"v": 1, "profile": "sdev", "base_left": 1500000, "base_right": 1500000, '
            '"lang": "en", "sound": false}')
    f.close()
    rig = Rig(board, root, step_ms=20)
    a = rig.app
    socks = Sockets()
    cfg = {"host": "10.0.0.2", "port": 1883, "event": "cup", "table": 3, "password": "pw"}
    a.net = net.Net(cfg, a.hall_source(), a.store.fs, a.root, a.ticks_ms, a.diff,
                    a.add, "t003", None, socks)
    n = a.net
    rig.run(2000)
    eq(n.st, net.UP, "connected to the fake broker")
    ballast, free, big = _fragment(48 * 1024)
    print("heap: %d bytes free, the largest block %d" % (free, big))
    assert big <= 3 * HOLE, big          # no larger block is free
    # A game: turns and stops, then the end (the referee's END? L+R)
    side = LEFT
    rig.press(side)
    for k in range(60):
        rig.run(1500)
        side = RIGHT if side == LEFT else LEFT
        rig.press(side)
        if k % 3 == 2:
            rig.press(PAUSE)
            rig.run(300)
            rig.press(PAUSE)
    eq(rig.clock.state, 1, "a clock runs")
    rig.perform(gestures.end_game(True))
    eq(rig.clock.state, 3, "game over")
    for _ in range(200):
        rig.run(100)
        if not n.q1 or (len(n.q1) == 1 and n.q1[0].acked):
            break
    number = a.log.number
    size, check = _checksum(root + "games/g%04d.txt" % number)
    assert size > big + 512, (size, big)  # the log is larger than any free block
    got = socks.broker.got
    eq(n.msg.final_due, False, "final_due cleared")
    eq(len(got), 1, "one log published")
    eq(got[0][0], b"scrabble/cup/3/log/%d/3" % number, "its topic")
    eq((got[0][1], got[0][2]), (size, check), "the log, byte for byte (length, checksum)")
    eq(got[0][3], 1, "QoS 1")
    eq([m.line[0] for m in n.q1], ["R"], "only the result waits (for the recorder)")
    eq(a.errlog.errors, 0, "no failure in the main loop (no MemoryError)")
    del ballast
    gc.collect()
