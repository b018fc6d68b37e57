"""A run continued with ``fit(..., resume=history)`` is the run that never stopped: same weights,
same learning curve, same verdict — the "twice the budget" of the verdicts relies on it. And
Tabor's costly % correct is counted only where the learning curve records it."""

import pytest
import torch

from course_rnn.languages import Vocab
from course_rnn.languages.tabor import TaborGrammar1
from course_rnn.models import build_model
from course_rnn.models.flnn import FLNN
from course_rnn.training import (
    AnyOf,
    ExactDistributions,
    Plateau,
    ReduceOnPlateau,
    StepDecay,
    Target,
    fit,
)
from course_rnn.training.stream import StreamModelling

PERIODIC = ["ab" * n for n in range(1, 8)]
HELD_OUT = ["ab" * n for n in (8, 9)]
VOCAB = Vocab("ab")
NEVER = Target("train_loss", 0.0, mode="min")


def lstm(seed=0):
    return build_model("lstm", vocab_size=len(VOCAB), hidden_size=6, seed=seed)


def untimed(record):
    return {**vars(record), "final": {k: v for k, v in record.final.items() if k != "seconds"}}


def weights(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_a_resumed_run_is_the_run_that_never_stopped():
    common = dict(valid=HELD_OUT, batch_size=4, lr=0.05, seed=3, progress=False,
                  schedule=ReduceOnPlateau(patience=1), until=NEVER)
    whole_model = lstm()
    whole = fit(whole_model, VOCAB, PERIODIC, epochs=12, **common)
    first = fit(lstm(), VOCAB, PERIODIC, epochs=5, **common)
    resumed_model = lstm(seed=9)  # any instance: its weights are replaced
    resumed = fit(resumed_model, VOCAB, PERIODIC, epochs=12, resume=first, **common)
    assert_same_run(resumed, whole)
    assert_same_weights(resumed_model, whole_model)  # the best weights, restored in both
    # the first run's History is untouched and can be resumed again, to the same end
    assert len(first) < len(whole)
    again = fit(lstm(), VOCAB, PERIODIC, epochs=12, resume=first, **common)
    assert again["train_loss"] == whole["train_loss"]


def test_a_run_stopped_within_an_epoch_resumes_there():
    # 7 strings in batches of 4: 2 steps an epoch, evaluated every 3 steps; the first run
    # meets its target at an odd step, in the middle of an epoch
    common = dict(valid=HELD_OUT, batch_size=4, lr=0.05, seed=3, progress=False, eval_every=3)
    probe = fit(lstm(), VOCAB, PERIODIC, epochs=12, until=NEVER, **common)
    losses, steps = probe["valid_loss"], probe["step"]
    i = next(i for i in range(1, len(losses))
             if steps[i] % 2 and losses[i] < min(losses[:i]))
    target = Target("valid_loss", losses[i], mode="min")
    first = fit(lstm(), VOCAB, PERIODIC, epochs=12, until=target, **common)
    assert first.state.step == steps[i] and first.state.step % 2 == 1
    whole_model, resumed_model = lstm(), lstm()
    whole = fit(whole_model, VOCAB, PERIODIC, epochs=12, min_epochs=10, until=target, **common)
    resumed = fit(resumed_model, VOCAB, PERIODIC, epochs=12, min_epochs=10, until=target,
                  resume=first, **common)
    assert_same_run(resumed, whole)
    assert_same_weights(resumed_model, whole_model)


def assert_same_run(resumed, whole):
    for key in ("train_loss", "valid_loss", "lr", "step"):
        assert resumed[key] == whole[key], key
    assert untimed(resumed.convergence) == untimed(whole.convergence)
    assert resumed.best_epoch == whole.best_epoch


def assert_same_weights(a, b):
    for name, value in b.state_dict().items():
        assert torch.equal(a.state_dict()[name], value), name


def test_a_budget_in_steps_resumes_to_exactly_its_steps():
    # 7 strings in batches of 2: 4 steps an epoch; the first run stops at step 5, within an
    # epoch (evaluated there: its cap), and is continued to 11 steps, a schedule in steps with it
    common = dict(batch_size=2, lr=0.05, seed=3, progress=False,
                  schedule=StepDecay(every=3, factor=0.5, unit="step"))
    first = fit(lstm(), VOCAB, PERIODIC, steps=5, **common)
    resumed_model, whole_model = lstm(seed=9), lstm()
    resumed = fit(resumed_model, VOCAB, PERIODIC, steps=11, resume=first, **common)
    whole = fit(whole_model, VOCAB, PERIODIC, steps=11, **common)
    assert resumed.convergence.steps == whole.convergence.steps == 11
    assert resumed["step"] == [4, 5, 8, 11] and whole["step"] == [4, 8, 11]
    assert resumed["lr"] == [whole["lr"][0], *whole["lr"]]  # the rate each step trained with
    assert_same_weights(resumed_model, whole_model)


def test_min_epochs_on_a_resumed_run_goes_on_past_the_criterion():
    common = dict(batch_size=None, lr=0.05, seed=0, progress=False,
                  until=Plateau(patience=2, min_delta=0.5))
    first = fit(lstm(), VOCAB, PERIODIC, epochs=50, **common)
    assert first.converged
    n = int(first.convergence.epochs)
    twice = fit(lstm(), VOCAB, PERIODIC, epochs=50, min_epochs=2 * n, resume=first, **common)
    scratch = fit(lstm(), VOCAB, PERIODIC, epochs=50, min_epochs=2 * n, **common)
    assert twice.convergence.epochs == scratch.convergence.epochs >= 2 * n
    assert twice["train_loss"] == scratch["train_loss"]


@pytest.mark.parametrize("until, patience, minimum, cap", [
    (Plateau(patience=2), None, 6, 8),  # a run that spent its first cap: 2 evaluations past it
    (Plateau(patience=2), None, 2, 6),  # one that stopped early: twice the first cap
    (NEVER, None, 6, 6),  # a target is judged at every evaluation: no patience past the minimum
    (NEVER, 4, 6, 10),  # the stall rule's patience counts too
])
def test_a_continued_run_gets_twice_the_cap_and_the_patience_past_its_minimum(
        until, patience, minimum, cap):
    """fit sets a continuation's cap itself (no experiment raises it): twice the first run's,
    and at least the criterion's patience past the minimum, never the minimum alone — which
    would cut every run still improving there."""
    common = dict(batch_size=None, lr=0.05, seed=0, progress=False, until=until,
                  patience=patience)
    first = fit(lstm(), VOCAB, PERIODIC, epochs=3, **common)
    assert first.settings["epochs_cap"] == 3  # a first run keeps its cap
    again = fit(lstm(), VOCAB, PERIODIC, epochs=3, min_epochs=minimum, resume=first, **common)
    assert again.settings["epochs_cap"] == cap
    assert again.settings["min_epochs"] == minimum


def test_a_continued_run_in_steps_counts_the_patience_in_evaluations():
    """In steps, evaluated every 3: twice 10 steps, or 3 × 2 steps past the minimum of 5.5
    epochs of 4 steps (22 steps; 28 > 20)."""
    common = dict(batch_size=2, lr=0.05, seed=0, progress=False, eval_every=3,
                  until=Plateau(patience=2))
    first = fit(lstm(), VOCAB, PERIODIC, steps=10, **common)
    again = fit(lstm(), VOCAB, PERIODIC, steps=10, min_epochs=5.5, resume=first, **common)
    assert again.settings["steps_cap"] == 28


def test_resume_refuses_other_settings_and_histories_without_state():
    first = fit(lstm(), VOCAB, PERIODIC, epochs=2, lr=0.05, progress=False)
    with pytest.raises(ValueError, match=r"lr \(was 0.05, now 0.01\)"):
        fit(lstm(), VOCAB, PERIODIC, epochs=4, lr=0.01, resume=first, progress=False)
    with pytest.raises(ValueError, match="batch_size"):
        fit(lstm(), VOCAB, PERIODIC, epochs=4, lr=0.05, batch_size=2, resume=first,
            progress=False)
    first.state = None
    with pytest.raises(ValueError, match="no saved state"):
        fit(lstm(), VOCAB, PERIODIC, epochs=4, lr=0.05, resume=first, progress=False)
    with pytest.raises(TypeError, match="History"):
        fit(lstm(), VOCAB, PERIODIC, epochs=4, resume={"epochs": []}, progress=False)


def test_a_continuation_may_add_a_plateau_to_its_criterion_and_then_stops_stuck():
    """A continuation may widen its criterion to stop on a plateau (a run that stalls again is
    stuck): the target it never meets no longer keeps it training to its cap. Any other change
    of the criterion is refused."""
    common = dict(batch_size=None, lr=0.05, seed=0, progress=False)
    first = fit(lstm(), VOCAB, PERIODIC, epochs=20, until=NEVER, **common)
    assert first.convergence.stopped == "budget spent"
    stuck = AnyOf(NEVER, Plateau(patience=2, min_delta=0.5))
    again = fit(lstm(), VOCAB, PERIODIC, epochs=20, min_epochs=40, resume=first, until=stuck,
                **common)
    assert again.converged and again.convergence.ending == "stalled"
    assert 40 <= again.convergence.epochs < again.settings["epochs_cap"]
    with pytest.raises(ValueError, match="criterion"):
        fit(lstm(), VOCAB, PERIODIC, epochs=20, min_epochs=40, resume=first,
            until=Plateau(patience=2, min_delta=0.5), **common)
    with pytest.raises(ValueError, match="criterion"):  # a target added is not a plateau
        fit(lstm(), VOCAB, PERIODIC, epochs=20, min_epochs=40, resume=first,
            until=AnyOf(NEVER, Target("train_loss", 0.1, mode="min")), **common)


def test_a_stream_run_resumes_only_at_an_epoch_end():
    task = StreamModelling(VOCAB, chunk=4, eval_streams=2)
    stream = list("ab" * 40)
    common = dict(batch_size=2, lr=0.05, progress=False, eval_every=3, until=NEVER)
    first = fit(lstm(), task, stream, epochs=1, **common)
    assert first.state.step == 10  # 10 windows an epoch, evaluated at steps 3, 6, 9 and 10
    fit(lstm(), task, stream, epochs=2, resume=first, **common)  # at the epoch end: fine
    first.state.step = 6
    with pytest.raises(ValueError, match="only at the end of an epoch"):
        fit(lstm(), task, stream, epochs=2, resume=first, **common)


class CountingSpy(ExactDistributions):
    """Remembers, step by step, whether the loop asked for Tabor's % correct."""

    def __init__(self, *args):
        super().__init__(*args)
        self.asked = []

    def loss(self, model, batch, count=True):
        if model.training:
            self.asked.append(count)
        return super().loss(model, batch, count)


def test_tabor_percent_correct_is_counted_only_before_an_evaluation():
    grammar = TaborGrammar1()
    vocab = Vocab(grammar.alphabet)
    task = CountingSpy(grammar, vocab)
    corpus = grammar.training_corpus()
    model = FLNN(len(vocab), rbf_size=3, seed=0)
    history = fit(model, task, corpus, batch_size=None, clip=None, lr=0.05, epochs=10,
                  eval_every=4, until=NEVER, progress=False)
    assert task.asked == [False, False, False, True] * 2 + [False, True]  # evaluations: 4, 8, 10
    accuracy = history["train_accuracy"]
    assert len(accuracy) == 3 and all(0.0 <= a <= 1.0 for a in accuracy)
