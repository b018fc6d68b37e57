"""The course's experiments as library functions.

A chapter calls the very same function that ``python -m course_rnn replicate NAME`` calls, so no
experiment is written twice. Each is one module, ``<name>/__init__.py``, read top to bottom in
the order its ``run`` uses it (jobs, numbers, rows, figures, ``run``; urn's cross-serial
experiment is the second module ``urn/cross_serial.py``), beside a light ``<name>/settings.py``
that the command line reads without torch: it declares the settings as a frozen
:class:`~.settings.Settings` dataclass with one instance per scale (``SETTINGS``, a
:class:`~.settings.Scales`: "quick", the book's, and "paper"). ``run(scale, seeds, device,
progress, settings)`` starts with :func:`~.setup.begin` and returns a
:class:`~course_rnn.experiments.replication.Replication` (typed numbers, a :class:`~.records.Record`
the chapters read by attribute; the paper-vs-ours table; figures).

=======================  ===============================================  =================
name                     module                                           chapter
=======================  ===============================================  =================
``bengio-kn``            :mod:`~course_rnn.experiments.bengio`            1, Bengio et al. (2003)
``elman-clusters``       :mod:`~course_rnn.experiments.elman`             2, Elman (1990)
``anbn``                 :mod:`~course_rnn.experiments.anbn`              3, counting with gates
``decay-rnn-agreement``  :mod:`~course_rnn.experiments.agreement`         4, Bhatt et al. (2020)
``tabor-table4``         :mod:`~course_rnn.experiments.tabor`             5, Tabor (2011)
``urn-dyck``             :mod:`~course_rnn.experiments.urn`               6, Bernardy & Lappin
``urn-cross-serial``     :mod:`~course_rnn.experiments.urn.cross_serial`  6, Bernardy & Lappin
``gym``                  :mod:`~course_rnn.experiments.gym`               7, the syntax gym
``chomsky``              :mod:`~course_rnn.experiments.chomsky`           8, Delétang et al. (2023)
=======================  ===============================================  =================
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

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
    "chomsky": "chomsky",
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


@contextlib.contextmanager
def _scales_of(name: str) -> Iterator:
    """The :class:`~.settings.Scales` of experiment ``name``. When its package is not imported
    yet, its ``settings.py`` is read alone (it imports no torch, matplotlib or experiment code:
    the tables of ``course_rnn.models`` and :mod:`.settings` only), lent to ``sys.modules`` for
    the ``with`` block (the settings' type hints are resolved there) and taken back after, so
    that importing the experiment later runs its package as usual."""
    if name not in NAMES:
        raise ValueError(f"unknown experiment {name!r}: choose one of {', '.join(NAMES)}")
    package = f"{__name__}.{NAMES[name]}"
    if package in sys.modules:
        yield get_experiment(name).settings
        return
    spec = importlib.util.spec_from_file_location(
        f"{package}.settings", Path(__file__).parent / NAMES[name] / "settings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        from .settings import Scales

        yield next(v for v in vars(module).values()
                   if isinstance(v, Scales) and v.kind.experiment == name)
    finally:
        sys.modules.pop(spec.name, None)


def check_overrides(name: str, scale: str, overrides: Mapping | None) -> None:
    """ValueError naming the setting when ``overrides`` (``--set`` texts or values) do not fit
    the settings of experiment ``name`` at ``scale`` (an unknown name, a bad value, a rule
    between settings), exactly as ``run`` would say it, but before torch or the experiment is
    imported: the command line refuses a bad ``--set`` at once."""
    with _scales_of(name) as scales:
        scales.at(scale, overrides)


def about() -> dict[str, tuple[str, str]]:
    """Each experiment's (title, chapter), as its settings declare them: what ``python -m
    course_rnn --help`` and ``list`` show, read without importing the experiments (which loads
    torch and matplotlib: seconds)."""
    found = {}
    for name in NAMES:
        with _scales_of(name) as scales:
            found[name] = (scales.kind.title, scales.kind.chapter)
    return found


def has_scale(name: str, scale: str) -> bool:
    """Whether experiment ``name`` has settings for ``scale`` (read as :func:`check_overrides`
    reads them, without importing torch)."""
    with _scales_of(name) as scales:
        return scale in scales


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NAMES", "MODULES", "about", "all_experiments", "get_experiment", "check_overrides",
           "has_scale", *_LAZY]
