"""The grader's promises to honest students: reference → full marks, blank → 0, one mistake →
partial credit, a right answer in another form the public tests accept → full marks. The
submissions are graded in the one batch of ``conftest.batch``; the rest are unit tests of the
comparison and scoring rules.
"""

import csv
import json

import pytest

from course_rnn.grading import (
    Assignment,
    Case,
    asked_errors,
    check_up_to_date,
    load_assignment,
    score,
    values_match,
)
from course_rnn.grading.assignments import check_key, errors_caught

from .conftest import ASSIGNMENTS, EXERCISES, FAIR, PARTLY_WRONG, full, points, row, total


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_reference_solution_gets_full_marks(batch, name):
    assert total(batch, f"reference_{name}") == full(batch, f"reference_{name}") > 0
    assert row(batch, f"reference_{name}")["status"] == "ok"


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_answer_key_agrees_with_the_library(batch, name):
    """Answers that call course_rnn's reference implementations also get full marks."""
    assert total(batch, f"library_{name}") == full(batch, f"library_{name}")


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_blank_student_notebook_gets_zero(batch, name):
    assert total(batch, f"blank_{name}") == 0


@pytest.mark.parametrize("name", PARTLY_WRONG)
def test_one_mistake_costs_only_the_cases_it_breaks(batch, name):
    assert points(batch, f"partial_{name}") == PARTLY_WRONG[name][2]


@pytest.mark.parametrize("stem", FAIR)
def test_right_answers_in_any_form_the_public_tests_accept_get_full_marks(batch, stem):
    """0-d tensors and arrays, numpy scalars, tuples for arrays, lists for tuples, another dict
    order: values are compared, not containers."""
    assert total(batch, stem) == full(batch, stem), row(batch, stem)["notes"]


def test_syntax_error_costs_only_that_question(batch):
    assert points(batch, "syntax_ch03_lstm_cell") == {"q1": 4.0, "q2": 3.0, "q3": 0.0}


def test_batch_writes_one_row_per_submission_with_points_per_question(batch):
    assert row(batch, "broken_ch03_lstm_cell")["total"] == "0.0"
    assert row(batch, "broken_ch03_lstm_cell")["status"] == "unreadable"
    assert row(batch, "unknown")["assignment"] == "?"
    assert row(batch, "partial_ch03_lstm_cell")["q1"] == "1.0"
    assert row(batch, "reference_ch06_dyck_urn")["q5"] == "4.0"


# -- comparison rules --------------------------------------------------------------------------
def arr(data, shape, dtype="float"):
    return {"t": "array", "dtype": dtype, "shape": shape, "data": data}


def test_values_match_is_strict_about_shape_and_values():
    a = arr([1.0, 2.0], [2])
    assert values_match(a, a)
    assert values_match({**a, "data": [1.0, 2.0 + 1e-7]}, a)
    assert not values_match({**a, "data": [1.0, 2.01]}, a)
    assert not values_match({**a, "shape": [1, 2]}, a)
    assert not values_match({"t": "bool", "v": True}, a)
    assert not values_match({**a, "data": [1.0, float("nan")]}, a)
    assert not values_match("garbage", a)
    assert not values_match({**a, "data": "xx"}, a)  # malformed: never an error
    assert not values_match({"t": "str", "v": "1.0"}, {"t": "float", "v": 1.0})


def test_scalars_compare_as_scalars_however_they_come_back():
    """A Python float, a 0-d array/tensor (shape []) and a 1-number int all equal a float key."""
    key = {"t": "float", "v": 4.9682153687802035}
    assert values_match({"t": "float", "v": 4.968215}, key)
    assert values_match(arr([4.968215], []), key)  # an old-style 0-d array description
    assert values_match({"t": "int", "v": 0}, {"t": "float", "v": 0.0})
    assert not values_match(arr([4.968215], [1]), key)  # shape [1] is not a scalar
    assert values_match({"t": "float", "v": 3.0}, {"t": "int", "v": 3})
    assert not values_match({"t": "float", "v": 3.000001}, {"t": "int", "v": 3})


def test_numbers_compare_whatever_holds_them():
    key = {"t": "list", "items": [arr([-0.75, -2.5], [2]), arr([-1.75, -0.75], [2])]}
    as_tuples = {"t": "list", "items": [
        {"t": "list", "items": [{"t": "float", "v": -0.75}, {"t": "float", "v": -2.5}]},
        {"t": "list", "items": [{"t": "float", "v": -1.75}, {"t": "float", "v": -0.75}]}]}
    assert values_match(as_tuples, key)
    assert values_match(arr([-0.75, -2.5, -1.75, -0.75], [2, 2]), key)
    assert not values_match(arr([-0.75, -2.5, -1.75, -0.75], [4]), key)
    mixed = {"t": "list", "items": [{"t": "str", "v": "ValueError"}, {"t": "float", "v": 1.0}]}
    assert values_match({"t": "list", "items": [{"t": "str", "v": "ValueError"},
                                                {"t": "int", "v": 1}]}, mixed)


def test_dicts_compare_by_key_set_and_values_in_any_order():
    key = {"t": "dict", "items": [["a", {"t": "float", "v": 0.5}], ["b", {"t": "float", "v": 1}]]}
    assert values_match({"t": "dict", "items": [["b", {"t": "int", "v": 1}],
                                                ["a", {"t": "float", "v": 0.5}]]}, key)
    assert not values_match({"t": "dict", "items": [["a", {"t": "float", "v": 0.5}]]}, key)


def test_dict_keys_are_numbers_by_value():
    import numpy as np

    from course_rnn.grading import to_value

    assert to_value({0.0: 1, np.int64(1): 2}) == to_value({0: 1, 1: 2})


# -- error cases -------------------------------------------------------------------------------
def test_each_question_asks_for_the_errors_its_public_tests_expect():
    asked = {name: asked_errors(EXERCISES / "autograder" / name / "tests") for name in ASSIGNMENTS}
    assert asked["ch01_bengio"]["q1"] == {"ValueError"}  # perplexity
    assert asked["ch02_srn"] == dict.fromkeys(("q1", "q2", "q3", "q4", "q5"), frozenset())
    assert asked["ch05_pdda"]["q1"] == {"ValueError"}
    assert asked["ch03_lstm_cell"] == dict.fromkeys(("q1", "q2", "q3"), frozenset())
    assert errors_caught("try:\n    f()\nexcept (ValueError, KeyError):\n    pass") == {
        "ValueError", "KeyError"}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_expected_error_is_one_a_public_test_asks_for(name):
    """No hidden rule goes unstated: an error in the answer key is one the question's public
    tests ask for, and the question also has cases that expect a value."""
    assignment = load_assignment(name, EXERCISES)
    check_key(assignment, assignment.expected)


def synthetic(asked=("ValueError",)) -> Assignment:
    cases = [Case("q1", 1, 1.0, "f(1)"), Case("q1", 2, 1.0, "f(-1)"), Case("q2", 1, 1.0, "g()")]
    expected = {"q1/1": {"t": "float", "v": 2.0}, "q1/2": {"t": "raised", "v": "ValueError"},
                "q2/1": {"t": "raised", "v": "TypeError"}}
    return Assignment("x", cases, expected, {"q1": frozenset(asked), "q2": frozenset()})


def test_raising_earns_an_error_case_only_beside_a_computed_value():
    a = synthetic()
    raised = {"value": {"t": "raised", "v": "ValueError"}}
    two = {"value": {"t": "float", "v": 2.0}}
    assert score(a, {"q1/1": raised, "q1/2": raised})[0] == {"q1": 0.0, "q2": 0.0}
    assert score(a, {"q1/1": two, "q1/2": raised})[0] == {"q1": 2.0, "q2": 0.0}


def test_an_error_the_question_does_not_ask_for_earns_nothing():
    a = synthetic(asked=())
    records = {"q1/1": {"value": {"t": "float", "v": 2.0}},
               "q1/2": {"value": {"t": "raised", "v": "ValueError"}},
               "q2/1": {"value": {"t": "raised", "v": "TypeError"}}}
    got, notes = score(a, records)
    assert got == {"q1": 1.0, "q2": 0.0}
    assert any("does not ask" in n for n in notes)
    with pytest.raises(RuntimeError, match="no public test"):
        check_key(a, a.expected)


def test_a_choice_earns_only_beside_a_computed_value():
    """The letter of a multiple-choice question (a key of text only) can be guessed from the
    question: it earns its point only when the same answer earns a computed case too."""
    cases = [Case("q1", 1, 1.0, "f(1)"), Case("q1", 2, 1.0, "reason"),
             Case("q1", 3, 1.0, "[favours, reason]"), Case("q1", 4, 1.0, "[norm, reason]")]
    expected = {"q1/1": {"t": "float", "v": 2.0}, "q1/2": {"t": "str", "v": "b"},
                "q1/3": {"t": "list", "items": [{"t": "str", "v": "glasses"},
                                                {"t": "str", "v": "b"}]},
                "q1/4": {"t": "list", "items": [{"t": "float", "v": 3.0},
                                                {"t": "str", "v": "b"}]}}
    a = Assignment("x", cases, expected, {"q1": frozenset()})
    right = {k: {"value": v} for k, v in expected.items()}
    wrong = {"value": {"t": "list", "items": [{"t": "float", "v": 7.0}, {"t": "str", "v": "b"}]}}
    got, notes = score(a, right | {"q1/1": {"value": {"t": "float", "v": 7.0}}, "q1/4": wrong})
    assert got == {"q1": 0.0}
    assert "q1/2: the choice is right, but no case of q1 that expects a computed value " \
           "passed" in notes
    # a case that mixes a computed number with the letter is computed: beside it they earn
    assert score(a, right | {"q1/1": {"value": {"t": "float", "v": 7.0}}})[0] == {"q1": 3.0}
    assert score(a, right)[0] == {"q1": 4.0}
    with pytest.raises(RuntimeError, match="an error or a choice"):
        check_key(Assignment("x", cases[1:3], expected, {}), expected)


def test_committed_student_versions_are_up_to_date():
    assert check_up_to_date(EXERCISES) == [], "run: python -m course_rnn.grading assign"


def test_committed_answer_keys_cover_every_hidden_case():
    for name in ASSIGNMENTS:
        assignment = load_assignment(name, EXERCISES)
        assert {c.id for c in assignment.cases} == set(assignment.expected), name
        json.dumps(assignment.expected)


def test_a_repository_under_tmp_is_not_hidden_by_the_sandboxs_own_tmp(monkeypatch):
    """bwrap mounts in order: the private /tmp must come before the host folders bound into it
    (a CI clone under /tmp once found its .venv hidden: 'failed to execute .venv/bin/python')."""
    from pathlib import Path

    from course_rnn.grading import sandbox

    monkeypatch.setattr(sandbox, "exposed_paths", lambda: [Path("/usr"), Path("/tmp/ci/.venv")])
    argv = sandbox.bwrap_options(fds={"info": 3, "passwd": 4, "group": 5, "notebook": 6,
                                      "spec": 7}, uid=65534, public_tests=None)
    tmpfs = argv.index("/tmp", argv.index("--tmpfs"))
    bind = argv.index("/tmp/ci/.venv")
    assert argv[bind - 1] == "--ro-bind" and tmpfs < bind
    # /tmp stays the sandbox's writable tmpfs: never re-created as a 0755 parent folder
    assert ["--dir", "/tmp"] not in [argv[i:i + 2] for i in range(len(argv) - 1)]
    assert ["--dir", "/tmp/ci"] in [argv[i:i + 2] for i in range(len(argv) - 1)]


def test_a_mixed_class_gets_one_set_of_question_columns_per_assignment(tmp_path):
    from course_rnn.grading.batch import Result, write_csv
    from course_rnn.grading.runner import RunInfo

    def result(name, assignment, points):
        return Result(name, assignment, points, dict.fromkeys(points, 4.0), RunInfo("ok", 1.0))

    path = tmp_path / "grades.csv"
    write_csv([result("a.ipynb", "ch03_lstm_cell", {"q1": 4.0, "q2": 1.0}),
               result("b.ipynb", "ch05_pdda", {"q1": 2.0})], path)
    rows = list(csv.reader(path.open()))
    assert rows[0][:5] == ["submission", "assignment", "ch03_lstm_cell:q1", "ch03_lstm_cell:q2",
                           "ch05_pdda:q1"]
    assert rows[1][2:5] == ["4.0", "1.0", ""] and rows[2][2:5] == ["", "", "2.0"]
    write_csv([result("a.ipynb", "ch03_lstm_cell", {"q1": 4.0})], path)  # one assignment
    assert next(csv.reader(path.open()))[:3] == ["submission", "assignment", "q1"]


def test_a_forbidden_library_call_is_noted_without_a_score_change(batch):
    """ch08's text forbids ``set_reverser_actions``; the library-backed notebook calls it: its
    row says so, and its answers earn what they earn (issue 42)."""
    notes = row(batch, "library_ch08_stack_reverser")["notes"]
    assert "uses set_reverser_actions, which the assignment's text forbids" in notes
    assert "forbids" not in row(batch, "reference_ch08_stack_reverser")["notes"]


def test_forbidden_names_are_read_from_the_assignments_text():
    from course_rnn.grading.assignments import forbidden_uses

    ch08 = load_assignment("ch08_stack_reverser", EXERCISES)
    assert ch08.forbidden == ("set_reverser_actions", "length_generalisation")
    ch06 = load_assignment("ch06_dyck_urn", EXERCISES)
    cells = [[0, "def attractors(s):\n    return dyck.attractors(s)\n"]]
    assert "Dyck.attractors" in forbidden_uses(ch06, cells)[0]
    assert forbidden_uses(ch06, [[0, "def attractors(s):\n    return [0]\n"]]) == []
