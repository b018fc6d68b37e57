"""The Exercises page offers one download per assignment, and each download is on the site and
holds the notebook with its public tests (that the notebook works alone, copied into an empty
folder, is tests/exercises/test_standalone.py). Also: the site's stepper script is the
package's current one (book/_ext/course_site.py), whatever the execution cache kept in a
chapter's output."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from course_rnn.widgets.web import stepper_script

from .conftest import ROOT

STUDENT = ROOT / "exercises" / "student"


def test_every_assignment_has_one_download_that_holds_what_it_needs(site: Path):
    page = (site / "exercises.html").read_text(encoding="utf-8")
    links = re.findall(r'href="(exercises/[^"]+\.zip)"', page)
    names = sorted(p.name for p in STUDENT.glob("ch[0-9][0-9]_*") if p.is_dir())
    assert sorted(links) == [f"exercises/{name}.zip" for name in names], links
    for name in names:
        with zipfile.ZipFile(site / "exercises" / f"{name}.zip") as archive:
            files = set(archive.namelist())
            tests = {f"{name}/tests/{p.name}" for p in (STUDENT / name / "tests").glob("*.py")}
            assert tests and tests <= files, f"{name}.zip lacks its public tests"
            notebook = f"{name}/{name}.ipynb"
            assert archive.read(notebook) == (STUDENT / name / f"{name}.ipynb").read_bytes()
            assert "pip install" in archive.read(f"{name}/README.md").decode()


def test_the_site_runs_the_current_stepper(site: Path):
    assert (site / "_static" / "course-rnn-stepper.js").read_text() == stepper_script()
    for page in (site / "chapters").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "rnn-stepper" in text:
            assert "course-rnn-stepper.js" in text, f"{page.name} does not load the stepper"
