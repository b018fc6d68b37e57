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
  less than ``min_delta`` (relative), the best weights restored; ``epochs`` is only a cap;
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

The module reads top to bottom: Table 1's figures, the data, the count models, the MLP and its
training, the mixture, the measure of one run (:class:`Run`), the claims and the rows; then the
bookkeeping (the numbers, :class:`BengioNumbers`, the figures, the worker jobs and :func:`run`).
The settings are in :mod:`.settings` (read by the command line without torch).
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...corpus import build_vocab, load_corpus, map_unknown, split_corpus
from ...languages.vocab import Vocab
from ...models.bengio import BengioMLP, ngram_pairs, target_log_probs
from ...models.kneser_ney import KneserNeyLM, ModifiedKneserNeyLM
from ...training import History, NextWord, Plateau, ReduceOnPlateau, fit, normal_embeddings
from ...utils import seed_everything
from ..records import Record, mean_se, to_json, unsaved
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import BROWN_MIN_COUNT, SETTINGS, VARIANTS, BengioSettings

NAME = "bengio-kn"

# -- Table 1's figures -----------------------------------------------------------------------------

#: The rows of Bengio et al.'s Table 1 (Brown corpus, test perplexity) that chapter 1 discusses
#: (as on Levy's 2023 slide), typed from the paper. n = context + 1 words, h hidden units, m
#: embedding size:
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
#: ascent procedure was obtained after around 10 to 20 epochs"; words of frequency ≤ 3 merged
#: (``BROWN_MIN_COUNT``, in :mod:`.settings`), leaving a vocabulary of 16,383 symbols.
BROWN_TRAIN_WORDS = 800_000
BROWN_EPOCHS = (10, 20)
BROWN_VOCAB = 16_383


def paper_relative() -> dict[str, float]:
    """Table 1's perplexities divided by its best Kneser–Ney model's."""
    best = min(PAPER_KN.values())
    return {**{kn_name(k): v / best for k, v in PAPER_KN.items()},
            **{mlp_name(v): p / best for v, (_, p) in PAPER_MLP.items()},
            "mixture": PAPER_MIXTURE / best}


# -- the data --------------------------------------------------------------------------------------
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


# -- the count models ------------------------------------------------------------------------------


def kn_name(order: int, modified: bool = False) -> str:
    """The name of a count model in ``numbers.perplexity``: "unigram", "KN 3-gram",
    "modified KN 3-gram", …"""
    if order == 1:
        return "unigram"
    return f"{'modified ' if modified else ''}KN {order}-gram"


@dataclass
class CountModels:
    """The count models, fitted and scored: ``probs`` (name → ``{"valid": array, "test":
    array}``: P of every predicted token, in reading order), ``discounts`` (name → order → (D1,
    D2, D3+), the modified models) and ``model`` (the modified model of the lowest order: small
    enough to send back from a worker process)."""

    probs: dict[str, dict[str, np.ndarray]]
    discounts: dict[str, dict[int, list[float]]]
    model: ModifiedKneserNeyLM | None


def count_models(train: list[list[str]], vocabulary: Sequence[str], valid: list[list[str]],
                 test: list[list[str]], orders: Sequence[int], discount: float) -> CountModels:
    """Fit the unigram and, for every order, interpolated (one ``discount``) and modified
    Kneser–Ney on ``train`` (one count per order, smoothed both ways); score them."""
    probs, discounts, kept = {}, {}, None
    for order in [1, *orders]:
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
    return CountModels(probs, discounts, kept)


def perplexity_of(probs: np.ndarray) -> float:
    """exp(−mean log P) of the probabilities of every predicted token."""
    return float(np.exp(-np.mean(np.log(probs))))


# -- the MLP and its training ----------------------------------------------------------------------


def mlp_name(variant: str) -> str:
    """"MLP, no direct" or "MLP, direct": the MLP rows of ``numbers.perplexity``."""
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
              settings: BengioSettings, device=None, min_epochs: float = 0,
              resume=None) -> tuple[BengioMLP, History, np.ndarray, np.ndarray]:
    """One MLP, ``y = b + W x + U tanh(d + H x)`` (``W`` only for the "direct" variant), trained
    by :func:`~course_rnn.training.fit` until its validation loss plateaus (``min_epochs``: at
    least that long, and ``resume``: the History of the run to continue, for the doubled
    budget, then on to its own stop within the cap :func:`~course_rnn.training.fit` sets
    for a continuation). Returns the model (its best weights, on the CPU), its history and the
    log-probability of every watched validation token and of every scored test token."""
    seed_everything(seed)  # the initial weights; fit(seed=...) fixes the init and batch order
    model = BengioMLP(vocab_size, context=settings.context, embedding_dim=settings.embedding_dim,
                      hidden_size=settings.hidden_size, direct=VARIANTS[variant])
    schedule = None if settings.lr_patience is None else ReduceOnPlateau(
        factor=settings.lr_factor, patience=settings.lr_patience)
    history = fit(
        model, NextWordInChunks(), train_pairs, valid=valid_pairs,
        epochs=settings.epochs,
        min_epochs=min_epochs,
        batch_size=settings.batch_size, optimizer="adam", lr=settings.lr,
        fused=True,  # the Adam update of 0.8 M weights was a fifth of a step; fused, a twentieth
        weight_decay=settings.weight_decay, schedule=schedule,
        init=normal_embeddings(settings.embedding_std),
        until=Plateau(patience=settings.patience, min_delta=settings.min_delta),
        eval_every=settings.eval_every, seed=seed, device=device, progress=False,
        resume=resume)
    model.cpu()
    valid, test = (target_log_probs(model, pairs).numpy() for pairs in (valid_pairs, test_pairs))
    return model, history, valid, test


# -- the mixture -----------------------------------------------------------------------------------

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


# -- the measure: one run's perplexity, alone and mixed with the best count model ------------------


@dataclass
class Run(Record):
    """One trained MLP and what it measured.

    Saved (``numbers.runs``): its ``variant`` and ``seed``; its test and validation perplexity
    (``perplexity``, ``valid_perplexity``); its mixture with the best count model (the weight λ
    on the MLP, ``mixture_weight``, tuned on validation; the mixture's test and validation
    perplexity, ``mixture`` and ``mixture_valid``); whether it ``converged`` and the ``epochs``
    it trained (its whole convergence record is saved with its history, in
    ``Replication.runs``). Kept in Python only: the ``model`` (its best weights, on the CPU), its
    ``history`` and the log-probability of every watched validation token (``valid``) and of
    every scored test token (``test``).
    """

    variant: str
    seed: int
    perplexity: float
    valid_perplexity: float
    mixture_weight: float
    mixture: float
    mixture_valid: float
    converged: bool
    epochs: float
    model: BengioMLP | None = unsaved(default=None, repr=False, compare=False)
    history: History | None = unsaved(default=None, repr=False, compare=False)
    valid: np.ndarray | None = unsaved(default=None, repr=False, compare=False)
    test: np.ndarray | None = unsaved(default=None, repr=False, compare=False)


def measure(variant: str, seed: int, trained: tuple, count: Mapping[str, np.ndarray]) -> Run:
    """The :class:`Run` of what :func:`train_mlp` returned (``trained``), mixed with the count
    model whose token probabilities are ``count`` (``{"valid", "test"}``)."""
    model, history, valid, test = trained
    lam = mixture_weight(valid, count["valid"])
    record = history.convergence
    return Run(variant, seed, perplexity=float(np.exp(-test.mean())),
               valid_perplexity=float(np.exp(-valid.mean())), mixture_weight=lam,
               mixture=perplexity_of(mixture_probs(lam, test, count["test"])),
               mixture_valid=perplexity_of(mixture_probs(lam, valid, count["valid"])),
               converged=record.converged, epochs=record.epochs,
               model=model, history=history, valid=valid, test=test)


# -- the claims: the MLP alone beats counting, and the mixture beats both --------------------------


@dataclass(frozen=True)
class Ratio:
    """The best MLP alone and the best mixture, each divided by the best count model of its
    corpus (ours and the paper's), and the mixture divided by the MLP alone: the figures the
    claims judge (:attr:`BengioNumbers.ratio`, computed where it is read)."""

    ours: float
    paper: float
    mixture_ours: float
    mixture_paper: float
    mixture_vs_mlp_ours: float
    mixture_vs_mlp_paper: float


def mlp_alone(numbers: BengioNumbers) -> tuple[str, float, bool, float]:
    """The paper's claim "the MLP alone beats the best n-gram model", on our numbers: the ours
    column, the ratio, whether it is below 1, how far above 1 it is."""
    ratio = numbers.ratio.ours
    return f"{ratio:.2f}", ratio, ratio < 1, max(0.0, ratio - 1)


def mixture_beats_both(numbers: BengioNumbers) -> tuple[str, float, bool, float]:
    """The paper's claim "the mixture beats both the best n-gram model and the MLP alone"."""
    worst = max(numbers.ratio.mixture_ours, numbers.ratio.mixture_vs_mlp_ours)
    return (f"{numbers.ratio.mixture_ours:.2f}", numbers.ratio.mixture_ours, worst < 1,
            max(0.0, worst - 1))


def claims(ratio: Ratio) -> list[Claim]:
    """The two claims Table 1 makes, as rows to judge; the paper's figures are ``ratio``'s.
    Both rest on every MLP."""
    best_kn = min(PAPER_KN.values())
    mlps = ("every MLP",)
    return [
        Claim("best MLP alone / best count model, test perplexity",
              f"{ratio.paper:.2f} (Table 1: {min(p for _, p in PAPER_MLP.values())} / "
              f"{best_kn})", mlp_alone, mlps, note="below 1: the MLP alone beats counting"),
        Claim("MLP + count mixture / best count model, test perplexity",
              f"{ratio.mixture_paper:.2f} (Table 1: {PAPER_MIXTURE} / {best_kn})",
              mixture_beats_both, mlps,
              note=lambda numbers: (
                  f"the mixture is also {numbers.ratio.mixture_vs_mlp_ours:.2f}× the MLP alone "
                  f"({ratio.mixture_vs_mlp_paper:.2f}× in the paper: {PAPER_MIXTURE} / "
                  f"{PAPER_MLP['no direct'][1]}); agrees when it beats both")),
    ]


def to_double(numbers: BengioNumbers, mlps: Mapping[tuple, Run]) -> list[tuple]:
    """The MLPs to continue to twice their budget: every one, when a claim's runs all
    converged and its figure disagrees (:func:`deciding_models`); none otherwise."""
    histories = [r.history for r in mlps.values()]
    return list(mlps) if deciding_models(claims(numbers.ratio), numbers,
                                         lambda *_: histories) else []


# -- the rows: ours beside Table 1, and the two claims its verdicts test ---------------------------


def relative(numbers: BengioNumbers, name: str) -> float:
    """Model ``name``'s test perplexity / our best count model's."""
    return numbers.perplexity[name] / numbers.best_count


def _relative_note(numbers: BengioNumbers, name: str, paper_key: str | None = None) -> str:
    """"ours 0.95× our best count model; the paper's 0.83× its best Kneser–Ney" (the paper's
    part only where it has the model)."""
    paper = paper_relative().get(paper_key or name)
    note = f"ours {relative(numbers, name):.2f}× our best count model"
    return note if paper is None else note + f"; the paper's {paper:.2f}× its best Kneser–Ney"


def _span(values: Sequence[float]) -> str:
    """"2.31" for one value (or equal ones), "2.31–3.50" for a range."""
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"


def count_rows(numbers: BengioNumbers, settings: BengioSettings) -> list[Row]:
    """One row per Kneser–Ney order (one discount and modified), and the best count model: the
    yardstick of every ratio."""
    ppl, paper, rows = numbers.perplexity, paper_relative(), []
    for order in settings.kn_orders:
        name, modified = kn_name(order), kn_name(order, modified=True)
        d = ", ".join(f"{x:.2f}" for x in numbers.discounts[modified][order])
        rows.append(Row(
            quantity=f"Kneser–Ney {order}-gram, test perplexity",
            paper=(f"{PAPER_KN[order]} (Table 1, back-off, Brown)" if order in PAPER_KN
                   else "—"),
            ours=f"{ppl[name]:.1f} (one discount); {ppl[modified]:.1f} (modified)",
            note=(f"interpolated, Austen: one D = {settings.discount}, or modified with "
                  f"D1, D2, D3+ = {d} at this order; ours "
                  f"{relative(numbers, name):.2f}× and "
                  f"{relative(numbers, modified):.2f}× our best count model"
                  + (f"; the paper's {paper[name]:.2f}× its best" if name in paper else "")),
            verdict="not comparable"))
    rows.append(Row(
        quantity="best count model (lowest validation perplexity), test perplexity",
        paper=f"{PAPER_CLASS_BASED} (Table 1: class-based back-off 3-gram, 500 classes)",
        ours=f"{numbers.best_count:.1f} ({numbers.best_count_model})",
        note="the yardstick of the ratios below; Table 1's best Kneser–Ney is "
             f"{min(PAPER_KN.values())}", verdict="not comparable"))
    return rows


def mlp_rows(numbers: BengioNumbers, settings: BengioSettings) -> list[Row]:
    """One row per MLP variant (mean ± SE over the seeds), and the best MLP's mixture with the
    best count model."""
    ppl, se, rows = numbers.perplexity, numbers.perplexity_se, []
    for variant in settings.variants:
        label, paper = PAPER_MLP[variant]
        name, runs = mlp_name(variant), numbers.runs_of(variant)
        k = len(runs)
        rows.append(Row(
            quantity=(f"neural n-gram MLP, {variant} (ours: n={settings.context + 1}, "
                      f"h={settings.hidden_size}, m={settings.embedding_dim}), test perplexity"),
            paper=f"{paper} (Table 1, {label})",
            ours=f"{pm(ppl[name], se[name], 1)} ({k} seed{'s' if k > 1 else ''})",
            note=(f"{_relative_note(numbers, name)}; trained {_span([r.epochs for r in runs])} "
                  "epochs, to a validation plateau"),
            verdict="not comparable"))
    mixture = numbers.best_mixture_model
    lam = float(np.mean([r.mixture_weight for r in numbers.runs_of(numbers.best_variant)]))
    rows.append(Row(
        quantity="MLP mixed with a count model, test perplexity",
        paper=f"{PAPER_MIXTURE} (Table 1, MLP10: MLP9 + interpolated trigram)",
        ours=f"{pm(ppl[mixture], se[mixture], 1)} ({mixture})",
        note=(f"λ = {lam:.2f} on the MLP, tuned on validation; "
              f"{_relative_note(numbers, mixture, 'mixture')}"),
        verdict="not comparable"))
    return rows


def context_rows(numbers: BengioNumbers, settings: BengioSettings) -> list[Row]:
    """The rows that set the comparison in context: the unigram floor, the epochs the MLPs
    trained, the vocabulary."""
    ppl, runs = numbers.perplexity, numbers.runs
    beaten = all(v < ppl["unigram"] for name, v in ppl.items() if name != "unigram")
    converged = sum(r.converged for r in runs)
    return [
        Row(quantity="unigram (no context), test perplexity", paper="—",
            ours=f"{ppl['unigram']:.1f}",
            note="the floor: every model with context beats it" if beaten
            else "not every model with context beats it"),
        Row(quantity="training of the MLPs (epochs)",
            paper=(f"{BROWN_EPOCHS[0]}–{BROWN_EPOCHS[1]} (§4: until convergence, "
                   f"{BROWN_TRAIN_WORDS:,} words)"),
            ours=(f"{_span([r.epochs for r in runs])} ({converged} of {len(runs)} runs "
                  "converged)"),
            note=(f"to a validation plateau, best weights kept; cap {settings.epochs} epochs "
                  f"of {numbers.train_pairs:,} n-grams")),
        Row(quantity="vocabulary (words seen ≥ 4 times, `<unk>` and the markers)",
            paper=f"{BROWN_VOCAB:,} (§4, Brown)", ours=f"{numbers.vocabulary:,}",
            note=(f"{numbers.vocabulary / BROWN_VOCAB:.0%} of Brown's, same rule (words of "
                  f"frequency ≤ 3 merged) when min_count = 4 (ours: {settings.min_count}); "
                  "Brown was split contiguously, Austen by shuffled sentences"),
            verdict="not comparable")]


def table_rows(numbers: BengioNumbers, settings: BengioSettings, runs: Sequence = (),
               doubled: tuple[BengioNumbers, Sequence] | None = None) -> list[Row]:
    """The paper-vs-ours table, the two claims judged (:func:`claims`). ``runs``: the MLPs'
    training histories; ``doubled``: the ``(numbers, runs)`` with every MLP trained to twice its
    epochs (trained before, by :func:`~..replication.twice_the_budget`, when a verdict needs it;
    else None)."""
    second, second_runs = doubled or (None, ())
    judged = judged_rows(claims(numbers.ratio), numbers, second, lambda *_: list(runs),
                         lambda *_: list(second_runs))
    return (count_rows(numbers, settings) + mlp_rows(numbers, settings) + judged
            + context_rows(numbers, settings))


# -- the numbers -----------------------------------------------------------------------------------


@dataclass
class BengioNumbers(Record):
    """Every number of the replication (see :func:`run`): ``perplexity`` and
    ``valid_perplexity`` per model on the scored test and the watched validation tokens (the
    MLPs and their mixtures: the mean over seeds, ``perplexity_se`` its standard error), the
    ``best_count_model`` (the count model of lowest validation perplexity: the yardstick), the
    ``discounts`` of the modified models (name → order → D1, D2, D3+), every MLP run (``runs``,
    :class:`Run`), each variant's ``parameters``, the ``vocabulary`` and the ``train_pairs``
    (training n-grams).

    The means and their errors are summaries kept because the table prints them (every figure of
    its ours column is in the numbers); the claims' figures (:attr:`ratio`, saved where it was:
    chapter 1 reads the committed one, the rows print it), the best models, the relative
    perplexities, the seeds per variant, the mean λ and the epochs are computed where they are
    read (the properties below, :func:`relative`, the rows)."""

    perplexity: dict[str, float]
    perplexity_se: dict[str, float]
    valid_perplexity: dict[str, float]
    best_count_model: str
    discounts: dict[str, dict[int, list[float]]]
    runs: list[Run]
    parameters: dict[str, int]
    vocabulary: int
    train_pairs: int

    @property
    def ratio(self) -> Ratio:
        """The claims' figures, ours (from the perplexities) beside Table 1's."""
        mlp, mixture, count, best_kn = (self.best_mlp, self.best_mixture, self.best_count,
                                        min(PAPER_KN.values()))
        return Ratio(ours=mlp / count, paper=min(p for _, p in PAPER_MLP.values()) / best_kn,
                     mixture_ours=mixture / count, mixture_paper=PAPER_MIXTURE / best_kn,
                     mixture_vs_mlp_ours=mixture / mlp,
                     mixture_vs_mlp_paper=PAPER_MIXTURE / PAPER_MLP["no direct"][1])

    def to_json(self) -> dict:
        saved = list(super().to_json().items())  # ratio where it always was, after the yardstick
        return dict(saved[:4] + [("ratio", to_json(self.ratio))] + saved[4:])

    def runs_of(self, variant: str) -> list[Run]:
        """The runs of one MLP variant, by seed."""
        return [r for r in self.runs if r.variant == variant]

    @property
    def best_count(self) -> float:
        """The best count model's test perplexity."""
        return self.perplexity[self.best_count_model]

    @property
    def best_variant(self) -> str:
        """The MLP variant of lowest mean test perplexity."""
        return min(dict.fromkeys(r.variant for r in self.runs),
                   key=lambda v: self.perplexity[mlp_name(v)])

    @property
    def best_mlp(self) -> float:
        return self.perplexity[mlp_name(self.best_variant)]

    @property
    def best_mixture_model(self) -> str:
        """The best variant mixed with the best count model: "MLP, no direct + KN 3-gram"."""
        return f"{mlp_name(self.best_variant)} + {self.best_count_model}"

    @property
    def best_mixture(self) -> float:
        return self.perplexity[self.best_mixture_model]


def numbers_of(counts: CountModels, trained: Mapping[tuple, tuple], vocabulary: int,
               train_pairs: int) -> BengioNumbers:
    """The numbers of one budget: ``counts`` from :func:`count_models` and ``trained``
    ((variant, seed) → what :func:`train_mlp` returned), each run measured (:func:`measure`)
    with the best count model."""
    ppl = {name: perplexity_of(p["test"]) for name, p in counts.probs.items()}
    valid_ppl = {name: perplexity_of(p["valid"]) for name, p in counts.probs.items()}
    best_count_model = min((n for n in counts.probs if n != "unigram"), key=valid_ppl.get)
    mlps = {key: measure(*key, t, counts.probs[best_count_model]) for key, t in trained.items()}
    se = {}
    for variant in dict.fromkeys(variant for variant, _ in mlps):
        group = [r for r in mlps.values() if r.variant == variant]
        name = mlp_name(variant)
        ppl[name], se[name] = mean_se([g.perplexity for g in group])
        valid_ppl[name] = float(np.mean([g.valid_perplexity for g in group]))
        mix = f"{name} + {best_count_model}"
        ppl[mix], se[mix] = mean_se([g.mixture for g in group])
        valid_ppl[mix] = float(np.mean([g.mixture_valid for g in group]))
    return BengioNumbers(
        perplexity=ppl, perplexity_se=se, valid_perplexity=valid_ppl,
        best_count_model=best_count_model, discounts=counts.discounts, runs=list(mlps.values()),
        parameters={variant: r.model.num_parameters() for (variant, _), r in mlps.items()},
        vocabulary=vocabulary, train_pairs=train_pairs)


# -- the figures -----------------------------------------------------------------------------------


def curves_figure(mlps: Mapping[tuple, Run], numbers: BengioNumbers, settings: BengioSettings):
    """Validation perplexity of every MLP run while it trains, against the count models'
    validation perplexities on the same sentences, and each run's mixture (a dot at its best
    checkpoint, the weights it keeps)."""
    from matplotlib.figure import Figure  # here: worker processes need no matplotlib

    fig = Figure(figsize=(6.8, 3.4), layout="constrained")
    ax = fig.add_subplot()
    valid = numbers.valid_perplexity
    for i, ((variant, seed), r) in enumerate(mlps.items()):
        epochs = r.history["epoch"]
        line, = ax.plot(epochs, np.exp(r.history["valid_loss"]), lw=1.3,
                        label=f"{run_name(variant, seed)}"
                              + ("" if r.history.converged else " (not converged)"),
                        ls="-" if r.history.converged else "--")
        best = r.history.convergence.best_epoch
        ax.plot([best], [np.exp(-r.valid.mean())], "o", ms=4, color=line.get_color())
        ax.plot([best], [r.mixture_valid], "*", ms=9, color=line.get_color(),
                label=f"mixed with {numbers.best_count_model}" if i == 0 else None)
    interpolated = min((kn_name(k) for k in settings.kn_orders), key=valid.get)
    modified = min((kn_name(k, True) for k in settings.kn_orders), key=valid.get)
    for name, style in ((interpolated, ":"), (modified, "--")):
        ax.axhline(valid[name], color="k", ls=style, lw=1, label=f"{name} (validation)")
    top = 1.6 * max(valid[interpolated], valid[modified])
    lows = [valid[name] for name in valid if name != "unigram"]
    ax.set_ylim(0.92 * min(lows), top)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation perplexity")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Validation perplexity while the MLPs train, against the count models",
                 fontsize=10)
    return fig


def perplexity_figure(numbers: BengioNumbers, settings: BengioSettings):
    """Each model's test perplexity divided by the best count model of its own corpus: the
    paper's (Brown, best Kneser–Ney) beside ours (Austen); below 1 beats counting. Bars are
    labelled with the perplexities themselves; our MLP bars carry ± 1 SE over seeds."""
    from matplotlib.figure import Figure

    names = ([kn_name(k) for k in settings.kn_orders]
             + [kn_name(k, True) for k in settings.kn_orders]
             + [mlp_name(v) for v in settings.variants] + [numbers.best_mixture_model])
    paper_values = {**{kn_name(k): v for k, v in PAPER_KN.items()},
                    **{mlp_name(v): p for v, (_, p) in PAPER_MLP.items()},
                    numbers.best_mixture_model: PAPER_MIXTURE}
    paper_best = min(PAPER_KN.values())
    paper = [paper_values[n] / paper_best if n in paper_values else np.nan for n in names]
    ours = [relative(numbers, n) for n in names]
    se = [numbers.perplexity_se.get(n, np.nan) / numbers.best_count for n in names]
    x = np.arange(len(names))
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.add_subplot()
    bars_paper = ax.bar(x - 0.2, paper, 0.4, color="0.7", label="paper (Brown)")
    bars_ours = ax.bar(x + 0.2, ours, 0.4, color="C0", label="ours (Austen)", yerr=se,
                       capsize=3)  # NaN (one seed): no bar
    ax.bar_label(bars_paper, [f"{paper_values[n]}" if n in paper_values else "" for n in names],
                 fontsize=7)
    ax.bar_label(bars_ours, [f"{numbers.perplexity[n]:.0f}" for n in names], fontsize=7)
    ax.axhline(1, color="k", lw=1, ls="--")
    labels = [n.replace(" + ", "\n+ ").replace("modified KN", "modified\nKN") for n in names]
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("perplexity / best count\nmodel of the same corpus")
    ax.set_ylim(0.6, None)
    ax.set_title("Relative to the best count model (bars labelled with the test perplexity)",
                 fontsize=10)
    ax.legend(fontsize=8)
    return fig


def figures_of(mlps: Mapping[tuple, Run], numbers: BengioNumbers, settings: BengioSettings) -> dict:
    """``curves`` (training and validation loss of every run), ``valid_perplexity`` (the runs'
    validation perplexity against the count models) and ``perplexities`` (relative to the best
    count model, paper and ours)."""
    from ...analysis.curves import learning_curves

    return {"curves": learning_curves({run_name(*k): r.history for k, r in mlps.items()},
                                      title="The MLPs' learning curves (Adam, "
                                            "until validation plateaus)"),
            "valid_perplexity": curves_figure(mlps, numbers, settings),
            "perplexities": perplexity_figure(numbers, settings)}


# -- the jobs and run ------------------------------------------------------------------------------


def _job(kind: str, *args) -> tuple:
    """One unit of work for a worker process, the count models or one MLP: its result and the
    CPU seconds of the process that did it."""
    start = time.process_time()
    result = count_models(*args) if kind == "counts" else train_mlp(*args)
    return result, time.process_time() - start


def train_all(keys, pairs, vocab_size: int, settings: BengioSettings, device, min_epochs=None,
              count_job: tuple | None = None, workers=None, progress=None,
              resume=None) -> tuple:
    """Train the MLPs ``keys`` ((variant, seed) pairs) and, if given, the count models, in
    parallel processes; return ``(trained, counts, cpu_seconds)``: key → what
    :func:`train_mlp` returned, the :class:`CountModels` (None without ``count_job``) and the
    CPU seconds of each job (by run name, then "count models"). ``min_epochs`` and ``resume``
    map a key to its least epochs and the History it continues."""
    min_epochs, resume = min_epochs or {}, resume or {}
    jobs = [("mlp", variant, seed, *pairs, vocab_size, settings, device,
             min_epochs.get((variant, seed), 0), resume.get((variant, seed)))
            for variant, seed in keys]
    jobs.sort(key=lambda job: job[1] != "direct")  # the slowest first
    if count_job is not None:
        jobs.append(("counts", *count_job))
    results = parallel_map(_job, jobs, workers=workers, device=device, desc=NAME,
                           progress=progress)
    done = {job[1:3] if job[0] == "mlp" else "count models": r for job, r in zip(jobs, results)}
    cpu_seconds = {run_name(*key): done[key][1] for key in keys}
    counts = None
    if count_job is not None:
        counts, cpu_seconds["count models"] = done["count models"]
    return {key: done[key][0] for key in keys}, counts, cpu_seconds


@dataclass
class BengioArtefacts:
    """What the chapter and the tests read beyond the numbers (not saved): the runs (``mlps``,
    (variant, seed) → :class:`Run`, with its model, history and token log-probabilities), the
    count models' token probabilities (``count_probs``: name → ``{"valid", "test"}``),
    ``count_model`` (the modified Kneser–Ney model of the lowest order), the scored
    ``test_pairs``, ``cpu_seconds`` (of each job, in its own process) and ``doubled`` (the runs
    at twice the epochs, when a verdict needed them)."""

    mlps: dict[tuple[str, int], Run]
    count_probs: dict[str, dict[str, np.ndarray]]
    count_model: object
    test_pairs: tuple
    cpu_seconds: dict[str, float]
    doubled: dict[tuple[str, int], Run]


def checked_data(data: AustenData | None, settings: BengioSettings) -> AustenData:
    """``data`` if it fits the settings' ``min_count`` (None: read the corpus); a ValueError
    naming what it is otherwise."""
    if data is None:
        return austen_data(min_count=settings.min_count)
    if not isinstance(data, AustenData) or data.min_count != settings.min_count:
        raise ValueError(f"data must come from austen_data(min_count={settings.min_count}), "
                         f"got {type(data).__name__} with min_count "
                         f"{getattr(data, 'min_count', None)!r}")
    return data


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None, *,
        data: AustenData | None = None, workers: int | None = None) -> Replication:
    """Fit the count models, train the MLPs to convergence, mix them, compare with Table 1.

    Args:
        scale: "quick" (chapter 1) or "paper" (both variants, three seeds,
            the whole validation and test parts); see :data:`SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by every MLP variant;
            None: the settings' seeds. They replace the settings' ``seeds``.
        device: where the MLPs train ("cpu", "cuda", …; :func:`~course_rnn.utils.pick_device`).
            The count models are counted in Python on the CPU whatever the device.
        progress: a bar over the jobs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override ``SETTINGS[scale]`` (an unknown key or a bad value is a
            ValueError naming it).
        data: the corpus from :func:`austen_data`, if the caller has it already (chapter 1
            does), so that it is not read twice; its ``min_count`` must match the settings.
        workers: processes for :func:`~course_rnn.experiments.workers.parallel_map` (None: one
            per CPU core, or ``$COURSE_RNN_WORKERS``).

    Returns a :class:`Replication` whose ``numbers`` are :class:`BengioNumbers`, whose ``runs``
    are the MLPs' training histories and whose ``artefacts`` are :class:`BengioArtefacts`.
    Figures: see :func:`figures_of`.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, "seeds", device, progress,
                  workers)
    # settings: from here on, the overrides completed by the scale's settings, with the seeds
    # given in place of theirs
    settings = setup.settings.replace(seeds=setup.seeds)
    setup = dataclasses.replace(setup, settings=settings)
    data = checked_data(data, settings)
    scored, watched = data.scored(settings.test_sentences), data.watched(settings.valid_sentences)
    keys = [(variant, seed) for variant in settings.variants for seed in settings.seeds]
    pairs = tuple(ngram_pairs(part, data.vocab, context=settings.context)
                  for part in (data.train, watched, scored))

    def train(min_epochs=None, resume=None, count_job=None):
        return train_all(keys if resume is None else list(resume), pairs, len(data.vocab),
                         settings, setup.device, min_epochs, count_job, workers, setup.progress,
                         resume=resume and {key: r.history for key, r in resume.items()})

    trained, counts, cpu_seconds = train(count_job=(data.train, data.vocab.itos, watched,
                                                    scored, settings.kn_orders, settings.discount))
    numbers = numbers_of(counts, trained, len(data.vocab), len(pairs[0][1]))
    mlps = {(r.variant, r.seed): r for r in numbers.runs}
    again = twice_the_budget(mlps, to_double(numbers, mlps),
                             lambda min_epochs, resume: train(min_epochs, resume)[0],
                             epochs=lambda r: r.history.convergence.epochs)
    second = numbers_of(counts, again, len(data.vocab), len(pairs[0][1])) if again else None
    doubled = {(r.variant, r.seed): r for r in second.runs} if second else {}
    rows = table_rows(numbers, settings, [r.history for r in mlps.values()],
                      second and (second, [r.history for r in second.runs]))
    runs = {run_name(*key): r.history for key, r in mlps.items()}
    runs.update({f"{run_name(*key)} (twice the budget)": r.history for key, r in doubled.items()})
    artefacts = BengioArtefacts(mlps, counts.probs, counts.model, pairs[2], cpu_seconds, doubled)
    return setup.replication(numbers, rows, figures_of(mlps, numbers, settings), artefacts, runs)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)
