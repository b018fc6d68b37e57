"""How far back can a recurrent network's gradient reach? (Bengio et al. 1994; chapter 3)

Training by backpropagation through time changes what a model does at step ``t`` by how much the
error at a later step ``T`` depends on it. For a simple recurrent network that dependence is a
product of ``T − t`` Jacobians ``∂h_{s}/∂h_{s-1} = diag(f') U``; when their norms are below one it
shrinks geometrically with the distance ``T − t`` (the *vanishing gradient*). The LSTM's cell
state ``C_t = f_t ⊙ C_{t-1} + …`` gives the gradient a path whose factor is the forget gate, which
can stay near one.

:func:`gradient_norms_by_distance` measures this for any recurrent model of
:mod:`course_rnn.models`::

    result = gradient_norms_by_distance(model, inputs, wrt="hidden", of="loss")
    result["distance"]   # 0, 1, …, T-1  (distance T − t from the last step)
    result["norm"]       # mean over strings of ‖∂L_T/∂h_t‖ at each distance
    result["per_string"] # [B, T] the same per string

* ``wrt="hidden"``: the state ``h_t`` after reading input ``t`` (for the LSTM its hidden state
  ``h_t``, not the cell ``C_t``); ``wrt="input"``: the input vector ``x_t`` (one-hot or
  embedding) – only for models that read input vectors (SRN, GRU, LSTM, Decay RNN).
* ``of="loss"``: ``L_T``, the cross-entropy of the prediction at the last step (of ``targets``, or
  of the model's own top prediction when no targets are given); ``of="hidden"``: the last state
  ``h_T``, with the Frobenius norm of the Jacobian ``∂h_T/∂(·)_t``.

The measurement steps the model with its own recurrence (``model.recurrence()``, the one step
every recurrent model of :mod:`course_rnn.models` writes once: for the SRN, GRU and LSTM their
readable cells, which compute exactly what the fast layers compute) and asks autograd for the
gradient with respect to the state each step produced. The model is evaluated in eval mode (no
dropout) and left as it was; its weights are not changed.

:func:`log_slope` summarises a profile by the fitted slope of ``log10(norm)`` per step of distance
(−1 means the gradient shrinks tenfold with every step further back).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from torch.nn import functional as F

from course_rnn.models.base import RecurrentModel, SequenceModel, unroll

WRT = ("hidden", "input")
OF = ("loss", "hidden")


def gradient_norms_by_distance(
    model: SequenceModel,
    inputs: torch.Tensor,
    *,
    wrt: str = "hidden",
    of: str = "loss",
    targets: torch.Tensor | None = None,
) -> dict[str, np.ndarray]:
    """Norm of the gradient of the last step's loss (or state) with respect to every earlier
    state (or input), by distance ``T − t``.

    ``inputs`` is ``[B, T]`` (or ``[T]``) of symbol indices without padding – strings of one
    length, e.g. ``make_batch(vocab, strings).inputs`` for strings of equal length. ``targets``
    (``of="loss"`` only) holds the symbol that should follow the last input, ``[B]`` (or a
    ``[B, T]`` target batch, of which the last column is used).

    Returns ``{"distance": [T], "norm": [T], "per_string": [B, T]}`` (numpy, float64), ordered by
    distance: entry ``d`` belongs to step ``t = T − 1 − d``.
    """
    inputs = _check_request(model, inputs, wrt, of, targets)
    with _in_the_graph(model):
        recurrence = model.recurrence()
        x = _step_inputs(model, recurrence, inputs, wrt, of)
        every_step = unroll(recurrence, x)
        states = [parts["hidden"] for parts in every_step]  # h_t, t = 0 … T-1
        variables = states if wrt == "hidden" else [x]
        if of == "loss":  # ‖∂L_T/∂v_t‖²
            loss = _last_loss(recurrence.logits(every_step[-1]), targets)
            total = _squared_norms(loss, variables, wrt, retain=False)
        else:  # ‖∂h_T/∂v_t‖²_F: one backward pass per unit k of h_T
            units = states[-1].shape[-1]
            total = sum(_squared_norms(states[-1][:, k].sum(), variables, wrt, retain=k < units - 1)
                        for k in range(units))
    return _by_distance(total)


def _check_request(model, inputs, wrt: str, of: str, targets) -> torch.Tensor:
    """The inputs ``[B, T]``, once the measurement asked for is one this model can give."""
    if wrt not in WRT:
        raise ValueError(f"wrt must be one of {WRT}, got {wrt!r}")
    if of not in OF:
        raise ValueError(f"of must be one of {OF}, got {of!r}")
    if not isinstance(model, SequenceModel):
        raise TypeError(
            f"expected a sequence model of course_rnn.models, got {type(model).__name__}"
        )
    if not isinstance(model, RecurrentModel):
        raise TypeError(
            f"gradient_norms_by_distance steps a recurrent model (one with a recurrence()); "
            f"a {type(model).__name__} is not one"
        )
    inputs = model.check_inputs(inputs)
    if inputs.shape[1] == 0:
        raise ValueError("inputs must have at least one time step (start with <s>)")
    if (inputs == 0).any():
        raise ValueError(
            "inputs contain index 0 (<pad>): pass strings of one length, without padding"
        )
    if targets is not None and of != "loss":
        raise ValueError('targets only make sense with of="loss"')
    return inputs


@contextmanager
def _in_the_graph(model: SequenceModel) -> Iterator[None]:
    """Gradients on, the model in eval mode (no dropout), and every state part of the graph even
    when the model's weights are frozen; the model is left as it was afterwards."""
    was_training = model.training
    model.eval()
    frozen = [p for p in model.parameters() if not p.requires_grad]
    for p in frozen:
        p.requires_grad_(True)
    try:
        with torch.enable_grad():
            yield
    finally:
        for p in frozen:
            p.requires_grad_(False)
        model.train(was_training)


def _step_inputs(model, recurrence, inputs: torch.Tensor, wrt: str, of: str) -> torch.Tensor:
    """What each step reads, ``x [B, T, …]`` (a leaf of the graph when ``wrt="input"``), once the
    recurrence is known to offer what ``wrt`` and ``of`` ask for."""
    x = recurrence.inputs(inputs)
    if wrt == "input" and not x.is_floating_point():
        raise TypeError(
            f"a {type(model).__name__} reads no input vectors (each symbol acts directly "
            'on the state): use wrt="hidden"'
        )
    if of == "loss" and not recurrence.reads_out:
        raise NotImplementedError(
            f'of="loss" is not available for a {type(model).__name__}: use of="hidden"'
        )
    return x.detach().requires_grad_(True) if wrt == "input" else x


def _last_loss(logits: torch.Tensor, targets) -> torch.Tensor:
    """``L_T``: the cross-entropy of the last step's logits ``[B, V]``, summed over the strings
    (they are independent), of ``targets`` or, without them, of the model's own top guess."""
    if targets is None:
        wanted = logits.argmax(-1).detach()
    else:
        wanted = torch.as_tensor(targets, device=logits.device).long()
        wanted = wanted[:, -1] if wanted.dim() == 2 else wanted.reshape(-1)
        if wanted.shape[0] != logits.shape[0]:
            raise ValueError(f"targets must have {logits.shape[0]} rows, got {wanted.shape[0]}")
    return F.cross_entropy(logits, wanted, reduction="sum")


def _squared_norms(objective, variables: list, wrt: str, retain: bool) -> torch.Tensor:
    """``‖∂objective/∂v_t‖²`` per string and step, ``[B, T]``; ``variables`` is the states
    ``h_0 … h_{T-1}`` (each ``[B, H]``) or ``[x]`` (``[B, T, input]``). A variable the objective
    does not reach has gradient 0."""
    grads = torch.autograd.grad(objective, variables, retain_graph=retain, allow_unused=True)
    grads = [torch.zeros_like(v) if g is None else g for v, g in zip(variables, grads)]
    if wrt == "hidden":
        return torch.stack([(g**2).sum(-1) for g in grads], dim=1)
    return (grads[0] ** 2).sum(-1)


def _by_distance(total: torch.Tensor) -> dict[str, np.ndarray]:
    """The norms ``[B, T]`` by step ``t``, reordered by distance ``T − 1 − t``, with their mean
    over the strings."""
    per_step = total.detach().double().sqrt().cpu().numpy()  # [B, T] by step t
    per_distance = per_step[:, ::-1].copy()  # [B, T] by distance T-1-t
    return {
        "distance": np.arange(per_distance.shape[1]),
        "norm": per_distance.mean(axis=0),
        "per_string": per_distance,
    }


def log_slope(result: dict, min_distance: int = 1, max_distance: int | None = None) -> float:
    """Least-squares slope of ``log10(norm)`` against distance, over ``min_distance ≤ d ≤
    max_distance`` (zeros are left out). −1 means a tenfold shrink per step."""
    distance = np.asarray(result["distance"])
    norm = np.asarray(result["norm"], dtype=float)
    keep = (distance >= min_distance) & (norm > 0)
    if max_distance is not None:
        keep &= distance <= max_distance
    if keep.sum() < 2:
        raise ValueError("need at least two non-zero norms in the distance range to fit a slope")
    return float(np.polyfit(distance[keep], np.log10(norm[keep]), 1)[0])


__all__ = ["gradient_norms_by_distance", "log_slope"]
