"""What does the library's training loop cost per step, against the bare PyTorch loop?

``course_rnn.training.fit`` does more than ``loss.backward(); optimizer.step()``: it records the
loss, the gradient norm and whether clipping bit, at every step, and evaluates once per epoch. This
script times both loops on chapter 1's model, the Bengio MLP at its book sizes (vocabulary 7,112,
n − 1 = 4 words of context, m = 60, h = 50), on the same random n-grams, with the same optimizer,
batch and gradient clipping, and writes the per-step times and their ratio to
``benchmarks/results/training_loop.json`` (target: ≤ 1.15×).

    python benchmarks/training_loop.py [--steps 400] [--repeats 5] [--optimizer adam] [--clip 1]

Both loops run in this process with one torch thread, alternating (bare, fit, bare, fit, …) so
that other work on the machine slows both alike; CPU time (``time.process_time``) is the figure
compared, wall time is recorded beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch
from provenance import provenance
from torch.nn import functional as F

from course_rnn.models.bengio import BengioMLP
from course_rnn.training import NextWord, Target, fit

DEFAULT_OUT = Path(__file__).parent / "results" / "training_loop.json"
SIZES = dict(vocab_size=7112, context=4, embedding_dim=60, hidden_size=50)


def make_model(seed: int = 0) -> BengioMLP:
    torch.manual_seed(seed)
    return BengioMLP(**SIZES)


def bare_loop(model, contexts, targets, batch, optimizer, lr, clip) -> None:
    """The loop a learner writes: shuffle, forward, loss, zero_grad, backward, (clip), step."""
    opt = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}[optimizer](model.parameters(), lr=lr)
    order = torch.randperm(len(targets), generator=torch.Generator().manual_seed(1))
    for index in order.split(batch):
        logits = model.scores(contexts[index])
        loss = F.cross_entropy(logits, targets[index])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()


def library_loop(model, contexts, targets, batch, optimizer, lr, clip) -> None:
    """One epoch of ``fit`` over the same pairs (no validation set, one evaluation at the end)."""
    fit(model, NextWord(), (contexts, targets), epochs=1, batch_size=batch, optimizer=optimizer,
        lr=lr, clip=clip, until=Target("train_loss", 0.0, mode="min"), progress=False,
        device="cpu")


def timed(function, *args) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    function(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    parser.add_argument("--steps", type=int, default=400, help="optimizer steps per timing")
    parser.add_argument("--repeats", type=int, default=5, help="timings per loop")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--clip", type=float, default=1.0, help="0: no clipping in either loop")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeats < 1 or args.batch < 1:
        parser.error("--steps, --repeats and --batch must be positive")
    torch.set_num_threads(1)
    clip = args.clip or None
    generator = torch.Generator().manual_seed(0)
    n = args.steps * args.batch
    contexts = torch.randint(0, SIZES["vocab_size"], (n, SIZES["context"]), generator=generator)
    targets = torch.randint(0, SIZES["vocab_size"], (n,), generator=generator)
    loop_args = (contexts, targets, args.batch, args.optimizer, args.lr, clip)

    load_before = os.getloadavg()[0]
    timed(bare_loop, make_model(), *loop_args)  # warm up allocators and kernels
    bare, library = [], []
    for _ in range(args.repeats):
        bare.append(timed(bare_loop, make_model(), *loop_args))
        library.append(timed(library_loop, make_model(), *loop_args))
    per_step = {name: {"cpu_ms": [1000 * c / args.steps for c, _ in runs],
                       "wall_ms": [1000 * w / args.steps for _, w in runs]}
                for name, runs in (("bare", bare), ("fit", library))}
    median = {name: statistics.median(v["cpu_ms"]) for name, v in per_step.items()}
    result = {
        "what": "Bengio MLP, milliseconds of CPU per optimizer step: fit vs a bare PyTorch loop",
        "model": SIZES, "batch": args.batch, "steps": args.steps, "repeats": args.repeats,
        "optimizer": args.optimizer, "lr": args.lr, "clip": clip, "per_step": per_step,
        "bare_cpu_ms_median": median["bare"], "fit_cpu_ms_median": median["fit"],
        "ratio_fit_over_bare": median["fit"] / median["bare"], "target_ratio": 1.15,
        **provenance(load_before),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"bare {median['bare']:.2f} ms/step, fit {median['fit']:.2f} ms/step (CPU): "
          f"ratio {result['ratio_fit_over_bare']:.3f} (target ≤ 1.15) → {args.out}")
    return result


if __name__ == "__main__":
    main()
