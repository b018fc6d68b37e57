"""Assignments: the source notebooks, ``otter assign``, hidden cases and the answer key."""

from __future__ import annotations

import ast
import filecmp
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .answers import bound_names
from .handout import make_standalone, packed_tests
from .intake import without_magics
from .locate import find_exercises
from .otter_files import doctest_to_code, otter_cases

ANSWER_TAG = "otter_assign_solution_cell"  # otter's mark on a cell the student writes


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
    """An assignment's hidden cases, its answer key, the errors each question asks for (an
    error a public test of the question expects, ``except ValueError:``) and ``helpers``: the
    key's copy of the notebook's own code cells (:func:`provided_code`): run before the
    submission's cells in its sandbox (so that the student's own definitions win, as in
    Jupyter), and alone, with the reported answers, in the measuring sandbox, where every
    probe's value is computed by the course's code (:func:`.runner.run_notebook`)."""

    name: str
    cases: list[Case]
    expected: dict = field(default_factory=dict)
    asked_errors: dict[str, frozenset[str]] = field(default_factory=dict)
    helpers: list[str] = field(default_factory=list)
    forbidden: tuple[str, ...] = ()  # what its text says answers must not use (a note only)

    @property
    def questions(self) -> dict[str, float]:
        points: dict[str, float] = {}
        for case in self.cases:
            points[case.question] = points.get(case.question, 0.0) + case.points
        return points


def source_notebooks(root: Path) -> list[Path]:
    return sorted((Path(root) / "source").glob("ch[0-9][0-9]_*.ipynb"))


def hidden_cases(tests_dir: Path) -> list[Case]:
    """Every hidden, point-carrying test case of an assignment's otter test files."""
    return [Case(name, index, float(case["points"]), doctest_to_code(case["code"]))
            for name, index, case in otter_cases(tests_dir)
            if case.get("hidden") and case.get("points", 0) > 0]


def errors_caught(code: str) -> set[str]:
    """The exception names a test's code catches (``except ValueError:``) or expects
    (``pytest.raises(ValueError)``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            targets = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "raises"
              and node.args and isinstance(node.args[0], ast.Name)):
            names.add(node.args[0].id)
    return names


def asked_errors(tests_dir: Path) -> dict[str, frozenset[str]]:
    """Per question, the errors its *public* tests ask for: the only errors a hidden case of
    that question may expect, so that no hidden rule goes unstated."""
    asked: dict[str, set[str]] = {}
    for name, _, case in otter_cases(tests_dir):
        asked.setdefault(name, set())
        if not case.get("hidden"):
            asked[name] |= errors_caught(doctest_to_code(case["code"]))
    return {name: frozenset(errors) for name, errors in asked.items()}


def load_assignment(name: str, root: Path | None = None) -> Assignment:
    """The assignment ``name`` of the exercises folder ``root`` (default: found from the
    working directory, :func:`.locate.find_exercises`)."""
    root = find_exercises(root, "autograder")
    bundle = root / "autograder" / name
    if not bundle.is_dir():
        known = sorted(p.name for p in (root / "autograder").glob("ch*"))
        raise ValueError(f"unknown assignment {name!r}; known: {', '.join(known)}")
    expected_path = bundle / "expected.json"
    expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
    tests = bundle / "tests"
    return Assignment(name, hidden_cases(tests), expected, asked_errors(tests),
                      provided_code(bundle / "solution.ipynb"),
                      forbidden_names(bundle / "solution.ipynb"))


_FORBIDDING = re.compile(r"\b(?:do not|don't|must not)\s+(?:use|call)\b(?P<what>.*?)"
                         r"(?:\bin your answers\b|\.\s|\.$)", re.I | re.S)


def forbidden_names(notebook: Path) -> tuple[str, ...]:
    """What an assignment's text forbids in the answers: every name in backticks in a
    sentence "Do not use / call `…` … in your answers" of its markdown cells."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    found: list[str] = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for match in _FORBIDDING.finditer(text):
            for name in re.findall(r"`([A-Za-z_][\w.]*)`", match.group("what")):
                if name not in found:
                    found.append(name)
    return tuple(found)


def forbidden_uses(assignment: Assignment, cells: list[list]) -> list[str]:
    """Notes for the forbidden names a submission's own code cells use (the cells that are
    not the course's provided code), read from the source, never run: ``set_reverser_actions``
    as a word, ``course_rnn.models.urn`` as written, a class's method (``Dyck.attractors``) as
    ``.attractors``. Flags only: the score is what the answers earn."""
    provided = {_normalised(code) for code in assignment.helpers}
    given = set().union(set(), *map(bound_names, assignment.helpers))  # the course hands these out
    own = "\n".join(source for _, source in cells
                    if isinstance(source, str) and _normalised(source) not in provided)
    used = []
    for name in assignment.forbidden:
        parts = name.split(".")
        if len(parts) == 1 and name in given:
            continue  # a name the provided code binds: the text forbids a part of it
        if len(parts) == 1:
            pattern = rf"\b{re.escape(name)}\b"
        elif parts[0][:1].isupper() and len(parts) == 2:  # Class.method: on any instance
            pattern = rf"\.{re.escape(parts[1])}\b"
        else:
            pattern = rf"\b{re.escape(name)}\b|\bfrom\s+{re.escape('.'.join(parts[:-1]))}" \
                      rf"\s+import\b[^\n]*\b{re.escape(parts[-1])}\b"
        if re.search(pattern, own):
            used.append(name)
    if not used:
        return []
    return ["uses " + ", ".join(used) + ", which the assignment's text forbids (not scored)"]


def _normalised(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines()
                     if line.strip() and line.strip() != "pass")


def provided_code(notebook: Path) -> list[str]:
    """The course's own code cells of an assignment's reference notebook, in order: every code
    cell but the answers (otter tags them ``otter_assign_solution_cell``), otter's calls and
    magics removed, empty ones left out."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    provided = []
    for cell in cells:
        if cell["cell_type"] != "code" or ANSWER_TAG in cell["metadata"].get("tags", ()):
            continue
        source = cell["source"]
        code = without_magics("".join(source) if isinstance(source, list) else source)
        if code.strip() and code.strip() != "pass":
            provided.append(code)
    return provided


_OTTER = """
import json, os, sys
from otter.assign import main
for source, dist in json.loads(sys.argv[1]):
    os.chdir(os.path.dirname(source))
    try:
        main(source, dist, no_run_tests=True, no_pdfs=True)
    except BaseException as e:
        sys.exit(f"otter assign failed on {os.path.basename(source)}: {type(e).__name__}: {e}")
"""


def _otter_assign(pairs: list[tuple[Path, Path]]) -> None:
    """``otter assign`` of each source into its ``dist`` (``dist/student``, ``dist/autograder``),
    all in one Python process (importing otter is most of the time)."""
    if not pairs:
        return
    jobs = json.dumps([[str(Path(src).resolve()), str(Path(dist).resolve())]
                       for src, dist in pairs])
    done = subprocess.run([sys.executable, "-c", _OTTER, jobs], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"otter assign failed:\n{done.stderr[-3000:]}")


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
    root: Path | None = None, out: Path | None = None, names: list[str] | None = None,
    keys: bool = True,
) -> list[str]:
    """Generate ``student/<name>/`` and ``autograder/<name>/`` (under ``out``, default ``root``)
    for every source notebook (or those ``names``), with answer keys when ``keys``. Returns the
    assignment names; ``ValueError`` naming them for names with no source notebook."""
    root = find_exercises(root, "source")
    out = Path(out or root)
    known = source_notebooks(root)
    unknown = [n for n in names or () if n not in {s.stem for s in known}]
    if unknown:
        raise ValueError(f"no assignment {', '.join(map(repr, unknown))} in {root / 'source'}; "
                         f"known: {', '.join(s.stem for s in known)}")
    sources = [s for s in known if not names or s.stem in names]
    with tempfile.TemporaryDirectory() as tmp:
        dists = {s: Path(tmp) / s.stem for s in sources}
        _otter_assign(list(dists.items()))
        for source, dist in dists.items():
            name = source.stem
            student, bundle = out / "student" / name, out / "autograder" / name
            for target in (student, bundle):
                shutil.rmtree(target, ignore_errors=True)
            student.mkdir(parents=True)
            shutil.copy(dist / "student" / source.name, student / source.name)
            _copy_tests(dist / "student" / "tests", student / "tests")
            make_standalone(student / source.name, student / "tests")  # tests packed inside
            _normalise_notebook(student / source.name)
            bundle.mkdir(parents=True)
            shutil.copy(dist / "autograder" / source.name, bundle / "solution.ipynb")
            _normalise_notebook(bundle / "solution.ipynb")
            _copy_tests(dist / "autograder" / "tests", bundle / "tests")
    for source in sources:
        if keys:
            write_answer_key(source.stem, out)
    return [s.stem for s in sources]


def write_answer_key(name: str, root: Path | None = None) -> dict:
    """Grade the solution as any submission is graded (its answers reported from one sandbox,
    measured in a second; sandboxed where the sandbox works: it is the instructor's code, so
    the unsandboxed runner is allowed here) and store every hidden case's value."""
    from .runner import run_notebook, sandbox_problem

    root = find_exercises(root, "autograder")
    bundle = root / "autograder" / name
    tests = bundle / "tests"
    solution = bundle / "solution.ipynb"
    assignment = Assignment(name, hidden_cases(tests), asked_errors=asked_errors(tests),
                            helpers=provided_code(solution))
    sandboxed = sandbox_problem() is None
    run = run_notebook(solution.read_bytes(), assignment.cases, sandboxed=sandboxed,
                       public_tests=root / "student" / name / "tests",
                       helpers=assignment.helpers)
    missing = [c.id for c in assignment.cases if "value" not in run.records.get(c.id, {})]
    if missing:
        problems = {c: run.records.get(c, "no value") for c in missing}
        raise RuntimeError(f"{name}: the solution fails hidden cases {problems}\n{run.output}")
    key = {case.id: run.records[case.id]["value"] for case in assignment.cases}
    check_key(assignment, key)
    lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(key.items())]
    (bundle / "expected.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")
    return key


def check_key(assignment: Assignment, key: dict) -> None:
    """An expected error must be one a public test of its question asks for; a question with
    an expected error or a choice (a key of text only, :func:`.values.is_choice`) must also
    have a case that expects a computed value, beside which they earn (raising on every input
    is not an answer, a guessed letter is not work). No value may hold a NaN or an infinity:
    those match nothing, so no answer could earn it."""
    from .values import is_computed, non_finite

    for case in assignment.cases:
        value = key[case.id]
        if non_finite(value):
            raise RuntimeError(f"{assignment.name} {case.id}: the reference's value holds a NaN "
                               "or an infinity, which no answer can match; probe a finite "
                               "quantity (e.g. math.isfinite(x))")
        if is_computed(value):
            continue
        if value["t"] == "raised" and value["v"] not in assignment.asked_errors.get(
                case.question, ()):
            raise RuntimeError(
                f"{assignment.name} {case.id}: the reference raises {value['v']}, but no public "
                f"test of {case.question} asks for it; state the rule in a public test")
        if not any(is_computed(key[c.id]) for c in assignment.cases
                   if c.question == case.question):
            what = "an error" if value["t"] == "raised" else "an error or a choice"
            raise RuntimeError(f"{assignment.name} {case.question}: every hidden case expects "
                               f"{what}; add one that expects a computed value")


def check_up_to_date(root: Path | None = None) -> list[str]:
    """Files under ``student/`` and ``autograder/`` (answer keys aside) that ``assign`` would
    change, add or remove. Empty when the committed versions are current."""
    root = find_exercises(root, "source")
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
                elif not _same_file(fresh / rel, root / rel):
                    stale.append(str(rel))
        return stale


def _same_file(a: Path, b: Path) -> bool:
    """Equal bytes, or student notebooks equal but for how zlib packed the same tests (zlib
    builds, e.g. zlib-ng, may compress the same bytes differently)."""
    if filecmp.cmp(a, b, shallow=False):
        return True
    if a.suffix != ".ipynb":
        return False
    try:
        nbs = [json.loads(p.read_text(encoding="utf-8")) for p in (a, b)]
        packed = [packed_tests(nb) for nb in nbs]
    except (ValueError, OSError):
        return False
    if None in packed or packed[0] != packed[1]:
        return False
    for nb in nbs:
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and "grader = Checker(" in "".join(cell["source"]):
                cell["source"] = []
    return nbs[0] == nbs[1]
