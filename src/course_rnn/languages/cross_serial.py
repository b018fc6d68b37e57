"""Cross-serial dependencies: a^m b^n c^m d^n.

Shieber (1985) showed that Swiss German embeds verbs so that the i-th noun goes with the i-th
verb – the dependencies *cross* instead of nesting:

    ... mer em Hans es huus hälfed aastriiche
        (we Hans-DAT the house-ACC helped paint)

Abstracting the case-marked nouns as a (dative) and b (accusative) and their verbs as c and d
gives a^m b^n c^m d^n: the number of c's must match the a's and the number of d's the b's.
The language is mildly context-sensitive (no context-free grammar generates it).

Bernardy & Lappin (2023, §3) study the finite family

    C_k = { a^m b^n c^m d^n  |  m + n < k },

training on strings drawn uniformly from C_8 and testing on C_10. We read m, n ≥ 1, as their
code does (``xdep.py`` draws m from [1, m+n-1]), so C_k has (k-1)(k-2)/2 strings: 21 in C_8,
36 in C_10. Their released code actually trains on C_5 and tests on C_10 (it draws the total
length below 10 for training and below 20 for testing).

Scoring (their ``isCorrect``): after an a or a b the prediction need only be a possible
continuation (m and n are still unknown); after a c or a d it must be exact (both counts are
known by then); the end must be predicted; a string counts as right only if every prediction is.
:meth:`CrossSerial.must_be_exact` tells a metric which positions are of the exact kind.
"""

from __future__ import annotations

import numpy as np

from .base import EOS, Language, Symbols, check_count, check_length, make_rng

LETTERS = ("a", "b", "c", "d")


class CrossSerial(Language):
    """a^m b^n c^m d^n with m, n ≥ 1 (unbounded; :meth:`sample` bounds m + n)."""

    name = "a^m b^n c^m d^n"
    alphabet: Symbols = LETTERS

    @staticmethod
    def string(m: int, n: int) -> Symbols:
        """``string(2, 1) == ('a', 'a', 'b', 'c', 'c', 'd')``."""
        m, n = check_length(m, "m"), check_length(n, "n")
        return ("a",) * m + ("b",) * n + ("c",) * m + ("d",) * n

    @staticmethod
    def family(k: int) -> list[Symbols]:
        """All strings of C_k = {a^m b^n c^m d^n | m, n ≥ 1, m + n < k}, shortest first
        (then by m). ``len(family(8)) == 21``, ``len(family(10)) == 36``."""
        k = check_length(k, "k", 0)
        return [CrossSerial.string(m, total - m) for total in range(2, k) for m in range(1, total)]

    def sample(
        self,
        n: int,
        seed: int | np.random.Generator | None = None,
        max_total: int = 7,
        min_total: int = 2,
    ) -> list[Symbols]:
        """``n`` strings drawn uniformly (with replacement) from those with
        ``min_total ≤ m + n ≤ max_total``. The default, max_total=7, is C_8 (the paper's
        training set); max_total=9 is C_10 (its test set); raise min_total to keep only
        strings longer than any seen in training."""
        n = check_count(n)
        max_total = check_length(max_total, "max_total")
        min_total = check_length(min_total, "min_total")
        if not 2 <= min_total <= max_total:
            raise ValueError(
                f"need 2 <= min_total <= max_total (m, n >= 1), got min_total={min_total}, "
                f"max_total={max_total}"
            )
        strings = [s for s in self.family(max_total + 1) if len(s) >= 2 * min_total]
        picks = make_rng(seed).integers(len(strings), size=n)
        return [strings[i] for i in picks]

    # -- reading --------------------------------------------------------------------------
    def _counts(self, symbols: Symbols) -> list[int] | None:
        """Block lengths [#a, #b, #c, #d] of a prefix of a member, or None if it is not one."""
        counts = [0, 0, 0, 0]
        block = 0
        for s in symbols:
            letter = LETTERS.index(s)
            if letter < block or letter > block + 1:
                return None
            if letter == block + 1 and counts[block] == 0:
                return None  # a block was skipped (m, n >= 1)
            block = letter
            counts[letter] += 1
        m, n = counts[0], counts[1]
        if counts[2] > m or counts[3] > n or (counts[3] and counts[2] < m):
            return None
        return counts

    def is_member(self, seq) -> bool:
        counts = self._counts(self.symbols(seq))
        return counts is not None and counts[0] > 0 and counts[1] > 0 and (
            counts[2] == counts[0] and counts[3] == counts[1]
        )

    def valid_next(self, prefix) -> frozenset[str]:
        """a^m: {a, b} (only a at the start); a^m b^n: {b, c}; then c until there are m of
        them, d until there are n, and EOS."""
        counts = self._counts(self.symbols(prefix))
        if counts is None:
            return frozenset()
        a, b, c, d = counts
        if b == 0:
            return frozenset({"a", "b"} if a else {"a"})
        if c == 0:
            return frozenset({"b", "c"})
        if c < a:
            return frozenset({"c"})
        if d < b:
            return frozenset({"d"})
        return frozenset({EOS})

    def must_be_exact(self, prefix) -> bool:
        """True when the symbol after ``prefix`` is forced by what has been read: after a c
        or a d (B&L 2023's scoring). After a or b any valid continuation counts; at the start
        of the string the seeds' scorer checks nothing, so this is False there too."""
        symbols = self.symbols(prefix)
        return bool(symbols) and symbols[-1] in ("c", "d")
