"""Counting a^n b^n (chapter 3): SRN, GRU and LSTM trained on n ≤ 20, tested on every n ≤ 60.

The experiment of Levy's lecture (2023; slides *Training recurrent
architectures on a^n b^n*, *Hidden & cell state contents*, *Summary*): tiny language models –
4 units, one-hot inputs, as tiny as Gers & Schmidhuber's (2001) and Weiss et al.'s (2018)
counters – are trained on

    train = { a^n b^n : 1 ≤ n ≤ N_train },  each string ``repeats`` times per epoch,

with Adam (lr 0.02, batches of 10, gradients clipped at 1) and then asked whether they learned
*to count* or only the lengths they saw. After the first b every symbol is forced, so a model is
right on a^n b^n when its top prediction is correct at each forced position (each later b, then
the end); :func:`course_rnn.metrics.anbn_generalisation` turns that into

    max_correct_n = max { N ≤ N_test : every n ≤ N is right },

computed after every epoch (``max_correct_n_per_epoch``) and on the final checkpoint. The
lecture's claim is qualitative ("for classic counting language, LSTM works the best"; the SRN's and
GRU's states saturate, the LSTM's cell state counts); its generalisation numbers sit in a figure
we cannot read. So the table checks the claims' direction per model, seed by seed, and compares
the LSTM's reach with the prototype run recorded in the project's design notes (maxN 40–60).

``run(scale="quick")`` is what chapter 3 shows (3 seeds × 60 epochs, under a minute on one CPU
thread); ``scale="paper"`` runs 10 seeds × 150 epochs; ``settings=`` overrides entries of
:data:`SETTINGS` (tests run it tiny).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..languages import AnBn, Vocab
from ..metrics import anbn_generalisation
from ..models import build_model
from ..training import fit
from ..utils import pick_device
from .replication import (
    Experiment,
    Replication,
    Row,
    Timer,
    check_positive_ints,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
    steps,
)

#: Registry kind → the name shown in tables and figures, in the order they are trained.
MODELS = {"srn": "SRN", "gru": "GRU", "lstm": "LSTM"}

#: Per scale: epochs (each ``repeats`` × N_train strings, in batches of ``batch_size``), hidden
#: units, the longest training n, the longest tested n, and Adam's learning rate.
SETTINGS = {
    "quick": dict(epochs=60, hidden=4, train_max_n=20, test_max_n=60, repeats=5, batch_size=10,
                  lr=0.02),
    "paper": dict(epochs=150, hidden=4, train_max_n=20, test_max_n=60, repeats=5, batch_size=10,
                  lr=0.02),
}

#: Seeds per model (0 … k-1) when ``run`` is given none.
DEFAULT_SEEDS = {"quick": 3, "paper": 10}

LECTURE = "Levy 2023, slides 'Hidden & cell state contents' and 'Summary'"
PROTOTYPE_RANGE = (40, 60)  # design notes: 2–3 unit LSTMs reached maxN 40–60 (not a paper)


def anbn_settings(scale: str = "quick", settings: dict | None = None) -> dict:
    """:data:`SETTINGS` at ``scale`` with ``settings`` overriding entries (checked: an unknown
    key or a value out of range is a ValueError naming it)."""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, "anbn")
    check_positive_ints(merged, ("epochs", "hidden", "train_max_n", "test_max_n", "repeats",
                                 "batch_size"))
    if isinstance(merged["lr"], bool) or not isinstance(merged["lr"], (int, float)) \
            or not merged["lr"] > 0:
        raise ValueError(f"setting 'lr' must be a positive number, got {merged['lr']!r}")
    if merged["test_max_n"] <= merged["train_max_n"]:
        raise ValueError(f"setting 'test_max_n' ({merged['test_max_n']}) must exceed "
                         f"'train_max_n' ({merged['train_max_n']}): the test is about longer n")
    return merged


def train_strings(train_max_n: int, repeats: int) -> list[tuple]:
    """One epoch's strings: a^n b^n for n = 1 … ``train_max_n``, each ``repeats`` times."""
    return [AnBn.string(n) for n in range(1, train_max_n + 1)] * repeats


def train_one(kind: str, seed: int, vocab: Vocab, settings: dict, device) -> tuple:
    """Build and train one model; return ``(model, history)``. ``history["max_correct_n"]`` is
    max_correct_n (n ≤ ``test_max_n``) after every epoch."""
    model = build_model(kind, vocab_size=len(vocab), hidden_size=settings["hidden"], seed=seed)

    def max_correct_n(m):
        return anbn_generalisation(m, vocab, settings["test_max_n"])["max_correct_n"]

    history = fit(model, vocab, train_strings(settings["train_max_n"], settings["repeats"]),
                  epochs=settings["epochs"], batch_size=settings["batch_size"], lr=settings["lr"],
                  seed=seed, device=device, metrics={"max_correct_n": max_correct_n},
                  progress=False)
    return model, history


def score_run(kind: str, seed: int, model, history, vocab: Vocab, settings: dict) -> dict:
    """One run's numbers: final loss, how many n are right inside (n ≤ N_train) and beyond the
    training range, max_correct_n at the final checkpoint, per epoch and at the best epoch."""
    train_n, test_n = settings["train_max_n"], settings["test_max_n"]
    result = anbn_generalisation(model, vocab, test_n)
    per_epoch = [int(v) for v in history["max_correct_n"]]
    return {
        "model": MODELS[kind], "seed": int(seed),
        "final_loss": float(history.last["train_loss"]),
        "train_right": sum(result["right"][n] for n in range(1, train_n + 1)),
        "beyond_right": sum(result["right"][n] for n in range(train_n + 1, test_n + 1)),
        "max_correct_n": int(result["max_correct_n"]),
        "max_correct_n_best_epoch": max(per_epoch),
        "max_correct_n_per_epoch": per_epoch,
        "right": [bool(result["right"][n]) for n in range(1, test_n + 1)],
    }


def best_seeds(runs: Sequence[dict]) -> dict[str, int]:
    """Per model, the seed with the highest final max_correct_n (the first such seed on ties)."""
    best = {}
    for name in dict.fromkeys(r["model"] for r in runs):
        best[name] = max((r for r in runs if r["model"] == name),
                         key=lambda r: r["max_correct_n"])["seed"]
    return best


def summarise(runs: Sequence[dict], train_max_n: int) -> dict[str, dict]:
    """Per model: final max_correct_n mean ± SE over seeds, the best seed and its value, how many
    seeds count beyond the training range, and the best epoch of any seed."""
    summary, best = {}, best_seeds(runs)
    for name in best:
        mine = [r for r in runs if r["model"] == name]
        finals = [r["max_correct_n"] for r in mine]
        mean, se = mean_se(finals)
        summary[name] = {
            "max_correct_n_mean": mean, "max_correct_n_se": se,
            "best_seed": best[name], "max_correct_n_best_seed": max(finals),
            "seeds_beyond_train": sum(v > train_max_n for v in finals), "n_seeds": len(mine),
            "best_epoch_any_seed": max(r["max_correct_n_best_epoch"] for r in mine),
        }
    return summary


def instability(run: dict, train_max_n: int) -> dict:
    """How the run's max_correct_n moves once it first passes ``train_max_n``: the first such
    epoch (1-based) and the lowest and highest value from then on (None when it never does)."""
    curve = np.array(run["max_correct_n_per_epoch"])
    beyond = np.flatnonzero(curve > train_max_n)
    if beyond.size == 0:
        return {"seed": run["seed"], "first_epoch_beyond": None, "min_after": None,
                "max_after": None}
    after = curve[beyond[0]:]
    return {"seed": run["seed"], "first_epoch_beyond": int(beyond[0]) + 1,
            "min_after": int(after.min()), "max_after": int(after.max())}


def claims(summary: dict[str, dict], unstable: dict, train_max_n: int,
           test_max_n: int) -> list[Row]:
    """The paper-vs-ours table: the lecture's claim per model, the design notes' LSTM reach and
    the LSTM's stability across epochs, each with a verdict computed from ``summary``."""
    rows = []
    for name in (n for n in ("SRN", "GRU") if n in summary):
        s = summary[name]
        k, total = s["seeds_beyond_train"], s["n_seeds"]
        rows.append(Row(
            f"{name}: final max_correct_n (train n ≤ {train_max_n}, test n ≤ {test_max_n})",
            f"does not count beyond the training range ({LECTURE})",
            _per_model(s, train_max_n),
            f"agrees: no seed gets every n right beyond n = {train_max_n}" if k == 0
            else f"differs: {k}/{total} seeds count beyond n = {train_max_n}"))
    if "LSTM" in summary:
        s = summary["LSTM"]
        k, total = s["seeds_beyond_train"], s["n_seeds"]
        rivals = [v["max_correct_n_best_seed"] for n, v in summary.items() if n != "LSTM"]
        if k == 0:
            verdict = f"differs: no LSTM seed counts beyond n = {train_max_n} at this budget"
        elif rivals and s["max_correct_n_best_seed"] <= max(rivals):
            verdict = "differs: another model's best seed reaches as far as the LSTM's"
        else:
            also = [n for n, v in summary.items() if n != "LSTM" and v["seeds_beyond_train"]]
            lead = (f"only the LSTM counts beyond n = {train_max_n}" if not also else
                    f"the LSTM counts furthest ({', '.join(also)} also passes n = {train_max_n} "
                    "on some seeds)")
            verdict = ("agrees in direction: " + lead
                       + (f", for {k}/{total} seeds only (seed-dependent)" if k < total
                          else ", every seed"))
        rows.append(Row(
            f"LSTM: final max_correct_n (train n ≤ {train_max_n}, test n ≤ {test_max_n})",
            f"counts beyond n = {train_max_n}; \"for classic counting language, LSTM works the "
            f"best\" ({LECTURE})",
            _per_model(s, train_max_n), verdict))
        low, high = PROTOTYPE_RANGE
        best = s["max_correct_n_best_seed"]
        where = ("agrees" if low <= best <= high else
                 "differs: below the prototype's range" if best < low else
                 "differs: above the prototype's range")
        cap = f"; the test stops at n = {test_max_n}" if best >= test_max_n else ""
        rows.append(Row(
            "LSTM: best seed's final max_correct_n",
            f"{low}–{high} with 2–3 units (prototype run in the project's design notes; "
            "not a paper)",
            f"{best} (seed {s['best_seed']}, {s['n_seeds']} seeds)",
            f"{where} (we use 4 units{cap})"))
        if unstable["first_epoch_beyond"] is None:
            ours, note = f"never beyond n = {train_max_n}", "not testable: no seed counts"
        else:
            ours = (f"seed {unstable['seed']}: first beyond n = {train_max_n} at epoch "
                    f"{unstable['first_epoch_beyond']}, then {unstable['min_after']}"
                    f"…{unstable['max_after']}")
            note = ("the slides show one checkpoint; ours moves between epochs"
                    if unstable["max_after"] > unstable["min_after"]
                    else "stable once it counts")
        rows.append(Row("best LSTM seed: max_correct_n over the epochs after it first counts "
                        f"beyond n = {train_max_n}", "— (not reported)", ours, note))
    return rows


def _per_model(s: dict, train_max_n: int) -> str:
    return (f"mean {pm(s['max_correct_n_mean'], s['max_correct_n_se'], digits=1)}; best "
            f"{s['max_correct_n_best_seed']} (seed {s['best_seed']}); "
            f"{s['seeds_beyond_train']}/{s['n_seeds']} seeds beyond {train_max_n}; "
            f"best epoch of any seed {s['best_epoch_any_seed']}")


def final_figure(runs: Sequence[dict], train_max_n: int, test_max_n: int):
    """Final max_correct_n, one dot per seed, per model (the dashed line: longest training n)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3), layout="tight")
    ax = fig.subplots()
    names = list(dict.fromkeys(r["model"] for r in runs))
    for i, name in enumerate(names):
        values = [r["max_correct_n"] for r in runs if r["model"] == name]
        ax.scatter(np.full(len(values), i) + np.linspace(-0.1, 0.1, len(values)), values, s=40,
                   label=name)
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.text(len(names) - 0.55, train_max_n + 1, "longest training n", ha="right", fontsize=8,
            color="grey")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(-2, test_max_n + 3)
    ax.set_ylabel("max_correct_n (final checkpoint)")
    ax.set_title("a^n b^n, one dot per seed")
    return fig


def epochs_figure(runs: Sequence[dict], train_max_n: int, model: str = "LSTM"):
    """max_correct_n after every epoch, one line per seed of ``model``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), layout="tight")
    ax = fig.subplots()
    for r in (r for r in runs if r["model"] == model):
        curve = r["max_correct_n_per_epoch"]
        ax.plot(range(1, len(curve) + 1), curve, marker=".", ms=3, lw=1,
                label=f"{model} seed {r['seed']}")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("max_correct_n")
    ax.legend(fontsize=8)
    return fig


def run(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
        settings: dict | None = None) -> Replication:
    """Train SRN, GRU and LSTM on a^n b^n (n ≤ ``train_max_n``) for every seed; score them.

    ``numbers["runs"]`` holds one dict per (model, seed) (see :func:`score_run`),
    ``numbers["summary"]`` the per-model figures of the table (:func:`summarise`) and
    ``numbers["lstm_instability"]`` the best LSTM's per-epoch range (:func:`instability`).
    ``artefacts``: ``models`` and ``histories`` keyed by (kind, seed), e.g. ("lstm", 0), the
    ``vocab`` and the training ``language``. Figures: ``final`` (one dot per seed) and
    ``lstm_epochs`` (max_correct_n per epoch for every LSTM seed).
    """
    scale = normalise_scale(scale)
    config = anbn_settings(scale, settings)
    seeds = seed_list(seeds, DEFAULT_SEEDS[scale])
    device = pick_device(device)
    language = AnBn(min_n=1, max_n=config["train_max_n"])
    vocab = Vocab.for_language(language)
    train_n, test_n = config["train_max_n"], config["test_max_n"]

    models, histories, runs = {}, {}, []
    with Timer() as timer:
        jobs = [(kind, seed) for kind in MODELS for seed in seeds]
        for kind, seed in steps(jobs, total=len(jobs), desc="a^n b^n", progress=progress):
            models[kind, seed], histories[kind, seed] = train_one(kind, seed, vocab, config,
                                                                  device)
            runs.append(score_run(kind, seed, models[kind, seed], histories[kind, seed], vocab,
                                  config))
    summary = summarise(runs, train_n)
    best_lstm = next(r for r in runs
                     if r["model"] == "LSTM" and r["seed"] == summary["LSTM"]["best_seed"])
    unstable = instability(best_lstm, train_n)
    return Replication(
        experiment="anbn", title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=config,
        numbers={"runs": runs, "summary": summary, "lstm_instability": unstable,
                 "train_max_n": train_n, "test_max_n": test_n},
        rows=claims(summary, unstable, train_n, test_n),
        figures={"final": final_figure(runs, train_n, test_n),
                 "lstm_epochs": epochs_figure(runs, train_n)},
        artefacts={"models": models, "histories": histories, "vocab": vocab,
                   "language": language},
        seconds=timer.seconds)


EXPERIMENTS = (Experiment(
    name="anbn",
    title="a^n b^n: SRN, GRU and LSTM trained on n ≤ 20, tested up to n = 60 "
          "(Levy 2023 lecture)",
    chapter="03_gates", run=run),)
