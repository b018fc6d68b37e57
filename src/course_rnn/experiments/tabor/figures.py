"""The figures of ``tabor-table4``: every run's learning curve, backprop and the climber apart."""

from __future__ import annotations

from .compute import TrainedRun
from .settings import BACKPROP, HILL_CLIMB


def run_name(r: TrainedRun, doubled: bool = False) -> str:
    """A run's readable name in ``Replication.runs``."""
    trainer = "hill climbing" if r.group.startswith("HC") else "backprop"
    group = r.group.removeprefix("HC ")
    return f"{trainer} {group} seed {r.seed}" + (" (2× budget)" if doubled else "")


def curves(groups: dict[str, list[TrainedRun]]) -> dict:
    """The learning curves: training KL per point (log scale) and training accuracy of every
    backprop run against the epoch, and of every climb against the move, with Tabor's
    criterion (mean KL < 0.001) dotted."""
    backprop = {run_name(r): r.history for name, group in groups.items()
                if name in BACKPROP for r in group}
    climbs = {run_name(r): r.history for name, group in groups.items()
              if name in HILL_CLIMB for r in group}
    from ...analysis.curves import learning_curves  # here: worker processes need no matplotlib

    figures = {}
    for key, runs, x in (("curves", backprop, "epoch (full batch)"),
                         ("climber_curves", climbs, "move of the climber")):
        if not runs:
            continue
        trainer = "backprop" if key == "curves" else "hill climbing"
        fig = learning_curves(runs, ("train_loss", "train_accuracy"), logy=True,
                              title=f"FLNN learning curves, {trainer}")
        for ax in fig.axes:
            ax.set_xlabel(x)
        fig.axes[0].set_ylabel("KL per position (train)")
        fig.axes[0].axhline(1e-3, color="0.4", ls=":", lw=1, label="Tabor's criterion")
        fig.axes[0].legend(fontsize=7)
        if len(fig.axes) > 1:
            fig.axes[1].set_yscale("linear")
        figures[key] = fig
    return figures
