"""What a paper-scale run would cost on this machine, measured before committing an hour to it.

For each experiment NAME, runs ``python -m course_rnn replicate NAME --scale paper --seeds 1``
with every epoch cap cut to a couple of epochs (the papers' data, models and batch sizes
unchanged), reads each training run's seconds per epoch from its learning curve in
``results.json``, and projects the paper scale: seconds per epoch × the paper's epoch cap, summed
over the runs and the paper's seeds, spread over the worker processes (one per core). The
projection is an upper bound (a run that converges stops before its cap); it is what decides
whether an experiment needs a ``full`` scale (the paper's size is out of reach in an hour).
Writes ``benchmarks/results/paper_costs.md`` (and ``.json``)::

    python benchmarks/paper_costs.py urn-cross-serial urn-dyck decay-rnn-agreement gym
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

from paper_scale import timed_run  # the run and its wall and CPU time, measured the same way

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _gym_cap(run: str, paper: dict) -> int:
    language = next(k for k in paper["languages"] if f" {k} " in f" {run} ".replace(",", " "))
    return paper["languages"][language]["epochs"]


#: experiment -> (the --set options of the probe, the paper's epoch cap of a run by its name)
PROBES = {
    "urn-dyck": (["epochs=2", "patience=1", "lr_patience=1"], lambda run, p: p["epochs"]),
    "urn-cross-serial": (["epochs=2"], lambda run, p: p["epochs"]),
    "decay-rnn-agreement": (["epochs=2", "lm_epochs=2", "patience=1", "lm_patience=1",
                             "gram_seeds=1"],
                            lambda run, p: p["lm_epochs"] if "language model" in run
                            else p["epochs"]),
    "gym": (['languages={"anbn": {"epochs": 2}, "dyck": {"epochs": 2}, '
             '"cross_serial": {"epochs": 2}, "palindrome": {"epochs": 2}, '
             '"agreement": {"epochs": 2}}'], _gym_cap),
}


def slice_command(name: str, out: str, scale: str = "paper",
                  extra: tuple[str, ...] = ()) -> list[str]:
    """The ``replicate`` command of ``name``'s probe at ``scale``: its epoch caps cut to two,
    one seed, on the CPU (``extra``: more ``--set`` overrides), writing into ``out``."""
    sets = [*PROBES[name][0], *extra]
    return [sys.executable, "-m", "course_rnn", "replicate", name, "--scale", scale,
            "--seeds", "1", "--device", "cpu", "--threads", "1", "--quiet", "--out", out,
            *(x for kv in sets for x in ("--set", kv))]


def probe(name: str, extra: tuple[str, ...] = ()) -> dict:
    """Run the probe of ``name`` (``extra``: more ``--set`` overrides, e.g. a candidate ``full``
    scale's); its measured seconds per epoch and the projection at the paper's caps."""
    cap = PROBES[name][1]
    with tempfile.TemporaryDirectory() as tmp:
        command = slice_command(name, tmp + "/out", extra=extra)
        load_before = os.getloadavg()[0]
        done, wall, cpu = timed_run(command)
        if done.returncode != 0:
            raise SystemExit(f"{name}: the probe failed:\n{done.stderr[-3000:]}")
        results = json.loads(Path(tmp, "out", "results.json").read_text())
    from course_rnn.experiments import get_experiment

    scales = get_experiment(name).settings
    # the caps of the scale probed: the paper's, with a candidate's overrides
    paper = scales.at("paper", dict(kv.split("=", 1) for kv in extra)).to_json()
    seeds = _paper_seeds(name)
    runs = {}
    for run, history in results["runs"].items():
        if "2× budget" in run:
            continue
        seconds = [s for s in history["curve"].get("seconds", []) if s is not None]
        epochs = history["convergence"]["epochs"] if history["convergence"] else None
        if not seconds or not epochs:
            continue
        per_epoch = sum(seconds) / epochs  # the curve holds every evaluation of a short run
        epochs_cap = cap(run, paper)
        runs[run] = {"seconds_per_epoch": round(per_epoch, 2), "paper_cap": epochs_cap,
                     "projected_s": round(per_epoch * epochs_cap, 1)}
    workers = os.cpu_count() or 1
    total = seeds * sum(r["projected_s"] for r in runs.values())
    return {"experiment": name, "probe": shlex.join(["python", *command[1:]]).replace(tmp, "TMP"),
            "probe_wall_s": round(wall, 1),
            "probe_cpu_s": round(cpu, 1),
            "paper_seeds": seeds, "runs_per_seed": runs, "workers": workers,
            "projected_wall_s_upper": round(total / workers),
            "date": time.strftime("%Y-%m-%d %H:%M"), "load_before": round(load_before, 2),
            "machine": f"{platform.machine()}, {workers} cores"}


#: experiment -> (module, the name of its seeds per scale)
SEEDS = {"urn-dyck": ("urn", "DYCK_SEEDS"), "urn-cross-serial": ("urn", "CROSS_SERIAL_SEEDS"),
         "decay-rnn-agreement": ("agreement", "DEFAULT_SEEDS"), "gym": ("gym", "DEFAULT_SEEDS")}


def _paper_seeds(name: str) -> int:
    import importlib

    module, attribute = SEEDS[name]
    return getattr(importlib.import_module(f"course_rnn.experiments.{module}"), attribute)["paper"]


def write(records: list[dict]) -> None:
    path = RESULTS / "paper_costs.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    known.update({r["experiment"]: r for r in records})
    path.write_text(json.dumps(known, indent=1) + "\n")
    lines = ["# What a paper-scale run would cost on this machine",
             "",
             "Written by `benchmarks/paper_costs.py`: each experiment's paper settings with its "
             "epoch caps cut to two, one seed; seconds per epoch from each run's learning curve; "
             "projected wall time = seconds per epoch × the paper's cap, over every run and the "
             "paper's seeds, divided by the worker processes. An upper bound: a run that "
             "converges stops before its cap.",
             "",
             "| experiment | probe wall (s) | runs per seed | s/epoch (min–max) | paper seeds | "
             "projected wall, upper bound |",
             "|---|---|---|---|---|---|"]
    for r in known.values():
        rates = [v["seconds_per_epoch"] for v in r["runs_per_seed"].values()]
        hours = r["projected_wall_s_upper"] / 3600
        lines.append(f"| `{r['experiment']}` | {r['probe_wall_s']:.0f} | "
                     f"{len(r['runs_per_seed'])} | {min(rates):.1f}–{max(rates):.1f} | "
                     f"{r['paper_seeds']} | {hours:.1f} h |")
    (RESULTS / "paper_costs.md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", choices=sorted(PROBES))
    parser.add_argument("--set", action="append", default=[], metavar="K=V",
                        help="a further override (a candidate full scale), repeatable")
    parser.add_argument("--label", help="the row's name (default: the experiment's)")
    args = parser.parse_args(argv)
    if args.label and len(args.names) > 1:
        parser.error("--label names one probe: give one experiment")
    sys.path.insert(0, str(ROOT / "src"))
    records = []
    for name in args.names:
        record = probe(name, tuple(args.set))
        record["experiment"] = args.label or name
        print(json.dumps({k: v for k, v in record.items() if k != "runs_per_seed"}), flush=True)
        records.append(record)
        write(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
