"""hall round N: from now on the games are round N (hall/tournament.py)."""
from hall import tournament
from hall.errors import HallError


def command(hall, args):
    if len(args.value) != 1 or tournament.number(args.value[0], 0, 10 ** 9) is None:
        raise HallError("round needs the round's number: hall round 3")
    try:
        return tournament.cmd_round(hall.folder, int(args.value[0]))
    except tournament.TournamentError as e:
        raise HallError(str(e))
