"""The hall's TLS (issue 29, docs/hall.md "The threat model"): nothing on the
hall's Wi-Fi travels in clear.

    ca.crt / ca.key          the hall's own certificate authority, made once per
                             hall folder (RSA-2048, by the openssl command);
                             every clock pins ca.crt (in its net.json, `hall
                             clock-config`); the key never leaves the folder
    broker.crt / broker.key  the broker's certificate, signed by that CA, for
                             TLS_NAME (the name every clock checks), localhost,
                             127.0.0.1 and the hall computer's addresses (made
                             again, by the same CA, when a new address appears:
                             the clocks need nothing new)

Private keys are created 0600 (openssl runs with umask 077) and live only in
the hall folder (build/hall, never in the repository).  Both certificates are
valid from 2000-01-01 to 2049-12-31: a clock has no wall clock (the RP2040's
RTC starts at 2021-01-01 at every boot, and mbedtls checks the dates), so a
certificate "not valid before" today would be refused by every clock.

Mosquitto serves MQTT over TLS to the clocks and MQTT over secure WebSockets
to the pages; the pages themselves come from PageServer (HTTPS, the same
certificate): Mosquitto 2.0's http_dir offers HTTP/2 over TLS and then
answers nothing, so a browser could not load the page from it.
"""
import base64
import functools
import hashlib
import http.server
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading

import host_sim  # noqa: F401  (its importer: the firmware's netcfg)
import netcfg
from hall import served

CA_CERT = "ca.crt"
CA_KEY = "ca.key"
BROKER_CERT = "broker.crt"
BROKER_KEY = "broker.key"
TLS_NAME = netcfg.TLS_NAME       # the name the clocks check (firmware/netcfg.py)
NOT_BEFORE = "20000101000000Z"   # (the clocks' RTC starts at 2021-01-01)
NOT_AFTER = "20491231235959Z"
KEY_BITS = 2048


class TLSError(Exception):
    pass


_CNF = """[ca]
default_ca = hall
[hall]
database = %(d)s/index.txt
new_certs_dir = %(d)s
serial = %(d)s/serial
default_md = sha256
policy = any
unique_subject = no
email_in_dn = no
[any]
commonName = supplied
[v3_ca]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_broker]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = %(san)s
"""


def openssl():
    exe = shutil.which("openssl") or ("/usr/bin/openssl" if os.path.isfile("/usr/bin/openssl")
                                       else None)
    if not exe:
        raise TLSError("the openssl command is missing: install Debian's openssl package")
    return exe


def _run(args, cwd):
    p = subprocess.run([openssl()] + args, cwd=cwd, capture_output=True, text=True,
                       preexec_fn=lambda: os.umask(0o077))
    if p.returncode:
        raise TLSError("openssl %s: %s" % (args[0], (p.stderr.strip().splitlines() or ["?"])[-1]))
    return p.stdout


def _sign(folder, tmp, csr, out, ext, san, selfsign=False):
    cnf = os.path.join(tmp, "ca.cnf")
    with open(cnf, "w") as f:
        f.write(_CNF % {"d": tmp, "san": san})
    if not os.path.exists(os.path.join(tmp, "index.txt")):
        open(os.path.join(tmp, "index.txt"), "w").close()
        with open(os.path.join(tmp, "serial"), "w") as f:
            f.write(os.urandom(8).hex() + "\n")   # a random serial each time
    args = ["ca", "-batch", "-config", cnf, "-keyfile", os.path.join(folder, CA_KEY),
            "-in", csr, "-out", out, "-extensions", ext, "-startdate", NOT_BEFORE,
            "-enddate", NOT_AFTER, "-notext"]
    args += ["-selfsign"] if selfsign else ["-cert", os.path.join(folder, CA_CERT)]
    _run(args, tmp)


def _newkey(path, tmp):
    """A new RSA key at `path`, 0600 from its creation (then renamed in)."""
    t = os.path.join(tmp, "new.key")
    _run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:%d" % KEY_BITS,
          "-out", t], tmp)
    os.chmod(t, 0o600)
    os.replace(t, path)


def broker_ips(folder):
    """The IP addresses the broker's certificate names (empty: none yet)."""
    path = os.path.join(folder, BROKER_CERT)
    if not os.path.isfile(path):
        return set()
    out = _run(["x509", "-in", path, "-noout", "-ext", "subjectAltName"], folder)
    return {x.strip()[len("IP Address:"):] for x in out.replace("\n", ",").split(",")
            if x.strip().startswith("IP Address:")}


def ensure(folder, ips=("127.0.0.1",)):
    """The hall's CA (made once) and a broker certificate naming every
    address in `ips` (made again, with the ones it named before, when one is
    missing).  True if anything was made."""
    os.makedirs(folder, exist_ok=True)
    made = False
    # (the work folder inside the hall's: its files are renamed into place,
    # which fails across filesystems, e.g. a hall folder on its own disk)
    with tempfile.TemporaryDirectory(prefix=".hall-ca-", dir=folder) as tmp:
        ca = os.path.join(folder, CA_CERT)
        if not (os.path.isfile(ca) and os.path.isfile(os.path.join(folder, CA_KEY))):
            for p in (BROKER_CERT, BROKER_KEY):
                if os.path.exists(os.path.join(folder, p)):
                    os.remove(os.path.join(folder, p))    # of another CA
            _newkey(os.path.join(folder, CA_KEY), tmp)
            csr = os.path.join(tmp, "ca.csr")
            _run(["req", "-new", "-key", os.path.join(folder, CA_KEY), "-subj",
                  "/CN=scrabble hall CA %s" % os.urandom(4).hex(), "-out", csr], tmp)
            _sign(folder, tmp, csr, os.path.join(tmp, "ca.crt"), "v3_ca", "DNS:x", True)
            os.chmod(os.path.join(tmp, "ca.crt"), 0o644)
            os.replace(os.path.join(tmp, "ca.crt"), ca)
            made = True
        have = broker_ips(folder)
        want = set(ips) | {"127.0.0.1"}
        if made or not want <= have or not os.path.isfile(os.path.join(folder, BROKER_KEY)):
            want |= have
            key = os.path.join(folder, BROKER_KEY)
            if not os.path.isfile(key):
                _newkey(key, tmp)
            csr = os.path.join(tmp, "broker.csr")
            _run(["req", "-new", "-key", key, "-subj", "/CN=" + TLS_NAME, "-out", csr], tmp)
            san = ", ".join(["DNS:" + TLS_NAME, "DNS:localhost"] +
                            ["IP:" + ip for ip in sorted(want)])
            out = os.path.join(tmp, "broker.crt")
            _sign(folder, tmp, csr, out, "v3_broker", san)
            os.chmod(out, 0o644)
            os.replace(out, os.path.join(folder, BROKER_CERT))
            made = True
    return made


def ca_pem(folder):
    with open(os.path.join(folder, CA_CERT)) as f:
        return f.read()


def fingerprint(folder, name=BROKER_CERT):
    """SHA-256 fingerprint of a certificate, as browsers show it (AB:CD:...)."""
    with open(os.path.join(folder, name)) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return ":".join("%02X" % b for b in hashlib.sha256(der).digest())


def spki_hash(folder):
    """base64 SHA-256 of the broker's public key (Chromium's
    --ignore-certificate-errors-spki-list: trust exactly this key)."""
    pub = _run(["x509", "-in", os.path.join(folder, BROKER_CERT), "-pubkey", "-noout"], folder)
    p = subprocess.run([openssl(), "pkey", "-pubin", "-outform", "der"], input=pub.encode(),
                       capture_output=True, check=True)
    return base64.b64encode(hashlib.sha256(p.stdout).digest()).decode()


def client_context(folder):
    """A CPython client context that trusts only the hall's CA (the hall's
    own tools: recorder, viewer, tests)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile=os.path.join(folder, CA_CERT))
    return ctx


def paho_tls(client, folder):
    """A paho client speaks TLS to the hall and trusts only its CA."""
    client.tls_set_context(client_context(folder))


def local_ips():
    """The hall computer's IPv4 addresses (for the broker's certificate: a
    browser that trusts the hall's CA then checks the address it typed)."""
    ips = set()
    try:
        p = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True,
                           timeout=5)
        for line in p.stdout.splitlines():
            f = line.split()
            if "inet" in f:
                ips.add(f[f.index("inet") + 1].split("/")[0])
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("10.255.255.255", 1))       # no packet is sent
        ips.add(s.getsockname()[0])
        s.close()
    except OSError:
        pass
    return ips


class _Page(http.server.SimpleHTTPRequestHandler):
    timeout = 10          # a client that stops talking frees its thread
    hall = None           # the hall folder (PageServer): hall/served.py's answers
    # issue 37: every text with its charset (hall/served.py)
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **served.TYPES)

    def log_message(self, *a):
        pass

    def do_GET(self):
        got = served.dynamic(self.hall, self.path) if self.hall else None
        if got is None:
            return super().do_GET()
        body, ctype = got
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        self.send_header("Strict-Transport-Security", "max-age=86400")
        lang = served.content_language(self.path)
        if lang:
            self.send_header("Content-Language", lang)
        super().end_headers()

    def list_directory(self, path):
        self.send_error(404)
        return None


class _TLSServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr, handler, ctx):
        self.ctx = ctx
        super().__init__(addr, handler)

    def get_request(self):
        s, a = self.socket.accept()
        # the handshake in the request's own thread (a silent client cannot
        # hold up the others)
        return self.ctx.wrap_socket(s, server_side=True, do_handshake_on_connect=False), a

    def handle_error(self, request, client_address):
        pass    # a browser refusing the certificate, a scanner: not the hall's problem


class PageServer:
    """The pages (www/) over HTTPS, with the broker's certificate, in a
    thread of the hall's process: GET only, no directory listing, nothing
    outside www/."""

    def __init__(self, folder, www, bind, port):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(os.path.join(folder, BROKER_CERT), os.path.join(folder, BROKER_KEY))
        page = type("_PageOf", (_Page,), {"hall": folder})
        self.server = _TLSServer((bind, port), functools.partial(page, directory=www), ctx)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True,
                                       name="hall-pages")

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
