#!/usr/bin/env python3
"""Where a press walks: the firmware files and the hops back into App.

    python tools/press_walk.py           # a player's press in a running game
    python tools/press_walk.py --first   # the press that starts the game
    python tools/press_walk.py --calls   # ... and every firmware call, in order

The real device app runs on the bench of host_sim/fakehw/rig.py (fake pins,
the HD44780 + PCF8574 emulator, virtual milliseconds).  A game is started and
played a little; then the right player's button closes (the pin IRQ), and
the main loop runs until the press is on the LCD and in the game log.  Every
call into a function of firmware/ in that time is traced (sys.setprofile),
and the tool prints:

  files  the firmware files whose code ran for the press;
  hops   the calls into App (firmware/app.py) made from another firmware
         file: a callback back into the app, a door the press walks through
         twice;
  App functions  the functions of App that ran for it (the loop's own
         included).

The figures of issue 22 ("files and hops a press walks from the pin to the
LCD and the log") are this tool's output; docs/architecture.md quotes them.
"""
import argparse
import os
import sys
import tempfile

import repo_root  # noqa: F401  (this checkout's host_sim and firmware)
import host_sim  # noqa: F401  (puts firmware/ and the fakes on sys.path)
from host_sim.boards import load as load_board
from rig import Rig, LEFT, RIGHT

FIRMWARE = os.path.join(repo_root.ROOT, "firmware")


def _firmware_name(code):
    path = os.path.abspath(code.co_filename)
    if os.path.dirname(path) == FIRMWARE:
        return os.path.basename(path)
    return None


def walk(board="sim", first=False):
    """(files, hops, calls) for one player's press in a running game, or
    (first=True) for the press that starts the game and opens its log."""
    with tempfile.TemporaryDirectory() as tmp:
        r = Rig(load_board(board), tmp + "/")
        r.run(1600)                # the boot screen
        if not first:
            r.press(LEFT)          # left starts the game: right's clock runs
            r.run(3000)
        screen_before = r.screen()
        calls = []
        hops = [0]

        def prof(frame, event, arg):
            if event != "call":
                return
            name = _firmware_name(frame.f_code)
            if name is None:
                return
            caller = frame.f_back
            by = _firmware_name(caller.f_code) if caller is not None else None
            calls.append((name, frame.f_code.co_name, by))
            if name == "app.py" and by is not None and by != "app.py":
                hops[0] += 1

        sys.setprofile(prof)
        try:
            r.down(RIGHT)          # the IRQ: the edge is stamped now
            r.run(30)              # SPEC v3 §6: seen within 30 ms
        finally:
            sys.setprofile(None)
        assert r.screen() != screen_before, "the press did not reach the LCD"
        assert r.clock.running() == LEFT, "the press did not start left's clock"
        assert r.app.session.on, "the game log is not open"
    files = sorted({c[0] for c in calls})
    return files, hops[0], calls


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", action="store_true", help="print every firmware call")
    p.add_argument("--board", default="sim")
    p.add_argument("--first", action="store_true",
                   help="the press that starts the game (it opens the game log)")
    a = p.parse_args(argv)
    files, hops, calls = walk(a.board, a.first)
    if a.calls:
        for name, fn, by in calls:
            print("%-14s %-24s <- %s" % (name, fn, by or "-"))
    print("files %d: %s" % (len(files), " ".join(files)))
    print("hops back into App: %d" % hops)
    app_fns = sorted({fn for name, fn, by in calls if name == "app.py"})
    print("App functions run %d: %s" % (len(app_fns), " ".join(app_fns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
