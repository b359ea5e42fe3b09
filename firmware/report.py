# The clock's state as a report (SPEC §5 "the state report"): the one place
# that names its fields.  host_sim/replay.py adds the LCD rows for
# `replay --json`; firmware/hallmsg.py adds the clock id, table and game
# number for the tournament hall.
#
# emit() gives the fields to a writer: state() builds a dict with Fields
# (allocates: not for the main loop); hallmsg.py writes the state's JSON
# straight into a buffer kept for it (jsonout.JSONOut: nothing allocated,
# SPEC §6, while a clock on the hall's Wi-Fi publishes its state and
# heartbeats during a game).  Each function is small on purpose: a larger
# frame would be allocated on the heap at every call.
from clockcore import SIDE_NAMES, PAUSED, OVER


class Fields:
    """The writer that builds dicts: field(name, value), open(name) a
    nested object, close() it; .d the outer dict."""

    def __init__(self):
        self.d = {}
        self.at = [self.d]

    def field(self, name, v):
        self.at[-1][name] = v

    def open(self, name):
        d = {}
        self.at[-1][name] = d
        self.at.append(d)

    def close(self):
        self.at.pop()


def _side(c, s, o):
    o.open(SIDE_NAMES[s])
    o.field("remaining_ms", c.remaining(s))
    o.field("overtime_ms", c.overtime(s))
    o.field("penalty", c.penalty(s))
    o.field("flag", c.flag(s))
    o.field("forfeit", bool(c.forfeited[s]))
    o.field("lateness_ms", c.late_ms[s])   # its lateness account (SPEC v5 §5)
    o.close()


def _who(o, name, s):
    o.field(name, SIDE_NAMES[s] if s >= 0 else None)


def emit(c, t_ms, o):
    """The state report of clock c at log time t_ms, field by field into o."""
    o.field("profile", c.rules.name)
    o.field("t_ms", t_ms)
    _who(o, "running", c.running())
    o.field("paused", c.state == PAUSED)
    o.field("over", c.state == OVER)
    o.field("challenge_ms", c.win)
    _who(o, "late", c.late())
    _side(c, 0, o)
    _side(c, 1, o)


def state(c, t_ms):
    """The state report as a dict."""
    o = Fields()
    emit(c, t_ms, o)
    return o.d
