"""The common face of every formal language in the course.

A language is a set of finite symbol sequences over an ``alphabet``. Every language class
offers the same five things, so that models, metrics and widgets never special-case one:

* ``alphabet`` – the symbols (tuple of str), never including :data:`EOS`;
* ``sample(n, seed)`` – ``n`` member strings, reproducible from ``seed``;
* ``is_member(seq)`` – the recogniser;
* ``valid_next(prefix)`` – the set of symbols that may follow ``prefix`` in *some* member
  string, with :data:`EOS` in the set when ``prefix`` itself is a member;
* ``next_distribution(prefix)`` – the exact next-symbol distribution, for languages defined
  by a probabilistic generator (others raise ``NotImplementedError``).

Sequences are tuples of symbols. For convenience a plain string is accepted too: it is split on
whitespace when it contains spaces, otherwise into characters (so ``"aabb"`` and ``"a a b b"``
mean the same thing for a^n b^n, and ``"the dog runs"`` is three words).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

import numpy as np

from ..checks import (  # noqa: F401  (the languages' checks, re-exported)
    check_count,
    check_integer,
    check_length,
    check_positive,
    check_seed,
)
from ..utils import shift_seed

#: End-of-string marker. It is a possible "next symbol" but never part of an alphabet.
EOS = "</s>"

Symbols = tuple[str, ...]


def as_symbols(seq: str | Iterable[str], what: str = "a string") -> Symbols:
    """Turn a user's string or iterable of symbols into a tuple of symbols (``what``: how the
    error names the argument)."""
    if isinstance(seq, str):
        return tuple(seq.split()) if " " in seq.strip() else tuple(seq.strip())
    try:
        symbols = tuple(seq)
    except TypeError:
        raise TypeError(
            f"{what} must be a string or a sequence of symbols, got {type(seq).__name__}"
        ) from None
    for s in symbols:
        if not isinstance(s, str):
            raise TypeError(f"symbols must be strings, got {s!r} ({type(s).__name__})")
    return symbols


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A numpy Generator from a seed (or pass a Generator through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(shift_seed(check_seed(seed, optional=True)))


class Language(ABC):
    """Base class: subclasses set ``name`` and ``alphabet`` and implement the recogniser,
    the sampler and ``valid_next``."""

    name: str = "language"
    alphabet: Symbols = ()
    #: word-level languages split a plain string on whitespace only ("man" is one word)
    words: bool = False

    # -- input checking --------------------------------------------------------------------
    def symbols(self, seq: str | Iterable[str]) -> Symbols:
        """``as_symbols`` plus a check that every symbol is in the alphabet.

        Raises ``ValueError`` naming the first foreign symbol and its position.
        """
        if self.words and isinstance(seq, str):
            seq = seq.split()
        symbols = as_symbols(seq)
        allowed = set(self.alphabet)
        for i, s in enumerate(symbols):
            if s not in allowed:
                raise ValueError(
                    f"symbol {s!r} at position {i} is not in the alphabet of {self.name}: "
                    f"{' '.join(self.alphabet)}"
                )
        return symbols

    # -- the five things -------------------------------------------------------------------
    @abstractmethod
    def is_member(self, seq: str | Iterable[str]) -> bool:
        """True when ``seq`` is a string of the language (foreign symbols raise ValueError)."""

    @abstractmethod
    def valid_next(self, prefix: str | Iterable[str]) -> frozenset[str]:
        """Symbols (and possibly :data:`EOS`) that can follow ``prefix`` in a member string.

        The empty set means ``prefix`` is not a prefix of any member string.
        """

    @abstractmethod
    def sample(self, n: int, seed: int | np.random.Generator | None = None) -> list[Symbols]:
        """``n`` member strings drawn reproducibly from ``seed``."""

    def next_distribution(self, prefix: str | Iterable[str]) -> dict[str, float]:
        """Exact next-symbol probabilities (keys include :data:`EOS`)."""
        raise NotImplementedError(f"{self.name} has no probabilistic generator")

    # -- helpers shared by all languages ---------------------------------------------------
    def is_prefix(self, prefix: str | Iterable[str]) -> bool:
        """True when some member string starts with ``prefix``."""
        return bool(self.valid_next(prefix))

    def deterministic_positions(self, seq: str | Iterable[str]) -> list[bool]:
        """For each position 0..len(seq) (the last one predicts EOS): is the next symbol forced?"""
        seq = self.symbols(seq)
        return [len(self.valid_next(seq[:i])) == 1 for i in range(len(seq) + 1)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def corrupt(seq: Sequence[str], alphabet: Sequence[str], rng: np.random.Generator) -> Symbols:
    """One random edit (substitute, delete or insert a symbol) – for testing recognisers."""
    seq = list(seq)
    op = rng.integers(3) if seq else 2
    if op == 0:
        i = int(rng.integers(len(seq)))
        seq[i] = str(rng.choice([a for a in alphabet if a != seq[i]] or list(alphabet)))
    elif op == 1:
        del seq[int(rng.integers(len(seq)))]
    else:
        seq.insert(int(rng.integers(len(seq) + 1)), str(rng.choice(list(alphabet))))
    return tuple(seq)
