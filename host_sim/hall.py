"""The tournament hall (issues 14, 19; docs/hall.md): Mosquitto with the
project's configuration, the director's page, the recorder, the results file.

    python -m host_sim hall                      start the broker, recorder, page
    python -m host_sim hall --clocks 100         ... and 100 simulated clocks
    python -m host_sim hall results --csv        every recorded game as CSV
    python -m host_sim hall clock-config --table 12 --host 192.168.1.10   a net.json
    python -m host_sim hall revoke --table 12    a new password for clock 12

Everything lives in one folder (default build/hall): mosquitto.conf, the
password file (PBKDF2-SHA512 hashes in Mosquitto's format, HASH_ITERATIONS),
the ACL file, clocks.json (each clock account's password, for `make deploy
TABLE=n`), service.json (the viewer's and the recorder's), results.jsonl (the
recorder's file, host_sim/hall_recorder.py), the page (www/) and the broker's
persistence database.  Every secret file is created 0600 (os.open with the
mode: never readable by others, not even for an instant).

Accounts, each with explicit ACL lines (no %u patterns):
  "<n>"           clock n (make deploy TABLE=n): writes only topics ending in
                  its own name, scrabble/<event>/<table>/<kind>[/<game>]/<n>, at
                  any table (the setup menu may renumber it); reads only its
                  confirmations, scrabble/<event>/confirm/<n>
  hall/recorder   reads the results, writes the confirmations
  hall/viewer     the page's: reads scrabble/<event>/#, writes nothing
"""
import base64
import csv
import hashlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time

import host_sim
from host_sim import durable
from host_sim import hall_recorder as REC
from host_sim import tournament

ROOT = host_sim.ROOT
PAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hall_page")
MQTT_JS = os.path.join(ROOT, "build", "npm", "node_modules", "mqtt", "dist", "mqtt.min.js")
VIEWER = "hall/viewer"
RECORDER = REC.ACCOUNT
DEFAULT_DIR = os.path.join(ROOT, "build", "hall")
# PBKDF2-SHA512 rounds per password (Mosquitto's own tool uses 101).  NIST
# SP 800-63B 5.1.1.2: "as large as verification server performance will
# allow, typically at least 10,000".  The broker checks one password per
# CONNECT on its single thread: 10,000 rounds cost ~7 ms here, so 100 clocks
# reconnecting after a restart stall it ~0.7 s (50,000 rounds stalled it
# 3.5 s, and the page's times lagged the clocks by 3 s meanwhile:
# tests/test_hall_page.py).  The passwords themselves are 16 random
# characters (96 bits): no count makes guessing them feasible.
HASH_ITERATIONS = 10000
MESSAGE_SIZE_LIMIT = 20480   # a game log is at most net.LOG_MAX (16 KB) + a line
MEMORY_LIMIT = 256 * 1024 * 1024


class HallError(Exception):
    pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def find_mosquitto():
    for name in ("mosquitto", "/usr/sbin/mosquitto"):
        p = shutil.which(name) or (name if os.path.isfile(name) else None)
        if p:
            return p
    return None


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


def _load(path):
    try:
        with open(path) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


def _account(v):
    """{"password", "hash"} from a stored entry (an older hall folder kept
    the bare password: hashed now)."""
    if isinstance(v, str):
        v = {"password": v}
    if not isinstance(v, dict) or not isinstance(v.get("password"), str) or not v["password"]:
        v = {"password": new_password()}
    if not isinstance(v.get("hash"), str) or not v["hash"].startswith("$7$%d$" % HASH_ITERATIONS):
        v["hash"] = mosquitto_hash(v["password"])
    return {"password": v["password"], "hash": v["hash"]}


def service_passwords(folder):
    """{account: password} of the hall's own accounts (viewer, recorder)."""
    return {k: v["password"] for k, v in _load(os.path.join(folder, "service.json")).items()
            if isinstance(v, dict) and "password" in v}


def is_ipv4(host):
    """A dotted IPv4 address (the clocks do no DNS lookup)."""
    p = host.split(".") if isinstance(host, str) else ()
    return len(p) == 4 and all(x.isdigit() and len(x) <= 3 and int(x) <= 255 for x in p)


class Hall:
    """A hall folder: configuration, accounts, page; start()/stop() the
    broker and the recorder."""

    def __init__(self, folder=DEFAULT_DIR, event="open", tables=100, port=1883,
                 ws_port=9001, bind="127.0.0.1", memory_limit=MEMORY_LIMIT):
        if not event or any(c in event for c in "+#/ ") or not event.isprintable():
            raise HallError("event must be one word without + # / (got %r)" % event)
        self.folder = os.path.abspath(folder)
        self.event = event
        self.tables = tables
        self.port = port
        self.ws_port = ws_port
        self.bind = bind
        self.memory_limit = memory_limit
        self.proc = None
        self.rec_proc = None
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        self.www = os.path.join(self.folder, "www")

    # -- accounts -------------------------------------------------------------------
    def _accounts(self):
        """(clocks {table: entry}, service {name: entry}); new ones made and
        both files (re)written when anything changed."""
        os.makedirs(self.folder, exist_ok=True)
        cpath = os.path.join(self.folder, "clocks.json")
        spath = os.path.join(self.folder, "service.json")
        raw_c, raw_s = _load(cpath), _load(spath)
        clocks = {}
        for k, v in raw_c.items():
            if k.isdigit() and int(k) >= 1:
                clocks[int(k)] = _account(v)
        for t in range(1, self.tables + 1):
            if t not in clocks:
                clocks[t] = _account(None)
        service = {n: _account(raw_s.get(n)) for n in (VIEWER, RECORDER)}
        c_out = {str(k): v for k, v in sorted(clocks.items())}
        if c_out != raw_c:
            write_secret(cpath, json.dumps(c_out, indent=1) + "\n")
        if service != raw_s:
            write_secret(spath, json.dumps(service, indent=1) + "\n")
        return clocks, service

    def passwords(self):
        """{table: password} of the clock accounts, made once per hall folder
        and kept."""
        return {t: v["password"] for t, v in self._accounts()[0].items()}

    def revoke(self, table):
        """A new password for clock account `table`: its old net.json (a lost
        or stolen clock) can no longer connect.  The running broker reloads
        its password file (SIGHUP)."""
        clocks, _ = self._accounts()
        if table not in clocks:
            raise HallError("table %d is not in this hall (1-%d)" % (table, max(clocks)))
        path = os.path.join(self.folder, "clocks.json")
        raw = _load(path)
        raw[str(table)] = {"password": new_password()}
        raw[str(table)] = _account(raw[str(table)])
        write_secret(path, json.dumps(raw, indent=1) + "\n")
        self.write_passwd()
        return self.reload()

    def reload(self):
        """SIGHUP the running broker (pid in hall.pid): it reads the password
        and ACL files again.  False if no broker of this folder runs."""
        try:
            with open(os.path.join(self.folder, "hall.pid")) as f:
                pid = int(f.read())
            os.kill(pid, signal.SIGHUP)
            return True
        except (OSError, ValueError):
            return False

    # -- configuration ------------------------------------------------------------
    def write_passwd(self):
        clocks, service = self._accounts()
        lines = ["%s:%s\n" % (n, service[n]["hash"]) for n in (VIEWER, RECORDER)]
        lines += ["%d:%s\n" % (t, clocks[t]["hash"]) for t in sorted(clocks)]
        write_secret(os.path.join(self.folder, "passwd"), "".join(lines))
        return clocks, service

    def acl_text(self, tables):
        """The ACL: one explicit block per account; a clock writes only its
        own topics (at any table: a referee may renumber it) and reads only
        its confirmations."""
        e = self.event
        out = ["# generated by python -m host_sim hall (docs/hall.md); no %u patterns:",
               "# every account has its own lines",
               "", "user %s" % VIEWER, "topic read scrabble/%s/#" % e,
               "", "user %s" % RECORDER, "topic read scrabble/%s/+/result/+/+" % e,
               "topic write scrabble/%s/confirm/+" % e,
               # issue 21: a game's round from its first press; the round for the pages
               "topic read scrabble/%s/+/state/+" % e,
               "topic read scrabble/%s/+/heartbeat/+" % e,
               "topic write scrabble/%s/round" % e,
               "topic write scrabble/%s/round/+" % e,   # issue 27: a message per table
               "topic read scrabble/%s/round/+" % e,
               "topic read scrabble/%s/+/log/+/+" % e]   # issue 27: the logs filed
        for t in tables:
            out += ["", "user %d" % t]
            out += ["topic write scrabble/%s/+/%s/%d" % (e, k, t)
                    for k in ("status", "state", "heartbeat")]
            out += ["topic write scrabble/%s/+/%s/+/%d" % (e, k, t) for k in ("result", "log")]
            out.append("topic read %s" % REC.confirm_topic(e, t))
        return "\n".join(out) + "\n"

    def write(self):
        os.makedirs(self.folder, exist_ok=True)
        clocks, service = self.write_passwd()
        passwd = os.path.join(self.folder, "passwd")
        acl = os.path.join(self.folder, "acl")
        write_secret(acl, self.acl_text(sorted(clocks)))
        self.write_page(service[VIEWER]["password"])
        ws_bind = self.bind
        write_secret(self.conf, (
            "# generated by python -m host_sim hall (docs/hall.md)\n"
            "# stay the user who started the hall (root would switch to 'mosquitto')\n"
            "user %s\n"
            "per_listener_settings false\n"
            "allow_anonymous false\n"
            "password_file %s\n"
            "acl_file %s\n"
            "# a message bigger than a game log is refused; the broker's heap is\n"
            "# bounded (retained messages included); queues are bounded\n"
            "message_size_limit %d\n"
            "max_packet_size %d\n"
            "memory_limit %d\n"
            "max_queued_messages 1000\n"
            "max_queued_bytes 16777216\n"
            "retain_available true\n"
            "check_retain_source true\n"
            "persistence true\n"
            "persistence_location %s/\n"
            "autosave_interval 1\n"
            "log_dest stderr\n"
            "log_type error\nlog_type warning\n"
            "# the clocks\n"
            "listener %d %s\n"
            "socket_domain ipv4\n"
            "max_connections %d\n"
            "# the director's page: MQTT over WebSockets, and the page itself\n"
            "# (socket_domain: without it Mosquitto 2.0 binds WebSockets to every\n"
            "# interface whatever the address)\n"
            "listener %d %s\n"
            "socket_domain ipv4\n"
            "protocol websockets\n"
            "http_dir %s\n"
            % (pwd.getpwuid(os.getuid()).pw_name, passwd, acl, MESSAGE_SIZE_LIMIT,
               MESSAGE_SIZE_LIMIT + 512, self.memory_limit, self.folder, self.port, self.bind,
               2 * len(clocks) + 16, self.ws_port, ws_bind, self.www)))
        return {t: v["password"] for t, v in clocks.items()}

    def write_page(self, viewer_password):
        os.makedirs(self.www, exist_ok=True)
        for name in os.listdir(PAGE_DIR):
            shutil.copy(os.path.join(PAGE_DIR, name), os.path.join(self.www, name))
        if not os.path.isfile(MQTT_JS):
            raise HallError("%s missing: run `make hall-page` (npm install mqtt)" % MQTT_JS)
        shutil.copy(MQTT_JS, os.path.join(self.www, "mqtt.min.js"))
        # The viewer's password is in the page for every browser in the hall:
        # the account can read and nothing else.
        with open(os.path.join(self.www, "config.js"), "w") as f:
            f.write("var HALL = %s;\n" % json.dumps({
                "event": self.event, "user": VIEWER, "password": viewer_password}))

    def viewer_password(self):
        return self._accounts()[1][VIEWER]["password"]

    def clock_config(self, table, host=None, ssid="", wifi_password=""):
        """A clock's net.json: the account of clock <table> (its first table;
        the setup menu may give it another one later) and a client id nobody
        can guess (no one can take its connection over)."""
        host = host or "127.0.0.1"
        if not is_ipv4(host):
            raise HallError("the broker must be given as an IP address like 192.168.1.10, "
                            "not %r: the clock does no DNS lookup" % host)
        pw = self.passwords()
        if table not in pw:
            raise HallError("table %d is not in this hall (1-%d)" % (table, self.tables))
        return {"host": host, "port": self.port, "event": self.event,
                "table": table, "user": str(table), "password": pw[table],
                "client_id": "c%d-%s" % (table, secrets.token_hex(8)), "ssid": ssid,
                "wifi_password": wifi_password}

    # -- the broker and the recorder --------------------------------------------------
    def start(self, timeout=10.0, stderr=None):
        self.start_broker(timeout, stderr)
        self.start_recorder(timeout, stderr)
        return self

    def start_broker(self, timeout=10.0, stderr=None):
        exe = find_mosquitto()
        if not exe:
            raise HallError("mosquitto not found: install Debian's mosquitto package "
                            "(make tools-os does it)")
        self.proc = subprocess.Popen([exe, "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=stderr if stderr is not None else subprocess.PIPE)
        write_secret(os.path.join(self.folder, "hall.pid"), "%d\n" % self.proc.pid)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                if not err and hasattr(stderr, "name"):   # its log file (hall run)
                    stderr.flush()
                    with open(stderr.name, errors="replace") as f:
                        err = f.read()
                raise HallError("mosquitto exited: %s" % err.strip().splitlines()[-1:])
            if _listening(self.port) and _listening(self.ws_port):
                return self
            time.sleep(0.05)
        raise HallError("mosquitto did not open ports %d/%d" % (self.port, self.ws_port))

    def start_recorder(self, timeout=10.0, stderr=None, wait=True):
        """The recorder (host_sim/hall_recorder.py) in a process of its own;
        wait: until it is connected (it keeps trying while the broker is down)."""
        self.rec_proc = subprocess.Popen(
            [sys.executable, "-m", "host_sim.hall_recorder", self.folder, str(self.port),
             self.event], cwd=ROOT, stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else None, text=True)
        if not wait:
            return self
        line = self.rec_proc.stdout.readline()   # "recorder: ready" once connected
        if "ready" not in line:
            raise HallError("the recorder did not start: %r" % line)
        return self

    def stop_recorder(self, sig=signal.SIGTERM):
        p, self.rec_proc = self.rec_proc, None
        if p is not None and p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop_broker(self, sig=signal.SIGTERM):
        p, self.proc = self.proc, None
        if p is not None and p.poll() is None:
            p.send_signal(sig)   # SIGTERM: saves the persistence db
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop(self):
        self.stop_recorder()
        self.stop_broker()

    def watch(self, seconds=None):
        """Until the broker exits (or `seconds` pass): restart the recorder
        whenever it dies, with one line on stderr (its results stay on the
        clocks meanwhile: nothing is lost, only delayed)."""
        end = None if seconds is None else time.monotonic() + seconds
        while self.proc is not None and self.proc.poll() is None:
            if end is not None and time.monotonic() >= end:
                return
            if self.rec_proc is not None and self.rec_proc.poll() is not None:
                print("hall: the recorder stopped (exit %s); starting it again"
                      % self.rec_proc.returncode, file=sys.stderr, flush=True)
                self.start_recorder(stderr=sys.stderr, wait=False)
            time.sleep(0.5)

    def url(self, host="127.0.0.1"):
        return "http://%s:%d/" % (host, self.ws_port)

    def collect(self, topic, **kw):
        """collect() with this hall's viewer account."""
        return collect(self.port, topic, folder=self.folder, **kw)

    def records(self, warn=None):
        """The recorder's lines (hall_recorder.read_records)."""
        return REC.read_records(self.folder, warn)


def _listening(port):
    s = socket.socket()
    try:
        s.settimeout(0.2)
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


# -- the page in a headless browser (tests/test_hall_page.py, make bench) -----------
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")


def browser_tools():
    """(chromium, chromedriver) paths, or None where missing."""
    return (shutil.which("chromium") or _file("/usr/bin/chromium"),
            shutil.which("chromedriver") or _file("/usr/bin/chromedriver"))


def _file(p):
    return p if os.path.exists(p) else None


def headless_chromium(profile_dir):
    """Debian's chromium through chromium-driver (selenium), with a new empty
    profile in profile_dir."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chromium, driver = browser_tools()
    if not chromium or not driver:
        raise HallError("chromium / chromium-driver not installed (make tools-os)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for f in CHROMIUM_FLAGS + ("--user-data-dir=" + profile_dir,):
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(driver), options=opts)


# -- reading the hall ---------------------------------------------------------------
def viewer_client(port, host="127.0.0.1", client_id="", password=None, folder=None):
    """A paho client logged in as the read-only viewer (password: given, or
    from the hall folder's service.json)."""
    import paho.mqtt.client as mqtt
    if password is None:
        password = service_passwords(folder or DEFAULT_DIR).get(VIEWER, "")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.username_pw_set(VIEWER, password)
    c.connect(host, port)
    return c


def collect(port, topic, host="127.0.0.1", quiet_s=0.5, timeout=10.0, folder=None):
    """{topic: payload} of the retained messages under `topic` (a wildcard),
    read until quiet_s passes with nothing new."""
    got = {}
    last = [time.monotonic()]
    done = []

    def on_connect(c, u, flags, rc, props=None):
        if rc != 0:
            done.append("refused: %s" % rc)
        c.subscribe(topic, qos=1)

    def on_message(c, u, m):
        if m.retain:
            got[m.topic] = m.payload
        last[0] = time.monotonic()

    c = viewer_client(port, host, folder=folder)
    c.on_connect = on_connect
    c.on_message = on_message
    c.loop_start()
    end = time.monotonic() + timeout
    while time.monotonic() < end and not done:
        time.sleep(0.05)
        if time.monotonic() - last[0] > quiet_s:
            break
    c.loop_stop()
    c.disconnect()
    if done:
        raise HallError(done[0])
    return got


def result_topics(event):
    """Every clock's results: scrabble/<event>/<table>/result/<game>/<clock account>."""
    return "scrabble/%s/+/result/+/+" % event


CSV_FIELDS = tournament.CSV_FIELDS   # round, table, both names, ... (issue 21)


def result_rows(records, starts=()):
    """CSV rows from the recorder's lines (hall_recorder.read_records(), all
    valid): host_sim/tournament.py rows_from(), the one place that turns
    recorded results into rows (one row per game: a referee's void is the
    same game, its last body and first end time; the round of its first
    press; hall results --round N picks one round)."""
    return tournament.rows_from(records, starts)


write_csv = tournament.write_csv


# -- the command --------------------------------------------------------------------
def add_arguments(p):
    p.add_argument("action", nargs="?", default="run",
                   choices=("run", "results", "clock-config", "revoke", "round", "pairings",
                            "scores", "logs"),
                   help="run (default): start the hall; results: print the recorded "
                        "games; clock-config: print a clock's net.json; revoke: a new "
                        "password for clock account --table (a lost or stolen clock); "
                        "round N: from now on games are round N; pairings --round N FILE: "
                        "the round's seating from a TSH .t file or a table,player1,player2 CSV; "
                        "scores --round N --table T LEFT RIGHT: the scores of a table's score "
                        "sheet (--round N alone: the round's results desk); logs --round N "
                        "[--table T] [--out DIR]: copy the round's game logs out")
    p.add_argument("value", nargs="*", default=[],
                   help="round: the round number; pairings: the pairings file; scores: the "
                        "left and the right player's score")
    p.add_argument("--round", type=int, default=None,
                   help="results: only this round; pairings: the round the file is for")
    p.add_argument("--dir", default=DEFAULT_DIR, help="the hall's folder (default build/hall)")
    p.add_argument("--event", default="open", help="the event's name in the topics (default open)")
    p.add_argument("--tables", type=int, default=100, help="clock accounts 1..N (default 100)")
    p.add_argument("--port", type=int, default=1883, help="MQTT port for the clocks (default 1883)")
    p.add_argument("--ws-port", type=int, default=9001,
                   help="WebSocket port; the page is served there too (default 9001)")
    p.add_argument("--lan", action="store_true",
                   help="listen on every interface (default: loopback only)")
    p.add_argument("--clocks", type=int, default=0,
                   help="also run N simulated clocks (the device app on fake hardware)")
    p.add_argument("--speed", type=float, default=1.0, help="simulated clocks' time factor")
    p.add_argument("--seconds", type=float, default=0,
                   help="stop after this many seconds (default: Ctrl-C)")
    p.add_argument("--csv", action="store_true", help="results: CSV (the default)")
    p.add_argument("--excel", action="store_true",
                   help="results: CSV for Excel (UTF-8 with a byte-order mark, ; between cells)")
    p.add_argument("--tsh", action="store_true",
                   help="results --round N: the round in TSH's score-entry form (a ROUND "
                        "DIVISION, then `player score player score` a game a line)")
    p.add_argument("--division", default=None,
                   help="results --tsh: TSH's division (default: the .t file's name, a.t: a)")
    p.add_argument("--bye-score", type=int, default=tournament.BYE_SCORE,
                   help="results --tsh: the score of a bye's line (default 50)")
    p.add_argument("--table", type=int, default=0,
                   help="clock-config, revoke: the clock account; scores: the table")
    p.add_argument("--host", default=None, help="clock-config: the hall computer's IP address")
    p.add_argument("--ssid", default="", help="clock-config: Wi-Fi network")
    p.add_argument("--wifi-password", default="", help="clock-config: Wi-Fi password")
    p.add_argument("--out", default=None,
                   help="clock-config: write the net.json there (created 0600) instead "
                        "of printing it; logs: the folder to copy them to (default "
                        "round-N-logs)")


def main(args):
    try:
        hall = Hall(args.dir, args.event, args.tables, args.port, args.ws_port,
                    "0.0.0.0" if args.lan else "127.0.0.1")
        if args.action == "results":
            if not os.path.isfile(os.path.join(hall.folder, REC.RESULTS)):
                raise HallError("no results in %s: %s is written by the running hall's "
                                "recorder" % (hall.folder, REC.RESULTS))
            if args.round is not None and args.round < 1:
                raise HallError("--round: rounds start at 1")
            return results(hall, args)
        if args.action == "scores":
            return scores(hall, args)
        if args.action == "logs":
            return logs_out(hall, args)
        if args.action in ("round", "pairings"):
            return _tournament(hall, args)
        if args.action == "clock-config":
            if not args.host:
                raise HallError("clock-config needs --host: the hall computer's address "
                                "on the Wi-Fi (make deploy ... BROKER=192.168.1.10)")
            text = json.dumps(hall.clock_config(args.table, args.host, args.ssid,
                                                args.wifi_password))
            if args.out:
                write_secret(args.out, text + "\n")   # its password: 0600 from the start
            else:
                print(text)
            return 0
        if args.action == "revoke":
            live = hall.revoke(args.table)
            print("hall: clock account %d has a new password%s; deploy its clock again "
                  "(make deploy TABLE=%d)" % (args.table, " (the broker reloaded it)" if live
                                              else "", args.table))
            return 0
        return run(hall, args)
    except HallError as e:
        print("hall: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("hall: cannot use the hall folder %s: %s" % (args.dir, e), file=sys.stderr)
        return 2


def _say(m):
    print("hall: " + m, file=sys.stderr)


def results(hall, args):
    """hall results [--round N] [--csv [--excel] | --tsh]: the CSV (every
    game, then the byes) or the TSH entry block of round N; each seated
    table without a result or scores, and each result outside the seating,
    is one line on stderr (issue 27: never silently missing)."""
    found = tournament.rows(hall.folder, args.round, _say)
    rounds = [args.round] if args.round is not None else sorted({r["round"] for r in found
                                                                 if r["round"]})
    gaps = []
    for n in rounds:
        gaps += tournament.missing(hall.folder, n, found, lambda m: None)
    if args.tsh:
        if args.round is None:
            raise HallError("--tsh needs --round N: TSH takes one round at a time")
        division = args.division or _division(hall.folder, args.round)
        lines, problems = tournament.tsh_lines(found, args.round, division, args.bye_score)
        sys.stdout.write("\n".join(lines) + "\n")
        for m in gaps + [p for p in problems if "no scores typed" not in p]:
            _say(m)
        return 1 if problems or gaps else 0
    out = sys.stdout
    if args.excel:
        out = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="", closefd=False)
    tournament.write_csv(found, out, excel=args.excel)
    out.flush()
    for m in gaps:
        _say(m)
    if args.round is not None and not any(r["round"] == args.round and not r["bye"]
                                          for r in found):
        began = sum(len(v) for v in tournament.round_games(hall.folder, args.round,
                                                          lambda m: None).values())
        _say("round %d: no game has a result yet (%d game%s began in it)"
             % (args.round, began, "" if began == 1 else "s"))
    return 0


def logs_out(hall, args):
    """hall logs --round N [--table T] [--out DIR]: the round's game logs as
    the recorder filed them (host_sim/hall_logs.py), copied to DIR/table-TT/,
    one line each: the game's end as the replay reads it."""
    from host_sim import hall_logs
    from host_sim import logs as logsmod
    if args.round is None or args.round < 1:
        raise HallError("logs needs --round N: hall logs --round 2 [--table 5]")
    found = hall_logs.filed(hall.folder, args.round, args.table or None)
    if not found:
        raise HallError("no game log of round %d%s filed in %s (the recorder files each "
                        "game's log when its clock publishes it at the game's end)"
                        % (args.round, ", table %d" % args.table if args.table else "",
                           hall.folder))
    out = args.out or "round-%d-logs" % args.round
    for table, path in found:
        dest = os.path.join(out, "table-%02d" % table)
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(path, os.path.join(dest, os.path.basename(path)))
        print("table %2d  %s" % (table, logsmod.describe(os.path.join(dest,
                                                                     os.path.basename(path)))))
    print("%d game log%s of round %d copied to %s" % (len(found), "" if len(found) == 1
                                                       else "s", args.round, out))
    return 0


def _division(folder, rnd):
    src = tournament.load_seating(folder, rnd, lambda m: None).source
    if src.lower().endswith(".t"):
        return src[:-2]
    raise HallError("--tsh needs --division NAME (round %d's seating is not from a TSH .t "
                    "file)" % rnd)


def scores(hall, args):
    """hall scores --round N [--table T LEFT RIGHT]: type a table's two
    scores from its score sheet (left and right as seated), or list the
    round's desk: each table's scores, the clock's penalties and the
    adjusted scores, and what is missing."""
    if args.round is None:
        raise HallError("scores needs --round N: hall scores --round 2 --table 5 412 388")
    vals = args.value
    if args.table or vals:
        if not args.table or len(vals) != 2 or not all(_int(v) for v in vals):
            raise HallError("scores --round N --table T LEFT RIGHT: the two scores as the "
                            "score sheet has them, left player first (e.g. 412 388)")
        try:
            tournament.set_scores(hall.folder, args.round, args.table, int(vals[0]),
                                  int(vals[1]))
        except tournament.TournamentError as e:
            raise HallError(str(e))
    found = tournament.rows(hall.folder, args.round, lambda m: None)
    for r in found:
        if r["bye"]:
            print("round %d  bye    %s" % (r["round"], r["left_player"]))
        elif not args.table or r["table"] == args.table:
            print(desk_line(r))
    if args.table and not any(r["table"] == args.table and not r["bye"] for r in found):
        print("round %d, table %d: scores %s stored; no result from its clock yet"
              % (args.round, args.table, " ".join(vals)))
    if not args.table:
        for m in tournament.missing(hall.folder, args.round, found, lambda m: None):
            _say(m)
    return 0


def _int(v):
    return v.lstrip("-").isdigit() and len(v) <= 6


def desk_line(r):
    """One table at the results desk: names, clock times, scores, penalties,
    adjusted scores."""
    def side(k):
        if r[k + "_score"] == "":
            return "%s %s, %s" % (r[k + "_player"] or "?", r[k + "_clock"],
                                  "-%d pts" % r[k + "_penalty"] if r[k + "_penalty"] else "no penalty")
        return "%s %s: %d%s = %d" % (r[k + "_player"] or "?", r[k + "_clock"], r[k + "_score"],
                                     " - %d" % r[k + "_penalty"] if r[k + "_penalty"] else "",
                                     r[k + "_adjusted"])
    tail = "" if r["left_score"] != "" else "  (no scores yet)"
    if r["forfeit"]:
        tail += "  FORFEIT %s (TSO § 5.2 c)" % r["forfeit"]
    return "round %d  table %d  %s  |  %s%s" % (r["round"], r["table"], side("left"),
                                               side("right"), tail)


def _tournament(hall, args):
    """hall round N / hall pairings --round N FILE (host_sim/tournament.py)."""
    args.value = args.value[0] if len(args.value) == 1 else None if not args.value else "x"
    if args.action == "round":
        if args.value is None or not args.value.isdigit():
            raise HallError("round needs the round's number: hall round 3")
        try:
            return tournament.cmd_round(hall.folder, int(args.value))
        except tournament.TournamentError as e:
            raise HallError(str(e))
    if args.round is None or args.value is None:
        raise HallError("pairings needs --round N and a file: hall pairings --round 3 div.t")
    if args.round < 1 or args.round > tournament.MAX_ROUND:
        raise HallError("--round: a number 1-%d" % tournament.MAX_ROUND)
    return tournament.cmd_pairings(hall.folder, args.round, args.value)


BROKER_LOG = "mosquitto.log"


def run(hall, args):
    hall.write()
    # issue 27: Mosquitto's own start-up warnings ("should not be run as
    # root" ...) are no news for the director: they go to a file in the hall
    # folder; the recorder's lines stay on the terminal
    log = open(os.path.join(hall.folder, BROKER_LOG), "ab")
    try:
        hall.start_broker(stderr=log)
    except HallError:
        log.close()
        raise
    hall.start_recorder(stderr=sys.stderr)
    if hall.bind == "127.0.0.1":
        print("hall: broker on port %d, the director's page at %s (event %r, tables 1-%d; "
              "loopback only: --lan for the hall's Wi-Fi)"
              % (hall.port, hall.url(), hall.event, hall.tables), flush=True)
    else:
        print("hall: LISTENING ON EVERY INTERFACE (--lan): clocks on port %d, the "
              "director's page on port %d (http://<this computer's address>:%d/) "
              "(event %r, tables 1-%d)" % (hall.port, hall.ws_port, hall.ws_port,
                                           hall.event, hall.tables), flush=True)
    print("hall: the projector view is projector.html there; round %d (hall round N, "
          "hall pairings --round N FILE); the broker's own log: %s"
          % (tournament.current_round(hall.folder), os.path.join(hall.folder, BROKER_LOG)),
          flush=True)
    # issue 27: the results desk, on this computer only (host_sim/desk.py)
    from host_sim import desk as deskmod
    desk = None
    try:
        desk = deskmod.Desk(hall.folder, hall.ws_port + 1).start()
        print("hall: the results desk (scores from the score sheets, exports for TSH) at "
              "%s, on this computer only" % desk.url(), flush=True)
    except OSError as e:
        print("hall: no results desk: port %d: %s (hall scores / hall results --tsh "
              "do the same)" % (hall.ws_port + 1, e.strerror or e), file=sys.stderr, flush=True)
    sim = None
    try:
        if args.clocks:
            from host_sim import hall_sim
            # issue 27: a rehearsal: each `hall round N` gives every clock a
            # fresh game; their flash is kept in the hall folder
            sim = hall_sim.Fleet(hall, args.clocks, speed=args.speed,
                                 folder=os.path.join(hall.folder, "sim-clocks"),
                                 rnd=tournament.current_round(hall.folder))
            sim.rehearse(lambda m: print(m, flush=True))
        hall.watch(args.seconds or None)
    except KeyboardInterrupt:
        pass
    finally:
        if sim is not None:
            sim.close()
        if desk is not None:
            desk.stop()
        hall.stop()
        log.close()
    return 0
