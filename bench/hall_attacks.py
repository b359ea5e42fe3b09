"""What an attacker on the hall's Wi-Fi tries (issue 19), against a running
hall (the real Mosquitto and the real recorder): each attack returns whether
the hall repelled it.  tests/test_hall_attacks.py asserts every one is;
`make bench` (bench/hall_bench.py) reports repelled / tried.

The attacker has what anyone in the hall has: the page (so the viewer's
password, in its config.js), the published states (so the clocks' ids), and
one stolen clock's net.json (clock account 3).  Its victim is clock account
4, a simulated clock (the device app + firmware/net.py) playing meanwhile.
"""
import json
import os
import secrets
import time

import paho.mqtt.client as mqtt

import hallproto as hp

from hall import accounts
from hall import broker
from hall import tls as TLS
from hall.files import service_passwords
from hall.tournament import rows_from
from hall import recorder as REC

ATTACKER = 3
VICTIM = 4


def _client(hall, user, password, client_id=None, subscribe=None):
    """A connected paho client; .rc the CONNACK's reason (None: no answer),
    .got the (topic, payload) it received."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                    client_id=client_id or "x-" + secrets.token_hex(6))
    c.rc = None
    c.got = []
    if user is not None:
        c.username_pw_set(user, password)
    TLS.paho_tls(c, hall.folder)

    def on_connect(cl, u, flags, rc, props=None):
        cl.rc = rc
        if subscribe and not rc.is_failure:
            for t in subscribe:
                cl.subscribe(t, qos=1)

    c.on_connect = on_connect
    c.on_message = lambda cl, u, m: c.got.append((m.topic, m.payload))
    c.connect("127.0.0.1", hall.port)
    c.loop_start()
    end = time.monotonic() + 5
    while c.rc is None and time.monotonic() < end:
        time.sleep(0.02)
    time.sleep(0.2)   # (the subscriptions)
    return c


def _close(*cs):
    for c in cs:
        c.loop_stop()
        c.disconnect()


def _publish(c, topic, payload, retain=False):
    try:
        c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(3)
    except (RuntimeError, ValueError):
        pass   # refused or the connection dropped: fine for an attacker's try


class Attacks:
    """Run every attack once against `hall` (started, with `fleet` playing:
    its clocks 1..n include ATTACKER and VICTIM)."""

    def __init__(self, hall, fleet, lock):
        self.hall = hall
        self.fleet = fleet
        self.lock = lock
        self.ev = hall.event
        self.pw = hall.passwords()
        self.viewer_pw = hall.viewer_password()
        self.results = []   # (name, repelled, detail)

    def spy(self):
        """What the hall would show: everything under scrabble/<event>/ as
        the viewer (the page) sees it."""
        return _client(self.hall, accounts.VIEWER, self.viewer_pw,
                       subscribe=["scrabble/%s/#" % self.ev])

    def record(self, name, repelled, detail=""):
        self.results.append((name, bool(repelled), detail))

    def run(self):
        for name in sorted(n for n in dir(self) if n.startswith("attack_")):
            try:
                getattr(self, name)()
            except Exception as e:   # an attack that breaks the harness is not repelled
                self.record(name[7:], False, "harness: %r" % e)
        return self.results

    # -- accounts and passwords ------------------------------------------------------
    def attack_anonymous_and_crafted_user_names(self):
        """No password, a wrong one, and user names a %u pattern would
        substitute: all refused at CONNECT."""
        tries = [(None, None), (str(VICTIM), "wrong"), ("+", ""), ("#", ""),
                 ("hall/viewer/#", self.viewer_pw), ("%u", ""), (str(VICTIM) + "/", "x"),
                 ("", "")]
        ok = []
        for u, p in tries:
            c = _client(self.hall, u, p)
            ok.append(c.rc is not None and c.rc.is_failure)
            _close(c)
        self.record("anonymous_and_crafted_user_names", all(ok), ok)

    # -- what the viewer (the page's password) may do ---------------------------------
    def attack_viewer_publishes(self):
        """The page's account forges a state, a result, a confirmation, a
        status: nothing reaches anyone."""
        spy = self.spy()
        v = _client(self.hall, accounts.VIEWER, self.viewer_pw)
        mark = b"viewer-" + secrets.token_hex(4).encode()
        ev, t = self.ev, VICTIM
        for topic in ("scrabble/%s/%d/state/%d" % (ev, t, t),
                      "scrabble/%s/%d/result/1/%d" % (ev, t, t),
                      "scrabble/%s/%d/status/%d" % (ev, t, t),
                      REC.confirm_topic(ev, t), "scrabble/%s/%d/state/hall/viewer" % (ev, t)):
            _publish(v, topic, mark, retain=True)
            _publish(v, topic, b"", retain=True)     # blanking a retained row
        time.sleep(0.5)
        _close(v, spy)
        leaked = [x for x in spy.got if x[1] in (mark, b"")]
        self.record("viewer_publishes", not leaked, leaked)

    def attack_viewer_takes_over_a_clocks_client_id(self):
        """With the viewer's password and every id the clock shows or once
        used (its clock id, "clock-<id>", its account), connect: the clock
        stays connected."""
        with self.lock:
            c = self.fleet.clocks[VICTIM - 1]
            before = c.net.connects
            ids = [c.id, "clock-" + c.id, str(VICTIM), "c%d" % VICTIM]
        cs = [_client(self.hall, accounts.VIEWER, self.viewer_pw, client_id=i) for i in ids]
        time.sleep(1.0)
        _close(*cs)
        with self.lock:
            kept = c.net.connects == before and c.net.st == 3
        self.record("viewer_takes_over_a_clocks_client_id", kept,
                    "connects %d -> %d" % (before, c.net.connects))

    # -- what a stolen clock's net.json allows ----------------------------------------
    def _thief(self, subscribe=None):
        return _client(self.hall, str(ATTACKER), self.pw[ATTACKER], subscribe=subscribe)

    def attack_stolen_clock_writes_another_clocks_topics(self):
        spy = self.spy()
        a = self._thief()
        mark = b"thief-" + secrets.token_hex(4).encode()
        ev, t = self.ev, VICTIM
        for topic in ("scrabble/%s/%d/state/%d" % (ev, t, t),
                      "scrabble/%s/%d/state/%d" % (ev, ATTACKER, t),
                      "scrabble/%s/%d/status/%d" % (ev, t, t),
                      "scrabble/%s/%d/result/1/%d" % (ev, t, t),
                      "scrabble/%s/%d/log/1/%d" % (ev, t, t),
                      REC.confirm_topic(ev, t), REC.confirm_topic(ev, ATTACKER),
                      "scrabble/other/%d/state/%d" % (ATTACKER, ATTACKER),
                      "scrabble/%s/%d/state/%d/x" % (ev, ATTACKER, ATTACKER)):
            _publish(a, topic, mark, retain=True)
        time.sleep(0.5)
        _close(a, spy)
        leaked = [x for x in spy.got if x[1] == mark]
        self.record("stolen_clock_writes_another_clocks_topics", not leaked, leaked)

    def attack_stolen_clock_reads_others(self):
        """The thief subscribes to everything: it gets its own confirmations
        at most, never another clock's messages or confirmations."""
        a = self._thief(subscribe=["#", "scrabble/%s/#" % self.ev,
                                   REC.confirm_topic(self.ev, VICTIM), "$SYS/#"])
        time.sleep(6)   # heartbeats, states; a result's confirmation re-sent meanwhile
        _close(a)
        other = [t for t, p in a.got if t != REC.confirm_topic(self.ev, ATTACKER)]
        self.record("stolen_clock_reads_others", not other, other[:3])

    def attack_stolen_clock_forges_a_result_for_another_table(self):
        """On its own result topic, a body naming another table (or game),
        or the victim's clock id at the victim's table under its own
        account: the recorder stores no disagreeing body, and the victim's
        CSV row stays the victim's."""
        a = self._thief()
        with self.lock:
            victim_id = self.fleet.clocks[VICTIM - 1].id
        body = json.loads(_result_body(self.hall, ATTACKER, victim_id))
        ev = self.ev
        forged = []
        b = dict(body, table=VICTIM)
        forged.append(("scrabble/%s/%d/result/1/%d" % (ev, ATTACKER, ATTACKER), b))
        b = dict(body, game=2)
        forged.append(("scrabble/%s/%d/result/1/%d" % (ev, ATTACKER, ATTACKER), b))
        for topic, b in forged:
            _publish(a, topic, json.dumps(b).encode())
        # at the victim's table, its own account (a renumbered clock may):
        # stored under account 3, so it cannot replace account 4's row
        b = dict(body, table=VICTIM)
        _publish(a, "scrabble/%s/%d/result/77/%d" % (ev, VICTIM, ATTACKER),
                 json.dumps(dict(b, game=77)).encode())
        time.sleep(1.0)
        _close(a)
        recs = REC.read_records(self.hall.folder, lambda m: None)
        bad = [r for r in recs if r["account"] == str(ATTACKER)
               and (r["table"], r["game"]) in ((VICTIM, 1), (ATTACKER, 2))]
        rows = rows_from(recs)
        stolen = [r for r in rows if r["account"] == str(VICTIM) and r["game"] == 77]
        self.record("stolen_clock_forges_a_result_for_another_table", not bad and not stolen,
                    (bad, stolen))

    def attack_stolen_clock_records_another_clocks_game(self):
        """Issue 19's held-out F2 (issue 29): the thief's account publishes,
        on its own result topics, bodies that name the victim's clock id, a
        game 99 the victim never played, at the thief's table and at the
        victim's: the recorder refuses them (the victim's clock belongs to
        the victim's account), so no row of the CSV says "clock <victim>"
        under another account, and there is no game 99."""
        with self.lock:
            victim_id = self.fleet.clocks[VICTIM - 1].id
        a = self._thief(subscribe=[REC.confirm_topic(self.ev, ATTACKER)])
        body = json.loads(_result_body(self.hall, ATTACKER, victim_id))
        forged = dict(body, game=99, left=dict(body["left"], remaining_ms=123456))
        for table in (ATTACKER, VICTIM):
            _publish(a, "scrabble/%s/%d/result/99/%d" % (self.ev, table, ATTACKER),
                     json.dumps(dict(forged, table=table)).encode())
        time.sleep(1.0)
        _close(a)
        recs = REC.read_records(self.hall.folder, lambda m: None)
        bad = [r for r in recs if r["result"]["clock"] == victim_id and r["account"] != str(VICTIM)]
        rows = rows_from(recs)
        stolen = [r for r in rows if r["clock"] == victim_id and r["account"] != str(VICTIM)
                  or r["game"] == 99]
        self.record("stolen_clock_records_another_clocks_game",
                    not bad and not stolen and not a.got, (bad, stolen, a.got))

    # -- issue 35: one stolen account must not stop, rewrite or pre-empt anyone --------
    def _logs(self):
        """{file name: bytes} of every filed log (build/hall/logs/...)."""
        out = {}
        for d, _dirs, files in os.walk(os.path.join(self.hall.folder, "logs")):
            for n in files:
                if not n.startswith("."):
                    with open(os.path.join(d, n), "rb") as f:
                        out[n] = f.read()
        return out

    def _victim_log(self, game, extra=()):
        """The victim (its own account) publishes game `game`'s log, as its
        clock does; returns it once the recorder has filed it (None if it
        never did within 10 s: the recorder stopped)."""
        with self.lock:
            victim_id = self.fleet.clocks[VICTIM - 1].id
        v = _client(self.hall, str(VICTIM), self.pw[VICTIM])
        data = _log_text(victim_id, VICTIM, game, extra)
        _publish(v, hp.topic(self.ev, VICTIM, "log", VICTIM, game), data, retain=True)
        _close(v)
        name = "%s-g%04d.txt" % (victim_id, game)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if name in self._logs():
                return data
            time.sleep(0.05)
        return None

    def attack_stolen_clock_replaces_another_clocks_log(self):
        """The thief publishes, on its own log topic at the victim's table, a
        longer copy of the victim's filed log (its `# clock` line the
        victim's): the filing once took it for the victim's game resumed and
        replaced the victim's file.  Now a log is filed under its own
        account's clock only."""
        real = self._victim_log(41)
        with self.lock:
            victim_id = self.fleet.clocks[VICTIM - 1].id
        a = self._thief()
        forged = real + b"2000 right\n3000 left\n" if real else b""
        _publish(a, hp.topic(self.ev, VICTIM, "log", ATTACKER, 41), forged, retain=True)
        _close(a)
        after = self._victim_log(42)           # (filed after the forgery: it was handled)
        logs = self._logs()
        name = "%s-g%04d.txt" % (victim_id, 41)
        self.record("stolen_clock_replaces_another_clocks_log",
                    real is not None and after is not None and logs.get(name) == real
                    and not [n for n in logs if n.startswith(name[:-4] + "-")],
                    sorted(logs))

    def attack_stolen_clock_takes_another_clocks_log_name(self):
        """The thief publishes first a log naming the victim's clock and the
        game the victim will publish next: the victim's real log once went to
        `-2`.  Now the victim's log has its own name, and nothing of the
        thief's is filed under the victim's clock."""
        with self.lock:
            victim_id = self.fleet.clocks[VICTIM - 1].id
        a = self._thief()
        for table in (VICTIM, ATTACKER):
            _publish(a, hp.topic(self.ev, table, "log", ATTACKER, 43),
                     _log_text(victim_id, table, 43, ["# thief"]), retain=True)
        _close(a)
        real = self._victim_log(43)
        logs = self._logs()
        name = "%s-g%04d.txt" % (victim_id, 43)
        self.record("stolen_clock_takes_another_clocks_log_name",
                    real is not None and logs.get(name) == real
                    and not [n for n in logs if n.startswith(name[:-4] + "-")]
                    and not [n for n, d in logs.items() if b"# thief" in d], sorted(logs))

    def attack_stolen_clock_stops_the_recorder(self):
        """The issue's killers, from the thief's own account: a topic level
        with a superscript digit (str.isdigit() took it, int() did not: the
        recorder crash-looped), a clock id ending in a newline (a regex `$`
        took it: the recorder stalled for good), fullwidth digits, a
        look-alike clock id, a state whose JSON is floats.  The recorder lives
        on (the same process) and files the victim's next log."""
        pid = self.hall.rec_proc.pid
        with self.lock:
            thief_id = self.fleet.clocks[ATTACKER - 1].id
        good = json.loads(_result_body(self.hall, ATTACKER, thief_id))
        state = json.dumps(dict(good, over=False)).encode()
        a = self._thief()
        ev = self.ev
        for t in ("\u00b9", "\uff13", "\u0663"):
            _publish(a, hp.topic(ev, t, "state", ATTACKER), state, retain=True)
            _publish(a, hp.topic(ev, ATTACKER, "result", ATTACKER, t), state)
        for cid in (thief_id + "\n", "\u0455" + thief_id[1:]):
            b = json.dumps(dict(good, clock=cid, game=44)).encode()
            _publish(a, hp.topic(ev, ATTACKER, "state", ATTACKER), b, retain=True)
            _publish(a, hp.topic(ev, ATTACKER, "result", ATTACKER, 44), b)
            _publish(a, hp.topic(ev, ATTACKER, "log", ATTACKER, 44),
                     _log_text(cid, ATTACKER, 44), retain=True)
        _publish(a, hp.topic(ev, ATTACKER, "heartbeat", ATTACKER), state.replace(b"1000", b"1e3"))
        _close(a)
        filed = self._victim_log(45)
        alive = self.hall.rec_proc.poll() is None and self.hall.rec_proc.pid == pid
        self.record("stolen_clock_stops_the_recorder", filed is not None and alive,
                    (filed is not None, alive))

    def attack_oversized_and_flooding_retained(self):
        """A message bigger than message_size_limit on its own topic is not
        stored or delivered."""
        spy = self.spy()
        a = self._thief()
        big = b"x" * (broker.MESSAGE_SIZE_LIMIT + 1)
        _publish(a, "scrabble/%s/%d/log/9/%d" % (self.ev, ATTACKER, ATTACKER), big, retain=True)
        time.sleep(0.5)
        _close(a, spy)
        got = [t for t, p in spy.got if len(p) > broker.MESSAGE_SIZE_LIMIT]
        again = self.hall.collect("scrabble/%s/%d/log/9/%d" % (self.ev, ATTACKER, ATTACKER))
        self.record("oversized_retained_message", not got and not again, got)

    def attack_stolen_clock_takes_over_the_victims_session(self):
        """The thief's account with the victim's guessable ids: the victim
        stays connected (its client id is a secret of its net.json)."""
        with self.lock:
            c = self.fleet.clocks[VICTIM - 1]
            before = c.net.connects
            ids = [c.id, "clock-" + c.id, str(VICTIM)]
        cs = [_client(self.hall, str(ATTACKER), self.pw[ATTACKER], client_id=i) for i in ids]
        time.sleep(1.0)
        _close(*cs)
        with self.lock:
            kept = c.net.connects == before and c.net.st == 3
        self.record("stolen_clock_takes_over_the_victims_session", kept)

    def attack_page_server_path_traversal(self):
        """The pages' HTTPS server (tls.PageServer, www/ inside the hall
        folder) and the broker's WebSocket port asked for the folder's secrets
        by every path trick: no password, hash or private key comes back."""
        import http.client
        ctx = TLS.client_context(self.hall.folder)
        paths = ["/../ca.key", "/../broker.key", "/..%2fbroker.key", "/%2e%2e/ca.key",
                 "/../clocks.json", "/..%2fclocks.json", "/%2e%2e/clocks.json", "/../passwd",
                 "/../service.json", "/www/../clocks.json", "/....//clocks.json",
                 "//" + self.hall.folder.lstrip("/") + "/clocks.json", "/../../../etc/passwd",
                 "/%2e%2e%2fservice.json", "/..\\clocks.json"]
        leaked = []
        control = []
        for port, p in ([(self.hall.page_port, "/config.js")] +
                        [(port, p) for port in (self.hall.page_port, self.hall.ws_port)
                         for p in paths]):
            conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=ctx)
            try:
                conn.putrequest("GET", p, skip_host=True, skip_accept_encoding=True)
                conn.putheader("Host", "127.0.0.1")
                conn.endheaders()
                body = conn.getresponse().read()
            except (OSError, http.client.HTTPException):
                body = b""
            finally:
                conn.close()
            if p == "/config.js" and port == self.hall.page_port:
                control.append(accounts.VIEWER.encode() in body)   # the server answers
            elif b"$7$" in body or b"PRIVATE KEY" in body or b"root:" in body or any(
                    pw.encode() in body for pw in list(self.pw.values()) +
                    [service_passwords(self.hall.folder)[accounts.RECORDER]]):
                leaked.append(p)
        self.record("page_server_path_traversal", control == [True] and not leaked,
                    (control, leaked))

    def attack_zz_revoked_clock_cannot_connect(self):
        """Last: the director revokes the stolen clock's account (hall revoke):
        its net.json no longer connects."""
        old = self.pw[ATTACKER]
        self.hall.revoke(ATTACKER)
        time.sleep(0.5)   # the broker reloads on SIGHUP
        c = _client(self.hall, str(ATTACKER), old)
        refused = c.rc is not None and c.rc.is_failure
        _close(c)
        self.pw = self.hall.passwords()
        self.record("revoked_clock_cannot_connect", refused)


def _result_body(hall, table, clock_id):
    return json.dumps({"profile": "sdev", "t_ms": 1000, "running": None, "paused": False,
                       "over": True, "challenge_ms": 0, "late": None,
                       "left": {"remaining_ms": 1, "overtime_ms": 0, "penalty": 0,
                                "flag": False, "forfeit": False},
                       "right": {"remaining_ms": 2, "overtime_ms": 0, "penalty": 0,
                                 "flag": False, "forfeit": False},
                       "clock": clock_id, "table": table, "game": 1})


def run_all(hall, n_clocks=6, speed=1):
    """Start n simulated clocks (idle, connected), run every attack, stop
    them.  Returns [(name, repelled, detail)]."""
    from hall.rehearsal import clocks as rehearsal
    fleet = rehearsal.Fleet(hall, n_clocks, speed=speed,
                           scripts={t: [] for t in range(1, n_clocks + 1)})
    lock = fleet.background(0.005)
    try:
        end = time.monotonic() + 20
        while time.monotonic() < end:
            with lock:
                if all(c.net.st == 3 and c.net.subscribed for c in fleet.clocks):
                    break
            time.sleep(0.05)
        # the clocks are on at their tables before anyone attacks: the recorder
        # has seen each one's state (owners.jsonl: which account each clock is)
        ids = {c.id: str(c.table) for c in fleet.clocks}
        while time.monotonic() < end:
            owners = REC.read_owners(hall.folder, lambda m: None)
            if all(owners.get(i) == a for i, a in ids.items()):
                break
            time.sleep(0.05)
        return Attacks(hall, fleet, lock).run()
    finally:
        fleet.close()


def hostile_bodies(good):
    """What a hostile (or broken) clock account can send as a state or a
    result on its own topics, given a valid body `good` (a dict): each one
    must be refused by the recorder, the CSV and the page with one warning
    (tests/test_hall_readers.py, tests/test_hall_page_fuzz.py)."""
    def with_(**kw):
        d = json.loads(json.dumps(good))
        for k, v in kw.items():
            if "." in k:
                a, b = k.split(".")
                d[a][b] = v
            else:
                d[k] = v
        return json.dumps(d).encode()

    return [
        b"{}", b"[]", b"null", b'"x"', b"1", b"true", b"not json", b"\xff\xfe\x00",
        b'{"left": {}}',                                  # the KeyError
        with_(left={}), with_(right=None), with_(left=[1, 2]),
        with_(table=good["table"] + 1), with_(table=str(good["table"])),
        with_(table=None), with_(game="1"), with_(game=-1), with_(game=1.5),
        with_(**{"left.remaining_ms": "100"}), with_(**{"left.remaining_ms": 1e400}),
        with_(**{"left.overtime_ms": -5}), with_(**{"right.penalty": None}),
        with_(**{"left.flag": 1}), with_(**{"right.forfeit": "no"}),
        with_(running="up"), with_(over="yes"), with_(clock="<img src=x onerror=alert(1)>"),
        with_(clock=""), with_(clock="x" * 500), with_(t_ms=-1), with_(t_ms=2 ** 40),
        with_(profile=["sdev"]),
        b'{"__proto__": {"over": true}, "constructor": {"prototype": {"x": 1}}}',
        b"[" * 5000 + b"]" * 5000,
        b'{"table": 1, "pad": "' + b"x" * 15000 + b'"}',
        b"NaN", b'{"left": NaN}',
    ]


def _log_text(clock, table, game=1, lines=()):
    """A game log as a clock writes it (firmware/gamelog.py's header)."""
    return ("profile sdev  # game %d\n# clock %s table %d\n" % (game, clock, table)
            + "".join(x + "\n" for x in lines) + "1000 left\n").encode()


def hostile_names():
    """Player names the hall's one name rule (hallproto.clean_name, is_name)
    must treat alike everywhere (issue 35): astral letters (64 code points
    are 128 UTF-16 units), controls, bidi overrides and isolates, lone
    surrogates, look-alikes, formulas (kept: a CSV's business)."""
    n = hp.NAME_MAX
    return ["Zofia Żak", "Jürgen Groß", "", "x" * n, "x" * (n + 1), "\U0001d400" * n,
            "\U0001d400" * (n + 1), "ab\u202edc", "\u202bRTL\u202c", "\u2066iso\u2069",
            "\u2067x\u2068y\u2069", "a\u200eb\u200f", "a\u061cb", "a\nb", "a\rb", "a\tb",
            "a\x00b", "a\x7fb", "a\x85b", "a\u2028b\u2029", "\ud800x", "x\udfff",
            "\u0410nna", "\uff21nna", "=HYPERLINK(\"http://x\")", "@SUM(1)", "+1", "-1",
            "\U0001f469\u200d\U0001f4bb", "\ufeffBOM", "a\u200bb", " padded ",
            "\u202e" * (n + 5) + "x", "x" * (n - 1) + "\u202e" + "yz"]


def hostile_messages(event, table, account, good, game=1):
    """(topic, payload) pairs a stolen clock account (or a broken clock) can
    publish, and a few the broker never lets it (other levels, the hall's
    own topics), given a valid state body `good` of this table and account:
    the corpus tests/test_hall_proto.py runs through the hall's Python and
    the pages' JS (the same verdict for each), and tests/test_hall_fuzz.py
    through the real broker.  Unicode digits, controls, trailing newlines,
    surrogates, homoglyphs, bidi controls, oversize, wrong types, missing
    fields, another clock's name inside a payload."""
    T, A, G = str(table), str(account), str(game)
    res = dict(good, over=True, game=game)
    state = json.dumps(good).encode()
    result = json.dumps(res).encode()
    log = _log_text(good["clock"], table, game)
    out = []

    def topic(t=T, kind="state", a=A, g=None):
        return hp.topic(event, t, kind, a, g)

    # every kind, honest; emptied
    for k in hp.CLOCK_KINDS:
        out.append((topic(kind=k), b"online" if k == "status" else state))
        out.append((topic(kind=k), b""))
    out += [(topic(kind="result", g=G), result), (topic(kind="log", g=G), log),
            (topic(kind="result", g=G), b""), (topic(kind="log", g=G), b"")]
    # topic levels: Unicode digits, signs, zeros, newlines, limits
    odd_numbers = ["\u00b9", "\u00b3", "\uff13", "\u0663", "\U0001d7d1", "0" + T, "0", "-" + T,
                   "+" + T, T + "\n", " " + T, T + ".0", "", "1e3", T + "\u200b",
                   str(hp.INT_MAX + 1), "9" * (hp.MAX_DIGITS + 1)]
    for n in odd_numbers:
        out.append((topic(t=n), state))
        out.append((topic(a=n), state))
        out.append((topic(kind="result", g=n), result))
    out += [(topic(t=str(hp.MAX_TABLE)), state), (topic(t=str(hp.MAX_TABLE + 1)), state),
            (topic(a=str(hp.INT_MAX)), state), (topic(kind="result", g=str(hp.INT_MAX)), result)]
    # kinds and shapes
    for k in ("State", "state\n", "logs", "", "confirm", "round", "owner", "\u0455tate"):
        out.append((topic(kind=k), state))
    base = hp.prefix(event, table)
    out += [(base + "state", state), (base + "state/" + A + "/x", state),
            (base + "result/" + A, result), (base + "log/" + G + "/" + A + "/x", log),
            ("scrabble/other/" + T + "/state/" + A, state), ("scrabble/" + event, state),
            ("Scrabble/" + event + "/" + T + "/state/" + A, state),
            (topic(t="\ud800"), state), (topic(a="3\udc00"), state),
            (base + "state/" + A + "/" + "x" * hp.MAX_TOPIC, state),
            (hp.hall_topic(event, "owner", good["clock"]), A.encode()),
            (hp.hall_topic(event, "owner", good["clock"] + "\n"), A.encode()),
            (hp.hall_topic(event, "owner", "\u0455" + good["clock"][1:]), A.encode()),
            (hp.hall_topic(event, "round", T), b"{}"), (hp.hall_topic(event, "round", "\u00b3"), b"{}"),
            (hp.hall_topic(event, "alarm"), b"{}"), (hp.hall_topic(event, "alarm", "x"), b"{}"),
            (hp.confirm_topic(event, A), result), (hp.confirm_topic(event, A + "\n"), result)]

    def w(kind="state", **kw):
        d = json.loads(json.dumps(res if kind == "result" else good))
        for k, v in kw.items():
            if "." in k:
                a, b = k.split(".")
                d[a][b] = v
            elif v is _GONE:
                d.pop(k, None)
            else:
                d[k] = v
        t = topic(kind="result", g=G) if kind == "result" else topic(kind=kind)
        return (t, json.dumps(d).encode())

    c = good["clock"]
    # clock ids: newlines, homoglyphs, zero-width, fullwidth, limits, another clock
    for cid in (c + "\n", "\n" + c, c + "\r", "\u0455" + c[1:], c[:1] + "\u200b" + c[1:],
                "\uff53" + c[1:], "x" * hp.MAX_ID, "x" * (hp.MAX_ID + 1), "", c + " ", "a/b",
                "a+b", "a#b", "e6614c31\u0661", "sim004", "<img src=x onerror=alert(1)>", 3):
        out += [w(clock=cid), w("result", clock=cid), w("heartbeat", clock=cid)]
    # numbers: floats, exponents, NaN, limits, strings, booleans
    for v in (5.0, 5e3, -1, hp.INT_MAX, hp.INT_MAX + 1, "1", None, True, [], {}):
        out += [w(t_ms=v), w(**{"left.remaining_ms": v}), w(table=v), w("result", game=v)]
    out += [(topic(), state.replace(b'"t_ms": %d' % good["t_ms"], b'"t_ms": NaN')),
            (topic(), state.replace(b'"t_ms": %d' % good["t_ms"], b'"t_ms": Infinity')),
            (topic(), state.replace(b'"t_ms": %d' % good["t_ms"], b'"t_ms": 5E3')),
            (topic(), state.replace(b'"t_ms": %d' % good["t_ms"], b'"t_ms": -0')),
            (topic(), state[:-1] + b', "x": 1.5}'), (topic(), state[:-1] + b', "x": NaN}')]
    for k in ("paused", "over", "left.flag", "right.forfeit", "lowbat"):
        out += [w(**{k: 0}), w(**{k: "false"}), w(**{k: None})]
    out += [w(lowbat=_GONE), w(lowbat=True)]
    # the self-test's result (issue 37): absent, null, pass, fail and its items
    for v in (_GONE, None, "pass", "fail buzzer leds", "fail", "", 0, False, ["pass"],
              "x" * hp.MAX_SELFTEST, "x" * (hp.MAX_SELFTEST + 1), "fail\nkeys", "pass\u202e",
              "fail <b>keys</b>", "=HYPERLINK(1)", "\U0001d400" * hp.MAX_SELFTEST):
        out.append(w(selftest=v))
    # the lateness account (SPEC v5 §5): absent on an older clock, else a whole ms
    for v in (0, 90000, -1, 1.5, "90000", None, True, hp.INT_MAX + 1):
        out.append(w(**{"left.lateness_ms": v}))
    for k in ("running", "late"):
        out += [w(**{k: "Left"}), w(**{k: "left\n"}), w(**{k: 0}), w(**{k: _GONE}),
                w(**{k: "right"})]
    # missing fields, wrong shapes
    for k in sorted(good):
        out.append(w(**{k: _GONE}))
    out += [w(left=[]), w(left="x"), w(right=None), w(left={}),
            w(**{"left.overtime_ms": -5}), w(**{"right.penalty": 1.0}),
            w("result", over=False), w("result", game=game + 1), w(table=table + 1),
            w(profile="p" * hp.MAX_PROFILE), w(profile="p" * (hp.MAX_PROFILE + 1)),
            w(profile="\U0001d400" * hp.MAX_PROFILE), w(profile="\U0001d400" * (hp.MAX_PROFILE + 1)),
            w(profile="\ud800"), w(profile=["sdev"]), w(profile="ab\u202edc"),
            w(extra=[[1]]), w(extra=[[[1]]]), w(extra={"a": {"b": 1}})]
    # JSON itself: not JSON, BOM, garbage, duplicates, prototypes, bytes
    out += [(topic(), b) for b in (
        b"{}", b"[]", b"null", b'"x"', b"1", b"true", b"not json", b"\xef\xbb\xbf" + state,
        state + b" x", state + b"\n", b" " + state, state.replace(b"{", b"{\"table\": 99, ", 1),
        b'{"__proto__": {"over": true}, "constructor": {"prototype": {"x": 1}}}',
        b"[" * 5000 + b"]" * 5000, b"\xff\xfe\x00", b"\xed\xa0\x80", b"\xc0\xaf",
        state.replace(b'"sdev"', b'"sd\\ud800ev"'), state.replace(b'"sdev"', b'"sd\x01ev"'),
        state.replace(b'"sdev"', b'"\xc5\xbc\xc3\xb3\xc5\x82w"'))]
    # sizes: exactly the limit, one byte over (spaces are JSON)
    pad = hp.MAX_BODY - len(state)
    out += [(topic(), state[:-1] + b" " * pad + b"}"), (topic(), state[:-1] + b" " * (pad + 1) + b"}")]
    lpad = hp.MAX_LOG - len(log)
    out += [(topic(kind="log", g=G), log + b"#" * lpad), (topic(kind="log", g=G), log + b"#" * (lpad + 1))]
    # statuses and logs
    for b in (b"online\n", b"ONLINE", b"on", b"\xff", b"offline "):
        out.append((topic(kind="status"), b))
    lt = topic(kind="log", g=G)
    out += [(lt, b"profile sdev\n0 press left\n"), (lt, _log_text(c + "\r", table)),
            (lt, _log_text("\u0455" + c[1:], table)), (lt, _log_text("sim004", table)),
            (lt, b"\n" * hp.LOG_HEAD_LINES + _log_text(c, table)),
            (lt, b"\n" * (hp.LOG_HEAD_LINES - 2) + _log_text(c, table)),
            (lt, b"\xff" + log), (lt, b"\xef\xbb\xbf" + log), (lt, log.replace(b"# clock", b"#  clock"))]
    return out


_GONE = object()
