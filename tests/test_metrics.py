"""Metrics checked against oracles (which know the language) and against broken models."""

import math

import pytest
import torch

from course_rnn.languages import EOS, Vocab
from course_rnn.languages.anbn import AnBn
from course_rnn.languages.cross_serial import CrossSerial
from course_rnn.languages.dyck import Dyck
from course_rnn.metrics import (
    DYCK_BREAKDOWNS,
    anbn_generalisation,
    cross_serial_accuracy,
    dyck_closing_accuracy,
    next_symbol_validity,
    pooled_accuracy,
    validity_scores,
)
from course_rnn.models.base import SequenceModel


class Oracle(SequenceModel):
    """Puts a high logit on every valid next symbol; ``prefer`` breaks ties (for exactness)."""

    kind = "oracle"

    def __init__(self, language, vocab, prefer=None, blind_after=None):
        super().__init__()
        self.language, self.vocab, self.prefer = language, vocab, prefer
        self.vocab_size = len(vocab)
        self.blind_after = blind_after  # beyond this prefix length, always predict EOS

    def forward(self, inputs):
        inputs = self.check_inputs(inputs)
        logits = torch.zeros(*inputs.shape, self.vocab_size)
        for b, row in enumerate(inputs.tolist()):
            words = self.vocab.decode([i for i in row if i > self.vocab.eos_id])
            for t in range(len(words) + 1):
                prefix = words[:t]
                if self.blind_after is not None and t > self.blind_after:
                    logits[b, t, self.vocab.eos_id] = 9.0
                    continue
                for s in self.language.valid_next(prefix):
                    logits[b, t, self.vocab.index(s)] = 5.0
                if self.prefer:
                    choice = self.prefer(prefix)
                    if choice is not None:
                        logits[b, t, self.vocab.index(choice)] += 1.0
        return logits


def test_oracle_is_always_valid_and_a_blind_model_is_not():
    lang = AnBn()
    vocab = Vocab(lang.alphabet)
    strings = lang.sample(20, seed=0)
    assert next_symbol_validity(Oracle(lang, vocab), lang, vocab, strings) == {
        "positions": 1.0, "strings": 1.0}
    blind = next_symbol_validity(Oracle(lang, vocab, blind_after=3), lang, vocab, strings)
    assert 0 < blind["positions"] < 1 and blind["strings"] < 1


def test_validity_scores_count_positions_and_whole_strings():
    """One wrong prediction costs its string entirely but only one position of the pool."""
    assert validity_scores([[True, True, False], [True, True, True]]) == {
        "positions": 5 / 6, "strings": 0.5}
    assert validity_scores([[1, 1], [1]]) == {"positions": 1.0, "strings": 1.0}

def test_anbn_generalisation_finds_the_first_failure():
    lang = AnBn()
    vocab = Vocab(lang.alphabet)
    assert anbn_generalisation(Oracle(lang, vocab), vocab, max_n=12)["max_correct_n"] == 12
    # blind beyond prefix length 9 (always predicts EOS there): a^5 b^5 is still right, because
    # its only position past 9 is the final one, where EOS is correct; a^6 b^6 is not
    result = anbn_generalisation(Oracle(lang, vocab, blind_after=9), vocab, max_n=12)
    assert result["max_correct_n"] == 5
    assert result["right"][6] is False


def test_dyck_accuracy_by_attractors_and_depth():
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    strings = dyck.sample(50, seed=0, length=12)
    perfect = dyck_closing_accuracy(Oracle(dyck, vocab), dyck, vocab, strings)
    assert perfect["accuracy"] == 1.0 and perfect["strings"] == 1.0
    assert set(perfect["by_attractors"].values()) == {1.0}
    n_closers = sum(len(s) // 2 for s in strings)
    assert sum(perfect["count_by_attractors"].values()) == n_closers
    for name in DYCK_BREAKDOWNS:
        assert sum(perfect[f"count_by_{name}"].values()) == n_closers
        assert set(perfect[f"by_{name}"].values()) == {1.0}


def test_dyck_metric_counts_a_wrong_closer():
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)

    class AlwaysParen(SequenceModel):
        kind = "always"
        vocab_size = len(vocab)

        def forward(self, inputs):
            logits = torch.zeros(*inputs.shape, self.vocab_size)
            logits[..., vocab.index(")")] = 1.0
            return logits

    result = dyck_closing_accuracy(AlwaysParen(), dyck, vocab, ["([])", "()", "[[]]"])
    # closers in order: "]" ")" | ")" | "]" "]"  -> right on 2 of 5
    assert result["accuracy"] == pytest.approx(2 / 5)
    assert result["by_attractors"][1] == 1.0  # the ")" of "([])" has one attractor
    assert result["strings"] == pytest.approx(1 / 3)


def test_dyck_breakdowns_name_what_they_count():
    """In "([])" the "]" has 0 attractors, inner nesting 0 and outer depth 2; the ")" has 1
    attractor, inner nesting 1 and outer depth 1. A model that always says "]" is right on the
    inner pair only, so each breakdown files that one success under a different number."""
    dyck = Dyck("() []")
    vocab = Vocab(dyck.alphabet)

    class AlwaysBracket(SequenceModel):
        kind = "always"
        vocab_size = len(vocab)

        def forward(self, inputs):
            logits = torch.zeros(*inputs.shape, self.vocab_size)
            logits[..., vocab.index("]")] = 1.0
            return logits

    result = dyck_closing_accuracy(AlwaysBracket(), dyck, vocab, ["([])"])
    assert result["by_attractors"] == {0: 1.0, 1: 0.0}
    assert result["by_inner_nesting"] == {0: 1.0, 1: 0.0}
    assert result["by_outer_depth"] == {1: 0.0, 2: 1.0}
    assert result["count_by_outer_depth"] == {1: 1, 2: 1}
    assert pooled_accuracy(result, "outer_depth", lambda d: d >= 2) == 1.0
    assert pooled_accuracy(result, "by_inner_nesting", lambda k: True) == 0.5


def test_pooled_accuracy():
    result = {"by_outer_depth": {1: 1.0, 2: 0.5, 5: 0.0},
              "count_by_outer_depth": {1: 1, 2: 2, 5: 7}}
    assert pooled_accuracy(result, "outer_depth", lambda d: d <= 2) == pytest.approx(2 / 3)
    assert pooled_accuracy(result, "by_outer_depth", lambda d: d >= 5) == 0.0
    assert math.isnan(pooled_accuracy(result, "outer_depth", lambda d: d > 10))
    with pytest.raises(ValueError, match="unknown breakdown 'depth'.*inner_nesting"):
        pooled_accuracy(result, "depth", lambda d: True)


def test_cross_serial_oracle_is_perfect_and_blind_is_not():
    lang = CrossSerial()
    vocab = Vocab(lang.alphabet)
    strings = lang.sample(30, seed=1)
    exact = Oracle(lang, vocab)
    assert cross_serial_accuracy(exact, lang, vocab, strings)["accuracy"] == 1.0
    blind = Oracle(lang, vocab, blind_after=4)
    assert cross_serial_accuracy(blind, lang, vocab, strings)["accuracy"] < 1.0
    assert EOS in vocab.output_symbols
