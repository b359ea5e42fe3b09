"""Every game's log at hand (issue 27, docs/hall.md "Game logs"): the
recorder files each log a clock publishes (scrabble/<event>/<table>/log/<game>/<account>,
retained, at game over) by round and table, and writes a readable timeline
of it for the director's page.

    <hall>/logs/round-2/table-05/<clock id>-g0003.txt     the log, byte for byte
    <hall>/www/timeline-t5-a5-g3-<lang>.txt              its timeline, en/de/pl

A log is written to a temp file, fsynced, renamed over its name and its
folder fsynced: a power cut leaves the old file or the new one.  The same
log again (the broker sends retained logs at every connection) changes
nothing; a longer one of the same game (a referee resumed it) replaces it;
another game under the same name (a clock counting from game 1 again) is
filed beside it as -2, -3 (host_sim/logs.py's rule for the USB pull).
`hall logs --round N [--table T]` copies them out.

The timeline is the replay (host_sim/replay.py) of the log: at each event
its game time, the event and the two LCD rows as the clock showed them
right after it, drawn by the clock's own view in each of the clock's
languages; the page links the one the log names (its header's `# lang xx`,
English when there is none, as the clock writes it).
"""
import os

import hallproto as hp

from hall import durable
from host_sim import logs as logsmod
from host_sim import replay
from host_sim import timeline as timelinemod

LOGS = "logs"
LANGS = ("en", "de", "pl")


def folder_of(hall, rnd, table):
    return os.path.join(hall, LOGS, "round-%d" % rnd, "table-%02d" % table)


_write = durable.replace


def file_log(hall, rnd, table, game, data, clock):
    """File one published log under `clock`'s name (the recorder has checked
    that the publishing account owns that clock: no account writes, extends
    or takes another clock's file); returns its path if written now, None if
    the same log was there already."""
    folder = folder_of(hall, rnd, table)
    os.makedirs(folder, exist_ok=True)
    name = "%s-g%04d.txt" % (clock, game)
    staged = os.path.join(folder, "." + name + ".new")
    with open(staged, "wb") as f:
        f.write(data)
    try:
        target = logsmod._target(folder, name, staged)
        if os.path.isfile(target):
            with open(target, "rb") as f:
                if f.read() == data:
                    return None
        _write(target, data)
        return target
    finally:
        os.remove(staged)


def timeline(text, lang="en", cols=16, rows=2):
    """The log's replay as readable lines: `mm:ss  event  |row 0|row 1|`."""
    return timelines(text, (lang,), cols, rows)[lang]


def timelines(text, langs=LANGS, cols=16, rows=2):
    """{language: timeline(text, language)} for each of langs, from one
    replay of the log."""
    lines = text.split("\n")
    if lines and lines[-1] != "" and "#" not in lines[-1]:
        lines.pop()                      # a torn last line (logs.read_log's rule)
    game = replay.parse(lines)
    # the game's moments as `replay --timeline` reads them (its events only)
    by, clock, _at = timelinemod.steps_each(game, langs, game.events[-1].t if game.events
                                            else 0, cols, rows)
    return {lg: _lines(by[lg], clock, cols, rows) for lg in langs}


def _lines(steps, clock, cols, rows):
    out = ["%-7s %-12s %s" % ("time", "event", "the clock showed")]
    for st in steps:
        if st.note:
            continue
        what = st.what + ("" if st.side < 0 else " " + ("left", "right")[st.side])
        if st.what == "adjust":
            what += " %+d s" % (st.arg // 1000)
        elif st.what == "lateness":
            what += " " + _mmss(st.arg)    # the referee's elapsed lateness
        shown = " ".join("|%s|" % b for b in st.lcd)
        out.append("%-7s %-12s %s" % (_mmss(st.t), what, shown))
    rep = replay.report(clock, clock.t, cols, rows)
    out.append("")
    out.extend(replay.summary(rep).split("\n"))
    return "\n".join(out) + "\n"


def _mmss(ms):
    s = ms // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 \
        else "%02d:%02d" % (s // 60, s % 60)


def timeline_name(table, account, game, lang):
    return "timeline-t%d-a%s-g%d-%s.txt" % (table, account, game, lang)


def write_timelines(www, table, account, game, data):
    """The page's timelines of a log (one per language), or the reason
    none can be made (a log the replay cannot read)."""
    try:
        text = data.decode("utf-8")
        made = timelines(text, LANGS)
    except (UnicodeDecodeError, replay.ReplayError) as e:
        return "its log cannot be replayed: %s" % getattr(e, "message", e)
    os.makedirs(www, exist_ok=True)
    for lg, t in made.items():
        _write(os.path.join(www, timeline_name(table, account, game, lg)), t.encode("utf-8"))
    return None


def filed(hall, rnd, table=None):
    """[(table, path)] of round rnd's filed logs (one table's if given)."""
    base = os.path.join(hall, LOGS, "round-%d" % rnd)
    out = []
    try:
        tables = sorted(os.listdir(base))
    except FileNotFoundError:
        return out
    for t in tables:
        tn = hp.num(t[6:].lstrip("0")) if t.startswith("table-") else None
        if tn is None or t != "table-%02d" % tn or table is not None and tn != table:
            continue
        for n in sorted(os.listdir(os.path.join(base, t))):
            if n.endswith(".txt") and not n.startswith("."):
                out.append((tn, os.path.join(base, t, n)))
    return out
