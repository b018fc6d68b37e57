"""The Decay RNN and its two variants: the paper's equations, Dale's principle, the decay α."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F

from course_rnn.languages.vocab import Vocab
from course_rnn.models.decay_rnn import (
    ALPHA_EPS,
    ALPHA_PARAMETRISATIONS,
    VARIANTS,
    DecayRNN,
    dale_signs,
    time_constant,
)

VOCAB = Vocab(["a", "b"])


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tiny models run fastest on one thread (two threads wait for each other on a busy CPU)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def paper_hidden_states(model: DecayRNN, inputs: torch.Tensor) -> torch.Tensor:
    """Bhatt et al. (2020), Section 4, written out independently of the model's code:
    c_t = W_rec h_{t-1} + U x_t + b,  h_t = ReLU(α h_{t-1} + (1 − α) c_t)."""
    U, b = model.weight_ih.detach(), model.bias.detach()
    if model.alpha_parametrisation == "sigmoid":
        alpha = torch.sigmoid(model.alpha_logit.detach())
    else:
        alpha = model.alpha_direct.detach().clamp(ALPHA_EPS, 1 - ALPHA_EPS)
    if model.variant == "drnn":
        D = torch.diag(dale_signs(model.hidden_size)).to(U.dtype)
        W_rec = torch.relu(model.weight_hh.detach()) @ D
    elif model.variant == "sdrnn":
        W_rec = model.weight_hh.detach()
    else:
        W_rec = torch.zeros(model.hidden_size, model.hidden_size, dtype=U.dtype)
    x = F.one_hot(inputs, model.vocab_size).to(U.dtype)
    h = torch.zeros(inputs.shape[0], model.hidden_size, dtype=U.dtype)
    states = []
    for t in range(inputs.shape[1]):
        c = torch.einsum("ij,bj->bi", W_rec, h) + torch.einsum("ij,bj->bi", U, x[:, t]) + b
        h = torch.relu(alpha * h + (1 - alpha) * c)
        states.append(h)
    return torch.stack(states, dim=1)


def periodic_batch(batch: int = 4, repeats: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    stream = torch.tensor([[VOCAB.bos_id, *VOCAB.encode("ab" * repeats)]] * batch)
    return stream[:, :-1], stream[:, 1:]


def train(model: DecayRNN, steps: int = 30) -> list[float]:
    inputs, targets = periodic_batch()
    optimiser = torch.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for _ in range(steps):
        optimiser.zero_grad()
        loss = F.cross_entropy(model(inputs).transpose(1, 2), targets)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return losses


# -- the equations ---------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("parametrisation", ALPHA_PARAMETRISATIONS)
@settings(max_examples=8, deadline=None)
@given(hidden_size=st.integers(1, 9), seed=st.integers(0, 2**16), steps=st.integers(1, 8))
def test_forward_follows_the_papers_equations(variant, parametrisation, hidden_size, seed, steps):
    model = DecayRNN(5, hidden_size, variant=variant, seed=seed,
                     alpha_parametrisation=parametrisation).double()
    inputs = torch.randint(0, 5, (3, steps), generator=torch.Generator().manual_seed(seed))
    expected = paper_hidden_states(model, inputs)
    torch.testing.assert_close(model.hidden_states(inputs), expected, rtol=0, atol=1e-10)
    torch.testing.assert_close(model.trace(inputs)["hidden"], expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_step_by_step_equals_the_fast_loop(variant):
    model = DecayRNN(6, 5, variant=variant, embedding_dim=3, seed=0)
    inputs = torch.randint(0, 6, (2, 7), generator=torch.Generator().manual_seed(0))
    x = model.input_layer(inputs)
    h, states = None, []
    for t in range(inputs.shape[1]):
        h = model.step(h, x[:, t])
        states.append(h)
    torch.testing.assert_close(torch.stack(states, 1), model.hidden_states(inputs))


def test_step_takes_the_state_first_and_refuses_pytorchs_order():
    model = DecayRNN(6, 5, embedding_dim=3, seed=0)
    x = model.input_layer(torch.tensor([1, 2]))  # [2, 3]
    h = model.step(None, x)
    torch.testing.assert_close(model.step(h, x), model.step(model.step(None, x), x))
    with pytest.raises(ValueError, match=r"x_t must be .*input_size=3.*the state first"):
        model.step(x, h)
    with pytest.raises(ValueError, match=r"state must be .*\(2, 5\).*got \(4, 5\)"):
        model.step(torch.zeros(4, 5), x)


def test_trace_contents_and_shapes():
    model = DecayRNN(5, 4, seed=1)
    inputs = torch.tensor([[1, 3, 4, 3], [1, 4, 0, 0]])
    trace = model.trace(inputs)
    assert trace["hidden"].shape == (2, 4, 4)
    assert trace["alpha"].shape == (2, 4)
    assert torch.allclose(trace["alpha"], model.alpha.detach())
    assert trace["logits"].shape == (2, 4, 5)
    torch.testing.assert_close(trace["logits"], model(inputs))
    assert (trace["hidden"] >= 0).all()  # ReLU units


def test_tanh_option_changes_the_nonlinearity():
    model = DecayRNN(5, 6, nonlinearity="tanh", seed=0)
    hidden = model.hidden_states(torch.tensor([[1, 2, 3, 4]]))
    assert (hidden < 0).any() and (hidden.abs() < 1).all()


# -- the decay α -----------------------------------------------------------------------------------


def test_alpha_starts_at_its_initial_value_inside_the_unit_interval():
    for alpha_init in (0.8, 0.3, 0.999):
        alpha = DecayRNN(4, 3, alpha_init=alpha_init).alpha.item()
        assert 0 < alpha < 1
        assert alpha == pytest.approx(alpha_init, abs=1e-6)


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -0.2, "0.8"])
def test_alpha_init_outside_the_open_unit_interval_is_refused(bad):
    with pytest.raises(ValueError, match="alpha_init"):
        DecayRNN(4, 3, alpha_init=bad)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_gradients_reach_alpha_and_training_moves_it(variant):
    model = DecayRNN(len(VOCAB), 6, variant=variant, seed=0)
    inputs, targets = periodic_batch()
    F.cross_entropy(model(inputs).transpose(1, 2), targets).backward()
    assert model.alpha_logit.grad is not None and model.alpha_logit.grad.abs() > 0
    before = model.alpha.item()
    losses = train(model, steps=20)
    assert model.alpha.item() != pytest.approx(before, abs=1e-4)
    assert 0 < model.alpha.item() < 1
    assert losses[-1] < losses[0]


def test_alpha_stays_inside_the_unit_interval_however_far_it_is_pushed():
    model = DecayRNN(4, 3)
    with torch.no_grad():
        model.alpha_logit.fill_(50.0)
    assert model.alpha.item() <= 1.0
    with torch.no_grad():
        model.alpha_logit.fill_(-50.0)
    assert model.alpha.item() >= 0.0


def test_both_parametrisations_start_at_alpha_init_and_compute_the_same_function():
    sigmoid = DecayRNN(5, 4, alpha_init=0.3, seed=2)
    direct = DecayRNN(5, 4, alpha_init=0.3, seed=2, alpha_parametrisation="direct")
    assert direct.alpha.item() == pytest.approx(0.3) and sigmoid.alpha.item() == pytest.approx(0.3)
    assert not hasattr(direct, "alpha_logit") and not hasattr(sigmoid, "alpha_direct")
    inputs = torch.tensor([[1, 3, 2, 4]])
    torch.testing.assert_close(direct(inputs), sigmoid(inputs))  # same weights, same α
    assert sigmoid.num_parameters() == direct.num_parameters()


def test_a_step_on_the_logit_moves_alpha_by_alpha_times_one_minus_alpha():
    """The sigmoid slows α near 0 and 1: dα/da = α(1 − α), five times smaller at 0.95 than at
    0.5; the direct parameter moves α one-for-one wherever it is."""
    for a0 in (0.5, 0.95):
        sigmoid = DecayRNN(4, 3, alpha_init=a0)
        sigmoid.alpha.backward()
        assert sigmoid.alpha_logit.grad.item() == pytest.approx(a0 * (1 - a0), rel=1e-5)
        direct = DecayRNN(4, 3, alpha_init=a0, alpha_parametrisation="direct")
        direct.alpha.backward()
        assert direct.alpha_direct.grad.item() == pytest.approx(1.0)
    assert 0.5 * 0.5 / (0.95 * 0.05) == pytest.approx(5.26, abs=0.01)


def test_the_direct_alpha_is_projected_back_inside_the_unit_interval():
    model = DecayRNN(4, 3, alpha_parametrisation="direct")
    with torch.no_grad():
        model.alpha_direct.fill_(1.7)
    assert model.alpha.item() == pytest.approx(1 - ALPHA_EPS)
    assert model.alpha_direct.item() == pytest.approx(1 - ALPHA_EPS)  # the parameter itself
    with torch.no_grad():
        model.alpha_direct.fill_(-0.4)
    assert model.alpha.item() == pytest.approx(ALPHA_EPS)
    # at the bound α still has a gradient, so a later update can take it back inside
    model(torch.tensor([[1, 2, 3]])).sum().backward()
    assert model.alpha_direct.grad is not None and model.alpha_direct.grad.item() != 0


@pytest.mark.parametrize("parametrisation", ALPHA_PARAMETRISATIONS)
def test_training_moves_alpha_in_either_parametrisation(parametrisation):
    model = DecayRNN(len(VOCAB), 6, seed=0, alpha_parametrisation=parametrisation)
    before = model.alpha.item()
    losses = train(model, steps=20)
    assert model.alpha.item() != pytest.approx(before, abs=1e-4)
    assert 0 < model.alpha.item() < 1 and losses[-1] < losses[0]


def test_unknown_parametrisation_is_refused():
    with pytest.raises(ValueError, match="alpha_parametrisation.*sigmoid, direct"):
        DecayRNN(4, 3, alpha_parametrisation="tanh")


def test_time_constant_is_minus_one_over_log_alpha():
    assert time_constant(0.8) == pytest.approx(4.48, abs=0.01)
    assert time_constant(0.5) == pytest.approx(1 / math.log(2))
    assert time_constant(0.95) > 4 * time_constant(0.8)
    # after τ steps an undriven state has shrunk by e
    assert 0.8 ** time_constant(0.8) == pytest.approx(math.exp(-1))
    for bad in (0.0, 1.0, 1.2, -0.1):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            time_constant(bad)


def test_the_decay_alone_carries_memory_in_the_ablated_variant():
    """Ab-DRNN has no recurrent matrix, yet h_t still depends on x_0 through α h_{t-1}."""
    model = DecayRNN(5, 8, variant="abdrnn", seed=0)
    a = model.hidden_states(torch.tensor([[3, 1, 1, 1]]))[0, -1]
    b = model.hidden_states(torch.tensor([[4, 1, 1, 1]]))[0, -1]
    assert not torch.allclose(a, b)


# -- Dale's principle and the variants -------------------------------------------------------------


@pytest.mark.parametrize("hidden_size, excitatory", [(10, 8), (5, 4), (15, 12), (50, 40), (1, 1)])
def test_dale_signs_make_the_first_80_percent_excitatory(hidden_size, excitatory):
    signs = dale_signs(hidden_size)
    assert signs.tolist() == [1.0] * excitatory + [-1.0] * (hidden_size - excitatory)


def column_signs_follow_dale(matrix: torch.Tensor, signs: torch.Tensor) -> bool:
    """Column j (the synapses *from* unit j) is all ≥ 0 when j is excitatory, all ≤ 0 if not."""
    return bool((matrix * signs >= 0).all())


def test_dale_holds_after_training():
    model = DecayRNN(len(VOCAB), 10, variant="drnn", seed=0)
    signs = model.dale
    start = model.recurrent_matrix().detach().clone()
    assert column_signs_follow_dale(start, signs)
    losses = train(model, steps=30)
    after = model.recurrent_matrix().detach()
    assert not torch.allclose(start, after), "training did not change the recurrent matrix"
    assert losses[-1] < losses[0]
    assert column_signs_follow_dale(after, signs)
    # both kinds of unit still have live synapses: the check above is not vacuous
    assert (after[:, signs > 0] > 0).any() and (after[:, signs < 0] < 0).any()
    # Dale constrains columns (presynaptic units), not rows: a row mixes signs
    assert ((after > 0).any(dim=1) & (after < 0).any(dim=1)).any()


def test_dale_matrix_is_relu_of_w_times_the_sign_diagonal():
    model = DecayRNN(4, 5, seed=3)
    expected = torch.relu(model.weight_hh) @ torch.diag(model.dale)
    torch.testing.assert_close(model.recurrent_matrix(), expected)


def test_excitatory_fraction_is_configurable():
    model = DecayRNN(4, 10, excitatory_fraction=0.5)
    assert model.dale.tolist() == [1.0] * 5 + [-1.0] * 5
    with pytest.raises(ValueError, match="excitatory_fraction"):
        DecayRNN(4, 10, excitatory_fraction=1.5)


def test_slacked_variant_has_no_sign_constraint():
    model = DecayRNN(len(VOCAB), 10, variant="sdrnn", seed=0)
    matrix = model.recurrent_matrix()
    assert matrix is model.weight_hh
    mixed_columns = (matrix > 0).any(dim=0) & (matrix < 0).any(dim=0)
    assert mixed_columns.all()
    train(model, steps=10)
    matrix = model.recurrent_matrix()
    assert ((matrix > 0).any(dim=0) & (matrix < 0).any(dim=0)).any()


def test_ablated_variant_has_no_recurrent_parameters():
    vocab_size, hidden = 5, 7
    model = DecayRNN(vocab_size, hidden, variant="abdrnn")
    assert model.weight_hh is None and model.recurrent_matrix() is None
    assert all(p.shape != (hidden, hidden) for p in model.parameters())
    # U [H, V] + b [H] + α + readout [V, H] + [V]
    expected = hidden * vocab_size + hidden + 1 + vocab_size * hidden + vocab_size
    assert model.num_parameters() == expected
    with_recurrence = DecayRNN(vocab_size, hidden, variant="drnn")
    assert with_recurrence.num_parameters() == expected + hidden * hidden


# -- input checking, seeds, config -----------------------------------------------------------------


def test_unknown_variant_lists_the_valid_ones():
    with pytest.raises(ValueError, match="'lstm'.*drnn, sdrnn, abdrnn"):
        DecayRNN(4, 3, variant="lstm")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hidden_size": 0}, "hidden_size"),
        ({"hidden_size": -3}, "hidden_size"),
        ({"vocab_size": 0}, "vocab_size"),
        ({"embedding_dim": 0}, "embedding_dim"),
        ({"nonlinearity": "sigmoid"}, "nonlinearity"),
    ],
)
def test_impossible_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DecayRNN(**{"vocab_size": 4, "hidden_size": 3, **kwargs})


def test_bad_inputs_raise_clear_errors():
    model = DecayRNN(4, 3)
    with pytest.raises(ValueError, match="out of range"):
        model(torch.tensor([[1, 4]]))
    with pytest.raises(ValueError, match=r"shape \[batch, time\]"):
        model.trace(torch.zeros(1, 2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="at least one time step"):
        model(torch.zeros(3, 0, dtype=torch.long))
    assert model(torch.tensor([0, 1, 2])).shape == (1, 3, 4)


def test_same_seed_same_weights_and_outputs():
    inputs = torch.tensor([[1, 2, 3, 2]])
    a, b = DecayRNN(4, 6, seed=7), DecayRNN(4, 6, seed=7)
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(p, q), name
    assert torch.equal(a(inputs), b(inputs))
    assert not torch.equal(a(inputs), DecayRNN(4, 6, seed=8)(inputs))


@pytest.mark.parametrize("parametrisation", ALPHA_PARAMETRISATIONS)
def test_config_rebuilds_the_model(parametrisation):
    model = DecayRNN(4, 6, variant="sdrnn", alpha_init=0.6, embedding_dim=3, seed=1,
                     alpha_parametrisation=parametrisation)
    twin = DecayRNN(**model.config())
    twin.load_state_dict(model.state_dict())
    inputs = torch.tensor([[1, 3, 2]])
    assert torch.equal(model(inputs), twin(inputs))
    assert model.kind == "decay_rnn" and model.config()["variant"] == "sdrnn"
