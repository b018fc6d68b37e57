"""No stray HTML in the prose: the course's symbols are shown, never taken for markup.

MyST passes a ``<…>`` it finds in Markdown through as raw HTML. Written outside a code span — in
a figure's caption (cell metadata ``mystnb: figure: caption``), a Markdown cell, or a cell's
Markdown output — the course's symbols ``<s>``, ``</s>``, ``<pad>``, ``<unk>`` would become HTML
elements: ``<s>`` a strike-through running to the end of the page (issue 33 found 227 of chapter
2's 253 paragraphs struck through), ``<unk>`` an element the browser hides. The site extension
(``book/_ext/course_site.py``, ``escape_stray_html``) turns such raw HTML back into text.

- ``test_escape_stray_html_*``: the extension's rule on a small document (no site needed);
- ``test_no_stray_html_element``: no page's article holds an element that is not HTML's (``unk``,
  ``pad`` …) nor a strike-through element (``s``, ``strike``, ``del``), which the site never
  writes on purpose;
- ``test_no_struck_through_text`` (browser): no text of any chapter page is drawn struck through,
  whatever element or style would do it.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .conftest import ROOT

EXTENSION = ROOT / "book" / "_ext" / "course_site.py"

# The elements of HTML (and of the SVG and MathML a page may inline) that the site's pages may
# hold. The strike-through elements are left out on purpose: the site never writes them, and
# `<s>` is the course's start symbol.
HTML_ELEMENTS = frozenset(
    """a abbr address area article aside audio b base bdi bdo blockquote body br button canvas
    caption cite code col colgroup data datalist dd details dfn dialog div dl dt em embed fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input
    ins kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup
    option output p param picture pre progress q rp rt ruby samp script search section select slot
    small source span strong style sub summary sup table tbody td template textarea tfoot th thead
    time title tr track u ul var video wbr
    svg g path rect circle ellipse line polyline polygon text tspan defs use symbol clippath mask
    lineargradient radialgradient stop title desc marker pattern image foreignobject
    math mi mn mo ms mtext mrow msup msub msubsup mfrac msqrt mroot mtable mtr mtd mspace
    mstyle semantics annotation""".split()
)
STRIKE_THROUGH = frozenset({"s", "strike", "del"})


def load_extension():
    spec = importlib.util.spec_from_file_location("course_site_under_test", EXTENSION)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def render(markdown: str) -> str:
    """``markdown`` parsed by MyST as the book parses it, passed through the extension's
    escape, and written as HTML (docutils' writer: the body only)."""
    from docutils.core import publish_doctree, publish_from_doctree
    from myst_parser.parsers.docutils_ import Parser

    escape_stray_html = load_extension().escape_stray_html
    doctree = publish_doctree(markdown, parser=Parser(), settings_overrides={
        "report_level": 5, "output_encoding": "unicode"})
    escape_stray_html(doctree)
    html = publish_from_doctree(doctree, writer_name="html5",
                                settings_overrides={"output_encoding": "unicode"})
    return html[html.index("<main>"): html.index("</main>")]


def test_escape_stray_html_shows_the_course_symbols_as_text():
    html = render("The stream starts with <s> and ends with </s>; rare words become <unk>, "
                  "short rows are filled with <pad>.\n\nThe next paragraph.\n")
    for symbol in ("&lt;s&gt;", "&lt;/s&gt;", "&lt;unk&gt;", "&lt;pad&gt;"):
        assert symbol in html, html
    assert "<s>" not in html and "<unk>" not in html and "<pad>" not in html, html
    assert "<p>The next paragraph.</p>" in html


def test_escape_stray_html_handles_a_line_that_markdown_takes_for_html():
    # A line that starts with a lone tag is a raw HTML *block* to Markdown.
    html = render("<s> a b\n\ntext after it\n")
    assert "&lt;s&gt; a b" in html and "<s>" not in html, html


def test_escape_stray_html_keeps_the_markup_the_site_writes_on_purpose():
    html = render('Download <a href="x.zip" download>x.zip</a>, H<sub>2</sub>O.\n\n'
                  '<div class="rnn-playground"></div>\n')
    assert '<a href="x.zip" download>x.zip</a>' in html
    assert "<sub>2</sub>" in html and '<div class="rnn-playground"></div>' in html


def test_launch_links_of_a_page_kept_in_the_book_folder_name_its_file():
    launch = load_extension().launch_from_book_folder
    colab = "https://colab.research.google.com/github/o/r/blob/main/"

    def buttons(path):
        return [{"label": "download-buttons", "buttons": [{"url": "x/maths.ipynb"}]},
                {"label": "launch-buttons", "buttons": [{"url": colab + path}]}]

    page = buttons("maths.ipynb")
    assert launch(page, "maths", "book") == 1
    assert page[1]["buttons"][0]["url"] == colab + "book/maths.ipynb"
    assert page[0]["buttons"][0]["url"] == "x/maths.ipynb"  # the built notebook's download
    chapter = buttons("chapters/02_srn.ipynb")
    assert launch(chapter, "chapters/02_srn", "book") == 0
    assert chapter[1]["buttons"][0]["url"] == colab + "chapters/02_srn.ipynb"


def test_every_colab_link_names_a_notebook_of_the_repository(site: Path, site_pages: list[Path]):
    links = {}
    for page in site_pages:
        for url in re.findall(r'href="https://colab\.research\.google\.com/github/[^/]+/[^/]+/'
                              r'blob/[^/]+/([^"]+)"', page.read_text(encoding="utf-8")):
            links[page.relative_to(site).as_posix()] = url
    assert links, "no Colab link on any page"
    missing = {page: url for page, url in links.items() if not (ROOT / url).is_file()}
    assert not missing, f"Colab links to files the repository does not have: {missing}"


class Elements(HTMLParser):
    """The start tags inside the page's article (``<article class="bd-article">``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # > 0 inside the article
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if self.depth:
            self.depth += tag not in VOID
            self.found.append(tag)
        elif tag == "article" and "bd-article" in (dict(attrs).get("class") or ""):
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in VOID:
            self.depth -= 1


VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def test_no_stray_html_element(site: Path, site_pages: list[Path]):
    problems = []
    for page in site_pages:
        parser = Elements()
        parser.feed(page.read_text(encoding="utf-8"))
        stray = sorted({tag for tag in parser.found
                        if tag not in HTML_ELEMENTS or tag in STRIKE_THROUGH})
        if stray:
            problems.append(f"{page.relative_to(site)}: {', '.join(f'<{t}>' for t in stray)}")
    assert not problems, (
        "elements in the prose that are no HTML the site writes (a course symbol such as <s> or "
        "<unk> taken for markup?):\n" + "\n".join(problems)
    )


STRUCK = """() => {
  const article = document.querySelector('.bd-article') || document.querySelector('main');
  const struck = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    for (let el = node.parentElement; el && el !== article.parentElement; el = el.parentElement) {
      if (getComputedStyle(el).textDecorationLine.includes('line-through')) {
        struck.push(text.slice(0, 60));
        break;
      }
    }
  }
  return struck;
}"""


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_no_struck_through_text(site: Path, server: str, browser):
    problems = []
    page = browser.new_page()
    try:
        for path in sorted((site / "chapters").glob("*.html")):
            page.goto(f"{server}/chapters/{path.name}", wait_until="load")
            struck = page.evaluate(STRUCK)
            if struck:
                problems.append(f"{path.name}: {len(struck)} texts struck through: {struck[:3]}")
    finally:
        page.close()
    assert not problems, "\n".join(problems)
