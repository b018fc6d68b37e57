"""Architecture diagrams of the course's networks, drawn by code (matplotlib).

One function per diagram, each returning a :class:`~matplotlib.figure.Figure` that a chapter
displays:

* :func:`bengio_network` – Bengio et al.'s neural n-gram model (chapter 1);
* :func:`srn_rolled_unrolled` – Elman's SRN as one layer with a loop, and unrolled over a
  sentence (chapter 2);
* :func:`bptt_chain` – the gradient's path back through an unrolled SRN, one factor per step,
  with the sizes a chapter measured (chapter 2);
* :func:`gru_cell`, :func:`lstm_cell` – the gated cells, in PyTorch's form (chapter 3);
* :func:`decay_rnn_cell` – Bhatt et al.'s Decay RNN (chapter 4);
* :func:`flnn_network` – Tabor's fractal learning network (chapter 5);
* :func:`urn_step` – one step of the unitary-evolution RNN (chapter 6);
* :func:`rotation_vs_contraction` – where the states of a stack land after one more push, when
  a push turns (a rotation) and when it shrinks (a contraction) (chapter 6);
* :func:`padded_batch` – a batch of strings of different lengths as the models read it: inputs,
  targets and the mask that keeps the padding out of the loss (chapter 0);
* :func:`stack_map_triangles` – Tabor's stack map drawn as his Figure 1a draws it, a triangle
  from every stack state to its two children (chapter 5);
* :func:`stack_actions` – a stack before and after push, pop and no-op, and the soft mixture of
  the three that a Stack-RNN computes (chapter 8).

The diagrams are pictures of the equations in the models' files, not of the code's tensors: every
box names the quantity the chapter's equations name. Every figure has an opaque white background
and dark ink, so that it reads the same on the book's light and dark pages. :func:`labels` lists
the text of a figure (the tests check that each diagram shows the boxes it should).

The module is longer than the course's ≈450 lines and kept whole on purpose: every diagram is
drawn with the same small kit at the top (boxes, operators, arrows, the two inks), so one file
gives every figure one look, and a chapter's diagram is found under that chapter's heading.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Polygon

from ..checks import check_number, is_integer

#: fill colours by the role of a box, light enough for black text; the figure stays white
FILL = {
    "input": "#e8e8e8",     # what the network reads
    "state": "#d6e6f5",     # a state carried from step to step
    "layer": "#fbe3c6",     # a computation: a layer, a gate, a nonlinearity
    "output": "#d9efd6",    # what the network predicts
    "note": "#ffffff",
}
INK = "#222222"
#: the same colour for every "this weight is shared / learned" highlight
ACCENT = "#b03a2e"


@dataclass(frozen=True)
class Box:
    """A labelled box: its centre and size, and the points where arrows attach."""

    x: float
    y: float
    w: float
    h: float

    @property
    def top(self):
        return (self.x, self.y + self.h / 2)

    @property
    def bottom(self):
        return (self.x, self.y - self.h / 2)

    @property
    def left(self):
        return (self.x - self.w / 2, self.y)

    @property
    def right(self):
        return (self.x + self.w / 2, self.y)


def _canvas(size: tuple[float, float], xlim: tuple[float, float], ylim: tuple[float, float],
            panels: int = 1):
    """A white figure with ``panels`` frameless axes side by side, equal scales."""
    fig = Figure(figsize=size, facecolor="white")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    for ax in axes:
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.92 if panels > 1 else 0.99,
                        wspace=0.05)
    return fig, axes if panels > 1 else axes[0]


def _box(ax, x: float, y: float, text: str, *, w: float = 1.6, h: float = 0.6,
         kind: str = "layer", size: float = 10) -> Box:
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h,
                                boxstyle="round,pad=0.02,rounding_size=0.12",
                                facecolor=FILL[kind], edgecolor=INK, lw=1.0))
    ax.text(x, y, text, ha="center", va="center", fontsize=size, color=INK)
    return Box(x, y, w, h)


def _op(ax, x: float, y: float, symbol: str, r: float = 0.22) -> Box:
    """A small circle holding an elementwise operation (⊙, +, tanh, …)."""
    ax.add_patch(Circle((x, y), r, facecolor="white", edgecolor=INK, lw=1.0))
    ax.text(x, y, symbol, ha="center", va="center", fontsize=10 if len(symbol) < 3 else 7,
            color=INK)
    return Box(x, y, 2 * r, 2 * r)


def _arrow(ax, start, end, text: str | None = None, *, rad: float = 0.0, dashed: bool = False,
           color: str = INK, offset: tuple[float, float] = (0.0, 0.0), size: float = 9,
           head: bool = True) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>" if head else "-",
                                 mutation_scale=11, lw=1.1, color=color,
                                 linestyle="--" if dashed else "-", shrinkA=1, shrinkB=1,
                                 connectionstyle=f"arc3,rad={rad}"))
    if text:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, text, ha="center", va="center", fontsize=size, color=color,
                bbox=dict(facecolor="white", edgecolor="none", pad=0.5))


def _line(ax, points, *, dashed: bool = False, color: str = INK) -> None:
    xs, ys = zip(*points)
    ax.plot(xs, ys, color=color, lw=1.1, ls="--" if dashed else "-", solid_capstyle="butt")


def labels(fig: Figure) -> list[str]:
    """Every text drawn on ``fig`` (box labels, arrow labels, titles), in drawing order."""
    out = [t.get_text() for ax in fig.axes for t in ax.texts]
    out += [ax.get_title() for ax in fig.axes if ax.get_title()]
    return [t for t in out if t]


# -- chapter 0 -------------------------------------------------------------------------------------


def padded_batch(batch, vocab) -> Figure:
    """A :class:`~course_rnn.languages.vocab.Batch` as two grids, one row per string: the inputs
    (``<s> w1 … wn``) and the targets (``w1 … wn </s>``), each padded with ``<pad>`` to the longest
    string; padded positions (mask False) are grey and hatched: they are left out of the loss."""
    inputs, targets, mask = (t.detach().cpu().numpy() for t in (batch.inputs, batch.targets,
                                                                  batch.mask))
    rows, steps = inputs.shape
    fig = Figure(figsize=(1.2 + 2 * 0.62 * steps, 0.75 + 0.5 * rows), facecolor="white",
                 layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, ids, title in ((axes[0], inputs, "inputs (what the model reads)"),
                           (axes[1], targets, "targets (what it must predict)")):
        for r in range(rows):
            for t in range(steps):
                real = bool(mask[r, t])
                ax.add_patch(FancyBboxPatch((t + 0.06, rows - 1 - r + 0.08), 0.88, 0.84,
                                            boxstyle="square,pad=0", lw=0.6,
                                            edgecolor=INK if real else "#9a9a9a",
                                            facecolor=FILL["state"] if real else "#e4e4e4",
                                            hatch=None if real else "//"))
                ax.text(t + 0.5, rows - 1 - r + 0.5, vocab.itos[int(ids[r, t])], ha="center",
                        va="center", fontsize=8, color=INK,
                        bbox=None if real else dict(facecolor="white", edgecolor="none", pad=1))
        ax.set_xlim(0, steps)
        ax.set_ylim(0, rows)
        ax.set_xticks(np.arange(steps) + 0.5, [str(t) for t in range(steps)], fontsize=8)
        ax.set_yticks(np.arange(rows) + 0.5, [f"string {rows - r}" for r in range(rows)],
                      fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_xlabel("step t", fontsize=8)
        ax.set_title(title, fontsize=10)
    return fig


def _check_drawn(value, name: str, most: int, unit: str = "") -> None:
    """ValueError unless ``value`` is an integer from 1 to ``most`` (what a diagram can draw)."""
    if not is_integer(value) or not 1 <= value <= most:
        raise ValueError(f"{name} must be an integer from 1 to {most}{unit}, got {value!r}")


# -- chapter 1 -------------------------------------------------------------------------------------


def bengio_network(context: int = 3) -> Figure:
    """Bengio et al. (2003), their Figure 1: the ``context`` previous words are looked up in one
    shared table ``C``; their vectors side by side make ``x``, which feeds a tanh hidden layer
    and (optionally, dashed) the output directly; a softmax gives P(w_t | context)."""
    _check_drawn(context, "context", 5, " (words drawn)")
    width = 2.2 * context + 3.0
    fig, ax = _canvas((width * 0.9, 5.4), (0, width), (-0.2, 5.9))
    xs = [1.3 + 2.2 * i for i in range(context)]
    names = [f"w_{{t-{context - i}}}" for i in range(context)]
    span = xs[-1] - xs[0] + 1.9
    x = _box(ax, (xs[0] + xs[-1]) / 2, 2.55,
             r"$x = (" + ", ".join(f"C({name})" for name in names) + ")$", w=span, h=0.5,
             kind="state", size=9)
    hidden = _box(ax, x.x - 0.5, 3.85, r"hidden layer: $\tanh(d + Hx)$", w=max(3.4, span - 1.4),
                  h=0.55, kind="layer")
    output = _box(ax, x.x + 0.3, 5.25, "softmax: " + r"$P(w_t = i \mid \mathrm{context})$" + "\n"
                  r"$y = b + Wx + U\tanh(d + Hx)$", w=span + 0.6, h=0.85, kind="output")
    for x_word, name in zip(xs, names):
        index = _box(ax, x_word, 0.2, f"index of ${name}$", w=1.9, h=0.5, kind="input", size=9)
        looked = _box(ax, x_word, 1.35, f"$C({name})$", w=1.5, h=0.5, kind="state")
        _arrow(ax, index.top, looked.bottom)
        _arrow(ax, looked.top, (x_word, x.bottom[1]))
    ax.text(xs[-1] + 1.0, 0.8, "look up in C:\none table,\nshared by every\nposition", fontsize=8,
            color=ACCENT, ha="left", va="center")
    _arrow(ax, (hidden.x, x.top[1]), hidden.bottom, "H", offset=(0.2, 0))
    _arrow(ax, hidden.top, (hidden.x, output.bottom[1]), "U", offset=(0.2, 0))
    right = x.right[0] - 0.3
    _arrow(ax, (right, x.top[1]), (right, output.bottom[1]), "W", dashed=True, color=ACCENT,
           offset=(0.25, 0))
    ax.text(right + 0.45, 3.3, "dashed: direct\nconnections W\n(optional)", fontsize=8,
            color=ACCENT, ha="left", va="center")
    return fig


# -- chapter 2 -------------------------------------------------------------------------------------


def srn_rolled_unrolled(words: Sequence[str] = ("<s>", "man", "eat", "cookie"),
                        predictions: Sequence[str] | None = None) -> Figure:
    """Elman's SRN rolled up (one layer whose state loops back: his "context units") and
    unrolled over ``words``: one copy of the layer per step, the same W, U, V in every copy.
    ``predictions``: what each step's output predicts (default: the next word, then ``</s>``)."""
    words = list(words)
    if not 1 <= len(words) <= 6 or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"words must be 1 to 6 non-empty strings, got {words!r}")
    predictions = list(predictions) if predictions is not None else words[1:] + ["</s>"]
    if len(predictions) != len(words):
        raise ValueError(f"one prediction per word: {len(words)} words, "
                         f"{len(predictions)} predictions")
    n = len(words)
    fig = Figure(figsize=(3.2 + 2.0 * n, 3.9), facecolor="white")
    left = fig.add_axes([0.0, 0.0, 3.0 / (3.2 + 2.0 * n), 0.9])
    right = fig.add_axes([3.0 / (3.2 + 2.0 * n), 0.0, 1 - 3.0 / (3.2 + 2.0 * n), 0.9])
    for ax, xlim in ((left, (-0.4, 3.0)), (right, (-1.0, 2.0 * n + 0.2))):
        ax.set_xlim(*xlim)
        ax.set_ylim(-0.5, 3.4)
        ax.set_aspect("equal")
        ax.axis("off")
    left.set_title("rolled up", fontsize=11)
    right.set_title("unrolled: one copy per step, the same W, U, V", fontsize=11)

    x = _box(left, 0.8, 0.0, r"$x_t$", w=1.1, h=0.5, kind="input")
    h = _box(left, 0.8, 1.45, r"$h_t$", w=1.1, h=0.55, kind="state")
    y = _box(left, 0.8, 2.9, r"$y_t$", w=1.1, h=0.5, kind="output")
    ctx = _box(left, 2.35, 1.45, "context\n" + r"$h_{t-1}$", w=1.05, h=0.75, kind="state", size=9)
    _arrow(left, x.top, h.bottom, "W", offset=(0.2, 0))
    _arrow(left, h.top, y.bottom, "V", offset=(0.2, 0))
    _arrow(left, (h.x + 0.3, h.top[1]), ctx.top, "copy", rad=-0.6, offset=(0.25, 0.35), size=8)
    _arrow(left, ctx.bottom, (h.x + 0.3, h.bottom[1]), "U", rad=-0.6, color=ACCENT,
           offset=(0.25, -0.35))

    start = _box(right, -0.35, 1.45, r"$\mathbf{0}$", w=0.6, h=0.55, kind="state")
    previous = start
    for t, (word, nxt) in enumerate(zip(words, predictions)):
        cx = 1.0 + 2.0 * t
        xi = _box(right, cx, 0.0, word, w=1.35, h=0.5, kind="input", size=9)
        hi = _box(right, cx, 1.45, f"$h_{t}$", w=1.1, h=0.55, kind="state")
        yi = _box(right, cx, 2.9, f"→ {nxt}", w=1.45, h=0.5, kind="output", size=9)
        _arrow(right, xi.top, hi.bottom, "W", offset=(0.22, 0))
        _arrow(right, hi.top, yi.bottom, "V", offset=(0.22, 0))
        _arrow(right, previous.right, hi.left, "U", color=ACCENT, offset=(0, 0.22))
        previous = hi
    return fig


def bptt_chain(words: Sequence[str], reach: Sequence[float]) -> Figure:
    """The gradient's path back through time over an unrolled SRN: one state per word read
    (``words``: the inputs of steps 0 … T), and under each state ``reach`` — the size of the
    gradient that the last state sends back to it, ``‖∂h_T/∂h_k‖``, listed by distance
    ``T − k`` as :func:`~course_rnn.analysis.gradients.gradient_norms_by_distance` returns it
    (``reach[0]`` is the last state's own). Each backward arrow carries the factor by which that
    step changed the size, ``reach[d] / reach[d − 1]``; the bars show the sizes on a log scale."""
    words = list(words)
    reach = np.asarray(reach, dtype=float)
    if not 2 <= len(words) <= 16 or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"words must be 2 to 16 non-empty strings, got {words!r}")
    if reach.shape != (len(words),) or not np.isfinite(reach).all() or (reach <= 0).any():
        raise ValueError(f"reach must hold one positive size per word ({len(words)}), "
                         f"got {reach.tolist()!r}")
    n = len(words)
    last = n - 1
    at_state = reach[::-1]  # at_state[k] = ‖∂h_T/∂h_k‖, k = 0 … T
    fig = Figure(figsize=(1.0 + 0.9 * n, 4.6), facecolor="white")
    top = fig.add_axes([0.08, 0.47, 0.9, 0.5])
    bottom = fig.add_axes([0.08, 0.1, 0.9, 0.34], sharex=top)
    top.set_xlim(-0.6, last + 0.6)
    top.set_ylim(-1.25, 1.0)
    top.axis("off")
    boxes = []
    for k, word in enumerate(words):
        _box(top, k, -0.85, word, w=0.84, h=0.34, kind="input", size=8)
        boxes.append(_box(top, k, 0.0, f"$h_{{{k}}}$", w=0.6, h=0.42, kind="state", size=9))
        _arrow(top, (k, -0.68), boxes[k].bottom, color="#9a9a9a")
    for k in range(1, n):
        _arrow(top, boxes[k - 1].right, boxes[k].left, color="#9a9a9a")
        back_from, back_to = (k - 0.12, boxes[k].top[1]), (k - 1 + 0.12, boxes[k - 1].top[1])
        _arrow(top, back_from, back_to, f"×{at_state[k - 1] / at_state[k]:.2f}", rad=0.55,
               color=ACCENT, offset=(0, 0.28), size=7)
    top.text(last + 0.45, 0.62, f"the gradient of $h_T = h_{{{last}}}$ starts here", fontsize=8,
             color=ACCENT, ha="right", va="bottom")
    top.text(-0.55, 0.62, "← back through time: one factor per step", fontsize=8, color=ACCENT,
             ha="left", va="bottom")
    bottom.bar(np.arange(n), at_state, width=0.6, color=ACCENT, alpha=0.75)
    bottom.set_yscale("log")
    bottom.set_xticks(np.arange(n), [f"$h_{{{k}}}$" for k in range(n)], fontsize=8)
    bottom.set_ylabel(r"$\|\partial h_T / \partial h_k\|$", fontsize=9)
    bottom.tick_params(axis="y", labelsize=8)
    for side in ("top", "right"):
        bottom.spines[side].set_visible(False)
    bottom.set_title("how much of the gradient reaches each state (log scale)", fontsize=9)
    return fig


# -- chapter 3 -------------------------------------------------------------------------------------


def _gate_inputs(ax, xs: tuple[float, float], y: float, h_prev_from=None) -> Box:
    """The bar every gate reads from: x_t and h_{t-1}."""
    bar = _box(ax, (xs[0] + xs[1]) / 2, y, r"$x_t$ and $h_{t-1}$: every gate reads both",
               w=xs[1] - xs[0], h=0.5, kind="input", size=9)
    x_t = _box(ax, bar.x, y - 1.0, r"$x_t$", w=0.9, h=0.45, kind="input")
    _arrow(ax, x_t.top, bar.bottom)
    return bar


def _carried_line(ax, old: str, new: str, xs: tuple[float, float, float, float],
                  labels: tuple[str | None, str | None] = (None, None)) -> tuple[Box, Box, Box]:
    """The top line of a gated cell: the old state, scaled (⊙), added to (+), the new state.
    Returns the old state's box and the two operations."""
    y = 5.0
    before = _box(ax, xs[0], y, old, w=1.0, h=0.5, kind="state")
    scaled, added = _op(ax, xs[1], y, "⊙"), _op(ax, xs[2], y, "+")
    after = _box(ax, xs[3], y, new, w=1.0, h=0.5, kind="state")
    _arrow(ax, before.right, scaled.left)
    _arrow(ax, scaled.right, added.left, labels[0], offset=(0, 0.3))
    _arrow(ax, added.right, after.left, labels[1], offset=(0, 0.32), size=8,
           color=ACCENT if labels[1] else INK)
    return before, scaled, added


def gru_cell() -> Figure:
    """The GRU in PyTorch's form (chapter 3): reset gate r, update gate z, candidate n, and
    ``h_t = (1 − z) ⊙ n + z ⊙ h_{t−1}`` (z = 1 keeps the old state)."""
    fig, ax = _canvas((8.0, 5.0), (-0.2, 10.6), (-1.0, 5.7))
    h_prev, keep, plus = _carried_line(ax, r"$h_{t-1}$", r"$h_t$", (0.6, 2.8, 7.6, 9.7),
                                       (r"$z_t \odot h_{t-1}$", None))
    bar = _gate_inputs(ax, (1.5, 8.6), 0.8)
    _line(ax, [h_prev.bottom, (0.6, 0.8)])
    _arrow(ax, (0.6, 0.8), bar.left)
    z = _box(ax, 2.8, 2.5, "update gate\n" + r"$z_t = \sigma(\cdot)$", w=1.8, h=0.8)
    r = _box(ax, 5.1, 2.5, "reset gate\n" + r"$r_t = \sigma(\cdot)$", w=1.8, h=0.8)
    n = _box(ax, 7.6, 2.5, "candidate\n" + r"$n_t = \tanh(\cdot)$", w=1.8, h=0.8)
    for gate in (z, r, n):
        _arrow(ax, (gate.x, bar.top[1]), gate.bottom)
    _arrow(ax, z.top, keep.bottom, r"$z_t$", offset=(0.25, -0.4))
    _arrow(ax, r.right, n.left)
    ax.text(6.35, 3.15, r"$r_t \odot (U_n h_{t-1} + b)$", fontsize=8, ha="center", color=INK)
    one_minus = _op(ax, 5.1, 3.95, "1−z", r=0.27)
    mix = _op(ax, 7.6, 3.95, "⊙")
    _arrow(ax, (z.x + 0.5, z.top[1]), one_minus.left, rad=-0.2)
    _arrow(ax, one_minus.right, mix.left)
    _arrow(ax, n.top, mix.bottom)
    _arrow(ax, mix.top, plus.bottom)
    ax.text(10.5, 4.0, r"$h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}$", fontsize=9,
            ha="right", va="center", color=ACCENT, rotation=0)
    return fig


def lstm_cell() -> Figure:
    """The LSTM with forget gate (chapter 3): the cell state C runs along the top, scaled by the
    forget gate and added to; the output gate reads tanh(C_t) out as h_t."""
    fig, ax = _canvas((8.4, 5.0), (-0.2, 11.0), (-1.0, 5.7))
    _, forget, plus = _carried_line(ax, r"$C_{t-1}$", r"$C_t$", (0.6, 2.6, 5.0, 10.2),
                                    (None, "cell state: scaled and added to, never squashed"))
    h_prev = _box(ax, 0.6, 0.8, r"$h_{t-1}$", w=1.0, h=0.5, kind="state")
    bar = _gate_inputs(ax, (1.6, 7.8), 0.8)
    _arrow(ax, h_prev.right, bar.left)
    f = _box(ax, 2.6, 2.5, "forget gate\n" + r"$f_t = \sigma(\cdot)$", w=1.5, h=0.8)
    i = _box(ax, 4.2, 2.5, "input gate\n" + r"$i_t = \sigma(\cdot)$", w=1.5, h=0.8)
    g = _box(ax, 5.8, 2.5, "candidate\n" + r"$\tilde C_t = \tanh(\cdot)$", w=1.5, h=0.8)
    o = _box(ax, 7.4, 2.5, "output gate\n" + r"$o_t = \sigma(\cdot)$", w=1.5, h=0.8)
    for gate in (f, i, g, o):
        _arrow(ax, (gate.x, bar.top[1]), gate.bottom)
    _arrow(ax, f.top, forget.bottom, r"$f_t$", offset=(0.22, -0.5))
    write = _op(ax, 5.0, 3.95, "⊙")
    _arrow(ax, i.top, write.left, rad=-0.2)
    _arrow(ax, g.top, write.right, rad=0.2)
    _arrow(ax, write.top, plus.bottom, r"$i_t \odot \tilde C_t$", offset=(0.55, 0))
    squash = _op(ax, 9.0, 3.95, "tanh", r=0.3)
    _arrow(ax, (9.0, 5.0), squash.top)
    read = _op(ax, 9.0, 2.5, "⊙")
    _arrow(ax, squash.bottom, read.top)
    _arrow(ax, o.right, read.left)
    h_t = _box(ax, 10.3, 2.5, r"$h_t$", w=0.9, h=0.5, kind="state")
    _arrow(ax, read.right, h_t.left)
    ax.text(10.9, 1.6, r"$C_t = f_t \odot C_{t-1} + i_t \odot \tilde C_t$" + "\n"
            r"$h_t = o_t \odot \tanh(C_t)$", fontsize=9, ha="right", va="center", color=ACCENT)
    return fig


# -- chapter 4 -------------------------------------------------------------------------------------


def decay_rnn_cell() -> Figure:
    """Bhatt et al.'s Decay RNN (chapter 4): ``c_t = W_rec h_{t−1} + U x_t + b`` and
    ``h_t = ReLU(α h_{t−1} + (1 − α) c_t)``; DRNN: ``W_rec = ReLU(W) D`` (Dale's principle),
    SDRNN: any ``W_rec``, Ab-DRNN: none."""
    fig, ax = _canvas((8.4, 3.4), (-0.2, 11.4), (-0.3, 3.9))
    h_prev = _box(ax, 0.7, 3.2, r"$h_{t-1}$", w=1.1, h=0.55, kind="state")
    x_t = _box(ax, 0.7, 0.6, r"$x_t$", w=1.1, h=0.55, kind="input")
    rec = _box(ax, 3.3, 2.2, "recurrent weights\n" + r"$W_{\mathrm{rec}}\, h_{t-1}$", w=2.3, h=0.8)
    inp = _box(ax, 3.3, 0.6, "input weights\n" + r"$U x_t + b$", w=2.3, h=0.8)
    c = _op(ax, 5.4, 1.4, "+")
    _arrow(ax, h_prev.bottom, rec.left, rad=0.25)
    _arrow(ax, x_t.right, inp.left)
    _arrow(ax, rec.right, c.top, rad=-0.2)
    _arrow(ax, inp.right, c.bottom, rad=0.2)
    mix = _box(ax, 7.2, 3.2, "decay: " + r"$\alpha\, h_{t-1} + (1-\alpha)\, c_t$" + "\n"
               r"$\alpha \in (0, 1)$ learned", w=2.9, h=0.85)
    _arrow(ax, h_prev.right, mix.left, r"$\alpha$: keep a share of the old state",
           offset=(0, 0.3), size=8, color=ACCENT)
    _arrow(ax, c.right, (mix.x, mix.bottom[1]), r"$c_t$", rad=0.25, offset=(0.35, -0.2))
    relu = _box(ax, 9.35, 3.2, "ReLU", w=0.95, h=0.55)
    h_t = _box(ax, 10.8, 3.2, r"$h_t$", w=0.8, h=0.55, kind="state")
    _arrow(ax, mix.right, relu.left)
    _arrow(ax, relu.right, h_t.left)
    ax.text(5.9, 0.15, "DRNN: " + r"$W_{\mathrm{rec}} = \mathrm{ReLU}(W)\,D$"
            + " (Dale: 80% of units\nexcitatory, 20% inhibitory); SDRNN: any "
            + r"$W_{\mathrm{rec}}$" + "; Ab-DRNN: none",
            fontsize=8, ha="left", va="center", color=INK)
    return fig


# -- chapter 5 -------------------------------------------------------------------------------------


def flnn_network(words: Sequence[str] = ("a", "b", "c"), gaussians: int = 3) -> Figure:
    """Tabor's fractal learning network (his Figure 2b): one-hot words; Hidden1, two linear
    recurrent units whose only recurrent weight is a per-word scale ``s_j``; Hidden2, Gaussian
    radial-basis units; a softmax output over the words."""
    words = list(words)
    if not 1 <= len(words) <= 6:
        raise ValueError(f"draw 1 to 6 words, got {len(words)}")
    _check_drawn(gaussians, "gaussians", 6)
    fig, ax = _canvas((8.2, 5.6), (-0.2, 10.8), (-0.4, 7.0))

    def row(y, names, kind, label, equation):
        span = 1.3 * (len(names) - 1)
        frame = _box(ax, 3.6, y, "", w=max(span + 1.6, 3.2), h=0.95, kind="note")
        for k, name in enumerate(names):
            ax.add_patch(Circle((3.6 - span / 2 + 1.3 * k, y), 0.3, facecolor=FILL[kind],
                                edgecolor=INK, lw=1.0))
            ax.text(3.6 - span / 2 + 1.3 * k, y, name, ha="center", va="center", fontsize=9,
                    color=INK)
        ax.text(6.0, y + 0.15, label, fontsize=10, ha="left", va="center", color=INK,
                fontweight="bold")
        ax.text(6.0, y - 0.3, equation, fontsize=9, ha="left", va="center", color=INK)
        return frame

    inputs = row(0.3, words, "input", "input: the word read", "one-hot, word $j$")
    hidden1 = row(2.3, ["$z_1$", "$z_2$"], "state", "Hidden1: linear, recurrent",
                  r"$z_i(t) = w_{ij} + s_j\, z_i(t-1)$")
    hidden2 = row(4.3, [f"$g_{k + 1}$" for k in range(gaussians)], "layer",
                  "Hidden2: Gaussian units", r"$g_k = \exp(-|\vec w_k - \vec z(t)|^2 / b^2)$")
    output = row(6.3, words, "output", "output: next word",
                 r"$o_i = \mathrm{softmax}_i(\sum_k w_{ik} g_k)$")
    _arrow(ax, inputs.top, hidden1.bottom, "offsets $w_{ij}$ of word $j$", offset=(-1.1, 0),
           size=8, color=ACCENT)
    for lower, upper in ((hidden1, hidden2), (hidden2, output)):
        _arrow(ax, lower.top, upper.bottom)
    loop = hidden1.left[0]
    _arrow(ax, (loop, hidden1.y + 0.25), (loop, hidden1.y - 0.25), rad=1.8, color=ACCENT)
    ax.text(loop - 0.55, hidden1.y, "scale $s_j$\nof word $j$", fontsize=8, color=ACCENT,
            ha="right", va="center")
    return fig


def stack_map_triangles(maps: Mapping[str, Mapping[str, Sequence[float]]], *,
                        label_depth: int = 2, size: tuple[float, float] | None = None) -> Figure:
    """Tabor's stack map as his Figure 1a draws it: every stack state ``w`` (a string over
    {A, B}, top of stack on the right, "" the empty stack) is the apex of a rightward-pointing
    triangle that holds every stack with ``w`` on top (``vw`` for any ``v``). Its other two
    corners are the limits of those stacks with only A's, or only B's, below ``w``: the deepest
    ``A…Aw`` and ``B…Bw`` in the map. For PDDA 1 each triangle is its parent's halved, nested
    like a Sierpinski gasket. One panel per entry of ``maps``
    (``{title: {stack: (z1, z2)}}``: e.g. :meth:`~course_rnn.languages.tabor.PDDA1.stack_map`
    beside a trained network's mean visitation set); stacks up to ``label_depth`` are labelled."""
    if not isinstance(maps, Mapping) or not maps:
        raise ValueError("stack_map_triangles needs a non-empty {title: {stack: point}} mapping")
    fig = Figure(figsize=size or (4.6 * len(maps), 4.3), facecolor="white", layout="constrained")
    axes = fig.subplots(1, len(maps), squeeze=False)[0]
    for ax, (title, points) in zip(axes, maps.items()):
        points = {stack: np.asarray(p, dtype=float) for stack, p in points.items()}
        if "" not in points or any(set(s) - {"A", "B"} for s in points):
            raise ValueError(f"{title!r}: stacks must be strings over A and B, the empty one "
                             "included")
        for stack, apex in points.items():
            pushes = 0
            while "A" * (pushes + 1) + stack in points and "B" * (pushes + 1) + stack in points:
                pushes += 1
            if pushes:
                below_a, below_b = "A" * pushes + stack, "B" * pushes + stack
                corners = np.array([apex, points[below_a], points[below_b]])
                ax.add_patch(Polygon(corners, closed=True, facecolor=FILL["state"], alpha=0.55,
                                     edgecolor=INK, lw=0.3 + 0.9 * 0.5 ** len(stack)))
        xy = np.array(list(points.values()))
        ax.scatter(xy[:, 0], xy[:, 1], s=6, color=INK, zorder=3)
        for stack, (x, y) in points.items():
            if len(stack) <= label_depth:
                ax.annotate(stack or "ε", (x, y), textcoords="offset points", xytext=(4, 2),
                            fontsize=8, color=ACCENT)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("$z_1$")
        ax.set_ylabel("$z_2$")
        ax.set_aspect("equal", adjustable="datalim")
    return fig


# -- chapter 6 -------------------------------------------------------------------------------------


def urn_step() -> Figure:
    """One step of the unitary-evolution RNN (chapter 6): the symbol's learned skew-symmetric
    generator ``S = T − Tᵀ`` is exponentiated to a rotation ``Q = e^S``, which turns the unit
    state vector; a softmax readout predicts the next symbol."""
    fig, ax = _canvas((8.4, 4.2), (-0.2, 11.2), (-0.6, 4.9))
    x_t = _box(ax, 0.8, 0.2, r"symbol $x_t$", w=1.4, h=0.5, kind="input")
    gen = _box(ax, 3.4, 0.2, "generator (learned)\n" + r"$S(x_t) = T - T^\top$", w=2.4, h=0.8)
    rot = _box(ax, 6.3, 0.2, "rotation\n" + r"$Q(x_t) = e^{S(x_t)}$", w=2.0, h=0.8)
    _arrow(ax, x_t.right, gen.left)
    _arrow(ax, gen.right, rot.left, r"$\exp$", offset=(0, 0.25))
    h_prev = _box(ax, 0.8, 2.0, r"$h_{t-1}$" + "\n" + r"$\|h\| = 1$", w=1.4, h=0.75, kind="state")
    turn = _op(ax, 6.3, 2.0, "×", r=0.25)
    h_t = _box(ax, 8.6, 2.0, r"$h_t = Q(x_t)\, h_{t-1}$", w=2.4, h=0.6, kind="state")
    _arrow(ax, h_prev.right, turn.left, "no nonlinearity: the state is only turned",
           offset=(0, 0.3), size=8, color=ACCENT)
    _arrow(ax, rot.top, turn.bottom)
    _arrow(ax, turn.right, h_t.left)
    out = _box(ax, 8.6, 3.9, r"$p(w_{t+1}) = \mathrm{softmax}(W h_t + b)$", w=3.6, h=0.6,
               kind="output")
    _arrow(ax, h_t.top, out.bottom)
    # an inset: the unit circle, the state before and after the turn (same length)
    cx, cy, radius = 2.8, 3.7, 0.8
    ax.add_patch(Circle((cx, cy), radius, facecolor="none", edgecolor="0.6", lw=0.8, ls="--"))
    for angle, name, colour in ((20, r"$h_{t-1}$", INK), (95, r"$h_t$", ACCENT)):
        tip = (cx + radius * np.cos(np.radians(angle)), cy + radius * np.sin(np.radians(angle)))
        _arrow(ax, (cx, cy), tip, color=colour)
        ax.text(tip[0] + 0.12, tip[1] + 0.05, name, fontsize=8, color=colour, ha="left")
    _arrow(ax, (cx + 0.45 * np.cos(np.radians(25)), cy + 0.45 * np.sin(np.radians(25))),
           (cx + 0.45 * np.cos(np.radians(88)), cy + 0.45 * np.sin(np.radians(88))), rad=0.35,
           color=ACCENT)
    ax.text(cx + 1.0, cy - 0.55, "a rotation keeps\nthe length", fontsize=8, ha="left",
            va="center", color=INK)
    return fig


def _pushed(start: float, pushes: Sequence, depth: int) -> np.ndarray:
    """Every state reached from ``start`` by up to ``depth`` pushes (each a function of the
    state), the start included."""
    layer, states = [start], [start]
    for _ in range(depth):
        layer = [push(z) for z in layer for push in pushes]
        states += layer
    return np.asarray(states, dtype=float)


def rotation_vs_contraction(depth: int = 5, angles: tuple[float, float] = (100.0, 223.0),
                            ratio: float = 1 / 3) -> Figure:
    """Why a stack of rotations cannot keep its top apart, and a contracting one can (chapter 6).

    Two kinds of push, a and b, on the states reached by every stack of up to ``depth`` pushes
    (grey), and the same states after one more push a (blue) and push b (orange). Left: pushes
    that turn a state on the circle by a fixed angle (``angles``, degrees; a 2-D rotation): each
    row is the row above turned, the same shape, and the two turned copies interleave. Right:
    pushes that shrink the line towards their own point, ``z ↦ ratio·z ∓ (1 − ratio)`` (with
    ratio ⅓ the Cantor stack of chapter 6): each copy is ``ratio`` times the size, push a's on
    the left, push b's on the right, apart. One pair of states is joined in each row: a rotation
    keeps its distance, a contraction multiplies it by ``ratio``."""
    _check_drawn(depth, "depth", 8, " (pushes below the top)")
    if not 0 < ratio < 0.5:
        raise ValueError(f"ratio must lie strictly between 0 and 1/2 (copies that do not touch), "
                         f"got {ratio!r}")
    alpha, beta = (float(a) % 360 for a in angles)
    turn = [lambda z: (z + alpha) % 360, lambda z: (z + beta) % 360]
    shrink = [lambda z: ratio * z - (1 - ratio), lambda z: ratio * z + (1 - ratio)]
    colours = ("#8a8a8a", "#1f77b4", "#e07b00")
    rows = ("below the top", "after push a", "after push b")
    fig = Figure(figsize=(10.0, 3.4), facecolor="white", layout="constrained")
    axes = fig.subplots(1, 2)
    panels = ((axes[0], turn, 0.0, (0, 360), "position on the circle (angle, degrees)",
               "rotations: a push turns every state by its angle"),
              (axes[1], shrink, 0.0, (-1.05, 1.05), "position on the line",
               f"contractions: a push shrinks all distances (×{ratio:.2g})"))
    for ax, pushes, start, xlim, xlabel, title in panels:
        below = _pushed(start, pushes, depth)
        for row, (states, colour) in enumerate(zip(
                (below, *(np.array([push(z) for z in below]) for push in pushes)), colours)):
            ax.scatter(states, np.full(len(states), 2 - row), s=16, color=colour, zorder=3)
        # one pair of states, and where push a takes it
        p, q = start, pushes[1](start)
        p_a, q_a = pushes[0](p), pushes[0](q)
        for y, (u, v) in ((2.3, (p, q)), (1.3, (p_a, q_a))):
            _arrow(ax, (u, y), (v, y), f"{abs(v - u):.3g}{'°' if pushes is turn else ''} apart",
                   color=INK, size=8, head=False, offset=(0, 0.14))
        for u, v in ((p, p_a), (q, q_a)):
            _arrow(ax, (u, 1.95), (v, 1.05), color="#9a9a9a", dashed=True)
        ax.set_xlim(*xlim)
        ax.set_ylim(-0.5, 2.7)
        ax.set_yticks([2, 1, 0], list(rows), fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_title(title, fontsize=9)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    return fig


# -- chapter 8 -------------------------------------------------------------------------------------


def stack_actions(stack: Sequence[float] = (0.9, 0.4, 0.7, 0.2), pushed: float = 1.0,
                  actions: Sequence[float] = (0.6, 0.3, 0.1)) -> Figure:
    """A Stack-RNN's three stack actions and their soft mixture (chapter 8), on a stack of
    single numbers, the top first: the stack before; after push (``pushed`` on top, every cell
    one down, the bottom one lost); after pop (the top gone, every cell one up, an empty 0 at
    the bottom); after no-op (unchanged); and the stack the action probabilities ``actions``
    = (push, pop, no-op) give, each cell the weighted sum of the three cells level with it —
    computed by :func:`~course_rnn.models.stack_rnn.soft_stack_update`, the models' own."""
    _check_drawn(len(stack) if isinstance(stack, Sequence) else stack, "the stack's depth", 6,
                 " cells")
    values = [check_number(v, f"stack[{i}]", at_least=-99, at_most=99)
              for i, v in enumerate(stack)]
    pushed = check_number(pushed, "pushed", at_least=-99, at_most=99)
    if not isinstance(actions, Sequence) or len(actions) != 3:
        raise ValueError("actions must be three probabilities (push, pop, no-op), "
                         f"got {actions!r}")
    probs = [check_number(a, f"actions[{i}]", at_least=0, at_most=1)
             for i, a in enumerate(actions)]
    if abs(sum(probs) - 1) > 1e-6:
        raise ValueError(f"actions must sum to 1 (a softmax's output), got {actions!r}")
    import torch

    from ..models.stack_rnn import soft_stack_update

    depth = len(values)

    def as_tensor(numbers, *shape):
        return torch.tensor(numbers, dtype=torch.float64).view(*shape)

    mixed = soft_stack_update(as_tensor(values, 1, depth, 1, 1), as_tensor(probs, 1, 1, 3),
                              as_tensor([pushed], 1, 1, 1)).flatten().tolist()
    push, pop = [pushed, *values[:-1]], [*values[1:], 0.0]
    # each cell's role: "state" kept from before, "output" newly pushed, "input" newly empty
    kept = ["state"] * depth
    p_push, p_pop, p_noop = probs
    columns = [
        ("before", values, kept, f"the stack; $v$ = {pushed:.2f}\nwould be pushed"),
        ("push $v$", push, ["output", *kept[1:]],
         "$v$ on top, the rest one\ndown, the bottom lost"),
        ("pop", pop, [*kept[1:], "input"], "the top gone, the rest\none up, 0 at the bottom"),
        ("no-op", values, kept, "unchanged"),
        (f"soft: {p_push:.2g} push + {p_pop:.2g} pop\n+ {p_noop:.2g} no-op", mixed,
         ["layer"] * depth,
         f"top: {p_push:.2g}·{push[0]:.2f} + {p_pop:.2g}·{pop[0]:.2f} + {p_noop:.2g}·"
         f"{values[0]:.2f}\n= {mixed[0]:.2f}; each cell likewise")]
    step, top = 0.62, 0.0
    bottom = top - step * (depth - 1)
    fig, ax = _canvas((11.0, 2.1 + 0.55 * depth), (-0.9, 13.4), (bottom - 1.2, top + 1.4))
    xs = (0.8, 3.55, 6.05, 8.45, 11.6)
    for x, (title, cells, roles, note) in zip(xs, columns):
        ax.text(x, top + 0.55, title, ha="center", va="center", fontsize=9, color=INK)
        for i, (value, role) in enumerate(zip(cells, roles)):
            _box(ax, x, top - i * step, f"{value:.2f}", w=1.1, h=0.5, kind=role, size=9)
        ax.text(x, bottom - 0.75, note, ha="center", va="center", fontsize=7.5, color=INK)
    ax.text(xs[0] - 0.75, top, "top", ha="right", va="center", fontsize=8, color=INK)
    middle = (top + bottom) / 2
    _arrow(ax, (xs[0] + 0.65, middle), (xs[1] - 0.7, middle), color="#9a9a9a")
    _line(ax, [(xs[1] - 0.55, top + 1.0), (xs[3] + 0.55, top + 1.0)], color="#9a9a9a")
    ax.text(xs[2], top + 1.18, "one step: each action alone", ha="center", va="center",
            fontsize=8.5, color=INK)
    ax.text(xs[4], top + 1.18, "what a Stack-RNN computes", ha="center", va="center",
            fontsize=8.5, color=ACCENT)
    _line(ax, [(10.0, top + 1.1), (10.0, bottom - 1.15)], dashed=True, color="#9a9a9a")
    return fig
