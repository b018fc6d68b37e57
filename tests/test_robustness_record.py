"""Every chapter's claims were measured across machines and seeds, and none has changed since.

``benchmarks/robustness.py`` executes every chapter under seed offsets × PyTorch kernel paths and
records, per chapter, the hash of each check cell's source. A claim added or edited since then
has not been measured on another machine: this fails until the benchmark is run again for that
chapter (``python benchmarks/robustness.py --chapters NAME``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "robustness.json"
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _robustness():
    script = ROOT / "benchmarks" / "robustness.py"
    spec = importlib.util.spec_from_file_location("robustness", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(RECORD.read_text())


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_check_cell_was_measured_as_it_is_now(record, path):
    entry = record["chapters"].get(path.stem)
    assert entry, f"{path.stem} was never run by benchmarks/robustness.py"
    assert entry["check_hashes"] == _robustness().check_hashes(path), (
        f"a check cell of {path.stem} changed since it was measured across machines and seeds: "
        f"run `python benchmarks/robustness.py --chapters {path.stem}`")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_claim_held_in_every_variant(record, path):
    entry = record["chapters"][path.stem]
    runs = entry["runs"]
    assert len(runs) >= 6, f"{path.stem}: measured under {len(runs)} variants, not ≥ 6"
    assert len({r["offset"] for r in runs}) >= 3 and len({r["capability"] for r in runs}) >= 2
    assert entry["claims"], f"{path.stem}: no claim was recorded"
    assert entry["failed"] == 0, [c for c in entry["claims"] if c["failed_in"]] or runs


def test_a_check_cell_is_any_code_cell_with_an_assert():
    robustness = _robustness()
    assert robustness.has_assert("x = 1\nfor y in z:\n    assert y, 'why'\n")
    assert not robustness.has_assert("print('assert nothing')\n")
    claims: list = []
    namespace = {robustness.RECORDS: claims}
    exec(robustness.instrument("x = 1\nassert x == 2, 'no'\nassert x == 1\ny = nope\n", 7),
         namespace)
    assert [(c[1], c[2]) for c in claims] == [(0, "failed"), (1, "passed"), (None, "error")]
