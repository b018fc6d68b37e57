"""Keys that hold on any machine: PyTorch picks a CPU kernel path when it starts (``default``,
``avx2``, ``avx512`` … on x86), and the paths round differently (a float32 ``torch.randn`` of 16
numbers or more already differs in its last bits), so a key that depends on the path costs
correct students points on an instructor's other machine. ``ATEN_CPU_CAPABILITY`` is the one
variable of the grader's environment that reaches a run (``sandbox.PASSED_ENV``); here every
reference solution (full marks) and every blank notebook (none) is graded on the ``default``
path, whichever path the keys were made on; the batch of ``conftest`` grades both on the native
path.
"""

from __future__ import annotations

import json

import pytest

from course_rnn.grading import grade_folder
from course_rnn.grading.runner import sandbox_problem
from course_rnn.grading.sandbox import PASSED_ENV, bwrap_options, passed_env

from .conftest import ASSIGNMENTS, EXERCISES, TIME_LIMIT, code, solution, student

REPORT_PATH = ("import torch\n"
               "raise RuntimeError('capability=' + torch.backends.cpu.get_cpu_capability())")


@pytest.mark.slow
def test_references_full_marks_blanks_none_on_the_default_kernel_path(tmp_path, monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    folder = tmp_path / "submissions"
    folder.mkdir()
    for name in ASSIGNMENTS:  # the reference, then a cell that says which path its torch took
        nb = solution(name)
        nb["cells"].append(code(REPORT_PATH))
        (folder / f"reference_{name}.ipynb").write_text(json.dumps(nb))
        (folder / f"blank_{name}.ipynb").write_text(json.dumps(student(name)))
    results = grade_folder(folder, None, EXERCISES, time_limit=TIME_LIMIT, jobs=2,
                           sandboxed=sandbox_problem() is None)
    assert len(results) == 2 * len(ASSIGNMENTS)
    for r in results:
        notes = "; ".join(r.run.notes)
        assert r.run.status == "ok", (r.submission, notes)
        if r.submission.startswith("blank_"):
            assert r.total == 0, (r.submission, notes)
            continue
        assert "capability=DEFAULT" in notes, (r.submission, notes)  # it reached the child
        assert r.total == sum(r.max_points.values()) > 0, (r.submission, notes)


def test_only_the_kernel_path_is_passed_and_only_as_a_plain_word(monkeypatch):
    assert PASSED_ENV == ("ATEN_CPU_CAPABILITY",)
    assert passed_env({"ATEN_CPU_CAPABILITY": "avx2", "HOME": "/root"}) == {
        "ATEN_CPU_CAPABILITY": "avx2"}
    for odd in ("", "avx2 --bind / /", "a" * 100, "x\ny", "$(id)"):
        assert passed_env({"ATEN_CPU_CAPABILITY": odd}) == {}
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    argv = bwrap_options(fds={"info": 3, "passwd": 4, "group": 5, "notebook": 6, "spec": 7},
                         uid=65534, public_tests=None)
    pairs = [argv[i:i + 3] for i in range(len(argv) - 2)]
    assert ["--setenv", "ATEN_CPU_CAPABILITY", "default"] in pairs
    assert "--clearenv" in argv  # nothing else of the grader's environment
