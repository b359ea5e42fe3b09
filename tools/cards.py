#!/usr/bin/env python3
"""Printable cards (issues 21, 27): a player card and a referee card per
language, as PDF, from their own short sources docs/cards/<lang>.md (the
manuals, docs/quickref.<lang>.md, stay what they are).

    python tools/cards.py [--out build/cards] [--lang en ...]    (make cards)

The player card is what a player reads at arm's length: the few things a
player does, each with a picture of the three keys (the ones to press
filled, how long to hold them beside), on one A5 page at 12 pt or more
(it prints two to an A4 sheet, or folds into a table tent).  The referee card
is numbered steps for each situation (the menu, a dispute, a late player,
a game ended by mistake, TSO § 5.2 d, a power cut), with no shell command,
on one A4 page in two columns at 11 pt or more.  The display's words
(`{ASK_END}`, `{T_VOID_L}` ...) are filled in from firmware/lang.py, the
clock's own text, so a card never names a word the clock does not show.

The source: a first line `keys: L | ‖ | R` (the three keys' labels), then
Markdown; `<!-- card: referee -->` splits it; `{keys O}` / `{keys P 2s}`
/ `{keys LR 1s}` / `{keys PO 2s}` at the start of a line draws the keys (L
left, P pause, R right, O the player's own button) with the line's text
beside them.  Headless
Chromium prints each to PDF; the text size steps down from the card's
largest to its smallest until the card is one page (pdfinfo counts them);
a card that needs less is an error.  tests/test_cards.py checks the PDFs as
pages and as pictures.

Writes build/cards/<lang>-player.pdf, <lang>-referee.pdf (and the .html
beside them).
"""
import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile

import repo_root  # noqa: F401  (this checkout's host_sim)
from host_sim import ROOT

DOCS = os.path.join(ROOT, "docs")
SOURCES = os.path.join(DOCS, "cards")
MARKER = "<!-- card: referee"
KINDS = ("player", "referee")
# (page size, largest, smallest text size in pt) of each card
PAGE_OF = {"player": ("A5", 14.5, 12.0), "referee": ("A4", 13.0, 11.0)}
FONT_STEP = 0.5
FONT_MIN = 11.0          # (the smallest of all the cards' smallest)

CSS = """
@page { size: %(page)s; margin: 9mm 10mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
       font-size: %(font)spt; line-height: 1.2; color: #000; }
body { margin: 0; }
h1 { font-size: 1.45em; margin: 0 0 2.5mm 0; border-bottom: 0.7mm solid #000; column-span: all; }
h2 { font-size: 1.1em; margin: 2.5mm 0 1mm 0; break-after: avoid; }
p { margin: 0 0 1.5mm 0; }
ol { margin: 0 0 1.5mm 0; padding-left: 6mm; }
li { margin: 0 0 0.8mm 0; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 1em; background: #e8e8e8;
       padding: 0 0.5mm; }
.step { display: flex; align-items: center; gap: 3mm; margin: 0 0 1.8mm 0; break-inside: avoid; }
.step svg { flex: none; width: 30mm; height: auto; }
.step div { flex: 1; }
.cols { column-count: %(cols)s; column-gap: 6mm; column-fill: auto; }
section { break-inside: avoid; }
"""

PAGE = """<!DOCTYPE html>
<html lang="%(lang)s"><head><meta charset="utf-8">
<title>%(title)s</title>
<meta name="font-pt" content="%(font)s">
<style>%(css)s</style></head>
<body><div class="cols">
%(body)s
</div></body></html>
"""


class CardError(Exception):
    pass


def keys_svg(which, hold, labels):
    """The three keys, left to right: the ones of `which` (L, P, R) filled
    black, the others outlined; O (the player's own button, left or right:
    players sit on both sides) draws both player buttons grey with a dashed
    edge; `hold` ("2s") written under them."""
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 %d">'
           % (60 if hold else 44)]
    for i, (k, label) in enumerate(zip("LPR", labels)):
        x = 4 + i * 40
        on = k in which
        own = "O" in which and k != "P"
        w, rx = (28, 14) if k == "P" else (32, 6)
        x += (32 - w) // 2
        out.append('<rect x="%d" y="6" width="%d" height="32" rx="%d" fill="%s" stroke="#000" '
                   'stroke-width="3"%s/>' % (x, w, rx, "#000" if on else "#bbb" if own else "#fff",
                                             ' stroke-dasharray="5 3"' if own else ""))
        out.append('<text x="%d" y="29" font-size="17" font-weight="bold" text-anchor="middle" '
                   'font-family="DejaVu Sans" fill="%s">%s</text>'
                   % (x + w // 2, "#fff" if on else "#000", html.escape(label)))
    if hold:
        out.append('<text x="60" y="58" font-size="17" text-anchor="middle" '
                   'font-family="DejaVu Sans">%s</text>' % html.escape(hold.replace("s", " s")))
    out.append("</svg>")
    return "".join(out)


def fill(text, lg):
    """The display's words from firmware/lang.py: `{KEY}` -> the clock's text."""
    import lang

    def one(m):
        try:
            return lang.text(lg, m.group(1))
        except KeyError:
            raise CardError("{%s} is no word of the clock (firmware/lang.py)" % m.group(1))
    return re.sub(r"\{([A-Z][A-Z0-9_]*)\}", one, text)


def read_source(lg):
    """(key labels, player part, referee part) of docs/cards/<lg>.md."""
    path = os.path.join(SOURCES, "%s.md" % lg)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise CardError("%s: %s" % (path, e.strerror or e))
    first, _, rest = text.partition("\n")
    if not first.startswith("keys:") or len(first[5:].split("|")) != 3:
        raise CardError("%s:1: expected `keys: L | ‖ | R`" % os.path.relpath(path, ROOT))
    labels = [x.strip() for x in first[5:].split("|")]
    parts = rest.split(MARKER)
    if len(parts) != 2:
        raise CardError("%s: expected one `%s -->` line" % (os.path.relpath(path, ROOT), MARKER))
    return labels, fill(parts[0], lg), fill(parts[1].split("-->", 1)[1], lg)


def to_html(part, lang, font, kind="player", labels=("L", "‖", "R")):
    import markdown
    page, _hi, _lo = PAGE_OF[kind]
    lines = []
    for ln in part.split("\n"):
        m = re.match(r"^\{keys ([LPRO]+)(?: (\d+s))?\} (.*)$", ln)
        if m:
            body = markdown.markdown(m.group(3), output_format="html")
            lines.append('<div class="step">%s<div>%s</div></div>' % (
                keys_svg(m.group(1), m.group(2), labels), body))
        else:
            lines.append(ln)
    body = markdown.markdown("\n".join(lines), output_format="html")
    # each situation (## and what follows) stays together
    body = "<section>" + body.replace("<h2>", "</section><section><h2>") + "</section>"
    title = next((ln[2:] for ln in part.split("\n") if ln.startswith("# ")), "")
    return PAGE % {"lang": lang, "title": html.escape(title),
                   "css": CSS % {"font": font, "page": page,
                                 "cols": 1 if kind == "player" else 2},
                   "body": body, "font": font}


def pages(pdf_path):
    """How many pages a PDF has (poppler's pdfinfo)."""
    exe = shutil.which("pdfinfo")
    if not exe:
        raise CardError("pdfinfo not installed: Debian's poppler-utils (make deps)")
    out = subprocess.run([exe, pdf_path], capture_output=True, text=True, timeout=60).stdout
    for line in out.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    raise CardError("pdfinfo cannot read %s" % pdf_path)


def _print_at(part, lang, base, font, kind, labels):
    with open(base + ".html", "w", encoding="utf-8") as f:
        f.write(to_html(part, lang, "%.1f" % font, kind, labels))
    print_pdf(base + ".html", base + ".pdf")
    return pages(base + ".pdf") == 1


def fit(part, lang, base, kind="player", labels=("L", "‖", "R")):
    """base.html and base.pdf at the largest size of the card's range (a
    FONT_STEP apart) at which it is one page; returns that size (pt).  The
    largest is tried first, then the smallest (a card too long for it is
    refused at once), then a bisection between."""
    _page, hi, lo_pt = PAGE_OF[kind]
    sizes = [lo_pt + i * FONT_STEP for i in range(int(round((hi - lo_pt) / FONT_STEP)) + 1)]
    if _print_at(part, lang, base, sizes[-1], kind, labels):
        return sizes[-1]
    if not _print_at(part, lang, base, sizes[0], kind, labels):
        raise CardError("%s does not fit one page even at %.1f pt: shorten the card"
                        % (os.path.basename(base), lo_pt))
    lo, hi_i = 0, len(sizes) - 2
    last = 0
    while lo < hi_i:
        mid = (lo + hi_i + 1) // 2
        last = mid
        if _print_at(part, lang, base, sizes[mid], kind, labels):
            lo = mid
        else:
            hi_i = mid - 1
    if last != lo:
        _print_at(part, lang, base, sizes[lo], kind, labels)
    return sizes[lo]


def chromium():
    p = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium")
                                     else None)
    if not p:
        raise CardError("chromium not installed (make deps)")
    return p


def print_pdf(html_path, pdf_path):
    """Headless Chromium prints the page to PDF."""
    with tempfile.TemporaryDirectory(prefix="cards-chromium-") as profile:
        proc = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--disable-background-networking", "--disable-sync",
             "--user-data-dir=" + profile, "--no-pdf-header-footer",
             "--print-to-pdf=" + pdf_path, "file://" + html_path],
            capture_output=True, text=True, timeout=180)
    if proc.returncode != 0 or not os.path.isfile(pdf_path):
        raise CardError("chromium could not print %s: %s" % (
            html_path, (proc.stderr.strip().splitlines() or ["?"])[-1]))


def build(out_dir, langs):
    """Every card of `langs` as PDF in out_dir; returns the PDF paths."""
    os.makedirs(out_dir, exist_ok=True)
    made = []
    for lg in langs:
        labels, player, referee = read_source(lg)
        for kind, part in zip(KINDS, (player, referee)):
            base = os.path.join(os.path.abspath(out_dir), "%s-%s" % (lg, kind))
            fit(part, lg, base, kind, labels)
            made.append(base + ".pdf")
    return made


def main(argv=None):
    import lang
    ap = argparse.ArgumentParser(prog="cards.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "cards"))
    ap.add_argument("--lang", nargs="*", default=list(lang.LANGS), choices=lang.LANGS)
    args = ap.parse_args(argv)
    try:
        for p in build(args.out, args.lang):
            print(os.path.relpath(p, os.getcwd()), flush=True)
    except CardError as e:
        print("cards: %s" % e, file=sys.stderr)
        return 2
    except BrokenPipeError:   # `... | head`: end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
