"""The hall's command line (docs/hall.md): python -m hall, scrabble-hall.

    python -m hall                      start the broker, recorder, page
    python -m hall --clocks 100         ... and 100 simulated clocks (a rehearsal)
    python -m hall results --csv        every recorded game as CSV
    python -m hall clock-config --table 12 --host 192.168.1.10   a net.json
    python -m hall revoke --table 12    a new password for clock 12
    python -m hall start / stop / status   the hall as a service
    python -m hall accept --table 3 --game 1   a re-published result counts

One parser (the options are the hall's, whatever the action), then the
action's module in hall/commands/ (a module per command, as pipx does);
what the director is told of a refusal is one line and exit 2.  The hall
folder is hall/folder.py's Hall; the broker's configuration hall/broker.py,
the accounts hall/accounts.py, the processes hall/supervise.py.
"""
import os
import sys

from hall import tournament
from hall.commands import (accept, clock_config, drop, logs, pairings, results, revoke,
                           rounds, run, scores, start, status, stop)
from hall.errors import HallError
from hall.folder import Hall
from hall.paths import DEFAULT_DIR
from host_sim import console

COMMANDS = {"run": run, "results": results, "clock-config": clock_config, "revoke": revoke,
            "round": rounds, "pairings": pairings, "scores": scores, "logs": logs,
            "start": start, "stop": stop, "status": status, "accept": accept,
            "drop": drop, "restore": drop}


def add_arguments(p):
    p.add_argument("action", nargs="?", default="run",
                   choices=tuple(COMMANDS),
                   help="run (default): run the hall in this terminal (Ctrl-C or closing "
                        "it stops it); start: run it in the background as a service "
                        "(its output in <dir>/hall.log); stop: stop the hall running in "
                        "--dir; status: what runs there; results: print the recorded "
                        "games; clock-config: print a clock's net.json; revoke: a new "
                        "password for clock account --table (a lost or stolen clock); "
                        "accept --table T --game G [--account A] [--first]: the game's "
                        "re-published result (or its first) counts; "
                        "round N: from now on games are round N; pairings --round N FILE: "
                        "the round's seating from a TSH .t file or a table,player1,player2 CSV; "
                        "scores --round N --table T LEFT RIGHT: the scores of a table's score "
                        "sheet (--round N alone: the round's results desk); logs --round N "
                        "[--table T] [--out DIR]: copy the round's game logs out; "
                        "drop T / restore T: a rehearsal's clock at table T off the "
                        "network and back")
    p.add_argument("value", nargs="*", default=[],
                   help="round: the round number; pairings: the pairings file; scores: the "
                        "left and the right player's score")
    p.add_argument("--round", type=tournament.whole, default=None,
                   help="results: only this round; pairings: the round the file is for")
    shown = (os.path.relpath(DEFAULT_DIR) if DEFAULT_DIR.startswith(os.getcwd() + os.sep)
             else DEFAULT_DIR)
    p.add_argument("--dir", default=DEFAULT_DIR, help="the hall's folder (default %s)" % shown)
    p.add_argument("--event", default="open", help="the event's name in the topics (default open)")
    p.add_argument("--tables", type=int, default=100, help="clock accounts 1..N (default 100)")
    p.add_argument("--port", type=int, default=8883,
                   help="MQTT over TLS port for the clocks (default 8883)")
    p.add_argument("--ws-port", type=int, default=9001,
                   help="MQTT over secure WebSockets port for the pages (default 9001)")
    p.add_argument("--page-port", type=int, default=8443,
                   help="HTTPS port of the director's and projector's pages (default 8443)")
    p.add_argument("--lan", action="store_true",
                   help="listen on every interface (default: loopback only)")
    p.add_argument("--clocks", type=int, default=0,
                   help="also run N simulated clocks (the device app on fake hardware)")
    p.add_argument("--speed", type=float, default=1.0, help="simulated clocks' time factor")
    p.add_argument("--seconds", type=float, default=0,
                   help="stop after this many seconds (default: Ctrl-C)")
    p.add_argument("--csv", action="store_true", help="results: CSV (the default)")
    p.add_argument("--excel", action="store_true",
                   help="results: CSV for Excel (UTF-8 with a byte-order mark, ; between cells)")
    p.add_argument("--tsh", action="store_true",
                   help="results --round N: the round in TSH's score-entry form (a ROUND "
                        "DIVISION, then `player score player score` a game a line)")
    p.add_argument("--division", default=None,
                   help="results --tsh: TSH's division, one word (default: the .t file's "
                        "name when it is one word, a.t: a)")
    p.add_argument("--bye-score", type=tournament.whole, default=tournament.BYE_SCORE,
                   help="results --tsh: the score of a bye's line (default 50)")
    p.add_argument("--table", type=tournament.whole, default=0,
                   help="clock-config, revoke: the clock account; scores, accept: the table")
    p.add_argument("--game", type=tournament.whole, default=0, help="accept: the game number")
    p.add_argument("--account", default=None,
                   help="accept: the clock account (default: the table's)")
    p.add_argument("--first", action="store_true",
                   help="accept: the game's first result counts again")
    p.add_argument("--host", default=None, help="clock-config: the hall computer's IP address")
    p.add_argument("--ssid", default="", help="clock-config: Wi-Fi network")
    p.add_argument("--wifi-password", default="", help="clock-config: Wi-Fi password")
    p.add_argument("--out", default=None,
                   help="clock-config: write the net.json there (created 0600) instead "
                        "of printing it; logs: the folder to copy them to (default "
                        "round-N-logs)")


def parser(prog="python -m hall"):
    p = console.Parser(prog=prog, description="The tournament hall (docs/hall.md): starts Mosquitto "
                "with the project's configuration and serves the director's page; "
                "`hall results --csv` prints every finished game.")
    add_arguments(p)
    return p


def main(argv=None, prog=None):
    """The command line (python -m hall; scrabble-hall, pyproject.toml); a
    closed output pipe (`hall results | head -c1`) ends it quietly."""
    return console.quiet_pipe(_main, argv, prog)


def _main(argv, prog):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sim"]:     # issue 37: the terminal simulator as a clock of a hall
        from hall.rehearsal import join     # (its own options: the simulator's)
        return join.main(argv[1:])
    p = parser(prog or console.prog("hall"))
    args, extra = p.parse_known_args(argv)
    # `hall pairings --round 3 FILE`, `hall scores --round 2 --table 5 412
    # 388`: argparse fills the positionals before it sees the options, so
    # the values after them come back unparsed
    if extra and not args.value \
            and not any(x.startswith("-") and not x.lstrip("-").isdigit() for x in extra):
        args.value = extra
        extra = []
    if extra:
        p.error("unrecognized arguments: %s" % " ".join(extra))
    return dispatch(args)


def dispatch(args):
    """The action's command on the hall folder of the options."""
    try:
        hall = Hall(args.dir, args.event, args.tables, args.port, args.ws_port,
                    "0.0.0.0" if args.lan else "127.0.0.1", page_port=args.page_port)
        return COMMANDS[args.action].command(hall, args)
    except HallError as e:
        print("hall: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("hall: cannot use the hall folder %s: %s" % (args.dir, e), file=sys.stderr)
        return 2
