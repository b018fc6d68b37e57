"""``grader.check("q1")`` in a student notebook: the public tests, short feedback, no files.

The student notebook carries its own public tests: ``assign`` packs them (the code of each
public case, the names each question's answer cells define, the question's points) into the
notebook's setup cell, ``grader = Checker("ch03_lstm_cell", "<packed tests>")``. So the notebook
works on its own — copied alone into any folder, uploaded to Colab, offline — and always with the
tests of its own version (the ``tests/`` folder beside it is a readable copy, not read).

``grader.check("q1")`` runs question 1's public cases in a copy of the notebook's namespace and
returns a :class:`Result` that shows as a few lines: nothing but "not answered yet" while every
answer of the question still holds ``...``; otherwise one sentence per failed case (the
assertion's own message: what was expected, what the code gave; for an error, the test line that
raised it and the error's first line). ``grader.check("q1", details=True)`` adds each failure's
traceback and what the code printed. ``grader.show("q1")`` prints the public tests;
``grader.check_all()`` checks every question, one line each.

This module runs in the student's kernel and needs only the standard library. The batch grader
never runs it: it turns the setup cell and every ``grader.…(…)`` call into ``pass``
(:mod:`.intake`); the public tests carry no points.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import inspect
import io
import json
import linecache
import traceback
import zlib
from dataclasses import dataclass, field

MESSAGE_CAP = 600  # characters of one failure's sentence


def pack(tests: dict) -> str:
    """``tests`` (JSON-able) as base64 lines of 76 characters: what the setup cell holds."""
    raw = json.dumps(tests, sort_keys=True, ensure_ascii=False).encode("utf-8")
    text = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def unpack(packed: str) -> dict:
    """The inverse of :func:`pack` (whitespace ignored)."""
    return json.loads(zlib.decompress(base64.b64decode("".join(packed.split()))))


def _blank():
    ...


def is_blank(value) -> bool:
    """An answer still as handed out: ``...``, or a function whose body is only ``...`` (or
    ``pass``: it returns None and does nothing else)."""
    if value is Ellipsis:
        return True
    code = getattr(value, "__code__", None)
    blank = _blank.__code__
    return (code is not None and code.co_code == blank.co_code
            and code.co_consts == blank.co_consts and not code.co_names)


@dataclass
class Failure:
    case: int
    sentence: str
    details: str = ""


@dataclass
class Result:
    """What ``grader.check`` returns; shows as its :meth:`text` in a notebook."""

    question: str
    points: float | None
    cases: int
    blank: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    ran: bool = True
    details: bool = False

    @property
    def passed(self) -> bool:
        return self.ran and not self.failures and not self.blank and not self.missing

    passed_all_public = passed  # otter's name, for code written against otter's results

    def text(self, details: bool | None = None) -> str:
        details = self.details if details is None else details
        q = self.question
        if self.missing:
            return (f"{q}: {_names(self.missing)} not defined yet: run {_its(self.missing)} "
                    "cell (and the cells above it) first.")
        if not self.ran:
            return f"{q}: not answered yet ({_names(self.blank)} still {_holds(self.blank)} `...`)."
        if self.passed:
            checks = "the public check passes" if self.cases == 1 else (
                f"all {self.cases} public checks pass")
            worth = f"{_number(self.points)} points" if self.points else "points"
            return (f"{q}: {checks}. Its {worth} come from hidden tests with other inputs, "
                    "run when your notebook is graded.")
        lines = []
        if self.blank:
            lines.append(f"{q}: still to write: {_names(self.blank)}.")
        if self.failures:
            lines.append(f"{q}: {_failing(self)}:")
            for failure in self.failures:
                lines.append(f"  ✗ {_indent(failure.sentence)}")
                if details and failure.details:
                    lines.append(_indent(failure.details.rstrip(), "      ", first=True))
            if not details:
                lines.append(f'(grader.check("{q}", details=True) shows where each failed.)')
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()


@dataclass
class Tests:
    """What ``grader.show`` returns: the public tests of a question, as code."""

    question: str
    cases: list[str]

    def __repr__(self) -> str:
        parts = [f"# {self.question}, public check {i}\n{code.rstrip()}"
                 for i, code in enumerate(self.cases, 1)]
        return "\n\n".join(parts)


class Checker:
    """``grader`` in a student notebook: ``Checker(name, packed)`` with the public tests that
    :func:`pack` packed (``{question: {"cases": [code, ...], "answers": [name, ...],
    "points": p}}``)."""

    def __init__(self, assignment: str, packed: str):
        self.assignment = assignment
        self.tests = unpack(packed)

    @property
    def questions(self) -> list[str]:
        return sorted(self.tests, key=lambda q: (len(q), q))

    def _question(self, question: str) -> dict:
        if question not in self.tests:
            raise ValueError(f"{self.assignment} has no question {question!r}; its questions "
                             f"are {', '.join(self.questions)}")
        return self.tests[question]

    def check(self, question: str, details: bool = False, global_env: dict | None = None
              ) -> Result:
        """Run ``question``'s public tests on the notebook's answers (the caller's globals,
        or ``global_env``); the tests run in a copy of it, so their variables stay out of the
        notebook."""
        test = self._question(question)
        env = global_env if global_env is not None else _caller_globals()
        answers = test.get("answers", [])
        result = Result(question, test.get("points"), len(test["cases"]), details=details)
        result.missing = [a for a in answers if a not in env]
        result.blank = [a for a in answers if a in env and is_blank(env[a])]
        if result.missing or (answers and len(result.blank) == len(answers)):
            result.ran = False
            return result
        for index, code in enumerate(test["cases"], 1):
            failure = run_case(f"{question} check {index}", code, dict(env))
            if failure is not None:
                failure.case = index
                result.failures.append(failure)
        return result

    def check_all(self, global_env: dict | None = None) -> Summary:
        """Every question's check, one line each (details: ``check(q, details=True)``)."""
        env = global_env if global_env is not None else _caller_globals()
        return Summary([self.check(q, global_env=env) for q in self.questions])

    def show(self, question: str) -> Tests:
        """The public tests of ``question``, as code."""
        return Tests(question, list(self._question(question)["cases"]))

    def __repr__(self) -> str:
        return (f"grader for {self.assignment}: public tests of {', '.join(self.questions)}; "
                'grader.check("q1") runs one question\'s')


@dataclass
class Summary:
    results: list[Result]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def __repr__(self) -> str:
        lines = []
        for r in self.results:
            if r.passed:
                lines.append(f"{r.question}: public checks pass")
            elif r.failures and not r.blank:
                lines.append(f"{r.question}: {_failing(r)} (grader.check(\"{r.question}\") "
                             "says why)")
            else:
                lines.append(r.text().splitlines()[0])
        return "\n".join(lines)


def _caller_globals() -> dict:
    """The globals of the code that called the method that calls this: the notebook's."""
    frame = inspect.currentframe()
    return frame.f_back.f_back.f_globals


def run_case(filename: str, code: str, env: dict) -> Failure | None:
    """Run one public case in ``env`` (a copy of the notebook's namespace); None if it passes,
    else the one sentence that says why and, for ``details``, the traceback."""
    printed = io.StringIO()
    given = set(env)
    linecache.cache[f"<{filename}>"] = (len(code), None, code.splitlines(True), f"<{filename}>")
    try:  # (linecache: a traceback shows the test's lines)
        compiled = compile(code, f"<{filename}>", "exec")
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(compiled, env)
    except Exception as error:  # noqa: BLE001 - a failed check, whatever the answer raised
        shown = error.__traceback__.tb_next or error.__traceback__  # not run_case's own frame
        trace = "".join(traceback.format_exception(type(error), error, shown))
        output = printed.getvalue()
        if output:
            trace += "\nprinted during the check:\n" + output[-4000:]
        return Failure(0, _sentence(error, filename, code, env, given), trace)
    return None


def _sentence(error: BaseException, filename: str, code: str, env: dict, given: set) -> str:
    """The assertion's message, else which test line raised what (the error's first line),
    with the values of the test's own variables on that line."""
    message = str(error).strip()
    if isinstance(error, AssertionError) and message:
        return _cap(message)
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if f.filename == f"<{filename}>"]
    lines = code.splitlines()
    line = ""
    if ours and 0 < (ours[-1].lineno or 0) <= len(lines):
        line = lines[ours[-1].lineno - 1].strip()
    values = _values(line, env, given)
    if isinstance(error, AssertionError):
        return _cap(f"this check fails: `{line}`{values}")
    inner = frames[-1].name if frames and frames[-1].filename != f"<{filename}>" else ""
    where = f" (in {inner})" if inner and inner != "<module>" else ""
    first = message.splitlines()[0] if message else ""
    what = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return _cap(f"`{line}`{values} raised {what}{where}" if line else f"raised {what}{where}")


def _values(line: str, env: dict, given: set) -> str:
    """`` with x = 1, y = [2]``: the short values of the names ``line`` reads that the test
    itself bound (not the notebook's), or ''."""
    try:
        names = [n.id for n in ast.walk(ast.parse(line.rstrip(":") + ("\n    pass"
                 if line.endswith(":") else ""))) if isinstance(n, ast.Name)
                 and isinstance(n.ctx, ast.Load)]  # read on the line, not assigned by it
    except SyntaxError:
        return ""
    shown = []
    for name in dict.fromkeys(names):
        if name in given or name not in env or callable(env[name]):
            continue
        try:
            text = repr(env[name])
        except Exception:  # noqa: BLE001 - a value whose repr fails is left out
            continue
        if len(text) <= 80 and "\n" not in text:
            shown.append(f"{name} = {text}")
    return f" with {', '.join(shown)}" if shown else ""


def _failing(result: Result) -> str:
    if result.cases == 1:
        return "the public check fails"
    return f"{len(result.failures)} of {result.cases} public checks fail"


def _cap(text: str) -> str:
    return text if len(text) <= MESSAGE_CAP else text[: MESSAGE_CAP - 1] + "…"


def _indent(text: str, prefix: str = "    ", first: bool = False) -> str:
    lines = text.splitlines() or [""]
    head = (prefix if first else "") + lines[0]
    return "\n".join([head] + [prefix + line for line in lines[1:]])


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _its(names: list[str]) -> str:
    return "its" if len(names) == 1 else "their"


def _holds(names: list[str]) -> str:
    return "holds" if len(names) == 1 else "hold"


def _number(x: float | None) -> str:
    return f"{x:g}" if x is not None else "?"
