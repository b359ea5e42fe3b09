"""Who sits where (issue 21): TSH `.t` files and the plain CSV
(hall/pairings.py, docs/hall.md "Pairings").

tests/data/open2026.t is a TSH-shaped division written for these tests: 41
players (so one bye a round), 3 rounds paired with `board` and `p12`, two of
them scored."""
import os

import pytest

from hall import pairings

DATA = os.path.join(os.path.dirname(__file__), "data")
OPEN = os.path.join(DATA, "open2026.t")


def raw_players(path):
    """The player lines split by hand (a cross-check, not the parser):
    [(name, [opp...], [board...], [p12...])]."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.split() for p in line.split(";")]
            head = parts[0]
            name = " ".join(head[:2])
            fields = {p[0]: [int(x) for x in p[1:]] for p in parts[2:] if p}
            out.append((name, [int(x) for x in head[3:]], fields["board"], fields["p12"]))
    return out


@pytest.mark.parametrize("rnd", [1, 2, 3])
def test_a_real_shaped_tsh_file_seats_every_player_once(rnd):
    """Issue 21: a round's opponents and `board` from a TSH file of 41
    players; every player sits at exactly one table or has the bye; player 1
    (p12 = 1, who went first) sits left."""
    r = pairings.read(OPEN, rnd)
    assert r.problems == []
    assert sorted(r.pairs) == list(range(1, 21))        # 40 players at 20 boards
    assert len(r.byes) == 1
    raw = raw_players(OPEN)
    assert len(raw) == 41
    seated = [p.left for p in r.tables()] + [p.right for p in r.tables()] + r.byes
    assert sorted(seated) == sorted(n for n, _o, _b, _p in raw)
    by_name = {n: (o, b, p) for n, o, b, p in raw}
    names = [n for n, _o, _b, _p in raw]
    for pair in r.tables():
        lo, lb, lp = by_name[pair.left]
        ro, rb, rp = by_name[pair.right]
        assert lb[rnd - 1] == rb[rnd - 1] == pair.table
        assert names[lo[rnd - 1] - 1] == pair.right and names[ro[rnd - 1] - 1] == pair.left
        assert (lp[rnd - 1], rp[rnd - 1]) == (1, 2)
    bye = by_name[r.byes[0]]
    assert bye[0][rnd - 1] == 0


def test_spot_checks_by_hand():
    """Read off tests/data/open2026.t by eye: line 4 (Müller, p12 1) and line
    3 (Kowalski, p12 2) at board 12 in round 1; Wójcik has the round 2 bye,
    Müller the round 3 bye."""
    r1 = pairings.read(OPEN, 1)
    assert (r1.pairs[12].left, r1.pairs[12].right) == ("Müller, Grzegorz", "Kowalski, Katarzyna")
    assert (r1.pairs[1].left, r1.pairs[1].right) == ("Wójcik, Katarzyna", "Nowak, Agnieszka")
    assert pairings.read(OPEN, 2).byes == ["Wójcik, Katarzyna"]
    assert pairings.read(OPEN, 3).byes == ["Müller, Grzegorz"]


def write(tmp_path, text, name="div.t"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(p)


def test_without_p12_the_earlier_line_sits_left_and_without_board_tables_count_up(tmp_path):
    """Issue 21: player 1 by line order when p12 says nothing (missing, 0, 3,
    4); no `board`: tables 1, 2, ... in the order of each pair's first line."""
    path = write(tmp_path, "Alpha, A 1500 3; ; p12 4\nBeta, B 1400 4\n"
                           "Gamma, C 1300 1; ; p12 3\nDelta, D 1200 2\n")
    r = pairings.read(path, 1)
    assert r.problems == []
    assert [(p.table, p.left, p.right) for p in r.tables()] == [
        (1, "Alpha, A", "Gamma, C"), (2, "Beta, B", "Delta, D")]


def test_p12_2_on_the_earlier_line_puts_the_later_player_left(tmp_path):
    path = write(tmp_path, "Alpha, A 1500 2; ; board 7; p12 2\nBeta, B 1400 1; ; board 7\n")
    r = pairings.read(path, 1)
    assert (r.pairs[7].left, r.pairs[7].right) == ("Beta, B", "Alpha, A")


def test_a_pair_named_from_its_later_line_still_seats_by_line_order(tmp_path):
    """Alpha's line is wrong (it names Beta, who plays Gamma): reported; Beta
    and Gamma still sit, Beta (the earlier line) left."""
    path = write(tmp_path, "Alpha, A 1500 2\nBeta, B 1400 3\nGamma, C 1300 2\n")
    r = pairings.read(path, 1)
    assert len(r.problems) == 1 and r.problems[0].startswith("div.t:1: ")
    assert [(p.left, p.right) for p in r.tables()] == [("Beta, B", "Gamma, C")]


def test_board_gaps_are_filled_for_pairs_without_a_board(tmp_path):
    path = write(tmp_path, "A a 1 2; ; board 1\nB b 1 1; ; board 1\n"
                           "C c 1 4\nD d 1 3\n")
    r = pairings.read(path, 1)
    assert sorted(r.pairs) == [1, 2] and r.pairs[2].left == "C c"


BROKEN = [
    # (file text, round, the line named, words in the message, pairs still read)
    # (a malformed line still holds its player number: Gamma is player 4)
    ("Alpha, A 1500 2\nBeta, B 1400 1\n; ; ;\nGamma, C 1300 5\nDelta, D 1200 4\n",
     1, 3, "expected `Name Rating", 2),
    ("Alpha, A 1500 2\nBeta, B 1400 1\nGamma, C\nDelta, D 1200 3\n", 1, 3, "no rating", 1),
    ("Alpha, A 1500 2\nBeta, B 1400 1\nGamma, C 1300 x4\nDelta, D 1200 3\n", 1, 3,
     "player numbers", 1),
    ("Alpha, A 1500 2\nBeta, B 1400 1\nGamma, C 1300 9\nDelta, D 1200 0\n", 1, 3,
     "not another", 1),
    ("Alpha, A 1500 2\nBeta, B 1400 1\nGamma, C 1300 3\nDelta, D 1200 0\n", 1, 3,
     "not another", 1),
    ("Alpha, A 1500 2\nBeta, B 1400 3\nGamma, C 1300 2\nDelta, D 1200 0\n", 1, 1,
     "line says player 3", 1),
    ("Alpha, A 1500 2; ; board 1\nBeta, B 1400 1; ; board 2\n", 1, 2, "boards 1 and 2", 0),
    ("Alpha, A 1500 2; ; board 1\nBeta, B 1400 1; ; board 1\n"
     "Gamma, C 1300 4; ; board 1\nDelta, D 1200 3; ; board 1\n", 1, 3, "table 1 twice", 1),
    ("Alpha, A 1500 2; ; board x\nBeta, B 1400 1\n", 1, 1, "whole numbers", 0),
    ("Alpha, A 1500 2; ; p12 1\nBeta, B 1400 1; ; p12 1\n", 1, 2, "both have p12 1", 1),
    ("Alpha, A 1500 2 0\nBeta, B 1400 1\n", 2, 2, "no opponent for round 2", 0),
    ("Alpha, A 1500 2; ; board 5000\nBeta, B 1400 1\n", 1, 1, "beyond 999", 0),
]


@pytest.mark.parametrize("text, rnd, line, words, kept", BROKEN)
def test_a_broken_tsh_line_is_one_clear_line_and_the_rest_is_read(tmp_path, text, rnd,
                                                                   line, words, kept):
    """Issue 21: one clear line for each malformed line, `FILE:LINE: what`;
    the good lines' pairs are still read (nothing lost)."""
    r = pairings.read(write(tmp_path, text), rnd)
    assert len(r.problems) >= 1
    first = r.problems[0]
    assert first.startswith("div.t:%d: " % line) and words in first, r.problems
    assert all("\n" not in p for p in r.problems)
    assert len(r.pairs) == kept, r.pairs


def test_the_real_file_with_one_line_broken_keeps_the_other_19_tables(tmp_path):
    """One clear line for the broken line, one for the opponent it leaves
    without a pair; the other 19 tables are read."""
    lines = open(OPEN, encoding="utf-8").read().split("\n")
    lines[5] = "Nowak, ??? broken"   # line 6: a player line with no rating
    r = pairings.read(write(tmp_path, "\n".join(lines)), 1)
    assert r.problems[0].startswith("div.t:6: ") and "no rating" in r.problems[0]
    assert len(r.pairs) == 19
    assert len(r.problems) == 2 and "malformed" in r.problems[1]


@pytest.mark.parametrize("data, words", [
    (b"", "no player lines"),
    (b"# only a comment\n\n", "no player lines"),
    (b"Alpha, A 1500 2\n\xff\xfe\x00A\n", "div.t:2: not a text file"),   # UTF-16
])
def test_not_a_pairings_file_is_one_line(tmp_path, data, words):
    with pytest.raises(ValueError) as e:
        pairings.read(write(tmp_path, data), 1)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_round_numbers_start_at_one():
    with pytest.raises(ValueError):
        pairings.read(OPEN, 0)


# -- the plain CSV ---------------------------------------------------------------------
def test_plain_csv_with_header_quotes_and_names_in_any_script(tmp_path):
    """Issue 21: `table,player1,player2`, player1 sits left; a header line,
    quoted names with commas, UTF-8 with a byte-order mark (a spreadsheet's
    export) are all fine."""
    path = write(tmp_path, "\ufefftable,player1,player2\n"
                           '1,"Kowalski, Jan",Anna Müller\n'
                           "2 , Łukasz Wróbel , Jörg Weiß \r\n\n", "r1.csv")
    r = pairings.read(path, 1)
    assert r.problems == []
    assert [(p.table, p.left, p.right) for p in r.tables()] == [
        (1, "Kowalski, Jan", "Anna Müller"), (2, "Łukasz Wróbel", "Jörg Weiß")]


def test_csv_without_header(tmp_path):
    r = pairings.read(write(tmp_path, "3,A,B\n", "r.csv"), 1)
    assert r.pairs[3].left == "A"


@pytest.mark.parametrize("line, words", [
    ("4,A", "3 cells"),
    ("4,A,B,C", "3 cells"),
    ("x,A,B", "must be a number"),
    ("0,A,B", "must be a number"),
    ("-3,A,B", "must be a number"),
    ("1000,A,B", "must be a number"),
    ("4,,B", "both players"),
    ("1,E,F", "table 1 twice"),
    ("5,Ann,G", "Ann already sits at table 1"),
    ('5,"unclosed,G', "3 cells"),
])
def test_a_broken_csv_line_is_one_line_and_the_others_stay(tmp_path, line, words):
    path = write(tmp_path, "table,player1,player2\n1,Ann,Bob\n%s\n2,Cid,Dee\n" % line, "r.csv")
    r = pairings.read(path, 1)
    assert len(r.problems) == 1 and r.problems[0].startswith("r.csv:3: "), r.problems
    assert words in r.problems[0], r.problems
    assert sorted(r.pairs) == [1, 2]


def test_an_empty_csv_is_one_line(tmp_path):
    with pytest.raises(ValueError) as e:
        pairings.read(write(tmp_path, "table,player1,player2\n", "r.csv"), 1)
    assert "no pairings" in str(e.value)


def test_a_round_tsh_has_not_paired_is_one_line(tmp_path):
    """Issue 27: `hall pairings --round 4` for a round the file has no
    opponents for is one line (it was one line per player, 43), saying
    which rounds it has."""
    with pytest.raises(ValueError) as e:
        pairings.read(OPEN, 4)
    msg = str(e.value)
    assert "\n" not in msg and "round 4 is not paired" in msg and "rounds 1-3" in msg, msg


def test_a_name_longer_than_64_characters_is_cut_with_a_warning(tmp_path):
    """Issue 27: a 10 MB name went into every retained round message; the
    hall keeps pairings.MAX_NAME (64) characters of a name and says so."""
    big = "Kowalski-" + "x" * 10 * 1024 * 1024
    r = pairings.read(write(tmp_path, big + " 1500 2\nBeta, B 1400 1\n"), 1)
    assert r.pairs[1].left == big[:64] and not r.problems
    assert len(r.warnings) == 1 and "longer than 64" in r.warnings[0] and len(r.warnings[0]) < 200
    f = tmp_path / "r.csv"
    f.write_text("table,player1,player2\n1,%s,Bob\n" % ("\u017b" * 65))
    r = pairings.read(str(f), 1)
    assert r.pairs[1].left == "\u017b" * 64 and len(r.warnings) == 1


def test_names_follow_the_protocols_one_rule_code_points_no_bidi_controls(tmp_path):
    """Issue 35: the name rule is hallproto.clean_name's, the pages' too: a
    bye of 64 astral letters is 64 code points (the pages counted 128 UTF-16
    units and refused the round), kept whole; a 65th is cut; a right-to-left
    override or isolate (it reversed the opponent's name) and a control
    character are removed, each name with one warning line."""
    import hallproto as hp
    astral = "\U0001d400" * hp.NAME_MAX
    f = tmp_path / "r.csv"
    f.write_text("table,player1,player2\n1,%s,Bob\n2,Anna\u202e Nowak,Ola\u2066x\u2069\n"
                 "3,%s,E\x07ve\n" % (astral, "\U0001d401" * (hp.NAME_MAX + 1)), encoding="utf-8")
    r = pairings.read(str(f), 1)
    assert r.pairs[1].left == astral and hp.is_name(astral)
    assert (r.pairs[2].left, r.pairs[2].right) == ("Anna Nowak", "Olax")
    assert (r.pairs[3].left, r.pairs[3].right) == ("\U0001d401" * hp.NAME_MAX, "Eve")
    assert len(r.warnings) == 4, r.warnings
    assert sum("bidi-override" in w for w in r.warnings) == 3
    assert sum("longer than %d" % hp.NAME_MAX in w for w in r.warnings) == 1


def test_tsh_numbers_are_kept_with_the_seats():
    """Issue 27: the export for TSH needs each player's number (the line
    number among the player lines), left and right as seated, and the bye's."""
    r = pairings.read(OPEN, 1)
    names = [ln.split("  ")[0].strip() for ln in open(OPEN, encoding="utf-8")
             if ln.strip() and not ln.startswith("#")]
    for p in r.tables():
        assert names[p.left_no - 1] == p.left and names[p.right_no - 1] == p.right
    assert r.bye_numbers == [names.index(r.byes[0]) + 1] == [8]


# -- a .t line as TSH reads it (issue 35; /work/shared/TSH.md) ------------------------
@pytest.mark.parametrize("line, name, opp", [
    # TSH.md: the name is any text ending in a non-space, the rating the
    # first word after which the rest reads as a rating and opponents
    ("Jan 2 Kowalski 1500 2", "Jan 2 Kowalski", 2),
    ("X -10 1500 2; 300", "X -10", 2),             # TSH.md: a negative rating is a name
    ("Kowalski, Jan 1712.5 2", "Kowalski, Jan", 2),   # a rating with `.` parts
    ("Kowalski, Jan 1712+3 2", "Kowalski, Jan", 2),   # and `+` parts
    ("Nowak,   Anna\t  1500 2", "Nowak,   Anna", 2),  # the name as written, to its last non-space
    ("Smith 3rd 1500 2", "Smith 3rd", 2),
])
def test_the_name_and_rating_are_read_as_tsh_reads_a_t_line(tmp_path, line, name, opp):
    """TSH.md ("A division's .t file"): the name, white space, the rating
    (digits with optional `.`/`+` parts), the opponents.  The hall's reader
    once took the first plain number as the rating: `Jan 2 Kowalski 1500 2`
    was refused and `Kowalski, Jan 1712.5 2` seated player 7 (the rating
    read as 2, the opponents shifted)."""
    r = pairings.read(write(tmp_path, line + "\nBeta, B 1400 1\n"), 1)
    assert r.problems == []
    assert (r.pairs[1].left, r.pairs[1].right) == (name, "Beta, B")
    assert r.pairs[1].right_no == opp


def test_tsh_md_s_negative_rating_example_is_a_name_rated_1_with_no_opponents(tmp_path):
    """TSH.md: `X -10 1; 300` parses as a player named `X -10` rated 1."""
    with pytest.raises(ValueError) as e:
        pairings.read(write(tmp_path, "X -10 1; 300\n"), 1)
    assert "no opponents in it" in str(e.value)


def test_tsh_00_is_an_opponent_not_yet_defined_never_a_bye(tmp_path):
    """TSH.md: opponent `0` is a bye, `00` "not yet defined": a round whose
    opponents are all `00` is not paired yet (one line), never a round of
    byes."""
    text = "Alpha, A 1500 2 00\nBeta, B 1400 1 00\nGamma, C 1300 0 00\n"
    with pytest.raises(ValueError) as e:
        pairings.read(write(tmp_path, text), 2)
    assert "round 2 is not paired" in str(e.value) and "rounds 1-1" in str(e.value)
    r = pairings.read(write(tmp_path, text), 1)
    assert r.byes == ["Gamma, C"] and sorted(r.pairs) == [1]


def test_a_withdrawn_player_is_no_bye(tmp_path):
    """TSH.md: a withdrawn player carries an `off` extra (TSH writes
    `; off -50`) and is paired with 0: not a bye opponent.  The hall
    seats no bye for them (so `hall results --tsh` exports no bye line and
    the pages show no bye card), with one warning line."""
    text = ("Alpha, A 1500 2 2; 400 380\nBeta, B 1400 1 1; 380 400\n"
            "Gamma, C 1300 0 0; 50; off -50\nDelta, D 1200 0 0; 50\n")
    r = pairings.read(write(tmp_path, text), 2)
    assert r.byes == ["Delta, D"] and r.bye_numbers == [4]
    assert len(r.warnings) == 1 and "div.t:3: Gamma, C is withdrawn (off)" in r.warnings[0]
    assert r.problems == []


@pytest.mark.parametrize("text, words", [
    # fullwidth and other Unicode digits pass str.isdigit() and int() reads
    # them: never a table, a player number or a rating here
    ("Alpha, A 1500 \uff12\nBeta, B 1400 1\n", "player numbers"),
    # (TSH reads a fullwidth rating as part of the name, and 2 as the rating)
    ("Alpha, A \uff11\uff15\uff10\uff10 2\nBeta, B 1400 1\n", "no opponent for round 1"),
    ("Alpha, A 1500 2; ; board \uff17\nBeta, B 1400 1\n", "whole numbers"),
    ("Alpha, A 1500 2; ; board \u0667\nBeta, B 1400 1\n", "whole numbers"),
])
def test_unicode_digits_are_never_numbers_of_a_t_file(tmp_path, text, words):
    r = pairings.read(write(tmp_path, text), 1)
    assert r.problems and r.problems[0].startswith("div.t:1: ") and words in r.problems[0], \
        r.problems


@pytest.mark.parametrize("cell", ["\uff11", "\u0661", "\u00b2", "1\u0660"])
def test_unicode_digits_are_never_a_csv_table(tmp_path, cell):
    r = pairings.read(write(tmp_path, "%s,Ann,Bob\n2,Cid,Dee\n" % cell, "r.csv"), 1)
    assert sorted(r.pairs) == [2] and "must be a number" in r.problems[0]


def test_a_latin1_t_file_is_read_as_tsh_reads_it_with_one_line(tmp_path):
    """TSH.md: TSH reads `.t` files as ISO-8859-1 unless its configuration
    sets tfile_encoding (its German realm does not): such a file is read
    so, with one warning line; UTF-8 stays the first choice."""
    text = "Wei\u00df, Stefan 1644 2\nM\u00fcller, Grzegorz 1498 1\n"
    r = pairings.read(write(tmp_path, text.encode("latin-1")), 1)
    assert (r.pairs[1].left, r.pairs[1].right) == ("Wei\u00df, Stefan", "M\u00fcller, Grzegorz")
    assert len(r.warnings) == 1 and "ISO-8859-1" in r.warnings[0]
    r = pairings.read(write(tmp_path, text), 1)
    assert r.pairs[1].left == "Wei\u00df, Stefan" and r.warnings == []


def tsh_written(name, rating, opps, scores, extras):
    """A player line as TSH writes it (TSH.md): the name left-aligned in 22
    columns, the rating right-aligned in 5, the pairings, `; `, the scores,
    then the extras sorted by key."""
    line = "%-22s%5s %s; %s" % (name, rating, " ".join(str(o) for o in opps),
                                " ".join(str(s) for s in scores))
    for k in sorted(extras):
        line += "; %s %s" % (k, " ".join(str(v) for v in extras[k]))
    return line


def test_lines_in_tsh_s_own_layout_read_back_as_written(tmp_path):
    """Issue 35 ("ratings and names as TSH parses a .t line"): names with
    digits and commas, one longer than the 22 columns, ratings 0, 950, 2001
    and 1712.5, a negative score, boards, p12 and a withdrawn player, in the
    layout TSH writes: every name, table and seat read back as written."""
    players = [("Jan 2 Kowalski", 2001, [2, 4], [412, -20], {"board": [3, 1], "p12": [1, 2]}),
               ("Kowalski-Nowak, Anna Maria", 0, [1, 3], [380, 401], {"board": [3, 2],
                                                                       "p12": [2, 1]}),
               ("Weiß, Stefan", "1712.5", [4, 2], [350, 300], {"board": [5, 2], "p12": [1, 2]}),
               ("O'Brien, Seán 3rd", 950, [3, 1], [299, 388], {"board": [5, 1], "p12": [2, 1]}),
               ("Zieliński, Ewa", 1655, [0, 0], [50, -50], {"off": [-50]})]
    text = "\n".join(tsh_written(*p) for p in players) + "\n"
    path = write(tmp_path, text)
    r1, r2 = pairings.read(path, 1), pairings.read(path, 2)
    assert r1.problems == r2.problems == []
    assert [(p.table, p.left, p.right) for p in r1.tables()] == [
        (3, "Jan 2 Kowalski", "Kowalski-Nowak, Anna Maria"),
        (5, "Weiß, Stefan", "O'Brien, Seán 3rd")]
    assert [(p.table, p.left, p.right) for p in r2.tables()] == [
        (1, "O'Brien, Seán 3rd", "Jan 2 Kowalski"),
        (2, "Kowalski-Nowak, Anna Maria", "Weiß, Stefan")]
    assert r1.byes == r2.byes == [] and len(r1.warnings) == 1   # withdrawn: no bye
