"""hall drop T / hall restore T: a rehearsal's clock at table T off the
network and back (issue 37: what a silent table looks like on the page)."""
from hall.rehearsal import clocks as rehearsal


def command(hall, args):
    return rehearsal.drop_command(hall.folder, args.value, args.action == "drop")
