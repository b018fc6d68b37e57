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

The module reads top to bottom as :func:`run` uses it: the settings (:mod:`.settings`, read
by the command line without torch) and Table 1's figures, the jobs (the corpus, the count
models, one MLP), the numbers (:class:`BengioNumbers`, read by attribute), the rows (the table
and its verdicts), the figures, and :func:`run`. It is longer than a screenful because it is one
experiment whole: each part is used once, by the next, so it reads better in one file than in
six that import one another.
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
from ..records import Record, mean_se
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    Timer,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import BROWN_MIN_COUNT, SETTINGS, VARIANTS, BengioSettings

NAME = "bengio-kn"

# -- the settings' companions: Table 1's figures ---------------------------------------------------

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


# -- the jobs: the corpus, the count models, one MLP -----------------------------------------------


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
    D2, D3+), the modified models), ``seconds`` (wall time of each order), ``model`` (the
    modified model of the lowest order: small enough to send back from a worker process) and
    ``cpu_seconds`` (of the process that fitted them)."""

    probs: dict[str, dict[str, np.ndarray]]
    discounts: dict[str, dict[int, list[float]]]
    seconds: dict[str, float]
    model: ModifiedKneserNeyLM | None
    cpu_seconds: float = 0.0


def count_models(train: list[list[str]], vocabulary: Sequence[str], valid: list[list[str]],
                 test: list[list[str]], orders: Sequence[int], discount: float) -> CountModels:
    """Fit the unigram and, for every order, interpolated (one ``discount``) and modified
    Kneser–Ney on ``train`` (one count per order, smoothed both ways); score them."""
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
    return CountModels(probs, discounts, seconds, kept)


def perplexity_of(probs: np.ndarray) -> float:
    """exp(−mean log P) of the probabilities of every predicted token."""
    return float(np.exp(-np.mean(np.log(probs))))


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


@dataclass
class TrainedMLP:
    """One MLP as trained: the ``model`` (its best weights, on the CPU), its ``history``, the
    log-probability of every watched validation token (``valid``) and of every scored test token
    (``test``), its test ``perplexity`` and the ``cpu_seconds`` of the process that trained it."""

    model: BengioMLP
    history: History
    valid: np.ndarray
    test: np.ndarray
    perplexity: float
    cpu_seconds: float = 0.0


def train_mlp(variant: str, seed: int, train_pairs, valid_pairs, test_pairs, vocab_size: int,
              config: BengioSettings, device=None, min_epochs: float = 0,
              resume=None) -> TrainedMLP:
    """One MLP, ``y = b + W x + U tanh(d + H x)`` (``W`` only for the "direct" variant), trained
    by :func:`~course_rnn.training.fit` until its validation loss plateaus (``min_epochs``: at
    least that long, and ``resume``: the History of the run to continue, for the doubled
    budget, then on to its own stop within the cap :func:`~course_rnn.training.fit` sets
    for a continuation)."""
    seed_everything(seed)  # the initial weights; fit(seed=...) fixes the init and batch order
    model = BengioMLP(vocab_size, context=config.context, embedding_dim=config.embedding_dim,
                      hidden_size=config.hidden_size, direct=VARIANTS[variant])
    schedule = None if config.lr_patience is None else ReduceOnPlateau(
        factor=config.lr_factor, patience=config.lr_patience)
    history = fit(
        model, NextWordInChunks(), train_pairs, valid=valid_pairs,
        epochs=config.epochs,
        min_epochs=min_epochs,
        batch_size=config.batch_size, optimizer="adam", lr=config.lr,
        fused=True,  # the Adam update of 0.8 M weights was a fifth of a step; fused, a twentieth
        weight_decay=config.weight_decay, schedule=schedule,
        init=normal_embeddings(config.embedding_std),
        until=Plateau(patience=config.patience, min_delta=config.min_delta),
        eval_every=config.eval_every, seed=seed, device=device, progress=False,
        resume=resume)
    model.cpu()
    valid, test = (target_log_probs(model, pairs).numpy() for pairs in (valid_pairs, test_pairs))
    return TrainedMLP(model, history, valid, test, float(np.exp(-test.mean())))


def _job(kind: str, *args) -> CountModels | TrainedMLP:
    """One unit of work for a worker process: the count models or one MLP; its result carries
    the CPU seconds of the process that did it (``cpu_seconds``)."""
    start = time.process_time()
    result = count_models(*args) if kind == "counts" else train_mlp(*args)
    result.cpu_seconds = time.process_time() - start
    return result


def train_all(keys, pairs, vocab_size: int, config: BengioSettings, device, min_epochs=None,
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


# -- the numbers -----------------------------------------------------------------------------------


@dataclass
class MlpRun(Record):
    """One trained MLP: its test and validation perplexity, its mixture with the best count
    model (weight λ on the MLP, tuned on validation; test and validation perplexity) and how its
    training ended."""

    seed: int
    perplexity: float
    valid_perplexity: float
    mixture_weight: float
    mixture: float
    mixture_valid: float
    converged: bool
    stopped: str
    epochs: float
    steps: int
    best_epoch: float

    @classmethod
    def of(cls, seed: int, r: TrainedMLP, count: Mapping[str, np.ndarray]) -> MlpRun:
        """Run ``r`` of ``seed``, mixed with the count model whose token probabilities are
        ``count`` (``{"valid", "test"}``)."""
        lam = mixture_weight(r.valid, count["valid"])
        record = r.history.convergence
        return cls(seed=seed, perplexity=r.perplexity,
                   valid_perplexity=float(np.exp(-r.valid.mean())), mixture_weight=lam,
                   mixture=perplexity_of(mixture_probs(lam, r.test, count["test"])),
                   mixture_valid=perplexity_of(mixture_probs(lam, r.valid, count["valid"])),
                   converged=record.converged, stopped=record.stopped, epochs=record.epochs,
                   steps=record.steps, best_epoch=record.best_epoch)


@dataclass
class Ratio(Record):
    """The best MLP alone and the best mixture, each divided by the best count model of its
    corpus (ours and the paper's), and the mixture divided by the MLP alone."""

    ours: float
    paper: float
    mixture_ours: float
    mixture_paper: float
    mixture_vs_mlp_ours: float
    mixture_vs_mlp_paper: float


@dataclass
class Relative(Record):
    """Every model's test perplexity / the best count model of its own corpus: ``ours`` (by
    model name) and the ``paper``'s (Kneser–Ney orders, MLP variants, "mixture")."""

    ours: dict[str, float]
    paper: dict[str, float]


@dataclass
class Corpus(Record):
    """The sizes of the data: sentences, vocabulary, training sentences and tokens, the scored
    test and watched validation sentences, and the n-grams of each part."""

    sentences: int
    vocabulary: int
    train_sentences: int
    train_tokens: int
    scored_sentences: int
    watched_valid_sentences: int
    train_pairs: int
    watched_valid_predictions: int
    scored_predictions: int


@dataclass
class Budget(Record):
    """The epochs every MLP trained (to a validation plateau), their range, the cap, how many
    of the runs converged, and the paper's 10–20 epochs."""

    epochs: list[float]
    epochs_max: float
    epochs_min: float
    cap: int
    converged: int
    runs: int
    paper_epochs: list[int]


@dataclass
class BengioNumbers(Record):
    """Every measured number. ``perplexity`` / ``valid_perplexity``: per model on the test /
    watched validation tokens (MLPs and mixtures: mean over seeds), ``perplexity_se``;
    ``best_count_model`` (lowest validation perplexity) and ``best_count`` (its test perplexity);
    ``relative`` and ``ratio``: against the best count model; ``discounts`` of the modified
    models (name -> order -> D1, D2, D3+); ``mlp``: per variant, one :class:`MlpRun` per seed."""

    perplexity: dict[str, float]
    perplexity_se: dict[str, float]
    valid_perplexity: dict[str, float]
    best_count_model: str
    best_count: float
    best_count_order: int
    best_interpolated: str
    best_modified: str
    best_variant: str
    best_mlp: float
    best_mixture_model: str
    best_mixture: float
    ratio: Ratio
    relative: Relative
    discounts: dict[str, dict[int, list[float]]]
    mlp: dict[str, list[MlpRun]]
    mlp_seeds: dict[str, int]
    mixture_weight: dict[str, float]
    parameters: dict[str, int]
    corpus: Corpus
    budget: Budget
    vocabulary_share_of_brown: float


def paper_relative() -> dict[str, float]:
    """Table 1's perplexities divided by its best Kneser–Ney model's."""
    best = min(PAPER_KN.values())
    return {**{kn_name(k): v / best for k, v in PAPER_KN.items()},
            **{mlp_name(v): p / best for v, (_, p) in PAPER_MLP.items()},
            "mixture": PAPER_MIXTURE / best}


def numbers_of(counts: CountModels, mlps: dict, config: BengioSettings, data: AustenData,
               sizes: dict) -> BengioNumbers:
    """The numbers of one budget: ``counts`` from :func:`count_models`, ``mlps`` ((variant,
    seed) -> :func:`train_mlp`'s result), the ``sizes`` of the n-grams."""
    ppl = {name: perplexity_of(p["test"]) for name, p in counts.probs.items()}
    valid_ppl = {name: perplexity_of(p["valid"]) for name, p in counts.probs.items()}
    best_count_model = min((n for n in counts.probs if n != "unigram"), key=valid_ppl.get)
    best_count = ppl[best_count_model]
    per_run = {variant: [MlpRun.of(seed, mlps[variant, seed], counts.probs[best_count_model])
                         for seed in config.seeds] for variant in config.variants}
    se = {}
    for variant, group in per_run.items():
        name = mlp_name(variant)
        ppl[name], se[name] = mean_se([g.perplexity for g in group])
        valid_ppl[name] = float(np.mean([g.valid_perplexity for g in group]))
        mix = f"{name} + {best_count_model}"
        ppl[mix], se[mix] = mean_se([g.mixture for g in group])
        valid_ppl[mix] = float(np.mean([g.mixture_valid for g in group]))
    best_variant = min(config.variants, key=lambda v: ppl[mlp_name(v)])
    best_mlp = ppl[mlp_name(best_variant)]
    best_mixture_name = f"{mlp_name(best_variant)} + {best_count_model}"
    paper_best_kn = min(PAPER_KN.values())
    epochs_used = [g.epochs for group in per_run.values() for g in group]
    return BengioNumbers(
        perplexity=ppl, perplexity_se=se, valid_perplexity=valid_ppl,
        best_count_model=best_count_model, best_count=best_count,
        best_count_order=int(best_count_model.split()[-1].split("-")[0]),
        best_interpolated=min((kn_name(k) for k in config.kn_orders), key=valid_ppl.get),
        best_modified=min((kn_name(k, True) for k in config.kn_orders), key=valid_ppl.get),
        best_variant=best_variant, best_mlp=best_mlp, best_mixture_model=best_mixture_name,
        best_mixture=ppl[best_mixture_name],
        ratio=Ratio(ours=best_mlp / best_count,
                    paper=min(p for _, p in PAPER_MLP.values()) / paper_best_kn,
                    mixture_ours=ppl[best_mixture_name] / best_count,
                    mixture_paper=PAPER_MIXTURE / paper_best_kn,
                    mixture_vs_mlp_ours=ppl[best_mixture_name] / best_mlp,
                    mixture_vs_mlp_paper=PAPER_MIXTURE / PAPER_MLP["no direct"][1]),
        relative=Relative(ours={name: value / best_count for name, value in ppl.items()},
                          paper=paper_relative()),
        discounts=counts.discounts, mlp=per_run,
        mlp_seeds={variant: len(group) for variant, group in per_run.items()},
        mixture_weight={v: float(np.mean([g.mixture_weight for g in group]))
                        for v, group in per_run.items()},
        parameters={v: mlps[v, config.seeds[0]].model.num_parameters()
                    for v in config.variants},
        corpus=Corpus(sentences=len(data.sentences), vocabulary=len(data.vocab),
                      train_sentences=len(data.train),
                      train_tokens=sum(len(s) for s in data.train),
                      scored_sentences=len(data.scored(config.test_sentences)),
                      watched_valid_sentences=len(data.watched(config.valid_sentences)),
                      **sizes),
        budget=Budget(epochs=epochs_used, epochs_max=max(epochs_used),
                      epochs_min=min(epochs_used), cap=config.epochs,
                      converged=sum(g.converged for group in per_run.values() for g in group),
                      runs=len(epochs_used), paper_epochs=list(BROWN_EPOCHS)),
        vocabulary_share_of_brown=len(data.vocab) / BROWN_VOCAB)


# -- the rows: ours beside Table 1, and the two claims its verdicts test ---------------------------


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


def to_double(numbers: BengioNumbers, mlps: Mapping[tuple, TrainedMLP]) -> list[tuple]:
    """The MLPs to continue to twice their budget: every one, when a claim's runs all
    converged and its figure disagrees (:func:`deciding_models`); none otherwise."""
    histories = [r.history for r in mlps.values()]
    return list(mlps) if deciding_models(claims(numbers.ratio), numbers,
                                         lambda *_: histories) else []


def _relative_note(numbers: BengioNumbers, name: str, paper_key: str | None = None) -> str:
    """"ours 0.95× our best count model; the paper's 0.83× its best Kneser–Ney" (the paper's
    part only where it has the model)."""
    ours = numbers.relative.ours[name]
    paper = numbers.relative.paper.get(paper_key or name)
    note = f"ours {ours:.2f}× our best count model"
    return note if paper is None else note + f"; the paper's {paper:.2f}× its best Kneser–Ney"


def _span(values: Sequence[float]) -> str:
    """"2.31" for one value (or equal ones), "2.31–3.50" for a range."""
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"


def count_rows(numbers: BengioNumbers, config: BengioSettings) -> list[Row]:
    """One row per Kneser–Ney order (one discount and modified), and the best count model: the
    yardstick of every ratio."""
    ppl, rows = numbers.perplexity, []
    for order in config.kn_orders:
        name, modified = kn_name(order), kn_name(order, modified=True)
        d = ", ".join(f"{x:.2f}" for x in numbers.discounts[modified][order])
        rows.append(Row(
            quantity=f"Kneser–Ney {order}-gram, test perplexity",
            paper=(f"{PAPER_KN[order]} (Table 1, back-off, Brown)" if order in PAPER_KN
                   else "—"),
            ours=f"{ppl[name]:.1f} (one discount); {ppl[modified]:.1f} (modified)",
            note=(f"interpolated, Austen: one D = {config.discount}, or modified with "
                  f"D1, D2, D3+ = {d} at this order; ours "
                  f"{numbers.relative.ours[name]:.2f}× and "
                  f"{numbers.relative.ours[modified]:.2f}× our best count model"
                  + (f"; the paper's {numbers.relative.paper[name]:.2f}× its best"
                     if name in numbers.relative.paper else "")),
            verdict="not comparable"))
    rows.append(Row(
        quantity="best count model (lowest validation perplexity), test perplexity",
        paper=f"{PAPER_CLASS_BASED} (Table 1: class-based back-off 3-gram, 500 classes)",
        ours=f"{numbers.best_count:.1f} ({numbers.best_count_model})",
        note="the yardstick of the ratios below; Table 1's best Kneser–Ney is "
             f"{min(PAPER_KN.values())}", verdict="not comparable"))
    return rows


def mlp_rows(numbers: BengioNumbers, config: BengioSettings) -> list[Row]:
    """One row per MLP variant (mean ± SE over the seeds), and the best MLP's mixture with the
    best count model."""
    ppl, se, rows = numbers.perplexity, numbers.perplexity_se, []
    for variant in config.variants:
        label, paper = PAPER_MLP[variant]
        name = mlp_name(variant)
        k = numbers.mlp_seeds[variant]
        epochs = [g.epochs for g in numbers.mlp[variant]]
        rows.append(Row(
            quantity=(f"neural n-gram MLP, {variant} (ours: n={config.context + 1}, "
                      f"h={config.hidden_size}, m={config.embedding_dim}), test perplexity"),
            paper=f"{paper} (Table 1, {label})",
            ours=f"{pm(ppl[name], se[name], 1)} ({k} seed{'s' if k > 1 else ''})",
            note=(f"{_relative_note(numbers, name)}; trained {_span(epochs)} epochs, to a "
                  "validation plateau"),
            verdict="not comparable"))
    mixture = numbers.best_mixture_model
    rows.append(Row(
        quantity="MLP mixed with a count model, test perplexity",
        paper=f"{PAPER_MIXTURE} (Table 1, MLP10: MLP9 + interpolated trigram)",
        ours=f"{pm(ppl[mixture], se[mixture], 1)} ({mixture})",
        note=(f"λ = {numbers.mixture_weight[numbers.best_variant]:.2f} on the MLP, tuned "
              f"on validation; {_relative_note(numbers, mixture, 'mixture')}"),
        verdict="not comparable"))
    return rows


def claim_rows(numbers: BengioNumbers, runs: Sequence,
               doubled: tuple[BengioNumbers, Sequence] | None) -> list[Row]:
    """The two claims, judged: the MLP alone beats the best count model, and the mixture beats
    both. ``doubled``: the ``(numbers, runs)`` at twice the epochs (None when no verdict needed
    them)."""
    second, second_runs = doubled or (None, ())
    return judged_rows(claims(numbers.ratio), numbers, second, lambda *_: list(runs),
                       lambda *_: list(second_runs))


def context_rows(numbers: BengioNumbers, config: BengioSettings) -> list[Row]:
    """The rows that set the comparison in context: the unigram floor, the epochs the MLPs
    trained, the vocabulary."""
    ppl, budget = numbers.perplexity, numbers.budget
    beaten = all(v < ppl["unigram"] for name, v in ppl.items() if name != "unigram")
    share = numbers.vocabulary_share_of_brown
    return [
        Row(quantity="unigram (no context), test perplexity", paper="—",
            ours=f"{ppl['unigram']:.1f}",
            note="the floor: every model with context beats it" if beaten
            else "not every model with context beats it"),
        Row(quantity="training of the MLPs (epochs)",
            paper=(f"{BROWN_EPOCHS[0]}–{BROWN_EPOCHS[1]} (§4: until convergence, "
                   f"{BROWN_TRAIN_WORDS:,} words)"),
            ours=f"{_span(budget.epochs)} ({budget.converged} of {budget.runs} runs converged)",
            note=(f"to a validation plateau, best weights kept; cap {config.epochs} epochs "
                  f"of {numbers.corpus.train_pairs:,} n-grams")),
        Row(quantity="vocabulary (words seen ≥ 4 times, `<unk>` and the markers)",
            paper=f"{BROWN_VOCAB:,} (§4, Brown)", ours=f"{numbers.corpus.vocabulary:,}",
            note=(f"{share:.0%} of Brown's, same rule (words of frequency ≤ 3 merged) when "
                  f"min_count = 4 (ours: {config.min_count}); Brown was split contiguously, "
                  "Austen by shuffled sentences"),
            verdict="not comparable")]


def table_rows(numbers: BengioNumbers, config: BengioSettings, runs: Sequence = (),
               doubled: tuple[BengioNumbers, Sequence] | None = None) -> list[Row]:
    """The paper-vs-ours table. ``runs``: the MLPs' training histories; ``doubled``: the
    ``(numbers, runs)`` with every MLP trained to twice its epochs (trained before, by
    :func:`~..replication.twice_the_budget`, when a verdict needs it; else None)."""
    return (count_rows(numbers, config) + mlp_rows(numbers, config)
            + claim_rows(numbers, runs, doubled) + context_rows(numbers, config))


# -- the figures -----------------------------------------------------------------------------------


def curves_figure(mlps: dict, numbers: BengioNumbers):
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
        run = next(g for g in numbers.mlp[variant] if g.seed == seed)
        ax.plot([best], [run.mixture_valid], "*", ms=9, color=line.get_color(),
                label=f"mixed with {numbers.best_count_model}" if i == 0 else None)
    for name, style in ((numbers.best_interpolated, ":"), (numbers.best_modified, "--")):
        ax.axhline(valid[name], color="k", ls=style, lw=1, label=f"{name} (validation)")
    top = 1.6 * max(valid[numbers.best_interpolated], valid[numbers.best_modified])
    lows = [valid[name] for name in valid if name != "unigram"]
    ax.set_ylim(0.92 * min(lows), top)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation perplexity")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Validation perplexity while the MLPs train, against the count models",
                 fontsize=10)
    return fig


def perplexity_figure(numbers: BengioNumbers, config: BengioSettings):
    """Each model's test perplexity divided by the best count model of its own corpus: the
    paper's (Brown, best Kneser–Ney) beside ours (Austen); below 1 beats counting. Bars are
    labelled with the perplexities themselves; our MLP bars carry ± 1 SE over seeds."""
    from matplotlib.figure import Figure

    names = ([kn_name(k) for k in config.kn_orders]
             + [kn_name(k, True) for k in config.kn_orders]
             + [mlp_name(v) for v in config.variants] + [numbers.best_mixture_model])
    paper_values = {**{kn_name(k): v for k, v in PAPER_KN.items()},
                    **{mlp_name(v): p for v, (_, p) in PAPER_MLP.items()},
                    numbers.best_mixture_model: PAPER_MIXTURE}
    paper_best = min(PAPER_KN.values())
    paper = [paper_values[n] / paper_best if n in paper_values else np.nan for n in names]
    ours = [numbers.relative.ours[n] for n in names]
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


def figures_of(mlps: Mapping[tuple, TrainedMLP], numbers: BengioNumbers,
               config: BengioSettings) -> dict:
    """``curves`` (training and validation loss of every run), ``valid_perplexity`` (the runs'
    validation perplexity against the count models) and ``perplexities`` (relative to the best
    count model, paper and ours)."""
    from ...analysis.curves import learning_curves

    return {"curves": learning_curves({run_name(*k): r.history for k, r in mlps.items()},
                                      title="The MLPs' learning curves (Adam, "
                                            "until validation plateaus)"),
            "valid_perplexity": curves_figure(mlps, numbers),
            "perplexities": perplexity_figure(numbers, config)}


# -- run -------------------------------------------------------------------------------------------


@dataclass
class BengioArtefacts:
    """What the chapter reads beyond the numbers (not saved): the trained ``mlps`` ((variant,
    seed) → :class:`TrainedMLP`), the count models' token probabilities (``count_probs``: name →
    ``{"valid", "test"}``), ``count_model`` (the modified Kneser–Ney model of the lowest order),
    the ``data``, the ``train_pairs`` / ``valid_pairs`` / ``test_pairs``, ``seconds`` (wall time
    of each MLP's training and of each order's count models), ``cpu_seconds`` (CPU time of each
    job, in its own process) and ``doubled`` (the runs at twice the epochs, when a verdict
    needed them)."""

    mlps: dict[tuple[str, int], TrainedMLP]
    count_probs: dict[str, dict[str, np.ndarray]]
    count_model: object
    data: AustenData
    train_pairs: tuple
    valid_pairs: tuple
    test_pairs: tuple
    seconds: dict[str, float]
    cpu_seconds: dict[str, float]
    doubled: dict[tuple[str, int], TrainedMLP]

    @classmethod
    def of(cls, mlps: dict, counts: CountModels, data: AustenData, pairs: tuple,
           doubled: dict) -> BengioArtefacts:
        seconds = {run_name(*key): r.history.seconds for key, r in mlps.items()}
        seconds.update(counts.seconds)
        cpu_seconds = {run_name(*key): r.cpu_seconds for key, r in mlps.items()}
        cpu_seconds["count models"] = counts.cpu_seconds
        return cls(mlps, counts.probs, counts.model, data, *pairs, seconds, cpu_seconds,
                   doubled)


def checked_data(data: AustenData | None, config: BengioSettings) -> AustenData:
    """``data`` if it fits the settings' ``min_count`` (None: read the corpus); a ValueError
    naming what it is otherwise."""
    if data is None:
        return austen_data(min_count=config.min_count)
    if not isinstance(data, AustenData) or data.min_count != config.min_count:
        raise ValueError(f"data must come from austen_data(min_count={config.min_count}), "
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
    config = setup.settings.replace(seeds=setup.seeds)  # the seeds given replace the settings'
    setup = dataclasses.replace(setup, settings=config)
    data = checked_data(data, config)
    scored, watched = data.scored(config.test_sentences), data.watched(config.valid_sentences)
    keys = [(variant, seed) for variant in config.variants for seed in config.seeds]
    pairs = tuple(ngram_pairs(part, data.vocab, context=config.context)
                  for part in (data.train, watched, scored))

    def train(min_epochs=None, resume=None, count_job=None):
        return train_all(keys if resume is None else list(resume), pairs, len(data.vocab),
                         config, setup.device, min_epochs, count_job, workers, setup.progress,
                         resume=resume and {key: r.history for key, r in resume.items()})

    mlps, counts = train(count_job=(data.train, data.vocab.itos, watched, scored,
                                    config.kn_orders, config.discount))
    sizes = {"train_pairs": len(pairs[0][1]), "watched_valid_predictions": len(pairs[1][1]),
             "scored_predictions": len(pairs[2][1])}
    numbers = numbers_of(counts, mlps, config, data, sizes)
    again = twice_the_budget(mlps, to_double(numbers, mlps),
                             lambda min_epochs, resume: train(min_epochs, resume)[0],
                             epochs=lambda r: r.history.convergence.epochs)
    doubled = (numbers_of(counts, again, config, data, sizes),
               [r.history for r in again.values()]) if again else None
    rows = table_rows(numbers, config, [r.history for r in mlps.values()], doubled)
    runs = {run_name(*key): r.history for key, r in mlps.items()}
    runs.update({f"{run_name(*key)} (twice the budget)": r.history for key, r in again.items()})
    return setup.replication(numbers, rows, figures_of(mlps, numbers, config),
                             BengioArtefacts.of(mlps, counts, data, pairs, again), runs)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)
