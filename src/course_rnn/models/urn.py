"""Unitary-evolution RNNs: every symbol is a rotation of the state.

Bernardy & Lappin (2022, "A neural model for compositional word embeddings and sentence
processing"; 2023, "Assessing the unitary RNN as an end-to-end compositional model of syntax").
A URN has no activation function at all. Each symbol ``x`` owns a skew-symmetric *generator*
``S(x)``; its matrix exponential is an orthogonal matrix, and reading a symbol multiplies the
state by that matrix::

    S(x) = T(x) − T(x)ᵀ           T(x) strictly upper-triangular, filled row by row
    Q(x) = exp S(x)               orthogonal: Q(x)ᵀ Q(x) = I, det Q(x) = +1
    h_0  = e_0 = [1, 0, …, 0]
    h_t  = Q(x_t) h_{t−1}
    p(w_{t+1} | w_1 … w_t) = softmax(W h_t + b)

Because the cell is a bare matrix product the model is *compositional by design*: the matrix of a
phrase is the product of its symbols' matrices, ⟦w_1 … w_t⟧ = Q(x_t) ⋯ Q(x_1), and the state
after the phrase is ⟦w_1 … w_t⟧ h_0. ``URN.embedding`` and ``URN.compose`` hand those matrices to
the analyses in :mod:`course_rnn.analysis.urn`.

**Truncation (k-TURN).** A full generator has n(n−1)/2 free entries. The papers keep only the
first ``k`` rows of the upper triangle (and so, by antisymmetry, the first k columns), which
leaves (n−1) + (n−2) + … + (n−k) parameters per symbol and makes Q(x) a rotation in at most k
planes. (The 2022 paper prints the sum as ending at n−k+1; the seeds' code, e.g. 49+48+47 for
n=50, k=3, ends at n−k, and so do we.)

**The baseline.** :class:`MatrixRNN` is the 2022 paper's "baseline RNN with full embeddings that
are not constrained to be orthogonal": the same network with a free n×n matrix per symbol,
h_t = M(x_t) h_{t−1}.

**Speed.** The seeds' TensorFlow code exponentiates one generator per *token*. Here the
exponential is taken once per *vocabulary symbol* per forward pass, and each step is a single
product of the states with all V matrices stacked, ``h @ [Q_1; …; Q_V]ᵀ``, from which every
string keeps the rows of the symbol it read. ``benchmarks/urn_expm.py`` measures the difference.
The exponential itself is :func:`expm`: scaling and squaring around a Taylor polynomial, whose
gradient is plain matrix products (equal to ``torch.linalg.matrix_exp`` to float32 precision,
and 2–3× faster to differentiate at the papers' sizes).

**Dropout** (rate ρ, inverted scaling 1/(1−ρ), only in training mode), at the three places of
the seeds' code (``LM.hs``: ``drp1`` on the embedding, ``rdrp1`` on the cell's input state, ``drp``
before the projection):

1. on the symbol parameters (the generator entries of a URN, the matrix entries of a
   MatrixRNN): one mask over the parameter vector, applied to every symbol. **Deviation:** the
   seeds draw this mask per sequence; here it is drawn once per forward pass and shared by the
   whole batch, because per-sequence masks would need B×V matrix exponentials (≈8–12 s instead
   of ≈0.06 s per batch of 512 on a 2-core CPU);
2. on the state *before* it is multiplied, h_t = Q(x_t) (m ⊙ h_{t−1}): one mask per sequence,
   reused at every step (h_0 included);
3. on the state before the readout, logits_t = W (m' ⊙ h_t) + b: one mask per sequence, reused at
   every step.

The states returned in ``trace(...)["hidden"]`` are the h_t above (after the cell, before the
readout mask). With dropout off (``model.eval()`` or ``dropout=0``) ‖h_t‖ = 1 at every step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from ..checks import MAX_INIT_SCALE, check_at_least, check_number, is_integer
from .base import Parts, Recurrence, RecurrentModel, check_time_steps, seeded

# -- sizes and shapes ---------------------------------------------------------------------------


def check_truncation(n: int, k: int | None) -> int:
    """The number of generator rows kept: ``k``, or n−1 (no truncation) when ``k`` is None."""
    check_at_least(n, "n (the state size)", 2)
    if k is None:
        return n - 1
    check_at_least(k, "k (the truncation)", 1)
    if k > n - 1:
        raise ValueError(
            f"k={k} is impossible for n={n}: a skew-symmetric n×n generator has only n−1={n - 1} "
            "rows above the diagonal (use k=None for the full URN)"
        )
    return k


def generator_size(n: int, k: int | None = None) -> int:
    """Free parameters of one k-truncated generator: (n−1) + (n−2) + … + (n−k)."""
    k = check_truncation(n, k)
    return sum(n - 1 - row for row in range(k))


def urn_parameter_count(n: int, k: int | None, vocab_size: int) -> int:
    """Parameters of a (k-T)URN: V generators of :func:`generator_size` entries, plus the dense
    readout W ∈ R^{V×n}, b ∈ R^V.

    Matches Bernardy & Lappin (2023), Tables 1–2 (full URNs, k=None): Dyck (V=12) n=8, 16, 32 →
    444, 1644, 6348; cross-serial (V=10) → 370, 1370, 5290.
    """
    check_at_least(vocab_size, "vocab_size", 1)
    return vocab_size * generator_size(n, k) + vocab_size * (n + 1)


def skew_symmetric(params: torch.Tensor, n: int) -> torch.Tensor:
    """S = T − Tᵀ, with T strictly upper-triangular and filled row by row from ``params``.

    ``params[..., P]`` may hold fewer than n(n−1)/2 entries: the remaining (later-row) entries
    stay zero, which is exactly k-truncation when P = (n−1) + … + (n−k). For n=3 (B&L 2023)::

        skew([x0, x1, x2]) = [[  0,   x0,  x1],
                              [−x0,    0,  x2],
                              [−x1,  −x2,   0]]
    """
    size = params.shape[-1]
    if size > n * (n - 1) // 2:
        raise ValueError(f"{size} parameters do not fit above the diagonal of a {n}×{n} matrix")
    rows, cols = torch.triu_indices(n, n, offset=1, device=params.device)[:, :size]
    upper = params.new_zeros(*params.shape[:-1], n, n)
    upper[..., rows, cols] = params
    return upper - upper.transpose(-1, -2)


#: Taylor degree and scaled-norm bound of :func:`expm`: with ‖S / 2^s‖₁ ≤ 1/2 the first
#: neglected term is below 0.5^9 / 9! ≈ 5e-9, far under float32's resolution.
TAYLOR_DEGREE, TAYLOR_RADIUS = 8, 0.5


def expm(generators: torch.Tensor) -> torch.Tensor:
    """e^S for a stack of square matrices ``[..., n, n]``, by scaling and squaring::

        e^S = (e^{S / 2^s})^{2^s},   e^A ≈ I + A (I + A/2 (I + A/3 (… (I + A/8))))   (Horner)

    with s the least integer that brings the largest 1-norm ‖S / 2^s‖₁ to at most 1/2. The
    truncation error is far below float32 rounding, so for a skew-symmetric S the result is
    orthogonal to float precision; autograd differentiates the products directly, which is much
    cheaper than ``torch.linalg.matrix_exp``'s backward pass (an exponential of a 2n × 2n block
    matrix).
    """
    if generators.dim() < 2 or generators.shape[-1] != generators.shape[-2]:
        raise ValueError(f"expm needs square matrices [..., n, n], got {tuple(generators.shape)}")
    norm = float(torch.linalg.matrix_norm(generators.detach(), ord=1).max()) \
        if generators.numel() else 0.0
    if not torch.isfinite(torch.tensor(norm)):
        raise ValueError("expm: the generators contain NaN or infinity")
    squarings = max(0, math.ceil(math.log2(norm / TAYLOR_RADIUS))) if norm > TAYLOR_RADIUS else 0
    scaled = generators / 2 ** squarings
    eye = torch.eye(generators.shape[-1], dtype=generators.dtype, device=generators.device)
    result = eye + scaled / TAYLOR_DEGREE
    for k in range(TAYLOR_DEGREE - 1, 0, -1):
        result = eye + (scaled @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


def compose_matrices(matrices: Sequence[torch.Tensor] | torch.Tensor) -> torch.Tensor:
    """The matrix of a phrase from its symbols' matrices *in reading order*.

    ⟦w_1 w_2 … w_t⟧ = Q(w_t) ⋯ Q(w_2) Q(w_1), so that ⟦w_1 w_2⟧ = ⟦w_2⟧ × ⟦w_1⟧ (B&L 2023, §2.2)
    and the state after the phrase is ⟦w_1 … w_t⟧ h_0. Works on tensors and numpy arrays alike.
    """
    if isinstance(matrices, torch.Tensor):
        if matrices.dim() != 3 or matrices.shape[-1] != matrices.shape[-2]:
            raise ValueError(
                f"expected a stack of square matrices [t, n, n], got {tuple(matrices.shape)}"
            )
        matrices = list(matrices)
    if len(matrices) == 0:
        raise ValueError("compose_matrices needs at least one matrix (to know n)")
    product = matrices[0]
    for matrix in matrices[1:]:
        if matrix.shape != product.shape:
            raise ValueError(f"cannot compose matrices of shapes {tuple(product.shape)} and "
                             f"{tuple(matrix.shape)}")
        product = matrix @ product  # the later symbol acts last, so it multiplies on the left
    return product


# -- the shared network: one matrix per symbol, no activation -----------------------------------


class SymbolMatrixRNN(RecurrentModel):
    """h_t = A(x_t) h_{t−1}, h_0 = e_0, logits_t = W h_t + b, with one matrix A(x) per symbol.

    Subclasses say how A(x) is made from their parameters (:meth:`symbol_matrices`) and draw
    them inside :func:`~.base.seeded` (:meth:`_init_symbols`). The recurrence, dropout, readout,
    ``embedding`` and ``compose`` are shared.
    """

    def __init__(self, vocab_size: int, hidden_size: int, dropout: float, init_range: float,
                 seed):
        super().__init__()
        check_at_least(vocab_size, "vocab_size", 1)
        check_at_least(hidden_size, "hidden_size (the state size n)", 2)
        n = hidden_size
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
            raise TypeError(f"dropout must be a number in [0, 1), got {dropout!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        check_number(init_range, "init_range", at_least=0, at_most=MAX_INIT_SCALE)
        if seed is not None:
            check_at_least(seed, "seed", 0)
        self.vocab_size = vocab_size
        self.hidden_size = self.n = n
        self.dropout = float(dropout)
        self.init_range = float(init_range)
        start = torch.zeros(n)
        start[0] = 1.0  # h_0 = e_0 = [1, 0, …, 0]
        self.register_buffer("start_state", start, persistent=False)
        # made without drawing (its weights are drawn in _init_symbols, from the seed when given)
        self.readout = nn.utils.skip_init(nn.Linear, n, vocab_size)

    def _init_symbols(self, seed: int | None, *shape: int) -> nn.Parameter:
        """The symbols' parameters ``[*shape]`` ~ U(−init_range, init_range) (the seeds'
        embedding initialisation), then the readout's; from ``seed`` alone when given."""
        with seeded(seed):
            symbols = nn.Parameter((2 * torch.rand(*shape) - 1) * self.init_range)
            # TypedFlow's defaults in the seeds: Glorot-uniform weights, biases ~ N(0, 0.1²)
            # cut at 2σ
            nn.init.xavier_uniform_(self.readout.weight)
            nn.init.trunc_normal_(self.readout.bias, std=0.1, a=-0.2, b=0.2)
        return symbols

    # -- what subclasses provide ----------------------------------------------------------------
    def symbol_matrices(self, parameter_mask: torch.Tensor | None = None) -> torch.Tensor:
        """A(x) for every vocabulary symbol, ``[V, n, n]`` (parameters times ``parameter_mask``)."""
        raise NotImplementedError

    def _parameter_mask(self) -> torch.Tensor | None:
        raise NotImplementedError

    # -- dropout --------------------------------------------------------------------------------
    def _dropout_mask(self, *shape: int) -> torch.Tensor | None:
        """Bernoulli(1−ρ)/(1−ρ) mask, or None when dropout is off (eval mode or ρ=0)."""
        if not self.training or self.dropout == 0.0:
            return None
        keep = 1.0 - self.dropout
        return torch.bernoulli(torch.full(shape, keep, device=self.device)) / keep

    # -- the network ----------------------------------------------------------------------------
    def recurrence(self) -> SymbolMatrixStep:
        """h_t = A(x_t) h_{t−1} from h_0 = e_0, with A(x) for every symbol made once (and, in
        training mode, the parameter dropout drawn once)."""
        return SymbolMatrixStep(self, self.symbol_matrices(self._parameter_mask()))

    def _run(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        inputs = check_time_steps(self.check_inputs(inputs))
        batch = inputs.shape[0]
        recurrence = self.recurrence()  # A(x) for every symbol, once per pass
        state_mask = self._dropout_mask(batch, self.n)  # one mask per sequence, every step
        readout_mask = self._dropout_mask(batch, 1, self.n)

        h = recurrence.initial_state(batch)  # h_0 = e_0
        hidden = []
        for t in range(inputs.shape[1]):
            if state_mask is not None:
                h = h * state_mask  # dropout on the state before it is multiplied
            h, _ = recurrence.step(h, inputs[:, t])  # h_t = A(x_t) h_{t−1}
            hidden.append(h)
        hidden = torch.stack(hidden, dim=1)  # [B, T, n]

        read = hidden if readout_mask is None else hidden * readout_mask
        logits = self.readout(read)  # W h_t + b; softmax lives in the loss
        return {"hidden": hidden, "logits": logits}

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-symbol logits ``[B, T, V]`` for ``inputs`` ``[B, T]``."""
        return self._run(inputs)["logits"]

    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """``{"hidden": h_1 … h_T  [B, T, n], "logits": [B, T, V]}``, with gradients and (in
        training mode) dropout: the same pass as ``forward``."""
        return self._run(inputs)

    def web_form(self) -> dict:
        """The step as ``stepper.js`` runs it: ``h = Q_x h`` from ``h0`` (``<s>`` too), one
        matrix per symbol."""
        return {"cell": self.kind, "Q": self.symbol_matrices(),
                "h0": self.start_state.reshape(-1)}

    # -- embeddings as matrices -----------------------------------------------------------------
    def _check_symbol(self, symbol) -> int:
        if isinstance(symbol, torch.Tensor):
            if symbol.numel() != 1 or symbol.is_floating_point():
                raise TypeError(f"a symbol index must be one integer, got a tensor of shape "
                                f"{tuple(symbol.shape)} and dtype {symbol.dtype}")
            symbol = int(symbol)
        if not is_integer(symbol):
            raise TypeError(f"a symbol index must be an integer, got {symbol!r}")
        symbol = int(symbol)
        if not 0 <= symbol < self.vocab_size:
            raise ValueError(f"symbol index {symbol} is outside the vocabulary "
                             f"(size {self.vocab_size})")
        return symbol

    def embedding(self, symbol: int) -> torch.Tensor:
        """The matrix A(x) of one symbol, ``[n, n]`` (no dropout): the *unitary embedding* Q(x)
        for a URN."""
        return self.symbol_matrices()[self._check_symbol(symbol)]

    def compose(self, seq_indices: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """⟦x_1 … x_t⟧ = A(x_t) ⋯ A(x_1), ``[n, n]``, so that the last state of the forward pass
        on ``seq_indices`` (dropout off) is ``compose(seq_indices) @ h_0``. Empty → I."""
        if isinstance(seq_indices, torch.Tensor):
            if seq_indices.dim() != 1:
                raise ValueError(f"compose expects a 1-D sequence of symbol indices, got shape "
                                 f"{tuple(seq_indices.shape)}")
            seq_indices = seq_indices.tolist()
        indices = [self._check_symbol(s) for s in seq_indices]
        if not indices:
            return torch.eye(self.n, device=self.device)
        matrices = self.symbol_matrices()
        return compose_matrices([matrices[i] for i in indices])


class URN(SymbolMatrixRNN):
    """Unitary-evolution RNN (k-TURN when ``k`` is given), Bernardy & Lappin 2022/2023.

    ``URN(vocab_size, hidden_size=50, k=None, dropout=0.05, init_range=0.05, seed=None)``

    * ``hidden_size`` – the state size n (the papers use 50 for Dyck, 8/16/32 in 2023);
    * ``k`` – keep the first k rows of each generator (None: all n−1 rows, the Full-URN);
    * ``dropout`` – ρ at the three places listed in the module docstring;
    * ``init_range`` – generator entries start ~ U(−init_range, init_range);
    * ``seed`` – if given, the initial parameters come from this seed alone.

    Q(x) = exp(T(x) − T(x)ᵀ), h_t = Q(x_t) h_{t−1}, h_0 = e_0, logits_t = W h_t + b.
    """

    kind = "urn"

    def __init__(self, vocab_size: int, hidden_size: int = 50, k: int | None = None,
                 dropout: float = 0.05, init_range: float = 0.05, seed: int | None = None):
        n = hidden_size
        super().__init__(vocab_size, n, dropout, init_range, seed)
        self.k = check_truncation(n, k)
        # one row per symbol: the generator's upper-triangle entries, row by row, first k rows
        self.generators = self._init_symbols(seed, vocab_size, generator_size(n, k))

    def _parameter_mask(self) -> torch.Tensor | None:
        return self._dropout_mask(self.generators.shape[-1])

    def generator(self, symbol: int) -> torch.Tensor:
        """S(x) = T(x) − T(x)ᵀ, the skew-symmetric generator of one symbol, ``[n, n]``."""
        return skew_symmetric(self.generators[self._check_symbol(symbol)], self.n)

    def symbol_matrices(self, parameter_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Q(x) = exp S(x) for every symbol, ``[V, n, n]``: V matrix exponentials, not B·T."""
        params = self.generators if parameter_mask is None else self.generators * parameter_mask
        return expm(skew_symmetric(params, self.n))


class MatrixRNN(SymbolMatrixRNN):
    """The unconstrained baseline of Bernardy & Lappin (2022, §5): a free n×n matrix per symbol.

    ``MatrixRNN(vocab_size, hidden_size=50, dropout=0.05, init_range=0.05, seed=None)`` (the
    state size n is ``hidden_size``)

    h_t = M(x_t) h_{t−1}, h_0 = e_0, logits_t = W h_t + b: the URN without the orthogonality
    constraint (the seeds' ``mulModel``: the embedding vector of n² entries reshaped to n×n, same
    dropouts, same readout, entries initialised U(−init_range, init_range)). Orthogonal matrices
    are available to it, but nothing keeps ‖h_t‖ = 1: with the seeds' small initialisation the
    state shrinks at every step until training grows the matrices.
    """

    kind = "matrix_rnn"

    def __init__(self, vocab_size: int, hidden_size: int = 50, dropout: float = 0.05,
                 init_range: float = 0.05, seed: int | None = None):
        n = hidden_size
        super().__init__(vocab_size, n, dropout, init_range, seed)
        self.matrices = self._init_symbols(seed, vocab_size, n, n)

    def _parameter_mask(self) -> torch.Tensor | None:
        return self._dropout_mask(self.n, self.n)

    def symbol_matrices(self, parameter_mask: torch.Tensor | None = None) -> torch.Tensor:
        """M(x) for every symbol, ``[V, n, n]``."""
        return self.matrices if parameter_mask is None else self.matrices * parameter_mask


class SymbolMatrixStep(Recurrence):
    """One step of a :class:`SymbolMatrixRNN`: the symbol itself is what the step reads, and it
    acts on the state as its matrix. Every symbol's matrix is applied at once, ``h @ [A_1; …;
    A_V]ᵀ``, and each string keeps the row of its own symbol (one product instead of B small
    ones; see the module docstring)."""

    def __init__(self, model: SymbolMatrixRNN, matrices: torch.Tensor):
        super().__init__(model)
        self.stacked = matrices.reshape(-1, model.n)  # [A_1; A_2; …; A_V]
        self.symbols = self.stacked.shape[0] // model.n  # V (explicit: an empty batch works)
        self.rows = torch.arange(0)  # 0 … B−1, made once per batch size

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.model.start_state.expand(batch, self.model.n)  # h_0 = e_0

    def step(self, h: torch.Tensor, symbols: torch.Tensor) -> tuple[torch.Tensor, Parts]:
        batch, n = h.shape
        if len(self.rows) != batch:
            self.rows = torch.arange(batch, device=h.device)
        # A_v h_{t−1} for every symbol v
        every_next = (h @ self.stacked.T).view(batch, self.symbols, n)
        h = every_next[self.rows, symbols]  # h_t = A(x_t) h_{t−1}: each string's own symbol
        return h, {"hidden": h}
