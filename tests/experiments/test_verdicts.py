"""Verdicts wait for convergence: "not converged" when any run behind a row did not converge,
"budget-limited" when twice the budget closes more than half the gap, "differs" only when the gap
survives it; both budgets' figures are kept."""

import json

import pytest

from course_rnn.experiments.replication import (
    VERDICTS,
    Claim,
    Measurement,
    Replication,
    Row,
    converged_by_model,
    deciding_models,
    judge,
    judged_rows,
    needs_twice,
    twice_the_budget,
)
from course_rnn.training import Convergence, History


def record(ok: bool) -> Convergence:
    return Convergence(criterion="c", converged=ok, stopped="criterion met" if ok else
                       "budget spent", reason="r", epochs=10, steps=100, monitor="train_loss")


#: A doubled budget's measurement that no verdict below may read (it would change the label).
UNREAD = Measurement(0.0, agrees=False, gap=9.9, runs=[])


def untrainable(min_epochs, resume):
    raise AssertionError("nothing is deciding: nothing may be trained")


def test_any_unconverged_run_means_not_converged():
    first = Measurement(0.5, agrees=False, gap=0.4, runs=[record(True), record(False)])
    verdict = judge(first, doubled=UNREAD)
    assert verdict.label == "not converged" and "1 of 2 runs" in verdict.reason
    # even an agreeing figure is no agreement when a run behind it had not finished
    assert judge(Measurement(0.9, True, 0.0, [record(False)]), UNREAD).label == "not converged"


def test_agreement_needs_no_second_budget():
    verdict = judge(Measurement(0.9, True, 0.0, [record(True), True]), doubled=UNREAD)
    assert verdict.label == "agrees" and verdict.doubled is None


def test_a_gap_that_closes_at_twice_the_budget_is_budget_limited():
    first = Measurement(0.6, agrees=False, gap=0.3, runs=[record(True)])
    closes = judge(first, Measurement(0.8, False, 0.1, [record(True)]))
    assert closes.label == "budget-limited" and "0.3 to 0.1" in closes.reason
    agrees_later = judge(first, Measurement(0.9, True, 0.0, [record(False)]))
    assert agrees_later.label == "budget-limited"


def test_a_gap_that_survives_twice_the_budget_differs():
    first = Measurement(0.6, agrees=False, gap=0.3, runs=[record(True)])
    verdict = judge(first, Measurement(0.62, False, 0.28, [record(True)]))
    assert verdict.label == "differs" and "persists" in verdict.reason
    saved = verdict.to_json()
    assert saved["budget_1x"]["gap"] == 0.3 and saved["budget_2x"]["gap"] == 0.28
    assert saved["budget_2x"]["runs_converged"] == 1
    unfinished = judge(first, Measurement(0.62, False, 0.28, [record(False)]))
    assert unfinished.label == "not converged"


def test_a_disagreement_without_a_doubled_budget_is_refused():
    with pytest.raises(ValueError, match="twice the budget"):
        judge(Measurement(0.6, False, 0.3, [record(True)]))
    with pytest.raises(ValueError, match="gap must be a number ≥ 0"):
        Measurement(0.6, False, -0.3)
    with pytest.raises(TypeError, match="Measurement"):
        judge(0.6)


def test_judge_reads_the_doubled_budget_as_data_only():
    first = Measurement(0.6, agrees=False, gap=0.3, runs=[record(True)])
    assert judge(Measurement(0.9, True, 0.0, [record(True)]), first).doubled is None
    for not_data in (lambda: first, 0.6):  # a function that would train is refused, unread
        with pytest.raises(TypeError, match="doubled must be a Measurement"):
            judge(first, not_data)


def test_needs_twice_only_for_a_converged_disagreement():
    assert needs_twice(Measurement(0.6, False, 0.3, [record(True)]))
    assert not needs_twice(Measurement(0.6, False, 0.3, [record(False)]))
    assert not needs_twice(Measurement(0.9, True, 0.0, [record(True)]))


def history(epochs: float) -> History:
    h = History()
    h.convergence = Convergence(criterion="c", converged=True, stopped="criterion met",
                                reason="r", epochs=epochs, steps=10, monitor="train_loss")
    return h


def test_twice_the_budget_continues_the_deciding_runs_from_where_they_stopped():
    first = {("srn", 0): history(3), ("srn", 1): history(2.5), ("gru", 0): history(7)}
    calls = []

    def train_again(min_epochs, resume):
        calls.append((min_epochs, resume))
        return {key: f"{key} to {n}" for key, n in min_epochs.items()}

    again = twice_the_budget(first, [("srn", 1), ("srn", 0), ("srn", 1)], train_again)
    assert again == {("srn", 1): "('srn', 1) to 6", ("srn", 0): "('srn', 0) to 6"}
    assert len(calls) == 1 and calls[0][1] == {k: first[k] for k in [("srn", 1), ("srn", 0)]}
    assert twice_the_budget(first, [], untrainable) == {}  # nothing deciding: nothing trained
    assert twice_the_budget({"a": 1.25}, ["a"], lambda m, r: {"a": m["a"]},
                            epochs=lambda run: run) == {"a": 2.5}  # a fraction, doubled
    with pytest.raises(KeyError, match="no first run"):
        twice_the_budget(first, [("lstm", 0)], train_again)
    with pytest.raises(ValueError, match="expected"):
        twice_the_budget(first, [("srn", 0)], lambda m, r: {})


def test_rows_carry_the_verdict_and_its_evidence_into_results_json(tmp_path):
    verdict = judge(Measurement(0.6, False, 0.3, [record(True)]),
                    Measurement(0.61, False, 0.29, [record(True)]))
    rows = [Row("accuracy", "0.90 (Table 1)", "0.60", "note", verdict=verdict),
            Row("parameters", "—", "12", verdict="not comparable"), Row("info", "—", "1")]
    assert [r.verdict for r in rows] == ["differs", "not comparable", ""]
    assert rows[0].evidence["budget_2x"]["value"] == 0.61
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        Row("x", "1", "2", verdict="maybe")
    history = History()
    history.epochs = [{"epoch": 1, "train_loss": 0.5, "seconds": 0.1}]
    history.convergence = record(True)
    result = Replication(experiment="demo", title="Demo", scale="quick", seeds=[0],
                         device="cpu", settings={}, numbers={"accuracy": 0.6, "p": 12, "i": 1},
                         rows=rows, runs={"LSTM seed 0": history})
    assert "| verdict |" in result.table() and "| differs |" in result.table()
    assert result.convergence_report() == "LSTM seed 0: " + str(record(True))
    assert result.unconverged() == []
    result.save(tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["table"][0]["verdict"] == "differs"
    assert saved["table"][0]["evidence"]["budget_1x"]["gap"] == 0.3
    assert saved["runs"]["LSTM seed 0"]["convergence"]["converged"] is True
    assert saved["runs"]["LSTM seed 0"]["curve"]["train_loss"] == [0.5]
    assert set(VERDICTS) == {"agrees", "differs", "budget-limited", "not converged",
                             "not comparable"}




def _unclear_check(n):
    """A rule that cannot tell when its two readings disagree (agreement's attractor mixes)."""
    a, b = n["a"], n["b"]
    agrees = (a < 1) if (a < 1) == (b < 1) else None
    return f"{a:.1f}", a, agrees, max(0.0, min(a, b) - 1)


def test_a_rule_that_cannot_tell_is_not_comparable_and_continues_nothing():
    claim = Claim("x", "paper", _unclear_check, ("M",))
    unclear = {"a": 0.5, "b": 2.0, "ok": True}
    assert deciding_models([claim], unclear, lambda n, m: [n["ok"]]) == []
    row, = judged_rows([claim], unclear, None, lambda n, m: [n["ok"]])
    assert row.verdict == "not comparable" and row.evidence == {}
    row, = judged_rows([claim], {**unclear, "ok": False}, None, lambda n, m: [n["ok"]])
    assert row.verdict == "not converged"  # no comparison before every run has converged


def test_a_rule_that_cannot_tell_at_twice_the_budget_counts_as_the_gap_closed():
    claim = Claim("x", "paper", _unclear_check, ("M",))
    clear = {"a": 3.0, "b": 2.0, "ok": True}
    assert deciding_models([claim], clear, lambda n, m: [n["ok"]]) == ["M"]
    row, = judged_rows([claim], clear, {"a": 0.5, "b": 2.5, "ok": True},
                       lambda n, m: [n["ok"]])
    assert row.verdict == "budget-limited"
    assert row.evidence["budget_2x"] == {"value": 0.5, "agrees": True, "gap": 0.0, "runs": 1,
                                         "runs_converged": 1}


def test_rows_among_the_claims_are_kept_in_place_and_a_twice_note_only_when_read():
    def check(n):
        return f"{n['v']:.1f}", n["v"], n["v"] < 1, max(0.0, n["v"] - 1)

    claim = Claim("x", "paper", check, ("M",), note="first",
                  twice_note=lambda n: f"at twice the budget {n['v']:.1f}")
    informs = Row("y", "—", "3", "only informs")
    rows = judged_rows([informs, claim, informs], {"v": 0.5}, None, lambda n, m: [True])
    assert [r.quantity for r in rows] == ["y", "x", "y"] and rows[1].note == "first"
    assert deciding_models([informs, claim], {"v": 2.0}, lambda n, m: [True]) == ["M"]
    rows = judged_rows([claim, informs], {"v": 2.0}, {"v": 1.9}, lambda n, m: [True])
    assert rows[0].verdict == "differs"
    assert rows[0].note == "first; at twice the budget 1.9"


def test_converged_by_model_reads_the_runs_behind_a_row_from_numbers_kept_by_model():
    from types import SimpleNamespace as Run

    numbers = Run(runs={"A": [Run(converged=True), Run(converged=False)],
                        "B": [Run(converged=True)]})
    assert converged_by_model(numbers, ("B", "A")) == [True, True, False]
    assert converged_by_model(numbers, ()) == []
    unconverged = Claim("x", "paper", lambda n: ("2.0", 2.0, False, 1.0), ("A",))
    row, = judged_rows([unconverged], numbers, None, converged_by_model)
    assert row.verdict == "not converged"
