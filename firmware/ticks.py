# Millisecond tick source, the same API on the device and on a PC.
#
# On MicroPython this is time.ticks_ms/ticks_diff/ticks_add (which wrap at the
# port's period, 2**30 ms on the boards).  On CPython it emulates the boards'
# 2**30 period exactly, so host runs exercise the wrap-around arithmetic too.
def wrapping(period):
    """ticks_diff/ticks_add for an arbitrary power-of-two period (tests inject
    these to run scenarios across the boards' 2**30 wrap on any port).

    Every intermediate value stays inside (-period, period): with period =
    2**30 on a 32-bit port (31-bit small ints) nothing becomes a heap bigint,
    so the pair allocates nothing, like the C time.ticks_diff/ticks_add
    (issue 11: `(t + d) & mask` allocated 64 B per call near the wrap)."""
    half = period >> 1
    mask = period - 1

    def diff(a, b):
        d = a - b
        if d >= half:
            return d - mask - 1
        if d < -half:
            return d + mask + 1
        return d

    def add(t, d):
        d &= mask
        room = mask - d
        if t > room:
            return t - room - 1
        return t + d

    return diff, add


try:
    from time import ticks_ms, ticks_diff, ticks_add  # MicroPython
except ImportError:  # CPython: the boards' period, through wrapping()
    import time as _time

    PERIOD = 1 << 30
    ticks_diff, ticks_add = wrapping(PERIOD)

    def ticks_ms():
        return int(_time.monotonic() * 1000) & (PERIOD - 1)


try:
    from time import sleep_ms  # MicroPython
except ImportError:  # CPython
    def sleep_ms(ms):
        _time.sleep(ms / 1000)
