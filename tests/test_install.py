"""The hall and the simulator as an installed package (issue 35: "a
pyproject.toml gives the hall and the simulator console commands
installable with pip into any virtual environment, runtime dependencies
apart from the test ones").

The project is built into a wheel with this environment's own setuptools
(pip wheel --no-build-isolation --no-index: no network) from a copy of the
sources, installed with pip into a fresh virtual environment, and run from
a folder outside the checkout with no PYTHONPATH: both console commands
answer --help, the installed simulator replays a game to exactly the
checkout's report, and the installed hall reads a round's TSH pairings and
refuses `results` of an empty folder in one line.  The firmware's flat
modules are the installed package's copies (host_sim/paths.py's importer),
never the checkout's.
"""
import configparser
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

SOURCES = ("host_sim", "hall", "firmware", "boards", "pyproject.toml", "setup.py", "README.md")
MQTT_JS = os.path.join("build", "npm", "node_modules", "mqtt", "dist", "mqtt.min.js")
REPLAY = os.path.join(ROOT, "examples", "sdev_overtime.replay")
PAIRINGS = os.path.join(ROOT, "tests", "data", "open2026.t")


def _run(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh venv's bin folder, a folder outside the checkout, its env)."""
    top = tmp_path_factory.mktemp("install")
    src = top / "src"
    src.mkdir()
    for name in SOURCES:
        from_ = os.path.join(ROOT, name)
        if os.path.isdir(from_):
            shutil.copytree(from_, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(from_, src / name)
    if os.path.isfile(os.path.join(ROOT, MQTT_JS)):     # the page's library (make hall-page)
        os.makedirs(src / os.path.dirname(MQTT_JS))
        shutil.copy2(os.path.join(ROOT, MQTT_JS), src / MQTT_JS)
    wheels = top / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-index",
                  "--no-build-isolation", "--no-deps", "--wheel-dir", str(wheels), str(src)])
    assert built.returncode == 0, ("cannot build the wheel (make venv: requirements-test.txt "
                                   "pins a setuptools that builds wheels itself):\n"
                                   + built.stdout + built.stderr)
    wheel, = glob.glob(str(wheels / "scrabble_clock-*.whl"))
    venv = top / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)])
    assert made.returncode == 0, made.stderr
    bin_ = venv / "bin"
    put = _run([str(bin_ / "python"), "-m", "pip", "install", "--quiet", "--no-index",
                "--no-deps", wheel])
    assert put.returncode == 0, put.stdout + put.stderr
    away = top / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(top / "home"), XDG_DATA_HOME=str(top / "data"),
               PATH=str(bin_) + os.pathsep + env.get("PATH", ""))
    return bin_, away, env


def test_both_console_commands_and_python_m_answer_help(installed):
    bin_, away, env = installed
    for cmd, words in (([str(bin_ / "scrabble-hall"), "--help"], "usage: scrabble-hall"),
                       ([str(bin_ / "scrabble-clock-sim"), "--help"], "usage: scrabble-clock-sim"),
                       ([str(bin_ / "python"), "-m", "hall", "--help"], "usage: python -m hall"),
                       ([str(bin_ / "python"), "-m", "host_sim", "--help"],
                        "usage: python -m host_sim")):
        got = _run(cmd, cwd=str(away), env=env, timeout=120)
        assert got.returncode == 0 and got.stdout.startswith(words), (cmd, got.stderr)
    hall = _run([str(bin_ / "scrabble-hall"), "--help"], cwd=str(away), env=env).stdout
    assert "pairings" in hall and "clock-config" in hall
    # installed, the default hall folder is the user's, not a checkout's build/hall
    assert os.path.join(env["XDG_DATA_HOME"], "scrabble-hall") in hall.replace("\n", "")\
        .replace(" ", ""), hall


def test_the_installed_package_runs_its_own_firmware_copy(installed):
    """host_sim/paths.py's importer: the installed host_sim/firmware/ and
    fakehw/, never a checkout's (none is on the path from there); every
    firmware module shipped, the boards too, and the page's MQTT library."""
    bin_, away, env = installed
    got = _run([str(bin_ / "python"), "-c",
                "import json, host_sim, clockcore, machine, hall.paths; print(json.dumps("
                "[clockcore.__file__, machine.__file__, host_sim.paths.CHECKOUT, "
                "hall.paths.DEFAULT_DIR, host_sim.BOARDS, hall.paths.MQTT_JS]))"],
               cwd=str(away), env=env)
    assert got.returncode == 0, got.stderr
    core, fake, checkout, hall_dir, boards, mqtt_js = json.loads(got.stdout)
    site = str(bin_.parent)
    assert core.startswith(site) and core.endswith(os.path.join("host_sim", "firmware",
                                                                "clockcore.py")), core
    assert fake.startswith(site) and fake.endswith(os.path.join("fakehw", "machine.py")), fake
    assert checkout is False and hall_dir == os.path.join(env["XDG_DATA_HOME"], "scrabble-hall")
    assert os.path.isfile(os.path.join(boards, "sim.py")) and boards.startswith(site)
    firmware = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "firmware",
                                                                          "*.py")))
    shipped = sorted(os.path.basename(p) for p in glob.glob(os.path.join(os.path.dirname(core),
                                                                         "*.py")))
    assert shipped == firmware
    if os.path.isfile(os.path.join(ROOT, MQTT_JS)):      # setup.py ships the page's library
        assert mqtt_js.startswith(site) and os.path.isfile(mqtt_js), mqtt_js


def test_the_installed_simulator_replays_as_the_checkout_does(installed):
    bin_, away, env = installed
    here = _run([sys.executable, "-m", "host_sim", "replay", REPLAY, "--json"], cwd=ROOT)
    there = _run([str(bin_ / "scrabble-clock-sim"), "replay", REPLAY, "--json"],
                 cwd=str(away), env=env)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert json.loads(there.stdout) == json.loads(here.stdout)


def test_the_installed_hall_reads_pairings_and_refuses_in_one_line(installed, tmp_path):
    bin_, away, env = installed
    folder = str(tmp_path / "hall")
    got = _run([str(bin_ / "scrabble-hall"), "pairings", "--round", "1", PAIRINGS,
                "--dir", folder], cwd=str(away), env=env)
    assert got.returncode == 0, got.stderr
    assert re.match(r"round 1: \d+ tables from open2026\.t", got.stdout), got.stdout
    empty = _run([str(bin_ / "scrabble-hall"), "results", "--dir", str(tmp_path / "none")],
                 cwd=str(away), env=env)
    lines = empty.stderr.strip().splitlines()
    assert empty.returncode == 2 and len(lines) == 1 and "no results" in lines[0], empty.stderr


def test_runtime_and_test_requirements_are_apart(installed):
    """The package asks for its runtime dependencies only (pyproject.toml);
    requirements.txt pins exactly those; requirements-test.txt adds the
    tests' and tools' (pytest, hypothesis, selenium, ...) on top."""
    bin_, away, env = installed
    got = _run([str(bin_ / "python"), "-c", "import importlib.metadata as m, json; "
                "print(json.dumps(m.requires('scrabble-clock')))"], cwd=str(away), env=env)
    needs = {re.split(r"[<>=!~ ;]", r, 1)[0].lower() for r in json.loads(got.stdout)}
    with open(os.path.join(ROOT, "requirements.txt")) as f:
        pins = {line.split("==")[0].strip().lower() for line in f
                if line.strip() and not line.startswith("#")}
    assert needs == pins == {"paho-mqtt", "mpremote"}
    with open(os.path.join(ROOT, "requirements-test.txt")) as f:
        test = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    assert test[0] == "-r requirements.txt"
    named = {line.split("==")[0].lower() for line in test[1:]}
    assert {"pytest", "hypothesis", "selenium"} <= named and not named & pins
    assert all("==" in line for line in test[1:]), "every test requirement pinned"


def test_the_package_lists_every_package_of_the_house():
    """pyproject.toml's packages are the house's: every folder of host_sim/
    and hall/ holding Python (a new hall/x/ not listed would be missing
    from an installed hall), plus the firmware and boards as data."""
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    listed = set(re.findall(r'"([\w.]+)"', text.split("packages = [", 1)[1].split("]", 1)[0]))
    found = set()
    for top in ("host_sim", "hall"):
        for d, _dirs, files in os.walk(os.path.join(ROOT, top)):
            if "__pycache__" not in d and any(f.endswith(".py") for f in files):
                found.add(os.path.relpath(d, ROOT).replace(os.sep, "."))
    assert listed == found | {"host_sim.firmware", "host_sim.boardfiles"}
    ini = configparser.ConfigParser()
    ini.read(os.path.join(ROOT, "pytest.ini"))
    assert "firmware" in ini.get("pytest", "pythonpath").split()
