"""What every experiment's ``run()`` settles before any work, written once.

Every replication starts the same way: read the scale, apply the caller's overrides to that
scale's settings, turn ``seeds`` into a list, pick the device, start the clock; and it ends by
packing what it measured into a :class:`~.replication.Replication`. :func:`begin` does the first
part (every bad argument is a ValueError before any training), :meth:`Setup.replication` the
last. ``begin`` is where a run's device is chosen, once (the command line passes its run
context's device name here too): ``Setup.device`` goes on to the run's helpers and to
:func:`~.workers.parallel_map`, which choose it no more, and each job's
:func:`~course_rnn.training.fit` resolves the name it is given in its own process::

    def run(scale="quick", seeds=None, device=None, progress=None, settings=None, workers=None):
        setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                      progress, workers)
        ...  # train with setup.settings, setup.seeds, setup.device, setup.progress
        return setup.replication(numbers, rows, figures, artefacts, runs)
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import torch

from ..utils import pick_device
from .provenance import now, provenance
from .replication import Experiment, Replication, Row, seed_list
from .settings import Scales, Settings, normalise_scale


@dataclass(frozen=True)
class Setup:
    """One run's checked arguments: the ``experiment`` (its :class:`Experiment` record), the
    ``scale`` ("quick" or "paper"), the ``settings`` of that scale with the overrides applied,
    the ``seeds`` (a list of distinct integers), the ``device``, ``progress`` (None: on unless
    ``$COURSE_RNN_PROGRESS=0``) and ``workers`` (None: ``$COURSE_RNN_WORKERS`` or the CPU
    count), when it started (``started``: the clock; ``date``: the local date and time) and
    the ``overrides`` of the scale's settings (the changed settings' new values)."""

    experiment: Experiment
    scale: str
    settings: Settings
    seeds: list[int]
    device: torch.device
    progress: bool | None = None
    workers: int | None = None
    started: float = field(default_factory=time.perf_counter)
    overrides: dict = field(default_factory=dict)
    date: str = field(default_factory=now)

    def replication(self, numbers, rows: list[Row], figures: dict, artefacts=None,
                    runs: Mapping | None = None) -> Replication:
        """What the run measured, as the :class:`Replication` that chapters show and the CLI
        saves; ``seconds`` is the wall time since :func:`begin`, ``provenance`` says which code
        made it, when, and which settings were changed (:mod:`.provenance`; the command line
        adds its command)."""
        return Replication(
            experiment=self.experiment.name, title=self.experiment.title, scale=self.scale,
            seeds=self.seeds, device=str(self.device), settings=self.settings, numbers=numbers,
            rows=rows, figures=figures, artefacts=artefacts if artefacts is not None else {},
            seconds=time.perf_counter() - self.started, runs=dict(runs or {}),
            provenance=provenance(self.overrides, started=self.date))


def begin(experiment: Experiment, scales: Scales, scale: str | None,
          settings: Mapping | None = None, seeds: int | Iterable[int] | None = None,
          default_seeds: int | Mapping[str, int] | str = 1, device=None,
          progress: bool | None = None, workers: int | None = None) -> Setup:
    """Check a ``run()``'s arguments and start its clock (see the module docstring).

    ``scales`` are the experiment's settings per scale; ``settings`` overrides entries of the
    chosen scale's (an unknown key or a bad value: ValueError naming it); ``seeds`` is a count
    N (seeds 0 … N−1) or a list of distinct integers, ``default_seeds`` the count used when it
    is None (one number, one per scale, or the name of the setting that holds it).
    """
    scale = normalise_scale(scale)
    chosen = scales.at(scale, settings)
    if isinstance(default_seeds, str):
        default_seeds = getattr(chosen, default_seeds)
    elif isinstance(default_seeds, Mapping):  # "full" runs the paper's seeds unless it says
        default_seeds = default_seeds.get(scale, default_seeds["paper"])
    seeds = seed_list(seeds, default_seeds)
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be different from each other, got {seeds}")
    saved = chosen.to_json()  # each changed setting's value, as results.json saves settings
    overrides = {key: saved.get(key) for key in (settings or {})}
    return Setup(experiment, scale, chosen, seeds, pick_device(device), progress, workers,
                 overrides=overrides)
