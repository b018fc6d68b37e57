"""Generalised Dyck languages: recogniser, next-symbol sets, depth-controlled sampling and the
attractor / depth measurements behind the agreement metric."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.base import EOS, corrupt
from course_rnn.languages.dyck import Dyck


def grammar_strings(pairs, max_length):
    """Every member up to ``max_length``, from the grammar S -> ε | o S c S."""
    by_length = {0: [()]}
    for size in range(2, max_length + 1, 2):
        by_length[size] = [
            (o, *inside, c, *after)
            for k in range(0, size - 1, 2)
            for o, c in pairs
            for inside in by_length[k]
            for after in by_length[size - 2 - k]
        ]
    return {s for strings in by_length.values() for s in strings}


def reduces_to_nothing(seq, pairs):
    """Reference recogniser: delete adjacent matched pairs until none is left."""
    text, pieces = "".join(seq), [o + c for o, c in pairs]
    while any(p in text for p in pieces):
        for p in pieces:
            text = text.replace(p, "")
    return text == ""


# -- construction -------------------------------------------------------------------------
def test_default_is_the_five_pairs_of_the_seeds():
    d = Dyck()
    assert d.openers == ("(", "[", "{", "<", "+")
    assert d.closers == (")", "]", "}", ">", "-")
    assert len(d.alphabet) == 10 and d.partner("<") == ">" and d.partner("-") == "+"


def test_pairs_can_be_a_count_a_string_or_a_list():
    assert Dyck(2).pairs == (("(", ")"), ("[", "]"))
    assert Dyck("()").alphabet == ("(", ")")
    assert Dyck([("x", "y"), "ab"]).pairs == (("x", "y"), ("a", "b"))


@pytest.mark.parametrize(
    "pairs, message",
    [("", "at least one"), ([], "at least one"), (0, "between 1 and 5"), (6, "between 1 and 5"),
     ("() (]", "repeated"), ("((", "distinct"), (["abc"], "bad bracket pair"),
     ([("(", "")], "bad bracket pair")],
)
def test_bad_pairs_are_refused(pairs, message):
    with pytest.raises(ValueError, match=message):
        Dyck(pairs)


def test_foreign_symbols_are_named():
    with pytest.raises(ValueError, match="'a'"):
        Dyck().is_member("(a)")
    with pytest.raises(ValueError, match="'x'"):
        Dyck().valid_next("(x")
    with pytest.raises(ValueError, match="'x'"):
        Dyck().partner("x")
    with pytest.raises(ValueError, match="'x'"):
        Dyck().attractors("(x)")


# -- recogniser and next-symbol sets --------------------------------------------------------
def test_membership_examples():
    d = Dyck()
    for good in ["", "()", "{([])}<>", "{()[<>]}", "+-"]:
        assert d.is_member(good), good
    for bad in ["<)", "((", ")(", "(]", "([)]", "-+", "(()"]:
        assert not d.is_member(bad), bad


def test_valid_next_examples():
    d = Dyck(2)
    assert d.valid_next("") == {"(", "[", EOS}
    assert d.valid_next("([") == {"(", "[", "]"}
    assert d.valid_next("(]") == frozenset()


def test_valid_next_agrees_with_the_grammar_by_brute_force(brute_force):
    one, two = Dyck(1), Dyck(2)
    brute_force(one, grammar_strings(one.pairs, 18), max_prefix=8)
    brute_force(two, grammar_strings(two.pairs, 12), max_prefix=5)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_corrupted_strings_are_rejected_unless_still_members(seed):
    d, rng = Dyck(), np.random.default_rng(seed)
    for s in d.sample(10, rng, length=int(rng.integers(0, 12)) * 2):
        bad = corrupt(s, d.alphabet, rng)
        assert d.is_member(bad) == reduces_to_nothing(bad, d.pairs), bad


# -- measurements -----------------------------------------------------------------------------
def test_attractors_follow_the_seeds_definition():
    d = Dyck()
    assert d.attractors("([])") == [0, 1]
    assert d.attractors("(())") == [0, 0]
    assert d.attractors("({}[])") == [0, 0, 2]
    assert d.attractors("<(<>)>") == [0, 1, 1]  # only brackets of another kind count
    assert d.attractors("") == []


def test_depths():
    d = Dyck()
    assert d.depth("{{}}") == 2 and d.depth("{({})}") == 3  # the code's convention
    assert d.depth("") == 0 and d.depth("()()") == 1 and d.depth("(((") == 3
    assert d.outer_depths("(())") == [2, 1]
    assert d.outer_depths("({}[])") == [2, 2, 1]
    assert d.closing_depths("({}[])") == d.outer_depths("({}[])")  # the older name
    assert d.inner_depths("(())") == [0, 1]
    assert d.inner_depths("({}[(<>)])") == [0, 0, 1, 2, 3]
    # inner nesting and outer depth of one pair add up to at most the string's depth
    s = "({}[(<>)])"
    assert all(i + o <= d.depth(s) for i, o in zip(d.inner_depths(s), d.outer_depths(s)))


def test_measurements_refuse_mismatched_strings():
    for bad in ["<)", ")", "(]"]:
        with pytest.raises(ValueError, match="position"):
            Dyck().attractors(bad)


# -- sampling -----------------------------------------------------------------------------------
def test_path_counts_match_hand_counts():
    d = Dyck(1)
    assert d.count(20) == 16796  # Catalan C_10
    # the 5 paths of length 6: ()()() | (())() ()(()) (()()) | ((()))
    assert [d.count(6, depth=k) for k in (1, 2, 3)] == [1, 3, 1]
    assert d.count(6, max_depth=2) == 4
    assert sum(d.count(20, depth=k) for k in range(1, 11)) == d.count(20)
    by_depth = Counter(d.depth(s) for s in grammar_strings(d.pairs, 14) if len(s) == 14)
    assert {k: d.count(14, depth=k) for k in range(1, 8)} == by_depth


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), half=st.integers(1, 15), data=st.data(),
       method=st.sampled_from(["uniform", "seeds"]))
def test_depth_constrained_samples_have_that_depth_and_length(seed, half, data, method):
    d = Dyck()
    depth = data.draw(st.integers(1, half))
    for s in d.sample(20, seed, length=2 * half, depth=depth, method=method):
        assert len(s) == 2 * half and d.is_member(s) and d.depth(s) == depth
    for s in d.sample(20, seed, length=2 * half, max_depth=depth, method=method):
        assert len(s) == 2 * half and d.is_member(s) and d.depth(s) <= depth
    for s in d.sample(20, seed, length=2 * half, method=method):
        assert len(s) == 2 * half and d.is_member(s)


def test_uniform_method_is_uniform_over_paths():
    d = Dyck(1)
    counts = Counter(d.sample(14000, seed=0, length=8))
    assert len(counts) == d.count(8) == 14
    assert all(850 < c < 1150 for c in counts.values()), counts
    deep = Counter(d.sample(3500, seed=1, length=8, depth=2))
    assert len(deep) == d.count(8, depth=2) == 7
    assert all(420 < c < 580 for c in deep.values()), deep


def test_bracket_kinds_are_uniform():
    d = Dyck()
    kinds = Counter(x for s in d.sample(2000, seed=0, length=20) for x in s if x in d.openers)
    assert all(abs(c / 20000 - 0.2) < 0.02 for c in kinds.values()), kinds


def test_sampling_is_reproducible():
    d = Dyck()
    for method in ("uniform", "seeds"):
        same = d.sample(50, seed=3, depth=3, method=method)
        assert same == d.sample(50, seed=3, depth=3, method=method)
        assert same != d.sample(50, seed=4, depth=3, method=method)
    assert d.sample(3, seed=0, length=0) == [(), (), ()]


@pytest.mark.parametrize(
    "kwargs, message",
    [({"length": 7}, "even"), ({"length": -2}, "non-negative"), ({"length": 20, "depth": 11},
     "at most"), ({"depth": 3, "max_depth": 4}, "not both"), ({"depth": 0}, "at least 1"),
     ({"max_depth": -1}, "non-negative"), ({"method": "walk"}, "unknown method")],
)
def test_impossible_requests_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Dyck().sample(5, seed=0, **kwargs)
