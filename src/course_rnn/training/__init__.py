"""Training: one loop for every model of the course, and the record of whether it learned.

==================================  ==========================================================
:func:`fit`                         the loop (any model, any task, a budget in epochs or
                                    steps); returns a :class:`History` (:mod:`~.history`: the
                                    record, and resuming a run)
:mod:`~.tasks`                      what is learned from what: :class:`LanguageModelling`,
                                    :class:`Classification`, :class:`NextWord`,
                                    :class:`ExactDistributions`
:mod:`~.transduction`               string-to-string tasks (Delétang et al. 2023):
                                    :class:`TransductionTask`, fresh strings each step
                                    (:class:`Curriculum`), :func:`length_generalisation`
:mod:`~.convergence`                when a model has learned: :class:`Plateau`,
                                    :class:`Target`, :class:`Optimum`, :class:`AnyOf`; the
                                    :class:`Convergence` record; :func:`tally`, a page's
                                    runs in one sentence
:mod:`~.optim`                      optimizers by name, schedules (:class:`StepDecay`,
                                    :class:`Cosine`, :class:`ReduceOnPlateau`), init hooks
:func:`hill_climb`                  Tabor's gradient-sampling climber for the FLNN
:func:`save_checkpoint` / load      a trained sequence model in one file
==================================  ==========================================================

Dependencies point one way: ``training`` imports ``languages`` and ``models``; no model imports
``training``.
"""

from .checkpoints import load_checkpoint, save_checkpoint
from .convergence import (
    STOPS,
    AnyOf,
    Convergence,
    Optimum,
    Plateau,
    Target,
    all_converged,
    converged,
    tally,
)
from .hill_climb import RADII, hill_climb
from .history import History
from .loop import fit
from .optim import (
    OPTIMIZERS,
    SCHEDULES,
    Cosine,
    ReduceOnPlateau,
    StepDecay,
    normal_embeddings,
)
from .progress import listen_to_runs, progress_enabled, report_run
from .tasks import (
    Classification,
    ExactDistributions,
    LanguageModelling,
    NextWord,
    Task,
    evaluate_loss,
    perplexity,
)
from .transduction import (
    Curriculum,
    LengthScores,
    TransductionTask,
    length_generalisation,
)

__all__ = [
    "fit", "History", "progress_enabled", "listen_to_runs", "report_run",
    "Task", "LanguageModelling", "Classification", "NextWord", "ExactDistributions",
    "evaluate_loss", "perplexity",
    "TransductionTask", "Curriculum", "length_generalisation", "LengthScores",
    "Plateau", "Target", "Optimum", "AnyOf", "Convergence", "STOPS", "converged", "all_converged",
    "tally",
    "OPTIMIZERS", "SCHEDULES", "StepDecay", "Cosine", "ReduceOnPlateau", "normal_embeddings",
    "hill_climb", "RADII", "save_checkpoint", "load_checkpoint",
]
