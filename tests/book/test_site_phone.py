"""The chapters on a phone (390 px wide), in headless Chromium with no network.

- Every chapter figure opens at full size: it is a link to its own image, and a tap opens the
  site's viewer (book/_static/course.js) showing it at the size it was drawn, scrollable;
  Escape (like ✕ and Back) closes it.
- The widest figure's smallest labels are ≥ 9 CSS px where a phone reader reads them. In the
  page a figure fits the column (a three-panel figure: labels ≈ 3 px); opened, it is shown at
  full size and scrolls sideways. The label size is the figure's smallest font (in points)
  × the image's resolution (its PNG's pHYs, dots per inch) / 72 × how much it is scaled.
- The contents drawers (☰, and the page's outline) close after a tap on one of their links:
  one to the page itself, one to another page (and after Back), one to a section.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from .test_site_layout import (
    SIDEBARS,
    WIDTHS,
    open_page,
    visible_button,
    wait_for_sidebars,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PHONE = WIDTHS["phone"]
MIN_LABEL_PX = 9
# The smallest text in the widest chapter figures (chapter 6's three panels, 13 in wide): their
# legends, drawn at fontsize=7 (course_rnn.analysis.curves.learning_curves,
# experiments.urn.dyck_figures); ticks and axis labels are at matplotlib's 10 pt.
SMALLEST_LABEL_PT = 7

# A chapter's figures: every image the cells drew (in _images/), with what a tap would open.
FIGURES = """() => [...document.querySelectorAll('.bd-article img')]
  .filter(img => (img.getAttribute('src') || '').includes('_images/'))
  .map(img => {
    const link = img.closest('a');
    return {src: img.src, natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
            link: link ? link.href : null, viewer: !!(link && link.matches('.course-figure-link'))};
  })"""

LOAD_IMAGES = """async () => {
  const images = [...document.querySelectorAll('.bd-article img')];
  images.forEach(img => { img.loading = 'eager'; });
  await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done); img.addEventListener('error', done); })));
}"""

VIEWER = """() => {
  const dialog = document.querySelector('dialog.course-figure-viewer');
  if (!dialog || !dialog.open) return null;
  const img = dialog.querySelector('img'), scroll = img.parentElement;
  return {src: img.src, shown: img.getBoundingClientRect().width, natural: img.naturalWidth,
          scrollWidth: scroll.scrollWidth, clientWidth: scroll.clientWidth};
}"""

VIEWER_SHOWN = """() => { const d = document.querySelector('dialog.course-figure-viewer');
  const img = d && d.open && d.querySelector('img');
  return !!img && img.complete && img.naturalWidth > 0; }"""
VIEWER_CLOSED = """() => { const d = document.querySelector('dialog.course-figure-viewer');
  return (!d || !d.open) && !(history.state && history.state.courseFigure); }"""


def png_dpi(path: Path) -> float:
    """The resolution a PNG says it was drawn at (matplotlib writes its dpi as pHYs)."""
    data = path.read_bytes()
    at = data.find(b"pHYs")
    assert at > 0, f"{path.name} has no pHYs chunk"
    per_metre, _, unit = struct.unpack(">IIB", data[at + 4: at + 13])
    assert unit == 1, f"{path.name}: pHYs is not in pixels per metre"
    return per_metre * 0.0254


def chapter_pages(site: Path) -> list[str]:
    chapters = sorted((site / "chapters").glob("*.html"))
    assert chapters, f"no chapter pages under {site / 'chapters'}"
    return [page.relative_to(site).as_posix() for page in chapters]


def open_phone_page(browser, url: str):
    page = open_page(browser, url, PHONE)
    page.evaluate(LOAD_IMAGES)
    return page


# A figure inside a collapsed note (a cell tagged hide-cell): the reader opens the note first.
OPEN_ITS_NOTES = """link => {
  for (let d = link.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
}"""


def open_in_viewer(page, index: int) -> dict:
    link = page.locator("a.course-figure-link").nth(index)
    link.evaluate(OPEN_ITS_NOTES)
    link.click()
    page.wait_for_function(VIEWER_SHOWN, timeout=5000)
    return page.evaluate(VIEWER)


def close_viewer(page) -> None:
    page.keyboard.press("Escape")
    page.wait_for_function(VIEWER_CLOSED, timeout=5000)


def test_every_chapter_figure_opens_at_full_size(site, server, browser):
    problems, opened = [], 0
    for relative in chapter_pages(site):
        page = open_phone_page(browser, f"{server}/{relative}")
        try:
            figures = page.evaluate(FIGURES)
            for index, figure in enumerate(figures):
                name = f"{relative}, figure {index + 1} ({figure['src'].rsplit('/', 1)[-1][:12]}…)"
                if figure["link"] != figure["src"] or not figure["viewer"]:
                    problems.append(f"{name}: not a link to its image ({figure['link']})")
                    continue
                shown = open_in_viewer(page, index)
                opened += 1
                if shown["src"] != figure["src"] or shown["shown"] < figure["natural"] - 1:
                    problems.append(f"{name}: the viewer shows {shown['src']} at "
                                    f"{shown['shown']:.0f} px, not {figure['natural']} px")
                elif figure["natural"] > PHONE and shown["scrollWidth"] <= shown["clientWidth"]:
                    problems.append(f"{name}: wider than the phone, but the viewer does not scroll")
                close_viewer(page)
        finally:
            page.close()
    assert opened, "no chapter figure was opened"
    assert not problems, f"{len(problems)} of the chapters' figures:\n" + "\n".join(problems)


def test_the_widest_figures_labels_are_readable_on_a_phone(site, server, browser):
    widest = None  # (natural width, page, index)
    for relative in chapter_pages(site):
        page = open_phone_page(browser, f"{server}/{relative}")
        try:
            for index, figure in enumerate(page.evaluate(FIGURES)):
                if widest is None or figure["natural"] > widest[0]:
                    widest = (figure["natural"], relative, index, figure)
        finally:
            page.close()
    natural, relative, index, figure = widest
    image = site / "_images" / figure["src"].rsplit("/", 1)[-1]
    label_at_full_size = SMALLEST_LABEL_PT * png_dpi(image) / 72  # px of the image
    in_page = label_at_full_size * figure["shown"] / natural

    assert figure["viewer"], (
        f"the widest figure ({relative}, {natural} px) cannot be opened: its "
        f"{SMALLEST_LABEL_PT} pt labels stay {in_page:.1f} CSS px at {PHONE} px")
    page = open_phone_page(browser, f"{server}/{relative}")
    try:
        shown = open_in_viewer(page, index)
        opened = label_at_full_size * shown["shown"] / natural
        close_viewer(page)
    finally:
        page.close()
    assert opened >= MIN_LABEL_PX, (
        f"the widest figure ({relative}, {natural} px): its {SMALLEST_LABEL_PT} pt labels are "
        f"{in_page:.1f} CSS px in the page and {opened:.1f} CSS px opened, at {PHONE} px; "
        f"a phone reader needs ≥ {MIN_LABEL_PX}")


def drawer_links(page, sidebar: str) -> list[str]:
    return page.evaluate(
        f"() => [...document.querySelectorAll('{sidebar} a')]"
        ".filter(a => a.getBoundingClientRect().width > 0).map(a => a.getAttribute('href'))")


def test_the_contents_drawer_closes_after_a_tap_on_a_link(site, server, browser):
    chapters = chapter_pages(site)
    here, there = chapters[2], chapters[3]
    page = open_page(browser, f"{server}/{here}", PHONE)
    try:
        # a link to the page itself (its own entry in the table of contents): the drawer closes
        visible_button(page, ".primary-toggle").click()
        wait_for_sidebars(page, "s.toc.links >= 8")
        assert "#" in drawer_links(page, ".bd-sidebar-primary")
        page.locator(".bd-sidebar-primary a[href='#']").first.click()
        closed = wait_for_sidebars(page, "s.toc.links === 0 && s.toc.width === 0")
        assert closed["toc"]["width"] == 0, f"the drawer stayed over the text: {closed}"

        # a link to another page: that page opens without the drawer, and so does this one
        # when the reader comes back
        visible_button(page, ".primary-toggle").click()
        wait_for_sidebars(page, "s.toc.links >= 8")
        target = Path(there).name
        page.locator(f".bd-sidebar-primary a[href='{target}']").first.click()
        page.wait_for_url(f"**/{target}")
        assert page.evaluate(SIDEBARS)["toc"]["links"] == 0
        page.go_back(wait_until="load")
        page.wait_for_timeout(300)
        assert page.evaluate(SIDEBARS)["toc"]["links"] == 0, "back: the drawer is open again"

        # the page's outline: a tap on a section closes it and shows the section
        visible_button(page, ".secondary-toggle").click()
        wait_for_sidebars(page, "s.outline.links >= 2")
        sections = [h for h in drawer_links(page, ".bd-sidebar-secondary") if h.startswith("#")]
        page.locator(f".bd-sidebar-secondary a[href='{sections[-1]}']").first.click()
        wait_for_sidebars(page, "s.outline.links === 0")
        on_screen = (f"() => {{ const top = document.getElementById({sections[-1][1:]!r})"
                     ".getBoundingClientRect().top; return top >= 0 && top < innerHeight; }")
        page.wait_for_function(on_screen, timeout=5000)  # the theme scrolls smoothly
    finally:
        page.close()
