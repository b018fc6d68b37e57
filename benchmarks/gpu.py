"""The GPU check: every chapter through nbval on a CUDA GPU, and a record of what happened.

    COURSE_RNN_DEVICE=cuda make notebooks                     # the check itself, one at a time
    python benchmarks/gpu.py [--jobs N] [--limit S] [--only 08_chomsky 03_gates ...] [--out DIR]
                             [--tests tests/experiments ...] [--commit C]
    python benchmarks/gpu.py --merge OTHER/gpu.json [--merge-tests-log LOG]  # into --out

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

``--tests PATH …`` also runs those test folders on the device (``pytest -n`` with pytest-xdist
where it is installed), within the same limit: at the limit pytest is interrupted (SIGINT), so it
still prints the names of the tests that failed so far, and the record keeps them.

A GPU machine's output folder is temporary: ``--merge`` folds a record written there into the
committed one (``--out``), chapter by chapter, each keeping when and at which commit it ran;
``--merge-tests-log`` reads a pytest log from there (its summary, or its progress characters
when it was cut off before one). ``--commit`` names the commit where the machine's own git does
not know it (a copied working tree).
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
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PROGRESS = re.compile(r"^([.FEsxX]+)\s*(\[\s*\d+%\])?$")


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


def on_device(device: str) -> dict:
    """The environment a chapter or test runs in: every run on ``device``, no progress bars."""
    return {**os.environ, "COURSE_RNN_DEVICE": device, "COURSE_RNN_PROGRESS": "0",
            "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}


def start_chapter(path: Path, device: str, logs: Path) -> tuple[subprocess.Popen, float, Path]:
    """``pytest --nbval-lax`` on one notebook (as ``make notebooks``), output into a log file."""
    log = logs / f"{path.stem}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", str(path)],
        cwd=ROOT, env=on_device(device), stdout=log.open("w"), stderr=subprocess.STDOUT,
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
        record["first_failure"] = first_failure(text)
    return record


def first_failure(text: str) -> str:
    """The first failing cell and its error: the cause (later cells often fail only because an
    earlier one did not define a name)."""
    text = ANSI.sub("", text)
    cell = re.search(r"::Cell (\d+)", text)
    error = re.search(r"^(\w+(?:Error|Exception|Interrupt): .*)$", text, re.M)
    if not (cell and error):
        return "\n".join(text.strip().splitlines()[-8:])[:1500]
    return f"cell {cell.group(1)}: {error.group(1)}"[:1500]


def start_tests(paths: list[str], device: str, out: Path,
                workers: int = 6) -> tuple[subprocess.Popen, Path]:
    """The test folders on the device, several at once where pytest-xdist is installed."""
    log = out / "gpu-tests.log"
    import importlib.util

    parallel = ["-n", str(workers)] if importlib.util.find_spec("xdist") else []
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "--tb=line", *parallel, *paths],
        cwd=ROOT, env=on_device(device), stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True)
    return process, log


def tests_record(text: str, paths: list[str], finished: bool) -> dict:
    """Passed, failed and skipped tests and the failures' names, from pytest's output: its
    summary line, or (cut off before one) the progress characters it printed."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    summary = [line for line in text.splitlines() if SUMMARY.search(line) and " in " in line]
    if summary:
        for number, word in SUMMARY.findall(summary[-1]):
            counts["error" if word.startswith("error") else word] += int(number)
    else:
        marks = "".join(m.group(1) for m in map(PROGRESS.match, text.splitlines()) if m)
        counts.update(passed=marks.count("."), failed=marks.count("F"),
                      skipped=marks.count("s"), error=marks.count("E"))
    names = sorted({line.split(" - ")[0].split(" ", 1)[1] for line in text.splitlines()
                    if line.startswith(("FAILED ", "ERROR "))})
    return {"paths": paths, **counts, "failures": names,
            "finished": finished and bool(summary)}


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
    dated = any(r.get("measured") for r in rows)
    if dated:
        lines[-2:] = ["| chapter | wall (s) | cells passed | failed | result | measured |",
                      "|---|---|---|---|---|---|"]
    for r in rows:
        verdict = ("passed" if r["ok"] else "unfinished at the limit" if r.get("unfinished")
                   else "**failed**")
        lines.append(f"| `{r['chapter']}` | {r['wall_s']} | {r['passed']} | "
                     f"{r['failed'] + r['error']} | {verdict} |"
                     + (f" {r.get('measured') or result['when']} |" if dated else ""))
    tests = result.get("tests")
    if tests:
        state = "finished" if tests["finished"] else "cut off at the limit before its summary"
        lines += ["", "## Tests on the device", "",
                  f"`pytest {' '.join(tests['paths'])}` ({state}"
                  + (f"; {tests['measured']}" if tests.get("measured") else "") + "): "
                  f"{tests['passed']} passed, {tests['failed'] + tests['error']} failed, "
                  f"{tests['skipped']} skipped."]
        if tests["failures"]:
            lines += ["", "Failed:", ""] + [f"- `{name}`" for name in tests["failures"]]
        elif tests["failed"] + tests["error"]:
            lines += ["", "The failures' names were not printed (the run was cut off before "
                      "pytest's summary): run the tests again on a GPU to name them."]
    failures = [r for r in rows if r.get("first_failure")]
    if failures:
        lines += ["", "## First failure of each failed chapter", ""]
        for r in failures:
            lines += [f"`{r['chapter']}`:", "", "```", r["first_failure"], "```", ""]
    return "\n".join(lines) + "\n"


def commit() -> str:
    """This working tree's commit, with "+ changes" when files differ from it."""
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        dirty = ""
    return head() + (" + changes" if dirty.strip() else "")


def head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=30).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def merged(earlier: dict, later: dict) -> dict:
    """``later``'s chapters (and tests) replace ``earlier``'s; every record keeps when and at
    which commit it ran."""
    def dated(record: dict, run: dict) -> dict:
        return dict(record, measured=record.get("measured")
                    or f"{run['when']}, {run['commit']}, {run['jobs']} at once")

    fresh = {r["chapter"] for r in later["chapters"]}
    kept = [dated(r, earlier) for r in earlier["chapters"] if r["chapter"] not in fresh]
    chapters = kept + [dated(r, later) for r in later["chapters"]]
    result = {**later, "chapters": sorted(chapters, key=lambda r: r["chapter"])}
    if kept:  # two runs' chapters: from the first's start to the last's
        began = earlier["when"].split(" to ")[0]
        result.update(when=f"{began} to {later['when']} (chapters as dated)",
                      wall_s=earlier["wall_s"] + later["wall_s"])
    tests = later.get("tests") or earlier.get("tests")
    if tests:
        owner = later if later.get("tests") else earlier
        result["tests"] = dict(tests, measured=tests.get("measured")
                               or f"{owner['when']}, {owner['commit']}")
    return result


def write(result: dict, out: Path) -> None:
    (out / "gpu.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "gpu.md").write_text(markdown(result))


def finish_tests(tests: tuple[subprocess.Popen, Path], paths: list[str]) -> dict:
    """The tests' record; still running (the limit): interrupted so that pytest names its
    failures so far."""
    process, log = tests
    finished = process.poll() is not None
    if not finished:
        os.killpg(process.pid, 2)  # SIGINT: pytest stops and prints its summary
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
    return tests_record(log.read_text(errors="replace"), paths, finished)


def merge(path: Path, tests_log: Path | None, test_paths: list[str] | None, out: Path,
          commit_: str | None) -> int:
    """Fold a record written on a GPU machine into ``out``'s."""
    later = json.loads(path.read_text())
    if commit_:
        later["commit"] = commit_
    if tests_log:
        later["tests"] = tests_record(tests_log.read_text(errors="replace"),
                                      test_paths or ["tests"], True)
    earlier_path = out / "gpu.json"
    result = merged(json.loads(earlier_path.read_text()), later) if earlier_path.is_file() \
        else later
    write(result, out)
    print(markdown(result))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default), cuda:N or cpu")
    parser.add_argument("--jobs", type=int, default=4, help="chapters at once (default 4)")
    parser.add_argument("--limit", type=float, default=None, metavar="S",
                        help="stop chapters still running after S seconds (recorded)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="these chapters only, started in this order (longest first ends "
                             "sooner)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tests", nargs="+", metavar="PATH",
                        help="also run these test folders on the device, within the limit")
    parser.add_argument("--test-workers", type=int, default=6, metavar="N",
                        help="processes for --tests where pytest-xdist is installed (default 6)")
    parser.add_argument("--commit", help="the commit to record (default: this tree's git)")
    parser.add_argument("--merge", type=Path, metavar="GPU_JSON",
                        help="fold this record (from a GPU machine) into --out's and stop")
    parser.add_argument("--merge-tests-log", type=Path, metavar="LOG",
                        help="with --merge: the tests' pytest log from that machine")
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.merge_tests_log, args.tests, args.out, args.commit)
    if args.jobs < 1:
        parser.error(f"--jobs must be ≥ 1, got {args.jobs}")
    if args.test_workers < 1:
        parser.error(f"--test-workers must be ≥ 1, got {args.test_workers}")
    paths = sorted(CHAPTERS.glob("*.ipynb"))
    if args.only:
        unknown = sorted(set(args.only) - {p.stem for p in paths})
        if unknown:
            parser.error(f"no chapter {', '.join(unknown)} in {CHAPTERS}")
        paths = sorted((p for p in paths if p.stem in args.only),
                       key=lambda p: args.only.index(p.stem))
    args.out.mkdir(parents=True, exist_ok=True)
    logs = args.out / "gpu-logs"
    logs.mkdir(exist_ok=True)
    result = {"when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "commit": args.commit or commit(), "facts": device_facts(args.device),
              "jobs": args.jobs, "limit_s": args.limit, "wall_s": 0.0, "chapters": []}
    start, waiting, running = time.perf_counter(), list(paths), {}
    tests = (start_tests(args.tests, args.device, args.out, args.test_workers) if args.tests
             else None)
    while waiting or running or (tests and tests[0].poll() is None):
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
        if tests and (tests[0].poll() is not None or over):
            result["tests"] = finish_tests(tests, args.tests)
            tests = None
        result["chapters"].sort(key=lambda r: r["chapter"])
        result["wall_s"] = time.perf_counter() - start
        write(result, args.out)
    print(markdown(result))
    return 0 if all(r["ok"] for r in result["chapters"]) else 1


if __name__ == "__main__":
    sys.exit(main())
