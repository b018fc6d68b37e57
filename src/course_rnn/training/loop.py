"""One training loop for every gradient-trained model of the course.

:func:`fit` is the loop a learner would write by hand (chapter 1 writes it out once)::

    for epoch in 1 … E:                             # or: for a budget of N steps
        for batch in shuffled(train):
            loss = task.loss(model, batch)          # e.g. next-symbol cross-entropy
            optimizer.zero_grad(); loss.backward()
            clip_grad_norm_(parameters, clip)       # a cap on |g|, against exploding gradients
            optimizer.step()
        evaluate on train and valid; stop once the model has learned (the criterion) …

plus what makes its results trustworthy: it seeds everything, picks the device (CUDA when
present; ``device=`` or ``$COURSE_RNN_DEVICE`` override), records a learning curve, keeps the
weights with the best monitored figure, and stops on a **convergence criterion**
(:mod:`~course_rnn.training.convergence`) rather than after a fixed number of steps; the budget
(``epochs=`` or ``steps=``) is only a cap. Every run returns a :class:`History` whose
``convergence`` says whether the criterion was met and why.

The module reads top to bottom: :func:`fit` first — its body is the loop above, and nothing
else — then what it calls, in the order it calls it: the preparation (``_prepare``: the
arguments checked, the criterion, the budget, the optimizer and schedule, resuming), the run in
progress (``_Run``: an evaluation, the end-of-run record), and the small parts they share. It is
longer than the course's ≈450 lines and kept whole on purpose, so that every line between
``fit(...)`` and the History it returns is in one file; the parts that are not the loop's live
beside it (:mod:`.history`, :mod:`.tasks`, :mod:`.optim`, :mod:`.convergence`). Saving the
trained model is not fit's job: :func:`~.checkpoints.save_checkpoint` after it.
"""
from __future__ import annotations

import inspect
import itertools
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, make_dataclass

import torch

from ..checks import (
    MAX_CLIP,
    MAX_COUNT,
    check_callable,
    check_flag,
    check_number,
    check_seed,
    check_training_count,
)
from ..utils import pick_device, seed_everything
from .convergence import (
    AnyOf,
    Convergence,
    Optimum,
    Plateau,
    Target,
    check_criterion,
    patience_of,
    status,
    stopped_short,
    watched,
)
from .history import History, ResumeState, check_resume, restore
from .optim import (
    check_optimizer,
    check_schedule,
    make_optimizer,
    make_schedule,
    parameter_groups,
    step_schedule,
)
from .progress import EpochProgress
from .tasks import Task, task_for

#: The default criterion's patience (evaluations) when neither ``until`` nor ``patience`` is set.
DEFAULT_PATIENCE = 10
#: The cap in epochs when neither ``epochs`` nor ``steps`` is given.
DEFAULT_EPOCHS = 10


# -- the loop --------------------------------------------------------------------------------------
def fit(
    model: torch.nn.Module,
    task: Task | object,
    train,
    *,
    valid=None,
    epochs: int | None = None,
    steps: int | None = None,
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
    progress: bool | None = None,
    resume: History | None = None,
) -> History:
    """Train ``model`` on ``task`` until it has learned; return its :class:`History`.

    The loop below, in words (preparation and the end-of-run record are functions of their
    own, ``_prepare`` and ``_Run.finish``; an evaluation is ``_Run.evaluate``)::

        check the arguments; data on the device; seed; init; optimizer, schedule; resume
        for epoch, batch in shuffled epochs, until the budget (epochs= or steps=) is spent:
            (a schedule in steps: set this step's learning rate)
            loss = task.loss(model, batch)
            optimizer.zero_grad(); loss.backward()
            clip the gradient to norm ``clip`` (None: leave it, and skip its norm)
            optimizer.step()
            every eval_every steps, and at the cap: record the learning curve, keep the best
                weights, step the schedule, stop once the criterion is met (or the run stalled,
                or diverged)
        put the best weights back; the Convergence record says whether and why it stopped

    Args:
        model: any model of the course (a sequence model, a ``SequenceClassifier``, a
            ``BengioMLP``, an FLNN).
        task: a :class:`~course_rnn.training.tasks.Task`, or a ``Vocab`` as shorthand for
            language modelling (or classification, for a ``SequenceClassifier``).
        train, valid: the task's data (strings, ``(string, label)`` pairs, n-gram tensors …).
        epochs: the cap: at most this many passes over ``train`` (default 10, unless ``steps``
            is given; not both).
        steps: the budget in optimizer steps instead: exactly this many steps, whatever the
            size of an epoch (the last epoch is cut where the budget ends), unless the run stops
            earlier — on ``until`` or ``patience`` when they are given, as a run in epochs does,
            or because it diverged. With ``until=None`` and no ``patience`` there is no default
            criterion: every step is trained, and the record says ``stopped="budget spent"``
            with no criterion judged (``converged`` is False). ``min_epochs`` still applies.
        min_epochs: train at least this long even when the criterion is met earlier; a fraction
            of an epoch counts its steps. A minimum marks the **continuation** of a run to twice
            its budget (with ``resume=`` that run, and ``epochs``/``steps`` its cap, as before):
            the cap becomes twice ``epochs`` (or ``steps``), and at least the criterion's
            patience past the minimum, so that a run still improving at its minimum can meet
            its criterion there rather than be cut off (``_Budget.of``).
        batch_size: examples per step (``None``: the whole set, one step per epoch).
        optimizer, lr, momentum, weight_decay, fused: see :mod:`~course_rnn.training.optim`.
        lr_factors: per-parameter learning-rate multipliers by name prefix.
        schedule: ``"step"``, ``"cosine"``, ``"plateau"``, a schedule object, or None; a
            ``StepDecay`` or ``Cosine`` with ``unit="step"`` counts optimizer steps (a cosine
            then anneals over the budget's steps), otherwise a schedule counts evaluations.
        clip: cap on the gradient norm (None: no clipping); what it clipped is recorded. With
            None the norm is computed only at the step before each evaluation (for the record),
            never at the other steps.
        init: called with the model once, after seeding, before the first step.
        until: the convergence criterion; default: a :class:`Plateau` of the monitor (the
            validation loss when ``valid`` is given, else the training loss) over ``patience``
            (default 10) evaluations — none with ``steps=`` (see there). Training stops as soon
            as it is met.
        patience: stop when the monitor has not improved for this many evaluations, even if
            ``until`` is not met (the run then did *not* converge: it stalled).
        restore_best: put back the weights with the best monitor at the end (default: True
            with a validation set).
        eval_every: evaluate every this many optimizer steps (default: once per epoch).
        seed: seeds shuffling, dropout and ``init``.
        metrics: ``{name: f(model) -> float}``, recorded at every evaluation (eval mode).
        step_metrics, step_every: ``{name: f(model)}`` recorded before the first step and after
            every ``step_every``-th step, in ``history.steps``.
        progress: a progress bar (default: on unless ``$COURSE_RNN_PROGRESS=0``).
        resume: the :class:`History` of an earlier run of this model with the same settings
            (only ``epochs``, ``steps``, ``min_epochs`` and ``device`` may change, and ``until``
            may add a :class:`Plateau`, ``AnyOf(first criterion, Plateau(…))``, so that a
            continuation that stalls again stops *stuck* rather than at its cap): training goes
            on from where that run stopped — its weights, optimizer, schedule and learning
            curve — as if it had never stopped (exactly, unless that run ended at a cap that is
            not a multiple of ``eval_every``: its extra evaluation then stepped a schedule in
            evaluations, and split a round of the learning curve in two).
            The verdicts' "twice the budget" uses it instead of training the first half again.
            ``model`` is any instance of the same architecture: its weights are replaced.
    """
    options = _options(locals())  # every keyword argument, as given
    task = task_for(model, task)
    run = _prepare(model, task, train, options)
    opt, scheduler, budget, params = run.opt, run.scheduler, run.budget, run.params
    step, stop = run.step, None  # 0, or the step the resumed run stopped at
    model.train()
    for epoch, batch in run.batches():
        if step >= budget.max_steps:  # a resumed run already past its cap
            break
        if run.schedule_counts_steps and step:
            scheduler.step()  # this step's learning rate (the first step's is the initial one)
        evaluating = budget.evaluates_after(step + 1)
        if task.counts_cheaply:
            loss, count, correct = task.loss(model, batch)
        else:  # count only where the learning curve records it: the step before an evaluation
            loss, count, correct = task.loss(model, batch, count=evaluating)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = _clip_gradient(params, clip, evaluating)
        opt.step()
        step += 1
        run.round.add(loss, count, correct, norm)
        if step_metrics and step % step_every == 0:
            run.record_step(step, epoch)
        if evaluating:
            stop = run.evaluate(step)  # the learning curve, the best weights, the criterion
            if stop is not None or step >= budget.max_steps:
                break
    return run.finish(step, stop)


def model_device(device, purpose: str = "train") -> torch.device:
    """The device a model goes to, for :func:`fit` (to ``train``) and
    :func:`~.checkpoints.load_checkpoint` (to hold a loaded model): the learners' one choice of
    it, :func:`~course_rnn.utils.pick_device`'s, and never ``meta``, whose tensors hold shapes,
    not numbers (a ValueError before any data moves there)."""
    device = pick_device(device)
    if device.type == "meta":
        raise ValueError(f"device {str(device)!r} holds shapes, not numbers, and cannot "
                         f"{purpose}: use 'cpu', 'cuda' or 'cuda:N'")
    return device


def _clip_gradient(params: list, clip: float | None, evaluating: bool) -> torch.Tensor | None:
    """Clip the gradient to norm ``clip`` and return its norm before clipping. With
    ``clip=None`` the gradient is left alone and its norm is computed only at the step before
    an evaluation, where the learning curve records it (None at the other steps: the norm was
    most of what fit cost per step beyond a bare loop)."""
    if clip is not None:
        return torch.nn.utils.clip_grad_norm_(params, clip)
    if evaluating:
        return torch.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None])
    return None


# -- preparation: the arguments, the criterion, the budget, the optimizer, resuming ------------
#: The keyword arguments of :func:`fit`, as given (its docstring says what each means): one
#: frozen record, made from fit's own signature so that the two cannot drift apart.
_Options = make_dataclass("_Options", [(p.name, p.annotation) for p in
                                       inspect.signature(fit).parameters.values()
                                       if p.kind is p.KEYWORD_ONLY], frozen=True)


def _options(given: Mapping) -> _Options:
    """fit's keyword arguments from its ``locals()``."""
    return _Options(**{f.name: given[f.name] for f in fields(_Options)})


def _check_arguments(o: _Options) -> None:
    """The numbers among fit's arguments, each within its range (``checks.MAX_COUNT``,
    ``MAX_LR`` …; once per call, before any work), and the optimizer and schedule named."""
    for value, name in ((o.epochs, "epochs"), (o.steps, "steps"), (o.batch_size, "batch_size"),
                        (o.patience, "patience"), (o.eval_every, "eval_every")):
        if value is not None:  # None: the default budget, the whole set, no stall rule, …
            check_training_count(value, name)
    if o.epochs is not None and o.steps is not None:
        raise ValueError(f"give the budget as epochs= or as steps=, not both (got "
                         f"epochs={o.epochs!r}, steps={o.steps!r})")
    check_number(o.min_epochs, "min_epochs", at_least=0, at_most=MAX_COUNT)
    check_training_count(o.step_every, "step_every")
    check_number(o.clip, "clip", above=0, at_most=MAX_CLIP, optional=True)
    check_optimizer(o.optimizer, o.lr, o.momentum, o.weight_decay, o.fused)
    check_schedule(o.schedule)


def _check_hooks(o: _Options) -> None:
    """The arguments of fit that are functions, flags or a seed (once per call)."""
    check_callable(o.init, "init", optional=True)
    check_flag(o.restore_best, "restore_best", optional=True)
    check_flag(o.progress, "progress", optional=True)
    check_seed(o.seed)
    for figures, what in ((o.metrics, "metrics"), (o.step_metrics, "step_metrics")):
        if figures is None:
            continue
        if not isinstance(figures, Mapping):
            raise TypeError(f"{what} must be a mapping {{name: f(model) -> float}}, got "
                            f"{type(figures).__name__}: {figures!r:.60}")
        for name, f in figures.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"{what}: every name must be a non-empty string, got {name!r}")
            check_callable(f, f"{what}[{name!r}]")


def _recorded_keys(task: Task, valid, metrics) -> set[str]:
    keys = {"train_loss", "lr"} | set(metrics or {})
    if valid is not None:
        keys.add("valid_loss")
    if task.counts_correct:
        keys.add("train_accuracy")
        if valid is not None:
            keys.add("valid_accuracy")
    return keys


class _NoCriterion:
    """``until=None`` with a budget in steps (and no ``patience``): every step of the budget is
    trained, and the record says that no criterion was judged."""

    metric = None

    def describe(self, monitor: str) -> str:
        return "none: the whole budget in steps"

    def check(self, curve, monitor: str) -> tuple[bool, str]:
        return False, "no criterion (until=None with steps=): the whole budget is trained"


def _criterion(task: Task, o: _Options) -> tuple[str, object, Plateau | None]:
    """``(monitor, criterion, stall rule)``: the figure whose best weights are kept (the
    validation loss, else the training loss); when the run has learned (``until``; by default a
    plateau of the monitor, or none with a budget in steps); the ``patience`` rule or None."""
    monitor = "valid_loss" if o.valid is not None else "train_loss"
    if o.until is not None:
        criterion = check_criterion(o.until)
    elif o.steps is not None and o.patience is None:
        criterion = _NoCriterion()
    else:
        criterion = Plateau(None, patience=o.patience or DEFAULT_PATIENCE)
    stall = Plateau(None, patience=o.patience, min_delta=1e-6) if o.patience else None
    keys = _recorded_keys(task, o.valid, o.metrics)
    for wanted in watched(criterion, monitor):
        if wanted not in keys:
            raise ValueError(f"the criterion watches {wanted!r}, which this run does not "
                             f"record: it records {', '.join(sorted(keys))}")
    return monitor, criterion, stall


@dataclass(frozen=True)
class _Budget:
    """How long a run trains, in optimizer steps: at most ``max_steps`` (``epochs`` or
    ``steps``), at least ``min_steps`` (``min_epochs``), evaluated every ``eval_every`` steps
    and at the cap."""

    steps_per_epoch: int
    eval_every: int
    max_steps: int
    min_steps: int
    in_steps: bool  # given as steps= (else as epochs=)

    @classmethod
    def of(cls, o: _Options, items: int, patience: int) -> _Budget:
        """The budget of ``items`` training items; ``patience``: the evaluations the criterion
        may need past a given point (:func:`~.convergence.patience_of`, or the stall rule's).

        A continuation (``min_epochs``) may train twice the cap, and at least ``patience``
        evaluations past its minimum: a cap equal to the minimum would cut every run still
        improving slowly there, calling it "ran out" where going on a little says fitted or
        stuck (measured: chapter 4's Ab-DRNN continued from 67 to 134 epochs improved until
        epoch 142; chapter 8's modular-arithmetic runs, continued to exactly twice their steps,
        all ran out)."""
        per_epoch = math.ceil(items / (o.batch_size or items))
        eval_every = o.eval_every or per_epoch
        if o.steps is not None:
            cap = int(o.steps)
            if o.min_epochs:  # a continuation: twice the cap, and the patience past the minimum
                cap = max(2 * cap, math.ceil(o.min_epochs * per_epoch) + patience * eval_every)
        else:
            epochs = DEFAULT_EPOCHS if o.epochs is None else int(o.epochs)
            if o.min_epochs:  # the same, in whole epochs
                epochs = max(2 * epochs, math.ceil(o.min_epochs)
                             + math.ceil(patience * eval_every / per_epoch))
            cap = epochs * per_epoch
        return cls(per_epoch, eval_every, cap, math.ceil(o.min_epochs * per_epoch),
                   o.steps is not None)

    @property
    def evaluations(self) -> int:
        return math.ceil(self.max_steps / self.eval_every)

    @property
    def epochs(self) -> float:
        """The cap in epochs (for the progress report)."""
        return self.max_steps // self.steps_per_epoch if not self.in_steps \
            else self.max_steps / self.steps_per_epoch

    def evaluates_after(self, step: int) -> bool:
        return step % self.eval_every == 0 or step >= self.max_steps

    def spent(self) -> str:
        return f"budget of {self.max_steps} steps spent" if self.in_steps \
            else f"cap of {self.epochs} epochs reached"


def _settings(o: _Options, task: Task, criterion, monitor: str, device, items: int,
              budget: _Budget) -> dict:
    """How the run was trained (``History.settings``; a continuation must share them)."""
    settings = {
        "task": task.name, "optimizer": o.optimizer, "lr": o.lr, "momentum": o.momentum,
        "weight_decay": o.weight_decay, "fused": o.fused, "lr_factors": dict(o.lr_factors or {}),
        "schedule": repr(o.schedule) if o.schedule is not None else None, "clip": o.clip,
        "batch_size": o.batch_size, "epochs_cap": None if budget.in_steps else budget.epochs,
    }
    if budget.in_steps:  # only then, so that a run in epochs records what it always did
        settings["steps_cap"] = budget.max_steps
    settings.update({
        "min_epochs": o.min_epochs,
        "init": getattr(o.init, "__name__", repr(o.init)) if o.init is not None else None,
        "criterion": criterion.describe(monitor), "patience": o.patience, "seed": o.seed,
        "device": str(device), "train_items": items, "eval_every": budget.eval_every,
    })
    return settings


def _prepare(model, task: Task, train, o: _Options) -> _Run:
    """Everything before the first step: the arguments checked, the criterion, the data on the
    device, seeding and ``init``, the optimizer and its schedule, and — with ``resume=`` — the
    state the earlier run stopped in."""
    task.check_model(model)
    _check_arguments(o)
    _check_hooks(o)
    monitor, criterion, stall = _criterion(task, o)
    device = model_device(o.device)
    train_set = task.prepare(train, "train").to(device)
    valid_set = task.prepare(o.valid, "valid").to(device) if o.valid is not None else None

    seed_everything(o.seed)
    model.to(device)
    if o.init is not None and o.resume is None:
        o.init(model)
    opt = make_optimizer(o.optimizer, parameter_groups(model, o.lr, o.lr_factors), o.lr,
                         o.momentum, o.weight_decay, o.fused)
    budget = _Budget.of(o, len(train_set), max(patience_of(criterion), o.patience or 0))
    scheduler, per_step = make_schedule(o.schedule, opt, budget.evaluations, budget.max_steps)
    settings = _settings(o, task, criterion, monitor, device, len(train_set), budget)
    history = History(settings=settings)
    restore_best = o.valid is not None if o.restore_best is None else o.restore_best
    best = _Best(model, monitor, keep_state=restore_best)
    step = 0
    if o.resume is not None:
        check_resume(o.resume, settings)
        step = restore(o.resume, model, opt, scheduler, best, device)
        history.epochs, history.steps = list(o.resume.epochs), list(o.resume.steps)
    run = _Run(model, task, o, train_set, valid_set, monitor, criterion, stall, budget, opt,
               scheduler, schedule_counts_steps=per_step, history=history, best=best,
               step=step, device=device)
    if o.step_metrics and o.resume is None:
        run.record_step(0, 0)
    return run


# -- the run in progress: evaluations and the end of the run ------------------------------------
@dataclass
class _Run:
    """One run of :func:`fit` in progress: what ``_prepare`` made, and what an evaluation and
    the end of the run need (the progress bar, the running sums of the current round)."""

    model: torch.nn.Module
    task: Task
    options: _Options
    train_set: object
    valid_set: object | None
    monitor: str  # the figure whose best weights are kept
    criterion: object  # when the run has learned (see _criterion)
    stall: Plateau | None  # the patience rule
    budget: _Budget
    opt: torch.optim.Optimizer
    scheduler: object | None
    schedule_counts_steps: bool  # stepped before every step, not at every evaluation
    history: History
    best: _Best
    step: int  # 0, or the step a resumed run stopped at
    device: torch.device

    def __post_init__(self):
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        budget = self.budget
        self.bar = EpochProgress(budget.evaluations, self.options.progress,
                                 budget.max_steps if budget.in_steps else budget.epochs,
                                 "step" if budget.in_steps else "epoch")
        self.round = _Round(self.device, self.options.clip)

    def batches(self):
        o = self.options
        return _shuffled_batches(self.task, self.train_set, o.batch_size, o.seed, self.step,
                                 self.budget.steps_per_epoch)

    def record_step(self, step: int, epoch: int) -> None:
        """The step metrics after ``step`` optimizer steps, in ``history.steps`` (eval mode)."""
        was_training = self.model.training
        self.model.eval()
        with torch.no_grad():
            values = {name: float(f(self.model))
                      for name, f in self.options.step_metrics.items()}
        self.model.train(was_training)
        self.history.steps.append({"step": step, "epoch": epoch, **values})

    def evaluate(self, step: int) -> tuple[str, str] | None:
        """One evaluation after ``step`` steps: the learning curve, the best weights, the
        schedule, the criterion; ``(stopped, reason)`` when the run stops here, else None."""
        record = self.round.finish(step, self.budget, self.opt, self.task.counts_correct)
        _evaluate(record, self.model, self.task, self.valid_set, self.options.metrics)
        self.round.time(record)
        self.history.epochs.append(record)
        self.bar.update(record, step if self.budget.in_steps else None)
        self.model.train()
        if not math.isfinite(record["train_loss"]):
            return "diverged", f"training loss became {record['train_loss']} at step {step}"
        self.best.update(record)
        if not self.schedule_counts_steps:
            step_schedule(self.scheduler, record[self.monitor])
        if step < self.budget.min_steps:
            return None
        met, reason = status(self.criterion, self.history, self.monitor)
        if met:
            return "criterion met", reason
        if self.stall is not None and self.stall.check(self.history[self.monitor],
                                                       self.monitor)[0]:
            return "stalled", (f"{self.monitor} did not improve for {self.options.patience} "
                               f"evaluations; {reason}")
        return None

    def finish(self, step: int, stop: tuple[str, str] | None) -> History:
        """The end of the run: the state to resume from, the best weights put back, the
        :class:`Convergence` record; the run's :class:`History`."""
        self.bar.close()
        history, best = self.history, self.best
        stopped, reason = stop or ("budget spent", f"{self.budget.spent()}; " + status(
            self.criterion, history, self.monitor)[1])
        history.state = ResumeState.capture(self.model, self.opt, self.scheduler, step, best)
        best.restore()
        history.best_epoch = best.epoch
        last = history.last
        met = stopped == "criterion met"
        history.convergence = Convergence(
            criterion=self.criterion.describe(self.monitor), converged=met,
            stopped=stopped, reason=reason, epochs=last.get("epoch", 0), steps=step,
            monitor=self.monitor, best_epoch=best.epoch, best=best.value,
            final={k: v for k, v in last.items() if isinstance(v, (int, float))},
            short_of_target=met and stopped_short(self.criterion, history, self.monitor))
        self.model.eval()
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


class _Round:
    """Running sums between two evaluations, kept as tensors (no host sync per step)."""

    def __init__(self, device, clip: float | None):
        self.device, self.clip = device, clip
        self.start = time.perf_counter()
        self.reset()

    def reset(self) -> None:
        zero = torch.zeros((), device=self.device)
        self.loss, self.count, self.right = zero.clone(), zero.clone(), zero.clone()
        self.counted = zero.clone()
        self.clipped, self.max_norm, self.steps = zero.clone(), zero.clone(), 0

    def add(self, loss, count, correct, norm: torch.Tensor | None) -> None:
        """One step's figures; ``norm``: the gradient norm before clipping, None where it was
        not computed (``clip=None``, a step that is not the last of its round)."""
        self.loss += loss.detach() * count
        self.count += count
        if correct is not None:
            self.right += correct
            self.counted += count
        if norm is not None:
            self.max_norm = torch.maximum(self.max_norm, norm.detach())
            if self.clip:
                self.clipped += norm.detach() > self.clip
        self.steps += 1

    def finish(self, step: int, budget: _Budget, opt, counts_correct: bool) -> dict:
        """This round's record (``epoch`` is fractional when evaluating within epochs, or at a
        budget in steps that ends within an epoch)."""
        per_epoch = budget.steps_per_epoch
        whole = budget.eval_every == per_epoch and step % per_epoch == 0
        record = {"epoch": step // per_epoch if whole else round(step / per_epoch, 4),
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
