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

Progress: with progress on, one bar counts the finished runs and shows where each running one
is (``epoch 12 of ≤ 200, 1m05s (cap in ≤ 17m)``): every process listens to the training loops'
reports (:func:`course_rnn.training.listen_to_runs`) and sends them to the bar.

Workers: ``workers=`` if given, else ``$COURSE_RNN_WORKERS``, else the number of CPU cores (at
most the number of jobs); 1 runs everything in this process. On a GPU the default is 1 (one
process keeps the device busy).
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queues
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

import torch

from ..checks import check_count
from ..training.progress import describe_run, listen_to_runs, progress_enabled
from ..utils import pick_device


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
        elif pick_device(device).type == "cuda":  # None: the device the runs will pick
            workers = 1
        else:
            workers = os.cpu_count() or 1
    workers = check_count(workers, "workers")
    return max(1, min(workers, jobs))


class _Throttled:
    """A run listener that sends at most one report per ``every`` seconds (and every last one)."""

    def __init__(self, send: Callable[[dict], None], every: float = 0.5):
        self.send, self.every, self.last = send, every, -float("inf")

    def __call__(self, report: dict) -> None:
        now = time.perf_counter()
        if report["finished"] or now - self.last >= self.every:
            self.last = now
            self.send(report)


def _start_worker(threads: int, reports=None) -> None:
    torch.set_num_threads(threads)
    if reports is not None:  # progress on: this worker's runs report to the parent's bar
        pid = os.getpid()
        listen_to_runs(_Throttled(lambda report: reports.put((pid, report))))


class _RunsBar:
    """One tqdm bar over the jobs; its postfix says where each running job is."""

    def __init__(self, total: int, desc: str):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, desc=desc or "runs", unit="run", leave=False)
        self.running: dict[int, dict] = {}

    def report(self, who: int, report: dict) -> None:
        if report["finished"]:
            self.running.pop(who, None)
        else:
            self.running[who] = report
        self.bar.set_postfix_str("; ".join(describe_run(r) for _, r in
                                           sorted(self.running.items())), refresh=False)
        self.bar.refresh()

    def finished(self, count: int) -> None:
        self.bar.update(count)

    def close(self) -> None:
        self.bar.close()


def parallel_map(function: Callable, jobs: Iterable[Sequence], *, workers: int | None = None,
                 threads: int = 1, device=None, desc: str = "",
                 progress: bool | None = None) -> list:
    """``[function(*job) for job in jobs]``, computed in parallel processes (each with
    ``threads`` torch threads), in the order of ``jobs``."""
    jobs = [tuple(job) for job in jobs]
    if not jobs:
        return []
    count = worker_count(workers, len(jobs), device)
    bar = _RunsBar(len(jobs), desc) if progress_enabled(progress) else None
    try:
        if count == 1:
            return _in_this_process(function, jobs, bar)
        return _in_workers(function, jobs, count, threads, bar)
    finally:
        if bar is not None:
            bar.close()


def _in_this_process(function: Callable, jobs: list[tuple], bar: _RunsBar | None) -> list:
    previous = listen_to_runs(_Throttled(lambda r: bar.report(0, r))) if bar else None
    try:
        results = []
        for job in jobs:
            results.append(function(*job))
            if bar is not None:
                bar.finished(1)
        return results
    finally:
        if bar is not None:
            listen_to_runs(previous)


def _in_workers(function: Callable, jobs: list[tuple], count: int, threads: int,
                bar: _RunsBar | None) -> list:
    context = multiprocessing.get_context("spawn")  # fork is unsafe once torch has threads
    reports = context.Queue() if bar is not None else None
    with ProcessPoolExecutor(count, mp_context=context, initializer=_start_worker,
                             initargs=(threads, reports)) as pool:
        futures = [pool.submit(function, *job) for job in jobs]
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.5 if bar else None,
                                 return_when=FIRST_COMPLETED)
            if bar is not None:
                _drain(reports, bar)
                bar.finished(len(done))
            if any(f.exception() is not None for f in done):
                break  # the first failure is raised below, as the serial loop would
        return [f.result() for f in futures]


def _drain(reports, bar: _RunsBar) -> None:
    while True:
        try:
            who, report = reports.get_nowait()
        except queues.Empty:
            return
        bar.report(who, report)
