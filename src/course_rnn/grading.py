"""Graded exercises: student versions from otter-grader, and a batch grader that cannot be fooled.

Three commands (``python -m course_rnn.grading assign | check | grade``):

``assign``
    Runs ``otter assign`` on every source notebook ``exercises/source/chNN_*.ipynb`` (solutions
    and tests in otter's format) and writes the student notebook with its *public* tests to
    ``exercises/student/chNN_*/`` and the instructor bundle (solution notebook, all tests,
    hidden ones included) to ``exercises/autograder/chNN_*/``. It then runs the solution through
    the grader's own sandbox and stores what every hidden test case evaluates to in
    ``expected.json``: those values are the answer key.
``check``
    Regenerates into a temporary folder and lists every committed file that differs.
``grade SUBMISSIONS [--csv grades.csv]``
    Grades every notebook in a folder and writes one CSV row per submission with points per
    question.

How a submission is graded, and why it cannot fake its score
------------------------------------------------------------
Students get instant feedback from ``grader.check("q1")`` (otter, public tests only). Those
public tests carry **no points**: code running in the same process could simply replace
``torch.allclose`` or otter's checker. Every point comes from a *hidden* test case, and a hidden
case is a *probe*: code whose last expression is a value computed by the student's functions
(``lstm_step(*lstm_case(1))``), never a verdict such as ``True``. Grading one submission:

1. a fresh Python process (``python -I``) starts in an empty temporary folder, imports the
   scientific stack, reads the probes, then installs an audit hook (:pep:`578`, cannot be
   removed) that refuses writes outside that folder, subprocesses, forks, ctypes and sockets;
2. it runs the submission's code cells one by one like a kernel would (an exception, a syntax
   error or ``sys.exit()`` in one cell is recorded and the next cell runs; a cell gets
   ``cell_timeout`` seconds), then evaluates each probe and appends its value as JSON;
3. the parent process, which never runs student code, kills the child at ``time_limit``
   seconds, keeps at most ``OUTPUT_CAP`` bytes of its output, reads at most ``RESULTS_CAP``
   bytes of values, and compares each value with the answer key (``rtol=1e-4, atol=1e-6``).

The child can report any value it likes, but a value earns the point only if it equals what the
reference solution computes, so monkeypatching the checker, the tests or the reporting gains
nothing. A process that dies (``os._exit``, a crash, the time limit) keeps the values it had
already reported. Limits, stated plainly: the guard is in-process (no container), so a
submission could *read* files it can reach, including the answer key on the instructor's disk;
it is no defence against a student who calls the course library's reference implementation
instead of writing their own.
"""

from __future__ import annotations

import argparse
import ast
import csv
import filecmp
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "exercises"
TIME_LIMIT = 60.0  # seconds of wall clock per submission, all cells and probes together
CELL_TIMEOUT = 20.0  # per cell or probe, at most half the time limit (soft: SIGALRM)
OUTPUT_CAP = 64_000  # bytes of a submission's stdout/stderr kept for the report
RESULTS_CAP = 2_000_000  # bytes of reported values read back
FILE_SIZE_CAP = 32 * 2**20  # RLIMIT_FSIZE of the child: no file it writes grows beyond this
MEMORY_CAP = 6 * 2**30  # RLIMIT_AS of the child (torch reserves a lot of address space)
RTOL, ATOL = 1e-4, 1e-6
EXPECTED_ERRORS = (ValueError, TypeError)  # a probe raising one of these reports it as a value

# lines of a submission that talk to otter: the grader never runs them
OTTER_LINE = re.compile(r"^\s*(import otter\b.*|grader\s*=\s*otter\..*|grader\.\w+\(.*\)\s*)$")
MAGIC_LINE = re.compile(r"^\s*[%!]")


# =============================================================================================
# Assignments: the source notebooks, otter assign, and the answer key
# =============================================================================================


@dataclass(frozen=True)
class Case:
    """One hidden test case: a probe ``code`` whose last expression is the graded value."""

    question: str
    index: int
    points: float
    code: str

    @property
    def id(self) -> str:
        return f"{self.question}/{self.index}"


@dataclass
class Assignment:
    """An assignment's hidden cases, its questions' maximum points and its answer key."""

    name: str
    cases: list[Case]
    expected: dict = field(default_factory=dict)

    @property
    def questions(self) -> dict[str, float]:
        points: dict[str, float] = {}
        for case in self.cases:
            points[case.question] = points.get(case.question, 0.0) + case.points
        return points


def source_notebooks(root: Path = ROOT) -> list[Path]:
    return sorted((Path(root) / "source").glob("ch[0-9][0-9]_*.ipynb"))


def _read_otter_test(path: Path) -> dict:
    """An otter OK-format test file is ``OK_FORMAT = True`` then ``test = {...}``: a literal."""
    tree = ast.parse(path.read_text())
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


def hidden_cases(tests_dir: Path) -> list[Case]:
    """Every hidden, point-carrying test case of an assignment's otter test files."""
    cases = []
    for path in sorted(Path(tests_dir).glob("*.py")):
        test = _read_otter_test(path)
        for suite in test["suites"]:
            for index, case in enumerate(suite["cases"]):
                if case.get("hidden") and case.get("points", 0) > 0:
                    code = doctest_to_code(case["code"])
                    cases.append(Case(test["name"], index, float(case["points"]), code))
    return cases


def load_assignment(name: str, root: Path = ROOT) -> Assignment:
    bundle = Path(root) / "autograder" / name
    if not bundle.is_dir():
        known = sorted(p.name for p in (Path(root) / "autograder").glob("ch*"))
        raise ValueError(f"unknown assignment {name!r}; known: {', '.join(known)}")
    expected_path = bundle / "expected.json"
    expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
    return Assignment(name, hidden_cases(bundle / "tests"), expected)


def _otter_assign(source: Path, dist: Path) -> None:
    """``otter assign`` into ``dist`` (``dist/student`` and ``dist/autograder``)."""
    command = [sys.executable, "-m", "otter", "assign", "--no-run-tests", "--no-pdfs"]
    done = subprocess.run(
        [*command, str(source), str(dist)], capture_output=True, text=True, cwd=source.parent
    )
    if done.returncode != 0:
        raise RuntimeError(f"otter assign failed on {source.name}:\n{done.stderr[-3000:]}")


def _normalise_notebook(path: Path) -> None:
    """Drop what changes from run to run (cell ids are random in nbformat ≥ 4.5)."""
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        cell["id"] = f"cell-{i:03d}"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def _copy_tests(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True)
    for test in sorted(src.glob("*.py")):
        shutil.copy(test, dst / test.name)


def assign(
    root: Path = ROOT, out: Path | None = None, names: list[str] | None = None, keys: bool = True
) -> list[str]:
    """Generate ``student/<name>/`` and ``autograder/<name>/`` (under ``out``, default ``root``)
    for every source notebook, with answer keys when ``keys``. Returns the assignment names."""
    root, out = Path(root), Path(out or root)
    done = []
    for source in source_notebooks(root):
        name = source.stem
        if names and name not in names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            dist = Path(tmp) / "dist"
            _otter_assign(source, dist)
            student, bundle = out / "student" / name, out / "autograder" / name
            for target in (student, bundle):
                shutil.rmtree(target, ignore_errors=True)
            student.mkdir(parents=True)
            shutil.copy(dist / "student" / source.name, student / source.name)
            _normalise_notebook(student / source.name)
            _copy_tests(dist / "student" / "tests", student / "tests")
            bundle.mkdir(parents=True)
            shutil.copy(dist / "autograder" / source.name, bundle / "solution.ipynb")
            _normalise_notebook(bundle / "solution.ipynb")
            _copy_tests(dist / "autograder" / "tests", bundle / "tests")
        if keys:
            _write_answer_key(name, out)
        done.append(name)
    return done


def _write_answer_key(name: str, root: Path) -> None:
    """Run the solution in the sandbox; every hidden case must produce a value."""
    bundle = Path(root) / "autograder" / name
    assignment = Assignment(name, hidden_cases(bundle / "tests"))
    values, run = _run_sandboxed(bundle / "solution.ipynb", assignment.cases, TIME_LIMIT)
    missing = [c.id for c in assignment.cases if "value" not in values.get(c.id, {})]
    if missing:
        problems = {c: values.get(c, "no value") for c in missing}
        raise RuntimeError(f"{name}: the solution fails hidden cases {problems}\n{run.output}")
    key = {case.id: values[case.id]["value"] for case in assignment.cases}
    for case_id, value in key.items():
        if value["t"] == "raised":
            print(f"{name} {case_id}: the reference raises {value['v']} (the expected answer)")
    lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(key.items())]
    (bundle / "expected.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


def check_up_to_date(root: Path = ROOT) -> list[str]:
    """Files under ``student/`` and ``autograder/`` (answer keys aside) that ``assign`` would
    change, add or remove. Empty when the committed versions are current."""
    root = Path(root)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        shutil.copytree(root / "source", fresh / "source")
        assign(fresh, fresh, keys=False)
        stale = []
        for part in ("student", "autograder"):
            new = {p.relative_to(fresh) for p in (fresh / part).rglob("*") if p.is_file()}
            old = {p.relative_to(root) for p in (root / part).rglob("*") if p.is_file()}
            for rel in sorted(new | old):
                if rel.name == "expected.json" or "__pycache__" in rel.parts:
                    continue  # floats: the reference-gets-full-marks test checks the key
                if rel not in old or rel not in new:
                    stale.append(str(rel))
                elif not filecmp.cmp(fresh / rel, root / rel, shallow=False):
                    stale.append(str(rel))
        return stale


# =============================================================================================
# Grading: the parent side (never runs submitted code)
# =============================================================================================


@dataclass
class RunInfo:
    """What the sandboxed process did: how it ended and the start of its output."""

    status: str  # "ok", "timeout", "exited <code>", "unreadable"
    seconds: float
    output: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Result:
    submission: str
    assignment: str
    points: dict[str, float]
    max_points: dict[str, float]
    run: RunInfo

    @property
    def total(self) -> float:
        return sum(self.points.values())


def values_match(got, want, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Exact for types, shapes, strings, ints and booleans; floats within tolerance."""
    if not isinstance(got, dict) or not isinstance(want, dict) or got.get("t") != want.get("t"):
        return False
    kind = want["t"]
    if kind == "float":
        return _close(got.get("v"), want["v"], rtol, atol)
    if kind == "array":
        if got.get("shape") != want["shape"] or got.get("dtype") != want["dtype"]:
            return False
        data, ref = got.get("data"), want["data"]
        if not isinstance(data, list) or len(data) != len(ref):
            return False
        if want["dtype"] == "float":
            return all(_close(a, b, rtol, atol) for a, b in zip(data, ref))
        return data == ref
    if kind in ("list", "dict"):
        items, ref = got.get("items"), want["items"]
        if not isinstance(items, list) or len(items) != len(ref):
            return False
        if kind == "dict" and [k for k, _ in items] != [k for k, _ in ref]:
            return False
        pairs = zip(items, ref) if kind == "list" else ((a[1], b[1]) for a, b in zip(items, ref))
        return all(values_match(a, b, rtol, atol) for a, b in pairs)
    return got == want  # int, bool, str, none, raised


def _close(a, b, rtol: float, atol: float) -> bool:
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        return False
    return math.isfinite(a) and abs(a - b) <= atol + rtol * abs(b)


def grade_notebook(
    path: Path | str, assignment: Assignment, time_limit: float = TIME_LIMIT
) -> Result:
    """Grade one submission: sandboxed run, then every hidden case compared with the key."""
    path = Path(path)
    if not assignment.expected:
        raise ValueError(f"{assignment.name} has no answer key: run `assign` first")
    values, run = _run_sandboxed(path, assignment.cases, time_limit)
    points = dict.fromkeys(assignment.questions, 0.0)
    for case in assignment.cases:
        reported = values.get(case.id, {})
        if "value" in reported and values_match(reported["value"], assignment.expected[case.id]):
            points[case.question] += case.points
        else:
            run.notes.append(f"{case.id}: {reported.get('error', 'wrong value')}"[:200])
    return Result(path.name, assignment.name, points, assignment.questions, run)


def assignment_of(path: Path, names: list[str]) -> str | None:
    """The assignment a notebook belongs to: otter's metadata, else a name in the file name."""
    try:
        nb = json.loads(Path(path).read_text())
        name = nb.get("metadata", {}).get("otter", {}).get("assignment_name")
    except (OSError, ValueError, AttributeError):
        name = None
    if name in names:
        return name
    return next((n for n in sorted(names, key=len, reverse=True) if n in Path(path).name), None)


def grade_folder(
    folder: Path | str,
    csv_path: Path | str | None = None,
    root: Path = ROOT,
    time_limit: float = TIME_LIMIT,
    jobs: int = 2,
) -> list[Result]:
    """Grade every ``*.ipynb`` in ``folder`` (``jobs`` at a time); one CSV row each."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist")
    names = [p.name for p in sorted((Path(root) / "autograder").glob("ch*")) if p.is_dir()]
    assignments = {name: load_assignment(name, root) for name in names}

    def one(path: Path) -> Result:
        name = assignment_of(path, names)
        if name is None:
            run = RunInfo("unreadable", 0.0, notes=["no assignment name in metadata or name"])
            return Result(path.name, "?", {}, {}, run)
        try:
            return grade_notebook(path, assignments[name], time_limit)
        except Exception as e:  # noqa: BLE001 – one bad submission never stops the batch
            run = RunInfo("grader error", 0.0, notes=[f"{type(e).__name__}: {e}"[:300]])
            points = dict.fromkeys(assignments[name].questions, 0.0)
            return Result(path.name, name, points, assignments[name].questions, run)

    paths = sorted(folder.glob("*.ipynb"))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, paths))
    if csv_path is not None:
        write_csv(results, csv_path)
    return results


def write_csv(results: list[Result], path: Path | str) -> None:
    """Columns: submission, assignment, one per question, total, max, status, seconds, notes."""
    questions = sorted({q for r in results for q in r.max_points}, key=_question_order)
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["submission", "assignment", *questions, "total", "max", "status",
                      "seconds", "notes"])
        for r in results:
            row = [r.points.get(q, "") for q in questions]
            notes = "; ".join(r.run.notes)[:500]
            out.writerow([r.submission, r.assignment, *row, r.total, sum(r.max_points.values()),
                          r.run.status, f"{r.run.seconds:.1f}", notes])


def _question_order(name: str):
    digits = re.findall(r"\d+", name)
    return (int(digits[0]) if digits else 0, name)


def _run_sandboxed(notebook: Path, cases: list[Case], time_limit: float):
    """Run ``notebook`` then ``cases`` in a fresh, guarded process; return the reported values
    ``{case id: {"value": ...} or {"error": ...}}`` and how the run went."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        work = Path(tmp)
        try:
            shutil.copy(notebook, work / "submission.ipynb")
        except OSError as e:
            return {}, RunInfo("unreadable", 0.0, notes=[str(e)])
        spec = {"cases": [{"id": c.id, "code": c.code} for c in cases],
                "cell_timeout": min(CELL_TIMEOUT, time_limit / 2)}
        (work / "spec.json").write_text(json.dumps(spec))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "TMPDIR": tmp,
               "MPLBACKEND": "Agg", "MPLCONFIGDIR": tmp, "OMP_NUM_THREADS": "1",
               "PYTHONHASHSEED": "0"}
        command = [sys.executable, "-I", "-c", "from course_rnn.grading import _child_main; "
                   "_child_main()"]
        child = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=_child_limits)
        kept = bytearray()
        drain = threading.Thread(target=_drain, args=(child.stdout, kept), daemon=True)
        drain.start()
        try:
            code = child.wait(timeout=time_limit)
            status = "ok" if code == 0 else f"exited {code}"
        except subprocess.TimeoutExpired:
            status = "timeout"
        _kill_group(child)
        drain.join(timeout=5)
        values, notes = _read_results(work / "results.jsonl")
    run = RunInfo(status, time.perf_counter() - start, kept.decode(errors="replace"), notes)
    return values, run


def _child_limits() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _drain(stream, kept: bytearray) -> None:
    """Read the child's output to the end (so it never blocks) but keep only the start."""
    while chunk := stream.read(65536):
        if len(kept) < OUTPUT_CAP:
            kept += chunk[: OUTPUT_CAP - len(kept)]


def _kill_group(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()


def _read_results(path: Path) -> tuple[dict, list[str]]:
    """The first report for each case id; malformed lines are ignored, not believed."""
    values: dict[str, dict] = {}
    notes: list[str] = []
    try:
        with open(path, "rb") as f:
            data = f.read(RESULTS_CAP)
    except OSError:
        return values, ["the submission reported no values"]
    for line in data.decode(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "cell" in record and len(notes) < 20:
            notes.append(f"cell {record['cell']}: {str(record.get('error'))[:150]}")
        elif isinstance(record.get("id"), str) and record["id"] not in values:
            values[record["id"]] = record
    return values, notes


# =============================================================================================
# Grading: the child side (runs the submission; everything here is reported, never trusted)
# =============================================================================================


def _child_main() -> None:
    import numpy  # noqa: F401  the stack is imported before the guard goes up
    import torch

    import course_rnn.languages.dyck  # noqa: F401
    import course_rnn.languages.tabor  # noqa: F401
    import course_rnn.models.lstm  # noqa: F401
    import course_rnn.models.urn  # noqa: F401

    torch.set_num_threads(1)
    spec = json.loads(Path("spec.json").read_text())
    os.remove("spec.json")
    cells = _code_cells(Path("submission.ipynb"))
    report = open("results.jsonl", "a", buffering=1)
    _install_guard(os.getcwd())

    namespace = {"__name__": "__main__", "grader": _NoGrader()}
    for i, source in cells:
        error = _run_with_alarm(lambda s=source: _exec_cell(s, namespace), spec["cell_timeout"])
        if error:
            report.write(json.dumps({"cell": i, "error": error}) + "\n")
    for case in spec["cases"]:
        outcome = {}

        def probe(code=case["code"], outcome=outcome):
            try:
                value = _eval_probe(code, namespace)
            except EXPECTED_ERRORS as e:  # "must raise ValueError" is an answer too
                outcome["value"] = {"t": "raised", "v": type(e).__name__}
                return
            outcome["value"] = to_value(value)

        error = _run_with_alarm(probe, spec["cell_timeout"])
        record = {"id": case["id"], **({"error": error} if error else outcome)}
        try:
            line = json.dumps(record)
        except (TypeError, ValueError) as e:
            line = json.dumps({"id": case["id"], "error": f"unreportable value: {e}"})
        report.write(line + "\n")
    report.close()


class _NoGrader:
    """Stands in for ``otter.Notebook`` while grading: its checks carry no points."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _code_cells(path: Path) -> list[tuple[int, str]]:
    nb = json.loads(path.read_text())
    cells = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = [ln for ln in source.splitlines() if not (OTTER_LINE.match(ln) or
                                                          MAGIC_LINE.match(ln))]
        cells.append((i, "\n".join(lines)))
    return cells


class _CellTimeout(Exception):
    pass


def _run_with_alarm(function, seconds: float) -> str | None:
    """Run ``function``; return None, or a one-line description of what it raised."""

    def ring(signum, frame):
        raise _CellTimeout(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        function()
        return None
    except BaseException as e:  # SystemExit and KeyboardInterrupt included: keep going
        return f"{type(e).__name__}: {e}"[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _exec_cell(source: str, namespace: dict) -> None:
    exec(compile(source, "<cell>", "exec"), namespace)


def _eval_probe(code: str, namespace: dict):
    """Run a probe like a cell and return the value of its last expression."""
    tree = ast.parse(code)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise ValueError("a hidden test case must end with an expression")
    last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<probe>", "exec"), namespace)
    return eval(compile(last, "<probe>", "eval"), namespace)


def to_value(obj, depth: int = 0):
    """A JSON description of a probe's value: arrays/tensors as shape + flat data, containers
    recursively, scalars by kind. Anything else is refused."""
    import numpy as np
    import torch

    if depth > 8:
        raise ValueError("value nested too deeply")
    if isinstance(obj, torch.Tensor):
        obj = obj.detach().cpu().numpy()
    if isinstance(obj, np.generic):
        obj = obj.item()
    if obj is None:
        return {"t": "none"}
    if isinstance(obj, bool):
        return {"t": "bool", "v": obj}
    if isinstance(obj, int):
        return {"t": "int", "v": obj}
    if isinstance(obj, float):
        return {"t": "float", "v": obj}
    if isinstance(obj, str):
        return {"t": "str", "v": obj[:10_000]}
    if isinstance(obj, np.ndarray):
        if obj.size > 100_000:
            raise ValueError(f"array of {obj.size} numbers is too large to report")
        kind = obj.dtype.kind
        dtype = {"b": "bool", "i": "int", "u": "int", "f": "float"}.get(kind)
        if dtype is None:
            raise TypeError(f"arrays of dtype {obj.dtype} are not gradable")
        return {"t": "array", "dtype": dtype, "shape": list(obj.shape),
                "data": obj.reshape(-1).tolist()}
    if isinstance(obj, (list, tuple)):
        return {"t": "list", "items": [to_value(x, depth + 1) for x in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"t": "list", "items": [to_value(x, depth + 1) for x in sorted(obj, key=repr)]}
    if isinstance(obj, dict):
        items = sorted(((str(k), v) for k, v in obj.items()), key=lambda kv: kv[0])
        return {"t": "dict", "items": [[k, to_value(v, depth + 1)] for k, v in items]}
    raise TypeError(f"values of type {type(obj).__name__} are not gradable")


# -- the guard: an audit hook that cannot be removed ------------------------------------------
_BLOCKED_EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "os.kill", "os.killpg", "subprocess.Popen", "pty.spawn",
                   "resource.setrlimit", "resource.prlimit", "socket.connect", "socket.bind",
                   "socket.sendto", "sys.remote_exec", "webbrowser.open", "winreg.")
_PATH_EVENTS = ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
                "os.link", "os.symlink", "os.truncate", "os.utime", "os.setxattr",
                "os.removexattr", "os.chflags", "os.lchflags", "os.lchmod", "shutil.rmtree",
                "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.move",
                "shutil.chown", "os.mkfifo", "os.mknod", "sqlite3.connect")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _install_guard(workdir: str) -> None:
    """Refuse (PermissionError) writes outside ``workdir`` and every way of leaving Python.

    The hook only uses names bound here (C functions and methods of built-in types), so a
    submission that monkeypatches ``os.path`` or ``posixpath`` cannot change its answers."""
    workdir = workdir.rstrip("/") + "/"
    getcwd, isinstance_, str_, bytes_ = os.getcwd, isinstance, str, bytes
    blocked, path_events, write_flags = _BLOCKED_EVENTS, _PATH_EVENTS, _WRITE_FLAGS

    def inside(path) -> bool:
        if isinstance_(path, int):
            return True  # an already-open descriptor: nothing new is reached
        if isinstance_(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance_(path, str_):
            path = str_(path)
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        parts: list = []
        for part in path.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        full = "/" + "/".join(parts)
        return full == "/dev/null" or (full + "/").startswith(workdir)

    def hook(event: str, args) -> None:
        if event.startswith(blocked) or event.startswith("ctypes."):
            raise PermissionError(f"{event} is not allowed while grading")
        if event == "open":
            path, mode, flags = args
            writes = (mode is not None and any(c in str_(mode) for c in "wax+")) or (
                mode is None and isinstance_(flags, int) and flags & write_flags)
            if writes and not inside(path):
                raise PermissionError(f"writing {path!r} is not allowed while grading")
        elif event in path_events:
            for arg in args:
                if isinstance_(arg, (str_, bytes_)) and not inside(arg):
                    raise PermissionError(f"{event} on {arg!r} is not allowed while grading")

    sys.addaudithook(hook)


# =============================================================================================
# Command line
# =============================================================================================


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_rnn.grading", description=__doc__
                                     .split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the exercises/ folder")
    sub = parser.add_subparsers(dest="command", required=True)
    assign_cmd = sub.add_parser(
        "assign", help="generate student versions, autograder bundles, answer keys"
    )
    assign_cmd.add_argument("names", nargs="*", help="only these assignments (default: all)")
    sub.add_parser("check", help="fail if the committed generated files are out of date")
    grade = sub.add_parser("grade", help="grade every notebook in a folder")
    grade.add_argument("submissions", type=Path)
    grade.add_argument("--csv", type=Path, default=Path("grades.csv"))
    grade.add_argument("--time-limit", type=float, default=TIME_LIMIT)
    grade.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)

    if args.command == "assign":
        for name in assign(args.root, names=args.names or None):
            print(f"assigned {name}")
        return 0
    if args.command == "check":
        stale = check_up_to_date(args.root)
        for rel in stale:
            print(f"out of date: {rel}")
        if stale:
            print("run: python -m course_rnn.grading assign")
        return 1 if stale else 0
    results = grade_folder(args.submissions, args.csv, args.root, args.time_limit, args.jobs)
    for r in results:
        print(f"{r.submission}: {r.total:g}/{sum(r.max_points.values()):g} ({r.run.status})")
    print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
