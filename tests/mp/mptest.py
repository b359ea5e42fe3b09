# The test bench shared by both interpreters, and a tiny runner for MicroPython.
#
# A test file that imports this module is written once and runs twice:
# under pytest on CPython, and inside the `micropython` executable
# (tests/test_micropython.py; on the 32-bit qemu image, tests/test_target_qemu.py):
#
#   micropython tests/mp/mptest.py test_core [test_other ...]
#
# The runner imports each named module, runs every function whose name
# starts with "test_", prints one line per failure and a closing
# "N passed, N skipped, N failed" line, and exits 1 if anything failed.
#
# Tests that need one interpreter are marked so (decorators, below):
#   @cpython_only     pytest fixtures (tmp_path, monkeypatch, ...), hypothesis,
#                     files, subprocesses: the runner skips it
#   @micropython_only heap measurements (heap_bytes): pytest skips it
#   @parametrize("a, b", [(1, 2), ...])   pytest.mark.parametrize on
#                     CPython; the runner calls the test once per row
# MicroPython functions take no attributes, so the marks live in _MARKS.
import sys

MICROPYTHON = sys.implementation.name == "micropython"
if MICROPYTHON:
    pytest = None
else:
    import pytest

_MARKS = {}  # test function -> "cpython" / "micropython" / (names, rows)


def small_heap():
    """Running in a Pico-sized heap (the 32-bit image: 240 KB)?  A test
    whose data would not fit there takes a smaller sample."""
    if not MICROPYTHON:
        return False
    import gc
    gc.collect()
    return gc.mem_free() + gc.mem_alloc() < 1000000

if MICROPYTHON:
    class Random:
        """The few random.Random methods the tests use (MicroPython's random
        module has no class): a 64-bit xorshift, seeded like CPython's, so
        each seed gives its own repeatable stream (not CPython's numbers)."""

        def __init__(self, seed=0):
            self.s = (seed * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF or 1

        def _next(self):
            x = self.s
            x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
            x ^= x >> 7
            x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
            self.s = x
            return x

        def random(self):
            return (self._next() >> 11) / 9007199254740992

        def randrange(self, a, b=None):
            if b is None:
                a, b = 0, a
            return a + self._next() % (b - a)

        def randint(self, a, b):
            return self.randrange(a, b + 1)

        def uniform(self, a, b):
            return a + (b - a) * self.random()

        def choice(self, seq):
            return seq[self.randrange(len(seq))]

        def expovariate(self, lambd):
            import math
            return -math.log(1.0 - self.random()) / lambd
else:
    from random import Random  # noqa: F401  (the tests' numbers stay CPython's)


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def raises(exc, fn, *args):
    """fn(*args) raises exc (both interpreters; pytest.raises is CPython's)."""
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s not raised" % exc.__name__)


def cpython_only(fn):
    _MARKS[fn] = "cpython"
    return fn


def micropython_only(fn):
    if MICROPYTHON:
        _MARKS.setdefault(fn, "micropython")  # keeps a parametrize below it
        return fn
    return pytest.mark.skip(reason="MicroPython only (tests/test_micropython.py runs it)")(fn)


def parametrize(names, rows, ids=None):
    rows = list(rows)

    def mark(fn):
        if MICROPYTHON:
            _MARKS[fn] = (names, rows)
            return fn
        return pytest.mark.parametrize(names, rows, ids=ids)(fn)
    return mark



def _call(fn, mark):
    if mark is None or mark == "micropython":
        fn()
        return 1
    if isinstance(mark, tuple):
        single = "," not in mark[0]
        for row in mark[1]:
            if single:
                fn(row)
            else:
                fn(*row)
        return len(mark[1])  # one test a row, as pytest counts them
    return 0  # cpython only

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


AFTER = []      # what a test leaves behind, let go after each (norflash: its mounts)


def _after(before):
    """After a test: what it left behind let go, and the modules it imported
    itself (a test's own `import rig`, the whole app: on the 32-bit image's
    240 KB heap two such tests left 26 KB free for the next ones)."""
    import gc
    for f in AFTER:
        f()
    for k in list(sys.modules):
        if k not in before:
            del sys.modules[k]
    gc.collect()    # (the next test starts on a heap without the last one's garbage)


def run(names):
    passed = skipped = failed = 0
    for name in names:
        mod = __import__(name)
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            before = set(sys.modules)
            try:
                n = _call(fn, _MARKS.get(fn))
                passed += n
                skipped += not n
            except Exception as e:  # report every failure, keep going
                failed += 1
                print("FAIL %s.%s: %s %s" % (name, attr, type(e).__name__, e))
                if hasattr(sys, "print_exception"):
                    sys.print_exception(e)
            _after(before)
    print("%d passed, %d skipped, %d failed" % (passed, skipped, failed))
    return failed


def bytes_left(fn, n=200, warm=1):
    """Bytes still allocated after n calls of fn (gc.mem_alloc() only:
    garbage left behind; heap_bytes() also counts what was freed at once)."""
    import gc
    for _ in range(warm):
        fn()
    gc.collect()
    a = gc.mem_alloc()
    for _ in range(n):
        fn()
    return gc.mem_alloc() - a


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


if __name__ == "__main__":
    import mptest  # the module the tests import (and mark in), not __main__
    sys.exit(1 if mptest.run(sys.argv[1:]) else 0)
