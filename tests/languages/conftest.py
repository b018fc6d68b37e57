"""Shared checks for the language tests."""

from itertools import product

import pytest

from course_rnn.languages.base import EOS


def check_against_brute_force(language, members, max_prefix):
    """is_member and valid_next agree with an explicit member set on every string up to
    ``max_prefix`` symbols (``members`` must hold every member that such prefixes can reach)."""
    prefixes = {m[:i] for m in members for i in range(len(m) + 1)}
    for size in range(max_prefix + 1):
        for p in product(language.alphabet, repeat=size):
            assert language.is_member(p) == (p in members), p
            expected = {x for x in language.alphabet if p + (x,) in prefixes}
            expected |= {EOS} if p in members else set()
            assert language.valid_next(p) == expected, p


@pytest.fixture(scope="session")
def brute_force():
    """``brute_force(language, members, max_prefix)``: see :func:`check_against_brute_force`."""
    return check_against_brute_force
