"""Do two versions of the library give the same experiment results? (A refactor must.)

    git worktree add /tmp/before <old commit>
    (cd /tmp/before && PYTHONPATH=src python benchmarks/same_results.py --out /tmp/same-before)
    python benchmarks/same_results.py --out /tmp/same-after --compare /tmp/same-before

Runs every experiment at the small settings of :data:`CASES` — the command line's smoke
settings, and settings at which runs converge, a row disagrees and its runs are continued to
twice their budget — in this process, one worker, on the CPU, and saves for each case what
``results.json`` holds that does not depend on the clock or the machine: the settings, every
number, the table, the figures' names, and every run's whole learning curve and convergence
record (``results.json`` thins the curves; here none is). ``--compare DIR`` then lists every
value that differs from the same case saved in ``DIR`` (a setting renamed since, by
``settings.RENAMED``, compared under its new name), and writes
``benchmarks/results/same_results.md``: the cases, how many runs each trained and how many it
continued (a case that continues none does not test the continuation), and whether it matched.

``--book`` adds the book's own runs (the quick scale, as the chapters run them; minutes each).

Exit status: 0 when every case matched (or without ``--compare``), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

from provenance import git

from course_rnn.experiments import NAMES  # light: no torch

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

def gym_settings(lr: float, anbn_epochs: int, epochs: int) -> dict:
    """The gym's small settings: 4 units, small data, each language's cap ``epochs``."""
    return dict(hidden_size=4, urn_hidden_size=4, lr=lr, batch_size=32, patience=2, languages=dict(
        anbn=dict(train_copies=2, epochs=anbn_epochs, test_max_n=12),
        dyck=dict(pairs=2, train=64, valid=16, epochs=epochs, test=16),
        cross_serial=dict(train=64, epochs=epochs),
        palindrome=dict(train=64, valid=16, epochs=epochs, test=16),
        agreement=dict(train=64, valid=16, epochs=epochs, test_per_attractor=4)))


#: (case name, experiment, seeds, settings overriding the quick scale's). The first of each
#: experiment is the command line's smoke setting (tests/experiments/test_cli.py's SMOKE).
CASES = (
    ("bengio smoke", "bengio-kn", 2,
     dict(kn_orders=[2], test_sentences=30, valid_sentences=30, hidden_size=4, embedding_dim=4,
          context=2, batch_size=64, eval_every=10, patience=1, min_delta=0.05, epochs=1)),
    ("bengio continued", "bengio-kn", 1,
     dict(kn_orders=[2, 3], test_sentences=30, valid_sentences=30, hidden_size=4,
          embedding_dim=4, context=2, batch_size=64, eval_every=20, patience=2, min_delta=0.01,
          epochs=20)),
    ("elman smoke", "elman-clusters", 2, dict(hidden_size=8, sentences=300, epochs=2, probe=300)),
    ("elman continued", "elman-clusters", 1,
     dict(hidden_size=8, sentences=300, epochs=40, probe=300, patience=2, tolerance=1.0)),
    ("anbn smoke", "anbn", 1,
     dict(hidden_size=2, wide_hidden_size=3, train_max_n=4, test_max_n=8, repeats=1,
          batch_size=4, epochs=5, patience=3, extra_seeds=1)),
    ("anbn continued", "anbn", 1,
     dict(hidden_size=2, wide_hidden_size=3, train_max_n=4, test_max_n=8, repeats=1,
          batch_size=4, epochs=40, patience=10, extra_seeds=1)),
    ("agreement smoke", "decay-rnn-agreement", 1,
     dict(n_train=120, hidden_size=8, embedding_dim=8, epochs=2, patience=2, batch_size=64,
          n_test=40, alpha_inits=[0.3, 0.8], alpha_every=1, gram_models=["LSTM", "DRNN"],
          lm_sentences=60, lm_hidden_size=8, lm_epochs=2, lm_patience=2, lm_batch_size=32,
          n_pairs=8)),
    ("agreement continued", "decay-rnn-agreement", 1,
     dict(n_train=400, hidden_size=8, embedding_dim=8, epochs=30, patience=2, target=0.62,
          batch_size=32, lr=0.01, n_test=40, alpha_inits=[0.3, 0.8], alpha_every=1,
          gram_models=["LSTM", "DRNN"], gram_seeds=3, gram_pair_seeds=3, lm_sentences=60,
          lm_hidden_size=8, lm_epochs=40, lm_patience=1, lm_batch_size=32, lm_lr=0.01,
          n_pairs=8)),
    ("tabor smoke", "tabor-table4", 1,
     dict(epochs=15, equal_rate_epochs=15, eval_every=1, hc_steps=4, plateau_patience=5)),
    ("tabor continued", "tabor-table4", 2,
     dict(epochs=60, equal_rate_epochs=60, eval_every=5, hc_steps=4, plateau_patience=10)),
    ("urn-dyck smoke", "urn-dyck", 1,
     dict(train=64, valid=32, test=64, probe=16, hidden_size=6, embedding_dim=4, epochs=3,
          patience=1, batch_size=32)),
    ("urn-dyck continued", "urn-dyck", 1,
     dict(train=64, valid=32, test=64, probe=16, hidden_size=6, embedding_dim=4, epochs=200,
          patience=3, batch_size=32)),
    ("cross-serial smoke", "urn-cross-serial", 1,
     dict(train=32, hidden_sizes=[2, 3], embedding_dim=3, epochs=2, batch_size=16)),
    ("cross-serial continued", "urn-cross-serial", 1,
     dict(train=64, hidden_sizes=[8, 16], embedding_dim=4, epochs=300, batch_size=16)),
    ("gym smoke", "gym", 1, gym_settings(lr=0.02, anbn_epochs=2, epochs=1)),
    ("gym continued", "gym", 1, gym_settings(lr=0.05, anbn_epochs=200, epochs=200)),
    ("chomsky smoke", "chomsky", 1,
     dict(tasks=["parity_check", "reverse_string"], hidden_size=4, max_train_length=3,
          max_test_length=5, steps=20, eval_every=10, valid_per_length=2, test_samples=4)),
    ("chomsky continued", "chomsky", 1,
     dict(tasks=["parity_check", "reverse_string", "anbn"], hidden_size=6, max_train_length=3,
          max_test_length=5, steps=200, eval_every=10, patience=2, valid_per_length=2,
          test_samples=4)),
)

#: The book's own runs (the quick scale, its seeds), minutes each: only with ``--book``.
BOOK_CASES = tuple((f"{name} quick", name, None, {}) for name in NAMES)

#: Keys that hold times (wall or CPU seconds) or say where and when a run was made.
CLOCK = re.compile(r"second|^(machine|provenance|python|torch)$")
#: The marks of a run continued to twice its budget (replication.CONTINUED's).
CONTINUED = re.compile(r"2× budget|twice the budget")


def without_clock(value):
    """``value`` with every key :data:`CLOCK` matches removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_clock(v) for k, v in value.items() if not CLOCK.search(str(k))}
    if isinstance(value, list):
        return [without_clock(v) for v in value]
    return value


def record(replication) -> dict:
    """What a case saves: results.json without the clock, every run's curve whole."""
    from course_rnn.experiments.replication import _jsonable

    saved = replication.to_json()
    saved["runs"] = _jsonable({name: h.to_json(max_points=10**9)
                               for name, h in replication.runs.items()})
    return without_clock(saved)


def run_case(experiment: str, seeds: int | None, settings: dict) -> dict:
    from course_rnn.experiments import get_experiment

    replication = get_experiment(experiment).run(scale="quick", seeds=seeds, device="cpu",
                                                 progress=False, settings=settings)
    return record(replication)


def file_name(case: str) -> str:
    return case.replace(" ", "-") + ".json"


def differences(old, new, where: str = "") -> list[str]:
    """Where ``new`` differs from ``old``: one line per differing value."""
    found: list[str] = []
    _walk(old, new, where or "$", found)
    return found


def _walk(old, new, where: str, found: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in dict.fromkeys([*old, *new]):
            if key not in new:
                found.append(f"{where}.{key}: only before")
            elif key not in old:
                found.append(f"{where}.{key}: only after")
            else:
                _walk(old[key], new[key], f"{where}.{key}", found)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            _walk(a, b, f"{where}[{i}]", found)
    elif old != new:
        found.append(f"{where}: {json.dumps(old)[:80]} → {json.dumps(new)[:80]}")


#: Names of saved numbers renamed since (issue 44 item 4: elman's setup, urn-cross-serial's
#: runs and mean errors), old → today's; compared under today's.
NUMBERS_RENAMED = {"hidden": "hidden_size", "units": "hidden_size",
                   "by_units": "by_hidden_size",
                   "by_units_and_length": "by_hidden_size_and_length"}


def renamed(saved: dict) -> dict:
    """``saved`` with the old names of its settings (``settings.RENAMED``) and of its numbers
    (:data:`NUMBERS_RENAMED`) replaced by today's, so that a rename alone is no difference."""
    from course_rnn.experiments.settings import RENAMED

    settings = saved.get("settings")
    if isinstance(settings, dict):
        saved["settings"] = _renamed_keys(settings, RENAMED, deep=False)
    saved["numbers"] = _renamed_keys(saved.get("numbers"), NUMBERS_RENAMED, deep=True)
    return saved


def _renamed_keys(value, names: dict, deep: bool):
    if isinstance(value, list) and deep:
        return [_renamed_keys(v, names, deep) for v in value]
    if not isinstance(value, dict):
        return value
    return {names.get(k, k) if names.get(k) not in value else k:
            _renamed_keys(v, names, deep) if deep else v for k, v in value.items()}


def counts(saved: dict) -> tuple[int, int]:
    """(runs trained, runs continued to twice their budget)."""
    runs = saved.get("runs", {})
    return len(runs), sum(bool(CONTINUED.search(name)) for name in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for one JSON per case")
    parser.add_argument("--compare", type=Path, help="a folder an earlier run wrote")
    parser.add_argument("--cases", nargs="*", help="case names (default: all but the book's)")
    parser.add_argument("--book", action="store_true",
                        help="also the book's own runs (BOOK_CASES: the quick scale, minutes each)")
    args = parser.parse_args(argv)
    cases = CASES + BOOK_CASES if args.book or args.cases else CASES
    names = [c[0] for c in CASES + BOOK_CASES]
    unknown = sorted(set(args.cases or ()) - set(names))
    if unknown:
        parser.error(f"unknown case(s) {unknown}: choose from {names}")
    if args.compare is not None and not args.compare.is_dir():
        parser.error(f"--compare {args.compare}: no such folder")
    os.environ.setdefault("COURSE_RNN_PROGRESS", "0")
    os.environ.setdefault("COURSE_RNN_WORKERS", "1")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / META).write_text(json.dumps({"commit": commit(), "changed": changed()}) + "\n")
    lines, same = [], True
    for case, experiment, seeds, settings in cases:
        if args.cases and case not in args.cases:
            continue
        start = time.perf_counter()
        saved = run_case(experiment, seeds, settings)
        (args.out / file_name(case)).write_text(json.dumps(saved, indent=1, sort_keys=True))
        trained, continued = counts(saved)
        verdict = ""
        if args.compare is not None:
            before = args.compare / file_name(case)
            found = (differences(renamed(json.loads(before.read_text())), saved)
                     if before.exists() else [f"{before}: not saved before"])
            same &= not found
            verdict = "identical" if not found else "differs: " + "; ".join(found[:3]) + (
                f" (and {len(found) - 3} more)" if len(found) > 3 else "")
            for line in found[:30] + ([f"… and {len(found) - 30} more"] if found[30:] else []):
                print(f"  {case}: {line}", flush=True)
        lines.append(f"| {case} | {experiment} | {trained} | {continued} | "
                     f"{time.perf_counter() - start:.0f} | {verdict} |")
        print(lines[-1], flush=True)
    if args.compare is not None:
        report(lines, args)
    return 0 if same else 1


#: What a run records beside its cases: the commit it ran at, and whether the tree had changes.
META = "_commit.json"


def commit() -> str:
    return git("rev-parse", "--short", "HEAD")


def changed() -> bool:
    return bool(git("status", "--porcelain", "--untracked-files=no"))


def _made_at(folder: Path) -> str:
    meta = folder / META
    if not meta.exists():
        return "(commit not recorded)"
    made = json.loads(meta.read_text())
    return made["commit"] + (" with uncommitted changes" if made["changed"] else "")


def report(lines: list[str], args) -> None:
    text = "\n".join([
        "# The same results before and after a change",
        "",
        f"`benchmarks/same_results.py --out {args.out} --compare {args.compare}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: every case's results.json "
        "(without times and machine facts, every learning curve whole; a setting or saved "
        "number renamed since compared under its new name) at "
        f"{_made_at(args.out)} against the same case at {_made_at(args.compare)}.",
        "",
        "| case | experiment | runs | continued | seconds | result |",
        "|---|---|---|---|---|---|",
        *lines, ""])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "same_results.md").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
