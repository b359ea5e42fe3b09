"""The device app end to end on emulated hardware (issue: device firmware).

The scenarios live in tests/mp/device_scenarios.py so that exactly the same
code also runs under the real MicroPython interpreter
(tests/mp/test_device_mp.py, started by tests/test_micropython.py).
"""
import importlib.util
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "mp"))
import device_scenarios as ds  # noqa: E402


def load_board(name):
    spec = importlib.util.spec_from_file_location("board_" + name,
                                                  os.path.join(ROOT, "boards", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("scenario", ds.SCENARIOS, ids=lambda f: f.__name__)
def test_device_scenario(tmp_path, scenario):
    scenario(load_board("sim"), ds.fresh_dir(str(tmp_path / "clock")))


def test_device_20x4(tmp_path):
    ds.scenario_20x4_layout(load_board("sim_2004"), ds.fresh_dir(str(tmp_path / "clock")))


def test_power_cut_log_replays_to_the_live_clock(tmp_path):
    """SPEC §4 Game log: the log the clock wrote through a power cut replays
    (python -m host_sim replay) to exactly the live clock's final state."""
    from host_sim import replay

    root = ds.fresh_dir(str(tmp_path / "clock"))
    rig = ds.scenario_power_cut(load_board("sim"), root)
    games = sorted(os.listdir(root + "games"))
    assert len(games) == 1, games
    text = open(root + "games/" + games[0]).read()
    assert "# power restored" in text
    game = replay.parse(text.split("\n"))
    clock, _ = replay.run(game)
    live = rig.clock
    assert clock.state == live.state == 3
    assert clock.rem == live.rem
    assert clock.rules.name == "sdev"
