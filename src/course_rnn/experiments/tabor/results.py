"""What ``tabor-table4`` measured, typed: the chapter reads
``result.numbers.summary["G1 stream"].test.rmse``.

:class:`TaborNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json`` (one key per field: committed runs and the chapter read any saved file
alike). :class:`TaborArtefacts` is
``Replication.artefacts``: the trained runs (not saved).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records import Record, mean_se, saved_if_set
from .compute import (
    TrainedRun,
    collapsed,
    learned,
    successful,
    top_level_spread,
)
from .settings import BACKPROP

METRICS = ("rmse", "percent_correct", "kl_per_position")
WEIGHT_GROUPS = ("scale", "offset", "centers", "readout")
CORPORA = ("train", "test")


@dataclass
class RunNumbers(Record):
    """One run: its seed, convergence (``converged``, why it ``stopped``, ``epochs``,
    ``steps``), the training KL per position of the weights it kept, Table 4's scores on the
    ``train`` and ``test`` corpora, whether it ``learned`` its training corpus or ``collapsed``
    (a self-weight near 0), its ``self_weights``; a climb adds its KL at the start and its
    moves per weight group and per radius."""

    seed: int
    converged: bool
    stopped: str
    epochs: float
    steps: int
    final_train_kl: float
    train: dict
    test: dict
    learned: bool
    collapsed: bool
    self_weights: list[float]
    kl_before: float | None = saved_if_set()
    steps_per_weight_group: dict[str, int] | None = saved_if_set()
    steps_per_radius: dict[str, int] | None = saved_if_set()

    @classmethod
    def of(cls, r: TrainedRun) -> RunNumbers:
        record = r.history.convergence
        out = cls(r.seed, record.converged, record.stopped, record.epochs, record.steps,
                  kept_kl(r), r.train, r.test, learned(r), collapsed(r),
                  r.model.scale.detach().cpu().tolist())
        if r.before is not None:
            out.kl_before = r.before
            out.steps_per_weight_group = {w: r.history["weight"].count(w)
                                          for w in WEIGHT_GROUPS}
            radii = r.history["radius"]
            out.steps_per_radius = {f"{x:g}": radii.count(x) for x in sorted(set(radii))[::-1]}
        return out


@dataclass
class CorpusSummary(Record):
    """Mean ± SE of each Table 4 score on one corpus over the successful runs (as Table 4; all
    runs when none learned), with their number ``n``, whether they ``learned``, and the number
    of points scored."""

    rmse: list[float]
    percent_correct: list[float]
    kl_per_position: list[float]
    n: int
    points: int
    learned: bool

    @classmethod
    def of(cls, runs: list[TrainedRun], corpus: str) -> CorpusSummary:
        chosen = successful(runs)
        stats = {key: list(mean_se([r.scores(corpus)[key] for r in chosen])) for key in METRICS}
        return cls(**stats, n=len(chosen), points=chosen[0].scores(corpus)["positions"],
                   learned=learned(chosen[0]))


@dataclass
class GroupSummary(Record):
    """A group's :class:`CorpusSummary` on the training and the test corpus."""

    train: CorpusSummary
    test: CorpusSummary

    @classmethod
    def of(cls, runs: list[TrainedRun]) -> GroupSummary:
        return cls(*(CorpusSummary.of(runs, corpus) for corpus in CORPORA))

    def corpus(self, name: str) -> CorpusSummary:
        """The summary on corpus ``name`` ("train" or "test")."""
        return self.train if name == "train" else self.test


@dataclass
class Spread(Record):
    """Figure 4 for one Grammar 1 stream network (:func:`~.compute.top_level_spread`)."""

    seed: int
    train_max: float
    test_max: float
    train_top: float
    test_top: float
    top_is_max: bool

    @classmethod
    def of(cls, r: TrainedRun) -> Spread:
        return cls(seed=r.seed, **top_level_spread(r.model))


@dataclass
class TaborNumbers(Record):
    """Every measured number: per run, per group (mean ± SE over successful runs), the runs
    that learned their training corpus or collapsed, the doubled budgets, and the top-level
    distortion (Figure 4b) of the Grammar 1 stream networks."""

    runs: dict[str, list[RunNumbers]]
    doubled: dict[str, list[RunNumbers]]
    summary: dict[str, GroupSummary]
    doubled_summary: dict[str, GroupSummary]
    learned_training_set: dict[str, int]
    collapsed: dict[str, int]
    spread: dict[str, list[Spread]]
    doubled_spread: dict[str, list[Spread]]
    top_level_most_distorted: dict[str, int] = field(init=False)

    def __post_init__(self):
        self.top_level_most_distorted = {name: sum(s.top_is_max for s in spreads)
                                         for name, spreads in self.spread.items()}


@dataclass
class TaborArtefacts:
    """What the chapter reads beyond the numbers (not saved): ``groups`` (group name → its
    :class:`~.compute.TrainedRun` list) and ``doubled`` (the runs trained to twice their budget,
    by group)."""

    groups: dict[str, list[TrainedRun]]
    doubled: dict[str, list[TrainedRun]]


def kept_kl(r: TrainedRun) -> float:
    """The training KL per position of the weights a run kept: its best epoch's for ``</s>``
    (restored), its last for the others."""
    record = r.history.convergence
    if r.group in BACKPROP and BACKPROP[r.group][1]:
        return record.best
    return record.final.get("train_loss")


def spreads_of(groups: dict[str, list[TrainedRun]]) -> dict[str, list[Spread]]:
    """:class:`Spread` of every Grammar 1 stream network, by group."""
    return {name: [Spread.of(r) for r in groups[name]]
            for name in ("HC G1 stream", "G1 stream") if groups.get(name)}


def numbers_of(groups: dict[str, list[TrainedRun]], doubled: dict[str, list[TrainedRun]],
               spreads: dict, doubled_spreads: dict) -> TaborNumbers:
    """The :class:`TaborNumbers` of the runs (``spreads``: :func:`spreads_of` them)."""
    return TaborNumbers(
        runs={name: [RunNumbers.of(r) for r in group] for name, group in groups.items()},
        doubled={name: [RunNumbers.of(r) for r in group] for name, group in doubled.items()},
        summary={name: GroupSummary.of(group) for name, group in groups.items()},
        doubled_summary={name: GroupSummary.of(group) for name, group in doubled.items()},
        learned_training_set={name: sum(map(learned, group)) for name, group in groups.items()},
        collapsed={name: sum(map(collapsed, group)) for name, group in groups.items()},
        spread=spreads, doubled_spread=doubled_spreads)
