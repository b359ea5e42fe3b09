"""Whose clock is it, on the pages too (issue 29: "a body whose clock, table
or game disagrees with its topic's account is refused").  The recorder
refuses to store a result or take a state whose clock belongs to another
account (owners.jsonl); it publishes each clock's account, retained, on
scrabble/<event>/owner/<clock>, and the pages (hall/page/model.js
refused()) refuse the same messages by that one list: no row of the
director's page, no card of the projector shows another account's clock.

The browser test runs a real headless Chromium against the real Mosquitto
and the real recorder; it waits for what the page shows (its owners, its
warning line, the recorder's alarm), never for a time.
"""
import json
import time

import paho.mqtt.client as mqtt

from hallkit import PATIENT_S, needs_browser, new_hall, page_until, state_body, until
from hall import tls as TLS
from hall import recorder as REC
from test_hall_page import browser, ROWS_JS  # noqa: F401  (the fixture)


def state(table, clock, game=1, over=False):
    """A clock's state body (firmware/report.py's fields), ready or over."""
    return {"profile": "sdev", "t_ms": 1000, "running": None, "paused": False, "over": over,
            "challenge_ms": 0, "late": None,
            "left": {"remaining_ms": 1500000, "overtime_ms": 0, "penalty": 0, "flag": False,
                     "forfeit": False},
            "right": {"remaining_ms": 1499000, "overtime_ms": 0, "penalty": 0, "flag": False,
                      "forfeit": False},
            "clock": clock, "table": table, "game": game}


def test_recorder_publishes_each_clocks_account_retained(tmp_path):
    """The owners the pages apply come from the recorder's own list: the
    first account seen with a clock, a deploy line over it, a clock gone
    from the file emptied, all again after a reconnection."""
    sent = []
    rec = REC.Recorder(str(tmp_path), "cup", lambda t, p, q, r: sent.append((t, p, q, r)))
    rec.message("scrabble/cup/1/state/1", json.dumps(state(1, "c-one")).encode())
    rec.tick()
    owners = [m for m in sent if "/owner/" in m[0]]
    assert owners == [("scrabble/cup/owner/c-one", b"1", 1, True)]
    sent.clear()
    rec.tick()                                   # nothing changed: nothing again
    assert [m for m in sent if "/owner/" in m[0]] == []
    REC.add_owner(str(tmp_path), "c-one", 7)     # make deploy-tables: the board is 7's
    REC.add_owner(str(tmp_path), "c-two", 2)
    rec.tick()
    assert sorted(m for m in sent if "/owner/" in m[0]) == [
        ("scrabble/cup/owner/c-one", b"7", 1, True), ("scrabble/cup/owner/c-two", b"2", 1, True)]
    sent.clear()
    rec.connected()                              # a broker restarted empty
    rec.tick()
    assert sorted(m[0] for m in sent if "/owner/" in m[0]) == [
        "scrabble/cup/owner/c-one", "scrabble/cup/owner/c-two"]
    sent.clear()
    with open(tmp_path / REC.OWNERS, "w") as f:   # the director removed c-two's line
        f.write(json.dumps({"clock": "c-one", "account": "7", "how": "deploy"}) + "\n")
    rec.tick()
    assert [m for m in sent if "/owner/" in m[0]] == [("scrabble/cup/owner/c-two", b"", 1, True)]


def _client(h, account):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t%s-%d" % (account, id(h)))
    c.username_pw_set(str(account), h.passwords()[account])
    TLS.paho_tls(c, h.folder)
    c.connect("127.0.0.1", h.port)
    c.loop_start()
    return c


def _send(c, topic, body, retain=False):
    c.publish(topic, json.dumps(body).encode(), qos=1, retain=retain).wait_for_publish(PATIENT_S)


OWNERS_JS = "return Object.assign({}, OWNERS);"
PAGE_WARN_JS = "return document.getElementById('warn').textContent;"
ALARM_JS = "return document.getElementById('alarmlog').textContent;"


def _shown(rows, table):
    return table in rows and not rows[table][3]


@needs_browser
def test_page_refuses_a_row_of_another_accounts_clock(tmp_path, browser):
    """Issue 19's F2 on the page: account 3 publishes a result, and account
    4 a retained state, naming account 1's clock.  The recorder refuses
    both (its alarm); the page shows no row for either, says why in its
    warning line, and a fresh page (the retained messages in any order)
    shows the same.  Account 3's own clock is then shown: the refusal is
    the clock's, not the account's."""
    h = new_hall(tmp_path, tables=4)
    h.start()
    cs = []
    try:
        one = _client(h, 1)
        cs.append(one)
        _send(one, "scrabble/cup/1/state/1", state(1, "c-one"), retain=True)
        until(lambda: REC.read_owners(h.folder, lambda m: None), lambda o: "c-one" in o)
        browser.get(h.url())
        page_until(browser, OWNERS_JS, lambda o: o.get("c-one") == "1")
        assert _shown(page_until(browser, ROWS_JS, lambda r: _shown(r, "1")), "1")

        thief = _client(h, 3)
        cs.append(thief)
        _send(thief, "scrabble/cup/3/result/99/3", state(3, "c-one", game=99, over=True))
        why3 = "clock c-one belongs to account 1, not to account 3"
        assert why3 in page_until(browser, PAGE_WARN_JS, lambda t: why3 in t)
        assert why3 in page_until(browser, ALARM_JS, lambda t: why3 in t)   # the recorder's
        other = _client(h, 4)
        cs.append(other)
        _send(other, "scrabble/cup/4/state/4", state(4, "c-one"), retain=True)
        why4 = "clock c-one belongs to account 1, not to account 4"
        page_until(browser, PAGE_WARN_JS, lambda t: why4 in t)
        rows = browser.execute_script(ROWS_JS)
        assert _shown(rows, "1") and not _shown(rows, "3") and not _shown(rows, "4"), rows
        assert not any(r["game"] == 99 for r in REC.read_records(h.folder, lambda m: None))

        browser.refresh()          # the retained state, the owners: any order
        page_until(browser, PAGE_WARN_JS, lambda t: why4 in t)
        rows = browser.execute_script(ROWS_JS)
        assert _shown(rows, "1") and not _shown(rows, "4"), rows

        _send(thief, "scrabble/cup/3/state/3", state(3, "c-three"), retain=True)
        rows = page_until(browser, ROWS_JS, lambda r: _shown(r, "3"))
        assert _shown(rows, "3") and not _shown(rows, "4"), rows
        assert page_until(browser, OWNERS_JS, lambda o: "c-three" in o)["c-three"] == "3"
        for c, t in ((one, 1), (other, 4), (thief, 3)):   # (retained: leave none behind)
            c.publish("scrabble/cup/%d/state/%d" % (t, t), b"", qos=1,
                      retain=True).wait_for_publish(PATIENT_S)
    finally:
        for c in cs:
            c.loop_stop()
            c.disconnect()
        h.stop()


def test_model_owner_messages_are_checked():
    """parseOwner refuses what is not a clock id and an account; an empty
    message removes the owner (model.js, run by node when present, else
    the browser test covers it)."""
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        import pytest
        pytest.skip("node missing")
    from conftest import ROOT
    js = """
    const M = require(process.argv[1] + '/hall/page/model.js');
    const O = M.newOwners(), out = [];
    [['scrabble/cup/owner/c-1', '2'], ['scrabble/cup/owner/c-1', '02'],
     ['scrabble/cup/owner/a b', '2'], ['scrabble/cup/owner/c/1', '2'],
     ['scrabble/other/owner/c-1', '2'], ['scrabble/cup/owner/__proto__', '5']].forEach(function (x) {
      const m = M.parseOwner('cup', x[0], x[1]);
      out.push(m === null ? 'null' : m.error ? 'error' : m.clock + '=' + m.account);
      if (m && !m.error) M.addOwner(O, m);
    });
    out.push(M.refused(O, '3', {clock: 'c-1'}), M.refused(O, '2', {clock: 'c-1'}),
             M.refused(O, '3', {clock: 'toString'}), M.refused(O, '5', {clock: '__proto__'}));
    M.addOwner(O, M.parseOwner('cup', 'scrabble/cup/owner/c-1', ''));
    out.push(M.refused(O, '3', {clock: 'c-1'}));
    console.log(JSON.stringify(out));
    """
    got = subprocess.run([node, "-e", js, ROOT], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == [
        "c-1=2", "error", "error", "null", "null", "__proto__=5",
        "clock c-1 belongs to account 2, not to account 3", None, None, None, None]


def test_the_page_says_each_clocks_self_test_as_the_protocol_takes_it():
    """Issue 37 (the organizer's checklist: each clock seen passing on the
    director's page): the state's `selftest` field, as hallproto takes it
    (null, "pass", "fail <items>"), is a word of the row: a failure always,
    with its items; a pass until the game begins; none before a self-test.
    A field the protocol refuses never reaches the words."""
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        import pytest
        pytest.skip("node missing")
    import hallproto as hp
    from conftest import ROOT
    base = state_body(t_ms=0, running=None)
    cases = [dict(base), dict(base, selftest=None), dict(base, selftest="pass"),
             dict(base, selftest="fail buzzer leds"),
             dict(base, selftest="pass", paused=True),
             dict(base, selftest="fail keys", paused=True),
             dict(base, selftest="x" * (hp.MAX_SELFTEST + 1)), dict(base, selftest=["pass"])]
    js = """
    const P = require(process.argv[1] + '/hall/page/hallproto.js');
    const M = require(process.argv[1] + '/hall/page/model.js');
    const out = JSON.parse(process.argv[2]).map(function (s) {
      const why = P.checkState(s, 3);
      return why ? 'refused' : M.words(s, false, 0).filter(function (w) {
        return w.indexOf('self-test') === 0; });
    });
    console.log(JSON.stringify(out));
    """
    got = subprocess.run([node, "-e", js, ROOT, json.dumps(cases)], capture_output=True,
                         text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == [
        [], [], ["self-test passed"], ["self-test failed buzzer leds"], [],
        ["self-test failed keys"], "refused", "refused"]
    # the hall's Python reads them alike (one protocol: hallproto.py)
    assert [hp.check_state(c, 3) is None for c in cases] == [True] * 6 + [False, False]
