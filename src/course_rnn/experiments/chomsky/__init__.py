"""Delétang et al. (2023), Table 2: which recurrent networks generalise beyond the lengths they
were trained on, on tasks ordered by the Chomsky hierarchy (chapter 8).

**The protocol** (the paper's, at smaller sizes at the book's scale): a network reads an input
string, then one blank per output symbol, and writes the output at the blanks
(:mod:`course_rnn.training.transduction`). It trains on fresh strings of lengths 1 … N (each
step one length, drawn uniformly: the paper's curriculum) and is tested on every length up to
``max_test_length``; its **score** is the mean per-token accuracy over the lengths beyond N.

**The networks**: the SRN (the paper's "RNN"), the LSTM, the URN (chapter 6's 3-TURN) and the
Stack-RNN — Delétang et al.'s (:class:`~course_rnn.models.stack_rnn.StackRNN`), whose
controller pushes, pops or leaves a stack of vectors with softmax weights,

    h_t = tanh(W x_t + U h_{t-1} + P s_{t-1}[0] + b)                     (controller)
    (push, pop, no-op)_t = softmax(A h_t + a),   v_t = D h_t + d         (actions, pushed value)
    s_t[0] = push·v_t + pop·s_{t-1}[1] + no-op·s_{t-1}[0]
    s_t[i] = push·s_{t-1}[i-1] + pop·s_{t-1}[i+1] + no-op·s_{t-1}[i]      (i ≥ 1)

— the Stack-RNN of the paper's Table 2, so that its row can be judged (Joulin & Mikolov's, with
several stacks of scalars, is :class:`~course_rnn.models.stack_rnn.JoulinMikolovStackRNN`).

**How every run ended**: a run has *fitted* when its accuracy on fixed strings of the training
lengths reaches ``fitted`` (0.99); it has *stalled* when that accuracy has not improved for
``patience`` evaluations below it; otherwise it *ran out of steps*. A stalled run continued to
twice its steps (where a verdict needs it) that stalls again is *stuck*: continuing confirmed
its plateau. A run that did not fit the training lengths is not said to "fail to generalise":
its score is reported, and the table counts how many runs fitted.

**The table** sets, per task and network, the best score over the seeds (the paper's Table 2
reports the maximum over 30 runs) and the mean with a 95 % t-interval beside the paper's figure.
A row agrees when both are on the same side of 90 (the paper's "solved"); a disagreement is
re-checked with every run of the row continued to at least twice its steps and then to its own
stop, within twice the cap (:func:`~course_rnn.experiments.replication.judge`; the cap is
:func:`~course_rnn.training.fit`'s for a continuation). a^n b^n is compared with Joulin &
Mikolov (2015) on the share of strings fully right (their measure); Dyck-2 completion and the
URN have no published figure.

The module reads top to bottom as :func:`run` uses it: the settings (:mod:`.settings`), the
jobs (training and testing one run), the numbers (one :class:`RunNumbers` per run; a
:class:`Cell`, a task × network over the seeds, computed where it is read), the rows, the
figures, and :func:`run`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...languages.chomsky import make_transduction
from ...models import build_model, named_models
from ...training import AnyOf, Plateau, Target, fit
from ...training.transduction import (
    Curriculum,
    LengthScores,
    TransductionTask,
    length_generalisation,
)
from ..records import Record, saved_if_set, to_json
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    deciding_models,
    judged_rows,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import DEFAULT_TASKS, SETTINGS, TASK_NAMES, ChomskySettings

# -- the settings' companions: the networks and the papers' figures -----------------------------

#: The compared networks, from the chapters' table of names (the URN is chapter 6's 3-TURN).
MODELS = named_models("SRN", "LSTM", ("URN", "3-TURN"), "Stack-RNN")
#: Delétang et al. (2023), Table 2 (maximum over 30 runs; mean per-token accuracy over test
#: lengths 41–500, in %), typed from the paper: task → network → score. Their "RNN" is the SRN.
TABLE_2 = {
    "parity_check": {"SRN": 100.0, "LSTM": 100.0, "Stack-RNN": 100.0},
    "modular_arithmetic": {"SRN": 100.0, "LSTM": 100.0, "Stack-RNN": 100.0},
    "reverse_string": {"SRN": 62.0, "LSTM": 60.9, "Stack-RNN": 100.0},
    "stack_manipulation": {"SRN": 56.0, "LSTM": 59.1, "Stack-RNN": 100.0},
    "duplicate_string": {"SRN": 50.3, "LSTM": 57.6, "Stack-RNN": 52.8},
    "odds_first": {"SRN": 51.0, "LSTM": 55.6, "Stack-RNN": 51.9},
}
#: Joulin & Mikolov (2015), a^n b^n trained on n < 20 and tested to n = 60: the share of strings
#: whose every deterministic prediction is right, in % (from the paper's text).
JOULIN_MIKOLOV_ANBN = {"SRN": 25.0, "LSTM": 100.0, "Stack-RNN": 100.0}
#: A score of at least this much counts as solved (Delétang et al.'s threshold), in %.
SOLVED = 90.0
#: The seed of the fixed strings of the training lengths every run is evaluated on.
VALID_SEED = 12_345


# -- the jobs: train one run, test it -----------------------------------------------------------


@dataclass
class TrainedRun:
    """One network trained on one task from one seed: the ``model``, its ``history`` (curve and
    convergence record), its test ``scores`` at every length, and ``status`` (:func:`run_status`):
    "fitted", "stalled", "stuck" or "ran out of steps"."""

    task: str
    model_name: str
    seed: int
    model: object
    history: object
    scores: LengthScores
    status: str

    @property
    def name(self) -> str:
        return f"{self.task}, {self.model_name}, seed {self.seed}"


def build(model_name: str, vocab_size: int, settings: ChomskySettings, seed: int):
    """The network ``model_name`` for a vocabulary of ``vocab_size`` (a Stack-RNN's stack as
    deep as the longest test input, plus two cells, so that it never overflows on a reversal)."""
    kind, options = MODELS[model_name]
    if kind == "stack_rnn":
        options = {**options, "stack_width": settings.stack_width,
                   "stack_depth": settings.max_test_length + 2}
    return build_model(kind, vocab_size=vocab_size, hidden_size=settings.hidden_size, seed=seed,
                       **options)


def training_data(task: TransductionTask, settings: ChomskySettings):
    """The curriculum (fresh strings of lengths up to N, ``eval_every`` steps an "epoch") and
    the fixed strings of every training length that say whether a run has fitted."""
    transduction = task.transduction
    lengths = range(transduction.min_length, settings.max_train_length + 1)
    curriculum = Curriculum(settings.max_train_length,
                            examples=settings.eval_every * settings.batch_size,
                            min_length=transduction.min_length)
    return curriculum, transduction.dataset(lengths, settings.valid_per_length, seed=VALID_SEED)


def train_run(task_name: str, model_name: str, seed: int, settings: ChomskySettings, device=None,
              first: TrainedRun | None = None, min_epochs: float = 0) -> TrainedRun:
    """Train one run until it has fitted the training lengths or stalled (or its ``steps`` are
    spent), then test it at every length. ``first``: continue that run for at least
    ``min_epochs`` (twice its steps: the verdicts' re-check, :func:`~course_rnn.experiments.
    replication.twice_the_budget`) and then to its own stop, within the continued run's cap
    (:func:`~course_rnn.training.fit` sets it). Top level, for worker processes."""
    task = TransductionTask(make_transduction(task_name))
    curriculum, valid = training_data(task, settings)
    model = first.model if first is not None else build(model_name, len(task.vocab), settings, seed)
    until = AnyOf(Target("valid_accuracy", settings.fitted),
                  Plateau("valid_accuracy", patience=settings.patience, mode="max"))
    history = fit(model, task, curriculum, valid=valid, steps=settings.steps,
                  min_epochs=min_epochs,
                  batch_size=settings.batch_size, lr=settings.lr, clip=1.0, until=until,
                  restore_best=False, seed=seed, device=device, progress=False,
                  resume=None if first is None else first.history)
    scores = length_generalisation(model, task, range(task.transduction.min_length,
                                                      settings.max_test_length + 1),
                                   settings.max_train_length, samples=settings.test_samples, seed=1)
    return TrainedRun(task_name, model_name, seed, model, history, scores,
                      run_status(history, settings.fitted, continued=first is not None))


def run_status(history, fitted: float, continued: bool = False) -> str:
    """"fitted" (accuracy on the training lengths ≥ ``fitted``); stopped on a plateau below it:
    "stalled" for a first run, "stuck" for one ``continued`` to twice its steps (continuing
    confirmed the plateau); or "ran out of steps" (the glossary's words)."""
    if history.epochs and history.epochs[-1].get("valid_accuracy", 0.0) >= fitted:
        return "fitted"
    if history.convergence.converged:
        return "stuck" if continued else "stalled"
    return "ran out of steps"


def train_runs(settings: ChomskySettings, seeds: Sequence[int], device=None, progress=None,
               first: Mapping[tuple, TrainedRun] | None = None,
               min_epochs: Mapping[tuple, float] | None = None) -> dict[tuple, TrainedRun]:
    """Every (task, network, seed) run, in parallel processes; ``first``: continue those runs
    to twice their steps instead, each for at least ``min_epochs[key]`` epochs (the
    ``train_again`` of :func:`~course_rnn.experiments.replication.twice_the_budget`). Keyed by
    (task, network, seed)."""
    if first is None:
        keys = [(t, m, s) for t in settings.tasks for m in MODELS for s in seeds]
        jobs = [(t, m, s, settings, device) for t, m, s in keys]
    else:
        keys = list(first)
        jobs = [(*key, settings, device, first[key], (min_epochs or {}).get(key, 0))
                for key in keys]
    done = parallel_map(train_run, jobs, device=device, desc="chomsky", progress=progress)
    return dict(zip(keys, done))


# -- the numbers --------------------------------------------------------------------------------


@dataclass
class RunNumbers(Record):
    """One run: its ``status``, ``steps`` trained, accuracy on the training lengths at the end,
    ``score`` (mean per-token accuracy beyond N, %), ``sequence_score`` (strings fully right
    beyond N, %) and the accuracy at every test length (``lengths``, ``accuracy``)."""

    task: str
    model: str
    seed: int
    status: str
    steps: int
    train_accuracy: float
    score: float
    sequence_score: float
    lengths: list[int]
    accuracy: list[float]

    @classmethod
    def of(cls, run: TrainedRun) -> RunNumbers:
        s = run.scores
        return cls(run.task, run.model_name, run.seed, run.status,
                   int(run.history.convergence.steps),
                   float(run.history.epochs[-1].get("valid_accuracy", float("nan"))),
                   100 * s.score, 100 * s.sequence_score, list(s.lengths), list(s.accuracy))


@dataclass(frozen=True)
class Cell:
    """One task × network over the seeds, computed from its runs where the rows, the figures
    and the chapter read it (:meth:`ChomskyNumbers.cell`): the ``best`` score (the paper's
    figure), the ``mean`` with its 95 % t-interval (``low``, ``high``), the same for the
    sequence score (``best_sequence``), how each of the ``n`` runs ended (:func:`run_status`:
    ``fitted``, ``stalled``, ``stuck``, ``out_of_steps``), and how many fitted **and** scored
    ≥ 90 (``generalised``)."""

    best: float
    mean: float
    low: float
    high: float
    best_sequence: float
    n: int
    fitted: int
    stalled: int
    stuck: int
    out_of_steps: int
    generalised: int

    @classmethod
    def of(cls, runs: Sequence[RunNumbers]) -> Cell:
        scores = np.array([r.score for r in runs])
        low, high = t_interval(scores)
        return cls(float(scores.max()), float(scores.mean()), low, high,
                   max(r.sequence_score for r in runs), len(runs),
                   *(sum(r.status == word for r in runs)
                     for word in ("fitted", "stalled", "stuck", "ran out of steps")),
                   sum(r.status == "fitted" and r.score >= SOLVED for r in runs))

    def endings(self) -> str:
        """How the runs ended, in the glossary's words: "fitted 4/10, stalled 6"."""
        counts = [("stalled", self.stalled), ("stuck", self.stuck),
                  ("ran out of steps", self.out_of_steps)]
        return ", ".join([f"fitted {self.fitted}/{self.n}",
                          *(f"{word} {count}" for word, count in counts if count)])


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` t-interval of the mean of scores in % (the mean twice over for one value),
    cut to 0 … 100, the range a score can take."""
    from scipy import stats

    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, mean
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1)
                 * np.std(values, ddof=1) / math.sqrt(len(values)))
    return max(mean - half, 0.0), min(mean + half, 100.0)


def cells_of(runs: Iterable[RunNumbers]) -> dict[str, dict[str, Cell]]:
    """The :class:`Cell` of every task × network of ``runs`` (``[task][model]``, in the runs'
    order)."""
    grouped: dict[str, dict[str, list[RunNumbers]]] = {}
    for r in runs:
        grouped.setdefault(r.task, {}).setdefault(r.model, []).append(r)
    return {task: {model: Cell.of(mine) for model, mine in models.items()}
            for task, models in grouped.items()}


@dataclass
class ChomskyNumbers(Record):
    """What ``chomsky`` measured: every run (``runs``) and the runs continued to twice their
    steps (``doubled_runs``, only when a row needed them); a task × network's :class:`Cell`
    is computed from them (:meth:`cell`, :meth:`doubled_cell`, ``cells``).

    ``results.json`` also holds the cells, as before (``cells[task][model]``, and ``doubled``
    for the continued runs): written from the runs, for a reader of the file (chapter 8 reads
    the committed ones) and so that every figure of the table is in the numbers. A run
    committed before 2026-12-02 has no ``doubled_runs``: its ``doubled`` cells are the record
    of its continued runs."""

    runs: list[RunNumbers]
    doubled_runs: list[RunNumbers] | None = saved_if_set()

    @property
    def cells(self) -> dict[str, dict[str, Cell]]:
        """Every task × network's :class:`Cell` (``cells[task][model]``)."""
        return cells_of(self.runs)

    def cell(self, task: str, model: str) -> Cell:
        """The :class:`Cell` of ``task`` × ``model`` (KeyError when it was not run)."""
        return cells_of(r for r in self.runs if (r.task, r.model) == (task, model))[task][model]

    def doubled_cell(self, task: str, model: str) -> Cell | None:
        """The cell of ``task`` × ``model`` continued to twice its steps, if a verdict needed
        it."""
        return cells_of(r for r in self.doubled_runs or ()
                        if (r.task, r.model) == (task, model)).get(task, {}).get(model)

    def to_json(self) -> dict:
        saved = super().to_json()
        saved["cells"] = to_json(cells_of(self.runs))
        if self.doubled_runs is not None:
            saved["doubled"] = to_json(cells_of(self.doubled_runs))
        return saved


def numbers_of(runs: Mapping[tuple, TrainedRun]) -> ChomskyNumbers:
    """The runs' :class:`RunNumbers`."""
    return ChomskyNumbers([RunNumbers.of(r) for r in runs.values()])


# -- the rows: ours beside Table 2 --------------------------------------------------------------


def compared(cell: Cell, paper: float, sequence: bool = False) -> tuple[float, bool, float]:
    """Our figure, whether it agrees and the gap: a row agrees when our best and the paper's
    figure are on the same side of 90 %; the gap is how far ours is on the wrong side."""
    ours = cell.best_sequence if sequence else cell.best
    agrees = (ours >= SOLVED) == (paper >= SOLVED)
    return ours, agrees, 0.0 if agrees else abs(ours - SOLVED)


def ours_column(cell: Cell, sequence: bool = False) -> str:
    """Best / mean [95 % interval] / how the runs ended (and the best share of strings fully
    right where the row compares that)."""
    ours = (f"best {cell.best:.1f}; mean {cell.mean:.1f} [{cell.low:.1f}, {cell.high:.1f}]; "
            f"{cell.endings()}")
    return ours + (f"; strings fully right: best {cell.best_sequence:.1f}" if sequence else "")


def claims(numbers: ChomskyNumbers) -> list[Claim]:
    """One claim per task × network with a published figure (Table 2, or Joulin & Mikolov's
    share of strings fully right for a^n b^n), decided by that row's runs."""
    cells = numbers.cells
    return [row_claim(task, model, *paper_figure(task, model))
            for task in cells for model in cells[task]
            if paper_figure(task, model)[0] is not None]


def row_claim(task: str, model: str, paper: float, sequence: bool) -> Claim:
    """The row "task: network": ours (:func:`ours_column`) against ``paper``, judged by
    :func:`compared`, with what its runs did as the note (:func:`note_of`)."""
    source = "Joulin & Mikolov 2015, strings fully right, n < 20 → 60" if sequence else "Table 2"

    def check(judged: ChomskyNumbers):
        cell = judged.cell(task, model)
        return (ours_column(cell, sequence), *compared(cell, paper, sequence))

    def note(judged: ChomskyNumbers) -> str:
        return note_of(judged.cell(task, model), judged.doubled_cell(task, model), sequence)

    return Claim(f"{task}: {model}", f"{paper:.1f} ({source})", check, (f"{task}: {model}",),
                 note)


def runs_behind(runs: Mapping[tuple, TrainedRun]) -> Callable[[ChomskyNumbers, tuple], list]:
    """``runs_of`` for :func:`judged_rows`: the histories of the runs of ``runs`` (the first
    ones, or the continued ones) behind a row ("task: network")."""
    def runs_of(judged: ChomskyNumbers, rows: tuple) -> list:
        return [r.history for (task, model, _), r in runs.items() if f"{task}: {model}" in rows]
    return runs_of


def to_double(numbers: ChomskyNumbers, runs: Mapping[tuple, TrainedRun]) -> list[tuple]:
    """The runs to continue to twice their budget: every run of a row whose runs all converged
    and whose figure disagrees (:func:`deciding_models`)."""
    rows = set(deciding_models(claims(numbers), numbers, runs_behind(runs)))
    return [key for key in runs if f"{key[0]}: {key[1]}" in rows]


def table_rows(numbers: ChomskyNumbers, runs: Mapping[tuple, TrainedRun], settings, scale: str,
               doubled: ChomskyNumbers | None = None,
               again: Mapping[tuple, TrainedRun] | None = None) -> list[Row]:
    """One row per task × network: the paper's figure (Table 2, Joulin & Mikolov, or none), our
    best / mean [95 % interval] / how many runs fitted, and the verdict. ``doubled``: the
    numbers of ``again``, the runs :func:`to_double` picked, continued to twice their steps
    (trained before, by :func:`run`; None when no row needed them)."""
    sizes = (f"N = {settings.max_train_length}, tested to {settings.max_test_length}, "
             f"{settings.hidden_size} units"
             f", ≤ {settings.steps:,} steps, {len({k[2] for k in runs})} seeds")
    rows = [Row("protocol", "train ≤ 40, test 41–500, 256 units, 10^6 steps, 30 runs (§4)",
                sizes, "" if scale == "paper" else "smaller: the scores are over shorter test "
                "lengths, so a network that drifts slowly scores higher here than in the paper",
                "not comparable")]
    judged = {row.quantity: row for row in judged_rows(claims(numbers), numbers, doubled,
                                                         runs_behind(runs),
                                                         runs_behind(again or {}))}
    for task, cells in numbers.cells.items():
        for model, cell in cells.items():
            rows.append(judged.get(f"{task}: {model}")
                        or Row(f"{task}: {model}", "—", ours_column(cell), "no published figure"))
    return rows


def paper_figure(task: str, model: str) -> tuple[float | None, bool]:
    """The published figure for ``task`` and ``model`` (None if there is none), and whether it
    is a share of strings fully right (Joulin & Mikolov) rather than per-token accuracy."""
    if task == "anbn":
        return JOULIN_MIKOLOV_ANBN.get(model), True
    return TABLE_2.get(task, {}).get(model), False


def note_of(cell: Cell, continued: Cell | None = None, sequence: bool = False) -> str:
    """What the runs behind a row did, in words; ``continued``: the same runs continued to
    twice their steps and on to their own stop (``sequence``: the row compares the share of
    strings fully right, so that is the best given)."""
    if cell.fitted == 0:
        note = "no run fitted the training lengths: its score says nothing about generalising"
    else:
        note = (f"{cell.generalised} of the {cell.fitted} runs that fitted scored ≥ "
                f"{SOLVED:.0f} beyond the training lengths")
    if continued is not None:
        best = (f"strings fully right: best {continued.best_sequence:.1f}" if sequence
                else f"best {continued.best:.1f}")
        note += (f"; continued to twice their steps and on to their own stop: {best}, "
                 f"{continued.endings()}")
    return note


# -- the figures ---------------------------------------------------------------------------------


def curves_figure(runs: Mapping[tuple, TrainedRun], task: str):
    """Accuracy on the training lengths over the steps, one line per run of ``task``."""
    from ...analysis.curves import learning_curves

    return learning_curves({f"{r.model_name}, seed {r.seed}": r.history
                            for k, r in runs.items() if k[0] == task},
                           ("valid_accuracy",), x="step", title=task.replace("_", " "))


def lengths_figure(numbers: ChomskyNumbers, max_train_length: int):
    """Per task, the best run's accuracy at every test length, one line per network (the dashed
    line: the longest training length)."""
    from matplotlib.figure import Figure

    tasks = list(dict.fromkeys(r.task for r in numbers.runs))
    cols = min(4, len(tasks))
    rows = math.ceil(len(tasks) / cols)
    fig = Figure(figsize=(3.2 * cols, 2.5 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, sharey=True)).ravel()
    for ax, task in zip(axes, tasks):
        for i, model in enumerate(MODELS):
            mine = [r for r in numbers.runs if r.task == task and r.model == model]
            if mine:
                best = max(mine, key=lambda r: r.score)
                ax.plot(best.lengths, best.accuracy, color=f"C{i}", lw=1.2, label=model)
        ax.axvline(max_train_length, color="grey", ls="--", lw=1)
        ax.set_title(task.replace("_", " "), fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("length", fontsize=8)
    for ax in axes[len(tasks):]:
        ax.set_visible(False)
    axes[0].set_ylabel("accuracy (best run)")
    axes[0].legend(fontsize=7)
    return fig


# -- run -----------------------------------------------------------------------------------------


@dataclass
class ChomskyArtefacts:
    """For the chapter: every trained run by (task, network, seed), and those continued to
    twice their steps."""

    runs: dict
    doubled: dict


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """Train SRN, LSTM, URN and Stack-RNN on every task of ``settings.tasks`` (lengths ≤ N),
    test them beyond N, and set the scores beside Delétang et al.'s Table 2.

    ``numbers`` is a :class:`ChomskyNumbers`; ``runs`` every history ("reverse_string,
    Stack-RNN, seed 0"); ``artefacts`` a :class:`ChomskyArtefacts`; figures ``lengths`` and
    ``curves_<task>``.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, "seeds", device, progress)
    # settings: from here on, the overrides completed by the scale's settings
    settings = setup.settings
    runs = train_runs(settings, setup.seeds, setup.device, setup.progress)
    numbers = numbers_of(runs)

    def train_again(min_epochs, resume):
        return train_runs(settings, (), setup.device, setup.progress, resume, min_epochs)

    again = twice_the_budget(runs, to_double(numbers, runs), train_again,
                             epochs=lambda r: r.history.convergence.epochs)
    doubled = numbers_of(again) if again else None
    if doubled is not None:
        numbers.doubled_runs = doubled.runs
    rows = table_rows(numbers, runs, settings, setup.scale, doubled, again)
    named = {r.name: r.history for r in runs.values()}
    named.update({f"{r.name} (twice the budget)": r.history for r in again.values()})
    figures = {"lengths": lengths_figure(numbers, settings.max_train_length)}
    figures.update({f"curves_{task}": curves_figure(runs, task) for task in settings.tasks})
    return setup.replication(numbers, rows, figures, ChomskyArtefacts(runs, again),
                             named)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)

__all__ = [
    "run", "EXPERIMENTS", "SETTINGS", "ChomskySettings", "TASK_NAMES", "DEFAULT_TASKS",
    "MODELS", "TABLE_2", "JOULIN_MIKOLOV_ANBN", "SOLVED", "TrainedRun", "build",
    "training_data", "train_run", "run_status", "train_runs", "RunNumbers", "Cell",
    "t_interval", "cells_of", "ChomskyNumbers", "numbers_of", "compared", "claims", "to_double",
    "table_rows", "paper_figure", "curves_figure", "lengths_figure", "ChomskyArtefacts",
]
