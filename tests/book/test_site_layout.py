"""The site on a phone (390 px), a tablet (800 px) and a desktop (1280 px), in headless Chromium.

- Navigation: at 390 and 800 px the ☰ button opens the table of contents and the "contents"
  button the page's outline; at 1280 px ☰ collapses the sidebar (and brings it back).
- Nothing is cut off and nothing pushes the page sideways: on every page, at every width, the
  page is no wider than the window, and every element of the article lies inside the column or
  inside a box that scrolls (wide equations, tables, code); nothing is clipped by a box that
  hides its overflow. Screenshots go to test-artifacts/layout/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

WIDTHS = {"phone": 390, "tablet": 800, "desktop": 1280}

WAIT_FOR_MATHJAX = """() => window.MathJax && MathJax.startup && MathJax.startup.promise
    ? MathJax.startup.promise.then(() => true) : true"""

# Everything in the article that sticks out of the column, or out of a box that clips it,
# without a scrollable box around it. MathJax's copy for screen readers (mjx-assistive-mml) is
# clipped on purpose and is not looked at.
CHECK_LAYOUT = """() => {
  const doc = document.documentElement, problems = [];
  if (doc.scrollWidth > doc.clientWidth + 1)
    problems.push(`the page is ${doc.scrollWidth} px wide in a ${doc.clientWidth} px window`);
  const article = document.querySelector('.bd-article') || document.querySelector('main');
  if (!article) return problems.concat(['no article on the page']);
  const column = article.getBoundingClientRect();
  const overflow = new Map();
  const overflowX = el => {
    if (!overflow.has(el)) overflow.set(el, getComputedStyle(el).overflowX);
    return overflow.get(el);
  };
  const ignored = 'mjx-assistive-mml, .visually-hidden, .sr-only, script, style, template';
  const describe = el => {
    const text = (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    return `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}"> "${text}"`;
  };
  const reported = new Set();
  for (const el of article.querySelectorAll('*')) {
    if (el.closest(ignored)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let clipper = null;
    for (let a = el.parentElement; a && a !== article.parentElement; a = a.parentElement) {
      if (overflowX(a) !== 'visible') { clipper = a; break; }
    }
    if (clipper && ['auto', 'scroll'].includes(overflowX(clipper))) continue;  // it scrolls
    const limit = clipper ? clipper.getBoundingClientRect() : column;
    const out = Math.max(box.right - limit.right, limit.left - box.left);
    if (out > 4) {  // a glyph's overhang (the arrow of \\vec) is not content
      // one report per offending box: its outermost element that sticks out
      let top = el;
      while (top.parentElement && top.parentElement !== clipper && top.parentElement !== article
             && top.parentElement.getBoundingClientRect().right - limit.right > 2) {
        top = top.parentElement;
      }
      if (reported.has(top)) continue;
      reported.add(top);
      problems.push(`${describe(top)} ${clipper ? 'is cut off' : 'sticks out of the column'} ` +
                    `by ${Math.round(out)} px`);
    }
  }
  return problems;
}"""

# How much of the left sidebar (table of contents) and of the right one (the page's outline) is
# on screen, and how many of their links a reader can click.
SIDEBARS = """() => {
  const shown = selector => {
    let width = 0, links = 0;
    for (const el of document.querySelectorAll(selector)) {
      const s = getComputedStyle(el), box = el.getBoundingClientRect();
      if (s.display === 'none' || s.visibility === 'hidden' || +s.opacity === 0) continue;
      width += Math.max(0, Math.min(box.right, innerWidth) - Math.max(box.left, 0));
      links += [...el.querySelectorAll('a')].filter(a => {
        const r = a.getBoundingClientRect();
        return r.width > 0 && r.left >= 0 && r.right <= innerWidth
               && getComputedStyle(a).visibility !== 'hidden';
      }).length;
    }
    return {width: Math.round(width), links};
  };
  return {toc: shown('.bd-sidebar-primary'), outline: shown('.bd-sidebar-secondary')};
}"""


def article_pages(site: Path, site_pages: list[Path]) -> list[str]:
    """Every page a reader reads (not the redirect, the index or the search page)."""
    skip = {"index.html", "genindex.html", "search.html"}
    return [
        page.relative_to(site).as_posix()
        for page in site_pages
        if not (page.parent == site and page.name in skip)
    ]


@pytest.fixture(scope="module")
def layout_shots() -> Path:
    folder = ROOT / "test-artifacts" / "layout"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def open_page(browser, url: str, width: int):
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url, wait_until="load")
    page.evaluate(WAIT_FOR_MATHJAX)
    page.wait_for_timeout(300)  # course.js marks wide inline math once MathJax is done
    return page


@pytest.mark.parametrize("device", WIDTHS)
def test_nothing_is_cut_off_or_scrolls_sideways(
    device, site, site_pages, server, browser, layout_shots
):
    width = WIDTHS[device]
    report = []
    for relative in article_pages(site, site_pages):
        page = open_page(browser, f"{server}/{relative}", width)
        try:
            report += [f"{relative}: {problem}" for problem in page.evaluate(CHECK_LAYOUT)]
            name = relative.replace("/", "__").removesuffix(".html")
            page.screenshot(path=layout_shots / f"{name}-{width}.jpg", type="jpeg", quality=60)
        finally:
            page.close()
    assert not report, f"at {width} px ({device}):\n" + "\n".join(report)


def chapter_page(site: Path) -> str:
    chapters = sorted((site / "chapters").glob("*.html"))
    assert chapters, f"no chapter pages under {site / 'chapters'}"
    return chapters[0].relative_to(site).as_posix()


def visible_button(page, selector: str):
    buttons = page.locator(selector)
    visible = [buttons.nth(i) for i in range(buttons.count()) if buttons.nth(i).is_visible()]
    assert visible, f"no visible {selector} button"
    return visible[0]


def wait_for_sidebars(page, condition: str):
    """Wait (sidebars slide in and out) until `condition` holds of SIDEBARS' result."""
    page.wait_for_function(f"() => {{ const s = ({SIDEBARS})(); return {condition}; }}",
                           timeout=5000)
    return page.evaluate(SIDEBARS)


@pytest.mark.parametrize("device", ["phone", "tablet"])
def test_menu_and_contents_buttons_open_the_sidebars(device, site, server, browser):
    width = WIDTHS[device]
    page = open_page(browser, f"{server}/{chapter_page(site)}", width)
    try:
        start = page.evaluate(SIDEBARS)
        assert start["toc"]["links"] == 0 and start["outline"]["links"] == 0, (
            f"at {width} px the sidebars should start closed: {start}")

        visible_button(page, ".primary-toggle").click()  # ☰
        opened = wait_for_sidebars(page, "s.toc.links >= 8")  # every chapter is listed
        assert opened["toc"]["width"] >= 0.5 * min(width, 600), opened
        page.keyboard.press("Escape")
        page.reload(wait_until="load")

        visible_button(page, ".secondary-toggle").click()  # "contents": the page's outline
        opened = wait_for_sidebars(page, "s.outline.links >= 2")
        assert opened["outline"]["width"] >= 200, opened
    finally:
        page.close()


def test_menu_button_collapses_the_sidebar_on_a_desktop(site, server, browser):
    page = open_page(browser, f"{server}/{chapter_page(site)}", WIDTHS["desktop"])
    try:
        start = page.evaluate(SIDEBARS)
        assert start["toc"]["links"] >= 8, f"the sidebar should start open: {start}"
        toggle = visible_button(page, ".primary-toggle")
        toggle.click()
        wait_for_sidebars(page, "s.toc.links === 0")
        toggle.click()
        wait_for_sidebars(page, "s.toc.links >= 8")
    finally:
        page.close()
