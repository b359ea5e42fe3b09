# Millisecond tick source, the same API on the device and on a PC.
#
# On MicroPython this is time.ticks_ms/ticks_diff/ticks_add (which wrap at the
# port's period, 2**30 ms on the boards).  On CPython it emulates the boards'
# 2**30 period exactly, so host runs exercise the wrap-around arithmetic too.
try:
    from time import ticks_ms, ticks_diff, ticks_add  # MicroPython
except ImportError:  # CPython
    import time as _time

    PERIOD = 1 << 30
    _HALF = PERIOD >> 1
    _MASK = PERIOD - 1

    def ticks_ms():
        return int(_time.monotonic() * 1000) & _MASK

    def ticks_diff(a, b):
        return ((a - b + _HALF) & _MASK) - _HALF

    def ticks_add(t, d):
        return (t + d) & _MASK


def wrapping(period):
    """ticks_diff/ticks_add for an arbitrary power-of-two period (tests inject
    these to run scenarios across the boards' 2**30 wrap on any port)."""
    half = period >> 1
    mask = period - 1

    def diff(a, b):
        return ((a - b + half) & mask) - half

    def add(t, d):
        return (t + d) & mask

    return diff, add


try:
    from time import sleep_ms  # MicroPython
except ImportError:  # CPython
    def sleep_ms(ms):
        _time.sleep(ms / 1000)
