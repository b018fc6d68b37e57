"""Analyses of the FLNN's state plane (Tabor 2011): stream targets, stacks, visitation sets,
readout and basins, loop maps, drift, deep sentences."""

import numpy as np
import pytest
import torch

from course_rnn.analysis.dynamics import (
    basins,
    center_embedded,
    end_drift,
    last_word_optimum,
    loop_map,
    mean_visitation_set,
    nesting_depth,
    random_sentences,
    readout,
    spread,
    stack_states,
    visitation_set,
    without_end_marker,
)
from course_rnn.languages.base import EOS
from course_rnn.languages.tabor import (
    PDDA1,
    TaborGrammar1,
    TaborGrammar2,
    tabor_percent_correct,
)
from course_rnn.languages.vocab import Vocab
from course_rnn.models.flnn import FLNN, exact_targets

G1, G2 = TaborGrammar1(), TaborGrammar2()
V1, V2 = Vocab(G1.alphabet), Vocab(G2.alphabet)


def pdda_flnn(seed=0):
    """An FLNN whose Hidden1 layer is PDDA 1 (Table 1)."""
    model = FLNN(len(V1), rbf_size=3, seed=seed)
    with torch.no_grad():
        model.scale.copy_(torch.tensor([0.5, 1.0, 2.0]))
        model.offset.copy_(torch.tensor([[-1.0, -1.0], [0.0, 2.0], [2.0, -2.0]]))
    return model


def test_stream_targets_fold_the_end_into_the_next_sentence():
    s1, s2 = without_end_marker(G1), without_end_marker(G2)
    assert without_end_marker(s1) is s1 and s1.name == "tabor1-stream"
    assert s1.next_distribution("a b c") == {"a": 1.0, "b": 0.0, "c": 0.0, EOS: 0.0}
    assert isinstance(s1, TaborGrammar1) and not s1.end_marker
    assert s1.next_distribution("a") == G1.next_distribution("a")  # no end possible there
    d = s2.next_distribution("a b")
    assert d["a"] == pytest.approx(0.5) and d["x"] == pytest.approx(0.5) and d[EOS] == 0
    assert s1.is_member("a b c") and not s1.is_member("a b")  # membership is the grammar's
    rows = exact_targets(s1, s1.training_corpus(), V1).reshape(-1, len(V1))
    distinct = np.unique(rows[rows.sum(-1) > 0].numpy().round(6), axis=0)
    assert len(distinct) == 3  # Tabor's three distributions (and his three Gaussian units)
    with pytest.raises(TypeError):
        without_end_marker("tabor1")


def test_stack_states_match_the_pdda_stack_map():
    sentence = "a b a a b c b c c"
    stacks = stack_states(G1, sentence)
    assert stacks[:4] == ["", "A", "B", "BA"] and stacks[-1] == ""
    pdda = PDDA1()
    points = pdda.stack_map(4)
    for z, stack in zip(pdda.trajectory(sentence), stacks):
        assert np.allclose(z, points[stack])
    assert stack_states(G2, "a x y b") == ["", "A", "AX", "A", ""]
    with pytest.raises(ValueError):
        stack_states(G1, "a c")


def test_visitation_set_and_means_of_the_pdda_network_are_the_stack_map():
    model = pdda_flnn()
    corpus = G1.sentences(4)
    visits = visitation_set(model, G1, corpus, V1)
    assert visits.states.shape == (sum(len(s) + 1 for s in corpus), 2)
    assert len(visits.stacks) == len(visits.states) == len(visits.targets)
    assert np.allclose(visits.probs.sum(-1), 1) and visits.levels.max() == 4
    means = mean_visitation_set(visits)
    points = PDDA1().stack_map(4)
    assert all(np.allclose(means[s], points[s], atol=1e-6) for s in means)
    assert max(spread(visits).values()) < 1e-5  # PDDA 1 obeys the fixed-point condition
    assert visits.candidates().shape[0] == 4 and visits.future().max() == 3


def test_readout_equals_the_traced_outputs_and_basins_have_grid_shape():
    model = FLNN(len(V1), seed=3)
    visits = visitation_set(model, G1, G1.sentences(2), V1)
    assert np.allclose(readout(model, visits.states), visits.probs, atol=1e-6)
    xs, ys, label, height = basins(model, visits.candidates(), resolution=7)
    assert label.shape == height.shape == (7, 7) and len(xs) == len(ys) == 7
    assert label.min() >= 0 and label.max() < len(visits.candidates()) and (height >= 0).all()
    with pytest.raises(ValueError):
        readout(model, np.zeros((2, 3)))


def test_loop_map_and_drift_of_the_pdda_network():
    model = pdda_flnn()
    p, q = loop_map(model, V1, "a b c")
    assert p == pytest.approx(1.0) and np.allclose(q, 0)  # a b c closes a loop exactly
    p, q = loop_map(model, V1, "a")
    assert p == 0.5 and np.allclose(q, [-1, -1])
    deep = [center_embedded(G1, k) for k in (1, 3, 6)] + random_sentences(G1, 7, 5, seed=0)
    assert np.allclose(end_drift(model, deep, V1), 0, atol=1e-5)
    model.scale.data[0] = 0.45  # a push that the pop no longer undoes
    drift = end_drift(model, [center_embedded(G1, k) for k in (1, 2, 4)], V1)
    assert drift[0] < 1e-6 and drift[2] > drift[1] > 0.1  # errors grow with depth


def test_deep_sentences_have_exact_levels_and_are_grammatical():
    assert center_embedded(G1, 3) == tuple("aaabcbcbc")
    assert center_embedded(G2, 2, alternative=1) == tuple("xxyy")
    for g in (G1, G2):
        for s in random_sentences(g, 6, 10, seed=1):
            assert g.is_member(s) and g.recursion_level(s) == 6
    assert random_sentences(G1, 5, 3, seed=2) == random_sentences(G1, 5, 3, seed=2)


def test_levels_of_recursion_are_not_nesting_depth():
    assert nesting_depth(G1, "a b c a b c") == 1 and G1.recursion_level("a b c a b c") == 2
    assert nesting_depth(G1, "a a b c b c") == 2
    for k in (1, 4, 7):
        assert nesting_depth(G1, center_embedded(G1, k)) == k == G1.recursion_level(
            center_embedded(G1, k))
    assert nesting_depth(G2, "a x y b") == 2
    for s in random_sentences(G1, 6, 20, seed=3):
        assert 1 <= nesting_depth(G1, s) <= 6


def test_correct_positions_are_tabors_percent_correct():
    s1 = without_end_marker(G1)
    model = FLNN(len(V1), rbf_size=3, seed=2)
    corpus = s1.training_corpus()
    visits = visitation_set(model, s1, corpus, V1)
    right = visits.correct()
    assert right.shape == (len(visits.states),) and right.dtype == bool
    assert 100 * right.mean() == pytest.approx(tabor_percent_correct(visits.probs, visits.targets))
    assert visitation_set(pdda_flnn(), G1, corpus, V1).states.shape == visits.states.shape
    # a few sentences scored against the corpus's distributions
    few = visitation_set(model, s1, [center_embedded(G1, 3)], V1)
    assert few.correct(visits.candidates()).shape == (10,)


def test_last_word_optimum_is_the_floor_of_a_forgetful_network():
    s1 = without_end_marker(G1)
    corpus = s1.training_corpus()
    floor = last_word_optimum(s1, corpus, V1)
    # only after 'c' is the last word not enough: a new sentence (a) or a pending B or C
    assert floor == pytest.approx(0.2032, abs=1e-4)
    model = FLNN(len(V1), rbf_size=3, seed=0)
    with torch.no_grad():
        model.scale.zero_()  # every word resets the state: a predictor of the last word
        model.offset.copy_(torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]))
    from course_rnn.models.flnn import evaluate
    assert evaluate(model, s1, corpus, V1)["kl_per_position"] > floor
    assert last_word_optimum(G1, corpus, V1) > 0
    with pytest.raises(ValueError):
        last_word_optimum(s1, [], V1)
