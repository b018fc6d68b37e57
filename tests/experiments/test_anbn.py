"""The a^n b^n replication (chapter 3) at a tiny scale: what it returns, that it is reproducible,
that bad input is refused, and that the table's verdicts follow the numbers."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from course_rnn.experiments import anbn
from course_rnn.experiments.replication import Replication

TINY = dict(epochs=2, hidden=2, train_max_n=4, test_max_n=7, repeats=1, batch_size=4)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny() -> Replication:
    return anbn.run("quick", seeds=2, device="cpu", progress=False, settings=TINY)


def test_run_returns_a_table_backed_by_numbers(tiny):
    assert tiny.experiment == "anbn" and tiny.scale == "quick" and tiny.seeds == [0, 1]
    assert tiny.device == "cpu" and tiny.settings["epochs"] == 2 and tiny.seconds > 0
    assert len(tiny.rows) == 5
    assert all(row.paper and row.ours and row.note for row in tiny.rows)
    assert not tiny.unrecorded()
    table = tiny.table()
    assert table.startswith("| quantity | paper | ours | note |") and "LSTM" in table


def test_runs_are_scored_consistently(tiny):
    runs = tiny.numbers["runs"]
    assert [(r["model"], r["seed"]) for r in runs] == [
        (m, s) for m in ("SRN", "GRU", "LSTM") for s in (0, 1)]
    for r in runs:
        right = r["right"]
        assert len(right) == TINY["test_max_n"] and len(r["max_correct_n_per_epoch"]) == 2
        n = r["max_correct_n"]
        assert all(right[:n]) and (n == len(right) or not right[n]), "max_correct_n has no holes"
        assert r["train_right"] == sum(right[:TINY["train_max_n"]])
        assert r["beyond_right"] == sum(right[TINY["train_max_n"]:])
        # the metric after the last epoch was computed on the very model that is scored at the end
        assert r["max_correct_n_per_epoch"][-1] == n
        assert r["max_correct_n_best_epoch"] == max(r["max_correct_n_per_epoch"])
    summary = tiny.numbers["summary"]
    for name, s in summary.items():
        finals = {r["seed"]: r["max_correct_n"] for r in runs if r["model"] == name}
        assert s["max_correct_n_best_seed"] == max(finals.values()) == finals[s["best_seed"]]
        assert s["max_correct_n_mean"] == pytest.approx(sum(finals.values()) / len(finals))
        assert s["seeds_beyond_train"] == sum(v > TINY["train_max_n"] for v in finals.values())


def test_artefacts_and_figures(tiny, tmp_path):
    models = tiny.artefacts["models"]
    assert set(models) == set(tiny.artefacts["histories"]) == {
        (k, s) for k in ("srn", "gru", "lstm") for s in (0, 1)}
    assert models["lstm", 1].hidden_size == 2
    assert set(tiny.figures) == {"final", "lstm_epochs"}
    paths = tiny.save(tmp_path)
    saved = json.loads(paths["json"].read_text())
    assert saved["numbers"]["summary"]["LSTM"]["n_seeds"] == 2
    assert paths["final"].stat().st_size > 0 and paths["lstm_epochs"].stat().st_size > 0


def test_same_seed_same_numbers(tiny):
    again = anbn.run("quick", seeds=2, device="cpu", progress=False, settings=TINY)
    assert json.dumps(again.numbers) == json.dumps(tiny.numbers)
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]


def test_one_seed_shows_the_mean_only():
    one = anbn.run(seeds=1, device="cpu", progress=False, settings=dict(TINY, epochs=1))
    assert one.seeds == [0] and math.isnan(one.numbers["summary"]["GRU"]["max_correct_n_se"])
    assert "±" not in one.rows[0].ours


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings={"epoch": 3}), "'epoch'"),
    (dict(settings={"epochs": 0}), "'epochs'"),
    (dict(settings={"hidden": 2.5}), "'hidden'"),
    (dict(settings={"lr": -1.0}), "'lr'"),
    (dict(settings={"train_max_n": 8, "test_max_n": 8}), "'test_max_n'"),
    (dict(seeds=0), "at least 1"),
    (dict(scale="huge"), "unknown scale 'huge'"),
])
def test_bad_input_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        anbn.run(**{"device": "cpu", "progress": False, **kwargs})


def test_settings_match_the_chapter():
    assert anbn.anbn_settings("default") == anbn.SETTINGS["quick"]
    assert anbn.SETTINGS["quick"]["epochs"] == 60 and anbn.SETTINGS["paper"]["epochs"] == 150
    assert anbn.DEFAULT_SEEDS == {"quick": 3, "paper": 10}
    (experiment,) = anbn.EXPERIMENTS
    assert experiment.name == "anbn" and experiment.run is anbn.run
    assert (ROOT / "chapters" / f"{experiment.chapter}.ipynb").exists()


def test_instability_of_a_curve():
    run = {"seed": 3, "max_correct_n_per_epoch": [0, 5, 21, 40, 22, 33]}
    assert anbn.instability(run, 20) == {"seed": 3, "first_epoch_beyond": 3, "min_after": 21,
                                         "max_after": 40}
    never = anbn.instability({"seed": 0, "max_correct_n_per_epoch": [0, 20]}, 20)
    assert never["first_epoch_beyond"] is None


def summary(best: int, beyond: int, n: int = 3, mean: float = 10.0) -> dict:
    return {"max_correct_n_mean": mean, "max_correct_n_se": 1.0, "best_seed": 0,
            "max_correct_n_best_seed": best, "seeds_beyond_train": beyond, "n_seeds": n,
            "best_epoch_any_seed": best}


STABLE = {"seed": 0, "first_epoch_beyond": 5, "min_after": 30, "max_after": 30}


@pytest.mark.parametrize("lstm, gru, lstm_note, gru_note", [
    (summary(45, 1), summary(19, 0), "agrees in direction", "agrees"),
    (summary(45, 3), summary(19, 0), "every seed", "agrees"),
    (summary(15, 0), summary(19, 0), "differs: no LSTM seed", "agrees"),
    (summary(30, 1), summary(30, 1), "differs: another model", "differs: 1/3 seeds"),
    # the paper-scale case: the GRU passes n = 20 on some seeds, so "only the LSTM" is false
    (summary(60, 3), summary(25, 1), "the LSTM counts furthest (GRU also passes n = 20",
     "differs: 1/3 seeds"),
])
def test_verdicts_follow_the_numbers(lstm, gru, lstm_note, gru_note):
    rows = anbn.claims({"SRN": summary(0, 0), "GRU": gru, "LSTM": lstm}, STABLE, 20, 60)
    notes = {row.quantity.split(":")[0]: row.note for row in rows}
    assert notes["GRU"].startswith(gru_note)
    assert lstm_note in rows[2].note
    only = gru["seeds_beyond_train"] == 0 < lstm["seeds_beyond_train"]
    assert ("only the LSTM" in rows[2].note) == only
    prototype = rows[3].note
    assert prototype.startswith("agrees") == (40 <= lstm["max_correct_n_best_seed"] <= 60)
    assert rows[4].note == "stable once it counts"
