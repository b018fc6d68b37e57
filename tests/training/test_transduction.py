"""String-to-string training (Delétang et al. 2023) through the one loop: the layout of a batch,
a loss and an accuracy over the output positions and symbols only, fresh strings at one length
per step, fixed sets batched by length, a tiny Stack-RNN that learns to reverse strings with
``fit``, and the length-generalisation scorer."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from course_rnn.languages import make_transduction
from course_rnn.models import build_model
from course_rnn.models.base import SequenceModel
from course_rnn.training import (
    Curriculum,
    Target,
    TransductionTask,
    fit,
    length_generalisation,
)
from course_rnn.training.transduction import length_batches

REVERSE = TransductionTask(make_transduction("reverse_string"))  # <pad> <s> </s> 0 1 _
STACK = TransductionTask(make_transduction("stack_manipulation"))
PARITY = TransductionTask(make_transduction("parity_check"))


class Scores(SequenceModel):
    """A stand-in model whose logits are fixed: ``logits[b, t]`` for every input of
    ``[B, T]``."""

    kind = "scores"

    def __init__(self, logits: torch.Tensor):
        super().__init__()
        self.vocab_size, self.hidden_size = logits.shape[-1], 1
        self.logits = nn.Parameter(logits)

    def forward(self, inputs):
        return self.logits[: inputs.shape[0], : inputs.shape[1]]


# -- the layout of a batch ------------------------------------------------------------------------


def test_the_output_is_read_at_the_blanks_after_the_input():
    batch = REVERSE.encode([(("0", "1", "1"), ("1", "1", "0")), (("1",), ("1",))])
    ids = REVERSE.vocab.stoi
    assert batch.inputs.tolist() == [[1, ids["0"], ids["1"], ids["1"], ids["_"], ids["_"],
                                      ids["_"]], [1, ids["1"], ids["_"], 0, 0, 0, 0]]
    assert batch.mask.tolist() == [[False] * 4 + [True] * 3, [False, False, True] + [False] * 4]
    assert batch.targets[0, 4:].tolist() == [1, 1, 0]  # places in the output alphabet (0, 1)
    assert batch.lengths.tolist() == [7, 3]


def test_only_the_positions_up_to_the_end_marker_are_scored():
    batch = STACK.encode(STACK.transduction.sample(6, 50, seed=0))
    for row in range(50):
        scored = batch.mask[row].nonzero().flatten()
        assert scored.tolist() == list(range(7, 7 + len(scored)))
        assert STACK.transduction.output_alphabet[int(batch.targets[row, scored[-1]])] == "#"


def test_the_loss_is_over_the_output_positions_and_symbols_only():
    batch = REVERSE.encode(REVERSE.transduction.sample(4, 3, seed=1))
    torch.manual_seed(0)
    logits = torch.randn(3, 9, len(REVERSE.vocab))
    loss, count, right = REVERSE.loss(Scores(logits.clone()), batch)
    out = logits[..., REVERSE.output_ids][batch.mask]
    expected = F.cross_entropy(out, batch.targets[batch.mask])
    torch.testing.assert_close(loss, expected)
    assert int(count) == 12 and int(right) == int((out.argmax(-1) == batch.targets[batch.mask])
                                                  .sum())
    changed = logits.clone()
    changed[:, :5] = 100 * torch.randn(3, 5, len(REVERSE.vocab))  # <s> and the input
    changed[..., [0, 1, 2, 5]] = 50.0  # <pad>, <s>, </s> and the blank: not output symbols
    torch.testing.assert_close(REVERSE.loss(Scores(changed), batch)[0], loss)


# -- the data -----------------------------------------------------------------------------------


def test_a_curriculum_draws_fresh_strings_at_one_length_per_batch():
    data = REVERSE.prepare(Curriculum(max_length=5, examples=200))
    assert len(data) == 200
    batches = list(REVERSE.batches(data, 8, shuffle=True, seed=3))
    assert len(batches) == 25
    lengths = set()
    for batch in batches:
        assert len(set(batch.lengths.tolist())) == 1 and not (batch.inputs == 0).any()
        lengths.add((int(batch.lengths[0]) - 1) // 2)  # <s>, n symbols, n blanks
    assert lengths == {1, 2, 3, 4, 5}
    again = list(REVERSE.batches(data, 8, shuffle=True, seed=3))
    assert all(torch.equal(a.inputs, b.inputs) for a, b in zip(batches, again))
    other = list(REVERSE.batches(data, 8, shuffle=True, seed=4))
    assert any(not torch.equal(a.inputs, b.inputs) for a, b in zip(batches, other))


def test_a_fixed_set_is_batched_by_length():
    pairs = REVERSE.transduction.dataset(range(1, 7), 16, seed=0)
    data = REVERSE.prepare(pairs)
    batches = list(REVERSE.batches(data, 8, shuffle=True, seed=1))
    assert len(batches) == math.ceil(len(pairs) / 8)
    assert all(len(set(b.lengths.tolist())) == 1 for b in batches)  # 16 of each: no mixing
    order = length_batches(data.encoded.lengths, 8, True, 1)
    assert sorted(torch.cat(order).tolist()) == list(range(len(pairs)))
    assert [b.tolist() for b in order] != [b.tolist() for b in length_batches(
        data.encoded.lengths, 8, True, 2)]
    odd = REVERSE.prepare(REVERSE.transduction.dataset([2, 5], 3, seed=0))
    assert len(list(REVERSE.batches(odd, 4, shuffle=False, seed=0))) == 2  # one batch mixes


# -- training --------------------------------------------------------------------------------------


def test_a_tiny_stack_rnn_learns_to_reverse_strings_through_fit():
    """16 units, a stack of 2-wide cells, lengths 1–8 drawn fresh at every step: it fits the
    training lengths within a few hundred steps (≤ 300 under every seed offset tried; chance is
    0.5), and the scorer reports every test length."""
    model = build_model("stack_rnn", vocab_size=len(REVERSE.vocab), hidden_size=16,
                        stack_width=2, stack_depth=16, seed=0)
    valid = REVERSE.transduction.dataset(range(1, 9), 16, seed=5)
    history = fit(model, REVERSE, Curriculum(max_length=8, examples=32 * 50), valid=valid,
                  batch_size=32, epochs=20, lr=1e-2, until=Target("valid_accuracy", 0.95),
                  progress=False)
    assert history.converged and history.settings["task"] == "transduction: reverse_string"
    assert history.last["train_accuracy"] > 0.5 and history.settings["train_items"] == 1600
    scores = length_generalisation(model, REVERSE, range(1, 17), max_train_length=8, samples=64)
    assert scores.lengths == tuple(range(1, 17)) and len(scores.accuracy) == 16
    assert min(scores.accuracy[:4]) >= 0.95 and sum(scores.accuracy[:8]) / 8 >= 0.9
    assert scores.score == pytest.approx(sum(scores.accuracy[8:]) / 8)
    assert all(s <= a for s, a in zip(scores.sequence_accuracy, scores.accuracy))


def test_fit_takes_a_fixed_training_set_and_a_fresh_validation_set():
    model = build_model("lstm", vocab_size=len(PARITY.vocab), hidden_size=8, seed=0)
    train = PARITY.transduction.dataset(range(1, 7), 20, seed=0)
    history = fit(model, PARITY, train, valid=Curriculum(6, examples=64), batch_size=20,
                  epochs=3, lr=1e-2, progress=False)
    assert len(history) == 3 and {"valid_accuracy", "train_accuracy"} <= set(history.last)
    assert history.settings["train_items"] == 120


# -- the scorer ---------------------------------------------------------------------------------


def test_the_scorer_counts_tokens_and_strings_and_averages_beyond_training():
    """A model that always answers "0" on parity is right on the even strings only."""
    logits = torch.zeros(1, 40, len(PARITY.vocab))
    logits[..., PARITY.vocab.index("0")] = 1.0
    always_even = Scores(logits.expand(600, 40, -1).clone())
    scores = length_generalisation(always_even, PARITY.transduction, range(1, 11), 4,
                                   samples=600, batch_size=200, seed=0)
    assert scores.accuracy == scores.sequence_accuracy  # one output symbol per string
    assert all(abs(a - 0.5) < 0.1 for a in scores.accuracy)
    assert scores.score == pytest.approx(sum(scores.accuracy[4:]) / 6)
    assert scores.at(3) == scores.accuracy[2] and scores.to_json()["score"] == scores.score
    with pytest.raises(ValueError, match="length 11 was not tested"):
        scores.at(11)


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("call, error, named", [
    (lambda: TransductionTask("reverse_string"), TypeError, "make_transduction"),
    (lambda: REVERSE.prepare([("012", "210")]), ValueError, "'2' at position 2"),
    (lambda: REVERSE.prepare([("01", "1")]), ValueError, "item 0 has 1 output symbols"),
    (lambda: REVERSE.prepare([("01",)]), TypeError, "item 0 must be an"),
    (lambda: REVERSE.prepare("0110"), TypeError, "train set"),
    (lambda: REVERSE.prepare([]), ValueError, "train set"),
    (lambda: Curriculum(0, examples=10), ValueError, "max_length"),
    (lambda: Curriculum(3, examples=0), ValueError, "examples"),
    (lambda: Curriculum(3, examples=10, min_length=5), ValueError, "min_length"),
    (lambda: REVERSE.check_model(build_model("srn", vocab_size=4)), ValueError, "vocab_size"),
    (lambda: length_generalisation(build_model("srn", vocab_size=6), REVERSE, [1, 2], 4),
     ValueError, "beyond max_train_length=4"),
    (lambda: length_generalisation(build_model("srn", vocab_size=6), REVERSE, [0, 5], 4),
     ValueError, "length"),
    (lambda: length_generalisation(build_model("srn", vocab_size=6), REVERSE, [5], 4, samples=0),
     ValueError, "samples"),
    (lambda: REVERSE.predict(build_model("srn", vocab_size=6), "0110"), TypeError, "strings"),
])
def test_bad_arguments_are_named(call, error, named):
    with pytest.raises(error, match=named):
        call()
