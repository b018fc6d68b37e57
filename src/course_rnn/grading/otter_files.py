"""Otter's test files, read without running them: what :mod:`.assignments` (the hidden cases,
the errors a question asks for) and :mod:`.handout` (the public tests packed into the student
notebook) both read, so it sits below them.

``otter assign`` writes one OK-format file per question, ``tests/q1.py``: ``OK_FORMAT = True``
then ``test = {"name": "q1", "points": …, "suites": [{"cases": [{"code": …, "hidden": …,
"points": …}, …]}]}``, each case's code as a doctest (``>>> line`` / ``... line``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def read_otter_test(path: Path) -> dict:
    """The ``test = {...}`` literal of an OK-format test file (read as a literal, never run)."""
    tree = ast.parse(Path(path).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "test":
            return ast.literal_eval(node.value)
    raise ValueError(f"{path} is not an OK-format otter test file (no `test = {{...}}`)")


def doctest_to_code(doctest_text: str) -> str:
    """Otter stores a test cell as a doctest (``>>> line`` / ``... line``); get the code back."""
    lines = [
        line[4:] for line in doctest_text.splitlines() if line.startswith((">>> ", "... "))
    ]
    return "\n".join(lines)


def otter_cases(tests_dir: Path) -> Iterator[tuple[str, int, dict]]:
    """``(question, index, case)`` for every case of every test file in ``tests_dir``, in order
    (``index`` counts within its suite)."""
    for path in sorted(Path(tests_dir).glob("*.py")):
        test = read_otter_test(path)
        for suite in test["suites"]:
            for index, case in enumerate(suite["cases"]):
                yield test["name"], index, case
