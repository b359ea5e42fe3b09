"""What every bench module shares: a published figure, its number format,
the error that says a figure could not be measured, and finding a tool
(.venv first).  bench/run.py collects the figures; bench/hall_bench.py and
bench/target_bench.py measure some of them."""
import os
import shutil

from host_sim import ROOT


class BenchError(Exception):
    """A figure could not be measured."""


class Figure:
    """One published number.  `goal` is a short text, `met` True/False/None
    (None: no goal)."""

    def __init__(self, name, value, unit, baseline, what, baseline_what,
                 goal="", met=None, notes=()):
        self.name = name
        self.value = value
        self.unit = unit
        self.baseline = baseline
        self.what = what
        self.baseline_what = baseline_what
        self.goal = goal
        self.met = met
        self.notes = list(notes)

    def line(self):
        return "%s: %s %s (baseline: %s)" % (self.name, fmt(self.value), self.unit,
                                             fmt(self.baseline))


def fmt(v):
    if isinstance(v, bool) or v is None:
        raise BenchError("not a number: %r" % (v,))
    if isinstance(v, int):
        return "%d" % v
    if v != v or v in (float("inf"), float("-inf")):
        raise BenchError("not a finite number: %r" % (v,))
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 1:
        return "%.1f" % v
    return "%.3g" % v


def tool(name):
    cand = os.path.join(ROOT, ".venv", "bin", name)
    if os.path.exists(cand):
        return cand
    found = shutil.which(name)
    if not found:
        raise BenchError("%s not found (run `make venv`)" % name)
    return found
