"""What the ``gym`` measured, typed: one :class:`GymRun` per (model, language, seed), the
per-cell means (:class:`Cell`), read by attribute (``result.numbers.cell("URN", "dyck").own``).

:class:`GymNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json`` (the same keys as before the results were typed). :class:`GymArtefacts` is
``Replication.artefacts``: the chapter's tables and the trained models (not saved).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..records import Record, saved_if_set, unsaved
from .settings import DYCK_DEPTH, GYM_LANGUAGES, GYM_MODELS


@dataclass
class GymRun(Record):
    """One run: the ``model`` (display name), ``language`` and ``seed``; its ``params``,
    ``train_seconds`` (CPU seconds of training), ``epochs`` (trained), whether it
    ``converged`` (met its plateau criterion before the cap), ``final_loss`` (last training
    loss), ``valid_loss`` (best validation loss); the common metric on held-out strings
    (``valid_strings`` and ``valid_positions``); the language's own metric (``own_metric``
    names it, ``own`` holds it); ``breakdown`` (Dyck: chapter 6's pooled accuracies, else
    None); and, not saved, the run's ``history`` and trained model (``trained``, on the CPU)."""

    model: str
    language: str
    seed: int
    params: int
    train_seconds: float
    epochs: float
    converged: bool
    final_loss: float
    valid_loss: float
    valid_strings: float
    valid_positions: float
    own_metric: str
    own: float
    breakdown: dict[str, float] | None
    history: object = unsaved(default=None)
    trained: object = unsaved(default=None)

    @property
    def cell(self) -> tuple[str, str]:
        return self.model, self.language


@dataclass
class Cell(Record):
    """One (model, language) cell over its seeds: the mean ``valid_strings``, ``own``,
    ``params``, ``train_seconds`` and ``epochs``, the seeds' ``min``/``max`` of
    ``valid_strings``, ``n`` (seeds), ``converged`` (how many of them met their criterion)
    and, for Dyck, the mean ``breakdown``."""

    model: str
    language: str
    valid_strings: float
    own: float
    params: float
    train_seconds: float
    epochs: float
    min: float
    max: float
    n: int
    converged: int
    breakdown: dict[str, float] | None = saved_if_set()

    @property
    def all_converged(self) -> bool:
        return self.converged == self.n

    @classmethod
    def of(cls, runs: Sequence[GymRun]) -> Cell:
        valid = [r.valid_strings for r in runs]
        means = [float(np.mean([getattr(r, col) for r in runs]))
                 for col in ("valid_strings", "own", "params", "train_seconds", "epochs")]
        breakdown = None
        if runs[0].breakdown:
            breakdown = {k: float(np.mean([r.breakdown[k] for r in runs]))
                         for k in runs[0].breakdown}
        return cls(runs[0].model, runs[0].language, *means, min(valid), max(valid), len(runs),
                   sum(bool(r.converged) for r in runs), breakdown)


def cell_means(rows: Sequence[GymRun]) -> dict[tuple[str, str], Cell]:
    """(model, language) → its :class:`Cell`, in the order the cells first appear."""
    cells: dict[tuple[str, str], list[GymRun]] = {}
    for row in rows:
        cells.setdefault(row.cell, []).append(row)
    return {key: Cell.of(runs) for key, runs in cells.items()}


@dataclass
class DyckCutPoints(Record):
    """Chapter 6's cuts of the Dyck breakdown: the training depth, the least inner nesting
    counted as deep, the least outer depth counted as unseen."""

    training_depth: int = DYCK_DEPTH
    deep_inner_min: int = DYCK_DEPTH
    unseen_outer_min: int = DYCK_DEPTH + 2


@dataclass
class GymNumbers(Record):
    """Every number of the gym (see :func:`~course_rnn.experiments.gym.run`): every run, the
    per-cell means, the runs continued to twice their epochs, and the Dyck cuts."""

    runs: list[GymRun]
    cells: list[Cell]
    doubled: list[GymRun]
    dyck_cut_points: DyckCutPoints = field(default_factory=DyckCutPoints)

    def cell(self, model: str, language: str) -> Cell:
        """The cell of ``model`` on ``language`` (KeyError when it was not run)."""
        for cell in self.cells:
            if (cell.model, cell.language) == (model, language):
                return cell
        raise KeyError((model, language))


@dataclass
class GymArtefacts:
    """What the chapter reads beyond the numbers (not saved): the model × language ``table``
    (:func:`~.report.gym_table`), the ``dyck_breakdown`` table and the trained ``models`` keyed
    by (model, language, seed)."""

    table: list[dict]
    dyck_breakdown: list[dict]
    models: dict[tuple[str, str, int], object]


def models_and_languages(rows: Sequence[GymRun]) -> tuple[list[str], list[str]]:
    """The models and languages that ``rows`` cover, in the order of the gym's tables."""
    models = [m for m in GYM_MODELS if any(r.model == m for r in rows)]
    languages = [lang for lang in GYM_LANGUAGES if any(r.language == lang for r in rows)]
    return models, languages
