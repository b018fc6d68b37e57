"""One training loop for every gradient-trained model of the course.

:func:`fit` is the loop a learner would write by hand (chapter 1 writes it out once)::

    for epoch in 1 … E:
        for batch in shuffled(train):
            loss = task.loss(model, batch)          # e.g. next-symbol cross-entropy
            optimizer.zero_grad(); loss.backward()
            clip_grad_norm_(parameters, clip)       # a cap on |g|, against exploding gradients
            optimizer.step()
        evaluate on train and valid; stop once the model has learned (the criterion) …

plus what makes its results trustworthy: it seeds everything, picks the device (CUDA when
present; ``device=`` or ``$COURSE_RNN_DEVICE`` override), records a learning curve, keeps the
weights with the best monitored figure, and stops on a **convergence criterion**
(:mod:`~course_rnn.training.convergence`) rather than after a fixed number of steps; the epoch
count is only a cap. Every run returns a :class:`History` whose ``convergence`` says whether the
criterion was met and why.

The module is longer than the course's ≈450 lines and kept whole on purpose: it is the one loop
(arguments checked, the epoch, evaluation, the stopping rule, resuming, the History it returns),
and reads top to bottom as the loop above does; the parts it calls on live beside it
(:mod:`.tasks`, :mod:`.optim`, :mod:`.convergence`, :mod:`.checkpoints`).
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..checks import check_callable, check_flag, check_positive, check_seed
from ..models.base import SequenceModel
from ..utils import pick_device, seed_everything
from .checkpoints import save_checkpoint
from .convergence import (
    AnyOf,
    Convergence,
    Optimum,
    Plateau,
    Target,
    check_criterion,
    status,
    watched,
)
from .optim import make_optimizer, make_schedule, parameter_groups, step_schedule
from .progress import EpochProgress
from .tasks import Task, task_for

#: The default criterion's patience (evaluations) when neither ``until`` nor ``patience`` is set.
DEFAULT_PATIENCE = 10


@dataclass
class History:
    """What happened during training.

    ``epochs``: one dict per evaluation (``epoch``, ``step``, ``train_loss``, ``valid_loss`` with
    a validation set, ``train_accuracy``/``valid_accuracy`` for tasks that count right answers,
    ``lr``, ``clipped`` (the share of steps whose gradient norm exceeded ``clip``),
    ``grad_norm`` (the largest gradient norm before clipping), each metric, ``seconds``) — the
    learning curve. ``steps``: one dict per recorded optimizer step (``step_metrics``).
    ``convergence``: whether the run learned (:class:`~course_rnn.training.Convergence`).
    ``settings``: how it was trained (optimizer, learning rate, criterion, …).
    ``state``: where training stopped (weights *before* the best ones were restored, optimizer,
    schedule, step, random state), so that ``fit(..., resume=history)`` can continue the run
    exactly; not part of :meth:`to_json`.
    """

    epochs: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    convergence: Convergence | None = None
    settings: dict = field(default_factory=dict)
    best_epoch: float | None = None
    state: ResumeState | None = field(default=None, repr=False)

    def __getitem__(self, key: str) -> list:
        return [e.get(key) for e in self.epochs]

    def __len__(self) -> int:
        return len(self.epochs)

    @property
    def last(self) -> dict:
        return self.epochs[-1] if self.epochs else {}

    @property
    def seconds(self) -> float:
        return sum(e["seconds"] for e in self.epochs)

    @property
    def stopped_early(self) -> bool:
        """True when training ended before its cap (criterion met, stalled or diverged)."""
        return self.convergence is not None and self.convergence.stopped != "budget spent"

    @property
    def converged(self) -> bool:
        return self.convergence is not None and self.convergence.converged

    def step_values(self, key: str) -> list:
        return [s.get(key) for s in self.steps]

    def to_json(self, max_points: int = 200) -> dict:
        """The convergence record, the settings and the learning curve (at most ``max_points``
        evaluations, evenly thinned, the last one always kept), as plain Python."""
        keep = _thin(len(self.epochs), max_points)
        keys = [k for k in dict.fromkeys(k for e in self.epochs for k in e)]
        curve = {k: [self.epochs[i].get(k) for i in keep] for k in keys}
        return {"convergence": self.convergence.to_json() if self.convergence else None,
                "settings": dict(self.settings), "curve": curve}


@dataclass
class ResumeState:
    """Everything :func:`fit` needs to go on from where a run stopped."""

    model: dict
    optimizer: dict
    scheduler: dict | None
    step: int
    best: tuple  # (value, epoch, weights or None) of the monitor's best evaluation so far
    rng: torch.Tensor

    @staticmethod
    def capture(model, opt, scheduler, step: int, best: _Best) -> ResumeState:
        return ResumeState(
            model=_copy_state(model.state_dict()), optimizer=copy.deepcopy(opt.state_dict()),
            scheduler=scheduler.state_dict() if scheduler is not None else None, step=step,
            best=(best.value, best.epoch, best.state), rng=torch.get_rng_state())


def _copy_state(state: Mapping[str, torch.Tensor]) -> dict:
    return {k: v.detach().clone() for k, v in state.items()}


#: Settings a continuation may change; every other one must be the first run's.
_RESUMABLE_CHANGES = {"epochs_cap", "min_epochs", "device"}


def _check_resume(resume, settings: dict) -> None:
    if not isinstance(resume, History):
        raise TypeError(f"resume= takes the History of an earlier run, got "
                        f"{type(resume).__name__}")
    if resume.state is None:
        raise ValueError("resume=: this History has no saved state to go on from (a run "
                         "trained by fit keeps one; a History read back from JSON does not)")
    changed = sorted(k for k in settings.keys() | resume.settings.keys()
                     if k not in _RESUMABLE_CHANGES
                     and settings.get(k) != resume.settings.get(k))
    if changed:
        raise ValueError("resume= continues a run with its own settings; these differ: " +
                         ", ".join(f"{k} (was {resume.settings.get(k)!r}, now "
                                   f"{settings.get(k)!r})" for k in changed))


def _thin(n: int, max_points: int) -> list[int]:
    if n <= max_points:
        return list(range(n))
    picks = {round(i * (n - 1) / (max_points - 1)) for i in range(max_points)}
    return sorted(picks)


# -- argument checks -------------------------------------------------------------------------------
def _check_arguments(epochs, min_epochs, batch_size, clip, patience, eval_every,
                     step_every) -> None:
    check_positive(epochs, "epochs")
    if isinstance(min_epochs, bool) or not isinstance(min_epochs, (int, float)) \
            or not 0 <= min_epochs < math.inf:
        raise ValueError(f"min_epochs must be a number >= 0, got {min_epochs!r}")
    for value, name in ((batch_size, "batch_size"), (patience, "patience"),
                        (eval_every, "eval_every")):
        if value is not None:  # None: the whole set in one batch, no stall rule, every epoch
            check_positive(value, name)
    check_positive(step_every, "step_every")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float))
                             or not 0 < clip < math.inf):
        raise ValueError(f"clip must be a positive number (finite) or None, got {clip!r}")


def _check_hooks(init, restore_best, seed, metrics, step_metrics, checkpoint, progress) -> None:
    """The arguments of fit that are functions, flags, a seed or a path (once per call)."""
    check_callable(init, "init", optional=True)
    check_flag(restore_best, "restore_best", optional=True)
    check_flag(progress, "progress", optional=True)
    check_seed(seed)
    for figures, what in ((metrics, "metrics"), (step_metrics, "step_metrics")):
        if figures is None:
            continue
        if not isinstance(figures, Mapping):
            raise TypeError(f"{what} must be a mapping {{name: f(model) -> float}}, got "
                            f"{type(figures).__name__}: {figures!r:.60}")
        for name, f in figures.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"{what}: every name must be a non-empty string, got {name!r}")
            check_callable(f, f"{what}[{name!r}]")
    if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
        raise TypeError(f"checkpoint must be a path (a str or a Path) or None, got "
                        f"{type(checkpoint).__name__}: {checkpoint!r}")


def _recorded_keys(task: Task, valid, metrics) -> set[str]:
    keys = {"train_loss", "lr"} | set(metrics or {})
    if valid is not None:
        keys.add("valid_loss")
    if task.counts_correct:
        keys.add("train_accuracy")
        if valid is not None:
            keys.add("valid_accuracy")
    return keys


# -- the loop --------------------------------------------------------------------------------------
def fit(
    model: torch.nn.Module,
    task: Task | object,
    train,
    *,
    valid=None,
    epochs: int = 10,
    min_epochs: int = 0,
    batch_size: int | None = 32,
    optimizer: str = "adam",
    lr: float = 1e-3,
    momentum: float = 0.0,
    weight_decay: float = 0.0,
    fused: bool = False,
    lr_factors: Mapping[str, float] | None = None,
    schedule=None,
    clip: float | None = 1.0,
    init: Callable[[torch.nn.Module], None] | None = None,
    until: Plateau | Target | Optimum | AnyOf | None = None,
    patience: int | None = None,
    restore_best: bool | None = None,
    eval_every: int | None = None,
    seed: int = 0,
    device: str | torch.device | None = None,
    metrics: Mapping[str, Callable[[torch.nn.Module], float]] | None = None,
    step_metrics: Mapping[str, Callable[[torch.nn.Module], float]] | None = None,
    step_every: int = 1,
    checkpoint: str | Path | None = None,
    progress: bool | None = None,
    resume: History | None = None,
) -> History:
    """Train ``model`` on ``task`` until it has learned; return its :class:`History`.

    Args:
        model: any model of the course (a sequence model, a ``SequenceClassifier``, a
            ``BengioMLP``, an FLNN).
        task: a :class:`~course_rnn.training.tasks.Task`, or a ``Vocab`` as shorthand for
            language modelling (or classification, for a ``SequenceClassifier``).
        train, valid: the task's data (strings, ``(string, label)`` pairs, n-gram tensors …).
        epochs: the cap: at most this many passes over ``train``.
        min_epochs: train at least this long even when the criterion is met earlier (used to
            continue a run to twice its budget); a fraction of an epoch counts its steps.
        batch_size: examples per step (``None``: the whole set, one step per epoch).
        optimizer, lr, momentum, weight_decay, fused: see :mod:`~course_rnn.training.optim`.
        lr_factors: per-parameter learning-rate multipliers by name prefix.
        schedule: ``"step"``, ``"cosine"``, ``"plateau"``, a schedule object, or None.
        clip: cap on the gradient norm (None: no clipping); what it clipped is recorded.
        init: called with the model once, after seeding, before the first step.
        until: the convergence criterion; default: a :class:`Plateau` of the monitor (the
            validation loss when ``valid`` is given, else the training loss) over ``patience``
            (default 10) evaluations. Training stops as soon as it is met.
        patience: stop when the monitor has not improved for this many evaluations, even if
            ``until`` is not met (the run then did *not* converge: it stalled).
        restore_best: put back the weights with the best monitor at the end (default: True
            with a validation set).
        eval_every: evaluate every this many optimizer steps (default: once per epoch).
        seed: seeds shuffling, dropout and ``init``.
        metrics: ``{name: f(model) -> float}``, recorded at every evaluation (eval mode).
        step_metrics, step_every: ``{name: f(model)}`` recorded before the first step and after
            every ``step_every``-th step, in ``history.steps``.
        checkpoint: save the final (or restored best) sequence model there.
        progress: a progress bar (default: on unless ``$COURSE_RNN_PROGRESS=0``).
        resume: the :class:`History` of an earlier run of this model with the same settings
            (only ``epochs``, ``min_epochs`` and ``device`` may change): training goes on from
            where that run stopped — its weights, optimizer, schedule and learning curve — as if
            it had never stopped (exactly, unless that run ended at a cap that is not a
            multiple of ``eval_every``: its extra evaluation then stepped the schedule). The
            verdicts' "twice the budget" uses it instead of training the first half again.
            ``model`` is any instance of the same architecture: its weights are replaced.
    """
    task = task_for(model, task)
    task.check_model(model)
    _check_arguments(epochs, min_epochs, batch_size, clip, patience, eval_every, step_every)
    _check_hooks(init, restore_best, seed, metrics, step_metrics, checkpoint, progress)
    if checkpoint is not None and not isinstance(model, SequenceModel):
        raise ValueError(f"checkpoint= saves sequence models only, not a {type(model).__name__}")
    monitor = "valid_loss" if valid is not None else "train_loss"
    criterion = check_criterion(until) if until is not None else Plateau(
        None, patience=patience or DEFAULT_PATIENCE)
    stall = Plateau(None, patience=patience, min_delta=1e-6) if patience else None
    keys = _recorded_keys(task, valid, metrics)
    for wanted in watched(criterion, monitor):
        if wanted not in keys:
            raise ValueError(f"the criterion watches {wanted!r}, which this run does not "
                             f"record: it records {', '.join(sorted(keys))}")
    if restore_best is None:
        restore_best = valid is not None

    device = pick_device(device)
    train_set = task.prepare(train, "train").to(device)
    valid_set = task.prepare(valid, "valid").to(device) if valid is not None else None

    seed_everything(seed)
    model.to(device)
    if init is not None and resume is None:
        init(model)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = make_optimizer(optimizer, parameter_groups(model, lr, lr_factors), lr, momentum,
                         weight_decay, fused)
    steps_per_epoch = math.ceil(len(train_set) / (batch_size or len(train_set)))
    eval_every = eval_every or steps_per_epoch
    max_steps, min_steps = epochs * steps_per_epoch, math.ceil(min_epochs * steps_per_epoch)
    evaluations = math.ceil(max_steps / eval_every)
    scheduler = make_schedule(schedule, opt, evaluations)

    settings = {
        "task": task.name, "optimizer": optimizer, "lr": lr, "momentum": momentum,
        "weight_decay": weight_decay, "fused": fused, "lr_factors": dict(lr_factors or {}),
        "schedule": repr(schedule) if schedule is not None else None, "clip": clip,
        "batch_size": batch_size, "epochs_cap": epochs, "min_epochs": min_epochs,
        "init": getattr(init, "__name__", repr(init)) if init is not None else None,
        "criterion": criterion.describe(monitor), "patience": patience, "seed": seed,
        "device": str(device), "train_items": len(train_set), "eval_every": eval_every,
    }
    history = History(settings=settings)
    best = _Best(model, monitor, keep_state=restore_best)
    step = 0
    if resume is not None:
        _check_resume(resume, settings)
        step = _restore(resume, model, opt, scheduler, best, device)
        history.epochs, history.steps = list(resume.epochs), list(resume.steps)
    bar = EpochProgress(evaluations, progress, epochs)
    round_ = _Round(device)
    stopped, reason = "budget spent", ""

    def record_step(epoch: int) -> None:
        was_training = model.training
        model.eval()
        with torch.no_grad():
            values = {name: float(f(model)) for name, f in step_metrics.items()}
        model.train(was_training)
        history.steps.append({"step": step, "epoch": epoch, **values})

    if step_metrics and resume is None:
        record_step(0)
    model.train()
    for epoch, batch in _shuffled_batches(task, train_set, batch_size, seed, step,
                                          steps_per_epoch):
        if step >= max_steps:  # a resumed run already past its cap
            break
        if task.counts_cheaply:
            loss, count, correct = task.loss(model, batch)
        else:  # count only where the learning curve records it: the step before an evaluation
            before_evaluation = (step + 1) % eval_every == 0 or step + 1 >= max_steps
            loss, count, correct = task.loss(model, batch, count=before_evaluation)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, clip or math.inf)
        opt.step()
        step += 1
        round_.add(loss, count, correct, norm, clip)
        if step_metrics and step % step_every == 0:
            record_step(epoch)
        if step % eval_every and step < max_steps:
            continue
        # -- an evaluation: the learning curve, the best weights, the criterion ------------
        record = round_.finish(step, steps_per_epoch, eval_every, opt, task.counts_correct)
        _evaluate(record, model, task, valid_set, metrics)
        round_.time(record)
        history.epochs.append(record)
        bar.update(record)
        model.train()
        if not math.isfinite(record["train_loss"]):
            stopped = "diverged"
            reason = f"training loss became {record['train_loss']} at step {step}"
            break
        best.update(record)
        step_schedule(scheduler, record[monitor])
        if step >= min_steps:
            met, reason = status(criterion, history, monitor)
            if met:
                stopped = "criterion met"
                break
            if stall is not None and stall.check(history[monitor], monitor)[0]:
                stopped = "stalled"
                reason = f"{monitor} did not improve for {patience} evaluations; {reason}"
                break
        if step >= max_steps:
            break
    bar.close()
    if stopped == "budget spent":
        reason = f"cap of {epochs} epochs reached; " + status(criterion, history, monitor)[1]
    history.state = ResumeState.capture(model, opt, scheduler, step, best)
    best.restore()
    history.best_epoch = best.epoch
    last = history.last
    history.convergence = Convergence(
        criterion=criterion.describe(monitor), converged=stopped == "criterion met",
        stopped=stopped, reason=reason, epochs=last.get("epoch", 0), steps=step,
        monitor=monitor, best_epoch=best.epoch, best=best.value,
        final={k: v for k, v in last.items() if isinstance(v, (int, float))})
    model.eval()
    if checkpoint is not None:
        save_checkpoint(model, task.vocab, checkpoint, history)
    return history


def _shuffled_batches(task: Task, data, batch_size: int | None, seed: int, start: int = 0,
                      steps_per_epoch: int = 1):
    """``(epoch, batch)`` for epochs 1, 2, …, each a fresh shuffle drawn from ``seed + epoch``;
    from step ``start`` on (a resumed run: the batches it would have had next)."""
    epoch, skip = divmod(start, steps_per_epoch)
    if skip and not task.resumes_within_epoch:
        raise ValueError(f"a {task.name} run can be resumed only at the end of an epoch, not at "
                         f"step {start} ({skip} of {steps_per_epoch} steps into epoch {epoch + 1})")
    while True:
        epoch += 1
        batches = task.batches(data, batch_size, shuffle=True, seed=seed + epoch)
        for batch in itertools.islice(batches, skip, None):
            yield epoch, batch
        skip = 0


def _restore(resume: History, model, opt, scheduler, best: _Best, device) -> int:
    """Put the state of the run ``resume`` ended with into ``model``, ``opt``, ``scheduler``
    and ``best``; return its step."""
    state = resume.state
    model.load_state_dict(state.model)
    opt.load_state_dict(copy.deepcopy(state.optimizer))  # a History can be resumed twice
    if scheduler is not None and state.scheduler is not None:
        scheduler.load_state_dict(state.scheduler)
    best.value, best.epoch, weights = state.best
    if best.keep_state and weights is not None:
        best.state = _copy_state(weights)
    torch.set_rng_state(state.rng)
    model.to(device)
    return state.step


class _Round:
    """Running sums between two evaluations, kept as tensors (no host sync per step)."""

    def __init__(self, device):
        self.device = device
        self.start = time.perf_counter()
        self.reset()

    def reset(self) -> None:
        zero = torch.zeros((), device=self.device)
        self.loss, self.count, self.right = zero.clone(), zero.clone(), zero.clone()
        self.counted = zero.clone()
        self.clipped, self.max_norm, self.steps = zero.clone(), zero.clone(), 0

    def add(self, loss, count, correct, norm, clip) -> None:
        self.loss += loss.detach() * count
        self.count += count
        if correct is not None:
            self.right += correct
            self.counted += count
        self.max_norm = torch.maximum(self.max_norm, norm.detach())
        if clip:
            self.clipped += norm.detach() > clip
        self.steps += 1

    def finish(self, step: int, steps_per_epoch: int, eval_every: int, opt,
               counts_correct: bool) -> dict:
        """This round's record (``epoch`` is fractional when evaluating within epochs)."""
        whole = eval_every == steps_per_epoch and step % steps_per_epoch == 0
        record = {"epoch": step // steps_per_epoch if whole else round(step / steps_per_epoch, 4),
                  "step": step, "train_loss": float(self.loss / self.count)}
        if counts_correct:
            record["train_accuracy"] = float(self.right / self.counted)
        record["lr"] = opt.param_groups[-1]["lr"]
        record["clipped"] = float(self.clipped) / self.steps
        record["grad_norm"] = float(self.max_norm)
        self.reset()
        return record

    def time(self, record: dict) -> None:
        """Stamp ``record`` with the seconds since the last evaluation (its own included)."""
        now = time.perf_counter()
        record["seconds"] = now - self.start
        self.start = now


def _evaluate(record: dict, model, task: Task, valid_set, metrics) -> None:
    """Add the validation figures and the metrics to ``record`` (the model in eval mode)."""
    if valid_set is not None:
        figures = task.evaluate(model, valid_set)
        record["valid_loss"] = figures["loss"]
        if "accuracy" in figures:
            record["valid_accuracy"] = figures["accuracy"]
    model.eval()
    for name, metric in (metrics or {}).items():
        with torch.no_grad():
            record[name] = float(metric(model))


class _Best:
    """The best value of the monitor so far, its epoch, and (optionally) those weights."""

    def __init__(self, model: torch.nn.Module, monitor: str, keep_state: bool):
        self.model, self.monitor, self.keep_state = model, monitor, keep_state
        self.value, self.epoch, self.state = None, None, None

    def update(self, record: dict) -> None:
        value = record[self.monitor]
        if self.value is None or value < self.value - 1e-12:
            self.value, self.epoch = value, record["epoch"]
            if self.keep_state:
                self.state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}

    def restore(self) -> None:
        if self.state is not None:
            self.model.load_state_dict(self.state)
