"""urn-dyck's paper-vs-ours rows (B&L 2022 §5, Tables 3–4; 2023 §4, §6.1) and its figures."""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure

from ...analysis.curves import learning_curves
from ..replication import Row, pm
from .claims import Claim, range_gap
from .dyck import MIN_BRACKETS, probe_metric
from .results import DyckNumbers
from .settings import DyckSettings

#: 2022 Table 4: the range of one bracket's average effect after 100 epochs.
PAPER_SINGLE_EFFECT = (13.98, 14.85)


def dyck_claims(cfg: DyckSettings) -> list[Claim]:
    """The Dyck rows of the chapter's table (B&L 2022 §5, Tables 3–4; 2023 §4, §6.1)."""
    def score(n, name, key):
        return pm(n.summary[name][key], n.summary_se[name][key], 2)

    def change(n, name, low, high):
        labels = n.summary_labels
        return f"{score(n, name, low)} ({labels[low]}) → {score(n, name, high)} ({labels[high]})"

    def not_falling(n, name, low, high, slack=0.02):
        s = n.summary[name]
        return s[high] >= s[low] - slack, max(0.0, s[low] - slack - s[high])

    def falling(n, name, low, high):
        s = n.summary[name]
        return s[high] < s[low], max(0.0, s[high] - s[low])

    def single(n):
        e = n.embedding_ranges
        gap = range_gap(e.single_min, e.single_max, PAPER_SINGLE_EFFECT)
        return (f"{e.single_min:.2f}–{e.single_max:.2f}", e.single_max, gap == 0, gap)

    def matching(n):
        e = n.embedding_ranges
        return (f"{e.matching_min:.2f}–{e.matching_max:.2f}", e.matching_max,
                e.matching_max < 0.1, max(0.0, e.matching_max - 0.1))

    def much_smaller(n):
        e = n.embedding_ranges
        limit = 0.1 * e.single_min
        return (f"{e.matching_max:.2f} vs ≥ {e.single_min:.2f}", e.matching_max,
                e.matching_max < limit, max(0.0, e.matching_max - limit))

    def planes(n):
        e = n.embedding_ranges
        return (f"similar angles {e.plane_diagonal:.2f} vs others {e.plane_other:.2f}",
                e.plane_diagonal, e.plane_diagonal > e.plane_other,
                max(0.0, e.plane_other - e.plane_diagonal))

    def urn_attractors(name):
        def check(n):
            ok, gap = not_falling(n, name, "few_attractors", "many_attractors")
            return (change(n, name, "few_attractors", "many_attractors"),
                    n.summary[name]["many_attractors"], ok, gap)
        return check

    def urn_inner(n):
        ok, gap = not_falling(n, "3-TURN", "shallow_inner", "deep_inner")
        return (change(n, "3-TURN", "shallow_inner", "deep_inner"),
                n.summary["3-TURN"]["deep_inner"], ok, gap)

    def lstm_inner(n):
        ok, gap = falling(n, "LSTM", "shallow_inner", "deep_inner")
        return (change(n, "LSTM", "shallow_inner", "deep_inner"),
                n.summary["LSTM"]["deep_inner"], ok, gap)

    def matrix_attractors(n):
        ok, gap = falling(n, "MatrixRNN", "few_attractors", "many_attractors")
        return (change(n, "MatrixRNN", "few_attractors", "many_attractors"),
                n.summary["MatrixRNN"]["many_attractors"], ok, gap)

    def worst(n):
        w = n.worst_attractor_error
        return (f"3-TURN {w['3-TURN']:.2f} vs LSTM {w['LSTM']:.2f}", w["3-TURN"],
                w["3-TURN"] < w["LSTM"], max(0.0, w["3-TURN"] - w["LSTM"]))

    def test_loss(n):
        loss, se = n.test_loss, n.test_loss_se
        return (f"{pm(loss['Full-URN'], se['Full-URN'], 3)} vs "
                f"{pm(loss['MatrixRNN'], se['MatrixRNN'], 3)}", loss["Full-URN"],
                loss["Full-URN"] < loss["MatrixRNN"],
                max(0.0, loss["Full-URN"] - loss["MatrixRNN"]))

    units = cfg.units
    return [
        Claim("average effect ‖Q − I‖² of one bracket (3-TURN)", "13.98–14.85 (2022 Table 4)",
              single, ("3-TURN",), "how far each bracket's rotation moves the state: "
              "Σ 4(1 − cos θ) over its rotation angles θ"),
        Claim("average effect of a matching pair", "0.06–0.07 (2022 Table 4)", matching,
              ("3-TURN",), "‖Q(c) Q(o) − I‖²: a closer undoes its opener"),
        Claim("matching pair ≪ single bracket", "0.07 vs ≥ 13.98 (2022 Table 4)", much_smaller,
              ("3-TURN",), "agrees when a pair's effect is below a tenth of a bracket's"),
        Claim("planes rotated by similar angles overlap most", "up to 1.73 of 2 (2022 Table 3)",
              planes, ("3-TURN",), "mean plane similarity of the first two openers"),
        Claim("3-TURN accuracy vs attractors", "no decline; rises (2022 Fig. 3; 2023 §4.1)",
              urn_attractors("3-TURN"), ("3-TURN",), "closing-bracket accuracy pooled over "
              "attractor counts; slack 0.02"),
        Claim("Full-URN accuracy vs attractors", "no decline (2022 Fig. 3)",
              urn_attractors("Full-URN"), ("Full-URN",), "as above"),
        Claim("URN accuracy vs nesting inside the pair", "no decline with nesting depth "
              "(2022 §6.1; 2023 §6.1)", urn_inner, ("3-TURN",),
              "the papers' 'nesting' is the seeds' parenDepths: the depth of the material "
              "inside the pair; inner nesting ≥ 3 never occurs in training"),
        Claim("LSTM accuracy vs nesting inside the pair", "declines with nesting depth "
              "(2023 §6.1, citing earlier LSTM studies)", lstm_inner, ("LSTM",)),
        Claim("worst error over attractor counts, URN vs LSTM",
              "URN lower at equal units (2023 §4.1, Fig. 3c)", worst, ("3-TURN", "LSTM"),
              f"max over attractor counts with ≥ {MIN_BRACKETS} closing brackets; "
              f"{units} units here, 8–32 in the paper"),
        Claim("baseline (MatrixRNN) accuracy vs attractors", "steadily decreasing (2022 §5)",
              matrix_attractors, ("MatrixRNN",)),
        Claim("test loss, Full-URN vs unconstrained", "1.472 vs 1.529 (2022 §5)", test_loss,
              ("Full-URN", "MatrixRNN"), "mean cross-entropy per symbol on the unconstrained "
              "test strings, at each run's best validation epoch"),
    ]


def outer_depth_row(numbers: DyckNumbers) -> Row:
    """The row the papers did not measure: accuracy by the depth *outside* the pair."""
    s, se, labels = numbers.summary, numbers.summary_se, numbers.summary_labels
    ours = "; ".join(f"{name} {pm(s[name]['seen_outer'], se[name]['seen_outer'], 2)} → "
                     f"{pm(s[name]['unseen_outer'], se[name]['unseen_outer'], 2)}"
                     for name in ("3-TURN", "LSTM"))
    return Row("accuracy vs outer depth (brackets open around the pair)",
               "not measured (2022 §5.1 expects confusion 'inside a deeply nested structure')",
               ours, f"{labels['seen_outer']} → {labels['unseen_outer']}; a row the papers "
               "do not have, so no verdict")


def dyck_figures(numbers: DyckNumbers, depth: int, runs: Mapping) -> dict[str, Figure]:
    """``dyck_curves`` (learning curves, every run) and ``dyck_accuracy`` (accuracy by
    attractors | inner nesting | outer depth)."""
    unseen = probe_metric("unseen_outer", depth)
    curves = learning_curves(runs, ("train_loss", "valid_loss", unseen),
                             title="Dyck: training, validation (depth 3) and the probe of "
                                   "unseen outer depths", size=(13, 3.4))
    accuracy = Figure(figsize=(13, 3.4), layout="constrained")
    axes = accuracy.subplots(1, 3, sharey=True)
    panels = [("by_attractors", "attractors inside the pair", None),
              ("by_inner_nesting", "nesting inside the pair (the papers' 'nesting')", depth - 1),
              ("by_outer_depth", "outer depth: brackets open when it closes", depth)]
    for ax, (key, label, trained) in zip(axes, panels):
        for name, r in numbers.closing.items():
            ax.plot(list(r[key]), list(r[key].values()), "o-", ms=3, label=name)
        ax.axhline(0.2, color="0.5", ls=":", label="chance")
        if trained is not None:
            low = 0.5 if key == "by_outer_depth" else -0.5
            ax.axvspan(low, trained + 0.5, color="0.9", zorder=0, label="seen in training")
        ax.set_xlabel(label)
    axes[0].set_ylabel("closing-bracket accuracy")
    axes[2].legend(fontsize=7)
    return {"dyck_curves": curves, "dyck_accuracy": accuracy}


def run_name(name: str, seed: int, doubled: bool = False) -> str:
    return f"{name} seed {seed}" + (" (2× budget)" if doubled else "")


