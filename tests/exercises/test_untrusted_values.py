"""The batch survives any one submission: whatever a sandbox reports (an int of 351 digits for a
float case, NaN, infinities, deep or wide containers, fields of any type), comparing it with the
key never raises, a NaN or an infinity never earns a point, and an error while scoring one
submission costs only that submission's row."""

from __future__ import annotations

import json

import pytest

from course_rnn.grading import Assignment, Case, grade_folder, values_match
from course_rnn.grading import batch as batch_module
from course_rnn.grading.assignments import check_key
from course_rnn.grading.values import is_valid, non_finite

from .conftest import EXERCISES, TIME_LIMIT, solution, with_cells

FLOAT = {"t": "float", "v": 4.9682153687802035}
HUGE = 10**350  # 351 digits: parsed (the cap is 400 characters), beyond the float range


def arr(data, shape, dtype="float"):
    return {"t": "array", "dtype": dtype, "shape": shape, "data": data}


REPORTS = [  # odd reports, each compared against every key below
    {"t": "int", "v": HUGE}, {"t": "int", "v": -HUGE}, {"t": "float", "v": float("nan")},
    {"t": "float", "v": float("inf")}, {"t": "float", "v": float("-inf")},
    {"t": "int", "v": HUGE * 10**49}, arr([HUGE, 1.0], [2]), arr([float("nan")], []),
    arr([1.0] * 3, [10**5, 10**5, 10**5]), arr([], [0, 10**6]),
    {"t": "list", "items": [{"t": "int", "v": HUGE}] * 50_000},
    {"t": "dict", "items": [[["unhashable"], FLOAT]]}, {"t": "dict", "items": [["a", FLOAT, 1]]},
    {"t": "list", "items": "xyz"}, {"t": "float", "v": "4.968"}, {"t": "float", "v": None},
    {"t": "float", "v": [4.968]}, {"t": "str", "v": HUGE}, {"t": "raised", "v": HUGE},
    {"t": ["float"], "v": 1.0}, {"t": {"x": 1}}, {"t": None}, {}, [], None, HUGE, "float",
    float("nan"), {"t": "none", "extra": HUGE},
]
KEYS = [FLOAT, {"t": "int", "v": 3}, {"t": "float", "v": 0.0}, arr([1.0, 2.0], [2]),
        {"t": "list", "items": [FLOAT, {"t": "str", "v": "b"}]},
        {"t": "dict", "items": [["a", FLOAT]]}, {"t": "raised", "v": "ValueError"},
        {"t": "float", "v": float("inf")}, {"t": "float", "v": float("nan")}]


def deep(n: int) -> dict:
    d = FLOAT
    for _ in range(n):
        d = {"t": "list", "items": [d]}
    return d


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k["t"])
def test_comparing_any_report_never_raises_and_odd_ones_never_match(key):
    for got in REPORTS + [deep(5), deep(1000), deep(100_000)]:
        assert values_match(got, key) is False, (got, key)
        is_valid(got)  # never raises either


def test_a_huge_int_for_a_float_case_scores_zero_instead_of_stopping_the_batch():
    assert not values_match({"t": "int", "v": HUGE}, FLOAT)
    assert not values_match({"t": "list", "items": [{"t": "int", "v": HUGE}]},
                            {"t": "list", "items": [FLOAT]})
    assert values_match({"t": "int", "v": 3}, {"t": "int", "v": 3})  # exact ints still match
    assert values_match({"t": "int", "v": 5}, {"t": "float", "v": 5.0})


def test_nan_and_infinities_never_pass():
    for bad in (float("nan"), float("inf"), float("-inf")):
        assert not values_match({"t": "float", "v": bad}, {"t": "float", "v": bad})
        assert not values_match(arr([1.0, bad], [2]), arr([1.0, bad], [2]))
        assert not values_match({"t": "float", "v": bad}, {"t": "int", "v": 3})
        assert non_finite(arr([1.0, bad], [2]))
    assert not non_finite({"t": "list", "items": [FLOAT, {"t": "str", "v": "nan"}]})


def test_assign_refuses_a_key_no_answer_could_match():
    a = Assignment("x", [Case("q1", 1, 1.0, "f()")], {}, {"q1": frozenset()})
    with pytest.raises(RuntimeError, match="NaN or an infinity"):
        check_key(a, {"q1/1": {"t": "list", "items": [{"t": "float", "v": float("inf")}]}})
    check_key(a, {"q1/1": FLOAT})


HUGE_REPORT = (  # answers 10**350 and NaN for two cases before the real probes run (a case's
    # first line is its answers)
    "import json, os, sys\n"
    "def answered(case, out):\n"
    "    name = 'forget_bias_for_half_life'\n"
    "    return json.dumps({'id': case, 'events': [{'k': 'function', 'name': name},\n"
    "                                              {'k': 'call', 'name': name, 'out': out}]})\n"
    "line = answered('q3/2', {'t': 'int', 'v': 10**350})\n"
    "nan = answered('q3/3', {'t': 'float', 'v': float('nan')})\n"
    "os.write(int(sys.argv[2]), (line + '\\n' + nan + '\\n').encode())\n")


@pytest.mark.slow
def test_one_submission_that_breaks_scoring_costs_only_its_own_row(tmp_path, monkeypatch):
    """A reported 351-digit int and a NaN score 0 for their cases; an exception while scoring
    one submission gives it a "scoring error" row; the other rows and the CSV are written."""
    folder = tmp_path / "subs"
    folder.mkdir()
    name = "ch03_lstm_cell"
    for stem, nb in {"huge": with_cells(solution(name), HUGE_REPORT),
                     "boom": solution(name), "fine": solution(name)}.items():
        (folder / f"{stem}_{name}.ipynb").write_text(json.dumps(nb))
    real_score = batch_module.score
    calls = []

    def flaky(assignment, records):  # a bug the rules did not foresee, in one submission
        calls.append(1)
        if len(calls) == 2:
            raise OverflowError("int too large to convert to float")
        return real_score(assignment, records)

    monkeypatch.setattr(batch_module, "score", flaky)
    csv_path = tmp_path / "grades.csv"
    results = grade_folder(folder, csv_path, EXERCISES, time_limit=TIME_LIMIT, jobs=1,
                           sandboxed=False)
    rows = {r.submission: r for r in results}
    assert rows["huge_ch03_lstm_cell.ipynb"].points == {"q1": 4.0, "q2": 3.0, "q3": 1.0}
    assert rows["huge_ch03_lstm_cell.ipynb"].run.status == "ok"
    broken = rows["fine_ch03_lstm_cell.ipynb"]  # the second graded (jobs=1: name order)
    assert broken.run.status == "scoring error" and broken.total == 0
    assert any("OverflowError" in note for note in broken.run.notes)
    assert rows["boom_ch03_lstm_cell.ipynb"].total == 10
    text = csv_path.read_text()
    assert len(text.splitlines()) == 4 and "scoring error" in text


def test_what_the_parent_holds_of_one_submission_is_sized_by_the_key():
    """Result lines longer than 16 times the key's largest value cannot match it: they are
    skipped unparsed (one such submission once held 377 MB of the parent's memory)."""
    import tracemalloc

    from course_rnn.grading.collector import Collector, report_caps

    key = json.loads((EXERCISES / "autograder" / "ch03_lstm_cell" / "expected.json").read_text())
    caps = report_caps(key)
    assert caps == {"line_cap": 64 * 2**10, "results_cap": 64 * 2**10 * (len(key) + 4)}
    collector = Collector(0, 1, None, set(key), bwrap_pid=0, **caps)
    items = ", ".join(['{"t": "int", "v": 0}'] * 200_000)  # 4 MB: the old line cap
    tracemalloc.start()
    for case in key:
        collector._results(b'{"id": "%s", "value": {"t": "list", "items": [%s]}}\n'
                           % (case.encode(), items.encode()))
    collector._results(b'{"id": "q3/1", "value": %s}\n' % json.dumps(key["q3/1"]).encode())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert collector.malformed == len(key) and list(collector.records) == ["q3/1"]
    assert peak < 20 * 2**20, peak


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k["t"])
def test_describing_any_report_never_raises(key):
    from course_rnn.grading.values import mismatch

    for got in REPORTS + [deep(5), deep(1000)]:
        assert isinstance(mismatch(got, key), str)


def test_a_wrong_value_is_described_without_the_keys_value():
    from course_rnn.grading.values import mismatch

    key = {"t": "list", "items": [{"t": "float", "v": 0.531}, arr([2.5, 7.25], [2])]}
    cases = {
        "the number at [0] differs by 1–10 %": [{"t": "float", "v": 0.5}, arr([2.5, 7.25], [2])],
        "1 of 2 numbers at [1] differ, the largest by 10–100 % at item 1":
            [{"t": "float", "v": 0.531}, arr([2.5, 5.0], [2])],
        "shape [3] at [1], expected [2]":
            [{"t": "float", "v": 0.531}, arr([2.5, 7.25, 1.0], [3])],
        "1 items, expected 2": [{"t": "float", "v": 0.531}],
        "a str at [0] where numbers are expected": [{"t": "str", "v": "0.531"}, arr([1], [1])],
    }
    for words, got in cases.items():
        described = mismatch({"t": "list", "items": got}, key)
        assert described == words
        assert "0.531" not in described and "7.25" not in described
