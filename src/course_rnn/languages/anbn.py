"""Counting languages: a^n b^n and a^n b^n c^n.

The simplest languages a finite-state machine cannot recognise: after reading ``a`` n times, a
recogniser must remember n exactly to know when the b's stop. A recurrent network that predicts
the next symbol of ``aaabbb`` must therefore count – this is where the LSTM's cell state earns
its keep (Gers & Schmidhuber 2001; chapter 3). a^n b^n c^n is not even context-free: one count
must be checked twice.

Members have n ≥ 1. The prediction task is only partly deterministic: while reading a's the next
symbol may be another ``a`` or the first ``b`` (nobody can know n yet), but from the first ``b``
on, every next symbol – including the end of the string – is forced.
"""

from __future__ import annotations

import numpy as np

from .base import EOS, Language, Symbols, check_count, check_length, make_rng


class AnBn(Language):
    """a^n b^n, n ≥ 1. ``min_n``/``max_n`` only bound :meth:`sample` (n uniform in between);
    membership and ``valid_next`` are those of the unbounded language."""

    name = "a^n b^n"
    letters: Symbols = ("a", "b")

    def __init__(self, min_n: int = 1, max_n: int = 20):
        self.min_n = check_length(min_n, "min_n")
        self.max_n = check_length(max_n, "max_n")
        if self.min_n > self.max_n:
            raise ValueError(f"min_n ({min_n}) must not exceed max_n ({max_n})")
        self.alphabet = self.letters

    def __repr__(self) -> str:
        return f"{type(self).__name__}(min_n={self.min_n}, max_n={self.max_n})"

    @classmethod
    def string(cls, n: int) -> Symbols:
        """The member with count ``n``: ``AnBn.string(2) == ('a', 'a', 'b', 'b')``."""
        n = check_length(n, "n")
        return tuple(letter for letter in cls.letters for _ in range(n))

    def sample(self, n: int, seed: int | np.random.Generator | None = None) -> list[Symbols]:
        """``n`` strings with counts drawn uniformly from [min_n, max_n]."""
        counts = make_rng(seed).integers(self.min_n, self.max_n + 1, size=check_count(n))
        return [self.string(int(k)) for k in counts]

    def _runs(self, symbols: Symbols) -> list[int] | None:
        """Lengths of the blocks a…, b…, (c…) that ``symbols`` consists of, in order, or None
        when it is not a prefix of a member: letters out of order, or a later block longer
        than the first, or a block that ended before reaching the count of the first."""
        runs: list[int] = []
        for s in symbols:
            letter = self.letters.index(s)
            if letter == len(runs) - 1:
                runs[-1] += 1
            elif letter == len(runs) and (not runs or runs[-1] == runs[0]):
                runs.append(1)
            else:
                return None
            if runs[-1] > runs[0]:
                return None
        return runs

    def is_member(self, seq) -> bool:
        runs = self._runs(self.symbols(seq))
        return runs is not None and len(runs) == len(self.letters) and runs[-1] == runs[0]

    def valid_next(self, prefix) -> frozenset[str]:
        """After a^k: {a, b}. Inside a later block shorter than k: that letter again. A full
        block: the next letter, or EOS after the last block."""
        runs = self._runs(self.symbols(prefix))
        if runs is None:
            return frozenset()
        if not runs:
            return frozenset({self.letters[0]})
        if len(runs) == 1:
            return frozenset(self.letters[:2])
        if runs[-1] < runs[0]:
            return frozenset({self.letters[len(runs) - 1]})
        if len(runs) == len(self.letters):
            return frozenset({EOS})
        return frozenset({self.letters[len(runs)]})


class AnBnCn(AnBn):
    """a^n b^n c^n, n ≥ 1 – the same face as :class:`AnBn`, with one more block."""

    name = "a^n b^n c^n"
    letters = ("a", "b", "c")
