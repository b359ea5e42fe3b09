"""Patience for the host programs on an emulated board's USB line (issue 37).

host_sim/target.py runs a host program against the emulated Pico's REPL
(Pico.with_pty, Pico.plug) with this folder first on PYTHONPATH and
SCRABBLE_PATIENCE=N in its environment; Python then imports this file at
start-up in that program and in every Python program it starts (make
deploy -> tools/deploy.py -> mpremote).

The emulated board runs slower than a real one, and far slower on a host
loaded with other work (10-50 times on a busy 2-core CI machine), while the
real-time limits of those programs are tuned for a real board: mpremote
gives up after 10 s without a character from the board (SerialTransport
.read_until: "timeout waiting for first EOF reception", "could not enter
raw repl"), tools/deploy.py and `host_sim logs` after 300 s per mpremote
command (host_sim/usb.py TIMEOUT_S).  Each of those limits is made N times
longer as its module is imported; nothing else changes (the same mpremote
code, the same bytes on the line, the same results), so a run proves what
it proved on a real board, however slow the host.
"""
import importlib.abc
import os
import sys


def _mpremote(mod, n):
    """mpremote.transport_serial: every wait for the board's characters
    (read_until's timeout between characters and timeout_overall: exec_raw's
    follow, enter_raw_repl, the raw-paste handshake all come through it)."""
    cls = mod.SerialTransport
    read_until = cls.read_until

    def patient_read_until(self, min_num_bytes, ending, timeout=10, data_consumer=None,
                           timeout_overall=None):
        return read_until(self, min_num_bytes, ending,
                          None if timeout is None else timeout * n, data_consumer,
                          None if timeout_overall is None else timeout_overall * n)
    cls.read_until = patient_read_until


def _usb(mod, n):
    """host_sim.usb: the time limit of one mpremote command."""
    mod.TIMEOUT_S = int(mod.TIMEOUT_S * n)


PATCHES = {"mpremote.transport_serial": _mpremote, "host_sim.usb": _usb}


class PatientFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of PATCHES as the other finders do, and patches each
    once its own code has run."""

    def __init__(self, n):
        self.n = n

    def find_spec(self, name, path=None, target=None):
        if name not in PATCHES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        run, patch, n = spec.loader.exec_module, PATCHES[name], self.n

        def exec_module(module):
            run(module)
            patch(module, n)
        spec.loader.exec_module = exec_module
        return spec


def install():
    try:
        n = float(os.environ.get("SCRABBLE_PATIENCE") or 0)
    except ValueError:
        n = 0
    if n > 1:
        sys.meta_path.insert(0, PatientFinder(n))


install()
