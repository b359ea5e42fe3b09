"""The one board loader of the PC side (simulator, tools, tests, bench).

A board file (boards/<name>.py, boards/README.md) may derive from another
one: `from pico import *`, then the names it changes.  The device only ever
gets ONE file, board.py, so `source()` flattens the chain: each
`from <board> import *` line is replaced by that board's (flattened) text,
framed by two comments, and the overrides follow it.  That text is what
`make deploy`/`make bundle` write as board.py, still plain source an
organizer can edit in Thonny; `load()` runs the very same text, so the PC
sees exactly the board the device gets.  Under MicroPython with boards/ on
MICROPYPATH (tests/mp) the `import *` simply runs, to the same names.

Standard library only: tools/deploy.py and tools/wiring.py use it too.
"""
import os
import re
import types

from host_sim.paths import BOARDS as BOARDS_DIR, ROOT  # noqa: F401  (the host's folders, in one place)

_BASE = re.compile(r"^from\s+([A-Za-z_]\w*)\s+import\s+\*\s*(#.*)?$")


class BoardError(ValueError):
    """An unknown board, or a board file that cannot be flattened (one line)."""


def names(boards_dir=BOARDS_DIR):
    """Every board name (boards/<name>.py; files starting with _ are not boards)."""
    return sorted(f[:-3] for f in os.listdir(boards_dir)
                  if f.endswith(".py") and not f.startswith("_"))


def path(name, boards_dir=BOARDS_DIR):
    """boards/<name>.py; BoardError naming the boards there if it is not one."""
    p = os.path.join(boards_dir, name + ".py")
    if not re.match(r"^[A-Za-z_]\w*$", name) or not os.path.isfile(p):
        raise BoardError("no board file boards/%s.py (boards: %s)"
                         % (name, ", ".join(names(boards_dir))))
    return p


def bases(name, boards_dir=BOARDS_DIR):
    """The boards `name` derives from, nearest first."""
    out = []
    with open(path(name, boards_dir), encoding="utf-8") as f:
        for line in f:
            m = _BASE.match(line.rstrip("\n"))
            if m:
                out.append(m.group(1))
                out += bases(m.group(1), boards_dir)
    return out


def source(name, boards_dir=BOARDS_DIR, _seen=()):
    """The board as one self-contained file: the board.py the device gets."""
    if name in _seen:
        raise BoardError("boards/%s.py: derives from itself (%s)"
                         % (name, " -> ".join(_seen + (name,))))
    with open(path(name, boards_dir), encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _BASE.match(line)
        if not m:
            out.append(line)
            continue
        base = m.group(1)
        try:
            text = source(base, boards_dir, _seen + (name,))
        except BoardError as e:
            raise BoardError("boards/%s.py:%d: %s" % (name, i + 1, e))
        out.append("# ---- boards/%s.py (written in here by deploy: %s.py derives "
                   "from it) ----" % (base, name))
        out += text.splitlines()
        out.append("# ---- end of boards/%s.py; the rest is boards/%s.py ----"
                   % (base, name))
    return "\n".join(out) + "\n"


def load(name, boards_dir=BOARDS_DIR, module="board"):
    """boards/<name>.py as the `board` module the app expects."""
    mod = types.ModuleType(module)
    mod.__file__ = path(name, boards_dir)
    exec(compile(source(name, boards_dir), mod.__file__, "exec"), mod.__dict__)
    return mod


def is_hardware(mod):
    """A board for a real MCU (MCU set), not the simulator's fake machine."""
    return getattr(mod, "MCU", None) is not None
