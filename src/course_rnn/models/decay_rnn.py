"""The Decay RNN (Bhatt et al. 2020): an SRN with leaky neurons that obey Dale's principle.

Two facts about real neurons shape it. A membrane potential *decays* back towards rest, so the
new state is a blend of the old state and the new input, with one learned decay ``α``; and by
*Dale's principle* a neuron is either excitatory or inhibitory: all its outgoing synapses have
the same sign. The paper's equations (Section 4)::

    c_t = (ReLU(W) W_dale) h_{t-1} + U x_t + b
    h_t = f(α h_{t-1} + (1 − α) c_t)               f = ReLU;  α ∈ (0, 1), learned

``W_dale = diag(D)`` with ``D_j = +1`` for the first 80% of the units (excitatory) and ``−1``
for the rest (inhibitory). The recurrent matrix multiplies the state as ``W_rec h``, so entry
``(i, j)`` is the synapse from unit ``j`` to unit ``i``: Dale's principle makes every *column*
``j`` of ``ReLU(W) W_dale`` share the sign ``D_j`` (Appendix A.3 of the paper draws it so).

Three variants, compared in the paper:

* ``"drnn"`` – the Decay RNN above;
* ``"sdrnn"`` – the *Slacked* Decay RNN: ``c_t = W h_{t-1} + U x_t + b`` (no sign constraint);
* ``"abdrnn"`` – the *Ablated* Decay RNN: ``c_t = U x_t + b`` (no recurrent matrix at all; the
  state still remembers through the decay ``α h_{t-1}``).

As in the authors' code (bhattg/Decay-RNN-ACL-SRW2020), ``α`` starts at 0.8 and the weights are
drawn uniformly in ±1/√hidden. Their code adds two biases ``b_ih + b_hh`` where we keep the
paper's single ``b``: the same function.

**How α is learned** (``alpha_parametrisation``) matters for what training does to it:

* ``"sigmoid"`` (default; the paper's footnote 4): ``α = σ(a)`` with ``a`` the trained parameter.
  A step of size ``δ`` on ``a`` moves ``α`` by about ``α(1 − α) δ``: near 0.95 that is five
  times less than near 0.5, so α creeps towards 0 or 1 ever more slowly;
* ``"direct"`` (the authors' released code): ``α`` itself is the trained parameter, so the
  optimizer moves it at the same rate wherever it is. Their code leaves it unbounded; we put it
  back into ``[ε, 1 − ε]`` whenever an update pushes it out (projected gradient descent), so
  that it stays a decay.

Either way ``τ = −1 / ln α`` (:func:`time_constant`) is the decay's time constant: after ``τ``
steps without drive, a state has shrunk by a factor ``e``.

There is no PyTorch built-in for this cell, so the fast path is a plain loop over time that
precomputes ``U x_t + b`` for every step at once; :meth:`DecayRNN.step` is one step of the same
update from a raw input vector, and the model's ``recurrence()`` (what ``trace``, the gradient
analysis and the steppers run) steps it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from ..checks import check_positive
from .base import Parts, RecurrentModel, check_time_steps, seeded
from .recurrent import (
    NONLINEARITIES,
    InputLayer,
    ReadsInputVectors,
    check_nonlinearity,
    state_to_read,
    uniform_parameter,
)

#: How α is trained: through a sigmoid of a raw parameter, or directly (see the module docstring).
ALPHA_PARAMETRISATIONS = ("sigmoid", "direct")
#: The direct α is kept in [ALPHA_EPS, 1 − ALPHA_EPS].
ALPHA_EPS = 1e-4

VARIANTS = {
    "drnn": "Decay RNN: recurrent weights obey Dale's principle",
    "sdrnn": "Slacked Decay RNN: recurrent weights of either sign",
    "abdrnn": "Ablated Decay RNN: no recurrent weights, only the decay",
}


def dale_signs(hidden_size: int, excitatory_fraction: float = 0.8) -> torch.Tensor:
    """The diagonal ``D`` of ``W_dale``: +1 for the first ⌈fraction·hidden⌉ units (excitatory),
    −1 for the rest (inhibitory)."""
    n_excitatory = math.ceil(round(excitatory_fraction * hidden_size, 9))  # round: 0.8·15 ≠ 12.0
    signs = -torch.ones(hidden_size)
    signs[:n_excitatory] = 1.0
    return signs


def time_constant(alpha: float) -> float:
    """``τ = −1 / ln α``: the number of steps after which a decay ``α`` has shrunk an undriven
    state by a factor ``e`` (α = 0.8: τ ≈ 4.5 words; α = 0.5: τ ≈ 1.4; α = 0.95: τ ≈ 19.5)."""
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"a decay α must lie strictly between 0 and 1, got {alpha!r}")
    return -1.0 / math.log(alpha)


def decay_update(
    h: torch.Tensor,
    input_drive: torch.Tensor,
    recurrent_matrix: torch.Tensor | None,
    alpha: torch.Tensor,
    f: Callable[[torch.Tensor], torch.Tensor],
) -> torch.Tensor:
    """``h_t = f(α h_{t-1} + (1 − α) c_t)`` with ``c_t = W_rec h_{t-1} + input_drive``, where
    ``input_drive = U x_t + b`` and ``W_rec`` is ``None`` for the ablated variant."""
    c = input_drive if recurrent_matrix is None else input_drive + h @ recurrent_matrix.T
    return f(alpha * h + (1 - alpha) * c)


class DecayRNN(RecurrentModel):
    """A Decay RNN language model: input layer → decay cell → linear readout.

    ``DecayRNN(vocab_size, hidden_size=32, variant="drnn", alpha_init=0.8,
    excitatory_fraction=0.8, embedding_dim=None, nonlinearity="relu", seed=None,
    alpha_parametrisation="sigmoid")``.
    ``variant`` is ``"drnn"``, ``"sdrnn"`` or ``"abdrnn"`` (see the module docstring);
    ``nonlinearity="tanh"`` is what the paper used for its language model (Appendix A.4);
    ``alpha_parametrisation`` is ``"sigmoid"`` (trains ``alpha_logit``) or ``"direct"`` (trains
    ``alpha_direct``, the authors' choice).
    """

    kind = "decay_rnn"
    #: the names of the state that carries over from step to step (as a scratch cell's)
    state_names = ("hidden",)

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int = 32,
        variant: str = "drnn",
        alpha_init: float = 0.8,
        excitatory_fraction: float = 0.8,
        embedding_dim: int | None = None,
        nonlinearity: str = "relu",
        seed: int | None = None,
        alpha_parametrisation: str = "sigmoid",
    ):
        super().__init__()
        if variant not in VARIANTS:
            choices = ", ".join(VARIANTS)
            raise ValueError(f"unknown Decay RNN variant {variant!r}: choose one of {choices}")
        if not isinstance(alpha_init, (int, float)) or not 0.0 < alpha_init < 1.0:
            raise ValueError(f"alpha_init must lie strictly between 0 and 1, got {alpha_init!r}")
        if alpha_parametrisation not in ALPHA_PARAMETRISATIONS:
            raise ValueError(f"unknown alpha_parametrisation {alpha_parametrisation!r}: choose "
                             f"one of {', '.join(ALPHA_PARAMETRISATIONS)}")
        if isinstance(excitatory_fraction, bool) \
                or not isinstance(excitatory_fraction, (int, float)) \
                or not 0 <= excitatory_fraction <= 1:
            raise ValueError(f"excitatory_fraction must lie in [0, 1], got {excitatory_fraction!r}")
        self.vocab_size = check_positive(vocab_size, "vocab_size")
        self.hidden_size = H = check_positive(hidden_size, "hidden_size")
        self.variant = variant
        self.nonlinearity = check_nonlinearity(nonlinearity)
        self.alpha_parametrisation = alpha_parametrisation
        with seeded(seed):
            self.input_layer = InputLayer(vocab_size, embedding_dim)
            self.weight_ih = uniform_parameter(H, self.input_layer.size, hidden_size=H)  # U
            self.bias = uniform_parameter(H, hidden_size=H)  # b
            if variant == "abdrnn":
                self.register_parameter("weight_hh", None)
            else:
                self.weight_hh = uniform_parameter(H, H, hidden_size=H)  # W
            self.readout = nn.Linear(H, self.vocab_size)
        if alpha_parametrisation == "sigmoid":
            # α = σ(alpha_logit) stays in (0, 1) however far training pushes the raw parameter
            self.alpha_logit = nn.Parameter(torch.logit(torch.tensor(float(alpha_init))))
        else:  # the authors' code: α is the parameter itself
            self.alpha_direct = nn.Parameter(torch.tensor(float(alpha_init)))
        self.register_buffer("dale", dale_signs(H, excitatory_fraction))  # D, fixed

    @property
    def alpha(self) -> torch.Tensor:
        """The decay ``α`` (a scalar tensor, with gradient): ``σ(alpha_logit)``, or
        ``alpha_direct`` itself, first put back into ``[ε, 1 − ε]`` if the last update pushed it
        out (projected gradient descent: α can leave the bound again when the gradient turns;
        a clamp in the formula would give it zero gradient there and trap it for good)."""
        if self.alpha_parametrisation == "sigmoid":
            return torch.sigmoid(self.alpha_logit)
        if not ALPHA_EPS <= float(self.alpha_direct.detach()) <= 1.0 - ALPHA_EPS:
            with torch.no_grad():
                self.alpha_direct.clamp_(ALPHA_EPS, 1.0 - ALPHA_EPS)
        return self.alpha_direct

    def recurrent_matrix(self) -> torch.Tensor | None:
        """The effective ``W_rec [hidden, hidden]`` applied as ``W_rec h``: ``ReLU(W) W_dale``
        (column ``j`` has sign ``D_j``) for ``"drnn"``, ``W`` for ``"sdrnn"``, ``None`` for
        ``"abdrnn"``."""
        if self.variant == "drnn":
            return torch.relu(self.weight_hh) * self.dale  # = ReLU(W) @ diag(D): scales columns
        if self.variant == "sdrnn":
            return self.weight_hh
        return None

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.readout.weight.new_zeros(batch, self.hidden_size)

    @property
    def input_size(self) -> int:
        """The size of an input vector ``x_t``: the vocabulary (one-hot) or ``embedding_dim``."""
        return self.input_layer.size

    def step(self, h: torch.Tensor | None, x_t: torch.Tensor) -> torch.Tensor:
        """``h_t`` from ``h_{t-1} [B, hidden]`` (``None``: the zero state) and an input vector
        ``x_t [B, input]`` (one-hot or embedded): the state first, as every step in the course."""
        h = state_to_read(self, h, x_t)
        input_drive = x_t @ self.weight_ih.T + self.bias  # U x_t + b
        f = NONLINEARITIES[self.nonlinearity]
        # h_t = f(α h_{t-1} + (1 − α) c_t),  c_t = W_rec h_{t-1} + U x_t + b
        return decay_update(h, input_drive, self.recurrent_matrix(), self.alpha, f)

    def hidden_states(self, inputs: torch.Tensor) -> torch.Tensor:
        """The state after each input, ``[B, T, hidden]``.

        The same update as :func:`decay_update`, regrouped so that the loop over time does one
        matrix product per step (row vectors, as in the code)::

            α h + (1 − α)(h W_recᵀ + d_t) = h (α I + (1 − α) W_recᵀ) + (1 − α) d_t
        """
        inputs = check_time_steps(self.check_inputs(inputs))
        x = self.input_layer(inputs, dtype=self.readout.weight.dtype)
        # work that does not depend on h is done once, outside the loop over time
        alpha, recurrent_matrix = self.alpha, self.recurrent_matrix()
        drive = (1 - alpha) * (x @ self.weight_ih.T + self.bias)  # (1 − α)(U x_t + b), every t
        f = NONLINEARITIES[self.nonlinearity]
        h = self.initial_state(inputs.shape[0])
        states = []
        if recurrent_matrix is None:  # ablated: each unit only keeps α of its own past
            for t in range(inputs.shape[1]):
                h = f(drive[:, t] + alpha * h)
                states.append(h)
        else:
            identity = torch.eye(self.hidden_size, dtype=drive.dtype, device=drive.device)
            carry = alpha * identity + (1 - alpha) * recurrent_matrix.T
            for t in range(inputs.shape[1]):
                h = f(torch.addmm(drive[:, t], h, carry))
                states.append(h)
        return torch.stack(states, dim=1)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.readout(self.hidden_states(inputs))

    def recurrence(self) -> DecayStep:
        """:meth:`step`, with the decay ``α`` among the parts: ``trace`` gives ``"hidden"``
        ``[B, T, hidden]``, ``"alpha"`` ``[B, T]`` (one learned scalar, repeated so that every
        entry is per step) and ``"logits"`` ``[B, T, V]``."""
        return DecayStep(self)

    def web_form(self) -> dict:
        """The step as ``stepper.js`` runs it: ``h = f(α h + (1 − α)(P[x] + W_rec h))`` with the
        input drive of every symbol ``P[x] = U e_x + b`` (``W_rec`` null for the ablated
        variant), and how α is trained, so that an imported model trains the same way."""
        symbols = torch.arange(self.vocab_size, device=self.device)
        every_input = self.input_layer(symbols, dtype=self.readout.weight.dtype)
        return {
            "cell": "decay_rnn",
            "P": every_input @ self.weight_ih.T + self.bias,
            "W": self.recurrent_matrix(),
            "alpha": float(self.alpha.detach()),
            "alpha_parametrisation": self.alpha_parametrisation,
            "nonlinearity": self.nonlinearity,
        }


class DecayStep(ReadsInputVectors):
    """A :class:`DecayRNN`'s step on its input vectors (one-hot or embedded)."""

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.model.initial_state(batch)

    def step(self, h: torch.Tensor, x_t: torch.Tensor) -> tuple[torch.Tensor, Parts]:
        h = self.model.step(h, x_t)  # h_t = f(α h_{t-1} + (1 − α) c_t)
        return h, {"hidden": h, "alpha": self.model.alpha.expand(h.shape[0])}
