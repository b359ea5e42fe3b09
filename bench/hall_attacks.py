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
import secrets
import time

import paho.mqtt.client as mqtt

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
