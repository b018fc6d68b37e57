"""SRN, GRU and LSTM: the scratch cells compute what PyTorch computes, the fast models' traces
show what the fast models computed, bad input fails clearly, and an LSTM can learn."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.nn import functional as F

from course_rnn.languages.vocab import Vocab
from course_rnn.models.base import seeded
from course_rnn.models.gru import GRU, GRUCell
from course_rnn.models.lstm import LSTM, LSTMCell
from course_rnn.models.recurrent import InputLayer
from course_rnn.models.srn import SRN, SRNCell

MODELS = [SRN, GRU, LSTM]
GATES = {
    SRN: set(),
    GRU: {"reset_gate", "update_gate", "candidate"},
    LSTM: {"cell", "input_gate", "forget_gate", "cell_candidate", "output_gate"},
}
# (torch cell, scratch cell, torch options)
CELL_PAIRS = [
    (nn.RNNCell, SRNCell, {"nonlinearity": "tanh"}),
    (nn.RNNCell, SRNCell, {"nonlinearity": "relu"}),
    (nn.GRUCell, GRUCell, {}),
    (nn.LSTMCell, LSTMCell, {}),
]


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tiny models run fastest on one thread; on a busy 2-core machine two threads can be 20×
    slower (they wait for each other)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def random_state(cell_class, batch, hidden, generator):
    def draw():
        return torch.randn(batch, hidden, generator=generator, dtype=torch.float64)

    return (draw(), draw()) if cell_class is LSTMCell else draw()


def as_tuple(state):
    return state if isinstance(state, tuple) else (state,)


# -- scratch cells == torch cells ------------------------------------------------------------------


@pytest.mark.parametrize("torch_cell, scratch_cell, options", CELL_PAIRS)
@settings(max_examples=15, deadline=None)
@given(
    input_size=st.integers(1, 6),
    hidden_size=st.integers(1, 6),
    batch=st.integers(1, 4),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_scratch_cell_equals_torch_cell(
    torch_cell, scratch_cell, options, input_size, hidden_size, batch, bias, seed
):
    torch.manual_seed(seed)
    reference = torch_cell(input_size, hidden_size, bias=bias, **options).double()
    with torch.no_grad():  # make torch's biases large enough to matter
        for p in reference.parameters():
            p.normal_()
    cell = scratch_cell.from_torch(reference)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, input_size, generator=g, dtype=torch.float64)
    for state in (None, random_state(scratch_cell, batch, hidden_size, g)):
        expected = as_tuple(reference(x, state))
        got = as_tuple(cell(x, state))
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("torch_cell, scratch_cell, options", CELL_PAIRS)
def test_scratch_cell_follows_torch_over_a_sequence(torch_cell, scratch_cell, options):
    torch.manual_seed(0)
    reference = torch_cell(3, 4, **options).double()
    cell = scratch_cell.from_torch(reference)
    x = torch.randn(10, 2, 3, dtype=torch.float64)
    ours = theirs = None
    for x_t in x:
        ours, theirs = cell(x_t, ours), reference(x_t, theirs)
    for a, b in zip(as_tuple(ours), as_tuple(theirs)):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("torch_cell, scratch_cell, options", CELL_PAIRS)
def test_step_takes_the_state_first_and_calling_the_cell_is_torchs_order(
    torch_cell, scratch_cell, options
):
    cell = scratch_cell.from_torch(torch_cell(3, 4, **options).double())
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, generator=g, dtype=torch.float64)
    state = random_state(scratch_cell, 2, 4, g)
    stepped = cell.step(state, x)
    called = as_tuple(cell(x, state))
    for name, value in zip(cell.state_names, called):
        torch.testing.assert_close(stepped[name], value, rtol=0, atol=0)
    first = cell.step(None, x)  # None: the zero state
    for name, value in zip(cell.state_names, as_tuple(cell(x, cell.initial_state(2)))):
        torch.testing.assert_close(first[name], value, rtol=0, atol=0)


@pytest.mark.parametrize("torch_cell, scratch_cell, options", CELL_PAIRS)
def test_step_in_pytorchs_order_is_refused_by_name(torch_cell, scratch_cell, options):
    cell = scratch_cell.from_torch(torch_cell(3, 4, **options))
    x, state = torch.randn(2, 3), random_state(scratch_cell, 2, 4, torch.Generator())
    state = tuple(s.float() for s in as_tuple(state))
    state = state if len(state) > 1 else state[0]
    with pytest.raises(ValueError, match=r"x_t must be .*input_size=3.*the state first"):
        cell.step(x, state)  # PyTorch's order
    with pytest.raises(ValueError, match=r"x_t must be .*got NoneType.*the state first"):
        cell.step(x, None)
    with pytest.raises(ValueError, match=r"state must be .*\(2, 4\).*got \(2, 3\).*state first"):
        cell.step(x[:, :3].new_zeros(2, 3), x)  # a tensor of the input's shape as the state
    with pytest.raises(ValueError, match=r"x_t must be .*\[batch, input_size=3\], got \(3,\)"):
        cell.step(None, x[0])  # one unbatched vector


def test_from_torch_copies_rather_than_shares():
    reference = nn.LSTMCell(2, 3)
    cell = LSTMCell.from_torch(reference)
    with torch.no_grad():
        reference.weight_ih.zero_()
    assert cell.W_i.abs().sum() > 0


def test_from_torch_rejects_the_wrong_module():
    with pytest.raises(TypeError, match="torch.nn.LSTMCell or torch.nn.LSTM"):
        LSTMCell.from_torch(nn.GRUCell(2, 3))
    with pytest.raises(TypeError, match="RNNCell"):
        SRNCell.from_torch(nn.Linear(2, 3))
    with pytest.raises(ValueError, match="layer must be in 0..1"):
        GRUCell.from_torch(nn.GRU(2, 3, num_layers=2), layer=2)
    with pytest.raises(ValueError, match="bidirectional"):
        SRNCell.from_torch(nn.RNN(2, 3, bidirectional=True))


def test_scratch_cell_checks_its_sizes_and_nonlinearity():
    with pytest.raises(ValueError, match="hidden_size"):
        GRUCell(3, 0)
    with pytest.raises(ValueError, match="nonlinearity 'sigmoid'.*tanh, relu"):
        SRNCell(3, 4, nonlinearity="sigmoid")


# -- fast models: shapes, traces, errors -----------------------------------------------------------


@pytest.mark.parametrize("model_class", MODELS)
@pytest.mark.parametrize("num_layers, embedding_dim", [(1, None), (2, 5)])
def test_trace_shows_what_the_fast_model_computed(model_class, num_layers, embedding_dim):
    model = model_class(7, 6, embedding_dim=embedding_dim, num_layers=num_layers, seed=0).eval()
    inputs = torch.randint(0, 7, (3, 9), generator=torch.Generator().manual_seed(1))
    trace = model.trace(inputs)
    assert {"hidden", "logits"} | GATES[model_class] <= set(trace)
    for name in GATES[model_class] | {"hidden"}:
        assert trace[name].shape == (3, 9, 6), name
    torch.testing.assert_close(trace["hidden"], model.hidden_states(inputs), rtol=0, atol=1e-6)
    torch.testing.assert_close(trace["logits"], model(inputs), rtol=0, atol=1e-5)
    if num_layers > 1:  # every layer's last state equals torch's h_n
        x = model.input_layer(inputs)
        _, final = model.rnn(x, model.initial_state(3))
        h_n = final[0] if model_class is LSTM else final
        assert trace["hidden_layers"].shape == (3, 9, num_layers, 6)
        torch.testing.assert_close(
            trace["hidden_layers"][:, -1].transpose(0, 1), h_n, rtol=0, atol=1e-6
        )
    for name in GATES[model_class] - {"cell", "cell_candidate", "candidate"}:
        assert ((trace[name] > 0) & (trace[name] < 1)).all(), f"{name} is not a sigmoid gate"


def test_lstm_trace_cell_state_equals_torch():
    model = LSTM(5, 4, seed=3)
    inputs = torch.randint(0, 5, (2, 6), generator=torch.Generator().manual_seed(0))
    _, (_, c_n) = model.rnn(model.input_layer(inputs), model.initial_state(2))
    torch.testing.assert_close(model.trace(inputs)["cell"][:, -1], c_n[0], rtol=0, atol=1e-6)


def test_srn_relu_nonlinearity_reaches_the_trace():
    model = SRN(4, 5, nonlinearity="relu", seed=0)
    trace = model.trace(torch.tensor([[1, 3, 2, 0]]))
    assert (trace["hidden"] >= 0).all()
    torch.testing.assert_close(trace["hidden"], model.hidden_states(torch.tensor([[1, 3, 2, 0]])))


@pytest.mark.parametrize("model_class", MODELS)
def test_logits_shape_and_one_dimensional_inputs(model_class):
    model = model_class(5, 3, seed=0)
    assert model(torch.zeros(4, 7, dtype=torch.long)).shape == (4, 7, 5)
    assert model(torch.tensor([1, 3, 4])).shape == (1, 3, 5)
    assert model.kind == model_class.__name__.lower()
    assert model.initial_state(2)[0].shape[-2:] == (2, 3)


@pytest.mark.parametrize("model_class", MODELS)
def test_bad_inputs_raise_clear_errors(model_class):
    model = model_class(5, 3)
    with pytest.raises(ValueError, match=r"shape \[batch, time\]"):
        model(torch.zeros(2, 3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="out of range"):
        model(torch.tensor([[0, 5]]))
    with pytest.raises(ValueError, match="out of range"):
        model.trace(torch.tensor([[-1, 2]]))
    with pytest.raises(ValueError, match="integer indices"):
        model(torch.zeros(2, 3))
    with pytest.raises(TypeError, match="torch.Tensor"):
        model([[1, 2]])
    with pytest.raises(ValueError, match="at least one time step"):
        model(torch.zeros(2, 0, dtype=torch.long))


@pytest.mark.parametrize("model_class", MODELS)
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hidden_size": 0}, "hidden_size"),
        ({"hidden_size": 2.5}, "hidden_size"),
        ({"vocab_size": 0}, "vocab_size"),
        ({"embedding_dim": 0}, "embedding_dim"),
        ({"num_layers": 0}, "num_layers"),
        ({"dropout": 1.0}, "dropout"),
        ({"seed": "seven"}, "seed"),
    ],
)
def test_impossible_parameters_raise(model_class, kwargs, message):
    with pytest.raises(ValueError, match=message):
        model_class(**{"vocab_size": 5, "hidden_size": 3, **kwargs})


def test_srn_rejects_an_unknown_nonlinearity():
    with pytest.raises(ValueError, match="choose one of tanh, relu"):
        SRN(5, 3, nonlinearity="sigmoid")


@pytest.mark.parametrize("model_class", MODELS)
def test_same_seed_same_weights_and_outputs(model_class):
    inputs = torch.tensor([[1, 2, 3, 4, 2]])
    a, b = model_class(6, 4, seed=11), model_class(6, 4, seed=11)
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(p, q), name
    assert torch.equal(a(inputs), b(inputs))
    c = model_class(6, 4, seed=12)
    assert not torch.equal(a(inputs), c(inputs))
    torch.manual_seed(5)  # without seed=, the global seed decides
    d = model_class(6, 4)
    torch.manual_seed(5)
    assert torch.equal(d(inputs), model_class(6, 4)(inputs))


def test_seeded_leaves_the_global_random_state_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    with seeded(123):
        torch.rand(10)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("model_class", MODELS)
def test_config_rebuilds_the_model(model_class):
    model = model_class(6, 4, embedding_dim=3, num_layers=2, dropout=0.1, seed=2)
    twin = model_class(**model.config())
    twin.load_state_dict(model.state_dict())
    inputs = torch.tensor([[1, 5, 2]])
    assert torch.equal(model.eval()(inputs), twin.eval()(inputs))
    assert model.config()["embedding_dim"] == 3


def test_one_hot_input_layer():
    layer = InputLayer(4)
    assert layer.size == 4 and not list(layer.parameters())
    assert torch.equal(
        layer(torch.tensor([[2, 0]])), torch.tensor([[[0.0, 0, 1, 0], [1, 0, 0, 0]]])
    )
    assert layer(torch.tensor([[1]]), dtype=torch.float64).dtype == torch.float64


def test_dropout_is_active_only_in_training():
    model = GRU(5, 16, dropout=0.5, seed=0)
    inputs = torch.tensor([[1, 2, 3, 4]])
    torch.manual_seed(0)
    assert not torch.equal(model.train()(inputs), model(inputs))
    assert torch.equal(model.eval()(inputs), model(inputs))


@pytest.mark.parametrize("model_class", MODELS)
def test_every_parameter_gets_a_gradient(model_class):
    model = model_class(5, 3, embedding_dim=2, num_layers=2, seed=0)
    model(torch.tensor([[1, 3, 4, 2]])).logsumexp(-1).sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


# -- a tiny training sanity check ------------------------------------------------------------------


def test_lstm_learns_a_periodic_language():
    """abab…: every next symbol is determined, so the loss can reach (nearly) zero."""
    vocab = Vocab(["a", "b"])
    stream = torch.tensor([[vocab.bos_id, *vocab.encode("ab" * 8)]])  # <s> a b a b …
    inputs, targets = stream[:, :-1], stream[:, 1:]
    model = LSTM(len(vocab), hidden_size=8, seed=0)
    optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(100):
        optimiser.zero_grad()
        loss = F.cross_entropy(model(inputs).transpose(1, 2), targets)
        loss.backward()
        optimiser.step()
    assert loss.item() < 0.01, f"loss {loss.item():.4f} after training"
    assert torch.equal(model(inputs).argmax(-1), targets)


# -- reading on from a given state (a stream read in pieces) -----------------------------------


@pytest.mark.parametrize("model_class", MODELS)
@pytest.mark.parametrize("num_layers", [1, 2])
def test_run_from_a_carried_state_equals_one_long_run(model_class, num_layers):
    model = model_class(vocab_size=5, hidden_size=4, num_layers=num_layers, seed=0).eval()
    inputs = torch.randint(1, 5, (3, 11), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        whole, end = model.run(inputs)
        assert torch.allclose(whole, model(inputs))  # no state given: the zero state
        first, middle = model.run(inputs[:, :4])
        second, last = model.run(inputs[:, 4:], middle)
    assert torch.allclose(torch.cat([first, second], dim=1), whole, atol=1e-6)
    for a, b in zip(as_tuple(last), as_tuple(end)):
        assert torch.allclose(a, b, atol=1e-6)


@pytest.mark.parametrize("model_class", MODELS)
def test_run_names_a_state_of_the_wrong_shape(model_class):
    model = model_class(vocab_size=5, hidden_size=4, seed=0)
    inputs = torch.ones(2, 3, dtype=torch.long)
    good = model.initial_state(2)
    wrong = torch.zeros(1, 3, 4)  # a batch of 3, not 2
    for bad in [wrong, (wrong, wrong), (good, good, good) if model_class is LSTM else (good, good)]:
        with pytest.raises(ValueError, match=r"state must be .*\[layers, batch, hidden\]"):
            model.run(inputs, bad)
