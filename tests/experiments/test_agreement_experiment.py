"""The Bhatt et al. (2020) replication (chapter 4) at a tiny size: what run() returns, that it is
reproducible, that bad input is refused, and the verdicts of its paper-vs-ours notes."""

import json
import math

import pytest

from course_rnn.experiments import agreement
from course_rnn.experiments.replication import Replication
from course_rnn.models.decay_rnn import dale_signs

TINY = dict(n_train=120, hidden=8, embedding=8, epochs=2, batch_size=64, n_test=40,
            alpha_inits=(0.3,), alpha_every=1, gram_models=("LSTM",), lm_sentences=60,
            lm_hidden=8, lm_epochs=1, lm_batch_size=32, n_pairs=8)


@pytest.fixture(scope="module")
def tiny():
    return agreement.run(seeds=2, device="cpu", progress=False, settings=TINY)


def test_run_returns_a_replication_with_a_table(tiny):
    assert isinstance(tiny, Replication)
    assert tiny.experiment == "decay-rnn-agreement" and tiny.scale == "quick"
    assert tiny.seeds == [0, 1] and tiny.device == "cpu"
    # Table 1 (6 models + 1 grammaticality model), Table 2 (2 models), α, Table 4 (13 categories)
    assert len(tiny.rows) == 6 + 1 + 2 + 1 + len(agreement.PAPER_TABLE4)
    assert all(r.paper and r.ours and r.note for r in tiny.rows)
    assert set(tiny.figures) == {"attractors", "alpha"}
    assert set(tiny.numbers["number_prediction"]) == set(agreement.MODELS)
    assert len(tiny.artefacts["number_prediction"]) == 6 * 2
    assert set(tiny.artefacts["grammaticality"]) == {("LSTM", 0)}  # gram_seeds = 1
    assert sorted(tiny.artefacts["alpha"]) == [0.3, 0.8]


def test_every_figure_of_ours_is_in_numbers(tiny):
    assert not tiny.unrecorded()  # accuracies shown as fractions or (Tables 1, 2) percentages


def test_same_seed_same_numbers(tiny):
    again = agreement.run(seeds=2, device="cpu", progress=False, settings=TINY)
    assert json.dumps(again.to_json()["numbers"]) == json.dumps(tiny.to_json()["numbers"])
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]


def test_another_seed_other_models():
    other = agreement.run(seeds=[5], device="cpu", progress=False,
                          settings={**TINY, "alpha_inits": ()})
    base = agreement.run(seeds=1, device="cpu", progress=False,
                         settings={**TINY, "alpha_inits": ()})
    assert other.seeds == [5] and base.seeds == [0]
    assert other.numbers["alpha"]["values"] != base.numbers["alpha"]["values"]


def test_one_seed_shows_the_mean_only(tiny):
    one = agreement.run(seeds=1, device="cpu", progress=False,
                        settings={**TINY, "alpha_inits": ()})
    natural = one.numbers["number_prediction"]["LSTM"]["natural"]
    assert len(natural["values"]) == 1 and math.isnan(natural["se"])
    assert "±" not in one.rows[0].ours
    assert "not tested" in next(r.note for r in one.rows if "α" in r.quantity)
    assert "±" in tiny.rows[0].ours  # two seeds: mean ± SE


def test_results_save_and_reload(tiny, tmp_path):
    paths = tiny.save(tmp_path / "out")
    saved = json.loads(paths["json"].read_text())
    assert saved["experiment"] == "decay-rnn-agreement"
    assert saved["numbers"]["marvin_linzen"]["accuracy"].keys() == agreement.PAPER_TABLE4.keys()
    assert paths["attractors"].stat().st_size > 0 and paths["alpha"].stat().st_size > 0
    assert "| quantity | paper | ours | note |" in paths["table"].read_text()


def test_trained_drnn_keeps_dales_signs(tiny):
    clf, history = tiny.artefacts["number_prediction"]["DRNN", 0]
    W = clf.model.recurrent_matrix().detach()
    D = dale_signs(clf.model.hidden_size)
    assert (W[:, D > 0] >= 0).all() and (W[:, D < 0] <= 0).all()
    alphas = history.step_values("alpha")
    assert alphas[0] == pytest.approx(0.8) and all(0 < a < 1 for a in alphas)
    assert tiny.numbers["alpha"]["final"][-1] == pytest.approx(alphas[-1])


def test_test_sets_are_what_the_chapter_says():
    data = agreement.datasets(agreement.resolve_settings("quick", TINY))
    assert {e.attractors for e in data["balanced"]} == {0, 1, 2, 3}
    assert len(data["balanced"]) == 4 * (TINY["n_test"] // 4)
    assert {e.attractors for e in data["one_attractor"]} == {1}
    assert len(data["train_gram"]) == 2 * len(data["train"])
    assert agreement.datasets(agreement.resolve_settings("quick", TINY))["train"] == data["train"]


def test_default_is_quick_and_paper_is_bigger():
    assert agreement.resolve_settings("default") == agreement.resolve_settings("quick")
    paper = agreement.resolve_settings("paper")
    assert paper["n_train"] > agreement.SETTINGS["quick"]["n_train"]
    assert set(paper["gram_models"]) == set(agreement.MODELS)


@pytest.mark.parametrize("kwargs, match", [
    (dict(settings={"n_trian": 10}), "n_trian"),
    (dict(settings={"seeds": (0, 1)}), "seeds="),
    (dict(settings={"epochs": 0}), "epochs"),
    (dict(settings={"n_test": 3}), "n_test"),
    (dict(settings={"lr": -1.0}), "lr"),
    (dict(settings={"alpha_inits": (0.5, 1.0)}), "alpha_inits"),
    (dict(settings={"gram_models": ("Transformer",)}), "Transformer"),
    (dict(seeds=0), "seeds"),
    (dict(seeds=[]), "seeds"),
    (dict(seeds=[1, 1]), "seeds must be different"),
    (dict(scale="huge"), "huge"),
    (dict(device="tpu"), "tpu"),
])
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        agreement.run(progress=False, **{"settings": TINY, **kwargs})


def _alpha(starts, final):
    return {"starts": starts, "final": final, "optimizer_steps": 10,
            "spread_start": max(starts) - min(starts), "spread_end": max(final) - min(final),
            "max_drift": max(abs(f - s) for s, f in zip(starts, final)),
            "max_distance_from_paper": max(abs(f - 0.8) for f in final)}


def test_alpha_verdict():
    assert agreement.alpha_row(_alpha([0.2, 0.95], [0.78, 0.83])).note.startswith("agrees")
    assert agreement.alpha_row(_alpha([0.2, 0.95], [0.21, 0.9])).note.startswith("differs")
    # the curves meet, but far from 0.8: not the paper's claim
    assert agreement.alpha_row(_alpha([0.2, 0.95], [0.5, 0.52])).note.startswith("differs")


def _table2_numbers(drnn_by_seed):
    """numbers with the DRNN's one-attractor accuracy per seed ``[(n=0, n=1, n=2), …]`` and an
    LSTM at ceiling."""
    def model(by_seed):
        return {"by_non_attractors": {
            n: {"values": [s[n] for s in by_seed],
                "mean": sum(s[n] for s in by_seed) / len(by_seed)} for n in range(3)}}

    return {"number_prediction": {"DRNN": model(drnn_by_seed),
                                  "LSTM": model([(1.0, 1.0, 1.0)] * len(drnn_by_seed))}}


def test_table2_verdict():
    drnn, lstm = agreement.table2_rows(_table2_numbers([(0.90, 0.93, 0.95), (0.88, 0.9, 0.94)]))
    assert drnn.note.startswith("agrees") and lstm.note.startswith("differs: at ceiling")
    drnn, _ = agreement.table2_rows(_table2_numbers([(0.94, 0.92, 0.943), (0.92, 0.9, 0.97)]))
    assert drnn.note.startswith("differs"), "a rise in one seed only is not the paper's rise"


def test_table1_verdict():
    assert agreement._points(98.0, 98.66).startswith("agrees")
    assert agreement._points(99.83, 98.81).startswith("agrees")  # 1.0 point as printed
    assert "lower" in agreement._points(87.0, 98.66)
    assert "higher" in agreement._points(100.0, 98.59)
