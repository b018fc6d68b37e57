"""The chapters' setup cell itself: its template and where it sits in a notebook.

Pure functions of what they are given: the facts of a release (its version, address, torch pin)
are scripts/release.py's, and scripts/notebook_setup.py renders the cell from them and writes it.
Both import this module; it imports neither, so the three stay in one direction
(setup_cell ← release ← notebook_setup; tests/test_layers.py checks scripts/ has no circle).
"""

from __future__ import annotations

TAG = "course-setup"
TAGS = [TAG, "remove-cell"]

TEMPLATE = '''\
# Setup: this notebook needs course_rnn {release}, the release this book was made with. In Colab
# this cell installs it; anywhere else, if it is missing, the error says how to install it, and
# if another version is installed, a warning says so.
import importlib.util
import sys

COURSE_RNN = "{requirement}"
if importlib.util.find_spec("course_rnn") is None:
    if "google.colab" in sys.modules:
        import subprocess

        subprocess.run([sys.executable, "-m", "pip", "install", "-q", COURSE_RNN], check=True)
    else:
        raise ModuleNotFoundError(
            f"This notebook needs the course_rnn library, which this kernel ({{sys.executable}}) "
            "cannot import. Install it into the kernel's environment, e.g. in a cell (the first "
            "line: PyTorch for the CPU, as a laptop needs; skip it where torch is installed):\\n"
            "    %{torch_command}\\n"
            f'    %pip install "{{COURSE_RNN}}"\\n'
            "then restart the kernel. From a clone of {url}: "
            '`pip install -e ".[{extra}]"` (or `make install`).'
        )
else:
    import importlib.metadata

    try:
        INSTALLED = importlib.metadata.version("course_rnn")
    except importlib.metadata.PackageNotFoundError:  # a folder on sys.path, not installed
        INSTALLED = "{release}"
    if INSTALLED != "{release}":
        import warnings

        warnings.warn(f"This notebook was made with course_rnn {release}; this kernel has "
                      f"{{INSTALLED}}, whose results may differ. To match the book: "
                      f'pip install "{{COURSE_RNN}}"', stacklevel=1)
'''


def render(requirement: str, url: str, extra: str, release: str, torch_command: str) -> str:
    """The cell's source for one release."""
    return TEMPLATE.format(requirement=requirement, url=url, extra=extra, release=release,
                           torch_command=torch_command)


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
