"""What the pages' HTTPS server (hall/tls.py PageServer) serves besides the
files of www/ (issue 37, docs/hall.md "The director's page"):

- every text file with its charset: `text/plain; charset=utf-8` for the
  timelines (Chromium read a bare `text/plain` as windows-1252 and showed
  the clock's `▶ ◀ ‖` as `â–¶ â—€ â€–`, and German and Polish words the same
  way), and a timeline's `Content-Language` is the language of its name
  (`timeline-t5-a5-g3-de.txt`: `de`);
- the finished rounds, read from the hall folder at each request (nothing
  is written for them): `rounds/N.json` is round N's games as `hall
  results --round N` has them (tournament.rows, the one place rows are
  made), each with its timeline's name in www/ and the link of its filed
  log, `rounds/N/log-t<table>-a<account>-g<game>.txt` (filing.py's file).
  Only ASCII digits make a round, table, account or game; anything else is
  404."""
import json
import os
import re

from hall import filing
from hall import tournament

TYPES = {".txt": "text/plain; charset=utf-8", ".html": "text/html; charset=utf-8",
         ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".json": "application/json"}

_TIMELINE = re.compile(r"^/?timeline-t[0-9]+-a[0-9]+-g[0-9]+-(en|de|pl)\.txt$")
_ROUND = re.compile(r"^/rounds/([1-9][0-9]{0,2})\.json$")
_LOG = re.compile(r"^/rounds/([1-9][0-9]{0,2})/log-t([1-9][0-9]{0,3})-a([1-9][0-9]{0,8})"
                  r"-g([1-9][0-9]{0,8})\.txt$")
_LANG = re.compile(rb"^# lang (en|de|pl)[ \t]*$", re.M)


def content_language(path):
    """The language of a timeline's file name, or None."""
    m = _TIMELINE.match(os.path.basename(path.split("?")[0]))
    return m.group(1) if m else None


def log_path(hall, rnd, table, clock, game):
    return os.path.join(filing.folder_of(hall, rnd, table), "%s-g%04d.txt" % (clock, game))


def _lang(path):
    try:
        with open(path, "rb") as f:
            m = _LANG.search(f.read(4096))
    except OSError:
        return None
    return m.group(1).decode() if m else "en"


def round_games(hall, rnd):
    """Round rnd's finished games for the page: a list of dicts (fixed keys,
    the players' names as data)."""
    out = []
    for r in tournament.rows(hall, rnd, warn=lambda m: None, byes=False):
        table, account, game = r["table"], r["account"], r["game"]
        path = log_path(hall, rnd, table, r["clock"], game)
        lang = _lang(path)
        tl = None
        if lang is not None:
            name = filing.timeline_name(table, account, game, lang)
            if os.path.isfile(os.path.join(hall, "www", name)):
                tl = name
        out.append({"table": table, "account": account, "game": game, "clock": r["clock"],
                    "left": r["left_player"], "right": r["right_player"],
                    "left_clock": r["left_clock"], "right_clock": r["right_clock"],
                    "left_penalty": r["left_penalty"], "right_penalty": r["right_penalty"],
                    "forfeit": r["forfeit"], "end_local": r["end_local"], "timeline": tl,
                    "log": ("rounds/%d/log-t%d-a%s-g%d.txt" % (rnd, table, account, game))
                    if lang is not None else None})
    return out


def dynamic(hall, path):
    """(bytes, content type) for a path served from the hall folder, or None
    (then www/ answers, or 404)."""
    path = path.split("?")[0]
    m = _ROUND.match(path)
    if m:
        rnd = int(m.group(1))
        body = {"round": rnd, "games": round_games(hall, rnd)}
        return json.dumps(body, ensure_ascii=False).encode("utf-8"), TYPES[".json"]
    m = _LOG.match(path)
    if m:
        rnd, table, account, game = (int(g) for g in m.groups())
        for r in tournament.rows(hall, rnd, warn=lambda m: None, byes=False):
            if (r["table"], r["account"], r["game"]) == (table, str(account), game):
                try:
                    with open(log_path(hall, rnd, table, r["clock"], game), "rb") as f:
                        return f.read(), TYPES[".txt"]
                except OSError:
                    return None
    return None
