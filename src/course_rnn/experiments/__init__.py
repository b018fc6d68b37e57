"""The course's experiments as library functions.

A chapter calls the very same function that ``python -m course_rnn replicate NAME`` calls, so no
experiment is written twice. Each is a package split by job: ``settings.py`` declares its
settings as a frozen :class:`~.settings.Settings` dataclass with one instance per scale
(``SETTINGS``, a :class:`~.settings.Scales`: "quick", the book's, and "paper"), ``run(scale,
seeds, device, progress, settings)`` starts with :func:`~.setup.begin` and returns a
:class:`~course_rnn.experiments.replication.Replication` (typed numbers, a :class:`~.records.Record`
the chapters read by attribute; the paper-vs-ours table; figures).

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

#: Every experiment's name and the module that holds it, in the order of the book. The CLI checks
#: names against this table before it imports anything heavy (torch, matplotlib, the models).
NAMES = {
    "bengio-kn": "bengio",
    "elman-clusters": "elman",
    "anbn": "anbn",
    "decay-rnn-agreement": "agreement",
    "tabor-table4": "tabor",
    "urn-dyck": "urn",
    "urn-cross-serial": "urn",
    "gym": "gym",
}
#: Modules holding experiments, in the order of the book.
MODULES = tuple(dict.fromkeys(NAMES.values()))
#: Names this package exports from its modules, imported on first use (so that reading NAMES
#: imports neither torch nor any experiment).
_LAZY = {"SCALES": "replication", "Experiment": "replication", "Replication": "replication",
         "Row": "replication", "GYM_LANGUAGES": "gym", "GYM_MODELS": "gym",
         "run_gym": "gym"}


def all_experiments() -> dict:
    """Every experiment (:class:`~.replication.Experiment`) by name, in the order of the book."""
    found = {}
    for module in MODULES:
        for experiment in importlib.import_module(f"{__name__}.{module}").EXPERIMENTS:
            found[experiment.name] = experiment
    return found


def get_experiment(name: str):
    """The experiment called ``name`` (only its own module is imported); ValueError listing the
    known names otherwise."""
    if name not in NAMES:
        raise ValueError(f"unknown experiment {name!r}: choose one of {', '.join(NAMES)}")
    module = importlib.import_module(f"{__name__}.{NAMES[name]}")
    return next(e for e in module.EXPERIMENTS if e.name == name)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NAMES", "MODULES", "all_experiments", "get_experiment", *_LAZY]
