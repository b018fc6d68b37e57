"""The syntax gym (chapter 7): every model of the course on every language, one row per run.

Each (model, language, seed) is trained as a language model with :func:`course_rnn.training.fit`
on short / shallow strings **until it has learned**: until its loss on held-out strings of the
training distribution stops improving (a :class:`~course_rnn.training.Plateau`; the epoch count
is only a cap, and a run that hits it is reported as not converged). It is then tested on
held-out *longer or deeper* strings, where nothing seen in training can be replayed. Two kinds of
score come back:

* a **common metric**, the same for every language: ``valid_strings``, the share of held-out
  strings on which *every* top prediction is a legal continuation (``valid_next``) – computed by
  :func:`course_rnn.metrics.next_symbol_validity` – and ``valid_positions``, the same share per
  position;
* the **language's own metric** (``own_metric`` names it, ``own`` holds it), the one its chapter
  uses: ``max_correct_n`` for a^n b^n (chapter 3), closing-bracket accuracy for Dyck with
  chapter 6's breakdown by attractors, inner nesting and outer depth (``breakdown``), Bernardy &
  Lappin's whole-string accuracy for cross-serial strings (chapter 6), the share of mirrored
  symbols predicted right for palindromes, and Linzen's agreement accuracy on sentences balanced
  by attractors (chapter 4).

=================  ===============================  ================================================
language           trained on                       tested on
=================  ===============================  ================================================
``anbn``           a^n b^n, n ≤ 10                  n = 11 … 20 (own metric: up to n = 40)
``dyck``           2 bracket pairs, length 16,      length 16, depth ≥ 5 (the seeds' generator)
                   depth exactly 3
``cross_serial``   a^m b^n c^m d^n, m + n ≤ 7 (C_8)  m + n = 8, 9 (the rest of C_10)
``palindrome``     w c w^R, |w| ≤ 6                 |w| = 7 … 9
``agreement``      the agreement grammar, ≤ 1 PP    ≤ 2 PPs, balanced over 0–3 attractors
=================  ===============================  ================================================

Models are built with :func:`course_rnn.models.build_model` at one state size (``hidden``) so that
the table compares inductive biases, not sizes; the parameter counts differ and are reported.
The FLNN (Tabor 2011) is a special-purpose network – a *linear* state that each word moves by
one affine map (a scalar contraction or expansion plus a shift) and a few Gaussian read-out
units. It is the dynamical automaton of chapter 5 made trainable, and runs where Tabor's
construction applies: a language whose next words depend on a **stack alone**, with no control
state (:data:`FLNN_LANGUAGES`: Dyck, where each bracket pushes or pops and the top of the stack
says what may close). a^n b^n and palindromes also need to know *which phase* of the string the
reader is in (before or after the first b, the marker), cross-serial strings need a queue, and
the agreement grammar is English; there :func:`applicable` is False and the gym skips it.
The Stack-RNN (Delétang et al. 2023, chapter 8) is the other end: a simple recurrent controller
with an external stack of vectors it pushes to and pops from (push, pop and no-op mixed by a
softmax), the network of the course whose memory is not bounded by its state. It runs on every
language at the gym's state size, its stack 64 cells of 8 numbers (the model's defaults; the
longest test string, a^40 b^40, reads 81 symbols, and only a^n b^n's a's would need pushing).

Independent runs train in parallel worker processes
(:func:`~course_rnn.experiments.workers.parallel_map`). ``run(scale="quick")`` is what chapter 7
calls; ``scale="paper"`` is larger; ``settings=`` overrides any entry of the scale's
:class:`~.settings.GymSettings` (a language's entries one by one: ``{"languages": {"anbn":
{"epochs": 2}}}``).

The package, by job: :mod:`.settings` (``GymSettings`` and its scales, the models and
languages), :mod:`.tasks` (each language's data and own metric), :mod:`.compute` (the training
runs), :mod:`.results` (the typed numbers), :mod:`.report` (the tables and the papers' claims),
:mod:`.figures` (heatmap and learning curves), and here :func:`run`, which puts them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..replication import Experiment, Replication, twice_the_budget
from ..setup import begin
from ..urn import dyck_cuts
from .compute import FLNN_LR_FACTORS, applicable, gym_run, run_gym
from .figures import gym_curves, gym_heatmap
from .report import (
    GymClaim,
    cells_to_double,
    dyck_breakdown_table,
    gym_claims,
    gym_claims_list,
    gym_table,
)
from .results import Cell, DyckCutPoints, GymArtefacts, GymNumbers, GymRun, cell_means
from .settings import (
    DEFAULT_SEEDS,
    DYCK_DEPTH,
    FLNN_LANGUAGES,
    GYM_LANGUAGES,
    GYM_MODELS,
    OWN_METRICS,
    SETTINGS,
    GymLanguageSettings,
    GymSettings,
)
from .tasks import Task, make_task


def run(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
        settings: Mapping | None = None, models: Iterable[str] | None = None,
        languages: Iterable[str] | None = None) -> Replication:
    """The gym as a replication: :func:`run_gym`, then :func:`gym_table`, :func:`gym_heatmap`,
    :func:`gym_curves` and :func:`gym_claims` (the papers' claims about which model wins, in the
    ``paper`` column; a disagreement is re-checked by continuing its runs to twice their epochs).

    ``scale`` "quick" is the book's (2 seeds), "paper" the large one (5 seeds); ``settings``
    overrides entries of the scale's :class:`~.settings.GymSettings` (an unknown key or a bad
    value: ValueError). ``numbers`` is a :class:`~.results.GymNumbers`: every run (``runs``),
    the per-cell means (``cells``) and the doubled-budget runs (``doubled``); ``runs`` every
    training history; ``artefacts`` a :class:`~.results.GymArtefacts`: the model × language
    ``table``, the ``dyck_breakdown`` table and the trained ``models`` keyed by (model,
    language, seed).
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress)
    cfg, seeds, device = setup.settings, setup.seeds, setup.device
    rows = run_gym(cfg, seeds=seeds, device=device, progress=progress, models=models,
                   languages=languages)

    def train_again(min_epochs: dict, resume: dict) -> dict:
        more = run_gym(cfg, seeds=seeds, device=device, progress=progress,
                       models=sorted({m for _, m, _ in resume}),
                       languages=sorted({lang for lang, _, _ in resume}), min_epochs=min_epochs,
                       resume={key: r.history for key, r in resume.items()})
        return {(r.language, r.model, r.seed): r for r in more}

    first = {(r.language, r.model, r.seed): r for r in rows}
    cells = cells_to_double(rows)
    deciding = sorted((key for key, r in first.items() if r.cell in cells),
                      key=lambda k: (k[0], k[1], seeds.index(k[2])))  # run_gym's order
    doubled = list(twice_the_budget(first, deciding, train_again).values())
    claims = gym_claims(rows, doubled)
    numbers = GymNumbers(rows, list(cell_means(rows).values()), doubled)
    histories = {f"{r.model} on {r.language} seed {r.seed}": r.history for r in rows}
    histories.update({f"{r.model} on {r.language} seed {r.seed} (2× budget)": r.history
                      for r in doubled})
    artefacts = GymArtefacts(gym_table(rows), dyck_breakdown_table(rows),
                             {(r.model, r.language, r.seed): r.trained for r in rows})
    figures = {"heatmap": gym_heatmap(rows), **gym_curves(rows)}
    return setup.replication(numbers, claims, figures, artefacts, histories)


EXPERIMENTS = (Experiment(
    name="gym",
    title="The syntax gym: SRN, GRU, LSTM, Decay RNN, URN, FLNN and Stack-RNN on five "
          "languages, and the papers' claims about who wins",
    chapter="07_syntax_gym", run=run, settings=SETTINGS),)

__all__ = [
    "run", "EXPERIMENTS", "SETTINGS", "GymSettings", "GymLanguageSettings", "DEFAULT_SEEDS",
    "GYM_MODELS", "GYM_LANGUAGES", "FLNN_LANGUAGES", "OWN_METRICS", "DYCK_DEPTH",
    "FLNN_LR_FACTORS", "Task", "make_task", "applicable", "gym_run", "run_gym", "GymRun",
    "Cell", "cell_means", "GymNumbers", "GymArtefacts", "DyckCutPoints", "gym_table",
    "dyck_breakdown_table", "GymClaim", "gym_claims_list", "cells_to_double", "gym_claims",
    "gym_heatmap", "gym_curves", "dyck_cuts",
]
