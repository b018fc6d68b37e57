"""The notebook stepper and the step data behind it."""

import numpy as np
import pytest
import torch

from course_rnn.languages import AnBn, Dyck, Vocab
from course_rnn.models import build_model
from course_rnn.widgets import Stepper, render_step_html, run_steps

CURRENT = "<b style='background:#fd0;color:#000;padding:0 2px'>{}</b>"


@pytest.fixture
def lstm_anbn():
    torch.manual_seed(0)
    lang = AnBn()
    vocab = Vocab(lang.alphabet)
    return build_model("lstm", vocab_size=len(vocab), hidden_size=3), vocab, lang


def test_steps_hold_every_state_and_a_distribution(lstm_anbn):
    model, vocab, lang = lstm_anbn
    steps = run_steps(model, vocab, "aabb", lang)
    assert len(steps) == 5
    assert set(steps.states) >= {"hidden", "cell", "input_gate", "forget_gate", "output_gate"}
    assert steps.states["hidden"].shape == (5, 3)
    np.testing.assert_allclose(steps.probs.sum(axis=1), 1.0)
    assert steps.valid[2] == frozenset({"a", "b"}) and steps.valid[4] == frozenset({"</s>"})
    # the hidden states are the model's own fast-path states
    fast = model.hidden_states(torch.tensor([vocab.encode("aabb", bos=True)]))[0]
    np.testing.assert_allclose(steps.states["hidden"], fast.detach().numpy(), atol=1e-6)


def test_step_html_highlights_the_current_symbol_and_marks_validity(lstm_anbn):
    model, vocab, lang = lstm_anbn
    html = render_step_html(run_steps(model, vocab, "ab", lang), 1)
    assert CURRENT.format('a') in html
    assert "✓" in html and "✗" in html
    with pytest.raises(ValueError, match="outside"):
        render_step_html(run_steps(model, vocab, "ab", lang), 9)


def test_widget_shows_a_message_for_a_foreign_symbol(lstm_anbn):
    model, vocab, lang = lstm_anbn
    stepper = Stepper(model, vocab, lang, string="aabb", plot=False)
    assert stepper.slider.max == 4 and stepper.message.value == ""
    stepper.text.value = "aaxb"
    assert "'x'" in stepper.message.value and "not in the alphabet" in stepper.message.value
    assert stepper.slider.max == 4  # the last good string is kept
    stepper.text.value = "ba"
    assert "not a prefix" in stepper.message.value
    stepper.slider.value = 2
    assert CURRENT.format('a') in stepper.view.value


def test_widget_draws_strings_from_the_language():
    torch.manual_seed(1)
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)
    model = build_model("urn", vocab_size=len(vocab), hidden_size=4)
    stepper = Stepper(model, vocab, dyck, plot=False)
    stepper.draw()
    assert dyck.is_member(stepper.text.value)
    assert stepper.slider.max == len(stepper.text.value)


def test_step_html_explains_the_squares_and_an_ungrammatical_prefix(lstm_anbn):
    model, vocab, lang = lstm_anbn
    html = render_step_html(run_steps(model, vocab, "aba", lang), 3, highlight={"cell": [2]})
    assert "negative" in html and "positive" in html and "largest |value|" in html
    assert "<th style='font-size:10px;font-weight:normal'>2</th>" in html  # unit numbers
    assert html.count("outline:3px") == 1 and "title='cell[2]" in html.split("outline:3px")[0]
    assert "No symbol is valid next" in html and "“a b a” is not the beginning" in html
    assert "valid here" not in html
    html = render_step_html(run_steps(model, vocab, "ab", lang), 1)
    assert "(valid here: a b)" in html and "✓: the language allows" in html


def test_widget_starts_a_new_string_at_its_first_step(lstm_anbn):
    model, vocab, lang = lstm_anbn
    stepper = Stepper(model, vocab, lang, string="aabb", plot=False, highlight={"cell": [1]})
    stepper.slider.value = 3
    stepper.text.value = "aabb "  # the same symbols: the reader keeps their place
    assert stepper.slider.value == 3
    stepper.text.value = "ab"
    assert stepper.slider.value == 0 and CURRENT.format("&lt;s&gt;") in stepper.view.value
    with pytest.raises(ValueError, match="cell has units 0 to 2"):
        Stepper(model, vocab, lang, plot=False, highlight={"cell": [3]})
