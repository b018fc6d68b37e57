"""One download per assignment (the Exercises page's archives) has everything a student needs.

Each archive is unpacked into a fresh folder outside the repository and used as a student would:
the blank notebook's ``grader.check`` cells find their tests, and the reference answers pass them.
A notebook downloaded without its tests fails with otter's "does not exist" (what the archive
fixes). The built site's own archives are checked in tests/book/test_site_exercises.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from course_rnn.grading.archives import assignment_files, write_archive, write_archives

from .conftest import ASSIGNMENTS, EXERCISES

CHECK = Path(__file__).with_name("check_archive.py")
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
        assert f'pip install "course_rnn[exercises] @ git+{URL}"' in readme
        assert 'grader.check("q1")' in readme


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


def check(folder: Path, name: str) -> subprocess.CompletedProcess:
    solution = EXERCISES / "autograder" / name / "solution.ipynb"
    return subprocess.run([sys.executable, str(CHECK), str(folder), str(solution)],
                          capture_output=True, text=True, timeout=600, cwd=folder)


@pytest.mark.slow
def test_each_downloaded_archive_works_in_a_fresh_folder(archives, tmp_path):
    failures = []
    for name, path in sorted(archives.items()):
        with zipfile.ZipFile(path) as archive:
            archive.extractall(tmp_path / "downloads")
        done = check(tmp_path / "downloads" / name, name)
        if done.returncode != 0:
            failures.append(f"{name}:\n{done.stdout}\n{done.stderr[-2000:]}")
        else:
            assert done.stdout.count('"passed": true') >= 2, done.stdout
    assert not failures, "\n".join(failures)


@pytest.mark.slow
def test_a_notebook_downloaded_alone_cannot_check_answers(tmp_path):
    folder = tmp_path / "ch01_bengio"
    folder.mkdir()
    shutil.copy(EXERCISES / "student" / "ch01_bengio" / "ch01_bengio.ipynb", folder)
    (folder / "tests").mkdir()  # an empty tests/ folder: nothing for grader.check to find
    done = check(folder, "ch01_bengio")
    assert done.returncode == 1
    assert "does not exist" in done.stdout, done.stdout
