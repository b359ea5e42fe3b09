"""Shared pytest set-up: put the device's flat module folders on sys.path.

firmware/ is what goes onto the clock (flat modules, imported as `import
clockcore`); host_sim/fakehw/ holds the hardware fakes (machine, the HD44780 +
PCF8574 emulator) that the host runs in place of real pins and buses.
"""
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKEHW = os.path.join(ROOT, "host_sim", "fakehw")
MP_TESTS = os.path.join(ROOT, "tests", "mp")  # benches shared with the MicroPython suites
for p in (MP_TESTS, FIRMWARE, FAKEHW, ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)


def venv_tool(name):
    """A tool from the project's .venv (or PATH); None if not installed."""
    cand = os.path.join(ROOT, ".venv", "bin", name)
    if os.path.exists(cand):
        return cand
    return shutil.which(name)


def need(why):
    """A target-run prerequisite is missing (`why`, one line, or None): skip,
    or fail under CI=true, where the target run must not be skipped."""
    if why:
        import pytest
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
