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
corpus), as Table 4 does, and gives each row a verdict (:func:`~..replication.judge`): "agrees"
within two combined standard errors; a disagreement is re-checked with the deciding runs
trained twice as long (backprop: the same seed to twice the epochs; the climber: as many moves
again at its smallest radius, which changes nothing once no move helps). An equal-rate run that
stopped on a plateau without learning its training corpus is trained twice as long too: the
evidence that it is stuck, not slow. Runs with the end marker ``</s>`` are "not comparable"
(Tabor's corpus had none).

``run(scale="quick")`` is what chapter 5 shows; the runs are independent and go to parallel
worker processes (:func:`~course_rnn.experiments.workers.parallel_map`).

The package, by job: :mod:`.settings` (``TaborSettings`` and its scales, the groups of runs),
:mod:`.compute` (one run per job, for the worker processes; what a trained network shows),
:mod:`.results` (the typed numbers and artefacts), :mod:`.report` (Table 4, the verdicts and the
paper-vs-ours table), :mod:`.figures` (the learning curves), and here :func:`run`, which puts
them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..replication import Experiment, Replication, twice_the_budget
from ..setup import begin
from ..workers import parallel_map
from .compute import (
    COLLAPSED,
    TrainedRun,
    backprop_run,
    collapsed,
    continued_climb,
    criterion,
    doubled_job,
    grammar,
    hill_climb_run,
    jobs_for,
    learned,
    scores,
    successful,
    top_level_spread,
    train_job,
)
from .figures import curves, run_name
from .report import (
    COMPARED,
    PAPER_LEARNED,
    PAPER_TABLE4,
    compare,
    needs_doubling,
    table4,
    table_rows,
    to_double,
    top_level,
)
from .results import (
    METRICS,
    WEIGHT_GROUPS,
    CorpusSummary,
    GroupSummary,
    RunNumbers,
    Spread,
    TaborArtefacts,
    TaborNumbers,
    numbers_of,
    spreads_of,
)
from .settings import BACKPROP, HILL_CLIMB, SEED_KEYS, SETTINGS, TaborSettings

NAME = "tabor-table4"
TITLE = "Tabor (2011), Table 4: fractal learning networks on Grammars 1 and 2"


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None,
        workers: int | None = None) -> Replication:
    """Train the FLNNs of Table 4 until they learn and compare them with the paper.

    Args:
        scale: "quick" (chapter 5; "default" is accepted) or "paper" (15 networks per group);
            see :data:`~.settings.SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by *every* group of runs;
            None: each group's seed count from the settings.
        device: "cpu", "cuda", … (:func:`~course_rnn.utils.pick_device`). The FLNN has about
            30 weights: one CPU thread per run is faster than a GPU; chapter 5 passes "cpu".
        progress: a bar over the runs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override the scale's :class:`~.settings.TaborSettings` (an
            unknown key or a bad value is a ValueError).
        workers: parallel worker processes (None: ``$COURSE_RNN_WORKERS`` or the CPU count).

    Returns a :class:`Replication` whose ``numbers`` are a :class:`~.results.TaborNumbers`,
    whose ``runs`` hold every training history by name, whose ``artefacts`` are a
    :class:`~.results.TaborArtefacts` (``groups``: group name -> its
    :class:`~.compute.TrainedRun` list; ``doubled``: the runs trained to twice their budget, by
    group), and whose figures ``curves`` and ``climber_curves`` are the learning curves.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, "seeds", device, progress,
                  workers)
    cfg, device = setup.settings, str(setup.device)
    groups: dict[str, list[TrainedRun]] = {name: [] for name in (*HILL_CLIMB, *BACKPROP)}
    for r in parallel_map(train_job, jobs_for(cfg, cfg.group_seeds(seeds), device), workers=workers,
                          device=device, desc=NAME, progress=progress):
        groups[r.group].append(r)
    groups = {name: runs for name, runs in groups.items() if runs}
    spreads = spreads_of(groups)
    redo = to_double(groups, spreads)

    def train_again(min_epochs, resume):
        jobs = [doubled_job(r, cfg, device, min_epochs[key]) for key, r in resume.items()]
        return dict(zip(resume, parallel_map(train_job, jobs, workers=workers, device=device,
                                             desc=f"{NAME}, twice the budget",
                                             progress=progress)))

    first = {(r.group, r.seed): r for runs in groups.values() for r in runs}
    again = twice_the_budget(first, [(r.group, r.seed) for runs in redo.values() for r in runs],
                             train_again)
    doubled = {name: [again[r.group, r.seed] for r in runs] for name, runs in redo.items()}
    numbers = numbers_of(groups, doubled, spreads, spreads_of(doubled))
    rows = table_rows(groups, doubled, numbers)
    histories = {run_name(r): r.history for group in groups.values() for r in group}
    histories.update({run_name(r, doubled=True): r.history for group in doubled.values()
                      for r in group})
    return setup.replication(numbers, rows, curves(groups), TaborArtefacts(groups, doubled),
                             histories)


EXPERIMENTS = (Experiment(name=NAME, title=TITLE, chapter="05_dynamical_automata_training", run=run,
                          settings=SETTINGS),)

__all__ = [
    "run", "EXPERIMENTS", "NAME", "TITLE", "SETTINGS", "TaborSettings", "SEED_KEYS", "BACKPROP",
    "HILL_CLIMB", "COMPARED", "PAPER_TABLE4", "PAPER_LEARNED", "METRICS", "WEIGHT_GROUPS",
    "COLLAPSED", "TrainedRun", "grammar", "scores", "criterion", "backprop_run",
    "hill_climb_run", "continued_climb", "train_job", "doubled_job", "jobs_for",
    "top_level_spread", "learned", "collapsed", "successful", "RunNumbers", "CorpusSummary",
    "GroupSummary", "Spread", "TaborNumbers", "TaborArtefacts", "spreads_of", "numbers_of",
    "compare", "top_level", "to_double", "needs_doubling", "table_rows", "table4", "run_name",
    "curves",
]
