"""course_rnn.checks: the integer checks every layer uses."""

import numpy as np
import pytest

from course_rnn.checks import check_at_least, check_count, check_integer, check_positive


def test_integers_pass_and_come_back_as_int():
    assert check_positive(3, "n") == 3 and check_count(0, "n") == 0
    assert type(check_positive(np.int64(4), "n")) is int
    assert check_integer(2, "vocab_size", 2) == 2 and check_at_least(0, "seed", 0) == 0


@pytest.mark.parametrize("value", [0, -1, True, 2.0, "3", None])
def test_what_is_not_a_positive_integer_is_named(value):
    with pytest.raises(ValueError, match=f"hidden_size must be a positive integer, got {value!r}"):
        check_positive(value, "hidden_size")


def test_the_bound_is_said_in_words():
    with pytest.raises(ValueError, match="n must be a non-negative integer ≤ 100,000,000, got -1"):
        check_count(-1)
    with pytest.raises(ValueError, match="vocab_size must be an integer ≥ 2, got 1"):
        check_integer(1, "vocab_size", 2)


def test_check_at_least_follows_pythons_convention():
    with pytest.raises(TypeError, match="k must be an integer, got 2.5"):
        check_at_least(2.5, "k", 1)
    with pytest.raises(TypeError, match="must be an integer, got False"):
        check_at_least(False, "k", 0)
    with pytest.raises(ValueError, match="n must be at least 2, got 1"):
        check_at_least(1, "n", 2)


def test_a_count_of_training_has_a_ceiling_that_is_said():
    from course_rnn.checks import MAX_COUNT, check_training_count

    assert check_training_count(MAX_COUNT, "steps") == MAX_COUNT
    assert check_training_count(0, "patience", minimum=0) == 0
    with pytest.raises(ValueError, match="steps must be a positive integer ≤ 100,000,000, got "
                                         "1000000000000"):
        check_training_count(10**12, "steps")
    with pytest.raises(ValueError, match="jobs must be an integer from 2 to 8, got 9"):
        check_integer(9, "jobs", 2, 8)
