"""Long short-term memory: a memory cell behind three gates.

Hochreiter & Schmidhuber (1997) introduced the cell and its input and output gates; the forget
gate, which lets the cell let go of its content, is Gers, Schmidhuber & Cummins (2000) and is
part of every LSTM in use today (PyTorch's included). Besides the hidden state ``h`` the LSTM
carries a cell state ``C`` that is changed only by element-wise forgetting and adding, so
information (a count, an open bracket) can survive many steps. The equations as in Levy (2023),
with PyTorch's gate order ``i, f, C̃, o``::

    i_t = σ(W_i x_t + U_i h_{t-1} + b_i)            input gate: how much new content to write
    f_t = σ(W_f x_t + U_f h_{t-1} + b_f)            forget gate: how much old memory to keep
    C̃_t = tanh(W_c x_t + U_c h_{t-1} + b_c)         cell candidate: the new content
    C_t = f_t ⊙ C_{t-1} + i_t ⊙ C̃_t                 the memory update
    o_t = σ(W_o x_t + U_o h_{t-1} + b_o)            output gate: how much memory to show
    h_t = o_t ⊙ tanh(C_t)

(PyTorch calls the candidate ``g`` and adds two biases ``b_ih + b_hh`` where we write one ``b``.)

:class:`LSTMCell` is the step written out; :class:`LSTM` is the fast language model whose step
(``recurrence()``: what ``trace`` and the steppers run) is :class:`LSTMCell` with the same
weights, so the widgets can show every gate.
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
)

State = tuple[torch.Tensor, torch.Tensor]  # (h, C), each [B, hidden]


class LSTMCell(nn.Module):
    """One LSTM step: ``step((h, C) or None, x_t [B, input])`` returns ``{"input_gate",
    "forget_gate", "cell_candidate", "cell", "output_gate", "hidden"}`` (the state first, as every
    step in the course).

    Calling the cell, ``cell(x_t, (h, C)) -> (h_t, C_t)``, is PyTorch's ``nn.LSTMCell`` call.
    """

    state_names = ("hidden", "cell")

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.input_size = check_positive(input_size, "input_size")
        self.hidden_size = check_positive(hidden_size, "hidden_size")
        self.W_i, self.U_i, self.b_i = gate_parameters(input_size, hidden_size)
        self.W_f, self.U_f, self.b_f = gate_parameters(input_size, hidden_size)
        self.W_c, self.U_c, self.b_c = gate_parameters(input_size, hidden_size)
        self.W_o, self.U_o, self.b_o = gate_parameters(input_size, hidden_size)

    def step(self, state: State | None, x_t: torch.Tensor) -> dict[str, torch.Tensor]:
        h, C = state_to_read(self, state, x_t)  # (h_{t-1}, C_{t-1}); None: zeros
        # i_t = σ(W_i x_t + U_i h_{t-1} + b_i)        input gate
        i = torch.sigmoid(x_t @ self.W_i.T + h @ self.U_i.T + self.b_i)
        # f_t = σ(W_f x_t + U_f h_{t-1} + b_f)        forget gate
        f = torch.sigmoid(x_t @ self.W_f.T + h @ self.U_f.T + self.b_f)
        # C̃_t = tanh(W_c x_t + U_c h_{t-1} + b_c)     cell candidate
        C_tilde = torch.tanh(x_t @ self.W_c.T + h @ self.U_c.T + self.b_c)
        # C_t = f_t ⊙ C_{t-1} + i_t ⊙ C̃_t
        C_t = f * C + i * C_tilde
        # o_t = σ(W_o x_t + U_o h_{t-1} + b_o)        output gate
        o = torch.sigmoid(x_t @ self.W_o.T + h @ self.U_o.T + self.b_o)
        # h_t = o_t ⊙ tanh(C_t)
        h_t = o * torch.tanh(C_t)
        return {
            "input_gate": i,
            "forget_gate": f,
            "cell_candidate": C_tilde,
            "cell": C_t,
            "output_gate": o,
            "hidden": h_t,
        }

    def forward(self, x_t: torch.Tensor, state: State | None = None) -> State:
        record = self.step(state, x_t)
        return record["hidden"], record["cell"]

    def initial_state(self, batch: int) -> State:
        zeros = self.W_i.new_zeros(batch, self.hidden_size)
        return zeros, zeros.clone()

    @classmethod
    def from_torch(cls, module: nn.LSTMCell | nn.LSTM, layer: int = 0) -> LSTMCell:
        """A cell with the weights of ``torch.nn.LSTMCell`` (or of layer ``layer`` of an
        ``nn.LSTM``)."""
        w = torch_weights(module, layer, (nn.LSTMCell, nn.LSTM))
        cell = cell_to_fill(cls, w)
        # torch stacks the four blocks along the rows in the order i, f, g (= C̃), o
        W_i, W_f, W_c, W_o = w.weight_ih.chunk(4)
        U_i, U_f, U_c, U_o = w.weight_hh.chunk(4)
        b_i, b_f, b_c, b_o = (w.bias_ih + w.bias_hh).chunk(4)
        cell.load_state_dict(
            {
                "W_i": W_i, "U_i": U_i, "b_i": b_i,
                "W_f": W_f, "U_f": U_f, "b_f": b_f,
                "W_c": W_c, "U_c": U_c, "b_c": b_c,
                "W_o": W_o, "U_o": U_o, "b_o": b_o,
            }
        )  # fmt: skip
        return cell


class LSTM(RecurrentLanguageModel):
    """An LSTM language model (``torch.nn.LSTM`` inside); ``trace`` adds ``"cell"``,
    ``"input_gate"``, ``"forget_gate"``, ``"cell_candidate"`` and ``"output_gate"``.

    ``LSTM(vocab_size, hidden_size=32, embedding_dim=None, num_layers=1, dropout=0.0, seed=None)``.
    """

    kind = "lstm"
    torch_class = nn.LSTM
    cell_class = LSTMCell

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

    def initial_state(self, batch: int) -> State:
        """The zero state ``(h_0, C_0)``, each ``[num_layers, batch, hidden]``."""
        zeros = super().initial_state(batch)
        return zeros, zeros.clone()
