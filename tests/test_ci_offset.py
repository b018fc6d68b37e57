"""CI runs the chapters at a seed offset taken from the commit (issue 41: no claim can be fitted to
one offset) once no claim is listed as weak, printed and repeatable, and a hand-typed offset is
checked before the long run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ci_offset.py"


def _ci_offset():
    spec = importlib.util.spec_from_file_location("ci_offset", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _robustness():
    """benchmarks/robustness.py, whose fresh offsets CI's should be drawn like."""
    spec = importlib.util.spec_from_file_location("robustness_for_ci_offset",
                                                  ROOT / "benchmarks" / "robustness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_offset_is_a_number_in_the_fresh_offsets_range_that_follows_the_commit():
    ci_offset = _ci_offset()
    commits = ["0" * 40, "f" * 40, "1ba41e3f6c0e8d7b2a1c9e4f5d6b7a8c9d0e1f2a",
               "9f184160c2b4e6d8f0a1b3c5d7e9f1a3b5c7d9e1",
               "26fe069833b891ed23cb9df126c6a8b41866ad0d"]
    offsets = [ci_offset.offset_from(c) for c in commits]
    assert all(ci_offset.LOWEST <= o <= ci_offset.HIGHEST for o in offsets), offsets
    assert offsets == [ci_offset.offset_from(c) for c in commits]  # the same commit, the same
    assert len(set(offsets)) == len(offsets)  # different commits, different offsets (these ones)
    assert (ci_offset.LOWEST, ci_offset.HIGHEST + 1) == _robustness().OFFSET_RANGE  # its randrange


def test_a_malformed_commit_or_a_bad_chosen_offset_is_refused_with_its_name():
    ci_offset = _ci_offset()
    with pytest.raises(ValueError, match="not a commit hash: 'xyz'"):
        ci_offset.offset_from("xyz")
    for bad in ("abc", "-3", "1.5", ""):
        with pytest.raises(SystemExit, match=f"integer ≥ 0, got {bad!r}"):
            ci_offset.chosen(bad)
    assert ci_offset.chosen("0") == 0 and ci_offset.chosen("123456") == 123456


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True,
                          text=True)


def test_run_here_it_prints_the_head_commits_offset_or_the_fixed_one_while_claims_are_weak():
    ci_offset = _ci_offset()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    done = _run()
    assert done.returncode == 0, done.stderr
    if ci_offset.weak_claims():
        assert int(done.stdout) == ci_offset.FIXED and "weak claims are listed" in done.stderr
    else:
        assert int(done.stdout) == ci_offset.offset_from(head.stdout.strip())
    assert _run("4242").stdout.strip() == "4242"
    refused = _run("four")
    assert refused.returncode != 0 and "integer ≥ 0, got 'four'" in refused.stderr


def test_the_offset_follows_the_commit_only_once_no_claim_is_listed_as_weak(tmp_path):
    ci_offset = _ci_offset()
    weak, empty = tmp_path / "weak.json", tmp_path / "empty.json"
    weak.write_text(json.dumps({"chapters": {"04_agreement": {"a claim": "values …"}}}))
    empty.write_text(json.dumps({"chapters": {}}))
    assert ci_offset.weak_claims(weak) == 1 and ci_offset.weak_claims(empty) == 0
    assert ci_offset.weak_claims(tmp_path / "missing.json") == 0
    offset, why = ci_offset.ci_offset(ROOT, weak)
    assert offset == ci_offset.FIXED and "1 weak claims" in why
    head = ci_offset.head_commit(ROOT)
    if head is not None:
        assert ci_offset.ci_offset(ROOT, empty) == (ci_offset.offset_from(head), "")
    assert ci_offset.ci_offset(tmp_path, empty)[0] == ci_offset.FIXED  # no commit here


def test_outside_a_checkout_it_says_so_and_uses_the_fixed_offset(tmp_path):
    ci_offset = _ci_offset()
    assert ci_offset.head_commit(tmp_path) is None
    (tmp_path / "scripts").mkdir()
    copy = tmp_path / "scripts" / "ci_offset.py"
    copy.write_text(SCRIPT.read_text())
    done = subprocess.run([sys.executable, str(copy)], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.strip() == str(ci_offset.FIXED)
    assert "not a git checkout" in done.stderr


def test_make_notebooks_elsewhere_runs_at_the_scripts_offset_and_prints_it():
    recipe = (ROOT / "Makefile").read_text().split("\nnotebooks-elsewhere:")[1].split("\n\n")[0]
    assert "scripts/ci_offset.py $(SEED_OFFSET)" in recipe
    assert "COURSE_RNN_SEED_OFFSET=$$offset" in recipe and "echo" in recipe
    assert "COURSE_RNN_SEED_OFFSET=1000" not in recipe


def _recipe(target: str) -> str:
    return (ROOT / "Makefile").read_text().split(f"\n{target}:")[1].split("\n\n")[0]


def test_make_test_builds_the_book_afresh_at_the_scripts_offset_and_tests_that_site():
    elsewhere = _recipe("book-elsewhere")
    assert "scripts/ci_offset.py $(SEED_OFFSET)" in elsewhere and "echo" in elsewhere
    assert "COURSE_RNN_SEED_OFFSET=$$offset COURSE_RNN_DEVICE=checked" in elsewhere
    assert "ATEN_CPU_CAPABILITY=" not in elsewhere  # the environment's kernels: CI's own CPU
    assert "rm -rf $(ELSEWHERE)" in elsewhere  # afresh: no cached chapter from another offset
    # the build's jobs folder lies inside what it empties (a kept job is not checked against
    # the library's code), and is absolute (each notebook runs in its own folder)
    assert "COURSE_RNN_JOBS=$(CURDIR)/$(ELSEWHERE)/jobs" in elsewhere
    assert "--path-output $(ELSEWHERE)" in elsewhere and "-W" in elsewhere
    test = _recipe("test")
    assert test.split("\n")[0].split()[0] == "book-elsewhere"  # its prerequisites
    assert "COURSE_RNN_SITE=$(ELSEWHERE)/_build/html" in test
    assert "ELSEWHERE := book/_build/" in (ROOT / "Makefile").read_text()  # Sphinx skips _build
