"""The results of the last games, read on the clock from its game logs
(SPEC v2 §4 Gestures: "the results of the last games can be read on the clock
afterwards"; firmware/results.py, the setup menu's "Last games")."""
import os

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
