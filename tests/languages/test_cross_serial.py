"""Cross-serial dependencies a^m b^n c^m d^n: the family C_k, sampling, next-symbol sets and the
positions B&L 2023 score exactly."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.languages.base import EOS, corrupt
from course_rnn.languages.cross_serial import CrossSerial


def members_by_definition(max_total):
    """Every a^m b^n c^m d^n with m, n >= 1 and m + n <= max_total, written out."""
    return {
        tuple("a" * m + "b" * n + "c" * m + "d" * n)
        for m in range(1, max_total)
        for n in range(1, max_total - m + 1)
    }


def test_family_sizes_match_a_hand_count():
    # C_k holds the (m, n) with m, n >= 1 and m + n < k: 1 + 2 + ... + (k - 2) of them
    assert CrossSerial.family(3) == [tuple("abcd")]
    assert CrossSerial.family(4) == [tuple("abcd"), tuple("abbcdd"), tuple("aabccd")]
    assert len(CrossSerial.family(8)) == 21 and len(CrossSerial.family(10)) == 36
    assert CrossSerial.family(2) == []
    assert set(CrossSerial.family(8)) < set(CrossSerial.family(10))
    assert set(CrossSerial.family(10)) == members_by_definition(9)


def test_string():
    assert CrossSerial.string(2, 1) == tuple("aabccd")
    with pytest.raises(ValueError, match="n must be"):
        CrossSerial.string(2, 0)


def test_valid_next_agrees_with_membership_by_brute_force(brute_force):
    brute_force(CrossSerial(), members_by_definition(9), max_prefix=6)


def test_valid_next_examples():
    x = CrossSerial()
    assert x.valid_next("") == {"a"}
    assert x.valid_next("aa") == {"a", "b"}
    assert x.valid_next("aab") == {"b", "c"}
    assert x.valid_next("aabc") == {"c"}
    assert x.valid_next("aabccd") == {EOS}
    assert x.valid_next("ac") == frozenset()


def test_must_be_exact_after_c_or_d_only():
    x = CrossSerial()
    assert [x.must_be_exact("aabbccdd"[:i]) for i in range(9)] == [False] * 5 + [True] * 4
    with pytest.raises(ValueError, match="'e'"):
        x.must_be_exact("abe")


def test_exact_positions_really_are_forced():
    x = CrossSerial()
    for s in x.family(10):
        for i in range(len(s) + 1):
            if x.must_be_exact(s[:i]):
                assert len(x.valid_next(s[:i])) == 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lo=st.integers(2, 8), span=st.integers(0, 6))
def test_samples_are_members_within_bounds(seed, lo, span):
    x = CrossSerial()
    for s in x.sample(20, seed, max_total=lo + span, min_total=lo):
        assert x.is_member(s) and lo <= len(s) // 2 <= lo + span


def test_sampling_is_uniform_over_the_family_and_reproducible():
    x = CrossSerial()
    counts = Counter(x.sample(21000, seed=0))  # default: C_8
    assert set(counts) == set(x.family(8))
    assert all(850 < c < 1150 for c in counts.values()), counts
    longer = set(x.sample(500, seed=0, max_total=9, min_total=8))
    assert longer == set(x.family(10)) - set(x.family(8))
    assert x.sample(30, seed=5) == x.sample(30, seed=5)
    assert x.sample(30, seed=5) != x.sample(30, seed=6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_corrupted_strings_are_rejected_unless_still_members(seed):
    x, rng = CrossSerial(), np.random.default_rng(seed)
    members = members_by_definition(12)
    for s in x.sample(10, rng, max_total=10):
        bad = corrupt(s, x.alphabet, rng)
        assert x.is_member(bad) == (bad in members)


def test_bad_parameters_and_foreign_symbols():
    x = CrossSerial()
    with pytest.raises(ValueError, match="min_total"):
        x.sample(5, seed=0, max_total=3, min_total=4)
    with pytest.raises(ValueError, match="min_total"):
        x.sample(5, seed=0, min_total=1)
    with pytest.raises(ValueError, match="'e'"):
        x.is_member("abce")
    with pytest.raises(ValueError, match="k must be"):
        x.family(-1)
