"""What the parent reads of a submission, without ever running it: the file (a regular file of
bounded size, never through a symlink), its assignment, and its code cells.

The notebook is parsed with :func:`.safejson.parse_json` (bounded depth and number length, no
recursion); lines that talk to otter and IPython magics are dropped from the cells, which
:mod:`.runner` then hands to the sandbox.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .safejson import parse_json

NOTEBOOK_CAP = 20 * 2**20  # a submission larger than this is refused unread
CODE_CAP = 4 * 2**20  # characters of code cells run
OTTER_LINE = re.compile(r"^\s*(import otter\b.*|grader\s*=\s*otter\..*|grader\.\w+\(.*\)\s*)$")
MAGIC_LINE = re.compile(r"^\s*[%!]")


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


def assignment_of(name: str, data: bytes, names: list[str]) -> str | None:
    """The assignment a notebook belongs to: otter's metadata, else a name in the file name."""
    found = notebook_assignment(data)
    if found in names:
        return found
    return next((n for n in sorted(names, key=len, reverse=True) if n in name), None)


def notebook_cells(data: bytes) -> list[list]:
    """``[[cell index, source], ...]`` of a notebook's code cells, lines that talk to otter and
    IPython magics removed. Deeply nested or huge-number outputs and metadata are tolerated
    (they are not graded); bytes that are not UTF-8 become U+FFFD."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    nb = parse_json(text, max_depth=64, lenient=True)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no list of cells")
    out, size = [], 0
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        lines = [ln for ln in source.splitlines()
                 if not (OTTER_LINE.match(ln) or MAGIC_LINE.match(ln))]
        code = "\n".join(lines)
        size += len(code)
        if size > CODE_CAP:
            raise ValueError(f"more than {CODE_CAP} characters of code")
        out.append([i, code])
    return out


def notebook_assignment(data: bytes) -> str | None:
    """otter's ``metadata.otter.assignment_name``, if the notebook has one."""
    try:
        nb = parse_json(data.decode("utf-8", errors="replace").lstrip("\ufeff"), lenient=True)
        name = nb["metadata"]["otter"]["assignment_name"]
    except (ValueError, KeyError, TypeError):
        return None
    return name if isinstance(name, str) else None
