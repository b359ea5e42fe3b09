"""Replay files (SPEC §5): parse, apply to the real timing core, report.

A replay file is the clock's game-log format:

    profile sdev
    set base=25:00 window=20
    0 left
    1500 right
    900000 adjust left -60000
    1800000 end

(`<ms> lateness <side> <ms>`: the referee's elapsed lateness, SPEC v5 §5.)

`load()` parses it (ReplayError carries the line number and a one-line
message), `run()` applies the events to clockcore.Clock at their own
timestamps, `report()` builds the JSON state report.
"""
import host_sim  # noqa: F401  (its importer finds firmware/)

import clockcore
import gamelog
import profiles
import report as reportmod
import hd44780
import lang as langmod

# The event words are the game log's (firmware/gamelog.py WORDS, SIDED).
EVENTS = tuple(gamelog.WORDS.values())
SIDED = tuple(gamelog.WORDS[k] for k in gamelog.SIDED)  # `<ms> late left`
PRESSES = (gamelog.WORDS[clockcore.EV_LEFT], gamelog.WORDS[clockcore.EV_RIGHT])

# No game reaches gamelog.MAX_MS (logtime.LIMIT, 256 * 10**9 - 1 ms, about
# 8 years, the last log time the clock writes: a game paused for weeks still
# logs its exact times) of log time: a time or an adjustment beyond it is an
# error, not a run of the core for ages of virtual time.  The length is checked before int() (Python refuses
# to convert more than 4300 digits, and a long number is never a time).
MAX_MS = gamelog.MAX_MS
MAX_DIGITS = len(str(MAX_MS))


def short(text, n=24):
    """text for an error line: at most n characters."""
    return text if len(text) <= n else text[:n] + "... (%d characters)" % len(text)


def ms_or_none(text):
    """Whole milliseconds 0..MAX_MS from plain ASCII digits, else None."""
    if not _digits(text) or len(text) > MAX_DIGITS:
        return None
    v = int(text)
    return v if v <= MAX_MS else None


def parse_at(text):
    """`replay --at`: a moment of the game as whole milliseconds (`1250000`),
    `mm:ss` (`20:50`, minutes may pass 59: `90:00`) or `h:mm:ss` (`1:20:50`),
    all counted from the log's 0 (the clock's power-up, as the log's times).
    The mm:ss part is profiles.parse_mmss, the one reader of a person's
    mm:ss.  Returns ms; raises ValueError with a one-line message."""
    parts = text.split(":")
    if len(parts) == 1:
        ms = ms_or_none(text)
        if ms is None:
            if _digits(text):
                raise ValueError("%s ms is beyond what a game can reach (at most %d)"
                                 % (short(text), MAX_MS))
            raise ValueError("expected milliseconds, mm:ss or h:mm:ss, got %r" % short(text))
        return ms
    if len(parts) == 3:
        if not _digits(parts[0]) or len(parts[0]) > 3 or len(parts[1]) != 2:
            raise ValueError("expected h:mm:ss, got %r" % short(text))
        ms = int(parts[0]) * 3600000 + profiles.parse_mmss(parts[1] + ":" + parts[2])
        if int(parts[1]) > 59:
            raise ValueError("minutes must be 00-59 in h:mm:ss, got %r" % short(text))
    elif len(parts) == 2:
        if len(parts[0]) > 5:
            raise ValueError("expected mm:ss, got %r" % short(text))
        ms = profiles.parse_mmss(text)
    else:
        raise ValueError("expected milliseconds, mm:ss or h:mm:ss, got %r" % short(text))
    if len(parts[-1]) != 2:
        raise ValueError("seconds must be two digits (00-59) in %r" % short(text))
    if ms > MAX_MS:
        raise ValueError("%s is beyond what a game can reach (at most %d ms)"
                         % (short(text), MAX_MS))
    return ms


class ReplayError(Exception):
    def __init__(self, line, message):
        Exception.__init__(self, message)
        self.line = line
        self.message = message


class Event:
    __slots__ = ("t", "kind", "side", "delta", "line")

    def __init__(self, t, kind, side=-1, delta=0, line=0):
        self.t = t
        self.kind = kind
        self.side = side
        self.delta = delta
        self.line = line


class Game:
    """A parsed replay file."""

    def __init__(self, rules, events, overrides, over_t=None, language="en"):
        self.rules = rules
        self.events = events
        self.overrides = overrides  # (key, text) pairs as written
        self.over_t = over_t        # a `# <ms> over` line after the last event
        self.lang = language        # the log's language (`# lang de`)

    def end_t(self):
        """The report's time without --at (SPEC v4 §5): the last event's, or
        that of a later `# <ms> over` line (a game that ended by itself, by a
        forfeit or both flags, is reported at its end)."""
        last = self.events[-1].t if self.events else 0
        if self.over_t is not None and self.over_t > last:
            return self.over_t
        return last


def _note(comment, game_t, lang_now):
    """A whole-line comment: (over_t, lang) it names, or (None, None).  Only
    `# <ms> over` and the header's `# lang xx` mean anything; any other
    comment is free text."""
    words = comment.split()
    if len(words) >= 2 and words[1] == "over" and _digits(words[0]):
        t = ms_or_none(words[0])
        if t is not None and t >= game_t:
            return t, None
    elif len(words) == 2 and words[0] == "lang" and words[1] in langmod.LANGS:
        return None, words[1]
    return None, None


def _digits(text):
    """Plain ASCII digits only: str.isdigit() also accepts '²' or '١', which
    int() then rejects (or reads) in ways a log file never means."""
    if not text:
        return False
    for c in text:
        if c not in "0123456789":
            return False
    return True


def _int(text, line, what):
    t = text[1:] if text[:1] in "+-" else text
    if not _digits(t):
        raise ReplayError(line, "bad number for %s: %r" % (what, short(text)))
    if ms_or_none(t) is None:
        raise ReplayError(line, "%s of %s ms is beyond what a game can reach (at most "
                                "%d ms)" % (what, short(text), MAX_MS))
    return int(text)


def parse(lines):
    """Parse an iterable of text lines; raises ReplayError."""
    name = None
    overrides = []
    events = []
    last_t = 0
    profile_line = 0
    over_t = None
    language = "en"
    for lineno, raw in enumerate(lines, 1):
        text, hash_, comment = raw.partition("#")
        text = text.strip()
        if not text:
            if hash_:
                t, lg = _note(comment, last_t, language)
                if t is not None:
                    over_t = t
                elif lg is not None and not events:
                    language = lg
            continue
        words = text.split()
        if name is None:
            if words[0] != "profile" or len(words) != 2:
                raise ReplayError(lineno, "the first item must be `profile NAME`, got %r" % text)
            name = words[1]
            if name not in profiles.PROFILES:
                raise ReplayError(lineno, "unknown profile %r (known: %s)"
                                  % (name, ", ".join(profiles.NAMES)))
            profile_line = lineno
            continue
        if words[0] == "profile":
            raise ReplayError(lineno, "a second `profile` line")
        if words[0] == "set":
            if events:
                raise ReplayError(lineno, "`set` must come before the first event")
            if len(words) < 2:
                raise ReplayError(lineno, "`set` needs key=value items")
            for item in words[1:]:
                key, eq, val = item.partition("=")
                if not eq or not val:
                    raise ReplayError(lineno, "expected key=value, got %r" % item)
                if key not in profiles.OVERRIDE_KEYS:
                    raise ReplayError(lineno, "unknown setting %r (known: %s)"
                                      % (key, ", ".join(profiles.OVERRIDE_KEYS)))
                overrides.append((key, val))
                try:  # check each value where it is written
                    profiles.make_rules(name, overrides)
                except ValueError as e:
                    raise ReplayError(lineno, str(e))
            continue
        if not _digits(words[0]):
            raise ReplayError(lineno, "expected `<ms> <event>`, got %r" % short(text, 40))
        t = ms_or_none(words[0])
        if t is None:
            raise ReplayError(lineno, "time %s ms is beyond what a game can reach (at most "
                                      "%d ms, about 8 years)" % (short(words[0]), MAX_MS))
        if t < last_t:
            raise ReplayError(lineno, "time goes backwards (%d after %d)" % (t, last_t))
        last_t = t
        over_t = None   # an `over` line counts only after the last event
        if len(words) < 2:
            raise ReplayError(lineno, "missing event after the time")
        kind = words[1]
        if kind not in EVENTS:
            raise ReplayError(lineno, "unknown event %r (known: %s)" % (kind, ", ".join(EVENTS)))
        if kind == "adjust":
            if len(words) != 4:
                raise ReplayError(lineno, "adjust needs `adjust <left|right> <+-ms>`")
            if words[2] not in clockcore.SIDE_NAMES:
                raise ReplayError(lineno, "unknown side %r (left or right)" % words[2])
            events.append(Event(t, kind, clockcore.SIDE_NAMES.index(words[2]),
                                _int(words[3], lineno, "adjust"), lineno))
        elif kind == "base":
            if len(words) != 4:
                raise ReplayError(lineno, "base needs `base <left|right> <mm:ss>`")
            if words[2] not in clockcore.SIDE_NAMES:
                raise ReplayError(lineno, "unknown side %r (left or right)" % words[2])
            try:
                ms = profiles.make_rules(name, [("base", words[3])]).base[0]
            except ValueError as e:
                raise ReplayError(lineno, str(e))
            events.append(Event(t, kind, clockcore.SIDE_NAMES.index(words[2]), ms, lineno))
        elif kind == "lateness":
            if len(words) != 4:
                raise ReplayError(lineno, "lateness needs `lateness <left|right> <ms>`")
            if words[2] not in clockcore.SIDE_NAMES:
                raise ReplayError(lineno, "unknown side %r (left or right)" % words[2])
            if not _digits(words[3]):
                raise ReplayError(lineno, "bad number for lateness: %r (whole ms, 0 or "
                                          "more)" % short(words[3]))
            events.append(Event(t, kind, clockcore.SIDE_NAMES.index(words[2]),
                                _int(words[3], lineno, "lateness"), lineno))
        elif kind in SIDED:
            if len(words) != 3:
                raise ReplayError(lineno, "%s needs `%s <left|right>`" % (kind, kind))
            if words[2] not in clockcore.SIDE_NAMES:
                raise ReplayError(lineno, "unknown side %r (left or right)" % words[2])
            events.append(Event(t, kind, clockcore.SIDE_NAMES.index(words[2]), line=lineno))
        else:
            if len(words) != 2:
                raise ReplayError(lineno, "unexpected text after %r: %r" % (kind, " ".join(words[2:])))
            events.append(Event(t, kind, line=lineno))
    if name is None:
        raise ReplayError(max(profile_line, 1), "empty file: no `profile` line")
    return Game(profiles.make_rules(name, overrides), events, overrides, over_t, language)


def read_lines(path):
    """A replay file or game log as its text lines; raises OSError, or
    ReplayError naming the line of the first byte that is not UTF-8 (the one
    reader of `replay` and `logs`)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        # utf-8-sig: a byte-order mark (Windows editors) is not part of the text
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ReplayError(data.count(b"\n", 0, e.start) + 1,
                          "not a text file (UTF-8): byte 0x%02x" % data[e.start])
    # Lines end at "\n" only (as editors and grep -n count them); a "\r"
    # before it is whitespace.  str.splitlines() would also break at form
    # feeds, U+2028 and the like and throw the reported line numbers off.
    return text.split("\n")


def load(path):
    return parse(read_lines(path))


def _plain_diff(a, b):
    return a - b


def _plain_add(t, d):
    return t + d


def new_clock(rules, hook=None):
    """A core on plain integer ms (replay times are ms since power-up)."""
    return clockcore.Clock(rules, 0, _plain_diff, _plain_add, hook)


# Each event's word (EVENTS) -> the core's call for it.
CALLS = {
    "left": lambda c, ev: c.press(clockcore.LEFT, ev.t),
    "right": lambda c, ev: c.press(clockcore.RIGHT, ev.t),
    "pause": lambda c, ev: c.pause(ev.t),
    "end": lambda c, ev: c.end(ev.t),
    "late": lambda c, ev: c.start_late(ev.side, ev.t),
    "void": lambda c, ev: c.void(ev.side, ev.t),
    "resume": lambda c, ev: c.resume(ev.t),
    "adjust": lambda c, ev: c.adjust(ev.side, ev.delta, ev.t),
    "base": lambda c, ev: c.rebase(ev.side, ev.delta, ev.t),
    "lateness": lambda c, ev: c.set_lateness(ev.side, ev.delta, ev.t),
}


def apply(clock, ev):
    """Apply one event; returns False if the core refused it."""
    return CALLS[ev.kind](clock, ev)


# Why the core refused an event (SPEC §5: a warning with its line number; the
# event changes nothing).  Player buttons and the pause key are never warned
# about: an ignored press is a bounce or the wrong player (SPEC §4).
REFUSED = {
    "adjust": "adjust ignored: referee adjustments apply only when the clock "
              "is ready or paused",
    "end": "end ignored: only a running or paused game can be ended",
    "late": "late ignored: a lateness clock starts only before the game "
            "(ready), for a side with time left",
    "void": "void ignored: TSO 5.2 d applies only to the side the last "
            "turn-ending press started, in a running, paused or ended game",
    "resume": "resume ignored: only an end can be undone, not a forfeit, "
              "both flags, or a game that is not over",
    "base": "base ignored: the base time changes only before the game "
            "(ready or late), and must leave the side time after what it "
            "was charged",
    "lateness": "lateness ignored: the referee sets a lateness only before "
                "the game (ready or late), at most %s, and in a flag profile "
                "not past 00:00" % profiles.fmt_mmss(clockcore.MAX_LATENESS_MS),
}


def run(game, at=None, warn=None, watch=None):
    """Apply every event at or before `at` and let time run to `at` (default:
    Game.end_t(), SPEC v4 §5).  Returns (clock, at).  watch (host_sim/
    timeline.py reads the game this way): watch.note(clock, code, side, t,
    arg) hears the core's hook (clockcore; the time-triggered notes at their
    own instant, after the change), watch.event(clock, ev, ok) each event
    after it is applied (ok: it changed something)."""
    if at is None:
        at = game.end_t()
    hook = None
    if watch is not None:
        def hook(code, side, t, arg):
            watch.note(clock, code, side, t, arg)
    clock = new_clock(game.rules, hook)
    for ev in game.events:
        if ev.t > at:
            break
        ok = apply(clock, ev)
        if not ok and warn is not None and ev.kind in REFUSED:
            warn(ev.line, REFUSED[ev.kind])
        if watch is not None:
            watch.event(clock, ev, ok)
    clock.update(at)
    return clock, at


def past_end(game, at, path):
    """The one line `replay --at` writes on stderr when `at` is after the
    log's end (Game.end_t()), or None: what it prints then is the clock as
    if no key had been pressed after the log's last line."""
    end = game.end_t()
    if at is None or at <= end:
        return None
    return ("%s: --at %d ms (%s) is past the log's end at %d ms (%s): shown is the clock "
            "left alone after its last line" % (path, at, profiles.fmt_mmss(at), end,
                                                profiles.fmt_mmss(end)))


def lcd_rows(clock, cols=16, rows=2, language="en"):
    return hd44780.text_of(clock, cols, rows, language)


def report(clock, at, cols=16, rows=2, language="en"):
    """The SPEC §5 state report: firmware/report.py's fields plus the LCD
    (in the log's language, Game.lang)."""
    rep = reportmod.state(clock, at)
    rep["lcd"] = lcd_rows(clock, cols, rows, language)
    return rep


def lost_side(rep):
    """The side a report's game was lost by (a forfeit: TSO § 5.2 c, § 2.4 b
    ii, PFS § 6.3.4), or None."""
    for name in ("left", "right"):
        if rep[name]["forfeit"]:
            return name
    return None


def state_word(rep):
    """The clock's state in a report, in words."""
    if rep["over"]:
        return "game over"
    if rep["paused"]:
        return "paused"
    if rep["late"]:
        return "late: " + rep["late"]
    if rep["running"]:
        return "running: " + rep["running"]
    return "ready"


def load_or_report(path, err):
    """load(path), or None after one `FILE:LINE: message` line on `err` (the
    command-line tools then exit with status 2, SPEC §5)."""
    try:
        return load(path)
    except OSError as e:
        print("%s:1: cannot read: %s" % (path, e.strerror or e), file=err)
    except ReplayError as e:
        print("%s:%d: %s" % (path, e.line, e.message), file=err)
    return None


def shown_time(side):
    """A side of a state report as the clock shows it: "24:58", "-01:23"
    (firmware/profiles.fmt_time, the display's rounding rule)."""
    return profiles.fmt_time(side["remaining_ms"] - side["overtime_ms"])


def summary(rep):
    """The human-readable form of a report."""
    def side(name):
        r = rep[name]
        t = shown_time(r)
        extra = []
        if r["penalty"]:
            extra.append("penalty %d points" % r["penalty"])
        if r["flag"]:
            extra.append("flag")
        if r["forfeit"]:
            extra.append("FORFEIT (game lost)")
        if r["lateness_ms"]:
            # counting up, like overtime: rounded down
            extra.append("late +%s" % profiles.fmt_mmss(r["lateness_ms"]))
        return "%-5s %s  %s" % (name, t, ", ".join(extra))

    state = state_word(rep)
    if lost_side(rep):
        state += ": %s lost (forfeit)" % lost_side(rep)   # LOST names its side
    lines = [
        "profile %s at %d ms (%s): %s" % (rep["profile"], rep["t_ms"], profiles.fmt_mmss(rep["t_ms"]), state),
        side("left"),
        side("right"),
    ]
    if rep["challenge_ms"]:
        lines.append("challenge window: %d ms left" % rep["challenge_ms"])
    width = len(rep["lcd"][0])
    lines.append("+" + "-" * width + "+")
    for row in rep["lcd"]:
        lines.append("|" + row + "|")
    lines.append("+" + "-" * width + "+")
    return "\n".join(lines)
