"""Run experiments at the papers' scale on this machine and keep each run with its provenance.

For every NAME: ``python -m course_rnn replicate NAME --scale paper --out
benchmarks/results/replications/NAME-paper --overwrite`` (the very command a reader would type),
then ``provenance.json`` beside its ``results.json``: the command, the commit it ran (and whether
the working tree had changes), when, on what machine and load, the wall time and the CPU time of
the run and its worker processes, torch's version. ``benchmarks/results/paper_scale.md`` gets a
row per run (the latest run of each experiment wins)::

    python benchmarks/paper_scale.py tabor-table4 elman-clusters [--device cpu] [--threads 1]
    python benchmarks/paper_scale.py anbn --scale quick --seeds 1 --set epochs=300 \
        --folder anbn-reduced        # a small run the tests re-run to check it reproduces

The book never retrains the paper scale; these folders are what a chapter can quote, with where
they came from. A run that fails leaves its folder as the command left it and says so (exit 1).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

from provenance import git

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "benchmarks" / "results" / "replications"
TABLE = ROOT / "benchmarks" / "results" / "paper_scale.md"


def timed_run(command: list[str], env: dict[str, str] | None = None
              ) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``command`` from the repository root (``env``: variables to add to this process's):
    what it did, its wall time and the CPU time of it and its worker processes (seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False,
                          env=None if env is None else {**os.environ, **env})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return done, wall, cpu


def run_one(name: str, device: str, threads: int, scale: str = "paper",
            extra: tuple[str, ...] = (), folder: str | None = None) -> dict:
    """Replicate ``name`` at ``scale`` (``extra``: more ``replicate`` options, e.g. ``--set``)
    into ``RUNS/folder`` (default ``NAME-SCALE``); its provenance record (also saved there)."""
    out = RUNS / (folder or f"{name}-{scale}")
    command = [sys.executable, "-m", "course_rnn", "replicate", name, "--scale", scale,
               *extra, "--device", device, "--threads", str(threads), "--out", str(out),
               "--overwrite", "--quiet"]
    commit = git("rev-parse", "HEAD")  # what ran: the tree before the run writes its outputs
    changed = [line.split(maxsplit=1)[1]  # "XY path"; git() strips the first line's blank
               for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    load_before = os.getloadavg()[0]
    done, wall, cpu = timed_run(command)
    import torch  # only for its version, after the run

    record = {
        "experiment": name,
        "command": " ".join(["python", *command[1:]]).replace(str(ROOT) + "/", ""),
        "commit": commit,
        "working_tree_clean": not changed,
        "changed_files": changed,  # e.g. paper_scale.md, rewritten by a run before this one
        "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - wall)),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "device": device,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_before": round(load_before, 2),
        # the mean load over the last 15 minutes of the run: above the run's own workers, other
        # work shared the cores and the wall time is longer than on an idle machine
        "load_15min_at_end": round(os.getloadavg()[2], 2),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "returncode": done.returncode,
    }
    if done.returncode != 0:
        record["error"] = (done.stdout + done.stderr).strip().splitlines()[-5:]
    if (out / "results.json").is_file():  # what the run itself saw: CPU model, kernel path
        facts = json.loads((out / "results.json").read_text()).get("machine") or {}
        from course_rnn.utils import machine_class

        record["machine_class"] = machine_class(facts)
    if out.is_dir():
        (out / "provenance.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def write_table() -> None:
    """One row per committed paper-scale run, from each folder's provenance.json."""
    records = {p.parent.name: json.loads(p.read_text())
               for p in sorted(RUNS.glob("*/provenance.json"))}
    rows = []
    for folder, r in records.items():
        status = "ok" if r["returncode"] == 0 else "FAILED"
        rows.append(f"| `{folder}/` | `{r['command']}` | {r['commit'][:10]}"
                    f"{'' if r['working_tree_clean'] else ' (+ changes)'} | {r['started']} | "
                    f"{r['device']}, {r['machine']} | {r['wall_s']:.0f} | {r['cpu_s']:.0f} | "
                    f"{r['load_before']:.1f} | {status} |")
    paper = [r for folder, r in records.items() if folder.endswith(("-paper", "-full"))]
    total = sum(r["wall_s"] for r in paper)
    costs_file = TABLE.parent / "paper_costs.json"
    costs = json.loads(costs_file.read_text()) if costs_file.exists() else {}
    why_full = [f"- `{folder}/`: " + ("; ".join(
        f"`{label}` would take up to {c['projected_wall_s_upper'] / 3600:.1f} h here "
        f"({min(v['seconds_per_epoch'] for v in c['runs_per_seed'].values()):.1f}–"
        f"{max(v['seconds_per_epoch'] for v in c['runs_per_seed'].values()):.1f} s an epoch "
        f"× the caps, {c['paper_seeds']} seeds, over {c['workers']} workers)"
        for label, c in costs.items() if label.split(" (")[0] == r["experiment"])
        or f"not projected by `paper_costs.py`; the settings of `{r['experiment']}` say why "
           "its `full` scale is what it is")
        for folder, r in records.items() if folder.endswith("-full")]
    TABLE.write_text("\n".join([
        "# Paper-scale runs on this machine",
        "",
        "Written by `benchmarks/paper_scale.py`; each folder holds the run's `results.json`, "
        "`table.md`, figures and `provenance.json`. A folder not ending in `-paper` is a "
        "smaller run (e.g. the one the tests re-run to check that a run reproduces).",
        "",
        f"Paper-scale (and full-scale) runs so far: {len(paper)}, {total:.0f} s wall in all "
        f"({total / 3600:.2f} h).",
        "",
        "| folder | command | commit | started | device | wall (s) | CPU (s) | load before | run |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        *(["", "**Why a `full` scale.** Where the paper's size is out of a 2-core CPU's reach "
           "in an hour, the experiment's `full` scale keeps the paper's models and cuts the "
           "data, or keeps the book's sizes and adds seeds (its settings say what, and why). "
           "What the paper's size (or a larger candidate) would cost, from `paper_costs.md` "
           "(an upper bound: seconds per epoch × the epoch caps; a run that converges stops "
           "earlier):", "", *why_full]
          if why_full else []),
    ]) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", help="experiments (python -m course_rnn list)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--scale", default="paper")
    parser.add_argument("--seeds", type=int, help="run seeds 0..N-1 (replicate --seeds)")
    parser.add_argument("--set", action="append", default=[], metavar="K=V",
                        help="a setting to override (replicate --set), repeatable")
    parser.add_argument("--folder", help="output folder in benchmarks/results/replications "
                                         "(default NAME-SCALE; one experiment only)")
    args = parser.parse_args(argv)
    if args.folder and len(args.names) > 1:
        parser.error("--folder names one run's folder: give one experiment")
    extra = [*(["--seeds", str(args.seeds)] if args.seeds else []),
             *(x for kv in args.set for x in ("--set", kv))]
    sys.path.insert(0, str(ROOT / "src"))
    from course_rnn.experiments import NAMES

    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        parser.error(f"unknown experiments {unknown}; choose from {', '.join(NAMES)}")
    failed = 0
    for name in args.names:
        record = run_one(name, args.device, args.threads, args.scale, tuple(extra), args.folder)
        print(json.dumps(record), flush=True)
        failed += record["returncode"] != 0
        write_table()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
