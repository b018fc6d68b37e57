"""What ``anbn`` measured, typed: the chapter reads ``result.numbers.summary["LSTM"].fitted``.

:class:`AnbnNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json`` (one key per field: committed runs and the chapter read any saved file
alike). :class:`AnbnArtefacts` is
``Replication.artefacts``: the trained models and histories (not saved). The functions here
summarise the scored runs: per model (:func:`summarise`), the best LSTM's stability over the
epochs (:func:`instability`) and what became of the stuck runs at twice their epochs
(:func:`recheck`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...languages import AnBn, Vocab
from ...training import History
from ..records import Record, mean_se, unsaved
from .settings import AnbnSettings, model_name


@dataclass
class LossByPhase(Record):
    """The mean training loss split in two parts that add up to it
    (:func:`~.compute.loss_by_phase`): while reading the a's (``uncertain``) and after the
    first b (``forced``)."""

    uncertain: float
    forced: float


@dataclass
class RunScore(Record):
    """One run (:func:`~.compute.score_run`): its model's name and id, seed; whether and when it
    converged and whether it fitted; its final and best training loss and the gap to the
    optimum; how many n are right inside (n ≤ N_train) and beyond the training range;
    max_correct_n at the end, at its best evaluation and at every evaluation
    (``curve_epochs``); each n's verdict (``right``); the :class:`LossByPhase`; the largest
    gradient norm and the share of clipped steps; and its outcome (one of
    :data:`~.compute.OUTCOMES`)."""

    model: str
    id: str
    seed: int
    converged: bool
    fitted: bool
    stopped: str
    epochs: float
    steps: int
    final_loss: float
    best_loss: float
    gap_to_optimum: float
    train_right: int
    beyond_right: int
    max_correct_n: int
    max_correct_n_best_epoch: int
    max_correct_n_curve: list[int]
    curve_epochs: list[float]
    right: list[bool]
    loss_by_phase: LossByPhase
    max_grad_norm: float
    clipped_share: float
    outcome: str


@dataclass
class DoubledRun(RunScore):
    """A run continued to twice its epochs: its :class:`RunScore` then, the epochs it was made
    to train (``min_epochs``), and (not saved) its ``history`` and trained ``network``."""

    min_epochs: int
    history: History | None = unsaved(default=None, repr=False)
    network: object = unsaved(default=None, repr=False)

    @classmethod
    def of(cls, score: RunScore, min_epochs: int, history=None, network=None) -> DoubledRun:
        return cls(**vars(score), min_epochs=min_epochs, history=history, network=network)


@dataclass
class ModelSummary(Record):
    """One model's seeds (:func:`summarise`): how many converged, fitted, were stuck above the
    optimum (with the range of their final losses) or hit the cap; how many fitted seeds
    generalised; max_correct_n over the fitted seeds (mean, SE, the best and its seed; None
    when none fitted); the lowest final loss; the mean epochs and the best epoch of any
    seed."""

    n_seeds: int
    converged: int
    fitted: int
    stuck: int
    stuck_loss_min: float | None
    stuck_loss_max: float | None
    generalised: int
    max_correct_n_mean: float | None
    max_correct_n_se: float | None
    best_seed: int | None
    max_correct_n_best_seed: int | None
    lowest_final_loss: float
    epochs_mean: float
    best_epoch_any_seed: int


@dataclass
class Instability(Record):
    """How a run's max_correct_n moves once it first passes N_train (:func:`instability`): the
    ``seed``, the first evaluated epoch where it does, the lowest and highest value from then on
    (None when it never does)."""

    seed: int
    first_epoch_beyond: int | None
    min_after: int | None
    max_after: int | None


@dataclass
class StuckTwice(Record):
    """What became of one model's stuck runs continued to twice their epochs (:func:`recheck`):
    how many were ``continued``, ``fitted`` then, are ``still_stuck`` (their losses
    ``stuck_min`` … ``stuck_max``) or ``still_improving`` at the cap (``improving_min`` …
    ``improving_max``)."""

    continued: int
    fitted: int
    still_stuck: int
    stuck_min: float | None
    stuck_max: float | None
    still_improving: int
    improving_min: float | None
    improving_max: float | None


@dataclass
class AnbnNumbers(Record):
    """Every number of the replication (see :func:`~course_rnn.experiments.anbn.run`)."""

    runs: list[RunScore]
    summary: dict[str, ModelSummary]  # model name -> its seeds
    optimum: float  # the exact minimum of the mean training loss
    lstm_instability: Instability | None  # the best fitted LSTM seed (None: none fitted)
    train_max_n: int
    test_max_n: int
    doubled: list[DoubledRun]  # the runs continued to twice their epochs
    stuck_twice: dict[str, StuckTwice]  # model name -> its stuck runs, continued


@dataclass
class AnbnArtefacts:
    """What the chapter reads beyond the numbers (not saved): the trained ``models`` and their
    ``histories`` keyed by (model id, seed), e.g. ("lstm", 0), the ``vocab`` and ``language``,
    and the ``doubled`` runs ((model id, seed) → (network, history))."""

    models: dict[tuple[str, int], object]
    histories: dict[tuple[str, int], History]
    vocab: Vocab
    language: AnBn
    doubled: dict[tuple[str, int], tuple] = field(default_factory=dict)


# -- summaries ------------------------------------------------------------------------------------
def summarise(runs: Sequence[RunScore], train_max_n: int) -> dict[str, ModelSummary]:
    """Per model (by name), a :class:`ModelSummary` of its seeds."""
    summary = {}
    for name in dict.fromkeys(r.model for r in runs):
        mine = [r for r in runs if r.model == name]
        fitted = [r for r in mine if r.fitted]
        stuck = [r.final_loss for r in mine if r.converged and not r.fitted]
        finals = [r.max_correct_n for r in fitted]
        mean, se = mean_se(finals) if finals else (None, None)
        best = max(fitted, key=lambda r: r.max_correct_n) if fitted else None
        summary[name] = ModelSummary(
            n_seeds=len(mine), converged=sum(r.converged for r in mine), fitted=len(fitted),
            stuck=len(stuck), stuck_loss_min=min(stuck) if stuck else None,
            stuck_loss_max=max(stuck) if stuck else None,
            generalised=sum(v > train_max_n for v in finals),
            max_correct_n_mean=mean, max_correct_n_se=se,
            best_seed=best.seed if best else None,
            max_correct_n_best_seed=best.max_correct_n if best else None,
            lowest_final_loss=min(r.final_loss for r in mine),
            epochs_mean=float(np.mean([r.epochs for r in mine])),
            best_epoch_any_seed=max(r.max_correct_n_best_epoch for r in mine))
    return summary


def instability(run: RunScore, train_max_n: int) -> Instability:
    """How the run's max_correct_n moves once it first passes ``train_max_n``."""
    curve = np.array(run.max_correct_n_curve)
    beyond = np.flatnonzero(curve > train_max_n)
    if beyond.size == 0:
        return Instability(run.seed, None, None, None)
    after = curve[beyond[0]:]
    return Instability(run.seed, int(run.curve_epochs[beyond[0]]), int(after.min()),
                       int(after.max()))


def recheck(doubled: Mapping[tuple, RunScore], stuck: Sequence[tuple[str, int]],
            cfg: AnbnSettings) -> dict[str, StuckTwice]:
    """What became of the ``stuck`` runs continued to twice their epochs (``doubled``), per
    model name, in the order of ``cfg.models``."""
    result = {}
    for model_id in cfg.models:
        again = [doubled[p] for p in stuck if p[0] == model_id and p in doubled]
        if not again:
            continue
        still = [d.final_loss for d in again if d.converged and not d.fitted]
        moving = [d.final_loss for d in again if not d.converged]
        result[model_name(model_id, cfg)] = StuckTwice(
            continued=len(again), fitted=sum(d.fitted for d in again), still_stuck=len(still),
            stuck_min=min(still, default=None), stuck_max=max(still, default=None),
            still_improving=len(moving), improving_min=min(moving, default=None),
            improving_max=max(moving, default=None))
    return result
