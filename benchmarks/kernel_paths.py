"""Would pinning the CPU kernel path give every x86-64 machine the same numbers, and at what cost?

PyTorch picks its CPU kernels by the vector width of the machine (``ATEN_CPU_CAPABILITY``
overrides it: ``default``, ``avx2``, ``avx512``) and MKL picks its code path by CPU
(``MKL_CBWR=COMPATIBLE`` fixes it; ``MKL_ENABLE_INSTRUCTIONS`` caps it, which is how one machine
can imitate an older one). This runs the same small training jobs — the chapters' kind: an
a^n b^n LSTM and GRU and Tabor's FLNN, each a fixed number of epochs from a fixed seed — in fresh
processes under each setting, and records whether the trained weights are bit-identical and what
each costs in CPU time.

    python benchmarks/kernel_paths.py [--repeats 3]

Writes ``benchmarks/results/kernel_paths.json`` and ``kernel_paths.md``. "Pinned" means every
process the course starts would set ``ATEN_CPU_CAPABILITY=default`` and ``MKL_CBWR=COMPATIBLE``;
the variants that also cap MKL at AVX2 or switch ATen to AVX2 stand in for other x86-64 CPUs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"

#: name -> environment. The first is this machine as it is; "pinned*" are the candidate policy.
VARIANTS = {
    "native": {},
    "ATen avx2 (an AVX2-only CPU)": {"ATEN_CPU_CAPABILITY": "avx2"},
    "ATen avx2, MKL capped at AVX2": {"ATEN_CPU_CAPABILITY": "avx2",
                                      "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "ATen default": {"ATEN_CPU_CAPABILITY": "default"},
    "pinned": {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
    "pinned, MKL capped at AVX2": {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE",
                                   "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
}

# One process: train each job, print the hash of its weights and its CPU time, as JSON.
JOB = r"""
import hashlib, json, time, torch
torch.set_num_threads(1)
from course_rnn.languages import AnBn, TaborGrammar1, Vocab
from course_rnn.models import build_model
from course_rnn.models.flnn import FLNN
from course_rnn.training import fit
from course_rnn.training.tasks import ExactDistributions

def digest(model):
    h = hashlib.sha256()
    for value in model.state_dict().values():
        h.update(value.detach().cpu().numpy().tobytes())
    return h.hexdigest()[:16]

out = {"capability": torch.backends.cpu.get_cpu_capability()}
anbn = [AnBn.string(n) for n in range(1, 21)]
vocab = Vocab.for_language(AnBn(1, 20))
for kind in ("lstm", "gru"):
    model = build_model(kind, vocab_size=len(vocab), hidden_size=4, seed=0)
    start = time.process_time()
    history = fit(model, vocab, anbn, epochs=400, batch_size=None, lr=0.05, seed=0,
                  progress=False)
    out[kind] = {"weights": digest(model), "loss": history["train_loss"][-1],
                 "cpu_s": time.process_time() - start}
g1 = TaborGrammar1()
tabor_vocab = Vocab(g1.alphabet)
model = FLNN(len(tabor_vocab), seed=0)
start = time.process_time()
history = fit(model, ExactDistributions(g1, tabor_vocab), g1.training_corpus(), epochs=300,
              batch_size=None, lr=0.02, lr_factors={"scale": 0.1}, clip=None, progress=False)
out["flnn"] = {"weights": digest(model), "loss": history["train_loss"][-1],
               "cpu_s": time.process_time() - start}
print(json.dumps(out))
"""
JOBS = ("lstm", "gru", "flnn")


def run(env: dict) -> dict:
    full = {k: v for k, v in os.environ.items()
            if k not in ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS")}
    done = subprocess.run([sys.executable, "-c", JOB], capture_output=True, text=True,
                          env={**full, **env}, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(record: dict) -> str:
    base = record["variants"]["native"]
    lines = ["# Kernel paths: the same numbers on every x86-64 CPU?", "",
             f"Measured {record['measured']} on {record['cpu']} (native kernels: "
             f"{record['native']}), torch {record['torch']}, {record['repeats']} repeats per "
             f"variant (CPU time: the median), load average {record['load_average']:.1f} at the "
             "end (above about 1 the CPU times are noisy: compare them only on an idle machine). "
             "`python benchmarks/kernel_paths.py`.", "",
             "| variant | ATen kernels | " + " | ".join(f"{j}: weights" for j in JOBS)
             + " | CPU time vs native |", "|---|---|" + "---|" * len(JOBS) + "---|"]
    for name, v in record["variants"].items():
        same = [("same as native" if v[j]["weights"] == base[j]["weights"] else v[j]["weights"])
                for j in JOBS]
        ratio = sum(v[j]["cpu_s"] for j in JOBS) / sum(base[j]["cpu_s"] for j in JOBS)
        lines.append(f"| {name} | {v['capability']} | " + " | ".join(same) + f" | {ratio:.2f}× |")
    lines += ["", record["conclusion"], ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    sys.path.insert(0, str(ROOT / "src"))
    from course_rnn.utils import machine_facts

    facts = machine_facts()
    variants = {}
    for name, env in VARIANTS.items():
        runs = [run(env) for _ in range(args.repeats)]
        assert all(r[j]["weights"] == runs[0][j]["weights"] for r in runs for j in JOBS), \
            f"{name}: not even bit-identical run to run"
        variants[name] = {"capability": runs[0]["capability"], "env": env,
                          **{j: {"weights": runs[0][j]["weights"], "loss": runs[0][j]["loss"],
                                 "cpu_s": sorted(r[j]["cpu_s"] for r in runs)[len(runs) // 2]}
                             for j in JOBS}}
        print(name, json.dumps(variants[name]), flush=True)
    pinned = [variants[n] for n in variants if n.startswith("pinned")]
    identical = all(p[j]["weights"] == pinned[0][j]["weights"] for p in pinned for j in JOBS)
    differs = any(variants[n][j]["weights"] != variants["native"][j]["weights"]
                  for n in variants if not n.startswith("pinned") for j in JOBS)
    cost = (sum(pinned[0][j]["cpu_s"] for j in JOBS)
            / sum(variants["native"][j]["cpu_s"] for j in JOBS))
    meets_bar = identical and cost < 1.10
    conclusion = (
        f"Unpinned, the kernel paths {'give different weights' if differs else 'agree'}. "
        f"Pinned, the imitated CPUs {'agree bit for bit' if identical else 'still differ'}; "
        f"pinning costs {cost:.2f}× the CPU time of the native kernels on these jobs, so on "
        f"these jobs it {'meets' if meets_bar else 'misses'} the bar (bit-identical and under "
        "1.10×). What this cannot show: the imitated CPUs are one machine's paths, not other "
        "CPUs, and ARM machines have no x86 kernels to pin. Whether the course pins is decided "
        "in the README (section 'The same course on every machine') with the chapters' cost "
        "beside it (benchmarks/results/robustness.md).")
    record = {"measured": time.strftime("%Y-%m-%d %H:%M"), "cpu": facts["cpu"],
              "native": facts["kernel_capability"], "torch": facts["torch"],
              "repeats": args.repeats, "variants": variants, "pinned_identical": identical,
              "pinned_cost": cost, "meets_bar_on_these_jobs": meets_bar, "conclusion": conclusion,
              "load_average": os.getloadavg()[0]}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "kernel_paths.json").write_text(json.dumps(record, indent=1) + "\n")
    (OUT / "kernel_paths.md").write_text(markdown(record))
    print(conclusion)
    return 0


if __name__ == "__main__":
    sys.exit(main())
