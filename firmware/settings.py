# The organizer's settings, kept across power cycles (SPEC §4 Setup).
#
# One small JSON file (default settings.json on the board's flash):
#
#   {"v": 1, "profile": "sdev", "base_left": 1800000, "base_right": 1800000,
#    "lang": "en", "sound": true,
#    "zero": "overtime", "penalty": 0, "forfeit": -1, "window": 0,
#    "table": 0}
#
#   profile      "sdev" | "pfs" | "custom" (profiles.NAMES)
#   base_left/right  ms, whole seconds, BASE_MIN..BASE_MAX (the setup menu
#                steps whole minutes; a hand-edited 25:30 is kept)
#   lang         a code in lang.LANGS ("en" | "de" | "pl")
#   sound        true | false
#   zero, penalty, forfeit, window: the `custom` profile's rules, kept while
#                another profile is chosen:
#     zero       "overtime" | "flag" in the file, profiles.ZERO_* in memory
#     penalty    points per started minute of overtime, 0..PENALTY_MAX
#     forfeit    seconds of overtime that may still be shown, -1 = none, or
#                FORFEIT_MIN..FORFEIT_MAX
#     window     challenge window, ms, whole seconds, 0..WINDOW_MAX
#   table        the tournament table this clock stands on, 0..TABLE_MAX
#                (0 = none); every game log's header carries it with the
#                clock's id (gamelog.py), so logs of many clocks never mix
#
# Loading never raises.  A missing file is the first boot: defaults, no
# notice.  A file that cannot be read, is not JSON, is not ours (no "v": 1),
# or holds a value of the wrong type or out of range gives *all* defaults
# (sdev, 30:00, English, sound on) and `.notice` = True (the app shows
# "Settings reset", lang key SETRESET; the reason is in `.problem`, for the log).  A key that is missing from an
# otherwise good file takes its default silently (a file written by an older
# firmware); unknown keys are ignored (one written by a newer firmware).
#
# Saving is atomic: the JSON goes to "<path>.tmp", then is renamed over the
# old file (LittleFS and POSIX rename replace atomically; MicroPython's FAT
# driver removes the target first, so load() also recovers a complete .tmp
# when the main file is missing).  A failed save leaves the old file intact
# and returns False; save() never raises either.
#
# File access goes through an `fs` object with open(path, mode),
# rename(src, dst) and remove(path) (fsys.OsFS by default; tests inject
# fakes); the temp file + rename is fsys.write_atomic.
import json

import fsys

import profiles
from profiles import ZERO_OVERTIME, ZERO_FLAG
from lang import LANGS  # the one language table

VERSION = 1

MINUTE = 60000
BASE_MIN = 1 * MINUTE       # short games for practice and trying the clock
BASE_MAX = 99 * MINUTE      # the most mm:ss shows in whole minutes
BASE_STEP = MINUTE
PENALTY_MAX = 50
PENALTY_STEP = 5
FORFEIT_MIN = 60            # s; -1 = none
FORFEIT_MAX = 600
FORFEIT_STEP = 60
WINDOW_MAX = 60000          # ms
WINDOW_STEP = 5000
TABLE_MAX = 99              # table number; 0 = none

MAX_FILE = 1024             # a settings file is ~200 bytes; more is not ours

_ZERO_NAMES = ("overtime", "flag")  # index = profiles.ZERO_*


_OSFS = fsys.OsFS()


def _is_int(v):
    return type(v) is int  # not bool (JSON true/false)


_EDITABLE = ("base_left", "base_right", "lang", "sound", "zero", "penalty",
             "forfeit", "window", "table")


class Settings:
    def __init__(self):
        self.profile = "sdev"
        base = profiles.PROFILES["sdev"]["base"]
        self.base_left = base
        self.base_right = base
        self.lang = "en"
        self.sound = True
        c = profiles.PROFILES["custom"]
        self.zero = c["zero"]
        self.penalty = c["penalty"]
        self.forfeit = c["forfeit"]
        self.window = c["window"]
        self.table = 0
        self.notice = False  # load() fell back to defaults: the app says so
        self.problem = None  # why the settings were reset (for the log)
        self.path = "settings.json"
        self.fs = None

    # -- values -----------------------------------------------------------------
    def set_profile(self, name):
        """Choose a profile; the base times jump to its default."""
        self.profile = name
        self.base_left = self.base_right = profiles.PROFILES[name]["base"]

    def put(self, name, value):
        """One value the setup menu changed (a name of as_dict()'s; the menu
        writes the settings only through this and set_profile())."""
        if name not in _EDITABLE:
            raise KeyError(name)
        setattr(self, name, value)

    def rules(self):
        """The profiles.Rules these settings give, from the numbers as they
        are (the base times and, for `custom`, the custom rules)."""
        custom = None
        if self.profile == "custom":
            custom = (self.zero, self.penalty, self.forfeit, self.window)
        return profiles.rules_of(self.profile, self.base_left, self.base_right, custom)

    def as_dict(self):
        return {"v": VERSION, "profile": self.profile,
                "base_left": self.base_left, "base_right": self.base_right,
                "lang": self.lang, "sound": self.sound,
                "zero": _ZERO_NAMES[self.zero], "penalty": self.penalty,
                "forfeit": self.forfeit, "window": self.window,
                "table": self.table}

    def problem_with(self):
        """None if every value is valid, else what is wrong (one line)."""
        if self.profile not in profiles.NAMES:
            return "profile"
        for name, v in (("base_left", self.base_left),
                        ("base_right", self.base_right)):
            if not _is_int(v) or v % 1000 or not BASE_MIN <= v <= BASE_MAX:
                return name
        if self.lang not in LANGS:
            return "lang"
        if type(self.sound) is not bool:
            return "sound"
        if self.zero != ZERO_OVERTIME and self.zero != ZERO_FLAG:
            return "zero"
        if not _is_int(self.penalty) or not 0 <= self.penalty <= PENALTY_MAX:
            return "penalty"
        f = self.forfeit
        if not _is_int(f) or not (f == -1 or FORFEIT_MIN <= f <= FORFEIT_MAX):
            return "forfeit"
        w = self.window
        if not _is_int(w) or w % 1000 or not 0 <= w <= WINDOW_MAX:
            return "window"
        if not _is_int(self.table) or not 0 <= self.table <= TABLE_MAX:
            return "table"
        return None

    # -- file ---------------------------------------------------------------------
    @classmethod
    def load(cls, path="settings.json", fs=None):
        """The saved settings, or defaults (see the top of this file).
        Never raises."""
        fs = fs or _OSFS
        s = cls()
        s.path = path
        s.fs = fs
        try:
            data = _read(fs, path)
        except OSError as e:
            if e.args and e.args[0] == 2:  # ENOENT: nothing saved yet
                data = None
                try:
                    data = _read(fs, path + ".tmp")  # rename cut short (FAT)
                    if s._apply(data) is None:
                        return s
                except Exception:
                    pass
                return cls._fresh(path, fs, None)
            return cls._fresh(path, fs, "cannot read (%s)" % _errtext(e))
        except Exception as e:
            return cls._fresh(path, fs, "cannot read (%s)" % _errtext(e))
        try:
            why = s._apply(data)
        except Exception as e:  # anything odd in the data: not ours
            why = "bad data (%s)" % _errtext(e)
        if why is not None:
            return cls._fresh(path, fs, why)
        return s

    @classmethod
    def _fresh(cls, path, fs, problem):
        s = cls()
        s.path = path
        s.fs = fs
        if problem is not None:
            s.problem = path + ": " + problem
            s.notice = True
        return s

    def _apply(self, data):
        """Take the values of a file's bytes; None if good, else the reason."""
        if len(data) >= MAX_FILE:
            return "too large"
        try:
            d = json.loads(data)
        except Exception:
            return "not JSON"
        if not isinstance(d, dict) or d.get("v") != VERSION:
            return "not a settings file"
        self.restore(d)
        why = self.problem_with()
        if why is not None:
            return "bad " + why
        return None

    def restore(self, d):
        """Take the values of a dict as as_dict() gives (missing keys keep
        theirs); the setup menu puts the values back with it when a gesture
        undoes its keys."""
        self.profile = d.get("profile", self.profile)
        self.base_left = d.get("base_left", self.base_left)
        self.base_right = d.get("base_right", self.base_right)
        self.lang = d.get("lang", self.lang)
        self.sound = d.get("sound", self.sound)
        z = d.get("zero", _ZERO_NAMES[self.zero])
        self.zero = -1
        for i in range(len(_ZERO_NAMES)):
            if z == _ZERO_NAMES[i]:
                self.zero = i
        self.penalty = d.get("penalty", self.penalty)
        self.forfeit = d.get("forfeit", self.forfeit)
        self.window = d.get("window", self.window)
        self.table = d.get("table", self.table)

    def save(self, path=None, fs=None):
        """Write atomically (temp file + rename).  True on success; on any
        failure the previous file is left as it was and False is returned."""
        path = path or self.path
        fs = fs or self.fs or _OSFS
        try:
            fsys.write_atomic(fs, path, json.dumps(self.as_dict()))
        except Exception as e:
            self.problem = path + ": cannot save (%s)" % _errtext(e)
            try:
                fs.remove(path + ".tmp")
            except Exception:
                pass
            return False
        return True


def _read(fs, path):
    f = fs.open(path, "rb")
    try:
        return f.read(MAX_FILE)
    finally:
        f.close()


def _errtext(e):
    return type(e).__name__ if not e.args else "%s %s" % (
        type(e).__name__, e.args[0])
