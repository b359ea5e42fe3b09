"""The projector view (issue 21; hall/page/projector.*, docs/hall.md
"The projector") in headless Chromium at 1920x1080: 40 tables readable at
once, 100 turning page by themselves, a stable order, the alerts, the round
progress line; screenshots at 20, 40 and 100 tables.

The page is the real one (projector.html/.js/.css with model.js, the checks
every clock message goes through); its messages are handed to its own
onProjectorMessage() as the MQTT client would (tests/test_hall_page.py and
the hall tests drive the pages through the real broker)."""
import json
import os
import shutil

import pytest

from hall.paths import MQTT_JS, PAGE_DIR
from bench.browser import browser_tools, headless_chromium

pytestmark = pytest.mark.skipif(
    None in browser_tools() or not os.path.isfile(MQTT_JS),
    reason="chromium / chromium-driver or the page's mqtt.js missing (make deps hall-page)")

W, HGT = 1920, 1080
EV = "cup"


def state(table, game=1, running="left", left=(1500000, 0, 0), right=(1620000, 0, 0),
          over=False, paused=False, forfeit=None, lowbat=False, clock=None):
    def side(v, name):
        rem, ot, pen = v
        return {"remaining_ms": rem, "overtime_ms": ot, "penalty": pen, "flag": rem == 0,
                "forfeit": forfeit == name}
    s = {"profile": "sdev", "t_ms": 600000, "running": None if over else running,
         "paused": paused, "over": over, "challenge_ms": 0, "late": None,
         "left": side(left, "left"), "right": side(right, "right"),
         "clock": clock or "e6614c31%04d" % table, "table": table, "game": game}
    if lowbat:
        s["lowbat"] = True
    return s


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    d = tmp_path_factory.mktemp("projector")
    www = d / "www"
    www.mkdir()
    for n in ("projector.html", "projector.js", "projector.css", "hallproto.js", "model.js", "isolate.js"):
        shutil.copy(os.path.join(PAGE_DIR, n), str(www / n))
    shutil.copy(MQTT_JS, str(www / "mqtt.min.js"))
    (www / "config.js").write_text("var HALL = %s;\n" % json.dumps({"event": EV}))
    drv = headless_chromium(str(d / "profile"))
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": W, "height": HGT, "deviceScaleFactor": 1, "mobile": False})
    drv.page_url = "file://%s/projector.html" % www
    yield drv
    drv.quit()


def seat(t, rnd=3, left=None, right=None, games=None):
    """A table's round message (hall/tournament.py messages())."""
    return ["scrabble/%s/round/%d" % (EV, t), json.dumps({
        "round": rnd, "left": left or "Player %d-left, Annemarie" % t,
        "right": right or "Player %d-right, Wojciech" % t,
        "games": [[str(t), "e6614c31%04d" % t, 1]] if games is None else games})]


def load(drv, n_tables, seating=True, rnd=3):
    drv.get(drv.page_url)
    msgs = []
    if seating:
        msgs.append(["scrabble/%s/round" % EV, json.dumps(
            {"round": rnd, "tables": list(range(1, n_tables + 1)), "byes": []})])
        msgs += [seat(t, rnd) for t in range(1, n_tables + 1)]
    for t in range(1, n_tables + 1):
        msgs.append(["scrabble/%s/%d/state/%d" % (EV, t, t), json.dumps(state(t))])
        msgs.append(["scrabble/%s/%d/status/%d" % (EV, t, t), "online"])
    feed(drv, msgs)


def feed(drv, msgs):
    drv.execute_script("arguments[0].forEach(function (m) { onProjectorMessage(m[0], m[1]); });"
                       "render();", msgs)


def cards(drv):
    """Every card on screen: its rect, its text elements' rects and sizes."""
    return drv.execute_script("""
        var out = [];
        document.querySelectorAll('#grid .card').forEach(function (c) {
          var r = c.getBoundingClientRect(), kids = [];
          c.querySelectorAll('span').forEach(function (s) {
            var k = s.getBoundingClientRect(), p = s.parentNode.getBoundingClientRect();
            kids.push({cls: s.className, text: s.textContent, l: k.left, r: k.right, t: k.top,
                       b: k.bottom, sw: s.scrollWidth, cw: s.clientWidth,
                       pl: p.left, pr: p.right, pt: p.top, pb: p.bottom,
                       fs: parseFloat(getComputedStyle(s).fontSize)});
          });
          out.push({num: c.querySelector('.num').textContent, cls: c.className,
                    state: c.querySelector('.state').textContent,
                    l: r.left, r: r.right, t: r.top, b: r.bottom, kids: kids});
        });
        return out;""")


def shot(drv, tmp_path, name):
    path = str(tmp_path / name)
    assert drv.save_screenshot(path)
    assert os.path.getsize(path) > 10000
    return path


def test_forty_tables_fit_readable_and_nothing_overflows(browser, tmp_path):
    """Issue 21: at 1920x1080, 40 tables at once: every card inside the
    viewport, no text outside its card, the times never clipped, large
    enough to read from the back of the hall; the round and the progress."""
    load(browser, 40)
    # the widest a card shows: overtime with 3-digit penalty points both sides
    feed(browser, [["scrabble/cup/40/state/40", json.dumps(
        state(40, left=(0, 5999000, 500), right=(0, 5999000, 500)))]])
    cs = cards(browser)
    assert [c["num"] for c in cs] == [str(t) for t in range(1, 41)]
    for c in cs:
        assert 0 <= c["l"] and c["r"] <= W and 0 <= c["t"] and c["b"] <= HGT, c
        for k in c["kids"]:
            assert c["l"] - 0.5 <= k["l"] and k["r"] <= c["r"] + 0.5, (c["num"], k)
            assert c["t"] - 0.5 <= k["t"] and k["b"] <= c["b"] + 0.5, (c["num"], k)
            # inside its line too (a line clips what passes its edge)
            assert k["pl"] - 0.5 <= k["l"] and k["r"] <= k["pr"] + 0.5, (c["num"], k)
            assert k["pt"] - 0.5 <= k["t"] and k["b"] <= k["pb"] + 0.5, (c["num"], k)
            if k["cls"] not in ("nl", "nr"):     # names may end in "..."; nothing else
                assert k["sw"] <= k["cw"] + 1, (c["num"], k)        # not clipped
        times = [k for k in c["kids"] if k["cls"] == "t"]
        assert [k["text"] for k in times] == (["25:00", "27:00"] if c["num"] != "40"
                                              else ["-99:59", "-99:59"])
        assert all(k["fs"] >= 30 for k in times), times             # px at 1920x1080
        names = [k for k in c["kids"] if k["cls"] in ("nl", "nr")]
        assert all(k["fs"] >= 16 for k in names) and names[0]["text"].startswith("Player")
    pens = [k["text"] for k in cs[39]["kids"] if "pen" in k["cls"]]
    assert pens == ["\u2212500 pts", "\u2212500 pts"]     # penalty with its unit
    assert browser.find_element("id", "round").text == "3"
    assert browser.find_element("id", "progress").text == "0 of 40 finished"
    shot(browser, tmp_path, "projector-40.png")


def test_twenty_tables_get_larger_cards(browser, tmp_path):
    load(browser, 20)
    cs = cards(browser)
    assert len(cs) == 20
    big = min(c["b"] - c["t"] for c in cs)
    load(browser, 40)
    assert big > min(c["b"] - c["t"] for c in cards(browser)) * 1.2
    load(browser, 20)
    shot(browser, tmp_path, "projector-20.png")


def test_a_hundred_tables_turn_page_by_themselves_in_a_stable_order(browser, tmp_path):
    """Issue 21: 100 tables page by themselves (40 a page, every PAGE_MS);
    nothing jumps: a table's card keeps its place when times and states
    change."""
    load(browser, 100)
    first = cards(browser)
    assert [c["num"] for c in first] == [str(t) for t in range(1, 41)]
    assert "page 1 of 3 (tables 1\u201340)" == browser.find_element("id", "page").text
    where = {c["num"]: (c["l"], c["t"]) for c in first}
    # table 7 into overtime, table 3 finished, 12 paused: no card moves
    feed(browser, [["scrabble/cup/7/state/7", json.dumps(state(7, left=(0, 65000, 20)))],
                   ["scrabble/cup/3/state/3", json.dumps(state(3, over=True))],
                   ["scrabble/cup/12/state/12", json.dumps(state(12, paused=True, running=None))]])
    again = cards(browser)
    assert {c["num"]: (c["l"], c["t"]) for c in again} == where
    shot(browser, tmp_path, "projector-100.png")
    browser.execute_script("P.pageAt = performance.now() - P.PAGE_MS; render();")
    assert [c["num"] for c in cards(browser)] == [str(t) for t in range(41, 81)]
    browser.execute_script("P.pageAt = performance.now() - P.PAGE_MS; render();")
    assert [c["num"] for c in cards(browser)] == [str(t) for t in range(81, 101)]
    browser.execute_script("P.pageAt = performance.now() - P.PAGE_MS; render();")
    assert [c["num"] for c in cards(browser)][0] == "1"
    assert browser.execute_script("return P.PAGE_MS") == 10000


def test_alerts_stand_out(browser):
    """Issue 21: overtime, a forfeit, a clock offline for more than 30 s, a
    low battery, a game still running when most have finished: each one's
    card says it and changes colour; the header lists them."""
    load(browser, 10)
    msgs = [["scrabble/cup/%d/state/%d" % (t, t), json.dumps(state(t, over=True))]
            for t in range(1, 7)]                              # 6 of 10 finished: most
    msgs += [["scrabble/cup/7/state/7", json.dumps(state(7, left=(0, 61000, 20)))],
             ["scrabble/cup/8/state/8", json.dumps(
                 state(8, over=True, right=(0, 301000, 50), forfeit="right"))],
             ["scrabble/cup/9/state/9", json.dumps(state(9, lowbat=True))],
             ["scrabble/cup/10/status/10", "offline"]]
    feed(browser, msgs)
    browser.execute_script("P.cards['10/10'].offAt = performance.now() - 31000; render();")
    by = {c["num"]: c for c in cards(browser)}
    assert "a-overtime" in by["7"]["cls"] and by["7"]["state"] == "overtime"
    assert "a-forfeit" in by["8"]["cls"] and by["8"]["state"] == "forfeit right"
    assert "a-battery" in by["9"]["cls"]
    assert "a-offline" in by["10"]["cls"] and by["10"]["state"].startswith("offline 3")
    assert "a-late" in by["9"]["cls"] and "still playing" in json.dumps(by["9"])  \
        or "a-late" in by["7"]["cls"]
    assert all("a-" not in by[str(t)]["cls"] for t in range(1, 7))
    assert browser.find_element("id", "progress").text == "7 of 10 finished"
    head = browser.find_element("id", "alerts").text
    # issue 37: each alert names its table ("⚠ 3 overtime" read as three tables)
    for words in ("table 7: overtime", "table 8: forfeit right", "table 10: offline",
                  "table 9: battery low"):
        assert words in head, head
    # offline for less than 30 s: no alert yet
    browser.execute_script("P.cards['10/10'].offAt = performance.now() - 5000; render();")
    assert "a-offline" not in {c["num"]: c for c in cards(browser)}["10"]["cls"]


def test_a_seated_table_without_a_clock_shows_and_bad_round_messages_are_refused(browser):
    load(browser, 0, seating=False)
    feed(browser, [["scrabble/cup/round", json.dumps({"round": 2, "tables": [1, 2]})],
                   seat(1, 2, "A", "B"), seat(2, 2, "C", "D"),
                   ["scrabble/cup/1/state/1", json.dumps(state(1))]])
    cs = cards(browser)
    assert [(c["num"], c["state"]) for c in cs] == [("1", "running"), ("2", "no clock")]
    before = browser.execute_script("return P.warnings")
    for topic, bad in (("round", '{"round": 0}'), ("round", '{"round": 2, "tables": ["x"]}'),
                       ("round", '{"round": 2, "tables": {"1": ["a", "b"]}}'),
                       ("round", "[]"), ("round", "not json"),
                       ("round", json.dumps({"round": 2, "tables": [1], "byes": ["a" * 65]})),
                       ("round/1", json.dumps({"round": 2, "left": "a" * 65, "right": "b",
                                               "games": []})),
                       ("round/1", json.dumps({"round": 2, "left": "a", "right": "b",
                                               "games": [["1", "<b>", 1]]})),
                       ("round/x", json.dumps({"round": 2, "left": "a", "right": "b",
                                               "games": []})),
                       ("round/1", "x" * 5000)):
        feed(browser, [["scrabble/cup/" + topic, bad]])
    assert browser.execute_script("return P.warnings") == before + 10
    assert browser.find_element("id", "round").text == "2"
    # a name is text, never markup
    feed(browser, [seat(1, 2, "<img src=x onerror=alert(1)>", "B")])
    assert cards(browser)[0]["kids"][2]["text"] == "<img src=x onerror=alert(1)>"


def test_a_new_round_hides_the_last_rounds_games_and_counts_only_its_seating(browser, tmp_path):
    """Issue 27: after a new round's messages, a clock whose game is of the
    earlier round (not in its table's list of this round's games) shows no
    time and no penalty, only "waiting" under the new names, until its
    first press of the round; a clock at a table outside the seating is no
    card and no table of "M of T"; the byes are cards and in the header."""
    load(browser, 6, rnd=1)
    feed(browser, [["scrabble/cup/%d/state/%d" % (t, t), json.dumps(
        state(t, over=True, left=(0, 61000, 20)))] for t in (1, 2, 3, 30)])
    assert browser.find_element("id", "progress").text == "3 of 6 finished"
    assert cards(browser)[0]["kids"][3]["text"] == "\u221220 pts"
    shot(browser, tmp_path, "round1.png")
    # round 2: tables 1-5 seated (table 6's clock is unseated now), a bye
    feed(browser, [["scrabble/cup/round", json.dumps(
        {"round": 2, "tables": [1, 2, 3, 4, 5], "byes": ["Weiß, Jürgen"]})]]
         + [seat(t, 2, "R2 left %d" % t, "R2 right %d" % t, games=[]) for t in range(1, 6)])
    cs = cards(browser)
    assert [c["num"] for c in cs] == ["1", "2", "3", "4", "5", "bye"]
    for c in cs[:5]:
        assert c["state"] == "waiting"
        texts = {k["cls"]: k["text"] for k in c["kids"]}
        assert texts["nl"].startswith("R2 left") and texts["t"] == ""
        assert texts["pen pl"] == texts["pen pr"] == ""
    assert [k["text"] for k in cs[5]["kids"] if k["cls"] == "nl"] == ["Weiß, Jürgen"]
    assert browser.find_element("id", "progress").text == "0 of 5 finished"
    assert browser.find_element("id", "byes").text == "bye: Weiß, Jürgen"
    shot(browser, tmp_path, "round2-waiting.png")
    # table 2's first press of round 2 (a new game): the recorder lists it
    feed(browser, [seat(2, 2, "R2 left 2", "R2 right 2", games=[["2", "e6614c310002", 2]]),
                   ["scrabble/cup/2/state/2", json.dumps(state(2, game=2))]])
    by = {c["num"]: c for c in cards(browser)}
    assert by["2"]["state"] == "running" and by["1"]["state"] == "waiting"
    assert [k["text"] for k in by["2"]["kids"] if k["cls"] == "t"] == ["25:00", "27:00"]
    # an unseated table's game of this round is a card, but not one of the 5
    feed(browser, [seat(30, 2, "", "", games=[["30", "e6614c310030", 5]]),
                   ["scrabble/cup/30/state/30", json.dumps(state(30, game=5, over=True))]])
    assert [c["num"] for c in cards(browser)][-2:] == ["30", "bye"]
    assert browser.find_element("id", "progress").text == "0 of 5 finished"
