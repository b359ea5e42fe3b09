"""Printable cards (issues 21, 27; tools/cards.py, `make cards`): per
language a player card (one A5 page, 12 pt or more, a picture of the three
keys for each thing a player does) and a referee card (one A4 page of
numbered steps per situation, 11 pt or more, no shell command), PDF from
docs/cards/<lang>.md through headless Chromium, checked as PDF pages
(pdfinfo, the words' boxes from pdftotext -bbox) and as pictures (pdftoppm
-> PNG: the page is used from top to bottom, the key pictures are drawn)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import cards
import lang
from conftest import ROOT
from hallkit import png_pixels

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium"))
    or not shutil.which("pdftoppm"),
    reason="chromium or poppler-utils missing (make deps)")

# DejaVu Sans: a word's box (ascent + descent) is 1.164 em high
EM_BOX = 1.164
SIZES = {"A5": (420, 595), "A4": (595, 842)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("cards")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cards.py"),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out


def words(text):
    """The words a reader sees (Markdown marks, key pictures, quotes dropped)."""
    text = re.sub(r"\{keys [LPRO]+( \d+s)?\}", " ", text)
    text = re.sub(r"[`*#|<>\-!]+", " ", text)
    return re.findall(r"\w+", text)


def boxes(pdf):
    """[(height pt, word)] of every word pdftotext finds on the page."""
    out = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                         timeout=60).stdout
    return [(float(m.group(4)) - float(m.group(2)), m.group(5)) for m in re.finditer(
        r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
        out)]


@pytest.mark.parametrize("lg", lang.LANGS)
@pytest.mark.parametrize("kind", cards.KINDS)
def test_each_card_is_one_page_readable_whole_and_drawn(built, tmp_path, lg, kind):
    """Issue 27: one page of the card's size (A5 player, A4 referee), every
    word at the card's smallest size or more (12 pt player, 11 pt referee:
    measured from the words' boxes), every heading and the last words of its
    source on it (nothing cut off), the page used from top to bottom; the
    player card draws the keys, the referee card numbers its steps and names
    no shell command."""
    pdf = os.path.join(str(built), "%s-%s.pdf" % (lg, kind))
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    assert re.search(r"^Pages:\s+1$", info, re.M), info
    page, _hi, lo = cards.PAGE_OF[kind]
    w, h = [float(x) for x in re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups()]
    assert abs(w - SIZES[page][0]) < 2 and abs(h - SIZES[page][1]) < 2, (w, h)
    got = boxes(pdf)
    assert len(got) > 60
    small = [(round(b / EM_BOX, 1), t) for b, t in got if b / EM_BOX < lo - 0.1]
    assert not small, small[:10]
    labels, player, referee = cards.read_source(lg)
    mine = player if kind == "player" else referee
    flat = " ".join(words(subprocess.run(["pdftotext", pdf, "-"], capture_output=True,
                                         text=True, timeout=60).stdout))
    for head in [ln[3:] for ln in mine.split("\n") if ln.startswith("## ")]:
        assert " ".join(words(head)) in flat, head
    assert " ".join(words(mine)[-5:]) in flat
    # as a picture: ink in every fifth of the page's height
    subprocess.run(["pdftoppm", "-r", "30", "-png", pdf, str(tmp_path / "p")], check=True,
                   timeout=120)
    pw, ph, rows = png_pixels(open(str(tmp_path / "p-1.png"), "rb").read())
    assert abs(ph / pw - SIZES[page][1] / SIZES[page][0]) < 0.02
    band = ph // 5
    ink = [sum(1 for row in rows[i * band:(i + 1) * band] for px in row if max(px) < 100)
           for i in range(5)]
    assert all(n > 50 for n in ink[:4]), ink
    html_text = open(pdf[:-4] + ".html", encoding="utf-8").read()
    if kind == "player":
        assert html_text.count("<svg") >= 6              # the keys, step by step
        assert all(lb in html_text for lb in labels)
    else:
        assert html_text.count("<ol>") >= 6                 # numbered steps per situation
        for bad in ("python", "host_sim", "make ", "$ ", "mpremote"):
            assert bad not in mine.lower(), bad


def test_a_card_names_only_words_the_clock_shows():
    assert cards.fill("`{T_VOID_L}`", "de") == "`5.2d: zurück L`"
    with pytest.raises(cards.CardError) as e:
        cards.fill("{NO_SUCH_WORD}", "en")
    assert "NO_SUCH_WORD" in str(e.value)


def test_a_card_too_long_for_one_page_is_refused(tmp_path):
    """A card that would need a second page even at its smallest size is an
    error, never a card cut short or printed on two pages."""
    part = "# Title\n\n" + "\n\n".join("## Part %d\n\n" % i + "word " * 400 for i in range(12))
    with pytest.raises(cards.CardError) as e:
        cards.fit(part, "en", str(tmp_path / "long"), "player")
    assert "does not fit one page" in str(e.value)
