"""The web stepper as a reader meets it, in headless Chromium, on a bare page (no built site
needed): it explains itself (legend, axes, unit numbers, ✓/✗), marks the units a page names,
starts a new string at its first step, says when a prefix leaves the language, stays inside a
phone's width, and keeps every label readable (contrast ≥ 4.5:1) in light and dark themes.
The same checks on the built site's pages are in tests/book/test_site_stepper.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from course_rnn.languages import AnBn, Dyck, Vocab
from course_rnn.models import build_model
from course_rnn.widgets import web_stepper_html

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CHROMIUM = Path("/usr/bin/chromium")
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text()
MIN_CONTRAST = 4.5  # WCAG AA for normal text

# A page saying nothing about its theme, the site's (pydata-sphinx-theme) dark mode, JupyterLab's
# dark theme, and a dark operating system with a page that says nothing.
THEMES = {
    "light": ("<html>", "<body>", "light"),
    "site-dark": ('<html data-theme="dark">', '<body style="background:#14181e;color:#ced6dd">',
                  "light"),
    "jupyterlab-dark": ("<html>", '<body data-jp-theme-light="false" style="background:#111">',
                        "light"),
    "os-dark": ("<html>", '<body style="background:#121212;color:#eee">', "dark"),
}


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("python playwright is not installed")
        pytest.skip("python playwright is not installed (pip install -r requirements.txt)")
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} missing")
        pytest.skip(f"{CHROMIUM} missing (apt-get install chromium; `make test` does it)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()


def trained_looking(model):
    with torch.no_grad():  # move away from the initialisation, so the states differ
        for p in model.parameters():
            p.add_(0.5 * torch.randn_like(p, generator=torch.Generator().manual_seed(1)))
    return model.eval()


@pytest.fixture(scope="module")
def lstm_block():
    anbn = AnBn()
    vocab = Vocab(anbn.alphabet)
    model = trained_looking(build_model("lstm", vocab_size=len(vocab), hidden_size=3, seed=0))
    return web_stepper_html(model, vocab, anbn, string="aaabbb", title="LSTM",
                            highlight={"cell": {2: "the counter"}})


@pytest.fixture(scope="module")
def urn_block():
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    model = trained_looking(build_model("urn", vocab_size=len(vocab), hidden_size=16, k=2, seed=0))
    return web_stepper_html(model, vocab, dyck, string="([])[]", title="URN")


def open_block(chromium, block: str, theme: str = "light", width: int = 1000):
    html, body, scheme = THEMES[theme]
    page = chromium.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(f"<!doctype html>{html}<head><meta charset='utf-8'></head>{body}"
                     f"{block}</body></html>")
    page.wait_for_selector(".rnn-stepper-view table")
    page.errors = errors
    return page, page.locator(".rnn-stepper").first


def step(root) -> int:
    return root.evaluate("el => el.stepper.step")


def test_stepper_explains_what_it_shows(chromium, lstm_block):
    page, root = open_block(chromium, lstm_block)
    try:
        legend = root.locator(".rnn-stepper-legend").inner_text()
        for words in ("negative", "zero", "positive", "largest |value|", "hover"):
            assert words in legend, f"legend lacks {words!r}: {legend!r}"
        assert "cell unit 2 (the counter)" in legend
        # unit numbers above the squares, one column per unit
        assert root.locator(".rnn-stepper-units th").all_inner_texts()[1:4] == ["0", "1", "2"]
        # the page's unit is outlined in its row only
        marked = root.locator("td.unit.marked")
        assert marked.count() == 1
        assert marked.evaluate("td => td.parentElement.dataset.state") == "cell"
        assert marked.evaluate("td => td.cellIndex") == 3  # the label's column, then units 0, 1, 2
        # the plot: the marked state, axes with values and the symbols read, each line's unit
        plot = root.locator("svg.rnn-stepper-plot")
        texts = plot.locator("text").all_text_contents()
        assert texts[0] == "cell state per unit", texts
        assert "symbol just read" in texts
        assert [t for t in texts if t in {"<s>", "a", "b"}] == ["<s>", "a", "a", "a", "b", "b", "b"]
        assert {"unit 0", "unit 1", "unit 2"} <= set(texts)
        assert sum(1 for t in texts if t.replace(".", "").replace("-", "").isdigit()) >= 2, texts
        widths = plot.locator("polyline").evaluate_all(
            "lines => lines.map(l => [l.dataset.unit, l.getAttribute('stroke-width')])")
        assert dict(widths) == {"0": "1.5", "1": "1.5", "2": "3"}
        # ✓ / ✗ are explained, and the column has a header
        nxt = root.locator(".rnn-stepper-next").inner_text()
        assert "valid?" in nxt and "✓: the language allows" in nxt and "✗: it does not" in nxt
        assert not page.errors, page.errors
    finally:
        page.close()


def test_a_new_string_starts_at_its_first_step(chromium, lstm_block):
    page, root = open_block(chromium, lstm_block)
    try:
        fwd = root.locator("button", has_text="▶")
        fwd.click()
        fwd.click()
        assert step(root) == 2
        assert root.locator(".rnn-stepper-position").inner_text() == "step 2 of 6"
        field = root.locator("input.rnn-stepper-input")
        field.fill("aaabbb ")  # the same symbols: the reader keeps their place
        assert step(root) == 2
        field.fill("aabb")
        assert step(root) == 0
        assert root.locator(".rnn-stepper-string .current").inner_text() == "<s>"
    finally:
        page.close()


def test_an_ungrammatical_prefix_is_said_so(chromium, lstm_block):
    page, root = open_block(chromium, lstm_block)
    try:
        root.locator("input.rnn-stepper-input").fill("abab")
        message = root.locator(".rnn-stepper-message").inner_text()
        assert "leaves aⁿbⁿ at symbol 3" in message, message
        root.locator("input.rnn-stepper-slider").fill("3")  # after "a b a"
        nxt = root.locator(".rnn-stepper-next").inner_text()
        assert "No symbol is valid next" in nxt and "“a b a” is not the beginning" in nxt, nxt
        assert "valid here" not in nxt
        valid = root.locator(".rnn-stepper-probs td.valid")
        assert valid.count() == 0
        root.locator("input.rnn-stepper-slider").fill("2")  # after "a b": only the end
        assert "(valid here: </s>)" in root.locator(".rnn-stepper-next").inner_text()
        # a symbol outside the alphabet is named, and the view keeps the last good string
        root.locator("input.rnn-stepper-input").fill("abc")
        assert "symbol 'c' at position 2 is not in the alphabet" in (
            root.locator(".rnn-stepper-message").inner_text())
    finally:
        page.close()


def test_many_units_are_plotted_a_few_at_a_time(chromium, urn_block):
    page, root = open_block(chromium, urn_block)
    try:
        lines = root.locator("svg.rnn-stepper-plot polyline")
        units = lambda: sorted(int(u) for u in lines.evaluate_all(  # noqa: E731
            "ls => ls.map(l => l.dataset.unit)"))
        shown = units()
        assert 1 <= len(shown) <= 8, f"{len(shown)} lines of 16 units overlap: {shown}"
        note = root.locator(".rnn-stepper-plotbox .rnn-stepper-help").inner_text()
        assert f"Showing {len(shown)} of 16 units (those that move most)" in note, note
        other = next(u for u in range(16) if u not in shown)
        squares = root.locator('tr[data-state="hidden"] td.unit')
        squares.nth(other).click()
        assert units() == sorted([*shown, other])
        squares.nth(other).click()
        assert units() == shown
    finally:
        page.close()


@pytest.mark.parametrize("theme", THEMES)
def test_every_label_is_readable(chromium, lstm_block, urn_block, theme):
    for block in (lstm_block, urn_block):
        page, root = open_block(chromium, block, theme)
        try:
            root.locator("input.rnn-stepper-input").fill(
                "abab" if "anbn" in block else "([)]")  # the note and ✗ colours too
            texts = root.evaluate(CONTRAST_JS)
            assert len(texts) > 20
            poor = [t for t in texts if t["ratio"] < MIN_CONTRAST]
            assert not poor, f"{theme}: text below {MIN_CONTRAST}:1 — {poor[:8]}"
        finally:
            page.close()


def test_it_fits_a_phone(chromium, lstm_block, urn_block):
    for block in (lstm_block, urn_block):
        page, root = open_block(chromium, block, width=390)
        try:
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390, f"the page is {width} px wide at 390 px"
            box = root.bounding_box()
            plot = root.locator("svg.rnn-stepper-plot").bounding_box()
            assert plot["x"] + plot["width"] <= box["x"] + box["width"] + 1
        finally:
            page.close()


def test_the_title_sets_formulas_in_italics_not_caret_notation(chromium):
    """Without MathJax (a notebook), a title's formulas are italic with superscripts."""
    anbn = AnBn()
    vocab = Vocab(anbn.alphabet)
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=3, seed=0).eval()
    block = web_stepper_html(model, vocab, anbn, string="ab",
                             title="LSTM trained on a^n b^n, n ≤ 10, not on w c w^R (seed 3)")
    page, root = open_block(chromium, block)
    try:
        title = root.locator(".rnn-stepper-title")
        assert title.inner_text() == "LSTM trained on anbn, n ≤ 10, not on wcwR (seed 3)"
        assert title.locator("sup").all_inner_texts() == ["n", "n", "R"]
        assert title.locator("i").all_inner_texts() == ["a", "n", "b", "n", "n", "w", "c", "w", "R"]
        assert not page.errors
    finally:
        page.close()
