"""The GPU check: every chapter through nbval on a CUDA GPU, and a record of what happened.

    COURSE_RNN_DEVICE=cuda make notebooks                     # the check itself, one at a time
    python benchmarks/gpu.py [--jobs N] [--limit S] [--only 03_gates ...] [--out DIR]

runs each chapter notebook as ``make notebooks`` does (``pytest --nbval-lax`` on the notebook,
``COURSE_RNN_DEVICE`` set, so every model and experiment trains on the GPU), ``--jobs`` at a time,
and writes ``gpu.json`` and ``gpu.md`` into ``--out`` (default ``benchmarks/results/``): the
device, PyTorch and CUDA versions, each chapter's wall time, its cells passed and failed, and the
first failure's message. A chapter's check cells assert the claims of the "same course on every
machine" record, so a chapter that passes here taught the same lessons on the GPU (its numbers
differ from the CPU's only within the claims' margins).

``--limit`` bounds the whole check (a lent GPU machine has a fixed budget): chapters still
running then are stopped and recorded as unfinished, and the record is written after every
chapter, so a check that is cut off keeps what it measured. Wall times with ``--jobs`` > 1 are
for chapters sharing one GPU and the machine's cores, and the record says how many ran at once.
``--device cpu`` runs the same check on the CPU (to try this script where there is no GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
DEFAULT_OUT = ROOT / "benchmarks" / "results"
SUMMARY = re.compile(r"(\d+) (passed|failed|error|errors|skipped)")


def device_facts(device: str) -> dict:
    """What ran the check: the GPU (name, memory, driver), PyTorch and its CUDA, the CPU."""
    import torch

    facts = {"device": device, "torch": torch.__version__, "cuda": torch.version.cuda,
             "python": platform.python_version(), "cpu_cores": os.cpu_count(),
             "machine": platform.machine()}
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise SystemExit("gpu.py: no CUDA GPU is available here (use --device cpu to try "
                             "the script on the CPU)")
        props = torch.cuda.get_device_properties(0)
        facts.update(gpu=props.name, gpu_memory_gib=round(props.total_memory / 2**30, 1),
                     multiprocessors=props.multi_processor_count)
        try:
            facts["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            facts["driver"] = None
    return facts


def start_chapter(path: Path, device: str, logs: Path) -> tuple[subprocess.Popen, float, Path]:
    """``pytest --nbval-lax`` on one notebook (as ``make notebooks``), output into a log file."""
    log = logs / f"{path.stem}.log"
    env = {**os.environ, "COURSE_RNN_DEVICE": device, "COURSE_RNN_PROGRESS": "0",
           "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", str(path)],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True)
    return process, time.perf_counter(), log


def chapter_record(name: str, log: Path, wall: float, returncode: int | None) -> dict:
    """Cells passed and failed (pytest's summary line) and the first failure's last lines."""
    text = log.read_text(errors="replace")
    counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    tail = text.strip().splitlines()[-1:] if text.strip() else []
    for number, word in SUMMARY.findall(" ".join(tail)):
        counts["error" if word.startswith("error") else word] += int(number)
    record = {"chapter": name, "wall_s": round(wall, 1), **counts,
              "ok": returncode == 0 and counts["failed"] == counts["error"] == 0}
    if returncode is None:
        record.update(ok=False, unfinished=True)
    elif not record["ok"]:
        failure = re.search(r"^(E\s.*(?:\n.*){0,8})", text, re.M)
        record["first_failure"] = (failure.group(1) if failure else "\n".join(
            text.strip().splitlines()[-8:]))[:1500]
    return record


def markdown(result: dict) -> str:
    f = result["facts"]
    gpu = (f"{f.get('gpu')} ({f.get('gpu_memory_gib')} GiB, driver {f.get('driver')})"
           if f.get("gpu") else "none (run on the CPU)")
    rows = result["chapters"]
    passed = sum(r["ok"] for r in rows)
    lines = [
        "# The GPU check",
        "",
        "Written by `benchmarks/gpu.py` (CONTRIBUTING.md, \"The GPU check\"): every chapter "
        "through nbval with `COURSE_RNN_DEVICE` set, as `make notebooks` runs them; a chapter "
        "passes when every cell ran and every check cell's claim held on this device.",
        "",
        f"- when: {result['when']}; commit {result['commit']}",
        f"- device: `{f['device']}`; GPU: {gpu}",
        f"- PyTorch {f['torch']} (CUDA {f['cuda']}), Python {f['python']}, {f['cpu_cores']} CPU "
        f"cores",
        f"- chapters at once: {result['jobs']}; limit {result['limit_s']} s; "
        f"whole check {result['wall_s']:.0f} s",
        f"- **{passed} of {len(rows)} chapters passed**",
        "",
        "| chapter | wall (s) | cells passed | failed | result |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        verdict = ("passed" if r["ok"] else "unfinished at the limit" if r.get("unfinished")
                   else "**failed**")
        lines.append(f"| `{r['chapter']}` | {r['wall_s']} | {r['passed']} | "
                     f"{r['failed'] + r['error']} | {verdict} |")
    failures = [r for r in rows if r.get("first_failure")]
    if failures:
        lines += ["", "## First failure of each failed chapter", ""]
        for r in failures:
            lines += [f"`{r['chapter']}`:", "", "```", r["first_failure"], "```", ""]
    return "\n".join(lines) + "\n"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=30).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def write(result: dict, out: Path) -> None:
    (out / "gpu.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "gpu.md").write_text(markdown(result))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--jobs", type=int, default=4, help="chapters at once (default 4)")
    parser.add_argument("--limit", type=float, default=None, metavar="S",
                        help="stop chapters still running after S seconds (recorded)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these chapters only")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be ≥ 1, got {args.jobs}")
    paths = sorted(CHAPTERS.glob("*.ipynb"))
    if args.only:
        unknown = sorted(set(args.only) - {p.stem for p in paths})
        if unknown:
            parser.error(f"no chapter {', '.join(unknown)} in {CHAPTERS}")
        paths = [p for p in paths if p.stem in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    logs = args.out / "gpu-logs"
    logs.mkdir(exist_ok=True)
    result = {"when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "commit": commit(), "facts": device_facts(args.device), "jobs": args.jobs,
              "limit_s": args.limit, "wall_s": 0.0, "chapters": []}
    start, waiting, running = time.perf_counter(), list(paths), {}
    while waiting or running:
        while waiting and len(running) < args.jobs:
            path = waiting.pop(0)
            running[path.stem] = start_chapter(path, args.device, logs)
        time.sleep(1)
        over = args.limit is not None and time.perf_counter() - start > args.limit
        for name, (process, began, log) in list(running.items()):
            if process.poll() is None and not over:
                continue
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()
                code = None
            else:
                code = process.returncode
            del running[name]
            record = chapter_record(name, log, time.perf_counter() - began, code)
            result["chapters"].append(record)
            print(f"{name}: {'ok' if record['ok'] else 'NOT ok'} in {record['wall_s']} s",
                  flush=True)
        if over:
            for path in waiting:
                result["chapters"].append({"chapter": path.stem, "wall_s": 0, "passed": 0,
                                           "failed": 0, "skipped": 0, "error": 0, "ok": False,
                                           "unfinished": True})
            waiting = []
        result["chapters"].sort(key=lambda r: r["chapter"])
        result["wall_s"] = time.perf_counter() - start
        write(result, args.out)
    print(markdown(result))
    return 0 if all(r["ok"] for r in result["chapters"]) else 1


if __name__ == "__main__":
    sys.exit(main())
