"""The computing of ``anbn``: the training data and its exact optimum, when a run has learned,
the counting test, training one model (top level, for worker processes) and scoring it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from ...languages import AnBn, Vocab, make_batch
from ...metrics import optimal_loss
from ...models import build_model
from ...training import AnyOf, Optimum, Plateau, ReduceOnPlateau, fit
from ..workers import parallel_map
from .results import LossByPhase, RunScore
from .settings import EXTRA_MODELS, MODELS, AnbnSettings, model_name

#: What became of a run: it reached the cap first; it settled above the optimum (converged,
#: training set not fitted); it fitted but got some n ≤ N_train + 1 wrong; it fitted and was
#: right beyond the training range.
OUTCOMES = ("not converged", "failed to learn", "learned, did not generalise", "generalised")


def model_seeds(model_id: str, seeds: Sequence[int], cfg: AnbnSettings) -> list[int]:
    """The seeds ``model_id`` is trained on (the extra SRNs: the first ``extra_seeds``)."""
    return list(seeds[: cfg.extra_seeds]) if model_id in EXTRA_MODELS else list(seeds)


def train_strings(train_max_n: int, repeats: int) -> list[tuple]:
    """One epoch's strings: a^n b^n for n = 1 … ``train_max_n``, each ``repeats`` times."""
    return [AnBn.string(n) for n in range(1, train_max_n + 1)] * repeats


def training_optimum(cfg: AnbnSettings) -> float:
    """The exact minimum of the mean training loss (nats per symbol) on the training strings."""
    return optimal_loss(train_strings(cfg.train_max_n, cfg.repeats))


def evaluations(epochs: int, cfg: AnbnSettings) -> int:
    """``epochs`` counted in evaluations (one every ``eval_every`` epochs; at least one)."""
    return max(1, epochs // cfg.eval_every)


def learned(cfg: AnbnSettings) -> AnyOf:
    """When a run stops, converged: fitted (within ``tolerance`` of the optimum) or stuck (a
    plateau of the training loss over ``patience`` epochs)."""
    return AnyOf(Optimum(training_optimum(cfg), cfg.tolerance),
                 Plateau("train_loss", patience=evaluations(cfg.patience, cfg),
                         min_delta=cfg.min_delta))


# -- the counting test ----------------------------------------------------------------------------
class CountingTest:
    """Which of a^n b^n, n = 1 … ``max_n``, a model gets right, in one forward pass.

    The test of :func:`course_rnn.metrics.anbn_generalisation`: a string is right when the
    model's top prediction (over EOS and the letters) is the forced symbol at every position
    after the first b – each later b, then the end. The strings are batched once, here.
    """

    def __init__(self, vocab: Vocab, max_n: int):
        batch = make_batch(vocab, [AnBn.string(n) for n in range(1, max_n + 1)])
        n = torch.arange(1, max_n + 1)[:, None]
        t = torch.arange(batch.inputs.shape[1])[None, :]
        self.forced = (t > n) & (t <= 2 * n)  # row t predicts the symbol after t inputs
        self.inputs, self.targets = batch.inputs, batch.targets
        self.first = vocab.eos_id  # the output symbols: EOS, then the letters

    def right(self, model) -> np.ndarray:
        """A boolean per n = 1 … max_n: every forced position right."""
        was_training = model.training
        model.eval()
        with torch.no_grad():
            logits = model(self.inputs.to(model.device))[..., self.first:]
        model.train(was_training)
        guess = logits.argmax(-1).cpu() + self.first
        return ((guess == self.targets) | ~self.forced).all(dim=1).numpy()

    def max_correct_n(self, model) -> int:
        """The largest N such that every n ≤ N is right (0 when n = 1 is wrong)."""
        return max_correct_n(self.right(model))


def loss_by_phase(model, vocab: Vocab, train_max_n: int) -> LossByPhase:
    """The mean training loss (nats per predicted symbol, n = 1 … ``train_max_n`` once each)
    split in two parts that add up to it: ``uncertain``, the predictions made while reading
    the a's (will another a come, or the first b?), and ``forced``, those after the first b
    (each later b, then the end), which a counter gets right with certainty. The exact optimum
    puts all of its loss in the first part."""
    batch = make_batch(vocab, [AnBn.string(n) for n in range(1, train_max_n + 1)])
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(batch.inputs.to(model.device)).float().cpu()
    model.train(was_training)
    each = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch.targets,
                                             reduction="none")
    n = torch.arange(1, train_max_n + 1)[:, None]
    t = torch.arange(batch.inputs.shape[1])[None, :]
    forced = (t > n) & (t <= 2 * n)
    total = batch.mask.sum()
    return LossByPhase(uncertain=float((each * (batch.mask & ~forced)).sum() / total),
                       forced=float((each * forced).sum() / total))


def max_correct_n(right: np.ndarray) -> int:
    """The largest N such that ``right[n - 1]`` holds for every n ≤ N."""
    wrong = np.flatnonzero(~np.asarray(right, dtype=bool))
    return int(wrong[0]) if wrong.size else len(right)


# -- one run --------------------------------------------------------------------------------------
def train_one(model_id: str, seed: int, cfg: AnbnSettings, device=None, min_epochs: int = 0,
              clip="settings", resume=None) -> tuple:
    """Build and train one model until it fits its training set, is stuck, or hits the cap;
    return ``(model, history)``. ``history["max_correct_n"]`` is max_correct_n (n ≤
    ``test_max_n``) at every evaluation (every ``eval_every`` epochs). ``min_epochs``
    trains at least that long and ``resume`` (the History of the seed's first run) continues
    it (twice its budget); ``clip`` overrides the setting (None: no clipping). Top level, for
    worker processes."""
    kind, options, size = MODELS[model_id]
    vocab = Vocab.for_language(AnBn())
    model = build_model(kind, vocab_size=len(vocab), hidden_size=getattr(cfg, size), seed=seed,
                        **options)
    test = CountingTest(vocab, cfg.test_max_n)
    strings = train_strings(cfg.train_max_n, cfg.repeats)
    steps_per_epoch = math.ceil(len(strings) / (cfg.batch_size or len(strings)))
    history = fit(model, vocab, strings, epochs=max(cfg.epochs, min_epochs),
                  min_epochs=min_epochs, batch_size=cfg.batch_size, lr=cfg.lr,
                  schedule=ReduceOnPlateau(0.5, evaluations(cfg.lr_patience, cfg),
                                           cfg.min_lr),
                  clip=cfg.clip if clip == "settings" else clip, until=learned(cfg),
                  eval_every=cfg.eval_every * steps_per_epoch, seed=seed, device=device,
                  metrics={"max_correct_n": test.max_correct_n}, progress=False, resume=resume)
    return model, history



def outcome(converged: bool, fitted: bool, max_correct_n: int, train_max_n: int) -> str:
    """One of :data:`OUTCOMES`."""
    if not converged:
        return OUTCOMES[0]
    if not fitted:
        return OUTCOMES[1]
    return OUTCOMES[3] if max_correct_n > train_max_n else OUTCOMES[2]


def score_run(model_id: str, seed: int, model, history, cfg: AnbnSettings) -> RunScore:
    """One run's numbers (a :class:`~.results.RunScore`): whether and when it converged and
    whether it fitted (its final loss within ``tolerance`` of the optimum), where its loss lies
    (:func:`loss_by_phase`), how many n are right inside (n ≤ N_train) and beyond the training
    range, max_correct_n at the end, at every evaluation (``curve_epochs``) and at its best
    evaluation, the largest gradient norm and the share of clipped steps, and its
    :func:`outcome`."""
    train_n, test_n = cfg.train_max_n, cfg.test_max_n
    right = CountingTest(Vocab.for_language(AnBn()), test_n).right(model)
    max_correct = max_correct_n(right)
    curve = [int(v) for v in history["max_correct_n"]]
    record = history.convergence
    final_loss = float(history.last["train_loss"])
    gap = final_loss - training_optimum(cfg)
    fitted = bool(record.converged) and gap <= cfg.tolerance
    clipped = history["clipped"]
    return RunScore(
        model=model_name(model_id, cfg), id=model_id, seed=int(seed),
        converged=bool(record.converged), fitted=fitted, stopped=record.stopped,
        epochs=float(record.epochs), steps=int(record.steps),
        final_loss=final_loss, best_loss=float(min(history["train_loss"])), gap_to_optimum=gap,
        train_right=int(right[:train_n].sum()), beyond_right=int(right[train_n:].sum()),
        max_correct_n=max_correct, max_correct_n_best_epoch=max(curve),
        max_correct_n_curve=curve, curve_epochs=[float(e) for e in history["epoch"]],
        right=[bool(v) for v in right],
        loss_by_phase=loss_by_phase(model, Vocab.for_language(AnBn()), train_n),
        max_grad_norm=float(max(history["grad_norm"])),
        clipped_share=float(np.mean(clipped)) if clipped else 0.0,
        outcome=outcome(record.converged, fitted, max_correct, train_n))


def train_all(pairs, cfg, device, progress, min_epochs=None, resume=None) -> list:
    """Train every (model id, seed) of ``pairs`` in parallel; ``min_epochs`` and ``resume``
    map a pair to its budget and the History it continues."""
    jobs = [(m, s, cfg, str(device), (min_epochs or {}).get((m, s), 0), "settings",
             (resume or {}).get((m, s))) for m, s in pairs]
    return parallel_map(train_one, jobs, device=device, desc="a^n b^n", progress=progress)

