"""Independent training runs (seeds, models) in parallel worker processes.

Training a model to convergence takes longer than a fixed handful of steps, and an experiment
trains many independent models. The tiny models of the course use one CPU thread best (two
threads fighting over two cores are many times slower), so the way to use a second core is a
second *process*::

    results = parallel_map(train_one, [("lstm", 0), ("lstm", 1), ("gru", 0)])

calls ``train_one("lstm", 0)`` … in ``workers`` processes and returns the results in the order
of the jobs. Every job seeds itself, so the numbers do not depend on the number of workers or on
which worker ran what. ``function`` must be importable (defined at the top level of a module), and
what it returns is pickled back (models, histories and plain numbers all are).

Workers: ``workers=`` if given, else ``$COURSE_RNN_WORKERS``, else the number of CPU cores (at
most the number of jobs); 1 runs everything in this process. On a GPU the default is 1 (one
process keeps the device busy).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor

import torch

from .replication import steps


def worker_count(workers: int | None, jobs: int, device=None) -> int:
    """How many processes to use for ``jobs`` jobs (see the module docstring)."""
    if workers is None:
        text = os.environ.get("COURSE_RNN_WORKERS")
        if text:
            try:
                workers = int(text)
            except ValueError:
                raise ValueError(f"$COURSE_RNN_WORKERS must be an integer, got {text!r}") \
                    from None
        elif device is not None and torch.device(device).type == "cuda":
            workers = 1
        else:
            workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ValueError(f"workers must be an integer ≥ 0, got {workers!r}")
    return max(1, min(workers, jobs))


def _start_worker(threads: int) -> None:
    torch.set_num_threads(threads)


def parallel_map(function: Callable, jobs: Iterable[Sequence], *, workers: int | None = None,
                 threads: int = 1, device=None, desc: str = "",
                 progress: bool | None = None) -> list:
    """``[function(*job) for job in jobs]``, computed in parallel processes (each with
    ``threads`` torch threads), in the order of ``jobs``."""
    jobs = [tuple(job) for job in jobs]
    if not jobs:
        return []
    count = worker_count(workers, len(jobs), device)
    if count == 1:
        return [function(*job) for job in steps(jobs, len(jobs), desc, progress)]
    context = multiprocessing.get_context("spawn")  # fork is unsafe once torch has threads
    with ProcessPoolExecutor(count, mp_context=context, initializer=_start_worker,
                             initargs=(threads,)) as pool:
        futures = [pool.submit(function, *job) for job in jobs]
        return [f.result() for f in steps(futures, len(futures), desc, progress)]
