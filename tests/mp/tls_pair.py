# The clock's TLS handshake with the hall's broker, both ends in this one
# interpreter over an in-memory pipe: the client's (the clock's) CPU time
# per step and in all, and the heap (issue 29: "the handshake's CPU time and
# its heap on a Pico W-sized heap").  bench/tls_bench.py sets CA,
# SERVER_CERT, SERVER_KEY (DER, base64) before this file and calls
# handshake(ballast) after it, on the emulated Pico.
import binascii
import gc
import io
import time

try:
    import ssl
    TLS = False
except ImportError:     # an image without the ssl.py wrapper: its C module
    import tls as ssl
    TLS = True

try:
    from net import TLS_NAME
except ImportError:
    TLS_NAME = "scrabble-hall"


class Box:
    def __init__(self):
        self.b = b""


class End(io.IOBase):
    """One end of the pipe: reads what the other end wrote; never blocks."""

    def __init__(self, inbox, outbox):
        self.i = inbox
        self.o = outbox

    def readinto(self, buf):
        d = self.i.b
        if not d:
            return None
        n = min(len(buf), len(d))
        buf[:n] = d[:n]
        self.i.b = d[n:]
        return n

    def write(self, buf):
        self.o.b += bytes(buf)
        return len(buf)

    def ioctl(self, req, arg):
        return 0


def contexts():
    """(the clock's context: the hall CA pinned, the broker's: its certificate
    and key)"""
    cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cctx.verify_mode = ssl.CERT_REQUIRED
    if TLS:
        cctx.load_verify_locations(binascii.a2b_base64(CA))
    else:
        cctx.load_verify_locations(cadata=binascii.a2b_base64(CA))
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(binascii.a2b_base64(SERVER_CERT), binascii.a2b_base64(SERVER_KEY))
    return cctx, sctx


def handshake(ballast=0):
    hold = bytearray(ballast) if ballast else None
    gc.collect()
    a, b = Box(), Box()
    cctx, sctx = contexts()
    gc.collect()
    free0 = gc.mem_free()
    alloc0 = gc.mem_alloc()
    cli = cctx.wrap_socket(End(a, b), server_hostname=TLS_NAME, do_handshake_on_connect=False)
    srv = sctx.wrap_socket(End(b, a), server_side=True, do_handshake_on_connect=False)
    client_us = 0
    worst = 0
    steps = 0
    peak = 0
    msg = b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x14\x00\x00"
    done = False
    buf = bytearray(16)
    got = None
    while not done and steps < 200:
        t = time.ticks_us()
        n = cli.write(msg)
        d = time.ticks_diff(time.ticks_us(), t)
        client_us += d
        worst = max(worst, d)
        steps += 1
        peak = max(peak, gc.mem_alloc() - alloc0)
        if n:
            done = True
        got = srv.readinto(buf)  # the broker's side (not counted)
        peak = max(peak, gc.mem_alloc() - alloc0)
    held = gc.mem_alloc() - alloc0
    cli.close()
    srv.close()
    del hold
    return {"done": done and bool(got), "client_us": client_us, "worst_step_us": worst,
            "steps": steps, "peak_heap": peak, "held_heap": held, "free_before": free0}
