"""Interpolated Kneser–Ney: a proper distribution, the textbook numbers, and nltk's numbers."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.corpus import UNK, load_corpus
from course_rnn.models.kneser_ney import KneserNeyLM

# nltk is pinned in requirements.txt (make test has it); a machine without it skips the module
KneserNeyInterpolated = pytest.importorskip("nltk.lm").KneserNeyInterpolated

TOY = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "ran"], ["the", "cat", "ran"]]


@pytest.fixture(scope="module")
def small_corpus():
    return load_corpus("austen")[:40]


def contexts_of(sentences, n):
    """Every context the model meets on ``sentences``, plus some it never saw."""
    out = [tuple(s[max(0, i - n + 1) : i]) for s in sentences for i in range(len(s) + 1)]
    return out + [("never", "seen", "words")[: n - 1], ("the",), ()]


@pytest.mark.parametrize("order", [1, 2, 3, 5])
@pytest.mark.parametrize("discount", [0.1, 0.75, 1.0])
def test_probabilities_sum_to_one_over_the_vocabulary(small_corpus, order, discount):
    lm = KneserNeyLM(order, discount).fit(small_corpus)
    for context in contexts_of(small_corpus[:3], order)[::4]:
        total = sum(lm.prob(w, context) for w in lm.vocabulary)
        assert total == pytest.approx(1.0, abs=1e-9), context


def test_hand_computed_bigram_probabilities():
    # 10 bigram types: <s>·the <s>·a the·cat the·dog a·cat cat·sat cat·ran dog·sat sat·</s>
    # ran·</s>. Continuation counts N₁₊(• w): cat 2, sat 2, </s> 2, the a dog ran 1 each (7 words
    # seen); bigram counts after "the": cat 2, dog 1.
    lm = KneserNeyLM(order=2, discount=0.5).fit(TOY)
    assert lm.vocabulary == {"the", "cat", "sat", "dog", "a", "ran", UNK, "</s>"}
    types, v = 10, 8
    p_uni = {w: max(c - 0.5, 0) / types + 0.5 * 7 / types / v for w, c in [("cat", 2), ("sat", 2)]}
    p_uni_unk = 0.5 * 7 / types / v
    assert lm.prob_by_order("cat")[1] == pytest.approx(p_uni["cat"])
    assert lm.prob("cat", ["the"]) == pytest.approx(1.5 / 3 + 0.5 * 2 / 3 * p_uni["cat"])
    assert lm.prob("zebra", ["the"]) == pytest.approx(0.5 * 2 / 3 * p_uni_unk)  # read as <unk>
    # the sentence start: "<s>" is followed by the (3 times) and a (once)
    assert lm.prob("a", []) == pytest.approx(0.5 / 4 + 0.5 * 2 / 4 * lm.prob_by_order("a")[1])


def test_matches_nltk_interpolated_kneser_ney(small_corpus):
    """Same counts, same recursion, same numbers as nltk.lm.KneserNeyInterpolated.

    Conventions aligned: nltk is given exactly our n-grams (n−1 ``<s>`` on the left, ONE
    ``</s>`` on the right, where ``pad_both_ends`` would add n−1), and the same discount. One
    deliberate difference: nltk's unigram level is the bare continuation frequency
    N₁₊(• w)/N₁₊(• •), which gives a word never seen after another word (``<unk>`` on clean
    text) probability 0 and so infinite perplexity; ours discounts it too and interpolates with
    the uniform distribution (Chen & Goodman 1998). So we check our unigram against nltk's
    counts with that formula, then plug it into nltk and compare every higher order.
    """
    corpus = small_corpus[:25]
    for order, discount in [(2, 0.1), (3, 0.75), (4, 1.0)]:
        ours = KneserNeyLM(order, discount).fit(corpus)
        ngrams = []
        for sentence in corpus:
            tokens = ours.padded(sentence)
            ends = range(order - 1, len(tokens))  # every predicted token, all orders
            ngrams.append(
                [tuple(tokens[i - k + 1 : i + 1]) for i in ends for k in range(1, order + 1)]
            )
        ref = KneserNeyInterpolated(order, discount=discount)
        ref.fit(ngrams, vocabulary_text=sorted(ours.vocabulary | {"<s>"}))
        words = sorted(ours.vocabulary)[::6]

        bigram_types = sum(len(followers) for followers in ref.counts[2].values())
        seen = sum(1 for w in ours.vocabulary if ref.estimator.unigram_score(w) > 0)
        for w in words:
            continuation = ref.estimator.unigram_score(w) * bigram_types
            to_uniform = discount * seen / len(ours.vocabulary)
            expected = (max(continuation - discount, 0) + to_uniform) / bigram_types
            assert ours.prob_by_order(w)[1] == pytest.approx(expected, rel=1e-12)

        ref.estimator.unigram_score = lambda w, ours=ours: ours.prob_by_order(w)[1]
        for context in contexts_of(corpus[:2], order)[::4]:
            padded = ("<s>",) * (order - 1) + context
            for w in words:
                assert ours.prob(w, context) == pytest.approx(
                    ref.score(w, padded[-(order - 1) :]), rel=1e-12
                ), (order, context, w)


def test_uniform_model_perplexity_equals_vocabulary_size():
    # With discount 1 and every count 1, an order-1 model is exactly uniform over its vocabulary:
    # P(w) = 0 + 1 · |V| / |V| · 1/|V|.
    sentences = [["a", "b", "c", "d", "e", "f"]]  # 7 predicted tokens, each seen once
    lm = KneserNeyLM(order=1, discount=1.0).fit(sentences, vocabulary=["a", "b", "c", "d", "e"])
    assert len(lm.vocabulary) == 7  # a..e, <unk> (f), </s>
    assert lm.perplexity(sentences) == pytest.approx(7.0)
    assert lm.perplexity([["b", "zebra"], ["c"]]) == pytest.approx(7.0)


def test_higher_order_fits_training_text_better(small_corpus):
    train = small_corpus
    ppl = [KneserNeyLM(n).fit(train).perplexity(train) for n in (1, 2, 3)]
    assert ppl[0] > ppl[1] > ppl[2]


@settings(max_examples=20, deadline=None)
@given(
    sentences=st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=0, max_size=6),
        min_size=1,
        max_size=6,
    ),
    order=st.integers(1, 4),
    discount=st.floats(0.05, 1.0),
    context=st.lists(st.sampled_from(["a", "b", "c", "e", "<s>"]), max_size=4),
)
def test_any_fitted_model_is_a_distribution(sentences, order, discount, context):
    lm = KneserNeyLM(order, discount).fit(sentences)
    probs = [lm.prob(w, context) for w in lm.vocabulary]
    assert all(p > 0 for p in probs)
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="order"):
        KneserNeyLM(order=0)
    with pytest.raises(ValueError, match="discount"):
        KneserNeyLM(order=3, discount=1.5)
    with pytest.raises(RuntimeError, match="fit"):
        KneserNeyLM(3).prob("a", [])
    lm = KneserNeyLM(2).fit(TOY)
    with pytest.raises(ValueError, match="never predicted"):
        lm.prob("<s>", ["the"])
    with pytest.raises(TypeError, match="string"):
        lm.prob("cat", "the")
    with pytest.raises(TypeError, match="list of tokens"):
        KneserNeyLM(2).fit(["the cat sat"])
    with pytest.raises(ValueError, match="empty"):
        lm.perplexity([])
