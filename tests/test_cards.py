"""Printable cards (issue 21): one player card and one referee card per
language, PDF from docs/quickref.<lang>.md through headless Chromium
(tools/cards.py, `make cards`), each rendered to PNG with pdftoppm and
checked to be one A4 page holding the whole of its part of the card."""
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

import cards
import lang
from conftest import ROOT

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium"))
    or not shutil.which("pdftoppm"),
    reason="chromium or poppler-utils missing (make deps)")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("cards")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cards.py"),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def words(text):
    """The words a reader sees (Markdown marks and code quotes dropped)."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)      # pictures
    text = re.sub(r"[`*|#<>\-!]+", " ", text)
    return re.findall(r"\w+", text)


@pytest.mark.parametrize("lg", lang.LANGS)
@pytest.mark.parametrize("kind", cards.KINDS)
def test_each_card_is_one_a4_page_with_all_its_text(built, tmp_path, lg, kind):
    """Issue 21: a one-page player card and a one-page referee card per
    language, from the same source as the docs: pdftoppm renders exactly
    one page, A4 portrait; the page holds every section heading of its part
    of docs/quickref.<lang>.md and its last words (nothing cut off), not
    the other part's last words, at a readable size (cards.FONT_MIN = 7.2 pt or
    more; measured today: player cards en 8.4, pl 8.0, de 7.8 pt, referee
    cards 10 pt)."""
    pdf = os.path.join(str(built), "%s-%s.pdf" % (lg, kind))
    proc = subprocess.run(["pdftoppm", "-r", "40", "-png", pdf, str(tmp_path / "p")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    pngs = sorted(os.listdir(tmp_path))
    assert pngs == ["p-1.png"], pngs                       # one page
    w, h = png_size(str(tmp_path / pngs[0]))
    assert abs(h / w - 297 / 210) < 0.01, (w, h)          # A4 portrait
    with open(os.path.join(cards.DOCS, "quickref.%s.md" % lg), encoding="utf-8") as f:
        _title, player, referee = cards.split(f.read())
    mine, other = (player, referee) if kind == "player" else (referee, player)
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True,
                          text=True, timeout=60).stdout
    flat = " ".join(words(text))
    heads = [h[3:].strip() for h in mine.split("\n") if h.startswith("## ")]
    assert heads, mine[:200]
    for head in heads:
        assert " ".join(words(head)) in flat, head
    tail = words(mine)[-6:]
    assert " ".join(tail) in flat, tail
    assert " ".join(words(other)[-6:]) not in flat      # the other card's end
    html_text = open(pdf[:-4] + ".html", encoding="utf-8").read()
    font = float(re.search(r'name="font-pt" content="([\d.]+)"', html_text).group(1))
    assert cards.FONT_MIN <= font <= cards.FONT_MAX, font


def test_a_card_without_the_split_line_is_one_clear_error():
    with pytest.raises(cards.CardError) as e:
        cards.split("# Title\n\n## Keys\n\ntext\n")
    assert "card: referee" in str(e.value)


def test_a_card_too_long_for_one_page_is_refused(tmp_path):
    """A card that would need a second page even at FONT_MIN is an error,
    never a card cut short or printed on two pages."""
    part = "# Title\n\n" + "\n\n".join("## Part %d\n\n" % i + "word " * 400 for i in range(12))
    with pytest.raises(cards.CardError) as e:
        cards.fit(part, "en", str(tmp_path / "long"))
    assert "does not fit one page" in str(e.value)
