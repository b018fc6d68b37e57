"""Learning curves: the one figure every chapter that compares models shows.

A table of final figures hides *how* each model got there, and whether it had finished. Drawing
the compared runs' curves side by side shows both: a curve still falling at its last point was
stopped too early, one that flattened far above the exact optimum failed to fit. Runs whose
:class:`~course_rnn.training.Convergence` record says they did not converge are drawn dashed and
labelled "(not converged)", so a reader never mistakes a stopped run for a finished one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

#: How each recorded figure is labelled on the y axis.
LABELS = {
    "train_loss": "training loss (nats)", "valid_loss": "validation loss (nats)",
    "train_accuracy": "training accuracy", "valid_accuracy": "validation accuracy",
}


def learning_curves(
    runs: Mapping[str, object],
    metrics: Sequence[str] = ("train_loss", "valid_loss"),
    *,
    optimum: float | None = None,
    title: str | None = None,
    x: str = "epoch",
    logy: bool = False,
    size: tuple[float, float] | None = None,
) -> Figure:
    """One panel per metric in ``metrics`` (those no run recorded are skipped), one line per
    run of ``runs`` (``{name: History}``), against ``x`` (``"epoch"`` or ``"step"``).

    ``optimum``: the language's exact optimum loss, drawn as a dotted line on loss panels. Each
    run's best monitored point is marked with a dot.
    """
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("learning_curves needs a non-empty {name: History} mapping")
    for name, history in runs.items():
        if not hasattr(history, "epochs") or not hasattr(history, "convergence"):
            raise TypeError(f"runs[{name!r}] must be a training History, got "
                            f"{type(history).__name__}")
    if isinstance(metrics, str):
        metrics = (metrics,)
    shown = [m for m in metrics if any(any(m in e for e in h.epochs) for h in runs.values())]
    if not shown:
        raise ValueError(f"no run recorded any of {list(metrics)}")
    fig = Figure(figsize=size or (4.2 * len(shown), 3.2), layout="constrained")
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    colours = {}
    for ax, metric in zip(axes, shown):
        for name, history in runs.items():
            xs = [e[x] for e in history.epochs if metric in e]
            ys = [e[metric] for e in history.epochs if metric in e]
            if not xs:
                continue
            done = history.convergence is None or history.convergence.converged
            line, = ax.plot(xs, ys, lw=1.3, ls="-" if done else "--", color=colours.get(name),
                            label=name if done else f"{name} ({history.convergence.ending})")
            colours[name] = line.get_color()
            best = history.convergence.best_epoch if history.convergence else None
            if best is not None and metric == history.convergence.monitor and x == "epoch":
                at = [i for i, v in enumerate(xs) if v == best]
                if at:
                    ax.plot([xs[at[0]]], [ys[at[0]]], "o", ms=4, color=line.get_color())
        if optimum is not None and metric.endswith("loss"):
            ax.axhline(optimum, color="black", ls=":", lw=1, label="exact optimum")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(x)
        ax.set_ylabel(LABELS.get(metric, metric))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
