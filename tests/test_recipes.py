"""The recipes of docs/architecture.md ("How to add ..."), followed for real.

Issue 13: "add a board" is one file, "add a language" is the table in
firmware/lang.py plus its card.  Each test copies the repository's code into
a temporary folder, makes exactly the edits the recipe names (nothing else),
runs the generators the recipe names (`make wiring`, `make screens`) and then
the project's own checks for that extension there: the board and language
tests, the simulator started on the new board / language, deploy --dry-run.
"""
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, venv_tool

COPY = ("firmware", "boards", "tools", "host_sim", "tests", "docs", "examples",
        "README.md", "pytest.ini")
VENV_BIN = os.path.join(ROOT, ".venv", "bin")


@pytest.fixture
def repo(tmp_path):
    dst = tmp_path / "repo"
    dst.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "node_modules")
    for name in COPY:
        src = os.path.join(ROOT, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst / name, ignore=ignore)
        else:
            shutil.copy(src, dst / name)
    return dst


def run(repo, *args, timeout=600):
    env = dict(os.environ, PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable] + list(args), cwd=str(repo), env=env,
                          capture_output=True, text=True, timeout=timeout)


def passed(proc):
    """pytest's summary: (passed, failed) counts."""
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    m = re.search(r"(\d+) passed", proc.stdout)
    return int(m.group(1)) if m else 0


def sim_screen(repo, args, want, seconds=30):
    """Start `python -m host_sim sim ARGS` on a pseudo-terminal, read its
    screen until `want` shows (or time runs out), quit with q; the text seen."""
    env = dict(os.environ, TERM="xterm", LINES="24", COLUMNS="80")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the simulator on the pty
        os.chdir(str(repo))
        os.execve(sys.executable, [sys.executable, "-m", "host_sim", "sim"] + args, env)
    seen = b""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and want.encode() not in seen:
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
        os.write(fd, b"q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return seen.decode("utf-8", "replace")


# -- add a board: one file -------------------------------------------------------------

BOARD_FILE = '''# A throwaway board (tests/test_recipes.py): the Pico wiring with the
# buzzer moved to GP22 and no right LED, on a 20x4 display.
from pico import *  # noqa: F401,F403

NAME = "Raspberry Pi Pico (RP2040), recipe test"
LCD_COLS = 20
LCD_ROWS = 4
BUZZER = 22
LED_RIGHT = None
'''

SIM_BOARD_FILE = '''# A throwaway simulator board (tests/test_recipes.py).
from pico_recipe import *  # noqa: F401,F403

NAME = "Host simulator, recipe test"
MCU = None
'''


def test_add_a_board_is_one_file(repo):
    """docs/architecture.md "... a board": the file, then `make wiring`;
    the board checks pass for it, deploy writes it as one board.py, and the
    simulator runs a board derived from it."""
    (repo / "boards" / "pico_recipe.py").write_text(BOARD_FILE)
    (repo / "boards" / "sim_recipe.py").write_text(SIM_BOARD_FILE)
    proc = run(repo, "tools/wiring.py", "--all")                     # make wiring
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert (repo / "docs" / "wiring" / "pico_recipe.svg").is_file()
    assert "<!-- wiring-table:pico_recipe " in (repo / "docs" / "build.md").read_text()
    assert not (repo / "docs" / "wiring" / "sim_recipe.svg").exists()

    # the board checks: every check of tests/test_boards.py, the new board's too
    proc = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_boards.py")
    assert passed(proc) >= 85      # 70 before the two new files
    proc = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_boards.py",
               "-k", "pico_recipe")
    assert passed(proc) >= 10      # names, pins, ADC, I2C mux, SVG, build.md, MicroPython
    table = (repo / "docs" / "build.md").read_text()
    assert "| GP22 (pin 29) | 22 | `BUZZER` |" in table

    # the hardware built from it (firmware/hw.py, on the fake machine)
    proc = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_hw.py",
               "-k", "recipe")
    assert passed(proc) >= 8

    # deploy: one self-contained board.py
    build = repo / "build" / "deploy-pico_recipe"
    proc = run(repo, "tools/deploy.py", "deploy", "--board", "pico_recipe", "--dry-run",
               "--build-dir", str(build))
    assert proc.returncode == 0, proc.stderr
    assert "mpremote" in proc.stdout
    board_py = (build / "board.py").read_text()
    assert "import" not in re.sub(r"#.*", "", board_py)
    assert board_py.rstrip().endswith("LED_RIGHT = None")

    # the simulator on the derived simulator board: a 20x4 screen
    screen = sim_screen(repo, ["--board", "sim_recipe"], "20x4")
    assert "20x4" in screen
