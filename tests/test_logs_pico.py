"""`python -m host_sim logs` against the emulated Raspberry Pi Pico (the
official MicroPython image on rp2040js, host_sim/target.py) through the real
mpremote on its USB REPL (issue 13 item 3, "the mpremote helper"; SPEC §4
"Game log").  The fake mpremote of tests/test_logs_tool.py stands in for the
board elsewhere; this run checks the real program's behaviour it models:
mpremote 1.28 `fs cp -r :games DIR` into a DIR that does not exist copies
nothing when games/ has no sub-folder, so `logs` must copy into a folder that
exists."""
import os
import sys

import pytest

from host_sim import target
from test_target_pico import fs_image, LEFT, RIGHT, PAUSE  # noqa: F401  (the image)
from test_target_pico import start_scripted_game


@pytest.fixture(scope="module", autouse=True)
def scripted_game_begins(request, background, tmp_path_factory):
    """test_target_pico.py's scripted game starts here, on the other core."""
    start_scripted_game(request, background, tmp_path_factory)


def test_logs_pulls_the_games_into_a_dest_that_does_not_exist(fs_image, tmp_path):
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash, fs_image=fs_image).start()
    dest = tmp_path / "pulled" / "round3"          # neither folder exists yet
    try:
        pico.run_to(2400)
        pico.press(LEFT, 2500)                     # a game begins
        pico.press(RIGHT, 5000)
        pico.press(PAUSE, 5600, hold_ms=200)   # paused (no file written: issue 20)
        # the end (SPEC §4 gestures: the pause key held 2 s, then both
        # player buttons 1 s): the journal is folded into the log file
        pico.press(PAUSE, 6200, bounce=(), hold_ms=2100)
        pico.run_to(8800)
        pico.pin(LEFT, 0)
        pico.pin(RIGHT, 0)
        pico.run_to(10000)
        pico.pin(LEFT, 1)
        pico.pin(RIGHT, 1)
        pico.run_to(12000)
        rc, out = pico.with_pty(lambda pty: [
            sys.executable, "-m", "host_sim", "logs", "--port", pty, "--dest", str(dest),
            "--no-reset"])
    finally:
        pico.stop()
    out = out.decode(errors="replace") if isinstance(out, bytes) else out
    assert rc == 0, out
    lines = out.splitlines()
    assert lines[0] == "1 game log copied to %s" % dest, out
    clocks = [n for n in os.listdir(dest) if not n.startswith(".")]
    assert len(clocks) == 1 and clocks[0] != "no-clock-id", clocks   # filed by its id
    assert os.listdir(dest / clocks[0]) == ["g0001.txt"]
    text = (dest / clocks[0] / "g0001.txt").read_text()
    assert text.startswith("profile ") and "\n0 left" in text, text
    assert "game over" in lines[-2], lines   # the listing's final state
    # issue 27: `logs` restarts the clock only when asked (--restart); the
    # last line says it waits at its prompt
    assert lines[-1].startswith("the clock is stopped at its prompt"), lines
    assert not os.path.exists(dest / ".incoming")
