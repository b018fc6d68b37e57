"""Independent training runs (seeds, models) in parallel: worker processes, or any executor.

Training a model to convergence takes longer than a fixed handful of steps, and an experiment
trains many independent models. The tiny models of the course use one CPU thread best (two
threads fighting over two cores are many times slower), so the way to use a second core is a
second *process*::

    results = parallel_map(train_one, [("lstm", 0), ("lstm", 1), ("gru", 0)])

calls ``train_one("lstm", 0)`` … in ``workers`` processes and returns the results in the order
of the jobs. Every job seeds itself, so the numbers do not depend on the number of workers, on
which worker ran what, or on the executor. ``function`` must be importable (defined at the top
level of a module), and what it returns is pickled back (models, histories and plain numbers
all are).

Workers: ``workers=`` if given, else ``$COURSE_RNN_WORKERS``, else the number of CPU cores (at
most the number of jobs); 1 runs everything in this process. On a GPU the default is 1 (one
process keeps the device busy): ``device=`` says where the jobs run, as the caller resolved it
(an experiment passes its ``Setup.device``); it is not chosen again here.

Executors: ``executor=``, or the process-wide one set by :func:`use_executor`, runs the jobs
instead of local processes: any :class:`concurrent.futures.Executor` whose workers can import
``function``, e.g. a Dask cluster's (``Client(address).get_executor()``; ``replicate
--executor dask://HOST:PORT`` connects one, :mod:`.cluster`). The experiments call
``parallel_map`` themselves, so the command line sets the executor for all of them at once
rather than every ``run`` growing an argument. Every worker takes this process's run context
(:mod:`course_rnn.context`: the seed offset, the checked device …) as one value, and its torch
threads, before its first job (a Dask worker inherits neither).

Nothing finished is lost: inside ``with keep_jobs(folder):`` every finished job's result is
written into ``folder`` as it completes (:class:`~.jobstore.JobStore`), and a job whose result
is stored there is loaded instead of run. That is how ``replicate --resume`` continues a run that
crashed, was killed or was interrupted. With a store, a job that raises does not stop the others:
they finish and are stored, then :class:`~.jobstore.JobsFailed` names every failed job. Without
one, the first failure is raised at once (nothing finished after it could be kept). Outside
``keep_jobs``, the run context's ``jobs`` folder (``$COURSE_RNN_JOBS``) is the store when it is
set: a book build sets it, so that a page that shows another page's runs loads them.

Progress: with progress on, one bar counts the finished runs (loaded ones at once) and, for local
processes, shows where each running one is (``epoch 12 of ≤ 200, 1m05s (cap in ≤ 17m)``): every
process listens to the training loops' reports (:func:`course_rnn.training.listen_to_runs`) and
sends them to the bar. An executor's runs are counted as they finish.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue as queues
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import torch

from ..checks import check_count
from ..context import VARIABLES, RunContext, run_context
from ..device_check import NAME as CHECKED
from ..device_check import is_on as checking_devices
from ..device_check import switch_on as check_devices
from ..training.progress import describe_run, listen_to_runs, progress_enabled
from .jobstore import Failure, JobsFailed, JobStore

#: The executor and the job store that :func:`parallel_map` uses when its caller names none
#: (set by :func:`use_executor` and :func:`keep_jobs`).
_executor: Executor | None = None
_store: JobStore | None = None


@contextmanager
def use_executor(executor: Executor | None) -> Iterator[Executor | None]:
    """Inside ``with use_executor(executor):`` every :func:`parallel_map` without an
    ``executor=`` of its own runs its jobs on ``executor`` (None: local processes). The
    executor stays the caller's: it is not shut down here."""
    global _executor
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(f"use_executor needs a concurrent.futures.Executor (or None), got "
                        f"{type(executor).__name__}")
    previous, _executor = _executor, executor
    try:
        yield executor
    finally:
        _executor = previous


@contextmanager
def keep_jobs(folder: str | Path) -> Iterator[JobStore]:
    """Inside ``with keep_jobs(folder) as store:`` every :func:`parallel_map` writes each
    finished job's result into ``folder`` and loads, instead of running, a job stored there
    (see the module docstring). ``store.loaded`` and ``store.saved`` count both."""
    global _store
    previous, _store = _store, JobStore(folder)
    try:
        yield _store
    finally:
        _store = previous


def worker_count(workers: int | None, jobs: int, device=None) -> int:
    """How many processes to use for ``jobs`` jobs (see the module docstring). ``device`` is
    the device the jobs run on as their caller resolved it (an experiment's ``Setup.device``,
    or its name), not chosen again here; None: the run context's device name (None there too:
    not a GPU)."""
    if workers is None:
        workers = run_context().workers
    if workers is None:
        named = str(device) if device is not None else run_context().device or ""
        on_a_gpu = named.split(":")[0] == "cuda"
        workers = 1 if on_a_gpu else os.cpu_count() or 1
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


def jobs_context() -> RunContext:
    """This process's run context as its jobs need it: the environment's, with the checked
    device when the check is on (``pick_device("checked")`` switches it on without the
    variable)."""
    context = run_context()
    return replace(context, device=CHECKED) if checking_devices() else context


def _adopt(context: RunContext, threads: int) -> None:
    """Make this worker run as its parent: its run context and ``threads`` torch threads. The
    device is the jobs' own argument: the context's only switches the check on, once, before
    any job's arguments (which may name it) are unpickled; a job that picks its own device
    (None) gets the worker's environment's, as it would in the parent."""
    torch.set_num_threads(threads)
    device = VARIABLES["device"]
    os.environ.update({k: v for k, v in context.variables().items() if k != device})
    if context.device == CHECKED:
        check_devices()


def _start_worker(context: RunContext, threads: int, reports=None) -> None:
    _adopt(context, threads)
    if reports is not None:  # progress on: this worker's runs report to the parent's bar
        pid = os.getpid()
        listen_to_runs(_Throttled(lambda report: reports.put((pid, report))))


class _Job:
    """``function`` as an executor's worker calls it: with ``threads`` torch threads and this
    process's run ``context``, since a worker started elsewhere (a Dask worker on another
    machine) shares neither. A top-level class, so that it pickles.

    The arguments come and the result goes back as one pickle each (:func:`_pack`), as they do
    to a local process: Dask's own serializers take a model apart without its ``__getstate__``
    (an LSTM's weak references then fail, and a result Dask cannot send is recomputed for
    ever), and a result that cannot be pickled is this job's error, not the cluster's."""

    def __init__(self, function: Callable, threads: int, context: RunContext):
        self.function, self.threads, self.context = function, threads, context
        self.__name__ = getattr(function, "__name__", "job")  # what Dask's dashboard shows

    def __call__(self, packed: bytes) -> bytes:
        _adopt(self.context, self.threads)
        return _pack(self.function(*pickle.loads(packed)))


def _pack(value) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


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
        self.bar.refresh()  # runs finish seldom: always show the count, never a stale one

    def close(self) -> None:
        self.bar.close()


class _Outcomes:
    """What the jobs gave, as they finish: each result is stored at once (with a store) and
    counted on the bar. A failure is raised at once without a store, and kept with one, so that
    the other jobs still finish and are stored."""

    def __init__(self, function: Callable, jobs: list[tuple], store: JobStore | None,
                 bar: _RunsBar | None):
        self.function, self.jobs, self.store, self.bar = function, jobs, store, bar
        self.results: dict[int, object] = {}
        self.failures: list[Failure] = []

    def finished(self, index: int, result) -> None:
        if self.store is not None:
            self.store.save(self.function, self.jobs[index], result)
        self.results[index] = result
        self._count()

    def failed(self, index: int, error: BaseException) -> None:
        if self.store is None:
            raise error
        self.failures.append(Failure.of(self.function, self.jobs[index], error))
        self._count()

    def _count(self) -> None:
        if self.bar is not None:
            self.bar.finished(1)


def parallel_map(function: Callable, jobs: Iterable[Sequence], *, workers: int | None = None,
                 threads: int = 1, device=None, desc: str = "", progress: bool | None = None,
                 executor: Executor | None = None) -> list:
    """``[function(*job) for job in jobs]``, computed in parallel processes (each with
    ``threads`` torch threads) or on ``executor`` (None: the one :func:`use_executor` set, else
    local processes), in the order of ``jobs``; inside :func:`keep_jobs`, stored jobs are
    loaded and finished ones stored (see the module docstring)."""
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(f"executor= takes a concurrent.futures.Executor, got "
                        f"{type(executor).__name__}")
    jobs = [tuple(job) for job in jobs]
    if not jobs:
        return []
    store, executor = _job_store(), executor if executor is not None else _executor
    stored = store.load_all(function, jobs) if store is not None else {}
    missing = [i for i in range(len(jobs)) if i not in stored]
    bar = _RunsBar(len(jobs), desc) if progress_enabled(progress) else None
    outcomes = _Outcomes(function, jobs, store, bar)
    try:
        if bar is not None and stored:
            bar.finished(len(stored))
        if missing:
            _run(outcomes, missing, workers, threads, device, executor)
    finally:
        if bar is not None:
            bar.close()
    if outcomes.failures:
        raise JobsFailed(outcomes.failures, len(jobs))
    results = {**stored, **outcomes.results}
    return [results[i] for i in range(len(jobs))]


def _job_store() -> JobStore | None:
    """The store of :func:`keep_jobs`, else the run context's ``jobs`` folder's, else None."""
    if _store is not None:
        return _store
    folder = run_context().jobs
    return JobStore(folder) if folder else None


def _run(outcomes: _Outcomes, missing: list[int], workers: int | None, threads: int, device,
         executor: Executor | None) -> None:
    """Run the jobs ``missing`` (indices) on the executor, in this process or in workers."""
    if executor is not None:
        call = _Job(outcomes.function, threads, jobs_context())
        futures = {executor.submit(call, _pack(outcomes.jobs[i])): i for i in missing}
        _collect(futures, outcomes, unpack=pickle.loads)
        return
    count = worker_count(workers, len(missing), device)
    if count == 1:
        _in_this_process(outcomes, missing)
    else:
        _in_workers(outcomes, missing, count, threads)


def _in_this_process(outcomes: _Outcomes, missing: list[int]) -> None:
    bar = outcomes.bar
    previous = listen_to_runs(_Throttled(lambda r: bar.report(0, r))) if bar else None
    try:
        for index in missing:
            try:
                result = outcomes.function(*outcomes.jobs[index])
            except Exception as error:
                outcomes.failed(index, error)  # raised again here without a store
            else:
                outcomes.finished(index, result)
    finally:
        if bar is not None:
            listen_to_runs(previous)


def _in_workers(outcomes: _Outcomes, missing: list[int], count: int, threads: int) -> None:
    spawn = multiprocessing.get_context("spawn")  # fork is unsafe once torch has threads
    bar = outcomes.bar
    reports = spawn.Queue() if bar is not None else None
    with ProcessPoolExecutor(count, mp_context=spawn, initializer=_start_worker,
                             initargs=(jobs_context(), threads, reports)) as pool:
        futures = {pool.submit(outcomes.function, *outcomes.jobs[i]): i for i in missing}
        _collect(futures, outcomes, (lambda: _drain(reports, bar)) if bar else None)


def _collect(futures: dict[Future, int], outcomes: _Outcomes,
             drain: Callable[[], None] | None = None, unpack: Callable = lambda r: r) -> None:
    """Hand each future's outcome (``unpack``-ed) to ``outcomes`` as it finishes (``drain``:
    read the workers' progress reports every half second); on an error that ends the map (a
    failure without a store, Ctrl-C), cancel the jobs that have not started."""
    pending = set(futures)
    try:
        while pending:
            done, pending = wait(pending, timeout=0.5 if drain else None,
                                 return_when=FIRST_COMPLETED)
            if drain is not None:
                drain()
            for future in done:
                if future.cancelled():
                    outcomes.failed(futures[future], RuntimeError("cancelled by the executor"))
                elif future.exception() is not None:
                    outcomes.failed(futures[future], future.exception())
                else:
                    outcomes.finished(futures[future], unpack(future.result()))
    except BaseException:
        for future in pending:
            future.cancel()
        raise


def _drain(reports, bar: _RunsBar) -> None:
    while True:
        try:
            who, report = reports.get_nowait()
        except queues.Empty:
            return
        bar.report(who, report)
