"""Where the exercises folder is (``source/``, ``student/``, ``autograder/``).

Given (``--exercises DIR`` on the command line, ``root=`` in Python), else
``$COURSE_RNN_EXERCISES``, else the nearest ``exercises/`` folder at or above the working
directory (from a clone of the repository: its ``exercises/``). Never beside the installed
package: a package installed from a wheel has no exercises next to it.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "COURSE_RNN_EXERCISES"
PARTS = ("source", "student", "autograder")
HOW = (f"pass --exercises DIR (root= in Python) or set {ENV_VAR}, or run from a clone of the "
       "course repository")


class ExercisesNotFound(ValueError):
    """No exercises folder where one was given or looked for."""


def find_exercises(root: Path | str | None = None, needs: str | None = None) -> Path:
    """The exercises folder: ``root`` if given, else ``$COURSE_RNN_EXERCISES``, else the
    nearest ``exercises/`` at or above the working directory that holds ``source/``,
    ``student/`` or ``autograder/``. ``needs`` (one of those) must be in it."""
    if root is not None:
        return _holding(Path(root), needs, f"the exercises folder {root}")
    named = os.environ.get(ENV_VAR)
    if named:
        return _holding(Path(named), needs, f"${ENV_VAR}={named}")
    cwd = Path.cwd()
    searched = [folder / "exercises" for folder in (cwd, *cwd.parents)]
    for candidate in searched:
        if any((candidate / part).is_dir() for part in PARTS):
            return _holding(candidate, needs, f"the exercises folder {candidate}")
    raise ExercisesNotFound(
        f"no exercises folder: ${ENV_VAR} is not set, and no exercises/ folder holding "
        f"{', '.join(p + '/' for p in PARTS)} is in {cwd} or above it (searched "
        f"{', '.join(map(str, searched))}): {HOW}")


def _holding(folder: Path, needs: str | None, named: str) -> Path:
    if not folder.is_dir():
        raise ExercisesNotFound(f"{named} is not a folder: {HOW}")
    if needs is not None and not (folder / needs).is_dir():
        raise ExercisesNotFound(
            f"{named} has no {needs}/ folder (an exercises folder holds "
            f"{', '.join(p + '/' for p in PARTS)}): {HOW}")
    return folder
