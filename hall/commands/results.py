"""hall results [--round N] [--csv [--excel] | --tsh]: the recorded games."""
import os
import sys

from hall import tournament
from hall.commands import say
from hall.errors import HallError
from hall.files import RESULTS


def command(hall, args):
    """hall results [--round N] [--csv [--excel] | --tsh]: the CSV (every
    game, then the byes) or the TSH entry block of round N; each seated
    table without a result or scores, and each result outside the seating,
    is one line on stderr (issue 27: never silently missing)."""
    if not os.path.isfile(os.path.join(hall.folder, RESULTS)):
        raise HallError("no results in %s: %s is written by the running hall's "
                        "recorder" % (hall.folder, RESULTS))
    if args.round is not None and args.round < 1:
        raise HallError("--round: rounds start at 1")
    if args.tsh:
        if args.round is None:
            raise HallError("--tsh needs --round N: TSH takes one round at a time")
        try:
            lines, said = tournament.tsh_export(hall.folder, args.round, args.division,
                                                args.bye_score, say)
        except tournament.TournamentError as e:
            raise HallError(str(e))
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        for m in said:
            say(m)
        return 1 if said else 0
    found = tournament.rows(hall.folder, args.round, say)
    rounds = [args.round] if args.round is not None else sorted({r["round"] for r in found
                                                                 if r["round"]})
    gaps = []
    for n in rounds:
        gaps += tournament.missing(hall.folder, n, found, lambda m: None)
    out = sys.stdout
    if args.excel:
        out = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="", closefd=False)
    tournament.write_csv(found, out, excel=args.excel)
    out.flush()
    for m in gaps:
        say(m)
    if args.round is not None and not any(r["round"] == args.round and not r["bye"]
                                          for r in found):
        began = sum(len(v) for v in tournament.round_games(hall.folder, args.round,
                                                          lambda m: None).values())
        say("round %d: no game has a result yet (%d game%s began in it)"
            % (args.round, began, "" if began == 1 else "s"))
    return 0

