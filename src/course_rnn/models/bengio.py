"""Bengio et al. (2003): a neural n-gram language model.

Like an n-gram model it predicts the next word ``w_t`` from the ``n − 1`` words before it, but
instead of counting it looks the words up in a learned table of feature vectors (embeddings)
``C`` and feeds them, side by side, through a small neural network:

    x = (C(w_{t−n+1}), …, C(w_{t−2}), C(w_{t−1}))      the context, (n − 1)·m numbers
    y = b + W x + U tanh(d + H x)                      one score per vocabulary word
    P(w_t = i | context) = exp(y_i) / Σ_j exp(y_j)

(The paper lists the context newest word first; the order of the blocks in ``x`` makes no
difference.) ``W x`` are the optional *direct connections* from the embeddings to the output;
with ``hidden_size=0`` the model is only ``y = b + W x``. Because similar words get similar vectors,
a context never seen in training still gets a sensible prediction from the contexts that look
like it: the generalisation an n-gram model lacks.

This is a feed-forward model over fixed-size windows, not a
:class:`~course_rnn.models.base.SequenceModel`: ``forward(contexts[B, n−1]) -> logits[B, V]``.
Token ids come from a :class:`~course_rnn.languages.vocab.Vocab` (see
:func:`course_rnn.corpus.build_vocab`): a sentence is read as ``<s> … <s> w1 … wk </s>`` with
``n − 1`` start symbols, and every word and the final ``</s>`` is a target, exactly as in
:class:`~course_rnn.models.kneser_ney.KneserNeyLM`, so their perplexities compare.

The paper's Brown-corpus models: n = 3 or 5, m = 30 or 60 embedding units, h = 0, 50 or 100
hidden units, with or without direct connections (MLP1, test perplexity 268: n = 5, m = 60,
h = 50, direct; the defaults here are its sizes without ``W``). They were trained by SGD for
days; here :func:`course_rnn.training.fit` (the ``NextWord`` task) trains them with Adam until the
validation perplexity stops improving, minutes on a CPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ..checks import check_count, check_integer, check_positive
from ..corpus import check_sentences
from ..languages.vocab import Vocab
from .base import Rebuildable


class BengioMLP(Rebuildable, nn.Module):
    """y = b + W x + U tanh(d + H x), with x the concatenated embeddings of the context.

    ``BengioMLP(vocab_size, context=4, embedding_dim=60, hidden_size=50, direct=False)``: n − 1
    = ``context`` words, m = ``embedding_dim``, h = ``hidden_size`` (0: no hidden layer, only
    the direct connections), ``direct``: the ``W x`` term."""

    kind = "bengio"

    def __init__(
        self,
        vocab_size: int,
        context: int = 4,
        embedding_dim: int = 60,
        hidden_size: int = 50,
        direct: bool = False,
    ):
        super().__init__()
        check_integer(vocab_size, "vocab_size", 2)
        check_positive(context, "context")
        check_positive(embedding_dim, "embedding_dim")
        check_count(hidden_size, "hidden_size")
        if hidden_size == 0 and not direct:
            raise ValueError("with hidden_size=0 the model needs direct=True, or it ignores its "
                             "input")
        self.vocab_size, self.context, self.hidden_size = vocab_size, context, hidden_size
        inputs = context * embedding_dim

        self.C = nn.Embedding(vocab_size, embedding_dim)  # word i → feature vector C(i)
        self.H = nn.Linear(inputs, hidden_size) if hidden_size else None  # hidden layer, bias d
        self.U = nn.Linear(hidden_size, vocab_size, bias=False) if hidden_size else None
        self.W = nn.Linear(inputs, vocab_size, bias=False) if direct else None
        self.b = nn.Parameter(torch.zeros(vocab_size))  # output biases

    def check_inputs(self, contexts: torch.Tensor) -> torch.Tensor:
        """Clear errors for a wrong type, shape, dtype or index, before torch gives its own."""
        if not isinstance(contexts, torch.Tensor):
            raise TypeError(f"contexts must be a torch.Tensor of indices, got {type(contexts)}")
        if contexts.dim() == 1:
            contexts = contexts.unsqueeze(0)
        if contexts.dim() != 2 or contexts.shape[1] != self.context:
            raise ValueError(
                f"contexts must have shape [batch, {self.context}] (the n−1 previous words), "
                f"got {tuple(contexts.shape)}"
            )
        dtype = contexts.dtype
        if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
            raise ValueError(f"contexts must hold integer word indices, got dtype {contexts.dtype}")
        if contexts.numel() and (contexts.min() < 0 or contexts.max() >= self.vocab_size):
            raise ValueError(
                f"word index out of range: found {int(contexts.min())}..{int(contexts.max())}, "
                f"vocabulary size is {self.vocab_size}"
            )
        return contexts.long().to(self.b.device)

    def forward(self, contexts: torch.Tensor) -> torch.Tensor:
        """Next-word logits ``[B, V]`` for ``contexts[B, n−1]`` (oldest word first)."""
        return self.scores(self.check_inputs(contexts))

    def scores(self, contexts: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` without the input checks, for contexts already checked once (the
        training loop checks a whole data set before its first step). ``addmm`` adds each
        product into the ``[B, V]`` scores as it computes it: one pass over the largest tensor
        of the model instead of two (about a tenth of a training step)."""
        x = self.C(contexts).flatten(1)  # x = (C(w_{t-n+1}), …, C(w_{t-1}))
        y = self.b  # y = b (one row, broadcast over the batch by the first addmm)
        if self.W is not None:
            y = torch.addmm(y, x, self.W.weight.t())  # … + W x
        if self.H is not None:
            y = torch.addmm(y, torch.tanh(self.H(x)), self.U.weight.t())  # … + U tanh(d + H x)
        return y

    def nll(self, contexts: torch.Tensor, targets: torch.Tensor, chunk: int | None = None
            ) -> torch.Tensor:
        """The training loss, mean −log P(target | context) over the batch: the same number as
        ``F.cross_entropy(self.scores(contexts), targets)``, with the same gradients, computed
        ``chunk`` rows at a time (default: 64 on a CPU, the whole batch on a GPU).

        Why: a batch's ``[B, V]`` scores (256 × 6,000 floats, 6 MB) do not fit in a CPU core's
        cache. Cut into chunks of 64 rows they do, if each chunk's loss *and* its gradient
        (softmax − one-hot) are formed at once, which :class:`_ChunkedSoftmaxNLL` does; about a
        seventh of a training step is saved. ``contexts`` must be checked indices (as for
        :meth:`scores`)."""
        if chunk is None:
            chunk = 64 if contexts.device.type == "cpu" else len(targets)
        x = self.C(contexts).flatten(1)  # x = (C(w_{t-n+1}), …, C(w_{t-1}))
        pairs = []  # (input, output weight): y = b + Σ input · weightᵀ
        if self.W is not None:
            pairs += [x, self.W.weight]  # W x
        if self.H is not None:
            pairs += [torch.tanh(self.H(x)), self.U.weight]  # U tanh(d + H x)
        grads = torch.is_grad_enabled() and any(p.requires_grad for p in (self.b, *pairs))
        return _ChunkedSoftmaxNLL.apply(targets, chunk, grads, self.b, *pairs)

    @torch.no_grad()
    def predict_proba(self, contexts: torch.Tensor) -> torch.Tensor:
        """P(w_t = i | context) = softmax(y)_i, shape ``[B, V]``."""
        return torch.softmax(self.forward(contexts), dim=-1)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)


class _ChunkedSoftmaxNLL(torch.autograd.Function):
    """L = −(1/B) Σ_i log softmax(y_i)[t_i] with y = b + Σ_k A_k W_kᵀ, and its gradients.

    ∂L/∂y = (softmax(y) − onehot(t)) / B, so ∂L/∂A_k = (∂L/∂y) W_k, ∂L/∂W_k = (∂L/∂y)ᵀ A_k and
    ∂L/∂b = Σ_i ∂L/∂y_i. The forward pass goes through the batch ``chunk`` rows at a time and
    forms those gradients right away, while the chunk's scores are in the cache; the backward
    pass only scales them by the incoming gradient (1 for a loss). ``grads=False`` (evaluation)
    computes the loss alone."""

    @staticmethod
    def forward(ctx, targets, chunk, grads, bias, *pairs):
        inputs, weights = pairs[0::2], pairs[1::2]
        n = len(targets)
        total = bias.new_zeros(())
        grad_inputs = [torch.empty_like(a) for a in inputs] if grads else []
        grad_weights = [torch.zeros_like(w) for w in weights] if grads else []
        grad_bias = torch.zeros_like(bias)
        for start in range(0, n, chunk):
            rows = slice(start, start + chunk)
            t = targets[rows]
            y = bias.expand(len(t), -1)
            for a, w in zip(inputs, weights):
                y = torch.addmm(y, a[rows], w.t())
            log_p = torch.log_softmax(y, dim=1)
            total -= log_p.gather(1, t[:, None]).sum()
            if not grads:
                continue
            g = log_p.exp_()  # softmax(y), in place
            g[torch.arange(len(t), device=g.device), t] -= 1.0  # − onehot(t)
            g /= n
            for a, w, grad_a, grad_w in zip(inputs, weights, grad_inputs, grad_weights):
                torch.mm(g, w, out=grad_a[rows])
                grad_w.addmm_(g.t(), a[rows])
            grad_bias += g.sum(0)
        ctx.save_for_backward(grad_bias, *(x for pair in zip(grad_inputs, grad_weights)
                                           for x in pair))
        return total / n

    @staticmethod
    def backward(ctx, grad_loss):
        grad_bias, *rest = ctx.saved_tensors
        return None, None, None, grad_bias * grad_loss, *(g * grad_loss for g in rest)


# -- data: sentences → (context, target) pairs ---------------------------------------------------


def ngram_pairs(
    sentences: Sequence[Sequence[str]], vocab: Vocab, context: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every (n−1 previous tokens, next token) pair of the ``<s>``-padded sentences, as index
    tensors ``contexts[N, context]`` and ``targets[N]``. Each word and each ``</s>`` is a target.

    Map rare words first (:func:`course_rnn.corpus.map_unknown`): a word outside ``vocab``
    raises ValueError.
    """
    check_sentences(sentences)
    check_positive(context, "context")
    ids = []
    for sentence in sentences:
        ids.append([vocab.bos_id] * context + _encode(sentence, vocab) + [vocab.eos_id])
    windows = [torch.tensor(s).unfold(0, context + 1, 1) for s in ids]  # [len, n] each
    windows = torch.cat(windows)
    return windows[:, :-1].contiguous(), windows[:, -1].contiguous()


def _encode(sentence: Sequence[str], vocab: Vocab) -> list[int]:
    try:
        return [vocab.stoi[w] for w in sentence]
    except KeyError as err:
        raise ValueError(
            f"word {err.args[0]!r} is not in the vocabulary: map rare words to <unk> first "
            "with course_rnn.corpus.map_unknown(sentences, vocab)"
        ) from None


def check_pairs(model: BengioMLP, pairs: tuple[torch.Tensor, torch.Tensor],
                what: str = "data") -> None:
    """TypeError or ValueError (naming ``what``) unless ``pairs`` is ``(contexts, targets)`` of
    equal, non-zero length with every index inside ``model``'s vocabulary."""
    if not (isinstance(pairs, (tuple, list)) and len(pairs) == 2):
        raise TypeError(f"{what} must be a (contexts, targets) pair of tensors, see ngram_pairs")
    contexts, targets = pairs
    if not (isinstance(contexts, torch.Tensor) and isinstance(targets, torch.Tensor)):
        raise TypeError(f"{what} must be a (contexts, targets) pair of tensors, see ngram_pairs")
    if len(contexts) == 0 or len(contexts) != len(targets):
        raise ValueError(f"{what}: need as many contexts as targets, at least one: "
                         f"{len(contexts)} vs {len(targets)}")
    model.check_inputs(contexts)
    if targets.min() < 0 or targets.max() >= model.vocab_size:
        raise ValueError(f"{what}: target index out of range for vocabulary size "
                         f"{model.vocab_size}")


# -- evaluation ------------------------------------------------------------------------------------


@torch.no_grad()
def target_log_probs(
    model: BengioMLP, data: tuple[torch.Tensor, torch.Tensor], batch_size: int = 4096
) -> torch.Tensor:
    """log P(target | context) for every pair of ``data`` = ``(contexts, targets)``, in order
    (a float64 tensor on the CPU): what a perplexity averages, and what a mixture with another
    model's probabilities needs."""
    check_pairs(model, data)
    was_training = model.training
    model.eval()
    out = []
    for contexts, targets in zip(data[0].split(batch_size), data[1].split(batch_size)):
        logits = model(contexts)
        out.append(-F.cross_entropy(logits, targets.to(logits.device), reduction="none"))
    model.train(was_training)
    return torch.cat(out).double().cpu()


def perplexity(
    model: BengioMLP, data: tuple[torch.Tensor, torch.Tensor], batch_size: int = 4096
) -> float:
    """exp(mean −log P(target | context)) over the (contexts, targets) pairs ``data``."""
    return math.exp(-float(target_log_probs(model, data, batch_size).mean()))
