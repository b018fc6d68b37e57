"""What a model learns from: the four training tasks of the course.

A task turns a data set into tensors **once** (checking it, so that a foreign symbol or a bad
label is named before any training), cuts it into batches, and says what the loss is:

* :class:`LanguageModelling` – strings ``w1 … wn``; loss −log p(w_{t+1} | w_1 … w_t), EOS included;
* :class:`Classification` – ``(string, label)`` pairs; loss −log p(label | string);
* :class:`NextWord` – ``(contexts, targets)`` n-gram tensors; loss
  −log p(w_t | w_{t−n+1} … w_{t−1});
* :class:`ExactDistributions` – sentences of a grammar that knows its next-word distributions
  ``t``; loss Σ_i t_i log(t_i / o_i) per position, the KL divergence from the exact distribution.

Each loss is a mean over what is predicted. :func:`~course_rnn.training.fit` trains any model on
any task with the same loop.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from ..checks import check_items, check_positive
from ..languages.tabor import TaborGrammar, tabor_percent_correct
from ..languages.vocab import Batch, Vocab, batch_order, make_batch
from ..models.base import SequenceModel
from ..models.bengio import BengioMLP, check_pairs
from ..models.classifier import SequenceClassifier, check_labelled
from ..models.flnn import EOS, exact_targets, kl_error


def _check_vocab(model, vocab: Vocab) -> None:
    size = getattr(model, "vocab_size", None)
    if size is None and isinstance(model, SequenceClassifier):
        size = model.model.vocab_size
    if size != len(vocab):
        raise ValueError(f"model has vocab_size {size} but the vocabulary has {len(vocab)}")


def _empty(data, what: str) -> None:
    if data is not None and (isinstance(data, (str, bytes)) or not hasattr(data, "__len__")):
        raise TypeError(f"the {what} set must be a list (of strings, pairs …) or tensors, not "
                        f"{type(data).__name__}: {data!r:.60}")
    if data is None or len(data) == 0:
        raise ValueError(f"the {what} set is empty")


@dataclass
class Prepared:
    """A data set as tensors, ready to be cut into batches (``items``: how many examples)."""

    tensors: dict[str, torch.Tensor | Batch]
    items: int

    def __len__(self) -> int:
        return self.items

    def to(self, device) -> Prepared:
        return Prepared({k: v.to(device) for k, v in self.tensors.items()}, self.items)


class Task:
    """Base class: ``prepare`` once, then ``batches`` and ``loss`` in the loop, ``evaluate``
    after each epoch. ``counts_correct``: whether ``loss`` also counts right predictions (then
    the loop records ``train_accuracy`` and ``valid_accuracy``). ``counts_cheaply``: False when
    counting costs much more than the loss, so that the loop asks for the count (``count=True``)
    only at the step before each evaluation. ``resumes_within_epoch``: whether a run can be
    continued from the middle of an epoch (not when state carries from batch to batch)."""

    name = "task"
    counts_correct = False
    counts_cheaply = True
    resumes_within_epoch = True

    def check_model(self, model) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def prepare(self, data, what: str = "train") -> Prepared:  # pragma: no cover
        raise NotImplementedError

    def batches(self, data: Prepared, batch_size: int | None, shuffle: bool,
                seed: int) -> Iterator:
        """Batches over ``data``; ``batch_size=None`` means the whole set at once."""
        for index in batch_order(len(data), batch_size or len(data), shuffle, seed):
            yield self.select(data, index.to(self._device(data)))

    def select(self, data: Prepared, index: torch.Tensor):  # pragma: no cover
        raise NotImplementedError

    def loss(self, model, batch, count: bool = True
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``(mean loss, how many predictions it averages, how many were right or None)``
        (None also when ``count`` is False and counting is costly)."""
        raise NotImplementedError  # pragma: no cover

    @torch.no_grad()
    def evaluate(self, model, data: Prepared, batch_size: int = 512) -> dict[str, float]:
        """Mean loss (and accuracy when counted) over ``data``, in eval mode, no gradients."""
        was_training = model.training
        model.eval()
        total, count, right = 0.0, 0.0, 0.0
        for batch in self.batches(data, batch_size, shuffle=False, seed=0):
            loss, n, correct = self.loss(model, batch)
            total += float(loss) * float(n)
            count += float(n)
            right += float(correct) if correct is not None else 0.0
        model.train(was_training)
        result = {"loss": total / count}
        if self.counts_correct:
            result["accuracy"] = right / count
        return result

    @staticmethod
    def _device(data: Prepared) -> torch.device:
        first = next(iter(data.tensors.values()))
        return first.inputs.device if isinstance(first, Batch) else first.device


class LanguageModelling(Task):
    """Next-symbol prediction over strings (``<s> w1 … wn`` → ``w1 … wn </s>``)::

        L = − (1/N) Σ_strings Σ_t log p(w_{t+1} | w_1 … w_t)      N: predicted symbols, EOS too
    """

    name = "language modelling"

    def __init__(self, vocab: Vocab):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"vocab must be a Vocab (LanguageModelling needs one), got "
                            f"{type(vocab).__name__}")
        self.vocab = vocab

    def check_model(self, model) -> None:
        if not isinstance(model, SequenceModel):
            raise TypeError(f"model must be a SequenceModel for language modelling, got "
                            f"{type(model).__name__}")
        _check_vocab(model, self.vocab)

    def prepare(self, data, what: str = "train") -> Prepared:
        _empty(data, what)
        batch = make_batch(self.vocab, data)  # names a foreign symbol, if any
        return Prepared({"batch": batch}, len(data))

    def select(self, data: Prepared, index: torch.Tensor) -> Batch:
        return data.tensors["batch"].rows(index)

    def loss(self, model, batch: Batch, count: bool = True):
        logits = model(batch.inputs)
        losses = F.cross_entropy(logits.transpose(1, 2), batch.targets, reduction="none")
        count = batch.mask.sum()
        return (losses * batch.mask).sum() / count, count, None


class Classification(Task):
    """One label per string, read from the last real hidden state (a
    :class:`~course_rnn.models.classifier.SequenceClassifier`)::

        L = − (1/N) Σ_i log p(y_i | string_i)
    """

    name = "classification"
    counts_correct = True

    def __init__(self, vocab: Vocab):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Classification needs a Vocab, got {type(vocab).__name__}")
        self.vocab = vocab
        self.n_classes: int | None = None

    def check_model(self, model) -> None:
        if not isinstance(model, SequenceClassifier):
            raise TypeError(f"classification trains a SequenceClassifier, got "
                            f"{type(model).__name__} (wrap the model: SequenceClassifier(model))")
        _check_vocab(model, self.vocab)
        self.n_classes = model.n_classes

    def prepare(self, data, what: str = "train") -> Prepared:
        check_labelled(data, self.n_classes or 2 ** 31, what)
        batch = make_batch(self.vocab, [s for s, _ in data])
        labels = torch.tensor([y for _, y in data], dtype=torch.long)
        return Prepared({"batch": batch, "labels": labels}, len(data))

    def select(self, data: Prepared, index: torch.Tensor):
        return data.tensors["batch"].rows(index), data.tensors["labels"][index]

    def loss(self, model, batch, count: bool = True):
        strings, labels = batch
        logits = model(strings.inputs, strings.lengths)
        right = (logits.detach().argmax(-1) == labels).sum()
        return F.cross_entropy(logits, labels), labels.new_tensor(len(labels)), right


class NextWord(Task):
    """The neural n-gram model's task (Bengio et al. 2003): ``(contexts [N, n−1], targets [N])``
    from :func:`course_rnn.models.bengio.ngram_pairs`::

        L = − (1/N) Σ_t log P(w_t | w_{t−n+1} … w_{t−1})
    """

    name = "next word from n−1 words"

    def check_model(self, model) -> None:
        if not isinstance(model, BengioMLP):
            raise TypeError(f"NextWord trains a BengioMLP, got {type(model).__name__}")
        self.model = model

    def prepare(self, data, what: str = "train") -> Prepared:
        check_pairs(self.model, data, what)
        contexts, targets = data
        return Prepared({"contexts": contexts.long(), "targets": targets.long()}, len(targets))

    def select(self, data: Prepared, index: torch.Tensor):
        return data.tensors["contexts"][index], data.tensors["targets"][index]

    def loss(self, model, batch, count: bool = True):
        contexts, targets = batch
        logits = model.scores(contexts)  # indices were checked once, in prepare
        return F.cross_entropy(logits, targets), targets.new_tensor(len(targets)), None


class ExactDistributions(Task):
    """Tabor's (2011) training signal: at every position of every sentence, the grammar's
    *exact* next-word distribution ``t`` (the transition probabilities of an infinite corpus), and
    the error E = Σ_i t_i log(t_i / o_i), averaged per position. Its optimum is 0.

    ``counts_correct``: a position is right when the model's distribution is closer to the right
    one than to any other the grammar produces (Tabor's "% correct").
    """

    name = "exact next-word distributions"
    counts_correct = True
    counts_cheaply = False  # Tabor's % correct costs a fifth of a training step

    def __init__(self, language: TaborGrammar, vocab: Vocab):
        if not isinstance(language, TaborGrammar):
            raise TypeError(f"language must be a Tabor grammar, got {type(language).__name__}")
        if not isinstance(vocab, Vocab):
            raise TypeError(f"ExactDistributions needs a Vocab, got {type(vocab).__name__}")
        self.language, self.vocab = language, vocab

    def check_model(self, model) -> None:
        if not isinstance(model, SequenceModel):
            raise TypeError(f"ExactDistributions trains a SequenceModel, got "
                            f"{type(model).__name__}")
        _check_vocab(model, self.vocab)

    def prepare(self, data, what: str = "train") -> Prepared:
        _empty(data, what)
        sentences = [self.language.symbols(s) for s in data]
        batch = make_batch(self.vocab, sentences)
        targets = exact_targets(self.language, sentences, self.vocab)
        return Prepared({"batch": batch, "targets": targets}, len(sentences))

    def select(self, data: Prepared, index: torch.Tensor):
        batch = data.tensors["batch"].rows(index)
        return batch, data.tensors["targets"][index, : batch.inputs.shape[1]]

    def loss(self, model, batch, count: bool = True):
        strings, targets = batch
        logits = model(strings.inputs)
        positions = strings.mask.sum()
        loss = kl_error(logits, targets, strings.mask) / positions
        if not count:
            return loss, positions, None
        probs = torch.softmax(logits.detach(), -1)[..., EOS:]
        share = tabor_percent_correct(probs.cpu(), targets[..., EOS:].cpu(), strings.mask.cpu())
        return loss, positions, positions * (share / 100.0)


def task_for(model, task) -> Task:
    """``task`` itself, or for a :class:`Vocab` the usual task of ``model``: classification for a
    :class:`SequenceClassifier`, language modelling for any other sequence model."""
    if isinstance(task, Task):
        return task
    if isinstance(task, Vocab):
        if isinstance(model, SequenceClassifier):
            return Classification(task)
        return LanguageModelling(task)
    if task is None and isinstance(model, BengioMLP):
        return NextWord()
    raise TypeError(f"task (the second argument of fit) must be a Task or a Vocab, got "
                    f"{type(task).__name__}")


# -- the evaluations chapters call directly ----------------------------------------------------
def evaluate_loss(model: SequenceModel, vocab: Vocab, strings: Sequence,
                  batch_size: int = 512) -> float:
    """Mean next-symbol cross-entropy (nats per symbol, EOS included) over ``strings``."""
    task = LanguageModelling(vocab)
    task.check_model(model)
    check_items(strings, "strings")
    check_positive(batch_size, "batch_size")
    data = task.prepare(strings, "evaluation").to(model.device)
    return task.evaluate(model, data, batch_size)["loss"]


def perplexity(model: SequenceModel, vocab: Vocab, strings: Sequence,
               batch_size: int = 512) -> float:
    """exp(mean cross-entropy per symbol): the number of equally likely symbols the model is,
    on average, choosing between."""
    return math.exp(evaluate_loss(model, vocab, strings, batch_size))
