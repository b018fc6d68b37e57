"""a^n b^n and a^n b^n c^n: generator, recogniser and next-symbol sets against brute force."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.anbn import AnBn, AnBnCn
from course_rnn.languages.base import corrupt


def members_by_definition(letters, max_n):
    """The members with n <= max_n, written out from the definition."""
    return {tuple(x for x in letters for _ in range(n)) for n in range(1, max_n + 1)}


def test_string_builds_the_member():
    assert AnBn.string(3) == tuple("aaabbb")
    assert AnBnCn.string(2) == tuple("aabbcc")
    with pytest.raises(ValueError, match="n must be a positive integer"):
        AnBn.string(0)


def test_membership_examples():
    language = AnBn()
    assert language.is_member("ab") and language.is_member("aaabbb")
    for bad in ["", "a", "b", "ba", "aab", "abb", "abab", "aabbb"]:
        assert not language.is_member(bad), bad
    assert AnBnCn().is_member("aabbcc")
    assert not AnBnCn().is_member("aabbc") and not AnBnCn().is_member("aabcc")


def test_valid_next_agrees_with_membership_by_brute_force(brute_force):
    brute_force(AnBn(), members_by_definition("ab", 9), max_prefix=8)
    brute_force(AnBnCn(), members_by_definition("abc", 8), max_prefix=7)


def test_deterministic_positions():
    assert AnBn().deterministic_positions("aabb") == [True, False, False, True, True]
    assert AnBnCn().deterministic_positions("abc") == [True, False, True, True]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lo=st.integers(1, 15), span=st.integers(0, 10),
       cls=st.sampled_from([AnBn, AnBnCn]))
def test_samples_are_members_within_bounds(seed, lo, span, cls):
    language = cls(min_n=lo, max_n=lo + span)
    for s in language.sample(20, seed):
        assert language.is_member(s)
        assert lo <= len(s) // len(cls.letters) <= lo + span


def test_sampling_covers_the_range_and_is_reproducible():
    language = AnBn(min_n=2, max_n=5)
    counts = {len(s) // 2 for s in language.sample(200, seed=0)}
    assert counts == {2, 3, 4, 5}
    assert language.sample(30, seed=7) == language.sample(30, seed=7)
    assert language.sample(30, seed=7) != language.sample(30, seed=8)
    assert language.sample(0, seed=1) == []


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cls=st.sampled_from([AnBn, AnBnCn]))
def test_corrupted_strings_are_rejected_unless_still_members(seed, cls):
    language, rng = cls(), np.random.default_rng(seed)
    members = members_by_definition(cls.letters, 25)
    for s in language.sample(10, rng):
        bad = corrupt(s, language.alphabet, rng)
        assert language.is_member(bad) == (bad in members)


def test_bad_parameters_and_foreign_symbols():
    with pytest.raises(ValueError, match="min_n"):
        AnBn(min_n=5, max_n=2)
    with pytest.raises(ValueError, match="min_n"):
        AnBn(min_n=0)
    with pytest.raises(ValueError, match="'x'"):
        AnBn().is_member("axb")
    with pytest.raises(ValueError, match="'c'"):
        AnBn().valid_next("aac")
    with pytest.raises(ValueError, match="n must be"):
        AnBn().sample(-1, seed=0)
