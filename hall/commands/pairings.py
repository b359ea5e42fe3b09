"""hall pairings --round N FILE: the round's seating from a TSH .t file or a
table,player1,player2 CSV (hall/pairings.py)."""
from hall import tournament
from hall.errors import HallError


def command(hall, args):
    if args.round is None or len(args.value) != 1:
        raise HallError("pairings needs --round N and a file: hall pairings --round 3 div.t")
    if args.round < 1 or args.round > tournament.MAX_ROUND:
        raise HallError("--round: a number 1-%d" % tournament.MAX_ROUND)
    return tournament.cmd_pairings(hall.folder, args.round, args.value[0])
