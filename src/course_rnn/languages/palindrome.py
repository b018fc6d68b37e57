"""Palindromes: w c w^R (with a centre marker) and w w^R (without).

A palindrome's second half mirrors its first, so the dependencies are *nested* like brackets:
the last symbol answers the first. Unlike a^n b^n, the network must remember a whole sequence,
not just a count, and play it back in reverse – a stack, not a counter.

With a centre marker (``abb c bba``) the model knows when to start playing back, so every
symbol after the marker is forced. Without one (``abbbba``) the language is still
context-free, but no left-to-right reader can tell where the middle is: every symbol may
always come next, and the end may come whenever the prefix read so far is itself a palindrome
of even length.
"""

from __future__ import annotations

import numpy as np

from .base import EOS, Language, Symbols, as_symbols, check_count, check_length, make_rng


class Palindrome(Language):
    """w c w^R over ``alphabet`` with centre ``marker`` (w may be empty, so ``c`` alone is a
    member); ``marker=None`` gives the even palindromes w w^R (including the empty string)."""

    def __init__(self, alphabet="ab", marker: str | None = "c"):
        letters = as_symbols(alphabet, "alphabet")
        if not letters:
            raise ValueError("a palindrome language needs a non-empty alphabet")
        if len(set(letters)) != len(letters):
            raise ValueError(f"alphabet has repeated symbols: {letters}")
        if EOS in letters or marker == EOS:
            raise ValueError(f"{EOS!r} is reserved for end of string")
        if marker is not None:
            if not isinstance(marker, str) or not marker or marker.isspace():
                raise ValueError(f"marker must be a non-blank string or None, got {marker!r}")
            if marker in letters:
                raise ValueError(f"marker {marker!r} must not be in the alphabet {letters}")
        self.letters: Symbols = letters
        self.marker = marker
        self.alphabet: Symbols = letters + ((marker,) if marker is not None else ())
        self.name = "w c w^R" if marker is not None else "w w^R"

    def __repr__(self) -> str:
        return f"Palindrome(alphabet={''.join(self.letters)!r}, marker={self.marker!r})"

    def string(self, half: str | Symbols) -> Symbols:
        """The member whose first half is ``half``: ``string("ab") == ('a','b','c','b','a')``."""
        w = tuple(as_symbols(half))
        for i, s in enumerate(w):
            if s not in self.letters:
                raise ValueError(f"symbol {s!r} at position {i} is not one of {self.letters}")
        middle = (self.marker,) if self.marker is not None else ()
        return w + middle + w[::-1]

    def sample(
        self,
        n: int,
        seed: int | np.random.Generator | None = None,
        min_half: int = 1,
        max_half: int = 10,
    ) -> list[Symbols]:
        """``n`` strings: |w| uniform in [min_half, max_half], then each symbol of w uniform."""
        n = check_count(n)
        min_half = check_length(min_half, "min_half", 0)
        max_half = check_length(max_half, "max_half", 0)
        if min_half > max_half:
            raise ValueError(f"min_half ({min_half}) must not exceed max_half ({max_half})")
        rng = make_rng(seed)
        halves = rng.integers(min_half, max_half + 1, size=n)
        return [self.string([self.letters[i] for i in rng.integers(len(self.letters), size=h)])
                for h in halves]

    def is_member(self, seq) -> bool:
        symbols = self.symbols(seq)
        if self.marker is None:
            return len(symbols) % 2 == 0 and symbols == symbols[::-1]
        middle = len(symbols) // 2
        return (
            len(symbols) % 2 == 1
            and symbols.count(self.marker) == 1
            and symbols[middle] == self.marker
            and symbols == symbols[::-1]
        )

    def valid_next(self, prefix) -> frozenset[str]:
        """Marked: before the marker any letter or the marker; after it, the mirror image of
        w, symbol by symbol, then EOS. Unmarked: any letter always (every prefix p starts the
        palindrome p p^R), plus EOS when the prefix is an even palindrome."""
        symbols = self.symbols(prefix)
        if self.marker is None:
            end = {EOS} if self.is_member(symbols) else set()
            return frozenset(self.letters) | end
        if self.marker not in symbols:
            return frozenset(self.alphabet)
        centre = symbols.index(self.marker)
        mirror = symbols[:centre][::-1]
        played = symbols[centre + 1 :]
        if played != mirror[: len(played)]:
            return frozenset()  # a mismatch, an overrun, or a second marker
        return frozenset({mirror[len(played)]} if len(played) < len(mirror) else {EOS})
