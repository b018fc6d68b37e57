"""Where a result comes from: the ``provenance`` object of every ``results.json``.

A saved replication says which code made it and how, so that a reader can tell a 2-epoch smoke
run from the book's scale and find the code again:

* ``course_rnn``: the package's version (``course_rnn.__version__``, as in pyproject.toml);
* ``commit``: the git commit of the package's source when it runs from a git checkout, None
  otherwise (an installed wheel, no git, a checkout git refuses to read: never an error), and
  ``uncommitted_changes``: whether the package's tracked files differ from that commit (None
  when there is no commit);
* ``command``: the command line that made the run (``python -m course_rnn replicate …``), None
  when it was run from Python (a chapter);
* ``started`` and ``finished``: local date and time with the UTC offset (ISO 8601);
* ``overrides``: every setting changed from the scale's own (``--set`` or ``settings=``), with
  the value it was given, as its setting's type saves it.

The machine (CPU model, kernel capability, torch, seed offset:
:func:`course_rnn.utils.machine_facts`) and Python's version are saved beside it, as before. This
module imports neither torch nor any experiment.
"""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

from .. import __version__

#: The package's own folder: its git checkout (if any) is the one whose commit is recorded.
PACKAGE = Path(__file__).resolve().parents[1]
#: Every key of the provenance object, in the order results.json saves them.
KEYS = ("course_rnn", "commit", "uncommitted_changes", "command", "started", "finished",
        "overrides")


def now() -> str:
    """The local date and time, to the second, with its UTC offset (ISO 8601)."""
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _git(*args: str, where: Path) -> str | None:
    """git's output for ``args`` run in ``where``, or None when git is missing, fails, or hangs."""
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def source_commit(where: Path = PACKAGE) -> tuple[str | None, bool | None]:
    """(commit, uncommitted changes) of the package at ``where`` when its ``__init__.py`` is
    tracked by a git checkout; (None, None) otherwise — also for an installed copy that merely
    lies inside some repository (a virtual environment in a checkout), whose files git does
    not track."""
    if not (where / "__init__.py").is_file():
        return None, None
    if _git("ls-files", "--error-unmatch", "__init__.py", where=where) is None:
        return None, None
    commit = _git("rev-parse", "HEAD", where=where)
    if not commit:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ".", where=where)
    return commit, (None if status is None else bool(status))


def source_facts() -> dict:
    """The package's version, commit and whether its files changed since: the code that ran."""
    commit, changed = source_commit()
    return {"course_rnn": __version__, "commit": commit, "uncommitted_changes": changed}


def provenance(overrides: dict | None = None, command: str | None = None,
               started: str | None = None, finished: str | None = None) -> dict:
    """A complete provenance object (see the module docstring); ``finished`` defaults to now."""
    return {**source_facts(), "command": command, "started": started,
            "finished": finished or now(), "overrides": dict(overrides or {})}
