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
from hallkit import PATIENT_S

COPY = ("firmware", "boards", "tools", "host_sim", "tests", "docs", "examples", "bench",
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


def sim_screen(repo, args, want, seconds=PATIENT_S):
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


# -- add a language: the table entry and the card -----------------------------------

def xx_word(key):
    """The throwaway language "xx": English with the case of every letter
    swapped (a different word in every field, the same width, ROM-safe)."""
    import lang
    return "Xx-Lang" if key == "LANG" else lang.text("en", key).swapcase()


def add_language_entry(repo):
    """The recipe's one code edit: an entry appended to lang._TABLES."""
    import lang
    entry = ['    ("xx", {']
    for k in lang._TEXT["en"]:
        entry.append("        %r: %r," % (k, xx_word(k)))
    entry.append("    }),")
    path = repo / "firmware" / "lang.py"
    text = path.read_text(encoding="utf-8")
    end = "\n)\nLANGS = tuple("
    assert text.count(end) == 1
    path.write_text(text.replace(end, "\n" + "\n".join(entry) + end), encoding="utf-8")


def add_card(repo):
    """The recipe's card: the German one's layout with xx's screens and
    xx's screen words in its code quotes (its prose stays German: the card
    checks only ask for no English)."""
    import lang
    shown = {}
    import view
    for k in lang._TEXT["en"]:
        shown[lang.word("de", k).decode("latin-1")] = xx_word(k)
        # (a card may quote a word as the LCD shows it: `BEREIT 2.drückt`)
        shown[view.to_text(lang.word("de", k))] = xx_word(k)
    text = (repo / "docs" / "quickref.de.md").read_text(encoding="utf-8")
    text = text.replace("screens/de_", "screens/xx_")
    text = re.sub(r"`([^`\n]+)`", lambda m: "`%s`" % shown.get(m.group(1), m.group(1)), text)
    (repo / "docs" / "quickref.xx.md").write_text(text, encoding="utf-8")


def test_add_a_language_is_the_table_and_the_card(repo):
    """docs/architecture.md "... a language": one entry in lang.py's table and
    the card, then `make screens`; the language checks pass for it, the
    setup menu offers it, and the simulator runs in it (--lang xx)."""
    add_language_entry(repo)
    add_card(repo)
    proc = run(repo, "tools/screens.py")                                 # make screens
    assert proc.returncode == 0, proc.stderr
    assert (repo / "docs" / "screens" / "xx_ready.svg").is_file()

    # the language checks (tests/test_lang.py) and the card and screen checks
    proc = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_lang.py",
               "-k", "xx")
    assert passed(proc) >= 5       # keys, no English, fits, ROM codes, its card
    proc = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_docs.py",
               "-k", "card or screen")
    assert passed(proc) >= 10
    assert "xx" in run(repo, "-m", "pytest", "-q", "--co", "-p", "no:cacheprovider",
                       "tests/test_docs.py", "-k", "card").stdout

    # the setup menu cycles into it and names it; settings keep it
    code = ("import sys; sys.path[:0] = ['firmware']\n"
            "import lang, settings, menu, setupmenu\n"
            "s = settings.Settings(); m = setupmenu.SetupMenu(s)\n"
            "print(lang.LANGS, settings.LANGS == lang.LANGS)\n"
            "import view\n"
            "rows = [bytearray(b' ' * 16), bytearray(b' ' * 16)]\n"
            "while view.to_text(m.render(rows)[0]).strip() != lang.text('en', 'T_LANG'):\n"
            "    m.handle(menu.A_NEXT)\n"
            "for _ in range(3): m.handle(menu.A_RIGHT)\n"
            "print(s.lang, view.to_text(m.render(rows)[1]).strip('<> '))\n")
    proc = run(repo, "-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["('en', 'de', 'pl', 'xx') True", "xx Xx-Lang"]

    # the simulator takes --lang xx and shows xx's words
    screen = sim_screen(repo, ["--lang", "xx"], xx_word("READY"))
    assert xx_word("READY") in screen
