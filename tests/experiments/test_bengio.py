"""bengio-kn (chapter 1): Bengio et al. (2003), Table 1, at a tiny scale (seconds, not minutes):
400 training sentences, MLPs of 4 hidden units trained to a validation plateau."""

import json
import math
import re

import numpy as np
import pytest

from course_rnn.experiments import bengio
from course_rnn.experiments.replication import Replication
from course_rnn.models.bengio import BengioMLP, perplexity
from course_rnn.models.kneser_ney import KneserNeyLM, ModifiedKneserNeyLM

TINY = dict(kn_orders=[2, 3], test_sentences=30, valid_sentences=30, hidden_size=4, embedding_dim=4,
            context=2, batch_size=64, lr=0.01, eval_every=10, patience=2, epochs=6)


@pytest.fixture(scope="module")
def data():
    full = bengio.austen_data()
    return bengio.AustenData(full.sentences, full.train[:400], full.valid[:40], full.test[:40],
                             full.vocab, full.min_count)


@pytest.fixture(scope="module")
def tiny(data):
    return bengio.run(seeds=1, settings=TINY, device="cpu", progress=False, data=data, workers=1)


def test_returns_a_replication_with_a_table_runs_and_curves(tiny):
    assert isinstance(tiny, Replication)
    assert tiny.experiment == "bengio-kn" and tiny.scale == "quick" and tiny.device == "cpu"
    assert tiny.seeds == [0] and tiny.settings.seeds == (0,) and tiny.seconds > 0
    assert tiny.rows and all(r.quantity and r.paper and r.ours and r.note for r in tiny.rows)
    assert "| quantity | paper | ours | verdict | note |" in tiny.table()
    assert set(tiny.figures) == {"curves", "valid_perplexity", "perplexities"}
    assert "MLP, no direct, seed 0" in tiny.runs
    history = tiny.runs["MLP, no direct, seed 0"]
    assert history.convergence is not None and "valid_loss plateau" in history.convergence.criterion
    assert history.settings["init"] == "normal_embeddings(std=0.01)"
    assert "MLP, no direct, seed 0: " in tiny.convergence_report()
    json.dumps(tiny.to_json(), allow_nan=True)  # everything saved is JSON-able


def test_every_ours_number_is_in_numbers(tiny):
    assert not tiny.unrecorded()


def test_numbers_are_what_the_artefacts_score(tiny, data):
    """The perplexities in the table are recomputed from the returned models, not copied."""
    numbers, (key, run), = tiny.numbers, *tiny.artefacts.mlps.items()
    assert key == ("no direct", 0)
    assert isinstance(run.model, BengioMLP) and run.model.W is None
    assert perplexity(run.model, tiny.artefacts.test_pairs) == pytest.approx(
        run.perplexity, rel=1e-6)
    assert numbers.perplexity["MLP, no direct"] == run.perplexity
    # the best weights are restored: the model scores the best validation loss it reached
    assert math.exp(-run.valid.mean()) == pytest.approx(
        math.exp(min(run.history["valid_loss"])), rel=1e-4)
    scored, watched = data.scored(TINY["test_sentences"]), data.watched(TINY["valid_sentences"])
    assert len(tiny.artefacts.test_pairs[1]) == sum(len(s) + 1 for s in scored)
    for order in TINY["kn_orders"]:
        modified = ModifiedKneserNeyLM(order).fit(data.train, vocabulary=data.vocab.itos)
        one = KneserNeyLM(order, 0.75).fit(data.train, vocabulary=data.vocab.itos)
        assert numbers.perplexity[f"modified KN {order}-gram"] == pytest.approx(
            modified.perplexity(scored))
        assert numbers.perplexity[f"KN {order}-gram"] == pytest.approx(one.perplexity(scored))
        assert numbers.valid_perplexity[f"KN {order}-gram"] == pytest.approx(
            one.perplexity(watched))
    best = numbers.best_count_model  # chosen on validation, not on test
    valid = numbers.valid_perplexity
    assert valid[best] == min(v for name, v in valid.items() if "KN" in name and "+" not in name)
    assert numbers.ratio.ours == pytest.approx(numbers.best_mlp / numbers.best_count)
    assert numbers.ratio.paper == pytest.approx(268 / 321)  # MLP1 / KN back-off 5-gram
    assert numbers.ratio.mixture_paper == pytest.approx(252 / 321)


def test_one_record_per_run_and_the_summaries_computed_from_it(tiny):
    """numbers.runs holds each run's record; the ratios and the best models are computed from
    the perplexities, not saved apart from them."""
    numbers = tiny.numbers
    saved = numbers.to_json()
    assert list(saved) == ["perplexity", "perplexity_se", "valid_perplexity", "best_count_model",
                           "ratio", "discounts", "runs", "parameters", "vocabulary",
                           "train_pairs"]
    assert list(saved["runs"][0]) == ["variant", "seed", "perplexity", "valid_perplexity",
                                      "mixture_weight", "mixture", "mixture_valid", "converged",
                                      "epochs"]
    (run,) = numbers.runs
    assert (run.variant, run.seed) == ("no direct", 0) and numbers.runs_of("direct") == []
    assert run.epochs == run.history.convergence.epochs
    assert numbers.best_variant == "no direct" and numbers.best_mlp == run.perplexity
    assert numbers.best_mixture_model == f"MLP, no direct + {numbers.best_count_model}"
    assert numbers.best_mixture == run.mixture
    assert numbers.ratio.mixture_vs_mlp_ours == numbers.best_mixture / numbers.best_mlp
    assert saved["ratio"] == vars(numbers.ratio)  # saved as before, computed from the perplexities
    assert bengio.relative(numbers, numbers.best_count_model) == 1.0


def test_the_mixture_weight_is_tuned_on_validation(tiny):
    numbers, run = tiny.numbers, tiny.artefacts.mlps["no direct", 0]
    probs = tiny.artefacts.count_probs[numbers.best_count_model]
    assert numbers.runs == [run]  # one record per run: the artefact is the saved record
    lam = run.mixture_weight

    def valid_loglik(weight):
        return np.log(bengio.mixture_probs(weight, run.valid, probs["valid"])).mean()

    for other in (lam - 0.02, lam + 0.02, 0.0, 0.5, 1.0):
        if 0 <= other <= 1:
            assert valid_loglik(lam) >= valid_loglik(other) - 1e-12
    mixed = bengio.perplexity_of(bengio.mixture_probs(lam, run.test, probs["test"]))
    assert numbers.perplexity[numbers.best_mixture_model] == pytest.approx(mixed)


def test_mixture_weight_finds_a_known_optimum():
    rng = np.random.default_rng(0)
    truth = rng.dirichlet(np.ones(5), size=4000)
    a, b = rng.dirichlet(np.ones(5), size=4000), rng.dirichlet(np.ones(5), size=4000)
    mix = 0.3 * a + 0.7 * b  # tokens drawn from a 30/70 mixture of two "models"
    tokens = np.array([rng.choice(5, p=p) for p in mix])
    del truth
    rows = np.arange(len(tokens))
    lam = bengio.mixture_weight(np.log(a[rows, tokens]), b[rows, tokens])
    assert lam == pytest.approx(0.3, abs=0.08)


def test_verdicts_wait_for_convergence_and_a_doubled_budget(tiny):
    """A 4-unit MLP on 400 sentences converges and loses to counting: the disagreement is
    checked at twice the epochs (same seed: a continuation), and those runs are recorded."""
    first = tiny.runs["MLP, no direct, seed 0"]
    assert first.converged and tiny.numbers.ratio.ours > 1
    rows = {r.quantity: r for r in tiny.rows}
    for quantity in ("best MLP alone / best count model, test perplexity",
                     "MLP + count mixture / best count model, test perplexity"):
        row = rows[quantity]
        assert row.verdict in ("differs", "budget-limited")
        assert row.evidence["budget_1x"]["runs_converged"] == 1
        assert row.evidence["budget_2x"]["runs"] == 1
    twice = tiny.runs["MLP, no direct, seed 0 (twice the budget)"]
    assert twice.convergence.epochs >= 2 * first.convergence.epochs - 1e-3
    assert twice["valid_loss"][: len(first)] == first["valid_loss"]
    assert len(tiny.artefacts.doubled) == 1  # trained once, for both rows
    assert "1 continued to twice its budget" in tiny.run_summary()  # named as every experiment's


def test_unconverged_runs_get_no_verdict(data):
    capped = bengio.run(seeds=1, settings=dict(TINY, kn_orders=[2], epochs=1, patience=50),
                        device="cpu", progress=False, data=data, workers=1)
    assert capped.unconverged() == ["MLP, no direct, seed 0"]
    verdicts = [r.verdict for r in capped.rows if r.quantity.startswith(("best MLP", "MLP +"))]
    assert verdicts == ["not converged", "not converged"]
    assert "ran out of steps" in capped.figures["curves"].axes[0].get_legend_handles_labels()[1][0]


def test_same_seed_same_numbers_in_parallel_other_seed_other_numbers(tiny, data):
    # two worker processes (one per job) give the numbers of the serial run
    again = bengio.run(seeds=1, settings=TINY, device="cpu", progress=False, data=data,
                       workers=2)
    assert json.dumps(again.numbers.to_json(), allow_nan=True) == json.dumps(
        tiny.numbers.to_json(), allow_nan=True)
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]
    other = bengio.run(seeds=[1], settings=dict(TINY, kn_orders=[2]), device="cpu",
                       progress=False, data=data, workers=1)
    assert other.seeds == [1]
    assert other.numbers.perplexity["MLP, no direct"] != \
        tiny.numbers.perplexity["MLP, no direct"]
    assert other.numbers.perplexity["KN 2-gram"] == tiny.numbers.perplexity["KN 2-gram"]


def test_settings_and_seeds():
    quick = bengio.SETTINGS["quick"]
    assert isinstance(quick, bengio.BengioSettings)
    assert quick.min_count == 4  # Bengio et al. merged words of frequency ≤ 3
    assert quick.kn_orders == (3, 4, 5) and quick.variants == ("no direct",)
    assert quick.embedding_std == 0.01 and quick.epochs >= 5 and quick.seeds == (0,)
    paper = bengio.SETTINGS["paper"]
    assert paper.seeds == (0, 1, 2) and paper.variants == ("no direct", "direct")
    assert paper.epochs >= 2 * bengio.BROWN_EPOCHS[0]  # a generous cap
    assert bengio.SETTINGS.at("quick", {"seeds": 2}).seeds == (0, 1)  # a count: 0 … N-1
    assert bengio.SETTINGS.at("quick", {"seeds": "2"}).seeds == (0, 1)  # --set seeds=2
    assert bengio.SETTINGS.at("quick", {"seeds": "[2]"}).seeds == (2,)  # a list of seeds
    assert bengio.SETTINGS.at("quick", {"seeds": "1,4"}).seeds == (1, 4)
    assert bengio.SETTINGS.at("quick", {"kn_orders": [5, 2]}).kn_orders == (2, 5)  # sorted
    assert bengio.SETTINGS.at("quick", {"lr_patience": None}).lr_patience is None
    assert bengio.SETTINGS.at("quick", {"test_sentences": "none"}).test_sentences is None
    assert bengio.SETTINGS["quick"].to_json()["kn_orders"] == [3, 4, 5]  # saved as before


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings={"steps": 3}), "unknown setting(s) 'steps'"),
    (dict(seeds=0), "the number of seeds must be a positive integer"),
    (dict(scale="huge"), "unknown scale 'huge'"),
    (dict(settings={"kn_orders": [1, 3]}), "'kn_orders'"),
    (dict(settings={"kn_orders": []}), "'kn_orders'"),
    (dict(settings={"kn_orders": [3, 3]}), "'kn_orders' must be distinct"),
    (dict(settings={"variants": ["direct", "direct"]}), "'variants'"),
    (dict(settings={"seeds": [1, 1]}), "'seeds'"),
    (dict(settings={"eval_every": 0}), "'eval_every' must be a number ≥ 1"),
    (dict(settings={"epochs": 0}), "'epochs' must be a number ≥ 1"),
    (dict(settings={"batch": 64}), "'batch' is now called 'batch_size'"),  # its old name
    (dict(settings={"patience": -1}), "'patience' must be a number ≥ 1"),
    (dict(settings={"test_sentences": 0}), "'test_sentences'"),
    (dict(settings={"valid_sentences": "all"}), "'valid_sentences'"),
    (dict(settings={"seeds": []}), "'seeds'"),
    (dict(settings={"variants": ["recurrent"]}), "'variants'"),
    (dict(settings={"lr": -1.0}), "'lr' must be a number > 0"),
    (dict(settings={"discount": 1.5}), "'discount'"),
    (dict(settings={"embedding_std": 0}), "'embedding_std'"),
    (dict(settings={"weight_decay": -1e-4}), "'weight_decay'"),
    (dict(settings={"lr_factor": 1.0}), "'lr_factor'"),
    (dict(settings={"lr_patience": -1}), "'lr_patience'"),
])
def test_bad_input_is_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        bengio.run(progress=False, **kwargs)


def test_data_must_match_the_settings(data):
    with pytest.raises(ValueError, match="min_count=5"):
        bengio.run(settings=dict(TINY, min_count=5), data=data, progress=False)
    with pytest.raises(ValueError, match="austen_data"):
        bengio.run(settings=TINY, data=[["a", "b"]], progress=False)


def test_registered_for_the_cli():
    (experiment,) = bengio.EXPERIMENTS
    assert experiment.name == "bengio-kn" and experiment.chapter == "01_embeddings"
    assert experiment.run is bengio.run and "Table 1" in experiment.title
