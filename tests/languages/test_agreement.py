"""The agreement grammar: recogniser, annotations (Linzen's attractors), tasks; the M&L pairs
are in test_marvin_linzen.py."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.agreement import (
    ANIMATE_NOUNS,
    INANIMATE_NOUNS,
    MARVIN_LINZEN_CATEGORIES,
    NOUN_NUMBER,
    OTHER_NUMBER,
    Agreement,
    count_attractors,
    grammaticality,
    intervening_nouns,
    marvin_linzen_pairs,
    number_prediction,
)
from course_rnn.languages.base import EOS
from course_rnn.languages.vocab import Vocab

L = Agreement()  # max_pps=2
SENTENCES = L.sample(150, seed=0)


def test_lexicon_is_small_real_english():
    assert 20 <= len(ANIMATE_NOUNS) + len(INANIMATE_NOUNS) <= 40
    assert len(set(L.alphabet)) == len(L.alphabet)
    Vocab.for_language(L)  # no reserved symbols, no repeats
    assert all(OTHER_NUMBER[OTHER_NUMBER[w]] == w for w in OTHER_NUMBER)


def test_samples_are_members_and_reproducible():
    assert all(L.is_member(s) for s in SENTENCES)
    assert SENTENCES == L.sample(150, seed=0)
    assert SENTENCES != L.sample(150, seed=1)


def test_samples_cover_every_construction():
    """Each construction marker of the grammar shows up in a modest sample (reflexives too)."""
    text = [" ".join(s) for s in L.sample(400, seed=5)]
    for word in ("said", "that", "and", "ever", "himself", "themselves", "near", "been"):
        assert any(f" {word} " in f" {t} " for t in text), word
    labels = {ex.construction for ex in L.sample_examples(2000, seed=5)}
    assert labels == set(L.constructions)


def test_valid_next_is_consistent_on_sampled_prefixes():
    for s in SENTENCES[:12]:
        for i in range(len(s) + 1):
            prefix = s[:i]
            nexts = L.valid_next(prefix)
            assert (s + (EOS,))[i] in nexts
            for w in L.alphabet:  # w is valid iff prefix + w still starts a sentence
                assert (w in nexts) == bool(L.valid_next(prefix + (w,))), (prefix, w)
            assert (EOS in nexts) == L.is_member(prefix)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_walks_on_valid_next_reach_a_sentence(seed):
    """Following valid_next never gets stuck: every continuation can be completed."""
    rng = np.random.default_rng(seed)
    words: tuple[str, ...] = ()
    for _ in range(60):
        nexts = sorted(L.valid_next(words))
        assert nexts, words
        w = nexts[int(rng.integers(len(nexts)))]
        if w == EOS:
            break
        words += (w,)
    else:
        pytest.fail(f"no sentence end after {words}")
    assert L.is_member(words)


def test_grammar_rejects_agreement_and_licensing_errors():
    for bad in [
        "the key to the cabinets are old",  # verb agrees with the attractor
        "the authors that the guard like laugh",  # RC verb does not agree with its subject
        "the author the guards likes laughs",
        "the authors have ever been popular",  # "ever" without "no" on the subject
        "the authors that no guards like have ever been popular",
        "the author injured themselves",
        "the key laughs",  # intransitive verbs need an animate subject
        "the key that likes the guards is old",  # ... so do subject relative clauses
        "the author laughs and swim",
        "the author laughs the",
    ]:
        assert not L.is_member(bad), bad
    too_deep = "the key to the doors near the car behind the tables is old"
    assert not L.is_member(too_deep)  # three PPs, max_pps=2
    assert Agreement(max_pps=3).is_member(too_deep)


def test_linzen_rule_on_hand_worked_examples():
    words = "the key to the cabinets is".split()
    assert intervening_nouns(words, 1, 5) == ("cabinets",)
    assert count_attractors(words, 1, 5) == 1
    cases = {
        # sentence: (intervening nouns, attractors, construction)
        "the key to the cabinets is old": (("cabinets",), 1, "pp"),
        "the keys to the cabinets are old": (("cabinets",), 0, "pp"),
        "the key is old": ((), 0, "simple"),
        "the author that the guards like laughs": (("guards",), 1, "object_rc"),
        "the authors that the guard likes laugh": (("guard",), 1, "object_rc"),
        "the authors that the guards like laugh": (("guards",), 0, "object_rc"),
        "the author the guards like laughs": (("guards",), 1, "object_rc_no_that"),
        "the author that likes the guards laughs": (("guards",), 1, "subject_rc"),
        "the keys to the cabinet near the doors that the guard likes are old":
            (("cabinet", "doors", "guard"), 2, "pp+pp+object_rc"),
        # nouns before the subject do not intervene
        "the mechanics said the author laughs": ((), 0, "complement"),
        "no authors that the guard likes have ever been popular": (("guard",), 1, "object_rc"),
    }
    for sentence, (between, attractors, construction) in cases.items():
        ex = L.annotate(sentence)
        assert (ex.intervening, ex.attractors, ex.construction) == (
            between, attractors, construction), sentence
    ex = L.annotate("the key to the cabinets is old")
    assert ex.prefix == ("the", "key", "to", "the", "cabinets")
    assert (ex.subject_number, ex.verb, ex.wrong_verb) == ("singular", "is", "are")
    assert ex.ungrammatical == ("the", "key", "to", "the", "cabinets", "are", "old")


def test_annotate_refuses_what_it_cannot_annotate():
    with pytest.raises(ValueError, match="not a sentence"):
        L.annotate("the key to the cabinets are old")
    with pytest.raises(ValueError, match="no agreeing verb"):
        L.annotate("the author injured himself")


def test_examples_agree_with_the_parser():
    """The generator's own annotations equal those the grammar's parser recovers."""
    examples = L.sample_examples(150, seed=2)
    for ex in examples:
        assert L.annotate(ex.sentence) == ex
        assert not L.is_member(ex.ungrammatical)
        assert NOUN_NUMBER[ex.sentence[ex.subject_index]] == ex.subject_number
        assert ex.sentence[ex.verb_index] == ex.verb
    assert examples == L.sample_examples(150, seed=2)


def test_attractor_controls():
    balanced = L.balanced_by_attractors(20, max_attractors=3, seed=0)
    assert Counter(ex.attractors for ex in balanced) == {0: 20, 1: 20, 2: 20, 3: 20}
    assert all(len(ex.intervening) >= ex.attractors for ex in balanced)
    assert balanced == L.balanced_by_attractors(20, max_attractors=3, seed=0)
    capped = L.sample_examples(100, seed=1, max_attractors=1)
    assert max(ex.attractors for ex in capped) <= 1
    chosen = L.sample_examples(50, seed=1, constructions=["pp", "object_rc"])
    assert {ex.construction for ex in chosen} == {"pp", "object_rc"}
    with pytest.raises(ValueError, match="intervening"):
        L.sample_examples(5, seed=0, attractors=4)  # at most 2 PPs + 1 RC noun
    with pytest.raises(ValueError, match="pp\\+pp"):
        L.sample_examples(5, seed=0, constructions=["pp+pp+pp"])
    with pytest.raises(ValueError):
        L.balanced_by_attractors(5, max_attractors=-1)


def test_number_prediction_and_grammaticality_tasks():
    examples = L.sample_examples(60, seed=4)
    for (words, label), ex in zip(number_prediction(examples), examples):
        assert words == ex.prefix and label == ("singular", "plural").index(ex.subject_number)
    judged = grammaticality(examples, seed=0)
    assert [label for _, label in judged] == [int(L.is_member(s)) for s, _ in judged]
    assert 10 < sum(label for _, label in judged) < 50
    assert judged == grammaticality(examples, seed=0)
    both = grammaticality(examples, both=True)
    assert len(both) == 120 and sum(label for _, label in both) == 60


def test_the_split_modules_are_one_language():
    """The words, the written-out grammar and the Marvin & Linzen pairs live in their own
    modules; the old import path still gives the same objects."""
    from course_rnn.languages import agreement, agreement_grammar, agreement_words, marvin_linzen

    assert agreement.NOUN_NUMBER is agreement_words.NOUN_NUMBER
    assert agreement.count_attractors is agreement_words.count_attractors
    assert agreement.agreement_grammar is agreement_grammar.agreement_grammar
    assert marvin_linzen_pairs is marvin_linzen.marvin_linzen_pairs
    assert MARVIN_LINZEN_CATEGORIES is marvin_linzen.MARVIN_LINZEN_CATEGORIES


def test_unknown_names_and_foreign_words_raise():
    for call in (L.is_member, L.valid_next, L.annotate):
        with pytest.raises(ValueError, match="unicorn"):
            call("the unicorn laughs")
    with pytest.raises(ValueError):
        Agreement(max_pps=-1)
    with pytest.raises(ValueError):
        L.sample(-2)
