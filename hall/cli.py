"""The tournament hall (issues 14, 19; docs/hall.md): Mosquitto with the
project's configuration, the director's page, the recorder, the results file.

    python -m hall                      start the broker, recorder, page
    python -m hall --clocks 100         ... and 100 simulated clocks
    python -m hall results --csv        every recorded game as CSV
    python -m hall clock-config --table 12 --host 192.168.1.10   a net.json
    python -m hall revoke --table 12    a new password for clock 12
    python -m hall start / stop / status   the hall as a service
    python -m hall accept --table 3 --game 1   a re-published result counts

Everything lives in one folder (default build/hall): mosquitto.conf, the
password file (PBKDF2-SHA512 hashes in Mosquitto's format, HASH_ITERATIONS),
the ACL file, clocks.json (each clock account's password, for `make deploy
TABLE=n`), service.json (the viewer's and the recorder's), results.jsonl (the
recorder's file, hall/recorder.py), the page (www/) and the broker's
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
import argparse
import base64
import csv
import fcntl
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
from hall import durable
from hall.files import load_json, service_passwords
from hall import recorder as REC
from hall import tls as TLS
from hall import tournament

ROOT = host_sim.ROOT
PAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page")
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
MESSAGE_SIZE_LIMIT = 20480   # a game log is at most hallmsg.LOG_MAX (16 KB) + a line
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


def is_ipv4(host):
    """A dotted IPv4 address (the clocks do no DNS lookup)."""
    p = host.split(".") if isinstance(host, str) else ()
    return len(p) == 4 and all(x.isdigit() and len(x) <= 3 and int(x) <= 255 for x in p)


class Hall:
    """A hall folder: configuration, accounts, page; start()/stop() the
    broker and the recorder."""

    def __init__(self, folder=DEFAULT_DIR, event="open", tables=100, port=8883,
                 ws_port=9001, bind="127.0.0.1", memory_limit=MEMORY_LIMIT, page_port=None):
        if not event or any(c in event for c in "+#/ ") or not event.isprintable():
            raise HallError("event must be one word without + # / (got %r)" % event)
        self.folder = os.path.abspath(folder)
        self.event = event
        self.tables = tables
        self.port = port
        self.ws_port = ws_port
        # the pages over HTTPS (tls.PageServer; none given: a free one)
        self.page_port = page_port or free_port()
        self.pages = None
        self.desk_port = ws_port + 1   # the results desk (issue 27), loopback only
        self.bind = bind
        self.memory_limit = memory_limit
        self.proc = None
        self.rec_proc = None
        self.lock_fd = None       # hall.lock, held while this object runs the hall
        self.pids = None          # what hall.pid says (claim())
        self.rec_err = self.broker_err = None   # where their stderr goes
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        self.www = os.path.join(self.folder, "www")

    # -- accounts -------------------------------------------------------------------
    def _accounts(self):
        """(clocks {table: entry}, service {name: entry}); new ones made and
        both files (re)written when anything changed."""
        os.makedirs(self.folder, exist_ok=True)
        cpath = os.path.join(self.folder, "clocks.json")
        spath = os.path.join(self.folder, "service.json")
        raw_c, raw_s = load_json(cpath), load_json(spath)
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
        or stolen clock) can no longer connect.  The broker this folder's
        hall really runs (hall.pid, its identity checked) reloads its
        password file (SIGHUP), and it is proved: a connection opened with
        the old password before is dropped, a new one is refused.  Returns
        (broker pid or None, what was checked); raises HallError if the
        running broker still takes the old password."""
        clocks, _ = self._accounts()
        if table not in clocks:
            raise HallError("table %d is not in this hall (1-%d)" % (table, max(clocks)))
        old = clocks[table]["password"]
        path = os.path.join(self.folder, "clocks.json")
        raw = load_json(path)
        raw[str(table)] = {"password": new_password()}
        raw[str(table)] = _account(raw[str(table)])
        write_secret(path, json.dumps(raw, indent=1) + "\n")
        self.write_passwd()
        info = read_pidfile(self.folder)
        broker = info.get("broker") if info else None
        if not broker or not alive(broker):
            return None, "no hall runs in %s: the new password counts when it starts" % self.folder
        return broker["pid"], prove_revoked(broker, info["port"], str(table), old,
                                            folder=self.folder)

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
        out = ["# generated by python -m hall (docs/hall.md); no %u patterns:",
               "# every account has its own lines",
               "", "user %s" % VIEWER, "topic read scrabble/%s/#" % e,
               "", "user %s" % RECORDER, "topic read scrabble/%s/+/result/+/+" % e,
               "topic write scrabble/%s/confirm/+" % e,
               # issue 21: a game's round from its first press; the round for the pages
               "topic read scrabble/%s/+/state/+" % e,
               "topic read scrabble/%s/+/heartbeat/+" % e,
               "topic write scrabble/%s/round" % e,
               "topic write scrabble/%s/round/+" % e,   # issue 27: a message per table
               "topic write " + REC.OWNER_TOPIC % (e, "+"),   # issue 29: whose clock
               "topic read scrabble/%s/round/+" % e,
               "topic read scrabble/%s/+/log/+/+" % e,   # issue 27: the logs filed
               # issue 29: what the director must know (a write that fails, ...)
               "topic write " + REC.ALARM_TOPIC % e]
        for t in tables:
            out += ["", "user %d" % t]
            out += ["topic write scrabble/%s/+/%s/%d" % (e, k, t)
                    for k in ("status", "state", "heartbeat")]
            out += ["topic write scrabble/%s/+/%s/+/%d" % (e, k, t) for k in ("result", "log")]
            out.append("topic read %s" % REC.confirm_topic(e, t))
        return "\n".join(out) + "\n"

    def write(self):
        os.makedirs(self.folder, exist_ok=True)
        # the hall's CA (once) and the broker's certificate for its addresses
        TLS.ensure(self.folder, TLS.local_ips() if self.bind == "0.0.0.0" else ())
        clocks, service = self.write_passwd()
        passwd = os.path.join(self.folder, "passwd")
        acl = os.path.join(self.folder, "acl")
        write_secret(acl, self.acl_text(sorted(clocks)))
        self.write_page(service[VIEWER]["password"])
        # TLS 1.2 at least; in 1.2 only ECDHE key exchanges (a later theft of
        # broker.key opens no recorded session); TLS 1.3 has nothing else
        tls = ("cafile %s\ncertfile %s\nkeyfile %s\ntls_version tlsv1.2\n"
               "ciphers ECDHE+AESGCM:ECDHE+CHACHA20\n"
               % tuple(os.path.join(self.folder, n)
                       for n in (TLS.CA_CERT, TLS.BROKER_CERT, TLS.BROKER_KEY)))
        write_secret(self.conf, (
            "# generated by python -m hall (docs/hall.md)\n"
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
            "# every listener speaks TLS only, with the hall CA's certificate\n"
            "# (hall/tls.py); no listener in clear, not even on the loopback\n"
            "# the clocks: MQTT over TLS\n"
            "listener %d %s\n"
            "socket_domain ipv4\n"
            "max_connections %d\n"
            "%s"
            "# the pages: MQTT over secure WebSockets (the pages themselves come\n"
            "# from the hall's HTTPS server; socket_domain: without it Mosquitto\n"
            "# 2.0 binds WebSockets to every interface whatever the address)\n"
            "listener %d %s\n"
            "socket_domain ipv4\n"
            "protocol websockets\n"
            "%s"
            % (pwd.getpwuid(os.getuid()).pw_name, passwd, acl, MESSAGE_SIZE_LIMIT,
               MESSAGE_SIZE_LIMIT + 512, self.memory_limit, self.folder, self.port, self.bind,
               2 * len(clocks) + 16, tls, self.ws_port, self.bind, tls)))
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
                "event": self.event, "user": VIEWER, "password": viewer_password,
                "wsPort": self.ws_port, "deskPort": self.desk_port}))

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
        TLS.ensure(self.folder)
        return {"host": host, "port": self.port, "event": self.event,
                "table": table, "user": str(table), "password": pw[table],
                "client_id": "c%d-%s" % (table, secrets.token_hex(8)), "ssid": ssid,
                "wifi_password": wifi_password,
                "ca": TLS.ca_pem(self.folder)}   # the clock pins the hall's CA

    # -- the broker and the recorder --------------------------------------------------
    # One hall per folder (issue 29): a lock held while this object runs it
    # (hall.lock, flock: gone with the process, whatever kills it), and
    # hall.pid naming every process with its start time and command line,
    # so that no signal ever reaches a process that merely got its pid.
    def claim(self):
        """Take the folder (or raise HallError naming who has it), stop what
        a dead hall of this folder left running, and make sure both ports
        are free (or raise HallError naming the process that holds them)."""
        if self.lock_fd is not None:
            return self
        os.makedirs(self.folder, exist_ok=True)
        fd = os.open(os.path.join(self.folder, "hall.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise HallError("a hall already runs in %s (%s): hall stop --dir %s stops it, "
                            "hall status says more" % (self.folder, describe(
                                read_pidfile(self.folder)), self.folder))
        self.lock_fd = fd
        try:
            left = read_pidfile(self.folder) or {}
            for name in ("recorder", "broker"):
                e = left.get(name)
                if e and alive(e):
                    print("hall: stopping the %s (pid %d) a hall of this folder left running"
                          % (name, e["pid"]), file=sys.stderr, flush=True)
                    terminate(e)
            for port in (self.port, self.ws_port, self.page_port):
                who = port_holder(port)
                if who:
                    raise HallError("port %d is held by %s: stop it, or give this hall "
                                    "other ports (--port, --ws-port, --page-port)"
                                    % (port, who))
        except BaseException:
            self.release()
            raise
        self.pids = {"folder": self.folder, "event": self.event, "port": self.port,
                     "ws_port": self.ws_port, "since": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                     time.gmtime())}
        self._save_pids()
        return self

    def release(self):
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

    def _save_pids(self):
        """hall.pid anew; on a full disk it stays as it was (one line says
        so): it then names a process that is gone, which its identity
        check tells, and the hall's own processes die with the hall."""
        if self.pids is None:
            return
        path = os.path.join(self.folder, PIDFILE)
        try:
            write_secret(path, json.dumps(self.pids, sort_keys=True) + "\n")
        except OSError as e:
            try:
                os.remove(path + ".tmp")
            except OSError:
                pass
            print("hall: cannot update %s: %s" % (PIDFILE, e.strerror or e), file=sys.stderr,
                  flush=True)

    def _spawn(self, name, argv, marker, **kw):
        """A child in a process group of its own (the terminal's Ctrl-C and
        hang-up reach the hall, which stops it in order) that gets SIGTERM if
        the hall dies (setpriv --pdeathsig), named in hall.pid."""
        pre = [SETPRIV, "--pdeathsig", "TERM"] if SETPRIV else []
        p = subprocess.Popen(pre + argv, process_group=0, **kw)
        self.pids[name] = identity(p.pid, marker)
        self._save_pids()
        return p

    def start(self, timeout=10.0, stderr=None):
        self.claim()
        self.start_broker(timeout, stderr)
        self.start_pages()
        self.start_recorder(timeout, stderr)
        return self

    def start_pages(self):
        """The director's and the projector's pages over HTTPS (a thread)."""
        if self.pages is None:
            self.pages = TLS.PageServer(self.folder, self.www, self.bind, self.page_port).start()
        return self

    def stop_pages(self):
        p, self.pages = self.pages, None
        if p is not None:
            p.stop()

    def start_broker(self, timeout=10.0, stderr=None):
        exe = find_mosquitto()
        if not exe:
            raise HallError("mosquitto not found: install Debian's mosquitto package "
                            "(make tools-os does it)")
        self.claim()
        self.broker_err = stderr
        for port in (self.port, self.ws_port):
            who = port_holder(port)
            if who:
                raise HallError("port %d is held by %s" % (port, who))
        self.proc = self._spawn("broker", [exe, "-c", self.conf], self.conf,
                                stdout=subprocess.DEVNULL,
                                stderr=stderr if stderr is not None else subprocess.PIPE)
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
        """The recorder (hall/recorder.py) in a process of its own;
        wait: until it is connected (it keeps trying while the broker is down)."""
        self.claim()
        self.rec_err = stderr     # (a restart by watch() writes there too)
        self.rec_proc = self._spawn(
            "recorder", [sys.executable, "-m", "hall.recorder", self.folder,
                         str(self.port), self.event], "hall.recorder",
            cwd=ROOT, stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else None, text=True)
        if not wait:
            return self
        line = self.rec_proc.stdout.readline()   # "recorder: ready" once connected
        if "ready" not in line:
            raise HallError("the recorder did not start: %r" % line)
        return self

    def _stop(self, p, name, sig):
        if p is not None and p.poll() is None:
            p.send_signal(sig)   # SIGTERM: the broker saves its persistence db
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.pids is not None and self.pids.get(name):
            self.pids[name] = None
            self._save_pids()

    def stop_recorder(self, sig=signal.SIGTERM):
        p, self.rec_proc = self.rec_proc, None
        self._stop(p, "recorder", sig)

    def stop_broker(self, sig=signal.SIGTERM):
        p, self.proc = self.proc, None
        self._stop(p, "broker", sig)

    def stop(self):
        """Stop the recorder, then the broker; the folder is free again."""
        self.stop_recorder()
        self.stop_pages()
        self.stop_broker()
        if self.pids is not None:
            try:
                os.remove(os.path.join(self.folder, PIDFILE))
            except OSError:
                pass
            self.pids = None
        self.release()

    def watch(self, seconds=None, say=None):
        """Until `seconds` pass (None: until stopped by a signal): restart the
        recorder whenever it dies, and the broker, with one line on stderr
        each (results stay on the clocks meanwhile: nothing is lost, only
        delayed).  A broker that dies 5 times in a minute ends it
        (HallError)."""
        say = say or (lambda m: print(m, file=sys.stderr, flush=True))
        end = None if seconds is None else time.monotonic() + seconds
        deaths = []
        while end is None or time.monotonic() < end:
            if self.proc is not None and self.proc.poll() is not None:
                now = time.monotonic()
                deaths = [t for t in deaths if now - t < 60] + [now]
                code = self.proc.returncode
                self.stop_broker()
                if len(deaths) >= 5:
                    raise HallError("the broker stopped %d times in a minute (exit %s): "
                                    "giving up" % (len(deaths), code))
                say("hall: the broker stopped (exit %s); starting it again" % code)
                self.start_broker(stderr=self.broker_err)
            if self.rec_proc is not None and self.rec_proc.poll() is not None:
                say("hall: the recorder stopped (exit %s); starting it again"
                    % self.rec_proc.returncode)
                self.start_recorder(stderr=self.rec_err, wait=False)
            time.sleep(0.5)

    def url(self, host="127.0.0.1"):
        """The director's page (HTTPS; the projector view is projector.html there)."""
        return "https://%s:%d/" % (host, self.page_port)

    def collect(self, topic, **kw):
        """collect() with this hall's viewer account."""
        return collect(self.port, topic, folder=self.folder, **kw)

    def records(self, warn=None):
        """The recorder's lines (recorder.read_records)."""
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


# -- processes, named so that no signal reaches a stranger (issue 29) ---------------------
PIDFILE = "hall.pid"
SETPRIV = shutil.which("setpriv")   # util-linux: --pdeathsig (a child dies with the hall)


def proc_identity(pid):
    """(start time in clock ticks since boot, command line) of a running
    process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().split(b"\0")
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":          # a zombie: already gone
        return None
    return int(fields[19]), " ".join(x.decode(errors="replace") for x in cmd if x)


def identity(pid, marker):
    """What hall.pid keeps of a process: its pid, start time and a piece of
    its command line."""
    got = proc_identity(pid)
    return {"pid": pid, "start": got[0] if got else None, "marker": marker}


def _same(entry, got):
    return got is not None and got[0] == entry.get("start") and entry.get("marker", "\0") in got[1]


def alive(entry):
    """Is the process of this hall.pid entry still running (the same
    process: pid, start time and command line)?"""
    if not isinstance(entry, dict) or type(entry.get("pid")) is not int:
        return False
    return _same(entry, proc_identity(entry["pid"]))


def send(entry, sig):
    """Signal the process of a hall.pid entry only if it is that process
    (a pidfd pins the process while its identity is checked: a pid reused
    meanwhile cannot get the signal).  True if sent."""
    if not isinstance(entry, dict) or type(entry.get("pid")) is not int:
        return False
    try:
        fd = os.pidfd_open(entry["pid"])
    except OSError:
        return False
    try:
        if not _same(entry, proc_identity(entry["pid"])):
            return False
        signal.pidfd_send_signal(fd, sig)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def terminate(entry, wait_s=10.0):
    """SIGTERM (SIGKILL after wait_s) to a hall.pid entry's process if it is
    still that process; True once it is gone."""
    if not send(entry, signal.SIGTERM):
        return not alive(entry)
    end = time.monotonic() + wait_s
    while alive(entry):
        if time.monotonic() > end:
            send(entry, signal.SIGKILL)
            end += wait_s
        time.sleep(0.05)
    return True


def read_pidfile(folder):
    """hall.pid as a dict, or None (none, or not one of ours)."""
    try:
        with open(os.path.join(folder, PIDFILE)) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def describe(info):
    """A few words on the hall of a hall.pid: who runs it, since when, where."""
    if not info:
        return "no hall.pid"
    who = [("pid %d" % info[k]["pid"]) if k == "hall" else "%s pid %d" % (k, info[k]["pid"])
           for k in ("hall", "broker", "recorder") if info.get(k) and alive(info[k])]
    return "%s, since %s, ports %s and %s" % (", ".join(who) or "no process running",
                                            info.get("since", "?"), info.get("port", "?"),
                                            info.get("ws_port", "?"))


def _listen_inodes(port):
    out = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            x = line.split()
            if x[3] == "0A" and int(x[1].rsplit(":", 1)[1], 16) == port:
                out.add(x[9])
    return out


def port_holder(port):
    """None if nothing listens on TCP `port`, else who does: "pid N
    (its command line)", or "a process not visible from here"."""
    inodes = _listen_inodes(port)
    if not inodes:
        return None
    want = {"socket:[%s]" % i for i in inodes}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) in want:
                    got = proc_identity(int(pid))
                    return "pid %s (%s)" % (pid, got[1][:120] if got else "?")
            except OSError:
                continue
    return "a process not visible from here"


def login(port, user, password, timeout=2.0, folder=DEFAULT_DIR):
    """A paho client logged in (loop running; TLS, trusting the CA of the
    hall in `folder`), None if the broker refused the password; HallError if
    the broker does not answer."""
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="chk-" + secrets.token_hex(6))
    c.username_pw_set(user, password)
    TLS.paho_tls(c, folder)
    got = []
    c.on_connect = lambda cl, u, f, rc, p=None: got.append(rc)
    try:
        c.connect("127.0.0.1", port)
    except OSError as e:
        raise HallError("the broker on port %d does not answer: %s" % (port, e))
    c.loop_start()
    end = time.monotonic() + timeout
    while not got and time.monotonic() < end:
        time.sleep(0.01)
    if got and not got[0].is_failure:
        return c
    c.loop_stop()
    c.disconnect()
    if not got:
        raise HallError("the broker on port %d does not answer a CONNECT" % port)
    return None


def prove_revoked(broker, port, user, old, within_s=1.0, folder=DEFAULT_DIR):
    """SIGHUP the broker (it reads the password file again) and prove that
    account `user`'s old password no longer works: a connection opened with
    it before is dropped and a new one is refused, within `within_s`.  The
    words for the director; HallError if not."""
    probe = login(port, user, old, folder=folder)
    if not send(broker, signal.SIGHUP):
        if probe is not None:
            probe.loop_stop()
            probe.disconnect()
        raise HallError("the broker (pid %d) is gone: the new password counts when the hall "
                        "starts again" % broker["pid"])
    t0 = time.monotonic()
    dropped = probe is None
    refused = False
    while time.monotonic() - t0 < within_s:
        dropped = dropped or not probe.is_connected()
        if dropped and not refused:
            c = login(port, user, old, timeout=within_s, folder=folder)
            refused = c is None
            if c is not None:
                c.loop_stop()
                c.disconnect()
        if dropped and refused:
            break
        time.sleep(0.02)
    took = time.monotonic() - t0
    if probe is not None:
        probe.loop_stop()
        probe.disconnect()
    if not (dropped and refused):
        raise HallError("the running broker (pid %d) still %s account %s's old password %.1f s "
                        "after reloading: restart the hall (hall stop, then hall)"
                        % (broker["pid"], "accepts" if not refused else "keeps a connection "
                           "of", user, took))
    return ("the running broker (pid %d) reloaded it: the old password is refused and a "
            "connection open with it was dropped (checked, %.2f s)" % (broker["pid"], took)
            if probe is not None else "the running broker (pid %d) reloaded it: the old "
            "password is refused (checked, %.2f s)" % (broker["pid"], took))


# -- reading the hall ---------------------------------------------------------------
def viewer_client(port, host="127.0.0.1", client_id="", password=None, folder=None):
    """A paho client logged in as the read-only viewer (password: given, or
    from the hall folder's service.json)."""
    import paho.mqtt.client as mqtt
    if password is None:
        password = service_passwords(folder or DEFAULT_DIR).get(VIEWER, "")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.username_pw_set(VIEWER, password)
    TLS.paho_tls(c, folder or DEFAULT_DIR)
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
    """CSV rows from the recorder's lines (recorder.read_records(), all
    valid): hall/tournament.py rows_from(), the one place that turns
    recorded results into rows (one row per game: a referee's void is the
    same game, its last body and first end time; the round of its first
    press; hall results --round N picks one round)."""
    return tournament.rows_from(records, starts)


write_csv = tournament.write_csv


# -- the command --------------------------------------------------------------------
def add_arguments(p):
    p.add_argument("action", nargs="?", default="run",
                   choices=("run", "results", "clock-config", "revoke", "round", "pairings",
                            "scores", "logs", "start", "stop", "status", "accept"),
                   help="run (default): run the hall in this terminal (Ctrl-C or closing "
                        "it stops it); start: run it in the background as a service "
                        "(its output in <dir>/hall.log); stop: stop the hall running in "
                        "--dir; status: what runs there; results: print the recorded "
                        "games; clock-config: print a clock's net.json; revoke: a new "
                        "password for clock account --table (a lost or stolen clock); "
                        "accept --table T --game G [--account A] [--first]: the game's "
                        "re-published result (or its first) counts; "
                        "round N: from now on games are round N; pairings --round N FILE: "
                        "the round's seating from a TSH .t file or a table,player1,player2 CSV; "
                        "scores --round N --table T LEFT RIGHT: the scores of a table's score "
                        "sheet (--round N alone: the round's results desk); logs --round N "
                        "[--table T] [--out DIR]: copy the round's game logs out")
    p.add_argument("value", nargs="*", default=[],
                   help="round: the round number; pairings: the pairings file; scores: the "
                        "left and the right player's score")
    p.add_argument("--round", type=tournament.whole, default=None,
                   help="results: only this round; pairings: the round the file is for")
    p.add_argument("--dir", default=DEFAULT_DIR, help="the hall's folder (default build/hall)")
    p.add_argument("--event", default="open", help="the event's name in the topics (default open)")
    p.add_argument("--tables", type=int, default=100, help="clock accounts 1..N (default 100)")
    p.add_argument("--port", type=int, default=8883,
                   help="MQTT over TLS port for the clocks (default 8883)")
    p.add_argument("--ws-port", type=int, default=9001,
                   help="MQTT over secure WebSockets port for the pages (default 9001)")
    p.add_argument("--page-port", type=int, default=8443,
                   help="HTTPS port of the director's and projector's pages (default 8443)")
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
                   help="results --tsh: TSH's division, one word (default: the .t file's "
                        "name when it is one word, a.t: a)")
    p.add_argument("--bye-score", type=tournament.whole, default=tournament.BYE_SCORE,
                   help="results --tsh: the score of a bye's line (default 50)")
    p.add_argument("--table", type=tournament.whole, default=0,
                   help="clock-config, revoke: the clock account; scores, accept: the table")
    p.add_argument("--game", type=tournament.whole, default=0, help="accept: the game number")
    p.add_argument("--account", default=None,
                   help="accept: the clock account (default: the table's)")
    p.add_argument("--first", action="store_true",
                   help="accept: the game's first result counts again")
    p.add_argument("--host", default=None, help="clock-config: the hall computer's IP address")
    p.add_argument("--ssid", default="", help="clock-config: Wi-Fi network")
    p.add_argument("--wifi-password", default="", help="clock-config: Wi-Fi password")
    p.add_argument("--out", default=None,
                   help="clock-config: write the net.json there (created 0600) instead "
                        "of printing it; logs: the folder to copy them to (default "
                        "round-N-logs)")


class _Parser(argparse.ArgumentParser):
    """A usage error is one line (exit 2), not the usage text and then it."""

    def error(self, message):
        self.exit(2, "%s: error: %s (see --help)\n" % (self.prog, message))


def parser(prog="python -m hall"):
    p = _Parser(prog=prog, description="The tournament hall (docs/hall.md): starts Mosquitto "
                "with the project's configuration and serves the director's page; "
                "`hall results --csv` prints every finished game.")
    add_arguments(p)
    return p


def main(argv=None, prog="python -m hall"):
    """The command line (python -m hall, scrabble-hall)."""
    p = parser(prog)
    args, extra = p.parse_known_args(argv)
    # `hall pairings --round 3 FILE`, `hall scores --round 2 --table 5 412
    # 388`: argparse fills the positionals before it sees the options, so
    # the values after them come back unparsed
    if extra and not args.value \
            and not any(x.startswith("-") and not x.lstrip("-").isdigit() for x in extra):
        args.value = extra
        extra = []
    if extra:
        p.error("unrecognized arguments: %s" % " ".join(extra))
    return dispatch(args)


def dispatch(args):
    try:
        hall = Hall(args.dir, args.event, args.tables, args.port, args.ws_port,
                    "0.0.0.0" if args.lan else "127.0.0.1", page_port=args.page_port)
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
            _pid, how = hall.revoke(args.table)
            print("hall: clock account %d has a new password; %s; deploy its clock again "
                  "(make deploy TABLE=%d)" % (args.table, how, args.table))
            return 0
        if args.action == "start":
            return cmd_start(hall, args)
        if args.action == "stop":
            return cmd_stop(hall.folder)
        if args.action == "status":
            return cmd_status(hall.folder)
        if args.action == "accept":
            if args.table < 1 or args.game < 1:
                raise HallError("accept needs --table T --game G (and --account A if the "
                                "clock is not the table's)")
            try:
                return REC.accept(hall.folder, args.table, args.account or str(args.table),
                                  args.game, args.first)
            except ValueError as e:
                raise HallError(str(e))
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
    if args.tsh:
        if args.round is None:
            raise HallError("--tsh needs --round N: TSH takes one round at a time")
        try:
            lines, said = tournament.tsh_export(hall.folder, args.round, args.division,
                                                args.bye_score, _say)
        except tournament.TournamentError as e:
            raise HallError(str(e))
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        for m in said:
            _say(m)
        return 1 if said else 0
    found = tournament.rows(hall.folder, args.round, _say)
    rounds = [args.round] if args.round is not None else sorted({r["round"] for r in found
                                                                 if r["round"]})
    gaps = []
    for n in rounds:
        gaps += tournament.missing(hall.folder, n, found, lambda m: None)
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
    the recorder filed them (hall/filing.py), copied to DIR/table-TT/,
    one line each: the game's end as the replay reads it."""
    from hall import filing
    from host_sim import logs as logsmod
    if args.round is None or args.round < 1:
        raise HallError("logs needs --round N: hall logs --round 2 [--table 5]")
    found = filing.filed(hall.folder, args.round, args.table or None)
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
    return tournament.number(v, -999999, 999999) is not None


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
    """hall round N / hall pairings --round N FILE (hall/tournament.py)."""
    args.value = args.value[0] if len(args.value) == 1 else None if not args.value else "x"
    if args.action == "round":
        if args.value is None or tournament.number(args.value, 0, 10 ** 9) is None:
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


class Stopped(Exception):
    """A signal asked the hall to stop (SIGTERM: hall stop; SIGHUP: its
    terminal went away)."""


def _stop_on(signum, frame):
    raise Stopped(signal.Signals(signum).name)


def _tell(text, out=sys.stdout):
    """A line for the terminal, which may be gone (after SIGHUP): never an error."""
    try:
        print(text, file=out, flush=True)
    except (OSError, ValueError):
        pass


def run(hall, args):
    """The hall in the foreground: Ctrl-C, SIGTERM (hall stop) and SIGHUP
    (the terminal closed) stop the recorder and the broker; a recorder or
    broker that dies is started again."""
    old = {s: signal.signal(s, _stop_on) for s in (signal.SIGHUP, signal.SIGTERM)}
    why = None
    sim = desk = log = None
    try:
        hall.claim()             # one hall per folder, free ports: before writing a thing
        hall.pids["hall"] = identity(os.getpid(), "hall")
        hall.write()
        # issue 27: Mosquitto's own start-up warnings ("should not be run as
        # root" ...) are no news for the director: they go to a file in the hall
        # folder; the recorder's lines stay on the terminal
        log = open(os.path.join(hall.folder, BROKER_LOG), "ab")
        hall.start_broker(stderr=log)
        hall.start_recorder(stderr=sys.stderr)
        hall.start_pages()
        if hall.bind == "127.0.0.1":
            print("hall: broker on port %d, the director's page at %s (event %r, tables 1-%d; "
                  "loopback only: --lan for the hall's Wi-Fi)"
                  % (hall.port, hall.url(), hall.event, hall.tables), flush=True)
        else:
            print("hall: LISTENING ON EVERY INTERFACE (--lan): clocks on port %d, the "
                  "director's page on port %d (https://<this computer's address>:%d/) "
                  "(event %r, tables 1-%d)" % (hall.port, hall.page_port, hall.page_port,
                                               hall.event, hall.tables), flush=True)
        print("hall: TLS only, with the hall's own CA (%s: import it into the director's "
              "browser as an authority); the broker's certificate is SHA-256 %s"
              % (os.path.join(hall.folder, TLS.CA_CERT), TLS.fingerprint(hall.folder)),
              flush=True)
        print("hall: the projector view is projector.html there; round %d (hall round N, "
              "hall pairings --round N FILE); the broker's own log: %s"
              % (tournament.current_round(hall.folder), os.path.join(hall.folder, BROKER_LOG)),
              flush=True)
        # issue 27: the results desk, on this computer only (hall/desk.py)
        from hall import desk as deskmod
        try:
            desk = deskmod.Desk(hall.folder, hall.desk_port).start()
            print("hall: the results desk (scores from the score sheets, exports for TSH) at "
                  "%s, on this computer only" % desk.url(), flush=True)
        except OSError as e:
            print("hall: no results desk: port %d: %s (hall scores / hall results --tsh "
                  "do the same)" % (hall.desk_port, e.strerror or e), file=sys.stderr,
                  flush=True)
        if args.clocks:
            from hall.rehearsal import clocks as rehearsal
            # issue 27: a rehearsal: each `hall round N` gives every clock a
            # fresh game; their flash is kept in the hall folder
            sim = rehearsal.Fleet(hall, args.clocks, speed=args.speed,
                                 folder=os.path.join(hall.folder, "sim-clocks"),
                                 rnd=tournament.current_round(hall.folder))
            sim.rehearse(lambda m: print(m, flush=True))
        hall.watch(args.seconds or None)
    except KeyboardInterrupt:
        why = "SIGINT"
    except Stopped as e:
        why = str(e)
    finally:
        for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)     # stopping: not twice
        try:
            if sim is not None:
                sim.close()
            if desk is not None:
                desk.stop()
            hall.stop()
            if log is not None:
                log.close()
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if why:
        _tell("hall: stopped (%s): the recorder and the broker are stopped" % why, sys.stderr)
    return 0


def cmd_start(hall, args, wait_s=60.0):
    """`hall start`: `hall` (run) in a session of its own, detached from this
    terminal (closing it changes nothing), its output appended to
    <dir>/hall.log; returns once it runs (0) or failed (its line, 2)."""
    os.makedirs(hall.folder, exist_ok=True)
    log = os.path.join(hall.folder, "hall.log")
    argv = [sys.executable, "-m", "hall", "run", "--dir", hall.folder,
            "--event", hall.event, "--tables", str(hall.tables), "--port", str(hall.port),
            "--ws-port", str(hall.ws_port)]
    if args.lan:
        argv.append("--lan")
    if args.clocks:
        argv += ["--clocks", str(args.clocks), "--speed", str(args.speed)]
    if args.seconds:
        argv += ["--seconds", str(args.seconds)]
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    start = os.fstat(fd).st_size
    try:
        p = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=fd,
                             stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        os.close(fd)
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        with open(log, errors="replace") as f:
            f.seek(start)
            lines = f.read().splitlines()
        up = [x for x in lines if x.startswith(("hall: broker on port", "hall: LISTENING"))]
        if up:
            print("%s\nhall: running in the background (pid %d): hall status, hall stop "
                  "--dir %s; its output in %s" % (up[0], p.pid, hall.folder, log))
            return 0
        if p.poll() is not None:
            print(lines[-1] if lines else "hall: the hall exited (%s)" % p.returncode,
                  file=sys.stderr)
            return 2
        time.sleep(0.1)
    print("hall: the hall did not start within %d s (see %s)" % (wait_s, log), file=sys.stderr)
    return 2


def cmd_stop(folder, wait_s=15.0):
    """`hall stop`: the hall of this folder (its supervisor, which stops the
    rest in order), else what a dead hall left running; only processes
    whose identity hall.pid records."""
    info = read_pidfile(folder)
    running = [k for k in ("hall", "recorder", "broker") if info and alive(info.get(k))]
    if not running:
        print("hall: no hall runs in %s" % folder)
        return 0
    said = describe(info)
    if "hall" in running:
        send(info["hall"], signal.SIGTERM)
        end = time.monotonic() + wait_s
        while time.monotonic() < end and any(alive(info.get(k)) for k in running):
            time.sleep(0.05)
    for k in ("recorder", "broker"):
        if alive(info.get(k)):
            terminate(info[k])
    left = [k for k in running if alive(info.get(k))]
    if left:
        print("hall: could not stop the %s in %s" % (" and ".join(left), folder), file=sys.stderr)
        return 1
    print("hall: stopped the hall in %s (%s)" % (folder, said))
    return 0


def cmd_status(folder):
    """`hall status`: what runs (0: the hall, its broker and its recorder;
    1: part of it; 3: nothing), whether the broker answers, how many
    results are stored, and the recorder's alarm."""
    info = read_pidfile(folder) or {}
    up = {k: alive(info.get(k)) for k in ("hall", "broker", "recorder")}
    if not any(up.values()):
        print("hall: no hall runs in %s" % folder)
        return 3
    print("hall: %s: %s" % (folder, describe(info)))
    for k, what in (("hall", "the hall (its supervisor)"), ("broker", "the broker"),
                    ("recorder", "the recorder")):
        print("hall: %s: %s" % (what, ("running, pid %d" % info[k]["pid"]) if up[k]
                                else "NOT RUNNING"))
    port = info.get("port")
    if up["broker"] and isinstance(port, int):
        try:
            got = collect(port, REC.ALARM_TOPIC % info.get("event", "open"), quiet_s=0.3,
                          timeout=3, folder=folder)
            print("hall: the broker answers on port %d (the viewer logged in)" % port)
            for _t, payload in got.items():
                a = json.loads(payload)
                print("hall: the recorder: %s" % ("ALARM: cannot store results: %s; %d "
                                                  "waiting" % (a["writing"], a["waiting"])
                                                  if a.get("writing") else "storing results"))
        except (HallError, OSError, ValueError, KeyError, TypeError) as e:
            print("hall: the broker does not answer on port %s: %s" % (port, e))
            up["broker"] = False
    try:
        n = len(REC.read_records(folder, lambda m: None))
        print("hall: %d result lines in %s" % (n, REC.RESULTS))
    except OSError:
        print("hall: no results stored yet")
    return 0 if all(up.values()) else 1
