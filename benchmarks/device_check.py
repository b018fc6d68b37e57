"""What does the checked device cost? (``COURSE_RNN_DEVICE=checked``, issue 44.)

The check runs Python at every torch call: a device tensor's ``__torch_function__``, and — while
the check is on — a ``TorchFunctionMode`` that sees the calls on plain CPU tensors too. Tiny
models make the most calls per second of work, so this times ``fit`` on the book's kind of
model, three ways, alternating so that other work on the machine slows all alike:

- ``cpu``: ``fit(device="cpu")``, the check off;
- ``checked``: ``fit(device="checked")``, the check on (every tensor of the run on the device);
- ``cpu_with_check_on``: ``fit(device="cpu")`` while the check is on (what the rest of a test
  suite run under the variable pays).

It also confirms that the checked run's learning curve is the CPU's, number for number, and
with ``--tests FILE …`` times those pytest files with and without the variable (CPU time of the
pytest process and its children). CPU time (``time.process_time``) is compared; wall time is
recorded beside it. Writes ``benchmarks/results/device_check.json``.

    python benchmarks/device_check.py [--epochs 30] [--repeats 5] [--tests FILE …]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
from provenance import provenance

from course_rnn.device_check import checking
from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.training import Target, fit

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).parent.parent
MODELS = {"srn": 8, "lstm": 32}  # hidden units: a chapter's tiny SRN, a small LSTM
STRINGS = ["ab" * n for n in range(1, 13)] + ["aabb" * n for n in range(1, 7)]
NEVER = Target("train_loss", 0.0, mode="min")  # never met: every epoch is timed


def one_fit(kind: str, device: str, epochs: int):
    vocab = Vocab("ab")
    model = build_model(kind, vocab_size=len(vocab), hidden_size=MODELS[kind], seed=0)
    cpu, wall = time.process_time(), time.perf_counter()
    history = fit(model, vocab, STRINGS, epochs=epochs, batch_size=4, lr=0.05, valid=STRINGS,
                  until=NEVER, progress=False, device=device)
    curve = [{k: v for k, v in e.items() if k != "seconds"} for e in history.epochs]
    return time.process_time() - cpu, time.perf_counter() - wall, curve


def time_fits(kind: str, epochs: int, repeats: int) -> dict:
    """CPU and wall seconds of each way, ``repeats`` times, alternating; and whether the
    checked run's curve is the CPU's."""
    runs = {"cpu": [], "checked": [], "cpu_with_check_on": []}
    curves = {}
    one_fit(kind, "cpu", 1)  # warm up
    for _ in range(repeats):
        *times, curves["cpu"] = one_fit(kind, "cpu", epochs)
        runs["cpu"].append(times)
        with checking():
            *times, curves["checked"] = one_fit(kind, "checked", epochs)
            runs["checked"].append(times)
            *times, _ = one_fit(kind, "cpu", epochs)
            runs["cpu_with_check_on"].append(times)
    median = {way: statistics.median(c for c, _ in t) for way, t in runs.items()}
    return {
        "hidden_size": MODELS[kind], "epochs": epochs,
        "cpu_seconds": {way: [c for c, _ in t] for way, t in runs.items()},
        "wall_seconds": {way: [w for _, w in t] for way, t in runs.items()},
        "median_cpu_seconds": median,
        "ratio_checked_over_cpu": median["checked"] / median["cpu"],
        "ratio_cpu_with_check_on_over_cpu": median["cpu_with_check_on"] / median["cpu"],
        "same_curve": curves["checked"] == curves["cpu"],
    }


def time_tests(files: list[str]) -> dict:
    """CPU seconds of ``pytest FILES`` (the process and its children), without and with
    ``COURSE_RNN_DEVICE=checked``; and whether each passed."""
    result = {}
    for label, device in (("cpu", None), ("checked", "checked")):
        env = {k: v for k, v in os.environ.items() if k != "COURSE_RNN_DEVICE"}
        if device:
            env["COURSE_RNN_DEVICE"] = device
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *files], cwd=ROOT, env=env, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        result[label] = {"cpu_seconds": (after.ru_utime + after.ru_stime)
                         - (before.ru_utime + before.ru_stime),
                         "wall_seconds": time.perf_counter() - wall,
                         "summary": done.stdout.strip().splitlines()[-1:]}
    result["ratio_checked_over_cpu"] = result["checked"]["cpu_seconds"] / result["cpu"][
        "cpu_seconds"]
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30, help="epochs per timed fit")
    parser.add_argument("--repeats", type=int, default=5, help="timings per way")
    parser.add_argument("--tests", nargs="*", default=[], help="pytest files to time as well")
    parser.add_argument("--out", type=Path, default=RESULTS / "device_check.json")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.repeats < 1:
        parser.error("--epochs and --repeats must be positive")
    torch.set_num_threads(1)
    load_before = os.getloadavg()[0]
    fits = {kind: time_fits(kind, args.epochs, args.repeats) for kind in MODELS}
    result = {
        "what": "CPU seconds of a tiny fit on the CPU, on the checked device, and on the CPU "
                "while the check is on; ratios of medians; same_curve: the checked run's "
                "learning curve equals the CPU's",
        "strings": len(STRINGS), "batch": 4, "fits": fits,
        "tests": time_tests(args.tests) if args.tests else None,
        **provenance(load_before),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for kind, r in fits.items():
        print(f"{kind}: checked {r['ratio_checked_over_cpu']:.2f}× the CPU's CPU time, plain "
              f"code with the check on {r['ratio_cpu_with_check_on_over_cpu']:.2f}×; "
              f"same curve: {r['same_curve']}")
    if result["tests"]:
        print(f"tests: {result['tests']['ratio_checked_over_cpu']:.2f}× "
              f"({result['tests']['checked']['summary']})")
    print(f"→ {args.out}")
    return result


if __name__ == "__main__":
    main()
