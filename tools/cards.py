#!/usr/bin/env python3
"""Printable one-page cards (issue 21): a player card and a referee card per
language, as PDF, made from docs/quickref.<lang>.md at build time (the cards'
one source: nothing here copies their text).

    python tools/cards.py [--out build/cards] [--lang en ...]    (make cards)

Each quick-reference card is split at its `<!-- card: referee ... -->`
line: the part before it (the keys, the screens, a game from start to end)
is the player card, the part after it (referee menu, setup, power cut) the
referee card; both keep the card's title.  The Markdown becomes HTML (the
Python-Markdown package, its tables extension), laid out for A4 in two
columns with the screen pictures of docs/screens/, and headless Chromium
prints it to PDF (--print-to-pdf, no header or footer).  The columns fill
page by page, so a card too long for one page prints on two (nothing is
cut off): the text size steps down from FONT_MAX until the card is one page
(pdfinfo counts them), and a card that needs less than FONT_MIN is an error.
tests/test_cards.py renders every page to PNG (pdftoppm) and checks.

Writes build/cards/<lang>-player.pdf, <lang>-referee.pdf (and the .html
beside them).
"""
import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile

import repo_root  # noqa: F401  (this checkout's host_sim)
from host_sim import ROOT

DOCS = os.path.join(ROOT, "docs")
MARKER = "<!-- card: referee"
KINDS = ("player", "referee")
# The body text's size: the largest of FONT_MAX, FONT_MAX - 0.2, ... down to
# FONT_MIN at which the card prints on one page (a card's text may grow:
# the cards are rewritten now and then).  Below FONT_MIN it is an error.
FONT_MAX = 10.0
FONT_MIN = 7.2
FONT_STEP = 0.2

CSS = """
@page { size: A4; margin: 8mm 9mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
       font-size: %(font)spt; line-height: 1.13; color: #000; }
body { margin: 0; }
h1 { font-size: 15pt; margin: 0 0 2mm 0; border-bottom: 0.6mm solid #000;
     column-span: all; }
h2 { font-size: 1.25em; margin: 1.8mm 0 0.6mm 0; break-after: avoid; }
p, ul { margin: 0 0 1.2mm 0; }
ul { padding-left: 4mm; }
li { margin: 0 0 0.5mm 0; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.95em;
       background: #eee; padding: 0 0.4mm; }
table { border-collapse: collapse; width: 100%%; margin: 0 0 1.5mm 0;
        break-inside: auto; }
td, th { border: 0.2mm solid #888; padding: 0.6mm 1mm; vertical-align: top;
         text-align: left; }
tr { break-inside: avoid; }
th { background: #ddd; }
img { width: 20mm; display: block; }
/* the screens: across the page (their meanings need the width) */
table:has(img) { column-span: all; }
.cols { column-count: 2; column-gap: 5mm; column-fill: auto; }
"""

PAGE = """<!DOCTYPE html>
<html lang="%(lang)s"><head><meta charset="utf-8">
<title>%(title)s</title>
<meta name="font-pt" content="%(font)s">
<base href="file://%(docs)s/">
<style>%(css)s</style></head>
<body><div class="cols">
%(body)s
</div></body></html>
"""


class CardError(Exception):
    pass


def split(text):
    """(title line, player part, referee part) of a quick-reference card."""
    lines = text.split("\n")
    title = next((ln for ln in lines if ln.startswith("# ")), None)
    at = [i for i, ln in enumerate(lines) if ln.startswith(MARKER)]
    if title is None or len(at) != 1:
        raise CardError("expected one `# title` line and one `%s -->` line" % MARKER)
    i = at[0]
    player = "\n".join(lines[:i])
    referee = title + "\n\n" + "\n".join(lines[i + 1:])
    return title, player, referee


def to_html(part, lang, font):
    import markdown
    body = markdown.markdown(part, extensions=["tables"], output_format="html")
    title = part.split("\n", 1)[0].lstrip("# ")
    return PAGE % {"lang": lang, "title": html.escape(title), "docs": DOCS,
                   "css": CSS % {"font": font}, "body": body, "font": font}


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


def _print_at(part, lang, base, font):
    with open(base + ".html", "w", encoding="utf-8") as f:
        f.write(to_html(part, lang, "%.1f" % font))
    print_pdf(base + ".html", base + ".pdf")
    return pages(base + ".pdf") == 1


def fit(part, lang, base):
    """base.html and base.pdf at the largest size of FONT_MIN, FONT_MIN +
    FONT_STEP, ... FONT_MAX that fits one page (a bisection: a longer
    text never fits where a shorter did not); returns that size (pt).
    FONT_MAX is tried first (a card that fits there takes one Chromium
    print), then FONT_MIN (a card too long for it is refused at once)."""
    sizes = [round(FONT_MIN + i * FONT_STEP, 1)
             for i in range(int(round((FONT_MAX - FONT_MIN) / FONT_STEP)) + 1)]
    if _print_at(part, lang, base, sizes[-1]):
        return sizes[-1]
    if not _print_at(part, lang, base, sizes[0]):
        raise CardError("%s does not fit one page even at %.1f pt: shorten the card"
                        % (os.path.basename(base), FONT_MIN))
    lo, hi = 0, len(sizes) - 2        # sizes[lo] fits, sizes[hi + 1] does not
    last = 0                          # the size the files are at
    while lo < hi:
        mid = (lo + hi + 1) // 2
        last = mid
        if _print_at(part, lang, base, sizes[mid]):
            lo = mid
        else:
            hi = mid - 1
    if last != lo:
        _print_at(part, lang, base, sizes[lo])   # the files at the chosen size
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
        src = os.path.join(DOCS, "quickref.%s.md" % lg)
        try:
            with open(src, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise CardError("%s: %s" % (src, e.strerror or e))
        try:
            _title, player, referee = split(text)
        except CardError as e:
            raise CardError("%s: %s" % (os.path.relpath(src, ROOT), e))
        for kind, part in zip(KINDS, (player, referee)):
            base = os.path.join(os.path.abspath(out_dir), "%s-%s" % (lg, kind))
            fit(part, lg, base)
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
