"""Reading one long stream: truncated backpropagation through time.

Elman (1990) gave his network no sentence boundaries: the sentences ran on, one word after
another, and the hidden state was never reset. A stream of thousands of words cannot be unrolled
into one network for backpropagation, so it is read in **windows** of ``chunk`` words. Each
window starts from the state the previous one ended in (the network's memory carries over), but
the gradient is stopped at the window's start (``detach``): it reaches back at most ``chunk``
steps. This is *truncated* backpropagation through time (Williams & Peng 1990)::

    state = zero
    for window in stream (in order):
        logits, state = model.run(window.inputs, state)      # forward from the carried state
        loss = cross_entropy(logits, window.targets)
        loss.backward(); clip; optimizer.step()              # gradient within the window only
        state = state.detach()                               # carry the value, cut the gradient

:class:`StreamModelling` is this as a task of :func:`course_rnn.training.fit` (which adds what
every run gets: seeding, clipping, evaluation, convergence). The stream ``<s> w1 w2 … wN`` is a
language-modelling pair without any end marker::

    inputs : <s>  w1  w2 … w_{N-1}
    targets: w1   w2  …  wN

``batch_size`` streams are read side by side: the stream is cut into ``batch_size`` contiguous
parts (as long as possible), and step ``k`` reads window ``k`` of every part. The windows are read
in order in every epoch (shuffling would cut the memory the state carries), and each epoch starts
from the zero state. Evaluation reads ``eval_streams`` parts the same way, state carried across.

A model read this way needs ``run(inputs, state) -> (logits, state)``, as the SRN, GRU and LSTM
of :mod:`course_rnn.models` have.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from ..checks import check_positive
from ..languages.base import as_symbols
from ..languages.vocab import Vocab
from ..models.base import SequenceModel
from .tasks import Prepared, Task, _check_vocab


def detach_state(state):
    """The recurrent state's value without its history: ``h.detach()``, or ``(h.detach(),
    C.detach())`` for the LSTM. The gradient of the next window stops here."""
    if isinstance(state, (tuple, list)):
        return tuple(s.detach() for s in state)
    return state.detach()


@dataclass
class Window:
    """One step's input: ``chunk`` positions of each of the streams read side by side
    (``[streams, chunk]`` tensors), and the pass it belongs to (``carry["state"]`` is the state
    the previous window of this pass ended in)."""

    inputs: torch.Tensor
    targets: torch.Tensor
    mask: torch.Tensor
    carry: dict


def stream_layout(ids: torch.Tensor, streams: int, chunk: int) -> tuple[torch.Tensor, ...]:
    """``(inputs, targets, mask)``, each ``[streams, windows * chunk]``: the stream ``ids``
    (``<s> w1 … wN``) as ``streams`` contiguous parts side by side, padded at the end.

    The part of row ``b`` continues where row ``b − 1`` stopped; every row holds
    ``ceil(N / streams)`` predictions except (possibly) the last.
    """
    inputs, targets = ids[:-1], ids[1:]
    count = len(targets)
    per_stream = math.ceil(count / streams)
    width = math.ceil(per_stream / chunk) * chunk
    shape = (streams, width)
    laid = [torch.zeros(shape, dtype=torch.long, device=ids.device) for _ in range(2)]
    mask = torch.zeros(shape, dtype=torch.bool, device=ids.device)
    for row in range(streams):
        part = slice(row * per_stream, min((row + 1) * per_stream, count))
        n = max(part.stop - part.start, 0)
        laid[0][row, :n] = inputs[part]
        laid[1][row, :n] = targets[part]
        mask[row, :n] = True
    return laid[0], laid[1], mask


class StreamModelling(Task):
    """Next-word prediction on one long stream, read in windows of ``chunk`` words with the
    state carried from window to window (truncated BPTT; see the module docstring).

    Data: one stream of words (a sequence of symbols, e.g. ``ElmanTemplates.corpus(n)``).
    ``batch_size`` (of :func:`~course_rnn.training.fit`): how many parts of the stream are read
    side by side; ``eval_streams``: the same when evaluating. The loss is the mean next-word
    cross-entropy over the stream's predictions (``<s>`` predicts the first word).
    """

    name = "language modelling on a stream (truncated BPTT)"
    resumes_within_epoch = False  # the state carried from window to window is not kept

    def __init__(self, vocab: Vocab, chunk: int = 30, eval_streams: int = 8):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"StreamModelling needs a Vocab, got {type(vocab).__name__}")
        check_positive(chunk, "chunk")
        check_positive(eval_streams, "eval_streams")
        self.vocab, self.chunk, self.eval_streams = vocab, chunk, eval_streams

    def check_model(self, model) -> None:
        if not isinstance(model, SequenceModel) or not callable(getattr(model, "run", None)):
            raise TypeError(f"a stream is read by a sequence model with run(inputs, state), "
                            f"got {type(model).__name__}")
        _check_vocab(model, self.vocab)

    def prepare(self, data, what: str = "train") -> Prepared:
        """The stream as indices ``<s> w1 … wN`` (a foreign word is named); ``len`` of the
        result is the number of ``chunk``-word pieces, so that ``fit``'s steps per epoch come
        out as the number of windows."""
        if isinstance(data, str) or not isinstance(data, Sequence):
            raise TypeError(f"the {what} stream must be a sequence of words, got "
                            f"{type(data).__name__}")
        words = as_symbols(data) if len(data) else ()
        if len(words) == 0:
            raise ValueError(f"the {what} stream is empty")
        ids = torch.tensor(self.vocab.encode(words, bos=True), dtype=torch.long)
        return Prepared({"ids": ids}, math.ceil(len(words) / self.chunk))

    def batches(self, data: Prepared, batch_size: int | None, shuffle: bool,
                seed: int) -> Iterator[Window]:
        """The windows of one pass, in order (``shuffle`` and ``seed`` do not apply: the
        state carries over from each window to the next)."""
        streams = min(batch_size or len(data), len(data))  # None: every piece on its own
        inputs, targets, mask = stream_layout(data.tensors["ids"], streams, self.chunk)
        carry: dict = {"state": None}
        for start in range(0, inputs.shape[1], self.chunk):
            window = slice(start, start + self.chunk)
            yield Window(inputs[:, window], targets[:, window], mask[:, window], carry)

    def loss(self, model, batch: Window, count: bool = True):
        logits, state = model.run(batch.inputs, batch.carry["state"])
        batch.carry["state"] = detach_state(state)
        losses = F.cross_entropy(logits.transpose(1, 2), batch.targets, reduction="none")
        count = batch.mask.sum()
        return (losses * batch.mask).sum() / count, count, None

    @torch.no_grad()
    def evaluate(self, model, data: Prepared, batch_size: int | None = None) -> dict[str, float]:
        """Mean next-word loss over the stream, read as ``batch_size`` (default
        ``eval_streams``) parts with the state carried across windows."""
        return super().evaluate(model, data, batch_size or self.eval_streams)


def stream_loss(model: SequenceModel, vocab: Vocab, stream: Sequence, chunk: int = 30,
                streams: int = 8) -> float:
    """Mean next-word cross-entropy (nats per word) of ``model`` on ``stream``, read as
    ``streams`` parts in windows of ``chunk`` words with the state carried across."""
    task = StreamModelling(vocab, chunk, streams)
    task.check_model(model)
    return task.evaluate(model, task.prepare(stream, "evaluation").to(model.device))["loss"]
