"""``decay-rnn-agreement``'s figures: accuracy by attractors, α during training (Fig. 5), and
the learning curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from ...analysis.curves import learning_curves
from .compute import RunSpec, TrainedRun
from .paper import PAPER_ALPHA
from .report import histories_by_model
from .results import AgreementNumbers, Alpha


def attractor_figure(numbers: AgreementNumbers) -> Figure:
    """Number-prediction accuracy against the number of attractors (mean over seeds)."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for name, r in numbers.number_prediction.items():
        keys = sorted(r.by_attractors)
        ax.plot(keys, [r.by_attractors[k].mean for k in keys], marker="o", label=name)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(4))
    ax.set_xlabel("number of attractors")
    ax.set_ylabel("number-prediction accuracy")
    ax.set_title("Converged models by attractors (mean over seeds)")
    ax.legend(fontsize=8, ncol=2)
    return fig


def alpha_figure(alpha: Alpha, sigmoid: Mapping | None = None) -> Figure:
    """α of the DRNN over optimizer steps, one curve per start (the paper's Fig. 5); ``sigmoid``:
    the σ-parametrised main run(s), dashed."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for a0, xs, ys in zip(alpha.starts, alpha.steps, alpha.values):
        ax.plot(xs, ys, label=f"α trained directly, start {a0:g}")
    for label, (xs, ys) in (sigmoid or {}).items():
        ax.plot(xs, ys, ls="--", color="black", label=label)
    ax.axhline(PAPER_ALPHA, color="grey", ls=":", lw=1)
    ax.set_xlabel("optimizer step (grammaticality)")
    ax.set_ylabel(r"$\alpha$")
    ax.set_ylim(0, 1)
    ax.set_title(r"Learned decay $\alpha$ of the DRNN, each run until solved")
    ax.legend(fontsize=7)
    return fig


def curve_figures(histories: Mapping[tuple[str, str], list], seeds: Sequence[int],
                  lm_histories: Mapping[str, object]) -> dict[str, Figure]:
    """The learning curves: number prediction (every model, first seed), grammaticality, LMs."""
    first = seeds[0]
    figures = {}
    for task, key in (("number prediction", "curves"), ("grammaticality", "curves_grammaticality")):
        runs = {name: hs[0] for (t, name), hs in histories.items() if t == task and hs}
        if runs:
            figures[key] = learning_curves(
                runs, ("train_accuracy", "valid_accuracy"),
                title=f"{task.capitalize()}: learning curves (seed {first})")
    figures["curves_lm"] = learning_curves(
        lm_histories, ("train_loss", "valid_loss"),
        title=f"Language models: learning curves (seed {first})")
    return figures


def make_figures(numbers: AgreementNumbers, results: Mapping[RunSpec, TrainedRun],
                 seeds: Sequence[int]) -> dict[str, Figure]:
    """Accuracy by attractors, α during training (with the σ-parametrised main DRNN dashed),
    and the learning curves."""
    histories = histories_by_model(results)
    figures = {"attractors": attractor_figure(numbers)}
    if numbers.alpha is not None:
        main = histories.get(("grammaticality", "DRNN"), [None])[0]
        sigmoid = {"α = σ(a), start 0.8 (main run)": (main.step_values("step"),
                                                      main.step_values("alpha"))} \
            if main is not None else None
        figures["alpha"] = alpha_figure(numbers.alpha, sigmoid)
    lms = {s.name: r.history for s, r in results.items() if s.task == "lm"}
    figures.update(curve_figures(histories, seeds, lms))
    return figures
