"""The work of ``bengio-kn``: the corpus (Austen, split and mapped to a closed vocabulary), the
count models, the MLPs and their mixture with a count model, run in worker processes (each
worker imports the functions here, so they stay at the top level)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...corpus import build_vocab, load_corpus, map_unknown, split_corpus
from ...languages.vocab import Vocab
from ...models.bengio import BengioMLP, target_log_probs
from ...models.kneser_ney import KneserNeyLM, ModifiedKneserNeyLM
from ...training import History, NextWord, Plateau, ReduceOnPlateau, fit, normal_embeddings
from ...utils import seed_everything
from ..replication import Timer
from ..workers import parallel_map
from .paper import BROWN_MIN_COUNT
from .settings import VARIANTS, BengioSettings

NAME = "bengio-kn"

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
    budget)."""
    seed_everything(seed)  # the initial weights; fit(seed=...) fixes the init and batch order
    model = BengioMLP(vocab_size, context=config.context, embedding_dim=config.embedding_dim,
                      hidden_size=config.hidden, direct=VARIANTS[variant])
    schedule = None if config.lr_patience is None else ReduceOnPlateau(
        factor=config.lr_factor, patience=config.lr_patience)
    history = fit(
        model, NextWordInChunks(), train_pairs, valid=valid_pairs,
        epochs=max(config.max_epochs, math.ceil(min_epochs)), min_epochs=min_epochs,
        batch_size=config.batch, optimizer="adam", lr=config.lr,
        fused=True,  # the Adam update of 0.8 M weights was a fifth of a step; fused, a twentieth
        weight_decay=config.weight_decay, schedule=schedule,
        init=normal_embeddings(config.embedding_std),
        until=Plateau(patience=config.patience, min_delta=config.min_delta),
        eval_every=config.eval_every, seed=seed, device=device, progress=False,
        resume=resume)
    model.cpu()
    valid, test = (target_log_probs(model, pairs).numpy() for pairs in (valid_pairs, test_pairs))
    return TrainedMLP(model, history, valid, test, float(np.exp(-test.mean())))


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
