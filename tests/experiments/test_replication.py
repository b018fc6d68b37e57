"""The replication framework: scales, seeds, summaries, and what a saved result holds."""

import json
import math

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from course_rnn.experiments.records import mean_se
from course_rnn.experiments.replication import (
    CONTINUED,
    Replication,
    Row,
    normalise_scale,
    pm,
    seed_list,
)
from course_rnn.training import Convergence, History


def test_scales():
    for same in (None, "quick"):
        assert normalise_scale(same) == "quick"
    with pytest.raises(ValueError, match="called 'quick'"):
        normalise_scale("default")
    assert normalise_scale("paper") == "paper"
    with pytest.raises(ValueError, match="unknown scale 'huge'.*quick, paper"):
        normalise_scale("huge")


def test_seed_lists():
    assert seed_list(None, default=3) == [0, 1, 2]
    assert seed_list(2, default=5) == [0, 1]
    assert seed_list((4, 7), default=1) == [4, 7]
    assert seed_list(np.int64(1), default=5) == [0]
    for bad in (0, -1, True, [], ["a"], [1.5]):
        with pytest.raises(ValueError, match="seed"):
            seed_list(bad, default=1)


def test_mean_and_standard_error():
    mean, se = mean_se([1.0, 2.0, 3.0])
    assert mean == 2.0 and se == pytest.approx(1 / math.sqrt(3))
    assert math.isnan(mean_se([5.0])[1])
    with pytest.raises(ValueError, match="at least one value"):
        mean_se([])
    assert pm(2.0, 0.5, digits=2) == "2.00 ± 0.50"
    assert pm(2.0, float("nan"), digits=1) == "2.0"


def _result(**numbers):
    fig = Figure()
    fig.subplots().plot([0, 1], [1, 0])
    return Replication("demo", "A demo", "quick", [0, 1], "cpu", {"epochs": 2},
                       numbers, [Row("accuracy", "0.99 (Table 1)", "0.42", "a note")],
                       figures={"curve": fig}, artefacts={"model": object()}, seconds=1.5)


def _ended(stopped: str) -> History:
    return History(convergence=Convergence(
        criterion="c", converged=stopped == "criterion met", stopped=stopped, reason="why",
        epochs=3, steps=30, monitor="train_loss"))


def test_the_runs_in_one_sentence_and_one_line_each():
    """The main line's sentence counts every run's ending, those continued to twice their budget
    apart (named as every experiment names them); the notes' report gives each run a line."""
    result = _result()
    result.runs = {"SRN seed 0": _ended("criterion met"), "SRN seed 1": _ended("budget spent"),
                   "GRU seed 0": _ended("criterion met"), "SRN seed 1 (2× budget)":
                   _ended("criterion met"), "GRU seed 1 (twice the budget)": _ended("stalled")}
    assert result.run_summary() == ("3 runs: 2 fitted, 1 ran out of steps; 2 continued to "
                                    "twice their budget: 1 fitted, 1 stalled")
    report = result.convergence_report().splitlines()
    assert len(report) == 5
    assert report[1] == "SRN seed 1: ran out of steps after 3 epochs (30 steps): why"
    assert not CONTINUED.search("SRN seed 2") and CONTINUED.search("α seed 0 (2× budget)")


def test_save_writes_json_table_and_figures(tmp_path):
    result = _result(acc=np.float32(0.42), per_seed=np.array([0.4, 0.44]),
                     loss=torch.tensor([1.0, 0.5]), nested={(1, 2): [np.int64(3)]})
    paths = result.save(tmp_path / "out")
    saved = json.loads(paths["json"].read_text())
    assert saved["numbers"]["acc"] == pytest.approx(0.42)
    assert saved["numbers"]["per_seed"] == pytest.approx([0.4, 0.44])
    assert saved["numbers"]["loss"] == [1.0, 0.5] and saved["numbers"]["nested"] == {"(1, 2)": [3]}
    assert saved["table"] == [{"quantity": "accuracy", "paper": "0.99 (Table 1)", "ours": "0.42",
                               "note": "a note", "verdict": "", "evidence": {}}]
    assert saved["seeds"] == [0, 1] and saved["figures"] == ["curve"] and "model" not in saved
    table = paths["table"].read_text()
    assert table.startswith("# A demo")
    assert "| accuracy | 0.99 (Table 1) | 0.42 |  | a note |" in table
    assert paths["curve"].read_bytes()[:4] == b"\x89PNG"


def test_save_never_replaces_results_unless_asked(tmp_path):
    _result(acc=1.0).save(tmp_path)
    with pytest.raises(FileExistsError, match="--overwrite"):
        _result(acc=2.0).save(tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["numbers"]["acc"] == 1.0
    _result(acc=2.0).save(tmp_path, overwrite=True)
    assert json.loads((tmp_path / "results.json").read_text())["numbers"]["acc"] == 2.0


def test_unsaveable_numbers_are_named(tmp_path):
    with pytest.raises(TypeError, match="cannot save a object"):
        _result(model=object()).save(tmp_path)


def test_unrecorded_finds_figures_missing_from_numbers():
    result = _result(acc=0.4213, perplexity=12345.6, per_seed=[np.float64(0.5)])
    result.rows = [Row("accuracy", "—", "0.42 (42.1%)"), Row("ppl", "—", "12,345.6 over 1 seed"),
                   Row("seed", "—", "0.50")]
    assert result.unrecorded() == []
    result.rows.append(Row("made up", "—", "0.77"))
    assert result.unrecorded() == ["made up: 0.77"]


