"""What does the grader's sandbox cost? A class of N honest submissions graded with and without it.

"Before" is ``--unsafe-no-sandbox``: the same child process, started directly (one fresh
``python -I`` per submission, as the grader ran before the sandbox, minus its in-process audit
hook); "after" is the bubblewrap sandbox. Also measured: the sandbox's start-up overhead alone,
``python -I -S -c pass`` and ``python -I -c "import torch"`` with and without bwrap.

    python benchmarks/grader_throughput.py [--n 50] [--jobs 2] [--repeats 10] [--out FILE]

Writes ``benchmarks/results/grader_throughput.json``: wall seconds per batch, per-submission
seconds (median, max), the load average before and after (on a shared machine other jobs slow
every number down: compare runs only at similar load), and the machine. Without the sandbox it
also records the CPU seconds of the grading processes (``RUSAGE_CHILDREN``), a cost that other
jobs inflate much less than wall time (``RUSAGE_CHILDREN`` does not see the sandboxed processes,
so with the sandbox only wall time is measured; its own cost is the start-up overhead).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course_rnn.grading import grade_folder, sandbox_problem
from course_rnn.grading.runner import _spawn

DEFAULT_OUT = Path(__file__).parent / "results" / "grader_throughput.json"
EXERCISES = Path(__file__).resolve().parents[1] / "exercises"  # the repository's
ASSIGNMENTS = sorted(p.name for p in (EXERCISES / "autograder").glob("ch*"))


def class_of(n: int, folder: Path) -> None:
    """``n`` reference solutions, the six assignments in turn."""
    for i in range(n):
        name = ASSIGNMENTS[i % len(ASSIGNMENTS)]
        shutil.copy(EXERCISES / "autograder" / name / "solution.ipynb",
                    folder / f"student{i:03d}_{name}.ipynb")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade(folder: Path, jobs: int, sandboxed: bool) -> dict:
    load, cpu = os.getloadavg()[0], children_cpu()
    start = time.perf_counter()
    results = grade_folder(folder, None, EXERCISES, time_limit=120, jobs=jobs,
                           sandboxed=sandboxed)
    wall = time.perf_counter() - start
    seconds = [r.run.seconds for r in results]
    full = sum(r.total == sum(r.max_points.values()) for r in results)
    measured = {} if sandboxed else {
        "cpu_seconds_per_submission": round((children_cpu() - cpu) / len(results), 2)}
    return {**measured, "submissions": len(results), "full_marks": full, "jobs": jobs,
            "wall_seconds": round(wall, 2),
            "seconds_per_submission_median": round(statistics.median(seconds), 2),
            "seconds_per_submission_max": round(max(seconds), 2),
            "wall_seconds_per_submission": round(wall / len(results), 2),
            "load_average_before": round(load, 2),
            "load_average_after": round(os.getloadavg()[0], 2)}


def startup(repeats: int, code: str, flags: list[str]) -> dict:
    """Median seconds of ``python <flags> -c code`` plain and inside the sandbox."""
    plain, boxed = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, *flags, "-c", code], check=True, env={"PATH": "/usr/bin"})
        plain.append(time.perf_counter() - start)
        start = time.perf_counter()
        run = _spawn(b"{}", [], time_limit=60, public_tests=None, sandboxed=True, slot=0,
                     command=[sys.executable, *flags, "-c", code])
        boxed.append(time.perf_counter() - start)
        if run.status != "ok":
            raise RuntimeError(f"sandboxed start-up failed: {run.status} {run.output[-500:]}")
    plain_s, boxed_s = statistics.median(plain), statistics.median(boxed)
    return {"command": f"python {' '.join(flags)} -c {code!r}", "repeats": repeats,
            "plain_seconds_median": round(plain_s, 4),
            "sandboxed_seconds_median": round(boxed_s, 4),
            "overhead_seconds": round(boxed_s - plain_s, 4)}


def git_commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=Path(__file__).parent)
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50, help="submissions in the class")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=10, help="start-up measurements")
    parser.add_argument("--skip-unsafe", action="store_true", help="only the sandboxed batch")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    problem = sandbox_problem()
    if problem:
        sys.exit(problem)

    record = {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": git_commit(),
              "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version(),
                          "bwrap": subprocess.run(["bwrap", "--version"], capture_output=True,
                                                  text=True).stdout.strip(),
                          "as_root": os.geteuid() == 0}}
    record["startup"] = {
        "bare_python": startup(args.repeats, "pass", ["-I", "-S"]),
        "python_import_torch": startup(max(3, args.repeats // 3), "import torch", ["-I"]),
    }
    print(json.dumps(record["startup"], indent=1), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        class_of(args.n, folder)
        record["sandboxed"] = grade(folder, args.jobs, sandboxed=True)
        print("sandboxed", record["sandboxed"], flush=True)
        if not args.skip_unsafe:
            record["unsandboxed"] = grade(folder, args.jobs, sandboxed=False)
            print("unsandboxed", record["unsandboxed"], flush=True)
    if "unsandboxed" in record:
        before, after = record["unsandboxed"], record["sandboxed"]
        record["sandbox_cost"] = {
            "wall_ratio": round(after["wall_seconds"] / before["wall_seconds"], 3),
            "wall_seconds_per_submission_added": round(
                after["wall_seconds_per_submission"] - before["wall_seconds_per_submission"], 3)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
