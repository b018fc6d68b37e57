"""``chomsky`` (chapter 8): the settings, one tiny run end to end, and the table's rules."""

import json

import numpy as np
import pytest

from course_rnn.experiments import chomsky
from course_rnn.experiments.chomsky import (
    SETTINGS,
    TABLE_2,
    Cell,
    RunNumbers,
    compared,
    paper_figure,
    t_interval,
)
from course_rnn.languages.chomsky import TRANSDUCTIONS

TINY = dict(tasks=("parity_check", "reverse_string", "anbn"), hidden_size=6, max_train_length=3,
            max_test_length=5, steps=40, eval_every=20, valid_per_length=2, test_samples=4)


def test_task_names_are_the_library_s():
    assert chomsky.TASK_NAMES == tuple(TRANSDUCTIONS)
    assert set(TABLE_2) <= set(TRANSDUCTIONS)


@pytest.mark.parametrize("bad, says", [
    (dict(max_test_length=8), "max_test_length"),
    (dict(tasks=("palindrome",)), "tasks"),
    (dict(fitted=1.5), "fitted"),
    (dict(eval_every=10_000), "eval_every"),
])
def test_bad_settings_are_named(bad, says):
    with pytest.raises(ValueError, match=says):
        SETTINGS.at("quick", bad)


def test_a_tiny_run_reports_every_run_and_a_verdict_per_row(tmp_path):
    result = chomsky.run("quick", seeds=[0, 1], progress=False, settings=TINY)
    numbers = result.numbers
    assert len(numbers.runs) == 3 * 4 * 2 and len(result.runs) >= 24
    for r in numbers.runs:
        assert r.status in ("fitted", "stalled", "ran out of steps")  # first runs: never "stuck"
        assert 0 <= r.score <= 100 and r.lengths[-1] == 5
    cell = numbers.cell("reverse_string", "Stack-RNN")
    assert cell.low <= cell.mean <= cell.high and cell.best >= cell.mean
    verdicts = {row.quantity: row.verdict for row in result.rows}
    assert verdicts["reverse_string: URN"] == ""  # no published figure
    assert all(verdicts[f"parity_check: {m}"] for m in ("SRN", "LSTM", "Stack-RNN"))
    assert "seed 0" in result.convergence_report()
    json.dumps(result.to_json())
    assert {"lengths", "curves_parity_check"} <= set(result.figures)


def test_a_row_agrees_on_the_same_side_of_90():
    cell = Cell(best=95.0, mean=80.0, low=60.0, high=100.0, best_sequence=10.0, n=2, fitted=2,
                stalled=0, stuck=0, out_of_steps=0, generalised=1)
    assert compared(cell, 100.0) == (95.0, True, 0.0)
    assert compared(cell, 62.0) == (95.0, False, 5.0)
    assert not compared(cell, 100.0, sequence=True)[1]  # 10 % of strings fully right
    assert paper_figure("anbn", "LSTM") == (100.0, True)
    assert paper_figure("dyck_completion", "LSTM") == (None, False)


def test_cells_count_how_runs_ended_and_generalised():
    runs = [RunNumbers("t", "m", s, status, 100, 1.0, score, 0.0, [1], [1.0])
            for s, (status, score) in enumerate([("fitted", 95.0), ("fitted", 60.0),
                                                 ("stalled", 50.0), ("stuck", 40.0),
                                                 ("ran out of steps", 55.0)])]
    cell = Cell.of(runs[:3])
    assert (cell.fitted, cell.stalled, cell.generalised, cell.best) == (2, 1, 1, 95.0)
    assert cell.endings() == "fitted 2/3, stalled 1"
    assert Cell.of(runs).endings() == "fitted 2/5, stalled 1, stuck 1, ran out of steps 1"
    low, high = t_interval(np.array([95.0, 60.0, 50.0]))
    assert (cell.low, cell.high) == (low, high) and low < 68.33 < high


def test_a_disagreement_is_judged_on_the_doubled_measurement_given_as_data():
    """to_double picks every run of a converged, disagreeing row (none of a row without a
    published figure); table_rows judges it on the numbers of the continued runs it is given."""
    def run(model, score=95.0, status="fitted"):
        return RunNumbers("reverse_string", model, 0, status, 100, 1.0, score, 0.0, [1], [1.0])

    numbers = chomsky.ChomskyNumbers([run("SRN"), run("URN")])
    runs = {("reverse_string", m, 0): chomsky.TrainedRun("reverse_string", m, 0, None, True,
                                                          None, "fitted")
            for m in ("SRN", "URN")}
    assert [c.quantity for c in chomsky.claims(numbers)] == ["reverse_string: SRN"]  # no URN
    assert chomsky.to_double(numbers, runs) == [("reverse_string", "SRN", 0)]
    settings = SETTINGS.at("quick", TINY)
    with pytest.raises(ValueError, match="twice the budget"):
        chomsky.table_rows(numbers, runs, settings, "quick")
    again = {key: run for key, run in runs.items() if key[1] == "SRN"}
    for best, verdict in ((95.0, "differs"), (91.0, "budget-limited")):
        doubled = chomsky.ChomskyNumbers([run("SRN", best)])
        rows = {r.quantity: r for r in chomsky.table_rows(numbers, runs, settings, "quick", doubled,
                                                          again)}
        assert rows["reverse_string: SRN"].verdict == verdict
        assert rows["reverse_string: URN"].note == "no published figure"
    numbers.doubled_runs = [run("SRN", status="stuck")]
    rows = {r.quantity: r
            for r in chomsky.table_rows(numbers, runs, settings, "quick", doubled, again)}
    assert rows["reverse_string: SRN"].note.endswith(
        "continued to twice their steps and on to their own stop: best 95.0, fitted 0/1, stuck 1")


def test_the_cells_are_computed_from_the_runs_and_saved_as_before():
    """A cell is no Record: computed from the runs where it is read; results.json still holds
    every cell (``cells``, and ``doubled`` for the continued runs), written from the runs."""
    runs = [RunNumbers(t, m, s, "fitted", 100, 1.0, 50.0 + s, 0.0, [1], [1.0])
            for t in ("a", "b") for m in ("SRN", "LSTM") for s in range(3)]
    numbers = chomsky.ChomskyNumbers(runs)
    assert list(numbers.cells) == ["a", "b"] and list(numbers.cells["a"]) == ["SRN", "LSTM"]
    assert numbers.cell("b", "LSTM") == Cell.of(runs[9:]) == numbers.cells["b"]["LSTM"]
    assert numbers.doubled_cell("a", "SRN") is None
    with pytest.raises(KeyError):
        numbers.cell("c", "SRN")
    saved = numbers.to_json()
    assert list(saved) == ["runs", "cells"] and saved["cells"]["a"]["SRN"]["mean"] == 51.0
    numbers.doubled_runs = runs[:3]
    saved = json.loads(json.dumps(numbers.to_json()))
    assert list(saved) == ["runs", "doubled_runs", "cells", "doubled"]
    assert saved["doubled"] == {"a": {"SRN": saved["cells"]["a"]["SRN"]}}
    assert numbers.doubled_cell("a", "SRN") == numbers.cell("a", "SRN")


def test_run_status_says_stuck_only_when_continuing_confirmed_the_plateau():
    from course_rnn.experiments.chomsky import run_status

    class Stop:
        def __init__(self, accuracy, converged):
            self.epochs = [{"valid_accuracy": accuracy}]
            self.convergence = type("C", (), {"converged": converged})()

    assert run_status(Stop(0.995, True), 0.99) == "fitted"
    assert run_status(Stop(0.7, True), 0.99) == "stalled"
    assert run_status(Stop(0.7, True), 0.99, continued=True) == "stuck"
    assert run_status(Stop(0.7, False), 0.99, continued=True) == "ran out of steps"


def test_a_continued_run_may_pass_its_minimum_and_stop_on_its_own():
    """The re-check trains a stalled run to at least twice its steps and lets it stop there on
    its own criterion: its cap is twice the first cap, and never equal to the minimum (a cap at
    the minimum made every run still improving there 'ran out of steps')."""
    settings = SETTINGS.at("quick", dict(TINY, tasks=("parity_check",), steps=200))
    first = chomsky.train_run("parity_check", "SRN", 0, settings)
    assert first.status in ("fitted", "stalled")
    steps = first.history.convergence.steps
    again = chomsky.train_run("parity_check", "SRN", 0, settings, first=first,
                              min_epochs=2 * steps / settings.eval_every)
    assert again.history.settings["steps_cap"] == max(
        2 * settings.steps, 2 * steps + settings.patience * settings.eval_every)
    assert again.history.convergence.steps >= 2 * steps
    assert again.status in ("fitted", "stuck", "ran out of steps")


def test_the_counting_bound_and_a_run_s_reach():
    from course_rnn.experiments.chomsky import widths

    # 32 units of 32 bits take 2^1024 values: at most 1,024 binary symbols, 512 over 4 symbols
    assert widths.counting_bound(32) == 1024
    assert widths.counting_bound(32, bits=24, symbols=4) == 384
    # a run reaches the longest length up to which every accuracy is ≥ 0.9
    assert widths.reach([1, 2, 3, 4, 5], [1.0, 0.95, 0.9, 0.89, 0.95]) == 3
    assert widths.reach([1, 2], [0.5, 1.0]) == 0 and widths.reach([1, 2], [1, 1]) == 2
    with pytest.raises(ValueError, match="symbols"):
        widths.counting_bound(32, symbols=1)
