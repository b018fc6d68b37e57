"""The playground page of the built site, in headless Chromium with every request to another host
blocked: it trains a 4-unit LSTM on aⁿbⁿ (n ≤ 10) in a Web Worker until the accuracy it shows on
the training range is 100%, within a bounded number of epochs; the weights it downloads load into
PyTorch (``import_model``) with the page's predictions and scores; bad input gets a message in the
page; Dyck trains and is scored by depth; every label is readable in the site's light and dark
modes, and nothing sticks out at a phone's width. Screenshots go to test-artifacts/playground/.
(tests/widgets/test_playground_js.py checks the engine against PyTorch under node.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from course_rnn.metrics import anbn_generalisation
from course_rnn.widgets import import_model
from course_rnn.widgets.web import static_script

from .conftest import ROOT, block_other_hosts
from .test_site_layout import CHECK_LAYOUT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PAGE = "playground.html"
CONTRAST_JS = (ROOT / "tests" / "widgets" / "contrast.js").read_text()
MIN_CONTRAST = 4.5
# The test's bound: a 4-unit LSTM on n ≤ 10 reaches 100% in a few hundred epochs (seeds 0-3:
# 100-200 epochs under node); the page's training must get there well within this.
MAX_EPOCHS = 3000
PLAYGROUND = "document.querySelector('.rnn-playground').playground"


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = ROOT / "test-artifacts" / "playground"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def open_playground(browser, server: str, width: int = 1280, scheme: str = "light"):
    """The page with requests to any other host blocked; page.problems collects errors."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    problems: list[str] = []
    block_other_hosts(page, server, problems)
    page.on("pageerror", lambda error: problems.append(f"uncaught exception: {error}"))
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.goto(f"{server}/{PAGE}", wait_until="load")
    page.wait_for_function(f"() => {PLAYGROUND} && {PLAYGROUND}.evaluation")
    page.problems = problems
    return page, page.locator(".rnn-playground")


def choose(root, **settings) -> None:
    for name, value in settings.items():
        control = root.locator(f"[name={name}]")
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(str(value))
        else:
            control.fill(str(value))
            control.dispatch_event("change")


def playground(page, expression: str):
    return page.evaluate(f"() => {{ const p = {PLAYGROUND}; return {expression}; }}")


def test_the_site_serves_the_playground_scripts(site):
    for name, site_name in (("playground_train.js", "course-rnn-playground-train.js"),
                            ("playground.js", "course-rnn-playground.js")):
        assert (site / "_static" / site_name).read_text() == static_script(name)
    assert 'class="rnn-playground"' in (site / PAGE).read_text()


def test_an_lstm_learns_anbn_in_the_page_and_its_weights_load_into_pytorch(
        site, server, browser, shots, tmp_path):
    page, root = open_playground(browser, server)
    try:
        choose(root, language="anbn", model="lstm", hidden_size=4, range=10, lr=0.05, seed=0,
               speed="")
        assert playground(page, "p.where") == "worker", "the training does not run in a worker"
        root.locator("button.play").click()
        # what the page shows, the first time it shows 100% on the training range (or the bound)
        shown = page.wait_for_function(f"""() => {{
            const summary = document.querySelector(".rnn-playground-summary");
            const epoch = {PLAYGROUND}.epoch;
            return summary && (summary.dataset.trainAccuracy === "1" || epoch > {MAX_EPOCHS})
                && [summary.dataset.trainAccuracy, summary.textContent, epoch];
        }}""", timeout=45_000, polling="raf").json_value()
        root.locator("button.play").click()  # pause
        page.wait_for_function(f"() => {PLAYGROUND}.idle")
        accuracy, text, epoch = shown
        assert accuracy == "1" and epoch <= MAX_EPOCHS, f"not 100% after {epoch} epochs: {text}"
        assert "10 of 10 strings right (100%)" in text
        summary = root.locator(".rnn-playground-summary")
        # the page kept drawing while it trained: the loss curve, the accuracy, the states
        assert root.locator(".rnn-playground-panel.loss polyline").count() >= 2
        assert root.locator(".rnn-playground-panel.states svg").count() == 2  # cell and hidden
        root.screenshot(path=shots / "lstm-anbn.png")

        # "download weights (JSON)": the file the reader gets
        with page.expect_download() as download:
            root.locator("button.export").click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        spec = json.loads(saved.read_text())
        assert spec == playground(page, "p.spec")
        model, vocab = import_model(spec)
        assert (model.kind, model.hidden_size, vocab.alphabet) == ("lstm", 4, ("a", "b"))
        # the same predictions and states as the page shows for the string being watched
        shown = playground(page, "p.trajectory")
        inputs = torch.tensor([vocab.encode(shown["symbols"], bos=True)])
        trace = model.trace(inputs)
        probs = torch.softmax(trace["logits"][0, :, vocab.eos_id:], dim=-1)
        assert np.allclose(shown["probs"], probs.numpy(), atol=1e-5)
        assert np.allclose(shown["cell"], trace["cell"][0].numpy(), atol=1e-4)
        # the same scores: which n are right, max correct n
        evaluation = playground(page, "p.evaluation")
        library = anbn_generalisation(model, vocab, len(evaluation["right"]))
        tested = range(1, len(evaluation["right"]) + 1)
        assert evaluation["right"] == [library["right"][n] for n in tested]
        assert evaluation["maxCorrect"] == library["max_correct_n"]
        assert f"Max correct n: {library['max_correct_n']}" in summary.inner_text()
        assert not page.problems, page.problems
    finally:
        page.close()


def test_bad_input_gets_a_message_in_the_page(site, server, browser):
    page, root = open_playground(browser, server)
    try:
        message = root.locator(".rnn-playground-message").first
        for name, value, words in (
            ("hidden_size", 9, "the state size must be a whole number from 1 to 8"),
            ("hidden_size", 0, "the state size must be"),
            ("range", 31, "the training range (largest n) must be"),
            ("lr", 0, "the learning rate must be a number above 0"),
            ("seed", -3, "the seed must be a whole number"),
        ):
            choose(root, **{name: value})
            assert words in message.inner_text(), (name, value, message.inner_text())
            root.locator("button.play").click()  # refuses to train while a setting is bad
            page.wait_for_timeout(200)
            assert not playground(page, "p.running")
            choose(root, hidden_size=4, range=10, lr=0.05, seed=0)
            assert message.inner_text() == ""
        root.locator(".rnn-playground-string").fill("aabc")
        text = root.locator(".rnn-playground-message.string").inner_text()
        assert 'symbol "c" is not in the alphabet a b' in text, text
        assert root.locator(".rnn-playground-panel.states svg").count() == 0
        root.locator(".rnn-playground-string").fill("aabb")
        assert root.locator(".rnn-playground-panel.states svg").count() == 2
        assert not page.problems, page.problems
    finally:
        page.close()


def test_dyck_is_scored_by_depth_and_opens_in_the_stepper(site, server, browser, shots):
    page, root = open_playground(browser, server)
    try:
        choose(root, language="dyck2", model="gru", hidden_size=5)
        assert root.locator("[name=range]").input_value() == "4"  # Dyck's own starting range
        for _ in range(3):
            root.locator("button.step").click()
        page.wait_for_function(f"() => {PLAYGROUND}.epoch === 3")
        rows = root.locator(".rnn-playground-depths tr").all_inner_texts()
        assert len(rows) == 1 + 8 and rows[1].startswith("0 (the end)"), rows  # depths 0..7
        assert "(beyond)" in rows[-1]
        summary = root.locator(".rnn-playground-summary").inner_text()
        assert "Training strings (depth ≤ 4)" in summary
        root.locator(".rnn-playground-string").fill("([[]])")
        root.locator("button.open-stepper").click()
        stepper = root.locator(".rnn-stepper")
        stepper.locator(".rnn-stepper-view table").first.wait_for()
        assert json.loads(stepper.get_attribute("data-model")) == playground(page, "p.spec")
        root.screenshot(path=shots / "gru-dyck2.png")
        assert not page.problems, page.problems
    finally:
        page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_label_is_readable_and_fits_a_phone(site, server, browser, shots, scheme):
    page, root = open_playground(browser, server, width=390, scheme=scheme)
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        for _ in range(5):
            root.locator("button.step").click()
        page.wait_for_function(f"() => {PLAYGROUND}.epoch === 5")
        texts = root.evaluate(CONTRAST_JS)
        assert len(texts) > 40
        poor = [t for t in texts if t["ratio"] < MIN_CONTRAST]
        assert not poor, f"{scheme}: text below {MIN_CONTRAST}:1 — {poor[:8]}"
        assert page.evaluate(CHECK_LAYOUT) == []
        root.screenshot(path=shots / f"phone-{scheme}.png")
    finally:
        page.close()


def test_opened_from_disk_it_trains_on_the_page(site, browser):
    """A page opened as a file cannot start a worker: the same engine then trains on the page."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto((site / PAGE).resolve().as_uri(), wait_until="load")
        page.wait_for_function(f"() => {PLAYGROUND} && {PLAYGROUND}.evaluation")
        assert playground(page, "p.where") == "page"
        root = page.locator(".rnn-playground")
        root.locator("button.step").click()
        page.wait_for_function(f"() => {PLAYGROUND}.epoch === 1")
        assert "epoch 1 · training loss" in root.locator(".rnn-playground-status").inner_text()
        assert not errors, errors
    finally:
        page.close()
