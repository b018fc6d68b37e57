"""The Stack-RNNs (Delétang et al. 2023; Joulin & Mikolov 2015): an exact stack when the actions
are one-hot, the papers' equations written out, gradients against finite differences, batches,
a hand-set network that reverses strings, and clear errors."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch
from torch.func import functional_call

from course_rnn.languages import Dyck, Vocab, make_batch, make_transduction
from course_rnn.models import build_model, stack_rnn
from course_rnn.models.stack_rnn import (
    JoulinMikolovStackRNN,
    StackRNN,
    soft_stack_update,
)
from course_rnn.training import TransductionTask, length_generalisation
from course_rnn.widgets import export_model, import_model, run_steps

DYCK = Dyck("() []")
VOCAB = Vocab(DYCK.alphabet)
INPUTS = make_batch(VOCAB, ["([])()", "[[[]]]", "()()()"]).inputs  # [3, 7]
ONE_HOT = torch.eye(3, dtype=torch.float64)  # push, pop, no-op


def moved(model, seed: int = 0):
    """``model`` in double precision, its weights moved away from their initial values."""
    generator = torch.Generator().manual_seed(seed)
    model = model.double()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.5 * torch.randn(p.shape, generator=generator, dtype=p.dtype))
    return model.eval()


# -- the stack ----------------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [0.0, -1.0])
def test_one_hot_actions_make_an_exact_stack(empty):
    """Random push / pop / no-op sequences on two stacks of 3-wide cells, 4 deep: the soft update
    with one-hot actions gives exactly what a list does (a push onto a full stack loses the
    bottom cell, a pop of an empty stack leaves it empty)."""
    rng = random.Random(0)
    depth, stacks, width, batch = 4, 2, 3, 5
    state = torch.full((batch, depth, stacks, width), empty, dtype=torch.float64)
    lists = [[[] for _ in range(stacks)] for _ in range(batch)]  # top last
    for _ in range(60):
        choice = [[rng.randrange(3) for _ in range(stacks)] for _ in range(batch)]
        pushed = torch.randn(batch, stacks, width, dtype=torch.float64)
        state = soft_stack_update(state, ONE_HOT[torch.tensor(choice)], pushed, empty)
        for b in range(batch):
            for s in range(stacks):
                if choice[b][s] == 0:
                    lists[b][s] = (lists[b][s] + [pushed[b, s].tolist()])[-depth:]
                elif choice[b][s] == 1 and lists[b][s]:
                    lists[b][s].pop()
        expected = torch.full_like(state, empty)
        for b in range(batch):
            for s in range(stacks):
                for cell, value in enumerate(reversed(lists[b][s])):
                    expected[b, cell, s] = torch.tensor(value, dtype=torch.float64)
        assert torch.equal(state, expected)


def test_storing_only_the_top_cells_is_the_same_stack():
    """A stack that stores only the cells pushes can have reached (one more per step, up to its
    depth) is, cell for cell, the whole stack with empty cells below."""
    torch.manual_seed(1)
    depth, empty = 6, -1.0
    whole = torch.full((3, depth, 2, 2), empty, dtype=torch.float64)
    top = whole[:, :1].clone()
    for step in range(10):
        actions = torch.softmax(3 * torch.randn(3, 2, 3, dtype=torch.float64), -1)
        pushed = torch.randn(3, 2, 2, dtype=torch.float64)
        whole = soft_stack_update(whole, actions, pushed, empty)
        top = soft_stack_update(top, actions, pushed, empty, depth)
        assert top.shape[1] == min(step + 2, depth)
        torch.testing.assert_close(top, whole[:, : top.shape[1]], rtol=0, atol=1e-15)
        below = whole[:, top.shape[1]:]  # (a_push + a_pop + a_no-op) · empty, to rounding
        torch.testing.assert_close(below, torch.full_like(below, empty), rtol=0, atol=1e-15)


def test_the_soft_update_is_the_mixture_of_the_three_stacks():
    stack = torch.randn(2, 5, 1, 3, dtype=torch.float64)
    pushed = torch.randn(2, 1, 3, dtype=torch.float64)
    actions = torch.softmax(torch.randn(2, 1, 3, dtype=torch.float64), -1)
    results = [soft_stack_update(stack, ONE_HOT[k].expand(2, 1, 3), pushed, -1.0) for k in range(3)]
    mixture = sum(actions[:, None, :, k, None] * results[k] for k in range(3))
    torch.testing.assert_close(soft_stack_update(stack, actions, pushed, -1.0), mixture)


def test_the_soft_update_s_gradient_matches_finite_differences():
    torch.manual_seed(0)
    stack = torch.randn(2, 4, 2, 3, dtype=torch.float64, requires_grad=True)
    actions = torch.softmax(torch.randn(2, 2, 3, dtype=torch.float64), -1).requires_grad_()
    pushed = torch.randn(2, 2, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s, a, v: soft_stack_update(s, a, v, -1.0),
                                    (stack, actions, pushed))


# -- the papers' equations ------------------------------------------------------------------------


def paper_steps(model, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
    """The module docstring's equations written out cell by cell, independently of the model's
    code: h_t = f(W x_t + U h_{t−1} + P s_{t−1}[0:k] + b), a_t = softmax(A h_t + a),
    v_t = g(D h_t + d), then every cell of every stack by the push / pop / no-op rule."""
    f = torch.tanh if model.controller == "tanh" else torch.sigmoid
    g = (lambda z: z) if model.push_squash == "none" else torch.sigmoid
    W, b = model.input_to_hidden.weight.detach(), model.input_to_hidden.bias.detach()
    P, A, a = model.stack_to_hidden.weight.detach(), model.actions.weight.detach(), \
        model.actions.bias.detach()
    D, d = model.push_value.weight.detach(), model.push_value.bias.detach()
    S, depth, w, k = model.n_stacks, model.stack_depth, model.stack_width, model.read_depth
    x = torch.nn.functional.one_hot(inputs, model.vocab_size).double()
    h = torch.zeros(inputs.shape[0], model.hidden_size, dtype=torch.float64)
    cells = [[[torch.full((inputs.shape[0],), model.empty, dtype=torch.float64)
               for _ in range(w)] for _ in range(S)] for _ in range(depth)]  # [cell][stack][j]
    hidden, stacks, pops = [], [], []
    for t in range(inputs.shape[1]):
        read = torch.stack([cells[i][s][j] for i in range(k) for s in range(S)
                            for j in range(w)], dim=1)
        pre = x[:, t] @ W.T + b + read @ P.T
        if model.hidden_to_hidden is not None:
            pre = pre + h @ model.hidden_to_hidden.weight.detach().T
        h = f(pre)
        scores = (h @ A.T + a).reshape(-1, S, model.n_actions)
        probs = torch.softmax(scores, -1)
        v = g(h @ D.T + d).reshape(-1, S, w)
        new = [[[None] * w for _ in range(S)] for _ in range(depth)]
        for s in range(S):
            push, pop = probs[:, s, 0], probs[:, s, 1]
            no_op = probs[:, s, 2] if model.n_actions == 3 else 0.0
            for i in range(depth):
                for j in range(w):
                    above = v[:, s, j] if i == 0 else cells[i - 1][s][j]
                    below = cells[i + 1][s][j] if i + 1 < depth else model.empty
                    new[i][s][j] = push * above + pop * below + no_op * cells[i][s][j]
        cells = new
        hidden.append(h)
        pops.append(probs[..., 1])
        stacks.append(torch.stack([cells[i][s][j] for i in range(depth) for s in range(S)
                                   for j in range(w)], dim=1))
    return {"hidden": torch.stack(hidden, 1), "pop": torch.stack(pops, 1),
            "stack": torch.stack(stacks, 1)}


@pytest.mark.parametrize("kind, options", [
    ("stack_rnn", dict(stack_width=3, stack_depth=5, n_stacks=2)),
    ("jm_stack_rnn", dict(n_stacks=3, stack_depth=5, read_depth=2)),
    ("jm_stack_rnn", dict(n_stacks=2, stack_depth=4, read_depth=3, no_op=True, recurrent=True)),
])
def test_the_step_computes_the_papers_equations(kind, options):
    model = moved(build_model(kind, vocab_size=len(VOCAB), hidden_size=4, seed=1, **options))
    trace, expected = model.trace(INPUTS), paper_steps(model, INPUTS)
    for name, values in expected.items():
        torch.testing.assert_close(trace[name], values, rtol=0, atol=1e-12, msg=name)
    torch.testing.assert_close(model(INPUTS), trace["logits"], rtol=0, atol=1e-12)


def test_the_two_papers_choices():
    deletang = StackRNN(vocab_size=5, seed=0)
    assert (deletang.controller, deletang.push_squash, deletang.empty) == ("tanh", "none", 0.0)
    assert (deletang.stack_width, deletang.read_depth, deletang.no_op) == (8, 1, True)
    jm = JoulinMikolovStackRNN(vocab_size=5, seed=0)
    assert (jm.hidden_size, jm.n_stacks, jm.read_depth, jm.stack_width) == (40, 10, 2, 1)
    assert jm.hidden_to_hidden is None and not jm.no_op  # their experiments: -mod 1, no NO-OP
    trace = jm.trace(torch.tensor([[1, 3, 4, 3]]))
    assert torch.all(trace["no_op"] == 0) and torch.all(trace["push"] + trace["pop"] > 1 - 1e-6)
    assert torch.all(trace["stack"] > -1 - 1e-6) and torch.all(trace["stack"] < 1)  # v ∈ (0, 1)
    assert torch.all(jm.recurrence().initial_state(1)[1] == -1)  # empty cells hold −1
    assert JoulinMikolovStackRNN(5, no_op=True, recurrent=True).hidden_to_hidden is not None


# -- gradients and batches ------------------------------------------------------------------------


@pytest.mark.parametrize("kind, options", [
    ("stack_rnn", dict(stack_width=2, stack_depth=4)),
    ("jm_stack_rnn", dict(n_stacks=2, stack_depth=4, no_op=True, recurrent=True)),
])
def test_the_gradient_matches_finite_differences(kind, options):
    """∂L/∂θ of the whole model (every weight at once) against central differences, float64."""
    model = moved(build_model(kind, vocab_size=len(VOCAB), hidden_size=3, seed=2, **options))
    batch = make_batch(VOCAB, ["([)", "[]("])
    names = [name for name, _ in model.named_parameters()]

    def loss(*weights):
        logits = functional_call(model, dict(zip(names, weights)), (batch.inputs,))
        return torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch.targets)

    weights = tuple(p.detach().clone().requires_grad_() for p in model.parameters())
    assert torch.autograd.gradcheck(loss, weights)


@pytest.mark.parametrize("kind", ["stack_rnn", "jm_stack_rnn"])
def test_a_batch_is_every_string_on_its_own(kind):
    model = moved(build_model(kind, vocab_size=len(VOCAB), hidden_size=5, seed=3,
                              stack_depth=6))
    together = model.trace(INPUTS)
    for row in range(INPUTS.shape[0]):
        alone = model.trace(INPUTS[row: row + 1])
        for name, values in alone.items():
            torch.testing.assert_close(together[name][row: row + 1], values, rtol=0, atol=1e-12)


# -- a stack that reverses strings, set by hand ---------------------------------------------------

REVERSE = make_transduction("reverse_string")
TASK = TransductionTask(REVERSE)  # vocabulary <pad> <s> </s> 0 1 _


def hand_set_reverser(stack_depth: int) -> StackRNN:
    """The library's hand-set reverser of binary strings, on the task's vocabulary."""
    return stack_rnn.hand_set_reverser(TASK.vocab, ("0", "1"), "_", stack_depth=stack_depth)


def test_a_hand_set_stack_rnn_reverses_strings_with_an_exact_stack():
    model = hand_set_reverser(stack_depth=12)
    string = "0110100"
    steps = run_steps(model, TASK.vocab, string + "_" * len(string))
    n = len(string)
    stack = steps.states["stack"].reshape(2 * n + 1, 12, 2)  # after each step: cells × width
    on_stack = stack[n]  # after the last input symbol: the string, last symbol on top
    expected = np.zeros((12, 2))
    for cell, symbol in enumerate(reversed(string)):
        expected[cell, int(symbol)] = 1.0
    np.testing.assert_allclose(on_stack, expected, atol=1e-3)
    np.testing.assert_allclose(stack[-1], 0.0, atol=1e-3)  # every symbol popped
    np.testing.assert_allclose(steps.states["push"][1: n + 1], 1.0, atol=1e-6)
    np.testing.assert_allclose(steps.states["pop"][n + 1:], 1.0, atol=1e-6)
    assert TASK.predict(model, [string, "1", "0001"]) == [tuple(string[::-1]), ("1",),
                                                          tuple("1000")]


def test_the_scorer_sees_the_hand_set_stack_overflow():
    """Exact up to the stack's depth; beyond it the bottom symbols are lost, and so are some of
    the last outputs."""
    scores = length_generalisation(hand_set_reverser(stack_depth=6), REVERSE, range(1, 11), 3,
                                   samples=64)
    assert scores.lengths == tuple(range(1, 11))
    assert all(scores.at(n) == 1.0 for n in range(1, 7))
    assert all(scores.sequence_accuracy[n - 1] < 1.0 for n in range(8, 11))
    assert scores.score == pytest.approx(np.mean(scores.accuracy[3:]))


# -- the web stepper: every option of the cell ----------------------------------------------------

@pytest.mark.parametrize("kind, options", [
    ("stack_rnn", dict(n_stacks=2, stack_width=3, stack_depth=5)),
    ("jm_stack_rnn", dict(n_stacks=3, stack_depth=4, read_depth=3, no_op=True, recurrent=True)),
])
def test_the_javascript_stepper_runs_every_option(kind, options, js_stepper):
    model = moved(build_model(kind, vocab_size=len(VOCAB), hidden_size=4, seed=5, **options))
    model = model.float()
    spec = json.loads(json.dumps(export_model(model, VOCAB, DYCK)))
    js = js_stepper(spec, "([])[(]")
    steps = run_steps(model, VOCAB, "([])[(]")
    for name, values in steps.states.items():
        np.testing.assert_allclose([s["states"][name] for s in js], values, atol=2e-5,
                                   err_msg=name)
    np.testing.assert_allclose([s["probs"] for s in js], steps.probs, atol=2e-5)
    rebuilt, _ = import_model(spec)
    assert type(rebuilt) is type(model) and rebuilt.stack_depth == options["stack_depth"]
    np.testing.assert_allclose(run_steps(rebuilt, VOCAB, "([])[(]").states["stack"],
                               steps.states["stack"], atol=1e-5)


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, options, named", [
    ("stack_rnn", dict(hidden_size=0), "hidden_size"),
    ("stack_rnn", dict(stack_width=0), "stack_width"),
    ("stack_rnn", dict(stack_depth=2.5), "stack_depth"),
    ("stack_rnn", dict(n_stacks=-1), "n_stacks"),
    ("stack_rnn", dict(vocab_size=True), "vocab_size"),
    ("stack_rnn", dict(embedding_dim=0), "embedding_dim"),
    ("jm_stack_rnn", dict(read_depth=0), "read_depth"),
    ("jm_stack_rnn", dict(read_depth=5, stack_depth=4), "read_depth"),
    ("jm_stack_rnn", dict(no_op="yes"), "no_op"),
    ("jm_stack_rnn", dict(recurrent=1), "recurrent"),
])
def test_bad_arguments_are_named(kind, options, named):
    with pytest.raises(ValueError, match=named):
        build_model(kind, **{"vocab_size": 5, **options})


# -- the library's hand-set reverser: any alphabet, far beyond any training length -------------


def test_the_hand_set_reverser_reverses_a_three_symbol_alphabet_at_length_300():
    task = TransductionTask(make_transduction("reverse_string"))
    vocab = Vocab(["a", "b", "c", "_"])
    model = stack_rnn.hand_set_reverser(vocab, "a b c".split(), "_", stack_depth=300)
    assert model.hidden_size == 6 and model.stack_width == 3
    rng = random.Random(3)
    string = [rng.choice("abc") for _ in range(300)]
    steps = model.trace(torch.tensor([[vocab.index(s) for s in ["<s>", *string, *"_" * 300]]]))
    logits = model.readout(steps["hidden"])[0, 301:, [vocab.index(s) for s in "abc"]]
    assert ["abc"[i] for i in logits.argmax(-1)] == string[::-1]
    assert steps["push"][0, 1:301].min() > 1 - 1e-6 and steps["pop"][0, 301:].min() > 1 - 1e-6
    reverser = stack_rnn.hand_set_reverser(task.vocab, stack_depth=500)
    assert length_generalisation(reverser, task, [500], 40, samples=4).at(500) == 1.0


def test_the_reverser_without_actions_is_undecided_until_its_actions_are_set():
    task = TransductionTask(make_transduction("reverse_string"))
    model = stack_rnn.hand_set_reverser(task.vocab, stack_depth=20, actions=False)
    assert not model.actions.weight.any() and not model.actions.bias.any()
    stack_rnn.set_reverser_actions(model)
    assert task.predict(model, ["0011010"]) == [tuple("0101100")]


def test_the_hand_set_reverser_names_what_is_wrong():
    vocab = Vocab(["0", "1", "_"])
    with pytest.raises(ValueError, match="'2' is not in the vocabulary"):
        stack_rnn.hand_set_reverser(vocab, ["0", "2"])
    with pytest.raises(ValueError, match="distinct"):
        stack_rnn.hand_set_reverser(vocab, ["0", "_"])
    with pytest.raises(TypeError, match="list of symbols"):
        stack_rnn.hand_set_reverser(vocab, "01")
    with pytest.raises(TypeError, match="set_reverser_actions needs"):
        stack_rnn.set_reverser_actions(StackRNN(6, hidden_size=5, stack_width=2))
