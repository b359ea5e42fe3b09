# Rule profiles: data, not code paths.
#
# A profile is a dict of the SPEC §3 settings.  `make_rules(name, overrides)`
# turns one into a Rules object for the timing core.  Adding a profile is
# adding an entry to _TABLE here; nothing else changes: the setup menu
# offers it (in _TABLE's order) under its label, settings.json and the game
# logs name it, a saved game keeps its code (tests/test_menu_doors.py adds
# one and checks all three).
#
#   code      its number in a saved game (clockcore's snapshot, ints only):
#             unique and stable, never reused nor renumbered, so adding or
#             reordering profiles leaves every saved game its own profile
#             (0-2 are the places sdev, pfs and custom had in the list a
#             saved game kept before there were codes, so those still load)
#   label     its name on the setup menu, the same in every language (at
#             most lang.VALUE = 12 columns); None for `custom`, which each
#             language names (lang.py V_CUSTOM)
#   base      base time per side, ms (base_left / base_right override one side)
#   zero      ZERO_OVERTIME: the clock counts overtime up after 00:00
#             ZERO_FLAG: the side is out at 00:00, the other plays on
#   penalty   points deducted per started minute of overtime (0 = none)
#   forfeit   last overtime that may still be shown, in whole seconds; the game
#             is lost when shown overtime exceeds it (-1 = no forfeit)
#   window    challenge window after a turn-ending press, ms (0 = none)
#   late      lateness limit: the last lateness that may still be shown, in
#             whole seconds; LATE_NONE (-1) = none; LATE_BASE (-2) = the late
#             side's whole base time (flag profiles: 00:00 is a walkover)

ZERO_OVERTIME = 0
ZERO_FLAG = 1

LATE_NONE = -1
LATE_BASE = -2

MAX_BASE_MS = (99 * 60 + 59) * 1000  # what mm:ss can show
MIN_BASE_MS = 1000

_TABLE = (
    # Scrabble Deutschland e.V., TSO 2017: § 1.1 b (30 min, 25 allowed),
    # § 5.2 a-c (overtime shown, 10 points per started minute, lost beyond
    # 5 minutes), § 3.1.2/3.1.3 (20 s to challenge after the clock is pressed).
    # § 2.4 b ii, § 5.3 b: more than 15 minutes late loses the game.
    ("sdev", {"code": 0, "label": "SDeV (TSO)",
              "base": 30 * 60000, "zero": ZERO_OVERTIME, "penalty": 10,
              "forfeit": 300, "window": 20000, "late": 900}),
    # Polska Federacja Scrabble: § 1.2 (time set per tournament, 15 min minimum
    # for rated games; 20 min usual), § 6.2.1 (at 00:00 the player loses the
    # right to move, the opponent plays on), challenges in dead time (§ 4.9).
    # § 6.3.4: a late player whose whole time runs out loses by walkover.
    ("pfs", {"code": 1, "label": "PFS",
             "base": 20 * 60000, "zero": ZERO_FLAG, "penalty": 0,
             "forfeit": -1, "window": 0, "late": LATE_BASE}),
    # Anything an organizer sets; the defaults are a plain 20-minute clock that
    # counts overtime without penalties.
    ("custom", {"code": 2, "label": None,
                "base": 20 * 60000, "zero": ZERO_OVERTIME, "penalty": 0,
                "forfeit": -1, "window": 0, "late": LATE_NONE}),
)

PROFILES = dict(_TABLE)
NAMES = tuple([p[0] for p in _TABLE])   # the setup menu's order


def code_of(name):
    """The profile's code in a saved game; -1 for a name that is none."""
    p = PROFILES.get(name)
    return p["code"] if p is not None else -1


def name_of(code):
    """The profile a saved game's code names; None if none has it."""
    for i in range(len(NAMES)):
        if PROFILES[NAMES[i]]["code"] == code:
            return NAMES[i]
    return None

OVERRIDE_KEYS = ("base", "base_left", "base_right", "window", "penalty",
                 "forfeit", "zero", "late")


class Rules:
    """The settled numbers of one game (a profile plus its overrides)."""

    def __init__(self, name, base_left, base_right, zero, penalty, forfeit,
                 window, late=LATE_NONE):
        self.name = name
        self.base = [base_left, base_right]
        self.zero = zero
        self.penalty = penalty
        self.forfeit = forfeit  # seconds, -1 = none
        self.window = window    # ms, 0 = none
        self.late = late        # seconds, LATE_NONE or LATE_BASE

    def with_base(self, left, right):
        """The same rules with other base times (the referee's menu)."""
        return Rules(self.name, left, right, self.zero, self.penalty,
                     self.forfeit, self.window, self.late)

    def overrides(self):
        """The `set` items that rebuild these rules from the named profile
        (used for the game log header)."""
        p = PROFILES[self.name]
        out = []
        if self.base[0] == self.base[1]:
            if self.base[0] != p["base"]:
                out.append("base=" + fmt_mmss(self.base[0]))
        else:
            out.append("base_left=" + fmt_mmss(self.base[0]))
            out.append("base_right=" + fmt_mmss(self.base[1]))
        if self.window != p["window"]:
            out.append("window=%d" % (self.window // 1000))
        if self.penalty != p["penalty"]:
            out.append("penalty=%d" % self.penalty)
        if self.forfeit != p["forfeit"]:
            out.append("forfeit=" + ("none" if self.forfeit < 0
                                     else fmt_mmss(self.forfeit * 1000)))
        if self.zero != p["zero"]:
            out.append("zero=" + ("flag" if self.zero == ZERO_FLAG
                                  else "overtime"))
        if self.late != p["late"] and self.late != LATE_BASE:
            out.append("late=" + ("none" if self.late < 0
                                  else fmt_mmss(self.late * 1000)))
        return out


def _digits(text):
    """True for a non-empty run of ASCII digits (str.isdigit() also takes
    other scripts' digits and superscripts, which int() then rejects)."""
    if not text:
        return False
    for ch in text:
        if ch < "0" or ch > "9":
            return False
    return True


def parse_mmss(text):
    """'25:00' -> 1500000 ms.  Raises ValueError with a readable message."""
    parts = text.split(":")
    if len(parts) != 2 or not _digits(parts[0]) or not _digits(parts[1]):
        raise ValueError("expected mm:ss, got %r" % text)
    m = int(parts[0])
    s = int(parts[1])
    if s > 59:
        raise ValueError("seconds must be 00-59 in %r" % text)
    return (m * 60 + s) * 1000


# -- mm:ss: the one rounding rule of every time a person reads ------------------
# SPEC §4: remaining time is shown rounded up to the second, so 00:00 appears
# exactly when time runs out; overtime (and any time counting up: lateness,
# elapsed time) rounded down, with a minus sign from one whole second over
# (TSO § 5.2 a).  rows.mmss draws it on the LCD for the game screen and the
# menus (allocation-free, capped at 99:59 to fit its columns), gamelog.py
# writes it into the log's comments,
# and host_sim's replay and logs print it: all through shown_secs().

def shown_secs(rem):
    """Signed whole seconds the display shows for rem ms remaining (negative:
    overtime).  Returns a small int: allocates nothing."""
    if rem > 0:
        return (rem + 999) // 1000
    return -((-rem) // 1000)


def fmt_mmss(ms):
    """A duration counting up (base times, elapsed time): mm:ss rounded down."""
    return _mmss(ms // 1000)


def fmt_time(rem):
    """The display's time as text: mm:ss rounded up, overtime -mm:ss rounded
    down (shown_secs)."""
    s = shown_secs(rem)
    return "-" + _mmss(-s) if s < 0 else _mmss(s)


def _mmss(secs):
    return "%02d:%02d" % (secs // 60, secs % 60)


def _base(text):
    ms = parse_mmss(text)
    if ms < MIN_BASE_MS or ms > MAX_BASE_MS:
        raise ValueError("base time must be 00:01-99:59, got %r" % text)
    return ms


def _uint(text, what):
    if not _digits(text):
        raise ValueError("%s must be a whole number, got %r" % (what, text))
    return int(text)


def rules_of(name, base_left, base_right, custom=None):
    """Rules for profile `name` from numbers (the settings): the base
    times in ms and `custom`, the custom rules (zero, penalty, forfeit in
    s, window in ms), or None for the profile's own.  No text, no parsing:
    the caller has checked the values (settings.Settings.problem_with)."""
    p = PROFILES[name]
    if custom is None:
        return Rules(name, base_left, base_right, p["zero"], p["penalty"],
                     p["forfeit"], p["window"], p["late"])
    zero, penalty, forfeit, window = custom
    return Rules(name, base_left, base_right, zero, penalty, forfeit, window,
                 p["late"])


def make_rules(name, overrides=None):
    """Rules for profile `name` with `overrides`: (key, text) pairs in the
    order given (the replay file's `set` items), or a dict.  Raises ValueError on anything unknown or
    malformed, with a message fit for one line."""
    if name not in PROFILES:
        raise ValueError("unknown profile %r (known: %s)" % (name, ", ".join(NAMES)))
    p = PROFILES[name]
    base_l = base_r = p["base"]
    zero = p["zero"]
    penalty = p["penalty"]
    forfeit = p["forfeit"]
    window = p["window"]
    late = p["late"]
    if overrides:
        if isinstance(overrides, dict):
            overrides = overrides.items()
        for key, val in overrides:
            if key == "base":
                base_l = base_r = _base(val)
            elif key == "base_left":
                base_l = _base(val)
            elif key == "base_right":
                base_r = _base(val)
            elif key == "window":
                window = _uint(val, "window") * 1000
            elif key == "penalty":
                penalty = _uint(val, "penalty")
            elif key == "forfeit":
                forfeit = -1 if val == "none" else parse_mmss(val) // 1000
            elif key == "late":
                late = LATE_NONE if val == "none" else parse_mmss(val) // 1000
            elif key == "zero":
                if val == "overtime":
                    zero = ZERO_OVERTIME
                elif val == "flag":
                    zero = ZERO_FLAG
                else:
                    raise ValueError("zero must be overtime or flag, got %r" % val)
            else:
                raise ValueError("unknown setting %r (known: %s)"
                                 % (key, ", ".join(OVERRIDE_KEYS)))
    return Rules(name, base_l, base_r, zero, penalty, forfeit, window, late)
