"""The chapters' first cell (scripts/notebook_setup.py): where course_rnn is missing it says
exactly how to install the release the book was made with — PyTorch for the CPU first — (or, in
Colab, installs it), with the repository's address from the one place it is written,
book/_config.yml, and the version from pyproject.toml; where that version is there it does
nothing, where another one is it warns."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "notebook_setup.py"
spec = importlib.util.spec_from_file_location("notebook_setup", SCRIPT)
setup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(setup)

CONFIG = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())
URL = CONFIG["repository"]["url"]
SOURCE = setup.setup_source(*setup.repository())
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                    re.MULTILINE).group(1)
RELEASE = f"course_rnn[book] @ {URL}/archive/refs/tags/v{VERSION}.tar.gz"
TORCH = re.search(r"^torch==(\S+)", (ROOT / "requirements.txt").read_text(), re.MULTILINE).group(1)


def test_the_cell_installs_the_tagged_release_of_pyprojects_version_from_the_one_address():
    assert setup.repository() == (URL.rstrip("/"), CONFIG["repository"]["branch"])
    assert f'"{RELEASE}"' in SOURCE and "git+" not in SOURCE
    assert setup.requirement(URL, "9.8.7", "exercises") == \
        f"course_rnn[exercises] @ {URL}/archive/refs/tags/v9.8.7.tar.gz"
    # the site's launch buttons read the same setting
    assert CONFIG["launch_buttons"]["colab_url"] and CONFIG["html"]["use_repository_button"]


def test_without_course_rnn_the_cell_says_how_to_install_it(tmp_path):
    # -S: no site-packages, so no course_rnn, as in a fresh Python
    done = subprocess.run([sys.executable, "-S", "-c", SOURCE], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 1
    assert "ModuleNotFoundError: This notebook needs the course_rnn library" in done.stderr
    torch = f"%pip install torch=={TORCH} --index-url https://download.pytorch.org/whl/cpu"
    course = f'%pip install "{RELEASE}"'
    assert torch in done.stderr and course in done.stderr
    assert done.stderr.index(torch) < done.stderr.index(course)  # the CPU route first
    assert "restart the kernel" in done.stderr


def test_in_colab_the_cell_installs_it(monkeypatch):
    calls = []
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(subprocess, "run", lambda args, check: calls.append(args))
    exec(SOURCE, {})
    assert calls == [[sys.executable, "-m", "pip", "install", "-q", RELEASE]]


def test_with_the_books_release_the_cell_does_nothing(monkeypatch):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("installed again"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(SOURCE, {})


def test_with_another_release_the_cell_warns(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.0.1")
    with pytest.warns(UserWarning, match=f"made with course_rnn {VERSION}; this kernel has 0.0.1"):
        exec(SOURCE, {})


def test_write_puts_the_cell_first_once_and_check_agrees(tmp_path):
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": ["x = 1\n"],
                           "outputs": [], "execution_count": None}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "00_x.ipynb"
    path.write_text(json.dumps(notebook))
    assert setup.main(["--check", str(path)]) == 1
    assert setup.main(["--write", str(path)]) == 0
    assert setup.main(["--write", str(path)]) == 0  # updating, not adding a second one
    cells = json.loads(path.read_text())["cells"]
    assert len(cells) == 2 and cells[1]["source"] == ["x = 1\n"]
    assert cells[0]["metadata"]["tags"] == ["course-setup", "remove-cell"]
    assert setup.main(["--check", str(path)]) == 0


def test_every_chapter_has_the_current_setup_cell():
    chapters = sorted((ROOT / "chapters").glob("*.ipynb"))
    notebooks = {p.name: json.loads(p.read_text()) for p in chapters}
    assert len(notebooks) >= 8, sorted(notebooks)
    stale = [name for name, nb in notebooks.items() if not setup.is_current(nb, SOURCE)]
    assert not stale, f"run `python scripts/notebook_setup.py --write`: {stale}"
