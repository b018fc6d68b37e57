"""``elman-clusters``' figures: the word trees (Elman's Figure 7) and the learning curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from scipy.cluster import hierarchy

from ...analysis.curves import learning_curves
from ...languages import ElmanTemplates
from .compute import KINDS, TrainedRun
from .settings import REGIMES

#: One colour per word class of Figure 7.
KIND_COLOUR = {k: f"C{i}" for i, k in enumerate(KINDS)}


def draw_tree(tree: np.ndarray, labels: Sequence[str], ax, title: str,
              language: ElmanTemplates | None = None) -> None:
    """A left-to-right dendrogram on ``ax``, each word coloured by its kind (:data:`KINDS`)."""
    language = language or ElmanTemplates()
    hierarchy.dendrogram(tree, labels=list(labels), orientation="left", ax=ax,
                         color_threshold=0, above_threshold_color="0.35", leaf_font_size=11)
    for tick in ax.get_yticklabels():
        tick.set_color(KIND_COLOUR[language.category_of(tick.get_text()).kind])
    ax.set_title(title, fontsize=11)
    ax.set_xlabel("distance")


def kind_legend() -> tuple[list[Line2D], list[str]]:
    """Legend handles and labels for the colours of :func:`draw_tree`."""
    return [Line2D([], [], color=KIND_COLOUR[k], lw=4) for k in KINDS], list(KINDS)


def trees_figure(runs: Mapping[tuple[str, int], TrainedRun], seeds: Sequence[int],
                 language: ElmanTemplates) -> Figure:
    """The tree of every run: one row per regime, one column per seed. (Sized so that a page
    that shrinks three columns to its width still shows the words at ≈ 9 px.)"""
    fig = Figure(figsize=(4 * len(seeds), 11), layout="tight")
    axes = fig.subplots(len(REGIMES), len(seeds), squeeze=False)
    for row, regime in enumerate(REGIMES):
        for col, seed in enumerate(seeds):
            r = runs[regime, seed]
            draw_tree(r.tree, r.states.words, axes[row, col], f"{regime}, seed {seed}", language)
    fig.legend(*kind_legend(), loc="lower center", ncol=4, fontsize=11)
    fig.get_layout_engine().set(rect=(0, 0.04, 1, 1))
    return fig


def curves_figures(runs: Mapping[tuple[str, int], TrainedRun], optima: Mapping[str, float]
                   ) -> dict[str, Figure]:
    """The learning curves of each regime (``curves_sentences``, ``curves_stream``): training
    and held-out loss of every seed (and, for sentences, the loss against the exact
    distribution), with the regime's exact optimum dotted."""
    figures = {}
    for regime in REGIMES:
        mine = {f"seed {seed}": r.history for (g, seed), r in runs.items() if g == regime}
        if not mine:
            continue
        metrics = ("train_loss", "valid_loss") + (("exact_loss",) if regime == "sentences"
                                                   else ())
        figure = learning_curves(mine, metrics, optimum=optima[regime],
                                 title=f"SRN, {regime} regime (dotted: the exact optimum"
                                       + (", the entropy bound)" if regime == "sentences"
                                          else " of the held-out stream)"))
        if regime == "sentences":
            figure.axes[2].set_ylabel("loss against the exact distribution (nats)")
        figures[f"curves_{regime}"] = figure
    return figures
