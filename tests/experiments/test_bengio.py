"""bengio-kn (chapter 1): Bengio et al. (2003), Table 1, at a tiny scale (seconds, not minutes)."""

import json
import math
import re

import pytest

from course_rnn.experiments import bengio
from course_rnn.experiments.replication import Replication
from course_rnn.models.bengio import BengioMLP, perplexity
from course_rnn.models.kneser_ney import KneserNeyLM

# a bigram Kneser–Ney and two tiny MLPs (3 steps each) scored on 20 test sentences
TINY = dict(kn_orders=[2], test_sentences=20, steps=3, batch=16, hidden=4, embedding_dim=4,
            context=2)


@pytest.fixture(scope="module")
def data():
    return bengio.austen_data(min_count=3)


@pytest.fixture(scope="module")
def tiny(data):
    return bengio.run(seeds=1, settings=TINY, device="cpu", progress=False, data=data)


def test_returns_a_replication_with_a_table(tiny):
    assert isinstance(tiny, Replication)
    assert tiny.experiment == "bengio-kn" and tiny.scale == "quick" and tiny.device == "cpu"
    assert tiny.seeds == [0] and tiny.settings["steps"] == 3 and tiny.seconds > 0
    assert tiny.settings["seeds_plain"] == tiny.settings["seeds_direct"] == [0]
    assert tiny.rows and all(r.quantity and r.paper and r.ours and r.note for r in tiny.rows)
    assert "| quantity | paper | ours | note |" in tiny.table()
    assert set(tiny.figures) == {"training_curves", "perplexities"}
    assert len(tiny.figures["training_curves"].axes[0].lines) == 2 + 2  # 2 runs + 2 levels
    json.dumps(tiny.to_json(), allow_nan=True)  # everything saved is JSON-able


def test_every_ours_number_is_in_numbers(tiny):
    assert not tiny.unrecorded()


def test_numbers_are_what_the_artefacts_score(tiny, data):
    """The perplexities in the table are recomputed from the returned models, not copied."""
    runs, numbers = tiny.artefacts["runs"], tiny.numbers
    assert set(runs) == {(False, 0), (True, 0)}
    for (direct, _), r in runs.items():
        assert isinstance(r["model"], BengioMLP) and (r["model"].W is not None) == direct
        assert len(r["losses"]) == TINY["steps"]
        assert perplexity(r["model"], tiny.artefacts["test_pairs"]) == pytest.approx(r["ppl"])
        name = "MLP, direct" if direct else "MLP, no direct"
        assert numbers["perplexity"][name] == r["ppl"]
    (order, lm), = tiny.artefacts["kneser_ney"].items()
    assert order == 2 and isinstance(lm, KneserNeyLM)
    scored = data.scored(TINY["test_sentences"])
    assert numbers["perplexity"]["KN 2-gram"] == pytest.approx(lm.perplexity(scored))
    # one target per scored word and per </s>
    assert numbers["corpus"]["scored_predictions"] == sum(len(s) + 1 for s in scored)
    best_mlp = min(numbers["perplexity"]["MLP, direct"], numbers["perplexity"]["MLP, no direct"])
    assert numbers["ratio"]["ours"] == pytest.approx(best_mlp / numbers["perplexity"]["KN 2-gram"])
    assert numbers["ratio"]["paper"] == pytest.approx(268 / 321)  # MLP1 / KN back-off 5-gram
    assert numbers["budget"]["word_predictions"] == TINY["steps"] * TINY["batch"]


def test_one_seed_shows_the_mean_only_and_the_verdict_follows_the_numbers(tiny):
    rows = {r.quantity.split(" (")[0]: r for r in tiny.rows}
    mean, se = (tiny.numbers[k]["MLP, direct"] for k in ("perplexity", "perplexity_se"))
    assert math.isnan(se)
    assert rows["neural n-gram MLP, direct"].ours == f"{mean:.1f} (1 seed)"
    assert rows["neural n-gram MLP, direct"].paper.startswith("268 (Table 1, MLP1")
    assert rows["Kneser–Ney 2-gram, test perplexity"].paper == "—"  # Table 1 has no bigram
    ratio = rows["best MLP alone / best Kneser–Ney, test perplexity"]
    beaten = tiny.numbers["ratio"]["ours"] < 1
    assert ratio.note.startswith("agrees" if beaten else "disagrees")


def test_same_seed_same_numbers_other_seed_other_numbers(tiny, data):
    again = bengio.run(seeds=1, settings=TINY, device="cpu", progress=False, data=data)
    assert json.dumps(again.numbers, allow_nan=True) == json.dumps(tiny.numbers, allow_nan=True)
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]
    other = bengio.run(seeds=[1], settings=TINY, device="cpu", progress=False, data=data)
    assert other.seeds == [1]
    assert other.numbers["perplexity"]["MLP, direct"] != tiny.numbers["perplexity"]["MLP, direct"]
    assert other.numbers["perplexity"]["KN 2-gram"] == tiny.numbers["perplexity"]["KN 2-gram"]


def test_settings_and_seeds():
    quick = bengio.resolve_settings("default")  # chapter 1's name for the quick scale
    assert quick["seeds_plain"] == [0, 1] and quick["seeds_direct"] == [0]
    assert quick["steps"] == 250 and quick["kn_orders"] == [3, 4, 5]
    three = bengio.resolve_settings("paper", seeds=3)
    assert three["seeds_plain"] == three["seeds_direct"] == [0, 1, 2]
    assert bengio.resolve_settings(settings={"seeds_direct": 2})["seeds_direct"] == [0, 1]


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings={"epochs": 3}), "unknown setting(s) 'epochs'"),
    (dict(seeds=0), "at least 1"),
    (dict(scale="huge"), "unknown scale 'huge'"),
    (dict(settings={"kn_orders": [1, 3]}), "'kn_orders'"),
    (dict(settings={"kn_orders": []}), "'kn_orders'"),
    (dict(settings={"steps": 0}), "'steps' must be a positive integer"),
    (dict(settings={"test_sentences": 0}), "'test_sentences'"),
    (dict(settings={"seeds_plain": []}), "'seeds_plain'"),
    (dict(settings={"lr": -1.0}), "'lr'"),
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
