"""Grading a folder of submissions: intake, scoring, the CSV. This side never runs student code.
"""

from __future__ import annotations

import csv
import io
import os
import queue
import re
import stat
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .assignments import ROOT, Assignment, load_assignment
from .runner import (
    NOTEBOOK_CAP,
    TIME_LIMIT,
    RunInfo,
    SandboxUnavailable,
    check_not_exposed,
    notebook_assignment,
    run_notebook,
    sandbox_problem,
)
from .safejson import escape
from .values import values_match


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


def score(assignment: Assignment, records: dict) -> tuple[dict[str, float], list[str]]:
    """Points per question and a note per case that earned nothing (``records`` come from the
    runner, their texts already escaped).

    A case earns its points when the reported value equals the key. A case whose key is an
    error (``{"t": "raised"}``) earns them only if a public test of its question asks for that
    error and the answer earned a case of the same question that expects a value: raising on
    every input is not an answer."""
    matched = {}
    for case in assignment.cases:
        reported = records.get(case.id, {})
        matched[case.id] = "value" in reported and values_match(
            reported["value"], assignment.expected[case.id])
    points = dict.fromkeys(assignment.questions, 0.0)
    notes = []
    for case in assignment.cases:
        want = assignment.expected[case.id]
        ok = matched[case.id]
        if ok and want["t"] == "raised":
            asked = want["v"] in assignment.asked_errors.get(case.question, ())
            computed = any(matched[c.id] for c in assignment.cases if c.question == case.question
                           and assignment.expected[c.id]["t"] != "raised")
            ok = asked and computed
            if not ok:
                notes.append(f"{case.id}: raised {want['v']}, but no case of {case.question} "
                             "that expects a value passed" if asked else
                             f"{case.id}: {case.question} does not ask for {want['v']}")
                continue
        if ok:
            points[case.question] += case.points
        else:
            reported = records.get(case.id, {})
            notes.append(f"{case.id}: {reported.get('error', 'wrong value')}")
    return points, [n if len(n) <= 200 else n[:199] + "…" for n in notes]


def read_submission(path: Path) -> bytes:
    """The bytes of a submission, refusing (``ValueError``) anything but a regular file of at
    most ``NOTEBOOK_CAP`` bytes: symlinks, FIFOs, sockets, devices and directories are never
    opened for reading (``O_NOFOLLOW | O_NONBLOCK``, then ``fstat``)."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"not a regular file ({_kind(info.st_mode)})")
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"not a regular file ({_kind(info.st_mode)})")
        if info.st_size > NOTEBOOK_CAP:
            raise ValueError(f"larger than {NOTEBOOK_CAP // 2**20} MiB")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > NOTEBOOK_CAP:
                raise ValueError(f"larger than {NOTEBOOK_CAP // 2**20} MiB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def assignment_of(name: str, data: bytes, names: list[str]) -> str | None:
    """The assignment a notebook belongs to: otter's metadata, else a name in the file name."""
    found = notebook_assignment(data)
    if found in names:
        return found
    return next((n for n in sorted(names, key=len, reverse=True) if n in name), None)


def grade_notebook(path: Path | str, assignment: Assignment, time_limit: float = TIME_LIMIT,
                   *, sandboxed: bool = True, root: Path = ROOT, slot: int = 0) -> Result:
    """Grade one submission: sandboxed run, then every hidden case compared with the key."""
    path = Path(path)
    if not assignment.expected:
        raise ValueError(f"{assignment.name} has no answer key: run `assign` first")
    data = read_submission(path)
    return _grade(escape(path.name), data, assignment, time_limit, sandboxed, root, slot)


def _grade(name: str, data: bytes, assignment: Assignment, time_limit: float, sandboxed: bool,
           root: Path, slot: int) -> Result:
    run = run_notebook(data, assignment.cases, time_limit=time_limit, sandboxed=sandboxed,
                       public_tests=Path(root) / "student" / assignment.name / "tests",
                       slot=slot)
    points, notes = score(assignment, run.records)
    run.notes += notes
    return Result(name, assignment.name, points, assignment.questions, run)


def submissions(folder: Path) -> list[str]:
    """The names ending in ``.ipynb`` (hidden ones aside) in ``folder``, whatever they are."""
    with os.scandir(folder) as entries:
        return sorted(e.name for e in entries
                      if e.name.endswith(".ipynb") and not e.name.startswith("."))


def grade_folder(
    folder: Path | str,
    csv_path: Path | str | None = None,
    root: Path = ROOT,
    time_limit: float = TIME_LIMIT,
    jobs: int = 2,
    *,
    sandboxed: bool = True,
) -> list[Result]:
    """Grade every ``*.ipynb`` in ``folder`` (``jobs`` at a time); one CSV row each, written
    atomically once every sandbox is gone. ``sandboxed=False`` runs submissions without the
    sandbox (no isolation at all: for trusted notebooks and benchmarks only)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist")
    names = [p.name for p in sorted((Path(root) / "autograder").glob("ch*")) if p.is_dir()]
    if not names:
        raise ValueError(f"no assignments in {Path(root) / 'autograder'}: is {root} the "
                         "exercises folder (source/, student/, autograder/)?")
    if sandboxed:
        problem = sandbox_problem()
        if problem is not None:
            raise SandboxUnavailable(problem)
        hidden = [Path(root) / "autograder", Path(root) / "source", folder]
        if csv_path is not None:
            hidden.append(Path(csv_path).resolve().parent)
        check_not_exposed(*hidden)
    assignments = {name: load_assignment(name, root) for name in names}
    slots: queue.Queue[int] = queue.Queue()
    for slot in range(max(1, jobs)):
        slots.put(slot)

    def one(name: str) -> Result:
        shown = escape(name)
        start = time.perf_counter()
        try:
            data = read_submission(folder / name)
        except (OSError, ValueError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            run = RunInfo("refused", time.perf_counter() - start, notes=[escape(reason, 200)])
            return Result(shown, "?", {}, {}, run)
        assignment = assignment_of(name, data, names)
        if assignment is None:
            run = RunInfo("unreadable", 0.0, notes=["no assignment name in metadata or name"])
            return Result(shown, "?", {}, {}, run)
        slot = slots.get()
        try:
            return _grade(shown, data, assignments[assignment], time_limit, sandboxed, root,
                          slot)
        finally:
            slots.put(slot)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, submissions(folder)))
    if csv_path is not None:
        write_csv(results, csv_path)
    return results


def write_csv(results: list[Result], path: Path | str) -> None:
    """Columns: submission, assignment, one per question, total, max, status, seconds, notes.
    Written to a temporary file next to ``path``, then renamed over it (atomic)."""
    questions = sorted({q for r in results for q in r.max_points}, key=_question_order)
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow(["submission", "assignment", *questions, "total", "max", "status", "seconds",
                  "notes"])
    for r in results:
        row = [r.points.get(q, "") for q in questions]
        notes = "; ".join(r.run.notes)  # each note is one escaped line already
        notes = notes if len(notes) <= 500 else notes[:499] + "…"
        out.writerow([r.submission, r.assignment, *row, r.total, sum(r.max_points.values()),
                      r.run.status, f"{r.run.seconds:.1f}", notes])
    path = Path(path)
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
