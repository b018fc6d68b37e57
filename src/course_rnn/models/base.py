"""What every sequence model in the course has in common.

A model reads a batch of token indices ``inputs`` of shape ``[B, T]`` (``<s> w1 … wn`` as made
by :func:`course_rnn.languages.make_batch`) and returns next-symbol ``logits`` of shape
``[B, T, V]``: row ``t`` scores the symbol that follows ``w1 … wt``.

``trace(inputs)`` runs the same computation step by step and returns a dict of per-step
tensors, each ``[B, T, …]``. Every model provides ``"hidden"`` (the state after reading each
input) and ``"logits"``; gated models add e.g. ``"cell"``, ``"forget_gate"``. Widgets and analyses
only ever read traces, so they work for every model.
"""

from __future__ import annotations

import torch
from torch import nn


class SequenceModel(nn.Module):
    """Base class. Subclasses set ``vocab_size`` and ``hidden_size`` and implement
    ``forward`` and ``trace``."""

    vocab_size: int
    hidden_size: int
    #: short name used by the registry, the CLI and the widgets
    kind: str = "model"

    def check_inputs(self, inputs: torch.Tensor) -> torch.Tensor:
        """Clear errors for the mistakes people make, before torch gives a cryptic one."""
        if not isinstance(inputs, torch.Tensor):
            raise TypeError(
                f"inputs must be a torch.Tensor of indices, got {type(inputs).__name__}"
            )
        if inputs.dim() == 1:
            inputs = inputs.unsqueeze(0)
        if inputs.dim() != 2:
            raise ValueError(f"inputs must have shape [batch, time], got {tuple(inputs.shape)}")
        if inputs.dtype not in (torch.long, torch.int, torch.int16, torch.int8, torch.uint8):
            raise ValueError(f"inputs must hold integer indices, got dtype {inputs.dtype}")
        if inputs.numel() and (inputs.min() < 0 or inputs.max() >= self.vocab_size):
            raise ValueError(
                f"input index out of range: found {int(inputs.min())}..{int(inputs.max())}, "
                f"vocabulary size is {self.vocab_size}"
            )
        return inputs.long().to(self.device)

    @property
    def device(self) -> torch.device:
        p = next(self.parameters(), None)
        return p.device if p is not None else torch.device("cpu")

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:  # pragma: no cover
        raise NotImplementedError

    @torch.no_grad()
    def predict_proba(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-symbol probabilities ``[B, T, V]``."""
        return torch.softmax(self.forward(inputs), dim=-1)

    def config(self) -> dict:
        """Constructor arguments, so that a checkpoint can rebuild the model."""
        return dict(getattr(self, "_config", {}))
