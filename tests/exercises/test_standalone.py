"""A student notebook stands alone (issue 31, item 4): copied alone into an empty folder (no
``tests/`` beside it, as when uploaded to Colab), with no network, its ``grader.check`` still
gives feedback — one line per question while it is blank, a pass for the reference answers, one
sentence per failed check for a mistake — and its top says what to hand in and how it is graded.

The public tests travel inside the notebook (:mod:`course_rnn.grading.handout` packs them into the
setup cell; :mod:`course_rnn.grading.feedback` runs them); these tests check that they are exactly
the public ``tests/*.py``, so nothing hidden is packed and nothing public is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_rnn.grading.feedback import Checker, is_blank, pack
from course_rnn.grading.handout import packed_tests, public_tests
from course_rnn.grading.intake import without_magics
from course_rnn.grading.otter_files import doctest_to_code, otter_cases
from course_rnn.grading.runner import TIME_LIMIT

from .conftest import ASSIGNMENTS, EXERCISES, PARTLY_WRONG, answer, student

CHECK = Path(__file__).with_name("check_archive.py")  # runs a notebook as a student would


def _cells(nb: dict) -> list[dict]:
    return nb["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_each_notebook_packs_exactly_its_public_tests(name):
    nb = student(name)
    packed_name, tests = packed_tests(nb)
    assert packed_name == name
    assert tests == public_tests(EXERCISES / "student" / name / "tests", nb)
    files = sorted(p.stem for p in (EXERCISES / "student" / name / "tests").glob("q*.py"))
    assert sorted(tests) == files
    for question, test in tests.items():
        assert test["cases"] and test["answers"], (name, question)
        assert test["points"] > 0, (name, question)
    probes = {doctest_to_code(case["code"]) for _, _, case in
              otter_cases(EXERCISES / "autograder" / name / "tests") if case.get("hidden")}
    assert probes and not probes & {c for t in tests.values() for c in t["cases"]}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_each_notebook_says_at_the_top_what_to_hand_in_and_how_it_is_graded(name):
    cells = _cells(student(name))
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    assert "grader = Checker(" in _source(cells[first_code])  # the setup cell comes first
    top = "\n".join(_source(c) for c in cells[:first_code] if c["cell_type"] == "markdown")
    _, tests = packed_tests(student(name))
    total = sum(t["points"] for t in tests.values())
    for said in (f"`{name}.ipynb`", "Hand in", "Your outputs are not read", "Restart",
                 f"all {total:g} come from hidden tests", "The public tests carry none",
                 f"{TIME_LIMIT:g} s", 'grader.check("q1")', "details=True", "no network"):
        assert said in top, f"{name}: the top does not say {said!r}"


def test_the_grader_never_runs_the_setup_cell():
    cells = _cells(student("ch03_lstm_cell"))
    setup = next(_source(c) for c in cells if "grader = Checker(" in _source(c))
    kept = [line for line in without_magics(setup).splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
    assert kept and set(kept) == {"pass"}, kept


@pytest.mark.slow
def test_each_notebook_copied_alone_gives_feedback_for_a_blank_and_a_correct_answer(tmp_path):
    """Every assignment: the notebook alone in an empty folder, no network (check_archive.py
    refuses every connection): one line per blank question, and the reference answers pass."""
    folders = []
    for name in ASSIGNMENTS:
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(EXERCISES / "student" / name / f"{name}.ipynb", folder)
        folders.append(folder)
    pairs = [str(p) for f in folders
             for p in (f, EXERCISES / "autograder" / f.name / "solution.ipynb")]
    done = subprocess.run([sys.executable, str(CHECK), *pairs], capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr[-3000:]}"
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    for name in ASSIGNMENTS:
        blank = [r for r in rows if r["notebook"] == name and r["run"] == "blank"]
        answered = [r for r in rows if r["notebook"] == name and r["run"] == "answered"]
        questions = sorted(packed_tests(student(name))[1])
        assert sorted(r["question"] for r in blank) == questions
        assert all(r["lines"] == 1 and "not answered yet" in r["text"] for r in blank), blank
        assert sorted(r["question"] for r in answered) == questions
        assert all(r["passed"] for r in answered), answered
    for folder in folders:  # nothing was needed beside the notebook, nothing was left
        assert sorted(p.name for p in folder.iterdir()) == [f"{folder.name}.ipynb"]


def _namespace(nb: dict) -> dict:
    """Run a notebook's code cells (``grader.check`` cells aside) in one namespace."""
    namespace = {"__name__": "__main__"}
    for cell in _cells(nb):
        source = _source(cell)
        if cell["cell_type"] == "code" and not source.startswith("grader."):
            exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


def test_one_mistake_is_one_sentence_and_the_traceback_comes_on_request():
    name = "ch03_lstm_cell"
    function, source, _ = PARTLY_WRONG[name]  # gates only nearly open: counts short strings
    nb = answer(student(name), function, source)
    for cell in _cells(nb):  # the other answers right
        text = _source(cell)
        if text.startswith("def forget_bias_for_half_life("):
            cell["source"] = ("import math\ndef forget_bias_for_half_life(T):\n"
                              "    f = 0.5 ** (1 / T)\n    return math.log(f / (1 - f))\n")
    env = _namespace(nb)
    grader = env["grader"]
    short = repr(grader.check("q1", global_env=env))
    assert short.count("\n") + 1 <= 3 and "Traceback" not in short, short
    assert re.search(r"the count is wrong for a\^\d+ b\^\d+", short), short
    detailed = repr(grader.check("q1", details=True, global_env=env))
    assert "Traceback" in detailed and "AssertionError" in detailed
    assert "not answered yet" in repr(grader.check("q2", global_env=env))  # still blank
    passed = grader.check("q3", global_env=env)
    assert passed.passed and "pass" in repr(passed)
    summary = repr(grader.check_all(global_env=env))
    assert summary.count("\n") == 2, summary  # one line per question


def test_an_error_names_the_test_line_and_its_values():
    tests = {"q1": {"cases": ["for xs in [[1.0], []]:\n    got = mean(xs)\n"],
                    "answers": ["mean"], "points": 1}}
    grader = Checker("toy", pack(tests))
    env = {"mean": lambda xs: sum(xs) / len(xs)}
    text = repr(grader.check("q1", global_env=env))
    assert "`got = mean(xs)` with xs = [] raised ZeroDivisionError" in text, text
    assert text.count("\n") + 1 == 3, text
    env = {}
    assert "not defined yet" in repr(grader.check("q1", global_env=env))
    with pytest.raises(ValueError, match="no question 'q9'"):
        grader.check("q9", global_env=env)


def test_blank_answers_are_recognised():
    def blank(x, y=1):
        ...

    def written(x):
        return x

    def passes():
        pass

    assert is_blank(...) and is_blank(blank) and is_blank(passes)
    assert not is_blank(written) and not is_blank(0) and not is_blank(None)
