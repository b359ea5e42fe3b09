"""The emulated Pico's second core (issue 29: the TLS handshake runs on the
RP2040's core 1, so the emulated Pico must have one): target/core1.js on
rp2040js, checked with the official RPI_PICO image's `_thread` (pico-sdk's
multicore_launch_core1 through the boot ROM's core-1 wait, the inter-core
FIFOs, spinlock mutexes, multicore_lockout around a flash write).  Counts
and orders only, nothing timed.  On the single-core emulator the first
start_new_thread never returns (core 0 waits for core 1's FIFO reply).
"""
import ast
import os

from conftest import need
from host_sim import target

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "dualcore.py")
N = 3000


def test_thread_runs_on_core_1_beside_core_0(tmp_path):
    need(target.pico_missing())
    pico = target.Pico(str(tmp_path / "flash.bin")).start()   # the official image, no app
    try:
        pico.run_to(1500)
        s0 = pico.stats()
        assert s0["core1_launches"] == 0
        # at power-up core 1 ran the boot ROM to its wait: it drained its
        # FIFO and pushed the one word (0) that says so
        assert s0["fifo_words1"] == 1, s0
        with open(SCRIPT) as f:
            code = f.read()
        line = pico.paste(code + "\nprint('DC', check(%d))\n" % N, "DC ", timeout_s=300)
        assert line is not None, pico.pasted[-1500:]
        r = ast.literal_eval(line)
        s = pico.stats()
    finally:
        pico.stop()
    # _thread.get_ident() is the core number + 1 on rp2; SIO CPUID tells
    # each core its own number
    assert (r["core0"], r["ident0"]) == (0, 1), r
    assert r["core"] == 1, r
    assert r["second"] == [(1, 2)], r          # a second thread, core 1 relaunched
    # core 1 slept (time.sleep_ms on core 1) and counted ...
    assert r["slept"] == 1 and r["end"] == 1, r
    # ... while core 0 counted: core 1 saw core 0 part-way, and went on
    # counting during core 0's n increments
    assert 0 < r["seen0"], r
    assert r["n1_at_end0"] > r["n1_at_start0"], r
    # the lock: every increment of the shared counter survived
    assert r["n0"] == N, r
    assert r["shared"] == r["n0"] + r["n1"], r
    # a file written on core 0 while core 1 ran reads back whole; core 1
    # went on between the flash operations (multicore_lockout parks it in
    # its FIFO IRQ during each)
    assert r["file_ok"], r
    assert r["n1_after_write"] > r["n1_before_write"], r
    assert s["programs"] > s0["programs"] and s["erases"] >= s0["erases"], (s0, s)
    # two launches; each the six-word handshake (0, 0, 1, VTOR, SP, entry)
    # echoed; the other words core 0 sent are lockout requests (at least the
    # file's erase and its programs), each taken in core 1's FIFO IRQ and
    # acknowledged
    assert s["core1_launches"] == 2, s
    lockouts = s["fifo_words0"] - 2 * 6
    assert lockouts >= 2, s
    assert s["fifo_irqs1"] >= lockouts, s
    assert s["fifo_words1"] >= 1 + 2 * 7 + lockouts, s
    assert s["core1_busy_ns"] > 0, s
