"""What does a Stack-RNN's training step cost, against an LSTM's of the same size?

One forward + backward pass (the loss of :class:`course_rnn.training.TransductionTask`, so only
the output positions count) on one batch of reverse string at the longest training length of
Delétang et al. (2023): 40 input symbols, so 1 + 40 + 40 = 81 steps, batch 128, as in the paper.
The LSTM and the SRN run PyTorch's fused layers; the Stack-RNNs (:mod:`course_rnn.models.
stack_rnn`) a Python loop over their step. The variants are timed in turns (A B C A B C …) so
that a change in the machine's load falls on all of them alike, and the load average is recorded
before and after. Writes ``benchmarks/results/stack_rnn_step.json`` and ``.md``.

    python benchmarks/stack_rnn_step.py [--hidden 64 256] [--repeats 5] [--threads 1]

On a shared 2-core machine keep ``--threads 1`` (the default): with two threads and other jobs
running, torch's thread pool spends most of its time waiting.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch

from course_rnn.languages import make_transduction
from course_rnn.models import build_model
from course_rnn.training import TransductionTask

RESULTS = Path(__file__).parent / "results"
#: the variants timed, by name: (kind, options)
VARIANTS = {
    "LSTM": ("lstm", {}),
    "SRN": ("srn", {}),
    "Stack-RNN (Delétang, 1 stack 64×8)": ("stack_rnn", dict(stack_width=8, stack_depth=64)),
    "Stack-RNN (Delétang, 1 stack 512×8)": ("stack_rnn", dict(stack_width=8, stack_depth=512)),
    "J&M Stack-RNN (10 stacks 64×1, k=2)": ("jm_stack_rnn", dict(n_stacks=10, stack_depth=64)),
}


def time_steps(models: dict, task: TransductionTask, batch, repeats: int) -> dict[str, list]:
    """Seconds of forward + loss + backward for every model, in turns, after one warm-up
    round each."""
    seconds = {name: [] for name in models}
    for round_ in range(repeats + 1):
        for name, model in models.items():
            model.zero_grad(set_to_none=True)
            start = time.perf_counter()
            loss, _, _ = task.loss(model, batch)
            loss.backward()
            if round_:  # the first round warms up allocators and kernels
                seconds[name].append(time.perf_counter() - start)
    return seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hidden", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--length", type=int, default=40, help="input symbols (paper: ≤ 40)")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds per variant")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS / "stack_rnn_step.json")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.length < 1 or args.batch < 1 or min(args.hidden) < 1:
        parser.error("--repeats, --length, --batch and --hidden must be at least 1")
    torch.set_num_threads(args.threads)

    task = TransductionTask(make_transduction("reverse_string"))
    batch = task.encode(task.transduction.sample(args.length, args.batch, seed=0))
    load_before = os.getloadavg()
    rows = []
    for hidden in args.hidden:
        models = {name: build_model(kind, vocab_size=len(task.vocab), hidden_size=hidden,
                                    seed=0, **options).train()
                  for name, (kind, options) in VARIANTS.items()}
        seconds = time_steps(models, task, batch, args.repeats)
        lstm = statistics.median(seconds["LSTM"])
        for name, values in seconds.items():
            rows.append({"model": name, "hidden_size": hidden,
                         "parameters": models[name].num_parameters(),
                         "median_seconds": statistics.median(values),
                         "times_lstm": statistics.median(values) / lstm, "seconds": values})
            print(f"hidden {hidden:4d}  {name:38s} {statistics.median(values) * 1e3:8.1f} ms  "
                  f"{statistics.median(values) / lstm:5.1f}× the LSTM", flush=True)
    load_after = os.getloadavg()
    result = {
        "what": "forward + transduction loss + backward on one batch of reverse string, "
                "seconds (median of the timed rounds)",
        "length": args.length, "steps": batch.inputs.shape[1], "batch": args.batch,
        "repeats": args.repeats, "rows": rows,
        "load_average_before": list(load_before), "load_average_after": list(load_after),
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    return result


def markdown(result: dict) -> str:
    lines = [
        "# A Stack-RNN's training step against an LSTM's",
        "",
        f"Forward + loss + backward on one batch of reverse string: {result['batch']} strings "
        f"of {result['length']} input symbols ({result['steps']} steps with `<s>` and the "
        f"blanks), {result['threads']} torch thread(s), torch {result['torch']}, "
        f"{result['cpu_count']} CPUs ({result['machine']}). Load average (1, 5, 15 min) "
        f"before: {', '.join(f'{x:.2f}' for x in result['load_average_before'])}; after: "
        f"{', '.join(f'{x:.2f}' for x in result['load_average_after'])}. Median of "
        f"{result['repeats']} rounds, the variants timed in turns. Written by "
        "`benchmarks/stack_rnn_step.py`.",
        "",
        "| hidden | model | parameters | ms per step | × LSTM |",
        "|---:|---|---:|---:|---:|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['hidden_size']} | {row['model']} | {row['parameters']:,} | "
                     f"{row['median_seconds'] * 1e3:.1f} | {row['times_lstm']:.1f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
