"""Every figure a chapter computes is drawn on its page, not printed as "<Figure size …>".

A matplotlib Figure made by the library (not by pyplot) is only drawn in a notebook whose inline
backend is on (``%matplotlib inline`` or ``import matplotlib.pyplot``); otherwise the page shows
its repr as text, which no other test notices.
"""

from __future__ import annotations

import re
from pathlib import Path

FIGURE_AS_TEXT = re.compile(r"&lt;(Figure|matplotlib\.figure\.Figure) (size|at) ")


def test_no_figure_is_printed_as_text(site_pages: list[Path]):
    printed = [str(page) for page in site_pages if FIGURE_AS_TEXT.search(page.read_text())]
    assert not printed, f"figures shown as text, not drawn: {printed}"


def test_every_chapter_draws_figures(site: Path):
    chapters = sorted((site / "chapters").glob("0[1-8]_*.html"))
    # chapters 1-8; a long chapter is split into pages (03_gates, 03_gates_counting, ...)
    assert sorted({p.name[:2] for p in chapters}) == [f"0{k}" for k in range(1, 9)], (
        [p.name for p in chapters])
    for page in chapters:
        images = re.findall(r'<img [^>]*src="[^"]*_images/', page.read_text())
        assert images, f"{page.name} shows no figure"


# A figure a chapter computes has a caption (MyST-NB: the cell's `mystnb: figure: caption`) and
# an alt text that says what it shows (`mystnb: image: alt`), not the image's file name.
FIGURE_IMAGE = re.compile(r'<img [^>]*src="[^"]*_images/[^"]*"[^>]*>')
HASHED_ALT = re.compile(r'alt="(?:[^"]*/)?[0-9a-f]{16,}\.\w+"|alt=""')


def test_every_figure_has_a_caption_and_alt_text(site: Path):
    problems = []
    for page in sorted((site / "chapters").glob("*.html")):
        text = page.read_text()
        for match in FIGURE_IMAGE.finditer(text):
            image = match.group(0)
            if HASHED_ALT.search(image):
                problems.append(f"{page.name}: alt text is a file name: {image[:120]}")
            figure_start = text.rfind("<figure", 0, match.start())
            figure_end = text.rfind("</figure>", 0, match.start())
            following = text[match.end(): match.end() + 2000]
            if figure_start <= figure_end or "<figcaption" not in following.split("</figure>")[0]:
                problems.append(f"{page.name}: a figure without a caption: {image[:120]}")
    assert not problems, f"{len(problems)} figures lack a caption or alt text:\n" + "\n".join(
        problems[:40]
    )
