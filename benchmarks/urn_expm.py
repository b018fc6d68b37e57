"""How much does taking the matrix exponential once per *symbol* save over once per *token*?

A URN multiplies its state by Q(x) = exp S(x) for every symbol x it reads (Bernardy & Lappin
2022/2023). The seeds' TensorFlow code exponentiates one generator per token: B·T matrix
exponentials per batch. ``course_rnn.models.urn.URN`` exponentiates each vocabulary symbol's
generator once per forward pass (V exponentials) and then, at each step, multiplies the states by
all V matrices at once. This script times forward+backward of both on the same parameters, at the
papers' Dyck setting (batch 512, strings of length 20, n = 50, k = 3, 5 bracket pairs), checks
that they compute the same thing, and writes the timings to ``benchmarks/results/urn_expm.json``.

    python benchmarks/urn_expm.py [--out FILE] [--repeats 3] [--threads N]

On a shared 2-core machine use ``--threads 1``: with two threads and other jobs running, torch's
thread pool spends most of its time waiting, and even the fast path slows down ~50×.
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
from torch.nn import functional as F

from course_rnn.models.urn import URN, skew_symmetric
from course_rnn.utils import seed_everything

DEFAULT_OUT = Path(__file__).parent / "results" / "urn_expm.json"


def per_token_logits(model: URN, inputs: torch.Tensor) -> torch.Tensor:
    """The reference: one matrix exponential per token, Q_{b,t} = exp S(x_{b,t}), h ← Q_{b,t} h.

    Same parameters, same h_0 = e_0, same readout as the model; dropout off.
    """
    batch, steps = inputs.shape
    rotations = torch.linalg.matrix_exp(skew_symmetric(model.generators[inputs], model.n))
    h = model.start_state.expand(batch, model.n)
    hidden = []
    for t in range(steps):
        h = (rotations[:, t] @ h.unsqueeze(-1)).squeeze(-1)  # [B, n, n] @ [B, n, 1]
        hidden.append(h)
    return model.readout(torch.stack(hidden, dim=1))


def time_forward_backward(logits_fn, model, inputs, targets, repeats: int) -> list[float]:
    """Seconds for ``repeats`` rounds of forward + cross-entropy + backward (after one warm-up)."""
    seconds = []
    for round_ in range(repeats + 1):
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        logits = logits_fn(inputs)
        F.cross_entropy(logits.transpose(1, 2), targets).backward()
        if round_ > 0:  # the first round warms up allocators and kernels
            seconds.append(time.perf_counter() - start)
    return seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds per variant")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--length", type=int, default=20)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.threads is not None:
        torch.set_num_threads(args.threads)

    load_before = os.getloadavg()[0]  # other work on the machine slows every variant
    vocab_size = 3 + 2 * 5  # <pad> <s> </s> and five bracket pairs, as for Dyck
    seed_everything(0)
    inputs = torch.randint(0, vocab_size, (args.batch, args.length))
    targets = torch.randint(0, vocab_size, (args.batch, args.length))
    exact = URN(vocab_size, hidden_size=args.n, k=args.k, dropout=0.0, init_range=0.5, seed=0)
    with torch.no_grad():
        difference = (exact(inputs) - per_token_logits(exact, inputs)).abs().max().item()
    if difference > 1e-4:
        raise RuntimeError(f"per-symbol and per-token URNs disagree by {difference:.2g}")

    per_symbol = time_forward_backward(exact, exact, inputs, targets, args.repeats)
    # the model as trained (ρ=0.05)
    with_dropout = URN(vocab_size, hidden_size=args.n, k=args.k, seed=0)
    per_symbol_dropout = time_forward_backward(with_dropout, with_dropout, inputs, targets,
                                               args.repeats)
    per_token = time_forward_backward(lambda x: per_token_logits(exact, x), exact, inputs,
                                      targets, args.repeats)

    result = {
        "what": "URN forward + cross-entropy + backward, seconds per batch",
        "batch": args.batch, "length": args.length, "n": args.n, "k": args.k,
        "vocab_size": vocab_size, "repeats": args.repeats,
        "per_symbol_expm_seconds": per_symbol,
        "per_symbol_expm_with_dropout_seconds": per_symbol_dropout,
        "per_token_expm_seconds": per_token,
        "per_symbol_median": statistics.median(per_symbol),
        "per_symbol_with_dropout_median": statistics.median(per_symbol_dropout),
        "per_token_median": statistics.median(per_token),
        "speedup_per_token_over_per_symbol": statistics.median(per_token)
        / statistics.median(per_symbol),
        "max_abs_logit_difference": difference,
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "load_average_before": load_before, "cpu_count": os.cpu_count(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"per symbol: {result['per_symbol_median']:.3f} s   "
          f"(with dropout {result['per_symbol_with_dropout_median']:.3f} s)   "
          f"per token: {result['per_token_median']:.2f} s   "
          f"ratio: {result['speedup_per_token_over_per_symbol']:.0f}×   → {args.out}")
    return result


if __name__ == "__main__":
    main()
