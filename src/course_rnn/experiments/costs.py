"""How long a replication takes, said before it starts.

``costs.json`` (beside this file) holds measured runs of ``python -m course_rnn replicate NAME
--scale S``: their wall time, the CPU time of the process and its worker processes, the number
of workers and cores, the machine, date and commit. ``benchmarks/replication_costs.py`` writes
it; nothing here guesses a number that was not measured. Reading it imports no torch, so the CLI
can say, before any work, roughly how long the run will take here:

    >>> estimate("anbn", "quick", cores=2)      # doctest: +SKIP
    'roughly 2 min on 2 CPU cores (measured: 2 min wall, 4 min CPU on a 2-core x86_64 CPU, …)'

The estimate spreads the measured CPU time over the cores the run's worker processes can use
(its training runs are independent jobs): rough, and said to be.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

COSTS = Path(__file__).with_name("costs.json")


def load(path: Path = COSTS) -> dict:
    """``{experiment: {scale: record}}`` (empty when nothing was measured)."""
    if not path.exists():
        return {}
    return json.loads(path.read_text())["experiments"]


def minutes(seconds: float) -> str:
    """``"40 s"``, ``"3 min"``, ``"1.5 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def expected_seconds(record: dict, cores: int) -> float:
    """The measured CPU time (of the process and its workers) spread over the cores the run's
    worker processes can use here. CPU time, not wall time: it stays put when the measuring
    machine was shared, where wall time grows. Rough on the low side: a run whose last job
    trains alone leaves cores idle."""
    return record["cpu_s"] / max(1, min(cores, record["workers"]))


def estimate(name: str, scale: str, cores: int | None = None, path: Path = COSTS) -> str:
    """A sentence for the CLI: roughly how long ``replicate name --scale scale`` takes on a CPU
    with ``cores`` cores (default: this one's), from the measured run; or that it was never
    measured."""
    cores = cores or os.cpu_count() or 1
    record = load(path).get(name, {}).get(scale)
    if record is None:
        return (f"no run of {name} at scale {scale} has been timed yet "
                f"(benchmarks/replication_costs.py measures one)")
    return (f"roughly {minutes(expected_seconds(record, cores))} on {cores} CPU core"
            f"{'s' if cores != 1 else ''} (measured: {minutes(record['wall_s'])} wall, "
            f"{minutes(record['cpu_s'])} CPU on a {record['cores']}-core {record['machine']}, "
            f"{record['date']}); a GPU can change this either way")
