"""Progress: a bar for one training run, and reports from inside runs for whoever shows many.

A run shows its own tqdm bar when ``progress`` is on (:func:`progress_enabled`). An experiment
that trains many runs at once (:func:`~course_rnn.experiments.workers.parallel_map`) shows one bar
over the runs instead, and needs to know how far each run has got: it installs a *listener*
(:func:`listen_to_runs`) in every process that trains, and :func:`report_run`, called by the
training loops at every evaluation, hands the listener a small dict::

    {"done": 12, "total": 200, "unit": "epoch", "seconds": 65.2, "finished": False}

(``total`` is the run's cap: a run that converges stops earlier). With no listener installed,
:func:`report_run` does nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ..context import run_context

_listener: Callable[[dict], None] | None = None


def progress_enabled(progress: bool | None) -> bool:
    """Progress bars are on by default, off when ``$COURSE_RNN_PROGRESS=0`` (book builds, CI)."""
    if progress is not None:
        return progress
    return run_context().progress


def listen_to_runs(listener: Callable[[dict], None] | None):
    """Send this process's run reports to ``listener`` (None: to nobody); returns the previous
    listener, so that a caller can put it back."""
    global _listener
    previous, _listener = _listener, listener
    return previous


def report_run(done: float, total: float, unit: str, started: float,
               finished: bool = False) -> None:
    """Tell the listener (if any) that a run has done ``done`` of at most ``total`` ``unit``s
    in the seconds since ``started`` (a ``time.perf_counter()``)."""
    if _listener is not None:
        _listener({"done": done, "total": total, "unit": unit,
                   "seconds": time.perf_counter() - started, "finished": finished})


def describe_run(report: dict) -> str:
    """``"epoch 12 of ≤ 200, 1m05s (cap in ≤ 17m)"``: where a run is, and the most it can
    still take (a run that converges stops before its cap)."""
    done, total, unit, seconds = (report[k] for k in ("done", "total", "unit", "seconds"))
    text = f"{unit} {done:g} of ≤ {total:g}, {_duration(seconds)}"
    if 0 < done < total:
        text += f" (cap in ≤ {_duration(seconds / done * (total - done))})"
    return text


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class EpochProgress:
    """tqdm over evaluations, showing the latest losses; silent when progress is off. Reports
    every evaluation to the run listener either way (:func:`report_run`)."""

    def __init__(self, total: int, progress: bool | None, epochs_cap: float,
                 unit: str = "epoch"):
        self.bar = None
        self.start = time.perf_counter()
        self.epochs_cap, self.unit, self.done = epochs_cap, unit, 0.0
        if progress_enabled(progress):
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="training", unit="eval", file=sys.stderr)

    def update(self, record: dict, done: float | None = None) -> None:
        self.done = record.get("epoch", 0) if done is None else done
        report_run(self.done, self.epochs_cap, self.unit, self.start)
        if self.bar is not None:
            shown = {k: f"{v:.4f}" for k, v in record.items() if k.endswith("loss")}
            self.bar.set_postfix(shown)
            self.bar.update(1)

    def close(self) -> None:
        report_run(self.done, self.epochs_cap, self.unit, self.start, finished=True)
        if self.bar is not None:
            self.bar.close()
