"""The hall's accounts (docs/hall.md "Running a hall"): one per clock
(`1`..`N`, clocks.json) and the services' (service.json: the pages'
read-only viewer, the recorder), each a random password and its hash in
Mosquitto 2's PBKDF2-SHA512 format; every secret file created 0600.
"""
import base64
import hashlib
import json
import os
import secrets

import hallproto as hp

from hall import durable
from hall import recorder as REC
from hall.files import load_json

VIEWER = "hall/viewer"
RECORDER = REC.ACCOUNT
# PBKDF2-SHA512 rounds per password (Mosquitto's own tool uses 101).  NIST
# SP 800-63B 5.1.1.2: "as large as verification server performance will
# allow, typically at least 10,000".  The broker checks one password per
# CONNECT on its single thread: 10,000 rounds cost ~7 ms here, so 100 clocks
# reconnecting after a restart stall it ~0.7 s (50,000 rounds stalled it
# 3.5 s, and the page's times lagged the clocks by 3 s meanwhile:
# tests/test_hall_page.py).  The passwords themselves are 16 random
# characters (96 bits): no count makes guessing them feasible.
HASH_ITERATIONS = 10000



def write_secret(path, data):
    """Write a file that only its owner may read: created 0600 (a temp file
    opened with that mode, then renamed over `path`), never chmod-ed after."""
    if isinstance(data, str):
        data = data.encode()
    durable.replace(path, data)


def mosquitto_hash(password, iterations=HASH_ITERATIONS, salt=None):
    """A password file entry's hash in Mosquitto 2's PBKDF2-SHA512 format
    ($7$<iterations>$<salt>$<hash>, base64), as mosquitto_passwd writes it
    but with `iterations` rounds."""
    salt = salt or os.urandom(12)
    h = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return "$7$%d$%s$%s" % (iterations, base64.b64encode(salt).decode(),
                            base64.b64encode(h).decode())


def new_password():
    return secrets.token_urlsafe(12)   # 16 characters, 96 random bits


def account(v):
    """{"password", "hash"} from a stored entry (an older hall folder kept
    the bare password: hashed now)."""
    if isinstance(v, str):
        v = {"password": v}
    if not isinstance(v, dict) or not isinstance(v.get("password"), str) or not v["password"]:
        v = {"password": new_password()}
    if not isinstance(v.get("hash"), str) or not v["hash"].startswith("$7$%d$" % HASH_ITERATIONS):
        v["hash"] = mosquitto_hash(v["password"])
    return {"password": v["password"], "hash": v["hash"]}


def load(folder, tables):
    """(clocks {table: entry}, service {name: entry}) of a hall folder; new
    ones made (clock accounts 1..tables) and both files (re)written when
    anything changed."""
    os.makedirs(folder, exist_ok=True)
    cpath = os.path.join(folder, "clocks.json")
    spath = os.path.join(folder, "service.json")
    raw_c, raw_s = load_json(cpath), load_json(spath)
    clocks = {}
    for k, v in raw_c.items():
        if hp.is_account(k):     # (ASCII digits: not '¹', firmware/hallproto.py)
            clocks[int(k)] = account(v)
    for t in range(1, tables + 1):
        if t not in clocks:
            clocks[t] = account(None)
    service = {n: account(raw_s.get(n)) for n in (VIEWER, RECORDER)}
    c_out = {str(k): v for k, v in sorted(clocks.items())}
    if c_out != raw_c:
        write_secret(cpath, json.dumps(c_out, indent=1) + "\n")
    if service != raw_s:
        write_secret(spath, json.dumps(service, indent=1) + "\n")
    return clocks, service


def renew(folder, table):
    """A new password for clock account `table` in clocks.json."""
    path = os.path.join(folder, "clocks.json")
    raw = load_json(path)
    raw[str(table)] = account({"password": new_password()})
    write_secret(path, json.dumps(raw, indent=1) + "\n")


def passwd_text(clocks, service):
    """Mosquitto's password file: the services', then a line per clock."""
    lines = ["%s:%s\n" % (n, service[n]["hash"]) for n in (VIEWER, RECORDER)]
    lines += ["%d:%s\n" % (t, clocks[t]["hash"]) for t in sorted(clocks)]
    return "".join(lines)
