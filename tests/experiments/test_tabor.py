"""tabor-table4 (chapter 5): Tabor (2011), Table 4, at a tiny scale (seconds, not minutes)."""

import json
import math

import pytest
import torch

from course_rnn.experiments import tabor
from course_rnn.experiments.replication import Replication
from course_rnn.models.flnn import FLNN

TINY = dict(epochs=15, hc_steps=4)


@pytest.fixture(scope="module")
def tiny():
    return tabor.run(seeds=1, settings=TINY, device="cpu", progress=False)


def test_returns_a_replication_with_a_table(tiny):
    assert isinstance(tiny, Replication)
    assert tiny.experiment == "tabor-table4" and tiny.scale == "quick" and tiny.device == "cpu"
    assert tiny.seeds == [0] and tiny.settings["epochs"] == 15 and tiny.seconds > 0
    assert tiny.rows and all(r.quantity and r.paper and r.ours and r.note for r in tiny.rows)
    assert "| quantity | paper | ours | note |" in tiny.table()
    assert set(tiny.figures) == {"training_curves"}
    assert len(tiny.figures["training_curves"].axes[0].lines) == 3 + 1  # 3 runs + criterion
    json.dumps(tiny.to_json(), allow_nan=True)  # everything saved is JSON-able


def test_every_ours_number_is_in_numbers(tiny):
    assert not tiny.unrecorded()


def test_paper_figures_come_from_table4(tiny):
    rmse, rmse_se, pc, pc_se, n, _ = tabor.PAPER_TABLE4[(1, "test")]
    rows = {r.quantity: r for r in tiny.rows}
    assert rows["G1 test RMSE, backprop, stream"].paper == f"{rmse:.3f} ± {rmse_se:.3f} " \
                                                           f"(Table 4, N = {n})"
    assert rows["G1 test % correct, backprop, stream"].paper.startswith(f"{pc:.3f} ± {pc_se:.3f}")
    # every group appears; Grammar 2 was not trained with </s>
    assert "G1 test % correct, backprop, with `</s>`" in rows
    assert not any(q.startswith("G2") and "</s>" in q for q in rows)
    assert "G2 test % correct, hill climbing, stream" in rows


def test_one_seed_shows_the_mean_only(tiny):
    mean, se = tiny.numbers["summary"]["G1 stream"]["test"]["rmse"]
    assert math.isnan(se)
    row = next(r for r in tiny.rows if r.quantity == "G1 test RMSE, backprop, stream")
    assert row.ours == f"{mean:.3f} (N = 1)"


def test_artefacts_hold_the_trained_networks(tiny):
    runs, hc = tiny.artefacts["runs"], tiny.artefacts["hill_climb"]
    assert set(runs) == {"G1 stream", "G2 stream", "G1 with </s>"} and set(hc) == {"G1 stream",
                                                                                 "G2 stream"}
    g1 = runs["G1 stream"][0]
    assert isinstance(g1["model"], FLNN) and g1["model"].rbf_size == 3
    assert runs["G1 with </s>"][0]["model"].rbf_size == 4
    assert len(g1["history"]) == TINY["epochs"]
    assert g1["history"][-1]["loss"] == tiny.numbers["backprop"]["G1 stream"][0]["final_train_kl"]
    for r in hc["G1 stream"] + hc["G2 stream"]:
        assert 1 <= len(r["history"]) <= TINY["hc_steps"]
        assert r["train"]["kl_per_position"] < r["before"], "the climber descends"


def test_same_seed_same_numbers(tiny):
    again = tabor.run(seeds=1, settings=TINY, device="cpu", progress=False)
    assert json.dumps(again.to_json()["numbers"]) == json.dumps(tiny.to_json()["numbers"])
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]


def test_hill_climber_starts_where_backprop_starts():
    settings = tabor.resolve_settings("quick", None, dict(hc_steps=1))
    climbed = tabor.hill_climb_run(1, seed=3, settings=settings, device="cpu")
    fresh = FLNN(len(tabor.grammar(1, True)[1]), rbf_size=3, seed=3)
    moved = torch.cat([(a - b).detach().reshape(-1) for a, b in
                       zip(climbed["model"].parameters(), fresh.parameters())])
    assert (moved != 0).sum() == 1, "one step of the climber moves exactly one weight"
    assert float(moved.abs().max()) == pytest.approx(settings["hc_radius"], rel=1e-5)


def test_seeds_replace_every_group_and_default_to_the_settings():
    quick = tabor.resolve_settings("quick", None, None)
    assert (quick["seeds"], quick["eos_seeds"], quick["hc_seeds"]) == ([0, 1, 2], [0, 1], [0, 1])
    paper = tabor.resolve_settings("paper", None, None)
    assert paper["seeds"] == paper["hc_seeds"] == list(range(15))
    two = tabor.resolve_settings("default", 2, None)
    assert two["seeds"] == two["eos_seeds"] == two["hc_seeds"] == [0, 1]
    listed = tabor.resolve_settings("quick", [4, 7], dict(epochs=3))
    assert listed["hc_seeds"] == [4, 7] and listed["epochs"] == 3
    counts = tabor.resolve_settings("quick", None, dict(seeds=1, eos_seeds=2))
    assert counts["seeds"] == [0] and counts["eos_seeds"] == [0, 1]


def test_verdict_says_agree_or_by_how_much():
    assert tabor._verdict([99.4, 0.2], 99.424, 0.195, 2).startswith("agrees")
    assert tabor._verdict([93.3, 0.15], 99.424, 0.195, 2) == "lower by 6.12"
    assert tabor._verdict([0.073, float("nan")], 0.013, 0.001, 3) == "higher by 0.060"


def test_table4_layout(tiny):
    text = tabor.table4(tiny)
    assert text.count("paper (Table 4)") == 4
    assert "ours, backprop, with `</s>`" in text and "| 4755 |" in text
    assert f"| {tiny.numbers['summary']['G2 stream']['test']['points']} |" in text


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings=dict(epoch=5)), "unknown setting.*'epoch'"),
    (dict(seeds=0), "at least 1"),
    (dict(scale="huge"), "unknown scale 'huge'"),
    (dict(settings=dict(hc_seeds=0)), "setting 'hc_seeds'"),
    (dict(seeds=1, settings=dict(epochs=0)), "epochs must be a positive integer"),
    (dict(device="tpu"), "unknown device 'tpu'"),
])
def test_bad_input_is_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tabor.run(progress=False, **kwargs)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_matches_cpu(tiny):
    gpu = tabor.run(seeds=1, settings=TINY, device="cuda", progress=False)
    assert gpu.device.startswith("cuda")
    assert gpu.artefacts["runs"]["G1 stream"][0]["model"].device.type == "cuda"
    for group in ("G1 stream", "HC G2 stream"):
        ours, theirs = (r.numbers["summary"][group]["test"]["rmse"][0] for r in (gpu, tiny))
        assert ours == pytest.approx(theirs, abs=1e-3)
