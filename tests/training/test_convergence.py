"""Convergence criteria on synthetic learning curves: plateau, target, optimum, and a budget
that runs out first."""

import pytest

from course_rnn.training import (
    STOPS,
    AnyOf,
    Convergence,
    Optimum,
    Plateau,
    Target,
    all_converged,
    converged,
    tally,
)
from course_rnn.training.convergence import status, stopped_short, watched


def test_plateau_needs_enough_evaluations_and_a_flat_tail():
    rule = Plateau(patience=3, min_delta=0.01)
    falling = [1.0, 0.8, 0.6, 0.5, 0.4]
    assert rule.check(falling, "valid_loss")[0] is False
    met, why = rule.check([1.0, 0.5, 0.5], "valid_loss")  # too short to tell
    assert not met and "a plateau needs 4" in why
    flat = [1.0, 0.5, 0.499, 0.4995, 0.4999]
    met, why = rule.check(flat, "valid_loss")
    assert met and "valid_loss improved by 0.20%" in why
    rising = [1.0, 0.5, 0.6, 0.7, 0.8]  # overfitting: the best is 3 evaluations back
    assert rule.check(rising, "valid_loss")[0]


def test_plateau_for_a_figure_that_should_grow():
    rule = Plateau(metric="valid_accuracy", patience=2, min_delta=0.01, mode="max")
    assert rule.check([0.5, 0.9, 0.9, 0.905], "valid_loss")[0]
    assert not rule.check([0.5, 0.7, 0.8, 0.95], "valid_loss")[0]
    assert "valid_accuracy" in rule.describe("valid_loss")


def test_a_plateau_at_chance_is_not_convergence():
    rule = Plateau("valid_accuracy", patience=3, mode="max", floor=0.6)
    at_chance = [0.5, 0.51, 0.5, 0.5, 0.51, 0.5]
    met, why = rule.check(at_chance, "valid_loss")
    assert not met and "has not passed 0.6" in why
    assert Plateau("valid_accuracy", patience=3, mode="max").check(at_chance, "m")[0]
    found = at_chance + [0.9, 0.97, 0.97, 0.97, 0.97]
    assert rule.check(found, "valid_loss")[0]
    assert "once above 0.6" in rule.describe("m")
    with pytest.raises(ValueError, match="floor"):
        Plateau(floor="high")


def test_any_of_reads_each_criterion_on_its_own_curve():
    class FakeHistory:
        curves = {"valid_accuracy": [0.5, 0.99], "valid_loss": [0.7, 0.69, 0.69]}

        def __getitem__(self, key):
            return self.curves[key]

    rule = AnyOf(Target("valid_accuracy", 0.995), Plateau(patience=1, min_delta=0.05))
    assert watched(rule, "valid_loss") == ["valid_accuracy", "valid_loss"]
    met, why = status(rule, FakeHistory(), "valid_loss")
    assert met and "valid_loss improved by" in why
    unmet = AnyOf(Target("valid_accuracy", 0.995))
    met, why = status(unmet, FakeHistory(), "valid_loss")
    assert not met and "not yet" in why
    with pytest.raises(ValueError, match="at least one"):
        AnyOf()
    with pytest.raises(TypeError, match="combines"):
        AnyOf("plateau")


def test_target_and_optimum():
    assert Target("train_accuracy", 0.95).check([0.5, 0.96], "m")[0]
    assert not Target("train_accuracy", 0.95).check([0.5, 0.94], "m")[0]
    assert Target("valid_loss", 0.2, mode="min").check([0.19], "m")[0]
    optimum = Optimum(0.136, tolerance=0.01)
    met, why = optimum.check([0.5, 0.3], "m")
    assert not met and "+0.1640 from the optimum 0.1360" in why
    assert optimum.check([0.5, 0.14], "m")[0]
    # the SRN of chapter 3: a plateau far above the optimum is not "fitted"
    srn = [0.6, 0.35, 0.30, 0.30, 0.30, 0.30]
    assert Plateau(patience=3).check(srn, "train_loss")[0]
    assert not optimum.check(srn, "train_loss")[0]


def test_records_and_their_summaries():
    record = Convergence(criterion="c", converged=False, stopped="budget spent", reason="r",
                         epochs=3, steps=30, monitor="train_loss")
    assert "ran out of steps after 3 epochs (30 steps): r" == str(record)
    # the book's words for each way of stopping (its glossary): never "converged" for a failure
    words = {stop: str(Convergence(criterion="c", converged=stop == "criterion met", stopped=stop,
                                   reason="r", epochs=3, steps=30, monitor="train_loss"))
             for stop in (*STOPS, "diverged")}
    assert words == {"criterion met": "fitted after 3 epochs (30 steps): r",
                     "stalled": "stalled after 3 epochs (30 steps): r",
                     "budget spent": "ran out of steps after 3 epochs (30 steps): r",
                     "diverged": "diverged after 3 epochs (30 steps): r"}
    assert Convergence.from_json(record.to_json()) == record
    assert not converged(record) and converged(True)
    assert converged({"converged": True})
    assert all_converged([True, {"converged": True}]) and not all_converged([True, record])
    with pytest.raises(TypeError, match="cannot tell"):
        converged(3)
    assert record.ending == "ran out of steps"


def test_a_plateau_short_of_the_target_is_a_stall_not_a_fit():
    """Chapter 3's criterion, AnyOf(Optimum, Plateau): a run that stopped on the plateau above
    the optimum met its criterion, but it stalled; one that reached the optimum fitted. A
    plateau alone (a language model's early stopping) is its own target."""
    optimum = AnyOf(Optimum(0.1, tolerance=0.01), Plateau(patience=2))
    above = {"train_loss": [0.6, 0.3, 0.3, 0.3]}
    fitted = {"train_loss": [0.6, 0.3, 0.105]}
    assert stopped_short(optimum, above, "train_loss")
    assert not stopped_short(optimum, fitted, "train_loss")
    assert not stopped_short(Plateau(patience=2), above, "train_loss")
    assert not stopped_short(Optimum(0.1, tolerance=0.01), fitted, "train_loss")
    record = Convergence("c", True, "criterion met", "r", 4, 40, "train_loss",
                         short_of_target=True)
    assert record.ending == "stalled" and str(record).startswith("stalled after 4 epochs")
    assert Convergence.from_json(record.to_json()) == record
    plain = Convergence("c", True, "criterion met", "r", 4, 40, "train_loss")
    assert "short_of_target" not in plain.to_json() and plain.ending == "fitted"


def test_a_pages_runs_are_tallied_in_one_sentence():
    assert tally(["fitted"] * 14 + ["stuck"] * 5 + ["budget spent"]) == \
        "20 runs: 14 fitted, 5 stuck, 1 ran out of steps"
    # the library's stops in words, the known endings first, an experiment's own after them
    assert tally(["diverged", "odd", "criterion met", "stalled", "odd"]) == \
        "5 runs: 1 fitted, 1 stalled, 1 diverged, 2 odd"
    assert tally(["criterion met"] * 3) == "3 runs, all fitted"
    assert tally(["criterion met"], continued=["budget spent"]) == \
        "1 run: fitted; 1 continued to twice its budget: ran out of steps"
    assert tally(["stuck", "fitted"], continued=["fitted", "fitted"]) == \
        "2 runs: 1 fitted, 1 stuck; 2 continued to twice their budget, all fitted"
    assert tally([]) == "no runs"
    assert tally(iter(["fitted"]), continued=iter([])) == "1 run: fitted"


def test_a_record_saved_before_short_of_target_is_read_from_its_words():
    """The committed runs' records (saved before the field existed): a grammaticality classifier
    that met the plateau of "≥ 0.995, or a plateau" stalled; one that met the target fitted, and
    so did a run whose criterion was a plateau alone."""
    either = ("valid_accuracy ≥ 0.995, or valid_accuracy plateau: better by < 0.001 (relative) "
              "over 5 evaluations, once above 0.6")
    plateau_met = "valid_accuracy improved by 0.05% over the last 5 evaluations (< 0.001)"
    saved = {"criterion": either, "converged": True, "stopped": "criterion met",
             "reason": plateau_met, "epochs": 40, "steps": 4000, "monitor": "valid_loss"}
    assert Convergence.from_json(saved).ending == "stalled"
    target_met = {**saved, "reason": "valid_accuracy = 0.996 (valid_accuracy ≥ 0.995)"}
    assert Convergence.from_json(target_met).ending == "fitted"
    alone = {**saved, "criterion": "valid_loss plateau: better by < 0.001 (relative) over 5 "
                                   "evaluations"}
    assert Convergence.from_json(alone).ending == "fitted"
    ran_out = {**saved, "stopped": "budget spent", "converged": False}
    assert Convergence.from_json(ran_out).ending == "ran out of steps"
    assert Convergence.from_json({**saved, "short_of_target": False}).ending == "fitted"
