"""What ``decay-rnn-agreement`` measured, typed: the chapter reads
``result.numbers.number_prediction["LSTM"].natural.mean``.

:class:`AgreementNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json``, one key per field (committed runs and the chapter read any saved file
alike). The functions below build
each record from the trained runs (:class:`~.compute.TrainedRun`, by :class:`~.compute.RunSpec`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...models.decay_rnn import time_constant
from ..records import Record, Summary, saved_if_set
from .compute import AgreementData, RunSpec, TrainedRun, build, epoch_reaching, epochs_at_chance
from .paper import (
    DISTANT_CATEGORIES,
    PAPER_ALPHA,
    PAPER_TABLE1,
    PAPER_TABLE4,
    POINTS_TOLERANCE,
)
from .settings import LM_MODELS, MODELS, REFERENCE, TASKS, AgreementSettings


@dataclass
class Training(Record):
    """How a model's runs went, one entry per seed: epochs, converged, why they stopped, the
    first epoch at 95 % held-out accuracy (sample efficiency), final training and best held-out
    accuracy, the final decay α of a Decay RNN (else None), and — grammaticality only — the
    epochs spent at chance before the verb was found."""

    epochs: list[float]
    converged: list[bool]
    stopped: list[str]
    epoch_to_95: list[float | None]
    final_train_accuracy: list[float]
    best_valid_accuracy: list[float]
    final_alpha: list[float | None]
    epochs_at_chance: list[int] | None = saved_if_set()

    @classmethod
    def of(cls, histories: Sequence, scores: Sequence[dict], at_chance: bool = False) -> Training:
        return cls([float(h.convergence.epochs) for h in histories],
                   [bool(h.converged) for h in histories],
                   [h.convergence.stopped for h in histories],
                   [epoch_reaching(h) for h in histories],
                   [float(h.last.get("train_accuracy", float("nan"))) for h in histories],
                   [float(max(h["valid_accuracy"])) for h in histories],
                   [s.get("alpha") for s in scores],
                   [epochs_at_chance(h) for h in histories] if at_chance else None)


@dataclass
class SampleSizes(Record):
    """Test sentences behind a model's figures, over its seeds: the natural set, and the
    balanced set's sentences without attractors."""

    natural: int
    no_attractor: int

    @classmethod
    def of(cls, scores: Sequence[dict]) -> SampleSizes:
        return cls(scores[0]["natural"]["n"] * len(scores),
                   scores[0]["balanced"]["count"][0] * len(scores))


@dataclass
class NumberPrediction(Record):
    """One model's number-prediction accuracy over seeds (fractions): natural and balanced sets,
    both by attractors, the one-attractor set by non-attractors, how training went."""

    natural: Summary
    balanced: Summary
    natural_by_attractors: dict[int, Summary]
    by_attractors: dict[int, Summary]
    by_non_attractors: dict[int, Summary]
    training: Training
    n: SampleSizes

    @classmethod
    def of(cls, scores: list[dict], histories: list) -> NumberPrediction:
        def by(test: str) -> dict[int, Summary]:
            keys = sorted({k for s in scores for k in s[test]["by"]})
            return {k: Summary.of([s[test]["by"].get(k, float("nan")) for s in scores])
                    for k in keys}

        return cls(Summary.of([s["natural"]["accuracy"] for s in scores]),
                   Summary.of([s["balanced"]["accuracy"] for s in scores]),
                   by("natural"), by("balanced"), by("one_attractor"),
                   Training.of(histories, scores), SampleSizes.of(scores))


@dataclass
class Grammaticality(Record):
    """One model's grammaticality accuracy over its ``seeds``: natural and balanced sets, the
    balanced set by attractors, how training went (with the epochs at chance)."""

    seeds: list[int]
    natural: Summary
    balanced: Summary
    by_attractors: dict[int, Summary]
    training: Training
    n: SampleSizes

    @classmethod
    def of(cls, scores: list[dict], histories: list, seeds: list[int]) -> Grammaticality:
        return cls(list(seeds), Summary.of([s["natural"]["accuracy"] for s in scores]),
                   Summary.of([s["balanced"]["accuracy"] for s in scores]),
                   {k: Summary.of([s["balanced"]["by"][k] for s in scores])
                    for k in scores[0]["balanced"]["by"]},
                   Training.of(histories, scores, at_chance=True), SampleSizes.of(scores))


@dataclass
class Alpha(Record):
    """Fig. 5: α over training per start (``steps``, ``values``), its final value (the trained
    model's) and time constant τ = −1/ln α, the epochs and optimizer steps and validation
    accuracy of each run, and the spread across starts (the claim: the curves meet near 0.8)."""

    parametrisation: str
    task: str
    starts: list[float]
    final: list[float]
    tau: list[float]
    epochs: list[float]
    optimizer_steps: list[int]
    valid_accuracy: list[float]
    steps: list[list[int]]
    values: list[list[float]]
    spread_start: float
    spread_end: float
    max_drift: float
    max_distance_from_paper: float

    @classmethod
    def of(cls, histories: Mapping[float, object], final: Mapping[float, float],
           parametrisation: str = "direct") -> Alpha:
        starts = sorted(histories)
        final = {a0: float(final[a0]) for a0 in starts}
        return cls(
            parametrisation, "grammaticality", starts, [final[a0] for a0 in starts],
            [time_constant(final[a0]) if 0 < final[a0] < 1 else float("inf") for a0 in starts],
            [float(histories[a0].convergence.epochs) for a0 in starts],
            [int(histories[a0].convergence.steps) for a0 in starts],
            [float(histories[a0].last["valid_accuracy"]) for a0 in starts],
            [list(histories[a0].step_values("step")) for a0 in starts],
            [[float(a) for a in histories[a0].step_values("alpha")] for a0 in starts],
            float(max(starts) - min(starts)),
            float(max(final.values()) - min(final.values())),
            float(max(abs(final[a0] - a0) for a0 in starts)),
            float(max(abs(a - PAPER_ALPHA) for a in final.values())))


@dataclass
class LMLoss(Record):
    """A language model's training loss (first epoch, last), best validation loss, epochs."""

    train: list[float]
    best_valid: float
    epochs: float


@dataclass
class MarvinLinzen(Record):
    """Table 4: the LMs' share of pairs per category (``accuracy[category][model]``), their mean
    over the distant categories, the DRNN's distance from the LSTM there (ours and the
    paper's), and how the LMs trained."""

    accuracy: dict[str, dict[str, float]]
    distant_mean: dict[str, float]
    paper_distant_mean: dict[str, float]
    distant_difference: float
    paper_distant_difference: float
    lm_loss: dict[str, LMLoss]

    @classmethod
    def of(cls, lm_runs: Mapping[str, TrainedRun]) -> MarvinLinzen:
        ml = {cat: {name: r.scores[cat] for name, r in lm_runs.items()} for cat in PAPER_TABLE4}
        distant = {name: float(np.mean([ml[c][name] for c in DISTANT_CATEGORIES]))
                   for name in LM_MODELS}
        paper = {name: float(np.mean([PAPER_TABLE4[c][i] for c in DISTANT_CATEGORIES]))
                 for i, name in enumerate(LM_MODELS)}
        losses = {name: LMLoss([float(r.history["train_loss"][0]),
                                float(r.history.last["train_loss"])],
                               float(r.history.convergence.best),
                               float(r.history.convergence.epochs))
                  for name, r in lm_runs.items()}
        return cls(ml, distant, paper, distant["DRNN"] - distant["LSTM"],
                   paper["DRNN"] - paper["LSTM"], losses)


@dataclass
class Corpus(Record):
    """The data: attractor counts of the training sentences and shares of the natural test set,
    the sizes of the sets, and every model's parameter count."""

    train_by_attractors: dict[int, int]
    natural_share_by_attractors: dict[int, float]
    natural_share_with_attractors: float
    fit_sentences: int
    valid_sentences: int
    balanced_count: dict[int, int]
    one_attractor_count: dict[int, int]
    parameters: dict[str, int]

    @classmethod
    def of(cls, data: AgreementData, settings: AgreementSettings, scores: dict) -> Corpus:
        counts = np.bincount([e.attractors for e in data.natural])
        natural = {k: float(c / len(data.natural)) for k, c in enumerate(counts.tolist())}
        return cls(dict(enumerate(np.bincount([e.attractors for e in data.train]).tolist())),
                   natural, float(1 - natural.get(0, 0.0)), len(data.fit), len(data.valid),
                   scores["balanced"]["count"], scores["one_attractor"]["count"],
                   {name: build(name, data.vocab, settings, 0).num_parameters()
                    for name in MODELS})


def difference_tolerance(p: float, q: float, n: int, m: int) -> float:
    """The tolerance (points) on a difference of two accuracies ``p`` and ``q`` measured on
    ``n`` and ``m`` test sentences: :data:`~.paper.POINTS_TOLERANCE`, or twice the difference's
    sampling error if that is larger (each error from ``p̃ = (k + 1) / (n + 2)``, so that a
    perfect score still has one)."""
    def variance(accuracy, count):
        smoothed = (accuracy * count + 1) / (count + 2)
        return smoothed * (1 - smoothed) / count

    return max(POINTS_TOLERANCE, 200 * math.sqrt(variance(p, n) + variance(q, m)))


@dataclass
class Relative(Record):
    """A model minus the LSTM, in points, on our natural test set and on the sentences without
    attractors (two mixes that bracket a Wikipedia-like one), each with its tolerance (see
    :func:`difference_tolerance`); and the model's natural accuracy (± SE)."""

    natural: float
    natural_se: float
    minus_lstm_natural: float
    tolerance_natural: float
    minus_lstm_no_attractor: float
    tolerance_no_attractor: float

    @classmethod
    def of(cls, models: Mapping[str, NumberPrediction | Grammaticality], name: str) -> Relative:
        """``name`` against :data:`~.settings.REFERENCE` (both in ``models``, one task)."""
        model, ref = models[name], models[REFERENCE]
        natural = (model.natural.mean, ref.natural.mean)
        no_attractor = (model.by_attractors[0].mean, ref.by_attractors[0].mean)
        return cls(100 * model.natural.mean, 100 * model.natural.se,
                   100 * (natural[0] - natural[1]),
                   difference_tolerance(*natural, model.n.natural, ref.n.natural),
                   100 * (no_attractor[0] - no_attractor[1]),
                   difference_tolerance(*no_attractor, model.n.no_attractor,
                                        ref.n.no_attractor))

    def minus_lstm(self, mix: str) -> float:
        return getattr(self, f"minus_lstm_{mix}")

    def tolerance(self, mix: str) -> float:
        return getattr(self, f"tolerance_{mix}")


@dataclass
class DoubledRun(Record):
    """A run continued to twice its budget: its first and its new epochs, and convergence."""

    first_epochs: float
    epochs: float
    converged: bool


@dataclass
class AgreementNumbers(Record):
    """Every number of the replication (see :func:`~course_rnn.experiments.agreement.run`):
    per model ``number_prediction`` and ``grammaticality``; the ``corpus``; each model's distance
    from the LSTM per task (``relative[task][model]``); ``alpha`` (None without α runs; saved as
    ``{}``); ``marvin_linzen``; ``table1_gap`` (paper minus ours, points, number prediction);
    ``doubled_budget`` (run label → :class:`DoubledRun`)."""

    number_prediction: dict[str, NumberPrediction]
    grammaticality: dict[str, Grammaticality]
    corpus: Corpus
    relative: dict[str, dict[str, Relative]]
    alpha: Alpha | None
    marvin_linzen: MarvinLinzen
    table1_gap: dict[str, float]
    doubled_budget: dict[str, DoubledRun] = field(default_factory=dict)

    def task(self, task: str) -> dict:
        """``number_prediction`` or ``grammaticality`` by the task's name (:data:`TASKS`)."""
        return self.number_prediction if task == TASKS[0] else self.grammaticality

    def to_json(self) -> dict:
        saved = super().to_json()
        saved["alpha"] = saved["alpha"] or {}
        return saved


@dataclass
class AgreementArtefacts:
    """What the chapter reads beyond the numbers (not saved): the ``data``
    (:class:`~.compute.AgreementData`), the trained classifiers ``number_prediction[name, seed]``
    and ``grammaticality[name, seed]`` as ``(classifier, history)``, the α runs' histories
    ``alpha[start]`` and the language models ``lms[name]`` as ``(model, history)``."""

    data: AgreementData
    number_prediction: dict[tuple[str, int], tuple]
    grammaticality: dict[tuple[str, int], tuple]
    alpha: dict[float, object]
    lms: dict[str, tuple]

    @classmethod
    def of(cls, data: AgreementData, results: Mapping[RunSpec, TrainedRun]
           ) -> AgreementArtefacts:
        def trained(task: str) -> dict:
            return {(s.name, s.seed): (r.model, r.history) for s, r in results.items()
                    if s.task == task}

        return cls(data, trained(TASKS[0]), trained(TASKS[1]),
                   {s.alpha_init: r.history for s, r in results.items() if s.task == "alpha"},
                   {s.name: (r.model, r.history) for s, r in results.items() if s.task == "lm"})


# -- from the runs to the numbers ---------------------------------------------------------------
def _group(results: Mapping[RunSpec, TrainedRun], task: str, name: str
           ) -> tuple[list, list, list]:
    """(seeds, scores, histories) of the runs of ``task`` and ``name``, by seed."""
    chosen = sorted((s for s in results if s.task == task and s.name == name),
                    key=lambda s: s.seed)
    return ([s.seed for s in chosen], [results[s].scores for s in chosen],
            [results[s].history for s in chosen])


def model_numbers(results: Mapping[RunSpec, TrainedRun], task: str, names: Iterable[str]
                  ) -> dict:
    """``{name: numbers}`` of the ``task`` runs of each model in ``names``
    (:class:`NumberPrediction` or :class:`Grammaticality`)."""
    out = {}
    for name in names:
        seeds, scores, histories = _group(results, task, name)
        out[name] = NumberPrediction.of(scores, histories) if task == TASKS[0] \
            else Grammaticality.of(scores, histories, seeds)
    return out


def first_numbers(results: Mapping[RunSpec, TrainedRun], data: AgreementData,
                  settings: AgreementSettings) -> AgreementNumbers:
    """Every number of the first budget: per task and model, the corpus, the distances from
    the LSTM, α, the Marvin & Linzen shares and Table 1's gaps."""
    by_task = {TASKS[0]: model_numbers(results, TASKS[0], MODELS),
               TASKS[1]: model_numbers(results, TASKS[1], settings.gram_models)}
    first_np = next(r.scores for s, r in results.items() if s.task == TASKS[0])
    alpha = {s: r for s, r in results.items() if s.task == "alpha"}
    np_numbers = by_task[TASKS[0]]
    return AgreementNumbers(
        number_prediction=np_numbers, grammaticality=by_task[TASKS[1]],
        corpus=Corpus.of(data, settings, first_np),
        relative={task: {name: Relative.of(by_task[task], name)
                         for name in by_task[task]}
                  for task in TASKS if REFERENCE in by_task[task]},
        alpha=Alpha.of({s.alpha_init: r.history for s, r in alpha.items()},
                       {s.alpha_init: r.scores["alpha"] for s, r in alpha.items()})
        if alpha else None,
        marvin_linzen=MarvinLinzen.of({s.name: r for s, r in results.items() if s.task == "lm"}),
        table1_gap={name: PAPER_TABLE1[name][0] - 100 * np_numbers[name].natural.mean
                    for name in MODELS})
