"""hall logs --round N [--table T] [--out DIR]: the round's game logs copied out."""
import os
import shutil

from hall import filing
from hall.errors import HallError
from host_sim import logs as logsmod


def command(hall, args):
    """hall logs --round N [--table T] [--out DIR]: the round's game logs as
    the recorder filed them (hall/filing.py), copied to DIR/table-TT/,
    one line each: the game's end as the replay reads it."""
    if args.round is None or args.round < 1:
        raise HallError("logs needs --round N: hall logs --round 2 [--table 5]")
    found = filing.filed(hall.folder, args.round, args.table or None)
    if not found:
        raise HallError("no game log of round %d%s filed in %s (the recorder files each "
                        "game's log when its clock publishes it at the game's end)"
                        % (args.round, ", table %d" % args.table if args.table else "",
                           hall.folder))
    out = args.out or "round-%d-logs" % args.round
    for table, path in found:
        dest = os.path.join(out, "table-%02d" % table)
        os.makedirs(dest, exist_ok=True)
        shutil.copyfile(path, os.path.join(dest, os.path.basename(path)))
        print("table %2d  %s" % (table, logsmod.describe(os.path.join(dest,
                                                                     os.path.basename(path)))))
    print("%d game log%s of round %d copied to %s" % (len(found), "" if len(found) == 1
                                                       else "s", args.round, out))
    return 0
