"""What every sequence model in the course has in common.

A model reads a batch of token indices ``inputs`` of shape ``[B, T]`` (``<s> w1 … wn`` as made
by :func:`course_rnn.languages.make_batch`) and returns next-symbol ``logits`` of shape
``[B, T, V]``: row ``t`` scores the symbol that follows ``w1 … wt``.

``trace(inputs)`` runs the same computation step by step and returns a dict of per-step
tensors, each ``[B, T, …]``. Every model provides ``"hidden"`` (the state after reading each
input) and ``"logits"``; gated models add e.g. ``"cell"``, ``"forget_gate"``. Widgets and analyses
only ever read traces, so they work for every model.

**One step, written once.** A recurrent model (:class:`RecurrentModel`) reads one symbol at a
time::

    h_0 = initial state
    h_t = step(h_{t-1}, x_t)          x_t: what step t reads (an input vector, or the symbol)
    y_t = readout(h_t)                the next-symbol logits

and writes that step once, as the :class:`Recurrence` that ``model.recurrence()`` returns::

    rec = model.recurrence()                    # the step, with the model's weights as they are
    x = rec.inputs(inputs)                      # [B, T, …]: x[:, t] is what step t reads
    state = rec.initial_state(batch)            # h_0
    for t in range(T):
        state, parts = rec.step(state, x[:, t])  # h_t, and the step's named parts
    logits = rec.logits(parts)                  # y_t

``parts`` names what the step computed, under the names ``trace`` uses: always ``"hidden"`` (the
state the readout reads), and e.g. the LSTM's ``"cell"`` and gates. ``state`` is the model's own
business (a tensor, the LSTM's pair, one entry per layer); only the model reads it. The
recurrence is built once per pass, so what depends only on the weights (PyTorch's stacked weights
split into the scratch cell's matrices, a URN's matrix exponentials) is computed once, not once
per step. :func:`unroll` steps a recurrence along a batch.

``trace``, the gradient analysis (:mod:`course_rnn.analysis.gradients`) and the steppers
(:mod:`course_rnn.widgets`) all step a model through its recurrence, so a new recurrent model
needs its own file, its line in the registry (:mod:`course_rnn.models`) and its tests — nothing
else. A model the website's stepper can run also says, in ``web_form()``, which of the
JavaScript cells of :mod:`course_rnn.widgets.web` computes its step, with which weights.
``tests/models/test_contract.py`` checks every registered model against this contract.

Initial weights are drawn inside :func:`seeded`, the one way the course seeds them. A model's
``config()`` — what a checkpoint saves to rebuild it — is the arguments its constructor was called
with, recorded by :class:`Rebuildable`; no model writes it by hand.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn

from ..checks import is_integer
from ..utils import shift_seed

#: a recurrent state: whatever the model carries from step to step (a tensor, a tuple, a list)
State = Any
#: the named parts of one step, each ``[B, …]``; ``"hidden"`` is always among them
Parts = dict[str, torch.Tensor]


@contextmanager
def seeded(seed: int | None) -> Iterator[None]:
    """Draw initial weights from ``seed`` (when given) without disturbing the global RNG; with
    ``seed=None`` they come from the global generator, as PyTorch's modules draw them."""
    if seed is None:
        yield
        return
    if not is_integer(seed) or seed < 0:
        raise ValueError(f"seed must be an integer ≥ 0 or None, got {seed!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(shift_seed(int(seed)))
        yield


#: the most numbers one weight matrix of a model may hold: 2**30, 4 GiB as float32 (the course's
#: largest, Austen's 7,112 words by 650 units, holds 4.6 million); checked before torch
#: allocates anything, so that ``vocab_size=10**9`` is an error naming it, not the allocator's
MAX_WEIGHTS = 2**30
#: the constructor arguments that size a weight matrix (or a stack: depth × width per string)
SIZE_ARGUMENTS = ("vocab_size", "hidden_size", "input_size", "embedding_dim", "stack_depth",
                  "stack_width", "n_stacks", "rbf_size")
#: the most layers a stacked recurrent model may have (the course's deepest has 2): each is a
#: module of its own, so 10**12 of them would be built one by one for hours
MAX_LAYERS = 100


def check_weight_sizes(**sizes) -> None:
    """A ValueError naming the arguments when the two largest of these sizes (integers; others
    are the constructor's own checks) would make a weight matrix of more than
    :data:`MAX_WEIGHTS` numbers."""
    given = sorted(((int(v), k) for k, v in sizes.items() if is_integer(v) and v > 0),
                   reverse=True)
    if not given:
        return
    (big, name), (other, other_name) = given[0], (given[1] if len(given) > 1 else (1, ""))
    if big * other <= MAX_WEIGHTS:
        return
    what = f"{name}={big}" + (f" and {other_name}={other}" if other_name else "")
    raise ValueError(f"{what} would make a tensor of {big * other:.3g} numbers "
                     f"({4 * big * other / 2**30:.3g} GiB as float32), more than a model here "
                     f"may hold ({MAX_WEIGHTS:.3g}): check the sizes")


class Rebuildable:
    """A model whose :meth:`config` is the arguments its constructor was called with, so that
    ``type(model)(**model.config())`` builds it again (with ``seed`` given, the same weights).

    Every subclass's ``__init__`` is wrapped to record them once it has run, defaults filled in
    — the outermost class's, since it finishes last."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _recording_arguments(cls.__init__)

    def config(self) -> dict:
        """Constructor arguments, so that a checkpoint can rebuild the model."""
        return dict(self._config)


def _recording_arguments(init: Callable) -> Callable:
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:  # the constructor says what is wrong with its arguments
            init(self, *args, **kwargs)
            raise
        bound.apply_defaults()
        # the sizes first: an absurd one is refused before torch allocates it
        check_weight_sizes(**{k: v for k, v in bound.arguments.items() if k in SIZE_ARGUMENTS})
        init(self, *args, **kwargs)
        arguments = {}
        for name, value in list(bound.arguments.items())[1:]:  # [0] is self
            kind = signature.parameters[name].kind
            arguments.update(value if kind is inspect.Parameter.VAR_KEYWORD else {name: value})
        self._config = arguments

    return __init__


def check_time_steps(inputs: torch.Tensor) -> torch.Tensor:
    """Recurrent models need at least one step to run (``<s>`` alone will do)."""
    if inputs.shape[1] == 0:
        raise ValueError("inputs must have at least one time step (start with <s>)")
    return inputs


class SequenceModel(Rebuildable, nn.Module):
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


class Recurrence:
    """One recurrent model's step, ready to run (see the module docstring).

    Subclasses write :meth:`initial_state` and :meth:`step` beside the model's equations.
    :meth:`inputs` defaults to the symbols themselves (for models whose symbols act on the state
    directly, like the URN's matrices); a model with an input layer returns its input vectors.
    :meth:`logits` defaults to ``model.readout(parts["hidden"])``.
    """

    #: False for a model whose readout does not come from one step's parts (then no ``logits``)
    reads_out: bool = True

    def __init__(self, model: SequenceModel):
        self.model = model

    def inputs(self, inputs: torch.Tensor) -> torch.Tensor:
        """What each step reads, ``[B, T, …]``, for checked symbol indices ``inputs [B, T]``."""
        return inputs

    def initial_state(self, batch: int) -> State:
        """``h_0`` for ``batch`` strings."""
        raise NotImplementedError

    def step(self, state: State, x_t: torch.Tensor) -> tuple[State, Parts]:
        """``h_t`` from ``h_{t-1}`` and ``x_t`` (``[B, …]``), and the step's named parts."""
        raise NotImplementedError

    def logits(self, parts: Parts) -> torch.Tensor:
        """Next-symbol logits from the parts of a step (or of a stack of steps, ``[B, T, …]``)."""
        return self.model.readout(parts["hidden"])


def unroll(recurrence: Recurrence, x: torch.Tensor) -> list[Parts]:
    """Step ``recurrence`` along ``x`` (``[B, T, …]``, from its :meth:`~Recurrence.inputs`)
    from its initial state; the parts of every step, in order."""
    state = recurrence.initial_state(x.shape[0])
    steps = []
    for t in range(x.shape[1]):
        state, parts = recurrence.step(state, x[:, t])
        steps.append(parts)
    return steps


def stack_steps(steps: list[Parts]) -> dict[str, torch.Tensor]:
    """The parts of consecutive steps as ``[B, T, …]`` tensors, one per name."""
    return {name: torch.stack([parts[name] for parts in steps], dim=1) for name in steps[0]}


class RecurrentModel(SequenceModel):
    """A sequence model that reads one symbol at a time and writes that step once, in
    :meth:`recurrence`. ``trace`` (and, unless a model has a faster path, ``forward``) run it."""

    def recurrence(self) -> Recurrence:  # pragma: no cover - abstract
        """The model's step, with its weights as they are now."""
        raise NotImplementedError

    def unrolled(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every step's parts ``[B, T, …]`` and ``"logits"``, computed one step at a time."""
        inputs = check_time_steps(self.check_inputs(inputs))
        recurrence = self.recurrence()
        records = stack_steps(unroll(recurrence, recurrence.inputs(inputs)))
        if recurrence.reads_out:
            records["logits"] = recurrence.logits(records)
        return records

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-symbol logits ``[B, T, V]``, one step at a time."""
        return self.unrolled(inputs)["logits"]

    @torch.no_grad()
    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What :meth:`unrolled` computes, for looking: no gradients are kept."""
        return self.unrolled(inputs)
