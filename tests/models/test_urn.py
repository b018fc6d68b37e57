"""URN and MatrixRNN: rotations, compositionality, truncation, fast path, errors, learning."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F

from course_rnn.languages.vocab import Vocab, make_batch
from course_rnn.models.urn import (
    URN,
    MatrixRNN,
    compose_matrices,
    expm,
    generator_size,
    skew_symmetric,
    urn_parameter_count,
)
from course_rnn.utils import seed_everything

FAST = settings(max_examples=15, deadline=None)


def random_inputs(vocab_size: int, batch: int, steps: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab_size, (batch, steps), generator=g)


# -- the matrices ---------------------------------------------------------------------------------


@FAST
@given(n=st.integers(2, 12), data=st.data())
def test_every_symbol_matrix_is_a_rotation(n, data):
    k = data.draw(st.one_of(st.none(), st.integers(1, n - 1)))
    model = URN(5, hidden_size=n, k=k, init_range=1.0, seed=data.draw(st.integers(0, 1000)))
    eye = torch.eye(n)
    distance_from_identity = []
    for symbol in range(5):
        q = model.embedding(symbol).detach().double()
        assert torch.allclose(q.T @ q, eye.double(), atol=1e-5)
        assert torch.det(q).item() == pytest.approx(1.0, abs=1e-5)
        distance_from_identity.append((q - eye).abs().max().item())
    # not trivially the identity. One symbol's small random angle can land within 1e-3 of it
    # (n = 2, seed 325: one generator ≈ 0), so the check is over the five symbols together.
    assert max(distance_from_identity) > 1e-3


def test_skew_symmetric_fills_the_upper_triangle_row_by_row():
    # the 3×3 example of Bernardy & Lappin (2023, §2.2)
    s = skew_symmetric(torch.tensor([1.0, 2.0, 3.0]), 3)
    assert torch.equal(s, torch.tensor([[0.0, 1, 2], [-1, 0, 3], [-2, -3, 0]]))
    # fewer parameters: later rows stay zero (1-truncation of the paper's example: c = 0)
    s = skew_symmetric(torch.tensor([1.0, 2.0]), 3)
    assert torch.equal(s, torch.tensor([[0.0, 1, 2], [-1, 0, 0], [-2, 0, 0]]))
    with pytest.raises(ValueError, match="do not fit"):
        skew_symmetric(torch.zeros(4), 3)


@pytest.mark.parametrize("n,k", [(6, 1), (6, 2), (7, 3), (5, None)])
def test_truncated_generators_touch_only_the_first_k_rows_and_columns(n, k):
    model = URN(4, hidden_size=n, k=k, init_range=1.0, seed=1)
    kept = n - 1 if k is None else k
    for symbol in range(4):
        s = model.generator(symbol).detach()
        assert torch.equal(s, -s.T)
        assert torch.count_nonzero(s[kept:, kept:]) == 0  # the lower-right block is empty
        assert torch.linalg.matrix_rank(s) <= 2 * kept
        assert torch.allclose(torch.linalg.matrix_exp(s), model.embedding(symbol), atol=1e-5)


@pytest.mark.parametrize("scale", [0.0, 0.05, 0.5, 3.0, 20.0])
def test_expm_equals_torchs_matrix_exp_and_its_gradient(scale):
    """The scaling-and-squaring Taylor exponential agrees with torch.linalg.matrix_exp, value
    and gradient, from the identity to large rotations (float64 for an exact comparison)."""
    g = torch.Generator().manual_seed(0)
    params = (torch.rand(4, 15, generator=g, dtype=torch.float64) * 2 - 1) * scale
    weights = torch.randn(4, 6, 6, generator=g, dtype=torch.float64)
    grads = []
    for f in (expm, torch.linalg.matrix_exp):
        p = params.clone().requires_grad_()
        q = f(skew_symmetric(p, 6))
        (q * weights).sum().backward()
        grads.append((q.detach(), p.grad))
    (q1, g1), (q2, g2) = grads
    assert torch.allclose(q1, q2, atol=1e-10, rtol=1e-8)
    assert torch.allclose(g1, g2, atol=1e-8, rtol=1e-6)
    eye = torch.eye(6, dtype=torch.float64)
    assert torch.allclose(q1.transpose(-1, -2) @ q1, eye.expand_as(q1), atol=1e-9)


def test_expm_in_float32_is_orthogonal_and_refuses_bad_input():
    params = torch.linspace(-3, 3, 50 * 49 // 2)
    q = expm(skew_symmetric(params, 50))
    assert torch.allclose(q.T @ q, torch.eye(50), atol=1e-4)
    assert torch.allclose(q, torch.linalg.matrix_exp(skew_symmetric(params, 50)), atol=1e-4)
    with pytest.raises(ValueError, match="square"):
        expm(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="NaN"):
        expm(torch.full((2, 2), float("nan")))


# -- compositionality -----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [URN, MatrixRNN])
def test_compose_is_the_product_in_reading_order(cls):
    model = cls(6, hidden_size=5, init_range=0.8, seed=2)
    u, v, w = (model.embedding(i) for i in (1, 4, 2))
    assert torch.allclose(model.compose([1, 4]), v @ u, atol=1e-6)
    assert torch.allclose(model.compose(torch.tensor([1, 4, 2])), w @ v @ u, atol=1e-6)
    assert torch.allclose(model.compose(np.array([1, 4, 2])), w @ v @ u, atol=1e-6)
    assert not torch.allclose(v @ u, u @ v, atol=1e-4)  # the order matters
    assert torch.equal(model.compose([]), torch.eye(5))
    assert torch.allclose(compose_matrices([u, v, w]), model.compose([1, 4, 2]))


@pytest.mark.parametrize("cls", [URN, MatrixRNN])
def test_final_state_is_the_phrase_matrix_applied_to_h0(cls):
    model = cls(7, hidden_size=6, init_range=0.8, seed=3).eval()
    inputs = random_inputs(7, batch=5, steps=9)
    hidden = model.trace(inputs)["hidden"]
    h0 = torch.zeros(6)
    h0[0] = 1.0
    for row, seq in enumerate(inputs):
        assert torch.allclose(hidden[row, -1], model.compose(seq) @ h0, atol=1e-5)
        assert torch.allclose(hidden[row, 3], model.compose(seq[:4]) @ h0, atol=1e-5)


def test_state_norm_is_preserved_at_every_step_without_dropout():
    inputs = random_inputs(9, batch=16, steps=30)
    for model in (URN(9, hidden_size=10, k=3, init_range=1.0, dropout=0.0, seed=4),  # training, ρ=0
                  URN(9, hidden_size=10, init_range=1.0, seed=4).eval()):  # dropout switched off
        norms = model.trace(inputs)["hidden"].norm(dim=-1)
        assert torch.allclose(norms, torch.ones_like(norms), atol=1e-5)
    # the unconstrained baseline does not keep the norm
    baseline = MatrixRNN(9, hidden_size=10, init_range=0.5, seed=4).eval()
    norms = baseline.trace(inputs)["hidden"].norm(dim=-1)
    assert (norms - 1).abs().max() > 0.1


# -- the fast path against the definition -----------------------------------------------------


def naive_urn_states(model: URN, inputs: torch.Tensor) -> torch.Tensor:
    """h_t = expm(S(x_t)) h_{t−1}, one matrix exponential per token, one string at a time."""
    states = torch.zeros(*inputs.shape, model.n)
    for b, seq in enumerate(inputs):
        h = torch.zeros(model.n)
        h[0] = 1.0
        for t, symbol in enumerate(seq):
            upper = torch.zeros(model.n, model.n)
            rows, cols = torch.triu_indices(model.n, model.n, 1)
            count = model.generators.shape[1]
            upper[rows[:count], cols[:count]] = model.generators[symbol]
            h = torch.linalg.matrix_exp(upper - upper.T) @ h
            states[b, t] = h
    return states


def test_fast_path_equals_the_per_token_definition():
    model = URN(6, hidden_size=8, k=3, init_range=1.0, seed=5).eval()
    inputs = random_inputs(6, batch=4, steps=7)
    with torch.no_grad():
        trace = model.trace(inputs)
        expected = naive_urn_states(model, inputs)
        assert torch.allclose(trace["hidden"], expected, atol=1e-5)
        assert torch.allclose(trace["logits"], model.readout(expected), atol=1e-5)
        assert torch.equal(model(inputs), trace["logits"])


def test_matrix_rnn_fast_path_equals_the_per_token_definition():
    model = MatrixRNN(5, hidden_size=4, init_range=0.7, seed=6).eval()
    inputs = random_inputs(5, batch=3, steps=6)
    with torch.no_grad():
        hidden = model.trace(inputs)["hidden"]
        for b, seq in enumerate(inputs):
            h = torch.tensor([1.0, 0, 0, 0])
            for t, symbol in enumerate(seq):
                h = model.matrices[symbol] @ h
                assert torch.allclose(hidden[b, t], h, atol=1e-6)


# -- dropout --------------------------------------------------------------------------------------


def test_dropout_draws_three_masks_per_pass_and_reuses_them_at_every_step(monkeypatch):
    model = URN(6, hidden_size=8, k=2, dropout=0.3, seed=7)
    shapes = []
    original = model._dropout_mask

    def recording(*shape):
        shapes.append(shape)
        return original(*shape)

    monkeypatch.setattr(model, "_dropout_mask", recording)
    model(random_inputs(6, batch=4, steps=11))
    # the generator mask (once per pass), the state mask and the readout mask (per sequence)
    assert shapes == [(generator_size(8, 2),), (4, 8), (4, 1, 8)]


def test_dropout_is_random_in_training_and_off_in_eval():
    model = URN(6, hidden_size=8, dropout=0.3, init_range=0.5, seed=8)
    inputs = random_inputs(6, batch=4, steps=5)
    torch.manual_seed(0)
    first, second = model(inputs), model(inputs)
    assert not torch.allclose(first, second)
    model.eval()
    assert torch.equal(model(inputs), model(inputs))


# -- parameter counts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n,vocab,expected",
    [(32, 10, 5290), (16, 10, 1370), (8, 10, 370),  # B&L 2023 Table 1 (cross-serial URNs)
     (32, 12, 6348), (16, 12, 1644), (8, 12, 444)],  # B&L 2023 Table 2 (Dyck URNs)
)
def test_parameter_counts_match_the_papers_tables(n, vocab, expected):
    assert urn_parameter_count(n, None, vocab) == expected
    assert URN(vocab, hidden_size=n).num_parameters() == expected


@FAST
@given(n=st.integers(2, 40), vocab=st.integers(1, 20), data=st.data())
def test_truncated_parameter_count_follows_the_formula(n, vocab, data):
    k = data.draw(st.integers(1, n - 1))
    rows = sum(n - i for i in range(1, k + 1))  # (n−1) + (n−2) + … + (n−k)
    assert generator_size(n, k) == rows
    assert urn_parameter_count(n, k, vocab) == vocab * rows + vocab * (n + 1)
    assert URN(vocab, hidden_size=n, k=k).num_parameters() == urn_parameter_count(n, k, vocab)
    assert generator_size(n, n - 1) == generator_size(n, None) == n * (n - 1) // 2


def test_seeds_code_sizes_and_baseline_count():
    assert generator_size(50, 3) == 49 + 48 + 47  # LM.hs: "(units ~ 50, embSize ~ (49+48+47))"
    assert generator_size(32, 3) == 90  # LM.hs: "(units ~ 32, embSize ~ 90) -- 3 bands"
    assert MatrixRNN(12, hidden_size=50).num_parameters() == 12 * 50 * 50 + 12 * 51


# -- gradients and seeds ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [URN, MatrixRNN])
def test_gradients_reach_the_symbols_that_were_read(cls):
    # dropout off: a mask drawn from the global generator (whatever earlier tests left in it)
    # could cut a path and make the test depend on the tests run before it
    model = cls(6, hidden_size=5, init_range=0.5, dropout=0.0, seed=9)
    inputs = torch.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])
    model(inputs).logsumexp(-1).sum().backward()
    params = model.generators if cls is URN else model.matrices
    grad = params.grad.flatten(1).abs().sum(1)
    assert (grad[:3] > 0).all()  # symbols 0, 1, 2 were read
    assert (grad[3:] == 0).all()  # 3, 4, 5 were not
    assert model.readout.weight.grad.abs().sum() > 0


def test_same_seed_same_model_and_same_dropout():
    a, b = URN(7, hidden_size=9, k=2, seed=11), URN(7, hidden_size=9, k=2, seed=11)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    assert not torch.equal(a.generators, URN(7, hidden_size=9, k=2, seed=12).generators)
    inputs = random_inputs(7, batch=3, steps=4)
    seed_everything(5)
    first = a(inputs)
    seed_everything(5)
    assert torch.equal(first, b(inputs))
    rebuilt = URN(**a.config())
    assert torch.equal(rebuilt.generators, a.generators)
    assert rebuilt.config() == {"vocab_size": 7, "hidden_size": 9, "k": 2, "dropout": 0.05,
                                "init_range": 0.05, "seed": 11}
    assert MatrixRNN(7, 9, seed=11).config()["hidden_size"] == 9
    assert URN.kind == "urn" and MatrixRNN.kind == "matrix_rnn"


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(hidden_size=5, k=5), ValueError, "k=5 is impossible for n=5"),
        (dict(hidden_size=5, k=0), ValueError, "k \\(the truncation\\) must be at least 1"),
        (dict(hidden_size=1), ValueError, "hidden_size \\(the state size n\\) must be at least 2"),
        (dict(hidden_size=4.0), TypeError, "hidden_size \\(the state size n\\) must be an integer"),
        (dict(hidden_size=4, k=2.5), TypeError, "k \\(the truncation\\) must be an integer"),
        (dict(dropout=1.0), ValueError, "dropout must be in \\[0, 1\\)"),
        (dict(init_range=-0.1), ValueError, "init_range must be a finite number ≥ 0"),
        (dict(seed=-1), ValueError, "seed must be at least 0"),
    ],
)
def test_impossible_hyperparameters_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        URN(6, **kwargs)


def test_bad_vocab_and_helper_arguments():
    with pytest.raises(ValueError, match="vocab_size must be at least 1"):
        URN(0)
    with pytest.raises(ValueError, match="hidden_size \\(the state size n\\) must be at least"):
        MatrixRNN(4, hidden_size=1)
    with pytest.raises(ValueError, match="impossible"):
        urn_parameter_count(8, 8, 12)
    with pytest.raises(ValueError, match="vocab_size"):
        urn_parameter_count(8, None, 0)


def test_wrong_inputs_get_clear_errors():
    model = URN(5, hidden_size=4, seed=0)
    with pytest.raises(ValueError, match="shape \\[batch, time\\]"):
        model(torch.zeros(2, 3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="integer indices"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="out of range"):
        model(torch.tensor([[0, 5]]))
    with pytest.raises(ValueError, match="at least one time step"):
        model(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model.embedding(5)
    with pytest.raises(TypeError, match="must be an integer"):
        model.embedding(1.0)
    with pytest.raises(ValueError, match="1-D sequence"):
        model.compose(torch.zeros(2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model.compose([0, -1])
    with pytest.raises(ValueError, match="shapes"):
        compose_matrices([torch.eye(2), torch.eye(3)])
    assert model(torch.tensor([0, 1, 2])).shape == (1, 3, 5)  # one string without a batch axis


# -- it learns ------------------------------------------------------------------------------------


def dyck_strings(count: int, max_pairs: int, seed: int) -> list[str]:
    """Random 2-pair Dyck strings: each step opens (if pairs remain) or closes the innermost."""
    rng = random.Random(seed)
    strings = []
    for _ in range(count):
        pairs, out, stack = rng.randint(1, max_pairs), [], []
        opened = 0
        while opened < pairs or stack:
            if opened < pairs and (not stack or rng.random() < 0.5):
                bracket = rng.choice("([")
                stack.append(")" if bracket == "(" else "]")
                out.append(bracket)
                opened += 1
            else:
                out.append(stack.pop())
        strings.append("".join(out))
    return strings


@pytest.fixture
def one_thread():
    """Tiny matrices: a second thread only adds contention on a shared 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("cls,kwargs", [(URN, dict(k=3)), (MatrixRNN, dict())])
def test_a_small_model_learns_a_two_pair_dyck_language(cls, kwargs, one_thread):
    vocab = Vocab("()[]")
    batch = make_batch(vocab, dyck_strings(128, max_pairs=5, seed=0))
    seed_everything(0)
    model = cls(len(vocab), hidden_size=12, seed=0, **kwargs)
    optimiser = torch.optim.Adam(model.parameters(), lr=0.03)

    def loss() -> torch.Tensor:
        logits = model(batch.inputs)
        return F.cross_entropy(logits[batch.mask], batch.targets[batch.mask])

    model.eval()
    with torch.no_grad():
        before = loss().item()
    model.train()
    for _ in range(40):
        optimiser.zero_grad()
        value = loss()
        value.backward()
        optimiser.step()
    model.eval()
    with torch.no_grad():
        after = loss().item()
    assert after < 0.6 * before, (before, after)  # ≈2.0 → ≈1.0 nats in ≈0.5 s
