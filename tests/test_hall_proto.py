"""The hall's protocol is defined once (issue 35: "One protocol, defined
once"): firmware/hallproto.py, and for the pages hall/page/hallproto.js
generated from it.  One hostile corpus (bench/hall_attacks.py
hostile_messages, hostile_names: Unicode digits, controls, trailing
newlines, surrogates, homoglyphs, bidi controls, oversize, wrong types,
missing fields, another clock's name inside a payload) runs through the
Python side and through the pages' JS in a real headless Chromium, and every
item must get the same verdict: the same kind, the same levels, the same
reason.  Also: the committed and the served JS are a fresh generation; the
clock's own messages pass; the rules that broke the recorder (a
superscript digit, a clock id ending in a newline) are refused."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import hallproto as hp
import hallmsg

from conftest import ROOT
from hallkit import chromium, needs_browser, new_hall, state_body
from test_jsonout import publish  # (one QoS 0 PUBLISH taken apart)
from bench import hall_attacks as A

GEN = os.path.join(ROOT, "tools", "hallproto_js.py")
JS = os.path.join(ROOT, "hall", "page", "hallproto.js")

STATE = state_body(lowbat=False, selftest=None)

CORPUS = A.hostile_messages("cup", 3, 3, STATE)
NAMES = A.hostile_names()
IDS = ["3", "03", "0", "\u00b3", "\uff13", "\u0663", "3\n", "sim003", "sim003\n", "\u0455im003",
       "a" * hp.MAX_ID, "a" * (hp.MAX_ID + 1), "", "a.b_c-d", "a b", str(hp.INT_MAX),
       str(hp.INT_MAX + 1), "9" * hp.MAX_DIGITS, "\ud800"]


def py_verdict(topic, payload):
    m = hp.parse("cup", topic, payload)
    value = m.value if isinstance(m.value, str) else None
    return [m.kind, m.why, m.table, m.game, m.account, m.arg, m.clock, value]


def units(s):
    """s as UTF-16 code units (the WebDriver's JSON takes no lone surrogate)."""
    b = s.encode("utf-16-le", "surrogatepass")
    return [b[i] | b[i + 1] << 8 for i in range(0, len(b), 2)]


STR_JS = "function str(u) { return String.fromCharCode.apply(null, u); }\n"

JS_VERDICTS = STR_JS + """
var out = [], items = arguments[0];
items.forEach(function (it) {
  try {
    var m = HallProto.parse('cup', str(it[0]), new Uint8Array(it[1]));
    out.push([m.kind, m.why, m.table, m.game, m.account, m.arg, m.clock,
              typeof m.value === 'string' ? m.value : null]);
  } catch (e) { out.push(['THREW ' + e]); }
});
return out;
"""


@pytest.fixture(scope="module")
def page():
    profile = tempfile.mkdtemp(prefix="hall-chromium-")
    d = chromium(profile)
    d.get("about:blank")
    with open(JS, encoding="utf-8") as f:
        d.execute_script(f.read() + "\nwindow.HallProto = HallProto;")
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def test_the_pages_file_is_generated_from_the_python_module_committed_and_served(tmp_path):
    """hallproto.js is tools/hallproto_js.py's output, byte for byte, in the
    repository and in the hall's www/ (what the browsers load)."""
    assert subprocess.run([sys.executable, GEN, "--check"], cwd=ROOT, capture_output=True,
                          timeout=60).returncode == 0, "python tools/hallproto_js.py"
    fresh = subprocess.run([sys.executable, GEN, "--stdout"], cwd=ROOT, capture_output=True,
                           timeout=60, check=True, encoding="utf-8").stdout
    with open(JS, encoding="utf-8") as f:
        assert f.read() == fresh
    h = new_hall(tmp_path, tables=2)
    with open(os.path.join(h.www, "hallproto.js"), encoding="utf-8") as f:
        assert f.read() == fresh
    for page in ("index.html", "projector.html"):   # loaded before the model
        with open(os.path.join(h.www, page), encoding="utf-8") as f:
            text = f.read()
        assert text.index('src="hallproto.js"') < text.index('src="model.js"')


@needs_browser
def test_one_hostile_corpus_gets_the_same_verdict_in_python_and_in_the_pages(page):
    """Every (topic, payload) of the corpus: the same kind, reason, table,
    game, account, clock and text in hallproto.py and in hallproto.js (the
    pages' copy) in Chromium."""
    items = [[units(t), list(p)] for t, p in CORPUS]
    got = page.execute_script(JS_VERDICTS, items)
    want = [py_verdict(t, p) for t, p in CORPUS]
    diff = [(t[:80], p[:60], w, g) for (t, p), w, g in zip(CORPUS, want, got) if w != g]
    assert diff == [], diff[:5]
    kinds = [w[0] for w in want]
    # the corpus is hostile, and honest where it should be (derived from the rules)
    assert kinds.count("refused") > 200 and {"state", "heartbeat", "status", "result",
                                             "log", "clear", "empty", "other"} <= set(kinds)


@needs_browser
def test_names_and_ids_by_the_same_rule_in_python_and_in_the_pages(page):
    """The one name rule (code points, controls and bidi controls removed)
    and the id and number rules, item by item, both sides."""
    got = page.execute_script(STR_JS + """
        var out = [];
        arguments[0].forEach(function (u) {
          var n = str(u);
          out.push([HallProto.isName(n), HallProto.cleanName(n)]);
        });
        arguments[1].forEach(function (u) {
          var s = str(u);
          out.push([HallProto.isId(s), HallProto.num(s), HallProto.num(s, 1, HallProto.D.INT_MAX)]);
        });
        return out;""", [units(n) for n in NAMES], [units(s) for s in IDS])
    want = [[hp.is_name(n), hp.clean_name(n)] for n in NAMES] + \
        [[hp.is_id(s), hp.num(s), hp.num(s, 1, hp.INT_MAX)] for s in IDS]
    diff = [(x, w, g) for x, w, g in zip(NAMES + IDS, want, got) if w != g]
    assert diff == [], diff[:5]


def test_the_name_rule():
    """Issue 35: 64 astral letters are 64 code points (the pages counted 128
    UTF-16 units and refused the round); an override or isolate is removed
    (it reversed the opponent's name); a cut never leaves more than NAME_MAX."""
    astral = "\U0001d400" * hp.NAME_MAX
    assert hp.is_name(astral) and hp.clean_name(astral) == astral
    assert hp.clean_name(astral + "x") == astral
    assert hp.clean_name("Anna\u202e Kowalska") == "Anna Kowalska"
    assert hp.clean_name("\u2067x\u2069\n\x00\ud800") == "x"
    assert all(hp.is_name(hp.clean_name(n)) for n in NAMES)
    assert all(len(hp.clean_name(n)) <= hp.NAME_MAX for n in NAMES)
    assert hp.is_name("\u0410nna")        # a look-alike is a name (ids are ASCII)


def test_the_quick_answers_are_the_rules_answers():
    """parse() takes a clock's own JSON (exactly json.dumps of a body of the
    state's fields only) without the text scan, is_text() printable ASCII
    with one strip(), is_id() its characters with one strip(): each gives
    what the rule spelled out gives.  A body the quick path does not take
    (a duplicate key, another spelling, an extra field) gets the full
    rules' verdict, the scan's reason first."""
    def text_rule(v, most):
        return isinstance(v, str) and len(v) <= most and \
            not any(lo <= ord(c) <= hi for c in v for lo, hi in hp.NAME_DROP)
    for v in NAMES + IDS + ["x" * 79, "x" * 80, "x" * 81, "a\x7fb", "~ !", 5, None]:
        for most in (hp.NAME_MAX, hp.MAX_SELFTEST, 3):
            assert hp.is_text(v, most) == text_rule(v, most), (v, most)
        assert hp.is_id(v) == (isinstance(v, str) and 0 < len(v) <= hp.MAX_ID
                               and all(c in hp.ID_CHARS for c in v)), v
    assert hp._PRINTABLE == "".join(chr(c) for c in range(0x20, 0x7F))
    t = "scrabble/cup/3/state/3"
    text = json.dumps(STATE)
    assert hp._plain(text, json.loads(text)) and hp.parse("cup", t, text).kind == "state"
    for bad, why in ((text[:-1] + ', "t_ms": 1.5}', "not JSON of integers"),
                     ('{"t_ms": 1.5, ' + text[1:], "not JSON of integers"),
                     (text[:-1] + ', "x": [[[1]]]}', "nested too deep"),
                     (text[:-1] + ', "x": [[1]]}', None),
                     (json.dumps(dict(STATE, left=dict(STATE["left"], x=5.0))),
                      "not JSON of integers"),
                     (json.dumps(STATE, separators=(",", ":")), None),
                     (json.dumps(dict(STATE, t_ms=5.0)), "not JSON of integers"),
                     (text + " x", "not JSON of integers"), (text + " null", "not JSON")):
        if why is None:              # (JSON of integers, not as the clock writes it)
            assert not hp._plain(bad, json.loads(bad))
        m = hp.parse("cup", t, bad)
        assert (m.kind, m.why) == (("state", None) if why is None else
                                   ("refused", "state: " + why)), bad


def test_the_rules_that_stopped_the_recorder_are_refused():
    """The issue's killers: a topic level that str.isdigit() takes and int()
    refuses (a superscript digit), a clock id ending in a newline (a regex
    `$` matched before it), fullwidth digits as a table, a look-alike id."""
    good = json.dumps(STATE).encode()
    assert hp.parse("cup", "scrabble/cup/3/state/3", good).kind == "state"
    for t in ("scrabble/cup/\u00b3/state/3", "scrabble/cup/3/state/\u00b3",
              "scrabble/cup/\uff13/state/3", "scrabble/cup/3/result/\u00b9/3"):
        assert hp.parse("cup", t, good).kind == "refused", t
    for cid in ("sim003\n", "\u0455im003", "sim\u0663"):
        m = hp.parse("cup", "scrabble/cup/3/state/3", json.dumps(dict(STATE, clock=cid)).encode())
        assert m.kind == "refused" and m.why == "state: clock is not a clock id", cid
    assert hp.num("3\n") is None and hp.num("\u00b3") is None and hp.num("3") == 3
    assert not hp.is_id("sim003\n") and hp.is_id("sim003")


def test_every_item_is_parsed_without_an_exception():
    """parse() never raises, whatever the topic or payload (also str
    payloads with lone surrogates: no UTF-8)."""
    for t, p in CORPUS:
        hp.parse("cup", t, p)
        hp.parse("cup", t, p.decode("utf-8", "surrogateescape"))
    assert hp.parse("cup", "scrabble/cup/3/status/3", "on\ud800").kind == "refused"


class _Src:
    """The clock as hallmsg reads it (firmware/source.py's methods it needs)."""
    def __init__(self):
        self.t = 0

    def table(self):
        return 0

    def tabled(self, t):
        self.t = t

    def state(self):
        return 3      # clockcore.OVER

    def report(self, now):
        d = json.loads(json.dumps(STATE))
        for k in ("clock", "table", "game", "lowbat", "selftest"):
            d.pop(k)
        d["over"] = True
        return d

    def emit(self, now, o):
        _put(self.report(now), o)

    def selftest(self):
        return None

    def game(self):
        return 7

    def low(self):
        return False

    def pending(self):
        return False


def _put(d, o):
    """Dict d into a report writer (report.emit's protocol)."""
    for k, v in d.items():
        if isinstance(v, dict):
            o.open(k)
            _put(v, o)
            o.close()
        else:
            o.field(k, v)


def test_the_cores_own_report_passes_the_protocol_with_its_lateness_account():
    """The state body the clock publishes is firmware/report.py's, the one
    replay --json prints: with SPEC v5's lateness_ms on each side (a late
    player's account) it passes the hall's check, and a wrong lateness_ms
    is refused (what hallproto does not know it cannot store)."""
    import clockcore
    import profiles
    import report
    c = clockcore.Clock(profiles.make_rules("sdev", {}), 0, lambda a, b: a - b,
                        lambda t, d: t + d)
    c.start_late(0, 1000)
    c.pause(91000)                       # the late player arrived after 1:30
    d = json.loads(json.dumps(report.state(c, 91000)))
    assert d["left"]["lateness_ms"] == 90000
    d.update(clock="sim003", table=3, game=1, lowbat=False)
    assert hp.check_state(d, 3) is None
    d["left"]["lateness_ms"] = -1
    assert hp.check_state(d, 3) == "left.lateness_ms is not a number 0..%d" % hp.INT_MAX


def test_the_clocks_own_messages_are_built_by_the_protocol_and_pass_it():
    """firmware/hallmsg.py builds its topics with hallproto (the hall's
    readers' grammar) and its state and result bodies pass the readers'
    checks, as parse() takes them."""
    import clockcore
    src = _Src()
    src.state = lambda: clockcore.OVER
    cfg = {"table": 12, "event": "cup", "user": "12"}
    msgs = hallmsg.Messages(cfg, src, "e6614c3113462e2f", 0)
    body = json.dumps(msgs.fields(0)).encode()
    assert msgs.topic("state") == hp.topic("cup", 12, "state", "12")
    m = hp.parse("cup", msgs.topic("state"), body)
    assert (m.kind, m.table, m.account, m.clock) == ("state", 12, "12", "e6614c3113462e2f")
    r = hp.parse("cup", hp.topic("cup", 12, "result", "12", 7), body)
    assert r.kind == "result" and r.game == 7, r.why
    # the state's PUBLISH, written in place (hallmsg.report): the same fields
    msgs.report(0, True)
    topic, payload, retain = publish(msgs.packet())
    assert retain and topic == msgs.topic("state")
    m = hp.parse("cup", topic, payload)
    assert m.why is None and json.loads(payload) == dict(msgs.fields(0), selftest=None)
    assert msgs.confirm == hp.confirm_topic("cup", "12")
    assert hallmsg.LOG_MAX + 64 < hp.MAX_LOG     # a cut log and its last line fit the limit
