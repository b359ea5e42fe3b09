"""Issue 37, "the referee and the player": `replay --timeline` reads the
whole game as a referee does (host_sim/timeline.py), `--at` past the log's
end says so, LOST names the side that lost, READY says who presses to
start (SPEC §4), the docs show the paused screen as the clock draws it,
and a rehearsal's clocks are named alike in their logs and on the pages."""
import os
import re
import subprocess
import sys

import pytest

import clockcore as cc
import hd44780
import lang
import profiles
from conftest import ROOT
from hall import filing
from host_sim import replay, timeline

EXAMPLES = os.path.join(ROOT, "examples")
GEOMETRIES = ((16, 2), (20, 4))


def cli(*args):
    return subprocess.run([sys.executable, "-m", "host_sim", "replay"] + list(args),
                          cwd=ROOT, capture_output=True, timeout=120)


def game(text):
    return replay.parse(text.split("\n"))


# -- replay --timeline -------------------------------------------------------------

SDEV = """profile sdev
set base=05:00
0 left
60000 right
70000 pause
75000 adjust left -30000
76000 pause
90000 left
90200 left
"""


def test_timeline_lists_every_event_and_each_rule_instant_in_order():
    """Each event of the log and each time-triggered transition the core
    computes (SPEC §4: the window's end, 00:00, the forfeit at -05:01, TSO §
    5.2 c) at its own ms, in time order, with both times as the clock
    showed them (profiles.fmt_time), whose turn, the marks and the LCD."""
    g = game(SDEV)
    steps, clock, at = timeline.steps(g, 700000)
    got = [(s.t, s.what, s.side, s.note, s.ignored) for s in steps]
    assert got == [
        (0, "left", -1, False, False),
        (60000, "right", -1, False, False),
        (70000, "pause", -1, False, False),
        (75000, "adjust", 0, False, False),
        (76000, "pause", -1, False, False),
        (86000, "window closed", 0, True, False),   # frozen 70000-76000 (TSO § 3.1.2)
        (90000, "left", -1, False, False),
        (90200, "left", -1, False, True),           # the waiting player's press: no effect
        (110000, "window closed", 1, True, False),
        (90000 + 240000, "flag", 1, True, False),   # right's 4:00 left at 60000
        (90000 + 240000 + 301000, "forfeit", 1, True, False),   # -05:01 (TSO § 5.2 c)
    ], got
    # each moment's state is the one `replay --at` reports at that instant
    # (the events at distinct times: --at applies every event up to it)
    for s in steps:
        want_clock, _ = replay.run(g, s.t)
        assert replay.report(want_clock, s.t) == dict(s.rep, lcd=s.lcd), (s.t, s.what)
    assert clock.state == cc.OVER and clock.forfeited[1] and at == 700000


def test_timeline_window_closes_count_running_time_only():
    """The first window's end above, derived from the profile: opened at
    60000, frozen by the pause 70000-76000 (SPEC §4 Challenge window), it
    closes its length of running time after it opened."""
    g = game(SDEV)
    steps, _c, _a = timeline.steps(g, 100000)
    closes = [s.t for s in steps if s.what == "window closed"]
    window = profiles.make_rules("sdev", []).window
    assert closes[0] == 60000 + window + (76000 - 70000)


def test_timeline_text_in_the_logs_language_names_who_lost():
    """The example a German clock wrote (`# lang de`): the timeline's words,
    the display's words and the LCD rows are German, and the forfeit line
    names the side (TSO § 5.2 c)."""
    path = os.path.join(EXAMPLES, "sdev_lost_on_time.replay")
    proc = cli(path, "--timeline")
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    lines = out.splitlines()
    assert lines[0].split()[:2] == list(timeline.WORDS["de"]["head"][:2])
    rows = [ln for ln in lines[1:] if re.match(r"^\d\d:\d\d\.\d{3} ", ln)]
    assert [ln.split()[0] for ln in rows] == ["00:00.000", "01:00.000", "01:20.000",
                                            "06:00.000", "11:01.000"]
    w = timeline.WORDS["de"]
    assert w["ev_right"] in rows[1] and lang.text("de", "CHAL") + " 20 s" in rows[1]
    assert w["n_window closed"] in rows[2]
    assert w["n_flag"] % w["left"] in rows[3]
    last = rows[4]
    assert w["n_forfeit"] % w["left"] in last and w["lost"] % w["left"] in last
    assert "-05:01" in last and "04:00" in last and w["over"] in last
    assert "|" + view_text("de", "LOST_L") in last      # the LCD row, in German
    # then the state at the end, as `replay` prints it
    assert "game over: left lost (forfeit)" in out


def view_text(lg, key):
    import view
    return view.to_text(lang.word(lg, key))


def test_timeline_json_is_the_reports_of_each_moment():
    path = os.path.join(EXAMPLES, "pfs_flag.replay")
    import json
    proc = cli(path, "--timeline", "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    g = replay.load(path)
    assert got[-1] == replay.report(*replay.run(g), language=g.lang)
    flags = [x for x in got[:-1] if x["event"] == "flag"]
    assert len(flags) == 1 and flags[0]["note"] and flags[0]["left"]["flag"]   # PFS § 6.2.1
    assert all(set(x) >= {"t_ms", "event", "side", "note", "ignored", "lcd"} for x in got[:-1])


def test_every_language_has_every_timeline_word():
    for lg in lang.LANGS:
        assert set(timeline.WORDS[lg]) == set(timeline.WORDS["en"]), lg
        assert len(timeline.WORDS[lg]["head"]) == len(timeline.WORDS["en"]["head"])


def test_hall_timeline_reads_the_game_through_the_same_steps():
    """The director's page's timeline (filing.timeline) is the events of
    timeline.steps(): one row per event, the same LCD rows."""
    text = open(os.path.join(EXAMPLES, "sdev_overtime.replay"), encoding="utf-8").read()
    g = replay.parse(text.split("\n"))
    steps, _c, _a = timeline.steps(g, g.events[-1].t, language="en")
    page = filing.timeline(text, "en").split("\n")
    events = [s for s in steps if not s.note]
    assert len(events) == len(g.events)
    for s, row in zip(events, page[1:]):
        assert row.endswith(" ".join("|%s|" % r for r in s.lcd)), (row, s.lcd)


def test_the_pages_timelines_in_every_language_come_from_one_replay_alike():
    """hall/filing.py writes the page's timelines of every language from one
    replay of the log (timeline.steps_each): each language's steps are
    timeline.steps()'s in that language, moment for moment (the times, the
    events, the reports and the LCD rows), and each timeline is the one
    filing.timeline() gives for that language alone."""
    for name in sorted(os.listdir(EXAMPLES)):
        text = open(os.path.join(EXAMPLES, name), encoding="utf-8").read()
        g = replay.parse(text.split("\n"))
        by, clock, at = timeline.steps_each(g, filing.LANGS, g.events[-1].t)
        for lg in filing.LANGS:
            alone, c1, at1 = timeline.steps(replay.parse(text.split("\n")), g.events[-1].t,
                                            language=lg)
            assert at1 == at and c1.t == clock.t
            assert [(s.t, s.what, s.side, s.arg, s.note, s.ignored, s.rep, s.stopped,
                     s.flags, s.lcd) for s in by[lg]] == \
                [(s.t, s.what, s.side, s.arg, s.note, s.ignored, s.rep, s.stopped,
                  s.flags, s.lcd) for s in alone], (name, lg)
        assert {lg: filing.timeline(text, lg) for lg in filing.LANGS} == filing.timelines(text)
    made = filing.timelines(text)
    assert made["de"] != made["en"]      # (the languages' LCD rows differ)


# -- --at past the log's end ------------------------------------------------------------

def test_at_past_the_logs_end_says_so_in_one_line_and_still_prints(tmp_path):
    """Issue 37: `--at` after the log's last line (Game.end_t(): its last
    event, or a later `# <ms> over`) prints the state and one line on stderr
    saying the moment is past the end; exit 0.  At or before the end:
    nothing on stderr."""
    path = os.path.join(EXAMPLES, "sdev_lost_on_time.replay")
    end = replay.load(path).end_t()
    for at, warned in ((end, False), (end - 1, False), (end + 1, True)):
        proc = cli(path, "--at", str(at))
        err = proc.stderr.decode("utf-8")
        assert proc.returncode == 0 and "+----" in proc.stdout.decode("utf-8")
        if warned:
            assert err.count("\n") == 1 and "past the log's end" in err and str(end) in err, err
        else:
            assert err == "", err
    proc = cli(path, "--at", "2:00:00", "--json")
    assert proc.returncode == 0 and proc.stderr.count(b"\n") == 1
    assert replay.past_end(replay.load(path), None, path) is None


# -- LOST names its side, READY says who presses --------------------------------------

@pytest.mark.parametrize("lg", lang.LANGS)
def test_lost_names_its_side_on_every_display_and_language(lg):
    """TSO § 5.2 c: the final screen of a forfeit names the side that lost
    (LOST_L / LOST_R) on that side of the status row, within the 16x2's and
    the 20x4's fields (lang.WIDTH: 11 = info 5 + centre 6); the winner's
    penalty stays in its field."""
    assert len(lang.word(lg, "LOST_L")) <= lang.WIDTH["LOST_L"] == 5 + 6
    assert len(lang.word(lg, "LOST_R")) <= lang.WIDTH["LOST_R"] == 5 + 6
    rules = profiles.make_rules("sdev", [("base", "01:00")])
    for loser in (cc.LEFT, cc.RIGHT):
        winner = 1 - loser
        clock = replay.new_clock(rules)
        clock.press(loser, 0)                  # ready: the winner's clock runs
        clock.update(60000 + 90000)            # 90 s over: P20 (TSO § 5.2 b)
        clock.press(winner, 150000)            # the loser's clock runs
        clock.update(150000 + 60000 + 301000)  # -05:01: lost (TSO § 5.2 c)
        assert clock.state == cc.OVER and clock.forfeited[loser] and clock.penalty(winner) == 20
        for cols, rows in GEOMETRIES:
            row = hd44780.text_of(clock, cols, rows, lg)[1 if rows == 2 else 2]
            word = view_text(lg, ("LOST_L", "LOST_R")[loser])
            pen = lang.text(lg, "PEN") + "20"
            if loser == cc.LEFT:
                assert row.startswith(word) and row.rstrip().endswith(pen), (lg, cols, row)
            else:
                assert row.startswith(pen) and row.endswith(word), (lg, cols, row)


@pytest.mark.parametrize("lg", lang.LANGS)
def test_ready_says_who_presses_to_start(lg):
    """SPEC §4: in `ready` a player button starts the other side's clock
    (the opponent of the first mover presses: TSO § 2.3, PFS § 2.4), and the
    READY screen says so (READY_WHO: READY and `2nd`), on 16x2 in columns
    0-14 (the last is the hall mark's) and on 20x4 in the status row; a
    penalty a referee's adjustment left in an info field keeps READY alone."""
    clock = replay.run(game("profile sdev\n"), 0)[0]
    who = view_text(lg, "READY_WHO")
    assert len(lang.word(lg, "READY_WHO")) <= lang.WIDTH["READY_WHO"] == 15
    assert who.startswith(view_text(lg, "READY")) and "2" in who
    for cols, rows in GEOMETRIES:
        shown = hd44780.text_of(clock, cols, rows, lg, hall=2)
        row = shown[1 if rows == 2 else 2]
        assert row[:cols - 1].strip() == who.strip(), (lg, cols, row)
        if rows == 2:
            assert row[-1] == "\u25e2"       # the hall mark keeps its column
    over = replay.run(game("profile sdev\nset base=01:00\n0 adjust left -121000\n"), 0)[0]
    assert over.state == cc.READY and over.penalty(cc.LEFT) > 0
    row = hd44780.text_of(over, 16, 2, lg)[1]
    assert view_text(lg, "READY") in row and who not in row, row


# -- docs show what the clock shows -------------------------------------------------------

def test_readme_and_rules_show_the_paused_screen_as_the_view_draws_it():
    """Issue 37: the README showed `PAUSE CHL 17` for every pause; the clock
    draws PAUSE on the stopped side (firmware/view.py _paused16): `PAUSE
    CHL 17` with the left side paused, `CHL 17 PAUSE` with the right.  Both,
    as the view draws them, are what README.md and docs/rules.md quote."""
    drawn = {}
    for paused, first in ((cc.LEFT, "left"), (cc.RIGHT, "right")):
        other = ("left", "right")[first == "left"]
        g = game("profile sdev\n0 %s\n1000 %s\n4000 pause\n" % (first, other))
        clock, _ = replay.run(g)
        assert clock.state == cc.PAUSED and clock.side == paused
        drawn[paused] = hd44780.text_of(clock)[1].strip()
    window = profiles.make_rules("sdev", []).window // 1000 - 3
    assert drawn == {cc.LEFT: "PAUSE CHL %d" % window, cc.RIGHT: "CHL %d PAUSE" % window}
    for doc in ("README.md", os.path.join("docs", "rules.md")):
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        quoted = set(re.findall(r"`(PAUSE CHL \d\d|CHL \d\d PAUSE)`", text))
        assert quoted == {"PAUSE CHL 17", "CHL 17 PAUSE"}, (doc, quoted)
        assert "`PAUSE CHL 17` with the left side paused, `CHL 17 PAUSE`" in \
            re.sub(r"\s+", " ", text), doc


# -- a rehearsal's clocks: one id in their logs and on the pages ------------------------------

def test_rehearsal_clocks_name_themselves_alike_everywhere(tmp_path):
    """Issue 37: rehearsal logs said `# clock 0000000000000001` (every
    simulated clock had that machine.unique_id()) while the pages and files
    said sim001.  Each SimClock now has its own unique id and publishes the
    id its app writes in each log's header (gamelog.clock_id: hex)."""
    from hall.rehearsal import clocks as rehearsal

    class Hall:
        def clock_config(self, t):
            return {"event": "cup", "table": t, "host": "127.0.0.1", "port": 9,
                    "user": str(t), "password": "x" * 16}
    clocks = [rehearsal.SimClock(Hall(), t, str(tmp_path)) for t in (1, 2, 12)]
    ids = [c.id for c in clocks]
    assert ids == ["0000000000000001", "0000000000000002", "0000000000000012"]
    for c in clocks:
        assert c.rig.app.log.clock == c.id
        assert re.match(r"^[0-9a-f]{16}$", c.id)
    import machine
    machine.reset_world()          # the next board has the default id again
    assert machine.unique_id() == machine.DEFAULT_UID


def test_a_joined_simulators_logs_name_the_id_it_publishes(tmp_path):
    """The same for `python -m hall sim --table N` (hall/rehearsal/join.py):
    it publishes join.clock_id(N), the hex of the machine.unique_id() its
    simulator is given, so its logs' `# clock` line says it too, and no
    rehearsal clock has it."""
    from hall.rehearsal import join
    from host_sim import sim
    root = str(tmp_path) + os.sep
    s = sim.Sim(sim.load_board("sim"), root, uid=join.uid(7))
    assert s.app.log.clock == join.clock_id(7) == "e000000000000007"
    assert join.clock_id(7) != "%016d" % 7            # the rehearsal's table 7


def test_every_event_word_and_note_has_its_timeline_words():
    """Each replay event (gamelog.WORDS, `lateness` included) and each core
    note (gamelog.NOTES) reads in words in every language: a new event
    without words would be a KeyError in the middle of a referee's game."""
    import gamelog
    for lg in lang.LANGS:
        w = timeline.WORDS[lg]
        for word in gamelog.WORDS.values():
            assert "ev_" + word in w, (lg, word)
        for note in gamelog.NOTES.values():
            assert "n_" + note in w, (lg, note)
    g = game("profile sdev\n0 lateness left 180000\n1000 late left\n")
    got, _c, _a = timeline.steps(g, 2000)
    lines, _c, _a = timeline.lines(g, 2000)
    assert "lateness left 03:00" in lines[1], lines    # (SPEC §5: `lateness <side> <ms>`)
