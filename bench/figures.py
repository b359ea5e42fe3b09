"""What every bench module shares: a published figure, its number format,
the error that says a figure could not be measured, finding a tool (.venv
first), and running measurements side by side.  bench/run.py collects the figures; bench/hall_bench.py and
bench/target_bench.py measure some of them."""
import dataclasses
import os
import shutil

from host_sim import ROOT


class BenchError(Exception):
    """A figure could not be measured."""


@dataclasses.dataclass(eq=False)
class Figure:
    """One published number.  `goal` is a short text, `met` True/False/None
    (None: no goal)."""
    name: str
    value: object
    unit: str
    baseline: object
    what: str
    baseline_what: str
    goal: str = ""
    met: object = None
    notes: list = dataclasses.field(default_factory=list)

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


def side_by_side(*calls):
    """Each call (a function of no arguments) in a thread of its own, all at
    once; their results, in order.  Under make bench the emulators they
    start wait for target.Pico.slots, so no more run than the machine has
    cores for."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
        futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]
