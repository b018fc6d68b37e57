"""Do the chapters' claims hold on another machine and under other seeds?

A tiny recurrent network turns last-bit differences into different outcomes: the same training
job is bit-identical run after run on one machine, but not under another CPU's kernels
(PyTorch picks them by vector width; ``ATEN_CPU_CAPABILITY=default`` forces the portable ones on
any x86 machine). A chapter's check that holds only on the machine the book was built on is a
fact about that CPU, not about the models. This benchmark executes every chapter under
**variants** — each seed offset (``COURSE_RNN_SEED_OFFSET``) × each kernel path — with errors
allowed, so that every check is seen, and records:

- per chapter and variant: every *claim* (each top-level statement of a check cell that holds an
  ``assert``; a check cell is any code cell with an ``assert``), passed, failed or not reached,
  and every error in the other cells;
- per claim: in how many variants it held;
- the code cells whose printed output changed between variants (what a reader on another
  machine sees differently: such numbers must come from a cell, never from the prose);
- the SHA-256 of each check cell's source, so that ``tests/test_robustness_record.py`` fails
  when a claim is added or edited without being measured here again;
- provenance: commit, CPU model, the native kernel capability, wall and CPU time.

    python benchmarks/robustness.py                       # every chapter, 3 offsets × 2 paths
    python benchmarks/robustness.py --chapters 03_gates --offsets 0 1000 --jobs 2

Writes ``benchmarks/results/robustness.json`` and ``robustness.md``; a run over some chapters
replaces only their entries. It is a benchmark, not a test: all chapters under six variants are
about an hour of the 2-core machine (``--jobs 2`` runs two notebooks at once, each with one
worker process).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
DEFAULT_OUT = ROOT / "benchmarks" / "results"
DEFAULT_OFFSETS = (0, 1000, 2000)
DEFAULT_CAPABILITIES = ("native", "default")
RECORDS = "__robustness_records__"
MARKER = "__ROBUSTNESS_RECORDS__"


# -- which cells are checks, and their hashes (tests/test_robustness_record.py uses these) ------
def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def has_assert(source: str) -> bool:
    """True when the cell's code holds an ``assert`` anywhere (such a cell is a check)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "assert " in source
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def check_cells(notebook: dict) -> list[tuple[int, str]]:
    """(index, source) of every check cell of a notebook, in order."""
    return [(i, cell_source(c)) for i, c in enumerate(notebook["cells"])
            if c["cell_type"] == "code" and has_assert(cell_source(c))]


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def check_hashes(path: Path) -> list[str]:
    """The hashes of a chapter's check cells, in order."""
    return [source_hash(s) for _, s in check_cells(json.loads(path.read_text()))]


def code_hash(path: Path) -> str:
    """One hash of every code cell of a chapter: a variant measured on other code is stale."""
    cells = json.loads(path.read_text())["cells"]
    return source_hash("\n# --\n".join(cell_source(c) for c in cells if c["cell_type"] == "code"))


# -- instrumenting a check cell so that each claim is recorded, not just the first failure ----
def instrument(source: str, cell: int) -> str:
    """The cell rewritten so that every top-level statement runs on its own: a statement that
    holds an ``assert`` is a claim, recorded as passed or failed (with its message); any other
    statement that raises is recorded as an error. Later statements still run."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = []
    claim = 0
    for statement in tree.body:
        text = ast.get_source_segment(source, statement) or ast.unparse(statement)
        is_claim = any(isinstance(n, ast.Assert) for n in ast.walk(statement))
        key = claim if is_claim else None
        claim += is_claim
        summary = " ".join(text.split())[:160]
        body = "\n".join("    " + line for line in ast.unparse(statement).splitlines())
        passed = (f"    {RECORDS}.append(({cell}, {key!r}, 'passed', {summary!r}, ''))\n"
                  if is_claim else "")
        lines.append(
            "try:\n"
            f"{body}\n"
            f"{passed}"
            "except Exception as _exc:\n"
            f"    {RECORDS}.append(({cell}, {key!r}, 'failed' if isinstance(_exc, AssertionError)"
            f" else 'error', {summary!r}, f'{{type(_exc).__name__}}: {{_exc}}'[:300]))\n")
    return "\n".join(lines)


# Runs in a child process: executes one chapter under one variant, prints one JSON line.
RUN_ONE = r"""
import json, resource, sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, sys.argv[3])
from robustness import check_cells, instrument, RECORDS, MARKER, source_hash

path, out = Path(sys.argv[1]), Path(sys.argv[2])
nb = nbformat.read(path, as_version=4)
checks = dict(check_cells(nb))
for i, cell in enumerate(nb.cells):
    if i in checks:
        cell.source = instrument(checks[i], i)
nb.cells.insert(0, nbformat.v4.new_code_cell(f"{RECORDS} = []"))
nb.cells.append(nbformat.v4.new_code_cell(
    f"import json as _json; print({MARKER!r} + _json.dumps({RECORDS}))"))
start = time.perf_counter()
failure = None
try:
    NotebookClient(nb, timeout=1800, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
except Exception as exc:  # a dead kernel or a timeout: say so
    failure = f"{type(exc).__name__}: {str(exc).splitlines()[-1] if str(exc) else ''}"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)

def text_of(cell):
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        elif o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data", {})
            parts.append(data.get("text/markdown") or data.get("text/plain", ""))
    return "".join(parts)

records, errors, outputs = [], [], {}
for i, cell in enumerate(nb.cells[1:-1]):
    if cell.cell_type != "code":
        continue
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error" and i not in checks:
            errors.append({"cell": i, "error": f"{o['ename']}: {o['evalue']}"[:300]})
    if i not in checks:
        outputs[i] = text_of(cell)
for o in nb.cells[-1].get("outputs", []):
    text = o.get("text", "")
    if MARKER in text:
        records = json.loads(text.split(MARKER, 1)[1])
claims = [{"cell": c, "claim": k, "status": s, "code": code, "message": m}
          for c, k, s, code, m in records if k is not None or s != "passed"]
out.write_text(json.dumps({"wall_s": wall,
                           "kernel_cpu_s": usage.ru_utime + usage.ru_stime,
                           "failure": failure, "claims": claims, "errors": errors,
                           "outputs": outputs,
                           "check_cells": {str(i): source_hash(s) for i, s in checks.items()}}))
"""


def native_machine() -> dict:
    """``course_rnn.utils.machine_facts()`` of this CPU with its own kernels (a fresh process,
    without ``$ATEN_CPU_CAPABILITY``): the CPU model and the native kernel capability."""
    done = subprocess.run(
        [sys.executable, "-c", "import json; from course_rnn.utils import machine_facts; "
                               "print(json.dumps(machine_facts()))"],
        capture_output=True, text=True, check=True,
        env={k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def variant_name(offset: int, capability: str) -> str:
    return f"offset {offset}, {capability}"


def run_variant(path: Path, offset: int, capability: str, workers: int, tmp: Path) -> dict:
    env = {**os.environ, "COURSE_RNN_PROGRESS": "0", "MPLBACKEND": "Agg",
           "COURSE_RNN_SEED_OFFSET": str(offset), "COURSE_RNN_WORKERS": str(workers)}
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability != "native":
        env["ATEN_CPU_CAPABILITY"] = capability
    out = tmp / f"{path.stem}-{offset}-{capability}.json"
    measured_code = code_hash(path)
    done = subprocess.run([sys.executable, "-c", RUN_ONE, str(path), str(out),
                           str(Path(__file__).parent)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0 or not out.exists():
        record = {"failure": (done.stderr.strip().splitlines() or ["no output"])[-1],
                  "claims": [], "errors": [], "outputs": {}}
    else:
        record = json.loads(out.read_text())
    record.update(offset=offset, capability=capability, variant=variant_name(offset, capability),
                  chapter=path.stem, code_hash=measured_code, commit=git("rev-parse", "HEAD"),
                  measured=time.strftime("%Y-%m-%d %H:%M"))
    if out.exists():  # the variant's record, kept for later summaries (see measured_variants)
        out.write_text(json.dumps(record))
    return record


def measured_variants(path: Path, tmp: Path) -> list[dict]:
    """Every variant of a chapter measured on its current code: the records in ``tmp`` whose code
    hash is the chapter's now (a run over some offsets adds to those measured before)."""
    current, found = code_hash(path), []
    for file in sorted(tmp.glob(f"{path.stem}-*-*.json")):
        record = json.loads(file.read_text())
        if record.get("code_hash") == current:
            found.append(record)
    return sorted(found, key=lambda r: (r["offset"], r["capability"] != "native"))


def summarise(chapter: str, runs: list[dict]) -> dict:
    """Per claim: the variants it held in; per variant: failed claims and errors; the code cells
    whose output differs between variants."""
    claims: dict[str, dict] = {}
    for run in runs:
        for c in run["claims"]:
            key = f"{c['cell']}.{c['claim']}"
            entry = claims.setdefault(key, {"cell": c["cell"], "claim": c["claim"],
                                            "code": c["code"], "held": 0, "failed_in": []})
            if c["status"] == "passed":
                entry["held"] += 1
            else:
                entry["failed_in"].append({"variant": run["variant"], "status": c["status"],
                                           "message": c["message"]})
    cells = sorted({int(i) for run in runs for i in run["outputs"]})
    changed = [i for i in cells if len({run["outputs"].get(str(i)) for run in runs}) > 1]
    return {"chapter": chapter, "variants": len(runs), "claims": list(claims.values()),
            "failed": sum(len(c["failed_in"]) for c in claims.values())
            + sum(len(r["errors"]) + bool(r.get("failure")) for r in runs),
            "changed_output_cells": changed,
            "changed_outputs": {str(i): {r["variant"]: r["outputs"].get(str(i), "")[:400]
                                         for r in runs} for i in changed},
            "runs": [{k: r.get(k) for k in ("variant", "offset", "capability", "wall_s",
                                            "kernel_cpu_s", "failure", "errors", "commit",
                                            "measured")}
                     | {"failed_claims": [f"{c['cell']}.{c['claim']}" for c in r["claims"]
                                          if c["status"] != "passed"]} for r in runs],
            "check_cells": runs[0].get("check_cells", {}) if runs else {}}


def markdown(record: dict) -> str:
    lines = ["# Robustness of the chapters' claims", "",
             "Every chapter executed under every variant (seed offset × PyTorch kernel path), "
             "errors allowed, by `python benchmarks/robustness.py`. A claim is one top-level "
             "statement of a check cell that holds an `assert`.", ""]
    total_failed = sum(c["failed"] for c in record["chapters"].values())
    runs = [r for c in record["chapters"].values() for r in c["runs"]]
    wall = sum(r.get("wall_s") or 0 for r in runs)
    cpu = sum(r.get("kernel_cpu_s") or 0 for r in runs)

    def cpu_of(capability_is_native: bool) -> float:
        return sum(r.get("kernel_cpu_s") or 0 for r in runs
                   if (r["capability"] == "native") == capability_is_native)

    lines += [f"**Failed checks, all chapters and variants: {total_failed}.** "
              f"{len(runs)} chapter runs: {wall:,.0f} s of wall time summed over the runs "
              f"(several ran at once) and {cpu:,.0f} s of CPU. PyTorch's "
              f"portable kernels cost {cpu_of(False) / max(cpu_of(True), 1):.2f}× the CPU time "
              "of this machine's own on the same chapters and offsets.", "",
              "| chapter | variants | claims | failed | cells whose output changed | wall (s) per "
              "variant | CPU (s) | measured | commit | CPU | native kernels |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, c in sorted(record["chapters"].items()):
        walls = [r["wall_s"] for r in c["runs"] if r.get("wall_s")]
        cpus = [r["kernel_cpu_s"] for r in c["runs"] if r.get("kernel_cpu_s")]
        p = c["provenance"]
        when = sorted(r.get("measured") or p["measured"] for r in c["runs"])
        commits = sorted({(r.get("commit") or p["commit"])[:9] for r in c["runs"]})
        lines.append(
            f"| {name} | {c['variants']} | {len(c['claims'])} | {c['failed']} | "
            f"{len(c['changed_output_cells'])} | {min(walls, default=0):.0f}–"
            f"{max(walls, default=0):.0f} | {sum(cpus):.0f} | {when[0]} – {when[-1][-5:]} | "
            f"{', '.join(commits)} | {p['cpu']} | {p['native']} |")
    lines += ["", "Measured: when each chapter's variants ran, and at which commits (a chapter's "
              "runs all had the same code cells: `code_hash` in robustness.json). Wall per "
              "variant depends on what else shared the two cores (one or two notebooks at once, "
              "often other runs too); the CPU column, the kernels' CPU time over all of the "
              "chapter's variants, is the steadier figure.", ""]
    for name, c in sorted(record["chapters"].items()):
        lines += [f"## {name}", ""]
        for r in c["runs"]:
            bad = r["failed_claims"] + [f"cell {e['cell']}: {e['error']}" for e in r["errors"]]
            if r.get("failure"):
                bad.append(r["failure"])
            lines.append(f"- {r['variant']}: {r.get('wall_s') or 0:.0f} s wall, "
                         f"{r.get('kernel_cpu_s') or 0:.0f} s CPU; "
                         + ("every claim held" if not bad else "FAILED: " + "; ".join(bad)))
        weak = [c2 for c2 in c["claims"] if c2["failed_in"]]
        lines += ["", f"{len(c['claims'])} claims; held in every variant: "
                  f"{sum(not c2['failed_in'] for c2 in c['claims'])}."]
        for c2 in weak:
            lines.append(f"- cell {c2['cell']} claim {c2['claim']} held in {c2['held']} of "
                         f"{c['variants']}: `{c2['code'][:120]}` — "
                         + "; ".join(f"{f['variant']}: {f['message'][:120]}"
                                     for f in c2["failed_in"]))
        if c["changed_output_cells"]:
            lines += ["", "Code cells whose output differs between variants (generated from "
                      "the run, never typed into the prose): "
                      + ", ".join(map(str, c["changed_output_cells"])) + "."]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="*", help="chapter stems (default: all)")
    parser.add_argument("--offsets", nargs="*", type=int, default=list(DEFAULT_OFFSETS))
    parser.add_argument("--capabilities", nargs="*", default=list(DEFAULT_CAPABILITIES),
                        help="'native' (this CPU's) and/or values of ATEN_CPU_CAPABILITY")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    paths = sorted(CHAPTERS.glob("*.ipynb"))
    if args.chapters:
        unknown = set(args.chapters) - {p.stem for p in paths}
        if unknown:
            parser.error(f"unknown chapters {sorted(unknown)}; have {[p.stem for p in paths]}")
        paths = [p for p in paths if p.stem in args.chapters]
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if any(o < 0 for o in args.offsets):
        parser.error("--offsets must be integers ≥ 0")
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / ".robustness-runs"
    tmp.mkdir(exist_ok=True)
    machine = native_machine()
    variants = [(o, c) for o in args.offsets for c in args.capabilities]
    workers = 1 if args.jobs > 1 else (os.cpu_count() or 1)
    tasks = [(p, o, c) for p in paths for o, c in variants]
    start = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {t: pool.submit(run_variant, t[0], t[1], t[2], workers, tmp) for t in tasks}
        runs = {}
        for t, f in futures.items():
            runs[t] = f.result()
            r = runs[t]
            print(f"{t[0].stem} {r['variant']}: {r.get('wall_s', 0):.0f} s, failed "
                  f"{[c['cell'] for c in r['claims'] if c['status'] != 'passed']} errors "
                  f"{r['errors']} {r.get('failure') or ''}", flush=True)
    json_path = args.out / "robustness.json"
    record = json.loads(json_path.read_text()) if json_path.exists() else {"chapters": {}}
    dirty = bool(git("status", "--porcelain", "--", "chapters", "src"))
    for path in paths:
        summary = summarise(path.stem, measured_variants(path, tmp))
        summary["check_hashes"] = check_hashes(path)
        summary["provenance"] = {
            "command": "python benchmarks/robustness.py " + " ".join(argv or sys.argv[1:]),
            "commit": git("rev-parse", "HEAD"), "dirty": dirty,
            "measured": time.strftime("%Y-%m-%d %H:%M"), "cpu": machine["cpu"],
            "native": machine["kernel_capability"],
            "cores": os.cpu_count(), "python": platform.python_version(),
            "jobs": args.jobs, "workers_per_notebook": workers}
        record["chapters"][path.stem] = summary
    record["last_run"] = {"wall_s": time.perf_counter() - start,
                          "cpu_s": sum(r.get("kernel_cpu_s") or 0 for r in runs.values()),
                          "chapters": [p.stem for p in paths],
                          "variants": [variant_name(o, c) for o, c in variants]}
    json_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    (args.out / "robustness.md").write_text(markdown(record))
    failed = sum(record["chapters"][p.stem]["failed"] for p in paths)
    print(f"{len(paths)} chapters × {len(variants)} variants: {failed} failed checks; "
          f"{json_path}", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
