"""``course_rnn.claims``: each kind of claim is recorded, and fails with its words and numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from course_rnn import claims
from course_rnn.claims import claim, exact, holds


@pytest.fixture(autouse=True)
def empty_record():
    """Each test starts and ends with an empty RECORD (other tests' claims are not ours)."""
    kept = list(claims.RECORD)
    claims.RECORD.clear()
    yield
    claims.RECORD[:] = kept


def test_a_numeric_claim_records_its_value_bound_and_margin():
    found = claim(np.float32(0.25), "<", 0.5, "the loss is low")
    assert claims.RECORD == [found]
    assert (found.kind, found.held, found.value, found.op, found.bound) == (
        "numeric", True, 0.25, "<", 0.5)
    assert found.margin == pytest.approx(0.25)


def test_a_failed_numeric_claim_is_recorded_and_names_its_numbers():
    with pytest.raises(AssertionError, match=r"the loss is low: measured 0\.75, claimed < 0\.5"):
        claim(0.75, "<", 0.5, "the loss is low")
    assert len(claims.RECORD) == 1 and not claims.RECORD[0].held


def test_the_margin_is_positive_on_the_right_side_for_both_directions():
    assert claim(3, ">", 1, "above").margin == 2
    assert claim(1, "<", 3, "below").margin == 2
    assert claims.Claim("x", "numeric", False, 0.0, ">=", 1.0).margin == -1
    assert claims.Claim("x", "numeric", False, 2.0, "<=", 1.0).margin == -1
    assert exact(True, "built so").margin is None


def test_a_ratio_on_the_log_scale_has_the_log_of_its_quotient_as_margin():
    """A ratio 20× against 10 is one doubling past its bound, whichever way it is stated; so a
    ratio ten times further past it is not less safe for moving ten times more."""
    above = claim(20, ">", 10, "twenty times faster", scale="log")
    below = claim(0.05, "<", 0.1, "a twentieth", scale="log")
    assert above.margin == pytest.approx(math.log(2)) == below.margin
    assert claim(200, ">", 10, "two hundred times", scale="log").margin == pytest.approx(
        math.log(20))
    assert claims.Claim("x", "numeric", False, 5.0, ">", 10.0, scale="log").margin == \
        pytest.approx(-math.log(2))
    assert claims.Claim("x", "numeric", False, 0.0, ">", 10.0, scale="log").margin == -math.inf
    assert claim(0.0, "<", 0.1, "nothing at all", scale="log").margin == math.inf


def test_a_nan_value_never_holds():
    with pytest.raises(AssertionError, match="measured nan"):
        claim(float("nan"), "<", 1.0, "the loss is finite and low")
    assert not claims.RECORD[0].held and math.isnan(claims.RECORD[0].value)


def test_a_claim_over_runs_says_how_many_runs():
    found = holds(True, "every run fitted", runs=5)
    assert (found.kind, found.held, found.runs) == ("over runs", True, 5)
    with pytest.raises(AssertionError, match=r"every run fitted \(over 5 runs\): seed 3"):
        holds(False, "every run fitted", runs=5, detail="seed 3")
    assert [c.held for c in claims.RECORD] == [True, False]


def test_a_structural_claim_is_recorded_and_raises_with_its_detail():
    assert exact(np.bool_(True), "scratch equals torch").kind == "structural"
    with pytest.raises(AssertionError, match="scratch equals torch: max difference 0.1"):
        exact(False, "scratch equals torch", detail="max difference 0.1")
    assert [c.held for c in claims.RECORD] == [True, False]
    assert claims.recorded()[1] == {"says": "scratch equals torch", "kind": "structural",
                                    "held": False, "value": None, "op": None, "bound": None,
                                    "runs": None, "scale": "linear"}


def test_a_detail_may_be_an_array():
    """Chapter 1 passed the PCA's explained variance as the detail: an array compared with the
    empty string is an array, whose truth is ambiguous — the claim must still be checked."""
    assert exact(True, "PCA keeps part of the variance", detail=np.array([0.2, 0.1])).held
    with pytest.raises(AssertionError, match=r"over 2 runs\): \[0.2 0.1\]"):
        holds(False, "both runs fitted", runs=2, detail=np.array([0.2, 0.1]))


@pytest.mark.parametrize("call, error, words", [
    (lambda: claim(1, "==", 1, "same"), ValueError, "op must be one of"),
    (lambda: claim(1, "<", 2, "  "), ValueError, "must say what it claims"),
    (lambda: exact(True, None), ValueError, "must say what it claims"),
    (lambda: claim("1", "<", 2, "a string"), TypeError, "value must be one real number"),
    (lambda: claim(np.array([1.0, 2.0]), "<", 3, "two numbers"), TypeError,
     "value must be one real number"),
    (lambda: claim(True, "<", 2, "a bool"), TypeError, "value must be one real number"),
    (lambda: claim(1, "<", float("nan"), "a nan bound"), ValueError, "the bound is NaN"),
    (lambda: claim(20, ">", 10, "a ratio", scale="ln"), ValueError, "scale must be one of"),
    (lambda: claim(20, ">", 0, "a ratio", scale="log"), ValueError, "bound must be positive"),
    (lambda: holds(True, "no runs", runs=0), ValueError, r"runs must be .*≥ 1"),
    (lambda: holds(True, "runs as a bool", runs=True), ValueError, "runs must be"),
])
def test_a_malformed_claim_is_refused_clearly_and_not_recorded(call, error, words):
    with pytest.raises(error, match=words):
        call()
    assert claims.RECORD == []


def test_slack_is_the_worst_margin_in_spreads():
    assert claims.slack([2.0, 1.0, 3.0], 0.25) == 4.0
    assert claims.slack([-1.0, 2.0], 0.5) == -2.0
    assert claims.slack([1.0, 1.0], 0.0) == math.inf
    assert claims.slack([0.0, 0.0], 0.0) == -math.inf
