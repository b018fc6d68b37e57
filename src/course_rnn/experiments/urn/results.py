"""What ``urn-dyck`` and ``urn-cross-serial`` measured, typed: the chapter reads
``dyck_result.numbers.embedding_ranges.single_max`` or ``xs_result.numbers.mean_error["URN"].seen``.

:class:`DyckNumbers` and :class:`CrossSerialNumbers` are the ``Replication.numbers`` of the two
experiments; their ``to_json()`` is the ``numbers`` of ``results.json`` (one key per field:
committed runs and the chapter read any saved file alike). Scores keyed by model name and by
cut (``summary["3-TURN"]["few_attractors"]``) stay dictionaries: their keys are data, not
fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..records import Record, saved_if_set

if TYPE_CHECKING:  # type hints only: the artefacts hold these, made in .dyck / .cross_serial
    from ...languages import CrossSerial, Dyck, Vocab
    from ...models import SequenceModel
    from ...training import History


# -- one trained network (made by .dyck and .cross_serial, which import this module) ----------
@dataclass
class TrainedDyck:
    """One network as trained on Dyck: the ``model`` (best weights, on the CPU), its
    ``history``, ``closing`` (:func:`~course_rnn.metrics.dyck_closing_accuracy` on the test
    strings) and ``test_loss``."""

    model: SequenceModel
    history: History
    closing: dict
    test_loss: float


@dataclass
class TrainedCrossSerial:
    """One network as trained on cross-serial strings: the ``model`` (on the CPU), its
    ``history`` and ``scores`` (:func:`~course_rnn.metrics.cross_serial_accuracy` on the test
    family)."""

    model: SequenceModel
    history: History
    scores: dict


# -- urn-dyck -------------------------------------------------------------------------------------
@dataclass
class SeedScores(Record):
    """One Dyck network of one seed: closing-bracket ``accuracy``, the pooled scores
    (``summary``: cut → accuracy), the worst error over attractor counts, its final training
    loss, best validation loss, test loss, epochs and convergence."""

    accuracy: float
    summary: dict[str, float]
    worst_attractor_error: float
    train_loss: float
    valid_loss: float
    test_loss: float
    epochs: float
    converged: bool


@dataclass
class ModelConvergence(Record):
    """A model's epochs and convergence, one entry per seed."""

    epochs: list[float]
    converged: list[bool]


@dataclass
class Embeddings(Record):
    """A trained URN's bracket embeddings read with linear algebra
    (:func:`~.dyck.embedding_analysis`; B&L 2022 Tables 3–4)."""

    average_effect: dict[str, float]
    signature: dict[str, list[float]]
    pair_effect: list[list[float]]
    plane_openers: list[str]
    plane_similarity: list[list[float]]
    single_min: float
    single_max: float
    matching_min: float
    matching_max: float
    non_matching_min: float
    non_matching_max: float
    plane_diagonal: float
    plane_other: float


@dataclass
class EmbeddingRanges(Record):
    """The 3-TURN's embedding summaries over seeds: ranges of single and matching-pair effects,
    the smallest mismatched pair's, and the mean plane similarity on and off the diagonal."""

    single_min: float
    single_max: float
    matching_min: float
    matching_max: float
    non_matching_min: float
    plane_diagonal: float
    plane_other: float

    @classmethod
    def over(cls, embeddings: list[Embeddings]) -> EmbeddingRanges:
        return cls(min(e.single_min for e in embeddings), max(e.single_max for e in embeddings),
                   min(e.matching_min for e in embeddings),
                   max(e.matching_max for e in embeddings),
                   min(e.non_matching_min for e in embeddings),
                   float(np.mean([e.plane_diagonal for e in embeddings])),
                   float(np.mean([e.plane_other for e in embeddings])))


@dataclass
class DyckDoubled(Record):
    """The figures after the deciding ``models`` were continued to twice their epochs."""

    models: list[str]
    summary: dict[str, dict[str, float]]
    test_loss: dict[str, float]
    worst_attractor_error: dict[str, float]
    embedding_ranges: EmbeddingRanges
    convergence: dict[str, ModelConvergence]


@dataclass
class DyckNumbers(Record):
    """Every number of urn-dyck (see :func:`~.dyck.dyck_numbers`): per model (by name) the
    means over seeds, with their standard errors, and per seed the figures they are made of."""

    summary_labels: dict[str, str]  # cut -> its words ("2 or fewer attractors")
    cut_points: dict[str, int]
    parameters: dict[str, int]
    closing: dict[str, dict]  # model -> accuracy and its breakdowns (mean over seeds)
    summary: dict[str, dict[str, float]]  # model -> cut -> pooled accuracy (mean over seeds)
    summary_se: dict[str, dict[str, float]]
    test_loss: dict[str, float]
    test_loss_se: dict[str, float]
    valid_loss: dict[str, float]
    worst_attractor_error: dict[str, float]
    convergence: dict[str, ModelConvergence]
    per_seed: dict[int, dict[str, SeedScores]]
    embeddings: dict[int, Embeddings]  # the 3-TURN's, per seed
    embedding_ranges: EmbeddingRanges
    doubled: DyckDoubled | None = saved_if_set()

    def doubled_record(self, models: list[str]) -> DyckDoubled:
        """These numbers (of runs continued to twice their epochs) as the ``doubled`` record of
        the first numbers."""
        return DyckDoubled(models, self.summary, self.test_loss, self.worst_attractor_error,
                           self.embedding_ranges, self.convergence)


# -- urn-cross-serial -----------------------------------------------------------------------------
@dataclass
class CrossSerialRun(Record):
    """One trained cross-serial network: ``model`` ("URN"/"LSTM"), ``units``, ``seed``, its
    parameters, final training loss, epochs, convergence, string error on C_k and the error by
    m + n."""

    model: str
    units: int
    seed: int
    parameters: int
    train_loss: float
    epochs: float
    converged: bool
    error: float
    error_by_length: dict[int, float]


@dataclass
class MeanError(Record):
    """A model's mean string error over its runs: on all of C_k, the lengths seen and unseen in
    training, by size, by size and length; how many runs ``fitted`` their training lengths of
    how many ``runs``."""

    all: float
    seen: float
    unseen: float
    by_units: dict[int, float]
    by_units_and_length: dict[int, dict[int, float]]
    fitted: int
    runs: int


@dataclass
class BestRun(Record):
    """The run with the lowest string error on C_k."""

    model: str
    units: int
    seed: int
    error: float


@dataclass
class CrossSerialDoubled(Record):
    """The runs continued to twice their epochs, and the errors with them in place."""

    runs: list[CrossSerialRun]
    mean_error: dict[str, MeanError]
    best: BestRun


@dataclass
class CrossSerialNumbers(Record):
    """Every number of urn-cross-serial (see :func:`~.cross_serial.cross_serial_numbers`)."""

    runs: list[CrossSerialRun]
    seen_lengths: list[int]
    unseen_lengths: list[int]
    mean_error: dict[str, MeanError]
    best: BestRun
    parameter_counts: dict[str, dict[int, dict[str, int]]]  # task -> units -> lstm, urn
    doubled: CrossSerialDoubled | None = saved_if_set()


@dataclass
class DyckArtefacts:
    """What chapter 6 reads beyond the Dyck numbers (not saved): the first seed's trained
    ``models`` and ``histories`` (by network), every seed's models (``models_by_seed``: seed →
    network → model), the runs continued to twice their epochs (``doubled``: seed → network →
    :class:`TrainedDyck`), the ``train`` / ``valid`` / ``test`` strings, ``vocab`` and
    ``language``."""

    models: dict[str, SequenceModel]
    models_by_seed: dict[int, dict[str, SequenceModel]]
    histories: dict[str, History]
    doubled: dict[int, dict[str, TrainedDyck]]
    train: list
    valid: list
    test: list
    vocab: Vocab
    language: Dyck


@dataclass
class CrossSerialArtefacts:
    """What chapter 6 reads beyond the cross-serial numbers (not saved): the trained ``models``
    keyed by (network, units, seed), the runs continued to twice their epochs (``doubled``,
    keyed by (kind, units, seed)), the ``train`` and ``test`` strings, ``vocab`` and
    ``language``."""

    models: dict[tuple[str, int, int], SequenceModel]
    doubled: dict[tuple[str, int, int], TrainedCrossSerial]
    train: list
    test: list
    vocab: Vocab
    language: CrossSerial
