"""How long does each replication take? Measured, so that the CLI can say it before a run.

Runs ``python -m course_rnn replicate NAME --scale SCALE`` for each experiment in a child
process (results to a temporary folder) and records its wall time, the CPU time of the process
and its workers, the workers and cores, the machine, date, commit and the load average before
it. Writes the records into ``src/course_rnn/experiments/costs.json`` (read by
:mod:`course_rnn.experiments.costs`; a record replaces the one of the same experiment and scale)
and a table, ``benchmarks/results/replication_costs.md``.

    python benchmarks/replication_costs.py [--scale quick] [--only anbn tabor-table4 ...]

Timings are only meaningful with nothing else running: the load average is recorded beside each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from course_rnn.experiments import NAMES  # noqa: E402
from course_rnn.experiments.costs import COSTS, minutes  # noqa: E402

TABLE = ROOT / "benchmarks" / "results" / "replication_costs.md"


def commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=ROOT, text=True,
                           capture_output=True).stdout.strip()
    return head + ("+changes" if dirty else "")


def time_one(name: str, scale: str) -> dict:
    """One replication in a child process: wall, CPU (child and its workers), outcome."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "course_rnn", "replicate", name,
                               "--scale", scale, "--out", out, "--quiet"],
                              cwd=ROOT, text=True, capture_output=True)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-2000:]}")
    cores = os.cpu_count() or 1
    return {"wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                           1),
            "workers": int(os.environ.get("COURSE_RNN_WORKERS") or cores), "cores": cores,
            "machine": f"{platform.machine()} CPU", "date": datetime.now().strftime("%Y-%m-%d"),
            "commit": commit(), "load_before": round(load, 2),
            "command": f"python -m course_rnn replicate {name} --scale {scale}"}


def write_table(costs: dict) -> None:
    lines = ["# How long each replication takes (measured by benchmarks/replication_costs.py)",
             "", "The CLI reads these records (src/course_rnn/experiments/costs.json) to say "
             "before a run roughly how long it will take. Load average above ~1 at the start "
             "means the machine was shared and the wall time is inflated.", "",
             "| experiment | scale | wall | CPU (all processes) | workers / cores | machine | "
             "date | commit | load before |", "|---|---|---|---|---|---|---|---|---|"]
    for name, scales in costs.items():
        for scale, r in scales.items():
            lines.append(f"| {name} | {scale} | {minutes(r['wall_s'])} | {minutes(r['cpu_s'])} "
                         f"| {r['workers']} / {r['cores']} | {r['machine']} | {r['date']} | "
                         f"{r['commit']} | {r['load_before']} |")
    TABLE.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="quick", choices=["quick", "paper"])
    parser.add_argument("--only", nargs="+", choices=list(NAMES), default=list(NAMES))
    args = parser.parse_args()
    data = json.loads(COSTS.read_text()) if COSTS.exists() else {"experiments": {}}
    for name in args.only:
        record = time_one(name, args.scale)
        print(f"{name} ({args.scale}): {record['wall_s']} s wall, {record['cpu_s']} s CPU, "
              f"load before {record['load_before']}", flush=True)
        data["experiments"].setdefault(name, {})[args.scale] = record
        COSTS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")  # after each run
    write_table(data["experiments"])


if __name__ == "__main__":
    main()
