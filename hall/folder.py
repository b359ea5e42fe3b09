"""A hall folder (docs/hall.md "Running a hall"): `Hall` writes its
configuration (accounts, the broker's configuration, TLS, the page) and runs
it: the broker and the recorder, each a supervised process of its own
(hall/supervise.py), and the pages' HTTPS server (hall/tls.py).

Everything lives in one folder (default build/hall in a checkout,
hall/paths.py): mosquitto.conf, the password file (PBKDF2-SHA512 hashes in
Mosquitto's format, accounts.HASH_ITERATIONS), the ACL file, clocks.json
(each clock account's password, for `make deploy TABLE=n`), service.json
(the viewer's and the recorder's), results.jsonl (the recorder's file,
hall/recorder.py), the page (www/) and the broker's persistence database.
Every secret file is created 0600 (os.open with the mode: never readable by
others, not even for an instant).
"""
import fcntl
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time

import hallproto as hp

from hall import accounts, broker, clients
from hall import recorder as REC
from hall import tls as TLS
from hall.accounts import VIEWER, write_secret
from hall.errors import HallError
from hall.paths import DEFAULT_DIR, MQTT_JS, PACKAGE_PARENT, PAGE_DIR
from host_sim.paths import CHECKOUT
from hall.supervise import (PIDFILE, SETPRIV, alive, describe, free_port, identity, listening,
                            port_holder, read_pidfile, terminate)

class Hall:
    """A hall folder: configuration, accounts, page; start()/stop() the
    broker and the recorder."""

    def __init__(self, folder=DEFAULT_DIR, event="open", tables=100, port=8883,
                 ws_port=9001, bind="127.0.0.1", memory_limit=broker.MEMORY_LIMIT, page_port=None):
        if not hp.is_id(event):    # (the clocks' net.json and every reader take no other)
            raise HallError("event must be 1-%d ASCII letters, digits, '.', '_' or '-' (got %r)"
                            % (hp.MAX_ID, event))
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
        """(clocks, service): accounts.load() of this folder and its tables."""
        return accounts.load(self.folder, self.tables)

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
        accounts.renew(self.folder, table)
        self.write_passwd()
        info = read_pidfile(self.folder)
        running = info.get("broker") if info else None
        if not running or not alive(running):
            return None, "no hall runs in %s: the new password counts when it starts" % self.folder
        return running["pid"], clients.prove_revoked(running, info["port"], str(table), old,
                                                     folder=self.folder)

    # -- configuration ------------------------------------------------------------
    def write_passwd(self):
        clocks, service = self._accounts()
        write_secret(os.path.join(self.folder, "passwd"), accounts.passwd_text(clocks, service))
        return clocks, service

    def write(self):
        """The folder's configuration: the CA and the broker's certificate
        (once; again for a new address with --lan), the accounts, the
        password file, the ACL, mosquitto.conf and the page."""
        os.makedirs(self.folder, exist_ok=True)
        # the hall's CA (once) and the broker's certificate for its addresses
        TLS.ensure(self.folder, TLS.local_ips() if self.bind == "0.0.0.0" else ())
        clocks, service = self.write_passwd()
        write_secret(os.path.join(self.folder, "acl"), broker.acl_text(self.event, sorted(clocks)))
        self.write_page(service[VIEWER]["password"])
        write_secret(self.conf, broker.conf_text(self.folder, self.port, self.ws_port, self.bind,
                                                 len(clocks), self.memory_limit))
        return {t: v["password"] for t, v in clocks.items()}

    def write_page(self, viewer_password):
        os.makedirs(self.www, exist_ok=True)
        for name in os.listdir(PAGE_DIR):
            if os.path.isfile(os.path.join(PAGE_DIR, name)):
                shutil.copy(os.path.join(PAGE_DIR, name), os.path.join(self.www, name))
        if not os.path.isfile(MQTT_JS):
            raise HallError("%s missing: run `make hall-page` (npm install mqtt)%s"
                            % (MQTT_JS, "" if CHECKOUT else ", then install the hall again "
                               "from that checkout (pip install .)"))
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
        if not broker.is_ipv4(host):
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
        exe = broker.find_mosquitto()
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
            if listening(self.port) and listening(self.ws_port):
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
            cwd=PACKAGE_PARENT, stdout=subprocess.PIPE,
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
        say = say or _say_anyway
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
        return clients.collect(self.port, topic, folder=self.folder, **kw)

    def records(self, warn=None):
        """The recorder's lines (recorder.read_records)."""
        return REC.read_records(self.folder, warn)


def _say_anyway(m):
    """One line on stderr; a stderr that cannot take it (`hall start`'s
    hall.log on the hall folder's full disk) loses the line, never the
    supervisor (issue 35: the recorder's alarm topic says it all the same)."""
    try:
        print(m, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
