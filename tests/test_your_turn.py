"""Every page's "your turn" exercise (issue 43, item 4), run as a student would.

A page has, right after the idea it practises, a stub cell (tag ``your-turn``: a function whose
body is ``...``), a check cell (tag ``your-turn-check``: ``course_rnn.practice.check``) and a
Markdown dropdown with the solution (tag ``your-turn-solution``). The build executes the page
as committed, stub and all: the check then prints "Not done yet" with what the library's answer
is. Here, in a fresh namespace (so the exercise depends on nothing else of the page):

- the dropdown's solution in place of the stub: the check says "Right";
- the stub as committed: "Not done yet";
- the solution with its answers changed: "Not yet";

and ``course_rnn.practice.check`` never raises, whatever it is given.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from course_rnn import practice

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def load_robustness():
    script = ROOT / "benchmarks" / "robustness.py"
    spec = importlib.util.spec_from_file_location("robustness_for_your_turn", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def source(cell: dict) -> str:
    return "".join(cell["source"])


def tagged(notebook: dict, tag: str) -> list[tuple[int, dict]]:
    return [(i, c) for i, c in enumerate(notebook["cells"])
            if tag in c.get("metadata", {}).get("tags", [])]


def exercises(path: Path) -> list[dict]:
    """Each exercise of a page: its stub, check and solution code, and the cells' indices."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    stubs, checks = tagged(notebook, "your-turn"), tagged(notebook, "your-turn-check")
    solutions = tagged(notebook, "your-turn-solution")
    assert len(stubs) == len(checks) == len(solutions), (
        f"{path.name}: every your-turn stub has one check cell and one solution")
    found = []
    for (i, stub), (j, chk), (k, sol) in zip(stubs, checks, solutions):
        blocks = re.findall(r"^```python\n(.*?)^```$", source(sol), re.DOTALL | re.MULTILINE)
        assert len(blocks) == 1, f"{path.name}, cell {k}: the solution holds one python block"
        found.append({"stub": source(stub), "check": source(chk), "solution": blocks[0],
                      "cells": (i, j, k), "notebook": notebook})
    return found


def run(*sources: str, wrap=None) -> str:
    """What the check prints when ``sources`` run one after another in a fresh namespace
    (``wrap``: applied to the student's function before the last source, the check, runs)."""
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for k, code in enumerate(sources):
            if wrap is not None and k == len(sources) - 1:
                wrap(namespace)
            exec(compile(code, f"<your-turn {k}>", "exec"), namespace)
    return out.getvalue().strip()


def function_name(stub: str) -> str:
    return next(n.name for n in ast.parse(stub).body if isinstance(n, ast.FunctionDef))


def changed(value):
    """A wrong answer made from a right one: numbers moved by one, booleans flipped."""
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, dict):
        return {k: changed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(changed(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value + 1
    return value + 1  # numbers and arrays


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_page_has_an_exercise_in_its_main_line(path: Path):
    found = exercises(path)
    assert found, f"{path.name}: no your-turn exercise (cells tagged your-turn, " \
                  "your-turn-check, your-turn-solution)"
    robustness = load_robustness()
    for ex in found:
        i, j, k = ex["cells"]
        cells = ex["notebook"]["cells"]
        assert j == i + 1 and k == j + 1, f"{path.name}: stub, check and solution in a row"
        prompt = source(cells[i - 1])
        assert cells[i - 1]["cell_type"] == "markdown" and "your-turn" in prompt, (
            f"{path.name}: a 'Your turn' box (class your-turn) stands right before the stub")
        assert ":class: dropdown" in source(cells[k]), f"{path.name}: the solution is a dropdown"
        for index in (i, j):
            tags = set(cells[index]["metadata"].get("tags", []))
            assert not tags & {"hide-cell", "remove-cell", "remove-input"}, (
                f"{path.name}, cell {index}: the exercise is shown in the main line")
            # a check cell's hash is recorded in benchmarks/results/robustness.json
            assert not robustness.is_check(source(cells[index])), (
                f"{path.name}, cell {index}: no assert or claim call in an exercise")
        assert re.search(r"^\s+\.\.\.\s*$", ex["stub"], re.MULTILINE), (
            f"{path.name}: the stub's body is `...`")
        assert "check(" in ex["check"], f"{path.name}: the check cell calls practice.check"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_solution_is_right(path: Path):
    for ex in exercises(path):
        said = run(ex["solution"], ex["check"])
        assert said.startswith("Right:"), f"{path.name}: the dropdown's solution: {said}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_stub_as_committed_is_not_done(path: Path):
    for ex in exercises(path):
        said = run(ex["stub"], ex["check"])
        assert said.startswith("Not done yet:") and "a right answer gives" in said, (
            f"{path.name}: the stub: {said}")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_wrong_answer_is_not_yet(path: Path):
    for ex in exercises(path):
        name = function_name(ex["stub"])

        def wrong(namespace, name=name):
            right = namespace[name]
            namespace[name] = lambda *args: changed(right(*args))

        said = run(ex["solution"], ex["check"], wrap=wrong)
        assert said.startswith("Not yet: for "), f"{path.name}: a wrong answer: {said}"


def test_every_exercise_is_on_a_page():
    used = {re.search(r'check\("(\w+)"', ex["check"]).group(1)
            for path in CHAPTERS for ex in exercises(path)}
    assert used == set(practice.EXERCISES)


def raises(*args):
    raise ValueError("broken")


def not_implemented(*args):
    raise NotImplementedError


@pytest.mark.parametrize("answer, status, start", [
    (None, "not done", "Not done yet: `softmax` is not a function"),
    (lambda y: None, "not done", "Not done yet: `softmax` returns None"),
    (lambda y: ..., "not done", "Not done yet: `softmax` returns Ellipsis"),
    (not_implemented, "not done", "Not done yet: fill in `softmax`"),
    (raises, "not yet", "Not yet: for y = [1, 2, 3] the answer is [0.09003, 0.2447, 0.6652], "
                        "yours raised ValueError: broken"),
    (lambda y: "a string", "not yet", "Not yet: for y = [1, 2, 3]"),
    (lambda y: torch.ones(2), "not yet", "Not yet: for y = [1, 2, 3]"),
    (lambda y: torch.exp(y) / torch.exp(y).sum(), "not yet",
     "Not yet: for y = [1000, 1000, 0] the answer is [0.5, 0.5, 0], yours gave [nan, nan, 0]"),
    (lambda y: torch.softmax(y, -1).numpy(), "right", "Right: `softmax`"),
])
def test_the_check_says_one_line_and_never_raises(answer, status, start):
    said = practice.verdict("softmax", answer)
    assert said.status == status and said.text.startswith(start), said.text
    assert bool(said) == (status == "right") and "\n" not in said.text
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert practice.check("softmax", answer) is None
    assert out.getvalue() == said.text + "\n"


def test_an_unknown_exercise_is_not_an_error():
    assert practice.verdict("no such", lambda: 1).text.startswith("Not yet: there is no exercise")


def test_booleans_are_not_numbers():
    assert practice.same([True, False], [True, False])
    assert not practice.same([1, 0], [True, False])
    assert not practice.same([True], [True, False])
    assert practice.same({"a": np.array([1.0, 2.0])}, {"a": [1.0, 2.0 + 1e-9]})
    assert not practice.same({"a": [1.0]}, {"a": [1.0], "b": [2.0]})


def test_the_kl_exercise_is_the_gap_a_sentence_run_is_trained_to_close():
    """Chapter 2 part 2's exercise: KL(p ‖ q) of a prediction from the exact next-word
    distribution — zero for the exact one itself, log |V| − H(p) for a uniform guess, and a
    prediction's cross-entropy against p minus p's entropy."""
    from course_rnn.languages import ElmanTemplates, Vocab

    elman = ElmanTemplates()
    words = Vocab.for_language(elman).output_symbols
    hand, uniform, mixed, same = practice.EXERCISES["kl"].cases()
    assert hand.want == pytest.approx(0.5 * np.log(0.5 / 0.9) + 0.5 * np.log(0.5 / 0.1))
    p = np.array([v for v in elman.next_distribution(("woman",)).values() if v > 0])
    assert uniform.want == pytest.approx(np.log(len(words)) + (p * np.log(p)).sum())
    exact, predicted = mixed.args
    cross_entropy = -sum(v * np.log(predicted[w]) for w, v in exact.items())
    entropy = -sum(v * np.log(v) for v in exact.values())
    assert mixed.want == pytest.approx(cross_entropy - entropy) and mixed.want > 0
    assert same.want == pytest.approx(0.0, abs=1e-12)
    assert all(set(case.args[0]) <= set(case.args[1]) for case in (uniform, mixed, same))


def test_the_paired_interval_exercise_is_the_interval_chapter_4_judges_by():
    """Chapter 4 part 2's exercise: the mean of the seed-by-seed differences and its 95 %
    t-interval — what ``metrics.mean_interval`` gives ``agreement.PairedDifference``, checked
    here against the interval worked by hand."""
    from scipy import stats

    cases = practice.EXERCISES["paired_interval"].cases()
    for case in cases:
        ours, reference = case.args
        d = [a - b for a, b in zip(ours, reference, strict=True)]
        mean = sum(d) / len(d)
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1))
        half = stats.t.ppf(0.975, len(d) - 1) * sd / math.sqrt(len(d))
        assert case.want == pytest.approx((mean, mean - half, mean + half))
    steady = cases[-1].want  # one point ahead on every seed: no spread, no width
    assert steady == pytest.approx((1.0, 1.0, 1.0))
