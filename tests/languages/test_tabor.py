"""Tabor (2011): Grammars 1 and 2, their exact distributions, PDDA 1 and Table 4's scores."""

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from course_rnn.languages.base import EOS, corrupt
from course_rnn.languages.tabor import (
    PDDA1,
    TaborGrammar1,
    TaborGrammar2,
    tabor_percent_correct,
    tabor_rmse,
)

G1, G2 = TaborGrammar1(), TaborGrammar2()
GRAMMARS = [G1, G2]


def all_strings(alphabet, max_len):
    for n in range(max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


# -- membership and generation -----------------------------------------------------------------


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_samples_are_members_and_corruptions_are_not(g):
    rng = np.random.default_rng(0)
    for sentence in g.sample(200, seed=1):
        assert g.is_member(sentence)
        bad = corrupt(sentence, g.alphabet, rng)
        # every sentence has a multiple of words_per_level words, a single edit breaks that
        assert not g.is_member(bad)


def test_known_sentences():
    assert G1.is_member("a b a a b c b c c")  # Figure 1b
    assert G1.is_member("abcabc") and not G1.is_member("abcab") and not G1.is_member("")
    assert G2.is_member("a x y b") and not G2.is_member("a y") and not G2.is_member("a b b")
    with pytest.raises(ValueError, match="'d'"):
        G1.is_member("a b d")


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_sampling_is_reproducible_and_respects_max_depth(g):
    assert g.sample(20, seed=3) == g.sample(20, seed=3)
    assert g.sample(20, seed=3) != g.sample(20, seed=4)
    assert all(g.recursion_level(s) <= 2 for s in g.sample(100, seed=0, max_depth=2))
    with pytest.raises(ValueError):
        g.sample(3, seed=0, max_depth=0)
    with pytest.raises(ValueError):
        g.sample(-1)


def test_corpora_match_table_4_word_counts():
    # Npoints of Table 4 = words in the corpus (one prediction after each word).
    for g, train_words, test_words in ((G1, 129, 4755), (G2, 276, 15232)):
        train, test = g.training_corpus(), g.test_corpus()
        assert sum(map(len, train)) == train_words
        assert sum(map(len, test)) == test_words
        assert not set(train) & set(test)
        assert all(g.is_member(s) for s in train + test)
    assert {len(s) for s in G1.test_corpus()} == {12, 15}
    assert {len(s) for s in G2.test_corpus()} == {8, 10}


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_sentences_is_exactly_the_members_up_to_that_length(g):
    depth = 3 if g is G1 else 2
    max_len = depth * g.words_per_level
    brute = {s for s in all_strings(g.alphabet, max_len) if g.is_member(s)}
    assert set(g.sentences(depth)) == brute


# -- valid_next and the exact distribution ------------------------------------------------------


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_valid_next_agrees_with_brute_force_membership(g):
    """x is valid after p  <=>  some member starts with p + x. Every word can open a new S, so
    p + x (n + 1 words) completes within (n + 1) * words_per_level words: the members of
    ``sentences(n + 1)`` (equal to brute-force membership, tested above) settle every prefix."""
    n = 4
    continuations: dict[tuple, set] = {}
    for s in g.sentences(n + 1):
        for t in range(len(s) + 1):
            continuations.setdefault(s[:t], set()).add(s[t] if t < len(s) else EOS)
    for prefix in all_strings(g.alphabet, n):
        assert g.valid_next(prefix) == frozenset(continuations.get(prefix, set())), prefix


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_next_distribution_sums_to_one_and_supports_valid_next(g):
    for sentence in g.sample(30, seed=5):
        for t in range(len(sentence) + 1):
            dist = g.next_distribution(sentence[:t])
            assert set(dist) == {*g.alphabet, EOS}
            assert sum(dist.values()) == pytest.approx(1.0)
            assert {s for s, p in dist.items() if p > 0} == g.valid_next(sentence[:t])
    with pytest.raises(ValueError, match="not a prefix"):
        g.next_distribution(g.alphabet[-1])


def test_next_distribution_values_from_the_tables():
    assert G1.next_distribution("") == {"a": 1.0, "b": 0.0, "c": 0.0, EOS: 0.0}
    assert G1.next_distribution("a a b") == pytest.approx({"a": 0.2, "b": 0, "c": 0.8, EOS: 0})
    assert G1.next_distribution("a a b c") == pytest.approx({"a": 0.2, "b": 0.8, "c": 0, EOS: 0})
    assert G2.next_distribution("") == pytest.approx({"a": .5, "b": 0, "x": .5, "y": 0, EOS: 0})
    assert G2.next_distribution("x a b") == pytest.approx(
        {"a": 0.1, "b": 0, "x": 0.1, "y": 0.8, EOS: 0})


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_next_distribution_matches_sampled_frequencies(g):
    sentences = g.sample(4000, seed=11)
    counts: dict[tuple, Counter] = {}
    for s in sentences:
        for t in range(min(len(s), 4) + 1):
            counts.setdefault(s[:t], Counter())[s[t] if t < len(s) else EOS] += 1
    symbols = [*g.alphabet, EOS]
    tested = 0
    for prefix, counter in counts.items():
        n = sum(counter.values())
        if n < 300:
            continue
        exact = g.next_distribution(prefix)
        assert set(counter) <= {s for s in symbols if exact[s] > 0}
        support = [s for s in symbols if exact[s] > 0]
        if len(support) > 1:
            observed = [counter[s] for s in support]
            expected = [exact[s] * n for s in support]
            assert chisquare(observed, expected).pvalue > 1e-3, (prefix, counter, exact)
            tested += 1
    assert tested >= 4


def test_distribution_table_rows_follow_the_prefixes():
    table = G1.distribution_table("a b c")
    assert table.shape == (4, 4)  # columns: EOS a b c
    np.testing.assert_allclose(table[:, 0], [0, 0, 0, 0.8])
    np.testing.assert_allclose(table.sum(1), 1.0)


# -- PDDA 1 ----------------------------------------------------------------------------------


def test_pdda_trajectory_of_figure_1b():
    states = PDDA1().trajectory("a b a a b c b c c")
    expected = [(0, 0), (-1, -1), (-1, 1), (-1.5, -0.5), (-1.75, -1.25), (-1.75, 0.75),
                (-1.5, -0.5), (-1.5, 1.5), (-1, 1), (0, 0)]
    np.testing.assert_array_equal(states, np.array(expected, dtype=float))


def test_pdda_accepts_exactly_grammar_1():
    """Every string over {a, b, c} up to length 9 (29,524 strings); then, up to length 12,
    every sentence, every single-edit corruption of one, and 20,000 random strings."""
    pdda, rng = PDDA1(), np.random.default_rng(0)
    assert {s for s in all_strings("abc", 9) if pdda.accepts(s)} == set(G1.sentences(3))
    sentences = G1.sentences(4)
    assert all(pdda.accepts(s) for s in sentences)
    edits = {corrupt(s, "abc", rng) for s in sentences for _ in range(30)}
    randoms = {tuple(rng.choice(list("abc"), int(rng.integers(10, 13)))) for _ in range(20000)}
    for s in edits | randoms:
        assert pdda.accepts(s) == G1.is_member(s), s


def test_pdda_step_errors_and_rejections():
    pdda = PDDA1()
    with pytest.raises(ValueError, match="cannot read 'c'"):
        pdda.step((-1.0, -1.0), "c")
    with pytest.raises(ValueError, match="cannot read 'b'"):
        pdda.trajectory("b")
    with pytest.raises(ValueError, match="'x'"):
        pdda.accepts("a x")
    for z in [(0.0, 0.0, 0.0), (float("nan"), float("nan")), (0.0, float("inf")), "ab", None]:
        with pytest.raises(ValueError, match=r"z, a PDDA 1 state, must be a point \(z1, z2\) "
                                             r"of two finite numbers"):
            pdda.step(z, "a")
    assert not pdda.accepts("") and not pdda.accepts("a b") and not pdda.accepts("c")


def test_stack_map_is_the_sierpinski_gasket_of_figure_1a():
    points = PDDA1().stack_map(3)
    assert len(points) == 1 + 2 + 4 + 8
    np.testing.assert_array_equal(points["A"], [-1, -1])
    np.testing.assert_array_equal(points["AB"], [-1.5, 0.5])
    xy = np.array([p for label, p in points.items() if label])
    assert len(np.unique(xy, axis=0)) == len(xy)  # every stack state has its own point
    # A-topped stacks lie in b's compartment, B-topped ones in c's (Table 1)
    for label, p in points.items():
        if label:
            assert p[0] < 0 and (p[1] < 0) == (label[-1] == "A")
    with pytest.raises(ValueError):
        PDDA1().stack_map(-1)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31))
def test_pdda_returns_to_each_stack_point_after_an_embedded_sentence(seed):
    """The fixed-point property: reading a whole sentence brings the automaton back."""
    pdda, sentence = PDDA1(), G1.sample(1, seed=seed, max_depth=6)[0]
    for prefix in ("a", "a b", "a a b"):
        start = pdda.trajectory(prefix)[-1]
        after = pdda.trajectory(prefix.split() + list(sentence))[-1]
        np.testing.assert_array_equal(after, start)


# -- Table 4's scores -----------------------------------------------------------------------


def test_percent_correct_is_closest_distribution_correctness():
    targets = np.array([[0.2, 0.8, 0.0], [0.2, 0.0, 0.8], [1.0, 0.0, 0.0]])
    good = np.array([[0.3, 0.6, 0.1], [0.1, 0.1, 0.8], [0.7, 0.2, 0.1]])
    assert tabor_percent_correct(good, targets) == 100.0
    swapped = good[[1, 0, 2]]
    assert tabor_percent_correct(swapped, targets) == pytest.approx(100 / 3)
    # equidistant from two candidates is not correct
    assert tabor_percent_correct([[0.2, 0.4, 0.4]], [[0.2, 0.8, 0.0]], candidates=targets) == 0
    mask = np.array([True, False, True])
    assert tabor_percent_correct(swapped, targets, mask=mask, candidates=targets) == 50.0


def test_rmse_and_bad_shapes():
    assert tabor_rmse([[0.5, 0.5]], [[1.0, 0.0]]) == pytest.approx(0.5)
    assert tabor_rmse(np.ones((2, 3, 4)) / 4, np.ones((2, 3, 4)) / 4) == 0.0
    with pytest.raises(ValueError, match="shape"):
        tabor_rmse([[0.5, 0.5]], [[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="no positions"):
        tabor_rmse([[0.5, 0.5]], [[1.0, 0.0]], mask=[False])


# -- Tabor's convention: a stream of sentences without an end marker ----------------------------


@pytest.mark.parametrize("g", GRAMMARS, ids=lambda g: g.name)
def test_without_an_end_marker_the_end_goes_to_the_next_sentence(g):
    stream = type(g)(end_marker=False)
    assert stream.name == g.name + "-stream" and not stream.end_marker and g.end_marker
    first = g.next_distribution(())
    for sentence in g.sentences(2):
        for t in range(len(sentence) + 1):
            with_end, without = g.next_distribution(sentence[:t]), stream.next_distribution(
                sentence[:t])
            assert without[EOS] == 0 and sum(without.values()) == pytest.approx(1)
            for s in g.alphabet:  # P(w) + P(</s>) P(w | a new sentence)
                assert without[s] == pytest.approx(with_end[s] + with_end[EOS] * first[s])
        assert stream.is_member(sentence) and stream.valid_next(sentence) == g.valid_next(
            sentence)  # sampling and membership are the grammar's
    assert stream.sentences(3) == g.sentences(3)


def test_stream_distributions_of_grammar_1():
    stream = TaborGrammar1(end_marker=False)
    assert stream.next_distribution("a b c") == {"a": 1.0, "b": 0.0, "c": 0.0, EOS: 0.0}
    assert stream.next_distribution("a b") == G1.next_distribution("a b")  # no end possible
    table = stream.distribution_table("a b c", (EOS, "a", "b", "c"))
    assert np.allclose(table[-1], table[0])  # after a sentence as at the start: 'a' next
    with pytest.raises(TypeError, match="end_marker"):
        TaborGrammar1(end_marker="no")
    with pytest.raises(ValueError, match="not a prefix"):
        stream.next_distribution("b")


def test_distributions_are_cached_copies():
    g = TaborGrammar2()
    d = g.next_distribution("a")
    d["a"] = 99.0  # changing the returned dict does not change the grammar
    assert g.next_distribution("a")["a"] == pytest.approx(0.2 * 0.5)


def test_levels_of_recursion_count_s_nodes():
    assert G1.recursion_level("a b c a b c") == G1.recursion_level("a a b c b c") == 2
    assert G2.recursion_level("a x y b") == 2
