"""The a^n b^n replication (chapter 3) at a tiny scale: what it returns, that it is reproducible,
that a run is continued rather than restarted at twice the budget, that bad input is refused,
that stalled runs are re-checked, and that the table's verdicts follow the numbers."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from course_rnn.experiments import anbn
from course_rnn.experiments.replication import Replication, converged_by_model
from course_rnn.languages import AnBn, Vocab
from course_rnn.metrics import anbn_generalisation
from course_rnn.models import build_model
from course_rnn.training import evaluate_loss, tally

TINY = dict(hidden_size=2, wide_hidden_size=3, train_max_n=4, test_max_n=8, repeats=1, batch_size=4,
            epochs=5, patience=3, lr_patience=2, eval_every=1, extra_seeds=1)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def one_process():
    """The tiny runs are faster in this process than in spawned workers."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_RNN_WORKERS", "1")
        yield


@pytest.fixture(scope="module")
def tiny(one_process) -> Replication:
    return anbn.run("quick", seeds=2, device="cpu", progress=False, settings=TINY)


def test_run_returns_a_table_backed_by_numbers(tiny):
    assert tiny.experiment == "anbn" and tiny.scale == "quick" and tiny.seeds == [0, 1]
    assert tiny.device == "cpu" and tiny.settings.epochs == 5 and tiny.seconds > 0
    quantities = [row.quantity.split(":")[0] for row in tiny.rows]
    assert quantities[:4] == ["SRN (2 units)", "GRU (2 units)", "LSTM (2 units)", "LSTM"]
    assert quantities[4:6] == ["ReLU SRN", "SRN, 3 units"]
    assert all(row.paper and row.ours and row.note for row in tiny.rows)
    assert not tiny.unrecorded()
    assert tiny.table().startswith("| quantity | paper | ours | verdict | note |")
    # five epochs do not fit a^n b^n: every lecture claim waits for convergence
    assert [row.verdict for row in tiny.rows[:3]] == ["not converged"] * 3
    assert tiny.rows[0].note.startswith("no seed converged")
    assert tiny.rows[3].verdict == tiny.rows[4].verdict == "not comparable"


def test_every_run_is_recorded_with_its_convergence(tiny):
    expected = [f"{name} seed {s}" for name in ("SRN", "GRU", "LSTM") for s in (0, 1)]
    expected += ["ReLU SRN seed 0", "SRN, 3 units seed 0"]
    # every run ran out of its five epochs, so every one was continued to twice its epochs
    assert list(tiny.runs) == expected + [f"{name} (twice the budget)" for name in expected]
    for history in tiny.runs.values():
        criterion = history.convergence.criterion
        assert "exact optimum" in criterion and "plateau" in criterion
        assert history.settings["batch_size"] == 4 and "ReduceOnPlateau" in history.settings[
            "schedule"]
    report = tiny.convergence_report()
    assert "LSTM seed 1: ran out of steps after" in report
    assert tiny.unconverged() == list(tiny.runs)  # five epochs: nobody has learned
    # the page's sentence: every run counted by how it ended, in the experiment's words
    assert [r.ending for r in tiny.numbers.runs] == ["budget spent"] * 8
    assert tiny.run_summary() == \
        "8 runs, all ran out of steps; 8 continued to twice their budget, all ran out of steps"


def test_runs_are_scored_consistently(tiny):
    runs = tiny.numbers.runs
    assert [(r.id, r.seed) for r in runs] == [
        (m, s) for m in ("srn", "gru", "lstm") for s in (0, 1)] + [("srn-relu", 0),
                                                                     ("srn-wide", 0)]
    optimum = anbn.training_optimum(tiny.settings)
    for r in runs:
        right = r.right
        assert len(right) == TINY["test_max_n"] and len(r.max_correct_n_curve) == 5
        assert r.curve_epochs == [1.0, 2.0, 3.0, 4.0, 5.0]
        n = r.max_correct_n
        assert all(right[:n]) and (n == len(right) or not right[n]), "max_correct_n has no holes"
        assert r.train_right == sum(right[:TINY["train_max_n"]])
        assert r.beyond_right == sum(right[TINY["train_max_n"]:])
        assert r.max_correct_n_curve[-1] == n  # scored on the model of the last epoch
        assert r.max_correct_n_best_epoch == max(r.max_correct_n_curve)
        assert r.gap_to_optimum == pytest.approx(r.final_loss - optimum)
        assert r.outcome == anbn.outcome(r.converged, r.fitted, n, TINY["train_max_n"])
        assert r.stopped == "budget spent" and r.epochs == 5 and r.steps == 5
        assert not r.fitted and r.outcome == "not converged"
        assert 0 <= r.clipped_share <= 1 and r.max_grad_norm > 0
    summary = tiny.numbers.summary
    assert summary["LSTM"].n_seeds == 2 and summary["ReLU SRN"].n_seeds == 1
    assert summary["GRU"].fitted == 0 and summary["GRU"].max_correct_n_mean is None
    # a run that ran out of epochs is continued (no stalled run: no `continued` summary)
    assert [(d.id, d.seed) for d in tiny.numbers.doubled] == [(r.id, r.seed) for r in runs]
    assert all(d.min_epochs == 10 and not d.converged for d in tiny.numbers.doubled)
    assert tiny.numbers.continued == {}


def test_the_counting_test_is_the_metric():
    """CountingTest (one batched pass) scores exactly like metrics.anbn_generalisation."""
    vocab = Vocab.for_language(AnBn())
    test = anbn.CountingTest(vocab, 12)
    settings = anbn.SETTINGS.at("quick", dict(TINY, hidden_size=3, train_max_n=3, test_max_n=12,
                                         epochs=40))
    trained, _ = anbn.train_one("lstm", 1, settings)
    for model in (build_model("gru", vocab_size=len(vocab), hidden_size=3, seed=0), trained):
        slow = anbn_generalisation(model, vocab, 12)
        assert list(test.right(model)) == [slow["right"][n] for n in range(1, 13)]
        assert test.max_correct_n(model) == slow["max_correct_n"]
    assert anbn.max_correct_n(np.array([True, True, False, True])) == 2
    assert anbn.max_correct_n(np.array([True, True])) == 2


def test_loss_by_phase_adds_up_to_the_loss():
    """The loss splits into the a's (uncertain) and after the first b (forced); the exact
    optimum lies entirely in the first part."""
    vocab = Vocab.for_language(AnBn())
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=3, seed=0)
    parts = anbn.loss_by_phase(model, vocab, 6)
    total = evaluate_loss(model, vocab, anbn.train_strings(6, 1))
    assert parts["uncertain"] + parts["forced"] == pytest.approx(total, rel=1e-5)
    assert parts["uncertain"] > anbn.training_optimum(anbn.SETTINGS.at("quick", {"train_max_n": 6}))
    assert parts["forced"] > 0


def test_artefacts_and_figures(tiny, tmp_path):
    models = tiny.artefacts.models
    assert set(models) == set(tiny.artefacts.histories) == {
        *((k, s) for k in ("srn", "gru", "lstm") for s in (0, 1)), ("srn-relu", 0),
        ("srn-wide", 0)}
    assert models["lstm", 1].hidden_size == 2 and models["srn-wide", 0].hidden_size == 3
    assert models["srn-relu", 0].rnn.nonlinearity == "relu"
    assert all(d.network is not None and d.history is not None for d in tiny.numbers.doubled)
    assert set(tiny.figures) == {"final", "lstm_epochs", *(f"curves_{m}" for m in anbn.MODELS)}
    paths = tiny.save(tmp_path)
    saved = json.loads(paths["json"].read_text())
    assert list(saved["numbers"]) == ["runs", "doubled", "doubled_again"]
    assert saved["numbers"]["doubled"][0]["min_epochs"] == 10
    assert "min_epochs" not in saved["numbers"]["runs"][0]
    assert set(saved["runs"]) == set(tiny.runs)
    assert paths["final"].stat().st_size > 0 and paths["curves_lstm"].stat().st_size > 0


def test_same_seed_same_numbers(tiny):
    again = anbn.run("quick", seeds=2, device="cpu", progress=False, settings=TINY)
    assert json.dumps(again.numbers.to_json()) == json.dumps(tiny.numbers.to_json())
    assert [vars(r) for r in again.rows] == [vars(r) for r in tiny.rows]


def test_a_doubled_budget_continues_the_run():
    """Same seed, min_epochs: the first part of the longer run is the shorter run."""
    settings = anbn.SETTINGS.at("quick", dict(TINY, tolerance=2.0))  # met at once: a fitted run
    _, first = anbn.train_one("lstm", 0, settings)
    assert first.converged and first.convergence.stopped == "criterion met"
    epochs = math.ceil(first.convergence.epochs)
    _, second = anbn.train_one("lstm", 0, settings, min_epochs=2 * epochs)
    assert second.converged and second.convergence.epochs == 2 * epochs
    assert second["train_loss"][:epochs] == first["train_loss"]
    _, resumed = anbn.train_one("lstm", 0, settings, min_epochs=2 * epochs, resume=first)
    assert resumed["train_loss"] == second["train_loss"]  # continued, not trained again
    # the continued run's cap leaves room past its minimum (never the minimum itself)
    assert resumed.settings["epochs_cap"] == max(2 * settings.epochs,
                                                 2 * epochs + settings.patience)
    _, unclipped = anbn.train_one("srn", 0, settings, clip=None)
    assert unclipped.settings["clip"] is None


def test_full_batch_evaluated_every_few_epochs():
    """The book's recipe: all strings in one step, evaluated (and the criteria read) every
    ``eval_every`` epochs; a run that stops improving has stalled, and converged."""
    settings = anbn.SETTINGS.at("quick", dict(TINY, batch_size=None, repeats=2, eval_every=2,
                                         patience=4, min_delta=0.9, epochs=20))
    _, history = anbn.train_one("srn", 0, settings)
    assert history.settings["batch_size"] is None and history["epoch"][:2] == [2.0, 4.0]
    assert history.convergence.steps == history.convergence.epochs  # one step per epoch
    assert history.converged and "improved by" in history.convergence.reason  # stalled at once
    quick = anbn.SETTINGS["quick"]
    assert anbn.evaluations(200, quick) == 200 // quick.eval_every


def test_only_some_models():
    one = anbn.run(seeds=1, device="cpu", progress=False,
                   settings=dict(TINY, epochs=1, models=["lstm", "gru"]))
    assert one.settings.models == ("gru", "lstm")  # the canonical order
    assert [r.model for r in one.numbers.runs] == ["GRU", "LSTM"]
    assert set(one.figures) == {"final", "lstm_epochs", "curves_gru", "curves_lstm"}
    assert not one.unrecorded()


@pytest.mark.parametrize("kwargs, message", [
    (dict(settings={"epoch": 3}), "'epoch'"),
    (dict(settings={"epochs": 0}), "'epochs'"),
    (dict(settings={"hidden_size": 2.5}), "'hidden_size'"),
    (dict(settings={"lr": -1.0}), "'lr'"),
    (dict(settings={"min_lr": -1.0}), "'min_lr'"),
    (dict(settings={"tolerance": 0}), "'tolerance'"),
    (dict(settings={"patience": 0}), "'patience'"),
    (dict(settings={"eval_every": 0}), "'eval_every'"),
    (dict(settings={"batch_size": 0}), "'batch_size'"),
    (dict(settings={"clip": -1}), "'clip'"),
    (dict(settings={"models": ["lstm", "transformer"]}), "'models'"),
    (dict(settings={"models": []}), "'models' must not be empty"),
    (dict(settings={"models": ["lstm", "srn", "lstm"]}), "'models' must name each model once"),
    (dict(settings={"batch_size": 2.5}), "'batch_size'"),
    (dict(settings={"train_max_n": 8, "test_max_n": 8}), "'test_max_n'"),
    (dict(seeds=0), "the number of seeds"),
    (dict(scale="huge"), "unknown scale 'huge'"),
])
def test_bad_input_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        anbn.run(**{"device": "cpu", "progress": False, **kwargs})


def test_settings_match_the_chapter():
    quick, paper = anbn.SETTINGS["quick"], anbn.SETTINGS["paper"]
    assert paper.epochs > quick.epochs and paper.patience >= quick.patience
    assert anbn.DEFAULT_SEEDS["quick"] >= 6 and anbn.DEFAULT_SEEDS["paper"] >= 10
    assert quick.train_max_n == 20 and quick.test_max_n == 60
    assert quick.batch_size is None  # full batch: twenty strings
    assert quick.replace({"batch_size": "none"}).batch_size is None  # --set batch_size=none
    assert quick.replace({"models": "lstm,srn"}).models == ("srn", "lstm")
    assert anbn.training_optimum(quick) == pytest.approx(0.1362, abs=1e-4)
    (experiment,) = anbn.EXPERIMENTS
    assert experiment.name == "anbn" and experiment.run is anbn.run
    assert experiment.settings is anbn.SETTINGS
    assert (ROOT / "chapters" / f"{experiment.chapter}.ipynb").exists()


def test_instability_of_a_curve():
    run = fake("lstm", 3, True, 33, curve=[0, 5, 21, 40, 22, 33])
    assert anbn.instability(run, 20) == anbn.Instability(seed=3, first_epoch_beyond=15,
                                                         min_after=21, max_after=40)
    never = anbn.instability(fake("lstm", 0, True, 20, curve=[0, 20]), 20)
    assert never == anbn.Instability(seed=0, first_epoch_beyond=None, min_after=None,
                                     max_after=None)


# -- verdicts from synthetic runs ----------------------------------------------------------------
def fake(model_id, seed, converged, reach, fitted=None, loss=0.2, curve=None):
    """A stand-in RunScore: what the verdicts read is given (its grade as :func:`anbn.outcome`
    gives it for N_train = 20), the rest is filler."""
    fitted = converged if fitted is None else fitted
    curve = [reach] if curve is None else curve
    return anbn.RunScore(
        model=model_id.upper(), id=model_id, seed=seed, converged=converged, fitted=fitted,
        stopped="", epochs=10.0, steps=10, final_loss=loss, best_loss=loss, gap_to_optimum=0.0,
        train_right=0, beyond_right=0, max_correct_n=reach, max_correct_n_best_epoch=max(curve),
        max_correct_n_curve=curve, curve_epochs=[5.0 * (i + 1) for i in range(len(curve))],
        right=[], loss_by_phase={"uncertain": 0.0, "forced": 0.0}, max_grad_norm=0.0,
        clipped_share=0.0, outcome=anbn.outcome(converged, fitted, reach, 20))


def _numbers(by_model, continued=None):
    """What the claims read on ``by_model``'s runs, the summary made of those runs."""
    runs = [r for model_runs in by_model.values() for r in model_runs]
    return anbn.ClaimNumbers(by_model, anbn.summarise(runs), continued or {})


def _verdicts(rows):
    """The verdict of each lecture claim's row, by the model it is about."""
    return {row.quantity.split(" (")[0]: row.verdict for row in rows
            if row.paper.startswith(("no: its state", "yes: "))}


def test_no_count_counts_converged_seeds_and_waits_for_them():
    settings = anbn.SETTINGS.at("quick", {"models": ["srn", "gru"]})
    unconverged = {"srn": [fake("srn", 0, False, 0), fake("srn", 1, True, 3, fitted=False)],
                   "gru": [fake("gru", 0, True, 2, fitted=False)]}
    numbers = _numbers(unconverged)  # one hit the cap: no verdict read yet
    assert _verdicts(anbn.table_rows(numbers, numbers, None, settings))["SRN"] == "not converged"
    stalled = [fake("srn", s, True, 2, fitted=False) for s in range(3)]
    assert anbn.no_count_compared(stalled, 20) == (0, True, 0.0)  # did not fit: counts nothing
    mixed = [fake("gru", 0, True, 20), fake("gru", 1, True, 45),
             fake("gru", 2, True, 50, fitted=False),  # a stalled seed never "generalises"
             fake("gru", 3, True, 39)]  # right part-way to twice the training range: no count
    k, agrees, gap = anbn.no_count_compared(mixed, 20)
    assert k == 1 and not agrees and gap == pytest.approx(1 / 4)
    assert anbn.no_count_compared(mixed[:1] + mixed[2:], 20)[1]


def test_lstm_best_compares_shares_of_converged_seeds():
    lstm = [fake("lstm", s, True, r) for s, r in enumerate([45, 60, 12, 40])]
    gru = [fake("gru", s, True, r) for s, r in enumerate([20, 22, 15, 19])]
    share, agrees, gap = anbn.lstm_best_compared(lstm, [gru], 20)
    assert agrees and share == pytest.approx(0.75) and gap == 0
    _, agrees, gap = anbn.lstm_best_compared(lstm[:2] + gru[2:], [lstm[:2] + gru[2:]], 20)
    assert not agrees and gap == pytest.approx(0.25)  # one seed short of leading
    assert not anbn.lstm_best_compared([fake("lstm", 0, True, 10)], [gru], 20)[1]
    srn = [fake("srn", s, True, 0, fitted=False) for s in range(3)]  # stalled: share 0
    assert anbn.lstm_best_compared(lstm, [srn, gru], 20)[1]
    # the claim rests on every seed of the LSTM and of its rivals
    settings = anbn.SETTINGS["quick"]
    claim = next(c for c in anbn.lecture_claims(settings) if c.quantity.startswith("LSTM"))
    assert claim.models == ("lstm", "srn", "gru")
    numbers = _numbers({"srn": srn, "gru": gru, "lstm": lstm})
    assert converged_by_model(numbers, claim.models) == [True] * 11
    assert claim.check(numbers)[1:] == (pytest.approx(0.75), True, 0.0)


def test_deciding_and_stalled_runs():
    """The runs continued for a disagreeing claim are the seeds that go against the lecture,
    model by model in the claims' order, and only once every run behind the claim converged."""
    settings = anbn.SETTINGS.at("quick", {"models": ["gru", "lstm"]})
    runs = {"gru": [fake("gru", 0, True, 45), fake("gru", 1, True, 41),
                    fake("gru", 2, True, 25), fake("gru", 3, True, 2, fitted=False)],
            "lstm": [fake("lstm", 0, True, 60), fake("lstm", 1, True, 15),
                     fake("lstm", 2, True, 1, fitted=False)]}
    # the GRU counts (2 seeds), more often than the LSTM (1 of 3): both claims disagree
    assert anbn.deciding_pairs(_numbers(runs), settings) == [("gru", 0), ("gru", 1), ("lstm", 1),
                                                        ("lstm", 2)]
    only_gru = anbn.SETTINGS.at("quick", {"models": ["gru"]})
    assert anbn.deciding_pairs(_numbers({"gru": runs["gru"]}), only_gru) == [("gru", 0),
                                                                            ("gru", 1)]
    # no LSTM seed counts, nor does a GRU seed: the LSTM's own seeds decide
    quiet = {"gru": runs["gru"][2:], "lstm": runs["lstm"][1:]}
    assert anbn.deciding_pairs(_numbers(quiet), settings) == [("lstm", 1), ("lstm", 2)]
    both = {"srn": [fake("srn", 0, True, 45)], "lstm": [fake("lstm", 0, True, 15)]}
    srn_first = anbn.SETTINGS.at("quick", {"models": ["lstm", "srn"]})
    assert anbn.deciding_pairs(_numbers(both), srn_first) == [("srn", 0), ("lstm", 0)]
    waiting = {"gru": [*runs["gru"], fake("gru", 4, False, 30)], "lstm": runs["lstm"]}
    assert anbn.deciding_pairs(_numbers(waiting), settings) == []  # settled first
    assert anbn.stalled_runs(runs) == [("gru", 3), ("lstm", 2)]


def _fake_histories(by_model, epochs=7.0):
    return {(r.id, r.seed): SimpleNamespace(convergence=SimpleNamespace(epochs=epochs))
            for runs in by_model.values() for r in runs}


def _settle_and_continue(by_model, histories, settings):
    """The two training steps of ``run``, then the table: (settled, continued again, rows)."""
    settled = anbn.settle(_numbers(by_model), histories, settings, "cpu", False)
    again, twice = anbn.continue_disputed(settled, histories, settings, "cpu", False)
    return settled, again, anbn.table_rows(settled.numbers, twice, None, settings)


def test_a_disagreement_is_checked_at_twice_the_budget(monkeypatch):
    """The GRU counts on one fitted seed; continued, it no longer does: budget-limited."""
    settings = anbn.SETTINGS.at("quick", {"models": ["gru", "lstm"]})
    by_model = {"gru": [fake("gru", 0, True, 45), fake("gru", 1, True, 20)],
                "lstm": [fake("lstm", 0, True, 45), fake("lstm", 1, True, 40)]}
    asked = []

    def train_all(pairs, settings, device, progress, min_epochs=None, resume=None):
        asked.append(dict(min_epochs))
        assert all(resume[p] is histories[p] for p in pairs), "each run continues its first"
        return [("model", "history")] * len(pairs)

    monkeypatch.setattr(anbn, "train_all", train_all)
    monkeypatch.setattr(anbn, "score_run", lambda m, s, *rest, **kw: fake(m, s, True, 20))
    histories = _fake_histories(by_model)
    settled, again, rows = _settle_and_continue(by_model, histories, settings)
    assert asked == [{("gru", 0): 14}]  # only the deciding seed, continued to 2 × 7 epochs
    assert again == {}  # continued in advance, not trained again
    doubled = settled.doubled
    assert set(doubled) == {("gru", 0)} and doubled["gru", 0].min_epochs == 14
    assert settled.stand_ins == [] and settled.numbers.runs == by_model
    assert _verdicts(rows) == {"GRU": "budget-limited", "LSTM": "agrees"}
    gru = rows[0].evidence
    assert (gru["budget_1x"]["value"], gru["budget_2x"]["value"]) == (1, 0)  # seeds that count
    assert rows[0].note.startswith("1 fitted seed(s) get every n right up to 40")
    assert [r.quantity for r in rows][2] == "LSTM: best fitted seed's max_correct_n"


def test_stalled_runs_are_continued_and_reported(monkeypatch):
    """Every stalled seed is trained on to twice its epochs, with the deciding runs, in one go;
    one that stalls again there is stuck."""
    settings = anbn.SETTINGS.at("quick", {"models": ["srn", "lstm"]})
    by_model = {"srn": [fake("srn", 0, True, 3, fitted=False, loss=0.29),
                        fake("srn", 1, True, 41)],
                "lstm": [fake("lstm", 0, True, 45)]}
    asked = []

    def train_all(pairs, settings, device, progress, min_epochs=None, resume=None):
        asked.append(dict(min_epochs))
        assert all(resume[p] is histories[p] for p in pairs), "each run continues its first"
        return [("model", "history")] * len(pairs)

    def rescore(m, s, *rest, continued=False):  # the stalled SRN stalls again; the counting
        assert continued  # SRN still counts
        return fake(m, s, True, 3, fitted=False, loss=0.28) if s == 0 else fake(m, s, True, 42)

    monkeypatch.setattr(anbn, "train_all", train_all)
    monkeypatch.setattr(anbn, "score_run", rescore)
    histories = _fake_histories(by_model)
    settled, _, rows = _settle_and_continue(by_model, histories, settings)
    assert asked == [{("srn", 0): 14, ("srn", 1): 14}]  # one batch of continued runs
    assert _verdicts(rows) == {"SRN": "differs", "LSTM": "agrees"}
    assert rows[0].evidence["budget_2x"]["value"] == 1  # still counts at twice the budget
    summary = settled.numbers.summary
    assert summary["SRN"].stalled == 1 and summary["SRN"].stalled_loss_min == 0.29
    again = anbn.recheck([r for runs in by_model.values() for r in runs], settled.doubled)
    assert again == settled.numbers.continued == {"SRN": anbn.Continued(
        continued=1, fitted=0, generalised=0, part_way=0, stuck=1, stuck_min=0.28, stuck_max=0.28,
        still_improving=0, improving_min=None, improving_max=None)}
    stalled_row = next(r for r in rows if "fail to learn" in r.quantity)
    assert stalled_row.ours == ("1/2 seeds stalled at 0.290 nats; at twice the epochs: 1 stuck "
                                "at 0.280, 0 fitted")
    moving = {("srn", 0): fake("srn", 0, False, 3, fitted=False, loss=0.19)}  # hit the cap
    again = anbn.recheck([fake("srn", 0, True, 3, fitted=False)], moving)["SRN"]
    assert again.still_improving == 1 and again.improving_min == 0.19
    numbers = replace(settled.numbers, continued={"SRN": again})
    rows = anbn.table_rows(numbers, numbers, None, settings)
    assert "0 stuck, 1 still improving at the cap, at 0.190, 0 fitted" in next(
        r for r in rows if "fail to learn" in r.quantity).ours
    assert rows[0].ours.startswith("fitted 1/2 seeds (1 stalled above the optimum); of those, 1/1")


def test_a_stalled_run_that_learns_when_continued_is_judged_and_continued_again(monkeypatch):
    """Claims are judged on settled runs: a stalled SRN that fits and counts once continued
    stands in for its first run, so the "no count" claim disagrees there, and that
    continuation is continued once more (from its own History) before the verdict."""
    settings = anbn.SETTINGS.at("quick", {"models": ["srn", "lstm"]})
    by_model = {"srn": [fake("srn", s, True, 3, fitted=False) for s in (0, 1)],
                "lstm": [fake("lstm", 0, True, 45)]}
    histories = _fake_histories(by_model)
    continued = {("srn", 0): SimpleNamespace(convergence=SimpleNamespace(epochs=30.0))}
    asked = []

    def train_all(pairs, settings, device, progress, min_epochs=None, resume=None):
        asked.append((dict(min_epochs), dict(resume)))
        return [(f"net {p}", continued.get(p) if len(asked) == 1 else "again") for p in pairs]

    def rescore(m, s, *rest, continued=False):  # seed 0 fits and counts once continued; seed 1
        assert continued  # stalls again (stuck); continued again, seed 0 counts no more
        if len(asked) == 1:
            return fake(m, s, True, 45) if s == 0 else fake(m, s, True, 3, fitted=False)
        return fake(m, s, True, 18)

    monkeypatch.setattr(anbn, "train_all", train_all)
    monkeypatch.setattr(anbn, "score_run", rescore)
    settled, again, rows = _settle_and_continue(by_model, histories, settings)
    assert [a[0] for a in asked] == [{("srn", 0): 14, ("srn", 1): 14}, {("srn", 0): 60}]
    assert asked[1][1][("srn", 0)] is continued[("srn", 0)]  # the continuation, continued
    assert set(settled.doubled) == {("srn", 0), ("srn", 1)} and set(again) == {("srn", 0)}
    assert settled.stand_ins == [("srn", 0), ("srn", 1)]
    assert _verdicts(rows) == {"SRN": "budget-limited", "LSTM": "agrees"}
    summary = settled.numbers.continued["SRN"]
    assert (summary.fitted, summary.generalised, summary.stuck) == (1, 1, 1)
    assert anbn._twice_text(summary, 20) == \
        "1 stuck at 0.200, 1 fitted (1 right past 20, 1 up to 40)"
    assert rows[0].note.endswith("(1 up to 40): the verdict is judged on the continued runs")


def test_generalisation_is_graded_by_how_far_past_training_a_run_is_right():
    """Right past the training range is not yet counting: a run counts when it is right up to
    twice the longest training n; the claims and the summaries read that."""
    assert anbn.counting_n(20) == 40
    grades = {n: anbn.outcome(True, True, n, 20) for n in (19, 20, 21, 39, 40, 60)}
    assert grades == {19: "learned, did not generalise", 20: "learned, did not generalise",
                      21: "generalised part-way", 39: "generalised part-way",
                      40: "generalised", 60: "generalised"}
    runs = [fake("gru", s, True, n) for s, n in enumerate([20, 23, 39, 40, 60])]
    summary = anbn.summarise(runs)["GRU"]
    assert (summary.fitted, summary.part_way, summary.generalised) == (5, 2, 2)
    assert [anbn.generalises(r, 20) for r in runs] == [False, False, False, True, True]


def test_a_first_plateau_is_stalled_and_a_continued_one_stuck():
    """The glossary's words: a first run that plateaus above the optimum has stalled; continued
    to twice its epochs, a run that plateaus there again is stuck (it failed to learn)."""
    assert anbn.outcome(True, False, 3, 20) == "stalled"
    assert anbn.outcome(True, False, 3, 20, continued=True) == "failed to learn"
    assert anbn.outcome(False, False, 3, 20, continued=True) == "not converged"
    assert anbn.outcome(True, True, 40, 20, continued=True) == "generalised"
    first = replace(fake("srn", 0, True, 3, fitted=False), outcome="stalled",
                    stopped="criterion met")
    again = replace(first, outcome="failed to learn")
    capped = replace(fake("srn", 1, False, 3), outcome="not converged", stopped="budget spent")
    assert [r.ending for r in (first, again, capped)] == ["stalled", "stuck", "budget spent"]
    assert tally([first.ending, capped.ending], [again.ending]) == \
        "2 runs: 1 stalled, 1 ran out of steps; 1 continued to twice its budget: stuck"


def test_a_model_that_never_fits_is_named():
    summary = {name: anbn.ModelSummary(
        n_seeds=3, converged=3, fitted=f, stalled=3 - f, stalled_loss_min=0.27,
        stalled_loss_max=0.30, generalised=g, part_way=p, max_correct_n_mean=30.0,
        max_correct_n_se=1.0, best_seed=0, max_correct_n_best_seed=best, lowest_final_loss=0.27,
        epochs_mean=50.0, best_epoch_any_seed=45)
        for name, f, g, p, best in [("SRN", 0, 0, 0, None), ("GRU", 3, 0, 2, 23),
                                    ("LSTM", 3, 2, 1, 45)]}
    runs = {"srn": [fake("srn", s, True, 2, fitted=False) for s in range(3)],
            "gru": [fake("gru", s, True, n) for s, n in enumerate([20, 23, 25])],
            "lstm": [fake("lstm", s, True, n) for s, n in enumerate([45, 41, 30])]}
    numbers = anbn.ClaimNumbers(runs, summary)
    rows = anbn.table_rows(numbers, numbers, None, anbn.SETTINGS["quick"])
    assert _verdicts(rows) == {"SRN": "agrees", "GRU": "agrees", "LSTM": "agrees"}
    assert rows[0].note.startswith("no seed fitted the training set")
    assert rows[0].ours == "fitted 0/3 seeds (3 stalled above the optimum); lowest final loss 0.270"
    assert rows[1].quantity.startswith("GRU (4 units): counts, right on every n ≤ 40")
    assert rows[1].note.startswith("2 fitted seed(s) are right a few steps past 20 (best 23), "
                                   "none up to 40: an approximate counter")
    assert "of those, 2/3 count (right up to 40), 1 more part-way past 20" in rows[2].ours
    assert "against the SRN's and the GRU's" in rows[2].note


def test_a_run_that_ran_out_of_epochs_is_continued_and_stands_in(monkeypatch):
    """A first run that reached its cap short of its criterion has not settled: it is continued
    with the stalled ones, and the claims are judged on its continuation instead of reading
    "not converged"."""
    settings = anbn.SETTINGS.at("quick", {"models": ["srn", "lstm"]})
    by_model = {"srn": [fake("srn", 0, False, 3, fitted=False), fake("srn", 1, True, 20)],
                "lstm": [fake("lstm", 0, True, 45)]}
    assert anbn.unsettled_runs(by_model) == [("srn", 0)] and anbn.stalled_runs(by_model) == []
    asked = []

    def train_all(pairs, settings, device, progress, min_epochs=None, resume=None):
        asked.append(dict(min_epochs))
        return [("model", "history")] * len(pairs)

    monkeypatch.setattr(anbn, "train_all", train_all)
    monkeypatch.setattr(anbn, "score_run", lambda m, s, *rest, **kw: fake(m, s, True, 20))
    settled, again, rows = _settle_and_continue(by_model, _fake_histories(by_model), settings)
    assert asked == [{("srn", 0): 14}] and set(settled.doubled) == {("srn", 0)} and again == {}
    assert settled.stand_ins == [("srn", 0)]
    assert _verdicts(rows) == {"SRN": "agrees", "LSTM": "agrees"}
    first = _numbers(by_model)  # unsettled: the first runs alone give no verdict
    assert _verdicts(anbn.table_rows(first, first, None, settings))["SRN"] == "not converged"
