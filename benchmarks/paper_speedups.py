"""Before and after: what the worker pool saves at the papers' sizes, measured on this machine.

For each experiment NAME, the short paper-size slice of ``paper_costs.py`` (the scale's data,
models and batches; every epoch cap cut to two; one seed) is run twice: in one process
(``COURSE_RNN_WORKERS=1``: the training runs one after another, as every experiment ran before
the worker pool) and with the pool (one process per core, the default). The ratio of the two
wall times is the pool's speed-up on that short slice, where each worker's start-up and the
slowest run weigh most. For the whole run, the committed ``provenance.json`` gives the wall time
with the pool and the CPU time of all its processes: the same work in one process would take
about that CPU time (a little less: one start-up instead of one per worker) — the slice checks
that, comparing its one-process wall time with its pool's CPU time. The other change that made
the paper scale reachable, the URN's one matrix exponential per symbol of the alphabet instead of
one per token, is measured per training step by ``urn_expm.py`` (``urn_expm.json``), and quoted
beside.
Writes ``benchmarks/results/paper_speedups.md`` (and ``.json``)::

    python benchmarks/paper_speedups.py urn-cross-serial urn-dyck gym:full

Run it on an idle machine: a second CPU-bound process changes both walls.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time

from paper_costs import PROBES, RESULTS, slice_command  # the same slice of each experiment
from paper_scale import RUNS, timed_run


def slice_times(name: str, scale: str, workers: int | None) -> tuple[float, float]:
    """Wall and CPU seconds of ``name``'s probe slice at ``scale`` with ``workers`` processes
    (None: the pool's default, one per core)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = None if workers is None else {"COURSE_RNN_WORKERS": str(workers)}
        done, wall, cpu = timed_run(slice_command(name, tmp + "/out", scale), env)
    if done.returncode != 0:
        raise SystemExit(f"{name}: the slice failed:\n{done.stderr[-3000:]}")
    return wall, cpu


def measure(name: str, scale: str) -> dict:
    load_before = os.getloadavg()[0]
    one, _ = slice_times(name, scale, 1)
    pool, pool_cpu = slice_times(name, scale, None)
    record = {"experiment": name, "scale": scale, "slice_one_process_s": round(one, 1),
              "slice_pool_s": round(pool, 1), "slice_pool_cpu_s": round(pool_cpu, 1),
              "speedup": round(one / pool, 2),
              "workers": os.cpu_count(), "load_before": round(load_before, 2),
              "load_1min_at_end": round(os.getloadavg()[0], 2),
              "date": time.strftime("%Y-%m-%d %H:%M"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores"}
    provenance = RUNS / f"{name}-{scale}" / "provenance.json"
    if provenance.is_file():
        committed = json.loads(provenance.read_text())
        record["committed_wall_s"] = committed["wall_s"]
        record["committed_cpu_s"] = committed["cpu_s"]
        record["run_speedup"] = round(committed["cpu_s"] / committed["wall_s"], 2)
    return record


def write(records: list[dict]) -> None:
    path = RESULTS / "paper_speedups.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    known.update({f"{r['experiment']}-{r['scale']}": r for r in records})
    path.write_text(json.dumps(known, indent=1) + "\n")
    expm = json.loads((RESULTS / "urn_expm.json").read_text())
    dyck = known.get("urn-dyck-paper")
    lines = ["# Before and after: the worker pool at the papers' sizes", "",
             "Written by `benchmarks/paper_speedups.py`. *Slice*: the experiment at that scale "
             "with every epoch cap cut to two and one seed, run in one process "
             "(`COURSE_RNN_WORKERS=1`, as before the worker pool) and with the pool (one process "
             "per core); the pool's CPU time is what one process would need for the same work, "
             "near enough (compare the first column). *Committed run*: its wall time with the "
             "pool (after) and the CPU time of all its processes, about what one process would "
             "have taken (before).", "",
             "| experiment | scale | slice, one process: wall (s) | slice, pool: wall (s) | "
             "slice, pool: CPU (s) | slice speed-up | committed run, pool: wall (s) | "
             "committed run: CPU (s) ≈ one process | run speed-up |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in known.values():
        lines.append(f"| `{r['experiment']}` | {r['scale']} | {r['slice_one_process_s']:.0f} | "
                     f"{r['slice_pool_s']:.0f} | {r['slice_pool_cpu_s']:.0f} | "
                     f"{r['speedup']:.2f}× | {r.get('committed_wall_s', '—')} | "
                     f"{r.get('committed_cpu_s', '—')} | {r.get('run_speedup', '—')}× |")
    factor = expm["speedup_per_token_over_per_symbol"]
    lines += ["", f"The URN's training step (`urn_expm.json`, batch {expm['batch']} × length "
                  f"{expm['length']}, n = {expm['n']}): one matrix exponential per token "
                  f"{expm['per_token_median']:.1f} s, one per symbol of the alphabet "
                  f"{expm['per_symbol_median']:.2f} s — "
                  f"{factor:.0f}× faster"
              + (f". One per token would multiply the URN steps' share of `urn-dyck`'s "
                 f"{dyck['committed_cpu_s']:,.0f} s of CPU by that factor: at most "
                 f"{dyck['committed_cpu_s'] * factor / 86400:.0f} days."
                 if dyck and "committed_cpu_s" in dyck else ".")]
    (RESULTS / "paper_speedups.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", metavar="NAME[:SCALE]",
                        help=f"one of {', '.join(sorted(PROBES))}, at the paper scale unless "
                             "':full' follows")
    args = parser.parse_args(argv)
    jobs = [(n.split(":") + ["paper"])[:2] for n in args.names]
    unknown = [n for n, _ in jobs if n not in PROBES]
    if unknown:
        parser.error(f"no slice for {unknown}: choose from {', '.join(sorted(PROBES))}")
    records = []
    for name, scale in jobs:
        records.append(measure(name, scale))
        print(json.dumps(records[-1]), flush=True)
        write(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
