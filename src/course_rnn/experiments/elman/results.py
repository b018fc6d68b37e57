"""What ``elman-clusters`` measured, typed: the chapter reads ``result.numbers.exact.kl_min``.

:class:`ElmanNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json`` (one key per field: committed runs and the chapter read any saved file
alike). :class:`ElmanArtefacts` is
``Replication.artefacts``: the trained models and what the chapter draws from them (not saved).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...languages import ElmanTemplates, Vocab
from ..records import Record, mean_se, saved_if_set
from .compute import Clades, TrainedRun


@dataclass
class TrainingSize(Record):
    """The size of what was trained: ``hidden`` units, ``training_sentences`` (and as many
    ``training_words`` in the stream), the fewest and most epochs a run needed."""

    hidden: int
    training_sentences: int
    passes_min: float
    passes_max: float
    training_words: int


@dataclass
class RunNumbers(Record):
    """One run: its regime and seed, convergence record, learning curve, final training loss,
    held-out loss (nats per word), wall seconds and its tree's report (the clade table's row)."""

    regime: str
    seed: int
    convergence: dict
    train_loss: list[float]
    valid_loss: list[float]
    final_train_loss: float
    held_out: float
    seconds: float
    tree: dict


@dataclass
class ExactLoss(Record):
    """A sentence model against the generator's exact next-word distributions
    (:class:`~course_rnn.analysis.hidden.ExactScorer`): its ``cross_entropy``, the ``entropy``
    bound, their difference ``kl`` (nats per symbol), over ``strings`` sentences carrying
    probability ``mass``."""

    cross_entropy: float
    entropy: float
    kl: float
    strings: int
    mass: float


@dataclass
class Exact(Record):
    """The sentence regime against the exact predictor: the ``untrained`` SRN and each trained
    seed (``by_seed``), the ``entropy`` bound, and the trained seeds' KL (min, max, mean ± SE).
    Saved as ``{"untrained", "seed 0", …, "entropy", "kl_min", "kl_max",
    "kl_mean_se"}``."""

    untrained: ExactLoss
    by_seed: dict[int, ExactLoss]
    entropy: float
    kl_min: float = field(init=False)
    kl_max: float = field(init=False)
    kl_mean_se: list[float] = field(init=False)

    def __post_init__(self):
        kl = [e.kl for e in self.by_seed.values()]
        self.kl_min, self.kl_max, self.kl_mean_se = min(kl), max(kl), list(mean_se(kl))

    def models(self) -> dict[str, ExactLoss]:
        """Name → loss: "untrained", then "seed 0", … (the rows of the chapter's table)."""
        return {"untrained": self.untrained,
                **{f"seed {s}": e for s, e in self.by_seed.items()}}

    def to_json(self) -> dict:
        return {**{name: e.to_json() for name, e in self.models().items()},
                "entropy": self.entropy, "kl_min": self.kl_min, "kl_max": self.kl_max,
                "kl_mean_se": self.kl_mean_se}


@dataclass
class StreamOptimum(Record):
    """The stream regime against the exact stream predictor (which must guess where sentences
    end): its loss on the held-out stream (``exact``), the models' (min, max) and their gap above
    it (mean, SE)."""

    exact: float
    model_min: float
    model_max: float
    gap_mean_se: list[float]

    @classmethod
    def of(cls, exact: float, held_out: Sequence[float]) -> StreamOptimum:
        return cls(exact, min(held_out), max(held_out),
                   list(mean_se([v - exact for v in held_out])))


@dataclass
class Doubled(Record):
    """The findings after every run was continued to twice its epochs: the clade counts, and
    each run's epochs and convergence (run name → value)."""

    one_branch: dict[str, int]
    noun_verb_roots: int
    epochs: dict[str, float]
    converged: dict[str, bool]


@dataclass
class ElmanNumbers(Record):
    """Every number of the replication (see :func:`~course_rnn.experiments.elman.run`)."""

    setup: TrainingSize
    runs: list[RunNumbers]
    n_runs: int
    one_branch: dict[str, int]  # group -> runs in which it is exactly one branch
    noun_verb_roots: int  # runs whose root splits nouns from verbs
    exact: Exact
    stream_optimum: StreamOptimum
    doubled: Doubled | None = saved_if_set()  # when a finding was re-checked at 2× the epochs


@dataclass
class ElmanArtefacts:
    """What the chapter reads beyond the numbers (not saved): ``runs`` ((regime, seed) →
    :class:`~.compute.TrainedRun`), the ``untrained`` SRN (seed ``seeds[0]``), the
    ``language``, ``vocab``, ``data`` (regime → (training, held-out)), Figure 7's ``groups``,
    the ``clade_table`` (run name → tree report) and the ``doubled_runs`` (when needed)."""

    runs: dict[tuple[str, int], TrainedRun]
    untrained: object
    language: ElmanTemplates
    vocab: Vocab
    data: dict[str, tuple]
    groups: dict[str, list[str]]
    clade_table: dict[str, dict]
    doubled_runs: dict[tuple[str, int], TrainedRun] = field(default_factory=dict)


def run_numbers(runs: Mapping[tuple[str, int], TrainedRun], clades: Clades) -> list[RunNumbers]:
    """One :class:`RunNumbers` per run, in the order of ``runs``."""
    return [RunNumbers(regime, seed, r.history.convergence.to_json(), r.history["train_loss"],
                       r.history["valid_loss"], r.history.last["train_loss"], r.held_out,
                       r.history.seconds, clades.reports[f"{regime}, seed {seed}"])
            for (regime, seed), r in runs.items()]


def doubled_numbers(runs: Mapping[tuple[str, int], TrainedRun], clades: Clades) -> Doubled:
    """The :class:`Doubled` record of the runs continued to twice their epochs."""
    names = {key: f"{key[0]}, seed {key[1]}" for key in runs}
    return Doubled(clades.one_branch, clades.noun_verb_roots,
                   {names[k]: r.history.convergence.epochs for k, r in runs.items()},
                   {names[k]: r.history.converged for k, r in runs.items()})
