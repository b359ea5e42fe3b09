"""hall scores --round N [--table T LEFT RIGHT]: the results desk on the terminal."""
from hall import tournament
from hall.commands import say
from hall.errors import HallError


def command(hall, args):
    """hall scores --round N [--table T LEFT RIGHT]: type a table's two
    scores from its score sheet (left and right as seated), or list the
    round's desk: each table's scores, the clock's penalties and the
    adjusted scores, and what is missing."""
    if args.round is None:
        raise HallError("scores needs --round N: hall scores --round 2 --table 5 412 388")
    vals = args.value
    if args.table or vals:
        if not args.table or len(vals) != 2 or not all(_int(v) for v in vals):
            raise HallError("scores --round N --table T LEFT RIGHT: the two scores as the "
                            "score sheet has them, left player first (e.g. 412 388)")
        try:
            tournament.set_scores(hall.folder, args.round, args.table, int(vals[0]),
                                  int(vals[1]))
        except tournament.TournamentError as e:
            raise HallError(str(e))
    found = tournament.rows(hall.folder, args.round, lambda m: None)
    for r in found:
        if r["bye"]:
            print("round %d  bye    %s" % (r["round"], r["left_player"]))
        elif not args.table or r["table"] == args.table:
            print(desk_line(r))
    if args.table and not any(r["table"] == args.table and not r["bye"] for r in found):
        print("round %d, table %d: scores %s stored; no result from its clock yet"
              % (args.round, args.table, " ".join(vals)))
    if not args.table:
        for m in tournament.missing(hall.folder, args.round, found, lambda m: None):
            say(m)
    return 0


def _int(v):
    return tournament.number(v, -999999, 999999) is not None


def desk_line(r):
    """One table at the results desk: names, clock times, scores, penalties,
    adjusted scores."""
    def side(k):
        if r[k + "_score"] == "":
            return "%s %s, %s" % (r[k + "_player"] or "?", r[k + "_clock"],
                                  "-%d pts" % r[k + "_penalty"] if r[k + "_penalty"] else "no penalty")
        return "%s %s: %d%s = %d" % (r[k + "_player"] or "?", r[k + "_clock"], r[k + "_score"],
                                     " - %d" % r[k + "_penalty"] if r[k + "_penalty"] else "",
                                     r[k + "_adjusted"])
    tail = "" if r["left_score"] != "" else "  (no scores yet)"
    if r["forfeit"]:
        tail += "  FORFEIT %s (TSO § 5.2 c)" % r["forfeit"]
    return "round %d  table %d  %s  |  %s%s" % (r["round"], r["table"], side("left"),
                                               side("right"), tail)
