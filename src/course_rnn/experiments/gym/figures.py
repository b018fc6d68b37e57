"""The ``gym``'s figures: the common metric as a heatmap, and the learning curves per
language."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...analysis.curves import learning_curves
from .results import GymRun, cell_means, models_and_languages
from .settings import GYM_LANGUAGES


def gym_heatmap(rows: Sequence[GymRun]):
    """The table's common metric as a heatmap: mean ``valid_strings`` and the seeds' range;
    cells with an unconverged run are left blank and say so."""
    from matplotlib.figure import Figure

    means = cell_means(rows)
    models, languages = models_and_languages(rows)
    fig = Figure(figsize=(7.5, 4.4), layout="tight")  # cell numbers ≈ 11 px on a page
    ax = fig.subplots()
    grid = np.full((len(models), len(languages)), np.nan)
    for (i, model), (j, lang) in ((a, b) for a in enumerate(models) for b in enumerate(languages)):
        m = means.get((model, lang))
        if m is None or not m.all_converged:
            text = "n/a" if m is None else "not\nconverged"
            ax.text(j, i, text, ha="center", va="center", color="grey", fontsize=9)
            continue
        grid[i, j] = m.valid_strings
        ax.text(j, i, f"{m.valid_strings:.2f}\n{m.min:.2f}–{m.max:.2f}", ha="center",
                va="center", color="black" if grid[i, j] > 0.6 else "white", fontsize=9)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(languages)), languages, rotation=20)
    ax.set_yticks(range(len(models)), models)
    ax.set_xlabel("language (tested on longer / deeper strings)")
    ax.set_ylabel("model")
    fig.colorbar(image, ax=ax, label="valid_strings")
    ax.set_title("Share of held-out strings predicted validly throughout", fontsize=9)
    return fig


def gym_curves(rows: Sequence[GymRun]) -> dict:
    """One learning-curve figure per language (every model and seed; training and validation
    loss), drawn by :func:`~course_rnn.analysis.curves.learning_curves`."""
    figures = {}
    for lang in models_and_languages(rows)[1]:
        runs = {f"{r.model} seed {r.seed}": r.history for r in rows
                if r.language == lang and r.history is not None}
        if runs:
            figures[f"curves_{lang}"] = learning_curves(
                runs, ("train_loss", "valid_loss"), title=f"{lang}: {GYM_LANGUAGES[lang]}",
                size=(9, 3))
    return figures
