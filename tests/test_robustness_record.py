"""Every chapter's claims were measured across machines and seeds, and none has changed since.

``benchmarks/robustness.py`` executes every chapter under seed offsets × PyTorch kernel paths and
records, per chapter, the hash of each check cell's source. A claim added or edited since then
has not been measured on another machine: this fails until the benchmark is run again for that
chapter (``python benchmarks/robustness.py --chapters NAME``).

A chapter measured the new way (``"method": "fresh offsets"``: offsets drawn anew, so that no
bound is fitted to the draws it was measured on) must also have ≥ 10 variants, ≥ 5 fresh offsets,
≥ 2 kernel paths, slack ≥ ``claims.MIN_SLACK`` for every numeric claim and every claim over runs
held in every variant. Chapters measured before that method keep the older, weaker checks until
they are measured again."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import sys
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest

from course_rnn import claims

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "robustness.json"
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _robustness():
    if "robustness" not in sys.modules:  # RUN_ONE imports it by this name too
        script = ROOT / "benchmarks" / "robustness.py"
        spec = importlib.util.spec_from_file_location("robustness", script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["robustness"] = module
    return sys.modules["robustness"]


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


@pytest.fixture
def empty_claims_record():
    kept = list(claims.RECORD)
    claims.RECORD.clear()
    yield
    claims.RECORD[:] = kept


# -- the record ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_check_cell_was_measured_as_it_is_now(record, path):
    entry = record["chapters"].get(path.stem)
    assert entry, f"{path.stem} was never run by benchmarks/robustness.py"
    assert entry["check_hashes"] == _robustness().check_hashes(path), (
        f"a check cell of {path.stem} changed since it was measured across machines and seeds: "
        f"run `python benchmarks/robustness.py --chapters {path.stem}`")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_claim_held_in_every_variant(record, path):
    """Measured the old way (fixed offsets): every claim held. Measured with fresh offsets, a
    claim that failed somewhere must be listed as weak (the test below)."""
    entry = record["chapters"][path.stem]
    runs = entry["runs"]
    assert len(runs) >= 6, f"{path.stem}: measured under {len(runs)} variants, not ≥ 6"
    assert len({r["offset"] for r in runs}) >= 3 and len({r["capability"] for r in runs}) >= 2
    assert entry["claims"], f"{path.stem}: no claim was recorded"
    if entry.get("method") != _robustness().METHOD:
        assert entry["failed"] == 0, [c for c in entry["claims"] if c["failed_in"]] or runs


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_claims_measured_with_fresh_offsets_have_slack_or_are_listed_as_weak(record, path):
    """Every stated claim was reached in every variant, every numeric one has slack ≥ 4 and
    every other claim held in every variant — or it is listed in benchmarks/weak_claims.json
    with what was measured, to be restated; and nothing is listed that is no longer weak (the
    list only shrinks)."""
    robustness = _robustness()
    entry = record["chapters"][path.stem]
    if entry.get("method") != robustness.METHOD:
        pytest.skip(f"{path.stem} was measured before fresh offsets: re-measure it")
    runs = entry["runs"]
    fresh = {r["offset"] for r in runs if r["offset_kind"] == "fresh"}
    assert len(runs) >= 10 and len(fresh) >= 5, (
        f"{path.stem}: {len(runs)} variants, {len(fresh)} fresh offsets (need ≥ 10 and ≥ 5)")
    assert len({r["capability"] for r in runs}) >= 2
    assert not any(r["errors"] or r.get("failure") for r in runs), runs
    weak = robustness.weak_claims(entry)
    listed = robustness.listed_weak().get(path.stem, {})
    assert set(weak) <= set(listed), (
        f"{path.stem}: weak claims not listed in benchmarks/weak_claims.json (restate them: "
        f"CONTRIBUTING.md): {sorted(set(weak) - set(listed))}")
    assert set(listed) <= set(weak), (
        f"{path.stem}: listed as weak but no longer weak (take them off the list): "
        f"{sorted(set(listed) - set(weak))}")


def test_the_weak_list_names_only_chapters_measured_with_fresh_offsets(record):
    robustness = _robustness()
    for chapter in robustness.listed_weak():
        assert record["chapters"].get(chapter, {}).get("method") == robustness.METHOD, chapter


# -- robustness.py's pieces ------------------------------------------------------------------------
def test_a_check_cell_is_any_code_cell_with_an_assert_or_a_claim_call():
    robustness = _robustness()
    assert robustness.has_assert("x = 1\nfor y in z:\n    assert y, 'why'\n")
    assert not robustness.has_assert("print('assert nothing')\n")
    assert robustness.has_claim_call("claim(loss, '<', 0.1, 'low')")
    assert robustness.has_claim_call("if ok:\n    claims.holds(ok, 'all fitted', runs=3)\n")
    assert robustness.has_claim_call("%time x = 1\nexact(x == 1, 'one')\n")  # a magic: text
    assert not robustness.has_claim_call("claims = exact_value + 1\nprint('claim(x)')\n")
    assert not robustness.has_claim_call("exactly(1)\n")
    assert robustness.is_check("exact(a == b, 'same')") and not robustness.is_check("x = 1")
    claims_found: list = []
    namespace = {robustness.RECORDS: claims_found}
    exec(robustness.instrument("x = 1\nassert x == 2, 'no'\nassert x == 1\ny = nope\n", 7),
         namespace)
    assert [(c[1], c[2]) for c in claims_found] == [(0, "failed"), (1, "passed"),
                                                    (None, "error")]


def _synthetic_notebook() -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_markdown_cell("# A chapter"),
             nbformat.v4.new_code_cell("from course_rnn.claims import claim, exact, holds\n"
                                       "x = 1"),
             nbformat.v4.new_code_cell("claim(x, '>', 0, 'x is positive')\nassert x == 1\n"
                                       "for i in range(2):\n    claim(i, '<', 5, 'i is small')"),
             nbformat.v4.new_code_cell("print(x)"),
             nbformat.v4.new_code_cell("holds(True, 'every run fitted', runs=3)\n"
                                       "exact(x == 2, 'x is two')")]
    return nbformat.v4.new_notebook(cells=cells)


def _execute_in_process(prepared) -> None:
    """Every code cell of ``prepared`` run in one namespace, its prints kept as a stream output
    (what a kernel would do, without a kernel)."""
    namespace: dict = {}
    for cell in prepared["cells"]:
        if cell["cell_type"] == "code":
            out = io.StringIO()
            with redirect_stdout(out):
                exec(cell["source"], namespace)
            cell["outputs"] = [nbformat.v4.new_output("stream", name="stdout",
                                                      text=out.getvalue())]


def test_each_stated_claim_is_recorded_with_its_cell_and_occurrence(empty_claims_record):
    robustness = _robustness()
    notebook = _synthetic_notebook()
    prepared, places = robustness.prepare(notebook)
    assert [prepared["cells"][places[i]]["cell_type"] for i in range(5)] == [
        "markdown", "code", "code", "code", "code"]
    _execute_in_process(prepared)
    found = robustness.read_results(prepared, places, dict(robustness.check_cells(notebook)))
    assert [(c["cell"], c["says"], c["occurrence"], c["held"]) for c in found["stated_claims"]] \
        == [(2, "x is positive", 0, True), (2, "i is small", 0, True),
            (2, "i is small", 1, True), (4, "every run fitted", 0, True),
            (4, "x is two", 0, False)]
    assert [c["value"] for c in found["stated_claims"][:3]] == [1.0, 0.0, 1.0]
    assert [(c["cell"], c["claim"], c["status"], c["stated"]) for c in found["claims"]] == [
        (2, 0, "passed", True), (2, 1, "passed", False), (2, 2, "passed", True),
        (4, 0, "passed", True), (4, 1, "failed", True)]
    assert found["outputs"] == {1: "", 3: "1\n"} and found["errors"] == []


def test_claims_are_assigned_to_the_last_cell_marked_before_them():
    robustness = _robustness()
    made = [{"says": w} for w in ("a", "a", "b", "a")]
    marks = [(1, 0), (3, 0), (5, 2), (8, 4)]  # cell 1 made none, cell 3 two, cell 5 two
    assert [(c["cell"], c["occurrence"]) for c in robustness.claims_by_cell(marks, made)] == [
        (3, 0), (3, 1), (5, 0), (5, 0)]


def _run(variant: str, *stated: dict) -> dict:
    return {"variant": variant, "offset": 1, "offset_kind": "fresh", "capability": "native",
            "claims": [], "errors": [], "outputs": {}, "stated_claims": list(stated)}


def _numeric(value: float, bound: float = 0.0, op: str = ">") -> dict:
    return {"cell": 4, "occurrence": 0, "says": "above the bound", "kind": "numeric",
            "held": value > bound, "value": value, "op": op, "bound": bound, "runs": None}


def test_slack_is_the_smallest_margin_in_spreads_of_the_margins():
    robustness = _robustness()
    runs = [_run(f"v{i}", _numeric(v)) for i, v in enumerate([2.0, 3.0, 4.0])]
    (entry,) = robustness.summarise("ch", runs)["stated_claims"]
    assert entry["spread"] == pytest.approx(1.0)  # sample standard deviation, ddof=1
    assert entry["slack"] == pytest.approx(2.0) and not robustness.enough_slack(entry)
    assert entry["values"] == {"v0": 2.0, "v1": 3.0, "v2": 4.0} and entry["held_in"] == 3
    below = [_run(f"v{i}", _numeric(v, bound=10.0, op="<")) for i, v in enumerate([1.0, 2.0])]
    (entry,) = robustness.summarise("ch", below)["stated_claims"]
    assert entry["slack"] == pytest.approx(8 / math.sqrt(0.5))


def test_slack_of_values_that_never_moved():
    robustness = _robustness()
    still = robustness.summarise("ch", [_run(f"v{i}", _numeric(1.0)) for i in range(3)])
    assert still["stated_claims"][0]["spread"] == 0
    assert still["stated_claims"][0]["slack"] == math.inf
    wrong = robustness.summarise("ch", [_run(f"v{i}", _numeric(-1.0)) for i in range(3)])
    assert wrong["stated_claims"][0]["slack"] == -math.inf
    alone = robustness.summarise("ch", [_run("v0", _numeric(1.0))])
    assert alone["stated_claims"][0]["slack"] is None  # one variant has no spread


def test_claims_over_runs_and_structural_ones_count_the_variants_they_held_in():
    robustness = _robustness()
    over = {"cell": 2, "occurrence": 0, "says": "every run fitted", "kind": "over runs",
            "held": True, "value": None, "op": None, "bound": None, "runs": 5}
    summary = robustness.summarise("ch", [_run("v0", over), _run("v1", over | {"held": False})])
    (entry,) = summary["stated_claims"]
    assert (entry["held_in"], entry["failed_in"], entry["runs"]) == (1, ["v1"], [5])
    assert robustness.claim_counts(summary)["over runs"] == 1
    assert "FAILED" in robustness.slack_row(entry, 2)


def test_fresh_offsets_are_drawn_anew_and_chosen_ones_are_kept():
    robustness = _robustness()
    first, second = robustness.draw_offsets(5), robustness.draw_offsets(5, taken=[1000])
    assert len(set(first)) == 5 and first != second and 1000 not in second
    assert all(1 <= o < 10**6 for o in first + second)
    variants = robustness.plan_variants([1000], first, ["native", "default", "avx2"])
    assert len(variants) == 6 * 2 + 1
    assert variants[0] == robustness.Variant(1000, "chosen", "native")
    assert {v.offset for v in variants if v.offset_kind == "fresh"} == set(first)
    assert [v for v in variants if v.capability == "avx2"] == [
        robustness.Variant(first[0], "fresh", "avx2")]
    assert "fresh" in variants[-1].name and "avx2" in variants[-1].name
