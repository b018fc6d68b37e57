"""What running the jobs elsewhere costs: local processes against a Dask cluster, and a resume.

``replicate`` can run an experiment's training jobs in local worker processes (the default) or
on a Dask cluster (``--executor dask://HOST:PORT``), and keeps every finished job so that
``--resume`` trains only what is missing. On a Dask ``LocalCluster`` of 2 single-threaded worker
processes that it starts itself (its start-up timed apart: a real cluster serves many runs),
this script measures

1. each engine's own cost per job: ``parallel_map`` of jobs that do nothing, on 2 local
   processes and on the cluster;
2. the same experiment as whole ``replicate`` processes: in this process
   (``COURSE_RNN_WORKERS=1``: no engine at all), in 2 local processes, on the cluster, and
   resumed in a folder where every job is already stored (written by the library's
   ``keep_jobs``, exactly as an interrupted run leaves them).

Each at two sizes, so that a job's cost (the slope between them) stands apart from what a call
or a run pays once (start-up, spawning the local workers, figures). It writes the medians, the
per-repeat ranges and the resume's cost against a fresh run into
``benchmarks/results/executors.json`` and ``.md``.

The experiment is the gym at the tests' tiny settings (``tests/experiments/test_cli.py``'s
``SMOKE``): a fraction of a second per job, so that what is measured is the engines, not the
training. The numbers are wall times on a shared machine: see the load averages recorded.

    python benchmarks/executors.py [--seeds 1 4] [--empty 100 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
#: The gym at the tests' smoke settings: a copy of tests/experiments/test_cli.py's SMOKE["gym"] (a
#: benchmark imports no test module).
TINY = dict(hidden_size=4, urn_hidden_size=4, lr=0.02, batch_size=32, patience=2, languages=dict(
    anbn=dict(train_copies=2, epochs=2, test_max_n=12),
    dyck=dict(pairs=2, train=64, valid=16, epochs=1, test=16),
    cross_serial=dict(train=64, epochs=1),
    palindrome=dict(train=64, valid=16, epochs=1, test=16),
    agreement=dict(train=64, valid=16, epochs=1, test_per_attractor=4)))
JOBS_LINE = re.compile(r"jobs: (\d+) trained, (\d+) loaded")
LOCAL, DASK, RESUMED = ("2 local processes", "Dask LocalCluster, 2 workers",
                        "resumed, every job stored")
#: Kept in this order in the tables.
CASES = ("in this process", LOCAL, DASK, RESUMED)


def replicate_args(seeds: int, out: Path) -> list[str]:
    settings = [arg for key, value in TINY.items()
                for arg in ("--set", f"{key}={json.dumps(value)}")]
    return ["replicate", "gym", "--scale", "quick", "--seeds", str(seeds), "--out", str(out),
            "--quiet", *settings]


def timed(args: list[str], cwd: Path, **environ) -> tuple[float, tuple[int, int]]:
    """Wall seconds of ``python -m course_rnn ARGS`` and its (trained, loaded) job counts."""
    env = dict(os.environ, COURSE_RNN_PROGRESS="0", MPLBACKEND="Agg", **environ)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "course_rnn", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} failed:\n{done.stderr[-3000:]}")
    trained, loaded = map(int, JOBS_LINE.search(done.stdout).groups())
    return seconds, (trained, loaded)


def store_every_job(seeds: int, folder: Path) -> None:
    """The jobs of the run into ``folder/jobs``, written by ``keep_jobs`` as an interrupted run
    leaves them (in a fresh process, like the run it stands for)."""
    code = ("from course_rnn.experiments import get_experiment\n"
            "from course_rnn.experiments.workers import keep_jobs\n"
            f"with keep_jobs({str(folder / 'jobs')!r}):\n"
            f"    get_experiment('gym').run(scale='quick', seeds={seeds}, settings={TINY!r}, "
            "progress=False)\n")
    subprocess.run([sys.executable, "-c", code], check=True,
                   env=dict(os.environ, COURSE_RNN_WORKERS="2", COURSE_RNN_PROGRESS="0"))


def folder_megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def slope(small: float, large: float, jobs: tuple[int, int]) -> float:
    """Seconds per job between two sizes: what one more job costs, start-up left out."""
    return (large - small) / (jobs[1] - jobs[0])


def empty_jobs(executor, sizes: tuple[int, int], repeats: int) -> dict[str, list[float]]:
    """Each engine's own cost per job, measured on jobs that do nothing (``abs(0)``): the slope
    of ``parallel_map``'s wall time between ``sizes`` jobs, per repeat, for 2 local processes
    (spawned anew by every call, as the experiments' calls are) and for the Dask cluster."""
    from course_rnn.experiments.workers import parallel_map

    ways = {LOCAL: dict(workers=2), DASK: dict(executor=executor)}
    slopes: dict[str, list[float]] = {case: [] for case in ways}
    for _ in range(repeats):
        for case, how in ways.items():
            seconds = []
            for count in sizes:
                start = time.perf_counter()
                parallel_map(abs, [(0,)] * count, progress=False, **how)
                seconds.append(time.perf_counter() - start)
            slopes[case].append(slope(*seconds, sizes))
            print(f"empty jobs, {case:28s} {slopes[case][-1] * 1000:6.2f} ms a job", flush=True)
    return slopes


def whole_runs(address: str, sizes: tuple[int, int], repeats: int, work: Path) -> dict:
    """Each case's wall seconds at both sizes (seeds), every repeat; the resume at the larger;
    the job counts (from the command's own report) and the stored jobs' size."""
    runs: dict[str, dict[int, list[float]]] = {case: {n: [] for n in sizes} for case in CASES}
    jobs: dict[int, int] = {}
    ways = {"in this process": ({"COURSE_RNN_WORKERS": "1"}, []),
            LOCAL: ({"COURSE_RNN_WORKERS": "2"}, []),
            DASK: ({}, ["--executor", address])}
    for environ, extra in ways.values():  # warm-up: the workers' first imports, the disk cache
        timed([*replicate_args(sizes[0], work / "warm-up"), "--overwrite", *extra], work,
              **environ)
    for repeat in range(repeats):
        for case, (environ, extra) in ways.items():
            for seeds in sizes:
                out = work / f"{case.split()[0]}-{seeds}-{repeat}"
                seconds, (trained, _) = timed([*replicate_args(seeds, out), *extra], work,
                                              **environ)
                runs[case][seeds].append(seconds)
                jobs[seeds] = trained
                print(f"{case:30s} seeds {seeds}: {seconds:6.1f} s, {trained} jobs", flush=True)
        out = work / f"resumed-{repeat}"
        store_every_job(sizes[1], out)
        stored_mb = folder_megabytes(out / "jobs")
        seconds, (trained, loaded) = timed([*replicate_args(sizes[1], out), "--resume"], work,
                                           COURSE_RNN_WORKERS="2")
        if trained or loaded != jobs[sizes[1]]:
            raise RuntimeError(f"the resumed run trained {trained} and loaded {loaded} of "
                               f"{jobs[sizes[1]]} jobs: every one should have loaded")
        runs[RESUMED][sizes[1]].append(seconds)
        print(f"{RESUMED:30s} seeds {sizes[1]}: {seconds:6.1f} s, {loaded} loaded", flush=True)
    return {"seconds": runs, "jobs": jobs, "stored_jobs_mb": stored_mb}


def measure(sizes: tuple[int, int], empty: tuple[int, int], repeats: int, work: Path) -> dict:
    """Both measurements on one Dask ``LocalCluster`` of 2 single-threaded worker processes."""
    from distributed import LocalCluster

    from course_rnn.experiments.cluster import dask_executor

    started = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        cluster_start = time.perf_counter() - started
        with dask_executor(cluster.scheduler_address) as executor:
            slopes = empty_jobs(executor, empty, repeats)
        runs = whole_runs(cluster.scheduler_address.replace("tcp://", "dask://"), sizes,
                          repeats, work)
    return {"empty_jobs": {"jobs": list(empty), "seconds_per_job": slopes}, **runs,
            "dask_cluster_start_s": cluster_start}


def summarise(measured: dict, sizes: tuple[int, int], repeats: int, load_before: float) -> dict:
    """Medians; per case the cost of one more job (the slope between the two sizes, per
    repeat: what a run pays once, start-up, spawning workers, figures, is left out) and the
    rest."""
    small, large = sizes
    jobs, runs = measured["jobs"], measured["seconds"]
    median = {case: {n: statistics.median(s) for n, s in by_size.items() if s}
              for case, by_size in runs.items()}
    per_job = {case: [slope(a, b, (jobs[small], jobs[large]))
                      for a, b in zip(runs[case][small], runs[case][large])]
               for case in CASES if case != RESUMED}
    empty = measured["empty_jobs"]["seconds_per_job"]
    return {
        "what": "the engines' own cost per job (jobs that do nothing), and python -m course_rnn "
                "replicate gym --scale quick at the tests' tiny settings, whole-process wall "
                "seconds at two numbers of seeds",
        "settings": TINY, "seeds": list(sizes), "jobs": jobs, "repeats": repeats,
        "empty_jobs": measured["empty_jobs"],
        "seconds": runs, "median_s": median, "per_job_s": per_job,
        "once_per_run_s": {case: median[case][small]
                           - statistics.median(per_job[case]) * jobs[small]
                           for case in per_job},
        "dask_overhead_per_job_s": statistics.median(empty[DASK]),
        "local_overhead_per_job_s": statistics.median(empty[LOCAL]),
        "resume_all_stored_vs_fresh": median[RESUMED][large] / median[LOCAL][large],
        "dask_cluster_start_s": measured["dask_cluster_start_s"],
        "stored_jobs_mb": measured["stored_jobs_mb"],
        "load_average_before": load_before, "load_average_after": os.getloadavg()[0],
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }


def ms_range(values: list[float]) -> str:
    """``24 (19–30)``: the median and the range of per-repeat seconds, in milliseconds."""
    low, middle, high = (1000 * f(values) for f in (min, statistics.median, max))
    return f"{middle:.1f} ({low:.1f}–{high:.1f})" if high < 10 else \
        f"{middle:.0f} ({low:.0f}–{high:.0f})"


def markdown(record: dict) -> str:
    small, large = record["seeds"]
    jobs = {int(n): count for n, count in record["jobs"].items()}
    few, many = record["empty_jobs"]["jobs"]
    empty = record["empty_jobs"]["seconds_per_job"]

    def cell(case: str, seeds: int) -> str:
        seconds = record["seconds"][case].get(seeds) or record["seconds"][case].get(str(seeds))
        if not seconds:
            return "–"
        return f"{statistics.median(seconds):.1f} ({', '.join(f'{s:.1f}' for s in seconds)})"

    rows = "\n".join(
        f"| {case} | {cell(case, small)} | {cell(case, large)} | "
        + (f"{ms_range(record['per_job_s'][case])} | {record['once_per_run_s'][case]:.1f} |"
           if case in record["per_job_s"] else "– | – |")
        for case in CASES)
    return f"""# Executors: local processes, a Dask cluster, a resume

`python benchmarks/executors.py --repeats {record['repeats']}`, {record['measured']}, \
{record['cpu_count']} CPU cores (load average {record['load_average_before']:.2f} before, \
{record['load_average_after']:.2f} after: a shared machine). Dask: a `LocalCluster` of 2 \
single-threaded worker processes, started in {record['dask_cluster_start_s']:.1f} s (once for \
every run it serves). Per job: the slope of the wall time between two sizes, per repeat (the \
median, and the range over the repeats), so what a call or a run pays once is left out.

## The engines' own cost per job

`parallel_map` of jobs that do nothing (`abs(0)`), {few} and {many} of them:

| how the jobs ran | ms per job |
|---|---|
| {LOCAL} | {ms_range(empty[LOCAL])} |
| {DASK} | {ms_range(empty[DASK])} |

## Whole runs, and a resume

`replicate gym --scale quick` at the tests' tiny settings, {small} and {large} seeds \
({jobs[small]} and {jobs[large]} jobs of a fraction of a second each): whole processes, wall \
seconds, median (each repeat).

| how the jobs ran | {small} seed(s), s | {large} seeds, s | ms per job | s once per run |
|---|---|---|---|---|
{rows}

- Dask's own cost per job is {record['dask_overhead_per_job_s'] * 1000:.1f} ms (local \
processes': {record['local_overhead_per_job_s'] * 1000:.1f} ms, nothing measurable beside the \
noise of spawning them): nothing beside a job of the paper scale (minutes to hours), and within \
the noise of these whole runs. What differs is paid \
once: local processes are spawned, and import torch, for each `parallel_map` call, where the \
cluster's workers stay warm between calls and runs (the last column).
- A resumed run whose every job is stored ({jobs[large]} jobs, \
{record['stored_jobs_mb']:.1f} MB in `jobs/`) takes \
**{record['resume_all_stored_vs_fresh']:.2f}×** the wall time of a fresh run on local \
processes: what is left is start-up, loading, the verdicts, the figures and results.json.
"""


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 4], metavar=("FEW", "MANY"),
                        help="the two run sizes, in seeds (26 jobs a seed)")
    parser.add_argument("--empty", type=int, nargs=2, default=[100, 1000],
                        metavar=("FEW", "MANY"), help="the two numbers of empty jobs")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "executors.json")
    args = parser.parse_args(argv)
    few, many = args.seeds
    if not 1 <= few < many or not 1 <= args.empty[0] < args.empty[1] or args.repeats < 1:
        parser.error("--seeds and --empty take two sizes 1 ≤ FEW < MANY; --repeats at least 1")
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="executors-"))
    try:
        measured = measure((few, many), tuple(args.empty), args.repeats, work)
        record = summarise(measured, (few, many), args.repeats, load_before)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(record))
    print(markdown(record))
    return record


if __name__ == "__main__":
    main()
