"""Bengio et al. (2003), Table 1: neural n-gram MLPs against Kneser–Ney n-grams (chapter 1).

The paper compares, on the Brown corpus, count-based n-gram models with its neural n-gram model

    y = b + W x + U tanh(d + H x),   x = (C(w_{t-n+1}), …, C(w_{t-1})),   P(w_t | ·) = softmax(y)

(:class:`~course_rnn.models.bengio.BengioMLP`; ``W x`` are the optional *direct connections*).
:func:`run` does the same on the corpus that ships with the library, Jane Austen's six novels
(shuffled sentences, split 80/10/10 by seed 0, words seen fewer than ``min_count`` times in the
training text read as ``<unk>``):

* interpolated Kneser–Ney (:class:`~course_rnn.models.kneser_ney.KneserNeyLM`, one discount
  ``D``) of every order in ``kn_orders``, plus the unigram model (order 1) as a floor;
* the MLP without and with direct connections, ``n - 1 = context`` words of context, trained
  with Adam for a fixed number of ``steps`` of ``batch`` n-grams (not a time budget, so the
  numbers do not depend on the machine), from the seeds ``seeds_plain`` and ``seeds_direct``.

Every model is scored on the same test sentences (the first ``test_sentences`` of the shuffled
test part; None: all of them): perplexity ``exp(-mean log P)`` per predicted token, each word and
each ``</s>``. Perplexities over different corpora and vocabularies do not compare, so the table
also compares each model *relative to the best Kneser–Ney model of its own corpus*, and the
training budget and vocabulary that explain part of the gap (the paper's §4).

``run(scale="quick")`` is what chapter 1 shows (under a minute on one CPU thread). Kneser–Ney
counts in pure Python on the CPU; the MLPs train on ``device``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from ..corpus import build_vocab, load_corpus, map_unknown, split_corpus
from ..languages.vocab import Vocab
from ..models.bengio import BengioMLP, ngram_pairs, perplexity, train
from ..models.kneser_ney import KneserNeyLM
from ..utils import pick_device, seed_everything
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
#: ascent procedure was obtained after around 10 to 20 epochs"; words seen ≤ 3 times merged,
#: leaving a vocabulary of 16,383 symbols.
BROWN_TRAIN_WORDS = 800_000
BROWN_EPOCHS = (10, 20)
BROWN_VOCAB = 16_383

#: Per scale (chapter 1's "default" is "quick"). ``kn_orders``: Kneser–Ney orders fitted (the
#: unigram is always added); ``discount``: their D; ``test_sentences``: how many test sentences
#: are scored (None = all); ``steps`` of ``batch`` n-grams of Adam at ``lr``; ``hidden`` (h),
#: ``embedding_dim`` (m), ``context`` (n - 1) of the MLPs; ``seeds_plain`` / ``seeds_direct``:
#: the seeds of the MLPs without / with direct connections (a count N means 0 … N-1);
#: ``min_count``: rarer training words become ``<unk>``.
SETTINGS = {
    "quick": dict(kn_orders=[3, 4, 5], discount=0.75, test_sentences=800, steps=250, batch=256,
                  lr=3e-3, hidden=50, embedding_dim=60, context=4, seeds_plain=[0, 1],
                  seeds_direct=[0], min_count=3),
    "paper": dict(kn_orders=[3, 4, 5], discount=0.75, test_sentences=None, steps=15_000,
                  batch=256, lr=3e-3, hidden=100, embedding_dim=60, context=4,
                  seeds_plain=[0, 1, 2], seeds_direct=[0, 1, 2], min_count=3),
}
VARIANTS = {"no direct": False, "direct": True}  # MLP variant -> direct connections?
_SEED_KEYS = {"no direct": "seeds_plain", "direct": "seeds_direct"}
_POSITIVE = ("steps", "batch", "hidden", "embedding_dim", "context", "min_count")


def resolve_settings(scale: str = "quick", seeds: int | Iterable[int] | None = None,
                     settings: Mapping | None = None) -> dict:
    """``SETTINGS[scale]`` with ``settings`` merged in (unknown key or bad value: ValueError
    naming it) and both seed entries as lists. ``seeds`` (a count N or a list) replaces the seeds
    of *both* MLP variants: ``seeds=N`` trains N models of each."""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, NAME)
    for key in _SEED_KEYS.values():
        try:
            merged[key] = seed_list(merged[key] if seeds is None else seeds, default=1)
        except ValueError as err:
            raise ValueError(f"setting {key!r}: {err}" if seeds is None else str(err)) from None
    check_positive_ints(merged, _POSITIVE)
    orders = merged["kn_orders"]
    if (isinstance(orders, (str, bytes)) or not isinstance(orders, Sequence) or not orders
            or any(isinstance(k, bool) or not isinstance(k, int) or k < 2 for k in orders)
            or len(set(orders)) != len(orders)):
        raise ValueError(f"setting 'kn_orders' must be a list of distinct integers ≥ 2 (the "
                         f"unigram is always fitted), got {orders!r}")
    merged["kn_orders"] = list(orders)
    n = merged["test_sentences"]
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"setting 'test_sentences' must be None (all) or a positive integer, "
                         f"got {n!r}")
    if not merged["lr"] > 0 or not 0 < merged["discount"] <= 1:
        raise ValueError(f"settings 'lr' > 0 and 0 < 'discount' <= 1 needed, got "
                         f"{merged['lr']!r} and {merged['discount']!r}")
    return merged


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


def austen_data(min_count: int = 3, split_seed: int = 0) -> AustenData:
    """Austen's novels split 80/10/10 by ``split_seed``; words seen fewer than ``min_count`` times
    in the training part become ``<unk>`` (as the paper merged Brown's rare words)."""
    sentences = load_corpus("austen")
    train_s, valid_s, test_s = split_corpus(sentences, seed=split_seed)
    vocab = build_vocab(train_s, min_count=min_count)
    train_s, valid_s, test_s = (map_unknown(part, vocab) for part in (train_s, valid_s, test_s))
    return AustenData(sentences, train_s, valid_s, test_s, vocab, min_count)


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------


def kn_name(order: int) -> str:
    """The name of an n-gram model in ``numbers["perplexity"]``: "unigram", "KN 3-gram", …"""
    return "unigram" if order == 1 else f"KN {order}-gram"


def fit_kneser_ney(data: AustenData, order: int, discount: float,
                   scored: list[list[str]]) -> tuple[KneserNeyLM, float]:
    """Interpolated Kneser–Ney of ``order`` on the training text, over the MLP's vocabulary
    (so the two predict the same events); return it and its test perplexity."""
    lm = KneserNeyLM(order=order, discount=discount).fit(data.train, vocabulary=data.vocab.itos)
    return lm, lm.perplexity(scored)


def train_mlp(direct: bool, seed: int, train_pairs, test_pairs, vocab_size: int, config: dict,
              device) -> dict:
    """One MLP, ``y = b + W x + U tanh(d + H x)`` (``W`` only when ``direct``), trained for
    ``config["steps"]`` Adam steps: ``{model, initial (C before training), losses, ppl}``."""
    seed_everything(seed)  # fixes the initial weights; train(seed=...) fixes the batch order
    model = BengioMLP(vocab_size, context=config["context"], embedding_dim=config["embedding_dim"],
                      hidden=config["hidden"], direct=direct)
    initial = model.C.weight.detach().clone()
    epochs = config["steps"] * config["batch"] / len(train_pairs[1])
    losses = train(model, train_pairs, epochs=epochs, batch_size=config["batch"], lr=config["lr"],
                   seed=seed, device=device)
    return dict(model=model, initial=initial, losses=losses, ppl=perplexity(model, test_pairs))


# ---------------------------------------------------------------------------------------------
# Numbers, table, figures
# ---------------------------------------------------------------------------------------------


def mlp_name(variant: str) -> str:
    """"MLP, no direct" or "MLP, direct": the MLP rows of ``numbers["perplexity"]``."""
    return f"MLP, {variant}"


def numbers_of(kn: dict[int, float], runs: dict, data: AustenData, config: dict,
               n_train_pairs: int, n_test_pairs: int) -> dict:
    """Every measured number (JSON-able). ``perplexity``: per model (MLPs: mean over seeds),
    ``perplexity_se``; ``relative``: perplexity / best Kneser–Ney of the same corpus, ours and the
    paper's; ``mlp``: per run; ``budget``: what was trained on, against the paper's §4."""
    ppl = {kn_name(order): value for order, value in kn.items()}
    se, per_run = {}, {}
    for variant, direct in VARIANTS.items():
        group = [(seed, r) for (d, seed), r in runs.items() if d == direct]
        ppl[mlp_name(variant)], se[mlp_name(variant)] = mean_se([r["ppl"] for _, r in group])
        per_run[variant] = [dict(seed=seed, perplexity=r["ppl"], steps=len(r["losses"]),
                                 loss_first10=float(np.mean(r["losses"][:10])),
                                 loss_last50=float(np.mean(r["losses"][-50:])))
                            for seed, r in group]
    best_kn_model = min((kn_name(k) for k in config["kn_orders"]), key=ppl.get)
    best_kn = ppl[best_kn_model]
    best_mlp = min(ppl[mlp_name(v)] for v in VARIANTS)
    paper_best_kn = min(PAPER_KN.values())
    paper_relative = {**{kn_name(k): v / paper_best_kn for k, v in PAPER_KN.items()},
                      **{mlp_name(v): p / paper_best_kn for v, (_, p) in PAPER_MLP.items()}}
    predictions = config["steps"] * config["batch"]
    paper_predictions = [e * BROWN_TRAIN_WORDS for e in BROWN_EPOCHS]
    return {
        "perplexity": ppl,
        "perplexity_se": se,
        "best_kn_model": best_kn_model,
        "best_kn": best_kn,
        "best_mlp": best_mlp,
        "ratio": {"ours": best_mlp / best_kn, "paper": min(p for _, p in PAPER_MLP.values())
                  / paper_best_kn},
        "relative": {"ours": {name: value / best_kn for name, value in ppl.items()},
                     "paper": paper_relative},
        "mlp": per_run,
        "mlp_seeds": {variant: len(group) for variant, group in per_run.items()},
        "parameters": {variant: next(r["model"] for (d, _), r in runs.items()
                                     if d == direct).num_parameters()
                       for variant, direct in VARIANTS.items()},
        "corpus": {"sentences": len(data.sentences), "vocabulary": len(data.vocab),
                   "train_sentences": len(data.train),
                   "train_tokens": sum(len(s) for s in data.train),
                   "scored_sentences": len(data.scored(config["test_sentences"])),
                   "scored_predictions": n_test_pairs, "train_pairs": n_train_pairs},
        "budget": {"word_predictions": predictions, "epochs": predictions / n_train_pairs,
                   "paper_word_predictions": paper_predictions,
                   "fewer_than_paper": [p / predictions for p in paper_predictions]},
        "vocabulary_share_of_brown": len(data.vocab) / BROWN_VOCAB,
    }


def _relative_note(numbers: dict, name: str) -> str:
    """"0.95× our best Kneser–Ney, 0.83× in the paper" (the paper's part only where it has the
    model); for the MLPs also whether each beats Kneser–Ney."""
    ours = numbers["relative"]["ours"][name]
    paper = numbers["relative"]["paper"].get(name)
    note = f"{ours:.2f}× our best Kneser–Ney"
    if paper is None:
        return note
    note += f", {paper:.2f}× in the paper"
    if name.startswith("MLP"):
        note += ": " + {(True, True): "both beat Kneser–Ney",
                        (True, False): "the paper's beats Kneser–Ney, ours does not",
                        (False, True): "ours beats Kneser–Ney, the paper's does not",
                        (False, False): "neither beats Kneser–Ney"}[paper < 1, ours < 1]
    return note


def table_rows(numbers: dict, config: dict) -> list[Row]:
    """The paper-vs-ours table: every Table 1 model beside ours, the unigram floor, the ratio
    best MLP / best Kneser–Ney, the training budget and the vocabulary."""
    ppl, se = numbers["perplexity"], numbers["perplexity_se"]
    rows = []
    for order in config["kn_orders"]:
        name = kn_name(order)
        rows.append(Row(
            quantity=f"Kneser–Ney {order}-gram, test perplexity",
            paper=(f"{PAPER_KN[order]} (Table 1, back-off, Brown)" if order in PAPER_KN
                   else "—"),
            ours=f"{ppl[name]:.1f} (interpolated, Austen)",
            note=_relative_note(numbers, name)))
    rows.append(Row(
        quantity="class-based back-off 3-gram, 500 classes (the paper's best n-gram)",
        paper=f"{PAPER_CLASS_BASED} (Table 1)", ours="—", note="not fitted here"))
    budget = numbers["budget"]
    for variant in VARIANTS:
        label, paper = PAPER_MLP[variant]
        name = mlp_name(variant)
        k = numbers["mlp_seeds"][variant]
        rows.append(Row(
            quantity=(f"neural n-gram MLP, {variant} (ours: n={config['context'] + 1}, "
                      f"h={config['hidden']}, m={config['embedding_dim']}), test perplexity"),
            paper=f"{paper} (Table 1, {label})",
            ours=f"{pm(ppl[name], se[name], 1)} ({k} seed{'s' if k > 1 else ''})",
            note=(f"{_relative_note(numbers, name)}; ours: {config['steps']:,} Adam steps "
                  f"({budget['epochs']:.3f} epochs)")))
    rows.append(Row(
        quantity="MLP10: MLP9 mixed with an interpolated trigram (the paper's best)",
        paper=f"{PAPER_MIXTURE} (Table 1)", ours="—",
        note="not computed here (chapter 1, exercise 3)"))
    beaten = all(v < ppl["unigram"] for name, v in ppl.items() if name != "unigram")
    rows.append(Row(
        quantity="unigram (no context), test perplexity", paper="—",
        ours=f"{ppl['unigram']:.1f}",
        note="the floor: every model with context beats it" if beaten
        else "not every model with context beats it"))
    ratio = numbers["ratio"]
    agree = (ratio["ours"] < 1) == (ratio["paper"] < 1)
    rows.append(Row(
        quantity="best MLP alone / best Kneser–Ney, test perplexity",
        paper=(f"{ratio['paper']:.2f} (Table 1: {min(p for _, p in PAPER_MLP.values())} / "
               f"{min(PAPER_KN.values())})"),
        ours=f"{ratio['ours']:.2f}",
        note=("agrees: the MLP beats Kneser–Ney in both" if agree and ratio["ours"] < 1 else
              "agrees: Kneser–Ney beats the MLP in both" if agree else
              "disagrees: on Brown the MLP alone beats Kneser–Ney, here it does not"
              if ratio["paper"] < 1 else "disagrees")))
    low, high = budget["fewer_than_paper"]
    rows.append(Row(
        quantity="training: word predictions (epochs)",
        paper=(f"{budget['paper_word_predictions'][0]:,}–{budget['paper_word_predictions'][1]:,}"
               f" (§4: {BROWN_EPOCHS[0]}–{BROWN_EPOCHS[1]} epochs of {BROWN_TRAIN_WORDS:,} "
               "words, to convergence)"),
        ours=f"{budget['word_predictions']:,} ({budget['epochs']:.3f} epochs)",
        note=(f"{low:.0f}–{high:.0f}× fewer than the paper" if low > 1
              else f"{1 / high:.1f}–{1 / low:.1f}× the paper's")))
    share = numbers["vocabulary_share_of_brown"]
    rows.append(Row(
        quantity="vocabulary (words, `<unk>` and the markers)",
        paper=f"{BROWN_VOCAB:,} (§4, Brown)", ours=f"{numbers['corpus']['vocabulary']:,}",
        note=(f"{share:.0%} of Brown's: perplexities over different vocabularies do not "
              "compare, ratios within a corpus do")))
    return rows


def curves_figure(runs: dict, numbers: dict) -> Figure:
    """Training perplexity (exp of the batch loss, smoothed over 20 steps) of every MLP run,
    against the best Kneser–Ney and the unigram test perplexities."""
    fig = Figure(figsize=(6.5, 3), layout="tight")
    ax = fig.add_subplot()
    for (direct, seed), r in runs.items():
        window = min(20, len(r["losses"]))
        smooth = np.convolve(r["losses"], np.ones(window) / window, mode="valid")
        ax.plot(np.exp(smooth), label=f"{'direct' if direct else 'no direct'}, seed {seed}")
    ax.axhline(numbers["best_kn"], color="k", ls="--", lw=1, label="best Kneser–Ney (test)")
    ax.axhline(numbers["perplexity"]["unigram"], color="0.6", ls=":", lw=1,
               label="unigram (test)")
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("training perplexity\n(batch, smoothed)")
    ax.legend(fontsize=8)
    ax.set_title("The neural n-gram model in its first steps")
    return fig


def perplexity_figure(numbers: dict) -> Figure:
    """Each model's test perplexity divided by the best Kneser–Ney n-gram of its own corpus:
    the paper's (Brown) beside ours (Austen); below 1 beats Kneser–Ney. Bars are labelled with
    the perplexities themselves; our MLP bars carry ± 1 SE over seeds."""
    names = [name for name in numbers["relative"]["ours"] if name != "unigram"]
    paper = [numbers["relative"]["paper"].get(name, np.nan) for name in names]
    ours = [numbers["relative"]["ours"][name] for name in names]
    se = [numbers["perplexity_se"].get(name, np.nan) / numbers["best_kn"] for name in names]
    x = np.arange(len(names))
    fig = Figure(figsize=(7, 3.3), layout="tight")
    ax = fig.add_subplot()
    bars_paper = ax.bar(x - 0.2, paper, 0.4, color="0.7", label="paper (Brown)")
    bars_ours = ax.bar(x + 0.2, ours, 0.4, color="C0", label="ours (Austen)",
                       yerr=se, capsize=3)  # NaN (one seed): no bar
    values_paper = {**{kn_name(k): v for k, v in PAPER_KN.items()},
                    **{mlp_name(v): p for v, (_, p) in PAPER_MLP.items()}}
    ax.bar_label(bars_paper, [f"{values_paper[n]}" if n in values_paper else "" for n in names],
                 fontsize=7)
    ax.bar_label(bars_ours, [f"{numbers['perplexity'][n]:.0f}" for n in names], fontsize=7)
    ax.axhline(1, color="k", lw=1, ls="--")
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel("perplexity / best Kneser–Ney\nof the same corpus")
    ax.set_title("Relative to Kneser–Ney (bars labelled with the test perplexity)", fontsize=10)
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------------------
# The experiment
# ---------------------------------------------------------------------------------------------


def _jobs(config: dict) -> list[tuple]:
    jobs = [("kn", order, None) for order in [1, *config["kn_orders"]]]
    return jobs + [("mlp", direct, seed) for variant, direct in VARIANTS.items()
                   for seed in config[_SEED_KEYS[variant]]]


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None, *,
        data: AustenData | None = None) -> Replication:
    """Fit the Kneser–Ney models, train the MLPs, and compare both with Table 1.

    Args:
        scale: "quick" (chapter 1; "default" is accepted) or "paper" (15,000 steps, h = 100,
            three seeds per variant, the whole test set); see :data:`SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by *both* MLP variants;
            None: the settings' seeds (quick: 0, 1 without and 0 with direct connections).
        device: where the MLPs train ("cpu", "cuda", …; :func:`~course_rnn.utils.pick_device`).
            Kneser–Ney counts in Python on the CPU whatever the device.
        progress: a bar over the models (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override ``SETTINGS[scale]`` (an unknown key is a ValueError).
        data: the corpus from :func:`austen_data`, if the caller has it already (chapter 1
            does), so that it is not read twice; its ``min_count`` must match the settings.

    Returns a :class:`Replication` whose ``artefacts`` hold ``runs`` ((direct, seed) ->
    ``{model, initial, losses, ppl}``: the trained MLP, its embedding table before training, the
    loss of every step and its test perplexity), ``kneser_ney`` (order -> fitted model, only the
    first of ``kn_orders``: a 5-gram model's counts take hundreds of MB), ``data``, the
    ``train_pairs`` / ``test_pairs`` and ``seconds`` (wall time per model). Its figures:
    ``training_curves`` and ``perplexities`` (relative to the best Kneser–Ney, paper and ours).
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
    scored = data.scored(config["test_sentences"])
    kn, kn_models, runs, seconds = {}, {}, {}, {}
    with Timer() as timer:
        train_pairs = ngram_pairs(data.train, data.vocab, context=config["context"])
        test_pairs = ngram_pairs(scored, data.vocab, context=config["context"])
        jobs = _jobs(config)
        for kind, key, seed in steps(jobs, total=len(jobs), desc=NAME, progress=progress):
            with Timer() as one:
                if kind == "kn":
                    lm, kn[key] = fit_kneser_ney(data, key, config["discount"], scored)
                    if key == config["kn_orders"][0]:
                        kn_models[key] = lm
                    del lm  # the counts of the higher orders are large: keep one model only
                else:
                    runs[key, seed] = train_mlp(key, seed, train_pairs, test_pairs,
                                                len(data.vocab), config, device)
            seconds[kn_name(key) if kind == "kn" else (key, seed)] = one.seconds
        numbers = numbers_of(kn, runs, data, config, len(train_pairs[1]), len(test_pairs[1]))
    used = sorted(set(config["seeds_plain"]) | set(config["seeds_direct"]))
    return Replication(
        experiment=NAME, title=TITLE, scale=scale, seeds=used, device=str(device),
        settings=config, numbers=numbers, rows=table_rows(numbers, config),
        figures={"training_curves": curves_figure(runs, numbers),
                 "perplexities": perplexity_figure(numbers)},
        artefacts={"runs": runs, "kneser_ney": kn_models, "data": data, "train_pairs": train_pairs,
                   "test_pairs": test_pairs, "seconds": seconds},
        seconds=timer.seconds)


EXPERIMENTS = (Experiment(name=NAME, title=TITLE, chapter="01_embeddings", run=run),)
