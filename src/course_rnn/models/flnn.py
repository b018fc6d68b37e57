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
the best. Both that climber (:func:`course_rnn.training.hill_climb`) and ordinary backpropagation
through time (:func:`course_rnn.training.fit` with the ``ExactDistributions`` task) train it.

Course conventions. Inputs are :class:`~course_rnn.languages.vocab.Vocab` indices
(``<pad>``=0, ``<s>``=1, ``</s>``=2, then the alphabet). ``<s>`` (and ``</s>``, should it be
read) *resets* the state to the start state, the origin, where PDDA 1 starts; ``<pad>`` leaves
the state unchanged. Only ``</s>`` and the alphabet can come next, so the output layer has one
unit for each of those, like Tabor's one per word; the logits of ``<pad>`` and ``<s>`` are pinned
at ``IMPOSSIBLE_LOGIT`` so that ``forward`` still returns the full vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..checks import MAX_INIT_SCALE, check_number, check_positive
from ..languages.base import as_symbols
from ..languages.tabor import TaborGrammar, tabor_percent_correct, tabor_rmse
from ..languages.vocab import Vocab, make_batch
from .base import (
    Parts,
    Recurrence,
    RecurrentModel,
    SequenceModel,
    check_time_steps,
    seeded,
)

#: the widest RBF variance b² (eq. 5; the paper's 0.25): far past the states' spread every RBF
#: is flat, and the network cannot tell one state from another
MAX_RBF_VARIANCE = 100.0
#: logit of the symbols that can never come next (``<pad>``, ``<s>``): softmax gives them 0.
IMPOSSIBLE_LOGIT = -1e4
#: vocabulary indices with fixed roles (see :class:`Vocab`); the alphabet starts at FIRST_WORD.
PAD, BOS, EOS, FIRST_WORD = Vocab.pad_id, Vocab.bos_id, Vocab.eos_id, 3


class FLNN(RecurrentModel):
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
        vocab_size = check_positive(vocab_size, "vocab_size")
        hidden_size = check_positive(hidden_size, "hidden_size")
        rbf_size = check_positive(rbf_size, "rbf_size")
        if vocab_size <= FIRST_WORD:
            raise ValueError(
                f"vocab_size must exceed {FIRST_WORD} (<pad> <s> </s> plus at least one word), "
                f"got {vocab_size}"
            )
        check_number(rbf_variance, "rbf_variance", above=0, at_most=MAX_RBF_VARIANCE)
        check_number(init_range, "init_range", at_least=0, at_most=MAX_INIT_SCALE)
        self.vocab_size, self.hidden_size, self.rbf_size = vocab_size, hidden_size, rbf_size
        self.rbf_variance = float(rbf_variance)
        words, outputs = vocab_size - FIRST_WORD, vocab_size - EOS  # outputs: </s> + alphabet

        self.scale = nn.Parameter(torch.ones(words))  # s_j (eq. 4): 1 = "the unbiased choice"
        self.offset = nn.Parameter(torch.zeros(words, hidden_size))  # w_ij (eq. 4)
        with seeded(seed):
            self.centers = nn.Parameter(uniform(init_range, rbf_size, hidden_size))  # w_i (eq. 5)
            self.readout = nn.Parameter(uniform(init_range, outputs, rbf_size))  # w_ij (eq. 7)
        self.register_buffer("start", torch.zeros(hidden_size))  # PDDA 1 starts at the origin

    # -- the computation, for a whole population of weight settings at once ------------------
    # Every weight tensor below carries a leading "population" axis K: the module itself is
    # K = 1, and the hill climber evaluates all its candidate steps in one call.

    #: the names of :meth:`weight_tensors`, in order
    WEIGHT_NAMES = ("scale", "offset", "centers", "readout")

    def _word_maps(self, scale, offset):
        """Every vocabulary index's affine map ``z -> w + s z`` (eq. 4): ``s [K,V]``, ``w [K,V,H]``.

        ``<pad>`` holds the state (s=1, w=0); ``<s>`` and ``</s>`` reset it (s=0, w=start).
        """
        k = scale.shape[0]
        fixed_s = scale.new_tensor([1.0, 0.0, 0.0]).expand(k, 3)
        fixed_w = torch.stack([torch.zeros_like(self.start), self.start, self.start])
        return (torch.cat([fixed_s, scale], dim=1),
                torch.cat([fixed_w.expand(k, 3, self.hidden_size), offset], dim=1))

    def run_population(self, inputs, scale, offset, centers, readout) -> dict[str, torch.Tensor]:
        """Hidden1, Hidden2 and logits, each ``[K, B, T, ...]``, for checked ``inputs [B, T]``
        and ``K`` weight settings (each weight with a leading axis ``K``, in the order of
        :meth:`weight_tensors`)."""
        s, w = self._word_maps(scale, offset)
        s_read, w_read = s[:, inputs, None].unbind(2), w[:, inputs].unbind(2)  # each step's map
        z = self.start.expand(scale.shape[0], inputs.shape[0], self.hidden_size)
        states = []
        for s_j, w_j in zip(s_read, w_read):
            z = torch.addcmul(w_j, s_j, z)  # z(t) = w_j + s_j z(t-1)                      (4)
            states.append(z)
        hidden = torch.stack(states, dim=2)  # [K, B, T, H]
        rbf, net = self._read_out(hidden, centers, readout)
        never = net.new_full((*net.shape[:-1], EOS), IMPOSSIBLE_LOGIT)  # <pad>, <s>
        return {"hidden": hidden, "rbf": rbf, "logits": torch.cat([never, net], dim=-1)}

    def _read_out(self, hidden, centers, readout):
        """Hidden2 ``[K,B,T,R]`` and output nets ``[K,B,T,O]`` at states ``hidden [K,B,T,H]``."""
        distance2 = 0.0  # |w_i - z|^2, one coordinate at a time (a sum over a last axis of
        for h in range(self.hidden_size):  # length 2 is several times slower on a CPU)
            distance2 = distance2 + (hidden[..., h, None] - centers[:, None, None, :, h]) ** 2
        rbf = torch.exp(-distance2 / self.rbf_variance)  # g_i = exp(-|w_i - z|^2 / b_i^2)  (5)
        net = torch.einsum("kbtr,kor->kbto", rbf, readout)  # net_i = sum_j w_ij g_j        (7)
        return rbf, net

    def weight_tensors(self) -> list[torch.Tensor]:
        """The four trained weights, in the order of :attr:`WEIGHT_NAMES`."""
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
    def recurrence(self) -> WordMapStep:
        """One step: eq. 4 for the word read, then eq. 5 (see :class:`WordMapStep`)."""
        return WordMapStep(self)

    def trace(self, inputs: torch.Tensor) -> dict[str, torch.Tensor]:
        """``{"hidden": [B,T,H] (Hidden1 state z), "rbf": [B,T,R] (Hidden2 g),
        "logits": [B,T,V]}`` after each input, with gradients: the population pass with one
        weight setting (what :meth:`recurrence` computes a step at a time)."""
        inputs = check_time_steps(self.check_inputs(inputs))
        out = self.run_population(inputs, *(p.unsqueeze(0) for p in self.weight_tensors()))
        return {name: value.squeeze(0) for name, value in out.items()}

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Next-word logits ``[B, T, V]``; softmax of them is o(t) of eq. 6."""
        return self.trace(inputs)["logits"]


def uniform(init_range: float, *shape: int) -> torch.Tensor:
    """Uniform in ``(-init_range, init_range)``, from the global generator (seed it first)."""
    return (torch.rand(*shape) * 2 - 1) * init_range


class WordMapStep(Recurrence):
    """One step of an :class:`FLNN` on the vocabulary index it reads: Hidden1's map for that
    word, ``z(t) = w_j + s_j z(t-1)`` (eq. 4; ``<s>`` resets to the start, ``<pad>`` holds), and
    Hidden2's response ``g(t)`` (eq. 5). A step reports no logits (:attr:`reads_out` is False):
    the gradient analysis offers the FLNN the Jacobian of its state (``of="hidden"``), and the
    logits are :meth:`FLNN.trace`'s."""

    reads_out = False

    def __init__(self, model: FLNN):
        super().__init__(model)
        self.scale, self.offset = model.word_maps()  # every index's map, once

    def initial_state(self, batch: int) -> torch.Tensor:
        return self.model.start.expand(batch, self.model.hidden_size)

    def step(self, z: torch.Tensor, symbols: torch.Tensor) -> tuple[torch.Tensor, Parts]:
        z = torch.addcmul(self.offset[symbols], self.scale[symbols, None], z)  # z(t) = w_j + s_j z
        model = self.model
        rbf, _ = model._read_out(z[None, :, None], model.centers[None], model.readout[None])
        return z, {"hidden": z, "rbf": rbf[0, :, 0]}


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
    # symbols on the first axis: softmax and sums over a short last axis are slow on a CPU
    log_o = torch.log_softmax(logits.movedim(-1, 0), dim=0)
    population = (1,) * (logits.dim() - targets.dim())  # a leading axis K, if any
    t = targets.movedim(-1, 0).reshape(targets.shape[-1], *population, *targets.shape[:-1])
    per_position = (t * (torch.log(t.clamp_min(1e-30)) - log_o)).sum(0)  # 0 log 0 = 0 (t = 0)
    return (per_position * mask).sum((-2, -1))


@torch.no_grad()
def evaluate(model: SequenceModel, language: TaborGrammar, sentences: Sequence,
             vocab: Vocab, *, after_start: bool = True) -> dict[str, float]:
    """Table 4's scores of any model on ``sentences``: RMSE, % correct, mean KL per position.

    Scored over the symbols that can come next (``</s>`` and the alphabet) at every position
    ``<s> w1 … wn`` – Tabor's "Npoints" counts n per sentence; we also score the prediction
    after ``<s>``, so there are n + 1. Tabor's stream had no ``<s>`` (the first word of a sentence
    was predicted after the last word of the one before): ``after_start=False`` leaves the
    prediction after ``<s>`` out and scores exactly his n points per sentence."""
    batch = make_batch(vocab, sentences)
    targets = exact_targets(language, sentences, vocab)
    logits = model(batch.inputs.to(model.device)).cpu()
    probs = torch.softmax(logits, dim=-1)
    mask = batch.mask.clone()
    if not after_start:
        mask[:, 0] = False
    cols = slice(EOS, None)
    return {
        "rmse": tabor_rmse(probs[..., cols], targets[..., cols], mask),
        "percent_correct": tabor_percent_correct(probs[..., cols], targets[..., cols], mask),
        "kl_per_position": float(kl_error(logits, targets, mask) / mask.sum()),
        "positions": int(mask.sum()),
    }
