"""Tabor (2011), Table 4: fractal learning networks (FLNN) on Grammars 1 and 2 (chapter 5).

Every network starts as in §3.2 (self-weights 1, offsets 0, centres and read-out weights uniform
in (-0.3, 0.3) from the seed) and learns the *training corpus* (every sentence with at most 3
levels of recursion) against the grammar's exact next-word distributions, with the KL error
``E = sum_i t_i log(t_i / o_i)``. Every run trains **until it has learned**:

=====================  ==========================================  ===============================
group                  trainer                                     until
=====================  ==========================================  ===============================
``G1 stream``,         backprop (:func:`~course_rnn.training.fit`,  mean KL per position < 0.001
``G2 stream``          full-batch Adam, self-weights at 0.1× the   (Tabor's criterion; the exact
                       learning rate), Tabor's targets             optimum is 0)
``G1 with </s>``       the same, with the library's ``</s>``       the KL plateaus (its optimum 0
                       (4 Gaussian units)                          is out of the FLNN's reach)
``G1 equal rates``     the same as ``G1 stream`` with the self-    KL < 0.001, or a plateau of
                       weights at the full learning rate           the KL (a collapsed run)
``HC G1 stream``,      Tabor's climber                             flat at radius 0.001 after
``HC G2 stream``       (:func:`~course_rnn.training.hill_climb`)   0.02 and 0.005 (or KL < 0.001)
=====================  ==========================================  ===============================

Each network is then scored as in Table 4, on the training corpus and on the *test corpus*
(every sentence with 4 or 5 levels, never seen in training), at Tabor's points (one prediction
after each word; :func:`~course_rnn.models.flnn.evaluate` with ``after_start=False``, so the
point counts equal Table 4's): RMSE between the predicted and the exact distribution, **%
correct** (the output is closer to the correct distribution than to any other distribution of
the corpus), and the mean KL per point.

The table compares the mean ± SE over the *successful* runs (100% correct on the training
corpus), as Table 4 does, and gives each row a verdict (:func:`~..replication.judged_rows`):
"agrees" within two combined standard errors; a disagreement is re-checked with the deciding runs
trained twice as long (backprop: the same seed to twice the epochs; the climber: as many moves
again at its smallest radius, which changes nothing once no move helps). An equal-rate run that
stopped on a plateau without learning its training corpus is trained twice as long too: the
evidence that it is stuck, not slow. Runs with the end marker ``</s>`` are "not comparable"
(Tabor's corpus had none).

Every row is judged on *settled* runs: a backprop run of a compared group that ran out of epochs
(:func:`ran_out`) is continued to twice its epochs first, and its continuation stands in for it
(:attr:`TaborNumbers.ran_out` keeps the first runs it replaced). A group with a run that still
runs out is "not converged".

``run(scale="quick")`` is what chapter 5 shows; the runs are independent and go to parallel
worker processes (:func:`~course_rnn.experiments.workers.parallel_map`).

The module reads top to bottom as :func:`run` uses it: the settings (:mod:`.settings`, read
by the command line without torch: the groups of runs and their seeds) and Table 4's figures,
the jobs (one run each, for the worker processes) and what a trained network shows, the numbers
(:class:`TaborNumbers`, read by attribute), the rows (the verdicts and the tables), the figures,
and :func:`run`. It is longer than a screenful because it is one experiment whole, each part
used by the next.
"""
from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...analysis.dynamics import spread, visitation_set
from ...languages import Vocab
from ...languages.tabor import TaborGrammar, TaborGrammar1, TaborGrammar2
from ...models.flnn import FLNN, evaluate
from ...training import AnyOf, ExactDistributions, History, Optimum, Plateau, fit, hill_climb
from ..records import Record, mean_se, saved_if_set, to_json
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    converged_by_model,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import BACKPROP, HILL_CLIMB, SETTINGS, TaborSettings
from .settings import SEED_KEYS as SEED_KEYS  # the seed keys of the groups, beside the settings

NAME = "tabor-table4"

# -- the settings' companions: Table 4's figures ---------------------------------------------------

#: Tabor (2011), Table 4, successful runs only (100% correct on the training corpus):
#: (grammar, corpus) -> (RMSE, SE, % correct, SE, N networks, N points).
PAPER_TABLE4 = {
    (1, "train"): (0.013, 0.001, 100.000, 0.000, 9, 129),
    (1, "test"): (0.048, 0.005, 99.424, 0.195, 9, 4755),
    (2, "train"): (0.008, 0.000, 100.000, 0.000, 11, 276),
    (2, "test"): (0.022, 0.001, 99.900, 0.022, 11, 15232),
}
#: §3.3: networks (of 15 per grammar) whose hill climbing learned the training corpus.
PAPER_LEARNED = {1: (9, 15), 2: (11, 15)}
#: A self-weight this close to 0 makes its word forget the state (a collapsed solution).
COLLAPSED = 0.1


# -- the jobs: train one FLNN, by backprop or by Tabor's climber -----------------------------------


@dataclass
class TrainedRun:
    """One trained FLNN of ``group``: its ``seed``, ``model``, training ``history`` and Table 4's
    scores on the ``train`` and ``test`` corpora (:func:`~course_rnn.models.flnn.evaluate`'s
    dictionaries); a climb adds ``before``, the KL per point at its start."""

    group: str
    seed: int
    model: FLNN
    history: History
    train: dict
    test: dict
    before: float | None = None

    def scores(self, corpus: str) -> dict:
        """The scores on ``corpus`` ("train" or "test")."""
        return self.train if corpus == "train" else self.test


def grammar(number: int, end_marker: bool = False) -> tuple[TaborGrammar, Vocab]:
    """Grammar 1 or 2 (Tables 2–3), with Tabor's stream targets unless ``end_marker``, and its
    vocabulary."""
    if number not in (1, 2):
        raise ValueError(f"Tabor's grammars are 1 and 2, got {number!r}")
    language = {1: TaborGrammar1, 2: TaborGrammar2}[number](end_marker=end_marker)
    return language, Vocab(language.alphabet)


def scores(model: FLNN, language: TaborGrammar, vocab: Vocab) -> dict:
    """Table 4's scores at Tabor's points on the training corpus (≤ 3 levels) and the test
    corpus (4–5 levels)."""
    return {corpus: evaluate(model, language, sentences, vocab, after_start=False)
            for corpus, sentences in (("train", language.training_corpus()),
                                      ("test", language.test_corpus()))}


def criterion(group: str, settings: TaborSettings, continued: bool = False):
    """When a backprop run stops: at Tabor's KL criterion (the optimum 0 within ``kl_target``);
    with ``</s>``, whose optimum the FLNN cannot reach, at a plateau of the KL (those runs keep
    the weights of their best epoch); with equal rates at whichever comes first, so that a run
    whose self-weight collapsed stops where it is stuck (it then has not *learned*: see
    :func:`learned`, and its doubled budget shows that it stays stuck).

    A first stream run may sit on a plateau for thousands of epochs before it learns, so a
    plateau does not stop it. Its **continuation** (``continued``: carried on to twice its
    epochs) does stop on one too: a run that stalls again past twice its epochs is *stuck*
    (converged, not learned; Table 4 averages only the runs that learned), where waiting for
    its cap said nothing more."""
    _, end_marker, _, _, equal_rates = BACKPROP[group]
    optimum = Optimum(0.0, tolerance=settings.kl_target)
    plateau = Plateau(patience=settings.plateau_patience // settings.eval_every,
                      min_delta=settings.plateau_min_delta)
    if end_marker:
        return plateau
    return AnyOf(optimum, plateau) if equal_rates or continued else optimum


def backprop_run(group: str, seed: int, settings: TaborSettings, device="cpu",
                 min_epochs: int = 0, resume=None) -> TrainedRun:
    """One FLNN of ``group`` trained by backpropagation through time until its criterion.
    ``min_epochs``: train at least that long, then on to its own stop within the continued
    run's cap (:func:`~course_rnn.training.fit` sets it); ``resume``: the History of this
    seed's first run (the doubled budget continues it)."""
    number, end_marker, rbf_size, _, equal_rates = BACKPROP[group]
    language, vocab = grammar(number, end_marker)
    model = FLNN(len(vocab), rbf_size=rbf_size, seed=seed)
    cap = settings.equal_rate_epochs if equal_rates else settings.epochs
    history = fit(model, ExactDistributions(language, vocab), language.training_corpus(),
                  batch_size=None, lr=settings.lr,
                  lr_factors=None if equal_rates else {"scale": settings.scale_lr_factor},
                  clip=None, epochs=cap,
                  min_epochs=min_epochs,
                  eval_every=settings.eval_every,
                  until=criterion(group, settings, continued=resume is not None),
                  restore_best=end_marker, seed=seed,
                  device=device, progress=False, resume=resume)
    model.cpu()
    return TrainedRun(group, seed, model, history, **scores(model, language, vocab))


def hill_climb_run(group: str, seed: int, settings: TaborSettings, device="cpu") -> TrainedRun:
    """One FLNN trained by Tabor's climber from the same start as the backprop run of that seed
    (``before``: the KL per point at the start)."""
    language, vocab = grammar(HILL_CLIMB[group])
    model = FLNN(len(vocab), rbf_size=3, seed=seed).to(device)
    before = evaluate(model, language, language.training_corpus(), vocab,
                      after_start=False)["kl_per_position"]
    history = hill_climb(model, ExactDistributions(language, vocab), language.training_corpus(),
                         max_steps=settings.hc_steps, radii=settings.hc_radii, seed=seed,
                         target=settings.kl_target)
    model.cpu()
    return TrainedRun(group, seed, model, history, before=before,
                      **scores(model, language, vocab))


def continued_climb(run: TrainedRun, settings: TaborSettings, device="cpu") -> TrainedRun:
    """The doubled budget of a climb: from where it stopped, as many moves again at its
    smallest radius (the paper's 0.001). A climb that stopped because no move helped is flat
    there, so it stays where it is: more moves change nothing."""
    language, vocab = grammar(HILL_CLIMB[run.group])
    model = copy.deepcopy(run.model).to(device)
    history = hill_climb(model, ExactDistributions(language, vocab), language.training_corpus(),
                         max_steps=max(len(run.history), 1),
                         radii=(settings.hc_radii[-1],), seed=run.seed,
                         target=settings.kl_target)
    model.cpu()
    return TrainedRun(run.group, run.seed, model, history, before=run.before,
                      **scores(model, language, vocab))


def train_job(kind: str, group: str, seed: int, settings: TaborSettings, device: str,
              min_epochs: int = 0, run: TrainedRun | None = None) -> TrainedRun:
    """One job of :func:`run` (top level, so that a worker process can import it)."""
    if kind == "backprop":
        return backprop_run(group, seed, settings, device, min_epochs,
                            run.history if run is not None else None)
    if kind == "climb":
        return hill_climb_run(group, seed, settings, device)
    if kind == "continue climb":
        return continued_climb(run, settings, device)
    raise ValueError(f"unknown job kind {kind!r}")


def doubled_job(run: TrainedRun, settings: TaborSettings, device: str,
                min_epochs: int | None = None) -> tuple:
    """The job that trains ``run`` to twice its budget: the same run, continued (a backprop
    run to ``min_epochs``, by default twice the whole epochs it began; a climb by as many moves
    again)."""
    if run.group in HILL_CLIMB:
        return ("continue climb", run.group, run.seed, settings, device, 0, run)
    if min_epochs is None:
        min_epochs = 2 * math.ceil(run.history.convergence.epochs)
    return ("backprop", run.group, run.seed, settings, device, min_epochs, run)


def jobs_for(settings: TaborSettings, seeds: dict[str, list[int]], device: str) -> list[tuple]:
    """Every training job (``seeds``: the seeds of each key of
    :data:`~.settings.SEED_KEYS`), the long climbs first (they start first in the worker
    pool)."""
    jobs = [("climb", name, seed, settings, device) for name, g in HILL_CLIMB.items()
            if g in settings.hc_grammars for seed in seeds["hc_seeds"]]
    return jobs + [("backprop", name, seed, settings, device)
                   for name, spec in BACKPROP.items() for seed in seeds[spec[3]]]


# -- what a trained network shows ------------------------------------------------------------------


#: The backprop groups whose runs are compared (Table 4, or the end marker's cost): one that ran
#: out of epochs is continued before anything is judged.
SETTLED_GROUPS = ("G1 stream", "G2 stream", "G1 with </s>")


def ran_out(r: TrainedRun) -> bool:
    """A backprop run of :data:`SETTLED_GROUPS` that reached its cap on epochs still short of
    its criterion: it has not settled, so it is continued."""
    return r.group in SETTLED_GROUPS and r.history.convergence.stopped == "budget spent"


def learned(r: TrainedRun) -> bool:
    """Tabor's success: 100% correct on the training corpus."""
    return r.train["percent_correct"] == 100.0


def collapsed(r: TrainedRun) -> bool:
    """Some self-weight near 0: that word resets the state, forgetting the stack."""
    return bool(np.any(np.abs(r.model.scale.detach().numpy()) < COLLAPSED))


def successful(runs: list[TrainedRun]) -> list[TrainedRun]:
    """The runs Table 4 averages: those that learned their training corpus; all runs when none
    did (the figures then say how far they got)."""
    return [r for r in runs if learned(r)] or list(runs)


def top_level_spread(model: FLNN) -> dict:
    """Figure 4: how far a Grammar 1 stream network's visited states stray from their stack
    state's mean. ``train_max`` / ``test_max``: the largest distance on the training corpus
    (≤ 3 levels) / on every sentence with ≤ 5 levels; ``train_top``, ``test_top``: those
    distances for the empty stack ε (the top level, which Tabor finds most distorted)."""
    language, vocab = grammar(1)
    train = spread(visitation_set(model, language, language.training_corpus(), vocab))
    test = spread(visitation_set(model, language, language.sentences(5), vocab))
    return {"train_max": max(train.values()), "test_max": max(test.values()),
            "train_top": train[""], "test_top": test[""],
            "top_is_max": bool(test[""] == max(test.values()))}


def kept_kl(r: TrainedRun) -> float:
    """The training KL per position of the weights a run kept: its best epoch's for ``</s>``
    (restored), its last for the others."""
    record = r.history.convergence
    if r.group in BACKPROP and BACKPROP[r.group][1]:
        return record.best
    return record.final.get("train_loss")


# -- the numbers -----------------------------------------------------------------------------------

METRICS = ("rmse", "percent_correct", "kl_per_position")
WEIGHT_GROUPS = ("scale", "offset", "centers", "readout")
CORPORA = ("train", "test")
#: The groups whose networks Figure 4 measures (:func:`top_level_spread`), and its figures.
SPREAD_GROUPS = ("HC G1 stream", "G1 stream")
SPREAD_KEYS = ("train_max", "test_max", "train_top", "test_top", "top_is_max")


@dataclass
class RunNumbers(Record):
    """One run: its seed, convergence (``converged``, why it ``stopped``, ``epochs``,
    ``steps``), the training KL per position of the weights it kept, Table 4's scores on the
    ``train`` and ``test`` corpora, whether it ``learned`` its training corpus or ``collapsed``
    (a self-weight near 0), its ``self_weights``; a climb adds its KL at the start and its
    moves per weight group and per radius; a Grammar 1 stream network (:data:`SPREAD_GROUPS`)
    its Figure 4 spread (:func:`top_level_spread`)."""

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
    train_max: float | None = saved_if_set()
    test_max: float | None = saved_if_set()
    train_top: float | None = saved_if_set()
    test_top: float | None = saved_if_set()
    top_is_max: bool | None = saved_if_set()

    @classmethod
    def of(cls, r: TrainedRun, spread: dict | None = None) -> RunNumbers:
        """The record of ``r``, with its Figure 4 ``spread`` where it was measured."""
        record = r.history.convergence
        out = cls(r.seed, record.converged, record.stopped, record.epochs, record.steps,
                  kept_kl(r), r.train, r.test, learned(r), collapsed(r),
                  r.model.scale.detach().cpu().tolist(), **(spread or {}))
        if r.before is not None:
            out.kl_before = r.before
            out.steps_per_weight_group = {w: r.history["weight"].count(w)
                                          for w in WEIGHT_GROUPS}
            radii = r.history["radius"]
            out.steps_per_radius = {f"{x:g}": radii.count(x) for x in sorted(set(radii))[::-1]}
        return out


@dataclass(frozen=True)
class CorpusSummary:
    """Mean ± SE of each Table 4 score on one corpus over the successful runs (as Table 4; all
    runs when none learned), with their number ``n``, whether they ``learned``, and the number
    of points scored; computed where it is read (``runs``: records or trained runs)."""

    rmse: list[float]
    percent_correct: list[float]
    kl_per_position: list[float]
    n: int
    points: int
    learned: bool

    @classmethod
    def of(cls, runs: Sequence[RunNumbers | TrainedRun], corpus: str) -> CorpusSummary:
        chosen = successful(runs)
        stats = {key: list(mean_se([getattr(r, corpus)[key] for r in chosen]))
                 for key in METRICS}
        return cls(**stats, n=len(chosen), points=getattr(chosen[0], corpus)["positions"],
                   learned=learned(chosen[0]))


@dataclass(frozen=True)
class GroupSummary:
    """A group's :class:`CorpusSummary` on the training and the test corpus."""

    train: CorpusSummary
    test: CorpusSummary

    @classmethod
    def of(cls, runs: Sequence[RunNumbers | TrainedRun]) -> GroupSummary:
        return cls(*(CorpusSummary.of(runs, corpus) for corpus in CORPORA))

    def corpus(self, name: str) -> CorpusSummary:
        """The summary on corpus ``name`` ("train" or "test")."""
        return self.train if name == "train" else self.test


@dataclass
class TaborNumbers(Record):
    """Every measured number, one record per run: the settled runs by group (a run that ran
    out of epochs replaced by its continuation, :func:`ran_out`), the runs trained to twice
    their budget (``doubled``) and the first runs that ran out of epochs (``ran_out``), by
    group. What the rows and the chapter read of a group is computed from its runs: the
    ``summary`` (mean ± SE over the successful runs), the runs that learned their training
    corpus or collapsed, the Figure 4 ``spread`` and the same numbers at twice the budget
    (``twice``). ``results.json`` saves those too (:meth:`to_json`), where the chapter reads
    the committed run."""

    runs: dict[str, list[RunNumbers]]
    doubled: dict[str, list[RunNumbers]] = field(default_factory=dict)
    ran_out: dict[str, list[RunNumbers]] = field(default_factory=dict)

    @property
    def summary(self) -> dict[str, GroupSummary]:
        return {name: GroupSummary.of(group) for name, group in self.runs.items()}

    @property
    def learned_training_set(self) -> dict[str, int]:
        return {name: sum(r.learned for r in group) for name, group in self.runs.items()}

    @property
    def collapsed(self) -> dict[str, int]:
        return {name: sum(r.collapsed for r in group) for name, group in self.runs.items()}

    @property
    def spread(self) -> dict[str, list[RunNumbers]]:
        """The runs whose Figure 4 spread was measured, by group."""
        measured = {name: [r for r in group if r.top_is_max is not None]
                    for name, group in self.runs.items()}
        return {name: group for name, group in measured.items() if group}

    @property
    def top_level_most_distorted(self) -> dict[str, int]:
        return {name: sum(r.top_is_max for r in group) for name, group in self.spread.items()}

    @property
    def twice(self) -> TaborNumbers:
        """The same numbers with the runs trained to twice their budget in place of the runs."""
        return replace(self, runs=self.doubled)

    def to_json(self) -> dict:
        """The runs, and what is computed from them that chapter 5's checks read in the
        committed ``results.json`` (the summaries, the counts, the spreads), in the layout saved
        before these were computed where they are read."""
        saved = super().to_json()
        spread = {name: [{"seed": r.seed, **{key: getattr(r, key) for key in SPREAD_KEYS}}
                         for r in group] for name, group in self.spread.items()}
        return {"runs": saved["runs"], "doubled": saved["doubled"],
                "summary": to_json(self.summary),
                "doubled_summary": to_json(self.twice.summary),
                "learned_training_set": self.learned_training_set,
                "collapsed": self.collapsed, "spread": spread, "ran_out": saved["ran_out"],
                "top_level_most_distorted": self.top_level_most_distorted}

    @classmethod
    def from_json(cls, saved: Mapping) -> TaborNumbers:
        """The numbers saved by :meth:`to_json` (a committed run's): the runs; what is computed
        from them is computed again."""
        def runs(key):
            return {name: [RunNumbers(**r) for r in group]
                    for name, group in saved.get(key, {}).items()}
        return cls(runs("runs"), runs("doubled"), runs("ran_out"))


def spreads_of(groups: dict[str, list[TrainedRun]]) -> dict[str, list[dict]]:
    """:func:`top_level_spread` of every Grammar 1 stream network, by group."""
    return {name: [top_level_spread(r.model) for r in groups[name]]
            for name in SPREAD_GROUPS if groups.get(name)}


def numbers_of(groups: dict[str, list[TrainedRun]], spreads: Mapping[str, list[dict]],
               ran_out: Mapping[str, list[TrainedRun]] | None = None) -> TaborNumbers:
    """The :class:`TaborNumbers` of the settled runs (``spreads``: :func:`spreads_of` them;
    ``ran_out``: the first runs their continuations replaced, by group), before any run is
    trained twice as long (:func:`run` sets ``doubled`` to the runs of :func:`numbers_of`
    those)."""
    def records(name, group):
        return [RunNumbers.of(r, s) for r, s in zip(group, spreads.get(name, [None] * len(group)))]
    return TaborNumbers(
        runs={name: records(name, group) for name, group in groups.items()},
        ran_out={name: [RunNumbers.of(r) for r in runs]
                 for name, runs in (ran_out or {}).items() if runs})


# -- the rows: the verdicts, ours beside Table 4 ---------------------------------------------------


def compare(stats: CorpusSummary, key: str, paper: float, paper_se: float, digits: int
            ) -> tuple[float, bool, float]:
    """Our mean over the successful runs (``stats``) against the paper's figure: (ours, whether
    it agrees within two combined standard errors plus half a unit of the printed precision,
    how far outside that band)."""
    mean, se = getattr(stats, key)
    band = 2 * math.hypot(paper_se, 0.0 if math.isnan(se) else se) + 0.5 * 10 ** -digits
    distance = abs(mean - paper)
    return mean, distance <= band, max(0.0, distance - band)


def top_level(spreads: list[RunNumbers]) -> tuple[float, bool, float]:
    """Figure 4b: the top level (ε) is the most distorted in every run (``spreads``: the runs
    whose spread was measured): (the share of runs where it is, whether all, the share
    missing)."""
    k, n = sum(s.top_is_max for s in spreads), len(spreads)
    return k / n, k == n, (n - k) / n


def paper_cells() -> Iterator[tuple]:
    """Every figure of Table 4: (grammar, corpus, key, digits, paper, paper's SE, N)."""
    for g in (1, 2):
        for corpus in CORPORA:
            rmse, rmse_se, pc, pc_se, n, _ = PAPER_TABLE4[(g, corpus)]
            for key, digits, paper, paper_se in (("rmse", 3, rmse, rmse_se),
                                                 ("percent_correct", 2, pc, pc_se)):
                yield g, corpus, key, digits, paper, paper_se, n


def needs_doubling(numbers: TaborNumbers) -> set[str]:
    """The groups behind a converged row that disagrees with the paper."""
    return set(deciding_models(table(numbers), numbers, converged_by_model))


def to_double(groups: dict[str, list[TrainedRun]], deciding: set[str]
              ) -> dict[str, list[TrainedRun]]:
    """The runs to train twice as long, by group: every run of a ``deciding`` group
    (:func:`needs_doubling`), and each equal-rate run that did not learn (the evidence that it
    is stuck, not slow)."""
    out = {name: groups[name] for name in groups if name in deciding}
    stuck = [r for r in groups.get("G1 equal rates", []) if not learned(r)]
    if stuck:
        out["G1 equal rates"] = stuck
    return out


def method(name: str) -> tuple[str, str]:
    """(how the group was trained, what the note says about it)."""
    if name.startswith("HC"):
        return ("hill climbing", "the paper's climber, until no move helps at radius 0.001 "
                                 "(after 0.02 and 0.005)")
    if "</s>" in name:
        return ("backprop, with `</s>`", "the library's end marker, which Tabor's corpus did "
                                         "not have: a different task")
    return ("backprop", "backpropagation instead of the paper's climber, stopped at the paper's "
                        "criterion (mean KL < 0.001)")


def score_rows(numbers: TaborNumbers) -> list[Claim | Row]:
    """Table 4's RMSE and % correct per grammar and corpus for each group (the climber first),
    each a :class:`Claim` on the group's runs (``</s>``'s a row: a different task)."""
    rows = []
    for g, corpus, key, digits, paper, paper_se, n in paper_cells():
        label = "RMSE" if key == "rmse" else "% correct"
        for name in (f"HC G{g} stream", f"G{g} stream", f"G{g} with </s>"):
            if not numbers.runs.get(name) or ("</s>" in name and corpus == "train"):
                continue  # with </s>: the test corpus is enough to show the cost
            how, note = method(name)
            quantity = f"G{g} {corpus} {label}, {how}"
            paper_text = f"{pm(paper, paper_se)} (Table 4, N = {n})"
            if "</s>" in name:
                stats = numbers.summary[name].corpus(corpus)
                rows.append(Row(quantity, paper_text, score_text(stats, key, digits), note,
                                "not comparable"))
                continue
            if numbers.summary[name].corpus(corpus).n == 1:
                note += "; one run, so our standard error is unknown"
            if numbers.ran_out.get(name):
                note += (f"; {len(numbers.ran_out[name])} run(s) that ran out of epochs, "
                         "continued to twice their epochs")
            rows.append(Claim(quantity, paper_text,
                              score_check(name, corpus, key, paper, paper_se, digits), (name,),
                              note, twice_note=score_twice(name, corpus, key, digits)))
    return rows


def score_text(stats: CorpusSummary, key: str, digits: int) -> str:
    """The ours column of a Table 4 figure: mean ± SE (N, and whether none learned)."""
    return f"{pm(*getattr(stats, key), digits)} (N = {stats.n}" + \
        ("" if stats.learned else ", none learned the training corpus") + ")"


def score_check(name: str, corpus: str, key: str, paper: float, paper_se: float, digits: int
                ) -> Callable[[TaborNumbers], tuple]:
    """The :class:`Claim` check of one Table 4 figure of group ``name``."""
    def check(numbers: TaborNumbers) -> tuple:
        stats = numbers.summary[name].corpus(corpus)
        return (score_text(stats, key, digits),
                *compare(stats, key, paper, paper_se, digits))
    return check


def score_twice(name: str, corpus: str, key: str, digits: int
                ) -> Callable[[TaborNumbers], str]:
    """What a Table 4 row's note adds when its verdict read the runs at twice the budget."""
    def note(twice: TaborNumbers) -> str:
        stats = twice.summary[name].corpus(corpus)
        return f"at twice the budget {pm(*getattr(stats, key), digits)}"
    return note


def learned_rows(numbers: TaborNumbers) -> list[Row]:
    """How many runs of each group learned their training corpus (§3.3's 9/15 and 11/15)."""
    rows = []
    for name, group in numbers.runs.items():
        if name == "G1 equal rates" or not group:
            continue
        k, n = numbers.learned_training_set[name], len(group)
        g = 2 if "G2" in name else 1
        paper_k, paper_n = PAPER_LEARNED[g]
        rows.append(Row(
            quantity=f"G{g} runs with 100% on the training corpus, {method(name)[0]}",
            paper=f"{paper_k}/{paper_n} (§3.3, hill climbing)", ours=f"{k}/{n}",
            note="too few runs to compare a success rate" if n < 10 else
            ("the same climber" if name.startswith("HC") else "a different trainer")))
    return rows


def collapse_rows(numbers: TaborNumbers) -> list[Row]:
    """The equal-rate runs whose self-weight collapsed (not in the paper), and whether the
    ones that did not learn stayed so at twice the budget."""
    if not numbers.runs.get("G1 equal rates"):
        return []
    k, n = numbers.collapsed["G1 equal rates"], len(numbers.runs["G1 equal rates"])
    note = ("why the library trains the self-weights at 0.1× the rate: s ≈ 0 makes every "
            "word reset the state")
    stuck = numbers.doubled.get("G1 equal rates", [])
    if stuck:
        still = sum(r.collapsed and not r.learned for r in stuck)
        note += (f"; the runs that did not learn, trained twice as long: {still} of "
                 f"{len(stuck)} still collapsed and not learned")
    return [Row(quantity="G1 backprop runs with a self-weight collapsed to ≈ 0, all weights at "
                         "the same learning rate", paper="— (not in the paper)",
                ours=f"{k}/{n}", note=note)]


def distortion_rows(numbers: TaborNumbers) -> list[Claim]:
    """Figure 4b as claims: the top level (ε) is the most distorted, per Grammar 1 stream
    group."""
    return [Claim(f"top level (ε) most distorted on sentences ≤ 5 levels, G1, "
                  f"{method(name)[0]}", "yes (Fig. 4b)", distortion_check(name), (name,),
                  "the largest distance of a visited state from its stack state's mean")
            for name in SPREAD_GROUPS if numbers.runs.get(name)]


def distortion_check(name: str) -> Callable[[TaborNumbers], tuple]:
    """The :class:`Claim` check of Figure 4b on group ``name``."""
    def check(numbers: TaborNumbers) -> tuple:
        spreads = numbers.spread[name]
        return (f"{sum(s.top_is_max for s in spreads)}/{len(numbers.runs[name])} runs",
                *top_level(spreads))
    return check


def table(numbers: TaborNumbers) -> list[Claim | Row]:
    """The paper-vs-ours table, its judged rows as claims: Table 4's RMSE and % correct per
    grammar and corpus for each group (the climber first), the runs that learned their
    training corpus, the collapsed equal-rate runs, and Figure 4b's distortion."""
    return (score_rows(numbers) + learned_rows(numbers) + collapse_rows(numbers)
            + distortion_rows(numbers))


def table_rows(numbers: TaborNumbers) -> list[Row]:
    """The paper-vs-ours table judged (:func:`judged_rows`): a row that disagrees is read
    again on the runs trained twice as long (``numbers.doubled``)."""
    return judged_rows(table(numbers), numbers, numbers.twice, converged_by_model)


def table4(result: Replication) -> str:
    """Table 4 laid out as in the paper, one line per source (the paper, each of our groups),
    with the KL per point, the number of successful networks N and of scored points
    (Markdown)."""
    lines = ["| grammar | corpus | source | RMSE ± SE | % correct ± SE | KL/point | N "
             "| points |", "|---|---|---|---|---|---|---|---|"]
    for (g, corpus), (rmse, rmse_se, pc, pc_se, n, points) in PAPER_TABLE4.items():
        lines.append(f"| {g} | {corpus} | paper (Table 4) | {pm(rmse, rmse_se)} | "
                     f"{pm(pc, pc_se)} | — | {n} | {points} |")
        for name in (f"HC G{g} stream", f"G{g} stream", f"G{g} with </s>"):
            if name not in result.numbers.summary:
                continue
            m = result.numbers.summary[name].corpus(corpus)
            source = f"ours, {method(name)[0]}" + (", stream" if "stream" in name else "")
            lines.append(f"| {g} | {corpus} | {source} | {pm(*m.rmse)} | "
                         f"{pm(*m.percent_correct)} | {m.kl_per_position[0]:.4f} | "
                         f"{m.n} | {m.points} |")
    return "\n".join(lines)


# -- the figures -----------------------------------------------------------------------------------


def run_name(r: TrainedRun, doubled: bool = False, again: bool = False) -> str:
    """A run's readable name in ``Replication.runs`` (" (2× budget)": continued to twice its
    epochs; " (2× budget, again)": a continuation continued once more)."""
    trainer = "hill climbing" if r.group.startswith("HC") else "backprop"
    group = r.group.removeprefix("HC ")
    mark = " (2× budget, again)" if again else " (2× budget)" if doubled else ""
    return f"{trainer} {group} seed {r.seed}{mark}"


def curves(groups: dict[str, list[TrainedRun]]) -> dict:
    """The learning curves: training KL per point (log scale) and training accuracy of every
    backprop run against the epoch, and of every climb against the move, with Tabor's
    criterion (mean KL < 0.001) dotted."""
    backprop = {run_name(r): r.history for name, group in groups.items()
                if name in BACKPROP for r in group}
    climbs = {run_name(r): r.history for name, group in groups.items()
              if name in HILL_CLIMB for r in group}
    from ...analysis.curves import learning_curves  # here: worker processes need no matplotlib

    figures = {}
    for key, runs, x in (("curves", backprop, "epoch (full batch)"),
                         ("climber_curves", climbs, "move of the climber")):
        if not runs:
            continue
        trainer = "backprop" if key == "curves" else "hill climbing"
        fig = learning_curves(runs, ("train_loss", "train_accuracy"), logy=True,
                              title=f"FLNN learning curves, {trainer}")
        for ax in fig.axes:
            ax.set_xlabel(x)
        fig.axes[0].set_ylabel("KL per position (train)")
        fig.axes[0].axhline(1e-3, color="0.4", ls=":", lw=1, label="Tabor's criterion")
        fig.axes[0].legend(fontsize=7)
        if len(fig.axes) > 1:
            fig.axes[1].set_yscale("linear")
        figures[key] = fig
    return figures


# -- run -------------------------------------------------------------------------------------------


@dataclass
class TaborArtefacts:
    """What the chapter reads beyond the numbers (not saved): ``groups`` (group name → its
    settled :class:`TrainedRun` list: a run that ran out of epochs replaced by its
    continuation), ``doubled`` (the runs trained to twice their budget, by group) and
    ``ran_out`` (the first runs that ran out of epochs, by group)."""

    groups: dict[str, list[TrainedRun]]
    doubled: dict[str, list[TrainedRun]]
    ran_out: dict[str, list[TrainedRun]] = field(default_factory=dict)


def by_key(groups: Mapping[str, Sequence[TrainedRun]]) -> dict[tuple[str, int], TrainedRun]:
    """Every run of ``groups`` by ``(group, seed)``, the key :func:`twice_the_budget` reads."""
    return {(r.group, r.seed): r for runs in groups.values() for r in runs}


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None,
        workers: int | None = None) -> Replication:
    """Train the FLNNs of Table 4 until they learn and compare them with the paper.

    Args:
        scale: "quick" (chapter 5) or "paper" (15 networks per group);
            see :data:`~.settings.SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by *every* group of runs;
            None: each group's seed count from the settings.
        device: "cpu", "cuda", … (:func:`~course_rnn.utils.pick_device`). The FLNN has about
            30 weights: one CPU thread per run is faster than a GPU; chapter 5 passes "cpu".
        progress: a bar over the runs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override the scale's :class:`~.settings.TaborSettings` (an
            unknown key or a bad value is a ValueError).
        workers: parallel worker processes (None: ``$COURSE_RNN_WORKERS`` or the CPU count).

    Returns a :class:`Replication` whose ``numbers`` are a :class:`TaborNumbers`, whose
    ``runs`` hold every training history by name, whose ``artefacts`` are a
    :class:`TaborArtefacts` (``groups``: group name -> its settled :class:`TrainedRun` list;
    ``doubled``: the runs trained to twice their budget, by group; ``ran_out``: the first runs
    that ran out of epochs, by group), and whose figures
    ``curves`` and ``climber_curves`` are the learning curves.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, "seeds", device, progress,
                  workers)
    # settings: from here on, the overrides completed by the scale's settings
    settings, device = setup.settings, str(setup.device)

    def train(jobs, desc=NAME):
        return parallel_map(train_job, jobs, workers=workers, device=device, desc=desc,
                            progress=progress)

    groups: dict[str, list[TrainedRun]] = {name: [] for name in (*HILL_CLIMB, *BACKPROP)}
    for r in train(jobs_for(settings, settings.group_seeds(seeds), device)):
        groups[r.group].append(r)
    first = {name: runs for name, runs in groups.items() if runs}

    def train_again(min_epochs, resume):
        jobs = [doubled_job(r, settings, device, min_epochs[key]) for key, r in resume.items()]
        return dict(zip(resume, train(jobs, f"{NAME}, twice the budget")))

    # settle: a compared run that ran out of epochs is continued; its continuation stands in
    unsettled = {name: [r for r in runs if ran_out(r)] for name, runs in first.items()}
    continued = twice_the_budget(by_key(first), list(by_key(unsettled)), train_again)
    groups = {name: [continued.get((r.group, r.seed), r) for r in runs]
              for name, runs in first.items()}
    ran_out_runs = {name: runs for name, runs in unsettled.items() if runs}
    numbers = numbers_of(groups, spreads_of(groups), ran_out_runs)
    redo = to_double(groups, needs_doubling(numbers))
    again = twice_the_budget(by_key(groups), list(by_key(redo)), train_again)
    doubled = {name: [again[r.group, r.seed] for r in runs] for name, runs in redo.items()}
    numbers = replace(numbers, doubled=numbers_of(doubled, spreads_of(doubled)).runs)
    rows = table_rows(numbers)
    histories = {run_name(r): r.history for group in first.values() for r in group}
    histories.update({run_name(r, doubled=True): r.history for r in continued.values()})
    histories.update({run_name(r, doubled=True, again=(r.group, r.seed) in continued): r.history
                      for group in doubled.values() for r in group})
    return setup.replication(numbers, rows, curves(groups),
                             TaborArtefacts(groups, doubled, ran_out_runs), histories)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)
