"""Open every page of the built site in headless Chromium, as a reader with no network would.

The site is served by `python -m http.server` on 127.0.0.1; any request to another host is
blocked and fails the test. For each page we check: no console error, uncaught exception, failed
request or HTTP error; every math element typeset by MathJax, with no TeX error and no raw TeX
left in the text; every image decoded; every saved widget rendered. A screenshot of each page
goes to test-artifacts/site/.

Uses Debian's /usr/bin/chromium through Python playwright (never `playwright install`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import block_other_hosts

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

# Raw TeX that MathJax should have replaced: $$...$$, \( \) \[ \], \begin{...}, $...$, and a
# TeX command left in the prose (a `$$` inside a paragraph unpairs the `$` after it).
RAW_TEX = r"\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\$[^\s$][^$]*\$|\\[a-zA-Z]{2,}"

# Runs in the page once it has loaded and MathJax has finished typesetting.
CHECK_MATH = """(rawTex) => {
  const math = [...document.querySelectorAll('.math')];
  const untypeset = math.filter(el => !el.querySelector('mjx-container'))
                        .map(el => el.textContent.trim().slice(0, 80));
  const errors = [...document.querySelectorAll('mjx-merror')]
                 .map(el => el.getAttribute('data-mjx-error') || el.textContent.slice(0, 80));
  // Text a reader sees, minus code (which may legitimately hold $ and backslashes).
  const skip = 'pre, code, script, style, textarea, mjx-container, .highlight';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(skip)) continue;
    const hit = node.textContent.match(new RegExp(rawTex));
    if (hit) raw.push(node.textContent.trim().slice(0, 80));
  }
  return {untypeset, errors, raw};
}"""

# Resolves to the images that failed to decode (naturalWidth 0), after loading them all.
CHECK_IMAGES = """async () => {
  const images = [...document.images];
  images.forEach(img => { img.loading = 'eager'; });
  const settled = img => img.complete ? Promise.resolve() : new Promise(done => {
    img.addEventListener('load', done);
    img.addEventListener('error', done);
  });
  const timeout = new Promise(done => setTimeout(done, 10000));
  await Promise.race([Promise.all(images.map(settled)), timeout]);
  return images.filter(img => img.naturalWidth === 0).map(img => img.currentSrc || img.src);
}"""

WAIT_FOR_MATHJAX = """() => window.MathJax && MathJax.startup && MathJax.startup.promise
    ? MathJax.startup.promise.then(() => true) : true"""

# Each saved widget view is a <script type=...widget-view+json>; the HTML manager renders it
# into a sibling <div class="widget-subarea"> once the page has loaded.
WIDGETS_RENDERED = """() => {
  const views = document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"]');
  return document.querySelectorAll('.widget-subarea').length >= views.length;
}"""


def check_page(context, url: str, screenshot: Path) -> list[str]:
    """Load one page and return what is wrong with it (empty when nothing is)."""
    problems: list[str] = []

    def on_console(message) -> None:
        if message.type == "error":
            problems.append(f"console: {message.text}")

    def on_response(response) -> None:
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    page = context.new_page()
    block_other_hosts(page, url, problems)
    page.on("console", on_console)
    page.on("response", on_response)
    page.on("pageerror", lambda error: problems.append(f"uncaught exception: {error}"))
    page.on(
        "requestfailed",
        lambda request: problems.append(f"request failed: {request.url} ({request.failure})"),
    )
    try:
        page.goto(url, wait_until="load")
        page.evaluate(WAIT_FOR_MATHJAX)
        page.wait_for_function(WIDGETS_RENDERED, timeout=15000)
        math = page.evaluate(CHECK_MATH, RAW_TEX)
        problems += [f"math not typeset: {text!r}" for text in math["untypeset"]]
        problems += [f"TeX error: {error!r}" for error in math["errors"]]
        problems += [f"raw TeX in text: {text!r}" for text in math["raw"]]
        problems += [f"image did not load: {src}" for src in page.evaluate(CHECK_IMAGES)]
        # JPEG: long pages encode about twice as fast as PNG.
        page.screenshot(path=screenshot, full_page=True, type="jpeg", quality=70)
    except Exception as error:  # a timeout or crash is one more thing wrong with this page
        problems.append(f"{type(error).__name__}: {error}")
    finally:
        page.close()
    return problems


def test_every_page_renders_offline(
    site: Path, site_pages: list[Path], server: str, browser, screenshots: Path
):
    # index.html only redirects to intro.html, which is checked itself.
    pages = [page for page in site_pages if page.name != "index.html" or page.parent != site]
    assert pages, f"no HTML pages under {site}"
    report = []
    for page in pages:
        relative = page.relative_to(site).as_posix()
        screenshot = screenshots / (relative.replace("/", "__").removesuffix(".html") + ".jpg")
        report += [
            f"{relative}: {problem}"
            for problem in check_page(browser, f"{server}/{relative}", screenshot)
        ]
    assert not report, f"{len(report)} problems on the site:\n" + "\n".join(report)
