"""Least privilege (issue 19), tried as an attacker on the hall's Wi-Fi would
(bench/hall_attacks.py) against the real Mosquitto with the generated
accounts and ACLs, and the real recorder, while simulated clocks play: every
attack must be repelled."""
import os
import re
import stat
import time

import pytest

from hallkit import PATIENT_S, needs_broker, new_hall, running_hall
from hall import accounts
from hall import broker
from hall.supervise import free_port
from bench import hall_attacks

pytestmark = needs_broker


@pytest.fixture
def hall(tmp_path):
    with running_hall(tmp_path, tables=8) as h:
        yield h


def test_every_attack_is_repelled(hall):
    results = hall_attacks.run_all(hall)
    print("\n".join("%s: %s %s" % (n, ok, d) for n, ok, d in results))
    assert len(results) >= 10
    failed = [(n, d) for n, ok, d in results if not ok]
    assert not failed, failed


def test_acl_is_explicit_per_account(hall):
    """One block per account, no pattern lines, no %u; the viewer only reads."""
    text = open(os.path.join(hall.folder, "acl")).read()
    rules = [x for x in text.splitlines() if x and not x.startswith("#")]
    assert not [x for x in rules if x.startswith("pattern") or "%" in x]
    blocks = {}
    user = None
    for line in text.splitlines():
        if line.startswith("user "):
            user = line[5:]
            blocks[user] = []
        elif line.startswith("topic "):
            blocks[user].append(line)
    assert blocks[accounts.VIEWER] == ["topic read scrabble/cup/#"]
    assert set(blocks) == {accounts.VIEWER, accounts.RECORDER} | {str(t) for t in range(1, 9)}
    for t in range(1, 9):
        for line in blocks[str(t)]:
            assert re.match(r"^topic (write scrabble/cup/\+/[a-z]+(/\+)?/%d"
                            r"|read scrabble/cup/confirm/%d)$" % (t, t), line), line


def test_limits_are_in_the_broker_configuration(hall):
    """message size, packet size, memory (which bounds retained messages),
    queues, connections: set, and the real Mosquitto runs with them."""
    conf = open(hall.conf).read()
    for line in ("message_size_limit %d" % broker.MESSAGE_SIZE_LIMIT,
                 "memory_limit %d" % broker.MEMORY_LIMIT,
                 "max_packet_size ", "max_queued_messages 1000", "max_queued_bytes ",
                 "max_connections ", "allow_anonymous false", "check_retain_source true"):
        assert line in conf, line
    assert hall.proc.poll() is None


def test_secrets_are_0600_hashed_and_never_plain(hall):
    """passwd, clocks.json, service.json, the config: 0600; the password file
    holds PBKDF2-SHA512 hashes of HASH_ITERATIONS rounds, no password."""
    for name in ("passwd", "clocks.json", "service.json", "acl", "mosquitto.conf"):
        mode = stat.S_IMODE(os.stat(os.path.join(hall.folder, name)).st_mode)
        assert mode == 0o600, (name, oct(mode))
    passwd = open(os.path.join(hall.folder, "passwd")).read()
    pw = hall.passwords()
    for line in passwd.splitlines():
        user, h = line.split(":", 1)
        assert h.startswith("$7$%d$" % accounts.HASH_ITERATIONS), line
    assert not any(p in passwd for p in pw.values())
    assert hall.viewer_password() not in passwd
    assert accounts.HASH_ITERATIONS >= 10000


def _listeners(port):
    """The local addresses listening on TCP `port` (IPv4 and IPv6), from /proc."""
    out = []
    for name, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            addr, p = f[1].split(":")
            if f[3] == "0A" and int(p, 16) == port:   # LISTEN
                if v6:
                    out.append("v6:" + addr)
                else:
                    b = bytes.fromhex(addr)[::-1]
                    out.append(".".join(str(x) for x in b))
    return out


def test_without_lan_every_port_is_on_the_loopback(hall):
    """issue 19: the clocks' port and the page's (WebSockets + HTTP) listen on
    127.0.0.1 only (Mosquitto 2.0 binds WebSockets everywhere unless told
    socket_domain ipv4: checked here on the real listening sockets)."""
    assert _listeners(hall.port) == ["127.0.0.1"]
    assert _listeners(hall.ws_port) == ["127.0.0.1"]
    assert _listeners(hall.page_port) == ["127.0.0.1"]   # the pages (HTTPS)


def test_with_lan_one_line_says_so(tmp_path):
    import subprocess
    import sys
    from conftest import ROOT
    port, ws, page = free_port(), free_port(), free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hall", "--lan", "--dir", str(tmp_path / "h"),
         "--tables", "2", "--seconds", "4", "--port", str(port), "--ws-port", str(ws),
         "--page-port", str(page)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    seen = (_listeners(port), _listeners(ws), _listeners(page))
    tls = proc.stdout.readline()
    second = proc.stdout.readline()
    desk = proc.stdout.readline()
    desk_seen = _listeners(ws + 1)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert line.startswith("hall: LISTENING ON EVERY INTERFACE (--lan): clocks on port %d, "
                           "the director's page on port %d (https://" % (port, page)), line
    # one line says so; the other start-up lines are the TLS one (issue 29:
    # where the CA is, the certificate's fingerprint), the round's and the
    # projector view's (issue 21), which says nothing of the network, and the
    # results desk's (issue 27): on the loopback only, whatever --lan says
    assert tls.startswith("hall: TLS only, with the hall's own CA"), tls
    rest = [second] + out.splitlines()
    assert all(ln.startswith("hall: the projector view") for ln in rest), out
    assert seen == (["0.0.0.0"], ["0.0.0.0"], ["0.0.0.0"]), (out, seen)
    if desk.startswith("hall: the results desk"):       # (its port may be taken)
        assert "http://127.0.0.1:%d/" % (ws + 1) in desk and desk_seen == ["127.0.0.1"], \
            (desk, desk_seen)


def test_a_retained_flood_is_bounded_by_the_memory_limit(tmp_path):
    """Mosquitto 2.0 has no count of retained messages; memory_limit bounds
    them (issue 19: "retained-message limits"): a stolen account storing
    20 KB retained messages at ever new tables is disconnected once the
    broker's heap reaches the limit (here 8 MB), and the broker lives on."""
    h = new_hall(tmp_path, tables=4, memory_limit=8 * 1024 * 1024)
    h.start()
    try:
        a = hall_attacks._client(h, "3", h.passwords()[3])
        sent = 0
        big = b"x" * (broker.MESSAGE_SIZE_LIMIT - 100)
        for t in range(1, 2001):           # 40 MB if nothing stopped it
            if not a.is_connected():
                break
            try:
                info = a.publish("scrabble/cup/%d/log/1/3" % t, big, qos=1, retain=True)
                # its PUBACK, or the broker cutting the thief off (then no
                # PUBACK ever comes): whichever happens first
                deadline = time.monotonic() + PATIENT_S
                while not info.is_published() and a.is_connected() \
                        and time.monotonic() < deadline:
                    info.wait_for_publish(0.2)
            except (RuntimeError, ValueError):
                break
            sent += 1
        hall_attacks._close(a)
        print("retained flood: stopped after %d messages" % sent)
        assert 100 < sent < 2000, sent
        rss = [int(x.split()[1]) for x in open("/proc/%d/status" % h.proc.pid)
               if x.startswith("VmRSS:")][0] * 1024
        assert h.proc.poll() is None and rss < 8 * 1024 * 1024 + 16 * 1024 * 1024, rss
        # and it still serves: an honest account connects
        c = hall_attacks._client(h, "4", h.passwords()[4])
        assert c.rc is not None and not c.rc.is_failure
        hall_attacks._close(c)
    finally:
        h.stop()
