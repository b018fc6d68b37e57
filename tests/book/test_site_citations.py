"""Citations on the built site: two different papers never look alike, and a paper the course
names by author and year can be found in the bibliography under that year.

In-text citations are links to the bibliography page (sphinxcontrib-bibtex, author–year). Two
papers by the same authors in the same year must read differently ("2022a", "2022b"), or a
reader cannot tell which one a sentence means.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from pathlib import Path

from .conftest import ROOT

CITATION = re.compile(
    r'<a class="reference internal" href="(?:\.\./)*bibliography\.html#(?P<target>[^"]+)"'
    r'[^>]*>(?P<text>.*?)</a>',
    re.S,
)
ENTRY = re.compile(
    r'<div class="citation" id="(?P<id>[^"]+)" role="doc-biblioentry">(?P<body>.*?)</div>',
    re.S,
)
# "Bernardy & Lappin (2022; 2023)", "Bernardy & Lappin 2023", "Bernardy and Lappin (2023, §3)"
NAMED = re.compile(r"Bernardy (?:&|and) Lappin,? \(?(?P<years>\d{4}[a-z]?(?:[;,] *\d{4}[a-z]?)*)")


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_two_papers_never_share_a_citation(site: Path, site_pages: list[Path]):
    targets: dict[str, set[str]] = defaultdict(set)
    where: dict[str, set[str]] = defaultdict(set)
    for page in site_pages:
        for match in CITATION.finditer(page.read_text(encoding="utf-8")):
            text = plain(match["text"])
            if re.search(r"\d{4}", text):  # author-year citations (not "[1]"-style back links)
                targets[text].add(match["target"])
                where[text].add(page.relative_to(site).as_posix())
    assert targets, "no citation found on the site"
    shared = {text: sorted(ids) for text, ids in targets.items() if len(ids) > 1}
    assert not shared, "different papers cited alike: " + "; ".join(
        f"{text!r} → {ids} (on {sorted(where[text])})" for text, ids in shared.items()
    )


def test_every_bernardy_lappin_year_the_course_names_is_in_the_bibliography(site: Path):
    entries = [plain(m["body"]) for m in ENTRY.finditer((site / "bibliography.html").read_text())]
    assert entries, "the bibliography page lists no entry"
    ours = [e for e in entries if "Bernardy and Shalom Lappin" in e]
    named = set()
    for path in [ROOT / "README.md", *sorted((ROOT / "src" / "course_rnn").rglob("*.py"))]:
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            named |= {year.strip() for year in re.split(r"[;,]", match["years"])}
    assert named, "the README and the library name no Bernardy & Lappin paper"
    missing = sorted(y for y in named if not any(re.search(rf"\b{y}\b", e) for e in ours))
    assert not missing, (
        f"Bernardy & Lappin {missing} is named in the README or the library but no "
        f"bibliography entry carries that year: {ours}"
    )
