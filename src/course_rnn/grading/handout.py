"""The student notebook as handed out: it stands alone and says how it is handed in and graded.

``otter assign`` writes a notebook whose first cell is ``grader = otter.Notebook(...)``: its
``grader.check("q1")`` reads ``tests/q1.py`` beside the notebook (opened alone, or in Colab, it
fails with "Test q1 not found") and prints doctest's transcript (≈ 60 lines per question for a
blank answer). :func:`make_standalone` replaces that cell with two:

- a markdown cell, after the title: what to hand in (the ``.ipynb``; outputs are not read, the
  grader runs every cell again), how it is graded (points per question, all from hidden tests;
  the time limits) and how to check an answer;
- the setup cell, ``grader = Checker(name, "<packed public tests>")``
  (:mod:`.feedback`): the public tests travel inside the notebook, so ``grader.check`` needs no
  file and no network, and says in one sentence per failed check what was expected and got.

The tests it packs are exactly the student's public ``tests/*.py`` (a test checks it), with,
per question, the names its answer cells define (to say "not answered yet") and its points.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from .feedback import pack, unpack
from .otter_files import doctest_to_code, read_otter_test

ANSWER_CELL = "otter_answer_cell"  # otter's tag on a student's answer cell
OTTER_INIT = "# Initialize Otter"
CHECK_CALL = re.compile(r"""\s*grader\.check\((["'])(\w+)\1\)\s*""")
PACKED = re.compile(r'grader = Checker\("(?P<name>[^"]+)", """(?P<packed>[^"]*)"""\)')

HAND_IN = """\
**Handing in, grading, checking**

- **Hand in** this notebook as one file, saved after your last change, with the assignment's
  name in its file name (`{name}.ipynb`). Your outputs are not read: the grader runs every
  code cell again, top to bottom, in a fresh Python, then its hidden tests. So before you hand it
  in, restart and run everything (Jupyter: *Kernel → Restart Kernel and Run All Cells*; Colab:
  *Runtime → Restart session and run all*) and check that no cell fails.
- **Points**: all {total} come from hidden tests, which call your code on other inputs
  ({split}). The public tests carry none, but every rule a hidden test checks is one a public
  test states. A cell that fails costs only itself. The whole notebook gets {limit} s (unless
  your instructor sets another limit), one cell at most {cell} s.
- **Check** each answer with the `grader.check("q1")` cell below it, after running the setup
  cell below: it prints one line per failed check, what was expected and what your code gave
  (`grader.check("q1", details=True)` adds the traceback; `grader.check_all()` checks every
  question; `grader.show("q1")` prints the public tests). The public tests are stored in the
  setup cell, so this notebook needs no other file and no network, only the course library
  (`course_rnn` with its exercise tools: the install line is in the README that comes with the
  assignment and on the course's Exercises page).
"""

SETUP = '''\
# Setup: run this cell first. It holds this assignment's public tests (packed; grader.show("q1")
# prints them), so grader.check("q1") needs no other file and no network.
from course_rnn.grading.feedback import Checker

grader = Checker("{name}", """
{packed}
""")'''


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def defined_names(source: str) -> list[str]:
    """The names an answer cell defines at its top level (functions, assigned variables)."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def question_answers(notebook: dict) -> dict[str, list[str]]:
    """Per question, the names its answer cells define: the answer cells between one
    ``grader.check`` cell and the next belong to the second."""
    answers: dict[str, list[str]] = {}
    pending: list[str] = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = _source(cell)
        if ANSWER_CELL in cell.get("metadata", {}).get("tags", ()):
            pending += defined_names(source)
        elif match := CHECK_CALL.fullmatch(source):
            answers[match.group(2)] = pending
            pending = []
    return answers


def public_tests(tests_dir: Path, notebook: dict) -> dict:
    """``{question: {"cases": [code, ...], "answers": [...], "points": p}}`` from the student's
    public ``tests/*.py`` (hidden cases, if any were there, are left out)."""
    answers = question_answers(notebook)
    tests = {}
    for path in sorted(Path(tests_dir).glob("*.py")):
        test = read_otter_test(path)
        cases = [doctest_to_code(case["code"]) for suite in test["suites"]
                 for case in suite["cases"] if not case.get("hidden")]
        tests[test["name"]] = {"cases": cases, "answers": answers.get(test["name"], []),
                               "points": test.get("points")}
    return tests


def hand_in_text(name: str, tests: dict) -> str:
    from .runner import CELL_TIMEOUT, TIME_LIMIT

    points = {q: t["points"] for q, t in tests.items() if t.get("points") is not None}
    ordered = sorted(points, key=lambda q: (len(q), q))
    split = ", ".join(f"{q}: {points[q]:g}" for q in ordered)
    return HAND_IN.format(name=name, total=f"{sum(points.values()):g}", split=split,
                          limit=f"{TIME_LIMIT:g}", cell=f"{min(CELL_TIMEOUT, TIME_LIMIT / 2):g}")


def setup_source(name: str, tests: dict) -> str:
    return SETUP.format(name=name, packed=pack(tests))


def packed_tests(notebook: dict) -> tuple[str, dict] | None:
    """``(assignment, tests)`` held by a student notebook's setup cell, or None."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and (match := PACKED.search(_source(cell))):
            return match.group("name"), unpack(match.group("packed"))
    return None


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def make_standalone(notebook_path: Path, tests_dir: Path) -> None:
    """Rewrite the student notebook ``otter assign`` wrote (see the module docstring)."""
    path = Path(notebook_path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    name = nb["metadata"]["otter"]["assignment_name"]
    cells = nb["cells"]
    init = next((i for i, c in enumerate(cells)
                 if c["cell_type"] == "code" and _source(c).startswith(OTTER_INIT)), None)
    if init is None:
        raise ValueError(f"{path.name}: otter wrote no init cell to replace; the source's "
                         "ASSIGNMENT CONFIG needs `init_cell: true`")
    cells.pop(init)
    tests = public_tests(tests_dir, nb)
    title = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown")
    protected = {"deletable": False, "editable": False}
    cells[title + 1:title + 1] = [
        {"cell_type": "markdown", "metadata": dict(protected),
         "source": _lines(hand_in_text(name, tests))},
        {"cell_type": "code", "execution_count": None, "metadata": dict(protected),
         "outputs": [], "source": _lines(setup_source(name, tests))},
    ]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
