"""Tabor (2011), Table 4: fractal learning networks (FLNN) on Grammars 1 and 2 (chapter 5).

What :func:`run` trains, each network starting as in §3.2 (self-weights 1, offsets 0, centres
and read-out weights uniform in (-0.3, 0.3) from the seed) on the *training corpus* (every
sentence with at most 3 levels of recursion) against the grammar's exact next-word
distributions, with the summed KL error ``E = sum_i t_i log(t_i / o_i)``:

===================  =========================================  =======================  =====
group                targets                                    trainer                  RBF
===================  =========================================  =======================  =====
``G1 stream``        Grammar 1, a stream without an end marker  backprop (full-batch     3
                     (Tabor's convention)                       Adam, ``epochs``)
``G2 stream``        Grammar 2, stream                          backprop                 3
``G1 with </s>``     Grammar 1 with the library's ``</s>``      backprop                 4
``HC G1 stream``     Grammar 1, stream                          hill climbing (Tabor's   3
``HC G2 stream``     Grammar 2, stream                          "gradient sampling")     3
===================  =========================================  =======================  =====

Each network is then scored as in Table 4 on the training corpus and on the *test corpus*
(every sentence with 4 or 5 levels, never seen in training): RMSE between the predicted and the
exact distribution, and **% correct** (the output is closer to the correct distribution than to
any other distribution of the corpus), plus the mean KL per position. The table compares the
means ± SE over *all* our runs with Table 4 (the paper: successful runs only), counts the runs
that learned their training corpus (§3.3: 9/15 and 11/15), and checks Figure 4b's observation
that the top level (the empty stack) is the most distorted on sentences up to 5 levels deep.

``run(scale="quick")`` is what chapter 5 shows (about a minute on one CPU thread).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from matplotlib.figure import Figure

from ..analysis.dynamics import spread, visitation_set, without_end_marker
from ..languages import Vocab
from ..languages.tabor import TaborGrammar, TaborGrammar1, TaborGrammar2
from ..models.flnn import FLNN, evaluate, train_backprop, train_hill_climb
from ..utils import pick_device
from .replication import (
    Experiment,
    Replication,
    Row,
    Timer,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
    steps,
)

NAME = "tabor-table4"
TITLE = "Tabor (2011), Table 4: fractal learning networks on Grammars 1 and 2"

#: Tabor (2011), Table 4, successful runs only (100% correct on the training corpus):
#: (grammar, corpus) -> (RMSE, SE, % correct, SE, N networks, N points).
PAPER_TABLE4 = {
    (1, "train"): (0.013, 0.001, 100.000, 0.000, 9, 129),
    (1, "test"): (0.048, 0.005, 99.424, 0.195, 9, 4755),
    (2, "train"): (0.008, 0.000, 100.000, 0.000, 11, 276),
    (2, "test"): (0.022, 0.001, 99.900, 0.022, 11, 15232),
}
#: §3.3: networks (of 15 per grammar) whose hill climbing learned the training corpus.
PAPER_LEARNED = {1: (9, 15), 2: (11, 15)}

#: Per scale. ``seeds``, ``eos_seeds``, ``hc_seeds``: how many seeds (0, 1, …) each group of
#: runs gets; ``epochs``, ``lr``: backprop; ``hc_radius``, ``hc_steps``: the hill climber's step
#: and budget. Paper: 15 networks per grammar, hill climbing at radius 0.001 "until the mean error
#: per word dropped below 0.001 or the gradient became flat" (here: a step budget).
SETTINGS = {
    "quick": dict(seeds=3, eos_seeds=2, hc_seeds=2, epochs=800, lr=0.02,
                  hc_radius=0.02, hc_steps=600),
    "paper": dict(seeds=15, eos_seeds=15, hc_seeds=15, epochs=5000, lr=0.02,
                  hc_radius=0.001, hc_steps=200_000),
}

#: Backprop groups: name -> (grammar, stream targets?, Gaussian units, settings key of the seeds).
BACKPROP = {
    "G1 stream": (1, True, 3, "seeds"),
    "G2 stream": (2, True, 3, "seeds"),
    "G1 with </s>": (1, False, 4, "eos_seeds"),
}
#: Hill-climbing groups (Tabor's own trainer; stream targets, three Gaussian units).
HILL_CLIMB = {"G1 stream": 1, "G2 stream": 2}
METRICS = ("rmse", "percent_correct", "kl_per_position")
WEIGHT_GROUPS = ("scale", "offset", "centers", "readout")


def grammar(number: int, stream: bool) -> tuple[TaborGrammar, Vocab]:
    """Grammar 1 or 2 (Tables 2–3) and its vocabulary; ``stream``: Tabor's targets, no ``</s>``
    (:func:`~course_rnn.analysis.dynamics.without_end_marker`)."""
    language = {1: TaborGrammar1, 2: TaborGrammar2}[number]()
    vocab = Vocab(language.alphabet)
    return (without_end_marker(language) if stream else language), vocab


def resolve_settings(scale: str, seeds, settings: Mapping | None) -> dict:
    """``SETTINGS[scale]`` with ``settings`` merged in (unknown key: ValueError) and every seed
    count turned into a list. ``seeds`` (a count or a list) replaces the seeds of every group."""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, NAME)
    for key in ("seeds", "eos_seeds", "hc_seeds"):
        if seeds is not None:
            merged[key] = seed_list(seeds, default=1)
            continue
        try:
            merged[key] = seed_list(merged[key], default=1)
        except ValueError as err:
            raise ValueError(f"setting {key!r}: {err}") from None
    return merged


# ---------------------------------------------------------------------------------------------
# One network
# ---------------------------------------------------------------------------------------------


def _scores(model: FLNN, language: TaborGrammar, vocab: Vocab) -> dict:
    """Table 4's scores on the training corpus (≤ 3 levels) and the test corpus (4–5 levels)."""
    return {"train": evaluate(model, language, language.training_corpus(), vocab),
            "test": evaluate(model, language, language.test_corpus(), vocab)}


def backprop_run(number: int, stream: bool, rbf_size: int, seed: int, settings: dict,
                 device) -> dict:
    """One FLNN trained by backpropagation through time (:func:`train_backprop`):
    ``{seed, model, history, train, test}``."""
    language, vocab = grammar(number, stream)
    model = FLNN(len(vocab), rbf_size=rbf_size, seed=seed).to(device)
    history = train_backprop(model, language.training_corpus(), vocab, epochs=settings["epochs"],
                             lr=settings["lr"], seed=seed, language=language)
    return dict(seed=seed, model=model, history=history, **_scores(model, language, vocab))


def hill_climb_run(number: int, seed: int, settings: dict, device) -> dict:
    """One FLNN trained by Tabor's climber (:func:`train_hill_climb`) from the same start as
    the backprop run of that seed: ``{seed, model, history, before, train, test}``."""
    language, vocab = grammar(number, stream=True)
    model = FLNN(len(vocab), rbf_size=3, seed=seed).to(device)
    before = evaluate(model, language, language.training_corpus(), vocab)["kl_per_position"]
    history = train_hill_climb(model, language.training_corpus(), vocab,
                               iterations=settings["hc_steps"], radius=settings["hc_radius"],
                               seed=seed, language=language)
    return dict(seed=seed, model=model, history=history, before=before,
                **_scores(model, language, vocab))


def top_level_spread(model: FLNN) -> dict:
    """Figure 4: how far a Grammar 1 stream network's visited states stray from their stack
    state's mean. ``train_max`` / ``test_max``: the largest distance on the training corpus
    (≤ 3 levels) / on every sentence with ≤ 5 levels; ``train_top``, ``test_top``: those
    distances for the empty stack ε (the top level, which Tabor finds most distorted)."""
    language, vocab = grammar(1, stream=True)
    train = spread(visitation_set(model, language, language.training_corpus(), vocab))
    test = spread(visitation_set(model, language, language.sentences(5), vocab))
    return {"train_max": max(train.values()), "test_max": max(test.values()),
            "train_top": train[""], "test_top": test[""],
            "top_is_max": bool(test[""] == max(test.values()))}


# ---------------------------------------------------------------------------------------------
# Numbers, table, figure
# ---------------------------------------------------------------------------------------------


def summary(runs: list[dict], corpus: str) -> dict:
    """Mean ± SE over runs of each Table 4 score on ``corpus`` ("train" or "test"), with the
    number of runs ``n`` and of scored positions ``points``."""
    out = {key: list(mean_se([r[corpus][key] for r in runs])) for key in METRICS}
    out["n"], out["points"] = len(runs), runs[0][corpus]["positions"]
    return out


def _run_numbers(r: dict, hill_climb: bool) -> dict:
    out = {"seed": r["seed"], "train": r["train"], "test": r["test"],
           "self_weights": r["model"].scale.detach().cpu().tolist()}
    if hill_climb:
        out.update(steps=len(r["history"]), kl_before=r["before"],
                   steps_per_weight_group={w: sum(h["weight"] == w for h in r["history"])
                                           for w in WEIGHT_GROUPS})
    else:
        out["final_train_kl"] = r["history"][-1]["loss"]
    return out


def numbers_of(runs: dict, hc: dict) -> dict:
    """Every measured number, JSON-able: per run, per group (mean ± SE), the counts of runs that
    learned their training corpus, and the top-level distortion of the G1 stream networks."""
    groups = {**runs, **{"HC " + name: group for name, group in hc.items()}}
    spreads = [dict(seed=r["seed"], **top_level_spread(r["model"])) for r in runs["G1 stream"]]
    return {
        "backprop": {name: [_run_numbers(r, False) for r in group] for name, group in runs.items()},
        "hill_climb": {name: [_run_numbers(r, True) for r in group] for name, group in hc.items()},
        "summary": {name: {corpus: summary(group, corpus) for corpus in ("train", "test")}
                    for name, group in groups.items()},
        "learned_training_set": {name: sum(r["train"]["percent_correct"] == 100.0 for r in group)
                                 for name, group in groups.items()},
        "final_train_kl": {name: float(np.mean([r["history"][-1]["loss"] for r in group]))
                           for name, group in runs.items()},
        "spread": {"G1 stream": spreads},
        "top_level_most_distorted": {"G1 stream": sum(s["top_is_max"] for s in spreads)},
    }


def _verdict(ours: list[float], paper: float, paper_se: float, digits: int) -> str:
    """"agrees" when within two combined SEs (at the printed precision), else higher/lower by."""
    mean, se = ours
    band = 2 * math.hypot(paper_se, 0.0 if math.isnan(se) else se) + 0.5 * 10 ** -digits
    if abs(mean - paper) <= band:
        return "agrees (within 2 SE)"
    return f"{'higher' if mean > paper else 'lower'} by {abs(mean - paper):.{digits}f}"


def _md(text: str) -> str:
    """Markdown would read ``</s>`` as an HTML tag: show it as code."""
    return text.replace("</s>", "`</s>`")


def _methods(settings: dict) -> dict[str, tuple[str, str]]:
    """Group pattern -> (how it was trained, what differs from the paper), for the table."""
    return {
        "G{g} stream": ("backprop, stream",
                        f"all our runs, {settings['epochs']} epochs of Adam (paper: successful "
                        "runs, climbed to KL < 0.001 per word)"),
        "G{g} with </s>": ("backprop, with `</s>`",
                           "the library's end-marker target, which the paper did not use"),
        "HC G{g} stream": ("hill climbing, stream",
                           f"radius {settings['hc_radius']:g}, at most {settings['hc_steps']} "
                           "steps (paper: radius 0.001, to convergence)"),
    }


def table_rows(numbers: dict, settings: dict) -> list[Row]:
    """The paper-vs-ours table: Table 4's RMSE and % correct per grammar and corpus, for each
    group of runs, then the runs that learned their training corpus and Figure 4b's distortion."""
    methods = _methods(settings)
    rows = []
    for g in (1, 2):
        for corpus in ("train", "test"):
            rmse, rmse_se, pc, pc_se, n, _ = PAPER_TABLE4[(g, corpus)]
            for key, digits, paper, paper_se in (("rmse", 3, rmse, rmse_se),
                                                 ("percent_correct", 2, pc, pc_se)):
                label = "RMSE" if key == "rmse" else "% correct"
                for pattern, (method, differs) in methods.items():
                    group = numbers["summary"].get(pattern.format(g=g))
                    if group is None:
                        continue
                    rows.append(Row(
                        quantity=f"G{g} {corpus} {label}, {method}",
                        paper=f"{pm(paper, paper_se)} (Table 4, N = {n})",
                        ours=f"{pm(*group[corpus][key], digits)} (N = {group[corpus]['n']})",
                        note=f"{_verdict(group[corpus][key], paper, paper_se, digits)}; {differs}"))
    for g in (1, 2):
        learned, of = PAPER_LEARNED[g]
        for pattern, (method, _) in methods.items():
            name = pattern.format(g=g)
            if name in numbers["summary"]:
                n = numbers["summary"][name]["train"]["n"]
                k = numbers["learned_training_set"][name]
                rows.append(Row(
                    quantity=f"G{g} runs with 100% on the training corpus, {method}",
                    paper=f"{learned}/{of} (§3.3, hill climbing)", ours=f"{k}/{n}",
                    note="every run" if k == n else ("no run" if k == 0 else f"{k} of {n} runs")))
    k = numbers["top_level_most_distorted"]["G1 stream"]
    n = len(numbers["spread"]["G1 stream"])
    rows.append(Row(
        quantity="top level (ε) most distorted on sentences ≤ 5 levels, G1 backprop, stream",
        paper="yes (Fig. 4b)", ours=f"{k}/{n} runs",
        note="agrees" if k == n else f"agrees for {k} of {n} runs"))
    return rows


def table4(result: Replication) -> str:
    """Table 4 laid out as in the paper, one line per source (paper, our backprop groups), with
    KL per position, the number of networks N and of scored points (Markdown)."""
    lines = ["| grammar | corpus | source | RMSE ± SE | % correct ± SE | KL/position | N "
             "| points |", "|---|---|---|---|---|---|---|---|"]
    for (g, corpus), (rmse, rmse_se, pc, pc_se, n, points) in PAPER_TABLE4.items():
        lines.append(f"| {g} | {corpus} | paper (Table 4) | {pm(rmse, rmse_se)} | "
                     f"{pm(pc, pc_se)} | — | {n} | {points} |")
        for group in (f"G{g} stream", f"G{g} with </s>"):
            if group in result.numbers["backprop"]:
                m = result.numbers["summary"][group][corpus]
                lines.append(f"| {g} | {corpus} | ours, backprop, {_md(group[3:])} | "
                             f"{pm(*m['rmse'])} | {pm(*m['percent_correct'])} | "
                             f"{m['kl_per_position'][0]:.4f} | {m['n']} | {m['points']} |")
    return "\n".join(lines)


def curves_figure(runs: dict) -> Figure:
    """Training KL per position against the epoch, every backprop run, with Tabor's stopping
    criterion (mean KL per word below 0.001)."""
    fig = Figure(figsize=(6, 3.3), layout="tight")
    ax = fig.add_subplot()
    for (name, group), color in zip(runs.items(), ("C0", "C1", "C3")):
        for i, r in enumerate(group):
            ax.plot([h["loss"] for h in r["history"]], color=color, alpha=0.7,
                    label=name if i == 0 else None)
    ax.set_yscale("log")
    ax.set_xlabel("epoch (full batch)")
    ax.set_ylabel("KL per position (train)")
    ax.axhline(1e-3, color="0.5", ls=":", label="Tabor's stopping criterion")
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------------------
# The experiment
# ---------------------------------------------------------------------------------------------


def _jobs(settings: dict) -> list[tuple]:
    jobs = [("backprop", name, seed) for name, spec in BACKPROP.items()
            for seed in settings[spec[3]]]
    return jobs + [("hill_climb", name, seed) for name in HILL_CLIMB
                   for seed in settings["hc_seeds"]]


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """Train the FLNNs of Table 4 and compare them with the paper.

    Args:
        scale: "quick" (chapter 5; "default" is accepted) or "paper" (15 networks per group,
            5000 epochs, the climber at radius 0.001); see :data:`SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by *every* group of runs;
            None: each group's count from the settings (quick: 3 backprop stream runs per
            grammar, 2 with ``</s>``, 2 hill-climbing runs per grammar).
        device: "cpu", "cuda", … (:func:`~course_rnn.utils.pick_device`). The FLNN has about
            30 weights, so it runs on a GPU but one CPU thread is faster; chapter 5 passes "cpu".
        progress: a bar over the runs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override ``SETTINGS[scale]`` (an unknown key is a ValueError).

    Returns a :class:`Replication` whose ``artefacts`` hold ``runs`` (backprop: group name ->
    list of ``{seed, model, history, train, test}``) and ``hill_climb`` (the same, plus
    ``before``, the KL per position at the start), and whose figure ``training_curves`` shows
    every backprop run's training KL.
    """
    scale = normalise_scale(scale)
    config = resolve_settings(scale, seeds, settings)
    device = pick_device(device)
    runs = {name: [] for name in BACKPROP}
    hc = {name: [] for name in HILL_CLIMB}
    with Timer() as timer:
        jobs = _jobs(config)
        for trainer, name, seed in steps(jobs, total=len(jobs), desc=NAME, progress=progress):
            if trainer == "backprop":
                number, stream, rbf_size, _ = BACKPROP[name]
                runs[name].append(backprop_run(number, stream, rbf_size, seed, config, device))
            else:
                hc[name].append(hill_climb_run(HILL_CLIMB[name], seed, config, device))
        numbers = numbers_of(runs, hc)
    return Replication(
        experiment=NAME, title=TITLE, scale=scale, seeds=config["seeds"], device=str(device),
        settings=config, numbers=numbers, rows=table_rows(numbers, config),
        figures={"training_curves": curves_figure(runs)},
        artefacts={"runs": runs, "hill_climb": hc}, seconds=timer.seconds)


EXPERIMENTS = (Experiment(name=NAME, title=TITLE, chapter="05_dynamical_automata", run=run),)
