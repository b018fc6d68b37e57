"""The instructor's command line: where the exercises folder comes from (an installed package
has none beside it), ``--root`` before or after the command, helpful ``--help``, and
``make grade`` passing its options on. (The batch itself: conftest.py's one real run.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from course_rnn.grading import ROOT, cli

REPO = ROOT.parent


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """As if installed from a wheel: no exercises/ beside the package, run from an empty folder."""
    monkeypatch.setattr(cli, "ROOT", tmp_path / "site-packages" / "exercises")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize("command", [["check"], ["assign"], ["grade", "."],
                                     ["archives", "--out", "x"]])
def test_installed_without_root_says_where_to_point_it(installed, command, capsys):
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert "pass --root PATH" in err and "Traceback" not in err, err


def test_the_exercises_folder_is_found_from_the_current_directory(installed, monkeypatch):
    inside = installed / "exercises"
    (inside / "autograder").mkdir(parents=True)
    (inside / "source").mkdir()
    assert cli.find_root(None, "autograder") == inside  # from the repository's root
    monkeypatch.chdir(inside)
    assert cli.find_root(None, "source") == inside  # from the exercises folder itself
    with pytest.raises(cli.ExercisesNotFound, match="--root .*: no student/ folder there"):
        cli.find_root(inside, "student")


def test_root_is_accepted_before_and_after_the_command():
    before = cli.parser().parse_args(["--root", "/x", "grade", "subs"])
    after = cli.parser().parse_args(["grade", "subs", "--root", "/x"])
    assert before.root == after.root == Path("/x")
    assert cli.parser().parse_args(["grade", "subs"]).root is None


def test_grade_with_a_root_and_no_sandbox_grades_a_class(installed, tmp_path, capsys):
    root = tmp_path / "copy"
    shutil.copytree(ROOT / "autograder" / "ch03_lstm_cell", root / "autograder" / "ch03_lstm_cell")
    shutil.copytree(ROOT / "student" / "ch03_lstm_cell", root / "student" / "ch03_lstm_cell")
    subs = installed / "subs"
    subs.mkdir()
    shutil.copy(root / "autograder" / "ch03_lstm_cell" / "solution.ipynb",
                subs / "ada_ch03_lstm_cell.ipynb")
    code = cli.main(["grade", str(subs), "--root", str(root), "--csv", str(tmp_path / "g.csv"),
                     "--unsafe-no-sandbox", "--time-limit", "120"])
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(line for line in out.splitlines() if line.startswith("ada_"))
    got, total = line.split(": ")[1].split(" ")[0].split("/")
    assert got == total and float(total) > 0, line


def test_grade_names_a_root_without_assignments(installed, tmp_path, capsys):
    (tmp_path / "empty" / "autograder").mkdir(parents=True)
    assert cli.main(["grade", ".", "--root", str(tmp_path / "empty"),
                     "--unsafe-no-sandbox"]) == 2
    assert "no assignments in" in capsys.readouterr().err


def test_every_option_of_grade_is_described():
    grade = cli.parser()._subparsers._group_actions[0].choices["grade"]
    for action in grade._actions:
        assert action.help, f"{action.option_strings or action.dest} has no description"
    text = grade.format_help()
    assert "default 60" in text and "(default 2)" in text and "grades.csv" in text


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
