"""The docs stay true to the code.

* docs/screens/*.svg are what `make screens` makes now (regenerated into a
  temporary folder and compared byte for byte);
* every test cited as `tests/file.py::name` exists;
* every command quoted in README.md and docs/*.md (`make ...`,
  `python -m host_sim ...`, `python -m hall ...`) is known: the make target
  exists, the command and its options exist, and replay commands on real
  files run;
* the German and Polish quick-reference cards cover every section and every
  screen of the English one, use the regulations' terms and contain no
  English left over;
* the behaviour the cards and docs/rules.md state where the rules are silent
  (the "claims") is what the device app does.
"""
import ast
import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

import clockcore as cc
import lang
import profiles
import screens
import hd44780
import view
from conftest import ROOT

DOCS = os.path.join(ROOT, "docs")
SCREENS = os.path.join(DOCS, "screens")

MIN = 60000


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def doc_files():
    files = sorted(glob.glob(os.path.join(DOCS, "*.md")))
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        files.insert(0, readme)
    return files


# -- the pictures ------------------------------------------------------------------

def test_screens_up_to_date(tmp_path):
    """`make screens` output is committed as generated."""
    out = tmp_path / "screens"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "screens.py"),
                           "--out", str(out), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    made = sorted(os.listdir(out))
    have = sorted(f for f in os.listdir(SCREENS) if f.endswith(".svg"))
    assert made == have, "run `make screens` (files differ)"
    stale = [f for f in made
             if (out / f).read_bytes() != open(os.path.join(SCREENS, f), "rb").read()]
    assert stale == [], "run `make screens`: out of date: %s" % ", ".join(stale)


def test_screen_pictures_show_the_emulators_text():
    """Each picture carries the emulator's rows as its description, and the
    words the cards quote are really on those screens."""
    for lg in screens.LANGS:
        desc = {}
        for path in glob.glob(os.path.join(SCREENS, lg + "_*.svg")):
            m = re.search(r"<desc>(.*)</desc>", read(path))
            assert m, path
            desc[os.path.basename(path)[3:-4]] = m.group(1)
        w = {k: lang.text(lg, k) for k in ("READY", "PAUSE", "END", "CHAL", "LOST", "FLAG")}
        assert w["READY"] in desc["ready"]
        assert w["CHAL"] + " 17" in desc["running"]
        assert w["PAUSE"] in desc["paused"]
        assert "-01:23" in desc["overtime"] and lang.text(lg, "PEN") + "20" in desc["overtime"]
        assert w["END"] in desc["over"]
        # issue 37: LOST names the side that lost (the scene: right forfeits),
        # and READY says who presses to start; as the LCD shows them
        shown = {k: view.to_text(lang.word(lg, k)) for k in ("LOST_R", "READY_WHO")}
        assert "-05:01" in desc["forfeit"] and shown["LOST_R"] in desc["forfeit"]
        assert desc["ready"].rstrip().endswith(shown["READY_WHO"])
        assert w["FLAG"] in desc["flag"] and w["FLAG"] in desc["flag_on"]
        assert lang.word(lg, "RESTORED").decode("latin-1") in desc["restored"]


# -- cited tests ---------------------------------------------------------------------

CITE = re.compile(r"(tests/[\w/]+\.py)::(\w+)")


def _functions(path):
    tree = ast.parse(read(path))
    return {n.name for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_every_cited_test_exists():
    cited = []
    for doc in doc_files():
        for m in CITE.finditer(read(doc)):
            cited.append((os.path.basename(doc), m.group(1), m.group(2)))
    assert len(cited) > 40
    missing = []
    cache = {}
    for doc, path, name in cited:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            missing.append("%s: %s (no such file)" % (doc, path))
            continue
        if full not in cache:
            cache[full] = _functions(full)
        if name not in cache[full]:
            missing.append("%s: %s::%s" % (doc, path, name))
    assert missing == []


def test_rules_table_has_every_spec_need_with_a_test():
    """SPEC §2 has 18 needs; each row of the table names its clause and at
    least one test."""
    text = read(os.path.join(DOCS, "rules.md"))
    rows = [l for l in text.splitlines() if re.match(r"\| \d+ \|", l)]
    assert [int(l.split("|")[1]) for l in rows] == list(range(1, 19))
    for row in rows:
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert len(cells) == 5, row
        assert re.search(r"TSO|PFS|Komorów|Kurnik|004_", cells[2]), row
        assert CITE.search(cells[4]), row
    decisions = text.split("## Decisions where the rules are silent or ambiguous")[1]
    for topic in ("Started minute", "forfeit keeps the formula", "End of game",
                  "acts at its press, both ways", "ready or paused", "challenge window",
                  "After a flag", "Display rounding", "99:59", "waiting player",
                  # SPEC v3 §4 Gestures, Buttons
                  "a gesture undoes its own keys", "asks before it changes the game",
                  "the first one counts"):
        assert topic.lower() in decisions.lower(), topic


def test_architecture_names_every_module_board_and_tool():
    text = read(os.path.join(DOCS, "architecture.md"))
    names = [os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "firmware", "*.py"))]
    names += [os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "boards", "*.py"))]
    names += [os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "tools", "*.py"))]
    names += [os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "host_sim", "fakehw", "*.py"))]
    assert [n for n in names if "`%s`" % n not in text] == []


# -- quoted commands -------------------------------------------------------------------

PACKAGES = ("python -m host_sim", "python -m hall")
FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
SPAN = re.compile(r"`([^`\n]+)`")


def quoted_commands():
    """(doc, command) for every `make ...` / `python -m host_sim ...` /
    `python -m hall ...` quoted in a code block or an inline code span."""
    out = []
    for doc in doc_files():
        text = read(doc)
        cands = []
        for block in FENCE.findall(text):
            cands.extend(block.splitlines())
        cands.extend(SPAN.findall(FENCE.sub("", text)))
        for c in cands:
            c = c.split("#", 1)[0].strip()
            for venv in (".venv/bin/python ", "$(PY) "):
                if c.startswith((venv + "-m host_sim", venv + "-m hall")):
                    c = "python " + c[len(venv):]
            if c.startswith("make ") or c == "make" or c.startswith(PACKAGES):
                out.append((os.path.basename(doc), c))
    return out


def make_targets():
    text = read(os.path.join(ROOT, "Makefile"))
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.M))


def test_docs_quote_commands():
    cmds = quoted_commands()
    assert any(c.startswith("make screens") for _, c in cmds)
    assert any(c.startswith("python -m host_sim replay") for _, c in cmds)


def test_quoted_make_targets_exist():
    targets = make_targets()
    bad = []
    for doc, cmd in quoted_commands():
        if not cmd.startswith("make"):
            continue
        words = [w for w in shlex.split(cmd)[1:] if "=" not in w]
        for w in words or ["(default)"]:
            if w != "(default)" and w not in targets:
                bad.append("%s: %s" % (doc, cmd))
    assert bad == []


def _python_m(package, args, timeout=120):
    return subprocess.run([sys.executable, "-m", package] + args, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("doc, cmd", [c for c in quoted_commands()
                                      if c[1].startswith(PACKAGES)])
def test_quoted_python_m_commands_run(doc, cmd):
    """The simulator's commands (python -m host_sim SUB, each SUB with its
    own options) and the hall's (python -m hall ACTION: one set of options)."""
    words = shlex.split(cmd)
    package, args = words[2], words[3:]
    sub = args[0] if args and not args[0].startswith("-") else None
    helped = _python_m(package, ([sub] if sub and package == "host_sim" else []) + ["--help"])
    assert helped.returncode == 0, helped.stderr
    for opt in (a.split("=")[0] for a in args if a.startswith("--")):
        assert opt in helped.stdout, "%s: %s: unknown option %s" % (doc, cmd, opt)
    if sub == "replay" and len(args) > 1 and os.path.exists(os.path.join(ROOT, args[1])):
        run = _python_m(package, args)
        assert run.returncode == 0 and run.stdout.strip(), run.stderr
    elif sub is not None:
        assert sub in _python_m(package, ["--help"]).stdout, "%s: %s" % (doc, cmd)


# -- the cards -------------------------------------------------------------------------

# Every language of firmware/lang.py has its card; all but English are translations.
TRANSLATIONS = [lg for lg in lang.LANGS if lg != "en"]

IMG = re.compile(r"!\[[^\]]*\]\(screens/(\w\w)_(\w+)\.svg\)")


def card(lg):
    return read(os.path.join(DOCS, "quickref.%s.md" % lg))


def headings(text):
    return [l for l in text.splitlines() if l.startswith("#")]


def embedded(text):
    return IMG.findall(text)


@pytest.mark.parametrize("lg", lang.LANGS)
def test_card_embeds_existing_screens_of_its_language(lg):
    imgs = embedded(card(lg))
    assert len(imgs) >= 10
    for code, name in imgs:
        assert code == lg, name
        assert os.path.exists(os.path.join(SCREENS, "%s_%s.svg" % (code, name))), name


@pytest.mark.parametrize("lg", TRANSLATIONS)
def test_card_covers_every_section_and_screen_of_the_english_one(lg):
    en = card("en")
    other = card(lg)
    assert [h.split(" ")[0] for h in headings(other)] == \
        [h.split(" ")[0] for h in headings(en)]
    assert [n for _, n in embedded(other)] == [n for _, n in embedded(en)]
    # the same displayed words and times are explained
    for quoted in ("-05:01", "-04:01", "-01:01", "-00:01", "00:00", "2 s", "3 s", "4 s"):
        assert quoted in other, quoted


TERMS = {
    "de": ["Bedenkzeit", "Zeitüberschreitung", "Strafpunkte", "Anfechtung",
           "Schiedsrichter", "Uhr anhalten"],
    "pl": ["czas", "przekroczenie czasu", "kar", "sprawdzenie", "sędzia",
           "zatrzymanie zegara", "martwy czas"],
}


@pytest.mark.parametrize("lg", ["de", "pl"])
def test_card_uses_the_regulations_terms(lg):
    text = card(lg).lower()
    missing = [t for t in TERMS[lg] if t.lower() not in text]
    assert missing == []
    if lg == "pl":
        assert "pauza" in text or "zatrzymanie" in text


ENGLISH = [" the ", " press ", " clock ", " and ", " when ", " with ", " your ",
           " button", " game ", " after ", " is ", " of ", " you ", " runs ",
           " time ", " stops ", " hold ", " screen", " only "]


@pytest.mark.parametrize("lg", TRANSLATIONS)
def test_card_has_no_english_left(lg):
    text = SPAN.sub(" ", FENCE.sub(" ", card(lg)))
    text = " " + re.sub(r"\s+", " ", text).lower() + " "
    left = [w for w in ENGLISH if w in text]
    assert left == []


@pytest.mark.parametrize("lg", lang.LANGS)
def test_card_quotes_the_words_the_clock_shows(lg):
    """Every screen word a card puts in code quotes is one the clock shows in
    that language (or a time, a penalty, a menu value)."""
    text = card(lg)
    words = {lang.word(lg, k).decode("latin-1") for k in lang.keys(lg)}
    # (as the LCD shows them: the A00 ROM's umlauts, `BEREIT 2.drückt`)
    words |= {view.to_text(lang.word(lg, k)) for k in lang.keys(lg)}
    words |= set(profiles.NAMES) | {p["label"] for p in profiles.PROFILES.values() if p["label"]}
    ok = re.compile(r"^-?\d\d:\d\d$|^[A-Z]{1,3} ?\d\d$|^[PSK]\d\d$|^python -m ")
    unknown = [q for q in SPAN.findall(text) if q not in words and not ok.match(q)]
    assert unknown == []


# -- claims: what the docs say the device does ----------------------------------------

@pytest.fixture
def bench():
    made = []

    def make(profile="sdev", lg="en"):
        b = screens.Bench(profile, lg)
        made.append(b)
        return b
    yield make
    for b in made:
        b.close()


def right_runs(b, ms):
    """Left's press (at its edge, SPEC v3 §4) starts right's clock on the
    bench, then ms of play; the press's tick."""
    start = b.rig.ms()
    b.rig.press(screens.LEFT)
    b.rig.run(ms)
    return start


def test_claim_pause_key_stops_and_restarts_at_its_press(bench):
    """Cards, "The keys" (SPEC v3 §4 Pause key): a running clock stops on
    the pause key's press and stays stopped however long it is held and
    when it is released; the next press runs the same clock on from that
    press, while the key is still down."""
    b = bench()
    r = b.rig
    c = b.clock
    start = right_runs(b, 5000)
    r.down(screens.PAUSE)
    edge = r.ms()
    r.run(5)
    assert c.state == cc.PAUSED
    rem = c.rem[cc.RIGHT]
    r.run(1500)                            # held 1.5 s: still stopped
    r.up(screens.PAUSE)
    r.run(500)                             # released: still stopped
    assert c.state == cc.PAUSED and c.rem[cc.RIGHT] == rem
    r.down(screens.PAUSE)                  # the next press ...
    edge2 = r.ms()
    r.run(5)
    assert c.running() == cc.RIGHT         # ... runs the clock on at once
    r.run(300)
    r.up(screens.PAUSE)
    r.run(100)
    assert c.running() == cc.RIGHT
    assert c.rem[cc.RIGHT] == 30 * MIN - (edge - start) - (r.ms() - edge2)


def test_claim_end_needs_a_confirmation_and_keeps_the_last_turn(bench):
    """Cards, "End of game": stop the clock, hold the pause key 2 s, the
    display asks, both player buttons held 1 s confirm.  The last turn is
    charged up to the stop (TSO § 5.1 b i); a hold that stopped a running
    clock never asks; while it asks, the buttons only answer: a single
    button let go early or the pause key answers "no" and changes nothing
    (SPEC v5 §4), and later presses do what they always do."""
    import rig as gestures
    b = bench()
    r = b.rig
    c = b.clock
    right_runs(b, 5000)
    r.press(screens.RIGHT)                 # right's move: left runs
    r.run(7000)
    r.press(screens.PAUSE, hold=2500)      # held while running: only a pause
    assert c.state == cc.PAUSED and not r.app.game.question.kind
    used = 30 * MIN - c.rem[cc.LEFT]
    r.perform(gestures.long_press())       # now from a stopped clock: it asks
    assert r.app.game.question.kind and "END?" in r.screen()[1]
    assert c.state == cc.PAUSED and 30 * MIN - c.rem[cc.LEFT] == used, \
        "the hold's own press (a restart) was undone"
    rem = list(c.rem)
    r.press(screens.LEFT)                  # a single button: "no", nothing else
    assert not r.app.game.question.kind and c.state == cc.PAUSED and c.rem == rem
    r.perform(gestures.long_press())       # asked again
    r.press(screens.PAUSE)                 # the pause key: "no", the clock stays stopped
    assert not r.app.game.question.kind and c.state == cc.PAUSED and c.rem == rem
    r.press(screens.LEFT)                  # later presses act: left's turn ends (dead time)
    assert c.running() == cc.RIGHT
    r.press(screens.PAUSE)                 # stopped again
    used = 30 * MIN - c.rem[cc.LEFT]
    r.perform(gestures.long_press())
    r.perform(gestures.confirm())          # L+R held 1 s: yes
    assert c.state == cc.OVER
    assert c.rem[cc.LEFT] == 30 * MIN - used


def test_claim_confirmation_without_a_question_only_stops(bench):
    """Cards: both player buttons held 1 s with no question showing, on a
    stopped clock: the two presses are undone and the clock stays stopped
    (SPEC v4 §4: a confirmation with no question does nothing and undoes
    its presses; it exists when the clock was stopped at its first key's
    edge)."""
    import rig as gestures
    b = bench()
    r = b.rig
    c = b.clock
    right_runs(b, 4000)
    r.press(screens.PAUSE)                 # right's clock stopped
    r.run(1000)
    rem = list(c.rem)
    r.perform(gestures.confirm())          # left restarts right, right's move ...
    assert c.state == cc.PAUSED and c.side == cc.RIGHT and not r.app.game.question.kind
    assert c.rem == rem, "both presses undone, no time charged"


def test_claim_both_player_buttons_while_a_clock_runs_are_presses(bench):
    """Cards: "While a clock runs they are two presses, however long held:
    each does what it does at its press" (SPEC v4 §4 Gestures): right's
    clock runs, left leans on their button (ignored), right presses 20 ms
    later (the move), both held 1.1 s: the move stands, left's clock runs."""
    import rig as gestures
    b = bench()
    r = b.rig
    c = b.clock
    right_runs(b, 4000)
    used = 30 * MIN - c.rem[cc.RIGHT]
    r.perform(gestures.confirm())
    assert c.state == cc.RUNNING and c.side == cc.LEFT, (c.state, c.side)
    assert c.rem[cc.RIGHT] == 30 * MIN - used - 20, "right's turn ended at its press"


def test_claim_referee_gesture_while_running_pauses_first(bench):
    b = bench()
    r = b.rig
    right_runs(b, 5000)
    rem = b.clock.rem[cc.RIGHT]
    r.down(screens.PAUSE)                  # the gesture: pause key first ...
    r.run(40)
    r.down(screens.LEFT)                   # ... then both player buttons
    r.run(40)
    r.down(screens.RIGHT)
    r.run(3300)
    for k in (screens.LEFT, screens.RIGHT, screens.PAUSE):
        r.up(k)
    r.run(100)
    assert b.rig.app.mode == screens.appmod.MODE_REFEREE
    assert b.clock.state == cc.PAUSED and b.clock.rem[cc.RIGHT] == rem


def test_claim_power_cut_restores_the_game_paused(bench):
    """Cards, "Power cut": back paused, with the notice; at most 4 s of the
    running clock uncharged; a short pause press goes on."""
    b = bench(lg="de")
    b.tap(screens.LEFT)                    # right runs
    b.wait(10500)
    used = 30 * MIN - b.clock.rem[cc.RIGHT]
    b.power_cut()
    c = b.clock
    assert c.state == cc.PAUSED and c.side == cc.RIGHT
    lost = used - (30 * MIN - c.rem[cc.RIGHT])
    assert 0 <= lost <= 4000
    assert lang.text("de", "RESTORED") in b.rig.screen()[1]
    b.tap(screens.PAUSE)
    assert c.running() == cc.RIGHT
    assert lang.text("de", "RESTORED") not in b.rig.screen()[1]


def test_claim_waiting_players_press_is_logged(bench):
    events = []
    c = cc.Clock(profiles.make_rules("sdev"), 0, lambda a, b: a - b,
                 lambda t, d: t + d, lambda code, s, t, a: events.append((code, s, t)))
    c.press(cc.LEFT, 0)
    assert not c.press(cc.LEFT, 3000)      # right's clock runs: no effect ...
    assert (cc.EV_LEFT, cc.LEFT, 3000) in events  # ... but reported to the log
    b = bench()
    b.tap(screens.LEFT)
    b.wait(3000)
    b.tap(screens.LEFT)
    log = read(os.path.join(b.dir, "games", "g0001.txt"))
    assert len(re.findall(r"^\d+ left", log, re.M)) == 2


def test_claim_penalty_at_forfeit_keeps_the_formula():
    c = cc.Clock(profiles.make_rules("sdev", {"base": "01:00"}), 0,
                 lambda a, b: a - b, lambda t, d: t + d)
    c.press(cc.LEFT, 0)
    c.update(MIN + 301000)
    assert c.forfeited[cc.RIGHT] and c.penalty(cc.RIGHT) == 60


def test_claim_overtime_display_capped_at_99_59():
    r = profiles.make_rules("custom", {"base": "01:00", "forfeit": "none", "penalty": "10"})
    c = cc.Clock(r, 0, lambda a, b: a - b, lambda t, d: t + d)
    c.press(cc.LEFT, 0)
    c.update(MIN + 100 * MIN + 5000)
    assert c.overtime(cc.RIGHT) == 100 * MIN + 5000
    assert c.penalty(cc.RIGHT) == 1010
    row = hd44780.text_of(c)[0]
    assert "-99:59" in row
