"""The gated recurrent unit (Cho et al. 2014): an SRN that decides how much of its state to keep.

Two gates, each a sigmoid in (0, 1) per unit, decide what to forget and what to rewrite.
In PyTorch's convention (used here, so that our numbers equal ``torch.nn.GRU``'s)::

    r_t = σ(W_r x_t + U_r h_{t-1} + b_r)                    reset gate
    z_t = σ(W_z x_t + U_z h_{t-1} + b_z)                    update gate
    n_t = tanh(W_n x_t + b_in + r_t ⊙ (U_n h_{t-1} + b_hn))  candidate state
    h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t-1}

Two things to know when you read the gates of a trained model next to Levy (2023):

* **which way z points.** Here ``z_t = 1`` *keeps* the old state and ``z_t = 0`` takes the
  candidate. That is Cho et al.'s own form (2014, eq. 7: ``h_t = z ⊙ h_{t-1} + (1 − z) ⊙ h̃``).
  The lecture writes ``h_t = (1 − z_t) ⊙ h_{t-1} + z_t ⊙ h̃_t``, the form of Chung et al.
  (2014); the two are the same model with ``z`` and ``1 − z`` swapped.
* **where the reset gate acts.** Here it multiplies ``U_n h_{t-1} + b_hn`` *after* the matrix
  product (the form of cuDNN, which PyTorch follows); Cho et al. (eq. 8) and the lecture apply
  it to ``h_{t-1}`` before it: ``U (r ⊙ h_{t-1})``. Both versions learn equally well.

:class:`GRUCell` is the step written out; :class:`GRU` is the fast language model whose step
(``recurrence()``: what ``trace`` and the steppers run) is :class:`GRUCell` with the same weights.
"""

from __future__ import annotations

import torch
from torch import nn

from ..checks import check_positive
from .recurrent import (
    RecurrentLanguageModel,
    cell_to_fill,
    gate_parameters,
    state_to_read,
    torch_weights,
    uniform_parameter,
)


class GRUCell(nn.Module):
    """One GRU step: ``step(h [B, hidden] or None, x_t [B, input])`` returns ``{"reset_gate",
    "update_gate", "candidate", "hidden"}`` (the state first, as every step in the course).

    Calling the cell, ``cell(x_t, h) -> h_t``, is PyTorch's ``nn.GRUCell`` call.
    """

    state_names = ("hidden",)

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.input_size = check_positive(input_size, "input_size")
        self.hidden_size = check_positive(hidden_size, "hidden_size")
        self.W_r, self.U_r, self.b_r = gate_parameters(input_size, hidden_size)
        self.W_z, self.U_z, self.b_z = gate_parameters(input_size, hidden_size)
        # the candidate keeps two biases: b_hn sits inside the reset gate's product
        self.W_n, self.U_n, self.b_in = gate_parameters(input_size, hidden_size)
        self.b_hn = uniform_parameter(hidden_size, hidden_size=hidden_size)

    def step(self, h: torch.Tensor | None, x_t: torch.Tensor) -> dict[str, torch.Tensor]:
        h = state_to_read(self, h, x_t)  # h_{t-1}; None: the zero state h_0
        # r_t = σ(W_r x_t + U_r h_{t-1} + b_r)                     reset gate
        r = torch.sigmoid(x_t @ self.W_r.T + h @ self.U_r.T + self.b_r)
        # z_t = σ(W_z x_t + U_z h_{t-1} + b_z)                     update gate
        z = torch.sigmoid(x_t @ self.W_z.T + h @ self.U_z.T + self.b_z)
        # n_t = tanh(W_n x_t + b_in + r_t ⊙ (U_n h_{t-1} + b_hn))  candidate
        n = torch.tanh(x_t @ self.W_n.T + self.b_in + r * (h @ self.U_n.T + self.b_hn))
        # h_t = (1 − z_t) ⊙ n_t + z_t ⊙ h_{t-1}
        h_t = (1 - z) * n + z * h
        return {"reset_gate": r, "update_gate": z, "candidate": n, "hidden": h_t}

    def forward(self, x_t: torch.Tensor, h: torch.Tensor | None = None) -> torch.Tensor:
        return self.step(h, x_t)["hidden"]

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.W_r.new_zeros(batch, self.hidden_size)

    @classmethod
    def from_torch(cls, module: nn.GRUCell | nn.GRU, layer: int = 0) -> GRUCell:
        """A cell with the weights of ``torch.nn.GRUCell`` (or of layer ``layer`` of an
        ``nn.GRU``)."""
        w = torch_weights(module, layer, (nn.GRUCell, nn.GRU))
        cell = cell_to_fill(cls, w)
        # torch stacks the three blocks along the rows in the order r, z, n
        W_r, W_z, W_n = w.weight_ih.chunk(3)
        U_r, U_z, U_n = w.weight_hh.chunk(3)
        b_ir, b_iz, b_in = w.bias_ih.chunk(3)
        b_hr, b_hz, b_hn = w.bias_hh.chunk(3)
        cell.load_state_dict(
            {
                "W_r": W_r, "U_r": U_r, "b_r": b_ir + b_hr,
                "W_z": W_z, "U_z": U_z, "b_z": b_iz + b_hz,
                "W_n": W_n, "U_n": U_n, "b_in": b_in, "b_hn": b_hn,
            }
        )  # fmt: skip
        return cell


class GRU(RecurrentLanguageModel):
    """A GRU language model (``torch.nn.GRU`` inside); ``trace`` adds ``"reset_gate"``,
    ``"update_gate"`` and ``"candidate"`` to ``"hidden"`` and ``"logits"``.

    ``GRU(vocab_size, hidden_size=32, embedding_dim=None, num_layers=1, dropout=0.0, seed=None)``.
    """

    kind = "gru"
    torch_class = nn.GRU
    cell_class = GRUCell

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int = 32,
        embedding_dim: int | None = None,
        num_layers: int = 1,
        dropout: float = 0.0,
        seed: int | None = None,
    ):
        super().__init__(vocab_size, hidden_size, embedding_dim, num_layers, dropout, seed)
