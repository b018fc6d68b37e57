"""Run a student notebook as a student would, in the folder it sits in, with no network.

    python check_archive.py FOLDER SOLUTION.ipynb [FOLDER SOLUTION.ipynb ...]

FOLDER is ``<name>/`` holding ``<name>.ipynb``: unpacked from ``<name>.zip`` (with ``tests/`` and
a README) or the notebook copied there alone. With the current directory there, this runs the
notebook's code cells as handed out (blank answers: every question's ``grader.check`` must say,
in one line, that it is not answered yet — never "not found"), then the same notebook with the
reference answers of SOLUTION put into its answer cells (every ``grader.check`` must pass). The
questions expected are those the notebook's setup cell packs. Every socket connection or name
lookup is refused and reported: the checks must fetch nothing. Prints one JSON line per check and
exits 1 if any expectation fails. All pairs run in one process (torch is imported once). Used by
tests/exercises/test_archives.py and, inside a fresh virtual environment with the installed
wheel, by tests/packaging/test_wheel.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sys
from pathlib import Path

CHECK = re.compile(r"""^(\s*)grader\.check\((["'])(\w+)\2\)\s*$""", re.M)
STUDENT_ANSWER, SOLUTION_ANSWER = "otter_answer_cell", "otter_assign_solution_cell"
NETWORK: list[str] = []


def no_network() -> None:
    """Refuse (and record) every connection and name lookup from here on."""
    def refuse(what):
        def refused(*args, **kwargs):
            NETWORK.append(f"{what}{args[1:2] or args[:1]}")
            raise OSError(f"check_archive: no network ({what})")
        return refused

    socket.socket.connect = refuse("connect")
    socket.socket.connect_ex = refuse("connect_ex")
    socket.socket.sendto = refuse("sendto")
    socket.create_connection = refuse("create_connection")
    socket.getaddrinfo = refuse("getaddrinfo")


def answered(student: dict, solution: dict) -> dict:
    """``student`` with each answer cell replaced by the solution's, in order."""
    mine = [c for c in student["cells"] if STUDENT_ANSWER in c["metadata"].get("tags", ())]
    theirs = [c for c in solution["cells"] if SOLUTION_ANSWER in c["metadata"].get("tags", ())]
    assert len(mine) == len(theirs), f"{len(mine)} answer cells, the solution has {len(theirs)}"
    for cell, reference in zip(mine, theirs):
        cell["source"] = reference["source"]
    return student


def run(notebook: dict, where: str, expect_pass: bool) -> list[dict]:
    """Execute ``notebook``'s code cells in one namespace; record every grader.check."""
    checks: list = []
    namespace: dict = {"__name__": "__main__", "_record": checks.append}
    for source in ("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"):
        source = CHECK.sub(r'\1_record(("\3", grader.check("\3")))', source)
        try:
            with contextlib.redirect_stdout(sys.stderr):  # stdout: the JSON lines only
                exec(compile(source, where, "exec"), namespace)
        except Exception as error:  # a blank answer may raise; its check still has to run
            if expect_pass or "grader" not in namespace:
                return [{"question": "?", "ok": False, "error": f"{type(error).__name__}: {error}"}]
    rows = []
    for question, result in checks:
        text = repr(result)
        passed = bool(result.passed_all_public)
        # a blank answer gets one line saying so; a reference answer passes
        ok = passed if expect_pass else (not passed and text.count("\n") == 0
                                         and "not answered yet" in text)
        rows.append({"question": question, "passed": passed, "ok": ok,
                     "lines": text.count("\n") + 1, "text": text})
    return rows


def check(folder: Path, solution: Path) -> bool:
    from course_rnn.grading.handout import packed_tests

    os.chdir(folder)
    path = folder / f"{folder.name}.ipynb"
    student = json.loads(path.read_text(encoding="utf-8"))
    packed = packed_tests(student)
    questions = sorted(packed[1]) if packed else []
    blank = run(student, str(path), expect_pass=False)
    reference = answered(json.loads(path.read_text(encoding="utf-8")),
                         json.loads(solution.read_text(encoding="utf-8")))
    done = run(reference, str(path), expect_pass=True)
    for row in blank:
        print(json.dumps({"notebook": folder.name, "run": "blank", **row}))
    for row in done:
        print(json.dumps({"notebook": folder.name, "run": "answered", **row}))
    complete = bool(questions) and all(sorted(r["question"] for r in rows) == questions
                                       for rows in (blank, done))
    if not complete:
        print(json.dumps({"notebook": folder.name, "error":
                          f"checked {[r['question'] for r in blank]} (blank), "
                          f"{[r['question'] for r in done]} (answered); "
                          f"the notebook's questions are {questions}"}))
    return complete and all(r["ok"] for r in blank + done)


def main() -> int:
    args = [Path(a).resolve() for a in sys.argv[1:]]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    no_network()
    ok = [check(folder, solution) for folder, solution in zip(args[::2], args[1::2])]
    if NETWORK:
        print(json.dumps({"error": f"network used: {NETWORK}"}))
    return 0 if all(ok) and not NETWORK else 1


if __name__ == "__main__":
    sys.exit(main())
