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
    chapters = sorted((site / "chapters").glob("0[1-7]_*.html"))
    assert len(chapters) == 7, [p.name for p in chapters]
    for page in chapters:
        images = re.findall(r'<img [^>]*src="[^"]*_images/', page.read_text())
        assert images, f"{page.name} shows no figure"
