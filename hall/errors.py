"""What the hall tells the director in one line: HallError (the command
prints `hall: <why>` and exits 2)."""


class HallError(Exception):
    pass
