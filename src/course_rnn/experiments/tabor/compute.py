"""The training runs of ``tabor-table4``: one FLNN per job (top level, so that a worker process
can import it), trained by backprop or by Tabor's climber, scored as in Table 4, and what the
numbers read from a trained network (learned? collapsed? Figure 4's spread)."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from ...analysis.dynamics import spread, visitation_set
from ...languages import Vocab
from ...languages.tabor import TaborGrammar, TaborGrammar1, TaborGrammar2
from ...models.flnn import FLNN, evaluate
from ...training import AnyOf, ExactDistributions, History, Optimum, Plateau, fit, hill_climb
from .settings import BACKPROP, HILL_CLIMB, TaborSettings

#: A self-weight this close to 0 makes its word forget the state (a collapsed solution).
COLLAPSED = 0.1


@dataclass
class TrainedRun:
    """One trained FLNN of ``group``: its ``seed``, ``model``, training ``history`` and Table 4's
    scores on the ``train`` and ``test`` corpora (:func:`~course_rnn.models.flnn.evaluate`'s
    dictionaries); a climb adds ``before``, the KL per point at its start."""

    group: str
    seed: int
    model: FLNN
    history: History
    train: dict
    test: dict
    before: float | None = None

    def scores(self, corpus: str) -> dict:
        """The scores on ``corpus`` ("train" or "test")."""
        return self.train if corpus == "train" else self.test


def grammar(number: int, end_marker: bool = False) -> tuple[TaborGrammar, Vocab]:
    """Grammar 1 or 2 (Tables 2–3), with Tabor's stream targets unless ``end_marker``, and its
    vocabulary."""
    if number not in (1, 2):
        raise ValueError(f"Tabor's grammars are 1 and 2, got {number!r}")
    language = {1: TaborGrammar1, 2: TaborGrammar2}[number](end_marker=end_marker)
    return language, Vocab(language.alphabet)


def scores(model: FLNN, language: TaborGrammar, vocab: Vocab) -> dict:
    """Table 4's scores at Tabor's points on the training corpus (≤ 3 levels) and the test
    corpus (4–5 levels)."""
    return {corpus: evaluate(model, language, sentences, vocab, after_start=False)
            for corpus, sentences in (("train", language.training_corpus()),
                                      ("test", language.test_corpus()))}


def criterion(group: str, settings: TaborSettings):
    """When a backprop run stops: at Tabor's KL criterion (the optimum 0 within ``kl_target``);
    with ``</s>``, whose optimum the FLNN cannot reach, at a plateau of the KL (those runs keep
    the weights of their best epoch); with equal rates at whichever comes first, so that a run
    whose self-weight collapsed stops where it is stuck (it then has not *learned*: see
    :func:`learned`, and its doubled budget shows that it stays stuck)."""
    _, end_marker, _, _, equal_rates = BACKPROP[group]
    optimum = Optimum(0.0, tolerance=settings.kl_target)
    plateau = Plateau(patience=settings.plateau_patience // settings.eval_every,
                      min_delta=settings.plateau_min_delta)
    if end_marker:
        return plateau
    return AnyOf(optimum, plateau) if equal_rates else optimum


def backprop_run(group: str, seed: int, settings: TaborSettings, device="cpu",
                 min_epochs: int = 0, resume=None) -> TrainedRun:
    """One FLNN of ``group`` trained by backpropagation through time until its criterion.
    ``min_epochs``: train at least that long; ``resume``: the History of this seed's first run
    (the doubled budget continues it)."""
    number, end_marker, rbf_size, _, equal_rates = BACKPROP[group]
    language, vocab = grammar(number, end_marker)
    model = FLNN(len(vocab), rbf_size=rbf_size, seed=seed)
    cap = settings.equal_rate_epochs if equal_rates else settings.epochs
    history = fit(model, ExactDistributions(language, vocab), language.training_corpus(),
                  batch_size=None, lr=settings.lr,
                  lr_factors=None if equal_rates else {"scale": settings.scale_lr_factor},
                  clip=None, epochs=max(cap, min_epochs), min_epochs=min_epochs,
                  eval_every=settings.eval_every,
                  until=criterion(group, settings), restore_best=end_marker, seed=seed,
                  device=device, progress=False, resume=resume)
    model.cpu()
    return TrainedRun(group, seed, model, history, **scores(model, language, vocab))


def hill_climb_run(group: str, seed: int, settings: TaborSettings, device="cpu") -> TrainedRun:
    """One FLNN trained by Tabor's climber from the same start as the backprop run of that seed
    (``before``: the KL per point at the start)."""
    language, vocab = grammar(HILL_CLIMB[group])
    model = FLNN(len(vocab), rbf_size=3, seed=seed).to(device)
    before = evaluate(model, language, language.training_corpus(), vocab,
                      after_start=False)["kl_per_position"]
    history = hill_climb(model, ExactDistributions(language, vocab), language.training_corpus(),
                         max_steps=settings.hc_steps, radii=settings.hc_radii, seed=seed,
                         target=settings.kl_target)
    model.cpu()
    return TrainedRun(group, seed, model, history, before=before,
                      **scores(model, language, vocab))


def continued_climb(run: TrainedRun, settings: TaborSettings, device="cpu") -> TrainedRun:
    """The doubled budget of a climb: from where it stopped, as many moves again at its
    smallest radius (the paper's 0.001). A climb that stopped because no move helped is flat
    there, so it stays where it is: more moves change nothing."""
    language, vocab = grammar(HILL_CLIMB[run.group])
    model = copy.deepcopy(run.model).to(device)
    history = hill_climb(model, ExactDistributions(language, vocab), language.training_corpus(),
                         max_steps=max(len(run.history), 1),
                         radii=(settings.hc_radii[-1],), seed=run.seed,
                         target=settings.kl_target)
    model.cpu()
    return TrainedRun(run.group, run.seed, model, history, before=run.before,
                      **scores(model, language, vocab))


def train_job(kind: str, group: str, seed: int, settings: TaborSettings, device: str,
              min_epochs: int = 0, run: TrainedRun | None = None) -> TrainedRun:
    """One job of :func:`~course_rnn.experiments.tabor.run` (top level, so that a worker
    process can import it)."""
    if kind == "backprop":
        return backprop_run(group, seed, settings, device, min_epochs,
                            run.history if run is not None else None)
    if kind == "climb":
        return hill_climb_run(group, seed, settings, device)
    if kind == "continue climb":
        return continued_climb(run, settings, device)
    raise ValueError(f"unknown job kind {kind!r}")


def doubled_job(run: TrainedRun, settings: TaborSettings, device: str,
                min_epochs: int | None = None) -> tuple:
    """The job that trains ``run`` to twice its budget: the same run, continued (a backprop
    run to ``min_epochs``, by default twice the whole epochs it began; a climb by as many moves
    again)."""
    if run.group in HILL_CLIMB:
        return ("continue climb", run.group, run.seed, settings, device, 0, run)
    if min_epochs is None:
        min_epochs = 2 * math.ceil(run.history.convergence.epochs)
    return ("backprop", run.group, run.seed, settings, device, min_epochs, run)


def jobs_for(settings: TaborSettings, seeds: dict[str, list[int]], device: str) -> list[tuple]:
    """Every training job (``seeds``: the seeds of each key of
    :data:`~.settings.SEED_KEYS`), the long climbs first (they start first in the worker
    pool)."""
    jobs = [("climb", name, seed, settings, device) for name, g in HILL_CLIMB.items()
            if g in settings.hc_grammars for seed in seeds["hc_seeds"]]
    return jobs + [("backprop", name, seed, settings, device)
                   for name, spec in BACKPROP.items() for seed in seeds[spec[3]]]


def top_level_spread(model: FLNN) -> dict:
    """Figure 4: how far a Grammar 1 stream network's visited states stray from their stack
    state's mean. ``train_max`` / ``test_max``: the largest distance on the training corpus
    (≤ 3 levels) / on every sentence with ≤ 5 levels; ``train_top``, ``test_top``: those
    distances for the empty stack ε (the top level, which Tabor finds most distorted)."""
    language, vocab = grammar(1)
    train = spread(visitation_set(model, language, language.training_corpus(), vocab))
    test = spread(visitation_set(model, language, language.sentences(5), vocab))
    return {"train_max": max(train.values()), "test_max": max(test.values()),
            "train_top": train[""], "test_top": test[""],
            "top_is_max": bool(test[""] == max(test.values()))}


def learned(r: TrainedRun) -> bool:
    """Tabor's success: 100% correct on the training corpus."""
    return r.train["percent_correct"] == 100.0


def collapsed(r: TrainedRun) -> bool:
    """Some self-weight near 0: that word resets the state, forgetting the stack."""
    return bool(np.any(np.abs(r.model.scale.detach().numpy()) < COLLAPSED))


def successful(runs: list[TrainedRun]) -> list[TrainedRun]:
    """The runs Table 4 averages: those that learned their training corpus; all runs when none
    did (the figures then say how far they got)."""
    return [r for r in runs if learned(r)] or list(runs)
