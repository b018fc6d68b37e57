"""Modified Kneser–Ney (Chen & Goodman): three discounts per order from the count-of-counts.

No installed package implements it (nltk has interpolated Kneser–Ney only), so it is checked
against what defines it: the closed-form discounts, a from-scratch recursion on a toy text, a
proper distribution, and the one-discount model (itself checked against nltk) when the three
discounts are equal.
"""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.corpus import load_corpus
from course_rnn.models.kneser_ney import (
    KneserNeyLM,
    ModifiedKneserNeyLM,
    count_of_counts,
    modified_discounts,
)

TOY = [["the", "cat", "sat"], ["the", "cat", "ran"], ["the", "dog", "sat"]]


@pytest.fixture(scope="module")
def text():
    return load_corpus("austen")[:3000]


@pytest.fixture(scope="module")
def trigram(text):
    return ModifiedKneserNeyLM(order=3).fit(text)


def test_the_discounts_are_chen_and_goodmans_closed_form(text, trigram):
    """D₁ = 1 − 2Y n₂/n₁, D₂ = 2 − 3Y n₃/n₂, D₃₊ = 3 − 4Y n₄/n₃, Y = n₁/(n₁ + 2n₂), with the
    count-of-counts recounted here from scratch: raw trigram counts at the top, continuation
    counts (distinct left neighbours) below."""
    grams = Counter()
    for s in text:
        tokens = ["<s>", "<s>", *s, "</s>"]
        grams.update(tuple(tokens[i - 2 : i + 1]) for i in range(2, len(tokens)))
    by_order = {3: grams}
    for k in (2, 1):
        left = {}
        for gram in by_order[k + 1]:
            left.setdefault(gram[1:], set()).add(gram[0])
        by_order[k] = {gram: len(words) for gram, words in left.items()}
    for k, counts in by_order.items():
        n1, n2, n3, n4 = (sum(1 for c in counts.values() if c == r) for r in (1, 2, 3, 4))
        y = n1 / (n1 + 2 * n2)
        expected = (1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3)
        assert trigram.discounts[k] == pytest.approx(expected, rel=1e-12), k
        assert count_of_counts(counts.values()) == [n1, n2, n3, n4]
        d1, d2, d3 = trigram.discounts[k]
        assert 0 < d1 < d2 < d3 < 3  # singletons discounted least, as Chen & Goodman found


def test_hand_computed_bigram():
    # bigram counts after "the": cat 2, dog 1 (total 3). Unigram continuation counts: the 1,
    # cat 1, dog 1, sat 2 (cat, dog), ran 1, </s> 2 (sat, ran): total 8, four 1s and two 2s.
    d = (0.5, 1.0, 1.5)
    lm = ModifiedKneserNeyLM(order=2, discounts=d).fit(TOY)
    v = len(lm.vocabulary)  # the cat dog sat ran <unk> </s>
    assert v == 7
    gamma_unigram = (d[0] * 4 + d[1] * 2) / 8
    p_cat = (1 - d[0]) / 8 + gamma_unigram / v
    p_sat = (2 - d[1]) / 8 + gamma_unigram / v
    assert lm.prob_by_order("cat")[1] == pytest.approx(p_cat)
    gamma_the = (d[1] * 1 + d[0] * 1) / 3  # one word seen twice, one once
    assert lm.prob("cat", ["the"]) == pytest.approx((2 - d[1]) / 3 + gamma_the * p_cat)
    assert lm.prob("sat", ["the"]) == pytest.approx(gamma_the * p_sat)  # never after "the"
    assert lm.prob("zebra", ["the"]) == pytest.approx(gamma_the * gamma_unigram / v)


def reference_prob(sentences, order, discounts, word, context, vocabulary):
    """Modified Kneser–Ney straight from its definition, recomputing every count per call."""
    tokens = [["<s>"] * (order - 1) + s + ["</s>"] for s in sentences]
    top = Counter(tuple(t[i - order + 1 : i + 1]) for t in tokens for i in range(order - 1, len(t)))
    counts = {order: top}
    for k in range(order - 1, 0, -1):
        counts[k] = Counter(g[1:] for g in counts[k + 1])
    context = tuple((["<s>"] * (order - 1) + list(context))[-(order - 1) :]) if order > 1 else ()
    p = 1 / len(vocabulary)
    for k in range(1, order + 1):
        u = context[len(context) - (k - 1) :]
        followers = {g[-1]: c for g, c in counts[k].items() if g[:-1] == u}
        if not followers:
            continue
        total = sum(followers.values())
        d1, d2, d3 = discounts[k - 1]
        discount = {0: 0.0, 1: d1, 2: d2}
        freed = sum(discount.get(c, d3) for c in followers.values())
        c = followers.get(word, 0)
        p = max(c - discount.get(c, d3), 0) / total + freed / total * p
    return p


def test_matches_a_from_scratch_recursion(text):
    corpus = text[:60]
    per_order = [(0.4, 0.9, 1.3), (0.6, 1.1, 1.7), (0.7, 1.2, 1.9)]
    lm = ModifiedKneserNeyLM(order=3, discounts=dict(enumerate(per_order, 1))).fit(corpus)
    words = sorted(lm.vocabulary)[::9]
    contexts = [(), ("the",), ("she", "was"), ("it", "is"), ("never", "seen")]
    for context in contexts:
        for w in words:
            expected = reference_prob(corpus, 3, per_order, w, context, lm.vocabulary)
            assert lm.prob(w, context) == pytest.approx(expected, rel=1e-12), (context, w)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_estimated_model_sums_to_one_over_the_vocabulary(text, order):
    lm = ModifiedKneserNeyLM(order=order).fit(text)
    contexts = [tuple(s[max(0, i - order + 1) : i]) for s in text[:6] for i in range(len(s) + 1)]
    contexts = contexts[::10] + [("never", "seen", "words")[: order - 1], ("the",), ()]
    for context in contexts:
        total = math.fsum(lm.prob(w, context) for w in lm.vocabulary)
        assert total == pytest.approx(1.0, abs=1e-9), context


@pytest.mark.parametrize("order, discount", [(2, 0.3), (3, 0.75), (4, 1.0)])
def test_equal_discounts_give_the_one_discount_model(text, order, discount):
    corpus = text[:400]
    one = KneserNeyLM(order, discount).fit(corpus)
    three = ModifiedKneserNeyLM(order, discounts=(discount,) * 3).fit(corpus)
    for s in corpus[:30:3]:
        for i in range(len(s) + 1):
            for w in (s[i] if i < len(s) else "</s>", "the", "<unk>"):
                assert three.prob(w, s[:i]) == pytest.approx(one.prob(w, s[:i]), rel=1e-12)
    assert three.perplexity(text[400:450]) == pytest.approx(one.perplexity(text[400:450]),
                                                            rel=1e-12)


def test_token_probs_follow_the_perplexity(text, trigram):
    held_out = text[-20:]
    probs = trigram.token_probs(held_out)
    assert len(probs) == sum(len(s) + 1 for s in held_out)
    ppl = math.exp(-math.fsum(math.log(p) for p in probs) / len(probs))
    assert ppl == pytest.approx(trigram.perplexity(held_out), rel=1e-12)


def test_modified_beats_one_discount_on_held_out_text(text):
    """Chen & Goodman's finding, on a slice of Austen: three estimated discounts beat D = 0.75."""
    train, held_out = text[:2500], text[2500:]
    vocab = {w for s in train for w in s}
    for order in (2, 3):
        one = KneserNeyLM(order).fit(train, vocabulary=vocab).perplexity(held_out)
        modified = ModifiedKneserNeyLM(order).fit(train, vocabulary=vocab).perplexity(held_out)
        assert modified < one, order


@settings(max_examples=20, deadline=None)
@given(
    sentences=st.lists(st.lists(st.sampled_from("abcd"), max_size=6), min_size=1, max_size=6),
    order=st.integers(1, 4),
    discounts=st.tuples(st.floats(0.05, 1.0), st.floats(0.05, 2.0), st.floats(0.05, 3.0)),
    context=st.lists(st.sampled_from(["a", "b", "e", "<s>"]), max_size=4),
)
def test_any_discounts_give_a_distribution(sentences, order, discounts, context):
    lm = ModifiedKneserNeyLM(order, discounts=discounts).fit(sentences)
    probs = [lm.prob(w, context) for w in lm.vocabulary]
    assert all(p > 0 for p in probs)
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="too small"):
        ModifiedKneserNeyLM(order=2).fit(TOY)  # no bigram is seen 3 or 4 times
    with pytest.raises(ValueError, match=r"D2 of order 1 must be in \(0, 2\]"):
        ModifiedKneserNeyLM(order=2, discounts=(0.5, 2.5, 2.5))
    with pytest.raises(ValueError, match="three numbers"):
        ModifiedKneserNeyLM(order=2, discounts=(0.5, 1.0))
    with pytest.raises(ValueError, match=r"orders 1..3"):
        ModifiedKneserNeyLM(order=3, discounts={1: (0.5, 1, 1.5), 2: (0.5, 1, 1.5)})
    with pytest.raises(ValueError, match="count-of-counts"):
        modified_discounts([10, 5, 3])
    with pytest.raises(ValueError, match=r"D2\+? is .*outside"):
        modified_discounts([10, 1, 100, 1])  # n₃ ≫ n₂: D₂ would be negative
    with pytest.raises(ValueError, match="order"):
        ModifiedKneserNeyLM(order=0)


def test_fit_like_reuses_the_counts(text):
    corpus = text[:300]
    modified = ModifiedKneserNeyLM(3).fit(corpus)
    shared = KneserNeyLM(3, 0.6).fit_like(modified)
    fresh = KneserNeyLM(3, 0.6).fit(corpus)
    assert shared.counts is modified.counts and shared.discounts == fresh.discounts
    for s in corpus[:5]:
        for i in range(len(s) + 1):
            assert shared.prob_by_order(s[i] if i < len(s) else "</s>", s[:i]) == \
                fresh.prob_by_order(s[i] if i < len(s) else "</s>", s[:i])
    with pytest.raises(ValueError, match="order 2"):
        KneserNeyLM(2).fit_like(modified)
    with pytest.raises(ValueError, match="fitted"):
        KneserNeyLM(3).fit_like(KneserNeyLM(3))
