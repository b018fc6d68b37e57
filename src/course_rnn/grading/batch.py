"""Grading a folder of submissions: each read (:mod:`.intake`), run in its sandbox
(:mod:`.runner`) and scored (:mod:`.scoring`), ``jobs`` at a time, then the CSV. This side
never runs student code.
"""

from __future__ import annotations

import csv
import io
import os
import queue
import re
import stat
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..checks import check_integer
from .assignments import Assignment, forbidden_uses, load_assignment
from .collector import report_caps
from .intake import Submission, assignment_of, parse_submission, read_submission, submissions
from .locate import find_exercises
from .runner import (
    MAX_JOBS,
    TIME_LIMIT,
    RunInfo,
    SandboxError,
    check_time_limit,
    run_notebook,
    sandbox_problem,
)
from .safejson import escape
from .sandbox import SandboxUnavailable, check_not_exposed
from .scoring import score

NOTES_CAP = 2000  # characters of a row's notes: every case's (10-16), then 20 cell errors


@dataclass
class Result:
    submission: str  # the file name, escaped (one printable line)
    assignment: str
    points: dict[str, float]
    max_points: dict[str, float]
    run: RunInfo

    @property
    def total(self) -> float:
        return sum(self.points.values())


def grade_notebook(path: Path | str, assignment: Assignment, time_limit: float = TIME_LIMIT,
                   *, sandboxed: bool = True, root: Path | None = None, slot: int = 0
                   ) -> Result:
    """Grade one submission: sandboxed run, then every hidden case compared with the key.
    ``root``: the exercises folder (its public tests; default: found from the working
    directory, :func:`.locate.find_exercises`)."""
    path = Path(path)
    if not assignment.expected:
        raise ValueError(f"{assignment.name} has no answer key: run `assign` first")
    root = find_exercises(root)
    data = read_submission(path)
    try:
        submission = parse_submission(data)
    except ValueError as e:
        return _unreadable(shown_name(path.name), assignment, RunInfo(
            "unreadable", 0.0, notes=[escape(e, 200)]))
    return _grade(shown_name(path.name), data, submission, assignment, time_limit, sandboxed,
                  root, slot)


def _grade(name: str, data: bytes, submission: Submission, assignment: Assignment,
           time_limit: float, sandboxed: bool, root: Path, slot: int) -> Result:
    run = run_notebook(data, assignment.cases, time_limit=time_limit, sandboxed=sandboxed,
                       public_tests=root / "student" / assignment.name / "tests",
                       slot=slot, submission=submission, helpers=assignment.helpers,
                       caps=report_caps(assignment.expected))
    try:
        points, notes = score(assignment, run.records)
    except Exception as e:  # noqa: BLE001 – what one submission reported costs only its row
        run.status = "scoring error"
        points, notes = dict.fromkeys(assignment.questions, 0.0), [_describe(e)]
    run.notes = notes + run.notes  # what each case lacks first, then the cells that failed
    run.notes += forbidden_uses(assignment, submission.cells)
    return Result(name, assignment.name, points, assignment.questions, run)


def _unreadable(name: str, assignment: Assignment | None, run: RunInfo) -> Result:
    """The row of a notebook that could not be parsed: 0 for each question of its assignment
    (when its file name says which one), nothing else run."""
    if assignment is None:
        return Result(name, "?", {}, {}, run)
    questions = assignment.questions
    return Result(name, assignment.name, dict.fromkeys(questions, 0.0), questions, run)


def _describe(error: BaseException) -> str:
    """One escaped line naming an unexpected error (its ``__str__`` may itself fail)."""
    try:
        text = f"{type(error).__name__}: {error}"
    except Exception:  # noqa: BLE001
        text = type(error).__name__
    return escape(text, 200)


def grade_folder(
    folder: Path | str,
    csv_path: Path | str | None = None,
    root: Path | None = None,
    time_limit: float = TIME_LIMIT,
    jobs: int = 2,
    *,
    sandboxed: bool = True,
) -> list[Result]:
    """Grade every ``*.ipynb`` in ``folder`` (``jobs`` at a time); one CSV row each, written
    atomically once every sandbox is gone. ``sandboxed=False`` runs submissions without the
    sandbox (no isolation at all: for trusted notebooks and benchmarks only). ``root``: the
    exercises folder (default: found from the working directory,
    :func:`.locate.find_exercises`)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist")
    time_limit = check_time_limit(time_limit)
    if csv_path is not None:
        csv_path = check_csv_path(csv_path, overwrite=True, submissions=folder)
    root = find_exercises(root, "autograder")
    names = [p.name for p in sorted((root / "autograder").glob("ch*")) if p.is_dir()]
    if not names:
        raise ValueError(f"no assignments in {root / 'autograder'}: is {root} the "
                         "exercises folder (source/, student/, autograder/)?")
    if sandboxed:
        problem = sandbox_problem()
        if problem is not None:
            raise SandboxUnavailable(problem)
        hidden = [root / "autograder", root / "source", folder]
        if csv_path is not None:
            hidden.append(Path(csv_path).resolve().parent)
        check_not_exposed(*hidden)
    assignments = {name: load_assignment(name, root) for name in names}
    jobs = usable_jobs(jobs)
    slots: queue.Queue[int] = queue.Queue()
    for slot in range(jobs):
        slots.put(slot)

    def one(name: str) -> Result:
        start = time.perf_counter()
        try:
            return _one(name)
        except (SandboxError, SandboxUnavailable):
            raise  # a sandbox that did not die, or none to be had: the whole batch stops
        except Exception as e:  # noqa: BLE001 – anything else costs this submission only
            run = RunInfo("grader error", time.perf_counter() - start, notes=[_describe(e)])
            return Result(shown_name(name), "?", {}, {}, run)

    def _one(name: str) -> Result:
        shown = shown_name(name)
        start = time.perf_counter()
        try:
            data = read_submission(folder / name)
        except (OSError, ValueError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            run = RunInfo("refused", time.perf_counter() - start, notes=[escape(reason, 200)])
            return Result(shown, "?", {}, {}, run)
        try:
            submission = parse_submission(data)  # once, before its time limit starts
        except ValueError as e:
            run = RunInfo("unreadable", time.perf_counter() - start, notes=[escape(e, 200)])
            assignment = assignment_of(name, None, names)  # from its file name, if it says
            return _unreadable(shown, assignments.get(assignment), run)
        assignment = assignment_of(name, submission, names)
        if assignment is None:
            run = RunInfo("unreadable", 0.0, notes=["no assignment name in metadata or name"])
            return Result(shown, "?", {}, {}, run)
        slot = slots.get()
        try:
            return _grade(shown, data, submission, assignments[assignment], time_limit,
                          sandboxed, root, slot)
        finally:
            slots.put(slot)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, submissions(folder)))
    if csv_path is not None:
        write_csv(results, csv_path)
    return results


def usable_jobs(jobs: int) -> int:
    """``jobs`` (a whole number from 1 to :data:`MAX_JOBS`), capped at the usable cores with a
    warning: a submission's time limit is wall-clock time, so jobs that share a core ring it
    (24 jobs on 2 cores once cost every correct ch08 notebook 2 points, status ok)."""
    jobs = check_integer(jobs, "jobs", 1, MAX_JOBS)
    cores = usable_cores()
    if jobs > cores:
        print(f"grade: warning: {jobs} jobs on {cores} usable core(s): grading {cores} at a "
              "time (more would share cores, and a submission's time limit is wall-clock "
              "time)", file=sys.stderr)
    return min(jobs, cores)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def shown_name(name: str) -> str:
    """A file name as one printable line (:func:`.safejson.escape`). A name with any character
    outside ASCII also shows its code points, so that names which print alike (``café`` in NFC
    and NFD, a Latin ``a`` and a Cyrillic ``а``) are told apart: ``café [caf\\xe9]``."""
    shown = escape(name)
    if shown.isascii():
        return shown
    return f"{shown} [{ascii_form(shown)}]"


def ascii_form(text: str) -> str:
    """``text`` with every non-ASCII character written as ``\\xNN``, ``\\uNNNN`` or
    ``\\UNNNNNNNN`` (its backslashes are escaped already: one string, one form)."""
    return text.encode("ascii", "backslashreplace").decode("ascii")


def check_csv_path(path: Path | str, *, overwrite: bool,
                   submissions: Path | str | None = None) -> Path:
    """The CSV's path, made absolute once (the write uses the same): refused (``ValueError``)
    before any grading when it could destroy or could not be written at the end — a folder,
    a symlink, a device, FIFO or socket, a notebook (``*.ipynb``), anything inside the
    submissions folder, a missing or unwritable parent folder, or an existing file without
    ``overwrite``. Only a regular file is ever replaced."""
    text = os.fspath(path)
    if not text or not text.strip():
        raise ValueError("--csv needs a file name, e.g. grades.csv")
    path = Path(os.path.abspath(text))
    parent = path.parent.resolve()
    if path.name.lower().endswith(".ipynb"):
        raise ValueError(f"--csv {text}: a notebook's name; name the grades file e.g. "
                         "grades.csv")
    if submissions is not None:
        folder = Path(submissions).resolve()
        if parent == folder or folder in parent.parents:
            raise ValueError(f"--csv {text} lies inside the submissions folder {folder}: write "
                             "the grades elsewhere")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise ValueError(f"--csv {text} is a symlink: name the file itself (it is never "
                             "followed)")
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"--csv {text} is a folder: name a file, e.g. "
                             f"{Path(text) / 'grades.csv'}")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"--csv {text} is not a regular file (a device, FIFO or socket): "
                             "name a new file")
    if not parent.is_dir():
        raise ValueError(f"--csv {text}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--csv {text}: the folder {parent} is not writable")
    if info is not None and not overwrite:
        raise ValueError(f"--csv {text} exists: pass --overwrite to replace it, or name "
                         "another file")
    return parent / path.name


def write_csv(results: list[Result], path: Path | str) -> None:
    """Columns: submission, assignment, one per question, total, max, status, seconds, notes.
    A class that mixes assignments gets one set of question columns per assignment
    (``ch03_lstm_cell:q1`` …), so that no column adds up different questions. Written to a
    temporary file next to ``path``, then renamed over it (atomic); refused (``ValueError``)
    where ``path`` is by then anything but a regular file or a new name."""
    graded = sorted({r.assignment for r in results if r.max_points})
    columns = sorted({(r.assignment, q) for r in results for q in r.max_points},
                     key=lambda c: (c[0], _question_order(c[1])))
    names = [q if len(graded) == 1 else f"{a}:{q}" for a, q in columns]
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow(["submission", "assignment", *names, "total", "max", "status", "seconds",
                  "notes"])
    for r in results:
        row = [r.points.get(q, "") if a == r.assignment else "" for a, q in columns]
        notes = "; ".join(r.run.notes)  # each note is one escaped line already
        notes = notes if len(notes) <= NOTES_CAP else notes[:NOTES_CAP - 1] + "…"
        out.writerow([r.submission, r.assignment, *row, r.total, sum(r.max_points.values()),
                      r.run.status, f"{r.run.seconds:.1f}", notes])
    path = Path(os.path.abspath(path))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):  # changed since the check
        raise ValueError(f"{path} is no longer a regular file: the grades were not written")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            f.write(text.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _question_order(name: str):
    digits = re.findall(r"\d+", name)
    return (int(digits[0]) if digits else 0, name)
