"""The learning-curve figure every comparing chapter shows."""

import pytest

from course_rnn.analysis.curves import learning_curves
from course_rnn.training import Convergence, History


def history(losses, converged=True, valid=None):
    h = History()
    h.epochs = [{"epoch": i + 1, "train_loss": v, **({"valid_loss": valid[i]} if valid else {})}
                for i, v in enumerate(losses)]
    best = min(range(len(losses)), key=lambda i: (valid or losses)[i])
    h.convergence = Convergence("c", converged, "criterion met" if converged else "budget spent",
                                "r", len(losses), len(losses),
                                "valid_loss" if valid else "train_loss", best + 1,
                                (valid or losses)[best])
    return h


def test_one_panel_per_recorded_metric_and_unconverged_runs_are_marked():
    runs = {"LSTM": history([1.0, 0.5, 0.2], valid=[1.1, 0.6, 0.3]),
            "SRN": history([1.0, 0.9, 0.8], converged=False)}
    fig = learning_curves(runs, optimum=0.136, title="a^n b^n")
    axes = fig.axes
    assert len(axes) == 2  # train_loss and valid_loss
    labels = [line.get_label() for line in axes[0].get_lines()]
    assert "LSTM" in labels and "SRN (ran out of steps)" in labels and "exact optimum" in labels
    dashed = [line for line in axes[0].get_lines() if line.get_label() == "SRN (ran out of steps)"]
    assert dashed[0].get_linestyle() == "--"
    assert len(learning_curves(runs, ["train_loss"]).axes) == 1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="non-empty"):
        learning_curves({})
    with pytest.raises(TypeError, match="History"):
        learning_curves({"x": [1, 2]})
    with pytest.raises(ValueError, match="no run recorded"):
        learning_curves({"x": history([1.0])}, ["valid_accuracy"])
