"""The simple recurrent network (Elman 1990): a hidden state that reads one symbol at a time.

At every step the new hidden state mixes the current input with the previous state::

    h_t = f(W x_t + U h_{t-1} + b)        f = tanh (or ReLU);  Levy (2023) writes σ for f
    y_t = softmax(V h_t + c)              the next-symbol distribution

This file holds two versions of the same network and the frame that the GRU and LSTM reuse.

* :class:`SRNCell` – the equation above with explicit parameters, one step at a time. It is
  for reading: ``SRNCell.from_torch(torch.nn.RNNCell(...))`` copies PyTorch's weights and then
  computes exactly what PyTorch computes.
* :class:`SRN` – the language model used in experiments. It runs ``torch.nn.RNN`` (a fast C++
  loop) over the whole sequence, and ``trace`` re-runs the same weights through
  :class:`SRNCell` so that a widget can look at every step.
* :class:`InputLayer` and :class:`RecurrentLanguageModel` – "symbols in, recurrent layer,
  linear readout out". :mod:`.gru` and :mod:`.lstm` only swap the recurrent cell.

Weights follow PyTorch's convention: a matrix maps a row-vector batch as ``x @ W.T``, so
``W`` has shape ``[hidden, input]`` and the code ``x_t @ W.T`` is the maths ``W x_t``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

from ..languages.base import check_positive
from .base import SequenceModel

#: the nonlinearities PyTorch's nn.RNN offers, by name
NONLINEARITIES = {"tanh": torch.tanh, "relu": torch.relu}


def check_nonlinearity(name: str) -> str:
    if name not in NONLINEARITIES:
        choices = ", ".join(NONLINEARITIES)
        raise ValueError(f"unknown nonlinearity {name!r}: choose one of {choices}")
    return name


# -- one step of the SRN, written out ------------------------------------------------------------


class SRNCell(nn.Module):
    """One step of Elman's network, ``h_t = f(W x_t + U h_{t-1} + b)``.

    ``forward(x_t [B, input], h [B, hidden] or None) -> h_t [B, hidden]``. ``step`` returns the
    same as a dict (``{"hidden": h_t}``), the shape every scratch cell uses for its trace.
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

    def step(self, x_t: torch.Tensor, h: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        h = self.initial_state(x_t.shape[0]) if h is None else h
        f = NONLINEARITIES[self.nonlinearity]
        # h_t = f(W x_t + U h_{t-1} + b)
        h_t = f(x_t @ self.W.T + h @ self.U.T + self.b)
        return {"hidden": h_t}

    def forward(self, x_t: torch.Tensor, h: torch.Tensor | None = None) -> torch.Tensor:
        return self.step(x_t, h)["hidden"]

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.W.new_zeros(batch, self.hidden_size)

    @classmethod
    def from_torch(cls, module: nn.RNNCell | nn.RNN, layer: int = 0) -> SRNCell:
        """A cell with the weights of ``torch.nn.RNNCell`` (or layer ``layer`` of an ``nn.RNN``)."""
        w = torch_weights(module, layer, (nn.RNNCell, nn.RNN))
        cell = cls(w.input_size, w.hidden_size, module.nonlinearity).to(w.weight_ih)
        # PyTorch adds two biases, b_ih + b_hh; one bias b is the same function
        cell.load_state_dict({"W": w.weight_ih, "U": w.weight_hh, "b": w.bias_ih + w.bias_hh})
        return cell


# -- what the scratch cells share: parameters drawn like PyTorch's, weights copied from it -------


def uniform_parameter(*shape: int, hidden_size: int) -> nn.Parameter:
    """A parameter drawn as PyTorch draws recurrent weights: uniform in ±1/√hidden."""
    bound = 1.0 / math.sqrt(hidden_size)
    return nn.Parameter(torch.empty(shape).uniform_(-bound, bound))


def gate_parameters(input_size: int, hidden_size: int) -> tuple[nn.Parameter, ...]:
    """``W [hidden, input]``, ``U [hidden, hidden]`` and ``b [hidden]`` for one affine map
    ``W x + U h + b``."""
    return (
        uniform_parameter(hidden_size, input_size, hidden_size=hidden_size),
        uniform_parameter(hidden_size, hidden_size, hidden_size=hidden_size),
        uniform_parameter(hidden_size, hidden_size=hidden_size),
    )


class TorchWeights(NamedTuple):
    """The four tensors of one PyTorch recurrent layer (gates stacked along the rows)."""

    weight_ih: torch.Tensor  # [gates*hidden, input]
    weight_hh: torch.Tensor  # [gates*hidden, hidden]
    bias_ih: torch.Tensor  # [gates*hidden]  (zeros when the layer has bias=False)
    bias_hh: torch.Tensor  # [gates*hidden]

    @property
    def input_size(self) -> int:
        return self.weight_ih.shape[1]

    @property
    def hidden_size(self) -> int:
        return self.weight_hh.shape[1]


def torch_weights(module: nn.Module, layer: int, accepted: tuple[type, ...]) -> TorchWeights:
    """Detached copies of the weights of a torch cell, or of layer ``layer`` of a torch
    ``nn.RNN``/``nn.GRU``/``nn.LSTM`` (``accepted`` lists the classes that fit the caller)."""
    if not isinstance(module, accepted):
        names = " or ".join(f"torch.nn.{cls.__name__}" for cls in accepted)
        raise TypeError(f"expected a {names}, got {type(module).__name__}")
    suffix = ""
    if isinstance(module, nn.RNNBase):
        if module.bidirectional or getattr(module, "proj_size", 0):
            raise ValueError("a bidirectional or projected torch layer is not one cell")
        if not 0 <= layer < module.num_layers:
            raise ValueError(f"layer must be in 0..{module.num_layers - 1}, got {layer}")
        suffix = f"_l{layer}"
    w_ih = getattr(module, "weight_ih" + suffix).detach().clone()
    w_hh = getattr(module, "weight_hh" + suffix).detach().clone()
    no_bias = torch.zeros_like(w_ih[:, 0])
    b_ih = getattr(module, "bias_ih" + suffix, None) if module.bias else None
    b_hh = getattr(module, "bias_hh" + suffix, None) if module.bias else None
    b_ih = no_bias if b_ih is None else b_ih.detach().clone()
    b_hh = no_bias if b_hh is None else b_hh.detach().clone()
    return TorchWeights(w_ih, w_hh, b_ih, b_hh)


# -- the frame every recurrent language model shares ---------------------------------------------


@contextmanager
def seeded(seed: int | None) -> Iterator[None]:
    """Draw initial weights from ``seed`` (when given) without disturbing the global RNG."""
    if seed is None:
        yield
        return
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be an integer or None, got {seed!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        yield


def check_time_steps(inputs: torch.Tensor) -> torch.Tensor:
    """Recurrent layers need at least one step to run (``<s>`` alone will do)."""
    if inputs.shape[1] == 0:
        raise ValueError("inputs must have at least one time step (start with <s>)")
    return inputs


class InputLayer(nn.Module):
    """Symbol indices ``[B, T]`` → input vectors ``x_t`` ``[B, T, size]``.

    ``embedding_dim=None`` gives one-hot vectors (``size`` = vocabulary size, nothing to learn,
    as in Elman 1990); an integer gives a learned ``nn.Embedding`` (as in Bengio et al. 2003).
    """

    def __init__(self, vocab_size: int, embedding_dim: int | None = None):
        super().__init__()
        self.vocab_size = check_positive(vocab_size, "vocab_size")
        if embedding_dim is None:
            self.embedding = None
            self.size = self.vocab_size
        else:
            self.size = check_positive(embedding_dim, "embedding_dim")
            self.embedding = nn.Embedding(self.vocab_size, self.size)

    def forward(self, inputs: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
        if self.embedding is None:
            return F.one_hot(inputs, self.vocab_size).to(dtype or torch.get_default_dtype())
        return self.embedding(inputs)


class RecurrentLanguageModel(SequenceModel):
    """Input layer → PyTorch recurrent layer(s) → dropout → linear readout to ``vocab_size``.

    Subclasses name the PyTorch layer (``torch_class``) and the scratch cell that computes the
    same step in readable form (``cell_class``); ``trace`` runs the cell with the fast layer's
    own weights, so what a widget shows is exactly what the model computed.
    """

    torch_class: type[nn.RNNBase]
    cell_class: type[nn.Module]

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int,
        embedding_dim: int | None,
        num_layers: int,
        dropout: float,
        seed: int | None,
        **layer_options,
    ):
        super().__init__()
        self.vocab_size = check_positive(vocab_size, "vocab_size")
        self.hidden_size = check_positive(hidden_size, "hidden_size")
        self.num_layers = check_positive(num_layers, "num_layers")
        if not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        self._config = dict(
            vocab_size=vocab_size,
            hidden_size=hidden_size,
            embedding_dim=embedding_dim,
            num_layers=num_layers,
            dropout=dropout,
            seed=seed,
            **layer_options,
        )
        with seeded(seed):
            self.input_layer = InputLayer(vocab_size, embedding_dim)
            self.rnn = self.torch_class(
                self.input_layer.size,
                self.hidden_size,
                num_layers=self.num_layers,
                batch_first=True,
                # torch only drops out *between* layers (and warns when there is just one)
                dropout=float(dropout) if self.num_layers > 1 else 0.0,
                **layer_options,
            )
            self.dropout = nn.Dropout(float(dropout))
            self.readout = nn.Linear(self.hidden_size, self.vocab_size)

    def initial_state(self, batch: int) -> torch.Tensor:
        """The zero state ``[num_layers, batch, hidden]`` the fast layer starts from."""
        return self.readout.weight.new_zeros(self.num_layers, batch, self.hidden_size)

    def check_state(self, state, batch: int):
        """``state`` if it has the shape of this model's recurrent state for ``batch`` strings
        (what :meth:`initial_state` returns), else a ValueError saying what was expected."""
        expected = self.initial_state(batch)
        parts, wanted = _parts(state), _parts(expected)
        if len(parts) != len(wanted) or any(
                not isinstance(p, torch.Tensor) or p.shape != w.shape
                for p, w in zip(parts, wanted)):
            shape = " and ".join(str(tuple(w.shape)) for w in wanted)
            got = " and ".join(str(tuple(p.shape)) if isinstance(p, torch.Tensor)
                               else type(p).__name__ for p in parts)
            raise ValueError(f"state must be {len(wanted)} tensor(s) of shape {shape} "
                             f"([layers, batch, hidden]), got {got}")
        return state

    def run(self, inputs: torch.Tensor, state=None) -> tuple[torch.Tensor, object]:
        """Logits ``[B, T, vocab]`` and the recurrent state after the last input, starting
        from ``state`` (default: the zero state of :meth:`initial_state`).

        This is how a long stream is read piece by piece, each piece starting where the last
        one stopped (truncated backpropagation through time, :mod:`course_rnn.training.stream`).
        """
        inputs = check_time_steps(self.check_inputs(inputs))
        x = self.input_layer(inputs, dtype=self.readout.weight.dtype)
        state = (self.initial_state(inputs.shape[0]) if state is None
                 else self.check_state(state, inputs.shape[0]))
        outputs, final = self.rnn(x, state)
        return self.readout(self.dropout(outputs)), final

    def hidden_states(self, inputs: torch.Tensor) -> torch.Tensor:
        """The top layer's hidden state after each input, ``[B, T, hidden]`` (fast path)."""
        inputs = check_time_steps(self.check_inputs(inputs))
        x = self.input_layer(inputs, dtype=self.readout.weight.dtype)
        outputs, _ = self.rnn(x, self.initial_state(inputs.shape[0]))
        return outputs

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.readout(self.dropout(self.hidden_states(inputs)))

    @torch.no_grad()
    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every step's state and gates, ``[B, T, …]``, from the scratch cell.

        With several layers the gates and ``"hidden"`` are the top layer's and
        ``"hidden_layers"`` ``[B, T, num_layers, hidden]`` holds all of them. Like evaluation
        mode, the trace applies no dropout; it is for looking, so it keeps no gradients.
        """
        inputs = check_time_steps(self.check_inputs(inputs))
        layer_input = self.input_layer(inputs, dtype=self.readout.weight.dtype)
        hidden_per_layer = []
        for layer in range(self.num_layers):
            cell = self.cell_class.from_torch(self.rnn, layer)
            records = self._run_cell(cell, layer_input)
            layer_input = records["hidden"]
            hidden_per_layer.append(records["hidden"])
        if self.num_layers > 1:
            records["hidden_layers"] = torch.stack(hidden_per_layer, dim=2)
        records["logits"] = self.readout(records["hidden"])
        return records

    @staticmethod
    def _run_cell(cell: nn.Module, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """Step ``cell`` along ``inputs [B, T, input]``; stack what each step reports."""
        state = None
        steps = []
        for t in range(inputs.shape[1]):
            record = cell.step(inputs[:, t], state)
            state = tuple(record[name] for name in cell.state_names)
            state = state[0] if len(state) == 1 else state
            steps.append(record)
        return {key: torch.stack([r[key] for r in steps], dim=1) for key in steps[0]}


def _parts(state) -> tuple:
    """A recurrent state as a tuple of its tensors (the LSTM's is ``(h, C)``)."""
    return tuple(state) if isinstance(state, (tuple, list)) else (state,)


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
