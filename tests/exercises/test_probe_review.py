"""The review of every hidden probe of the seven assignments, as tests.

A probe must measure only the student's answer:

- it reads only the student's answers, the notebook's own code (restored from the key's copy
  before the probes run, :func:`course_rnn.grading.assignments.provided_code`) and builtins, so
  a submission that rebinds a helper (``counted_up_to = lambda *a: a[-1]``) changes nothing;
- no text a student reads (``exercises/README.md``, the notebook's prose, the public tests,
  also as packed into the notebook's setup cell) prints a hidden value, so that a blank
  notebook cannot return it;
- NaN and infinities never match (``test_untrusted_values.py``), and the course's helpers that
  judge an answer treat NaN as a failure (the batch's ``fake_nan`` notebook, ``test_hostile.py``).
"""

from __future__ import annotations

import ast
import builtins
import json
import re

import pytest

from course_rnn.grading.answers import bound_names
from course_rnn.grading.assignments import ANSWER_TAG, load_assignment, provided_code
from course_rnn.grading.handout import packed_tests

from .conftest import ASSIGNMENTS, EXERCISES

README = (EXERCISES / "README.md").read_text(encoding="utf-8")
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w])")
# Values a text may print because they are the question's own terms, not its answer.
STATED = {"ch03_lstm_cell": {50: "n_max's default: the largest n a count is checked to"}}


def _reference_cells(name: str) -> list[dict]:
    path = EXERCISES / "autograder" / name / "solution.ipynb"
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]


def _read(code: str) -> set[str]:
    """Names a probe reads that it does not bind itself (its lambdas' arguments aside)."""
    loaded = {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    return loaded - bound_names(code, arguments=True)


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_probes_read_only_answers_restored_code_and_builtins(name):
    cells = _reference_cells(name)
    answers = set().union(*(bound_names("".join(c["source"])) for c in cells
                            if ANSWER_TAG in c["metadata"].get("tags", ())))
    restored = set().union(*map(bound_names, provided_code(
        EXERCISES / "autograder" / name / "solution.ipynb")))
    for case in load_assignment(name, EXERCISES).cases:
        unknown = _read(case.code) - answers - restored - set(dir(builtins))
        assert not unknown, f"{name} {case.id} reads {sorted(unknown)}, which nothing restores"


def test_the_restored_code_is_the_notebooks_own_not_the_answers():
    code = "\n".join(provided_code(
        EXERCISES / "autograder" / "ch03_lstm_cell" / "solution.ipynb"))
    assert "def counted_up_to(" in code and "def count_trace(" in code
    assert "def counter_weights(" not in code and "BEGIN SOLUTION" not in code
    assert "otter" not in code


def _scalars(value: dict):
    kind = value.get("t")
    if kind in ("int", "float") and not isinstance(value["v"], bool):
        yield value["v"]
    elif kind in ("list", "tuple"):
        for item in value["items"]:
            yield from _scalars(item)
    elif kind == "dict":
        for _, item in value["items"]:
            yield from _scalars(item)
    # arrays: their elements are not answers a text could give away


def _given_away(text: str, name: str) -> list[tuple[str, float, str]]:
    """(case, hidden value, the number in ``text`` that prints it): integers of 10 or more
    printed exactly, decimals of two significant digits or more that round to the value.
    Numbers that the probe itself contains (its arguments) are the question, not the answer."""
    assignment = load_assignment(name, EXERCISES)
    found = []
    for case in assignment.cases:
        values = list(_scalars(assignment.expected[case.id]))
        if len(values) > 10:
            continue
        in_probe = {float(x) for x in NUMBER.findall(case.code)}
        for value in values:
            if value != value or value in STATED.get(name, {}):
                continue
            for match in NUMBER.finditer(text):
                shown = match.group(1)
                x = float(shown)
                if x in in_probe:
                    continue
                if "." in shown:
                    digits = len(shown.replace(".", "").lstrip("0"))
                    decimals = len(shown.split(".")[1])
                    small_whole = abs(x - round(x)) < 1e-9 and abs(x) <= 9
                    if digits >= 2 and not small_whole and abs(value - x) <= 0.5 * 10**-decimals:
                        found.append((case.id, value, shown))
                elif x >= 10 and value == x:
                    found.append((case.id, value, shown))
    return found


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_no_text_a_student_reads_prints_a_hidden_value(name):
    row = next(line for line in README.splitlines() if line.startswith(f"| `{name}`"))
    student = EXERCISES / "student" / name
    notebook = json.loads((student / f"{name}.ipynb").read_text(encoding="utf-8"))
    prose = "\n".join("".join(c["source"]) for c in notebook["cells"]
                      if c["cell_type"] == "markdown")
    tests = "\n".join(p.read_text(encoding="utf-8") for p in sorted(student.glob("tests/*.py")))
    packed = "\n".join(c for t in packed_tests(notebook)[1].values() for c in t["cases"])
    for where, text in (("exercises/README.md", row), ("the notebook", prose),
                        ("the public tests", tests), ("the tests packed in the notebook", packed)):
        assert _given_away(text, name) == [], f"{where} prints hidden values of {name}"


def test_the_review_finds_a_printed_value():
    """Control: the README row as it was gives away ch05's 53 levels (still part of a key);
    a row that printed the best tanh count on ch03's new grid would give it away too."""
    assert ("q4/3", 53, "53") in _given_away("bits + 1; 53 levels in float64", "ch05_pdda")
    assert ("q2/3", 18, "18") in _given_away("(18 at best on the grid)", "ch03_lstm_cell")
