"""Every saved result says where it comes from: version, commit, command, date, overrides."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from course_rnn import __version__
from course_rnn.experiments.provenance import KEYS, source_commit
from course_rnn.experiments.replication import Replication, Row, report_markdown

GIT = shutil.which("git")


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def fake_package(root):
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    return package


def test_no_checkout_no_commit_and_no_error(tmp_path, monkeypatch):
    package = fake_package(tmp_path)
    assert source_commit(package) == (None, None)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no git at all
    assert source_commit(package) == (None, None)
    assert source_commit(tmp_path / "missing") == (None, None)


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_a_checkout_names_its_commit_and_whether_the_package_changed(tmp_path):
    package = fake_package(tmp_path)
    git("init", "-q", cwd=tmp_path)
    git("add", "pkg/__init__.py", cwd=tmp_path)
    git("commit", "-q", "-m", "first", cwd=tmp_path)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert source_commit(package) == (head, False)
    (package / "__init__.py").write_text("x = 2\n")
    assert source_commit(package) == (head, True)


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_a_copy_that_only_lies_inside_a_checkout_has_no_commit(tmp_path):
    """An installed package in a virtual environment inside a repository is not its code."""
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "README").write_text("r")
    git("add", "README", cwd=tmp_path)
    git("commit", "-q", "-m", "first", cwd=tmp_path)
    package = fake_package(tmp_path / ".venv" / "site-packages")
    assert source_commit(package) == (None, None)


def test_a_hand_made_result_saves_a_complete_provenance(tmp_path):
    result = Replication("e", "T", "quick", [0], "cpu", {}, {"a": 1.0}, [Row("q", "1", "1")])
    result.save(tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())
    origin = saved["provenance"]
    assert tuple(origin) == KEYS
    assert origin["course_rnn"] == __version__ and origin["finished"]
    assert origin["command"] is None and origin["overrides"] == {}
    table = (tmp_path / "table.md").read_text()
    assert table == report_markdown(saved)
    assert "with overrides" not in table and "from Python" in table
    assert f"course_rnn {__version__}" in table and saved["machine"]["cpu"] in table


def test_a_result_saved_before_provenance_keeps_its_table():
    """Committed runs predate the provenance record: their table.md is made as before."""
    old = {"title": "T", "experiment": "e", "scale": "paper", "seeds": [0, 1], "device": "cpu",
           "seconds": 1.0, "table": [{"quantity": "q", "paper": "1", "ours": "1",
                                      "verdict": "", "note": ""}]}
    assert report_markdown(old).splitlines()[:4] == [
        "# T", "", "Experiment `e`, scale `paper`, seeds 0, 1, device `cpu`, 1.0 s.", ""]


def test_overrides_from_python_are_recorded_by_their_type():
    from course_rnn.experiments.anbn import EXPERIMENTS, SETTINGS
    from course_rnn.experiments.setup import begin

    setup = begin(EXPERIMENTS[0], SETTINGS, "quick", {"epochs": "5", "models": '["lstm"]'},
                  seeds=1, device="cpu")
    assert setup.overrides == {"epochs": 5, "models": ["lstm"]}
    result = setup.replication({}, [Row("q", "1", "1")], {})
    origin = result.to_json()["provenance"]
    assert origin["overrides"] == {"epochs": 5, "models": ["lstm"]}
    assert origin["started"] and origin["finished"] and origin["command"] is None
    table = result.markdown()
    assert "scale `quick` with overrides" in table
    assert "Settings changed from the `quick` scale's with `settings=`: `epochs=5`, " \
           '`models=["lstm"]`.' in table
    plain = begin(EXPERIMENTS[0], SETTINGS, "quick", None, seeds=1, device="cpu")
    assert plain.overrides == {}
