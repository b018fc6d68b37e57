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

:func:`fit_classifier` is :func:`course_rnn.training.fit` for labelled strings: same seeding,
device choice (CUDA when present, ``device=`` or ``$COURSE_RNN_DEVICE``), optimizers, gradient
clipping, early stopping and progress bar; it can also record quantities after every
optimizer step (``step_metrics``), e.g. the Decay RNN's learned ``α`` over training.
:func:`classifier_accuracy` scores a labelled set, optionally broken down by a key per example
(number of attractors, construction, …).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn import functional as F

from ..languages.base import check_positive
from ..languages.vocab import Vocab, make_batch
from ..training import EarlyStopping, EpochProgress, History, make_optimizer
from ..utils import pick_device, seed_everything
from .base import SequenceModel
from .srn import seeded

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
            raise TypeError(f"SequenceClassifier wraps a SequenceModel, got {type(model).__name__}")
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
def _check_labelled(data: Sequence, n_classes: int, what: str) -> None:
    if len(data) == 0:
        raise ValueError(f"the {what} set is empty")
    for i, item in enumerate(data):
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ValueError(f"{what}[{i}] must be a (string, label) pair, got {item!r}")
        label = item[1]
        if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < n_classes:
            raise ValueError(
                f"{what}[{i}] has label {label!r}: labels are integers in 0..{n_classes - 1}"
            )


def _batches(vocab: Vocab, data: Sequence, batch_size: int, shuffle: bool, seed: int = 0):
    """(inputs, lengths, labels) over ``data``, reproducibly shuffled from ``seed``."""
    order = list(range(len(data)))
    if shuffle:
        order = torch.randperm(len(data), generator=torch.Generator().manual_seed(seed)).tolist()
    for start in range(0, len(order), batch_size):
        chunk = [data[i] for i in order[start : start + batch_size]]
        batch = make_batch(vocab, [s for s, _ in chunk])
        yield batch.inputs, batch.lengths, torch.tensor([y for _, y in chunk], dtype=torch.long)


@torch.no_grad()
def predict_proba(
    classifier: SequenceClassifier, vocab: Vocab, strings: Sequence, batch_size: int = 512
) -> torch.Tensor:
    """Class probabilities ``[N, n_classes]`` (on the CPU) for a list of strings."""
    if len(strings) == 0:
        raise ValueError("no strings to classify")
    was_training = classifier.training
    classifier.eval()
    out = []
    for inputs, lengths, _ in _batches(vocab, [(s, 0) for s in strings], batch_size, False):
        logits = classifier(inputs.to(classifier.device), lengths.to(classifier.device))
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
    _check_labelled(data, classifier.n_classes, "data")
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


@torch.no_grad()
def classifier_loss(
    classifier: SequenceClassifier, vocab: Vocab, data: Sequence[Labelled], batch_size: int = 512
) -> float:
    """Mean cross-entropy (nats per example) over ``(string, label)`` pairs."""
    was_training = classifier.training
    classifier.eval()
    total = 0.0
    for inputs, lengths, labels in _batches(vocab, data, batch_size, False):
        device = classifier.device
        logits = classifier(inputs.to(device), lengths.to(device))
        total += float(F.cross_entropy(logits, labels.to(device), reduction="sum"))
    classifier.train(was_training)
    return total / len(data)


# -- training -----------------------------------------------------------------------------------
@dataclass
class ClassifierHistory(History):
    """:class:`~course_rnn.training.History` plus ``steps``: one dict per recorded optimizer
    step (``step``, ``epoch`` and every ``step_metrics`` value)."""

    steps: list[dict] = field(default_factory=list)

    def step_values(self, key: str) -> list:
        return [s.get(key) for s in self.steps]


def fit_classifier(
    classifier: SequenceClassifier,
    vocab: Vocab,
    train: Sequence[Labelled],
    *,
    valid: Sequence[Labelled] | None = None,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 1e-3,
    optimizer: str = "adam",
    clip: float | None = 1.0,
    seed: int = 0,
    device: str | torch.device | None = None,
    patience: int | None = None,
    step_metrics: dict[str, Callable[[SequenceClassifier], float]] | None = None,
    step_every: int = 1,
    progress: bool | None = None,
) -> ClassifierHistory:
    """Train ``classifier`` on ``(string, label)`` pairs by cross-entropy; return its history.

    Every epoch records ``train_loss``, ``train_accuracy`` (on the batches as they were seen),
    ``seconds`` and, with ``valid``, ``valid_loss`` and ``valid_accuracy``. With ``valid`` and
    ``patience`` training stops after ``patience`` epochs without a better validation loss and
    the best weights are restored. ``step_metrics`` maps a name to ``f(classifier) -> float``,
    recorded after every ``step_every``-th optimizer step (and before the first) in
    ``history.steps``.
    """
    if not isinstance(classifier, SequenceClassifier):
        raise TypeError(f"fit_classifier trains a SequenceClassifier, got "
                        f"{type(classifier).__name__} (use training.fit for language models)")
    if epochs < 1 or batch_size < 1 or lr <= 0 or step_every < 1:
        raise ValueError(f"need epochs ≥ 1, batch_size ≥ 1, lr > 0 and step_every ≥ 1; "
                         f"got {epochs}, {batch_size}, {lr}, {step_every}")
    if classifier.model.vocab_size != len(vocab):
        raise ValueError(f"model has vocab_size {classifier.model.vocab_size} but the "
                         f"vocabulary has {len(vocab)}")
    _check_labelled(train, classifier.n_classes, "train")
    if valid is not None:
        _check_labelled(valid, classifier.n_classes, "valid")
    make_batch(vocab, [train[0][0]])  # fail early, naming the symbol, on a foreign symbol

    seed_everything(seed)
    classifier.to(pick_device(device))
    opt = make_optimizer(optimizer, classifier.parameters(), lr)
    history = ClassifierHistory()
    stopper = EarlyStopping(classifier, patience) if valid is not None and patience else None
    step = 0
    bar = EpochProgress(epochs, progress)

    def record_step(epoch: int) -> None:
        was_training = classifier.training
        classifier.eval()
        with torch.no_grad():
            values = {name: float(f(classifier)) for name, f in step_metrics.items()}
        classifier.train(was_training)
        history.steps.append({"step": step, "epoch": epoch, **values})

    if step_metrics:
        record_step(0)
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        classifier.train()
        total, right, count = 0.0, 0, 0
        for inputs, lengths, labels in _batches(vocab, train, batch_size, True, seed + epoch):
            device_ = classifier.device
            inputs, lengths, labels = inputs.to(device_), lengths.to(device_), labels.to(device_)
            logits = classifier(inputs, lengths)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(classifier.parameters(), clip)
            opt.step()
            step += 1
            total += loss.item() * len(labels)
            right += int((logits.argmax(-1) == labels).sum())
            count += len(labels)
            if step_metrics and step % step_every == 0:
                record_step(epoch)
        record = {"epoch": epoch, "train_loss": total / count, "train_accuracy": right / count}
        classifier.eval()
        if valid is not None:
            record["valid_loss"] = classifier_loss(classifier, vocab, valid)
            record["valid_accuracy"] = classifier_accuracy(classifier, vocab, valid)["accuracy"]
        record["seconds"] = time.perf_counter() - start
        history.epochs.append(record)
        bar.update(record)

        if stopper is not None and stopper.should_stop(record["valid_loss"], epoch, history):
            break
    bar.close()
    if stopper is not None:
        stopper.restore_best()
    classifier.eval()
    return history
