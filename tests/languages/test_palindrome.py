"""Palindromes w c w^R and w w^R: generator, recogniser and next-symbol sets by brute force."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.base import corrupt
from course_rnn.languages.palindrome import Palindrome


def members_by_definition(letters, marker, max_half):
    """Every w marker w^R (or w w^R) with |w| <= max_half, written out."""
    middle = (marker,) if marker else ()
    return {
        w + middle + w[::-1]
        for size in range(max_half + 1)
        for w in product(letters, repeat=size)
    }


def test_construction_and_string():
    marked, even = Palindrome(), Palindrome(marker=None)
    assert marked.alphabet == ("a", "b", "c") and even.alphabet == ("a", "b")
    assert marked.string("ab") == tuple("abcba") and even.string("ab") == tuple("abba")
    assert Palindrome(["x", "y", "z"], marker="#").string(["z"]) == ("z", "#", "z")


def test_membership_examples():
    marked, even = Palindrome(), Palindrome(marker=None)
    for good in ["c", "aca", "abcba", "bbacabb"]:
        assert marked.is_member(good), good
    for bad in ["", "aa", "abcab", "acac", "cc", "aacca", "abca"]:
        assert not marked.is_member(bad), bad
    for good in ["", "aa", "abba", "baab"]:
        assert even.is_member(good), good
    for bad in ["a", "aba", "ab", "abab"]:
        assert not even.is_member(bad), bad


def test_valid_next_agrees_with_membership_by_brute_force(brute_force):
    marked = Palindrome()
    brute_force(marked, members_by_definition("ab", "c", 7), max_prefix=6)
    even = Palindrome(marker=None)
    brute_force(even, members_by_definition("ab", None, 9), max_prefix=8)


def test_second_half_is_forced_only_with_a_marker():
    assert Palindrome().deterministic_positions("abcba") == [False] * 3 + [True] * 3
    assert Palindrome(marker=None).deterministic_positions("abba") == [False] * 5


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lo=st.integers(0, 8), span=st.integers(0, 6),
       marker=st.sampled_from(["c", None]))
def test_samples_are_members_within_bounds(seed, lo, span, marker):
    language = Palindrome(marker=marker)
    for s in language.sample(20, seed, min_half=lo, max_half=lo + span):
        assert language.is_member(s) and lo <= len(s) // 2 <= lo + span


def test_sampling_is_reproducible():
    language = Palindrome()
    assert language.sample(30, seed=2) == language.sample(30, seed=2)
    assert language.sample(30, seed=2) != language.sample(30, seed=3)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), marker=st.sampled_from(["c", None]))
def test_corrupted_strings_are_rejected_unless_still_members(seed, marker):
    language, rng = Palindrome(marker=marker), np.random.default_rng(seed)
    members = members_by_definition("ab", marker, 7)
    for s in language.sample(10, rng, max_half=6):
        bad = corrupt(s, language.alphabet, rng)
        assert language.is_member(bad) == (bad in members)


def test_bad_parameters_and_foreign_symbols():
    with pytest.raises(ValueError, match="must not be in the alphabet"):
        Palindrome("abc", marker="c")
    with pytest.raises(ValueError, match="repeated"):
        Palindrome("aab")
    with pytest.raises(ValueError, match="non-empty"):
        Palindrome("")
    with pytest.raises(ValueError, match="min_half"):
        Palindrome().sample(3, seed=0, min_half=4, max_half=2)
    with pytest.raises(ValueError, match="'d'"):
        Palindrome().is_member("adca")
    with pytest.raises(ValueError, match="'c'"):
        Palindrome(marker=None).valid_next("ac")
    with pytest.raises(ValueError, match="'c'"):
        Palindrome().string("ac")
