"""One download per assignment: the student notebook, its public tests and a README, zipped.

The website offers ``<name>.zip``, which unpacks to one folder::

    ch01_bengio/
        ch01_bengio.ipynb     the assignment (it carries its own public tests: it works alone)
        tests/q1.py …         its public tests, to read (the hidden ones stay with the instructor)
        README.md             how to install the course, check an answer and hand it in

The notebook needs nothing else: ``assign`` packs its public tests into its setup cell
(:mod:`.handout`), so a notebook downloaded or uploaded alone (another folder, Colab) still gets
its ``grader.check`` feedback, offline. The archives are made when the book is built
(``book/_ext/course_site.py``) or by hand: ``python -m course_rnn.grading archives --out DIR``.
Their bytes depend only on the files (fixed timestamps, sorted entries), so an unchanged
assignment gives an unchanged archive.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

# The release this package is, from its tagged source archive (the book's chapters install the
# same; scripts/release.py keeps the two in step), after PyTorch's CPU build: a bare `torch` on
# Linux pulls a multi-GB CUDA build that the exercises do not need.
INSTALL = 'pip install "course_rnn[exercises] @ {url}/archive/refs/tags/v{version}.tar.gz"'
TORCH_CPU = "pip install torch=={torch} --index-url https://download.pytorch.org/whl/cpu"
STAMP = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: archives do not change with the clock

README = """# {name}: a graded exercise of the course_rnn course

This folder holds the assignment `{name}.ipynb` and a copy of its public tests to read
(`tests/`). The notebook carries its own public tests: it also works alone (moved to another
folder, uploaded to Colab) and never needs the network.

1. Install the course library and the exercise tools, once, into the Python environment your
   Jupyter kernel runs in (in a notebook cell: `%pip install ...`):

       {install}

   From a clone of the repository, `pip install -e ".[exercises]"` does the same.
2. Open `{name}.ipynb` in Jupyter, run its setup cell, and work from top to bottom: replace each
   `...` with your code.
3. After each answer, run the `grader.check("q1")` cell below it: it runs the public tests and
   prints one line per failed check, what was expected and what your code gave
   (`grader.check("q1", details=True)` adds the traceback). Public tests carry no points; your
   instructor's grader runs hidden tests with other inputs, and every rule they check is one a
   public test states.
4. Hand in the notebook file (keep `{name}` in its file name), saved after a restart and run
   of every cell: the grader runs every code cell again and reads no outputs. The top of the
   notebook says how it is graded.
"""


def assignment_files(folder: Path) -> list[Path]:
    """The files a student needs, from ``student/<name>/``: the notebook and ``tests/*.py``."""
    folder = Path(folder)
    notebook = folder / f"{folder.name}.ipynb"
    tests = sorted((folder / "tests").glob("*.py"))
    if not notebook.is_file():
        raise FileNotFoundError(f"{folder}: no student notebook {notebook.name}")
    if not tests:
        raise FileNotFoundError(f"{folder}: no public tests in {folder / 'tests'}")
    return [notebook, *tests]


def install_commands(repository: str) -> list[str]:
    """PyTorch for the CPU (the version installed here, which requirements.txt pins), then this
    release of the course from the repository's tagged archive."""
    from importlib.metadata import PackageNotFoundError, version

    from course_rnn import __version__

    commands = []
    try:
        commands.append(TORCH_CPU.format(torch=version("torch").split("+")[0]))
    except PackageNotFoundError:  # pragma: no cover - the grader always runs with torch
        pass
    return commands + [INSTALL.format(url=repository.rstrip("/"), version=__version__)]


def readme(name: str, repository: str = "", branch: str = "main") -> str:
    """The archive's README. ``branch`` is kept for callers: a release is installed from its tag,
    whatever branch the site was built from."""
    if repository:
        install = "\n       ".join(install_commands(repository))
    else:
        install = 'pip install -e ".[exercises]"   # in a clone of the course repository'
    return README.format(name=name, install=install)


def write_archive(folder: Path, out: Path, repository: str = "", branch: str = "main") -> Path:
    """Zip ``student/<name>/`` (see the module docstring) into ``out`` (a file)."""
    folder, out = Path(folder), Path(out)
    files = assignment_files(folder)
    out.parent.mkdir(parents=True, exist_ok=True)
    entries = [(f"{folder.name}/{p.relative_to(folder).as_posix()}", p.read_bytes())
               for p in files]
    entries.append((f"{folder.name}/README.md",
                    readme(folder.name, repository, branch).encode("utf-8")))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return out


def write_archives(root: Path, out: Path, repository: str = "", branch: str = "main"
                   ) -> list[Path]:
    """``out/<name>.zip`` for every assignment under ``root/student/``."""
    folders = sorted(p for p in (Path(root) / "student").glob("ch[0-9][0-9]_*") if p.is_dir())
    if not folders:
        raise FileNotFoundError(f"no assignments under {Path(root) / 'student'}")
    return [write_archive(f, Path(out) / f"{f.name}.zip", repository, branch) for f in folders]
