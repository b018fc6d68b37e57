"""Tabor's (2011) "gradient sampling": a hill climber for the fractal learning network.

§3.2 of the paper: at each step, try moving every single weight by ``+r`` and by ``−r`` (the
basis directions and their negatives on a sphere of radius ``r``), keep the move that lowers the
summed KL error E the most, repeat::

    E(w) = Σ_positions Σ_i t_i log(t_i / o_i(w))
    w ← w + argmin_{d ∈ {±r e_k}} E(w + d)          while some move lowers E

The paper used r = 0.001 throughout. A climber at one radius stops where no single move helps:
a point that is *flat at that radius*, not necessarily a minimum. Stopped early, it looks like a
failure of the method when it is only a failure of patience; so :func:`hill_climb` climbs until
flat, then shrinks the radius (``radii=(0.02, 0.005, 0.001)`` by default) and climbs again. It has
*converged* when it is flat at the smallest radius, or when the mean error per position falls
below ``target`` (the paper's 0.001). It reports through the same
:class:`~course_rnn.training.History` and :class:`~course_rnn.training.Convergence` as
:func:`~course_rnn.training.fit`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

import numpy as np
import torch

from ..checks import check_positive
from ..models.flnn import FLNN, kl_error
from ..utils import shift_seed
from .convergence import Convergence
from .history import History
from .progress import report_run
from .tasks import ExactDistributions

#: Tabor's radius comes last; the larger ones get there in fewer steps.
RADII = (0.02, 0.005, 0.001)


def _check(max_steps, radii, directions, target) -> tuple[float, ...]:
    check_positive(max_steps, "max_steps")
    radii = tuple(radii) if isinstance(radii, Sequence) else (radii,)
    if not radii or any(isinstance(r, bool) or not isinstance(r, (int, float)) or not r > 0
                        for r in radii):
        raise ValueError(f"radii must be positive numbers, got {radii!r}")
    if any(b >= a for a, b in zip(radii, radii[1:])):
        raise ValueError(f"radii must shrink from one to the next, got {radii!r}")
    if directions is not None:
        check_positive(directions, "directions")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or target < 0:
        raise ValueError(f"target must be a number ≥ 0, got {target!r}")
    return tuple(float(r) for r in radii)


@torch.no_grad()
def hill_climb(
    model: FLNN,
    task: ExactDistributions,
    sentences: Sequence,
    *,
    max_steps: int = 50_000,
    radii: float | Sequence[float] = RADII,
    directions: int | None = None,
    target: float = 0.001,
    seed: int = 0,
) -> History:
    """Climb ``model``'s weights down Tabor's error on ``sentences`` (in place); return the
    history, one record per accepted move (``epoch`` = move number, ``train_loss`` = mean KL per
    position, ``radius``, ``weight``: which parameter moved).

    ``max_steps`` caps the moves over all radii. ``directions``: try only this many randomly
    chosen weights per step (drawn from ``seed``) instead of all of them.
    """
    if not isinstance(model, FLNN):
        raise TypeError(f"hill_climb trains an FLNN, got {type(model).__name__}")
    if not isinstance(task, ExactDistributions):
        raise TypeError(f"hill_climb needs an ExactDistributions task, got "
                        f"{type(task).__name__}")
    radii = _check(max_steps, radii, directions, target)
    task.check_model(model)
    data = task.prepare(sentences).to(model.device)
    (batch, targets), = [task.select(data, torch.arange(len(data), device=model.device))]
    positions = float(batch.mask.sum())
    weights = model.weight_tensors()
    names = [name for name, p in zip(model.WEIGHT_NAMES, weights) for _ in range(p.numel())]
    flat = torch.cat([p.detach().reshape(-1) for p in weights])
    n = flat.numel()
    if directions is not None and directions > n:
        raise ValueError(f"directions must be at most {n} (the number of weights), got "
                         f"{directions}")
    rng = np.random.default_rng(shift_seed(seed))
    errors_of = partial(_errors, model, weights, batch, targets)  # of candidate weight rows
    history = History(settings={"algorithm": "hill climbing (Tabor 2011, §3.2)",
                                "radii": list(radii), "max_steps": max_steps,
                                "directions": directions, "target": target, "seed": seed,
                                "train_items": len(data)})
    error = float(errors_of(flat[None])[0])
    start = began = time.perf_counter()
    step, level, stopped = 0, 0, "budget spent"
    while step < max_steps:
        radius = radii[level]
        tried = np.arange(n) if directions is None else rng.choice(n, directions, replace=False)
        index = torch.as_tensor(tried, device=flat.device)
        moves = torch.zeros(2 * len(tried), n, device=flat.device)
        rows = torch.arange(len(tried), device=flat.device)
        moves[rows, index] = radius
        moves[rows + len(tried), index] = -radius
        errors = errors_of(flat + moves)
        best = int(torch.argmin(errors))
        if float(errors[best]) >= error:  # flat at this radius: no single-weight move helps
            if level + 1 == len(radii):
                stopped = "criterion met"
                break
            level += 1
            continue
        flat, error, step = flat + moves[best], float(errors[best]), step + 1
        now = time.perf_counter()
        history.epochs.append({"epoch": step, "step": step, "train_loss": error / positions,
                               "radius": radius, "weight": names[int(tried[best % len(tried)])],
                               "seconds": now - start})
        start = now
        report_run(step, max_steps, "move", began)
        if error / positions < target:
            stopped = "criterion met"
            break
    at = 0
    for p in weights:
        p.copy_(flat[at: at + p.numel()].reshape(p.shape))
        at += p.numel()
    report_run(step, max_steps, "move", began, finished=True)
    history.convergence = _convergence(stopped, step, max_steps, radii, level,
                                       error / positions, target)
    history.best_epoch = step
    return history


def _errors(model: FLNN, weights: list, batch, targets, candidates: torch.Tensor) -> torch.Tensor:
    """Summed KL error of each row of ``candidates [K, n]`` (flattened weight settings)."""
    shaped, at = [], 0
    for p in weights:
        shaped.append(candidates[:, at: at + p.numel()].reshape(-1, *p.shape))
        at += p.numel()
    logits = model.run_population(batch.inputs, *shaped)["logits"]
    return kl_error(logits, targets, batch.mask)


def _convergence(stopped: str, step: int, max_steps: int, radii: tuple, level: int,
                 final: float, target: float) -> Convergence:
    """The record of a climb that ended after ``step`` moves at ``radii[level]`` with a mean KL
    per position of ``final``: the budget spent, the target reached, or flat at the last
    radius."""
    if stopped == "budget spent":
        reason = (f"cap of {max_steps} moves reached at radius {radii[level]:g}, not yet flat; "
                  f"mean KL per position {final:.5f}")
    elif final < target:
        reason = f"mean KL per position {final:.5f} < target {target:g} after {step} moves"
    else:
        reason = (f"flat at the smallest radius {radii[-1]:g} after {step} moves: no single "
                  f"weight move lowers the error (mean KL per position {final:.5f})")
    return Convergence(
        criterion=f"flat at radius {radii[-1]:g} (radii {', '.join(f'{r:g}' for r in radii)}) "
                  f"or mean KL per position < {target:g}",
        converged=stopped == "criterion met", stopped=stopped, reason=reason, epochs=step,
        steps=step, monitor="train_loss", best_epoch=step, best=final,
        final={"train_loss": final, "radius": radii[level], "step": step})

