"""The website's hidden-state stepper, in headless Chromium with no network.

For every stepper on every page: type a new string, read the states the page's JavaScript
computed, and compare them with PyTorch running the very weights embedded in the page
(``import_model``). Also: stepping moves the highlighted symbol, and a symbol outside the
alphabet shows a message inside the stepper; in the site's dark and light modes every label
(state names, unit numbers, legend, axes, probabilities) is readable, contrast ≥ 4.5:1, and
the stepper explains itself (legend, axes). Screenshots go to test-artifacts/stepper/.
(tests/widgets/test_stepper_browser.py checks the stepper's behaviour on a bare page.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from course_rnn.widgets import import_model, run_steps

from .conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

CONTRAST_JS = (ROOT / "tests" / "widgets" / "contrast.js").read_text()
MIN_CONTRAST = 4.5  # WCAG AA for normal text


def stepper_pages(site: Path, site_pages: list[Path]) -> list[str]:
    return [
        page.relative_to(site).as_posix()
        for page in site_pages
        if "rnn-stepper" in page.read_text(encoding="utf-8", errors="replace")
    ]


def probe_string(spec: dict) -> str:
    """A string the chapter did not preset: a deep one from the stepper's own language."""
    language = spec.get("language") or {}
    if language.get("name") == "dyck":
        opens, closes = zip(*language["pairs"])
        inner = "".join(opens[i % len(opens)] for i in range(4))
        return (
            inner
            + "".join(closes[i % len(opens)] for i in reversed(range(4)))
            + opens[0]
            + closes[0]
        )
    if language.get("name") == "anbn":
        return "a" * 7 + "b" * 7
    alphabet = spec["itos"][spec["output_from"] + 1 :]
    return " ".join(alphabet[i % len(alphabet)] for i in range(6))


def test_site_has_a_stepper(site, site_pages):
    assert stepper_pages(site, site_pages), "no page of the built site holds a web stepper"


def test_stepper_states_equal_pytorch(site, site_pages, server, browser):
    shots = ROOT / "test-artifacts" / "stepper"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    problems, checked = [], 0
    for relative in stepper_pages(site, site_pages):
        page = browser.new_page()
        errors: list = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.goto(f"{server}/{relative}", wait_until="load")
        roots = page.locator(".rnn-stepper")
        for i in range(roots.count()):
            root = roots.nth(i)
            spec = json.loads(root.get_attribute("data-model"))
            string = probe_string(spec)
            root.locator("input.rnn-stepper-input").fill(string)
            js = root.evaluate("el => el.stepper.steps.map(s => s.states)")
            model, vocab = import_model(spec)
            steps = run_steps(model, vocab, string)
            if len(js) != len(steps):
                problems.append(
                    f"{relative}#{i}: {len(js)} steps in the page, {len(steps)} in torch"
                )
                continue
            for name, values in steps.states.items():
                got = np.array([s[name] for s in js], dtype=float).reshape(values.shape)
                if not np.allclose(got, values, atol=1e-4):
                    gap = float(np.abs(got - values).max())
                    problems.append(f"{relative}#{i}: {name} differs from PyTorch by {gap:.2e}")
            # stepping forward moves the highlight to the next symbol
            root.locator("input.rnn-stepper-slider").fill("0")
            root.locator("button", has_text="▶").click()
            if (
                root.locator(".rnn-stepper-string .current").inner_text()
                != vocab.decode(vocab.encode(string))[0]
            ):
                problems.append(f"{relative}#{i}: ▶ did not move to the first symbol")
            root.screenshot(path=shots / f"{relative.replace('/', '__')}-{i}.png")
            # a foreign symbol is reported inside the stepper
            root.locator("input.rnn-stepper-input").fill(string[:2] + "§")
            message = root.locator(".rnn-stepper-message").inner_text()
            if "not in the alphabet" not in message:
                problems.append(f"{relative}#{i}: no message for a foreign symbol ({message!r})")
            checked += 1
        problems += [f"{relative}: uncaught exception {e}" for e in errors]
        page.close()
    assert checked, "no stepper was checked"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_stepper_labels_are_readable_in_the_sites_themes(site, site_pages, server, browser, scheme):
    """The site follows the reader's system theme; the steppers' text must stay readable."""
    shots = ROOT / "test-artifacts" / "stepper"
    shots.mkdir(parents=True, exist_ok=True)
    problems, checked = [], 0
    for relative in stepper_pages(site, site_pages):
        page = browser.new_page()
        page.emulate_media(color_scheme=scheme)
        page.goto(f"{server}/{relative}", wait_until="load")
        theme = page.evaluate("() => document.documentElement.dataset.theme")
        assert theme == scheme, f"{relative}: the site did not follow a {scheme} system ({theme})"
        roots = page.locator(".rnn-stepper")
        for i in range(roots.count()):
            root = roots.nth(i)
            root.scroll_into_view_if_needed()
            texts = root.evaluate(CONTRAST_JS)
            labels = {t["text"] for t in texts}
            if not {"negative", "positive"} & {w for t in labels for w in t.split()}:
                problems.append(f"{relative}#{i}: no legend for the coloured squares")
            if not root.locator("svg.rnn-stepper-plot text.axislabel").count():
                problems.append(f"{relative}#{i}: the plot has no axis label")
            problems += [
                f"{relative}#{i} ({scheme}): {t['text']!r} {t['colour']} on {t['background']}: "
                f"{t['ratio']:.2f}:1"
                for t in texts
                if t["ratio"] < MIN_CONTRAST
            ]
            root.screenshot(path=shots / f"{relative.replace('/', '__')}-{i}-{scheme}.png")
            checked += 1
        page.close()
    assert checked, "no stepper was checked"
    assert not problems, f"stepper text below {MIN_CONTRAST}:1 or unexplained:\n" + "\n".join(
        problems[:40]
    )


def test_stepper_titles_typeset_their_formulas(site, site_pages, server, browser):
    """A chapter titles its stepper in caret notation ("trained on a^n b^n, n ≤ 10"); the page
    sets the formulas as its prose does (MathJax), never as "a^n"."""
    titles = []
    for relative in stepper_pages(site, site_pages):
        page = browser.new_page()
        page.goto(f"{server}/{relative}", wait_until="load")
        page.wait_for_function(  # stepper.js replaces each formula once MathJax has started
            "() => !document.querySelector('.rnn-stepper-title [data-tex]')", timeout=15000)
        titles += [(relative, *t) for t in page.evaluate(
            "() => [...document.querySelectorAll('.rnn-stepper-title')].map(t =>"
            " [t.textContent, t.querySelectorAll('mjx-container').length])")]
        page.close()
    caret = [t for t in titles if "^" in t[1]]
    assert not caret, f"stepper titles in caret notation: {caret}"
    assert any(math for *_, math in titles), f"no stepper title has a formula: {titles}"
