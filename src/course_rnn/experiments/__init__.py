"""The course's experiments as library functions.

A chapter calls the very same function that ``python -m course_rnn replicate NAME`` calls, so no
experiment is written twice. Each module holds its settings per scale (``SETTINGS``: "quick", the
book's, and "paper") and a ``run(scale, seeds, device, progress, settings)`` that returns a
:class:`~course_rnn.experiments.replication.Replication` (numbers, paper-vs-ours table, figures).

=========================  =====================================  ===========================
name                       module                                 chapter
=========================  =====================================  ===========================
``bengio-kn``              :mod:`~course_rnn.experiments.bengio`     1, Bengio et al. (2003)
``elman-clusters``         :mod:`~course_rnn.experiments.elman`      2, Elman (1990)
``anbn``                   :mod:`~course_rnn.experiments.anbn`       3, counting with gates
``decay-rnn-agreement``    :mod:`~course_rnn.experiments.agreement`  4, Bhatt et al. (2020)
``tabor-table4``           :mod:`~course_rnn.experiments.tabor`      5, Tabor (2011)
``urn-dyck``               :mod:`~course_rnn.experiments.urn`        6, Bernardy & Lappin
``urn-cross-serial``       :mod:`~course_rnn.experiments.urn`        6, Bernardy & Lappin (2023)
``gym``                    :mod:`~course_rnn.experiments.gym`        7, the syntax gym
=========================  =====================================  ===========================
"""

from __future__ import annotations

import importlib

from .gym import GYM_LANGUAGES, GYM_MODELS, gym_settings, run_gym
from .replication import SCALES, Experiment, Replication, Row

#: Modules holding experiments, in the order of the book.
MODULES = ("bengio", "elman", "anbn", "agreement", "tabor", "urn", "gym")


def all_experiments() -> dict[str, Experiment]:
    """Every experiment by name, in the order of the book."""
    found: dict[str, Experiment] = {}
    for module in MODULES:
        for experiment in importlib.import_module(f"{__name__}.{module}").EXPERIMENTS:
            found[experiment.name] = experiment
    return found


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; ValueError listing the known names otherwise."""
    experiments = all_experiments()
    if name not in experiments:
        raise ValueError(f"unknown experiment {name!r}: choose one of {', '.join(experiments)}")
    return experiments[name]


__all__ = ["GYM_LANGUAGES", "GYM_MODELS", "MODULES", "SCALES", "Experiment", "Replication", "Row",
           "all_experiments", "get_experiment", "gym_settings", "run_gym"]
