"""How long does ``python -m course_rnn`` take to reject a bad argument, or to start a run?

A typo should be answered at once, not after torch, matplotlib and every experiment have been
imported, and ``--help`` or ``list`` should not wait for them either (the experiments' titles come
from a table, ``course_rnn.experiments.ABOUT``). This script times, as whole processes, a few
rejections (unknown experiment, bad ``--device``, bad ``--seeds``, an output folder that cannot
be written), ``--help``, ``replicate --help`` and ``list``, and writes the medians to
``benchmarks/results/cli_startup.json``.

    python benchmarks/cli_startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_OUT = Path(__file__).parent / "results" / "cli_startup.json"
CASES = {
    "unknown experiment": ["replicate", "nope"],
    "bad --device": ["replicate", "anbn", "--device", "meta"],
    "bad --seeds": ["replicate", "anbn", "--seeds", "0"],
    "unwritable --out": ["replicate", "anbn", "--out", "/proc/course_rnn"],
    "--help": ["--help"],
    "replicate --help": ["replicate", "--help"],
    "list": ["list"],
}


def seconds(args: list[str], cwd: str) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "course_rnn", *args], cwd=cwd,
                          capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    load_before = os.getloadavg()[0]
    results = {}
    with tempfile.TemporaryDirectory() as cwd:
        for name, case in CASES.items():
            runs = [seconds(case, cwd) for _ in range(args.repeats)]
            results[name] = {"args": case, "exit_code": runs[0][1],
                             "seconds": [s for s, _ in runs],
                             "median_s": statistics.median(s for s, _ in runs)}
            print(f"{name:20s} exit {runs[0][1]}  {results[name]['median_s']:.2f} s", flush=True)
    record = {"what": "python -m course_rnn, whole-process seconds (median of repeats)",
              "cases": results, "repeats": args.repeats, "load_average_before": load_before,
              "load_average_after": os.getloadavg()[0], "cpu_count": os.cpu_count(),
              "python": platform.python_version(), "measured": time.strftime("%Y-%m-%d %H:%M")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    main()
