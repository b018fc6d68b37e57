"""How the weights move: optimizers by name, learning-rate schedules, and initialisation hooks.

Optimizers (``optimizer=`` of :func:`~course_rnn.training.fit`)::

    "sgd"      w ← w − η (g + λ w)                   with momentum μ: v ← μ v + g, w ← w − η v
    "adam"     Kingma & Ba (2015): per-weight steps scaled by running moments of g
    "rmsprop"  per-weight steps scaled by a running mean of g²

``weight_decay`` λ adds λ w to every gradient (an L2 penalty ½ λ |w|², as Bengio et al. 2003 used).
``fused=True`` runs Adam or SGD as PyTorch's fused kernel: one pass over each weight tensor instead
of one per arithmetic step, about 4× faster an update on a CPU (it matters when the update is a
large share of a step, e.g. the Bengio MLP's 7,000-word output table). Same algorithm; the
rounding of the last bits differs, so a run repeats exactly only with the same setting.

Schedules change the learning rate η once per evaluation (an epoch, unless ``eval_every`` says
otherwise), or, with ``unit="step"``, before every optimizer step (e counts steps, E is the
budget in steps: nanoGPT's ``get_lr(iter)``)::

    StepDecay(every=k, factor=γ)     η_e = η₀ γ^⌊e/k⌋
    Cosine(min_lr=η_min)             η_e = η_min + ½ (η₀ − η_min)(1 + cos(π e / E))     E: the cap
    ReduceOnPlateau(factor, patience) η ← γ η when the monitor has not improved for ``patience``

(``ReduceOnPlateau`` reads the monitor, so it counts evaluations only.)

Initialisation hooks run once, after seeding and before the first step; e.g.
:func:`normal_embeddings` re-draws embedding tables from N(0, std²) (PyTorch's default is N(0, 1),
far too large for a word-embedding table trained with a small learning rate).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
from torch import nn

from ..checks import (
    MAX_INIT_SCALE,
    MAX_LR,
    MAX_WEIGHT_DECAY,
    check_flag,
    check_number,
    check_training_count,
)

OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD, "rmsprop": torch.optim.RMSprop}
FUSED = ("adam", "sgd")  # the optimizers PyTorch has a fused kernel for, on CPU and CUDA


def parameter_groups(model: nn.Module, lr: float, lr_factors: Mapping[str, float] | None):
    """Parameters in groups: those whose name starts with a key of ``lr_factors`` learn at
    ``factor × lr`` (e.g. ``{"scale": 0.1}`` for the FLNN's self-weights), the rest at ``lr``."""
    if lr_factors is not None and not isinstance(lr_factors, Mapping):
        raise TypeError(f"lr_factors must be a mapping {{parameter name prefix: factor}}, got "
                        f"{type(lr_factors).__name__}: {lr_factors!r:.60}")
    check_number(lr, "lr", above=0, at_most=MAX_LR)
    if not lr_factors:
        return [{"params": [p for p in model.parameters() if p.requires_grad], "lr": lr}]
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups, used = [], set()
    for prefix, factor in lr_factors.items():
        # the rate it makes, lr × factor, stays within MAX_LR
        factor = check_number(factor, f"lr_factors[{prefix!r}]", above=0, at_most=MAX_LR / lr)
        chosen = [p for n, p in named if n.startswith(prefix) and n not in used]
        if not chosen:
            raise ValueError(f"lr_factors: no parameter of {type(model).__name__} is named "
                             f"{prefix!r}…; its parameters are {', '.join(n for n, _ in named)}")
        used.update(n for n, _ in named if n.startswith(prefix))
        groups.append({"params": chosen, "lr": lr * factor})
    rest = [p for n, p in named if n not in used]
    if rest:
        groups.append({"params": rest, "lr": lr})
    return groups


def check_optimizer(name: str, lr: float, momentum: float = 0.0, weight_decay: float = 0.0,
                    fused: bool = False) -> None:
    """The optimizer's settings, each within its range (:data:`~course_rnn.checks.MAX_LR` …):
    a ValueError naming the first that is not. :func:`fit` calls it before any work."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}: choose one of {', '.join(OPTIMIZERS)}")
    check_number(lr, "lr", above=0, at_most=MAX_LR)
    check_number(momentum, "momentum", at_least=0, at_most=1)
    check_number(weight_decay, "weight_decay", at_least=0, at_most=MAX_WEIGHT_DECAY)
    check_flag(fused, "fused")
    if fused and name not in FUSED:
        raise ValueError(f"fused=True: PyTorch has a fused kernel for {' and '.join(FUSED)}, "
                         f"not for {name!r}")
    if name == "adam" and momentum:
        raise ValueError("momentum is for 'sgd' and 'rmsprop'; Adam keeps its own moments")


def make_optimizer(name: str, groups, lr: float, momentum: float = 0.0,
                   weight_decay: float = 0.0, fused: bool = False) -> torch.optim.Optimizer:
    """The optimizer ``name`` (see :data:`OPTIMIZERS`) over parameter ``groups`` (or an
    iterable of parameters); ``fused``: PyTorch's fused kernel (see the module docstring)."""
    check_optimizer(name, lr, momentum, weight_decay, fused)
    options = {"lr": lr, "weight_decay": weight_decay}
    if fused:
        options["fused"] = True
    if name != "adam":
        options["momentum"] = momentum
    return OPTIMIZERS[name](groups, **options)


# -- schedules ------------------------------------------------------------------------------------
#: What a schedule counts: evaluations (the default) or optimizer steps.
UNITS = ("evaluation", "step")


def _check_unit(schedule) -> None:
    if schedule.unit not in UNITS:
        raise ValueError(f"{type(schedule).__name__}.unit must be 'evaluation' or 'step', got "
                         f"{schedule.unit!r}")


def _repr(schedule) -> str:
    """The schedule as written, its ``unit`` only when it counts steps (so that the settings a
    run recorded before schedules could count steps read the same)."""
    fields = [f"{name}={getattr(schedule, name)!r}" for name in schedule.__dataclass_fields__
              if name != "unit" or schedule.unit != "evaluation"]
    return f"{type(schedule).__name__}({', '.join(fields)})"


@dataclass(frozen=True)
class StepDecay:
    """Multiply the learning rate by ``factor`` every ``every`` evaluations (``unit="step"``:
    every ``every`` optimizer steps)."""

    every: int = 10
    factor: float = 0.5
    unit: str = "evaluation"

    __repr__ = _repr

    def check(self) -> None:
        check_training_count(self.every, "StepDecay.every")
        check_number(self.factor, "StepDecay.factor", above=0, below=1)
        _check_unit(self)

    def build(self, optimizer, length: int):
        return torch.optim.lr_scheduler.StepLR(optimizer, self.every, self.factor)


@dataclass(frozen=True)
class Cosine:
    """Anneal the learning rate along half a cosine, from its start to ``min_lr`` at the cap
    (over the run's evaluations, or its optimizer steps with ``unit="step"``)."""

    min_lr: float = 0.0
    unit: str = "evaluation"

    __repr__ = _repr

    def check(self) -> None:
        check_number(self.min_lr, "Cosine.min_lr", at_least=0, at_most=MAX_LR)
        _check_unit(self)

    def build(self, optimizer, length: int):
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(1, length), self.min_lr)


@dataclass(frozen=True)
class ReduceOnPlateau:
    """Multiply the learning rate by ``factor`` once the monitored loss has not improved for
    ``patience`` evaluations (keep it below the run's own stopping patience)."""

    factor: float = 0.5
    patience: int = 3
    min_lr: float = 0.0

    def check(self) -> None:
        check_number(self.factor, "ReduceOnPlateau.factor", above=0, below=1)
        check_training_count(self.patience, "ReduceOnPlateau.patience", minimum=0)
        check_number(self.min_lr, "ReduceOnPlateau.min_lr", at_least=0, at_most=MAX_LR)

    def build(self, optimizer, length: int):
        return torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, factor=self.factor, patience=self.patience, min_lr=self.min_lr)


SCHEDULES = {"constant": None, "step": StepDecay(), "cosine": Cosine(),
             "plateau": ReduceOnPlateau()}
Schedule = StepDecay | Cosine | ReduceOnPlateau


def check_schedule(schedule):
    """The schedule object ``schedule`` names (a name of :data:`SCHEDULES` or a schedule
    object; None for none or "constant"), its values checked: a ValueError or TypeError naming
    the first that is wrong. :func:`fit` calls it before any work."""
    if schedule is None:
        return None
    if isinstance(schedule, str):
        if schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {schedule!r}: choose one of "
                             f"{', '.join(SCHEDULES)}")
        schedule = SCHEDULES[schedule]
        if schedule is None:
            return None
    if not isinstance(schedule, (StepDecay, Cosine, ReduceOnPlateau)):
        raise TypeError(f"schedule must be a name or a StepDecay/Cosine/ReduceOnPlateau, got "
                        f"{type(schedule).__name__}")
    schedule.check()
    return schedule


def make_schedule(schedule, optimizer, evaluations: int, steps: int | None = None):
    """``(torch scheduler, counts_steps)`` for ``schedule`` (a name of :data:`SCHEDULES` or a
    schedule object; None or "constant": ``(None, False)``) over a run of ``evaluations``
    evaluations and ``steps`` optimizer steps. ``counts_steps``: the loop steps the scheduler
    before every optimizer step (``unit="step"``) rather than at every evaluation."""
    schedule = check_schedule(schedule)
    if schedule is None:
        return None, False
    counts_steps = getattr(schedule, "unit", "evaluation") == "step"
    length = steps if counts_steps and steps is not None else evaluations
    return schedule.build(optimizer, length), counts_steps


def step_schedule(scheduler, monitored: float) -> None:
    if scheduler is None:
        return
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        scheduler.step(monitored)
    else:
        scheduler.step()


# -- initialisation hooks ------------------------------------------------------------------------
def normal_embeddings(std: float = 0.01) -> Callable[[nn.Module], None]:
    """An ``init=`` hook: every ``nn.Embedding`` of the model drawn again from N(0, std²)."""
    std = check_number(std, "std", above=0, at_most=MAX_INIT_SCALE)

    def init(model: nn.Module) -> None:
        tables = [m for m in model.modules() if isinstance(m, nn.Embedding)]
        if not tables:
            raise ValueError(f"normal_embeddings: {type(model).__name__} has no nn.Embedding")
        with torch.no_grad():
            for table in tables:
                table.weight.normal_(0.0, std)

    init.__name__ = f"normal_embeddings(std={std:g})"
    return init
