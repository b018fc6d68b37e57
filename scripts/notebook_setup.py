"""The first cell of every chapter notebook: what a reader without ``course_rnn`` is told.

A chapter opened outside the course environment (a fresh Jupyter, Colab from the site's launch
button) would otherwise die at its first ``import course_rnn``. Its first cell, tagged
``course-setup`` (and ``remove-cell``: the website does not show it), checks for the library:
in Colab it installs the release the book was built with; anywhere else it stops with the exact
commands to run (PyTorch for the CPU first, then that release), and where another version is
installed it says so. The version comes from ``pyproject.toml``, the repository's address from
``book/_config.yml`` (``repository: url``), the torch pin from ``requirements.txt``: each is
written once (scripts/release.py reads them); this script renders the cell from there.

    python scripts/notebook_setup.py --check [NOTEBOOK ...]   # exit 1 if a cell is missing/stale
    python scripts/notebook_setup.py --write [NOTEBOOK ...]   # insert or update the cell
    python scripts/notebook_setup.py --show                   # print the cell's source

NOTEBOOK defaults to every ``chapters/*.ipynb``. Writing keeps everything else in the notebook.
A new version changes every chapter's first cell (run ``--write`` when releasing).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import release as _release  # noqa: E402  (scripts/release.py: version, address, commands)
from setup_cell import is_current, with_setup  # noqa: E402  (the cell: template, place)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "book" / "_config.yml"


def repository(config: Path = CONFIG) -> tuple[str, str]:
    """The repository's URL and branch, from the book's configuration."""
    return _release.repository(config)


def requirement(url: str, version: str, extra: str = "book") -> str:
    """What pip installs: the tagged release archive (release.requirement)."""
    return _release.requirement(url, version, extra)


def setup_source(url: str, branch: str = "main", extra: str = "book", *,
                 release: str | None = None, torch: str | None = None) -> str:
    """The cell for the release ``release`` (default: pyproject.toml's version), with
    ``torch`` (default: requirements.txt's pin) for the CPU route. ``branch`` is not used: the
    cell installs a tagged release, never a branch."""
    return _release.setup_source(url, extra, release=release, torch=torch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a cell is missing/stale")
    mode.add_argument("--write", action="store_true", help="insert or update the setup cell")
    mode.add_argument("--show", action="store_true", help="print the setup cell's source")
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="default: every chapters/*.ipynb")
    args = parser.parse_args(argv)
    source = setup_source(*repository())
    if args.show:
        print(source, end="")
        return 0
    stale = []
    for path in args.notebooks or sorted((ROOT / "chapters").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        if is_current(notebook, source):
            continue
        if args.write:
            text = json.dumps(with_setup(notebook, source), indent=1, ensure_ascii=False)
            path.write_text(text + "\n", encoding="utf-8")
            print(f"wrote the setup cell of {path}")
        else:
            stale.append(path)
            print(f"missing or stale setup cell: {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
