"""The one training loop: it learns, it is reproducible, it stops on its criterion and says why,
early stopping restores the best weights, schedules and optimizers do what they say, and bad
arguments are named before any work."""

import math

import pytest
import torch

from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.training import (
    AnyOf,
    Cosine,
    Optimum,
    Plateau,
    ReduceOnPlateau,
    StepDecay,
    Target,
    evaluate_loss,
    fit,
    load_checkpoint,
    normal_embeddings,
    perplexity,
    save_checkpoint,
)

PERIODIC = ["ab" * n for n in range(1, 8)]
VOCAB = Vocab("ab")


def small_lstm(seed=0, hidden=8, **options):
    return build_model("lstm", vocab_size=len(VOCAB), hidden_size=hidden, seed=seed, **options)


def test_fit_lowers_the_loss_and_keeps_a_learning_curve():
    model = small_lstm()
    before = evaluate_loss(model, VOCAB, PERIODIC)
    history = fit(model, VOCAB, PERIODIC, epochs=25, batch_size=4, lr=0.05, progress=False,
                  until=Target("train_loss", 0.0, mode="min"))
    after = evaluate_loss(model, VOCAB, PERIODIC)
    assert len(history) == 25 and history["epoch"] == list(range(1, 26))
    assert history["step"][-1] == 25 * 2  # 7 strings in batches of 4
    assert after < 0.5 * before
    # a periodic language with a known length distribution: perplexity close to 1 at the
    # deterministic positions, so well below the 5 symbols of the vocabulary
    assert perplexity(model, VOCAB, PERIODIC) < 2.0
    record = history.convergence
    assert not record.converged and record.stopped == "budget spent"
    assert "cap of 25 epochs" in record.reason and record.epochs == 25 and record.steps == 50
    assert record.final["train_loss"] == history.last["train_loss"]


def test_same_seed_same_numbers():
    runs = [fit(small_lstm(seed=1), VOCAB, PERIODIC, epochs=3, batch_size=3, seed=5,
                progress=False)["train_loss"] for _ in range(2)]
    assert runs[0] == runs[1]


def test_metrics_are_recorded_at_every_evaluation():
    calls = []
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=2, progress=False,
                  metrics={"calls": lambda m: calls.append(1) or len(calls)})
    assert history["calls"] == [1.0, 2.0]


def test_stops_once_the_criterion_is_met_and_says_so():
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=200, batch_size=4, lr=0.05,
                  until=Target("train_loss", 0.5, mode="min"), progress=False)
    record = history.convergence
    assert record.converged and record.stopped == "criterion met"
    assert history.last["train_loss"] <= 0.5 < history["train_loss"][0]
    assert all(v > 0.5 for v in history["train_loss"][:-1])  # it stopped at the first epoch
    assert len(history) < 200 and "train_loss ≤ 0.5" in record.criterion


def test_optimum_criterion_compares_with_the_exact_optimum():
    from course_rnn.metrics import optimal_loss

    optimum = optimal_loss(PERIODIC)
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=300, batch_size=7, lr=0.05,
                  until=Optimum(optimum, tolerance=0.02), progress=False)
    assert history.converged
    assert history.last["train_loss"] - optimum <= 0.02
    assert "optimum" in history.convergence.reason


def test_early_stopping_restores_the_best_weights():
    model = small_lstm()
    # a huge learning rate makes validation loss bounce, so patience 1 stops early
    history = fit(model, VOCAB, PERIODIC, valid=["ba", "bb"], epochs=30, lr=0.5, patience=1,
                  progress=False)
    assert history.stopped_early and len(history) < 30
    best = min(history["valid_loss"])
    assert evaluate_loss(model, VOCAB, ["ba", "bb"]) == pytest.approx(best, rel=1e-5)
    assert history.convergence.best == pytest.approx(best)
    assert history.best_epoch == history["epoch"][history["valid_loss"].index(best)]


def test_a_stall_before_the_criterion_is_not_convergence():
    # a target no model reaches on this data: the run stalls and must say it did not converge
    history = fit(small_lstm(), VOCAB, PERIODIC, valid=["abab"], epochs=200, lr=0.5,
                  patience=3, until=Target("valid_loss", 1e-9, mode="min"), progress=False)
    record = history.convergence
    assert record.stopped == "stalled" and not record.converged
    assert "did not improve for 3 evaluations" in record.reason


def test_any_of_stops_at_the_first_criterion_met():
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=200, batch_size=4, lr=0.05,
                  until=AnyOf(Target("train_loss", 1e-9, mode="min"),
                              Target("train_loss", 0.5, mode="min")), progress=False)
    assert history.converged and history.last["train_loss"] <= 0.5
    assert "train_loss ≤ 1e-09, or train_loss ≤ 0.5" == history.convergence.criterion


def test_min_epochs_continues_past_the_criterion():
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=50, min_epochs=12, batch_size=4,
                  lr=0.05, until=Target("train_loss", 10.0, mode="min"), progress=False)
    assert len(history) == 12 and history.converged  # met at once, stopped at 12, not 1


def test_a_fraction_of_an_epoch_is_counted_in_steps():
    # 28 strings in batches of 2: 14 steps an epoch; 0.5 epoch is 7 steps, evaluated every 3
    history = fit(small_lstm(), VOCAB, PERIODIC * 4, epochs=3, min_epochs=0.5, batch_size=2,
                  eval_every=3, until=Target("train_loss", 10.0, mode="min"), progress=False)
    assert history["step"] == [3, 6, 9] and history.converged


def test_evaluations_within_epochs():
    history = fit(small_lstm(), VOCAB, PERIODIC * 4, epochs=2, batch_size=2, eval_every=5,
                  progress=False)
    # 28 strings in batches of 2: 14 steps an epoch, 28 in all; the cap is always evaluated
    assert history["step"] == [5, 10, 15, 20, 25, 28]
    assert history["epoch"] == pytest.approx([s / 14 for s in (5, 10, 15, 20, 25, 28)], abs=1e-4)


def test_clipping_is_recorded():
    clipped = fit(small_lstm(), VOCAB, PERIODIC, epochs=3, lr=0.05, clip=1e-6, progress=False)
    assert clipped["clipped"] == [1.0, 1.0, 1.0]  # every step's norm exceeded a tiny cap
    assert all(n > 1e-6 for n in clipped["grad_norm"])
    free = fit(small_lstm(), VOCAB, PERIODIC, epochs=3, lr=0.05, clip=None, progress=False)
    assert free["clipped"] == [0.0, 0.0, 0.0] and all(n > 0 for n in free["grad_norm"])


def test_a_diverging_run_stops_and_says_so():
    model = small_lstm()
    with torch.no_grad():
        model.readout.weight.fill_(float("nan"))
    history = fit(model, VOCAB, PERIODIC, epochs=5, progress=False)
    assert history.convergence.stopped == "diverged" and not history.converged
    assert len(history) == 1


@pytest.mark.parametrize("schedule,expected", [
    (StepDecay(every=2, factor=0.5), [0.1, 0.05, 0.05, 0.025, 0.025]),
    ("step", [0.1] * 5),  # the default decays every 10 evaluations
    (Cosine(min_lr=0.0), [0.1 * (1 + math.cos(math.pi * e / 5)) / 2 for e in range(1, 6)]),
])
def test_schedules_set_the_learning_rate(schedule, expected):
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=5, lr=0.1, schedule=schedule,
                  until=Target("train_loss", 0.0, mode="min"), progress=False)
    # the record holds the rate the epoch was trained with, before the schedule's step
    trained_with = [0.1, *[e for e in expected[:-1]]]
    assert history["lr"] == pytest.approx(trained_with)


def test_reduce_on_plateau_lowers_the_rate_when_the_monitor_stalls():
    # lr 5 makes the loss jump around, so the monitor stops improving and the rate is cut
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=30, lr=5.0, optimizer="sgd",
                  schedule=ReduceOnPlateau(factor=0.5, patience=1), clip=None,
                  until=Target("train_loss", 0.0, mode="min"), progress=False)
    rates = history["lr"]
    assert rates[0] == 5.0 and min(rates) < 5.0
    assert all(b <= a for a, b in zip(rates, rates[1:]))


def test_sgd_momentum_and_weight_decay_change_the_run():
    def run(**options):
        return fit(small_lstm(), VOCAB, PERIODIC, epochs=3, lr=0.1, optimizer="sgd",
                   progress=False, **options)["train_loss"]

    plain, momentum, decay = run(), run(momentum=0.9), run(weight_decay=0.1)
    assert plain != momentum and plain != decay
    assert fit(small_lstm(), VOCAB, PERIODIC, epochs=1, optimizer="rmsprop",
               progress=False).settings["optimizer"] == "rmsprop"


def test_weight_decay_shrinks_the_weights():
    def norm(**options):
        model = small_lstm()
        fit(model, VOCAB, PERIODIC, epochs=20, lr=0.05, optimizer="sgd", progress=False,
            until=Target("train_loss", 0.0, mode="min"), **options)
        return sum(float(p.detach().norm() ** 2) for p in model.parameters())

    assert norm(weight_decay=0.5) < norm()


def test_the_init_hook_runs_after_seeding():
    def first_embedding(seed):
        model = small_lstm(embedding_dim=4)
        fit(model, VOCAB, PERIODIC, epochs=1, lr=1e-12, seed=seed,
            init=normal_embeddings(std=0.01), progress=False)
        return model.input_layer.embedding.weight.detach().clone()

    table = first_embedding(3)
    assert table.std() < 0.05  # N(0, 0.01²), not PyTorch's N(0, 1)
    assert torch.equal(table, first_embedding(3)) and not torch.equal(table, first_embedding(4))
    with pytest.raises(ValueError, match="no nn.Embedding"):
        normal_embeddings(0.01)(torch.nn.Linear(2, 2))


def test_lr_factors_slow_down_named_parameters():
    model = small_lstm(embedding_dim=4)
    start = {n: p.detach().clone() for n, p in model.named_parameters()}
    fit(model, VOCAB, PERIODIC, epochs=2, lr=0.05, lr_factors={"input_layer": 1e-9},
        progress=False)
    moved = {n: float((p.detach().cpu() - start[n]).abs().max())  # fit leaves it on the device
             for n, p in model.named_parameters()}
    assert moved["input_layer.embedding.weight"] < 1e-8 < moved["readout.weight"]
    with pytest.raises(ValueError, match="no parameter .* named 'gate'"):
        fit(small_lstm(), VOCAB, PERIODIC, lr_factors={"gate": 0.1}, progress=False)


def test_a_budget_in_steps_trains_exactly_that_many_steps():
    # 7 strings in batches of 2: 4 steps an epoch, so 7 steps end within the second epoch;
    # step_metrics are recorded before the first step and after every step: one per step
    history = fit(small_lstm(), VOCAB, PERIODIC, steps=7, batch_size=2, progress=False,
                  step_metrics={"one": lambda m: 1.0})
    assert history["step"] == [4, 7] and history["epoch"] == [1, 1.75]
    assert history.step_values("step") == list(range(8))
    record = history.convergence
    assert record.steps == 7 and record.stopped == "budget spent" and not record.converged
    assert record.criterion == "none: the whole budget in steps"
    assert "budget of 7 steps spent" in record.reason
    assert history.settings["steps_cap"] == 7 and history.settings["epochs_cap"] is None
    # evaluated every 3 steps, and at the cap
    assert fit(small_lstm(), VOCAB, PERIODIC, steps=7, batch_size=2, eval_every=3,
               progress=False)["step"] == [3, 6, 7]
    # a budget of many epochs that do not divide it: exactly that many steps all the same
    long = fit(small_lstm(hidden=3), VOCAB, PERIODIC, steps=203, batch_size=2, eval_every=50,
               progress=False)
    assert long.convergence.steps == 203 and long["step"] == [50, 100, 150, 200, 203]
    # a run in epochs records what it always did: its cap, and no steps_cap
    assert "steps_cap" not in fit(small_lstm(), VOCAB, PERIODIC, epochs=1,
                                  progress=False).settings


def test_a_budget_in_steps_still_stops_on_its_criterion_or_patience():
    met = fit(small_lstm(), VOCAB, PERIODIC, steps=400, batch_size=4, lr=0.05,
              until=Target("train_loss", 0.5, mode="min"), progress=False)
    assert met.converged and met.convergence.steps < 400
    stalled = fit(small_lstm(), VOCAB, PERIODIC, valid=["abab"], steps=400, lr=0.5,
                  patience=3, until=Target("valid_loss", 1e-9, mode="min"), progress=False)
    assert stalled.convergence.stopped == "stalled" and stalled.convergence.steps < 400


@pytest.mark.parametrize("schedule,expected", [
    (StepDecay(every=2, factor=0.5, unit="step"), [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]),
    (Cosine(min_lr=0.0, unit="step"), [0.1 * (1 + math.cos(math.pi * s / 6)) / 2
                                       for s in range(6)]),
])
def test_schedules_can_count_steps(schedule, expected):
    # 7 strings in batches of 3: 3 steps an epoch, 2 epochs; one evaluation per epoch records
    # the rate of the epoch's last step; a cosine in steps anneals over the 6 steps
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=2, batch_size=3, lr=0.1,
                  schedule=schedule, until=Target("train_loss", 0.0, mode="min"),
                  progress=False)
    assert history["lr"] == pytest.approx([expected[2], expected[5]])
    every_step = fit(small_lstm(), VOCAB, PERIODIC, steps=6, batch_size=3, lr=0.1,
                     eval_every=1, schedule=schedule, progress=False)
    assert every_step["lr"] == pytest.approx(expected)  # the rate each step was trained with


def test_a_schedule_in_evaluations_is_recorded_as_before():
    assert repr(StepDecay(every=2, factor=0.5)) == "StepDecay(every=2, factor=0.5)"
    assert repr(Cosine(unit="step")) == "Cosine(min_lr=0.0, unit='step')"


def test_clip_none_computes_no_gradient_norm_between_evaluations(monkeypatch):
    calls = {"clip": 0, "norm": 0}
    clip_grad_norm, total_norm = torch.nn.utils.clip_grad_norm_, torch.nn.utils.get_total_norm

    def counted(name, f):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return f(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", counted("clip", clip_grad_norm))
    monkeypatch.setattr(torch.nn.utils, "get_total_norm", counted("norm", total_norm))
    # 28 strings in batches of 2: 14 steps an epoch, evaluated every 5 steps and at 28
    common = dict(epochs=2, batch_size=2, eval_every=5, lr=0.05, progress=False)
    free_model = small_lstm()
    free = fit(free_model, VOCAB, PERIODIC * 4, clip=None, **common)
    assert calls == {"clip": 0, "norm": 6}  # once per evaluation, none between them
    assert free["clipped"] == [0.0] * 6 and all(n > 0 for n in free["grad_norm"])
    # leaving the gradient alone moves the weights exactly as a cap it never reaches does
    capped_model = small_lstm()
    fit(capped_model, VOCAB, PERIODIC * 4, clip=1e6, **common)  # the widest cap
    assert calls["clip"] == 28  # with a cap, the norm is needed at every step
    for name, value in capped_model.state_dict().items():
        assert torch.equal(free_model.state_dict()[name], value), name


@pytest.mark.parametrize("options,message", [
    ({"steps": 0}, "steps must be a positive integer ≤ 100,000,000, got 0"),
    ({"steps": -5}, "steps must be a positive integer ≤ 100,000,000, got -5"),
    ({"steps": 2.5}, "steps must be a positive integer ≤ 100,000,000, got 2.5"),
    ({"steps": "100"}, "steps must be a positive integer ≤ 100,000,000, got '100'"),
    ({"steps": True}, "steps must be a positive integer ≤ 100,000,000, got True"),
    ({"steps": 100, "epochs": 3}, "epochs= or as steps=, not both"),
    ({"schedule": StepDecay(unit="steps")}, "StepDecay.unit must be 'evaluation' or 'step'"),
    ({"schedule": Cosine(unit=1)}, "Cosine.unit must be 'evaluation' or 'step'"),
    ({"optimizer": "magic"}, "unknown optimizer 'magic'"),
    ({"schedule": "sometimes"}, "unknown schedule 'sometimes'"),
    ({"lr": 0}, "lr must be a finite number > 0 and ≤ 100, got 0"),
    ({"lr": -1e-3}, "lr must be a finite number > 0"),
    ({"patience": -2}, "patience must be a positive integer"),
    ({"patience": 0}, "patience must be a positive integer"),
    ({"epochs": 0}, "epochs must be a positive integer"),
    ({"epochs": 2.5}, "epochs must be a positive integer"),
    ({"min_epochs": -1}, "min_epochs must be a finite number ≥ 0"),
    ({"min_epochs": float("nan")}, "min_epochs must be a finite number ≥ 0"),
    ({"batch_size": 0}, "batch_size must be a positive integer"),
    ({"clip": 0}, "clip must be a finite number > 0"),
    ({"eval_every": 0}, "eval_every must be a positive integer"),
    ({"momentum": 1.5, "optimizer": "sgd"}, "momentum must be a finite number ≥ 0 and ≤ 1"),
    ({"momentum": 0.9}, "momentum is for 'sgd' and 'rmsprop'"),
    ({"weight_decay": -0.1}, "weight_decay must be a finite number ≥ 0"),
    ({"fused": True, "optimizer": "rmsprop"}, "fused kernel for adam and sgd, not for 'rmsprop'"),
    ({"fused": "yes"}, "fused must be True or False"),
    ({"schedule": StepDecay(every=0)}, "StepDecay.every"),
    ({"schedule": StepDecay(factor=2.0)}, "StepDecay.factor"),
    ({"until": Target("valid_accuracy", 0.9)}, "watches 'valid_accuracy'.*records"),
    ({"until": "plateau"}, "until= takes a Plateau, Target, Optimum or AnyOf"),
    ({"until": AnyOf(Target("train_loss", 0.1, "min"), Target("valid_accuracy", 0.9))},
     "watches 'valid_accuracy'"),
])
def test_bad_arguments_are_named_before_any_work(options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        fit(small_lstm(), VOCAB, PERIODIC, progress=False, **options)


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_fused_optimizer_is_the_same_algorithm(optimizer):
    """The fused kernel moves the weights as the plain one does, up to rounding, and is recorded."""
    runs = {}
    for fused in (False, True):
        model = small_lstm()
        history = fit(model, VOCAB, PERIODIC, epochs=3, optimizer=optimizer, lr=0.01,
                      fused=fused, until=Target("train_loss", 0.0, "min"), progress=False)
        runs[fused] = (torch.cat([p.detach().flatten() for p in model.parameters()]), history)
    (plain, plain_history), (fused, fused_history) = runs[False], runs[True]
    start = torch.cat([p.detach().flatten() for p in small_lstm().parameters()])
    assert not torch.allclose(plain, start.to(plain.device)), "the weights moved"  # a GPU too
    torch.testing.assert_close(fused, plain, rtol=1e-4, atol=1e-5)
    assert fused_history.settings["fused"] and not plain_history.settings["fused"]


def test_bad_data_and_models_are_named():
    with pytest.raises(ValueError, match="empty"):
        fit(small_lstm(), VOCAB, [], progress=False)
    with pytest.raises(ValueError, match="'x'"):
        fit(small_lstm(), VOCAB, ["axb"], progress=False)
    with pytest.raises(ValueError, match="'x'"):
        fit(small_lstm(), VOCAB, ["ab"], valid=["x"], progress=False)
    with pytest.raises(ValueError, match="vocab_size"):
        fit(small_lstm(), Vocab("abc"), ["ab"], progress=False)
    with pytest.raises(TypeError, match="SequenceModel"):
        fit(torch.nn.Linear(2, 2), VOCAB, ["ab"], progress=False)
    with pytest.raises(TypeError, match="a Task or a Vocab"):
        fit(small_lstm(), "ab", ["ab"], progress=False)


def test_criteria_reject_bad_numbers():
    for make, message in [(lambda: Plateau(patience=-1), "patience"),
                          (lambda: Plateau(min_delta=-0.1), "min_delta"),
                          (lambda: Plateau(mode="up"), "mode"),
                          (lambda: Target("", 1.0), "metric"),
                          (lambda: Optimum(0.1, tolerance=0), "tolerance"),
                          (lambda: Optimum(float("nan")), "optimum")]:
        with pytest.raises(ValueError, match=message):
            make()


def test_history_to_json_thins_the_curve_and_keeps_the_record():
    history = fit(small_lstm(), VOCAB, PERIODIC, epochs=30, batch_size=7, progress=False,
                  until=Target("train_loss", 0.0, mode="min"))
    saved = history.to_json(max_points=10)
    assert len(saved["curve"]["epoch"]) == 10
    assert saved["curve"]["epoch"][0] == 1 and saved["curve"]["epoch"][-1] == 30
    assert saved["convergence"]["converged"] is False and saved["settings"]["lr"] == 1e-3


def test_checkpoint_round_trip(tmp_path):
    model = small_lstm()
    history = fit(model, VOCAB, PERIODIC, epochs=2, progress=False)
    path = save_checkpoint(model, VOCAB, tmp_path / "lstm.pt", history)
    loaded, loaded_vocab = load_checkpoint(path, device="cpu")
    assert loaded_vocab.alphabet == VOCAB.alphabet
    x = torch.tensor([[1, 3, 4, 3]])
    assert torch.allclose(loaded(x), model.cpu()(x))
    # plain tensors and Python types only: loads with weights_only=True
    torch.load(path, weights_only=True)
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="is a folder"):
        save_checkpoint(model, VOCAB, tmp_path)


def test_unknown_model_kind_lists_the_choices():
    with pytest.raises(ValueError, match="lstm"):
        build_model("transformer", vocab_size=3)
