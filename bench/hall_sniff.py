"""A listener on the hall's Wi-Fi (issue 29): everyone in the hall knows the
Wi-Fi passphrase, so anyone can record every frame a clock sends and
receives, and can send frames of their own.  Relay sits on the path of the
clocks' traffic (a TCP relay on loopback in front of the broker) and keeps
every byte each way; the attacks then try the captured material:

  - read any password or result body in it (there must be none: TLS only);
  - replay a captured connection, whole or record by record, to the broker
    (TLS 1.2/1.3 handshakes are bound to fresh randoms: the broker accepts
    nothing of it) and check that no recorded result changed and that the
    clock whose frames were replayed is still the only one on its account;
  - try every printable run found in the capture as a password;
  - alter a frame on the way (flip one bit of a clock's encrypted record):
    the broker drops that connection and the clock's result arrives
    unaltered on its next;
  - pose as the broker with a certificate for the very name the clocks
    check, signed by another CA (a laptop in the hall running its own
    Mosquitto): the clock refuses it and sends no password.

tests/test_hall_sniff.py asserts each one is repelled; `make bench`
(bench/hall_bench.py hall_attacks) counts them with the other attacks.
"""
import os
import re
import select
import socket
import ssl
import threading
import time

from hall import recorder as REC
from hall import tls as TLS

TLS_TYPES = (20, 21, 22, 23)      # change_cipher_spec, alert, handshake, application_data


def tls_records(data):
    """[(type, length)] of a byte stream read as TLS records; None where it
    is not one (anything sent in clear)."""
    out = []
    i = 0
    while i + 5 <= len(data):
        t, major, n = data[i], data[i + 1], data[i + 3] << 8 | data[i + 4]
        if t not in TLS_TYPES or major != 3 or n > 18432:
            return None
        out.append((t, n))
        i += 5 + n
    return out


class Listener:
    """A TCP listener on 127.0.0.1 (a free port) whose accept loop runs in a
    thread and hands each connection to self.serve(sock) in a thread."""

    def __init__(self):
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(64)
        self.port = self.lsock.getsockname()[1]
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.open:
            try:
                a, _ = self.lsock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(a,), daemon=True).start()

    def close(self):
        self.open = False
        self.lsock.close()


class Relay(Listener):
    """TCP relay on 127.0.0.1 in front of `to_port`: every connection's
    bytes each way are kept (conns: [[client->broker, broker->client]]).
    tamper=True: the first encrypted record (application data) a client
    sends on each of the first `tamper_conns` connections gets one bit
    flipped on the way."""

    def __init__(self, to_port, tamper=False, tamper_conns=1, chunk=65536, delay_s=0):
        self.to = to_port
        self.tamper = tamper
        self.tamper_left = tamper_conns
        self.tampered = 0
        self.chunk = chunk        # at most this many bytes passed ...
        self.delay_s = delay_s    # ... after this long (a slow link)
        self.conns = []
        self.lock = threading.Lock()
        super().__init__()

    def serve(self, a):
        try:
            b = socket.create_connection(("127.0.0.1", self.to))
        except OSError:
            a.close()
            return
        rec = [bytearray(), bytearray()]
        with self.lock:
            self.conns.append(rec)
            flip = self.tamper and self.tamper_left > 0
            if flip:
                self.tamper_left -= 1
        threading.Thread(target=self._pump, args=(b, a, rec[1], False), daemon=True).start()
        self._pump(a, b, rec[0], flip)

    def _pump(self, src, dst, keep, flip):
        pending = bytearray()
        try:
            while self.open:
                r, _, _ = select.select([src], [], [], 0.2)
                if not r:
                    continue
                data = src.recv(self.chunk)
                if not data:
                    break
                if self.delay_s:
                    time.sleep(self.delay_s)
                with self.lock:
                    keep.extend(data)
                if not flip:
                    dst.sendall(data)
                    continue
                # whole records only, until the first application data one
                # has been altered
                pending.extend(data)
                while len(pending) >= 5:
                    n = pending[3] << 8 | pending[4]
                    if len(pending) < 5 + n:
                        break
                    r = bytearray(pending[:5 + n])
                    del pending[:5 + n]
                    if flip and r[0] == 23 and n > 0:
                        r[5 + n // 2] ^= 0x01
                        flip = False
                        with self.lock:
                            self.tampered += 1
                    dst.sendall(r)
                if not flip and pending:
                    dst.sendall(pending)
                    pending = bytearray()
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def captured(self):
        with self.lock:
            return [(bytes(a), bytes(b)) for a, b in self.conns]


def printable_runs(data, least=12):
    """Runs of printable ASCII in captured bytes: what a sniffer would try
    as passwords."""
    return set(m.group().decode() for m in re.finditer(rb"[\x21-\x7e]{%d,}" % least, data))


def replay(port, stream, by_record=False, wait_s=1.0):
    """Send a captured client->broker stream to the broker on a new
    connection; what came back."""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait_s)
    got = bytearray()
    try:
        if by_record:
            i = 0
            while i + 5 <= len(stream):
                n = stream[i + 3] << 8 | stream[i + 4]
                s.sendall(stream[i:i + 5 + n])
                i += 5 + n
                time.sleep(0.02)
        else:
            s.sendall(stream)
        end = time.monotonic() + wait_s
        while time.monotonic() < end:
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not d:
                break
            got.extend(d)
    except OSError:
        pass
    finally:
        s.close()
    return bytes(got)


def mqtt_in_clear(data):
    """Does a broker->client stream hold a plain MQTT CONNACK (0x20 0x02)
    anywhere a record could start?  A refused replay gets TLS alerts only."""
    recs = tls_records(data)
    return recs is None and data[:2] == b"\x20\x02"


class FakeBroker(Listener):
    """A TLS server posing as the hall's broker: the name the clocks check
    (tls.TLS_NAME) in a certificate of another CA (made in `folder`
    by tls.ensure, as an attacker would with openssl), or in clear
    (tls=False).  `got` keeps what each client sent after a handshake (or,
    in clear, everything)."""

    def __init__(self, folder, tls=True):
        TLS.ensure(folder)
        self.ctx = None
        if tls:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.ctx.load_cert_chain(os.path.join(folder, TLS.BROKER_CERT),
                                     os.path.join(folder, TLS.BROKER_KEY))
        self.got = []          # bytes each client sent once "connected"
        self.handshakes = 0    # completed TLS handshakes
        self.failed = []       # why a handshake failed
        super().__init__()

    def serve(self, a):
        a.settimeout(3)
        data = bytearray()
        try:
            if self.ctx is not None:
                try:
                    a = self.ctx.wrap_socket(a, server_side=True)
                except (OSError, ssl.SSLError) as e:
                    self.failed.append(str(e))
                    return
                self.handshakes += 1
            while True:
                d = a.recv(4096)
                if not d:
                    break
                data.extend(d)
                if self.ctx is None:
                    break     # in clear: a ClientHello is no MQTT; a broker hangs up
        except OSError:
            pass
        finally:
            self.got.append(bytes(data))
            try:
                a.close()
            except OSError:
                pass


def connack(hall, user, password, tls=True):
    """The CONNACK return code (0: accepted) for user/password over TLS (or
    in clear) to the hall's broker, as any MQTT client sends it; None: no
    answer."""
    import mqtt
    raw = socket.create_connection(("127.0.0.1", hall.port), timeout=5)
    try:
        s = TLS.client_context(hall.folder).wrap_socket(raw, server_hostname=TLS.TLS_NAME) \
            if tls else raw
        s.sendall(mqtt.connect_packet("g-" + os.urandom(6).hex(), user, password,
                                      "scrabble/%s/0/status/%s" % (hall.event, user),
                                      "offline", 20))
        r = s.recv(4)
        if r == b"\x20\x02\x00\x00":
            s.sendall(mqtt.DISCONNECT)     # (no last will left behind)
        return r[3] if len(r) == 4 and r[0] == 0x20 else None
    except OSError:
        return None
    finally:
        raw.close()


def secrets_of(hall):
    """Every password of the hall (clocks', recorder's, viewer's)."""
    from hall.files import service_passwords
    out = list(hall.passwords().values())
    out += list(service_passwords(hall.folder).values())
    return out


def results_of(hall):
    """The recorder's file as (topic, result body) pairs."""
    if not os.path.isfile(os.path.join(hall.folder, REC.RESULTS)):
        return []
    return [(r["topic"], r["result"]) for r in REC.read_records(hall.folder, lambda m: None)]


QUICK = [(1500, 0, 80), (2500, 1, 80), (3400, 0, 80), (4000, -1, 0)]   # (rehearsal.END = -1)


def _fleet(hall, n, port, tls=True):
    """n simulated clocks playing a short game each, reaching the broker at
    `port`; tls False: their net.json without the CA (in clear, as before
    issue 29)."""
    from hall.rehearsal import clocks as rehearsal
    fleet = rehearsal.Fleet(hall, n, speed=4, scripts={t: QUICK for t in range(1, n + 1)})
    for c in fleet.clocks:
        c.cfg["port"] = port
        if not tls:
            c.cfg.pop("ca", None)
            c._power_up()
        c.net.port = port
    return fleet


def _alter(hall):
    """One bit flipped in a clock's first encrypted record: its connection
    dropped, its result recorded unaltered on the next."""
    relay = Relay(hall.port, tamper=True, tamper_conns=1)
    fleet = _fleet(hall, 1, relay.port)
    try:
        fleet.run(seconds=60)
        c = fleet.clocks[0]
        mine = [r for t, r in results_of(hall) if t.endswith("/1") and "/1/result/" in t]
        ok = bool(mine) and (mine[-1]["left"]["remaining_ms"],
                             mine[-1]["right"]["remaining_ms"]) == (c.rig.clock.rem[0],
                                                                    c.rig.clock.rem[1])
        return ("sniff_alters_a_frame", relay.tampered == 1 and ok and len(relay.captured()) > 1,
                "tampered %d, result kept %s" % (relay.tampered, ok))
    finally:
        fleet.close()
        relay.close()


def run_all(hall, tls=True, workdir=None):
    """The sniffing attacks against a running hall (make bench: counted with
    bench/hall_attacks.py's); tls False: its clocks speak in clear (the
    hall's listeners must then be in clear too: the baseline before issue
    29).  [(name, repelled, detail)]"""
    import tempfile
    out = []
    relay = Relay(hall.port)
    fleet = _fleet(hall, 2, relay.port, tls)
    try:
        fleet.run(seconds=20)
        caps = relay.captured()
        secrets = secrets_of(hall)
        clear = [s for s in secrets if any(s.encode() in a + b for a, b in caps)]
        body = any(b"remaining_ms" in a + b or b"scrabble/" in a + b for a, b in caps)
        out.append(("sniff_reads_a_password_or_result", not clear and not body and bool(caps),
                    "%d passwords, results %s" % (len(clear), body)))
        before = results_of(hall)
        taken = 0
        for c in fleet.clocks:
            c.net.wire.close()            # the clocks go quiet: replay their sessions
        for up, _ in caps:
            back = replay(hall.port, up, False, 0.5)
            taken += back[:4] == b"\x20\x02\x00\x00"
        out.append(("sniff_replays_a_captured_connection",
                    taken == 0 and results_of(hall) == before, "%d accepted" % taken))
        guesses = []
        for a, b in caps:
            for r in sorted(printable_runs(a + b, 12)):
                guesses += [r] + [r[i:i + 16] for i in range(len(r) - 15)]
        opened = [g for g in list(dict.fromkeys(guesses))[:200]
                  if connack(hall, "1", g, tls) == 0]
        out.append(("sniff_logs_in_with_what_it_read", not opened, opened[:2]))
    finally:
        fleet.close()
        relay.close()
    if tls:
        out.append(_alter(hall))
    else:           # in clear any byte can be rewritten, and nothing would notice
        out.append(("sniff_alters_a_frame", False, "in clear"))
    with tempfile.TemporaryDirectory(dir=workdir) as d:
        for name, fake_tls in (("sniff_poses_as_the_broker_with_another_ca", True),
                               ("sniff_poses_as_the_broker_in_clear", False)):
            fake = FakeBroker(os.path.join(d, name), tls=fake_tls)
            fleet = _fleet(hall, 1, fake.port, tls)
            try:
                fleet.run(seconds=6, until=lambda: bool(fake.got))
                pw = hall.passwords()[1]
                leaked = any(pw.encode() in g for g in fake.got)
                out.append((name, not leaked and fleet.clocks[0].net.connects == 0,
                            "password sent" if leaked else ""))
            finally:
                fleet.close()
                fake.close()
    return out
