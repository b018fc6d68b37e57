"""Hidden-state analysis (course_rnn.analysis.hidden) on data where the answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from course_rnn.analysis.hidden import (
    ExactScorer,
    WordStates,
    adjusted_rand,
    average_by_word,
    best_clade,
    clades,
    cluster_agreement,
    cluster_tree,
    cut_tree,
    distance_correlation,
    exact_cross_entropy,
    exact_next_vectors,
    jaccard,
    mean_states,
    pca,
    purity,
    support,
    token_states,
    top_split,
)
from course_rnn.languages import ElmanTemplates, Vocab, make_batch
from course_rnn.languages.base import as_symbols
from course_rnn.models import build_model

ELMAN = ElmanTemplates()
VOCAB = Vocab.for_language(ELMAN)


def two_groups():
    """Six points: a, b, c near the origin, x, y, z far away."""
    labels = ["a", "b", "c", "x", "y", "z"]
    points = np.array([[0, 0], [0.1, 0], [0, 0.2], [10, 10], [10.2, 10], [10, 10.1]], float)
    return labels, points


# -- states --------------------------------------------------------------------------------------
def test_token_states_are_the_fast_models_states_after_each_word():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=5, seed=0)
    strings = [("man", "eat", "cookie"), ("cat", "sleep")]
    words, states = token_states(model, VOCAB, strings)
    assert words == ["man", "eat", "cookie", "cat", "sleep"]
    assert states.shape == (5, 5) and states.dtype == np.float64
    fast = model.hidden_states(make_batch(VOCAB, strings).inputs).detach().numpy()
    np.testing.assert_allclose(states[:3], fast[0, 1:4], atol=1e-5)
    np.testing.assert_allclose(states[3:], fast[1, 1:3], atol=1e-5)


def test_token_states_checks_its_key_and_input():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=3, seed=0)
    with pytest.raises(KeyError, match="cell"):
        token_states(model, VOCAB, [("man", "sleep")], key="cell")
    with pytest.raises(ValueError):
        token_states(model, VOCAB, [])


def test_mean_states_average_every_occurrence():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=4, seed=1)
    strings = [("man", "sleep"), ("woman", "sleep"), ("man", "think")]
    ws = mean_states(model, VOCAB, strings)
    assert set(ws.words) == {"man", "woman", "sleep", "think"}
    assert list(ws.words) == [w for w in VOCAB.alphabet if w in ws.words]  # vocabulary order
    words, states = token_states(model, VOCAB, strings)
    sleeps = [i for i, w in enumerate(words) if w == "sleep"]
    np.testing.assert_allclose(ws.mean_of("sleep"), states[sleeps].mean(axis=0))
    assert dict(zip(ws.words, ws.counts))["sleep"] == 2


def test_average_by_word_order_and_missing_words():
    ws = average_by_word(["a", "b", "a"], np.array([[1.0], [5.0], [3.0]]), words=["b", "a"])
    assert ws.words == ("b", "a") and len(ws) == 2
    np.testing.assert_allclose(ws.means, [[5.0], [2.0]])
    np.testing.assert_array_equal(ws.counts, [1, 2])
    with pytest.raises(ValueError, match="never occur"):
        average_by_word(["a"], np.zeros((1, 2)), words=["a", "q"])
    with pytest.raises(ValueError, match="tokens"):
        average_by_word(["a", "b"], np.zeros((1, 2)))


def test_pca_finds_the_line_the_points_lie_on():
    rng = np.random.default_rng(0)
    t = rng.normal(size=50)
    direction = np.array([3.0, -4.0, 0.0]) / 5
    x = t[:, None] * direction + 7.0
    proj, comps, ratio = pca(x, n_components=2)
    assert proj.shape == (50, 2) and comps.shape == (2, 3)
    assert ratio[0] == pytest.approx(1.0) and ratio[1] == pytest.approx(0.0, abs=1e-12)
    assert abs(abs(comps[0] @ direction) - 1) < 1e-9
    assert comps[0][np.abs(comps[0]).argmax()] > 0  # the sign convention
    np.testing.assert_allclose(np.abs(proj[:, 0]), np.abs(t - t.mean()), atol=1e-9)
    with pytest.raises(ValueError):
        pca(x, n_components=4)
    with pytest.raises(ValueError):
        pca(np.zeros(3))


# -- the tree -------------------------------------------------------------------------------------
def test_tree_reads_as_word_sets():
    labels, points = two_groups()
    tree = cluster_tree(points)
    first, second = top_split(tree, labels)
    assert {first, second} == {frozenset("abc"), frozenset("xyz")}
    found = clades(tree, labels)
    assert found[0] == frozenset(labels) and len(found) == len(labels) - 1
    assert frozenset("abc") in found and frozenset("xyz") in found
    clade, score = best_clade(tree, labels, ["a", "b", "c"])
    assert clade == frozenset("abc") and score == 1.0
    clade, score = best_clade(tree, labels, ["a", "b", "c", "x"])
    assert score == pytest.approx(jaccard("abcx", clade)) and score < 1.0
    with pytest.raises(ValueError, match="unknown"):
        best_clade(tree, labels, ["q"])
    with pytest.raises(ValueError):
        clades(tree, labels[:-1])


def test_cluster_tree_accepts_word_states_and_methods():
    labels, points = two_groups()
    ws = WordStates(tuple(labels), points, np.ones(6, int))
    for method in ("average", "complete", "ward", "single"):
        split = top_split(cluster_tree(ws, method=method), labels)
        assert set(split) == {frozenset("abc"), frozenset("xyz")}
    with pytest.raises(ValueError):
        cluster_tree(np.zeros((1, 2)))


def test_cut_purity_and_agreement():
    labels, points = two_groups()
    tree = cluster_tree(points)
    cut = cut_tree(tree, labels, 2)
    assert len(set(cut.values())) == 2 and cut["a"] == cut["b"] == cut["c"] != cut["x"]
    classes = {w: ("near" if w in "abc" else "far") for w in labels}
    assert purity(cut, classes) == 1.0
    assert purity({w: 1 for w in labels}, classes) == 0.5
    result = cluster_agreement(tree, labels, classes)
    assert result["k"] == 2 and result["purity"] == 1.0 and result["ari"] == pytest.approx(1.0)
    assert cluster_agreement(tree, labels, classes.get)["ari"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        cut_tree(tree, labels, 0)


def test_adjusted_rand_known_values():
    assert adjusted_rand([0, 0, 1, 1], ["p", "p", "q", "q"]) == pytest.approx(1.0)
    assert adjusted_rand([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(-0.5)
    # the textbook example (Hubert & Arabie's formula, as in scikit-learn's documentation)
    assert adjusted_rand([0, 0, 1, 2], [0, 0, 1, 1]) == pytest.approx(0.5714285714285715)
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 3, 3000), rng.integers(0, 3, 3000)
    assert abs(adjusted_rand(a, b)) < 0.01
    with pytest.raises(ValueError):
        adjusted_rand([0], [0, 1])


def test_distance_correlation():
    labels, points = two_groups()
    assert distance_correlation(points, 3 * points + 1) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    assert distance_correlation(points, np.c_[points, rng.normal(size=6) * 1e-3]) > 0.95
    with pytest.raises(ValueError):
        distance_correlation(points, points[:3])


# -- predictions against the exact distribution ---------------------------------------------------
def test_support_lists_every_elman_sentence_once():
    sentences = support(ELMAN)
    assert len(sentences) == len(set(sentences))
    assert all(ELMAN.is_member(s) for s in sentences)
    assert math.isclose(sum(ELMAN.probability(s) for s in sentences), 1.0)
    assert set(ELMAN.sample(500, seed=0)) <= set(sentences)
    with pytest.raises(ValueError, match="too large"):
        support(ELMAN, limit=10)


class ExactModel(nn.Module):
    """A stand-in language model that outputs the exact log-probabilities of Elman's grammar."""

    vocab_size = len(VOCAB)

    def __init__(self):
        super().__init__()
        self.dummy = nn.Parameter(torch.zeros(1))

    @property
    def device(self):
        return self.dummy.device

    def forward(self, inputs):
        out = torch.full((*inputs.shape, len(VOCAB)), -1e4)
        for b, row in enumerate(inputs.tolist()):
            words = [VOCAB.itos[i] for i in row[1:] if i > 2]
            for t in range(len(words) + 1):
                for symbol, p in ELMAN.next_distribution(words[:t]).items():
                    out[b, t, VOCAB.index(symbol)] = math.log(p)
        return out


def test_exact_cross_entropy_of_the_exact_model_is_the_entropy():
    result = exact_cross_entropy(ExactModel(), VOCAB, ELMAN)
    assert result["kl"] == pytest.approx(0.0, abs=1e-6)
    assert result["cross_entropy"] == pytest.approx(result["entropy"], abs=1e-6)
    assert result["mass"] == pytest.approx(1.0) and result["strings"] == len(support(ELMAN))
    # by hand: the first word is uniform over the subjects the 16 templates allow ...
    first = ELMAN.next_distribution(())
    assert 1.0 < -sum(p * math.log(p) for p in first.values()) < math.log(len(VOCAB))


def test_exact_cross_entropy_of_an_untrained_model_is_worse():
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=4, seed=0)
    strings = [("man", "sleep"), ("cat", "eat", "bread")]
    result = exact_cross_entropy(model, VOCAB, ELMAN, strings=strings)
    assert result["kl"] > 0.5 and result["strings"] == 2
    assert result["cross_entropy"] == pytest.approx(result["entropy"] + result["kl"])


def test_exact_scorer_is_set_up_once_and_scores_any_model():
    scorer = ExactScorer(ELMAN, VOCAB)
    assert scorer(ExactModel())["kl"] == pytest.approx(0.0, abs=1e-6)
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=4, seed=0).train()
    first = scorer(model)
    assert first == exact_cross_entropy(model, VOCAB, ELMAN)  # one computation, two doors
    assert model.training, "the scorer leaves the model in the mode it found it in"
    with torch.no_grad():
        model.readout.bias += 1.0  # a softmax does not see a shift of every logit …
        same = scorer(model)
        model.readout.bias[VOCAB.eos_id] += 2.0  # … but does see one symbol favoured
        other = scorer(model)
    assert same["cross_entropy"] == pytest.approx(first["cross_entropy"], rel=1e-6)
    assert other["cross_entropy"] != pytest.approx(first["cross_entropy"])
    assert scorer.entropy == pytest.approx(first["entropy"]) and first["mass"] == pytest.approx(1)
    with pytest.raises(ValueError, match="no strings"):
        ExactScorer(ELMAN, VOCAB, strings=[])


def test_exact_next_vectors_are_distributions():
    strings = [("man", "eat", "cookie"), ("rock", "move")]
    words, vectors = exact_next_vectors(ELMAN, VOCAB, strings)
    assert words == [w for s in strings for w in as_symbols(s)]
    assert vectors.shape == (5, len(VOCAB.output_symbols))
    np.testing.assert_allclose(vectors.sum(axis=1), 1.0)
    eos = VOCAB.output_symbols.index("</s>")
    assert vectors[2, eos] == 1.0  # after "man eat cookie" the sentence ends
    assert vectors[4, eos] == 1.0  # "rock move" too: inanimate subjects only take VERB-AGPAT
