"""Issue 28: the 16x2's LCD traffic is the same, byte for byte, after the
display path was rebuilt (screens render a display-neutral frame, display
families draw it).

tests/lcd_traffic.py plays a scripted game on the rig (the real app, the
HD44780 + PCF8574 emulator on the fake I2C bus, virtual time) and records
every I2C transfer to the LCD with its virtual ms.  tests/data/
lcd16x2_traffic.json holds, per phase of the script, the sha256 of those
transfers, their count and bytes, and the screen at the phase's end, as
recorded on the code before the change (main at 9739295); the phases that
show READY (and the presses that leave it) re-recorded for issue 37, whose
READY screen says who presses to start (`READY 2nd press`, firmware/
view.py), and the phase `end` for SPEC v5's keys (under END? the player
buttons answer and start no clock: fewer transfers).  A phase whose
traffic differs fails here, named."""
import json
import os

import lcd_traffic
from conftest import ROOT


def test_16x2_traffic_is_byte_for_byte_the_recorded_one(tmp_path):
    from host_sim.boards import load
    with open(os.path.join(ROOT, "tests", "data", "lcd16x2_traffic.json")) as f:
        want = json.load(f)
    phases, _ = lcd_traffic.record(load("sim"), str(tmp_path) + "/")
    got = lcd_traffic.digests(phases)
    assert [p[0] for p in got] == [p[0] for p in want]
    for g, w in zip(got, want):
        assert g[4:] == w[4:], "phase %r ends on another screen: %r" % (g[0], g)
        assert g[1:4] == w[1:4], "phase %r: other LCD traffic (%d transfers, %d bytes; " \
            "recorded %d, %d)" % (g[0], g[2], g[3], w[2], w[3])
