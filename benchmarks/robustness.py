"""Do the chapters' claims hold on another machine and under other seeds — and by how much?

A tiny recurrent network turns last-bit differences into different outcomes: the same training
job is bit-identical run after run on one machine, but not under another CPU's kernels
(PyTorch picks them by vector width; ``ATEN_CPU_CAPABILITY=default`` forces the portable ones on
any x86 machine), nor under other seeds. A chapter's check that holds only on the machine the
book was built on, or only for the seeds it was tuned on, is a fact about that CPU or those
draws, not about the models. This benchmark executes every chapter under **variants**, with
errors allowed, so that every check is seen:

- **seed offsets** (``COURSE_RNN_SEED_OFFSET``): ``--fresh K`` (default 5) offsets drawn anew on
  every run — never a fixed list, so that no bound is fitted to the draws it was measured on —
  plus any ``--offsets`` chosen by name (the one a CI log printed, say); each variant records
  whether its offset was fresh or chosen;
- **kernel paths** (``--capabilities``): ``native`` (this CPU's own kernels) and ``default``
  (PyTorch's portable ones), each under every offset, plus one ``avx2`` variant (PyTorch's AVX2
  kernels, MKL capped at AVX2: an older x86 CPU) at the first fresh offset. By default that is
  5 × 2 + 1 = 11 variants per chapter.

It records, per chapter:

- every *statement claim*: each top-level statement of a check cell that holds an ``assert`` or
  a call of :mod:`course_rnn.claims` (``claim``/``holds``/``exact``; a check cell is any code
  cell with one), passed, failed or not reached, and every error in the other cells; a statement
  with a plain ``assert`` only is counted as "unmeasured: plain assert";
- every *stated claim* (what ``course_rnn.claims.RECORD`` gained in each check cell, keyed by
  cell, words and occurrence): a numeric claim's values, bounds and margins in every variant,
  their spread (sample standard deviation of the margins over the variants, which is the
  values' when the bound is fixed) and its **slack** = ``claims.slack(margins, spread)``; an
  over-runs claim's variants held and runs covered; a structural claim's variants held;
- the code cells whose printed output changed between variants (what a reader on another
  machine sees differently: such numbers must come from a cell, never from the prose);
- the SHA-256 of each check cell's source, so that ``tests/test_robustness_record.py`` fails
  when a claim is added or edited without being measured here again;
- provenance: commit, CPU model, the native kernel capability, wall and CPU time, and
  ``"method": "fresh offsets"`` (the test then requires ≥ 10 variants, ≥ 5 fresh offsets and
  slack ≥ ``claims.MIN_SLACK`` of every numeric claim, or the claim listed as weak in
  ``benchmarks/weak_claims.json``, which ``--list-weak`` writes from the record).

    python benchmarks/robustness.py --chapters 03_gates            # 5 fresh offsets × 2 + avx2
    python benchmarks/robustness.py --chapters 03_gates --offsets 1000 --fresh 5 --jobs 2
    python benchmarks/robustness.py --list-weak                    # the weak-claims ledger
    python benchmarks/robustness.py --merge-from WT/benchmarks/results/robustness.json
                                    # a chapter measured in a worktree WT (git worktree add):
                                    # merge its entry here before removing WT

Writes ``benchmarks/results/robustness.json`` and ``robustness.md`` (``--out`` elsewhere); a run
over some chapters replaces only their entries. Variants measured before on the same code (kept
in ``OUT/.robustness-runs``) are kept, so a chapter can be measured in several sittings. It is a
benchmark, not a test: a chapter under 11 variants is about 11 × its CPU time on the 2-core
machine (``--jobs 2`` runs two notebooks at once, each with one worker process).
"""

from __future__ import annotations

import argparse
import ast
import bisect
import copy
import hashlib
import json
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import NamedTuple

from course_rnn.claims import MIN_SLACK, Claim, slack

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"
DEFAULT_OUT = ROOT / "benchmarks" / "results"
RECORDS = "__robustness_records__"
MARKS = "__robustness_marks__"
MARK_CELL = "__robustness_cell__"
MARKER = "__ROBUSTNESS_RECORDS__"
#: What the record of a chapter measured by this script says (tests/test_robustness_record.py).
METHOD = "fresh offsets"
FRESH_DEFAULT = 5
OFFSET_RANGE = (1, 10**6)
CLAIM_CALLS = ("claim", "holds", "exact")

#: Kernel path -> the environment that selects it.
KERNEL_PATHS = {
    "native": {},                                   # this CPU's own kernels
    "default": {"ATEN_CPU_CAPABILITY": "default"},  # PyTorch's portable kernels
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2",         # an AVX2-only CPU: ATen and MKL at AVX2
             "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
}
#: Paths run under every offset; the others run once, at the first fresh offset.
CROSSED_PATHS = ("native", "default")
KERNEL_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS")


class Variant(NamedTuple):
    offset: int
    offset_kind: str  # "fresh" (drawn for this run) or "chosen" (named by --offsets)
    capability: str   # a key of KERNEL_PATHS

    @property
    def name(self) -> str:
        return f"offset {self.offset} ({self.offset_kind}), {self.capability} kernels"


# -- which variants: fresh offsets on every run ------------------------------------------------
def draw_offsets(count: int, taken=()) -> list[int]:
    """``count`` distinct seed offsets drawn from the OS's randomness, none of them in ``taken``."""
    rng, drawn = random.SystemRandom(), []
    while len(drawn) < count:
        offset = rng.randrange(*OFFSET_RANGE)
        if offset not in drawn and offset not in taken:
            drawn.append(offset)
    return drawn


def plan_variants(chosen, fresh, capabilities) -> list[Variant]:
    """Every offset (chosen ones first) × each crossed kernel path, then each other path once,
    at the first fresh offset (the first chosen one when none is fresh)."""
    offsets = ([(o, "chosen") for o in dict.fromkeys(chosen)]
               + [(o, "fresh") for o in fresh if o not in chosen])
    crossed = [Variant(o, kind, c) for o, kind in offsets
               for c in capabilities if c in CROSSED_PATHS]
    once_at = next((o for o in offsets if o[1] == "fresh"), offsets[0] if offsets else None)
    once = [Variant(*once_at, c) for c in capabilities
            if c not in CROSSED_PATHS and once_at is not None]
    return crossed + once


# -- which cells are checks, and their hashes (tests/test_robustness_record.py uses these) ------
def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _parsed(source: str):
    try:
        return ast.parse(source)
    except SyntaxError:  # IPython magics: judged by the text
        return None


def _calls_a_claim(node) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name in CLAIM_CALLS


def has_assert(source: str) -> bool:
    """True when the cell's code holds an ``assert`` anywhere."""
    tree = _parsed(source)
    if tree is None:
        return "assert " in source
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def has_claim_call(source: str) -> bool:
    """True when the code calls ``claim``, ``holds`` or ``exact`` (by name or as an attribute,
    ``claims.claim(...)``) anywhere."""
    tree = _parsed(source)
    if tree is None:
        return re.search(rf"\b({'|'.join(CLAIM_CALLS)})\(", source) is not None
    return any(_calls_a_claim(node) for node in ast.walk(tree))


def is_check(source: str) -> bool:
    """A check cell: code with an ``assert`` or a claim call."""
    return has_assert(source) or has_claim_call(source)


def check_cells(notebook: dict) -> list[tuple[int, str]]:
    """(index, source) of every check cell of a notebook, in order."""
    return [(i, cell_source(c)) for i, c in enumerate(notebook["cells"])
            if c["cell_type"] == "code" and is_check(cell_source(c))]


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
    holds an ``assert`` or a claim call is a claim, recorded as passed or failed (with its
    message, and whether it is stated through ``course_rnn.claims``); any other statement that
    raises is recorded as an error. Later statements still run."""
    tree = _parsed(source)
    if tree is None:
        return source
    lines = []
    claim = 0
    for statement in tree.body:
        text = ast.get_source_segment(source, statement) or ast.unparse(statement)
        stated = any(_calls_a_claim(n) for n in ast.walk(statement))
        is_claim = stated or any(isinstance(n, ast.Assert) for n in ast.walk(statement))
        key = claim if is_claim else None
        claim += is_claim
        summary = " ".join(text.split())[:160]
        body = "\n".join("    " + line for line in ast.unparse(statement).splitlines())
        passed = (f"    {RECORDS}.append(({cell}, {key!r}, 'passed', {summary!r}, '', {stated}))\n"
                  if is_claim else "")
        lines.append(
            "try:\n"
            f"{body}\n"
            f"{passed}"
            "except Exception as _exc:\n"
            f"    {RECORDS}.append(({cell}, {key!r}, 'failed' if isinstance(_exc, AssertionError)"
            f" else 'error', {summary!r}, f'{{type(_exc).__name__}}: {{_exc}}'[:300], {stated}))\n")
    return "\n".join(lines)


# -- the notebook executed under one variant: marks, instrumented checks, a report ------------
SETUP = f"""{RECORDS} = []
{MARKS} = []


def {MARK_CELL}(cell):
    import sys
    claims = sys.modules.get("course_rnn.claims")
    {MARKS}.append((cell, len(claims.RECORD) if claims else 0))
"""

REPORT = f"""def __robustness_report__():
    import json, sys
    claims = sys.modules.get("course_rnn.claims")
    found = {{"statements": {RECORDS}, "marks": {MARKS},
             "claims": claims.recorded() if claims else []}}
    print({MARKER!r} + json.dumps(found))


__robustness_report__()
"""


def _code_cell(source: str) -> dict:
    import nbformat

    return nbformat.v4.new_code_cell(source)


def prepare(notebook: dict) -> tuple[dict, dict[int, int]]:
    """A copy of ``notebook`` to execute: a setup cell, before each code cell one that marks its
    index (and how many claims ``course_rnn.claims.RECORD`` held then), every check cell
    instrumented, and a last cell that prints what was recorded. Also returns
    {index in ``notebook``: index in the copy}."""
    checks = dict(check_cells(notebook))
    cells, places = [_code_cell(SETUP)], {}
    for i, cell in enumerate(copy.deepcopy(notebook["cells"])):
        if cell["cell_type"] == "code":
            cells.append(_code_cell(f"{MARK_CELL}({i})"))
            if i in checks:
                cell["source"] = instrument(checks[i], i)
        places[i] = len(cells)
        cells.append(cell)
    prepared = copy.deepcopy(notebook)
    prepared["cells"] = cells + [_code_cell(REPORT)]
    return prepared, places


def claims_by_cell(marks, records) -> list[dict]:
    """Each recorded claim (``Claim.to_json()``) with the cell that recorded it — the last cell
    marked before it was appended (``marks``: (cell, len(RECORD) then), in execution order) —
    and its occurrence: how many claims in the same words that cell recorded before it."""
    starts = [start for _, start in marks]
    seen, found = Counter(), []
    for j, record in enumerate(records):
        at = bisect.bisect_right(starts, j) - 1
        cell = marks[at][0] if at >= 0 else None
        found.append({"cell": cell, "occurrence": seen[cell, record["says"]], **record})
        seen[cell, record["says"]] += 1
    return found


def printed(cell: dict) -> str:
    """What a code cell showed: its streams and the text of its results."""
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        elif o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data", {})
            parts.append(data.get("text/markdown") or data.get("text/plain", ""))
    return "".join(parts)


def read_report(prepared: dict) -> dict:
    """What the last cell printed (empty when the kernel died before it)."""
    text = "".join(o.get("text", "") for o in prepared["cells"][-1].get("outputs", [])
                   if o.get("output_type") == "stream")
    if MARKER not in text:
        return {"statements": [], "marks": [], "claims": []}
    return json.loads(text.split(MARKER, 1)[1])


def read_results(prepared: dict, places: dict[int, int], checks: dict[int, str]) -> dict:
    """One variant's findings from the executed copy: the statement claims, the stated claims
    by cell, the errors and printed outputs of the other code cells, the check cells' hashes."""
    report = read_report(prepared)
    statements = [{"cell": c, "claim": k, "status": s, "code": code, "message": m,
                   "stated": stated}
                  for c, k, s, code, m, stated in report["statements"]
                  if k is not None or s != "passed"]
    errors, outputs = [], {}
    for i, at in places.items():
        cell = prepared["cells"][at]
        if cell["cell_type"] != "code" or i in checks:
            continue
        errors += [{"cell": i, "error": f"{o['ename']}: {o['evalue']}"[:300]}
                   for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        outputs[i] = printed(cell)
    return {"claims": statements, "stated_claims": claims_by_cell(report["marks"],
                                                                  report["claims"]),
            "errors": errors, "outputs": outputs,
            "check_cells": {str(i): source_hash(s) for i, s in checks.items()}}


# Runs in a child process: executes one chapter under one variant, writes one JSON file.
RUN_ONE = r"""
import json, resource, sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, sys.argv[3])
from robustness import check_cells, prepare, read_results

path, out = Path(sys.argv[1]), Path(sys.argv[2])
notebook = nbformat.read(path, as_version=4)
prepared, places = prepare(notebook)
start = time.perf_counter()
failure = None
try:
    NotebookClient(prepared, timeout=1800, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
except Exception as exc:  # a dead kernel or a timeout: say so
    failure = f"{type(exc).__name__}: {str(exc).splitlines()[-1] if str(exc) else ''}"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
found = read_results(prepared, places, dict(check_cells(notebook)))
out.write_text(json.dumps({"wall_s": wall, "kernel_cpu_s": usage.ru_utime + usage.ru_stime,
                           "failure": failure, **found}))
"""


def native_machine() -> dict:
    """``course_rnn.utils.machine_facts()`` of this CPU with its own kernels (a fresh process,
    without the kernel path variables): the CPU model and the native kernel capability."""
    done = subprocess.run(
        [sys.executable, "-c", "import json; from course_rnn.utils import machine_facts; "
                               "print(json.dumps(machine_facts()))"],
        capture_output=True, text=True, check=True,
        env={k: v for k, v in os.environ.items() if k not in KERNEL_VARIABLES})
    return json.loads(done.stdout.strip().splitlines()[-1])


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def variant_env(variant: Variant, workers: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_VARIABLES}
    return {**env, "COURSE_RNN_PROGRESS": "0", "MPLBACKEND": "Agg",
            "COURSE_RNN_SEED_OFFSET": str(variant.offset), "COURSE_RNN_WORKERS": str(workers),
            **KERNEL_PATHS[variant.capability]}


def run_variant(path: Path, variant: Variant, workers: int, tmp: Path) -> dict:
    out = tmp / f"{path.stem}-{variant.offset}-{variant.capability}.json"
    measured_code = code_hash(path)
    done = subprocess.run([sys.executable, "-c", RUN_ONE, str(path), str(out),
                           str(Path(__file__).parent)],
                          capture_output=True, text=True, env=variant_env(variant, workers),
                          check=False)
    if done.returncode != 0 or not out.exists():
        record = {"failure": (done.stderr.strip().splitlines() or ["no output"])[-1],
                  "claims": [], "stated_claims": [], "errors": [], "outputs": {}}
    else:
        record = json.loads(out.read_text())
    record.update(variant._asdict(), variant=variant.name, chapter=path.stem,
                  code_hash=measured_code, commit=git("rev-parse", "HEAD"),
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
            record.setdefault("offset_kind", "chosen")  # measured before offsets were drawn
            found.append(record)
    paths = list(KERNEL_PATHS)
    return sorted(found, key=lambda r: (r["offset"], paths.index(r["capability"])
                                        if r["capability"] in paths else len(paths)))


# -- summaries: statement claims, stated claims and their slack -------------------------------
def margin_of(record: dict) -> float:
    """A numeric claim's margin (see ``Claim.margin``) from its JSON record (one recorded before
    claims had a scale is on the linear scale)."""
    return Claim(**{k: record[k] for k in Claim.__dataclass_fields__ if k in record}).margin


def numeric_measures(seen: list[tuple[str, dict]]) -> dict:
    """A numeric claim's values and bounds by variant, the spread of its margins (the sample
    standard deviation over the variants; the values' own when the bound is fixed) and its
    slack: the smallest margin in spreads. Slack is None under fewer than two variants, -inf
    where a value was NaN."""
    margins = [margin_of(c) for _, c in seen]
    spread = statistics.stdev(margins) if len(margins) >= 2 else None
    if any(math.isnan(m) for m in margins):
        found_slack = -math.inf
    else:
        found_slack = None if spread is None else slack(margins, spread)
    return {"op": seen[0][1]["op"], "scale": seen[0][1].get("scale", "linear"),
            "values": {v: c["value"] for v, c in seen},
            "bounds": {v: c["bound"] for v, c in seen}, "spread": spread,
            "slack": found_slack}


def measure_claim(key: tuple, seen: list[tuple[str, dict]]) -> dict:
    """One stated claim over the variants that recorded it (``seen``: (variant, record))."""
    cell, says, occurrence = key
    kind = seen[0][1]["kind"]
    entry = {"cell": cell, "says": says, "occurrence": occurrence, "kind": kind,
             "recorded_in": len(seen), "held_in": sum(c["held"] for _, c in seen),
             "failed_in": [v for v, c in seen if not c["held"]]}
    if kind == "numeric":
        entry |= numeric_measures(seen)
    elif kind == "over runs":
        entry["runs"] = sorted({c["runs"] for _, c in seen})
    return entry


def summarise_stated(runs: list[dict]) -> list[dict]:
    """Every stated claim, keyed by (cell, words, occurrence in the cell), measured over runs."""
    seen: dict[tuple, list] = {}
    for run in runs:
        for c in run.get("stated_claims", []):
            seen.setdefault((c["cell"], c["says"], c["occurrence"]), []).append(
                (run["variant"], c))
    entries = [measure_claim(key, found) for key, found in seen.items()]
    return sorted(entries, key=lambda e: -1 if e["cell"] is None else e["cell"])


def enough_slack(entry: dict) -> bool:
    return entry["slack"] is not None and entry["slack"] >= MIN_SLACK


COUNTED = ("numeric with slack ≥ 4", "numeric with too little slack", "over runs",
           "structural", "unmeasured: plain assert")


def claim_counts(summary: dict) -> Counter:
    """A chapter's claims by how they are measured (the headline of robustness.md)."""
    counts = Counter()
    for c in summary.get("stated_claims", []):
        if c["kind"] == "numeric":
            counts[COUNTED[0] if enough_slack(c) else COUNTED[1]] += 1
        else:
            counts[c["kind"]] += 1
    counts["unmeasured: plain assert"] = sum(not c.get("stated") for c in summary["claims"])
    return counts


def summarise_statements(runs: list[dict]) -> list[dict]:
    """Per statement claim: the variants it held in, and where it failed."""
    claims: dict[str, dict] = {}
    for run in runs:
        for c in run["claims"]:
            key = f"{c['cell']}.{c['claim']}"
            entry = claims.setdefault(key, {"cell": c["cell"], "claim": c["claim"],
                                            "code": c["code"], "stated": c.get("stated", False),
                                            "held": 0, "failed_in": []})
            if c["status"] == "passed":
                entry["held"] += 1
            else:
                entry["failed_in"].append({"variant": run["variant"], "status": c["status"],
                                           "message": c["message"]})
    return list(claims.values())


RUN_FIELDS = ("variant", "offset", "offset_kind", "capability", "wall_s", "kernel_cpu_s",
              "failure", "errors", "commit", "measured")


def summarise(chapter: str, runs: list[dict]) -> dict:
    """Per claim: the variants it held in, and a stated claim's slack; per variant: failed
    claims and errors; the code cells whose output differs between variants."""
    claims = summarise_statements(runs)
    cells = sorted({int(i) for run in runs for i in run["outputs"]})
    changed = [i for i in cells if len({run["outputs"].get(str(i)) for run in runs}) > 1]
    kinds = {kind: sorted({r["offset"] for r in runs if r["offset_kind"] == kind})
             for kind in ("fresh", "chosen")}
    return {"chapter": chapter, "method": METHOD, "variants": len(runs), "offsets": kinds,
            "claims": claims, "stated_claims": summarise_stated(runs),
            "failed": sum(len(c["failed_in"]) for c in claims)
            + sum(len(r["errors"]) + bool(r.get("failure")) for r in runs),
            "changed_output_cells": changed,
            "changed_outputs": {str(i): {r["variant"]: r["outputs"].get(str(i), "")[:400]
                                         for r in runs} for i in changed},
            "runs": [{k: r.get(k) for k in RUN_FIELDS}
                     | {"failed_claims": [f"{c['cell']}.{c['claim']}" for c in r["claims"]
                                          if c["status"] != "passed"]} for r in runs],
            "check_cells": runs[0].get("check_cells", {}) if runs else {}}


# -- the weak claims: measured, listed, to be restated ------------------------------------------
#: Claims of chapters measured with fresh offsets that failed in a variant or have too little
#: slack, each listed with what was measured, until it is restated (tests/test_robustness_record.py
#: fails on a weak claim missing from it, and on a listed one that is no longer weak).
WEAK = ROOT / "benchmarks" / "weak_claims.json"


def weak_claims(summary: dict) -> dict[str, str]:
    """A chapter's weak claims: {the claim: what was measured}. A statement claim (its code) that
    failed in some variant; a stated claim (its words) that was not reached in every variant,
    failed, or is numeric with too little slack."""
    weak = {}
    for c in summary["claims"]:
        if c["failed_in"]:
            weak[c["code"]] = (f"held in {c['held']} of {summary['variants']} variants; "
                               + c["failed_in"][0]["message"][:160])
    for c in summary.get("stated_claims", []):
        if c["recorded_in"] < summary["variants"]:  # an earlier failure hid it somewhere
            weak[c["says"]] = (f"reached in {c['recorded_in']} of {summary['variants']} "
                               "variants (a failure before it in its statement hid it)")
        elif c["kind"] == "numeric" and not enough_slack(c):
            weak[c["says"]] = (f"values {_span(c['values'].values())} {c['op']} "
                               f"{_span(c['bounds'].values())}: slack {_slack_text(c['slack'])}")
        elif c["kind"] != "numeric" and c["held_in"] < summary["variants"]:
            weak[c["says"]] = f"held in {c['held_in']} of {summary['variants']} variants"
    return weak


def listed_weak() -> dict[str, dict[str, str]]:
    """The committed list of weak claims, by chapter."""
    return json.loads(WEAK.read_text())["chapters"] if WEAK.exists() else {}


WEAK_ABOUT = ("Claims of the chapters measured by benchmarks/robustness.py with fresh seed offsets "
              "that failed in some variant, or whose slack is below 4 spreads, each with what was "
              "measured. Each is to be restated (more seeds, a statistic over seeds, a claim about "
              "a committed multi-seed run, or no claim: CONTRIBUTING.md) and then taken off this "
              "list; tests/test_robustness_record.py fails on a weak claim that is not listed, "
              "and on a listed one that is no longer weak. Written by `python "
              "benchmarks/robustness.py --list-weak` from robustness.json.")


def write_weak_list(record: dict) -> dict[str, int]:
    """benchmarks/weak_claims.json from the record: every weak claim of the chapters measured
    with fresh offsets. Returns the number per chapter."""
    chapters = {name: weak for name, c in sorted(record["chapters"].items())
                if c.get("method") == METHOD and (weak := weak_claims(c))}
    WEAK.write_text(json.dumps({"about": WEAK_ABOUT, "chapters": chapters}, indent=1,
                               ensure_ascii=False) + "\n")
    return {name: len(weak) for name, weak in chapters.items()}


# -- robustness.md ------------------------------------------------------------------------------
def _span(numbers) -> str:
    low, high = min(numbers), max(numbers)
    return f"{low:.4g}" if low == high else f"{low:.4g}–{high:.4g}"


def _slack_text(value) -> str:
    if value is None:
        return "—"
    return "∞" if value == math.inf else "−∞" if value == -math.inf else f"{value:.1f}"


def slack_row(c: dict, variants: int) -> str:
    """One row of a chapter's slack table."""
    held = f"held in {c['held_in']} of {variants}"
    words = c["says"].replace("|", "\\|") + (f" (#{c['occurrence'] + 1})" if c["occurrence"]
                                            else "")
    if c["kind"] == "numeric":
        spread = "—" if c["spread"] is None else f"{c['spread']:.3g}"
        flag = "" if enough_slack(c) else "too little slack"
        log = " (log scale)" if c.get("scale") == "log" else ""
        cells = [_span(c["values"].values()), f"{c['op']} {_span(c['bounds'].values())}{log}",
                 spread, _slack_text(c["slack"])]
    else:
        runs = f"{_span(c['runs'])} runs" if c["kind"] == "over runs" else "exact"
        flag = "" if c["held_in"] == variants else "FAILED"
        cells = [held, runs, "—", "—"]
    if c["recorded_in"] < variants:
        flag = f"{flag}; recorded in {c['recorded_in']} of {variants}".lstrip("; ")
    return f"| {c['cell']} | {words} | {c['kind']} | " + " | ".join(cells) + f" | {flag} |"


def slack_table(summary: dict) -> list[str]:
    stated = summary.get("stated_claims", [])
    plain = claim_counts(summary)["unmeasured: plain assert"]
    lines = [f"Unmeasured: plain assert: {plain} statement(s) not yet stated as claims."]
    if stated:
        lines = ["| cell | claim | kind | values (min–max) | bound | spread | slack | |",
                 "|---|---|---|---|---|---|---|---|"] + [
            slack_row(c, summary["variants"]) for c in stated] + ["", *lines]
    return lines


def headline(record: dict) -> str:
    total = sum((claim_counts(c) for c in record["chapters"].values()), Counter())
    failed = sum(c["failed"] for c in record["chapters"].values())
    fresh = {name: c for name, c in record["chapters"].items() if c.get("method") == METHOD}
    weak = sum(len(weak_claims(c)) for c in fresh.values())
    return (f"**Failed checks, all chapters and variants: {failed}.** Claims — "
            + "; ".join(f"{kind}: {total[kind]}" for kind in COUNTED) + ". "
            f"Chapters measured with fresh offsets: {len(fresh)} of {len(record['chapters'])}; "
            f"their weak claims (to be restated, `benchmarks/weak_claims.json`): {weak}.")


def cost_of_portable_kernels(runs: list[dict]) -> float:
    """Mean CPU time of a ``default``-kernel variant over that of a native one."""
    def mean_cpu(path):
        found = [r.get("kernel_cpu_s") or 0 for r in runs if r["capability"] == path]
        return sum(found) / len(found) if found else 0.0
    return mean_cpu("default") / max(mean_cpu("native"), 1e-9)


def chapter_row(name: str, c: dict) -> str:
    walls = [r["wall_s"] for r in c["runs"] if r.get("wall_s")]
    cpus = [r["kernel_cpu_s"] for r in c["runs"] if r.get("kernel_cpu_s")]
    p = c["provenance"]
    when = sorted(r.get("measured") or p["measured"] for r in c["runs"])
    commits = sorted({(r.get("commit") or p["commit"])[:9] for r in c["runs"]})
    return (f"| {name} | {c.get('method', 'fixed offsets')} | {c['variants']} | "
            f"{len(c['claims'])} | {c['failed']} | {len(c['changed_output_cells'])} | "
            f"{min(walls, default=0):.0f}–{max(walls, default=0):.0f} | {sum(cpus):.0f} | "
            f"{when[0]} – {when[-1][-5:]} | {', '.join(commits)} | {p['cpu']} | {p['native']} |")


def chapter_section(name: str, c: dict) -> list[str]:
    lines = [f"## {name}", ""]
    for r in c["runs"]:
        bad = [f"cell {k.replace('.', ' claim ')}" for k in r["failed_claims"]]
        bad += [f"cell {e['cell']}: {e['error']}" for e in r["errors"]]
        if r.get("failure"):
            bad.append(r["failure"])
        lines.append(f"- {r['variant']}: {r.get('wall_s') or 0:.0f} s wall, "
                     f"{r.get('kernel_cpu_s') or 0:.0f} s CPU; "
                     + ("every claim held" if not bad else "FAILED: " + "; ".join(bad)))
    lines += ["", f"{len(c['claims'])} statement claims; held in every variant: "
              f"{sum(not c2['failed_in'] for c2 in c['claims'])}."]
    for c2 in (c2 for c2 in c["claims"] if c2["failed_in"]):
        lines.append(f"- cell {c2['cell']} claim {c2['claim']} held in {c2['held']} of "
                     f"{c['variants']}: `{c2['code'][:120]}` — "
                     + "; ".join(f"{f['variant']}: {f['message'][:120]}"
                                 for f in c2["failed_in"]))
    lines += ["", *slack_table(c)]
    weak = weak_claims(c) if c.get("method") == METHOD else {}
    if weak:
        lines += ["", f"**Weak claims: {len(weak)}** (failed in a variant or too little slack; "
                  "listed in `benchmarks/weak_claims.json` until restated)."]
    if c["changed_output_cells"]:
        lines += ["", "Code cells whose output differs between variants (generated from "
                  "the run, never typed into the prose): "
                  + ", ".join(map(str, c["changed_output_cells"])) + "."]
    return lines + [""]


def markdown(record: dict) -> str:
    runs = [r for c in record["chapters"].values() for r in c["runs"]]
    wall = sum(r.get("wall_s") or 0 for r in runs)
    cpu = sum(r.get("kernel_cpu_s") or 0 for r in runs)
    lines = ["# Robustness of the chapters' claims", "",
             "Every chapter executed under every variant (seed offset × PyTorch kernel path), "
             "errors allowed, by `python benchmarks/robustness.py`. A statement claim is one "
             "top-level statement of a check cell that holds an `assert` or a claim call; a "
             "stated claim is one `claim`/`holds`/`exact` of `course_rnn.claims`. A numeric "
             "claim's slack is its smallest margin over the variants in units of the margins' "
             f"spread (sample standard deviation); it ships with slack ≥ {MIN_SLACK:g}. A "
             "claim on the log scale (a ratio) has the margin log(value / bound). "
             "Method \"fresh offsets\": seed offsets drawn anew for the measurement.", "",
             headline(record), "",
             f"{len(runs)} chapter runs: {wall:,.0f} s of wall time summed over the runs "
             f"(several ran at once) and {cpu:,.0f} s of CPU. A variant on PyTorch's portable "
             f"kernels cost {cost_of_portable_kernels(runs):.2f}× the CPU time of one on this "
             "machine's own.", "",
             "| chapter | method | variants | claims | failed | cells whose output changed | "
             "wall (s) per variant | CPU (s) | measured | commit | CPU | native kernels |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [chapter_row(name, c) for name, c in sorted(record["chapters"].items())]
    lines += ["", "Measured: when each chapter's variants ran, and at which commits (a chapter's "
              "runs all had the same code cells: `code_hash` in robustness.json). Wall per "
              "variant depends on what else shared the two cores (one or two notebooks at once, "
              "often other runs too); the CPU column, the kernels' CPU time over all of the "
              "chapter's variants, is the steadier figure.", ""]
    for name, c in sorted(record["chapters"].items()):
        lines += chapter_section(name, c)
    return "\n".join(lines)


# -- the command line ---------------------------------------------------------------------------
def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="*", help="chapter stems (default: all)")
    parser.add_argument("--list-weak", action="store_true",
                        help="run nothing: write benchmarks/weak_claims.json from the record")
    parser.add_argument("--merge-from", type=Path, metavar="RECORD",
                        help="run nothing: copy the chapters measured in another robustness.json "
                             "(a worktree's: measure there, merge here) into this record")
    parser.add_argument("--offsets", nargs="*", type=int, default=[],
                        help="seed offsets chosen by name (recorded as chosen), e.g. the CI's 1000")
    parser.add_argument("--fresh", type=int, default=FRESH_DEFAULT,
                        help=f"seed offsets drawn anew (default {FRESH_DEFAULT})")
    parser.add_argument("--capabilities", nargs="*", choices=list(KERNEL_PATHS),
                        default=list(KERNEL_PATHS),
                        help="kernel paths: native and default under every offset, avx2 once")
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
    if args.fresh < 0 or any(o < 0 for o in args.offsets):
        parser.error("--fresh and --offsets must be integers ≥ 0")
    if not args.fresh and not args.offsets:
        parser.error("no seed offset: give --fresh K or --offsets N ...")
    return args, paths


def workers_per_notebook(jobs: int) -> int:
    """Every core for one notebook at a time; one each when several run at once."""
    return 1 if jobs > 1 else (os.cpu_count() or 1)


def run_all(paths, variants, jobs: int, tmp: Path) -> dict:
    workers = workers_per_notebook(jobs)
    # variant by variant, every chapter in each: a claim that fails shows early in every chapter
    tasks = [(p, v) for v in variants for p in paths]
    with ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(run_variant, p, v, workers, tmp): (p, v) for p, v in tasks}
        runs = {}
        for future in as_completed(futures):
            path, variant = futures[future]
            r = runs[path, variant] = future.result()
            print(f"{path.stem} {variant.name}: {r.get('wall_s') or 0:.0f} s wall, "
                  f"{r.get('kernel_cpu_s') or 0:.0f} s CPU; stated claims "
                  f"{len(r['stated_claims'])}; failed "
                  f"{[c['cell'] for c in r['claims'] if c['status'] != 'passed']} errors "
                  f"{r['errors']} {r.get('failure') or ''}", flush=True)
    return runs


def merge(source: Path, out: Path, chapters: list[str] | None) -> int:
    """Copy chapters' entries (``chapters``, or those of ``source``'s last run) from the record
    ``source`` into ``out``'s, with its ``last_run``; rewrite the Markdown and the weak list."""
    other = json.loads(Path(source).read_text())
    chapters = chapters or other["last_run"]["chapters"]
    missing = [c for c in chapters if c not in other["chapters"]]
    if missing:
        print(f"{source} has no record of {missing}", file=sys.stderr)
        return 2
    json_path = out / "robustness.json"
    record = json.loads(json_path.read_text())
    for chapter in chapters:
        record["chapters"][chapter] = other["chapters"][chapter]
    record["last_run"] = other["last_run"]
    json_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    (out / "robustness.md").write_text(markdown(record))
    print("merged", {c: record["chapters"][c]["failed"] for c in chapters}, "(failed checks);",
          "weak claims per chapter:", write_weak_list(record), flush=True)
    return 0


def main(argv=None) -> int:
    args, paths = parse(argv)
    if args.list_weak:
        record = json.loads((args.out / "robustness.json").read_text())
        print("weak claims per chapter:", write_weak_list(record), WEAK, flush=True)
        return 0
    if args.merge_from:
        return merge(args.merge_from, args.out, args.chapters)
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / ".robustness-runs"
    tmp.mkdir(exist_ok=True)
    machine = native_machine()
    fresh = draw_offsets(args.fresh, taken=args.offsets)
    variants = plan_variants(args.offsets, fresh, args.capabilities)
    print(f"fresh offsets {fresh}, chosen {args.offsets}: {len(variants)} variants", flush=True)
    start = time.perf_counter()
    runs = run_all(paths, variants, args.jobs, tmp)
    json_path = args.out / "robustness.json"
    record = json.loads(json_path.read_text()) if json_path.exists() else {"chapters": {}}
    provenance = {
        "command": "python benchmarks/robustness.py "
                   + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(git("status", "--porcelain", "--", "chapters", "src")),
        "measured": time.strftime("%Y-%m-%d %H:%M"), "cpu": machine["cpu"],
        "native": machine["kernel_capability"], "cores": os.cpu_count(),
        "python": platform.python_version(), "jobs": args.jobs,
        "workers_per_notebook": workers_per_notebook(args.jobs)}
    for path in paths:
        summary = summarise(path.stem, measured_variants(path, tmp))
        record["chapters"][path.stem] = summary | {"check_hashes": check_hashes(path),
                                                   "provenance": provenance}
    record["last_run"] = {"wall_s": time.perf_counter() - start,
                          "cpu_s": sum(r.get("kernel_cpu_s") or 0 for r in runs.values()),
                          "chapters": [p.stem for p in paths], "fresh_offsets": fresh,
                          "chosen_offsets": args.offsets,
                          "variants": [v.name for v in variants]}
    json_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    (args.out / "robustness.md").write_text(markdown(record))
    failed = sum(record["chapters"][p.stem]["failed"] for p in paths)
    print(f"{len(paths)} chapters × {len(variants)} variants: {failed} failed checks; "
          f"{json_path}", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
