"""Sequence classification: one label per string, read from the last hidden state.

Linzen et al. (2016) and Bhatt et al. (2020) train recurrent networks not only as language
models but as **binary classifiers**: *number prediction* (read "the keys to the cabinet",
say whether the coming verb is singular or plural) and *grammaticality judgement* (read a whole
sentence, say whether its verb agrees). :class:`SequenceClassifier` turns any sequence model of
the course into such a classifier::

    h_T   = the model's hidden state after the last real symbol w_n (padding ignored)
    p(y)  = softmax(V h_T + c)                       y ∈ {0, …, n_classes − 1}

The string is fed exactly as for language modelling (``<s> w1 … wn``, see
:func:`course_rnn.languages.make_batch`), so a model trained one way can be inspected with the
same traces. The language model's own readout is left unused (and untrained).

Train one with :func:`course_rnn.training.fit` (``fit(classifier, vocab, pairs)`` is the
classification task). :func:`classifier_accuracy` scores a labelled set, optionally broken down
by a key per example (number of attractors, construction, …).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence

import torch
from torch import nn

from ..checks import check_positive, is_integer
from ..languages.vocab import Vocab, batch_order, make_batch
from .base import SequenceModel, seeded

#: a labelled example: (string, class index)
Labelled = tuple[Sequence[str], int]


class SequenceClassifier(nn.Module):
    """``SequenceClassifier(model, n_classes=2, seed=None)``: ``model``'s hidden state at the
    last real position of each string → a linear layer → ``n_classes`` logits.

    ``forward(inputs [B, T], lengths [B]) -> logits [B, n_classes]`` where ``inputs`` and
    ``lengths`` are those of :func:`~course_rnn.languages.make_batch` (``<s>`` first, so the
    last real position of a string of ``n`` symbols is ``lengths − 1 = n``).
    """

    def __init__(self, model: SequenceModel, n_classes: int = 2, seed: int | None = None):
        super().__init__()
        if not isinstance(model, SequenceModel):
            raise TypeError(f"model must be a SequenceModel for SequenceClassifier to wrap, got "
                            f"{type(model).__name__}")
        self.n_classes = check_positive(n_classes, "n_classes")
        if self.n_classes < 2:
            raise ValueError(f"a classifier needs at least 2 classes, got n_classes={n_classes}")
        self.model = model
        with seeded(seed):  # reproducible head without touching the global RNG
            self.head = nn.Linear(model.hidden_size, self.n_classes)
        self.head.to(model.device)

    @property
    def device(self) -> torch.device:
        return self.model.device

    def all_hidden(self, inputs: torch.Tensor) -> torch.Tensor:
        """The wrapped model's state after every input, ``[B, T, hidden]``, with gradients."""
        if hasattr(self.model, "hidden_states"):
            return self.model.hidden_states(inputs)
        hidden = self.model.trace(inputs)["hidden"]  # URN, FLNN: their trace keeps gradients
        if torch.is_grad_enabled() and self.training and not hidden.requires_grad:
            raise TypeError(
                f"{type(self.model).__name__} has no hidden_states() and its trace() keeps no "
                "gradients, so it cannot be trained as a classifier"
            )
        return hidden

    def features(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The hidden state after each string's last real symbol, ``[B, hidden]``."""
        inputs = self.model.check_inputs(inputs)
        lengths = torch.as_tensor(lengths, device=inputs.device).long().reshape(-1)
        if lengths.shape[0] != inputs.shape[0]:
            raise ValueError(f"got {inputs.shape[0]} strings but {lengths.shape[0]} lengths")
        if lengths.numel() and (lengths.min() < 1 or lengths.max() > inputs.shape[1]):
            raise ValueError(
                f"lengths must lie in 1..{inputs.shape[1]} (the number of time steps), "
                f"got {int(lengths.min())}..{int(lengths.max())}"
            )
        hidden = self.all_hidden(inputs)
        rows = torch.arange(inputs.shape[0], device=inputs.device)
        return hidden[rows, lengths - 1]

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(inputs, lengths))


# -- data ---------------------------------------------------------------------------------------
def check_labelled(data: Sequence, n_classes: int, what: str) -> None:
    """ValueError naming the first item of ``data`` that is not a ``(string, label)`` pair with
    a label in ``0 … n_classes − 1`` (or naming ``what`` when it is empty)."""
    if len(data) == 0:
        raise ValueError(f"the {what} set is empty")
    for i, item in enumerate(data):
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ValueError(f"{what}[{i}] must be a (string, label) pair, got {item!r}")
        label = item[1]
        if not is_integer(label) or not 0 <= label < n_classes:
            raise ValueError(
                f"{what}[{i}] has label {label!r}: labels are integers in 0..{n_classes - 1}"
            )


@torch.no_grad()
def predict_proba(
    classifier: SequenceClassifier, vocab: Vocab, strings: Sequence, batch_size: int = 512
) -> torch.Tensor:
    """Class probabilities ``[N, n_classes]`` (on the CPU) for a list of strings."""
    if len(strings) == 0:
        raise ValueError("no strings to classify")
    was_training = classifier.training
    classifier.eval()
    everything, out = make_batch(vocab, strings), []
    for index in batch_order(len(strings), batch_size, shuffle=False):
        batch = everything.rows(index).to(classifier.device)
        logits = classifier(batch.inputs, batch.lengths)
        out.append(torch.softmax(logits.float(), dim=-1).cpu())
    classifier.train(was_training)
    return torch.cat(out)


def classifier_accuracy(
    classifier: SequenceClassifier,
    vocab: Vocab,
    data: Sequence[Labelled],
    by: Sequence[Hashable] | None = None,
    batch_size: int = 512,
) -> dict:
    """Share of ``(string, label)`` pairs classified right.

    With ``by`` (one key per example, e.g. its number of attractors) the result also holds
    ``"by"`` ``{key: accuracy}`` and ``"count"`` ``{key: examples}``, keys sorted.
    """
    check_labelled(data, classifier.n_classes, "data")
    if by is not None and len(by) != len(data):
        raise ValueError(f"by has {len(by)} keys for {len(data)} examples")
    predicted = predict_proba(classifier, vocab, [s for s, _ in data], batch_size).argmax(-1)
    correct = [int(p) == y for p, (_, y) in zip(predicted.tolist(), data)]
    result = {"accuracy": sum(correct) / len(correct), "n": len(correct)}
    if by is not None:
        groups = defaultdict(list)
        for key, ok in zip(by, correct):
            groups[key].append(ok)
        keys = sorted(groups)
        result["by"] = {k: sum(groups[k]) / len(groups[k]) for k in keys}
        result["count"] = {k: len(groups[k]) for k in keys}
    return result
