"""The first cell of every chapter notebook: what a reader without ``course_rnn`` is told.

A chapter opened outside the course environment (a fresh Jupyter, Colab from the site's launch
button) would otherwise die at its first ``import course_rnn``. Its first cell, tagged
``course-setup`` (and ``remove-cell``: the website does not show it), checks for the library:
in Colab it installs it from the repository; anywhere else it stops with the exact command to
run. The repository's address comes from ``book/_config.yml`` (``repository: url``), the one
place it is written; this script renders the cell from there.

    python scripts/notebook_setup.py --check [NOTEBOOK ...]   # exit 1 if a cell is missing/stale
    python scripts/notebook_setup.py --write [NOTEBOOK ...]   # insert or update the cell
    python scripts/notebook_setup.py --show                   # print the cell's source

NOTEBOOK defaults to every ``chapters/*.ipynb``. Writing keeps everything else in the notebook.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "book" / "_config.yml"
TAG = "course-setup"
TAGS = [TAG, "remove-cell"]

TEMPLATE = '''\
# Setup: this notebook needs the course_rnn library. In Colab this cell installs it; anywhere
# else, if it is missing, the error says how to install it.
import importlib.util
import sys

if importlib.util.find_spec("course_rnn") is None:
    COURSE_RNN = "{requirement}"
    if "google.colab" in sys.modules:
        import subprocess

        subprocess.run([sys.executable, "-m", "pip", "install", "-q", COURSE_RNN], check=True)
    else:
        raise ModuleNotFoundError(
            f"This notebook needs the course_rnn library, which this kernel ({{sys.executable}}) "
            "cannot import. Install it into the kernel's environment, e.g. in a cell:\\n"
            f'    %pip install "{{COURSE_RNN}}"\\n'
            "then restart the kernel. From a clone of {url}: "
            '`pip install -e ".[{extra}]"` (or `make install`).'
        )
'''


def repository(config: Path = CONFIG) -> tuple[str, str]:
    """The repository's URL and branch, from the book's configuration."""
    settings = yaml.safe_load(Path(config).read_text(encoding="utf-8"))
    repo = settings.get("repository") or {}
    if not repo.get("url"):
        raise ValueError(f"{config}: no repository url (repository: url: ...)")
    return repo["url"].rstrip("/"), str(repo.get("branch") or "main")


def requirement(url: str, branch: str = "main", extra: str = "book") -> str:
    """What pip installs: ``course_rnn[extra] @ git+URL[@branch]``."""
    at = "" if branch == "main" else f"@{branch}"
    return f"course_rnn[{extra}] @ git+{url}{at}"


def setup_source(url: str, branch: str = "main", extra: str = "book") -> str:
    return TEMPLATE.format(requirement=requirement(url, branch, extra), url=url, extra=extra)


def setup_cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": "course-setup",
            "metadata": {"tags": list(TAGS)}, "outputs": [],
            "source": source.splitlines(keepends=True)}


def find_setup(notebook: dict) -> int | None:
    for i, cell in enumerate(notebook["cells"]):
        if TAG in cell.get("metadata", {}).get("tags", []):
            return i
    return None


def is_current(notebook: dict, source: str) -> bool:
    index = find_setup(notebook)
    return index == 0 and "".join(notebook["cells"][0]["source"]) == source


def with_setup(notebook: dict, source: str) -> dict:
    """``notebook`` with the setup cell first (updated in place if it is there)."""
    index = find_setup(notebook)
    cells = list(notebook["cells"])
    if index is not None:
        cells.pop(index)
    cells.insert(0, setup_cell(source))
    return {**notebook, "cells": cells}


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
