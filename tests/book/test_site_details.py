"""Small things a reader of the built site would trip over, in headless Chromium (no network).

- Search results show an excerpt of the page's text around the match (book/_static/course.js):
  from the article, not from the page's own table of contents, with formulas written out
  (aⁿbⁿ), never as raw TeX.
- Links in tables are readable on every row, white, striped or hovered: contrast ≥ 4.5:1 (WCAG
  AA) in the light and the dark theme (book/_static/course.css).
- The build's failure logs are not published: MyST-NB writes a failed notebook's traceback into
  the site (reports/); book/_ext/course_site.py moves it beside the site.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import ROOT
from .test_site_browser import RAW_TEX
from .test_site_html import load_extension
from .test_site_layout import article_pages

CONTRAST_JS = (ROOT / "tests" / "widgets" / "contrast.js").read_text()
MIN_CONTRAST = 4.5

# How the search page shows its results: one <li> per page, its excerpt in <p class="context">.
RESULTS = """() => [...document.querySelectorAll('#search-results li')].map(li => ({
  title: li.querySelector('a').textContent,
  excerpt: (li.querySelector('p.context') || {textContent: null}).textContent}))"""


def search(page, server: str, query: str) -> list[dict]:
    page.goto(f"{server}/search.html?q={query}", wait_until="load")
    page.wait_for_function(
        "() => { const items = document.querySelectorAll('#search-results li');"
        " return items.length > 0 && [...items].every(li => li.querySelector('p.context')); }",
        timeout=20000)
    try:  # Sphinx adds each excerpt's paragraph first and fills it when the page's text arrives
        page.wait_for_function(
            "() => [...document.querySelectorAll('#search-results li p.context')]"
            ".every(p => p.textContent.trim())", timeout=10000)
    except PlaywrightTimeout:  # an excerpt that stays empty: the test's asserts name it
        pass
    return page.evaluate(RESULTS)


@pytest.mark.browser
@pytest.mark.timeout(300)
@pytest.mark.parametrize("query", ["gradient", "counter"])
def test_search_results_show_an_excerpt_of_the_text(query, site, server, browser):
    page = browser.new_page()
    try:
        results = search(page, server, query)
        problems = []
        for result in results:
            excerpt = result["excerpt"] or ""
            if query not in excerpt.lower():
                problems.append(f"no {query!r} in the excerpt: {excerpt!r}")
            if re.search(RAW_TEX, excerpt) or "^" in excerpt:
                problems.append(f"raw TeX in the excerpt: {excerpt!r}")
            if "Contents" in excerpt:  # the page's own table of contents, not its text
                problems.append(f"an excerpt of the page's contents list: {excerpt!r}")
        assert len(results) >= 3, results
        assert not problems, f"searching {query!r}:\n" + "\n".join(
            f"{r}" for r in problems)
    finally:
        page.close()


@pytest.mark.browser
def test_search_excerpts_write_formulas_out(site, server, browser):
    page = browser.new_page()
    try:
        page.goto(f"{server}/search.html", wait_until="load")
        written = page.evaluate("""() => ['\\\\(a^n b^n\\\\)', 'h_{t-1}', '\\\\(n \\\\le 10\\\\)',
            'w c w^R', '\\\\mathbf{x}_t \\\\in \\\\mathbb{R}^d', '\\\\frac{1}{2}']
            .map(CourseSite.texToText)""")
        assert written == ["aⁿbⁿ", "hₜ₋₁", "n ≤ 10", "w c wᴿ", "xₜ ∈ Rᵈ", "(1)/(2)"]
    finally:
        page.close()


TABLE_LINKS = """(contrast) => [...document.querySelectorAll('.bd-article table a')]
  .flatMap(a => eval(contrast)(a).map(r => ({...r, row: a.closest('tr') ?
    [...a.closest('tr').parentElement.children].indexOf(a.closest('tr')) : -1})))"""
# Every row as the theme draws it under the pointer.
HOVER_EVERY_ROW = """() => { const style = document.createElement('style');
  style.textContent = '.bd-article table tbody tr { background-color: ' +
    'var(--pst-color-table-row-hover-bg) !important; }';
  document.head.append(style); }"""


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_links_in_tables_are_readable_on_every_row(site, site_pages, server, browser):
    problems, measured, lowest = [], 0, {}
    page = browser.new_page()
    try:
        for relative in article_pages(site, site_pages):
            if "<table" not in (site / relative).read_text(encoding="utf-8"):
                continue
            for theme in ("light", "dark"):
                for state in ("", "hovered"):
                    page.goto(f"{server}/{relative}", wait_until="load")
                    page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
                    if state:
                        page.evaluate(HOVER_EVERY_ROW)
                    for link in page.evaluate(TABLE_LINKS, CONTRAST_JS):
                        measured += 1
                        key = (theme, state or ("striped" if link["row"] % 2 == 0 else "white"))
                        lowest[key] = min(lowest.get(key, 99), link["ratio"])
                        if link["ratio"] < MIN_CONTRAST:
                            problems.append(
                                f"{relative} ({theme}, {state or 'row ' + str(link['row'])}): "
                                f"{link['text']!r} {link['colour']} on {link['background']}: "
                                f"{link['ratio']:.2f}:1")
    finally:
        page.close()
    assert measured, "no link in any table of the site"
    summary = ", ".join(f"{t} {s} {r:.2f}" for (t, s), r in sorted(lowest.items()))
    assert not problems, (f"{len(problems)} table links below {MIN_CONTRAST}:1 (lowest: {summary})"
                          ":\n" + "\n".join(problems[:30]))


def test_failure_logs_are_moved_out_of_the_site(tmp_path: Path):
    extension = load_extension()
    site = tmp_path / "_build" / "html"
    log = site / "reports" / "chapters" / "02_srn.err.log"
    log.parent.mkdir(parents=True)
    log.write_text("Traceback: a cell failed")
    moved = extension.move_reports(site)
    kept = tmp_path / "_build" / "reports" / "chapters" / "02_srn.err.log"
    assert moved == [kept] and kept.read_text() == "Traceback: a cell failed"
    assert not (site / "reports").exists()
    assert extension.move_reports(site) == []  # nothing failed: nothing to move


def test_the_site_publishes_no_build_log(site: Path):
    logs = [p.relative_to(site).as_posix() for p in site.rglob("*.err.log")]
    assert not (site / "reports").exists() and not logs, f"build logs in the site: {logs}"
