"""The contributor documents point at what is there: every file ARCHITECTURE.md, CONTRIBUTING.md
and the notation page name exists, every chapter the notation page links to exists, the page is
in the book's table of contents, every chapter links glossary terms and only ones the glossary
defines, and nothing in the project points at a folder outside it."""

from __future__ import annotations

import json
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


def toc_files() -> list[str]:
    """The book's pages in the order of ``book/_toc.yml``."""
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    return [entry["file"] for part in toc["parts"] for entry in part["chapters"]]


@pytest.mark.parametrize("page", ["notation", "glossary"])
def test_the_reference_pages_link_chapters_that_exist_and_are_in_the_book(page):
    text = (ROOT / "book" / f"{page}.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\]\((chapters/[\w.]+\.ipynb)\)", text))
    assert links, f"the {page} page links no chapter"
    assert all((ROOT / "book" / link).exists() for link in links), links
    files = toc_files()
    assert page in files
    last_chapter = max(i for i, name in enumerate(files) if name.startswith("chapters/"))
    assert files.index(page) > last_chapter


def test_every_chapter_page_is_in_the_book_in_order():
    """Every notebook in chapters/ is a page of the course, in the order of its name (a split
    chapter's pages one after the other), and the contents name no notebook that is missing."""
    in_book = [name.removeprefix("chapters/") for name in toc_files()
               if name.startswith("chapters/")]
    on_disk = sorted(p.stem for p in (ROOT / "chapters").glob("*.ipynb"))
    assert in_book == on_disk, (in_book, on_disk)


def test_nothing_points_outside_the_repository(tracked):
    pointing = [name for name in tracked
                if Path(name).suffix in {".py", ".md", ".yml", ".toml", ".txt", ".cfg", ".ipynb"}
                and (ROOT / name).is_file()
                and OUTSIDE in (ROOT / name).read_text(errors="replace")]
    assert not pointing, f"these point at {OUTSIDE}, which a clone does not have: {pointing}"


GLOSSARY_BLOCK = re.compile(r"^```\{glossary\}\n(.*?)^```$", re.DOTALL | re.MULTILINE)
# {term}`word` or {term}`shown text <term>`
TERM_ROLE = re.compile(r"\{term\}`([^`<]*?)\s*(?:<([^`>]+)>)?`")


def glossary_terms() -> set[str]:
    """The terms of book/glossary.md's ``{glossary}`` blocks: each entry's unindented first line
    (Sphinx matches a ``{term}`` reference case-insensitively)."""
    text = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    return {line.strip().lower() for block in GLOSSARY_BLOCK.findall(text)
            for line in block.splitlines() if line.strip() and not line[0].isspace()}


def test_the_glossary_has_its_terms():
    assert {"attractor", "counter", "teacher forcing", "verdict"} <= glossary_terms()


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")),
                         ids=lambda p: p.stem)
def test_the_chapter_links_its_glossary_terms_to_entries_that_exist(chapter):
    """Issue 33, item 6: a chapter links the first use of the glossary's terms to their entries
    (``{term}`` roles in its Markdown cells), and every such link names an entry of the page."""
    notebook = json.loads(chapter.read_text(encoding="utf-8"))
    prose = "\n".join("".join(cell["source"]) for cell in notebook["cells"]
                      if cell["cell_type"] == "markdown")
    targets = [(target or text).strip().lower() for text, target in TERM_ROLE.findall(prose)]
    assert targets, f"{chapter.name} links no glossary term"
    unknown = sorted(set(targets) - glossary_terms())
    assert not unknown, f"{chapter.name} links terms the glossary does not have: {unknown}"


def test_the_words_for_how_a_run_stopped_are_the_glossarys():
    """Issue 41, item 4: *fitted*, *stalled*, *stuck* and *ran out of steps* mean one thing in the
    library's log lines, the glossary and the pages; "converged" (stopped on its own criterion) is
    defined beside them, and no module or page calls a run that failed "NOT converged"."""
    from course_rnn.training.convergence import ENDINGS

    terms = glossary_terms()
    assert {"fitted", "stalled", "stuck", "ran out of steps", "converged"} <= terms
    assert set(ENDINGS.values()) - {"diverged"} <= terms, "every log word has a glossary entry"
    sources = [*(ROOT / "src").rglob("*.py"), *(ROOT / "chapters").glob("*.ipynb"),
               *(ROOT / "book").glob("*.md"), *(ROOT / "book").glob("*.ipynb")]
    saying = [p.name for p in sources if "NOT converged" in p.read_text(encoding="utf-8")]
    assert not saying, ("a failed run is stuck, stalled or ran out of steps, not 'NOT converged': "
                        f"{saying}")
