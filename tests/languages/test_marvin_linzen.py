"""Marvin & Linzen (2018) minimal pairs: they differ only in the agreeing word, the grammatical
one is a sentence of the agreement grammar, and the records a metric reads say the truth about
each pair (the controlling noun, the agreeing word, the attractors between them)."""

import pytest

from course_rnn.languages.agreement import Agreement
from course_rnn.languages.agreement_words import NOUN_NUMBER, OTHER_NUMBER, count_attractors
from course_rnn.languages.marvin_linzen import (
    MARVIN_LINZEN_CATEGORIES,
    MinimalPair,
    marvin_linzen_pairs,
    minimal_pairs,
)

L = Agreement()
SINGULAR_FORMS = {"likes", "admires", "hates", "loves", "knows", "sees", "laughs", "smiles",
                  "swims", "sleeps", "is", "has", "himself"}


@pytest.mark.parametrize("category", MARVIN_LINZEN_CATEGORIES)
def test_marvin_linzen_pairs_differ_only_in_the_agreeing_words(category):
    pairs = marvin_linzen_pairs(category, 20, seed=0)
    assert pairs == marvin_linzen_pairs(category, 20, seed=0)
    for good, bad in pairs:
        assert len(good) == len(bad)
        diff = [i for i, (g, b) in enumerate(zip(good, bad)) if g != b]
        if "npi" in category:  # the licensor "no" moves: only determiners change
            assert diff and all({good[i], bad[i]} == {"no", "the"} for i in diff)
        else:
            assert len(diff) == 1 and bad[diff[0]] == OTHER_NUMBER[good[diff[0]]]
        assert L.is_member(good), good
        assert not L.is_member(bad), bad


@pytest.mark.parametrize("category", MARVIN_LINZEN_CATEGORIES)
def test_minimal_pairs_are_the_same_pairs_read_honestly(category):
    pairs = minimal_pairs(category, 40, seed=3)
    assert [(p.sentence, p.ungrammatical) for p in pairs] \
        == marvin_linzen_pairs(category, 40, seed=3)
    for pair in pairs:
        assert isinstance(pair, MinimalPair) and pair.category == category
        assert pair.prefix + (pair.verb,) == pair.sentence[:pair.position + 1]
        assert pair.wrong_verb == pair.ungrammatical[pair.position] != pair.verb
        if "npi" in category:
            assert pair.controller is None and pair.attractors is None
            continue
        # the controlling noun agrees with the grammatical word, and the count is Linzen's
        noun = pair.sentence[pair.controller]
        assert NOUN_NUMBER[noun] == ("singular" if pair.verb in SINGULAR_FORMS else "plural")
        assert pair.attractors == count_attractors(pair.sentence, pair.controller,
                                                   pair.position)


def test_across_pairs_have_attractors_and_local_ones_do_not():
    """Half of the "across" pairs put a noun of the other number between subject and verb
    (M&L used every combination); within an object RC the controller is the word before."""
    across = [p.attractors for p in minimal_pairs("across_pp", 200, seed=0)]
    assert set(across) == {0, 1} and 60 < sum(across) < 140
    assert {p.attractors for p in minimal_pairs("in_object_rc", 50, seed=0)} == {0}
    assert {p.attractors for p in minimal_pairs("simple_agreement", 50, seed=0)} == {0}


def test_unknown_category_is_named():
    with pytest.raises(ValueError, match="across_pp"):
        marvin_linzen_pairs("garden_path", 3)
    with pytest.raises(ValueError, match="garden_path"):
        minimal_pairs("garden_path", 3)
