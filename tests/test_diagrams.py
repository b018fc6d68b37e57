"""Architecture diagrams (course_rnn.analysis.diagrams): each is a white Figure that shows the
boxes its chapter's equations name."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from course_rnn.analysis import diagrams
from course_rnn.languages.tabor import PDDA1

# diagram -> words that must appear among its labels (each in some label)
EXPECTED = {
    "bengio_network": ["index of $w_{t-1}$", "$C(w_{t-3})$", "hidden layer", "softmax",
                       "direct", "look up in C"],
    "srn_rolled_unrolled": ["rolled up", "unrolled", "context", "$h_t$", "$h_0$", "$h_3$",
                            "cookie", "→ </s>", "W", "U", "V"],
    "gru_cell": ["update gate", "reset gate", "candidate", "$h_{t-1}$", "$h_t$", "1−z",
                 r"$h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}$"],
    "lstm_cell": ["forget gate", "input gate", "output gate", "candidate", "cell state",
                  "$C_{t-1}$", "$C_t$", "$h_t$", "tanh"],
    "decay_rnn_cell": ["recurrent weights", "input weights", "decay", "ReLU", "Dale", "SDRNN",
                       "Ab-DRNN", "$h_t$"],
    "flnn_network": ["input", "Hidden1", "Hidden2", "Gaussian", "output", "scale $s_j$",
                     "offsets"],
    "urn_step": ["generator", "rotation", "softmax", "no nonlinearity", "$h_{t-1}$",
                 "a rotation keeps"],
    "stack_actions": ["before", "push $v$", "pop", "no-op", "soft:", "top",
                      "what a Stack-RNN computes"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_diagram_is_a_white_figure_with_its_labelled_boxes(name):
    fig = getattr(diagrams, name)()
    assert isinstance(fig, Figure)
    assert to_rgba(fig.get_facecolor()) == (1.0, 1.0, 1.0, 1.0), "opaque white, light or dark page"
    shown = diagrams.labels(fig)
    missing = [word for word in EXPECTED[name] if not any(word in text for text in shown)]
    assert not missing, f"{name} lacks {missing}; it shows {shown}"
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=40)  # it draws (the mathtext parses)
    assert png.tell() > 1000


def test_the_unrolled_srn_has_one_copy_per_word_and_names_each_prediction():
    fig = diagrams.srn_rolled_unrolled(["<s>", "dog", "sleep"])
    shown = diagrams.labels(fig)
    assert {"$h_0$", "$h_1$", "$h_2$", "→ dog", "→ sleep", "→ </s>"} <= set(shown)
    assert "$h_3$" not in shown
    with pytest.raises(ValueError, match="one prediction per word"):
        diagrams.srn_rolled_unrolled(["<s>", "dog"], predictions=["dog"])
    with pytest.raises(ValueError, match="words"):
        diagrams.srn_rolled_unrolled([])


def test_bad_sizes_are_named():
    with pytest.raises(ValueError, match="context"):
        diagrams.bengio_network(context=0)
    with pytest.raises(ValueError, match="gaussians"):
        diagrams.flnn_network(gaussians=9)


def test_the_stack_map_is_drawn_as_nested_triangles():
    points = PDDA1().stack_map(4)
    fig = diagrams.stack_map_triangles({"PDDA 1": points, "again": points})
    assert len(fig.axes) == 2
    triangles = [p for p in fig.axes[0].patches if isinstance(p, Polygon)]
    # every stack of depth < 4 is the apex of one triangle; those of depth 4 have none
    assert len(triangles) == sum(len(s) < 4 for s in points)
    root = next(t for t in triangles if np.allclose(t.get_xy()[0], [0, 0]))
    # the empty stack's triangle reaches towards PDDA 1's corners (-2, -2) and (-2, 2)
    np.testing.assert_allclose(root.get_xy()[1:3], [points["AAAA"], points["BBBB"]])
    assert {"ε", "A", "BB"} <= set(diagrams.labels(fig))
    with pytest.raises(ValueError, match="A and B"):
        diagrams.stack_map_triangles({"bad": {"": (0, 0), "C": (1, 1)}})
    with pytest.raises(ValueError, match="non-empty"):
        diagrams.stack_map_triangles({})


def test_a_padded_batch_shows_every_symbol_and_greys_the_padding():
    from course_rnn.languages import Vocab, make_batch

    vocab = Vocab("ab")
    batch = make_batch(vocab, ["ab", "aabb"])
    fig = diagrams.padded_batch(batch, vocab)
    shown = diagrams.labels(fig)
    assert shown.count("<pad>") == 2 * 2, "two padded positions, in inputs and in targets"
    assert shown.count("<s>") == 2 and shown.count("</s>") == 2
    grey = [p for ax in fig.axes for p in ax.patches if p.get_hatch()]
    assert len(grey) == 4


def test_the_bptt_chain_shows_each_step_s_factor_and_the_size_reaching_each_state():
    words = ["<s>", "man", "eat", "cookie"]
    reach = [2.0, 1.0, 0.25, 0.125]  # by distance T - k, as gradient_norms_by_distance returns
    fig = diagrams.bptt_chain(words, reach)
    shown = diagrams.labels(fig)
    assert {"$h_{0}$", "$h_{3}$", "cookie", "×0.50", "×0.25"} <= set(shown), shown
    # the factor of a step is the ratio of the sizes on either side of it
    assert [t for t in shown if t.startswith("×")] == ["×0.50", "×0.25", "×0.50"]
    bars = [p.get_height() for p in fig.axes[1].patches]
    assert bars == [0.125, 0.25, 1.0, 2.0], "one bar per state h_0 … h_T, h_T's the last"
    with pytest.raises(ValueError, match="one positive size per word"):
        diagrams.bptt_chain(words, reach[:-1])
    with pytest.raises(ValueError, match="one positive size per word"):
        diagrams.bptt_chain(words, [1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="words"):
        diagrams.bptt_chain(["<s>"], [1.0])


def test_rotations_turn_the_states_below_and_contractions_put_each_top_in_its_own_copy():
    fig = diagrams.rotation_vs_contraction(depth=4, angles=(100, 223), ratio=1 / 3)
    rotation, contraction = fig.axes

    def rows(ax):  # the three rows' positions: below the top, after push a, after push b
        return [np.sort(c.get_offsets()[:, 0]) for c in ax.collections]

    below, after_a, after_b = rows(rotation)
    assert len(below) == 1 + 2 + 4 + 8 + 16, "every stack of up to 4 pushes"
    # a rotation turns the whole row: the same gaps between neighbours on the circle
    def gaps(angles):
        return np.sort(np.diff(np.concatenate([angles, [angles[0] + 360]])))

    for turned in (after_a, after_b):
        np.testing.assert_allclose(gaps(turned), gaps(below), atol=1e-9)
    below, after_a, after_b = rows(contraction)
    # a contraction puts each top's states in its own third of the line, apart from the other's
    np.testing.assert_allclose(np.ptp(after_a), np.ptp(below) / 3)
    assert after_a.max() < -1 / 3 + 1e-9 and after_b.min() > 1 / 3 - 1e-9
    shown = diagrams.labels(fig)
    assert shown.count("223° apart") == 2, "a rotation keeps a pair's distance"
    assert {"0.667 apart", "0.222 apart"} <= set(shown), "a contraction shrinks it to a third"
    with pytest.raises(ValueError, match="ratio"):
        diagrams.rotation_vs_contraction(ratio=0.5)
    with pytest.raises(ValueError, match="depth"):
        diagrams.rotation_vs_contraction(depth=0)


def test_the_stack_actions_show_each_hard_action_and_their_weighted_mixture():
    fig = diagrams.stack_actions(stack=(0.9, 0.4, 0.7, 0.2), pushed=1.0, actions=(0.6, 0.3, 0.1))
    numbers = [float(t) for t in diagrams.labels(fig) if t.replace(".", "").isdigit()]
    before, push, pop, no_op, mixed = (numbers[i:i + 4] for i in range(0, 20, 4))
    assert before == [0.9, 0.4, 0.7, 0.2] == no_op
    assert push == [1.0, 0.9, 0.4, 0.7], "v on top, every cell one down, the bottom lost"
    assert pop == [0.4, 0.7, 0.2, 0.0], "the top gone, every cell one up, 0 at the bottom"
    np.testing.assert_allclose(mixed, [0.81, 0.79, 0.37, 0.44], atol=0.005)
    np.testing.assert_allclose(mixed, 0.6 * np.array(push) + 0.3 * np.array(pop)
                               + 0.1 * np.array(no_op), atol=0.005)
    hard = diagrams.stack_actions(stack=(1, 2), pushed=3, actions=(0, 1, 0))
    assert [t for t in diagrams.labels(hard) if t[0].isdigit()][-2:] == ["2.00", "0.00"], \
        "a hard pop's mixture is the popped stack"
    with pytest.raises(ValueError, match="sum to 1"):
        diagrams.stack_actions(actions=(0.5, 0.3, 0.1))
    with pytest.raises(ValueError, match="three probabilities"):
        diagrams.stack_actions(actions=(0.5, 0.5))
    with pytest.raises(ValueError, match="depth"):
        diagrams.stack_actions(stack=(0.1,) * 7)
    with pytest.raises(ValueError, match="stack\\[1\\]"):
        diagrams.stack_actions(stack=(0.1, float("nan")))
