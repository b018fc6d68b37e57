"""Training on string-to-string tasks, and the test of length generalisation (Delétang et al.
2023, "Neural networks and the Chomsky hierarchy").

A :class:`~course_rnn.languages.chomsky.Transduction` maps an input string to an output string.
The network reads the input, then one blank ``_`` per output symbol, and its prediction at each
blank is the next output symbol::

    inputs :  <s>  x1  x2 … xn   _   _  …  _
    targets:   ·   ·   ·  …  ·  y1  y2  …  ym      (· : not scored)

as in the authors' code (``make_model_with_empty_targets``: the input, then empty tokens, the
outputs read at the last m steps). The loss and the accuracy are taken **at the output positions
only and over the output symbols only** (a softmax over ``y``'s alphabet, whatever else the
vocabulary holds)::

    L = − (1/N) Σ_strings Σ_{j scored} log softmax_out(z_{n+j})[y_j]      N: scored positions

:class:`TransductionTask` is the :class:`~course_rnn.training.tasks.Task` that
:func:`~course_rnn.training.fit` trains with, on either kind of data:

* a :class:`Curriculum` — the paper's protocol: every step draws a fresh batch at **one** length,
  drawn uniformly from 1 … ``max_length`` (reproducible from ``fit``'s seed and the epoch);
* a fixed set of ``(input, output)`` pairs (e.g. ``transduction.dataset(lengths, per_length)``),
  batched so that a batch holds strings of one length wherever the set allows (sorted by length,
  cut into batches, the batches shuffled).

:func:`length_generalisation` scores a trained model at every test length (the accuracy per
length, and per string) and :attr:`LengthScores.score` is the paper's score: the mean accuracy
over the test lengths beyond training.

**Where this departs from the code.** A string starts with ``<s>`` (the course's models all read
one first). Where an output ends with ``#`` and padding (stack manipulation), the code's loss
also trains the padding, and its accuracy leaves it out; here both the loss and the accuracy are
over the scored positions, because ``fit`` averages a task's loss and accuracy over one count.
Per length, the accuracy is pooled over all strings (the code averages sub-batches' accuracies:
the same when every string has as many scored positions). The authors' example script averages
``accuracies[N + 1:]``, i.e. lengths N + 2 onwards; the paper, and :attr:`LengthScores.score`,
start at N + 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from ..checks import check_integer, check_items, check_positive, check_seed
from ..languages.base import make_rng
from ..languages.chomsky import BLANK, Pair, Transduction
from ..languages.vocab import Vocab
from ..models.base import SequenceModel
from ..utils import shift_seed
from .tasks import Task, _check_vocab


def transduction_vocab(transduction: Transduction) -> Vocab:
    """The model's vocabulary: the input symbols, the output symbols not among them, and the
    blank read at every output position."""
    outputs = [s for s in transduction.output_alphabet if s not in transduction.input_alphabet]
    return Vocab([*transduction.input_alphabet, *outputs, BLANK])


@dataclass
class TransductionBatch:
    """Strings encoded for a model, all ``[B, T]``: ``inputs`` (``<s>``, the input, blanks;
    padded with 0), ``targets`` (the output symbol's place in the output alphabet at the output
    positions, 0 elsewhere), ``mask`` (True at the scored output positions), and ``lengths``
    ``[B]`` (the real steps of each row)."""

    inputs: torch.Tensor
    targets: torch.Tensor
    mask: torch.Tensor
    lengths: torch.Tensor

    def to(self, device) -> TransductionBatch:
        return TransductionBatch(*(t.to(device) for t in (self.inputs, self.targets, self.mask,
                                                           self.lengths)))

    def rows(self, index: torch.Tensor) -> TransductionBatch:
        """The rows at ``index``, padded only as far as the longest of them."""
        steps = int(self.lengths[index].max())
        return TransductionBatch(self.inputs[index, :steps], self.targets[index, :steps],
                                 self.mask[index, :steps], self.lengths[index])

    def __len__(self) -> int:
        return self.inputs.shape[0]


@dataclass(frozen=True)
class Curriculum:
    """Fresh strings at every step, each batch at one length drawn uniformly from
    ``min_length … max_length`` (Delétang et al.'s uniform curriculum over 1 … 40).

    ``examples`` is how many strings ``fit`` counts as one epoch: it takes
    ``examples / batch_size`` steps per epoch and (unless told otherwise) evaluates once per
    epoch. The strings of an epoch are drawn from ``fit``'s seed and the epoch's number, so a run
    is reproducible; as a validation set, the same strings are drawn at every evaluation.
    """

    max_length: int
    examples: int
    min_length: int = 1

    def __post_init__(self):
        check_positive(self.max_length, "max_length")
        check_positive(self.examples, "examples")
        check_positive(self.min_length, "min_length")
        if self.min_length > self.max_length:
            raise ValueError(f"min_length ({self.min_length}) must not exceed max_length "
                             f"({self.max_length})")


@dataclass
class FreshDraws:
    """A :class:`Curriculum` as ``fit`` holds its data: a length (``examples``) and a device."""

    curriculum: Curriculum
    device: torch.device | str = "cpu"

    def __len__(self) -> int:
        return self.curriculum.examples

    def to(self, device) -> FreshDraws:
        return FreshDraws(self.curriculum, device)


@dataclass
class FixedSet:
    """A fixed set of pairs, encoded once (``encoded``: every pair, padded to the longest)."""

    encoded: TransductionBatch

    def __len__(self) -> int:
        return len(self.encoded)

    def to(self, device) -> FixedSet:
        return FixedSet(self.encoded.to(device))


class TransductionTask(Task):
    """Learn a :class:`~course_rnn.languages.chomsky.Transduction` (see the module docstring):
    ``fit(model, TransductionTask(task), Curriculum(40, examples=…), valid=…)``, with a model
    of ``vocab_size=len(TransductionTask(task).vocab)``."""

    counts_correct = True

    def __init__(self, transduction: Transduction):
        if not isinstance(transduction, Transduction):
            raise TypeError(f"transduction must be a Transduction (course_rnn.languages."
                            f"make_transduction), got {type(transduction).__name__}")
        self.transduction = transduction
        self.name = f"transduction: {transduction.name}"
        self.vocab = transduction_vocab(transduction)
        self.output_ids = torch.tensor([self.vocab.index(s)
                                        for s in transduction.output_alphabet])
        self._output_class = {s: i for i, s in enumerate(transduction.output_alphabet)}

    def check_model(self, model) -> None:
        if not isinstance(model, SequenceModel):
            raise TypeError(f"a transduction trains a SequenceModel, got {type(model).__name__}")
        _check_vocab(model, self.vocab)

    # -- data ----------------------------------------------------------------------------------
    def prepare(self, data, what: str = "train") -> FreshDraws | FixedSet:
        """A :class:`Curriculum` (fresh strings) or a list of ``(input, output)`` pairs,
        checked once: a symbol outside an alphabet or an output of the wrong length is named."""
        if isinstance(data, Curriculum):
            if data.min_length < self.transduction.min_length:
                raise ValueError(f"the {what} curriculum starts at length {data.min_length}; "
                                 f"{self.transduction.name} starts at "
                                 f"{self.transduction.min_length}")
            return FreshDraws(data)
        check_items(data, f"the {what} set", "(input, output) pairs or a Curriculum")
        return FixedSet(self.encode([self._checked_pair(pair, i, what)
                                     for i, pair in enumerate(data)]))

    def _checked_pair(self, pair, index: int, what: str) -> Pair:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"the {what} set: item {index} must be an (input, output) pair, "
                            f"got {pair!r:.60}")
        task = self.transduction
        string, output = task.check_input(pair[0]), task.check_output(pair[1])
        if len(output) != task.output_length(len(string)):
            raise ValueError(f"the {what} set: item {index} has {len(output)} output symbols; "
                             f"an input of {len(string)} has {task.output_length(len(string))}")
        return string, output

    def encode(self, pairs: Sequence[Pair]) -> TransductionBatch:
        """``(input, output)`` pairs as one padded :class:`TransductionBatch` (see the module
        docstring for the layout)."""
        inputs, lengths = self.encode_inputs([(x, len(y)) for x, y in pairs])
        targets = torch.zeros_like(inputs)
        mask = torch.zeros(inputs.shape, dtype=torch.bool)
        for row, (string, output) in enumerate(pairs):
            n, m = len(string), len(output)
            targets[row, 1 + n: 1 + n + m] = torch.tensor([self._output_class[s] for s in output])
            mask[row, 1 + n: 1 + n + self.transduction.scored(output)] = True  # y_j: at blank j
        return TransductionBatch(inputs, targets, mask, lengths)

    def encode_inputs(self, strings: Sequence[tuple[Sequence[str], int]]
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        """``<s> x1 … xn`` and ``m`` blanks for every ``(input, m)``, padded with 0 ``[B, T]``,
        and the real steps of every row ``[B]``."""
        stoi, blank = self.vocab.stoi, self.vocab.index(BLANK)
        lengths = torch.tensor([1 + len(x) + m for x, m in strings])
        inputs = torch.zeros(len(strings), int(lengths.max()), dtype=torch.long)
        for row, (string, m) in enumerate(strings):
            inputs[row, : lengths[row]] = torch.tensor(
                [self.vocab.bos_id, *(stoi[s] for s in string), *[blank] * m])
        return inputs, lengths

    def batches(self, data: FreshDraws | FixedSet, batch_size: int | None, shuffle: bool,
                seed: int) -> Iterator[TransductionBatch]:
        """Fresh batches at one length each, or the fixed set's batches by length."""
        if isinstance(data, FreshDraws):
            yield from self._fresh_batches(data, batch_size or len(data), seed)
            return
        for index in length_batches(data.encoded.lengths, batch_size or len(data), shuffle, seed):
            yield data.encoded.rows(index.to(data.encoded.lengths.device))

    def _fresh_batches(self, data: FreshDraws, batch_size: int, seed: int):
        curriculum, rng = data.curriculum, make_rng(seed)
        for _ in range(math.ceil(len(data) / batch_size)):
            length = int(rng.integers(curriculum.min_length, curriculum.max_length + 1))
            yield self.encode(self.transduction.sample(length, batch_size, rng)).to(data.device)

    # -- loss and accuracy ---------------------------------------------------------------------
    def output_logits(self, model, inputs: torch.Tensor) -> torch.Tensor:
        """The model's scores of the output symbols only, ``[B, T, output alphabet]``."""
        return model(inputs)[..., self.output_ids.to(inputs.device)]

    def loss(self, model, batch: TransductionBatch, count: bool = True):
        scores = self.output_logits(model, batch.inputs)[batch.mask]  # the scored positions
        wanted = batch.targets[batch.mask]
        right = (scores.detach().argmax(-1) == wanted).sum()
        return F.cross_entropy(scores, wanted), batch.mask.sum(), right

    @torch.no_grad()
    def predict(self, model, strings: Sequence) -> list[tuple[str, ...]]:
        """What ``model`` writes at the output positions of each input string (every output
        position, padding included)."""
        task = self.transduction
        self.check_model(model)
        check_items(strings, "strings", "input strings")
        read = [(x, task.output_length(len(x))) for x in map(task.check_input, strings)]
        inputs, _ = self.encode_inputs(read)
        was_training = model.training
        model.eval()
        best = self.output_logits(model, inputs.to(model.device)).argmax(-1).cpu()
        model.train(was_training)
        return [tuple(task.output_alphabet[i] for i in best[row, 1 + len(x): 1 + len(x) + m])
                for row, (x, m) in enumerate(read)]


def length_batches(lengths: torch.Tensor, batch_size: int, shuffle: bool,
                   seed: int | None) -> list[torch.Tensor]:
    """Index tensors of ⌈N / batch_size⌉ batches over rows of these ``lengths``, each holding
    rows of one length wherever the lengths allow: sorted by length (ties in a random order when
    ``shuffle``), cut into batches, and the batches put in a random order."""
    generator = torch.Generator().manual_seed(shift_seed(seed or 0))
    n = len(lengths)
    order = torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    order = order[torch.sort(lengths.cpu()[order], stable=True).indices]
    batches = list(order.split(batch_size))
    if shuffle:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=generator)]
    return batches


# -- the length-generalisation test --------------------------------------------------------------


@dataclass(frozen=True)
class LengthScores:
    """A model's accuracy at every test length (:func:`length_generalisation`).

    ``accuracy[i]``: the share of scored output positions right at ``lengths[i]`` (Delétang et
    al.'s per-token accuracy); ``sequence_accuracy[i]``: the share of strings with every scored
    position right (Joulin & Mikolov's measure); ``samples`` strings per length.
    """

    lengths: tuple[int, ...]
    accuracy: tuple[float, ...]
    sequence_accuracy: tuple[float, ...]
    max_train_length: int
    samples: int

    @property
    def score(self) -> float:
        """The paper's score: the mean accuracy over the test lengths beyond training."""
        beyond = [a for n, a in zip(self.lengths, self.accuracy) if n > self.max_train_length]
        return float(np.mean(beyond))

    @property
    def sequence_score(self) -> float:
        """The mean sequence accuracy over the test lengths beyond training."""
        beyond = [a for n, a in zip(self.lengths, self.sequence_accuracy)
                  if n > self.max_train_length]
        return float(np.mean(beyond))

    def at(self, length: int) -> float:
        """The accuracy at one test length (ValueError if it was not tested)."""
        if length not in self.lengths:
            raise ValueError(f"length {length!r} was not tested; tested: {self.lengths[0]}…"
                             f"{self.lengths[-1]}")
        return self.accuracy[self.lengths.index(length)]

    def to_json(self) -> dict:
        return {"lengths": list(self.lengths), "accuracy": list(self.accuracy),
                "sequence_accuracy": list(self.sequence_accuracy),
                "max_train_length": self.max_train_length, "samples": self.samples,
                "score": self.score, "sequence_score": self.sequence_score}


@torch.no_grad()
def length_generalisation(model, task: TransductionTask | Transduction, lengths: Sequence[int],
                          max_train_length: int, *, samples: int = 512, batch_size: int = 64,
                          seed: int = 1) -> LengthScores:
    """Test ``model`` on ``samples`` fresh strings at every one of ``lengths`` (the paper: 512
    strings at each length 1 … 500, after training on 1 … 40, drawn from seed 1), in eval mode.

    Returns the accuracy per length, the sequence accuracy per length and, as
    :attr:`LengthScores.score`, the mean accuracy over the lengths beyond ``max_train_length``.
    """
    task = task if isinstance(task, TransductionTask) else TransductionTask(task)
    task.check_model(model)
    lengths = [task.transduction.check_length(n) for n in check_items(
        lengths, "lengths", "test lengths (a list or a range)")]
    max_train_length = check_integer(max_train_length, "max_train_length", 0)
    if max(lengths) <= max_train_length:
        raise ValueError(f"no test length is beyond max_train_length={max_train_length}: "
                         f"the score is the mean over those (lengths go up to {max(lengths)})")
    samples, batch_size = check_positive(samples, "samples"), check_positive(batch_size,
                                                                               "batch_size")
    rng = make_rng(check_seed(seed))
    was_training = model.training
    model.eval()
    per_token, per_string = [], []
    for length in lengths:
        right = scored = strings_right = 0
        for start in range(0, samples, batch_size):
            pairs = task.transduction.sample(length, min(batch_size, samples - start), rng)
            batch = task.encode(pairs).to(model.device)
            hits = (task.output_logits(model, batch.inputs).argmax(-1) == batch.targets)
            hits = hits | ~batch.mask  # an unscored position never counts against a string
            right += int((hits & batch.mask).sum())
            scored += int(batch.mask.sum())
            strings_right += int(hits.all(dim=1).sum())
        per_token.append(right / scored)
        per_string.append(strings_right / samples)
    model.train(was_training)
    return LengthScores(tuple(lengths), tuple(per_token), tuple(per_string), max_train_length,
                        samples)
