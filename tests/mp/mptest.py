# A tiny test runner that works under MicroPython (unix port) and CPython.
#
#   micropython tests/mp/mptest.py test_core_mp [test_other_mp ...]
#
# Imports each named module, runs every function whose name starts with
# "test_", prints one line per failure and a closing "N passed, N failed" line,
# and exits 1 if anything failed.  tests/test_micropython.py starts it as a
# subprocess for every tests/mp/test_*_mp.py module.
import sys


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def tmp_path(name):
    """Where a suite keeps its files: `name` in the folder the runner gives
    in SCLOCK_MP_TMP (tests/test_micropython.py: a fresh one for each run,
    so two runs at once never share files; the unix port has no getpid),
    else in /tmp (the qemu image's own, host_sim/target.py builds one per
    run).  The caller makes it."""
    import os
    getenv = getattr(os, "getenv", None)
    base = getenv("SCLOCK_MP_TMP") if getenv is not None else None
    return (base or "/tmp") + "/" + name


def run(names):
    passed = failed = 0
    for name in names:
        mod = __import__(name)
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            try:
                fn()
                passed += 1
            except Exception as e:  # report every failure, keep going
                failed += 1
                print("FAIL %s.%s: %s %s" % (name, attr, type(e).__name__, e))
                if hasattr(sys, "print_exception"):
                    sys.print_exception(e)
    print("%d passed, %d failed" % (passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if run(sys.argv[1:]) else 0)


def heap_bytes(fn, n=200):
    """Bytes allocated by n calls of fn (after one warm-up call).

    Counts with micropython.mem_total() where present: gc.mem_alloc() alone
    misses the short-lived heap frames MicroPython makes for calls whose
    locals + stack exceed VM_MAX_STATE_ON_STACK (freed on return), so the
    larger of the two deltas is reported."""
    import gc
    try:
        from micropython import mem_total
    except ImportError:
        mem_total = None
    fn()
    gc.collect()
    a = gc.mem_alloc()
    ta = mem_total() if mem_total else 0
    for _ in range(n):
        fn()
    b = gc.mem_alloc()
    tb = mem_total() if mem_total else 0
    return max(b - a, tb - ta)
