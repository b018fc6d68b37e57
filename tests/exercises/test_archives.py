"""One download per assignment (the Exercises page's archives) has everything a student needs.

Each archive holds the student notebook byte for byte, its public tests and a README that says
how to install, check and hand in. The notebook needs nothing else: test_standalone.py copies each
one alone into an empty folder and runs it as a student would (blank, then with the reference
answers), which covers the archives' copies too. The built site's own archives are checked in
tests/book/test_site_exercises.py.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import yaml

import course_rnn
from course_rnn.grading.archives import assignment_files, write_archive, write_archives

from .conftest import ASSIGNMENTS, EXERCISES

CONFIG = yaml.safe_load((EXERCISES.parent / "book" / "_config.yml").read_text())
URL = CONFIG["repository"]["url"]


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("archives")
    paths = write_archives(EXERCISES, out, repository=URL, branch=CONFIG["repository"]["branch"])
    return {p.stem: p for p in paths}


def test_one_archive_per_assignment_with_notebook_tests_and_readme(archives):
    assert sorted(archives) == sorted(ASSIGNMENTS)
    for name, path in archives.items():
        student = EXERCISES / "student" / name
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            expected = {f"{name}/{p.relative_to(student).as_posix()}"
                        for p in assignment_files(student)} | {f"{name}/README.md"}
            assert set(names) == expected
            assert any(n.startswith(f"{name}/tests/q") for n in names)
            for file in assignment_files(student):
                arcname = f"{name}/{file.relative_to(student).as_posix()}"
                assert archive.read(arcname) == file.read_bytes(), arcname
            readme = archive.read(f"{name}/README.md").decode()
        assert ("pip install torch==" in readme and "download.pytorch.org/whl/cpu" in readme
                and readme.index("pip install torch==") < readme.index("course_rnn[exercises]"))
        assert (f'pip install "course_rnn[exercises] @ {URL.rstrip("/")}/archive/refs/tags/'
                f'v{course_rnn.__version__}.tar.gz"') in readme
        assert 'grader.check("q1")' in readme
        assert "works alone" in readme and "Hand in the notebook file" in readme


def test_archives_change_only_when_the_assignment_does(archives, tmp_path):
    again = write_archive(EXERCISES / "student" / "ch01_bengio", tmp_path / "again.zip", URL)
    assert again.read_bytes() == archives["ch01_bengio"].read_bytes()


def test_an_assignment_without_tests_is_refused(tmp_path):
    folder = tmp_path / "ch09_empty"
    folder.mkdir()
    (folder / "ch09_empty.ipynb").write_text("{}")
    with pytest.raises(FileNotFoundError, match="no public tests"):
        write_archive(folder, tmp_path / "x.zip")
    with pytest.raises(FileNotFoundError, match="no assignments under"):
        write_archives(tmp_path, tmp_path / "out")
