"""What does the library's training loop cost per step, against the bare PyTorch loop?

``course_rnn.training.fit`` does more than ``loss.backward(); optimizer.step()``: it records the
loss at every step, the gradient norm and whether clipping bit (at every step when it clips; with
``clip=None`` only at the step before an evaluation), and evaluates once per epoch. This script
times both loops with the same optimizer, batch and gradient clipping, on one of two models:

- ``--model mlp`` (the default): chapter 1's model, the Bengio MLP at its book sizes (vocabulary
  7,112, n − 1 = 4 words of context, m = 60, h = 50), on random n-grams: a large step (its
  7,112-word output layer), so fit's fixed cost per step is a small share of it;
- ``--model lstm``: a small LSTM language model (64 units, 4 symbols, random strings of 5–20
  symbols, batches of 32) through the library's own batches and loss in both loops: a short step,
  where fit's bookkeeping shows (the size of the Chomsky-hierarchy networks of issue 28).

It writes the per-step times and their ratio to ``benchmarks/results/training_loop.json``
(``training_loop_lstm.json`` for the LSTM; ``…_noclip.json`` with ``--clip 0``; target ≤ 1.15×).

    python benchmarks/training_loop.py [--model mlp] [--steps 400] [--repeats 5] [--clip 1]

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

from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.models.bengio import BengioMLP
from course_rnn.training import LanguageModelling, NextWord, Target, fit

RESULTS = Path(__file__).parent / "results"
SIZES = dict(vocab_size=7112, context=4, embedding_dim=60, hidden_size=50)
LSTM = dict(alphabet="abcd", hidden_size=64, lengths=(5, 20))
NEVER = Target("train_loss", 0.0, mode="min")  # a criterion never met: the whole epoch is timed


def make_model(seed: int = 0) -> BengioMLP:
    torch.manual_seed(seed)
    return BengioMLP(**SIZES)


def make_lstm(seed: int = 0):
    return build_model("lstm", vocab_size=len(Vocab(LSTM["alphabet"])),
                       hidden_size=LSTM["hidden_size"], seed=seed)


def random_strings(count: int, seed: int = 0) -> list[str]:
    generator = torch.Generator().manual_seed(seed)
    low, high = LSTM["lengths"]
    lengths = torch.randint(low, high + 1, (count,), generator=generator).tolist()
    letters = LSTM["alphabet"]
    return ["".join(letters[i] for i in torch.randint(0, len(letters), (n,),
                                                      generator=generator).tolist())
            for n in lengths]


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
        lr=lr, clip=clip, until=NEVER, progress=False, device="cpu")


def bare_lstm_loop(model, strings, batch, optimizer, lr, clip) -> None:
    """The same loop over the library's batches and loss (what fit adds is what is timed)."""
    task = LanguageModelling(Vocab(LSTM["alphabet"]))
    data = task.prepare(strings, "train")
    opt = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}[optimizer](model.parameters(), lr=lr)
    model.train()
    for batch_ in task.batches(data, batch, shuffle=True, seed=1):
        loss, _, _ = task.loss(model, batch_)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()


def library_lstm_loop(model, strings, batch, optimizer, lr, clip) -> None:
    fit(model, Vocab(LSTM["alphabet"]), strings, epochs=1, batch_size=batch,
        optimizer=optimizer, lr=lr, clip=clip, until=NEVER, progress=False, device="cpu")


def timed(function, *args) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    function(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("mlp", "lstm"), default="mlp")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON file to write (default: results/training_loop[_lstm]"
                             "[_noclip].json)")
    parser.add_argument("--steps", type=int, default=400, help="optimizer steps per timing")
    parser.add_argument("--repeats", type=int, default=5, help="timings per loop")
    parser.add_argument("--batch", type=int, default=None, help="256 for the MLP, 32 for the "
                                                                  "LSTM")
    parser.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--clip", type=float, default=1.0, help="0: no clipping in either loop")
    args = parser.parse_args(argv)
    args.batch = args.batch or (256 if args.model == "mlp" else 32)
    if args.steps < 1 or args.repeats < 1 or args.batch < 1:
        parser.error("--steps, --repeats and --batch must be positive")
    torch.set_num_threads(1)
    clip = args.clip or None
    out = args.out or RESULTS / (f"training_loop{'_lstm' if args.model == 'lstm' else ''}"
                                 f"{'' if clip else '_noclip'}.json")
    n = args.steps * args.batch
    if args.model == "mlp":
        generator = torch.Generator().manual_seed(0)
        contexts = torch.randint(0, SIZES["vocab_size"], (n, SIZES["context"]),
                                 generator=generator)
        targets = torch.randint(0, SIZES["vocab_size"], (n,), generator=generator)
        data, model, loops = (contexts, targets), make_model, (bare_loop, library_loop)
    else:
        data, model, loops = (random_strings(n),), make_lstm, (bare_lstm_loop, library_lstm_loop)
    loop_args = (*data, args.batch, args.optimizer, args.lr, clip)

    load_before = os.getloadavg()[0]
    timed(loops[0], model(), *loop_args)  # warm up allocators and kernels
    bare, library = [], []
    for _ in range(args.repeats):
        bare.append(timed(loops[0], model(), *loop_args))
        library.append(timed(loops[1], model(), *loop_args))
    per_step = {name: {"cpu_ms": [1000 * c / args.steps for c, _ in runs],
                       "wall_ms": [1000 * w / args.steps for _, w in runs]}
                for name, runs in (("bare", bare), ("fit", library))}
    median = {name: statistics.median(v["cpu_ms"]) for name, v in per_step.items()}
    what = "Bengio MLP" if args.model == "mlp" else "a small LSTM language model"
    result = {
        "what": f"{what}, milliseconds of CPU per optimizer step: fit vs a bare PyTorch loop",
        "model": SIZES if args.model == "mlp" else LSTM, "batch": args.batch,
        "steps": args.steps, "repeats": args.repeats,
        "optimizer": args.optimizer, "lr": args.lr, "clip": clip, "per_step": per_step,
        "bare_cpu_ms_median": median["bare"], "fit_cpu_ms_median": median["fit"],
        "ratio_fit_over_bare": median["fit"] / median["bare"], "target_ratio": 1.15,
        **provenance(load_before),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"bare {median['bare']:.2f} ms/step, fit {median['fit']:.2f} ms/step (CPU): "
          f"ratio {result['ratio_fit_over_bare']:.3f} (target ≤ 1.15) → {out}")
    return result


if __name__ == "__main__":
    main()
