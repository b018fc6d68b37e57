"""The Fractal Learning Neural Network of Tabor (2011), and the two ways to train it.

An FLNN is a dynamical automaton built from neurons (Figure 2b). Reading one-hot word ``j``:

* **Hidden1** – a *linear* recurrent layer whose second-order weights only scale the state, one
  factor per word, plus a first-order offset per word (eq. 4)::

      z(t) = w_j + s_j z(t-1)

  the same form as the state changes of the pushdown automaton of Table 1 (``a``: halve and
  shift, ``b``: shift, ``c``: double and shift). ``s_j < 1`` pushes, ``s_j > 1`` pops.
* **Hidden2** – Gaussian radial basis units that tell the branches of the fractal apart (eq. 5)::

      g_i(t) = exp(-|c_i - z(t)|^2 / b^2)          (c_i: the unit's centre, b^2 fixed)

* **Output** – a softmax over the next word (eqs. 6–7)::

      o(t) = softmax(V g(t))

The paper trains on the *exact* next-word distributions of the grammar with the summed
Kullback-Leibler error, by a hill climber that tries a ±0.001 step along every weight and keeps
the best. Here both that climber and ordinary backpropagation through time are available.

Course conventions. Inputs are :class:`~course_rnn.languages.vocab.Vocab` indices
(``<pad>``=0, ``<s>``=1, ``</s>``=2, then the alphabet). ``<s>`` (and ``</s>``, should it be
read) *resets* the state to the start state, the origin, where PDDA 1 starts; ``<pad>`` leaves
the state unchanged. Only ``</s>`` and the alphabet can come next, so the output layer has one
unit for each of those, like Tabor's one per word; the logits of ``<pad>`` and ``<s>`` are pinned
at ``IMPOSSIBLE_LOGIT`` so that ``forward`` still returns the full vocabulary.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from ..languages.base import as_symbols
from ..languages.tabor import TaborGrammar, TaborGrammar1, tabor_percent_correct, tabor_rmse
from ..languages.vocab import Vocab, make_batch
from ..utils import seed_everything
from .base import SequenceModel

#: logit of the symbols that can never come next (``<pad>``, ``<s>``): softmax gives them 0.
IMPOSSIBLE_LOGIT = -1e4
#: vocabulary indices with fixed roles (see :class:`Vocab`); the alphabet starts at FIRST_WORD.
PAD, BOS, EOS, FIRST_WORD = Vocab.pad_id, Vocab.bos_id, Vocab.eos_id, 3


class FLNN(SequenceModel):
    """Fractal learning neural network (Figure 2b, eqs. 4–7).

    Args:
        vocab_size: ``len(vocab)``; the alphabet is everything after ``<pad> <s> </s>``.
        hidden_size: Hidden1 units (2 for Tabor's grammars: the plane of PDDA 1).
        rbf_size: Gaussian Hidden2 units, one per distinct next-word distribution. Tabor used 3
            (his corpus had no end marker); with ``</s>`` Grammars 1 and 2 have 4.
        rbf_variance: the fixed ``b^2`` of eq. 5 ("fixed variances (here 0.25)").
        init_range: centres and output weights start uniform in ``(-init_range, init_range)``
            (0.3 in the paper); self-weights start at 1 and offsets at 0, as in §3.2.
        seed: seeds the initial weights (``None``: torch's global generator).
    """

    kind = "flnn"

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int = 2,
        rbf_size: int = 4,
        rbf_variance: float = 0.25,
        init_range: float = 0.3,
        seed: int | None = None,
    ):
        super().__init__()
        for value, what in ((vocab_size, "vocab_size"), (hidden_size, "hidden_size"),
                            (rbf_size, "rbf_size")):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        if vocab_size <= FIRST_WORD:
            raise ValueError(
                f"vocab_size must exceed {FIRST_WORD} (<pad> <s> </s> plus at least one word), "
                f"got {vocab_size}"
            )
        if not rbf_variance > 0 or not init_range >= 0:
            raise ValueError(
                f"rbf_variance must be > 0 and init_range >= 0, got {rbf_variance}, {init_range}"
            )
        self._config = dict(vocab_size=vocab_size, hidden_size=hidden_size, rbf_size=rbf_size,
                            rbf_variance=rbf_variance, init_range=init_range, seed=seed)
        self.vocab_size, self.hidden_size, self.rbf_size = vocab_size, hidden_size, rbf_size
        self.rbf_variance = float(rbf_variance)
        words, outputs = vocab_size - FIRST_WORD, vocab_size - EOS  # outputs: </s> + alphabet

        gen = torch.Generator().manual_seed(seed) if seed is not None else None

        def uniform(*shape):
            return (torch.rand(*shape, generator=gen) * 2 - 1) * init_range

        self.scale = nn.Parameter(torch.ones(words))  # s_j (eq. 4): 1 = "the unbiased choice"
        self.offset = nn.Parameter(torch.zeros(words, hidden_size))  # w_ij (eq. 4)
        self.centers = nn.Parameter(uniform(rbf_size, hidden_size))  # w_i (eq. 5)
        self.readout = nn.Parameter(uniform(outputs, rbf_size))  # w_ij (eq. 7)
        self.register_buffer("start", torch.zeros(hidden_size))  # PDDA 1 starts at the origin

    # -- the computation, for a whole population of weight settings at once ------------------
    # Every weight tensor below carries a leading "population" axis K: the module itself is
    # K = 1, and the hill climber evaluates all its candidate steps in one call.

    def _word_maps(self, scale, offset):
        """Every vocabulary index's affine map ``z -> w + s z`` (eq. 4): ``s [K,V]``, ``w [K,V,H]``.

        ``<pad>`` holds the state (s=1, w=0); ``<s>`` and ``</s>`` reset it (s=0, w=start).
        """
        k = scale.shape[0]
        fixed_s = scale.new_tensor([1.0, 0.0, 0.0]).expand(k, 3)
        fixed_w = torch.stack([torch.zeros_like(self.start), self.start, self.start])
        return (torch.cat([fixed_s, scale], dim=1),
                torch.cat([fixed_w.expand(k, 3, self.hidden_size), offset], dim=1))

    def _run(self, inputs, scale, offset, centers, readout) -> dict[str, torch.Tensor]:
        """Hidden1, Hidden2 and logits, each ``[K, B, T, ...]``, for ``inputs [B, T]``."""
        s, w = self._word_maps(scale, offset)
        z = self.start.expand(scale.shape[0], inputs.shape[0], self.hidden_size)
        states = []
        for x in inputs.unbind(1):  # x: [B], the word read at this step
            z = w[:, x] + s[:, x, None] * z  # z(t) = w_j + s_j z(t-1)           (4)
            states.append(z)
        hidden = torch.stack(states, dim=2)  # [K, B, T, H]
        rbf, net = self._read_out(hidden, centers, readout)
        never = net.new_full((*net.shape[:-1], EOS), IMPOSSIBLE_LOGIT)  # <pad>, <s>
        return {"hidden": hidden, "rbf": rbf, "logits": torch.cat([never, net], dim=-1)}

    def _read_out(self, hidden, centers, readout):
        """Hidden2 ``[K,B,T,R]`` and output nets ``[K,B,T,O]`` at states ``hidden [K,B,T,H]``."""
        distance2 = ((hidden.unsqueeze(3) - centers[:, None, None]) ** 2).sum(-1)  # [K,B,T,R]
        rbf = torch.exp(-distance2 / self.rbf_variance)  # g_i = exp(-|w_i - z|^2 / b_i^2)  (5)
        net = torch.einsum("kbtr,kor->kbto", rbf, readout)  # net_i = sum_j w_ij g_j        (7)
        return rbf, net

    def _weights(self) -> list[torch.Tensor]:
        return [self.scale, self.offset, self.centers, self.readout]

    # -- the pieces, one at a time (for analyses of the state space) --------------------------
    def word_maps(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(s [V], w [V, H])``: every vocabulary index's map ``z -> w + s z`` (eq. 4)."""
        scale, offset = self._word_maps(self.scale[None], self.offset[None])
        return scale[0], offset[0]

    def readout_at(self, states: torch.Tensor) -> torch.Tensor:
        """Next-word probabilities over ``(</s>, *alphabet)`` at arbitrary Hidden1 points
        ``states [N, H]``: eqs. 5–7 (RBF layer, output nets, softmax) with this model's weights."""
        if states.ndim != 2 or states.shape[1] != self.hidden_size:
            raise ValueError(f"states must be [N, {self.hidden_size}], got {tuple(states.shape)}")
        _, net = self._read_out(states[None, None], self.centers[None], self.readout[None])
        return torch.softmax(net[0, 0], dim=-1)  # o_i = e^{net_i} / sum_j e^{net_j}     (6)

    # -- the SequenceModel interface ---------------------------------------------------------
    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """``{"hidden": [B,T,H] (Hidden1 state z), "rbf": [B,T,R] (Hidden2 g),
        "logits": [B,T,V]}`` after each input."""
        inputs = self.check_inputs(inputs)
        out = self._run(inputs, *(p.unsqueeze(0) for p in self._weights()))
        return {name: value.squeeze(0) for name, value in out.items()}

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-word logits ``[B, T, V]``; softmax of them is o(t) of eq. 6."""
        return self.trace(inputs)["logits"]


# ---------------------------------------------------------------------------------------------
# Targets and scores
# ---------------------------------------------------------------------------------------------


def exact_targets(language: TaborGrammar, sentences: Sequence, vocab: Vocab) -> torch.Tensor:
    """``[B, T, V]``: the grammar's exact next-word distribution at every position of
    ``make_batch(vocab, sentences)`` (Tabor's targets: the transition probabilities of an
    infinite corpus), zero at padding."""
    batch = make_batch(vocab, sentences)
    targets = torch.zeros(*batch.inputs.shape, len(vocab))
    for row, sentence in enumerate(sentences):
        table = language.distribution_table(as_symbols(sentence), vocab.itos)
        targets[row, : len(table)] = torch.from_numpy(table).float()
    return targets


def kl_error(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Tabor's error ``E = sum_i t_i log(t_i / o_i)``, summed over symbols and real positions.

    Works for a population of networks too (``logits [K, B, T, V]`` gives ``[K]``)."""
    log_o = torch.log_softmax(logits, dim=-1)
    log_t = torch.log(targets.clamp_min(1e-30))
    per_position = (targets * (log_t - log_o)).sum(-1)  # 0 log 0 = 0 since t = 0 there
    return (per_position * mask).sum((-2, -1))


@torch.no_grad()
def evaluate(model: SequenceModel, language: TaborGrammar, sentences: Sequence,
             vocab: Vocab) -> dict[str, float]:
    """Table 4's scores of any model on ``sentences``: RMSE, % correct, mean KL per position.

    Scored over the symbols that can come next (``</s>`` and the alphabet) at every position
    ``<s> w1 … wn`` – Tabor's "Npoints" counts n per sentence; we also score the prediction
    after ``<s>``, so there are n + 1."""
    batch = make_batch(vocab, sentences)
    targets = exact_targets(language, sentences, vocab)
    logits = model(batch.inputs.to(model.device)).cpu()
    probs = torch.softmax(logits, dim=-1)
    cols = slice(EOS, None)
    return {
        "rmse": tabor_rmse(probs[..., cols], targets[..., cols], batch.mask),
        "percent_correct": tabor_percent_correct(probs[..., cols], targets[..., cols], batch.mask),
        "kl_per_position": float(kl_error(logits, targets, batch.mask) / batch.mask.sum()),
        "positions": int(batch.mask.sum()),
    }


# ---------------------------------------------------------------------------------------------
# Trainers
# ---------------------------------------------------------------------------------------------


def _prepare(model: FLNN, language: TaborGrammar, sentences: Sequence, vocab: Vocab):
    if not isinstance(model, FLNN):
        raise TypeError(f"expected an FLNN, got {type(model).__name__}")
    if not isinstance(language, TaborGrammar):
        raise TypeError(f"language must be a Tabor grammar, got {type(language).__name__}")
    if len(vocab) != model.vocab_size:
        raise ValueError(f"vocab has {len(vocab)} symbols but the model was built for "
                         f"{model.vocab_size}")
    if len(sentences) == 0:
        raise ValueError("cannot train on zero sentences")
    batch = make_batch(vocab, [language.symbols(s) for s in sentences])
    targets = exact_targets(language, sentences, vocab)
    return batch.inputs.to(model.device), targets.to(model.device), batch.mask.to(model.device)


def train_backprop(
    model: FLNN,
    sentences: Sequence,
    vocab: Vocab,
    epochs: int = 1000,
    lr: float = 0.02,
    seed: int = 0,
    language: TaborGrammar | None = None,
    scale_lr_factor: float = 0.1,
) -> list[dict]:
    """Full-batch Adam on the KL error against the exact targets, averaged per position
    (backpropagation through time, which the paper names as the alternative to its climber).

    The self-weights ``s_j`` learn ``scale_lr_factor`` times slower than the other weights.
    At full speed they tend to collapse to 0: every word then resets the state, which predicts
    the next word well everywhere except after ``c`` – a forgetful local optimum (measured:
    3 of 5 seeds at lr 0.02; 0 of 6 with the slower self-weights).

    ``language`` defaults to :class:`~course_rnn.languages.tabor.TaborGrammar1`. Returns one
    dict per epoch: ``epoch``, ``loss`` (mean KL per position), ``percent_correct`` (on
    ``sentences``), ``seconds``."""
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"epochs must be a positive integer, got {epochs!r}")
    if not lr > 0 or not scale_lr_factor > 0:
        raise ValueError(f"lr and scale_lr_factor must be positive, got {lr!r}, "
                         f"{scale_lr_factor!r}")
    seed_everything(seed)  # full-batch training: the seed only matters for bit-reproducibility
    inputs, targets, mask = _prepare(model, language or TaborGrammar1(), sentences, vocab)
    optimiser = torch.optim.Adam([
        {"params": [model.scale], "lr": lr * scale_lr_factor},
        {"params": [model.offset, model.centers, model.readout]},
    ], lr=lr)
    positions = mask.sum()
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        logits = model(inputs)
        loss = kl_error(logits, targets, mask) / positions
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        probs = torch.softmax(logits.detach(), -1)[..., EOS:]
        history.append({
            "epoch": epoch,
            "loss": float(loss.detach()),
            "percent_correct": tabor_percent_correct(probs, targets[..., EOS:], mask),
            "seconds": time.perf_counter() - start,
        })
    return history


@torch.no_grad()
def train_hill_climb(
    model: FLNN,
    sentences: Sequence,
    vocab: Vocab,
    iterations: int,
    seed: int = 0,
    radius: float = 0.001,
    directions: int | None = None,
    language: TaborGrammar | None = None,
    target_error: float = 0.001,
) -> list[dict]:
    """Tabor's "gradient sampling" (§3.2): at each step, try moving every single weight by
    ``+radius`` and by ``-radius`` (the basis directions and their negatives on a sphere of
    radius 0.001), keep the move that lowers the summed KL error the most, repeat. Stops early
    when no move helps (a flat or minimal point at this radius) or when the mean error per
    position drops below ``target_error`` (the paper's 0.001).

    ``directions``: try only this many randomly chosen basis directions per step (drawn from
    ``seed``) instead of all of them. ``language`` defaults to Grammar 1. Returns one dict per
    step: ``iteration``, ``loss`` (mean KL per position), ``weight`` (which parameter moved).
    """
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    if not radius > 0:
        raise ValueError(f"radius must be positive, got {radius!r}")
    inputs, targets, mask = _prepare(model, language or TaborGrammar1(), sentences, vocab)
    rng = np.random.default_rng(seed)
    weights = model._weights()
    names = [name for name, p in zip(("scale", "offset", "centers", "readout"), weights)
             for _ in range(p.numel())]
    flat = torch.cat([p.detach().reshape(-1) for p in weights])
    n = flat.numel()
    if directions is not None and not (isinstance(directions, int) and 1 <= directions <= n):
        raise ValueError(f"directions must be an integer in 1..{n}, got {directions!r}")
    positions = mask.sum()

    def population_error(candidates: torch.Tensor) -> torch.Tensor:
        """Summed KL error of each row of ``candidates [K, n]`` (flattened weight settings)."""
        shaped, at = [], 0
        for p in weights:
            shaped.append(candidates[:, at: at + p.numel()].reshape(-1, *p.shape))
            at += p.numel()
        logits = model._run(inputs, *shaped)["logits"]
        return kl_error(logits, targets, mask)

    error = float(population_error(flat[None])[0])
    history = []
    for iteration in range(1, iterations + 1):
        tried = np.arange(n) if directions is None else rng.choice(n, directions, replace=False)
        tried_t = torch.as_tensor(tried, device=flat.device)
        moves = torch.zeros(2 * len(tried), n, device=flat.device)
        rows = torch.arange(len(tried), device=flat.device)
        moves[rows, tried_t] = radius
        moves[rows + len(tried), tried_t] = -radius
        errors = population_error(flat + moves)
        best = int(torch.argmin(errors))
        if float(errors[best]) >= error:
            break  # flat at this radius: no single-weight step helps
        flat = flat + moves[best]
        error = float(errors[best])
        history.append({"iteration": iteration, "loss": error / float(positions),
                        "weight": names[int(tried[best % len(tried)])]})
        if error / float(positions) < target_error:
            break
    at = 0
    for p in weights:
        p.copy_(flat[at: at + p.numel()].reshape(p.shape))
        at += p.numel()
    return history
