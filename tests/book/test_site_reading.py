"""Every page can be read in at most 35 minutes as a reader reads it (issue 43, item 6).

``tests/test_reading.py`` holds each page's main line to 35 minutes by ``benchmarks/reading.py``'s
formula, from the notebook: prose, shown code, figures and tables. A reader also reads what the
code puts on the page — printed lines, generated sentences, figure captions — which only the built
page has. This test counts them as ``reading.py --site`` does (``as_a_reader_reads``), so the
figure ``benchmarks/results/reading.md`` reports for a build is the one held to the limit here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import CHAPTERS, reading_benchmark, skip_or_fail

MAX_READER_MINUTES = 35


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_page_is_at_most_35_minutes_as_a_reader_reads(path: Path, site: Path):
    built = site / "chapters" / f"{path.stem}.html"
    if not built.is_file():
        skip_or_fail(f"{path.stem} is not in the built site at {site}")
    reading = reading_benchmark()
    page = reading.measure(path)
    reading.as_a_reader_reads(page, built)
    assert page.output_words > 0, f"{path.stem}: no output read from the built page"
    assert page.reader_minutes <= MAX_READER_MINUTES, (
        f"{path.stem}: {page.reader_minutes} minutes as a reader reads ({page.reading_minutes} by "
        f"the formula + {page.output_words} words the code puts in the main line), more than "
        f"{MAX_READER_MINUTES}: move printed detail into the notes, or cut")
