"""The label sheet of `make firmware-tables` (issue 37): one label per table,
to stick on the clock (and its box) once its image is on it, saying the
table's number and what the clock is for, with the file and the first
digits of its SHA-256 so that label, file and manifest.csv can be matched.

    tablelabels.sheet(rows, "build/firmware/tables-pico_w/labels.pdf")

rows are manifest.csv's (tools/fwimage.py).  A4 sheets of 3 x 7 labels of
63.5 x 38.1 mm (the common L7160 layout; on plain paper the dashed frames
are the cut lines), printed to PDF by headless Chromium the way the cards
are (tools/cards.py print_pdf); tests/test_firmware_tables.py reads the PDF
back (pdfinfo, pdftotext, pdftoppm).
"""
import html
import os

import cards

PER_PAGE = 21            # 3 columns x 7 rows
CSS = """
@page { size: A4; margin: 15.1mm 7.2mm 0 7.2mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #000; }
body { margin: 0; }
.page { display: grid; grid-template-columns: repeat(3, 63.5mm); grid-auto-rows: 38.1mm;
        column-gap: 2.5mm; break-after: page; }
.page:last-child { break-after: auto; }
.label { box-sizing: border-box; border: 0.3mm dashed #888; border-radius: 2mm;
         padding: 2mm 3mm; overflow: hidden; display: flex; flex-direction: column; }
.num { font-size: 24pt; font-weight: bold; line-height: 1; }
.for { font-size: 8.5pt; margin-top: 1mm; }
.file { font-family: "DejaVu Sans Mono", monospace; font-size: 7pt; margin-top: auto; }
"""


class LabelError(Exception):
    """One line: the sheet could not be printed."""


def to_html(rows):
    """The sheet's HTML: a label per row, PER_PAGE to a page."""
    labels = []
    for r in rows:
        labels.append(
            '<div class="label"><div class="num">Table %(t)s</div>'
            '<div class="for">Scrabble clock for table %(t)s only &middot; event %(event)s '
            '&middot; hall %(broker)s</div>'
            '<div class="file">%(file)s &middot; %(sha)s<br>app %(commit)s &middot; '
            'MicroPython %(mp)s</div></div>'
            % {"t": html.escape(str(r["table"])), "event": html.escape(r["event"]),
               "broker": html.escape(r["broker"]), "file": html.escape(r["file"]),
               "sha": html.escape(r["sha256"][:12]), "commit": html.escape(r["commit"]),
               "mp": html.escape(r["micropython"])})
    pages = ['<div class="page">%s</div>' % "".join(labels[i:i + PER_PAGE])
             for i in range(0, len(labels), PER_PAGE)]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<title>Table labels</title><style>%s</style></head><body>\n%s\n</body></html>\n'
            % (CSS, "\n".join(pages)))


def sheet(rows, pdf_path):
    """labels.pdf (and its .html beside it) for `rows`; returns the PDF's
    path.  LabelError without Chromium or poppler (the HTML is still there
    to print from a browser)."""
    base = pdf_path[:-4] if pdf_path.endswith(".pdf") else pdf_path
    with open(base + ".html", "w", encoding="utf-8") as f:
        f.write(to_html(rows))
    try:
        cards.print_pdf(os.path.abspath(base + ".html"), pdf_path)
        n = cards.pages(pdf_path)
    except cards.CardError as e:
        raise LabelError("%s (%s.html is there to print from a browser)" % (e, base))
    want = (len(rows) + PER_PAGE - 1) // PER_PAGE
    if n != want:
        raise LabelError("%s has %d pages, not %d: the labels do not fit the sheet"
                         % (pdf_path, n, want))
    return pdf_path
