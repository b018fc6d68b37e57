"""Bhatt et al. (2020): the Decay RNN and subject–verb agreement (chapter 4).

Bhatt, Bansal, Singh & Agarwal (2020) compare the SRN, GRU and LSTM with three **Decay RNNs** on
Linzen et al.'s (2016) agreement tasks. A Decay RNN keeps a share ``α`` of its old state (their
Eq. 1–3; :mod:`course_rnn.models.decay_rnn`)::

    c_t = W_rec h_{t-1} + U x_t + b
    h_t = ReLU(α h_{t-1} + (1 − α) c_t)          α = σ(a) learned, started at 0.8

    DRNN:    W_rec = ReLU(W) D,  D = diag(+1 … +1, −1 … −1)   (Dale: 80 % excitatory units)
    SDRNN:   W_rec = W                                        ("slacked": any signs)
    Ab-DRNN: no W_rec                                         ("ablated")

This module trains them on the synthetic agreement corpus of
:class:`~course_rnn.languages.Agreement` (Linzen's Wikipedia data are not available offline) and
compares with the paper:

* **Table 1, number prediction** – read the prefix up to the verb, say singular (0) or plural (1);
  every model × seed, tested on a *natural* set (distributed like training), a set *balanced* by
  attractors (0–3; Linzen's rule: intervening nouns of the other number) and a set with exactly
  one attractor and ``n`` = 0, 1, 2 non-attractor nouns (**Table 2**);
* **Table 1, grammaticality** – read the whole sentence with the right or the wrong verb, say
  whether it agrees (``gram_models``, the first ``gram_seeds`` seeds);
* **Fig. 5, the learned α** – DRNNs on number prediction from several starting values; the paper
  reports α → ≈ 0.8 from any start;
* **Table 4, Marvin & Linzen (2018) pairs** – an LSTM and a DRNN *language model* trained on the
  corpus; the share of minimal pairs where the agreeing form is more probable after the prefix
  (:func:`course_rnn.metrics.agreement_accuracy`).

``run(scale="quick")`` is what the chapter shows (about half a minute on one CPU thread);
``scale="paper"`` uses the paper's sizes (Appendix A.4: hidden = embedding = 50, Adam 1e-3,
3 runs, ~150K training sentences) and is meant for a GPU. Every model runs on ``device``.
"""

from __future__ import annotations

import math
import types
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from ..analysis.report import markdown_table
from ..languages import Agreement, Vocab
from ..languages.agreement import grammaticality, marvin_linzen_pairs, number_prediction
from ..metrics import agreement_accuracy
from ..models import build_model
from ..models.classifier import SequenceClassifier, classifier_accuracy, fit_classifier
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

NAME = "decay-rnn-agreement"

#: Display name → (registry kind, constructor options), in the order of the paper's Table 1.
MODELS: dict[str, tuple[str, dict]] = {
    "SRN": ("srn", {}),
    "GRU": ("gru", {}),
    "LSTM": ("lstm", {}),
    "DRNN": ("decay_rnn", {"variant": "drnn"}),
    "SDRNN": ("decay_rnn", {"variant": "sdrnn"}),
    "Ab-DRNN": ("decay_rnn", {"variant": "abdrnn"}),
}
#: The two language models of the Marvin & Linzen comparison (the paper's Table 4 columns).
LM_MODELS = ("LSTM", "DRNN")

#: Bhatt et al. 2020, Table 1: % accuracy (number prediction, grammaticality).
PAPER_TABLE1 = {
    "SRN": (97.70, 50.12), "GRU": (98.81, 94.26), "LSTM": (98.59, 95.81),
    "DRNN": (98.66, 95.48), "SDRNN": (98.65, 96.83), "Ab-DRNN": (97.37, 85.98),
}
#: Bhatt et al. 2020, Table 2: % accuracy with 1 attractor and n = 0, 1, 2 non-attractors
#: (subject–verb distance 7).
PAPER_TABLE2 = {"DRNN": (90.65, 95.56, 96.06), "LSTM": (90.4, 95.56, 95.63)}
#: Bhatt et al. 2020, Table 4 (Wikipedia LMs on Marvin & Linzen's templates): (LSTM, DRNN).
PAPER_TABLE4 = {
    "simple_agreement": (0.92, 0.95), "sentential_complement": (0.93, 0.89),
    "short_vp_coordination": (0.85, 0.73), "long_vp_coordination": (0.80, 0.55),
    "across_pp": (0.60, 0.56), "across_subject_rc": (0.67, 0.53),
    "across_object_rc": (0.55, 0.64), "across_object_rc_no_that": (0.51, 0.65),
    "in_object_rc": (0.87, 0.77), "in_object_rc_no_that": (0.75, 0.74),
    "simple_reflexive": (0.85, 0.75), "reflexive_sentential_complement": (0.83, 0.68),
    "reflexive_across_object_rc": (0.57, 0.62),
}
#: Bhatt et al. 2020, Fig. 5: α converges to about this value from any start.
PAPER_ALPHA = 0.8
#: The categories where the controlling noun is *not* the word before the verb.
DISTANT_CATEGORIES = tuple(c for c in PAPER_TABLE4 if not c.startswith("in_object_rc"))

#: Fixed seeds of the data (the runs' seeds vary the models only): training sentences, the
#: natural, balanced and one-attractor test sets, the LM corpus and the minimal pairs.
DATA_SEEDS = {"train": 1, "natural": 2, "balanced": 3, "one_attractor": 4, "lm": 5, "pairs": 6,
              "gram_test": 0}

SETTINGS = {
    "quick": dict(n_train=3000, hidden=24, embedding=16, epochs=6, batch_size=128, lr=1e-2,
                  n_test=600, alpha_inits=(0.2, 0.5, 0.95), alpha_every=5,
                  gram_models=("LSTM", "DRNN"), gram_seeds=1,
                  lm_sentences=3000, lm_hidden=32, lm_epochs=6, lm_batch_size=64, lm_lr=1e-2,
                  n_pairs=200),
    # Bhatt et al. (Appendix A.4): hidden = embedding = 50, Adam lr 1e-3, 3 runs, ~157K training
    # sentences (batch size 1 there; 32 here). LM: embedding 200, hidden 650.
    "paper": dict(n_train=150_000, hidden=50, embedding=50, epochs=10, batch_size=32, lr=1e-3,
                  n_test=3000, alpha_inits=(0.2, 0.5, 0.95), alpha_every=200,
                  gram_models=tuple(MODELS), gram_seeds=3,
                  lm_sentences=100_000, lm_hidden=650, lm_epochs=10, lm_batch_size=128,
                  lm_lr=1e-3, n_pairs=1000),
}
#: Seeds of the main (number-prediction) runs: the chapter's 2, the paper's 3.
DEFAULT_SEEDS = {"quick": 2, "paper": 3}

_POSITIVE_INTS = ("n_train", "hidden", "embedding", "epochs", "batch_size", "n_test",
                  "alpha_every", "gram_seeds", "lm_sentences", "lm_hidden", "lm_epochs",
                  "lm_batch_size", "n_pairs")


def resolve_settings(scale: str = "quick", settings: Mapping | None = None) -> dict:
    """``SETTINGS[scale]`` with ``settings`` merged in; a ValueError names an unknown key or a
    bad value (counts must be positive integers, ``n_test`` ≥ 4, rates positive, α starts in
    (0, 1), ``gram_models`` among :data:`MODELS`)."""
    hint = " (pass seeds= to run() for the seeds)" if "seeds" in (settings or {}) else ""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, NAME, hint)
    check_positive_ints(merged, _POSITIVE_INTS)
    if merged["n_test"] < 4:
        raise ValueError(f"setting 'n_test' must be at least 4 (the balanced set has n_test // 4 "
                         f"sentences per attractor count), got {merged['n_test']}")
    for key in ("lr", "lm_lr"):
        if isinstance(merged[key], bool) or not isinstance(merged[key], (int, float)) \
                or merged[key] <= 0:
            raise ValueError(f"setting {key!r} must be a positive number, got {merged[key]!r}")
    merged["alpha_inits"] = tuple(merged["alpha_inits"])
    for a0 in merged["alpha_inits"]:
        if isinstance(a0, bool) or not isinstance(a0, (int, float)) or not 0 < a0 < 1:
            raise ValueError(f"setting 'alpha_inits': every start must lie in (0, 1), got {a0!r}")
    merged["gram_models"] = tuple(merged["gram_models"])
    for name in merged["gram_models"]:
        if name not in MODELS:
            raise ValueError(f"setting 'gram_models': unknown model {name!r}: choose from "
                             f"{', '.join(MODELS)}")
    return merged


# -- data ---------------------------------------------------------------------------------------
def non_attractors(example) -> int:
    """Intervening nouns of the subject's number (Table 2's ``n``)."""
    return len(example.intervening) - example.attractors


def datasets(settings: Mapping) -> dict:
    """The language, its vocabulary and every data set, from :data:`DATA_SEEDS`.

    ``train`` (examples), ``natural``, ``balanced`` (``n_test // 4`` per attractor count 0–3),
    ``one_attractor`` (test examples), ``train_np`` / ``train_gram`` (labelled pairs; the
    grammaticality set holds both versions of every training sentence) and ``test_gram``
    (the balanced set, each sentence with the right or the wrong verb).
    """
    lang = Agreement()
    train = lang.sample_examples(settings["n_train"], seed=DATA_SEEDS["train"])
    balanced = lang.balanced_by_attractors(settings["n_test"] // 4, max_attractors=3,
                                           seed=DATA_SEEDS["balanced"])
    return {
        "language": lang, "vocab": Vocab.for_language(lang), "train": train,
        "natural": lang.sample_examples(settings["n_test"], seed=DATA_SEEDS["natural"]),
        "balanced": balanced,
        "one_attractor": lang.sample_examples(settings["n_test"], seed=DATA_SEEDS["one_attractor"],
                                              attractors=1),
        "train_np": number_prediction(train),
        "train_gram": grammaticality(train, both=True),
        "test_gram": grammaticality(balanced, seed=DATA_SEEDS["gram_test"]),
    }


# -- models -------------------------------------------------------------------------------------
def build(name: str, vocab: Vocab, settings: Mapping, seed: int, alpha_init: float = 0.8,
          hidden: int | None = None):
    """Model ``name`` of :data:`MODELS` (on the CPU) at the settings' sizes."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose from {', '.join(MODELS)}")
    kind, options = MODELS[name]
    if kind == "decay_rnn":
        options = {**options, "alpha_init": alpha_init}
    return build_model(kind, vocab_size=len(vocab), hidden_size=hidden or settings["hidden"],
                       embedding_dim=settings["embedding"], seed=seed, **options)


def train_classifier(name: str, data: Sequence, vocab: Vocab, settings: Mapping, seed: int,
                     device=None, alpha_init: float = 0.8):
    """``(classifier, history)``: model ``name`` under a linear head,
    ``p(y | w_1 … w_n) = softmax(V h_n + c)``, trained on ``(string, label)`` pairs; a Decay RNN
    records ``α`` every ``alpha_every`` optimizer steps (``history.step_values("alpha")``)."""
    model = build(name, vocab, settings, seed, alpha_init)
    clf = SequenceClassifier(model, n_classes=2, seed=seed)
    track = {"alpha": lambda c: c.model.alpha.item()} if MODELS[name][0] == "decay_rnn" else None
    history = fit_classifier(clf, vocab, data, epochs=settings["epochs"],
                             batch_size=settings["batch_size"], lr=settings["lr"], seed=seed,
                             device=device, step_metrics=track,
                             step_every=settings["alpha_every"], progress=False)
    return clf, history


def score_number_prediction(clf, vocab: Vocab, data: Mapping) -> dict:
    """Accuracy on the natural set, on the balanced set by attractors and on the one-attractor set
    by non-attractors (the :func:`classifier_accuracy` dicts)."""
    def score(examples, key):
        return classifier_accuracy(clf, vocab, number_prediction(examples),
                                   by=[key(e) for e in examples])

    return {"natural": score(data["natural"], lambda e: e.attractors),
            "balanced": score(data["balanced"], lambda e: e.attractors),
            "one_attractor": score(data["one_attractor"], non_attractors)}


def minimal_pair_items(category: str, n: int, seed: int = DATA_SEEDS["pairs"]) -> list:
    """Marvin & Linzen pairs of ``category`` as the inputs of ``agreement_accuracy``: the shared
    prefix, the grammatical word and the ungrammatical one at the first position they differ."""
    items = []
    for good, bad in marvin_linzen_pairs(category, n, seed=seed):
        i = next(k for k, (g, b) in enumerate(zip(good, bad)) if g != b)
        items.append(types.SimpleNamespace(prefix=good[:i], verb=good[i], wrong_verb=bad[i],
                                           attractors=0))  # attractors: not used here
    return items


def train_lm(name: str, sentences: Sequence, vocab: Vocab, settings: Mapping, seed: int,
             device=None):
    """``(model, history)``: model ``name`` trained as a language model (``lm_*`` settings)."""
    model = build(name, vocab, settings, seed, hidden=settings["lm_hidden"])
    history = fit(model, vocab, sentences, epochs=settings["lm_epochs"],
                  batch_size=settings["lm_batch_size"], lr=settings["lm_lr"], seed=seed,
                  device=device, progress=False)
    return model, history


# -- numbers ------------------------------------------------------------------------------------
def _summarise(values: Sequence[float]) -> dict:
    mean, se = mean_se(values)
    return {"values": [float(v) for v in values], "mean": mean, "se": se}


def np_numbers(scores: list[dict], histories: list) -> dict:
    """One model's number-prediction numbers over seeds (fractions): natural, balanced,
    balanced by attractors, one attractor by non-attractors, training accuracy per epoch."""
    out = {"natural": _summarise([s["natural"]["accuracy"] for s in scores]),
           "balanced": _summarise([s["balanced"]["accuracy"] for s in scores])}
    for test, name in (("balanced", "by_attractors"), ("one_attractor", "by_non_attractors")):
        keys = sorted({k for s in scores for k in s[test]["by"]})
        out[name] = {k: _summarise([s[test]["by"].get(k, float("nan")) for s in scores])
                     for k in keys}
    out["train_accuracy"] = [h["train_accuracy"] for h in histories]
    return out


def alpha_numbers(histories: Mapping[float, object], settings: Mapping) -> dict:
    """α over training per start (``steps``, ``values``), its final value, and the spread
    across starts at the start and at the end (Fig. 5's claim: the curves meet near 0.8)."""
    starts = sorted(histories)
    final = {a0: float(histories[a0].step_values("alpha")[-1]) for a0 in starts}
    return {
        "optimizer_steps": settings["epochs"] * math.ceil(settings["n_train"]
                                                          / settings["batch_size"]),
        "starts": starts, "final": [final[a0] for a0 in starts],
        "steps": [list(histories[a0].step_values("step")) for a0 in starts],
        "values": [[float(a) for a in histories[a0].step_values("alpha")] for a0 in starts],
        "spread_start": float(max(starts) - min(starts)),
        "spread_end": float(max(final.values()) - min(final.values())),
        "max_drift": float(max(abs(final[a0] - a0) for a0 in starts)),
        "max_distance_from_paper": float(max(abs(a - PAPER_ALPHA) for a in final.values())),
    }


# -- the paper-vs-ours table --------------------------------------------------------------------
def _points(ours: float, paper: float, why_higher: str = "") -> str:
    """"agrees" within one point, else by how many points ours is higher or lower."""
    d = round(ours - paper, 1)  # as printed
    if abs(d) <= 1:
        return "agrees (within 1 point)"
    return f"differs: ours {abs(d):.1f} points {'higher' if d > 0 else 'lower'}" + (
        why_higher if d > 0 else "")


def table1_rows(numbers: Mapping, settings: Mapping) -> list[Row]:
    """Table 1: number prediction (natural test) for every model, grammaticality for those run."""
    rows = []
    for name, (p_num, _) in PAPER_TABLE1.items():
        r = numbers["number_prediction"][name]
        ours = 100 * r["natural"]["mean"]
        rows.append(Row(
            f"{name}: number prediction, % (natural test)", f"{p_num:.2f} (Table 1)",
            pm(ours, 100 * r["natural"]["se"], 2),
            _points(ours, p_num, ": our small grammar is far more regular than Wikipedia")
            + f"; balanced by attractors {100 * r['balanced']['mean']:.2f}, "
              f"3 attractors {100 * r['by_attractors'][3]['mean']:.2f}"))
    for name in settings["gram_models"]:
        r = numbers["grammaticality"][name]
        ours = 100 * r["accuracy"]["mean"]
        rows.append(Row(
            f"{name}: grammaticality, % (balanced test)", f"{PAPER_TABLE1[name][1]:.2f} (Table 1)",
            pm(ours, 100 * r["accuracy"]["se"], 2),
            _points(ours, PAPER_TABLE1[name][1])
            + f"; {settings['n_train']} training sentences × 2 (paper ~150K), "
              f"seed(s) {', '.join(map(str, r['seeds']))}"))
    return rows


def table2_rows(numbers: Mapping) -> list[Row]:
    """Table 2: one attractor, n = 0, 1, 2 non-attractors; the paper's rise from n = 0 to 2."""
    rows = []
    for name, paper in PAPER_TABLE2.items():
        by = numbers["number_prediction"][name]["by_non_attractors"]
        missing = [n for n in range(3) if n not in by]
        if missing:  # only with a tiny test set
            rows.append(Row(f"{name}: 1 attractor, n = 0 / 1 / 2 non-attractors, %",
                            " / ".join(f"{v:.2f}" for v in paper) + " (Table 2)", "—",
                            f"not tested: no test sentence with n = {missing}"))
            continue
        ours = [100 * by[n]["mean"] for n in range(3)]
        rises = [100 * (b2 - b0) for b0, b2 in zip(by[0]["values"], by[2]["values"])]
        paper_rise = paper[2] - paper[0]
        per_seed = ", ".join(f"{r:+.1f}" for r in rises)
        if min(ours) >= 99:
            note = (f"differs: at ceiling for every n, so the paper's rise of {paper_rise:.1f} "
                    "points cannot show")
        elif all(r >= paper_rise / 2 for r in rises):
            note = f"agrees: rises n = 0 → 2 by {per_seed} points per seed (paper {paper_rise:.1f})"
        else:
            note = (f"differs: change n = 0 → 2 of {per_seed} points per seed, not the paper's "
                    f"steady rise of {paper_rise:.1f}")
        rows.append(Row(f"{name}: 1 attractor, n = 0 / 1 / 2 non-attractors, %",
                        " / ".join(f"{v:.2f}" for v in paper) + " (Table 2)",
                        " / ".join(f"{v:.2f}" for v in ours), note))
    return rows


def alpha_row(alpha: Mapping) -> Row:
    """Fig. 5: does α converge to about 0.8 from every start?"""
    starts = " / ".join(f"{a0:g}" for a0 in alpha["starts"])
    converged = alpha["spread_end"] < 0.1 and alpha["max_distance_from_paper"] < 0.1
    if len(alpha["starts"]) < 2:
        note = "not tested: one start only"
    elif converged:
        note = "agrees: the curves meet near 0.8"
    else:
        note = (f"differs: α ends within {alpha['max_drift']:.2f} of its start; spread across "
                f"starts {alpha['spread_start']:.2f} → {alpha['spread_end']:.2f}")
    return Row(f"DRNN: learned α after training, from {starts}",
               f"≈ {PAPER_ALPHA} from any start (Fig. 5)",
               " / ".join(f"{a:.3f}" for a in alpha["final"]),
               note + f" ({alpha['optimizer_steps']} optimizer steps on number prediction; the "
                      "paper's curves follow grammaticality training)")


def marvin_linzen_rows(ml: Mapping, settings: Mapping) -> list[Row]:
    """Table 4: share of pairs where the grammatical form is more probable, LSTM and DRNN LMs."""
    rows = []
    for cat, paper in PAPER_TABLE4.items():
        ours = [ml["accuracy"][cat][name] for name in LM_MODELS]
        diffs = [o - p for o, p in zip(ours, paper)]
        if all(abs(d) <= 0.05 for d in diffs):
            note = "agrees (within 0.05)"
        elif all(d > 0 for d in diffs):
            note = "differs: ours higher for both"
        elif all(d < 0 for d in diffs):
            note = "differs: ours lower for both"
        else:
            note = "differs: mixed"
        if cat.startswith("in_object_rc"):
            note += " (local: the controlling noun is the word before the verb)"
        if not rows:
            note += (f"; our LMs saw {settings['lm_sentences']} sentences of the grammar, the "
                     "paper's ~90M words of Wikipedia")
        rows.append(Row(f"Marvin & Linzen {cat}, LSTM / DRNN LM (share of pairs)",
                        " / ".join(f"{p:.2f}" for p in paper) + " (Table 4)",
                        " / ".join(f"{o:.2f}" for o in ours), note))
    return rows


def table_rows(numbers: Mapping, settings: Mapping) -> list[Row]:
    """The whole paper-vs-ours table: Table 1, Table 2, Fig. 5's α, Table 4."""
    return [*table1_rows(numbers, settings), *table2_rows(numbers),
            alpha_row(numbers["alpha"]),
            *marvin_linzen_rows(numbers["marvin_linzen"], settings)]


# -- the chapter's detailed tables (from numbers) ----------------------------------------------
def number_prediction_table(result: Replication) -> str:
    """Markdown: per model, natural and balanced accuracy, balanced by attractors, per seed."""
    rows = []
    for name, r in result.numbers["number_prediction"].items():
        row = {"model": name, "natural test": r["natural"]["mean"],
               "balanced": r["balanced"]["mean"]}
        row.update({f"{k} attr.": v["mean"] for k, v in r["by_attractors"].items()})
        row["per seed (balanced)"] = ", ".join(f"{v:.2f}" for v in r["balanced"]["values"])
        rows.append(row)
    return markdown_table(rows)


def one_attractor_table(result: Replication) -> str:
    """Markdown: per model, accuracy with one attractor and n non-attractors, paper's Table 2."""
    rows = []
    for name, r in result.numbers["number_prediction"].items():
        row = {"model": name, **{f"n = {n}": v["mean"]
                                 for n, v in r["by_non_attractors"].items()}}
        paper = PAPER_TABLE2.get(name)
        row["paper n = 0, 1, 2"] = ", ".join(f"{v / 100:.3f}" for v in paper) if paper else None
        rows.append(row)
    return markdown_table(rows)


def marvin_linzen_table(result: Replication) -> str:
    """Markdown: per category, our LMs' and the paper's share of pairs scored right."""
    acc = result.numbers["marvin_linzen"]["accuracy"]
    rows = [{"category": cat, **{f"{m} (ours)": acc[cat][m] for m in LM_MODELS},
             **{f"{m} (paper)": p for m, p in zip(LM_MODELS, paper)}}
            for cat, paper in PAPER_TABLE4.items()]
    return markdown_table(rows, digits=2)


# -- figures ------------------------------------------------------------------------------------
def attractor_figure(numbers: Mapping) -> Figure:
    """Number-prediction accuracy against the number of attractors (mean over seeds)."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for name, r in numbers["number_prediction"].items():
        keys = sorted(r["by_attractors"])
        ax.plot(keys, [r["by_attractors"][k]["mean"] for k in keys], marker="o", label=name)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(4))
    ax.set_xlabel("number of attractors")
    ax.set_ylabel("number-prediction accuracy")
    ax.set_title("Accuracy falls with attractors (mean over seeds)")
    ax.legend(fontsize=8, ncol=2)
    return fig


def alpha_figure(alpha: Mapping) -> Figure:
    """α of the DRNN over optimizer steps, one curve per start (the paper's Fig. 5)."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for a0, xs, ys in zip(alpha["starts"], alpha["steps"], alpha["values"]):
        ax.plot(xs, ys, label=f"start {a0:g}")
    ax.axhline(PAPER_ALPHA, color="grey", ls=":", lw=1)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel(r"$\alpha$")
    ax.set_ylim(0, 1)
    ax.set_title(r"Learned decay $\alpha$ of the DRNN during training")
    ax.legend(fontsize=8)
    return fig


# -- the experiment -----------------------------------------------------------------------------
def _jobs(seeds: list[int], settings: Mapping) -> list[tuple]:
    jobs = [("np", name, seed) for name in MODELS for seed in seeds]
    jobs += [("gram", name, seed) for name in settings["gram_models"]
             for seed in seeds[:settings["gram_seeds"]]]
    jobs += [("alpha", "DRNN", a0) for a0 in settings["alpha_inits"]]
    jobs += [("lm", name, seeds[0]) for name in LM_MODELS]
    return jobs


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """Train every model of :data:`MODELS` on number prediction (one run per seed), the
    ``gram_models`` on grammaticality (the first ``gram_seeds`` seeds), DRNNs from every α start
    (first seed; the 0.8 run is the main DRNN run) and the LSTM and DRNN language models (first
    seed); score them and compare with the paper's Tables 1, 2, 4 and Fig. 5.

    Args:
        scale: "quick" (the book's; "default" is accepted) or "paper".
        seeds: a count N (seeds 0 … N−1) or a list; default 2 ("quick") or 3 ("paper").
        device: "cpu", "cuda", … (default :func:`course_rnn.utils.pick_device`).
        progress: a bar over the training runs (default: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries overriding ``SETTINGS[scale]`` (an unknown key is a ValueError).

    ``numbers`` holds every score (fractions, per seed with mean and SE); ``artefacts`` the data
    (:func:`datasets`), the trained classifiers ``number_prediction[name, seed]`` and
    ``grammaticality[name, seed]`` as ``(classifier, history)``, the α histories ``alpha[start]``
    and the language models ``lms[name]`` as ``(model, history)``.
    """
    scale = normalise_scale(scale)
    settings = resolve_settings(scale, settings)
    seeds = seed_list(seeds, DEFAULT_SEEDS[scale])
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be different from each other, got {seeds}")
    device = pick_device(device)
    with Timer() as timer:
        data = datasets(settings)
        vocab = data["vocab"]
        lm_sentences = data["language"].sample(settings["lm_sentences"], seed=DATA_SEEDS["lm"])
        runs = {"np": {}, "gram": {}, "alpha": {}, "lm": {}}
        for task, name, key in steps(_jobs(seeds, settings), desc=NAME, progress=progress):
            if task == "np":
                runs["np"][name, key] = train_classifier(name, data["train_np"], vocab, settings,
                                                         key, device)
            elif task == "gram":
                runs["gram"][name, key] = train_classifier(name, data["train_gram"], vocab,
                                                           settings, key, device)
            elif task == "alpha":
                runs["alpha"][key] = train_classifier(name, data["train_np"], vocab, settings,
                                                      seeds[0], device, alpha_init=key)[1]
            else:
                runs["lm"][name] = train_lm(name, lm_sentences, vocab, settings, key, device)
        runs["alpha"][0.8] = runs["np"]["DRNN", seeds[0]][1]
        numbers = _numbers(runs, data, seeds, settings)
    return Replication(
        experiment=NAME, title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=settings, numbers=numbers,
        rows=table_rows(numbers, settings),
        figures={"attractors": attractor_figure(numbers), "alpha": alpha_figure(numbers["alpha"])},
        artefacts={"data": data, "number_prediction": runs["np"],
                   "grammaticality": runs["gram"], "alpha": runs["alpha"], "lms": runs["lm"]},
        seconds=timer.seconds)


def _numbers(runs: Mapping, data: Mapping, seeds: list[int], settings: Mapping) -> dict:
    """Every score of the runs (see :func:`run`) as plain numbers."""
    vocab = data["vocab"]
    scores = {key: score_number_prediction(clf, vocab, data)
              for key, (clf, _) in runs["np"].items()}
    numbers = {"corpus": {
        "train_by_attractors": dict(enumerate(np.bincount([e.attractors for e in data["train"]])
                                              .tolist())),
        "balanced_count": scores[next(iter(scores))]["balanced"]["count"],
        "one_attractor_count": scores[next(iter(scores))]["one_attractor"]["count"],
        "parameters": {name: build(name, vocab, settings, 0).num_parameters() for name in MODELS},
    }}
    numbers["number_prediction"] = {
        name: np_numbers([scores[name, s] for s in seeds], [runs["np"][name, s][1] for s in seeds])
        for name in MODELS}
    numbers["grammaticality"] = {}
    by = [e.attractors for e in data["balanced"]]
    for name in settings["gram_models"]:
        gram_seeds = [s for (n, s) in runs["gram"] if n == name]
        accs = [classifier_accuracy(runs["gram"][name, s][0], vocab, data["test_gram"], by=by)
                for s in gram_seeds]
        numbers["grammaticality"][name] = {
            "seeds": gram_seeds, "accuracy": _summarise([a["accuracy"] for a in accs]),
            "by_attractors": {k: _summarise([a["by"][k] for a in accs]) for k in accs[0]["by"]}}
    numbers["alpha"] = alpha_numbers(runs["alpha"], settings)
    ml = {cat: {name: agreement_accuracy(lm, vocab, minimal_pair_items(cat, settings["n_pairs"]))
                ["accuracy"] for name, (lm, _) in runs["lm"].items()} for cat in PAPER_TABLE4}
    numbers["marvin_linzen"] = {
        "accuracy": ml,
        "lm_train_loss": {name: [h["train_loss"][0], h.last["train_loss"]]
                          for name, (_, h) in runs["lm"].items()},
        "distant_mean": {name: float(np.mean([ml[c][name] for c in DISTANT_CATEGORIES]))
                         for name in LM_MODELS}}
    numbers["table1_gap"] = {  # paper minus ours, points (number prediction, natural test)
        name: PAPER_TABLE1[name][0] - 100 * numbers["number_prediction"][name]["natural"]["mean"]
        for name in MODELS}
    return numbers


EXPERIMENTS = (Experiment(
    name=NAME,
    title="Bhatt et al. (2020), Tables 1, 2 and 4, Fig. 5: number prediction and grammaticality "
          "with SRN/GRU/LSTM and Decay RNNs, the learned decay α, Marvin & Linzen pairs",
    chapter="04_agreement", run=run),)
