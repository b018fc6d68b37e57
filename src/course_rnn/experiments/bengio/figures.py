"""The figures of ``bengio-kn``: the MLPs' validation perplexity while they train, against the
count models, and every model's perplexity relative to the best count model of its corpus."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .compute import kn_name, mlp_name, run_name
from .paper import PAPER_KN, PAPER_MIXTURE, PAPER_MLP
from .results import BengioNumbers
from .settings import BengioSettings


def curves_figure(mlps: dict, numbers: BengioNumbers) -> Figure:
    """Validation perplexity of every MLP run while it trains, against the count models'
    validation perplexities on the same sentences, and each run's mixture (a dot at its best
    checkpoint, the weights it keeps)."""
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


def perplexity_figure(numbers: BengioNumbers, config: BengioSettings) -> Figure:
    """Each model's test perplexity divided by the best count model of its own corpus: the
    paper's (Brown, best Kneser–Ney) beside ours (Austen); below 1 beats counting. Bars are
    labelled with the perplexities themselves; our MLP bars carry ± 1 SE over seeds."""
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

