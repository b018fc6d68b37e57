"""The simple recurrent network (Elman 1990): a hidden state that reads one symbol at a time.

At every step the new hidden state mixes the current input with the previous state::

    h_t = f(W x_t + U h_{t-1} + b)        f = tanh (or ReLU);  Levy (2023) writes σ for f
    y_t = softmax(V h_t + c)              the next-symbol distribution

This file holds two versions of the same network:

* :class:`SRNCell` – the equation above with explicit parameters, one step at a time. It is
  for reading: ``SRNCell.from_torch(torch.nn.RNNCell(...))`` copies PyTorch's weights and then
  computes exactly what PyTorch computes.
* :class:`SRN` – the language model used in experiments. It runs ``torch.nn.RNN`` (a fast C++
  loop) over the whole sequence; its step (``recurrence()``, which ``trace`` runs) is
  :class:`SRNCell` with the same weights, so that a widget can look at every step.

The frame around the cell – "symbols in, recurrent layer, linear readout out" – is
:mod:`.recurrent`'s, shared with :mod:`.gru` and :mod:`.lstm`, which only swap the cell.
"""

from __future__ import annotations

import torch
from torch import nn

from ..checks import check_positive
from .recurrent import (
    NONLINEARITIES,
    RecurrentLanguageModel,
    cell_to_fill,
    check_nonlinearity,
    gate_parameters,
    state_to_read,
    torch_weights,
)

# -- one step of the SRN, written out ------------------------------------------------------------


class SRNCell(nn.Module):
    """One step of Elman's network, ``h_t = f(W x_t + U h_{t-1} + b)``.

    ``step(h [B, hidden] or None, x_t [B, input]) -> {"hidden": h_t}``: the state first, as
    every step in the course; a dict, the shape every scratch cell uses for its trace. Calling the
    cell, ``cell(x_t, h) -> h_t``, is PyTorch's ``nn.RNNCell`` call, argument for argument.
    """

    #: the names of the state that carries over from step to step
    state_names = ("hidden",)

    def __init__(self, input_size: int, hidden_size: int, nonlinearity: str = "tanh"):
        super().__init__()
        self.input_size = check_positive(input_size, "input_size")
        self.hidden_size = check_positive(hidden_size, "hidden_size")
        self.nonlinearity = check_nonlinearity(nonlinearity)
        # W: input → hidden, U: hidden → hidden (the recurrence), b: bias
        self.W, self.U, self.b = gate_parameters(input_size, hidden_size)

    def step(self, h: torch.Tensor | None, x_t: torch.Tensor) -> dict[str, torch.Tensor]:
        h = state_to_read(self, h, x_t)  # h_{t-1}; None: the zero state h_0
        f = NONLINEARITIES[self.nonlinearity]
        # h_t = f(W x_t + U h_{t-1} + b)
        h_t = f(x_t @ self.W.T + h @ self.U.T + self.b)
        return {"hidden": h_t}

    def forward(self, x_t: torch.Tensor, h: torch.Tensor | None = None) -> torch.Tensor:
        return self.step(h, x_t)["hidden"]

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.W.new_zeros(batch, self.hidden_size)

    @classmethod
    def from_torch(cls, module: nn.RNNCell | nn.RNN, layer: int = 0) -> SRNCell:
        """A cell with the weights of ``torch.nn.RNNCell`` (or layer ``layer`` of an ``nn.RNN``)."""
        w = torch_weights(module, layer, (nn.RNNCell, nn.RNN))
        cell = cell_to_fill(cls, w, module.nonlinearity)
        # PyTorch adds two biases, b_ih + b_hh; one bias b is the same function
        cell.load_state_dict({"W": w.weight_ih, "U": w.weight_hh, "b": w.bias_ih + w.bias_hh})
        return cell


class SRN(RecurrentLanguageModel):
    """Elman's simple recurrent network as a language model (``torch.nn.RNN`` inside).

    ``SRN(vocab_size, hidden_size=32, embedding_dim=None, num_layers=1, dropout=0.0,
    nonlinearity="tanh", seed=None)``; ``embedding_dim=None`` feeds one-hot symbols; ``seed``
    makes the initial weights reproducible without touching the global random state.
    """

    kind = "srn"
    torch_class = nn.RNN
    cell_class = SRNCell

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int = 32,
        embedding_dim: int | None = None,
        num_layers: int = 1,
        dropout: float = 0.0,
        nonlinearity: str = "tanh",
        seed: int | None = None,
    ):
        super().__init__(
            vocab_size,
            hidden_size,
            embedding_dim,
            num_layers,
            dropout,
            seed,
            nonlinearity=check_nonlinearity(nonlinearity),
        )
