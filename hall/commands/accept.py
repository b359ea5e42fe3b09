"""hall accept --table T --game G [--account A] [--first]: the game's
re-published result (or its first) counts (hall/recorder.py accept())."""
from hall import recorder as REC
from hall.errors import HallError


def command(hall, args):
    if args.table < 1 or args.game < 1:
        raise HallError("accept needs --table T --game G (and --account A if the "
                        "clock is not the table's)")
    try:
        return REC.accept(hall.folder, args.table, args.account or str(args.table),
                          args.game, args.first)
    except ValueError as e:
        raise HallError(str(e))
