"""Elman's (1990) template sentences: recogniser, exact next-word sets and probabilities."""

import itertools
from collections import Counter
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.base import EOS
from course_rnn.languages.elman import ELMAN_CATEGORIES, ELMAN_TEMPLATES, ElmanTemplates
from course_rnn.languages.vocab import Vocab

L = ElmanTemplates()


@cache
def brute_force_members() -> frozenset[tuple[str, ...]]:
    """Every sentence, found by testing all word strings of length 0–3 (29³ ≈ 24k)."""
    return frozenset(
        seq
        for length in range(4)
        for seq in itertools.product(L.alphabet, repeat=length)
        if L.is_member(seq)
    )


@cache
def brute_force_prefixes() -> frozenset[tuple[str, ...]]:
    return frozenset(m[:i] for m in brute_force_members() for i in range(len(m) + 1))


@pytest.fixture(scope="module")
def members() -> frozenset[tuple[str, ...]]:
    return brute_force_members()


def test_lexicon_and_templates_match_elman_tables():
    assert len(ELMAN_CATEGORIES) == 12
    assert len(ELMAN_TEMPLATES) == 16
    assert len(L.alphabet) == 29  # Elman's lexicon had 29 words
    assert len(set(L.alphabet)) == len(L.alphabet)
    assert set(L.alphabet) == {w for ws in L.categories.values() for w in ws}
    assert len(Vocab.for_language(L)) == 29 + 3


def test_brute_force_language_is_the_template_expansion(members):
    expected = {
        words
        for template in ELMAN_TEMPLATES
        for words in itertools.product(*(ELMAN_CATEGORIES[c] for c in template))
    }
    assert members == expected


def test_samples_are_members_and_reproducible():
    sentences = L.sample(500, seed=3)
    assert all(L.is_member(s) for s in sentences)
    assert sentences == L.sample(500, seed=3)
    assert sentences != L.sample(500, seed=4)
    assert {len(s) for s in sentences} == {2, 3}


def test_corpus_is_the_concatenated_sentences():
    stream = L.corpus(50, seed=1)
    assert stream == tuple(w for s in L.sample(50, seed=1) for w in s)
    assert EOS not in stream


def test_valid_next_agrees_with_brute_force_membership(members):
    prefixes = brute_force_prefixes()
    for prefix in prefixes:
        expected = {w for w in L.alphabet if prefix + (w,) in prefixes}
        if prefix in members:
            expected.add(EOS)
        assert L.valid_next(prefix) == expected, prefix
    # and strings that start no sentence have no continuation
    assert L.valid_next(("glass",)) == frozenset()
    assert L.valid_next(("man", "sleep", "book")) == frozenset()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(L.alphabet), max_size=4))
def test_valid_next_on_random_strings(words):
    """Mostly strings that start no sentence: w is valid iff prefix + w starts a sentence."""
    prefix = tuple(words)
    expected = {w for w in L.alphabet if prefix + (w,) in brute_force_prefixes()}
    if prefix in brute_force_members():
        expected.add(EOS)
    assert L.valid_next(prefix) == expected


def test_next_distribution_is_exact(members):
    for prefix in [(), ("man",), ("woman", "see"), ("dragon", "eat"), ("rock",), ("cat", "break")]:
        dist = L.next_distribution(prefix)
        assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
        assert set(dist) == L.valid_next(prefix)
    # hand-worked: P(first word = "man") = (7 human templates / 16) · 1/4
    assert L.next_distribution(())["man"] == pytest.approx(7 / 16 / 4)
    # the sentence probabilities of the whole language sum to one ...
    assert sum(L.probability(s) for s in members) == pytest.approx(1.0, abs=1e-12)
    # ... and each is the product of the next-word probabilities (chain rule)
    for s in list(members)[:200]:
        chain = np.prod([L.next_distribution(s[:i])[w] for i, w in enumerate(s)])
        assert chain * L.next_distribution(s)[EOS] == pytest.approx(L.probability(s))


def test_next_distribution_matches_sampling_frequencies():
    n = 20_000
    sentences = L.sample(n, seed=0)
    for prefix in [(), ("man",), ("woman", "see")]:
        followers = Counter(
            (s + (EOS,))[len(prefix)] for s in sentences if s[: len(prefix)] == prefix
        )
        total = sum(followers.values())
        for word, p in L.next_distribution(prefix).items():
            sd = np.sqrt(p * (1 - p) / total)
            assert abs(followers[word] / total - p) < 5 * sd + 1e-9, (prefix, word)
        assert set(followers) <= set(L.next_distribution(prefix))


def test_word_classes_for_colouring_dendrograms():
    man, cookie, lion = (L.category_of(w) for w in ("man", "cookie", "lion"))
    assert (man.pos, man.animacy, man.kind) == ("noun", "animate", "human")
    assert (cookie.pos, cookie.animacy, cookie.kind) == ("noun", "inanimate", "food")
    assert (lion.animacy, lion.kind) == ("animate", "animal")
    assert L.category_of("see").categories == ("VERB-TRAN", "VERB-PERCEPT")
    assert L.category_of("break").categories == ("VERB-AGPAT", "VERB-DESTROY")
    assert L.category_of("sleep").kind == "intransitive"
    assert L.category_of("move").kind == "optionally transitive"
    assert L.category_of("eat").kind == "transitive"
    assert {L.category_of(w).pos for w in L.alphabet} == {"noun", "verb"}


def test_bad_input_is_named():
    for call in (L.is_member, L.valid_next, L.next_distribution, L.category_of):
        with pytest.raises(ValueError, match="unicorn"):
            call("unicorn" if call is L.category_of else "man see unicorn")
    with pytest.raises(ValueError, match="not the start"):
        L.next_distribution("glass")
    with pytest.raises(ValueError):
        L.sample(-1)
    assert L.is_member("man") is False  # one word: not split into letters


# -- the boundary-free stream ------------------------------------------------------------------


def stream_prefix_probability(words: tuple[str, ...], sentences) -> float:
    """P(a stream of independent sentences starts with ``words``), by brute force: over the
    start ``j`` of the sentence that holds the last word, P(``words[:j]`` is a run of whole
    sentences) × P(a sentence starts with ``words[j:]``)."""

    @cache
    def whole(end: int) -> float:  # P(words[:end] is a run of whole sentences)
        if end == 0:
            return 1.0
        return sum(whole(j) * L.probability(words[j:end]) for j in range(end)
                   if L.is_member(words[j:end]))

    def starts(prefix) -> float:  # P(one sentence starts with prefix)
        return sum(L.probability(s) for s in sentences if s[: len(prefix)] == prefix)

    return sum(whole(j) * starts(words[j:]) for j in range(len(words))) if words else 1.0


def test_stream_predictions_are_exact(members):
    sentences = [s for s in members if s]
    rng = np.random.default_rng(0)
    for seed in range(3):
        stream = L.corpus(3, seed=seed)[: int(rng.integers(2, 8))]
        dists = L.stream_next_distributions(stream)
        assert len(dists) == len(stream) + 1
        for t, dist in enumerate(dists):
            assert sum(dist.values()) == pytest.approx(1.0)
            assert EOS not in dist  # a stream has no end marker
            before = stream_prefix_probability(stream[:t], sentences)
            for word in set(L.alphabet):
                expected = stream_prefix_probability(stream[:t] + (word,), sentences) / before
                assert dist.get(word, 0.0) == pytest.approx(expected, abs=1e-12)


def test_stream_starts_like_a_sentence_and_doubts_its_ends():
    first = L.stream_next_distributions(())[0]
    sentence_start = L.next_distribution(())
    assert first == pytest.approx(sentence_start)
    # "woman break": VERB-AGPAT may end the sentence, VERB-DESTROY needs an object
    after = L.stream_next_distributions(("woman", "break"))[2]
    assert after["plate"] > 0 and after["man"] > 0 and after["rock"] > 0
    # "man sleep" is always over: the next word starts a sentence, as after <s>
    assert L.stream_next_distributions(("man", "sleep"))[2] == pytest.approx(first)


def test_stream_loss_is_an_entropy_rate():
    long = L.corpus(3000, seed=4)
    loss = L.stream_loss(long)
    # above the per-symbol entropy of single sentences (the ends are no longer marked) …
    assert 1.5 < loss < 2.5
    # … and the same on another long sample (a rate of the language, not of the sample)
    assert L.stream_loss(L.corpus(3000, seed=5)) == pytest.approx(loss, abs=0.03)


def test_bad_streams_are_named():
    with pytest.raises(ValueError, match="word 2 .*'cookie'"):
        L.stream_next_distributions(("man", "cookie"))
    with pytest.raises(ValueError, match="empty"):
        L.stream_loss(())
