"""Before and after: what the worker pool saves at the papers' sizes, measured on this machine.

For each experiment NAME, the short paper-size slice of ``paper_costs.py`` (the scale's data,
models and batches; every epoch cap cut to two; one seed) is run twice: in one process
(``COURSE_RNN_WORKERS=1``: the training runs one after another, as every experiment ran before
the worker pool) and with the pool (one process per core, the default). The ratio of the two
wall times is the pool's speed-up on that experiment's mix of runs; applied to the committed
run's wall time (``benchmarks/results/replications/NAME-SCALE/provenance.json``) it projects
what the whole run would have taken in one process. The other change that made the paper scale
reachable, the URN's one matrix exponential per symbol of the alphabet instead of one per token,
is measured per training step by ``urn_expm.py`` (``urn_expm.json``), and quoted beside.
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
from pathlib import Path

from paper_costs import PROBES  # the same slice of each experiment
from paper_scale import RUNS, timed_run

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def slice_wall(name: str, scale: str, workers: int | None) -> float:
    """Wall seconds of ``name``'s probe slice at ``scale`` with ``workers`` processes (None: the
    pool's default, one per core)."""
    sets, _ = PROBES[name]
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "course_rnn", "replicate", name, "--scale", scale,
                   "--seeds", "1", "--device", "cpu", "--threads", "1", "--quiet", "--out",
                   tmp + "/out", *(x for kv in sets for x in ("--set", kv))]
        env = None if workers is None else {"COURSE_RNN_WORKERS": str(workers)}
        done, wall, _ = timed_run(command, env)
    if done.returncode != 0:
        raise SystemExit(f"{name}: the slice failed:\n{done.stderr[-3000:]}")
    return wall


def measure(name: str, scale: str) -> dict:
    load_before = os.getloadavg()[0]
    one = slice_wall(name, scale, 1)
    pool = slice_wall(name, scale, None)
    record = {"experiment": name, "scale": scale, "slice_one_process_s": round(one, 1),
              "slice_pool_s": round(pool, 1), "speedup": round(one / pool, 2),
              "workers": os.cpu_count(), "load_before": round(load_before, 2),
              "load_1min_at_end": round(os.getloadavg()[0], 2),
              "date": time.strftime("%Y-%m-%d %H:%M"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores"}
    provenance = RUNS / f"{name}-{scale}" / "provenance.json"
    if provenance.is_file():
        committed = json.loads(provenance.read_text())
        record["committed_wall_s"] = committed["wall_s"]
        record["committed_cpu_s"] = committed["cpu_s"]
        record["one_process_projected_s"] = round(committed["wall_s"] * one / pool)
    return record


def write(records: list[dict]) -> None:
    path = RESULTS / "paper_speedups.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    known.update({f"{r['experiment']}-{r['scale']}": r for r in records})
    path.write_text(json.dumps(known, indent=1) + "\n")
    expm = json.loads((RESULTS / "urn_expm.json").read_text())
    lines = ["# Before and after: the worker pool at the papers' sizes", "",
             "Written by `benchmarks/paper_speedups.py`. *Slice*: the experiment at that scale "
             "with every epoch cap cut to two and one seed, run in one process "
             "(`COURSE_RNN_WORKERS=1`, as before the worker pool) and with the pool (one process "
             "per core). *One process, projected*: the committed run's wall time × the slice's "
             "speed-up.", "",
             "| experiment | scale | slice, one process (s) | slice, pool (s) | speed-up | "
             "committed run, pool (s) | committed run, one process, projected (s) |",
             "|---|---|---|---|---|---|---|"]
    for r in known.values():
        lines.append(f"| `{r['experiment']}` | {r['scale']} | {r['slice_one_process_s']:.0f} | "
                     f"{r['slice_pool_s']:.0f} | {r['speedup']:.2f}× | "
                     f"{r.get('committed_wall_s', '—')} | "
                     f"{r.get('one_process_projected_s', '—')} |")
    lines += ["", f"The URN's training step (`urn_expm.json`, batch {expm['batch']} × length "
                  f"{expm['length']}, n = {expm['n']}): one matrix exponential per token "
                  f"{expm['per_token_median']:.1f} s, one per symbol of the alphabet "
                  f"{expm['per_symbol_median']:.2f} s — "
                  f"{expm['speedup_per_token_over_per_symbol']:.0f}× faster. With one per "
                  f"token, the URN runs of `urn-dyck` at paper scale would take days, not "
                  f"minutes."]
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
