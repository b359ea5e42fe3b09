"""`replay --timeline`: the whole game as a referee reads it (issue 37).

One line per moment: each event of the log and each time-triggered
transition the core computes (the challenge window closing, a flag, a
forfeit, both flags), in time order, with the game time, what happened,
both times as the clock showed them, whose turn it is, the marks (flag,
penalty, LOST with its side, the challenge window) and the LCD rows, all
in the log's language (`# lang xx`).

Nothing here runs the game a second way: steps() is replay.run() with a
watch (the core's hook for its own notes, at their exact instant, and each
event after it is applied), each moment's state is firmware/report.py's state and its
LCD rows replay.lcd_rows() (the clock's own view).  hall/filing.py timeline()
(the director's page) reads the game through steps() too.
"""
import host_sim  # noqa: F401  (puts firmware/ on sys.path)

import clockcore
import gamelog
import profiles
import report as reportmod
import lang as langmod
from host_sim import replay

# The timeline's own words, per language (firmware/lang.LANGS; tests/
# test_replay_timeline.py checks every language has every key).  The
# display's words (LOST, the window's label, the flag) are the clock's own,
# lang.text().  %s: a side's word (left/right); %d: seconds.
WORDS = {
    "en": {
        "head": ("time", "event", "left", "right", "turn", "marks", "the clock showed"),
        "left": "left", "right": "right",
        "ev_left": "left button", "ev_right": "right button", "ev_pause": "pause key",
        "ev_end": "end", "ev_adjust": "adjust %s %+d s", "ev_late": "late: %s absent",
        "ev_void": "5.2d refund %s", "ev_resume": "end undone", "ev_base": "base %s %s",
        "ev_lateness": "lateness %s %s",
        "n_flag": "flag %s", "n_forfeit": "forfeit %s", "n_window closed": "window closed",
        "n_over": "both flags", "n_overtime limit": "overtime cap %s",
        "ignored": "(ignored)", "ready": "ready", "over": "over", "paused": "paused %s",
        "running": "%s runs", "late": "%s late", "lost": "%s LOST", "pen": "%s %s%d",
        "flag": "%s flag", "window": "%s %d s",
    },
    "de": {
        "head": ("Zeit", "Ereignis", "links", "rechts", "am Zug", "Anzeigen", "die Uhr zeigte"),
        "left": "links", "right": "rechts",
        "ev_left": "Taste links", "ev_right": "Taste rechts", "ev_pause": "Pausetaste",
        "ev_end": "Ende", "ev_adjust": "Korrektur %s %+d s",
        "ev_late": "Verspätung %s, Uhr läuft",
        "ev_void": "5.2d zurück %s", "ev_resume": "Ende aufgehoben",
        "ev_base": "Bedenkzeit %s %s", "ev_lateness": "Verspätung %s gesetzt %s",
        "n_flag": "Zeit um %s", "n_forfeit": "verloren %s", "n_window closed": "Anfechtung zu",
        "n_over": "beide Zeiten um", "n_overtime limit": "Überzeit-Grenze %s",
        "ignored": "(ohne Wirkung)", "ready": "bereit", "over": "Ende", "paused": "Pause %s",
        "running": "%s läuft", "late": "%s verspätet", "lost": "%s VERLOREN",
        "pen": "%s %s%d", "flag": "%s Zeit um", "window": "%s %d s",
    },
    "pl": {
        "head": ("czas", "zdarzenie", "lewy", "prawy", "ruch", "oznaczenia", "zegar pokazywał"),
        "left": "lewy", "right": "prawy",
        "ev_left": "przycisk lewy", "ev_right": "przycisk prawy", "ev_pause": "stop",
        "ev_end": "koniec", "ev_adjust": "korekta %s %+d s",
        "ev_late": "spóźnienie: %s, zegar chodzi",
        "ev_void": "5.2d zwrot %s", "ev_resume": "koniec cofnięty",
        "ev_base": "czas bazowy %s %s", "ev_lateness": "spóźnienie %s ustawione %s",
        "n_flag": "chorągiewka %s", "n_forfeit": "przegrana %s",
        "n_window closed": "koniec sprawdzenia", "n_over": "obie chorągiewki",
        "n_overtime limit": "limit nadczasu %s",
        "ignored": "(bez skutku)", "ready": "gotowy", "over": "koniec", "paused": "stop %s",
        "running": "%s gra", "late": "%s spóźniony", "lost": "%s PRZEGRAŁ",
        "pen": "%s %s%d", "flag": "%s chorągiewka", "window": "%s %d s",
    },
}


class Step:
    """One moment of the timeline: at t (ms of the log) `what` happened (an
    event's word, or a core note's: gamelog.NOTES), to `side` (-1: none),
    with `arg` (an adjustment's ms, a base time); the state right after it:
    the report (firmware/report.py), whose clock the pause stopped, the
    flag marks shown, and the LCD rows."""
    __slots__ = ("t", "what", "side", "arg", "note", "ignored", "rep", "stopped",
                 "flags", "lcd")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])


class _Watch:
    """replay.run()'s watch: a Step at each note and each event, for each
    of `languages` (by[language]: its steps; the moments and the reports
    are the same in each, only the LCD rows are the language's)."""

    def __init__(self, cols, rows, languages):
        self.cols, self.rows, self.langs = cols, rows, languages
        self.by = {lg: [] for lg in languages}
        self.got = self.by[languages[0]]

    def _shot(self, clock, t, what, side, arg, note, ignored):
        rep = reportmod.state(clock, t)
        stopped = clock.side if clock.state == clockcore.PAUSED else -1
        flags = (clock.flag_shown(0), clock.flag_shown(1))
        for lg in self.langs:
            self.by[lg].append(Step(
                t=t, what=what, side=side, arg=arg, note=note, ignored=ignored,
                rep=rep, stopped=stopped, flags=flags,
                lcd=replay.lcd_rows(clock, self.cols, self.rows, lg)))

    def note(self, clock, code, side, t, arg):
        if not clockcore.is_action(code):   # the events come through event()
            self._shot(clock, t, gamelog.NOTES[code], side, arg, True, False)

    def event(self, clock, ev, ok):
        self._shot(clock, ev.t, ev.kind, ev.side, ev.delta, False, not ok)


def steps(game, at=None, cols=16, rows=2, language=None, warn=None):
    """The game's moments up to `at` (default: its end, as `replay`
    reports it), in order; returns (steps, clock, at)."""
    w = _Watch(cols, rows, (language or game.lang,))
    clock, at = replay.run(game, at, warn, w)
    return w.got, clock, at


def steps_each(game, languages, at=None, cols=16, rows=2, warn=None):
    """steps() in each of `languages` from one replay of the game:
    ({language: its steps}, clock, at); a language's steps are the ones
    steps(game, at, cols, rows, language) gives (hall/filing.py: the
    page's timelines in every language, the game run once)."""
    w = _Watch(cols, rows, tuple(languages))
    clock, at = replay.run(game, at, warn, w)
    return w.by, clock, at


def words(language):
    return WORDS.get(language) or WORDS["en"]


def describe(step, w):
    """What happened, in words."""
    side = w[clockcore.SIDE_NAMES[step.side]] if step.side in (0, 1) else ""
    text = w[("n_" if step.note else "ev_") + step.what]
    if step.what == "adjust" and not step.note:
        text = text % (side, step.arg // 1000)
    elif step.what in ("base", "lateness") and not step.note:
        text = text % (side, profiles.fmt_mmss(step.arg))
    elif "%s" in text:
        text = text % side
    return text + (" " + w["ignored"] if step.ignored else "")


def turn(step, w):
    """Whose turn: the side whose clock runs, the side a pause stopped, or
    the state (ready, over)."""
    rep = step.rep
    if rep["over"]:
        return w["over"]
    if rep["late"]:
        return w["late"] % w[rep["late"]]
    if rep["running"]:
        return w["running"] % w[rep["running"]]
    if step.stopped >= 0:
        return w["paused"] % w[clockcore.SIDE_NAMES[step.stopped]]
    return w["ready"]


def marks(step, w, language):
    """LOST with its side, the flag, the penalty, the challenge window: the
    display's own words (firmware/lang.py)."""
    rep = step.rep
    out = []
    for s, name in enumerate(clockcore.SIDE_NAMES):
        r = rep[name]
        if r["forfeit"]:
            out.append(w["lost"] % w[name])
        elif step.flags[s]:
            out.append(w["flag"] % w[name])
        if r["penalty"]:
            out.append(w["pen"] % (w[name], langmod.text(language, "PEN"), r["penalty"]))
    if rep["challenge_ms"]:
        out.append(w["window"] % (langmod.text(language, "CHAL"),
                                  (rep["challenge_ms"] + 999) // 1000))
    return ", ".join(out)


def clock_time(ms):
    """A log time as a referee reads it: mm:ss.mmm (h:mm:ss.mmm from an
    hour; two events can be a few ms apart)."""
    s, m = divmod(ms, 1000)
    h, s = divmod(s, 3600)
    mm, ss = divmod(s, 60)
    return ("%d:%02d:%02d.%03d" % (h, mm, ss, m)) if h else "%02d:%02d.%03d" % (mm, ss, m)


FORMAT = "%-12s  %-24s  %7s  %7s  %-14s  %-26s  %s"


def lines(game, at=None, cols=16, rows=2, language=None, warn=None):
    """The timeline as text lines: a header, one line a moment; returns
    (lines, clock, at)."""
    lg = language or game.lang
    w = words(lg)
    got, clock, at = steps(game, at, cols, rows, lg, warn)
    out = [FORMAT % w["head"]]
    for st in got:
        out.append((FORMAT % (clock_time(st.t), describe(st, w),
                              replay.shown_time(st.rep["left"]),
                              replay.shown_time(st.rep["right"]), turn(st, w),
                              marks(st, w, lg),
                              " ".join("|%s|" % r for r in st.lcd))).rstrip())
    return out, clock, at
