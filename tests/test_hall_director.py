"""The director's day on the page (issue 37, docs/hall.md "The director's
page"), in a real headless Chromium against the real Mosquitto and
recorder:

- the alerts (hall/page/alerts.js): a silent clock, overtime, a forfeit and
  a result to check (a flag, two finished games at one table) each raise the
  banner and beep; switched off, neither; the switches survive a reload
  (localStorage);
- the hall stopping: the times stay as shown (not the last message's), the
  page marked stale;
- the finished rounds stay on the page after `hall round 2` with their logs
  and timelines; the timelines are served as UTF-8 in the log's language
  and read right in Chromium (they showed `â–¶` for `▶`);
- the title reads as the event's name and round.
Every wait is on the page's state (hallkit.page_until), never a sleep."""
import copy
import json
import os
import socket
import urllib.error
import urllib.request

from hallkit import PATIENT_S, hall_cmd, needs_browser, new_hall, page_until, state_body, until
from bench import hall_attacks as A
from hall import tls as TLS
from hall import filing
from hall.rehearsal import clocks as rehearsal
from rig import LEFT
from test_hall_page import browser, ROWS_JS, seconds  # noqa: F401  (the fixture)

pytestmark = needs_browser

STATE = state_body(50000, 50000, clock="c1", table=1)

ALERTS_JS = """
return {shown: !document.getElementById('alertbanner').hidden,
        items: Array.prototype.map.call(document.querySelectorAll('#alertlist li'),
                                        function (li) { return [li.className, li.textContent]; }),
        raised: HallAlerts.stats.raised, beeps: HallAlerts.stats.beeps,
        banner: document.getElementById('alert-banner').checked,
        sound: document.getElementById('alert-sound').checked};
"""


def state(table, clock, **kw):
    s = copy.deepcopy(STATE)
    s.update(table=table, clock=clock)
    for k, v in kw.items():
        if k in ("left", "right"):
            s[k].update(v)
        else:
            s[k] = v
    return s


class Clocks:
    """Clock accounts publishing as clocks do (their own passwords, retained
    states and statuses) through the real broker."""

    def __init__(self, h):
        self.h = h
        self.pw = h.passwords()
        self.c = {}

    def say(self, account, table, kind, body):
        a = str(account)
        if a not in self.c:
            self.c[a] = A._client(self.h, a, self.pw[account])
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        A._publish(self.c[a], "scrabble/cup/%d/%s/%s" % (table, kind, a), data,
                   retain=not kind.startswith("result"))

    def close(self):
        for c in self.c.values():
            c.loop_stop()
            c.disconnect()


def alerts(browser, cond):
    return page_until(browser, ALERTS_JS, cond)


def test_each_alert_raises_the_banner_and_the_switches_are_remembered(tmp_path, browser):
    """Issue 37: "the page does not call the director ... when a clock goes
    silent, a game goes into overtime or forfeits, or a result arrives that
    needs a look".  Each kind raises the banner (its line, a beep); with the
    banner and the sound switched off a new alert shows nothing and beeps
    not; after a reload both switches are still off; switched on again the
    banner shows what was raised meanwhile."""
    h = new_hall(tmp_path, tables=8)
    h.start()
    clocks = Clocks(h)
    try:
        browser.get(h.url())
        a = alerts(browser, lambda a: a["banner"] and a["sound"])
        assert a["banner"] and a["sound"] and not a["shown"], a      # on by default
        steps = [
            ("silent", [(1, 1, "state", state(1, "c1")), (1, 1, "status", b"online"),
                        (1, 1, "status", b"offline")]),
            # (an overtime profile's flag is its overtime, no result to check)
            ("overtime", [(2, 2, "state", state(2, "c2", left={"remaining_ms": -5000,
                                                                "overtime_ms": 5000,
                                                                "flag": True}))]),
            ("forfeit", [(3, 3, "state", state(3, "c3", running=None, over=True,
                                               right={"forfeit": True}))]),
            # a loss on time on a flag profile (pfs: 00:00 ends the game)
            ("check", [(4, 4, "state", state(4, "c4", profile="pfs", running=None, over=True,
                                             left={"remaining_ms": 0, "flag": True}))]),
            # two finished games at one table (two clocks' accounts there)
            ("check", [(5, 5, "state", state(5, "c5", running=None, over=True)),
                       (6, 5, "state", state(5, "c6", running=None, over=True))]),
            # a result the recorder refuses (its alarm's new warning)
            ("check", [(8, 8, "result/1", b"{}")]),
        ]
        texts = []
        for kind, msgs in steps:
            before = browser.execute_script(ALERTS_JS)
            for account, table, what, body in msgs:
                clocks.say(account, table, what, body)
            a = alerts(browser, lambda a: a["shown"] and a["raised"] > before["raised"]
                       and a["items"][0][0] == "alert-" + kind)
            assert a["shown"] and a["items"][0][0] == "alert-" + kind, (kind, a)
            assert a["beeps"] > before["beeps"], (kind, a)
            texts += [t for _c, t in a["items"]]
            browser.find_element("id", "alertseen").click()
            assert not browser.execute_script(ALERTS_JS)["shown"]
        assert any("2 results at this table" in t for t in texts), texts
        assert "table 4: result to check: the left flag fell at 00:00" in " ".join(texts)
        assert not [t for t in texts if t.startswith("table 2: result")], texts
        assert texts[-1].startswith("recorder: ") and \
            "refused 'scrabble/cup/8/result/1/8'" in texts[-1], texts   # (hallproto.parse)
        # each table's alert once: the page's next renders raise nothing new
        n = a["raised"]
        page_until(browser, "return document.getElementById('counts').textContent",
                   lambda t: "finished" in t)
        assert browser.execute_script(ALERTS_JS)["raised"] == n
        # both switches off: an alert is raised, but neither shown nor sounded
        browser.find_element("id", "alert-banner").click()
        browser.find_element("id", "alert-sound").click()
        before = browser.execute_script(ALERTS_JS)
        assert not before["banner"] and not before["sound"], before
        clocks.say(7, 7, "state", state(7, "c7", right={"remaining_ms": -1000,
                                                       "overtime_ms": 1000}, running="right"))
        a = alerts(browser, lambda a: a["raised"] > before["raised"])
        assert a["raised"] > before["raised"] and not a["shown"] and a["beeps"] == before["beeps"]
        # a reload: the browser remembers both switches (localStorage)
        browser.refresh()
        a = alerts(browser, lambda a: a["raised"] >= 5)       # the retained states again
        assert a["raised"] >= 5 and not a["banner"] and not a["sound"], a
        assert not a["shown"] and a["beeps"] == 0, a
        assert browser.execute_script("return [localStorage.getItem(HallAlerts.KEYS.banner),"
                                      " localStorage.getItem(HallAlerts.KEYS.sound)]") == \
            ["off", "off"]
        browser.find_element("id", "alert-banner").click()     # on again: what was raised
        a = browser.execute_script(ALERTS_JS)
        assert a["banner"] and a["shown"] and a["items"], a
        # names in an alert are text: a clock's id never becomes markup
        assert not browser.execute_script("return document.querySelectorAll('#alertlist *').length"
                                          " - document.querySelectorAll('#alertlist li').length")
    finally:
        clocks.close()
        h.stop()


VIRTUAL_NOW_JS = """
window.__vnow = performance.now();
now = function () { return window.__vnow; };   // hall.js reads its time here only
"""


def _steady(seen):
    """A cond for until(): the value read is the one read before."""
    def cond(v):
        same = bool(seen) and seen[-1] == v
        seen.append(v)
        return same
    return cond


def test_times_stay_as_shown_when_the_hall_stops(tmp_path, browser):
    """Issue 37: "after the hall stops the shown times jump back to the last
    message".  Both ways a page learns of it are held: a clock's last will
    (the broker sends them as it stops; an offline row showed its last
    state's time) and the page's own connection closing (the rows counted
    on).  The page's clock is made virtual; two running clocks' times have
    counted down 7 s past their last messages; clock 1's connection drops
    (its last will: offline): its row keeps those seconds; then the hall
    stops: both rows keep them while the virtual clock goes on 20 s, and the
    page says its times are stale."""
    h = new_hall(tmp_path, tables=2)
    h.start()
    fleet = rehearsal.Fleet(h, 2, speed=1, base_s=600,
                            scripts={1: [(1500, LEFT, 80)], 2: [(1500, LEFT, 80)]})
    lock = fleet.background(0.005)
    try:
        browser.get(h.url())
        rows = page_until(browser, ROWS_JS, lambda r: {"1", "2"} <= set(r) and
                          all("running" in r[k][2] for k in ("1", "2")))
        assert "running" in rows["2"][2], rows
        with lock:       # the clocks stand still: no state, heartbeat or ping meanwhile
            for c in fleet.clocks:
                # the page holds each clock's last message once nothing more
                # comes: its time the same over 2 s (the clock's own live
                # time may have moved past its last message when the lock
                # stopped it mid-step: equal to it, the wait never ended)
                until(lambda c=c: browser.execute_script(
                          "return rows['%d/%d'].state.right.remaining_ms" % (c.table, c.table)),
                      _steady([]), every=2.0)
            browser.execute_script(VIRTUAL_NOW_JS)
            browser.execute_script("window.__vnow = Math.max(rows['1/1'].at, rows['2/2'].at)"
                                   " + 7000; render();")
            shown = browser.execute_script(ROWS_JS)
            for t in ("1", "2"):
                last = browser.execute_script(
                    "return HallModel.fmt(rows['%s/%s'].state.right.remaining_ms)" % (t, t))
                assert seconds(last) - 8 <= seconds(shown[t][1]) <= seconds(last) - 6, \
                    (t, shown[t], last)
            one = fleet.clocks[0]                 # clock 1's Wi-Fi and connection drop:
            one.link.up = False                   # (its sockets fail from now on)
            one.net.wire.sock.s.shutdown(socket.SHUT_RDWR)   # the broker sends its will
            page_until(browser, "return rows['1/1'].status", lambda s: s == "offline")
            browser.execute_script("render();")
            got = browser.execute_script(ROWS_JS)
            assert "offline" in got["1"][2] and got["1"][1] == shown["1"][1], (got, shown)
            h.stop()
            page_until(browser, "return document.body.className", lambda c: "stale" in c)
            browser.execute_script("window.__vnow += 20000; render();")
            got = browser.execute_script(ROWS_JS)
            assert [got[t][1] for t in ("1", "2")] == [shown[t][1] for t in ("1", "2")], \
                (got, shown)                                  # neither back nor on
            conn = browser.find_element("id", "conn").text
            assert "stale" in conn, conn
    finally:
        fleet.close()
        h.stop()


def _get(h, url):
    ctx = TLS.client_context(h.folder)
    with urllib.request.urlopen(url, context=ctx) as r:
        return r.headers, r.read()


def test_past_rounds_stay_on_the_page_with_their_timelines_in_utf8(tmp_path, browser):
    """Issue 37: after `hall round 2` round 1's rows left the page; and the
    timeline opened from the page was `text/plain` without a charset
    (Chromium showed `▶` as `â–¶`).  Two clocks play round 1; `hall round
    2`; the page's "Earlier rounds" lists round 1's two games (players'
    tables, both final times as the CSV has them, the links); the timeline
    link answers `text/plain; charset=utf-8` with `Content-Language` of its
    language and Chromium shows its arrows and its German words as written;
    the log link is the clock's own log.  Also the title reads as the
    event's name and round (it read as a status)."""
    h = new_hall(tmp_path, tables=4)
    h.start()
    fleet = rehearsal.Fleet(h, 2, speed=40)
    try:
        assert fleet.run(seconds=PATIENT_S), [c.net.note for c in fleet.clocks]
        until(lambda: filing.filed(h.folder, 1), lambda f: len(f) == 2)
        logs = {c.table: open(os.path.join(c.root, "games", "g0001.txt"), "rb").read()
                for c in fleet.clocks}
    finally:
        fleet.close()
    try:
        assert hall_cmd(h.folder, "round", "2", event="cup").returncode == 0
        csv = hall_cmd(h.folder, "results", "--round", "1", "--csv", event="cup")
        assert csv.returncode == 0, csv.stderr
        import csv as csvmod
        import io
        want = {int(r["table"]): r for r in csvmod.DictReader(io.StringIO(csv.stdout))
                if not r["bye"]}
        assert sorted(want) == [1, 2]
        browser.get(h.url())
        page_until(browser, "return document.getElementById('round').textContent",
                   lambda t: t == "round 2")
        title = browser.execute_script("return [document.querySelector('h1').textContent,"
                                       " document.title]")
        assert title[0].endswith("cup, round 2") and "open round" not in title[0], title
        assert title[1].startswith("cup, round 2"), title
        assert not browser.execute_script("return document.getElementById('past').hidden")
        browser.find_element("css selector", "#past summary").click()
        got = page_until(browser, """
            return Array.prototype.map.call(document.querySelectorAll('#pastrows tr'),
              function (tr) { var td = tr.children;
                return [td[0].textContent, td[2].textContent, td[3].textContent,
                        td[4].textContent, Array.prototype.map.call(
                          td[7].querySelectorAll('a'), function (a) {
                            return [a.textContent, a.getAttribute('href')]; })]; });""",
            lambda g: len(g) == 2)
        assert [g[0] for g in got] == ["1", "2"], got
        for g in got:
            r = want[int(g[0])]
            assert (g[1], g[2]) == (r["left_clock"], r["right_clock"]), (g, r)
            assert g[3] == ("forfeit " + r["forfeit"] if r["forfeit"] else "finished")
            links = dict(g[4])
            assert links["timeline"] == filing.timeline_name(int(g[0]), g[0], 1, "en"), links
            hdr, body = _get(h, h.url() + links["log"])
            assert hdr["Content-Type"] == "text/plain; charset=utf-8"
            assert body == logs[int(g[0])]                 # the clock's own log
            hdr, body = _get(h, h.url() + links["timeline"])
            assert hdr["Content-Type"] == "text/plain; charset=utf-8", dict(hdr)
            assert hdr["Content-Language"] == "en"
        # the German timeline as Chromium shows it: the arrows and the words as written
        de = filing.timeline_name(1, "1", 1, "de")
        hdr, raw = _get(h, h.url() + de)
        assert hdr["Content-Type"] == "text/plain; charset=utf-8" and \
            hdr["Content-Language"] == "de"
        text = raw.decode("utf-8")
        assert any(ch in text for ch in "\u25b6\u25c0"), text[:300]    # ▶ ◀
        browser.get(h.url() + de)
        shown = browser.execute_script("return document.body.innerText")
        assert shown.strip() == text.strip(), (shown[:200], text[:200])
        assert "\u00e2\u20ac" not in shown and "\u00e2\u2013" not in shown   # no mojibake
        # no other path of the hall folder is served
        for bad in ("rounds/0.json", "rounds/1/log-t1-a1-g9.txt", "rounds/x.json",
                    "rounds/1/../../clocks.json", "rounds/%31.json", "results.jsonl"):
            try:
                _get(h, h.url() + bad)
                raise AssertionError("served " + bad)
            except urllib.error.HTTPError as e:
                assert e.code == 404, (bad, e.code)
    finally:
        h.stop()
