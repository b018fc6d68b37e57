"""Run a downloaded exercise archive as a student would, in the folder it unpacked to.

    python check_archive.py FOLDER SOLUTION.ipynb

FOLDER is ``<name>/`` from ``<name>.zip`` (the student notebook, ``tests/``, README). With the
current directory there, this runs the student notebook's code cells (blank answers: every
``grader.check`` must find its tests and report failures, never "does not exist"), then the
solution's code cells (every ``grader.check`` must pass). Prints one JSON line per check and
exits 1 if any expectation fails. Used by tests/exercises/test_archives.py and, inside a fresh
virtual environment with the installed wheel, by tests/packaging/test_wheel.py.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

CHECK = re.compile(r"""^(\s*)grader\.check\((["'])(\w+)\2\)\s*$""", re.M)


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def run(notebook: Path, expect_pass: bool) -> list[dict]:
    """Execute ``notebook``'s code cells in one namespace; record every grader.check."""
    checks: list = []
    namespace: dict = {"__name__": "__main__", "_record": checks.append}
    for source in code_cells(notebook):
        source = CHECK.sub(r'\1_record(("\3", grader.check("\3")))', source)
        try:
            exec(compile(source, str(notebook), "exec"), namespace)
        except Exception as error:  # a blank answer may raise; its check still has to run
            if expect_pass or "does not exist" in str(error) or "not found" in str(error):
                return [{"question": "?", "ok": False, "error": f"{type(error).__name__}: {error}"}]
    rows = []
    for question, result in checks:
        passed = bool(result.passed_all_public)
        # a blank answer only has to find its tests; a solution has to pass them
        rows.append({"question": question, "passed": passed, "ok": passed or not expect_pass})
    return rows


def main() -> int:
    folder, solution = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    os.chdir(folder)
    student = folder / f"{folder.name}.ipynb"
    blank = run(student, expect_pass=False)
    answered = run(solution, expect_pass=True)
    for row in blank:
        print(json.dumps({"notebook": "student", **row}))
    for row in answered:
        print(json.dumps({"notebook": "solution", **row}))
    questions = sorted(p.stem for p in (folder / "tests").glob("*.py"))
    complete = all(sorted(r["question"] for r in rows) == questions for rows in (blank, answered))
    ok = complete and all(r["ok"] for r in blank + answered)
    if not complete:
        print(json.dumps({"error": f"checked {[r['question'] for r in blank]} (student), "
                                   f"{[r['question'] for r in answered]} (solution); "
                                   f"the tests are {questions}"}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
