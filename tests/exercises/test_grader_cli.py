"""Where the grader finds the exercises folder — given (``--exercises`` before or after the
command, ``root=`` in Python), ``$COURSE_RNN_EXERCISES``, or the nearest ``exercises/`` at or
above the working directory, never beside the installed package — and the clear error when there
is none; the package laid out as a wheel installs it; helpful ``--help``; ``make grade`` passing
its options on. (The batch itself: conftest.py's one real run.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import course_rnn
from course_rnn.grading import ExercisesNotFound, check_up_to_date, cli, find_exercises
from course_rnn.grading.locate import ENV_VAR

from .conftest import EXERCISES, REPO


@pytest.fixture
def elsewhere(monkeypatch, tmp_path):
    """Run from an empty folder outside the repository, with no $COURSE_RNN_EXERCISES: the
    package (installed beside the repository's exercises/) must not find them from there."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def exercises_at(folder: Path, *parts: str) -> Path:
    for part in parts:
        (folder / part).mkdir(parents=True)
    return folder


@pytest.mark.parametrize("command", [["check"], ["assign"], ["grade", "."],
                                     ["archives", "--out", "x"]])
def test_without_an_exercises_folder_each_command_says_what_it_searched(elsewhere, command,
                                                                       capsys):
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert "pass --exercises DIR" in err and ENV_VAR in err, err
    assert f"searched {elsewhere / 'exercises'}, {elsewhere.parent / 'exercises'}" in err, err


def test_python_callers_get_the_same_error_or_pass_root(elsewhere):
    with pytest.raises(ExercisesNotFound, match="no exercises folder.*searched"):
        check_up_to_date()
    assert find_exercises(EXERCISES, "autograder") == EXERCISES


def test_the_nearest_exercises_folder_at_or_above_the_working_directory(elsewhere, monkeypatch):
    inside = exercises_at(elsewhere / "exercises", "autograder", "source")
    assert find_exercises(None, "autograder") == inside  # from the repository's root
    for folder in (inside, inside / "source"):  # from the exercises folder, or below it
        monkeypatch.chdir(folder)
        assert find_exercises(None, "source") == inside
    nested = exercises_at(inside / "source" / "exercises", "student")
    monkeypatch.chdir(nested.parent)
    assert find_exercises() == nested  # the nearest one wins


def test_a_folder_that_is_merely_named_exercises_is_passed_over(elsewhere, monkeypatch):
    repo = exercises_at(elsewhere / "exercises", "student")
    (elsewhere / "notes" / "exercises").mkdir(parents=True)  # someone else's exercises/
    monkeypatch.chdir(elsewhere / "notes")
    assert find_exercises(None, "student") == repo


def test_the_environment_variable_and_the_argument_come_first(elsewhere, monkeypatch, tmp_path):
    exercises_at(elsewhere / "exercises", "source")
    named = exercises_at(tmp_path / "instructor", "source")
    monkeypatch.setenv(ENV_VAR, str(named))
    assert find_exercises(None, "source") == named
    assert find_exercises(EXERCISES, "source") == EXERCISES
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(ExercisesNotFound, match=f"\\${ENV_VAR}=.*nowhere is not a folder"):
        find_exercises(None, "source")


def test_a_given_folder_without_what_the_command_reads_is_named(elsewhere, tmp_path, capsys):
    given = exercises_at(tmp_path / "copy", "source")
    with pytest.raises(ExercisesNotFound, match="copy has no student/ folder"):
        find_exercises(given, "student")
    assert cli.main(["archives", "--out", "x", "--exercises", str(given)]) == 2
    assert "has no student/ folder" in capsys.readouterr().err


def test_exercises_is_accepted_before_and_after_the_command():
    before = cli.parser().parse_args(["--exercises", "/x", "grade", "subs"])
    after = cli.parser().parse_args(["grade", "subs", "--exercises", "/x"])
    assert before.exercises == after.exercises == Path("/x")
    assert cli.parser().parse_args(["grade", "subs"]).exercises is None


# -- the layout a wheel installs: course_rnn alone in site-packages, no exercises/ beside it ----
@pytest.fixture(scope="module")
def site_packages(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site-packages")
    shutil.copytree(Path(course_rnn.__file__).parent, folder / "course_rnn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def as_installed(site_packages: Path, *args, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != ENV_VAR}
    env["PYTHONPATH"] = str(site_packages)
    code = ("import json, runpy, sys, course_rnn; print(json.dumps(course_rnn.__file__)); "
            "sys.argv = ['grading', *sys.argv[1:]]; "
            "runpy.run_module('course_rnn.grading', run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_installed_from_a_wheel_it_works_from_the_repository_root(site_packages, tmp_path):
    done = as_installed(site_packages, "archives", "--out", tmp_path / "zips", cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[0]).startswith(str(site_packages))
    with zipfile.ZipFile(tmp_path / "zips" / "ch03_lstm_cell.zip") as archive:
        assert "ch03_lstm_cell/ch03_lstm_cell.ipynb" in archive.namelist()


def test_installed_from_a_wheel_it_works_elsewhere_with_exercises(site_packages, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = as_installed(site_packages, "archives", "--out", tmp_path / "zips", cwd=elsewhere)
    assert done.returncode == 2 and "no exercises folder" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    done = as_installed(site_packages, "archives", "--out", tmp_path / "zips", "--exercises",
                        EXERCISES, cwd=elsewhere)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "zips" / "ch03_lstm_cell.zip").is_file()


# -- grading -----------------------------------------------------------------------------------
def test_grade_with_exercises_and_no_sandbox_grades_a_class(elsewhere, tmp_path, capsys):
    root = tmp_path / "copy"
    for part in ("autograder", "student"):
        shutil.copytree(EXERCISES / part / "ch03_lstm_cell", root / part / "ch03_lstm_cell")
    subs = elsewhere / "subs"
    subs.mkdir()
    shutil.copy(root / "autograder" / "ch03_lstm_cell" / "solution.ipynb",
                subs / "ada_ch03_lstm_cell.ipynb")
    code = cli.main(["grade", str(subs), "--exercises", str(root), "--csv",
                     str(tmp_path / "g.csv"), "--unsafe-no-sandbox", "--time-limit", "120"])
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(line for line in out.splitlines() if line.startswith("ada_"))
    got, total = line.split(": ")[1].split(" ")[0].split("/")
    assert got == total and float(total) > 0, line


def test_grade_names_an_exercises_folder_without_assignments(elsewhere, tmp_path, capsys):
    (tmp_path / "empty" / "autograder").mkdir(parents=True)
    assert cli.main(["grade", ".", "--exercises", str(tmp_path / "empty"), "--csv",
                     str(tmp_path / "g.csv"), "--unsafe-no-sandbox"]) == 2
    assert "no assignments in" in capsys.readouterr().err


def test_every_option_of_grade_is_described():
    grade = cli.parser()._subparsers._group_actions[0].choices["grade"]
    for action in grade._actions:
        assert action.help, f"{action.option_strings or action.dest} has no description"
    text = grade.format_help()
    assert "default 60" in text and "(default 2)" in text and "grades.csv" in text
    assert "--exercises DIR" in text and ENV_VAR in text


def test_make_grade_passes_time_limit_and_jobs():
    done = subprocess.run(
        ["make", "-n", "grade", "SUBMISSIONS=subs", "TIME_LIMIT=30", "JOBS=3", "CSV=c.csv"],
        cwd=REPO, capture_output=True, text=True, check=True)
    command = done.stdout.replace("\\\n", " ")
    assert "grading grade subs --csv c.csv" in command
    assert "--time-limit 30" in command and "--jobs 3" in command
    plain = subprocess.run(["make", "-n", "grade", "SUBMISSIONS=subs"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout
    assert "--time-limit" not in plain and "--jobs" not in plain
