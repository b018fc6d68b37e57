"""Symbols to integers, and strings to padded training batches.

Every model in the course reads the same batches. A string ``w1 … wn`` becomes a
language-modelling pair::

    inputs : <s>  w1  w2 … wn          (BOS first)
    targets: w1   w2  …  wn  </s>       (EOS last)

so that the model's output at step ``t`` is its prediction of the symbol after the prefix
``w1 … wt``. Padding uses index 0 and is masked out of losses and metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch

from ..checks import check_items, check_positive
from ..utils import shift_seed
from .base import EOS, as_symbols

PAD = "<pad>"
BOS = "<s>"


class Vocab:
    """A fixed mapping between symbols and indices: ``<pad>``=0, ``<s>``=1, ``</s>``=2, then
    the alphabet in the order given."""

    def __init__(self, alphabet: Iterable[str]):
        if not isinstance(alphabet, Iterable):
            raise TypeError(f"alphabet must be a string or a list of symbols, got {alphabet!r}")
        alphabet = list(alphabet)
        if not alphabet:
            raise ValueError("a vocabulary needs at least one symbol")
        odd = [s for s in alphabet if not isinstance(s, str) or not s or s.isspace()]
        if odd:
            raise ValueError(f"alphabet: every symbol must be a non-blank string, got {odd!r}")
        clash = {PAD, BOS, EOS} & set(alphabet)
        if clash:
            raise ValueError(f"alphabet may not contain the reserved symbols {sorted(clash)}")
        if len(set(alphabet)) != len(alphabet):
            raise ValueError("alphabet has repeated symbols")
        self.alphabet: tuple[str, ...] = tuple(alphabet)
        self.itos: list[str] = [PAD, BOS, EOS, *alphabet]
        self.stoi: dict[str, int] = {s: i for i, s in enumerate(self.itos)}

    pad_id, bos_id, eos_id = 0, 1, 2

    @classmethod
    def for_language(cls, language) -> Vocab:
        return cls(language.alphabet)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self.stoi

    def __repr__(self) -> str:
        return f"Vocab({list(self.alphabet)})"

    def index(self, symbol: str) -> int:
        try:
            return self.stoi[symbol]
        except KeyError:
            raise ValueError(
                f"symbol {symbol!r} is not in the vocabulary {list(self.alphabet)}"
            ) from None

    def encode(self, seq: str | Iterable[str], bos: bool = False, eos: bool = False) -> list[int]:
        """Indices of ``seq``; foreign symbols raise ValueError naming them."""
        ids = [self.index(s) for s in as_symbols(seq)]
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def decode(self, ids: Iterable[int]) -> tuple[str, ...]:
        out = []
        for i in ids:
            i = int(i)
            if not 0 <= i < len(self.itos):
                raise ValueError(f"index {i} is outside the vocabulary (size {len(self.itos)})")
            out.append(self.itos[i])
        return tuple(out)

    @property
    def output_symbols(self) -> tuple[str, ...]:
        """Symbols a next-symbol prediction ranges over, in index order (EOS + alphabet)."""
        return (EOS, *self.alphabet)


@dataclass
class Batch:
    """A padded batch of language-modelling examples (all tensors ``[B, T]``)."""

    inputs: torch.Tensor  # long, BOS w1 … wn, padded with 0
    targets: torch.Tensor  # long, w1 … wn EOS, padded with 0
    mask: torch.Tensor  # bool, True at real (non-pad) target positions
    lengths: torch.Tensor  # long [B], number of real steps (n + 1)

    def to(self, device) -> Batch:
        return Batch(*(t.to(device) for t in (self.inputs, self.targets, self.mask, self.lengths)))

    def rows(self, index: torch.Tensor) -> Batch:
        """The strings at ``index``, padded only as far as the longest of them: the same batch
        that :func:`make_batch` builds from those strings, without encoding them again."""
        steps = int(self.lengths[index].max()) if len(index) else 0
        return Batch(self.inputs[index, :steps], self.targets[index, :steps],
                     self.mask[index, :steps], self.lengths[index])

    def __len__(self) -> int:
        return self.inputs.shape[0]


def make_batch(vocab: Vocab, seqs: Sequence[str | Iterable[str]]) -> Batch:
    """Pad a list of strings into one :class:`Batch` (empty strings are allowed: ``<s> → </s>``)."""
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}")
    if len(check_items(seqs, "seqs (the strings of a batch)", empty=True)) == 0:
        raise ValueError("seqs: cannot make a batch from zero strings")
    encoded = [vocab.encode(s) for s in seqs]
    steps = max(len(e) for e in encoded) + 1
    inputs = torch.zeros(len(encoded), steps, dtype=torch.long)
    targets = torch.zeros_like(inputs)
    lengths = torch.empty(len(encoded), dtype=torch.long)
    for row, ids in enumerate(encoded):
        inputs[row, : len(ids) + 1] = torch.tensor([vocab.bos_id, *ids])
        targets[row, : len(ids) + 1] = torch.tensor([*ids, vocab.eos_id])
        lengths[row] = len(ids) + 1
    mask = torch.arange(steps)[None, :] < lengths[:, None]
    return Batch(inputs, targets, mask, lengths)


def iterate_batches(
    vocab: Vocab,
    seqs: Sequence[str | Iterable[str]],
    batch_size: int,
    shuffle: bool = True,
    seed: int | None = 0,
):
    """Yield :class:`Batch` objects over ``seqs`` (shuffled reproducibly from ``seed``). The
    strings are encoded once; each batch is padded to its own longest string."""
    check_positive(batch_size, "batch_size")
    if len(check_items(seqs, "seqs (the strings to batch)", empty=True)) == 0:
        raise ValueError("seqs: cannot iterate over an empty corpus")
    everything = make_batch(vocab, seqs)
    for index in batch_order(len(seqs), batch_size, shuffle, seed):
        yield everything.rows(index)


def batch_order(n: int, batch_size: int, shuffle: bool = True, seed: int | None = 0):
    """Index tensors of consecutive batches over ``n`` items, in a random order drawn from
    ``seed`` when ``shuffle`` (the same order for the same seed on every machine)."""
    if shuffle:
        order = torch.randperm(n, generator=torch.Generator().manual_seed(shift_seed(seed or 0)))
    else:
        order = torch.arange(n)
    return order.split(batch_size)
