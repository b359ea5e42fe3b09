"""Rigs built on several threads at once each drive their own clock.

make bench runs the hall's rounds side by side (bench/run.py BESIDE), each
a fleet of simulated clocks (hall/rehearsal/clocks.py), so rigs are built
on several threads at the same time.  The fake machine is one world per
process (host_sim/fakehw/machine.py), which a rig's construction resets
and fills; interleaved, one rig took another clock's buttons, and its own
clock never saw a press (bench's hall_results_lost_sighup once stopped on
'game ready, 50 of 50 scripted key edges done').
"""
import sys
import tempfile
import threading

import clockcore as cc
from host_sim.sim import load_board
from rig import Rig, LEFT


def test_rigs_built_at_once_keep_their_own_buttons():
    board = load_board("sim")
    rigs = []
    failures = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads as often as possible
    try:
        with tempfile.TemporaryDirectory() as d:
            def build(k):
                try:
                    for j in range(3):
                        rig = Rig(board, "%s/c%d_%d/" % (d, k, j), step_ms=20,
                                  uid=bytes([0, 0, 0, 0, 0, 0, k, j]))
                        rigs.append((k, j, rig))
                except Exception as e:  # noqa: BLE001 - reported below
                    failures.append(repr(e))
            threads = [threading.Thread(target=build, args=(k,)) for k in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures
    assert len(rigs) == 18
    for k, j, rig in rigs:
        assert rig.pins == tuple(rig.app.buttons.pins[:3]), (k, j)
        assert rig.app.hall_source().clock_id() == "000000000000%02x%02x" % (k, j)
    # and each rig's press starts its own game, no other
    for k, j, rig in rigs:
        rig.run(2000)                       # past the splash
        rig.press(LEFT)
        assert rig.clock.state == cc.RUNNING, (k, j, rig.screen())
