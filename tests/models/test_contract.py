"""The contract every registered model keeps, checked model by model: forward, trace, one step
(:class:`course_rnn.models.base.Recurrence`) equal to the forward pass, the web stepper's export and
import, and checkpoints.

The last part adds a recurrent model the course does not have – :class:`ScalingRNN`, defined here
and registered only for the test – and shows that the notebook stepper, the gradient analysis,
the web export (with its JavaScript) and checkpoints take it as it is: a new model needs its own
file, its line in the registry and its tests, nothing else.
"""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
import torch
from torch import nn

from course_rnn import models
from course_rnn.analysis.gradients import gradient_norms_by_distance
from course_rnn.checks import check_positive
from course_rnn.languages import Dyck, Vocab, make_batch
from course_rnn.models import MODEL_KINDS, build_model
from course_rnn.models.base import (
    Parts,
    Recurrence,
    RecurrentModel,
    seeded,
    stack_steps,
    unroll,
)
from course_rnn.training.checkpoints import load_checkpoint, save_checkpoint
from course_rnn.widgets import Stepper, export_model, import_model, run_steps
from course_rnn.widgets.web import web_stepper_html

DYCK = Dyck("() []")
VOCAB = Vocab(DYCK.alphabet)
STRINGS = ["([])()", "[[[]]]", "()()()"]
INPUTS = make_batch(VOCAB, STRINGS).inputs  # [3, 7], no padding
SIZES = {"urn": dict(hidden_size=5, k=2), "matrix_rnn": dict(hidden_size=4),
         "flnn": dict(hidden_size=2)}


# -- a recurrent model the course does not have ---------------------------------------------------


class ScalingRNN(RecurrentModel):
    """Each symbol scales every unit of the state: ``h_t = d(x_t) ⊙ h_{t-1}``, ``h_0 = 1``,
    ``y_t = W h_t + b``. Its whole step is :class:`ScalingStep`; ``forward`` and ``trace`` come
    from it, and its web form is a diagonal matrix per symbol (the ``matrix_rnn`` cell)."""

    kind = "scaling_rnn"

    def __init__(self, vocab_size: int, hidden_size: int = 3, seed: int | None = None):
        super().__init__()
        self.vocab_size = check_positive(vocab_size, "vocab_size")
        self.hidden_size = check_positive(hidden_size, "hidden_size")
        with seeded(seed):
            self.scales = nn.Parameter(0.5 + torch.rand(vocab_size, hidden_size))  # d(x)
            self.readout = nn.Linear(hidden_size, vocab_size)

    def recurrence(self) -> ScalingStep:
        return ScalingStep(self)

    def web_form(self) -> dict:
        return {"cell": "matrix_rnn", "Q": torch.diag_embed(self.scales),
                "h0": torch.ones(self.hidden_size)}


class ScalingStep(Recurrence):
    def initial_state(self, batch: int) -> torch.Tensor:
        return self.model.scales.new_ones(batch, self.model.hidden_size)  # h_0 = 1

    def step(self, h: torch.Tensor, symbols: torch.Tensor) -> tuple[torch.Tensor, Parts]:
        h = self.model.scales[symbols] * h  # h_t = d(x_t) ⊙ h_{t-1}
        return h, {"hidden": h}


@pytest.fixture
def registered(monkeypatch):
    """ScalingRNN in the registry, for this test only (a real model is one line there)."""
    monkeypatch.setitem(models._REGISTRY, ScalingRNN.kind, ScalingRNN)


EVERY_KIND = [*MODEL_KINDS, ScalingRNN.kind]


def build(kind: str, seed: int = 0) -> models.SequenceModel:
    """A small model of ``kind``, moved away from its initialisation so that every weight
    matters."""
    model = build_model(kind, vocab_size=len(VOCAB), seed=seed,
                        **SIZES.get(kind, dict(hidden_size=4)))
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=generator))
    return model.eval()


# -- every model -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_forward_and_trace(kind, registered):
    model = build(kind)
    logits = model(INPUTS)
    assert logits.shape == (3, 7, len(VOCAB)) and logits.requires_grad
    trace = model.trace(INPUTS)
    assert trace["hidden"].shape == (3, 7, model.hidden_size)
    torch.testing.assert_close(trace["logits"], logits.detach(), rtol=0, atol=1e-5)
    assert all(value.shape[:2] == (3, 7) for value in trace.values())


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_one_step_at_a_time_is_the_forward_pass(kind, registered):
    """The recurrence, stepped by hand, computes every part the trace shows, step by step."""
    model = build(kind)
    assert isinstance(model, RecurrentModel)
    recurrence = model.recurrence()
    x = recurrence.inputs(INPUTS)
    assert x.shape[:2] == INPUTS.shape
    with torch.no_grad():
        steps = stack_steps(unroll(recurrence, x))
        trace = model.trace(INPUTS)
        assert set(steps) <= set(trace) and "hidden" in steps
        for name, value in steps.items():
            torch.testing.assert_close(value, trace[name], rtol=0, atol=1e-6, msg=name)
        if recurrence.reads_out:
            torch.testing.assert_close(recurrence.logits(steps), model(INPUTS), rtol=0, atol=1e-5)

        state = recurrence.initial_state(3)
        for t in range(x.shape[1]):
            state, parts = recurrence.step(state, x[:, t])
            torch.testing.assert_close(parts["hidden"], steps["hidden"][:, t], rtol=0, atol=0)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_checkpoints_rebuild_the_same_model(kind, registered, tmp_path):
    model = build(kind)
    loaded, vocab = load_checkpoint(save_checkpoint(model, VOCAB, tmp_path / f"{kind}.pt"),
                                    device="cpu")  # beside the CPU model (default: a GPU)
    assert type(loaded) is type(model) and loaded.config() == model.config()
    assert vocab.alphabet == VOCAB.alphabet
    torch.testing.assert_close(loaded(INPUTS), model(INPUTS), rtol=0, atol=0)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_the_config_is_the_constructor_s_arguments(kind, registered):
    """No model writes its config: it is every constructor argument (defaults too) under its
    current name, and the same arguments build the same model again."""
    model = build(kind)
    parameters = inspect.signature(type(model)).parameters
    assert list(model.config()) == list(parameters)
    assert model.config()["vocab_size"] == len(VOCAB) and model.config()["seed"] == 0
    twin = type(model)(**model.config())
    assert twin.config() == model.config()
    with torch.no_grad():  # build() moved every weight; move the twin's the same way
        generator = torch.Generator().manual_seed(0)
        for p in twin.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=generator))
    torch.testing.assert_close(twin.eval()(INPUTS), model(INPUTS), rtol=0, atol=0)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_a_seed_gives_the_same_initial_weights(kind, registered):
    one, two = build_model(kind, vocab_size=5, seed=3), build_model(kind, vocab_size=5, seed=3)
    other = build_model(kind, vocab_size=5, seed=4)
    assert all(torch.equal(a, b) for a, b in zip(one.state_dict().values(),
                                                 two.state_dict().values()))
    assert any(not torch.equal(a, b) for a, b in zip(one.state_dict().values(),
                                                     other.state_dict().values()))


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_a_seeded_build_leaves_the_global_generator_alone(kind, registered):
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    build_model(kind, vocab_size=5, seed=3)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_stepping_leaves_the_global_generator_alone(kind, registered):
    model = build(kind)
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    model.trace(INPUTS)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_the_steppers_show_every_model(kind, registered):
    model = build(kind)
    steps = run_steps(model, VOCAB, "([])", DYCK)
    assert "hidden" in steps.states and steps.probs.shape == (5, len(VOCAB) - 2)
    np.testing.assert_allclose(steps.probs.sum(1), 1.0)
    stepper = Stepper(model, VOCAB, DYCK, string="([])", plot=False, highlight={"hidden": [1]})
    assert stepper.slider.max == 4 and stepper.view.value.count("outline:3px") == 1
    with pytest.raises(ValueError, match="hidden has units 0 to"):
        Stepper(model, VOCAB, DYCK, plot=False, highlight={"hidden": [model.hidden_size]})


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_gradient_analysis_steps_every_model(kind, registered):
    model = build(kind)
    result = gradient_norms_by_distance(model, INPUTS, wrt="hidden", of="hidden")
    assert result["per_string"].shape == (3, 7)
    np.testing.assert_allclose(result["norm"][0], np.sqrt(model.hidden_size), rtol=1e-5)  # ‖I‖
    if model.recurrence().reads_out:
        loss = gradient_norms_by_distance(model, INPUTS, targets=make_batch(VOCAB, STRINGS).targets)
        assert np.all(np.isfinite(loss["norm"])) and loss["norm"][0] > 0


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_web_export_and_import_round_trip(kind, registered):
    model = build(kind)
    if not hasattr(model, "web_form"):
        with pytest.raises(ValueError, match="no web_form"):
            export_model(model, VOCAB, DYCK)
        return
    spec = json.loads(json.dumps(export_model(model, VOCAB, DYCK)))
    assert spec["kind"] == kind
    rebuilt, vocab = import_model(spec)
    assert vocab.alphabet == VOCAB.alphabet
    original, again = run_steps(model, VOCAB, "([])[", DYCK), run_steps(rebuilt, vocab, "([])[")
    for name, values in again.states.items():
        np.testing.assert_allclose(values, original.states[name], atol=1e-5, err_msg=name)
    np.testing.assert_allclose(again.probs, original.probs, atol=1e-5)
    assert "class='rnn-stepper'" in web_stepper_html(model, VOCAB, DYCK, highlight={"hidden": [0]})


# -- the new model in the JavaScript stepper and against hand-computed gradients ------------------

def test_the_javascript_stepper_runs_the_new_model(registered, js_stepper):
    model = build(ScalingRNN.kind)
    spec = export_model(model, VOCAB, DYCK)
    assert spec["cell"] == "matrix_rnn"  # the cell the model named, under its own kind
    js = js_stepper(spec, "([])[")
    steps = run_steps(model, VOCAB, "([])[", DYCK)
    np.testing.assert_allclose([s["states"]["hidden"] for s in js], steps.states["hidden"],
                               atol=1e-5)
    np.testing.assert_allclose([s["probs"] for s in js], steps.probs, atol=1e-5)


def test_the_gradient_analysis_of_the_new_model_is_the_product_of_its_scales(registered):
    """∂h_T/∂h_t = diag(d(x_{t+1}) ⊙ … ⊙ d(x_T)): its Frobenius norm, computed by hand."""
    model = build(ScalingRNN.kind)
    result = gradient_norms_by_distance(model, INPUTS, wrt="hidden", of="hidden")
    scales = model.scales.detach().double()[INPUTS]  # [B, T, H]: d(x_t)
    for d in range(INPUTS.shape[1]):
        later = scales[:, INPUTS.shape[1] - d:].prod(dim=1)  # the d symbols read after step t
        np.testing.assert_allclose(result["per_string"][:, d], later.norm(dim=-1).numpy(),
                                   rtol=1e-5)
    with pytest.raises(TypeError, match="reads no input vectors"):
        gradient_norms_by_distance(model, INPUTS, wrt="input")


# -- the chapters' names of the models ----------------------------------------------------------


@pytest.mark.parametrize("name", list(models.NAMED_MODELS))
def test_every_named_model_builds(name):
    kind, options = models.NAMED_MODELS[name]
    model = build_model(kind, vocab_size=len(VOCAB), hidden_size=4, seed=0, **options)
    assert all(model.config()[key] == value for key, value in options.items())


def test_named_models_keeps_the_order_and_the_experiment_s_own_names():
    chosen = models.named_models("LSTM", ("URN", "3-TURN"), "SRN")
    assert list(chosen) == ["LSTM", "URN", "SRN"] and chosen["URN"] == ("urn", {"k": 3})
    chosen["URN"][1]["k"] = 5  # a copy: the table itself is not changed
    assert models.NAMED_MODELS["3-TURN"] == ("urn", {"k": 3})
    with pytest.raises(ValueError, match=r"unknown model name\(s\) \['TURN'\]: choose from SRN"):
        models.named_models("SRN", "TURN")
