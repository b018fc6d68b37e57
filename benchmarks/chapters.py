"""How long does each chapter take, and how much memory, at the quick (CPU) scale?

Executes every notebook in ``chapters/`` in a fresh kernel, one at a time, and records its wall
time, the CPU time of its kernel and the kernel's peak resident memory; optionally also times a
cold build of the whole book (no execution cache). Writes ``benchmarks/results/chapters.json`` and a
markdown table ``benchmarks/results/chapters.md`` (linked from the README).

    python benchmarks/chapters.py [--book] [--only 03_gates ...] [--out DIR]

Targets: each chapter ≤ 150 s and the whole book ≤ 15 min on the 2-core CPU, with every compared
model trained to convergence. Timings on a shared machine are only meaningful with nothing else
running: the load average at the start of each run is recorded beside its numbers. The kernel's
CPU time includes the worker processes it starts (``parallel_map``), so with two workers it can
exceed the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results"
CHAPTER_LIMIT_S, BOOK_LIMIT_S = 150, 900

# Runs in a child process, so that RUSAGE_CHILDREN covers exactly that notebook's kernel.
RUN_ONE = r"""
import json, resource, sys, time
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
start = time.perf_counter()
error = None
try:
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}}
                   ).execute()
except Exception as exc:  # report, do not hide: the chapter failed
    error = f"{type(exc).__name__}: {str(exc).splitlines()[-1] if str(exc) else ''}"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": wall, "kernel_cpu_s": usage.ru_utime + usage.ru_stime,
                  "kernel_peak_rss_mb": usage.ru_maxrss / 1024, "error": error}))
"""


def load() -> float:
    return os.getloadavg()[0]


def time_chapter(path: Path) -> dict:
    """Execute one notebook in a fresh kernel; wall time, kernel CPU time, kernel peak RSS."""
    env = {**os.environ, "COURSE_RNN_PROGRESS": "0", "MPLBACKEND": "Agg"}
    before = load()
    done = subprocess.run(
        [sys.executable, "-c", RUN_ONE, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return {
            "chapter": path.stem,
            "error": done.stderr.strip().splitlines()[-1:],
            "load_before": before,
        }
    record = json.loads(done.stdout.strip().splitlines()[-1])
    record.update(
        chapter=path.stem,
        load_before=before,
        within_target=record["error"] is None and record["wall_s"] <= CHAPTER_LIMIT_S,
    )
    return record


def time_book() -> dict:
    """A cold ``jupyter-book build`` (fresh output folder, so nothing is cached)."""
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "jupyter-book"),
                "build",
                "-W",
                "-n",
                "--keep-going",
                str(ROOT / "book"),
                "--path-output",
                tmp,
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "COURSE_RNN_PROGRESS": "0"},
        )
        wall = time.perf_counter() - start
    record = {
        "wall_s": wall,
        "ok": done.returncode == 0,
        "load_before": before,
        "within_target": done.returncode == 0 and wall <= BOOK_LIMIT_S,
    }
    if done.returncode != 0:  # say why, briefly
        record["error"] = (done.stdout + done.stderr).strip().splitlines()[-5:]
    return record


def merged_with_earlier(results: dict, earlier_path: Path) -> dict:
    """With ``--only``, the other chapters keep their earlier records (each with the date it was
    measured), so that timing one new or changed chapter does not drop the rest."""
    if not earlier_path.is_file():
        return results
    earlier = json.loads(earlier_path.read_text())
    fresh = {r["chapter"] for r in results["chapters"]}
    kept = [dict(r, measured=r.get("measured", earlier["when"])) for r in earlier["chapters"]
            if r["chapter"] not in fresh
            and (ROOT / "chapters" / f"{r['chapter']}.ipynb").is_file()]
    chapters = sorted(kept + results["chapters"], key=lambda r: r["chapter"])
    when = earlier["when"].removesuffix(" (chapters as dated)")  # added once, not per --only run
    return {**results, "when": f"{when} (chapters as dated)", "chapters": chapters}


def markdown(results: dict) -> str:
    lines = [
        "# Chapter timings (quick scale)",
        "",
        f"Measured {results['when']} on {results['machine']} "
        f"(target: each chapter ≤ {CHAPTER_LIMIT_S} s, whole book ≤ {BOOK_LIMIT_S // 60} min).",
        "Load average before each run is given: above ~1 the machine was shared and wall times "
        "are inflated; kernel CPU time (worker processes included) is the steadier number.",
        "",
        "| chapter | wall (s) | kernel CPU (s) | peak memory (MB) | load before | "
        f"≤ {CHAPTER_LIMIT_S} s | measured |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results["chapters"]:
        if r.get("error") and "wall_s" not in r:
            lines.append(f"| {r['chapter']} | failed: {r['error']} | | | | no | |")
            continue
        ok = "yes" if r["within_target"] else ("FAILED" if r["error"] else "no")
        lines.append(
            f"| {r['chapter']} | {r['wall_s']:.1f} | {r['kernel_cpu_s']:.1f} | "
            f"{r['kernel_peak_rss_mb']:.0f} | {r['load_before']:.1f} | {ok} | "
            f"{r.get('measured', results['when'])} |"
        )
    if "book" in results:
        b = results["book"]
        lines += [
            "",
            f"Cold book build (`jupyter-book build -W`, every chapter executed): "
            f"{b['wall_s']:.0f} s, {'ok' if b['ok'] else 'FAILED'} "
            f"(load before {b['load_before']:.1f}).",
        ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", action="store_true", help="also time a cold book build")
    parser.add_argument("--only", nargs="*", help="chapter stems to time (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    chapters = sorted((ROOT / "chapters").glob("*.ipynb"))
    if args.only:
        unknown = set(args.only) - {p.stem for p in chapters}
        if unknown:
            parser.error(f"unknown chapters {sorted(unknown)}; have {[p.stem for p in chapters]}")
        chapters = [p for p in chapters if p.stem in args.only]
    results = {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "chapters": [],
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
    }
    for path in chapters:
        record = time_chapter(path)
        record["measured"] = time.strftime("%Y-%m-%d %H:%M")
        results["chapters"].append(record)
        print(json.dumps(record), flush=True)
    if args.only:
        results = merged_with_earlier(results, args.out / "chapters.json")
    if args.book:
        results["book"] = time_book()
        print(json.dumps(results["book"]), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "chapters.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "chapters.md").write_text(markdown(results))
    return 0 if all(not r.get("error") for r in results["chapters"]) else 1


if __name__ == "__main__":
    sys.exit(main())
