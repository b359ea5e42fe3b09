"""hall revoke --table T: a new password for a lost or stolen clock's account."""


def command(hall, args):
    _pid, how = hall.revoke(args.table)
    print("hall: clock account %d has a new password; %s; deploy its clock again "
          "(make deploy TABLE=%d)" % (args.table, how, args.table))
    return 0
