"""The results of the last games, read on the clock from its game logs
(SPEC v2 §4 Gestures: "the results of the last games can be read on the clock
afterwards"; firmware/results.py, the setup menu's "Last games")."""
import os

import pytest

import gamelog
import results


def write(folder, n, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "g%04d.txt" % n), "w") as f:
        f.write(text)


def log_in(folder):
    return gamelog.GameLog(folder=folder)


GAME = """profile sdev  # game 3
set base=01:00
0 left  # L 01:00 R 01:00
3380 right  # L 01:00 R 00:57
# 63380 flag left  L 00:00 R 00:57
133760 pause  # L -01:10 R 00:57
137580 end  # L -01:10 R 00:57
"""


def test_a_finished_game_gives_times_penalty_and_end_time_tso_5_2_b(tmp_path):
    folder = str(tmp_path / "games")
    write(folder, 3, GAME)
    (r,) = results.finished_games(log_in(folder))
    assert (r.number, r.shown, r.end_ms, r.forfeit) == (3, [-70, 57], 137580, -1)
    assert (r.penalty(0), r.penalty(1)) == (20, 0)      # 10 per started minute
    assert r.rules.name == "sdev" and r.rules.base == [60000, 60000]


def test_forfeit_void_and_resume_tso_5_2_c_5_2_d(tmp_path):
    folder = str(tmp_path / "games")
    lost = GAME.replace("133760 pause  # L -01:10 R 00:57\n137580 end  # L -01:10 R 00:57\n",
                        "# 364380 forfeit left  L -05:01 R 00:57\n")
    write(folder, 1, lost)
    write(folder, 2, lost + "400000 void left  # L 01:00 R 00:57\n")
    write(folder, 3, GAME + "140000 resume  # L -01:10 R 00:57\n")   # playing again
    got = results.finished_games(log_in(folder))
    assert [g.number for g in got] == [2, 1]                     # newest first
    assert got[1].forfeit == 0 and got[1].shown[0] == -301 and got[1].end_ms == 364380
    assert got[0].forfeit == -1 and got[0].shown[0] == 60 and got[0].end_ms == 400000


def test_torn_and_foreign_lines_never_crash(tmp_path):
    folder = str(tmp_path / "games")
    write(folder, 1, GAME + "1400")                         # a torn last line
    write(folder, 2, "profile nosuch\n0 left  # L xx:yy R 01:00\n12 end # L\n")
    with open(os.path.join(folder, "g0003.txt"), "wb") as f:
        f.write(b"\xff\xfe garbage\n5 end  # L 00:01 R 00:02\n")
    got = results.finished_games(log_in(folder))
    assert [g.number for g in got] == [3, 2, 1]
    assert got[0].shown == [1, 2] and got[1].rules is None and got[1].penalty(0) == 0


# -- "Last games" in words (issue 21: a referee reads what each game came to) --------
import menu  # noqa: E402
import resultsmenu  # noqa: E402
import view  # noqa: E402

PFS_FLAG = """profile pfs
set base=01:00
0 left  # L 01:00 R 01:00
3000 right  # L 01:00 R 00:57
# 63000 flag left  L 00:00 R 00:57
70000 end  # L 00:00 R 00:57
"""
IN_TIME = GAME.replace("-01:10", "00:10")
BOTH_OVER = GAME.replace("R 00:57", "R -02:30")
LOST_RIGHT = GAME.replace("L -01:10 R 00:57", "L 00:40 R -05:01").replace(
    "137580 end  # L 00:40 R -05:01\n", "# 364380 forfeit right  L 00:40 R -05:01\n")

# (log, verdict, 16x2 row 1 in en / de / pl)
VERDICTS = [
    (IN_TIME, (results.V_IN_TIME, -1),
     ("Ended in time", "Ende in der Zeit", "Koniec w czasie")),
    (GAME, (results.V_PENALTY, -1),
     ("Penalty      L20", "Strafe       L20", "Kara         L20")),
    (BOTH_OVER, (results.V_PENALTY, -1),
     ("Penalty  L20 R30", "Strafe   L20 R30", "Kara     L20 P30")),
    (LOST_RIGHT, (results.V_LOST, 1),
     ("Right lost: time", "Rechts verloren", "Prawy przegral")),
    (PFS_FLAG, (results.V_FLAG, 0),
     ("Time out: left", "Zeit um: links", "Czas minal: L")),
]


def _result(tmp_path, text):
    folder = str(tmp_path / "games")
    write(folder, 7, text)
    (r,) = results.finished_games(log_in(folder))
    return r


@pytest.mark.parametrize("text, verdict, words", VERDICTS)
def test_last_games_name_each_result_in_words(tmp_path, text, verdict, words):
    """Issue 21: the "Last games" screen says what the game came to: in time,
    penalty points per side (TSO § 5.2 b: 10 per started minute), lost on
    time (TSO § 5.2 c, the forfeit wins over penalties), a flag profile's
    time out (PFS § 6.2.1); in English, German and Polish (lang.py's RES_*,
    drawn with the ROM's letters)."""
    r = _result(tmp_path, text)
    assert r.verdict() == verdict
    for lg, want in zip(("en", "de", "pl"), words):
        m = resultsmenu.ResultsMenu([r], lg)
        rows = [bytearray(16) for _ in range(2)]
        m.render(rows)
        assert view.to_text(rows[1]).rstrip() == want, lg
        big = [bytearray(20) for _ in range(4)]
        m.render(big)
        assert view.to_text(big[2]).rstrip() == want.replace("  ", "      ", 1) \
            if verdict[0] == results.V_PENALTY else view.to_text(big[2]).rstrip() == want
        assert view.to_text(big[3]).startswith("#7")     # the number, with the end
        m.handle(menu.A_NEXT)
        m.render(rows)
        assert view.to_text(rows[0]).startswith("#7")    # 16x2: the number on page 2


def test_penalties_beyond_the_row_keep_the_numbers(tmp_path):
    """Both sides over 100 points (a custom profile): the numbers win over
    the word, never cut."""
    text = ("profile custom\nset penalty=50 forfeit=none\n0 left  # L 20:00 R 20:00\n"
            "9000 end  # L -02:30 R -03:30\n")
    r = _result(tmp_path, text)
    assert (r.penalty(0), r.penalty(1)) == (150, 200)
    rows = [bytearray(16) for _ in range(2)]
    resultsmenu.ResultsMenu([r], "en").render(rows)
    assert view.to_text(rows[1]).endswith("L150 R200")
