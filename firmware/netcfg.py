# The hall link's settings: net.json (written by `make deploy ... TABLE=n`
# or `hall clock-config`) read and checked, each fault one line, and the TLS
# context that pins the hall's CA (issue 29).  net.py builds the link from
# what load() returns.
import json

import hallproto as hp

CONFIG = "net.json"     # the clock's hall settings, in the app's folder

CONFIG_KEYS = ("host", "port", "event", "table", "password", "ca")
# TLS (issue 29): the clock speaks MQTT only over TLS, and only to a broker
# whose certificate the hall's own CA signed (net.json's "ca", PEM, put there
# by `hall clock-config`: the clock pins it) for this name (hall/tls.py
# makes that certificate).  The name, not the IP address: the CA signs
# nothing but this hall's broker, and the broker's address may change.
TLS_NAME = "scrabble-hall"
ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def is_ipv4(host):
    """A dotted IPv4 address: the clock never resolves a name (a DNS lookup
    would block its loop)."""
    p = host.split(".")
    if len(p) != 4:
        return False
    for x in p:
        if not x or len(x) > 3 or not x.isdigit() or int(x) > 255:
            return False
    return True


def random_id():
    """A client id nobody can guess, for a net.json without "client_id"."""
    try:
        import os
        b = os.urandom(8)
    except (ImportError, AttributeError, OSError):
        import random
        b = bytes([random.getrandbits(8) for _ in range(8)])
    return "c" + "".join(["%02x" % x for x in b])


def check_config(cfg):
    """A settings dict from net.json, or a one-line reason it is unusable."""
    if not isinstance(cfg, dict):
        return "net.json: expected a JSON object"
    for k in CONFIG_KEYS:
        if k not in cfg:
            return "net.json: missing %r" % k
    t = cfg["table"]
    if not isinstance(t, int) or t < 1 or t > 9999:
        return "net.json: table must be a number 1-9999"
    p = cfg["port"]
    if not isinstance(p, int) or p < 1 or p > 65535:
        return "net.json: port must be 1-65535"
    for k in ("host", "event", "password"):
        if not isinstance(cfg[k], str) or not cfg[k]:
            return "net.json: %r must be a non-empty text" % k
    if not is_ipv4(cfg["host"]):
        return ("net.json: host must be the hall computer's IP address (like "
                "192.168.1.10), not a name: the clock does no DNS lookup")
    cid = cfg.get("client_id", "c0-x")
    if not isinstance(cid, str) or not 4 <= len(cid) <= 64:
        return "net.json: client_id must be a text of 4-64 letters, digits, - or _"
    for ch in cid:
        if ch not in ID_CHARS:
            return "net.json: client_id must be a text of 4-64 letters, digits, - or _"
    ca = cfg["ca"]
    if not isinstance(ca, str) or "-----BEGIN CERTIFICATE-----" not in ca or len(ca) > 4096:
        return "net.json: 'ca' must be the hall's CA certificate (PEM, from hall clock-config)"
    # the hall's protocol (hallproto.py): what the hall's readers take
    if not hp.is_id(cfg.get("event", "x")):
        return "net.json: event must be 1-%d letters, digits, '.', '_' or '-'" % hp.MAX_ID
    if not hp.is_account(cfg.get("user", "1")):
        return "net.json: user must be the clock account's number"
    return None


def ca_der(pem):
    """The DER bytes of a PEM certificate (the boards' mbedtls reads DER only)."""
    import binascii
    lines = []
    inside = False
    for line in pem.split("\n"):
        line = line.strip()
        if line.startswith("-----BEGIN"):
            inside = True
        elif line.startswith("-----END"):
            break
        elif inside:
            lines.append(line)
    return binascii.a2b_base64("".join(lines))


def tls_context(pem):
    """A TLS client context that trusts only the hall's CA (`pem`) and
    refuses any other broker.  Raises ValueError for a bad certificate,
    ImportError on a firmware without ssl."""
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED   # (MicroPython's default is CERT_NONE)
    try:
        ctx.load_verify_locations(cadata=ca_der(pem))
    except (OSError, ValueError) as e:    # (CPython: ssl.SSLError)
        raise ValueError("not a certificate: %s" % e)
    return ctx


def load(fs, root):
    """net.json's settings, checked (its CA too); None after one line if it
    is unusable, quietly if there is none (a board not in a hall)."""
    try:
        f = fs.open(root + CONFIG, "rb")
        try:
            data = f.read()
        finally:
            f.close()
    except OSError:
        return None
    try:
        cfg = json.loads(data)
    except ValueError:
        print("net.json: not valid JSON; the clock stays off the network")
        return None
    why = check_config(cfg)
    if not why:
        try:
            tls_context(cfg["ca"])
        except ValueError as e:
            why = "net.json: 'ca' is %s" % e
        except ImportError:
            why = "this firmware has no ssl module: the clock cannot reach the hall safely"
    if why:
        print(why + "; the clock stays off the network")
        return None
    return cfg
