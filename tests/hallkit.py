"""What the hall's tests share (tests/test_hall*.py): the marks that skip them
where the broker or the browser is missing, a hall on free loopback ports,
the director's command as typed, and waiting for a condition."""
import contextlib
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT
from hall import broker
from hall.supervise import free_port
from hall.folder import Hall
from hall.paths import MQTT_JS
from bench import browser
from hall import tls as TLS

needs_broker = pytest.mark.skipif(
    broker.find_mosquitto() is None or not os.path.isfile(MQTT_JS),
    reason="mosquitto or the page's mqtt.js missing (make deps hall-page)")

needs_browser = pytest.mark.skipif(
    broker.find_mosquitto() is None or not os.path.isfile(MQTT_JS)
    or None in browser.browser_tools(),
    reason="needs mosquitto, chromium, chromium-driver and the page's mqtt.js "
           "(make deps hall-page)")


_PKI = []


def pki_dir():
    """One hall CA and broker certificate for the whole test session
    (tls.ensure, made once: RSA keys take a while), copied into each
    test hall's folder; the browsers trust its broker key (chromium())."""
    if not _PKI:
        d = tempfile.mkdtemp(prefix="hall-pki-")
        TLS.ensure(d)
        _PKI.append(d)
    return _PKI[0]


def seed_pki(folder):
    """The session's CA and broker certificate in a hall folder (before its
    write(), which then keeps them)."""
    os.makedirs(folder, exist_ok=True)
    for n in (TLS.CA_CERT, TLS.CA_KEY, TLS.BROKER_CERT, TLS.BROKER_KEY):
        shutil.copy2(os.path.join(pki_dir(), n), os.path.join(folder, n))


def chromium(profile_dir):
    """Headless Chromium trusting the test halls' broker key (pki_dir())."""
    return browser.headless_chromium(profile_dir, pki_dir())


def new_hall(tmp_path, tables=12, **kw):
    """Hall "cup" in tmp_path/hall on free loopback ports, its folder
    written (accounts, configuration, page, the session's certificates);
    not started."""
    h = Hall(str(tmp_path / "hall"), event="cup", tables=tables, port=free_port(),
               ws_port=free_port(), **kw)
    seed_pki(h.folder)
    h.write()
    return h


@contextlib.contextmanager
def running_hall(tmp_path, tables=12, **kw):
    """new_hall(), started (broker and recorder) for the with block, then stopped."""
    h = new_hall(tmp_path, tables, **kw)
    h.start()
    try:
        yield h
    finally:
        h.stop()


def hall_cmd(folder, *args, event=None, port=None):
    """The director's command as typed: python -m hall ARGS --dir
    FOLDER [--event E] [--port P]; the finished process (text)."""
    extra = ["--dir", folder]
    if event is not None:
        extra += ["--event", event]
    if port is not None:
        extra += ["--port", str(port)]
    return subprocess.run([sys.executable, "-m", "hall"] + list(args) + extra,
                          cwd=ROOT, capture_output=True, text=True, timeout=PATIENT_S)


def csv_rows(proc):
    """The rows of a `hall results --csv` that must have succeeded."""
    assert proc.returncode == 0, proc.stderr
    return list(csv.DictReader(io.StringIO(proc.stdout)))


# The bound of a wait on an event in the hall's tests (issue 37): reached only
# when the event never comes, so long enough for a machine loaded with other
# work (a page that renders in 1 s on a quiet one took 30 s on a busy one).
PATIENT_S = 300


def state_body(left=50000, right=60000, **kw):
    """A clock's state body the hall's protocol takes (hallproto.STATE_FIELDS:
    table 3's sim003 in game 1, left's clock running, 50 s / 60 s left),
    with the fields of kw replaced: the one valid state the hall's tests
    start from (their hostile variants are made from it)."""
    def side(ms):
        return {"remaining_ms": ms, "overtime_ms": 0, "penalty": 0, "flag": False,
                "forfeit": False}
    d = {"profile": "sdev", "t_ms": 5000, "running": "left", "paused": False, "over": False,
         "challenge_ms": 0, "late": None, "left": side(left), "right": side(right),
         "clock": "sim003", "table": 3, "game": 1}
    d.update(kw)
    return d


def until(read, cond, seconds=PATIENT_S, every=0.2):
    """read() every `every` s until cond(value) or `seconds` are over; the
    last value read (the caller asserts on it).  A wait on an event: give
    `seconds` only to shorten a wait that is meant to run out."""
    end = time.monotonic() + seconds
    v = read()
    while not cond(v) and time.monotonic() < end:
        time.sleep(every)
        v = read()
    return v


def page_until(browser, js, cond, seconds=PATIENT_S):
    """until() on what the page's script `js` returns in the browser."""
    return until(lambda: browser.execute_script(js), cond, seconds)


def png_pixels(data):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB/RGBA PNG, as
    Chromium's screenshots are (zlib and the five PNG filters: no imaging
    library needed)."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def bright(png):
    """How many pixels of a screenshot are bright text on the pages' dark
    background (any channel above 160)."""
    _w, _h, rows = png_pixels(png)
    return sum(1 for row in rows for px in row if max(px) > 160)
