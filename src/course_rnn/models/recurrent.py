"""The frame the SRN, GRU and LSTM share: symbols in, a PyTorch recurrent layer, a linear readout.

:mod:`.srn`, :mod:`.gru` and :mod:`.lstm` each write one scratch cell (the step, one equation per
line) and name the PyTorch layer that computes the same step fast. Everything else is here:

* drawing a scratch cell's parameters as PyTorch draws them (:func:`gate_parameters`) and copying
  a PyTorch layer's weights into it (:func:`torch_weights`);
* :class:`InputLayer` – one-hot or embedded symbols;
* :class:`RecurrentLanguageModel` – input layer → ``torch.nn.RNN``/``GRU``/``LSTM`` → dropout →
  readout, whose :meth:`~RecurrentLanguageModel.recurrence` is the scratch cell of every layer
  (:class:`LayerStack`) running the fast layer's own weights, so that ``trace``, the gradient
  analysis and the steppers see exactly what the model computed.

Weights follow PyTorch's convention: a matrix maps a row-vector batch as ``x @ W.T``, so
``W`` has shape ``[hidden, input]`` and the code ``x_t @ W.T`` is the maths ``W x_t``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

from ..checks import check_integer, check_positive
from .base import (
    MAX_LAYERS,
    Parts,
    Recurrence,
    RecurrentModel,
    State,
    check_time_steps,
    check_weight_sizes,
    seeded,
)

#: the nonlinearities PyTorch's nn.RNN offers, by name
NONLINEARITIES = {"tanh": torch.tanh, "relu": torch.relu}


def check_nonlinearity(name: str) -> str:
    if name not in NONLINEARITIES:
        choices = ", ".join(NONLINEARITIES)
        raise ValueError(f"unknown nonlinearity {name!r}: choose one of {choices}")
    return name


# -- what the scratch cells share: parameters drawn like PyTorch's, weights copied from it -------


def uniform_parameter(*shape: int, hidden_size: int) -> nn.Parameter:
    """A parameter drawn as PyTorch draws recurrent weights: uniform in ±1/√hidden."""
    bound = 1.0 / math.sqrt(hidden_size)
    return nn.Parameter(torch.empty(shape).uniform_(-bound, bound))


def gate_parameters(input_size: int, hidden_size: int) -> tuple[nn.Parameter, ...]:
    """``W [hidden, input]``, ``U [hidden, hidden]`` and ``b [hidden]`` for one affine map
    ``W x + U h + b``."""
    check_weight_sizes(input_size=input_size, hidden_size=hidden_size)
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


def cell_to_fill(cell_class: type[nn.Module], weights: TorchWeights, *options) -> nn.Module:
    """A scratch cell of ``weights``' sizes, dtype and device, for ``from_torch`` to load them
    into. Its own initial weights are replaced, so they are drawn inside ``seeded(0)``: making
    it leaves the global generator alone."""
    with seeded(0):
        return cell_class(weights.input_size, weights.hidden_size, *options).to(weights.weight_ih)


def state_to_read(cell: nn.Module, state: State, x_t: torch.Tensor) -> State:
    """The state a scratch cell's ``step(state, x_t)`` reads: ``state`` itself, or the zero state
    when it is ``None`` (before the first step).

    Every step in the course takes the state first, as :class:`~.base.Recurrence` does; calling
    the cell as a module, ``cell(x_t, state)``, keeps PyTorch's ``nn.RNNCell`` order. The shapes
    are checked so that a step called in PyTorch's order is refused with an error naming the swap
    instead of computing something else (where ``input_size == hidden_size`` the two orders have
    the same shapes, and only the caller can tell them apart).
    """
    input_size = cell.input_size
    if not isinstance(x_t, torch.Tensor) or x_t.dim() != 2 or x_t.shape[1] != input_size:
        raise ValueError(f"x_t must be a tensor [batch, input_size={input_size}], got "
                         f"{_describe(x_t)}: a step takes (state, x_t), the state first")
    if not x_t.is_floating_point():
        raise TypeError(f"x_t must be a floating-point tensor (one-hot rows or features), got "
                        f"{x_t.dtype}: convert it, e.g. x_t.float()")
    if state is None:
        state = cell.initial_state(x_t.shape[0])  # zeros of the cell's dtype
    else:
        state = check_state_like(state, len(cell.state_names), (x_t.shape[0], cell.hidden_size),
                                 "[batch, hidden]",
                                 hint=": a step takes (state, x_t), the state first")
    dtype = _tensors(state)[0].dtype
    if x_t.dtype != dtype:  # the step's products would fail inside torch
        raise TypeError(f"x_t is {x_t.dtype} but the state and the cell compute in {dtype}: "
                        f"convert one to the other (x_t.to({dtype}) or cell.to({x_t.dtype}) "
                        "with a state of that dtype)")
    return state


def check_state_like(state: State, count: int, shape: tuple[int, ...], layout: str,
                     hint: str = "") -> State:
    """``state`` if it is ``count`` tensors (one, or the LSTM's pair), each of ``shape``; else a
    ValueError saying what was expected (``layout`` names the axes, ``hint`` ends the message).
    Only shapes are compared, nothing is allocated: a scratch cell checks at every step."""
    parts = _tensors(state)
    if len(parts) != count or any(not isinstance(p, torch.Tensor) or p.shape != shape
                                  for p in parts):
        wanted = " and ".join([str(tuple(shape))] * count)
        got = " and ".join(_describe(p) for p in parts)
        raise ValueError(f"state must be {count} tensor(s) of shape {wanted} ({layout}), "
                         f"got {got}{hint}")
    return state


def _describe(value) -> str:
    """A tensor's shape, or the type of anything else, for an error message."""
    return str(tuple(value.shape)) if isinstance(value, torch.Tensor) else type(value).__name__


def _tensors(state) -> tuple:
    """A recurrent state as a tuple of its tensors (the LSTM's is ``(h, C)``)."""
    return tuple(state) if isinstance(state, (tuple, list)) else (state,)


def carried_state(cell: nn.Module, parts: Parts) -> State:
    """What a scratch cell's next step reads from this step's parts (``cell.state_names``):
    ``h_t``, or the LSTM's ``(h_t, C_t)``."""
    state = tuple(parts[name] for name in cell.state_names)
    return state[0] if len(state) == 1 else state


# -- the frame every recurrent language model shares ---------------------------------------------


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


class RecurrentLanguageModel(RecurrentModel):
    """Input layer → PyTorch recurrent layer(s) → dropout → linear readout to ``vocab_size``.

    Subclasses name the PyTorch layer (``torch_class``) and the scratch cell that computes the
    same step in readable form (``cell_class``); the model's :meth:`recurrence` runs the cell
    with the fast layer's own weights, so what a widget shows is exactly what the model computed.
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
        self.num_layers = check_integer(num_layers, "num_layers", 1, MAX_LAYERS)
        if not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
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
        shape = (self.num_layers, batch, self.hidden_size)
        return check_state_like(state, len(self.cell_class.state_names), shape,
                                "[layers, batch, hidden]")

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

    def recurrence(self) -> LayerStack:
        """The scratch cell of every layer, with the fast layer's weights (see :class:`LayerStack`).

        ``trace`` runs it: every step's state and gates, ``[B, T, …]``. With several layers the
        gates and ``"hidden"`` are the top layer's and ``"hidden_layers"`` ``[B, T, num_layers,
        hidden]`` holds all of them. Like evaluation mode, the trace applies no dropout.
        """
        return LayerStack(self)

    def web_form(self) -> dict:
        """The step as ``stepper.js`` runs it (:mod:`course_rnn.widgets.web`): torch's own gate
        order, with everything the input decides folded into one vector per symbol,
        ``P[x] = W e_x + b_ih``, beside ``U`` and ``c = b_hh``."""
        if self.num_layers != 1:
            raise ValueError("the web stepper runs single-layer models only")
        rnn = self.rnn
        symbols = torch.arange(self.vocab_size, device=self.device)
        every_input = self.input_layer(symbols, dtype=self.readout.weight.dtype)
        return {
            "cell": self.kind,
            "P": every_input @ rnn.weight_ih_l0.T + rnn.bias_ih_l0,
            "U": rnn.weight_hh_l0,
            "c": rnn.bias_hh_l0,
            "nonlinearity": getattr(rnn, "nonlinearity", "tanh"),
        }


class ReadsInputVectors(Recurrence):
    """A step that reads the model's input vectors (``model.input_layer``: one-hot or embedded
    symbols), which are what the gradient analysis's ``wrt="input"`` differentiates."""

    def inputs(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.model.input_layer(inputs, dtype=self.model.readout.weight.dtype)


class LayerStack(ReadsInputVectors):
    """A :class:`RecurrentLanguageModel`'s step: its scratch cell for every layer, built with the
    fast layer's weights (``cell_class.from_torch``), each layer reading the hidden state of the
    one below. The state is one cell state per layer; the parts are the top layer's (and, with
    several layers, ``"hidden_layers"`` ``[B, num_layers, hidden]``)."""

    def __init__(self, model: RecurrentLanguageModel):
        super().__init__(model)
        self.cells = [model.cell_class.from_torch(model.rnn, layer)
                      for layer in range(model.num_layers)]

    def initial_state(self, batch: int) -> list:
        return [cell.initial_state(batch) for cell in self.cells]

    def step(self, state: list, x_t: torch.Tensor) -> tuple[list, Parts]:
        new_state, layer_input, hidden = [], x_t, []
        for cell, layer_state in zip(self.cells, state):
            parts = cell.step(layer_state, layer_input)
            new_state.append(carried_state(cell, parts))
            layer_input = parts["hidden"]
            hidden.append(layer_input)
        if len(self.cells) > 1:
            parts["hidden_layers"] = torch.stack(hidden, dim=1)
        return new_state, parts
