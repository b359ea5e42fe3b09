# The results of the last games, read back from the game logs the clock
# already keeps (SPEC v2 §4 Gestures: "the results of the last games can be
# read on the clock afterwards").
#
# A game file is the replay format (gamelog.py): a header (`profile`, `set`),
# then event lines `<ms> <event> ...  # L mm:ss R mm:ss` carrying both times
# as the display showed them after the event, and notes `# <ms> forfeit
# left`, `# <ms> over`.  The result of a finished game is the state after its
# last event: both times, the overtime shown, the penalty points (the
# profile's rule, profiles.make_rules from the header), the side that lost on
# time, and when the game ended (ms since its start).  Only the menu calls
# this (it allocates; no game runs meanwhile).
import clockcore as cc
import gamelog
import profiles

# the log's words (gamelog.py writes them)
_END = gamelog.WORDS[cc.EV_END]
_VOID = gamelog.WORDS[cc.EV_VOID]
_RESUME = gamelog.WORDS[cc.EV_RESUME]
_FORFEIT = gamelog.NOTES[cc.EV_FORFEIT]
_OVER = gamelog.NOTES[cc.EV_OVER]

_CHUNK = 512

# What a finished game came to, in the words of the "Last games" screen
# (Result.verdict(); lang.py's RES_* words say it):
V_IN_TIME = 0   # RES_OK      nobody over time: no penalty, nobody lost
V_PENALTY = 1   # RES_PEN     overtime penalty points (TSO § 5.2 b)
V_LOST = 2      # RES_LOST_*  a side lost on time (TSO § 5.2 c)
V_FLAG = 3      # RES_FLAG_*  a flag profile: a side's time ran out (PFS § 6.2.1)


class Result:
    def __init__(self, number):
        self.number = number
        self.profile = None
        self.rules = None
        self.shown = [0, 0]      # seconds as shown: remaining > 0, overtime < 0
        self.forfeit = -1        # the side that lost on time, or -1
        self.end_ms = -1         # log ms when the game ended; -1 = unfinished
        self._sets = []

    def penalty(self, s):
        """Points for the shown overtime (TSO § 5.2 b), by the game's rules."""
        if self.rules is None or self.shown[s] >= 0:
            return 0
        return self.rules.penalty * ((-self.shown[s] + 59) // 60)

    def finished(self):
        return self.end_ms >= 0

    def verdict(self):
        """(V_*, side): what the game came to.  A loss on time first, then
        penalty points (side -1: see penalty(0) / penalty(1)), then a flag
        profile's side at 00:00 (the left one if both), else in time."""
        if self.forfeit >= 0:
            return V_LOST, self.forfeit
        if self.penalty(0) or self.penalty(1):
            return V_PENALTY, -1
        if self.rules is not None and self.rules.zero == profiles.ZERO_FLAG:
            for s in (0, 1):
                if self.shown[s] <= 0:
                    return V_FLAG, s
        return V_IN_TIME, -1

    # -- reading ------------------------------------------------------------
    def line(self, text):
        words = text.split()
        if not words:
            return
        if words[0] == "#":
            self._note(words)
        elif words[0] == "profile" and len(words) >= 2:
            self.profile = words[1]
        elif words[0] == "set":
            for item in words[1:]:
                if item[:1] == "#":
                    break
                k, _eq, v = item.partition("=")
                self._sets.append((k, v))
        elif words[0][:1].isdigit() and len(words) >= 2:
            self._event(words)

    def _note(self, words):
        # "# 371380 forfeit left  L 00:55 R -05:01", "# 130000 over  L ..."
        if len(words) >= 3 and words[1].isdigit():
            if words[2] == _FORFEIT and len(words) >= 4:
                self.forfeit = 0 if words[3] == cc.SIDE_NAMES[0] else 1
                self.end_ms = int(words[1])
            elif words[2] == _OVER:
                self.end_ms = int(words[1])
            self._times(words)

    def _event(self, words):
        ms = int(words[0])
        kind = words[1]
        if kind == _END or kind == _VOID:
            self.end_ms = ms
            if kind == _VOID:
                self.forfeit = -1     # TSO § 5.2 d withdrew it
        elif kind == _RESUME:
            self.end_ms = -1
        self._times(words)

    def _times(self, words):
        # the times after the event: "... # L 01:12 R -04:22"
        if "L" in words and "R" in words:
            i = words.index("L")
            j = words.index("R")
            if i + 1 < len(words) and j + 1 < len(words):
                self.shown[0] = _secs(words[i + 1])
                self.shown[1] = _secs(words[j + 1])

    def settle(self):
        try:
            self.rules = profiles.make_rules(self.profile, self._sets)
        except (ValueError, TypeError):
            self.rules = None
        self._sets = None


def _secs(text):
    """'01:12' -> 72, '-04:22' -> -262 (as profiles.fmt_time wrote them into the log)."""
    neg = text[:1] == "-"
    if neg:
        text = text[1:]
    m, _c, s = text.partition(":")
    if not m.isdigit() or not s.isdigit():
        return 0
    v = int(m) * 60 + int(s)
    return -v if neg else v


def read(fs, path, number):
    """The Result of one game file (None if it cannot be read)."""
    try:
        f = fs.open(path, "rb")
    except OSError:
        return None
    res = Result(number)
    rest = b""
    try:
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                break
            rest += chunk
            lines = rest.split(b"\n")
            rest = lines.pop()
            for ln in lines:
                _feed(res, ln)
    except OSError:
        return None
    finally:
        f.close()
    _feed(res, rest)  # a last line without its newline (a torn write)
    res.settle()
    return res


def _feed(res, raw):
    try:
        res.line(raw.decode())
    except (UnicodeError, ValueError):
        pass  # a torn or foreign line: the result keeps what it had


def finished_games(log, limit=20):
    """Results of the finished games in the log's folder, newest first."""
    out = []
    for name in reversed(log.list_games()):
        r = read(log.fs, log.folder + "/" + name, gamelog.game_number(name))
        if r is not None and r.finished():
            out.append(r)
            if len(out) >= limit:
                break
    return out
