"""Bengio et al. (2003), Table 1: neural n-gram MLPs against Kneser–Ney n-grams (chapter 1).

The paper compares, on the Brown corpus, count-based n-gram models with its neural n-gram model

    y = b + W x + U tanh(d + H x),   x = (C(w_{t-n+1}), …, C(w_{t-1})),   P(w_t | ·) = softmax(y)

(:class:`~course_rnn.models.bengio.BengioMLP`; ``W x`` are the optional *direct connections*),
and the MLP mixed with a count model. :func:`run` does the same on the corpus that ships with the
library, Jane Austen's six novels (sentences shuffled and split 80/10/10 by seed 0; words seen
fewer than ``min_count`` = 4 times in the training text read as ``<unk>``, as the paper merged
Brown's words of frequency ≤ 3):

* the count models, fitted on the training text over the MLP's vocabulary: interpolated
  Kneser–Ney with one discount ``D`` (:class:`~course_rnn.models.kneser_ney.KneserNeyLM`) and
  modified Kneser–Ney with three estimated discounts per order
  (:class:`~course_rnn.models.kneser_ney.ModifiedKneserNeyLM`), of every order in
  ``kn_orders``, plus the unigram model as a floor. The **best count model** is the one with the
  lowest *validation* perplexity;
* the MLP variants of ``variants`` ("no direct", "direct"), ``context`` words of context, each
  from every seed of ``seeds``, trained by :func:`course_rnn.training.fit` (Adam, embeddings
  drawn from N(0, ``embedding_std``²), the learning rate halved when the validation loss stalls)
  **until the validation loss has plateaued**: evaluated every ``eval_every`` steps on the first
  ``valid_sentences`` validation sentences, stopped once ``patience`` evaluations improved it by
  less than ``min_delta`` (relative), the best weights restored; ``max_epochs`` is only a cap;
* the mixture ``P = λ P_MLP + (1 − λ) P_count`` of each MLP with the best count model, ``λ``
  tuned on the same validation sentences (the paper's MLP10 mixes its MLP9 with a trigram).

Every model is scored on the same test sentences (the first ``test_sentences`` of the shuffled
test part; None: all of them): perplexity ``exp(-mean log P)`` per predicted token, each word and
each ``</s>``. Perplexities over different corpora and vocabularies do not compare, so the
verdicts compare each model *relative to the best count model of its own corpus*. A verdict
waits for convergence (:func:`~course_rnn.experiments.replication.judge`): a disagreement is
re-checked with every MLP trained to twice the epochs it used.

``run(scale="quick")`` is what chapter 1 shows. The count models (pure Python) and the MLPs
train in parallel worker processes (:func:`~course_rnn.experiments.workers.parallel_map`).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from ..analysis.curves import learning_curves
from ..corpus import build_vocab, load_corpus, map_unknown, split_corpus
from ..languages.vocab import Vocab
from ..models.bengio import BengioMLP, ngram_pairs, target_log_probs
from ..models.kneser_ney import KneserNeyLM, ModifiedKneserNeyLM
from ..training import NextWord, Plateau, ReduceOnPlateau, fit, normal_embeddings
from ..utils import pick_device, seed_everything
from .replication import (
    Experiment,
    Measurement,
    Replication,
    Row,
    Timer,
    check_positive_ints,
    judge,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
)
from .workers import parallel_map

NAME = "bengio-kn"
TITLE = ("Bengio et al. (2003), Table 1: neural n-gram MLPs vs Kneser–Ney n-grams, "
         "test perplexity (Brown there, Austen here)")

#: Bengio et al. (2003), Table 1 ("Comparative results on the Brown corpus"), test perplexity,
#: the rows that chapter 1 discusses (as on Levy's 2023 slide). n = context + 1 words,
#: h hidden units, m embedding size:
#:
#: ==========================================================  =====
#: model                                                       test
#: ==========================================================  =====
#: Kneser–Ney back-off 3-gram                                    323
#: Kneser–Ney back-off 4-gram                                    321
#: Kneser–Ney back-off 5-gram                                    321
#: class-based back-off 3-gram, 500 classes (best n-gram)        312
#: MLP1: n=5, h=50, m=60, direct connections                     268
#: MLP9: n=5, h=100, m=30, no direct connections                 276
#: MLP10: MLP9 mixed (averaged) with an interpolated trigram     252
#: ==========================================================  =====
PAPER_KN = {3: 323, 4: 321, 5: 321}
PAPER_CLASS_BASED = 312
PAPER_MLP = {"direct": ("MLP1: n=5, h=50, m=60", 268), "no direct": ("MLP9: n=5, h=100, m=30", 276)}
PAPER_MIXTURE = 252
#: §4: the first 800,000 words of Brown trained on; "convergence of the stochastic gradient
#: ascent procedure was obtained after around 10 to 20 epochs"; words of frequency ≤ 3 merged,
#: leaving a vocabulary of 16,383 symbols.
BROWN_TRAIN_WORDS = 800_000
BROWN_EPOCHS = (10, 20)
BROWN_VOCAB = 16_383
BROWN_MIN_COUNT = 4  # "frequency ≤ 3" merged: a word is kept when seen at least 4 times

#: Per scale (chapter 1's "default" is "quick").
#:
#: * count models: ``kn_orders`` (the unigram is always added), ``discount`` (interpolated
#:   Kneser–Ney's one D; modified Kneser–Ney estimates its own three);
#: * data: ``min_count`` (rarer training words become ``<unk>``), ``test_sentences`` scored and
#:   ``valid_sentences`` watched (None = all of the part);
#: * the MLPs: ``variants`` trained, each from every seed of ``seeds`` (a count N means
#:   0 … N-1); ``hidden`` (h), ``embedding_dim`` (m), ``context`` (n - 1); ``embedding_std`` of
#:   their initial embeddings;
#: * training: Adam at ``lr`` on batches of ``batch`` n-grams with ``weight_decay``; the learning
#:   rate is multiplied by ``lr_factor`` when ``lr_patience`` evaluations in a row did not
#:   improve the validation loss (None: a constant rate); evaluated every ``eval_every`` steps;
#:   converged when ``patience`` evaluations improve the validation loss by less than
#:   ``min_delta`` (relative); at most ``max_epochs`` epochs (a cap, not a budget).
SETTINGS = {
    "quick": dict(kn_orders=[3, 4, 5], discount=0.75, min_count=BROWN_MIN_COUNT,
                  test_sentences=800, valid_sentences=1000, variants=["no direct"], seeds=[0],
                  hidden=50, embedding_dim=60, context=4, embedding_std=0.01, batch=256,
                  lr=6e-3, weight_decay=0.0, lr_factor=0.5, lr_patience=0, eval_every=500,
                  patience=2, min_delta=1e-3, max_epochs=10),
    "paper": dict(kn_orders=[3, 4, 5], discount=0.75, min_count=BROWN_MIN_COUNT,
                  test_sentences=None, valid_sentences=None, variants=["no direct", "direct"],
                  seeds=3, hidden=50, embedding_dim=60, context=4, embedding_std=0.01,
                  batch=256, lr=6e-3, weight_decay=0.0, lr_factor=0.5, lr_patience=0,
                  eval_every=1000, patience=4, min_delta=1e-3, max_epochs=40),
}
VARIANTS = {"no direct": False, "direct": True}  # MLP variant -> direct connections?
_POSITIVE = ("batch", "hidden", "embedding_dim", "context", "min_count", "eval_every",
             "patience", "max_epochs")


def resolve_settings(scale: str = "quick", seeds: int | Iterable[int] | None = None,
                     settings: Mapping | None = None) -> dict:
    """``SETTINGS[scale]`` with ``settings`` merged in (unknown key or bad value: ValueError
    naming it) and ``seeds`` as a list. ``seeds`` (a count N or a list) replaces the settings'
    seeds: every variant is trained from each of them."""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, NAME)
    try:
        merged["seeds"] = seed_list(merged["seeds"] if seeds is None else seeds, default=1)
    except ValueError as err:
        raise ValueError(f"setting 'seeds': {err}" if seeds is None else str(err)) from None
    check_positive_ints(merged, _POSITIVE)
    orders = merged["kn_orders"]
    if (isinstance(orders, (str, bytes)) or not isinstance(orders, Sequence) or not orders
            or any(isinstance(k, bool) or not isinstance(k, int) or k < 2 for k in orders)
            or len(set(orders)) != len(orders)):
        raise ValueError(f"setting 'kn_orders' must be a list of distinct integers ≥ 2 (the "
                         f"unigram is always fitted), got {orders!r}")
    merged["kn_orders"] = sorted(orders)
    variants = merged["variants"]
    if (isinstance(variants, str) or not isinstance(variants, Sequence) or not variants
            or any(v not in VARIANTS for v in variants) or len(set(variants)) != len(variants)):
        raise ValueError(f"setting 'variants' must be a non-empty list of distinct names from "
                         f"{list(VARIANTS)}, got {variants!r}")
    merged["variants"] = list(variants)
    for key in ("test_sentences", "valid_sentences"):
        n = merged[key]
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"setting {key!r} must be None (all) or a positive integer, "
                             f"got {n!r}")
    checks = {"lr": merged["lr"] > 0 if _number(merged["lr"]) else False,
              "discount": 0 < merged["discount"] <= 1 if _number(merged["discount"]) else False,
              "embedding_std": _number(merged["embedding_std"]) and merged["embedding_std"] > 0,
              "weight_decay": _number(merged["weight_decay"]) and merged["weight_decay"] >= 0,
              "lr_factor": _number(merged["lr_factor"]) and 0 < merged["lr_factor"] < 1,
              "min_delta": _number(merged["min_delta"]) and merged["min_delta"] >= 0}
    rules = {"lr": "> 0", "discount": "in (0, 1]", "embedding_std": "> 0",
             "weight_decay": "≥ 0", "lr_factor": "in (0, 1)", "min_delta": "≥ 0"}
    for key, ok in checks.items():
        if not ok:
            raise ValueError(f"setting {key!r} must be a number {rules[key]}, got "
                             f"{merged[key]!r}")
    lr_patience = merged["lr_patience"]
    if lr_patience is not None and (isinstance(lr_patience, bool)
                                    or not isinstance(lr_patience, int) or lr_patience < 0):
        raise ValueError(f"setting 'lr_patience' must be None (constant rate) or an integer "
                         f"≥ 0, got {lr_patience!r}")
    return merged


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        value)


# ---------------------------------------------------------------------------------------------
# The data: Austen, split and mapped to a closed vocabulary
# ---------------------------------------------------------------------------------------------


@dataclass
class AustenData:
    """The corpus as chapter 1 uses it: every ``sentences`` (raw), the ``train`` / ``valid`` /
    ``test`` parts with rare words read as ``<unk>``, and the ``vocab`` built on ``train``."""

    sentences: list[list[str]]
    train: list[list[str]]
    valid: list[list[str]]
    test: list[list[str]]
    vocab: Vocab
    min_count: int

    def scored(self, test_sentences: int | None) -> list[list[str]]:
        """The test sentences that are scored: the first ``test_sentences`` (None: all). The split
        is shuffled, so this is a random sample of the test part, the same for every model."""
        return self.test if test_sentences is None else self.test[:test_sentences]

    def watched(self, valid_sentences: int | None) -> list[list[str]]:
        """The validation sentences that early stopping, the choice of the best count model and
        the mixture weight look at: the first ``valid_sentences`` (None: all)."""
        return self.valid if valid_sentences is None else self.valid[:valid_sentences]


def austen_data(min_count: int = BROWN_MIN_COUNT, split_seed: int = 0) -> AustenData:
    """Austen's novels split 80/10/10 by ``split_seed``; words seen fewer than ``min_count`` times
    in the training part become ``<unk>`` (as the paper merged Brown's rare words)."""
    sentences = load_corpus("austen")
    train_s, valid_s, test_s = split_corpus(sentences, seed=split_seed)
    vocab = build_vocab(train_s, min_count=min_count)
    train_s, valid_s, test_s = (map_unknown(part, vocab) for part in (train_s, valid_s, test_s))
    return AustenData(sentences, train_s, valid_s, test_s, vocab, min_count)


# ---------------------------------------------------------------------------------------------
# The count models
# ---------------------------------------------------------------------------------------------


def kn_name(order: int, modified: bool = False) -> str:
    """The name of a count model in ``numbers["perplexity"]``: "unigram", "KN 3-gram",
    "modified KN 3-gram", …"""
    if order == 1:
        return "unigram"
    return f"{'modified ' if modified else ''}KN {order}-gram"


def count_models(train: list[list[str]], vocabulary: Sequence[str], valid: list[list[str]],
                 test: list[list[str]], orders: Sequence[int], discount: float) -> dict:
    """Fit the unigram and, for every order, interpolated (one ``discount``) and modified
    Kneser–Ney on ``train`` (one count per order, smoothed both ways); score them.

    Returns ``{"probs": {name: {"valid": array, "test": array}}`` (P of every predicted token, in
    reading order), ``"discounts": {name: {order: (D1, D2, D3+)}}`` (modified models),
    ``"seconds": {name: s}``, ``"model"``: the modified model of the lowest order (small enough
    to send back from a worker process)}.
    """
    probs, discounts, seconds, kept = {}, {}, {}, None
    for order in [1, *orders]:
        with Timer() as timer:
            if order == 1:  # the floor; its raw counts (every word seen ≥ min_count times)
                models = {kn_name(1): KneserNeyLM(1, discount).fit(train, vocabulary)}
            else:  # one count of the text, smoothed both ways
                modified = ModifiedKneserNeyLM(order).fit(train, vocabulary=vocabulary)
                models = {kn_name(order, modified=True): modified,
                          kn_name(order): KneserNeyLM(order, discount).fit_like(modified)}
                discounts[kn_name(order, modified=True)] = {
                    k: list(d) for k, d in modified.discounts.items()}
                kept = kept or modified
            for name, lm in models.items():
                probs[name] = {part: np.array(lm.token_probs(text))
                               for part, text in (("valid", valid), ("test", test))}
        seconds[kn_name(order)] = timer.seconds
    return {"probs": probs, "discounts": discounts, "seconds": seconds, "model": kept}


def perplexity_of(probs: np.ndarray) -> float:
    """exp(−mean log P) of the probabilities of every predicted token."""
    return float(np.exp(-np.mean(np.log(probs))))


# ---------------------------------------------------------------------------------------------
# The MLPs, and their mixture with a count model
# ---------------------------------------------------------------------------------------------


def mlp_name(variant: str) -> str:
    """"MLP, no direct" or "MLP, direct": the MLP rows of ``numbers["perplexity"]``."""
    return f"MLP, {variant}"


def run_name(variant: str, seed: int) -> str:
    """The name of one training run in ``Replication.runs``: "MLP, no direct, seed 0"."""
    return f"{mlp_name(variant)}, seed {seed}"


class NextWordInChunks(NextWord):
    """:class:`~course_rnn.training.NextWord` with the loss of
    :meth:`~course_rnn.models.bengio.BengioMLP.nll`: the same loss and gradients, formed in
    cache-sized chunks of the batch (about a seventh faster per step on a CPU)."""

    def loss(self, model, batch):
        contexts, targets = batch
        return model.nll(contexts, targets), targets.new_tensor(len(targets)), None


def train_mlp(variant: str, seed: int, train_pairs, valid_pairs, test_pairs, vocab_size: int,
              config: dict, device=None, min_epochs: float = 0, resume=None) -> dict:
    """One MLP, ``y = b + W x + U tanh(d + H x)`` (``W`` only for the "direct" variant), trained
    by :func:`~course_rnn.training.fit` until its validation loss plateaus (``min_epochs``: at
    least that long, and ``resume``: the History of the run to continue, for the doubled
    budget). Returns ``{model, history, valid (log P of every
    watched validation token), test (the same on the test tokens), perplexity (test)}``."""
    seed_everything(seed)  # the initial weights; fit(seed=...) fixes the init and batch order
    model = BengioMLP(vocab_size, context=config["context"], embedding_dim=config["embedding_dim"],
                      hidden=config["hidden"], direct=VARIANTS[variant])
    schedule = None if config["lr_patience"] is None else ReduceOnPlateau(
        factor=config["lr_factor"], patience=config["lr_patience"])
    history = fit(
        model, NextWordInChunks(), train_pairs, valid=valid_pairs,
        epochs=max(config["max_epochs"], math.ceil(min_epochs)), min_epochs=min_epochs,
        batch_size=config["batch"], optimizer="adam", lr=config["lr"],
        fused=True,  # the Adam update of 0.8 M weights was a fifth of a step; fused, a twentieth
        weight_decay=config["weight_decay"], schedule=schedule,
        init=normal_embeddings(config["embedding_std"]),
        until=Plateau(patience=config["patience"], min_delta=config["min_delta"]),
        eval_every=config["eval_every"], seed=seed, device=device, progress=False,
        resume=resume)
    model.cpu()
    valid, test = (target_log_probs(model, pairs).numpy() for pairs in (valid_pairs, test_pairs))
    return dict(model=model, history=history, valid=valid, test=test,
                perplexity=float(np.exp(-test.mean())))


def mixture_weight(mlp_valid: np.ndarray, count_valid: np.ndarray) -> float:
    """The λ in [0, 1] (to 0.001) that maximises the validation log-likelihood of
    ``λ P_MLP + (1 − λ) P_count``: a grid of 0.01, refined around its best point (the
    log-likelihood is concave in λ)."""
    p_mlp, p_count = np.exp(mlp_valid), count_valid

    def loglik(lam):
        return np.log(lam * p_mlp + (1 - lam) * p_count).mean()

    coarse = np.linspace(0, 1, 101)
    best = coarse[int(np.argmax([loglik(lam) for lam in coarse]))]
    fine = np.clip(np.linspace(best - 0.01, best + 0.01, 21), 0, 1)
    return float(fine[int(np.argmax([loglik(lam) for lam in fine]))])


def mixture_probs(lam: float, mlp_log_probs: np.ndarray, count_probs: np.ndarray) -> np.ndarray:
    """P = λ P_MLP + (1 − λ) P_count, token by token."""
    return lam * np.exp(mlp_log_probs) + (1 - lam) * count_probs


def _job(kind: str, *args) -> dict:
    """One unit of work for a worker process: the count models or one MLP; its result carries
    the CPU seconds of the process that did it (``cpu_seconds``)."""
    start = time.process_time()
    result = count_models(*args) if kind == "counts" else train_mlp(*args)
    result["cpu_seconds"] = time.process_time() - start
    return result


# ---------------------------------------------------------------------------------------------
# Numbers, table, figures
# ---------------------------------------------------------------------------------------------


def numbers_of(counts: dict, mlps: dict, config: dict, data: AustenData, sizes: dict) -> dict:
    """Every measured number (JSON-able). ``perplexity`` / ``valid_perplexity``: per model on
    the test / watched validation tokens (MLPs and mixtures: mean over seeds), ``perplexity_se``;
    ``best_count_model`` (lowest validation perplexity) and ``best_count``; ``relative``:
    perplexity / best count model, ours and the paper's; ``ratio``: best MLP alone and mixture
    against the best count model; ``mlp``: per run (convergence, perplexities, λ)."""
    test_ppl = {name: perplexity_of(p["test"]) for name, p in counts["probs"].items()}
    valid_ppl = {name: perplexity_of(p["valid"]) for name, p in counts["probs"].items()}
    candidates = [n for n in counts["probs"] if n != "unigram"]
    best_count_model = min(candidates, key=valid_ppl.get)
    best_count = test_ppl[best_count_model]
    best_probs = counts["probs"][best_count_model]
    per_run, ppl, se = {}, dict(test_ppl), {}
    for variant in config["variants"]:
        group = []
        for seed in config["seeds"]:
            r = mlps[variant, seed]
            lam = mixture_weight(r["valid"], best_probs["valid"])
            record = r["history"].convergence
            group.append(dict(
                seed=seed, perplexity=r["perplexity"],
                valid_perplexity=float(np.exp(-r["valid"].mean())),
                mixture_weight=lam,
                mixture=perplexity_of(mixture_probs(lam, r["test"], best_probs["test"])),
                mixture_valid=perplexity_of(mixture_probs(lam, r["valid"], best_probs["valid"])),
                converged=record.converged, stopped=record.stopped, epochs=record.epochs,
                steps=record.steps, best_epoch=record.best_epoch))
        per_run[variant] = group
        name = mlp_name(variant)
        ppl[name], se[name] = mean_se([g["perplexity"] for g in group])
        valid_ppl[name] = float(np.mean([g["valid_perplexity"] for g in group]))
        mix = f"{name} + {best_count_model}"
        ppl[mix], se[mix] = mean_se([g["mixture"] for g in group])
        valid_ppl[mix] = float(np.mean([g["mixture_valid"] for g in group]))
    best_variant = min(config["variants"], key=lambda v: ppl[mlp_name(v)])
    best_mlp = ppl[mlp_name(best_variant)]
    best_mixture_name = f"{mlp_name(best_variant)} + {best_count_model}"
    paper_best_kn = min(PAPER_KN.values())
    paper_relative = {**{kn_name(k): v / paper_best_kn for k, v in PAPER_KN.items()},
                      **{mlp_name(v): p / paper_best_kn for v, (_, p) in PAPER_MLP.items()},
                      "mixture": PAPER_MIXTURE / paper_best_kn}
    epochs_used = [g["epochs"] for group in per_run.values() for g in group]
    return {
        "perplexity": ppl,
        "perplexity_se": se,
        "valid_perplexity": valid_ppl,
        "best_count_model": best_count_model,
        "best_count": best_count,
        "best_count_order": int(best_count_model.split()[-1].split("-")[0]),
        "best_interpolated": min((kn_name(k) for k in config["kn_orders"]), key=valid_ppl.get),
        "best_modified": min((kn_name(k, True) for k in config["kn_orders"]),
                             key=valid_ppl.get),
        "best_variant": best_variant,
        "best_mlp": best_mlp,
        "best_mixture_model": best_mixture_name,
        "best_mixture": ppl[best_mixture_name],
        "ratio": {"ours": best_mlp / best_count,
                  "paper": min(p for _, p in PAPER_MLP.values()) / paper_best_kn,
                  "mixture_ours": ppl[best_mixture_name] / best_count,
                  "mixture_paper": PAPER_MIXTURE / paper_best_kn,
                  "mixture_vs_mlp_ours": ppl[best_mixture_name] / best_mlp,
                  "mixture_vs_mlp_paper": PAPER_MIXTURE / PAPER_MLP["no direct"][1]},
        "relative": {"ours": {name: value / best_count for name, value in ppl.items()},
                     "paper": paper_relative},
        "discounts": counts["discounts"],
        "mlp": per_run,
        "mlp_seeds": {variant: len(group) for variant, group in per_run.items()},
        "mixture_weight": {v: float(np.mean([g["mixture_weight"] for g in group]))
                           for v, group in per_run.items()},
        "parameters": {v: mlps[v, config["seeds"][0]]["model"].num_parameters()
                       for v in config["variants"]},
        "corpus": {"sentences": len(data.sentences), "vocabulary": len(data.vocab),
                   "train_sentences": len(data.train),
                   "train_tokens": sum(len(s) for s in data.train),
                   "scored_sentences": len(data.scored(config["test_sentences"])),
                   "watched_valid_sentences": len(data.watched(config["valid_sentences"])),
                   **sizes},
        "budget": {"epochs": epochs_used, "epochs_max": max(epochs_used),
                   "epochs_min": min(epochs_used), "cap": config["max_epochs"],
                   "converged": sum(g["converged"] for group in per_run.values()
                                    for g in group),
                   "runs": len(epochs_used), "paper_epochs": list(BROWN_EPOCHS)},
        "vocabulary_share_of_brown": len(data.vocab) / BROWN_VOCAB,
    }


def _relative_note(numbers: dict, name: str, paper_key: str | None = None) -> str:
    """"ours 0.95× our best count model; the paper's 0.83× its best Kneser–Ney" (the paper's
    part only where it has the model)."""
    ours = numbers["relative"]["ours"][name]
    paper = numbers["relative"]["paper"].get(paper_key or name)
    note = f"ours {ours:.2f}× our best count model"
    return note if paper is None else note + f"; the paper's {paper:.2f}× its best Kneser–Ney"


def _span(values: Sequence[float]) -> str:
    """"2.31" for one value (or equal ones), "2.31–3.50" for a range."""
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"


def mlp_measurement(numbers: dict, runs: Sequence) -> Measurement:
    """The paper's claim "the MLP alone beats the best n-gram model", on our numbers."""
    ratio = numbers["ratio"]["ours"]
    return Measurement(value=ratio, agrees=ratio < 1, gap=max(0.0, ratio - 1), runs=runs)


def mixture_measurement(numbers: dict, runs: Sequence) -> Measurement:
    """The paper's claim "the mixture beats both the best n-gram model and the MLP alone"."""
    worst = max(numbers["ratio"]["mixture_ours"], numbers["ratio"]["mixture_vs_mlp_ours"])
    return Measurement(value=numbers["ratio"]["mixture_ours"], agrees=worst < 1,
                       gap=max(0.0, worst - 1), runs=runs)


def table_rows(numbers: dict, config: dict, runs: Sequence = (), doubled=None) -> list[Row]:
    """The paper-vs-ours table. ``runs``: the MLPs' training histories; ``doubled()``: the
    ``(numbers, runs)`` with every MLP trained to twice its epochs (called at most once, and
    only when a verdict needs it)."""
    ppl, se = numbers["perplexity"], numbers["perplexity_se"]
    rows = []
    for order in config["kn_orders"]:
        name, modified = kn_name(order), kn_name(order, modified=True)
        d = ", ".join(f"{x:.2f}" for x in numbers["discounts"][modified][order])
        rows.append(Row(
            quantity=f"Kneser–Ney {order}-gram, test perplexity",
            paper=(f"{PAPER_KN[order]} (Table 1, back-off, Brown)" if order in PAPER_KN
                   else "—"),
            ours=f"{ppl[name]:.1f} (one discount); {ppl[modified]:.1f} (modified)",
            note=(f"interpolated, Austen: one D = {config['discount']}, or modified with "
                  f"D1, D2, D3+ = {d} at this order; ours "
                  f"{numbers['relative']['ours'][name]:.2f}× and "
                  f"{numbers['relative']['ours'][modified]:.2f}× our best count model"
                  + (f"; the paper's {numbers['relative']['paper'][name]:.2f}× its best"
                     if name in numbers["relative"]["paper"] else "")),
            verdict="not comparable"))
    best = numbers["best_count_model"]
    rows.append(Row(
        quantity="best count model (lowest validation perplexity), test perplexity",
        paper=f"{PAPER_CLASS_BASED} (Table 1: class-based back-off 3-gram, 500 classes)",
        ours=f"{numbers['best_count']:.1f} ({best})",
        note="the yardstick of the ratios below; Table 1's best Kneser–Ney is "
             f"{min(PAPER_KN.values())}", verdict="not comparable"))
    for variant in config["variants"]:
        label, paper = PAPER_MLP[variant]
        name = mlp_name(variant)
        k = numbers["mlp_seeds"][variant]
        epochs = [g["epochs"] for g in numbers["mlp"][variant]]
        rows.append(Row(
            quantity=(f"neural n-gram MLP, {variant} (ours: n={config['context'] + 1}, "
                      f"h={config['hidden']}, m={config['embedding_dim']}), test perplexity"),
            paper=f"{paper} (Table 1, {label})",
            ours=f"{pm(ppl[name], se[name], 1)} ({k} seed{'s' if k > 1 else ''})",
            note=(f"{_relative_note(numbers, name)}; trained {_span(epochs)} epochs, to a "
                  "validation plateau"),
            verdict="not comparable"))
    mixture = numbers["best_mixture_model"]
    rows.append(Row(
        quantity="MLP mixed with a count model, test perplexity",
        paper=f"{PAPER_MIXTURE} (Table 1, MLP10: MLP9 + interpolated trigram)",
        ours=f"{pm(ppl[mixture], se[mixture], 1)} ({mixture})",
        note=(f"λ = {numbers['mixture_weight'][numbers['best_variant']]:.2f} on the MLP, tuned "
              f"on validation; {_relative_note(numbers, mixture, 'mixture')}"),
        verdict="not comparable"))
    runs = list(runs)
    twice = functools.cache(doubled) if doubled is not None else None

    def again(measure):
        return None if twice is None else lambda: measure(*twice())

    ratio = numbers["ratio"]
    rows.append(Row(
        quantity="best MLP alone / best count model, test perplexity",
        paper=(f"{ratio['paper']:.2f} (Table 1: {min(p for _, p in PAPER_MLP.values())} / "
               f"{min(PAPER_KN.values())})"),
        ours=f"{ratio['ours']:.2f}",
        note="below 1: the MLP alone beats counting",
        verdict=judge(mlp_measurement(numbers, runs), again(mlp_measurement))))
    rows.append(Row(
        quantity="MLP + count mixture / best count model, test perplexity",
        paper=f"{ratio['mixture_paper']:.2f} (Table 1: {PAPER_MIXTURE} / "
              f"{min(PAPER_KN.values())})",
        ours=f"{ratio['mixture_ours']:.2f}",
        note=(f"the mixture is also {ratio['mixture_vs_mlp_ours']:.2f}× the MLP alone "
              f"({ratio['mixture_vs_mlp_paper']:.2f}× in the paper: {PAPER_MIXTURE} / "
              f"{PAPER_MLP['no direct'][1]}); agrees when it beats both"),
        verdict=judge(mixture_measurement(numbers, runs), again(mixture_measurement))))
    beaten = all(v < ppl["unigram"] for name, v in ppl.items() if name != "unigram")
    rows.append(Row(
        quantity="unigram (no context), test perplexity", paper="—",
        ours=f"{ppl['unigram']:.1f}",
        note="the floor: every model with context beats it" if beaten
        else "not every model with context beats it"))
    budget = numbers["budget"]
    rows.append(Row(
        quantity="training of the MLPs (epochs)",
        paper=f"{BROWN_EPOCHS[0]}–{BROWN_EPOCHS[1]} (§4: until convergence, {BROWN_TRAIN_WORDS:,}"
              " words)",
        ours=(f"{_span(budget['epochs'])} ({budget['converged']} of {budget['runs']} runs "
              "converged)"),
        note=(f"to a validation plateau, best weights kept; cap {config['max_epochs']} epochs "
              f"of {numbers['corpus']['train_pairs']:,} n-grams")))
    share = numbers["vocabulary_share_of_brown"]
    rows.append(Row(
        quantity="vocabulary (words seen ≥ 4 times, `<unk>` and the markers)",
        paper=f"{BROWN_VOCAB:,} (§4, Brown)", ours=f"{numbers['corpus']['vocabulary']:,}",
        note=(f"{share:.0%} of Brown's, same rule (words of frequency ≤ 3 merged) when "
              f"min_count = 4 (ours: {config['min_count']}); Brown was split contiguously, "
              "Austen by shuffled sentences"),
        verdict="not comparable"))
    return rows


def curves_figure(mlps: dict, numbers: dict) -> Figure:
    """Validation perplexity of every MLP run while it trains, against the count models'
    validation perplexities on the same sentences, and each run's mixture (a dot at its best
    checkpoint, the weights it keeps)."""
    fig = Figure(figsize=(6.8, 3.4), layout="constrained")
    ax = fig.add_subplot()
    valid = numbers["valid_perplexity"]
    for i, ((variant, seed), r) in enumerate(mlps.items()):
        epochs = r["history"]["epoch"]
        line, = ax.plot(epochs, np.exp(r["history"]["valid_loss"]), lw=1.3,
                        label=f"{run_name(variant, seed)}"
                              + ("" if r["history"].converged else " (not converged)"),
                        ls="-" if r["history"].converged else "--")
        best = r["history"].convergence.best_epoch
        ax.plot([best], [np.exp(-r["valid"].mean())], "o", ms=4, color=line.get_color())
        run = next(g for g in numbers["mlp"][variant] if g["seed"] == seed)
        ax.plot([best], [run["mixture_valid"]], "*", ms=9, color=line.get_color(),
                label=f"mixed with {numbers['best_count_model']}" if i == 0 else None)
    for name, style in ((numbers["best_interpolated"], ":"), (numbers["best_modified"], "--")):
        ax.axhline(valid[name], color="k", ls=style, lw=1, label=f"{name} (validation)")
    top = 1.6 * max(valid[numbers["best_interpolated"]], valid[numbers["best_modified"]])
    lows = [valid[name] for name in valid if name != "unigram"]
    ax.set_ylim(0.92 * min(lows), top)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation perplexity")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Validation perplexity while the MLPs train, against the count models",
                 fontsize=10)
    return fig


def perplexity_figure(numbers: dict, config: dict) -> Figure:
    """Each model's test perplexity divided by the best count model of its own corpus: the
    paper's (Brown, best Kneser–Ney) beside ours (Austen); below 1 beats counting. Bars are
    labelled with the perplexities themselves; our MLP bars carry ± 1 SE over seeds."""
    names = ([kn_name(k) for k in config["kn_orders"]]
             + [kn_name(k, True) for k in config["kn_orders"]]
             + [mlp_name(v) for v in config["variants"]] + [numbers["best_mixture_model"]])
    paper_values = {**{kn_name(k): v for k, v in PAPER_KN.items()},
                    **{mlp_name(v): p for v, (_, p) in PAPER_MLP.items()},
                    numbers["best_mixture_model"]: PAPER_MIXTURE}
    paper_best = min(PAPER_KN.values())
    paper = [paper_values[n] / paper_best if n in paper_values else np.nan for n in names]
    ours = [numbers["relative"]["ours"][n] for n in names]
    se = [numbers["perplexity_se"].get(n, np.nan) / numbers["best_count"] for n in names]
    x = np.arange(len(names))
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.add_subplot()
    bars_paper = ax.bar(x - 0.2, paper, 0.4, color="0.7", label="paper (Brown)")
    bars_ours = ax.bar(x + 0.2, ours, 0.4, color="C0", label="ours (Austen)", yerr=se,
                       capsize=3)  # NaN (one seed): no bar
    ax.bar_label(bars_paper, [f"{paper_values[n]}" if n in paper_values else "" for n in names],
                 fontsize=7)
    ax.bar_label(bars_ours, [f"{numbers['perplexity'][n]:.0f}" for n in names], fontsize=7)
    ax.axhline(1, color="k", lw=1, ls="--")
    labels = [n.replace(" + ", "\n+ ").replace("modified KN", "modified\nKN") for n in names]
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("perplexity / best count\nmodel of the same corpus")
    ax.set_ylim(0.6, None)
    ax.set_title("Relative to the best count model (bars labelled with the test perplexity)",
                 fontsize=10)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------------------
# The experiment
# ---------------------------------------------------------------------------------------------


def _train_all(keys, pairs, vocab_size: int, config: dict, device, min_epochs=None,
               count_job: tuple | None = None, workers=None, progress=None,
               resume=None) -> tuple:
    """Train the MLPs ``keys`` ((variant, seed) pairs) and, if given, the count models, in
    parallel processes; return ``(mlps, counts)``. ``min_epochs`` and ``resume`` map a key to
    its least epochs and the History it continues."""
    min_epochs, resume = min_epochs or {}, resume or {}
    jobs = [("mlp", variant, seed, *pairs, vocab_size, config, device,
             min_epochs.get((variant, seed), 0), resume.get((variant, seed)))
            for variant, seed in keys]
    jobs.sort(key=lambda job: job[1] != "direct")  # the slowest first
    if count_job is not None:
        jobs.append(("counts", *count_job))
    results = parallel_map(_job, jobs, workers=workers, device=device, desc=NAME,
                           progress=progress)
    mlps = {(job[1], job[2]): r for job, r in zip(jobs, results) if job[0] == "mlp"}
    counts = results[-1] if count_job is not None else None
    return {key: mlps[key] for key in keys}, counts


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None, *,
        data: AustenData | None = None, workers: int | None = None) -> Replication:
    """Fit the count models, train the MLPs to convergence, mix them, compare with Table 1.

    Args:
        scale: "quick" (chapter 1; "default" is accepted) or "paper" (both variants, three seeds,
            the whole validation and test parts); see :data:`SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by every MLP variant;
            None: the settings' seeds.
        device: where the MLPs train ("cpu", "cuda", …; :func:`~course_rnn.utils.pick_device`).
            The count models are counted in Python on the CPU whatever the device.
        progress: a bar over the jobs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override ``SETTINGS[scale]`` (an unknown key is a ValueError).
        data: the corpus from :func:`austen_data`, if the caller has it already (chapter 1
            does), so that it is not read twice; its ``min_count`` must match the settings.
        workers: processes for :func:`~course_rnn.experiments.workers.parallel_map` (None: one
            per CPU core, or ``$COURSE_RNN_WORKERS``).

    Returns a :class:`Replication` whose ``runs`` are the MLPs' training histories and whose
    ``artefacts`` hold ``mlps`` ((variant, seed) -> ``{model, history, valid, test,
    perplexity}``: the trained MLP with its best weights, its history, the log-probability of
    every watched validation and scored test token, its test perplexity), ``count_probs`` (model
    name -> ``{"valid", "test"}`` token probabilities), ``count_model`` (the modified Kneser–Ney
    model of the lowest order), ``data``, the ``train_pairs`` / ``valid_pairs`` /
    ``test_pairs``, ``seconds`` (wall time of each MLP's training and of each order's count
    models), ``cpu_seconds`` (CPU time of each job, in its own process) and ``doubled`` (the
    runs at twice the epochs, when a verdict needed them). Figures: ``curves`` (training and
    validation loss of every run), ``valid_perplexity`` (the runs' validation perplexity against
    the count models) and ``perplexities`` (relative to the best count model, paper and ours).
    """
    scale = normalise_scale(scale)
    config = resolve_settings(scale, seeds, settings)
    device = pick_device(device)
    if data is None:
        data = austen_data(min_count=config["min_count"])
    elif not isinstance(data, AustenData) or data.min_count != config["min_count"]:
        raise ValueError(f"data must come from austen_data(min_count={config['min_count']}), "
                         f"got {type(data).__name__} with min_count "
                         f"{getattr(data, 'min_count', None)!r}")
    scored, watched = data.scored(config["test_sentences"]), data.watched(config["valid_sentences"])
    keys = [(variant, seed) for variant in config["variants"] for seed in config["seeds"]]
    with Timer() as timer:
        pairs = tuple(ngram_pairs(part, data.vocab, context=config["context"])
                      for part in (data.train, watched, scored))
        count_job = (data.train, data.vocab.itos, watched, scored, config["kn_orders"],
                     config["discount"])
        mlps, counts = _train_all(keys, pairs, len(data.vocab), config, device,
                                  count_job=count_job, workers=workers, progress=progress)
        sizes = {"train_pairs": len(pairs[0][1]), "watched_valid_predictions": len(pairs[1][1]),
                 "scored_predictions": len(pairs[2][1])}
        numbers = numbers_of(counts, mlps, config, data, sizes)
        doubled_runs = {}

        def doubled():
            twice = {key: 2 * mlps[key]["history"].convergence.epochs
                     for key in keys}
            again, _ = _train_all(keys, pairs, len(data.vocab), config, device, twice,
                                  workers=workers, progress=progress,
                                  resume={key: mlps[key]["history"] for key in keys})
            doubled_runs.update(again)
            return (numbers_of(counts, again, config, data, sizes),
                    [r["history"] for r in again.values()])

        rows = table_rows(numbers, config, [r["history"] for r in mlps.values()], doubled)
    runs = {run_name(*key): mlps[key]["history"] for key in keys}
    runs.update({f"{run_name(*key)}, twice the epochs": r["history"]
                 for key, r in doubled_runs.items()})
    seconds = {run_name(*key): r["history"].seconds for key, r in mlps.items()}
    seconds.update(counts["seconds"])
    cpu_seconds = {run_name(*key): r["cpu_seconds"] for key, r in mlps.items()}
    cpu_seconds["count models"] = counts["cpu_seconds"]
    figures = {"curves": learning_curves({run_name(*k): mlps[k]["history"] for k in keys},
                                         title="The MLPs' learning curves (Adam, "
                                               "until validation plateaus)"),
               "valid_perplexity": curves_figure(mlps, numbers),
               "perplexities": perplexity_figure(numbers, config)}
    return Replication(
        experiment=NAME, title=TITLE, scale=scale, seeds=config["seeds"], device=str(device),
        settings=config, numbers=numbers, rows=rows, figures=figures,
        artefacts={"mlps": mlps, "count_probs": counts["probs"], "count_model": counts["model"],
                   "data": data, "train_pairs": pairs[0], "valid_pairs": pairs[1],
                   "test_pairs": pairs[2], "seconds": seconds, "cpu_seconds": cpu_seconds,
                   "doubled": doubled_runs},
        seconds=timer.seconds, runs=runs)


EXPERIMENTS = (Experiment(name=NAME, title=TITLE, chapter="01_embeddings", run=run),)
