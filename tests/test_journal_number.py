"""The game's number with the running-clock journal (issue 11 follow-up;
SPEC v2 §4 "Game log": a game file gNNNN.txt per game, its number in the
header; firmware/net.py publishes log.number as "game" and in the topic
`result/<n>`).

With the journal a game's file is begun only when its journal is folded,
in ready or over (no file write while a game is on, issue 20), so the number is reserved while the game
is set up (power-up, a new game): it is the right one from the first press,
and the file and the result written later carry the same number.  Real
littlefs on the NOR model (tests/norfs.py), the real core and session.
"""
import clockcore as cc
import results
from norfs import NorFS
from test_journal import Device


def games(fs):
    return sorted(n for n in fs.files("games") if n.startswith("g"))


def play(d, number):
    """A game that starts, runs 25 s with presses (no file written), pauses
    and ends; its number is `number` throughout."""
    p = d.fs.nor.programs
    d.run(500)
    d.press(cc.LEFT)                          # the first press: right runs
    assert d.clock.running() == cc.RIGHT
    assert d.s.log.number == number           # known at the first press ...
    assert "g%04d.txt" % number not in games(d.fs)  # ... with no file yet
    for k in range(5):
        d.run(5000)
        d.press(d.clock.running())
        assert d.s.log.number == number
    assert d.fs.nor.programs == p             # not a littlefs write while it ran
    d.pause()                                 # a stop writes no file (issue 20)
    assert "g%04d.txt" % number not in games(d.fs)
    assert d.clock.end(d.t)
    d.run(100)
    d.settle()                                # over: the journal is folded
    assert "g%04d.txt" % number in games(d.fs)
    assert d.s.log.number == number           # the result is published as this one
    head = d.fs.read("games/g%04d.txt" % number).decode().split("\n")[0]
    assert head.endswith("# game %d" % number), head
    got = results.finished_games(d.s.log)
    assert got[0].number == number and got[0].finished()


def new_game(d):
    """As App.new_game: the clock reset, then the session forgets the game."""
    d.clock.reset(d.t)
    d.s.forget()


def test_the_number_is_known_from_the_first_press_and_the_result_carries_it():
    fs = NorFS()
    d = Device(fs)
    assert d.s.sp.j is not None and d.s.sp.j.ok
    assert d.s.log.number == 1                # reserved at power-up (stopped)
    play(d, 1)
    new_game(d)
    assert d.s.log.number == 2                # reserved at the new game
    play(d, 2)
    # a power-up with the last game over and forgotten: the next is 3
    new_game(d)
    d3 = Device(fs.boot(), t0=4321)
    assert d3.s.log.number == 3
    play(d3, 3)
    assert games(fs) == ["g0001.txt", "g0002.txt", "g0003.txt"]


def test_a_game_that_never_ran_keeps_its_number():
    """A new game set up but never started (reset again) does not use up a
    number: the next game has the same one (gamelog: a file without an
    event is reused, and none was even written)."""
    fs = NorFS()
    d = Device(fs)
    play(d, 1)
    new_game(d)
    assert d.s.log.number == 2
    new_game(d)                               # reset again before a press
    assert d.s.log.number == 2
    play(d, 2)
