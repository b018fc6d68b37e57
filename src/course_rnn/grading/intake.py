"""What the parent reads of a submission, without ever running it: the file (a regular file of
bounded size, never through a symlink), its assignment, and its code cells.

The notebook is parsed once, before its time limit starts, with :func:`.safejson.parse_json`
(bounded depth and number length, no recursion; at most ``NOTEBOOK_CAP`` bytes). Statements
that talk to otter or set up the student's checker (:mod:`.feedback`) are replaced by ``pass``
in the cells, which :mod:`.runner` then hands to the sandbox; there, each cell is read as
Jupyter reads it, by IPython's own input transformation (:func:`as_ipython_runs`: ``%time x =
f()`` runs ``x = f()``, a ``%%writefile`` cell is not Python, ``name?`` is help), so that a
magic is recognised exactly where IPython recognises one. (:func:`without_magics`, which
replaces magics by ``pass``, is kept for the course's own provided code.) Cells are split into
lines at ``\n`` (and ``\r\n``) only, as Python splits them: U+2028, U+0085 or a form feed
inside a string literal stay where they are.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path

from .safejson import parse_json

NOTEBOOK_CAP = 20 * 2**20  # a submission larger than this is refused unread
CODE_CAP = 4 * 2**20  # characters of code cells run
OTTER_STATEMENT = re.compile(  # otter's, and the setup cell of .handout / .feedback
    r"\s*(import otter\b.*|grader\s*=\s*(otter\.|Checker\().*|grader\.\w+\(.*\)\s*"
    r"|from course_rnn\.grading\.feedback import Checker\s*)", re.S)
MAGIC_LINE = re.compile(r"\s*[%!]")


def submissions(folder: Path) -> list[str]:
    """The names ending in ``.ipynb`` (hidden ones aside) in ``folder``, whatever they are."""
    with os.scandir(folder) as entries:
        return sorted(e.name for e in entries
                      if e.name.endswith(".ipynb") and not e.name.startswith("."))


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


@dataclass(frozen=True)
class Submission:
    """A notebook as the grader reads it, once: otter's assignment name (None without one) and
    ``[[cell index, source], ...]`` of its code cells, magics and otter calls removed."""

    assignment: str | None
    cells: list[list]


def parse_submission(data: bytes) -> Submission:
    """Parse a notebook's bytes once (outside any time limit: the parent does it before the
    sandbox starts). Deeply nested or huge-number outputs and metadata are tolerated (they are
    not graded); bytes that are not UTF-8 become U+FFFD. ``ValueError`` when it is not a
    notebook or holds more than ``CODE_CAP`` characters of code."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    nb = parse_json(text, max_depth=64, lenient=True)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no list of cells")
    return Submission(_otter_name(nb), _code_cells(cells))


def assignment_of(name: str, submission: Submission | None, names: list[str]) -> str | None:
    """The assignment a notebook belongs to: otter's metadata, else a name in the file name
    (only that where the notebook could not be parsed: ``submission`` None)."""
    if submission is not None and submission.assignment in names:
        return submission.assignment
    return next((n for n in sorted(names, key=len, reverse=True) if n in name), None)


def notebook_cells(data: bytes) -> list[list]:
    """The code cells of a notebook's bytes (:func:`parse_submission`)."""
    return parse_submission(data).cells


def _code_cells(cells: list) -> list[list]:
    out, size = [], 0
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        code = without_magics(source, magics=False)
        size += len(code)
        if size > CODE_CAP:
            raise ValueError(f"more than {CODE_CAP} characters of code")
        out.append([i, code])
    return out


def _otter_name(nb) -> str | None:
    """otter's ``metadata.otter.assignment_name``, if the notebook has one."""
    try:
        name = nb["metadata"]["otter"]["assignment_name"]
    except (KeyError, TypeError):
        return None
    return name if isinstance(name, str) else None


def as_ipython_runs(source: str) -> str:
    """``source`` as IPython runs it: its own input transformation (magics become
    ``get_ipython().run_line_magic(...)`` calls, ``name?`` a help request), which the sandbox's
    ``get_ipython()`` then runs (:class:`.child._Shell`). Runs inside the sandbox: the text is
    the submission's."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # no IPython: magic lines become pass, as before
        return without_magics(source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 – what IPython cannot transform, Python reports
        return source


def without_magics(source: str, *, magics: bool = True) -> str:
    """``source`` with each IPython magic or shell line (``%``, ``%%``, ``!`` at the start of a
    logical line; only with ``magics``) and each statement that talks to otter replaced by
    ``pass`` at its indent (so that a block keeps a body) and blank lines (so that line numbers
    stay). Every other character is kept as it was."""
    lines = source.split("\n")  # a "\r" before it stays on its line: Python reads \r\n too
    for first, last in _logical_lines(lines):
        text = "\n".join(lines[first:last + 1])
        if (magics and MAGIC_LINE.match(text)) or OTTER_STATEMENT.fullmatch(text):
            indent = text[: len(text) - len(text.lstrip(" \t"))]
            lines[first:last + 1] = [indent + "pass"] + [""] * (last - first)
    return "\n".join(lines)


_OPENERS, _CLOSERS = "([{", ")]}"


def _logical_lines(lines: list[str]):
    """``(first, last)`` physical line of every logical line, as Python's tokenizer joins them:
    inside brackets, triple-quoted strings and after a backslash a line continues. A magic
    line is one line (its text is not Python: its brackets and quotes do not count), unless it
    ends with a backslash."""
    depth, quote, first = 0, None, None
    for number, line in enumerate(lines):
        starts = first is None
        if starts:
            first = number
            if MAGIC_LINE.match(line):
                if not line.rstrip("\r").endswith("\\"):
                    yield first, number
                    first = None
                continue
        elif MAGIC_LINE.match(lines[first]):  # a magic continued with a backslash
            if not line.rstrip("\r").endswith("\\"):
                yield first, number
                first = None
            continue
        depth, quote, continued = _scan(line, depth, quote)
        if depth == 0 and quote is None and not continued:
            yield first, number
            first = None
    if first is not None:
        yield first, len(lines) - 1


def _scan(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool]:
    """Bracket depth and open string after ``line``, and whether it ends with a backslash
    continuation. Unbalanced closers never take the depth below 0 (a syntax error: Python
    reports it; the scan just goes on)."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote is not None:
            if c == "\\":
                if _at_end(line, i + 1):
                    return depth, quote, True  # the string goes on on the next line
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            i += 1
            continue
        if c == "#":
            break
        if c in "'\"":
            quote = c * 3 if line.startswith(c * 3, i) else c
            i += len(quote)
            continue
        if c in _OPENERS:
            depth += 1
        elif c in _CLOSERS:
            depth = max(0, depth - 1)
        elif c == "\\" and _at_end(line, i + 1):
            return depth, quote, True
        i += 1
    if quote is not None and len(quote) == 1:
        quote = None  # an unterminated one-line string: a syntax error, Python reports it
    return depth, quote, False


def _at_end(line: str, i: int) -> bool:
    """Whether only the line's end (or the ``\r`` of ``\r\n``) is left from ``i``."""
    return i >= len(line) or (i == len(line) - 1 and line[i] == "\r")
