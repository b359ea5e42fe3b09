# The clock's state as a report (SPEC §5 "the state report"): the one place
# that names its fields.  host_sim/replay.py adds the LCD rows for
# `replay --json`; firmware/net.py adds the clock id, table and game number
# for the tournament hall.  Allocates (a dict): not for the main loop.
from clockcore import SIDE_NAMES, PAUSED, OVER


def side(c, s):
    return {"remaining_ms": c.remaining(s), "overtime_ms": c.overtime(s),
            "penalty": c.penalty(s), "flag": c.flag(s),
            "forfeit": bool(c.forfeited[s]),
            "lateness_ms": c.late_ms[s]}   # its lateness account (SPEC v5 §5)


def state(c, t_ms):
    r = c.running()
    late = c.late()
    return {"profile": c.rules.name, "t_ms": t_ms,
            "running": SIDE_NAMES[r] if r >= 0 else None,
            "paused": c.state == PAUSED, "over": c.state == OVER,
            "challenge_ms": c.win,
            "late": SIDE_NAMES[late] if late >= 0 else None,
            "left": side(c, 0), "right": side(c, 1)}
