"""Sampling from language models (course_rnn.analysis.sampling)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch

from course_rnn.analysis.sampling import (
    finished,
    sample_kneser_ney,
    sample_ngram_mlp,
    sample_sequences,
    sample_texts,
)
from course_rnn.corpus import UNK
from course_rnn.languages import AnBn, Vocab
from course_rnn.metrics import optimal_loss
from course_rnn.models import build_model
from course_rnn.models.bengio import BengioMLP
from course_rnn.models.kneser_ney import KneserNeyLM, ModifiedKneserNeyLM
from course_rnn.training import Optimum, fit

TEXT = [s.split() for s in ["the cat sat", "the dog sat", "a cat ran", "the cat ran away",
                            "a dog sat down", "the dog ran"]]


def test_a_sequence_model_samples_reproducibly_and_never_draws_pad_or_bos():
    vocab = Vocab("ab")
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=4, seed=0)
    first = sample_sequences(model, vocab, 20, seed=3, max_length=12)
    assert first == sample_sequences(model, vocab, 20, seed=3, max_length=12)
    assert first != sample_sequences(model, vocab, 20, seed=4, max_length=12)
    assert all(set(s) <= {"a", "b"} for s in first)  # no <pad>, <s> or </s> in a sample
    assert all(len(s) <= 12 for s in first)
    assert model.training, "sampling leaves the model in the mode it found it in"


def test_a_model_that_learned_anbn_generates_members():
    lang, vocab = AnBn(min_n=1, max_n=4), Vocab("ab")
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=4, seed=0)
    train = [lang.string(n) for n in range(1, 5)] * 5
    history = fit(model, vocab, train, epochs=600, batch_size=None, lr=0.05, seed=0,
                  until=Optimum(optimal_loss(train), tolerance=0.01), progress=False)
    assert history.converged
    samples = sample_sequences(model, vocab, 200, seed=0, max_length=20)
    assert all(finished(samples, 20))
    assert np.mean([lang.is_member("".join(s)) for s in samples]) > 0.9
    # a very low temperature draws the most probable symbol every time: one string, a member
    greedy = set(sample_texts(sample_sequences(model, vocab, 5, seed=1, temperature=0.01)))
    assert len(greedy) == 1 and lang.is_member(greedy.pop().replace(" ", ""))


def test_an_unfinished_sample_is_cut_at_max_length():
    vocab = Vocab("ab")
    model = build_model("srn", vocab_size=len(vocab), hidden_size=3, seed=0)
    with torch.no_grad():  # the readout now always prefers "a": no string ever ends
        model.readout.weight.zero_()
        model.readout.bias.copy_(torch.tensor([0.0, 0.0, -30.0, 30.0, -30.0]))
    samples = sample_sequences(model, vocab, 3, seed=0, max_length=7)
    assert samples == [("a",) * 7] * 3 and finished(samples, 7) == [False] * 3


def test_the_mlp_sampler_reads_a_start_padded_context():
    vocab = Vocab([UNK, "the", "cat", "sat"])
    model = BengioMLP(len(vocab), context=2, embedding_dim=3, hidden_size=4)
    with torch.no_grad():  # P(next) depends only on the last word: the -> cat -> sat -> </s>
        model.C.weight.zero_()
        model.H.weight.zero_()
        model.U.weight.zero_()
        model.b.fill_(-50.0)
        model.b[vocab.index("the")] = 50.0
    assert sample_ngram_mlp(model, vocab, 2, seed=0, max_length=5) == [("the",) * 5] * 2
    samples = sample_ngram_mlp(BengioMLP(len(vocab), context=2, embedding_dim=3, hidden_size=4),
                               vocab, 30, seed=1, max_length=8)
    assert all(set(s) <= set(vocab.alphabet) for s in samples)


# the toy text is too small to estimate modified Kneser–Ney's discounts: give them
SMALL_TEXT_DISCOUNTS = (0.5, 0.9, 1.2)


@pytest.mark.parametrize("make", [
    lambda: KneserNeyLM(order=2),
    lambda: ModifiedKneserNeyLM(order=2, discounts=SMALL_TEXT_DISCOUNTS),
])
def test_kneser_ney_samples_follow_the_models_probabilities(make):
    lm = make().fit(TEXT)
    # many one-word "sentences" of a bigram model: the first word is drawn from P(w | <s>)
    samples = sample_kneser_ney(lm, 20_000, seed=0, max_length=1)
    first = Counter(s[0] if s else "</s>" for s in samples)
    for word in sorted(lm.vocabulary):
        assert abs(first[word] / 20_000 - lm.prob(word, [])) < 0.012, word


def test_kneser_ney_sampling_is_reproducible_and_checks_its_model():
    lm = ModifiedKneserNeyLM(order=3, discounts=SMALL_TEXT_DISCOUNTS).fit(TEXT)
    samples = sample_kneser_ney(lm, 10, seed=5)
    assert samples == sample_kneser_ney(lm, 10, seed=5)
    assert all(set(s) <= lm.vocabulary for s in samples) and all(finished(samples, 50))
    with pytest.raises(ValueError, match="fitted"):
        sample_kneser_ney(KneserNeyLM(order=2), 1)
    with pytest.raises(ValueError, match="max_length"):
        sample_kneser_ney(lm, 1, max_length=0)


def test_bad_requests_are_named():
    vocab = Vocab("ab")
    model = build_model("srn", vocab_size=len(vocab), hidden_size=3, seed=0)
    with pytest.raises(ValueError, match="n must"):
        sample_sequences(model, vocab, 0)
    with pytest.raises(ValueError, match="temperature"):
        sample_sequences(model, vocab, 1, temperature=0)
    with pytest.raises(ValueError, match="vocabulary"):
        sample_sequences(model, Vocab("abc"), 1)
