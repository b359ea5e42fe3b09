"""python -m host_sim COMMAND ...  (see --help)."""
import argparse
import json
import sys

import host_sim  # noqa: F401
from host_sim import console


def cmd_replay(args):
    from host_sim import replay

    def warn(line, msg):
        print("%s:%d: %s" % (args.file, line, msg), file=sys.stderr)

    game = replay.load_or_report(args.file, sys.stderr)
    if game is None:
        return 2
    cols, rows = args.lcd
    late = replay.past_end(game, args.at, args.file)
    if late:
        print(late, file=sys.stderr)   # one line; the state is still printed
    if args.timeline:
        return _timeline(game, args, warn)
    clock, at = replay.run(game, args.at, warn)
    rep = replay.report(clock, at, cols, rows, game.lang)
    if args.json:
        _out(json.dumps(rep, ensure_ascii=False), lambda enc: json.dumps(rep))
    else:
        text = replay.summary(rep)
        _out(text, lambda enc: text.encode(enc, "replace").decode(enc))
    return 0


def _timeline(game, args, warn):
    """`replay --timeline`: every moment of the game (host_sim/timeline.py),
    then the state report at its end (or at --at) as `replay` prints it."""
    from host_sim import replay, timeline
    cols, rows = args.lcd
    if args.json:
        got, clock, at = timeline.steps(game, args.at, cols, rows, warn=warn)
        out = [dict(st.rep, event=st.what, side=_side_name(st.side), note=st.note,
                    ignored=st.ignored, lcd=st.lcd) for st in got]
        out.append(replay.report(clock, at, cols, rows, game.lang))
        _out(json.dumps(out, ensure_ascii=False), lambda enc: json.dumps(out))
        return 0
    lines, clock, at = timeline.lines(game, args.at, cols, rows, warn=warn)
    rep = replay.report(clock, at, cols, rows, game.lang)
    text = "\n".join(lines + [""] + replay.summary(rep).split("\n"))
    _out(text, lambda enc: text.encode(enc, "replace").decode(enc))
    return 0


def _side_name(s):
    return ("left", "right")[s] if s in (0, 1) else None


def cmd_sim(args):
    from host_sim import sim
    return sim.run(args)


def cmd_logs(args):
    from host_sim import logs
    return logs.main(port=args.port, dest=args.dest, dry_run=args.dry_run,
                     reset=args.restart)


def _out(text, fallback):
    """Print text; if stdout cannot encode the LCD glyphs (a Windows console
    or pipe in cp1252, PYTHONIOENCODING=ascii), print fallback() instead: the
    JSON with \\u escapes (the same object), the summary with '?' for them."""
    enc = sys.stdout.encoding or "utf-8"
    try:
        text.encode(enc)
    except UnicodeEncodeError:
        text = fallback(enc)
    print(text)


def _ms(text):
    from host_sim import replay
    try:
        return replay.parse_at(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _geometry(text):
    if text not in ("16x2", "20x4"):
        raise argparse.ArgumentTypeError("expected 16x2 or 20x4")
    c, r = text.split("x")
    return int(c), int(r)


def main(argv=None):
    """The command line; a closed output pipe (`... | head -c1`) ends it
    quietly, with status 1 and no traceback."""
    return console.quiet_pipe(_main, argv)


def _main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["hall"]:
        # the hall is a package of its own (docs/hall.md): one line says so
        print("%s: the hall is its own command now: python -m hall %s"
              % (console.prog("host_sim"), " ".join(argv[1:])), file=sys.stderr)
        return 2
    p = console.Parser(prog=console.prog("host_sim"),
                description="Scrabble clock: simulator and tools")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("replay", help="replay a game log / replay file and print the state")
    r.add_argument("file")
    r.add_argument("--at", type=_ms, default=None, metavar="TIME",
                   help="apply events up to TIME and let time run to TIME: "
                        "milliseconds (1250000), mm:ss (20:50) or h:mm:ss (1:20:50), "
                        "counted as the log's times")
    r.add_argument("--json", action="store_true", help="print one JSON object (with "
                   "--timeline: a list, one object a moment, the report at the end last)")
    r.add_argument("--timeline", action="store_true",
                   help="the whole game as a referee reads it: each event and each flag, "
                        "forfeit and window end at its time, both times, whose turn, the "
                        "marks and the display, in the log's language; then the state")
    r.add_argument("--lcd", type=_geometry, default=(16, 2), metavar="16x2|20x4",
                   help="display geometry for the lcd rows (default 16x2)")
    r.set_defaults(func=cmd_replay)
    g = sub.add_parser("logs", help="copy the game logs off a clock (mpremote) and list them")
    g.add_argument("--port", default=None, help="serial port (default: the first board found)")
    g.add_argument("--dest", default="clock-games", help="folder for the logs (default clock-games)")
    g.add_argument("--dry-run", action="store_true", help="print the mpremote command only")
    g.add_argument("--restart", action="store_true",
                   help="restart the clock afterwards (a game in progress comes back "
                        "paused); default: leave it stopped at its prompt, as the copy "
                        "left it, until it is switched off and on (issue 27)")
    g.add_argument("--no-reset", action="store_true", help=argparse.SUPPRESS)  # (the default now)
    g.set_defaults(func=cmd_logs)
    from host_sim import sim
    s = sub.add_parser("sim", help="the clock in the terminal: the device app on emulated hardware",
                       description="The clock in a terminal (curses): keys a/l = the players' "
                       "buttons, space = pause key, e = the pause key held 2 s, y = both "
                       "player buttons held 1 s (yes to a question; while a clock runs, "
                       "two presses), r = referee gesture, [ ] = late "
                       "arrival, q = quit.")
    sim.add_arguments(s)
    s.set_defaults(func=cmd_sim)
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
