"""Names are data, not markup (issue 35, "Names are data, not markup or
formulas"; docs/hall.md "The director's page"): end to end through the real
hall (Mosquitto, the recorder, the pages' HTTPS server), the director's
commands as typed (`hall pairings`), the clocks' states published on their
own accounts, and headless Chromium.

Every name is drawn isolated (<bdi>, `unicode-bidi: isolate`): a
right-to-left override (U+202E) in one player's name once reversed the
opponent's name on the director's page and on the desk (and the other byes
in the pages' headers); a right-to-left name followed by an opponent whose
name begins with a digit pulled the digit to its left.  Checked on what
Chromium lays out: the neighbour's letters stand left to right, after the
first name (whether the hall also removed the override from the name, the
protocol's name rule, or not: the isolation alone must hold)."""
import json
import os
import shutil
import tempfile

import pytest

from hallkit import chromium, hall_cmd, needs_browser, running_hall, until
from bench import hall_attacks as A
from hall import tournament as T
from test_projector import state

pytestmark = needs_browser

RLO = "\u202e"
EVIL, NEIGHBOUR = RLO + "Eve Evil", "Jan Kowalski"       # table 1
HEBREW, DIGIT = "\u05e9\u05e8\u05d4 \u05db\u05d4\u05df", "2nd Kowalski"   # table 2
BYE_EVIL, BYE_NEXT = RLO + "Byeone Bob", "Byetwo Tom"
BYE_HEBREW, BYE_DIGIT = "\u05d3\u05e0\u05d4 \u05dc\u05d5\u05d9", "3rd Nowak"
DIV_T = ("%s 1500 2\n%s 1400 1\n%s 1300 4\n%s 1200 3\n%s 1100 0\n%s 1000 0\n"
         "%s 900 0\n%s 800 0\n"
         % (EVIL, NEIGHBOUR, HEBREW, DIGIT, BYE_EVIL, BYE_NEXT, BYE_HEBREW, BYE_DIGIT))

# x of each letter of `needle` where Chromium drew it inside `root` (the
# text nodes under root, whatever elements hold them), or null if absent
BOXES_JS = """
function boxes(root, needle) {
  var w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), n, text = '', nodes = [];
  while ((n = w.nextNode())) { nodes.push([n, text.length]); text += n.data; }
  var at = text.indexOf(needle);
  if (at < 0) {   // the name as shown once the hall removed its override (issue 35)
    needle = needle.replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
    at = text.indexOf(needle);
  }
  if (at < 0) return null;
  var out = [];
  for (var i = at; i < at + needle.length; i++) {
    var k = nodes.length - 1;
    while (nodes[k][1] > i) k--;
    if (/\\s/.test(text[i])) continue;
    var r = document.createRange();
    r.setStart(nodes[k][0], i - nodes[k][1]);
    r.setEnd(nodes[k][0], i - nodes[k][1] + 1);
    var b = r.getBoundingClientRect();
    out.push([b.left, b.right]);
  }
  return out;
}
var root = document.querySelector(arguments[0]);
if (!root) return null;
return arguments[1].map(function (s) { return boxes(root, s); });
"""


def laid_out(drv, selector, first, second):
    """The letters' boxes of two names inside the element `selector`."""
    return until(lambda: drv.execute_script(BOXES_JS, selector, [first, second]),
                 lambda v: v is not None and None not in v, seconds=20)


def assert_left_to_right(first, second, got):
    """`second` (a Latin name) reads left to right and stands wholly right of
    `first`, as the text has them: no letter of it reordered by `first`."""
    a, b = got
    assert a is not None and b is not None, got
    mids = [(x0 + x1) / 2 for x0, x1 in b]
    assert mids == sorted(mids) and len(set(mids)) == len(mids), \
        "%r is drawn reversed after %r: %r" % (second, first, mids)
    assert max(x1 for _x0, x1 in a) <= min(x0 for x0, _x1 in b) + 0.5, \
        "%r is not wholly right of %r: %r" % (second, first, got)


def publish_states(h, tables):
    """Each table's clock publishes its state on its own account (retained,
    as firmware/net.py does)."""
    pw = h.passwords()
    for t in tables:
        c = A._client(h, str(t), pw[t])
        try:
            A._publish(c, "scrabble/%s/%d/state/%d" % (h.event, t, t),
                       json.dumps(state(t, game=1)), retain=True)
        finally:
            A._close(c)


@pytest.fixture
def hall_with_names(tmp_path):
    with running_hall(tmp_path, tables=4) as h:
        path = tmp_path / "div.t"
        path.write_text(DIV_T, encoding="utf-8")
        proc = hall_cmd(h.folder, "pairings", "--round", "1", str(path), event=h.event,
                        port=h.port)
        assert proc.returncode == 0, proc.stderr
        publish_states(h, (1, 2))
        yield h


@pytest.fixture
def browser():
    profile = tempfile.mkdtemp(prefix="names-chromium-")
    d = chromium(profile)
    d.set_window_size(1920, 1080)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def test_no_name_reorders_its_neighbour_on_the_directors_page(hall_with_names, browser):
    """Issue 35: the "Players (left – right)" cell and the header's byes
    (hall.js through isolate.js): the opponent of a name with an override
    reads left to right, so does the bye after one, and the opponent of a
    Hebrew name keeps its leading digit."""
    h = hall_with_names
    browser.get(h.url())
    assert_left_to_right(EVIL, NEIGHBOUR, laid_out(browser, "#t-1-1 td.players", EVIL,
                                                   NEIGHBOUR))
    assert_left_to_right(HEBREW, DIGIT, laid_out(browser, "#t-2-2 td.players", HEBREW, DIGIT))
    assert_left_to_right(BYE_EVIL, BYE_NEXT, laid_out(browser, "#byes", BYE_EVIL, BYE_NEXT))
    assert_left_to_right(BYE_HEBREW, BYE_DIGIT, laid_out(browser, "#byes", BYE_HEBREW,
                                                         BYE_DIGIT))


def test_no_name_reorders_its_neighbour_on_the_projector(hall_with_names, browser):
    """Issue 35: the projector's header lists the byes; each card's names."""
    h = hall_with_names
    browser.get(h.url() + "projector.html")
    assert_left_to_right(BYE_EVIL, BYE_NEXT, laid_out(browser, "#byes", BYE_EVIL, BYE_NEXT))
    assert_left_to_right(BYE_HEBREW, BYE_DIGIT, laid_out(browser, "#byes", BYE_HEBREW,
                                                         BYE_DIGIT))
    got = until(lambda: browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#grid .card .nr'),"
        " function (e) { return e.textContent; });"), lambda v: NEIGHBOUR in v, seconds=20)
    assert NEIGHBOUR in got
    style = browser.execute_script(
        "return ['.nl', '.nr'].map(function (c) { return getComputedStyle("
        "document.querySelector('#grid .card ' + c)).unicodeBidi; });")
    assert style == ["isolate", "isolate"]


def test_no_name_reorders_its_neighbour_on_the_desk(hall_with_names, browser):
    """Issue 35: the results desk's lines name both players of a table
    (`round 1, table 1 (A – B): no result ...`): each name a <bdi>."""
    from hall import desk as D
    d = D.Desk(hall_with_names.folder, 0).start()
    try:
        browser.get(d.url())
        until(lambda: browser.find_elements("css selector", "#missing li"), bool, seconds=20)
        browser.execute_script(
            "document.querySelectorAll('#missing li').forEach(function (li, i) {"
            " li.id = 'm' + i; });")
        texts = browser.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#missing li'),"
            " function (e) { return e.textContent; });")
        i1 = [i for i, t in enumerate(texts) if NEIGHBOUR in t][0]
        i2 = [i for i, t in enumerate(texts) if DIGIT in t][0]
        assert_left_to_right(EVIL, NEIGHBOUR, laid_out(browser, "#m%d" % i1, EVIL, NEIGHBOUR))
        assert_left_to_right(HEBREW, DIGIT, laid_out(browser, "#m%d" % i2, HEBREW, DIGIT))
    finally:
        d.stop()


ASTRAL = "\U0001d400"     # MATHEMATICAL BOLD CAPITAL A: one code point, two UTF-16 units


def test_a_bye_of_64_astral_letters_reaches_both_pages(tmp_path, browser):
    """Issue 35: a bye name of 64 astral-plane letters passed `hall
    pairings` (64 code points) and both pages refused the whole round (128
    UTF-16 units against their 64): the projector showed round `?`.  One
    length rule for names everywhere (firmware/hallproto.py is_name, the
    pages' hallproto.js): the round as loaded reaches both pages, the bye's
    name whole."""
    name = ASTRAL * 64
    with running_hall(tmp_path, tables=4) as h:
        path = tmp_path / "div.t"
        path.write_text("Alpha A 1500 2\nBeta B 1400 1\n%s 1300 0\n" % name, encoding="utf-8")
        proc = hall_cmd(h.folder, "pairings", "--round", "1", str(path), event=h.event,
                        port=h.port)
        assert proc.returncode == 0, proc.stderr
        stored = T.load_seating(h.folder, 1).byes
        assert [b for b, _no in stored] == [name]
        browser.get(h.url() + "projector.html")
        got = until(lambda: browser.execute_script(
            "return [document.getElementById('round').textContent,"
            " document.getElementById('byes').textContent];"),
            lambda v: v[0] == "1" and name in v[1], seconds=20)
        assert got == ["1", "bye: " + name]
        browser.get(h.url())
        got = until(lambda: browser.execute_script(
            "return [document.getElementById('round').textContent,"
            " document.getElementById('byes').textContent];"),
            lambda v: v[0] == "round 1" and name in v[1], seconds=20)
        assert got == ["round 1", "bye: " + name]
