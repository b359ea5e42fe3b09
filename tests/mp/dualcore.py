# The RP2040's two cores as MicroPython's rp2 port uses them (_thread runs
# its thread on core 1: pico_multicore's launch over the FIFOs, spinlock
# mutexes, multicore_lockout around flash writes).  tests/test_target_dualcore.py
# pastes this file into the emulated Pico's REPL and calls check(); nothing
# here is timed (only counts, and the order things happened in).
import _thread
import os
import time

try:
    import machine
    SIO_CPUID = 0xD0000000

    def core():
        return machine.mem32[SIO_CPUID]
except ImportError:       # (not a board: one core)
    def core():
        return 0


def _count(st, lock):
    """Core 1: who it is, a sleep, then counting (each under the lock) until
    told to stop; the counts it saw core 0 at while core 0 counted."""
    st["core"] = core()
    time.sleep_ms(5)
    st["slept"] = 1
    while st["go"]:
        with lock:
            st["n1"] += 1
            st["shared"] += 1
        if st["n0"] and not st["seen0"]:
            st["seen0"] = st["n0"]
    st["end"] = 1


def _ident(out):
    out.append((core(), _thread.get_ident()))


def _wait(st, key, ms=3000):
    t = time.ticks_ms()
    while not st[key] and time.ticks_diff(time.ticks_ms(), t) < ms:
        pass
    return st[key]


def check(n=3000, lines=40):
    lock = _thread.allocate_lock()
    st = {"core": -1, "slept": 0, "go": 1, "n0": 0, "n1": 0, "shared": 0, "seen0": 0,
          "end": 0, "n1_at_start0": 0, "n1_at_end0": 0, "n1_before_write": 0,
          "n1_after_write": 0}
    r = {"core0": core(), "ident0": _thread.get_ident()}
    _thread.start_new_thread(_count, (st, lock))
    _wait(st, "n1")
    # both cores count at once: core 0 n times under the same lock
    st["n1_at_start0"] = st["n1"]
    for _ in range(n):
        with lock:
            st["n0"] += 1
            st["shared"] += 1
    st["n1_at_end0"] = st["n1"]
    # a file written (flash erased and programmed) on core 0 while core 1 counts
    st["n1_before_write"] = st["n1"]
    row = "0123456789" * 10
    with open("dualcore.txt", "w") as f:
        for i in range(lines):
            f.write("%03d %s\n" % (i, row))
    st["n1_after_write"] = st["n1"]
    with open("dualcore.txt") as f:
        back = f.read()
    os.remove("dualcore.txt")
    st["go"] = 0
    _wait(st, "end")
    r["file_ok"] = back == "".join("%03d %s\n" % (i, row) for i in range(lines))
    r.update(st)
    # core 1 again, for a second thread once the first has ended
    out = []
    _thread.start_new_thread(_ident, (out,))
    t = time.ticks_ms()
    while not out and time.ticks_diff(time.ticks_ms(), t) < 3000:
        pass
    r["second"] = out
    return r
