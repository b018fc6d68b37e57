"""The figures of ``anbn``: every seed's final max_correct_n, the LSTM seeds' max_correct_n over
the epochs, and each model's learning curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...analysis.curves import learning_curves
from .results import RunScore
from .settings import AnbnSettings, model_name


def final_figure(runs: Sequence[RunScore], train_max_n: int, test_max_n: int):
    """Final max_correct_n, one marker per seed, per model: filled when the seed fitted its
    training set, hollow when it was stuck above the optimum, a cross when it hit the cap (the
    dashed line: longest training n)."""
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(r.model for r in runs))
    fig = Figure(figsize=(1.3 * len(names) + 1.5, 3.2), layout="tight")
    ax = fig.subplots()
    for i, name in enumerate(names):
        mine = [r for r in runs if r.model == name]
        xs = np.full(len(mine), i) + np.linspace(-0.15, 0.15, len(mine))
        for x, r in zip(xs, mine):
            if not r.converged:
                ax.scatter([x], [r.max_correct_n], s=36, color=f"C{i}", marker="x")
            else:
                ax.scatter([x], [r.max_correct_n], s=36, color=f"C{i}",
                           facecolors=f"C{i}" if r.fitted else "none")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.text(-0.4, train_max_n + 1, "longest training n", ha="left", fontsize=8, color="grey")
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(-2, test_max_n + 3)
    ax.set_ylabel("max_correct_n (final model)")
    ax.set_title("a^n b^n, one marker per seed (hollow: stuck above the optimum)", fontsize=9)
    return fig


def epochs_figure(runs: Sequence[RunScore], train_max_n: int, model: str = "LSTM"):
    """max_correct_n at every evaluation, one line per seed of ``model`` (dashed: a seed that
    did not fit its training set)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), layout="tight")
    ax = fig.subplots()
    for r in (r for r in runs if r.model == model):
        ax.plot(r.curve_epochs, r.max_correct_n_curve, lw=1,
                ls="-" if r.fitted else "--", label=f"{model} seed {r.seed}")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("max_correct_n")
    ax.legend(fontsize=7, ncol=2)
    return fig


def curves_figures(histories: Mapping, cfg: AnbnSettings, optimum: float) -> dict:
    """One learning-curve figure per model (``curves_<id>``): every seed's training loss against
    the exact optimum; unconverged seeds dashed."""
    figures = {}
    for model_id in cfg.models:
        mine = {f"seed {seed}": h for (m, seed), h in histories.items() if m == model_id}
        if mine:
            figures[f"curves_{model_id}"] = learning_curves(
                mine, ("train_loss",), optimum=optimum, logy=True, size=(4.6, 3.2),
                title=f"{model_name(model_id, cfg)}: training loss")
    return figures
