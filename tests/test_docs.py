"""The contributor documents point at what is there: every file ARCHITECTURE.md, CONTRIBUTING.md
and the notation page name exists, every chapter the notation page links to exists, the page is
in the book's table of contents, and nothing in the project points at a folder outside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "course_rnn"
DOCS = ("ARCHITECTURE.md", "CONTRIBUTING.md", "README.md", "book/notation.md")
# `models/srn.py`, `tests/languages/conftest.py`, `book/_toc.yml` … (a placeholder such as
# `<name>`, `NN_name` or `chNN_name` names no file)
FILE = re.compile(r"`([\w./-]+\.(?:py|md|yml|ipynb|js|json|bib))`")
PLACEHOLDER = re.compile(r"<|NN|ab_repeat|test_<|\*")
OUTPUTS = {"results.json", "table.md"}  # what `replicate` writes
OUTSIDE = "../" "shared"  # the old design notes' folder, beside the repository


def named_files(text: str) -> list[str]:
    return sorted({name for name in FILE.findall(text) if not PLACEHOLDER.search(name)})


@pytest.fixture(scope="module")
def tracked() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in done.stdout.decode().split("\0") if name]


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_a_document_names_exists(doc, tracked):
    """A name is a path from the repository's root or the package's (``models/srn.py``), or the
    end of one (``static/stepper.js``, ``test_wheel.py``); ``OUTPUTS`` are written by a run."""
    missing = [name for name in named_files((ROOT / doc).read_text(encoding="utf-8"))
               if name not in OUTPUTS and not (ROOT / name).exists()
               and not (PACKAGE / name).exists()
               and not any(path.endswith("/" + name) for path in tracked)]
    assert not missing, f"{doc} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", ["notation", "glossary"])
def test_the_reference_pages_link_chapters_that_exist_and_are_in_the_book(page):
    text = (ROOT / "book" / f"{page}.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\]\((chapters/[\w.]+\.ipynb)\)", text))
    assert links, f"the {page} page links no chapter"
    assert all((ROOT / "book" / link).exists() for link in links), links
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    files = [entry["file"] for part in toc["parts"] for entry in part["chapters"]]
    assert page in files
    last_chapter = max(i for i, name in enumerate(files) if name.startswith("chapters/"))
    assert files.index(page) > last_chapter


def test_nothing_points_outside_the_repository(tracked):
    pointing = [name for name in tracked
                if Path(name).suffix in {".py", ".md", ".yml", ".toml", ".txt", ".cfg", ".ipynb"}
                and (ROOT / name).is_file()
                and OUTSIDE in (ROOT / name).read_text(errors="replace")]
    assert not pointing, f"these point at {OUTSIDE}, which a clone does not have: {pointing}"
