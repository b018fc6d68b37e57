"""course_rnn.analysis.gradients: gradient norms by distance, checked against plain autograd."""

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from course_rnn.analysis.gradients import gradient_norms_by_distance, log_slope
from course_rnn.languages import AnBn, Vocab, make_batch
from course_rnn.models import build_model
from course_rnn.models.base import SequenceModel

VOCAB = Vocab(["a", "b"])
BATCH = make_batch(VOCAB, ["aaabbb", "ababab", "bbbaaa"])


def fast_input_gradients(model, batch):
    """‖∂L_T/∂x_t‖ through the model's fast torch layer, by hooking its input layer."""
    captured = {}

    def hook(module, args, output):
        captured["x"] = output.detach().requires_grad_(True)
        return captured["x"]

    handle = model.input_layer.register_forward_hook(hook)
    try:
        logits = model(batch.inputs)[:, -1]
    finally:
        handle.remove()
    loss = F.cross_entropy(logits, batch.targets[:, -1], reduction="sum")
    (grad,) = torch.autograd.grad(loss, captured["x"])
    return grad.norm(dim=-1).flip(1).double().numpy()


@pytest.mark.parametrize("kind", ["srn", "gru", "lstm", "decay_rnn"])
def test_input_gradients_equal_autograd_through_the_fast_model(kind):
    model = build_model(kind, vocab_size=len(VOCAB), hidden_size=5, seed=0).eval()
    ours = gradient_norms_by_distance(model, BATCH.inputs, wrt="input", targets=BATCH.targets)
    assert ours["per_string"].shape == (3, 7)
    np.testing.assert_allclose(ours["per_string"], fast_input_gradients(model, BATCH), rtol=1e-4,
                               atol=1e-7)
    np.testing.assert_allclose(ours["norm"], ours["per_string"].mean(0))
    assert list(ours["distance"]) == list(range(7))


def test_hidden_gradient_at_distance_zero_is_the_readout_gradient():
    model = build_model("lstm", vocab_size=len(VOCAB), hidden_size=4, seed=1).eval()
    ours = gradient_norms_by_distance(model, BATCH.inputs, wrt="hidden", targets=BATCH.targets)
    h = model.hidden_states(BATCH.inputs)[:, -1].detach().requires_grad_(True)
    loss = F.cross_entropy(model.readout(h), BATCH.targets[:, -1], reduction="sum")
    (grad,) = torch.autograd.grad(loss, h)
    np.testing.assert_allclose(ours["per_string"][:, 0], grad.norm(dim=-1).numpy(), rtol=1e-5)


def test_jacobian_of_the_state_at_distance_zero_is_the_identity():
    model = build_model("gru", vocab_size=len(VOCAB), hidden_size=6, seed=0)
    ours = gradient_norms_by_distance(model, BATCH.inputs, wrt="hidden", of="hidden")
    np.testing.assert_allclose(ours["per_string"][:, 0], np.sqrt(6), rtol=1e-6)  # ‖I‖_F


def test_linear_srn_state_jacobian_is_a_matrix_power():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=3, seed=0, nonlinearity="relu")
    with torch.no_grad():  # make the ReLU SRN linear on this input: positive weights and biases
        model.rnn.weight_hh_l0.copy_(0.5 * torch.eye(3))
        model.rnn.weight_ih_l0.abs_()
        model.rnn.bias_ih_l0.abs_()
        model.rnn.bias_hh_l0.abs_()
    ours = gradient_norms_by_distance(model, BATCH.inputs[:1], wrt="hidden", of="hidden")
    expected = np.sqrt(3) * 0.5 ** np.arange(7)  # ‖(0.5 I)^d‖_F
    np.testing.assert_allclose(ours["norm"], expected, rtol=1e-5)
    assert log_slope(ours) == pytest.approx(np.log10(0.5), rel=1e-6)


def test_urn_state_jacobian_keeps_its_norm():
    """A product of orthogonal matrices is orthogonal: the URN's gradient cannot vanish."""
    model = build_model("urn", vocab_size=len(VOCAB), hidden_size=4, seed=0)
    ours = gradient_norms_by_distance(model, BATCH.inputs, wrt="hidden", of="hidden")
    np.testing.assert_allclose(ours["per_string"], 2.0, rtol=1e-4)  # ‖Q‖_F = √n
    loss = gradient_norms_by_distance(model, BATCH.inputs, targets=BATCH.targets)
    assert np.all(np.isfinite(loss["norm"])) and loss["norm"][0] > 0


def test_flnn_state_jacobian_is_the_product_of_its_self_weights():
    from course_rnn.models.flnn import FLNN

    model = FLNN(vocab_size=len(VOCAB), hidden_size=2, seed=0)
    with torch.no_grad():
        model.scale.copy_(torch.tensor([0.5, 0.25]))  # s_a, s_b
    inputs = torch.tensor([[VOCAB.bos_id] + VOCAB.encode("aab")])
    ours = gradient_norms_by_distance(model, inputs, wrt="hidden", of="hidden")
    # z_T depends on z_t through the self-weights of the symbols read after t
    expected = np.sqrt(2) * np.array([1, 0.25, 0.25 * 0.5, 0.25 * 0.5 * 0.5])
    np.testing.assert_allclose(ours["norm"], expected, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="of=\"hidden\""):
        gradient_norms_by_distance(model, inputs, of="loss")


def test_srn_gradient_vanishes_faster_than_the_lstm_at_initialisation():
    strings = [AnBn.string(20)] * 2
    inputs = make_batch(VOCAB, strings).inputs
    srn = build_model("srn", vocab_size=len(VOCAB), hidden_size=8, seed=0)
    lstm = build_model("lstm", vocab_size=len(VOCAB), hidden_size=8, seed=0)
    slopes = {}
    for name, model in [("srn", srn), ("lstm", lstm)]:
        result = gradient_norms_by_distance(model, inputs, wrt="hidden", of="hidden")
        assert result["norm"][-1] < result["norm"][0]
        slopes[name] = log_slope(result)
    assert slopes["srn"] < slopes["lstm"] < 0


def test_model_mode_and_weights_are_left_alone():
    model = build_model("lstm", vocab_size=len(VOCAB), hidden_size=3, seed=0, dropout=0.5).train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():  # works inside no_grad too
        gradient_norms_by_distance(model, BATCH.inputs[0])
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())


def test_clear_errors():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=3, seed=0)
    padded = make_batch(VOCAB, ["ab", "aabb"]).inputs
    with pytest.raises(ValueError, match="pad"):
        gradient_norms_by_distance(model, padded)
    with pytest.raises(ValueError, match="wrt"):
        gradient_norms_by_distance(model, BATCH.inputs, wrt="cell")
    with pytest.raises(ValueError, match="of"):
        gradient_norms_by_distance(model, BATCH.inputs, of="logits")
    with pytest.raises(ValueError, match="targets"):
        gradient_norms_by_distance(model, BATCH.inputs, of="hidden", targets=BATCH.targets)
    with pytest.raises(TypeError, match="wrt=\"hidden\""):
        urn = build_model("urn", vocab_size=len(VOCAB), hidden_size=3, seed=0)
        gradient_norms_by_distance(urn, BATCH.inputs, wrt="input")
    with pytest.raises(TypeError, match="sequence model"):
        gradient_norms_by_distance(torch.nn.Linear(2, 2), BATCH.inputs)
    with pytest.raises(ValueError, match="two"):
        log_slope({"distance": np.arange(3), "norm": np.array([1.0, 0.0, 0.0])})


def test_clear_errors_about_the_targets_the_steps_and_the_kind_of_model():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=3, seed=0)
    with pytest.raises(ValueError, match="targets must have 3 rows, got 2"):
        gradient_norms_by_distance(model, BATCH.inputs, targets=BATCH.targets[:2])
    with pytest.raises(ValueError, match="at least one time step"):
        gradient_norms_by_distance(model, BATCH.inputs[:, :0])

    class NotRecurrent(SequenceModel):
        vocab_size = len(VOCAB)

    with pytest.raises(TypeError, match="steps a recurrent model.*NotRecurrent is not one"):
        gradient_norms_by_distance(NotRecurrent(), BATCH.inputs)


def test_a_frozen_model_is_left_frozen_and_in_its_mode_even_after_an_error():
    model = build_model("gru", vocab_size=len(VOCAB), hidden_size=3, seed=0).train()
    model.readout.requires_grad_(False)
    result = gradient_norms_by_distance(model, BATCH.inputs, of="loss")
    assert (result["norm"] > 0).all(), "a frozen readout still passes the gradient back"
    with pytest.raises(ValueError, match="rows"):
        gradient_norms_by_distance(model, BATCH.inputs, targets=BATCH.targets[:1])
    assert model.training
    assert [p.requires_grad for p in model.readout.parameters()] == [False, False]
    assert all(p.requires_grad for p in model.rnn.parameters())


def test_multi_layer_models_use_the_top_layer():
    model = build_model("lstm", vocab_size=len(VOCAB), hidden_size=4, num_layers=2, seed=0)
    ours = gradient_norms_by_distance(model, BATCH.inputs, wrt="input", targets=BATCH.targets)
    np.testing.assert_allclose(ours["per_string"], fast_input_gradients(model.eval(), BATCH),
                               rtol=1e-4, atol=1e-7)
