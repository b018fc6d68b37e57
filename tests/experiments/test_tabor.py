"""tabor-table4 (chapter 5): Tabor (2011), Table 4, at a tiny scale (seconds, not minutes), and
the verdict logic on hand-made runs."""

import dataclasses
import json
import math

import numpy as np
import pytest
import torch

from course_rnn.experiments import committed, tabor
from course_rnn.experiments.replication import Replication, _jsonable
from course_rnn.models.flnn import FLNN
from course_rnn.training import AnyOf, Convergence, History, Optimum, Plateau

TINY = dict(epochs=15, equal_rate_epochs=15, eval_every=1, hc_steps=4, plateau_patience=5,
            hc_grammars=(1, 2))


@pytest.fixture(scope="module")
def tiny():
    return tabor.run(seeds=1, settings=TINY, device="cpu", progress=False, workers=1)


def test_returns_a_replication_with_a_table_and_every_run(tiny):
    assert isinstance(tiny, Replication)
    assert tiny.experiment == "tabor-table4" and tiny.scale == "quick" and tiny.device == "cpu"
    assert tiny.seeds == [0] and tiny.settings.epochs == 15 and tiny.seconds > 0
    assert tiny.rows and all(r.quantity and r.paper and r.ours and r.note for r in tiny.rows)
    assert "| quantity | paper | ours | verdict | note |" in tiny.table()
    assert set(tiny.figures) == {"curves", "climber_curves"}
    assert set(tiny.runs) == {"hill climbing G1 stream seed 0", "hill climbing G2 stream seed 0",
                              "backprop G1 stream seed 0", "backprop G2 stream seed 0",
                              "backprop G1 with </s> seed 0", "backprop G1 equal rates seed 0",
                              "backprop G1 equal rates seed 0 (2× budget)",
                              *(f"backprop {g} seed 0 (2× budget)"
                                for g in ("G1 stream", "G2 stream", "G1 with </s>"))}
    # every run stopped at its tiny cap: the compared backprop runs were continued to settle
    # them (and ran out again), nothing is compared, nothing was doubled but the equal-rate run
    # that did not learn (the evidence that more training does not help it)
    assert tiny.unconverged() == list(tiny.runs)
    assert {r.verdict for r in tiny.rows} <= {"not converged", "not comparable", ""}
    assert set(tiny.artefacts.doubled) == {"G1 equal rates"}
    # continued to twice its epochs, then on to its own stop: here a plateau's patience more
    assert len(tiny.artefacts.doubled["G1 equal rates"][0].history) == \
        2 * TINY["epochs"] + TINY["plateau_patience"]
    json.dumps(tiny.to_json(), allow_nan=True)  # everything saved is JSON-able


def test_every_ours_number_is_in_numbers(tiny):
    assert not tiny.unrecorded()


def test_points_are_table_4s(tiny):
    """Scored after each word, as in Tabor's stream: the point counts are Table 4's."""
    for g in (1, 2):
        for corpus in ("train", "test"):
            points = tabor.PAPER_TABLE4[(g, corpus)][5]
            assert tiny.numbers.summary[f"G{g} stream"].corpus(corpus).points == points
            assert tiny.numbers.summary[f"HC G{g} stream"].corpus(corpus).points == points


def test_paper_figures_come_from_table4(tiny):
    rmse, rmse_se, pc, pc_se, n, _ = tabor.PAPER_TABLE4[(1, "test")]
    rows = {r.quantity: r for r in tiny.rows}
    assert rows["G1 test RMSE, backprop"].paper == f"{rmse:.3f} ± {rmse_se:.3f} (Table 4, N = {n})"
    assert rows["G1 test % correct, hill climbing"].paper.startswith(f"{pc:.3f} ± {pc_se:.3f}")
    assert rows["G1 test % correct, backprop, with `</s>`"].verdict == "not comparable"
    assert "G1 train % correct, backprop, with `</s>`" not in rows
    assert not any(q.startswith("G2") and "</s>" in q for q in rows)
    assert "G2 test % correct, hill climbing" in rows


def test_one_seed_shows_the_mean_only(tiny):
    mean, se = tiny.numbers.summary["G1 stream"].test.rmse
    assert math.isnan(se)
    row = next(r for r in tiny.rows if r.quantity == "G1 test RMSE, backprop")
    assert row.ours == f"{mean:.3f} (N = 1, none learned the training corpus)"


def test_artefacts_hold_the_trained_networks(tiny):
    groups = tiny.artefacts.groups
    assert set(groups) == {"HC G1 stream", "HC G2 stream", "G1 stream", "G2 stream",
                           "G1 with </s>", "G1 equal rates"}
    g1 = groups["G1 stream"][0]
    assert isinstance(g1.model, FLNN) and g1.model.rbf_size == 3
    assert groups["G1 with </s>"][0].model.rbf_size == 4
    # the first run ran out of epochs: its continuation stands in for it (twice the epochs, and
    # the KL plateau's patience past them: a continuation also stops when stuck; this one, still
    # improving, ran out again); the first run is kept in ran_out
    patience = TINY["plateau_patience"] // TINY["eval_every"]
    assert len(g1.history) == 2 * TINY["epochs"] + patience
    (first,) = tiny.artefacts.ran_out["G1 stream"]
    assert len(first.history) == TINY["epochs"]
    assert g1.history["train_loss"][:TINY["epochs"]] == first.history["train_loss"]
    record = tiny.numbers.runs["G1 stream"][0]
    assert record.final_train_kl == g1.history["train_loss"][-1]
    assert not record.converged and record.stopped == "budget spent"
    assert tiny.numbers.ran_out["G1 stream"][0].epochs == TINY["epochs"]
    assert "1 run(s) that ran out of epochs, continued" in next(
        r.note for r in tiny.rows if r.quantity == "G1 test RMSE, backprop")
    for r in groups["HC G1 stream"] + groups["HC G2 stream"]:
        assert len(r.history) == TINY["hc_steps"]
        assert r.train["kl_per_position"] < r.before, "the climber descends"


def test_parallel_workers_give_the_same_numbers(tiny):
    again = tabor.run(seeds=1, settings=TINY, device="cpu", progress=False, workers=2)
    assert json.dumps(again.to_json()["numbers"]) == json.dumps(tiny.to_json()["numbers"])
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]


def test_hill_climber_starts_where_backprop_starts():
    settings = tabor.SETTINGS.at("quick", dict(hc_steps=1))
    climbed = tabor.hill_climb_run("HC G1 stream", seed=3, settings=settings)
    fresh = FLNN(len(tabor.grammar(1)[1]), rbf_size=3, seed=3)
    moved = torch.cat([(a - b).detach().reshape(-1) for a, b in
                       zip(climbed.model.parameters(), fresh.parameters())])
    assert (moved != 0).sum() == 1, "one step of the climber moves exactly one weight"
    assert float(moved.abs().max()) == pytest.approx(settings.hc_radii[0], rel=1e-5)


def test_twice_the_budget_continues_the_same_run():
    settings = tabor.SETTINGS.at("quick", dict(epochs=4, kl_target=10.0, eval_every=1))
    first = tabor.backprop_run("G1 stream", 0, settings)  # the criterion is met at once
    assert first.history.converged and len(first.history) == 1
    job = tabor.doubled_job(first, settings, "cpu")
    assert job[0] == "backprop" and job[5] == 2
    longer = tabor.train_job(*job)
    assert len(longer.history) == 2 and longer.history.converged
    assert longer.history["train_loss"][0] == first.history["train_loss"][0]


def test_twice_the_budget_of_a_flat_climb_changes_nothing():
    settings = tabor.SETTINGS.at("quick", dict(hc_radii=(0.3,), hc_steps=5000))
    first = tabor.hill_climb_run("HC G1 stream", 0, settings)
    assert first.history.converged, "flat at radius 0.3"
    job = tabor.doubled_job(first, settings, "cpu")
    assert job[0] == "continue climb"
    more = tabor.train_job(*job)
    assert len(more.history) == 0 and more.history.converged
    assert more.train == first.train and more.test == first.test
    capped = tabor.hill_climb_run("HC G1 stream", 0, settings.replace(hc_steps=5))
    assert not capped.history.converged
    moved = tabor.continued_climb(capped, settings)
    assert len(moved.history) == 5 and set(moved.history["radius"]) == {0.3}


def fake_run(group, seed, train, test, converged=True):
    """A run record as the experiment makes one, with chosen scores and convergence."""
    scores = {"rmse": 0.0, "percent_correct": 100.0, "kl_per_position": 0.001, "positions": 129}
    history = History(epochs=[{"epoch": 1, "step": 1, "train_loss": 0.001}])
    history.convergence = Convergence("test", converged, "criterion met" if converged else
                                      "budget spent", "test", 1, 1, "train_loss")
    return tabor.TrainedRun(group, seed, FLNN(6, rbf_size=3, seed=seed), history,
                            train={**scores, **train}, test={**scores, **test})


def spreads(groups):
    return {name: [dict(train_max=1.0, test_max=2.0, train_top=1.0, test_top=2.0,
                        top_is_max=True) for _ in groups[name]]
            for name in tabor.SPREAD_GROUPS if groups.get(name)}


def numbers(groups):
    return tabor.numbers_of(groups, spreads(groups))


def judged(groups, doubled):
    both = dataclasses.replace(numbers(groups), doubled=numbers(doubled).runs)
    return {r.quantity: r for r in tabor.table_rows(both)}


def test_verdicts_agree_differ_or_wait_for_convergence():
    good = [fake_run("G1 stream", s, {"rmse": 0.013}, {"rmse": 0.048,
                                                        "percent_correct": 99.4})
            for s in (0, 1)]
    rows = judged({"G1 stream": good}, {})
    assert rows["G1 train RMSE, backprop"].verdict == "agrees"
    assert rows["G1 test % correct, backprop"].verdict == "agrees"
    assert tabor.needs_doubling(numbers({"G1 stream": good})) == set()

    low = [fake_run("G1 stream", s, {"rmse": 0.005}, {}) for s in (0, 1)]
    assert tabor.needs_doubling(numbers({"G1 stream": low})) == {"G1 stream"}
    lower = [fake_run("G1 stream", s, {"rmse": 0.004}, {}) for s in (0, 1)]
    rows = judged({"G1 stream": low}, {"G1 stream": lower})
    row = rows["G1 train RMSE, backprop"]
    assert row.verdict == "differs" and "at twice the budget 0.004" in row.note
    assert row.evidence["budget_2x"]["value"] == pytest.approx(0.004)
    closer = [fake_run("G1 stream", s, {"rmse": 0.0105}, {}) for s in (0, 1)]
    assert judged({"G1 stream": low}, {"G1 stream": closer})[
        "G1 train RMSE, backprop"].verdict == "budget-limited"

    stopped = [fake_run("G1 stream", 0, {"rmse": 0.005}, {}, converged=False)]
    assert tabor.needs_doubling(numbers({"G1 stream": stopped})) == set()
    assert judged({"G1 stream": stopped}, {})["G1 train RMSE, backprop"].verdict == \
        "not converged"


def test_successful_runs_are_averaged_as_in_table_4():
    runs = [fake_run("HC G1 stream", 0, {"rmse": 0.01}, {}),
            fake_run("HC G1 stream", 1, {"rmse": 0.30, "percent_correct": 80.0}, {})]
    stats = tabor.CorpusSummary.of(runs, "train")
    assert stats.n == 1 and stats.rmse[0] == 0.01 and stats.learned
    rows = judged({"HC G1 stream": runs}, {"HC G1 stream": runs})
    assert rows["G1 runs with 100% on the training corpus, hill climbing"].ours == "1/2"
    failed = tabor.CorpusSummary.of(runs[1:], "train")
    assert failed.n == 1 and not failed.learned


def test_each_group_stops_at_its_criterion():
    settings = tabor.SETTINGS["quick"]
    assert isinstance(tabor.criterion("G1 stream", settings), Optimum)
    assert isinstance(tabor.criterion("G1 with </s>", settings), Plateau)
    either = tabor.criterion("G1 equal rates", settings)
    assert isinstance(either, AnyOf)
    assert [type(c) for c in either.criteria] == [Optimum, Plateau]
    assert either.criteria[1].patience == settings.plateau_patience // settings.eval_every
    continued = tabor.criterion("G2 stream", settings, continued=True)  # stops stuck, too
    assert [type(c) for c in continued.criteria] == [Optimum, Plateau]


def test_a_continued_stream_run_that_stalls_again_stops_stuck_before_its_cap():
    """A stream run that ran out of epochs is continued; one that stalls again stops on the
    plateau (stuck: converged, not learned) instead of at twice its cap."""
    settings = tabor.SETTINGS["quick"].replace(dict(epochs=20, eval_every=5,
                                                    plateau_patience=10, plateau_min_delta=0.5,
                                                    kl_target=1e-9))
    first = tabor.backprop_run("G1 stream", 0, settings)
    assert first.history.convergence.stopped == "budget spent" and tabor.ran_out(first)
    again = tabor.train_job(*tabor.doubled_job(first, settings, "cpu"))
    record = again.history.convergence
    assert record.converged and record.ending == "stalled" and not tabor.learned(again)
    assert 40 <= record.epochs < again.history.settings["epochs_cap"]


def test_a_stuck_equal_rate_run_is_trained_twice_as_long():
    stuck = fake_run("G1 equal rates", 1, {"percent_correct": 84.5}, {})
    fine = fake_run("G1 equal rates", 0, {}, {})
    with torch.no_grad():
        stuck.model.scale.zero_()
    groups = {"G1 equal rates": [fine, stuck]}
    assert tabor.to_double(groups, set()) == {"G1 equal rates": [stuck]}
    assert tabor.to_double({"G1 equal rates": [fine]}, set()) == {}
    rows = judged(groups, {"G1 equal rates": [stuck]})
    row = rows["G1 backprop runs with a self-weight collapsed to ≈ 0, all weights at the same "
                "learning rate"]
    assert row.ours == "1/2" and "trained twice as long: 1 of 1 still collapsed" in row.note


def test_collapse_is_a_self_weight_near_zero():
    run = fake_run("G1 equal rates", 0, {}, {})
    assert not tabor.collapsed(run)
    with torch.no_grad():
        run.model.scale[0] = 0.02
    assert tabor.collapsed(run)


def test_seeds_replace_every_group_and_default_to_the_settings():
    quick = tabor.SETTINGS["quick"].group_seeds()
    assert quick["seeds"] == quick["eos_seeds"] == [0, 1] and quick["hc_seeds"] == [0]
    assert tabor.SETTINGS["quick"].hc_radii == (0.02, 0.005, 0.001)
    paper = tabor.SETTINGS["paper"].group_seeds()
    assert paper["seeds"] == paper["hc_seeds"] == list(range(15))
    two = tabor.SETTINGS["quick"].group_seeds(2)
    assert all(two[key] == [0, 1] for key in tabor.SEED_KEYS)
    listed = tabor.SETTINGS.at("quick", dict(epochs=3))
    assert listed.group_seeds([4, 7])["hc_seeds"] == [4, 7] and listed.epochs == 3
    counts = tabor.SETTINGS.at("quick", dict(seeds=1, eos_seeds=2)).group_seeds()
    assert counts["seeds"] == [0] and counts["eos_seeds"] == [0, 1]


def test_table4_layout(tiny):
    text = tabor.table4(tiny)
    assert text.count("paper (Table 4)") == 4
    assert "ours, backprop, with `</s>`" in text and "| 4755 |" in text
    assert "ours, hill climbing, stream" in text


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings=dict(epoch=5)), "unknown setting.*'epoch'"),
    (dict(seeds=0), "number of seeds"),
    (dict(scale="huge"), "unknown scale 'huge'"),
    (dict(settings=dict(hc_seeds=0)), "setting 'hc_seeds'"),
    (dict(seeds=1, settings=dict(epochs=0)), "'epochs' must be a number ≥ 1"),
    (dict(settings=dict(lr=-0.1)), "'lr' must be a number > 0"),
    (dict(settings=dict(plateau_patience=5)), "'plateau_patience' .* at least 'eval_every'"),
    (dict(device="tpu"), "unknown device 'tpu'"),
])
def test_bad_input_is_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tabor.run(progress=False, **kwargs)


def test_bad_grammar_and_job():
    with pytest.raises(ValueError, match="1 and 2"):
        tabor.grammar(3)
    with pytest.raises(ValueError, match="unknown job kind"):
        tabor.train_job("sgd", "G1 stream", 0, {}, "cpu")


def test_cuda_matches_cpu(tiny, cuda):
    gpu = tabor.run(seeds=1, settings=TINY, device=str(cuda), progress=False, workers=1)
    assert gpu.device.startswith("cuda")
    for group in ("G1 stream", "HC G2 stream"):
        ours, theirs = (r.numbers.summary[group].test.rmse[0] for r in (gpu, tiny))
        assert ours == pytest.approx(theirs, abs=1e-3)


def test_the_checked_device_gives_the_cpu_numbers(tiny, checked_device):
    """The GPU's path without a GPU (course_rnn.device_check): every tensor of the runs on the
    device, so a .numpy() or a CPU tensor mixed in fails as on CUDA; the numbers are the CPU's."""
    checked = tabor.run(seeds=1, settings=TINY, device="checked", progress=False, workers=1)
    assert checked.device == "checked"
    for group in ("G1 stream", "HC G2 stream"):
        np.testing.assert_array_equal(checked.numbers.summary[group].test.rmse,
                                      tiny.numbers.summary[group].test.rmse)


def test_the_quick_scale_climbs_grammar_1_only():
    assert tabor.SETTINGS["quick"].hc_grammars == (1,)
    assert tabor.SETTINGS["paper"].hc_grammars == (1, 2)
    one = tabor.run(seeds=1, settings={**TINY, "hc_grammars": 1}, device="cpu", progress=False,
                    workers=1)
    assert "HC G2 stream" not in one.artefacts.groups
    assert not any(r.quantity.startswith("G2") and "hill" in r.quantity for r in one.rows)
    assert not one.unrecorded()
    with pytest.raises(ValueError, match="hc_grammars"):
        tabor.SETTINGS.at("quick", dict(hc_grammars=(3,)))


def test_the_committed_run_loads_and_saves_what_its_runs_give():
    """results.json saves what is computed from the runs (chapter 5 part 2's checks read the
    committed file): the committed run, loaded, saves to the same numbers, and its rows rebuilt
    from them have the saved figures and verdicts."""
    run = committed.load("tabor-table4")
    numbers = tabor.TaborNumbers.from_json(run.results["numbers"])
    assert _jsonable(numbers) == run.results["numbers"]
    assert [(r.quantity, r.ours, r.verdict) for r in tabor.table_rows(numbers)] == \
        [(r["quantity"], r["ours"], r["verdict"]) for r in run.rows]
