"""The Pico W's radio on the emulated Pico (issue 38): target/cyw43.js, a
CYW43439 at the level cyw43-driver sees it (the gSPI bus on GPIO 23/24/25/29).

The model alone first (tests/cyw43_wire.js clocks transactions into it bit by
bit, as pico-sdk's cyw43_bus_pio_spi.pio does): the bus test register in both
word modes, the upload checked by length and checksum, every unsupported
command logged.  Then the real RPI_PICO_W image (build/firmware/pico_w.uf2,
the app frozen) with a table's net.json on the emulated Pico with the model
attached: how far cyw43_ll_bus_init, cyw43_ll_wifi_on and the join get,
asserted step by step, and READY on the LCD.
"""
import json
import os
import subprocess

import pytest

from conftest import ROOT, need
from host_sim import target
import net

WIRE = os.path.join(ROOT, "tests", "cyw43_wire.js")
TEST_PATTERN = 0xFEEDBEAD            # cyw43_spi.h TEST_PATTERN
STATUS_F2_RX_READY = 0x20            # cyw43_spi.h
ALP_AVAIL, HT_AVAIL = 0x40, 0x80     # cyw43_ll.c SBSDIO_*
HT_BOOT_MS = 29                      # cyw43_ll.c: "takes about 29ms"
FW_LEN, CLM_LEN = 3001, 100          # a small stand-in blob (not a multiple of 4 or 64)


def _blobs(tmp_path):
    """A combined firmware header and an NVRAM header in the driver's formats
    (C array with CYW43_WIFI_FW_LEN / CYW43_CLM_LEN; C string literals), and
    the same bytes as plain files for the wire script to upload."""
    fw = bytes((i * 7 + 3) & 0xFF for i in range(FW_LEN))
    clm_at = (FW_LEN + 511) & ~511
    blob = fw + bytes(clm_at - FW_LEN) + bytes((i * 13) & 0xFF for i in range(CLM_LEN))
    arr = ",".join("0x%02x" % b for b in blob)
    (tmp_path / "fw.h").write_text(
        "static const unsigned char fw[] CYW43_RESOURCE_ATTRIBUTE = {\n%s\n};\n"
        "#define CYW43_WIFI_FW_LEN (%d) // test\n#define CYW43_CLM_LEN (%d) // test\n"
        % (arr, FW_LEN, CLM_LEN))
    nvram = b"boardtype=0x0887\x00macaddr=00:A0:50:b5:59:5e\x00ccode=ALL\x00\x00"
    (tmp_path / "nv.h").write_text(
        'static const uint8_t wifi_nvram_4343[] CYW43_RESOURCE_ATTRIBUTE =\n'
        '  "boardtype=0x0887" "\\x00"\n  "macaddr=00:A0:50:b5:59:5e" "\\x00"\n'
        '  "ccode=ALL" "\\x00" "\\x00"\n  ;\n')
    (tmp_path / "fw.bin").write_bytes(fw)
    (tmp_path / "nv.bin").write_bytes(nvram + b"\x00")   # sizeof: the literal's own NUL too
    return [str(tmp_path / n) for n in ("fw.h", "nv.h", "fw.bin", "nv.bin")]


def wire(tmp_path, scenario, variant=""):
    need(None if target.tool("node") else "target run: node not installed")
    proc = subprocess.run(["node", WIRE, scenario] + _blobs(tmp_path) + [variant],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def unsupported(out):
    return [line for line in out["log"] if " UNSUPPORTED " in line]


def test_test_register_reads_feedbead_in_both_word_modes(tmp_path):
    out = wire(tmp_path, "bus")
    r = out["reads"]
    # cyw43_ll_bus_init reads it in the reset 16-bit mode (read_reg_u32_swap) ...
    assert r["test16"] == TEST_PATTERN
    # ... a host framing its command as a 32-bit word before the switch asks
    # for something else (the chip reads 0x004004a0: 1184 bytes from register
    # 0x800), gets no pattern, and the model says so
    assert r["test16_as32"] != TEST_PATTERN
    assert [w.split(" ", 2)[2] for w in unsupported(out)] == [
        "UNSUPPORTED F0 read of register 0800 (cmd 004004a0, 1184 bytes from 0800)"]
    # after SPI_BUS_CONTROL gets WORD_LENGTH_32: little-endian words
    assert r["test32"] == TEST_PATTERN
    assert r["control"] == 0x000204B3
    assert r["rw"] == 0x12345678                 # the read/write test register round trip
    # F1 reads come after SPI_RESP_DELAY_F1 bytes of padding (16 here)
    assert r["csr_padded"] & ALP_AVAIL
    assert r["csr_unpadded"] == 0
    assert out["steps"][:3] == ["wl_on", "test_pattern", "bus_config"]


def test_firmware_and_nvram_upload_checked_by_length_and_checksum(tmp_path):
    out = wire(tmp_path, "upload")
    log = "\n".join(out["log"])
    assert "FW len=%d expected=%d sha256=match" % ((FW_LEN + 3) & ~3, (FW_LEN + 3) & ~3) in log
    assert "NVRAM len=" in log and "sha256=match" in log.split("NVRAM len=")[1]
    assert "arm_released firmware=ok nvram=ok" in log
    r = out["reads"]
    # the firmware boots: HT clock and F2 ready come HT_BOOT_MS after the ARM leaves reset
    assert not r["csr_at_release"] & HT_AVAIL and not r["status_at_release"] & STATUS_F2_RX_READY
    assert r["csr_30ms"] & HT_AVAIL and r["status_30ms"] & STATUS_F2_RX_READY
    assert unsupported(out) == []


@pytest.mark.parametrize("variant, verdict", [
    ("corrupt", "firmware=BAD nvram=ok"),      # one bit flipped in the middle
    ("short", "firmware=BAD nvram=ok"),        # the last 64-byte block never sent
    ("trailer", "firmware=ok nvram=BAD"),      # the NVRAM length word without its ~n half
])
def test_a_bad_upload_never_brings_up_ht_or_f2(tmp_path, variant, verdict):
    out = wire(tmp_path, "upload", variant)
    log = "\n".join(out["log"])
    assert "arm_released " + verdict in log
    assert "the firmware does not boot" in log
    r = out["reads"]
    # what the driver then sees: cyw43_ll.c waits for HT ("HT not ready") in vain
    assert not r["csr_30ms"] & HT_AVAIL
    assert not r["status_30ms"] & STATUS_F2_RX_READY


def test_every_unsupported_command_is_logged(tmp_path):
    out = wire(tmp_path, "unsupported")
    lines = unsupported(out)
    want = ["function 3 cmd", "F0 read of register 0012", "F0 write of register 0040",
            "backplane read 18001000", "F2 write of 16 bytes before the firmware runs",
            "transaction of 10 clocks", "bus access with WL_ON low"]
    for w in want:
        assert any(w in line for line in lines), (w, lines)
    assert out["stats"]["cyw43_unsupported"] == len(lines)
    assert out["reads"]["f0_unknown"] == 0


@pytest.fixture(scope="module")
def pico_w_uf2(tmp_path_factory):
    """The real RPI_PICO_W image with the app frozen, as `make firmware
    BOARD=pico_w` builds it (cached by source hash: a copy after the first
    build on this machine), so a fresh clone's CI boots the file an
    organizer copies, not one left in build/ by hand."""
    from test_firmware_image import images_missing
    from tools import fwimage
    need(target.pico_missing())
    need(images_missing())
    return fwimage.build("pico_w", out=str(tmp_path_factory.mktemp("cyw43") / "pico_w.uf2"))["path"]


def _table_image(tmp_path, pico_w_uf2):
    """pico_w.uf2 with table 7's net.json in its table block, as `make
    firmware-tables` (tools/fwimage.py tables()) makes it, from a hall of the
    test's own (the CA the clock pins)."""
    from hall.folder import Hall
    from tools import fwimage
    hall = Hall(str(tmp_path / "hall"), "open", tables=100)
    cfg = hall.clock_config(7, "192.168.4.10", SSID, PASSPHRASE)
    out = str(tmp_path / "table-07.uf2")
    fwimage.with_table_block(pico_w_uf2, out, (json.dumps(cfg) + "\n").encode())
    return out


SSID, PASSPHRASE = "hall", "correct horse battery"
WLC_SET_SSID, WLC_SET_WSEC_PMK = 26, 268   # cyw43_ll.c


def test_the_real_pico_w_table_image_brings_the_radio_up_and_shows_ready(tmp_path, pico_w_uf2):
    """A table's image (pico_w.uf2 + net.json naming an access point) on the
    emulated Pico W with the model: net.start() runs WLAN.active(True), the
    driver's whole cyw43_ll_bus_init (cyw43_ll.c 1424-1799) and
    cyw43_ll_wifi_on (1843-1914), then connect() sends the join's ioctls
    (cyw43_ll_wifi_join): no access point in range (the model's default),
    the NONET path, and the clock shows READY all the same."""
    blobs = target.cyw43_blobs()
    need(None if blobs else "target run: no cyw43-driver sources (make firmware unpacks them)")
    pico = target.Pico(str(tmp_path / "flash.bin"), uf2=_table_image(tmp_path, pico_w_uf2), cyw43=blobs)
    pico.nice = 10
    pico.start()
    try:
        pico.run_to(2500)
        rows = pico.lcd.text_rows()
        stats = pico.stats()
    finally:
        pico.stop()
    log = "\n".join(pico.wifi)
    steps = [w.split()[2] for w in pico.wifi if w.split()[1] == "STEP"]
    assert "READY" in rows[1], (rows, pico.serial[-600:])
    # the bus (cyw43_ll.c 1451-1489), the clocks, the upload, the firmware's boot
    assert steps[:8] == ["wl_on", "test_pattern", "bus_config", "resp_delay_f1", "int_enable",
                         "alp_req", "alp_avail", "upload"], steps
    assert "test_pattern mode=16" in log
    assert "FW len=231080 expected=231080 sha256=match" in log     # ALIGN4(CYW43_WIFI_FW_LEN)
    assert "sha256=match" in log.split("NVRAM len=")[1].split("\n")[0]
    assert "arm_released firmware=ok nvram=ok" in log
    for s in ("ht_avail", "f2_ready", "clm_loaded", "wlc_up"):
        assert s in steps, (s, steps)
    assert "CLM len=984 expected=984 sha256=match" in log
    # the control channel: the ioctls of bus_init and wifi_on answered
    for io in ("GET clmload_status: CLM loaded", "SET country: country XX", "SET 2: WLC_UP",
               "SET 86: WLC_SET_PM=2", "SET cur_etheraddr: mac "):
        assert io in log, (io, log)
    # what is not modelled yet is logged, never answered silently: the
    # driver's SDIO-only CCCR write (cyw43_ll.c 1718) and lwIP's first frames
    # on the data channel.  The join (cyw43_ll_wifi_join) is answered; with
    # no access point in the model's range: SET_SSID NO_NETWORKS (status 3,
    # reason 0: cyw43_ctrl.c 376-378, WIFI_JOIN_STATE_NONET, i.e.
    # CYW43_LINK_NONET), and nothing else
    unsup = [w.split(" ", 1)[1] for w in pico.wifi if " UNSUPPORTED " in w]
    assert unsup[0] == "UNSUPPORTED F0 write of register 00f0 = 08", unsup
    assert not [u for u in unsup if u.startswith("UNSUPPORTED ioctl")], unsup
    assert 'IOCTL SET 26: WLC_SET_SSID "%s"' % SSID in log
    assert 'STEP join ssid "%s": no such network' % SSID in log
    assert _events(pico) == [(EV_SET_SSID, 3, 0, 0)]
    assert " udp 68 > 67" not in log
    assert stats["cyw43_unsupported"] == len(unsup)



LEFT = 14                                   # boards/pico.py BTN_LEFT
HALL_DOWN_MARK = "\u2463"   # CGRAM 4: view.py G_HALL + net.HALL_DOWN
EV_SET_SSID, EV_AUTH, EV_DEAUTH_IND, EV_LINK, EV_PSK_SUP = 0, 3, 6, 16, 46   # cyw43_ll.h CYW43_EV_*
WLC_DISASSOC = 52                           # cyw43_ll.c


def _join_pico(tmp_path, pico_w_uf2, ap):
    """The table image (net.json: SSID, PASSPHRASE) on the model, whose
    simulated access point is `ap` (ssid, passphrase)."""
    blobs = target.cyw43_blobs()
    need(None if blobs else "target run: no cyw43-driver sources (make firmware unpacks them)")
    pico = target.Pico(str(tmp_path / "flash.bin"), uf2=_table_image(tmp_path, pico_w_uf2), cyw43=blobs, ap=ap)
    pico.nice = 10
    return pico.start()


def _events(pico):
    """(type, status, reason, flags) of each event the model sent."""
    out = []
    for w in pico.wifi:
        if w.split()[1:2] == ["EVENT"] and "type=" in w:
            kv = dict(x.split("=") for x in w.split()[2:])
            out.append((int(kv["type"]), int(kv["status"]), int(kv["reason"]), int(kv["flags"])))
    return out


def test_the_right_passphrase_joins_and_the_driver_brings_the_link_up(tmp_path, pico_w_uf2):
    """The AP the table's net.json names, with its passphrase: the model
    takes the join's ioctls/iovars (cyw43_ll_wifi_join, cyw43_ll.c
    2051-2186), checks the SSID and the passphrase the driver sends in
    WLC_SET_WSEC_PMK's wsec_pmk_t, and sends AUTH 0, LINK up, PSK_SUP
    KEYED (6), SET_SSID 0: cyw43_ctrl.c 383-418 sets AUTH, LINK and KEYED,
    join state ALL (434): cyw43_cb_tcpip_set_link_up, and lwIP's DHCP client
    starts at once: its DISCOVER (UDP 68 > 67, broadcast) on the data
    channel, after the keying, is the proof the link came up."""
    pico = _join_pico(tmp_path, pico_w_uf2, (SSID, PASSPHRASE))
    try:
        pico.run_to(2500)
        rows = pico.lcd.text_rows()
        stats = pico.stats()
    finally:
        pico.stop()
    log = "\n".join(pico.wifi)
    assert "READY" in rows[1], (rows, pico.serial[-600:])
    for io in ("SET 134: WLC_SET_WSEC=6", "SET bsscfg:sup_wpa: bsscfg 0 sup_wpa=1",
               "SET 268: WLC_SET_WSEC_PMK key_len=%d flags=1 (passphrase)" % len(PASSPHRASE),
               "SET 20: WLC_SET_INFRA=1", "SET 22: WLC_SET_AUTH=0", "SET mfp: mfp=1",
               "SET 165: WLC_SET_WPA_AUTH=128", 'SET 26: WLC_SET_SSID "%s"' % SSID):
        assert "IOCTL " + io in log, (io, log[-3000:])
    assert 'STEP join ssid "%s": associated, keyed' % SSID in log
    assert _events(pico) == [(EV_AUTH, 0, 0, 0), (EV_LINK, 0, 0, 1), (EV_PSK_SUP, 6, 0, 0),
                             (EV_SET_SSID, 0, 0, 0)]
    keyed = next(i for i, w in enumerate(pico.wifi) if "EVENT type=46" in w)
    dhcp = [i for i, w in enumerate(pico.wifi) if " DHCP DISCOVER from " in w]
    assert dhcp and dhcp[0] > keyed, log[-3000:]
    unsup = [w for w in pico.wifi if " UNSUPPORTED " in w]
    assert not [w for w in unsup if "UNSUPPORTED ioctl" in w], unsup    # the join's all answered
    assert stats["cyw43_unsupported"] == len(unsup)


def test_a_wrong_passphrase_is_refused_and_the_clock_plays_on(tmp_path, pico_w_uf2):
    """The AP in range but the passphrase wrong, as a real AP: authenticated
    and associated (AUTH 0, LINK up), then the 4-way handshake fails:
    PSK_SUP with a failure status (cyw43_ctrl.c 424-426: BADAUTH, i.e.
    CYW43_LINK_BADAUTH from cyw43_wifi_link_status 622) and the AP's deauth
    (DEAUTH_IND reason 2: cyw43_ctrl.c 396-400 pend_disassoc, so the driver
    sends WLC_DISASSOC, not modelled: logged).  No DHCP ever.  The clock:
    net.py _open reads WLAN.status() STAT_WRONG_PASSWORD and the hall mark
    goes from HALL_WAIT to HALL_DOWN at once, not after WAIT_MS (view.py
    _hall: G_HALL + h in the last column); the keys still play."""
    pico = _join_pico(tmp_path, pico_w_uf2, (SSID, "wrong " + PASSPHRASE))
    try:
        pico.run_to_ready()
        before = pico.lcd.text_rows()
        pico.press(LEFT, pico.t_ms + 500)
        pico.run_to(pico.t_ms + 1500)
        after = pico.lcd.text_rows()
        pico.run_to(pico.t_ms + 1500)
        later = pico.lcd.text_rows()
        stats = pico.stats()
    finally:
        pico.stop()
    log = "\n".join(pico.wifi)
    assert "READY" in before[1], before
    assert pico.t_ms < net.WAIT_MS                   # ("no hall" long before WAIT_MS)
    assert after != before and "READY" not in after[1], (before, after)
    assert 'STEP join ssid "%s": wrong passphrase' % SSID in log
    ev = _events(pico)
    assert ev[:3] == [(EV_AUTH, 0, 0, 0), (EV_LINK, 0, 0, 1), (EV_PSK_SUP, 5, 14, 0)], ev
    assert (EV_DEAUTH_IND, 0, 2, 0) in ev
    assert "UNSUPPORTED ioctl SET cmd %d" % WLC_DISASSOC in log, log[-3000:]
    assert " udp 68 > 67" not in log
    assert after[1].endswith(HALL_DOWN_MARK), (after, pico.serial[-600:])
    assert later[0] != after[0], (after, later)            # the clock runs on
    assert stats["cyw43_unsupported"] == log.count(" UNSUPPORTED ")


CLIENT_IP, GATEWAY_IP = "192.168.4.2", "192.168.4.1"     # target/netpeer.js DEFAULT_CONFIG
PATIENT_S = 300                             # wall-clock bound of a wait for the emulator (as hallkit's)


def _run_until(pico, cond, limit_ms, step_ms=100):
    """Pico.run_until, bounded by PATIENT_S of wall time too."""
    return pico.run_until(cond, limit_ms, step_ms, wall_s=PATIENT_S)


def _wifi_at(pico, text):
    """The simulated us of the first W line containing `text`, or None."""
    for w in pico.wifi:
        if text in w:
            return int(w.split()[0])
    return None


def test_the_clock_gets_its_address_by_dhcp_and_answers_a_ping(tmp_path, pico_w_uf2):
    """The data channel both ways (target/netpeer.js behind the model's AP):
    lwIP's DHCP client (started by the link up) gets DISCOVER -> OFFER,
    REQUEST -> ACK from the AP's DHCP server, the replies delivered as
    SDPCM channel 2 frames (cyw43_ll.c sdpcm_process_rx_packet DATA_HEADER
    -> cyw43_cb_process_ethernet); the clock then speaks from its address
    (its ARP requests name it), answers the gateway's ping, and
    WLAN.ifconfig() on the clock's own REPL gives the lease."""
    pico = _join_pico(tmp_path, pico_w_uf2, (SSID, PASSPHRASE))
    try:
        assert _run_until(pico, lambda: _wifi_at(pico, " DHCP ACK ") is not None, 10000), pico.wifi[-30:]
        leased_ms = pico.t_ms
        pico.ping(CLIENT_IP, 1)
        assert _run_until(pico, lambda: _wifi_at(pico, "ICMP echo reply %s > %s" % (CLIENT_IP, GATEWAY_IP)),
                          leased_ms + 2000), pico.wifi[-30:]
        assert _run_until(pico, lambda: "READY" in pico.lcd.text_rows()[1], leased_ms + 3000)
        rows = pico.lcd.text_rows()
        pico.type_serial(b"\x03")             # the app stopped (Ctrl-C): its REPL
        got = pico.paste("import network\nprint('IF', network.WLAN(network.STA_IF).ifconfig())\n",
                         "IF ", timeout_s=PATIENT_S)
        stats = pico.stats()
    finally:
        pico.stop()
    log = "\n".join(pico.wifi)
    assert "READY" in rows[1], rows
    order = [_wifi_at(pico, t) for t in ("EVENT type=46 status=6", " DHCP DISCOVER from ", " DHCP OFFER %s " % CLIENT_IP,
                                         " DHCP REQUEST %s from server %s" % (CLIENT_IP, GATEWAY_IP),
                                         " DHCP ACK %s mask 255.255.255.0 router %s dns %s" % (CLIENT_IP, GATEWAY_IP, GATEWAY_IP))]
    assert None not in order and order == sorted(order), (order, log[-3000:])
    # the clock took the address: lwIP's ARP (for the broker of its net.json)
    # comes from it
    assert "ARP who-has 192.168.4.10 tell %s" % CLIENT_IP in log, log[-3000:]
    assert "ICMP echo %s > %s id 20048 seq 1" % (GATEWAY_IP, CLIENT_IP) in log
    assert "ARP who-has %s tell %s: is-at 02:00:5e:10:00:01" % (GATEWAY_IP, CLIENT_IP) in log
    assert got == "('%s', '255.255.255.0', '%s', '%s')" % (CLIENT_IP, GATEWAY_IP, GATEWAY_IP), pico.pasted[-1500:]
    # OFFER, ACK, the ping, the ARP reply lwIP asked for to answer it
    assert stats["net_frames_out"] == 4 and stats["cyw43_frames_to_host"] == stats["net_frames_out"], stats
    assert stats["cyw43_unsupported"] == log.count(" UNSUPPORTED ")


def _echo_server():
    """A TCP echo server on this host's loopback (a thread per connection):
    (server, port); server.shutdown() ends it."""
    import socketserver
    import threading

    class Echo(socketserver.BaseRequestHandler):
        def handle(self):
            while True:
                data = self.request.recv(4096)
                if not data:
                    return
                self.request.sendall(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


ECHO_CODE = """import network, socket, time
w = network.WLAN(network.STA_IF)
w.active(True)
w.connect(%r, %r)
t0 = time.ticks_ms()
while w.ifconfig()[0] == '0.0.0.0' and time.ticks_diff(time.ticks_ms(), t0) < 5000:
    time.sleep_ms(20)
data = bytes((i * 7) & 255 for i in range(%d))
s = socket.socket()
s.settimeout(5)
s.connect(('%s', %d))
s.write(data)
got = b''
while len(got) < len(data):
    b = s.recv(len(data) - len(got))
    if not b:
        break
    got += b
s.close()
print('ECHO', len(got), got == data)
"""


def test_a_tcp_connection_from_the_clock_is_relayed_to_the_host(tmp_path, pico_w_uf2):
    """TCP through the AP's network (target/netpeer.js Conn): a socket the
    clock's REPL opens to the gateway on a port is relayed to that port on
    127.0.0.1 (an echo server of the test's): SYN answered once the host's
    connect succeeded, 3000 bytes out in MSS-sized segments (lwIP's 800),
    echoed back within the clock's window, each acknowledged, then FIN both
    ways; and a port nobody listens on is refused (RST: ECONNRESET on the
    clock)."""
    server, port = _echo_server()
    free = socket_free_port()
    n = 3000
    # the image without a table's net.json: the app leaves the radio off, so
    # the Ctrl-C that stops it never lands inside the driver (a
    # KeyboardInterrupt raised from cyw43_delay_ms's poll hook leaves lwIP's
    # lock, pendsv_mutex, taken for good: the radio is never polled again)
    pico = target.Pico(str(tmp_path / "flash.bin"), uf2=pico_w_uf2, cyw43=target.cyw43_blobs(), ap=(SSID, PASSPHRASE))
    pico.nice = 10
    pico.start()
    try:
        assert _run_until(pico, lambda: "READY" in pico.lcd.text_rows()[1], 5000), pico.lcd.text_rows()
        pico.type_serial(b"\x03")             # the app stopped (Ctrl-C): its REPL
        got = pico.paste(ECHO_CODE % (SSID, PASSPHRASE, n, GATEWAY_IP, port), "ECHO ", timeout_s=PATIENT_S)
        assert got is not None, pico.pasted[-1500:]
        assert _run_until(pico, lambda: any(w.endswith(" closed") for w in pico.wifi), pico.t_ms + 2000), \
            "\n".join([w for w in pico.wifi if " TCP " in w])
        refused = pico.paste("import socket\ns = socket.socket()\ntry:\n    s.connect(('%s', %d))\n"
                             "except OSError as e:\n    print('REFUSED', e.errno)\n" % (GATEWAY_IP, free),
                             "REFUSED ", timeout_s=PATIENT_S)
        stats = pico.stats()
    finally:
        pico.stop()
        server.shutdown()
        server.server_close()
    log = "\n".join(pico.wifi)
    assert got == "%d True" % n, pico.pasted[-1500:]
    tcp = [w.split(" ", 2)[2] for w in pico.wifi if w.split()[1] == "TCP"]
    name = next(t.split(" SYN ")[0] for t in tcp if " SYN (mss " in t)
    assert name.startswith("%s:" % CLIENT_IP) and name.endswith(" > %s:%d" % (GATEWAY_IP, port)), tcp
    mine = [t[len(name) + 1:] for t in tcp if t.startswith(name + " ")]
    # lwIP's TCP_MSS on the rp2 (extmod/lwip-include/lwipopts_common.h: 800), its window 8 MSS
    assert mine[0] == "SYN (mss 800, window 6400): connecting to 127.0.0.1:%d" % port, mine
    assert mine[1:3] == ["host connected: SYN|ACK", "ESTABLISHED"], mine
    assert sum(int(t.split()[0]) for t in mine if t.endswith(" bytes to the host")) == n, mine
    assert sum(int(t.split()[2]) for t in mine if t.startswith("host sent ")) == n, mine
    assert "FIN from the clock" in mine and "FIN sent" in mine and mine[-1] == "closed", mine
    assert stats["net_tcp_to_host"] == n and stats["net_tcp_from_host"] == n, stats
    # the RST to its SYN: lwIP's ERR_RST, which modlwip reports as ECONNRESET
    # (error_lookup_table), as on a real network
    assert refused == "104", pico.pasted[-1500:]
    assert "connecting to 127.0.0.1:%d" % free in log and "host ECONNREFUSED: RST" in log, log[-2000:]
    assert stats["cyw43_unsupported"] == log.count(" UNSUPPORTED ")


def socket_free_port():
    """A loopback port nobody listens on (bound, then closed)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


PAUSE = 13                                  # boards/pico.py BTN_PAUSE
SETUP_HOLD_MS = 2000                        # the centre key held in READY: the setup menu
HALL_ITEM = 5                               # setupmenu.SetupMenu(...).items().index(S_HALL) on a hall clock


def test_a_wrong_passphrase_shows_in_the_setup_menu(tmp_path, pico_w_uf2):
    """The AP refuses the passphrase: the driver's link status is BADAUTH
    (WLAN.status() STAT_WRONG_PASSWORD), net.py reads it (_wifi_why) and
    the setup menu's Hall item says "bad password", not "no hall"."""
    pico = _join_pico(tmp_path, pico_w_uf2, (SSID, "wrong " + PASSPHRASE))
    try:
        assert _run_until(pico, lambda: "READY" in pico.lcd.text_rows()[1], 5000), pico.lcd.text_rows()
        assert _wifi_at(pico, "EVENT type=6 status=0 reason=2") is not None, pico.wifi[-20:]   # the deauth
        t = pico.t_ms + 600                 # net.py's next try (every 500 ms) has read the status
        pico.run_to(t)
        pico.pin(PAUSE, 0)
        pico.run_to(t + SETUP_HOLD_MS + 200)
        pico.pin(PAUSE, 1)
        t = pico.t_ms + 300
        for i in range(HALL_ITEM):
            pico.press(PAUSE, t + 300 * i, bounce=())
        pico.run_to(t + 300 * HALL_ITEM + 200)
        rows = pico.lcd.text_rows()
    finally:
        pico.stop()
    assert rows[0].startswith("Hall, table") and rows[0].rstrip().endswith(" 7"), rows
    assert rows[1].strip().strip("<>").strip() == "bad password", rows
