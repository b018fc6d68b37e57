"""``grade`` checks its options before it works: a ``--csv`` that is a folder (or in a folder that
does not exist) and a ``--time-limit`` or ``--jobs`` out of range are refused before any
submission runs, and an existing grades CSV is replaced only with ``--overwrite``."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from course_rnn.grading import assign, batch, cli, grade_folder

from .conftest import EXERCISES


@pytest.fixture
def graded(monkeypatch, tmp_path):
    """A folder with one notebook; ``grade_folder`` replaced by a recorder (nothing runs)."""
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a_ch03_lstm_cell.ipynb").write_text("{}")
    calls = []
    monkeypatch.setattr(batch, "grade_folder", lambda *a, **k: calls.append((a, k)) or [])
    return subs, calls


def grade(subs, *options):
    return cli.main(["grade", str(subs), "--exercises", str(EXERCISES), *options])


def test_a_csv_that_is_a_folder_is_refused_before_grading(graded, tmp_path, capsys):
    subs, calls = graded
    assert grade(subs, "--csv", str(tmp_path)) == 2
    assert "is a folder" in capsys.readouterr().err and calls == []
    assert grade(subs, "--csv", str(tmp_path / "missing" / "g.csv")) == 2
    assert "does not exist" in capsys.readouterr().err and calls == []


def test_an_existing_csv_is_replaced_only_with_overwrite(graded, tmp_path, capsys):
    subs, calls = graded
    csv = tmp_path / "grades.csv"
    csv.write_text("last week's grades\n")
    assert grade(subs, "--csv", str(csv)) == 2
    assert "--overwrite" in capsys.readouterr().err and calls == []
    assert csv.read_text() == "last week's grades\n"
    assert grade(subs, "--csv", str(csv), "--overwrite") == 0 and len(calls) == 1
    assert grade(subs, "--csv", str(tmp_path / "new.csv")) == 0 and len(calls) == 2


@pytest.mark.parametrize("limit", ["0.5", "0", "-1", "1", "9.9", "1e30", "3601", "inf", "-inf",
                                   "nan", "NaN", "ten", ""])
def test_a_time_limit_out_of_range_is_refused_before_any_submission_runs(graded, tmp_path,
                                                                         capsys, limit):
    subs, calls = graded
    with pytest.raises(SystemExit) as stop:
        grade(subs, "--csv", str(tmp_path / "g.csv"), f"--time-limit={limit}")
    assert stop.value.code == 2 and calls == []
    assert "time limit must be a number of seconds from 10 to 3600" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["10", "30", "60.5", "3600"])
def test_a_sane_time_limit_is_taken(graded, tmp_path, limit):
    subs, calls = graded
    assert grade(subs, "--csv", str(tmp_path / "g.csv"), "--time-limit", limit) == 0
    assert calls[0][0][3] == float(limit)


@pytest.mark.parametrize("jobs", ["0", "-2", "65", "1.5", "many"])
def test_jobs_out_of_range_are_refused(graded, tmp_path, capsys, jobs):
    subs, calls = graded
    with pytest.raises(SystemExit) as stop:
        grade(subs, "--csv", str(tmp_path / "g.csv"), f"--jobs={jobs}")
    assert stop.value.code == 2 and calls == []
    assert "--jobs must be a whole number from 1 to 64" in capsys.readouterr().err


@pytest.mark.parametrize("limit", [math.nan, math.inf, 0.5, 1e30, "60"])
def test_python_callers_get_the_same_time_limit_check(tmp_path, limit):
    if limit == "60":  # a numeric string is a number of seconds
        with pytest.raises(ValueError, match="exercises|assignments|submissions"):
            grade_folder(tmp_path / "missing", None, EXERCISES, time_limit=limit)
        return
    with pytest.raises(ValueError, match="time limit"):
        grade_folder(tmp_path, None, EXERCISES, time_limit=limit, sandboxed=False)


def test_python_callers_cannot_name_a_folder_as_the_csv(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        grade_folder(tmp_path, tmp_path, EXERCISES, sandboxed=False)


def test_jobs_beyond_the_usable_cores_are_capped_with_a_warning(graded, tmp_path, capsys,
                                                               monkeypatch):
    """A submission's time limit is wall-clock time: 24 jobs on 2 cores once cost every
    correct ch08 notebook 2 points, status ok (issue 42)."""
    monkeypatch.setattr(batch, "usable_cores", lambda: 2)
    subs, calls = graded
    assert grade(subs, "--csv", str(tmp_path / "g.csv"), "--jobs", "24") == 0
    assert calls[0][0][4] == 24  # the command passes it on; grade_folder caps it, once
    assert batch.usable_jobs(24) == 2 and batch.usable_jobs(2) == 2
    assert "grade: warning: 24 jobs on 2 usable core(s): grading 2 at a time" in \
        capsys.readouterr().err
    for jobs in (0, 65, 2.5, True):  # a caller of grade_folder gets the command's range
        with pytest.raises(ValueError, match="jobs must be a positive integer ≤ 64"):
            batch.usable_jobs(jobs)


@pytest.mark.parametrize("where", ["device", "symlink", "inside", "notebook", "submission"])
def test_a_csv_path_that_could_destroy_is_refused_before_grading(graded, tmp_path, capsys,
                                                                where):
    """``--csv X --overwrite`` once replaced X itself: a character device and a symlink to
    /proc/self/fd/1 became regular files, and a submission named as the CSV was lost
    (issue 42). Only a regular file or a new name outside the submissions folder is taken."""
    subs, calls = graded
    target = tmp_path / "target.csv"
    target.write_text("keep\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    path = {"device": Path("/dev/null"), "symlink": link, "inside": subs / "grades.csv",
            "notebook": tmp_path / "grades.ipynb",
            "submission": subs / "a_ch03_lstm_cell.ipynb"}[where]
    assert grade(subs, "--csv", str(path), "--overwrite") == 2
    err = capsys.readouterr().err
    assert calls == [] and "--csv" in err, err
    assert target.read_text() == "keep\n" and link.is_symlink()
    assert Path("/dev/null").is_char_device()
    assert (subs / "a_ch03_lstm_cell.ipynb").read_text() == "{}"


def test_python_callers_get_the_same_csv_check(tmp_path):
    (tmp_path / "s").mkdir()
    with pytest.raises(ValueError, match="not a regular file"):
        grade_folder(tmp_path / "s", "/dev/null", EXERCISES, sandboxed=False)
    with pytest.raises(ValueError, match="inside the submissions folder"):
        grade_folder(tmp_path / "s", tmp_path / "s" / "g.csv", EXERCISES, sandboxed=False)


def test_assign_refuses_an_unknown_name(capsys):
    assert cli.main(["assign", "nope", "--exercises", str(EXERCISES)]) == 2
    assert "no assignment 'nope'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no assignment 'nope'.*known: ch0"):  # the library too
        assign(EXERCISES, names=["nope"])
