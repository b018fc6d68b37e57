"""Kneser–Ney n-gram models: the count-based models that Bengio et al. (2003) had to beat.

An n-gram model predicts a word from the ``n - 1`` words before it. Counting alone gives zero
probability to every n-gram the training text never showed, so Kneser–Ney *discounts* every
seen count and hands the mass it frees to the next shorter context:

    P(w | u) = max(c(u w) − D(c(u w)), 0) / c(u •)  +  γ(u) · P(w | u′)
    γ(u)     = Σ_w D(c(u w)) / c(u •)                 the mass the discounts freed

where ``u`` is the context, ``u′`` is ``u`` without its oldest word and ``c(u •)`` is the total
count of ``u`` as a context. Two choices of the discount ``D(c)`` of a count ``c ≥ 1``:

* **interpolated Kneser–Ney** (:class:`KneserNeyLM`): one constant, ``D(c) = D`` (0.75 by
  default) for every count and every order; then ``γ(u) = D · N₁₊(u •) / c(u •)``, with
  ``N₁₊(u •)`` the number of different words seen after ``u``;
* **modified Kneser–Ney** (:class:`ModifiedKneserNeyLM`, Chen & Goodman 1998/1999): three
  discounts per order, ``D₁`` for counts of 1, ``D₂`` for 2, ``D₃₊`` for 3 or more, estimated
  from the order's *count-of-counts* ``n_r`` (how many n-grams have count exactly ``r``)::

      Y = n₁ / (n₁ + 2 n₂),  D₁ = 1 − 2Y n₂/n₁,  D₂ = 2 − 3Y n₃/n₂,  D₃₊ = 3 − 4Y n₄/n₃

  Singletons are discounted less than the single ``D``, frequent n-grams more, which is what
  held-out data show (Chen & Goodman's Fig. 13); then ``γ(u) = (D₁ N₁(u •) + D₂ N₂(u •) +
  D₃₊ N₃₊(u •)) / c(u •)``, with ``N_r(u •)`` the number of words seen exactly ``r`` times
  (``N₃₊``: at least 3 times) after ``u``.

The Kneser–Ney idea is what the *shorter* contexts count. They are only consulted when the
longer context is rare, so they should predict words that turn up in many different contexts,
not merely often: "Francisco" is frequent, but nearly always after "San". So below the top order
a raw count c(u w) is replaced by the *continuation count* N₁₊(• u w), the number of different
words seen just before ``u w`` (and modified Kneser–Ney's count-of-counts at those orders are
those of the continuation counts). At the bottom, the unigram level is interpolated with the
uniform distribution over the vocabulary ``V``, so that every word, ``<unk>`` included, keeps
some mass:

    P(w) = max(N₁₊(• w) − D(N₁₊(• w)), 0) / N₁₊(• •)  +  γ(ε) · 1/|V|

Sentence boundaries: every sentence is read as ``<s> … <s> w1 … wk </s>`` with ``n - 1`` start
symbols, and the model predicts each word and the end ``</s>`` (never ``<s>``). Perplexity is
per predicted token, ``</s>`` included, as in :func:`course_rnn.models.bengio.perplexity`.
Words outside the vocabulary are read as ``<unk>``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ..checks import check_positive, is_integer
from ..corpus import UNK, check_sentences
from ..languages.base import EOS
from ..languages.vocab import BOS, PAD

Ngram = tuple[str, ...]
Discounts = tuple[float, float, float]  # (D₁, D₂, D₃₊): the discounts of counts 1, 2, ≥ 3


def count_of_counts(counts: Iterable[int], largest: int = 4) -> list[int]:
    """``[n₁, …, n_largest]``: how many n-grams have count exactly 1, 2, …"""
    n = Counter(c for c in counts if 1 <= c <= largest)
    return [n[r] for r in range(1, largest + 1)]


def modified_discounts(n: Sequence[int]) -> Discounts:
    """Chen & Goodman's (1999, eq. 26) estimates of ``(D₁, D₂, D₃₊)`` from the count-of-counts
    ``n = [n₁, n₂, n₃, n₄]`` of one order::

        Y = n₁ / (n₁ + 2 n₂),  D₁ = 1 − 2Y n₂/n₁,  D₂ = 2 − 3Y n₃/n₂,  D₃₊ = 3 − 4Y n₄/n₃

    ValueError when a count-of-counts is 0 (too little text to estimate them: pass the
    discounts yourself) or an estimate falls outside ``0 < D_r ≤ r``.
    """
    if len(n) != 4 or any(not is_integer(x) or x < 0 for x in n):
        raise ValueError(f"need the count-of-counts [n1, n2, n3, n4] as integers ≥ 0, got {n!r}")
    n1, n2, n3, n4 = n
    if not (n1 and n2 and n3 and n4):
        raise ValueError(f"cannot estimate the three discounts: some n-gram counts 1-4 never "
                         f"occur (count-of-counts {list(n)}); the text is too small, pass "
                         "discounts= explicitly")
    y = n1 / (n1 + 2 * n2)
    discounts = (1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3)
    for r, d in enumerate(discounts, start=1):
        if not 0 < d <= r:
            raise ValueError(f"the estimate of D{r}{'+' if r == 3 else ''} is {d:.4g}, outside "
                             f"(0, {r}] (count-of-counts {list(n)}): pass discounts= explicitly")
    return discounts


class KneserNeyLM:
    """An interpolated Kneser–Ney n-gram language model over words, one discount ``D``.

    >>> lm = KneserNeyLM(order=3).fit([["the", "cat", "sat"], ["the", "dog", "sat"]])
    >>> round(lm.prob("sat", ["the", "cat"]), 3)
    0.613
    """

    name = "interpolated Kneser–Ney"

    def __init__(self, order: int = 3, discount: float = 0.75):
        check_positive(order, "order (1 = unigram)")
        if isinstance(discount, bool) or not isinstance(discount, (int, float)) \
                or not 0 < discount <= 1:
            raise ValueError(f"discount must be in (0, 1] (so that P sums to 1), got {discount}")
        self.order = order
        self.discount = float(discount)
        self.vocabulary: frozenset[str] = frozenset()

    # -- training: counting ----------------------------------------------------------------
    def padded(self, sentence: Sequence[str]) -> list[str]:
        """``<s>`` × (n−1), the sentence (unknown words as ``<unk>``), ``</s>``."""
        words = [w if w in self.vocabulary else UNK for w in sentence]
        return [BOS] * (self.order - 1) + words + [EOS]

    def fit(
        self, sentences: Sequence[Sequence[str]], vocabulary: Iterable[str] | None = None
    ) -> KneserNeyLM:
        """Count the n-grams of ``sentences`` (lists of tokens); return ``self``.

        The vocabulary the model predicts over is ``vocabulary`` (if given; say, the words of a
        neural model's vocabulary) or the training words, plus ``<unk>`` and ``</s>``.
        """
        check_sentences(sentences)
        if vocabulary is None:
            vocabulary = {w for sentence in sentences for w in sentence}
        vocabulary = set(vocabulary) - {BOS, PAD}
        self.vocabulary = frozenset(vocabulary | {UNK, EOS})
        n = self.order

        # top order: raw counts of every n-gram that ends in a predicted token
        top: Counter[Ngram] = Counter()
        for sentence in sentences:
            tokens = self.padded(sentence)
            top.update(tuple(tokens[i - n + 1 : i + 1]) for i in range(n - 1, len(tokens)))

        # lower orders: continuation counts N₁₊(• u w) = distinct one-longer n-grams ending in u w
        self.counts: dict[int, Counter[Ngram]] = {n: top}
        for k in range(n - 1, 0, -1):
            self.counts[k] = Counter(gram[1:] for gram in self.counts[k + 1])
        self._smooth()
        return self

    def fit_like(self, fitted: KneserNeyLM) -> KneserNeyLM:
        """Smooth the counts of ``fitted`` (a fitted model of the same order) with this model's
        discounts, instead of counting the text again; return ``self``. The two models then
        share their counts (read-only)."""
        if not isinstance(fitted, KneserNeyLM) or not fitted.vocabulary:
            raise ValueError(f"fit_like needs a fitted Kneser–Ney model, got {fitted!r}")
        if fitted.order != self.order:
            raise ValueError(f"fit_like needs a model of order {self.order}, got order "
                             f"{fitted.order}")
        self.vocabulary, self.counts = fitted.vocabulary, fitted.counts
        self._smooth()
        return self

    def _smooth(self) -> None:
        """The discounts of every order and, per context, its total and its freed mass."""
        # per order, the discounts of counts 1, 2 and ≥ 3
        self.discounts: dict[int, Discounts] = {
            k: self._discounts_of(k, counts) for k, counts in self.counts.items()}

        # per context u: its total c(u •) and the mass its discounts free, Σ_w D(c(u w))
        self.context_total: dict[int, dict[Ngram, int]] = {}
        self.context_freed: dict[int, dict[Ngram, float]] = {}
        for k, counts in self.counts.items():
            total: dict[Ngram, int] = defaultdict(int)
            by_count: dict[Ngram, list[int]] = defaultdict(lambda: [0, 0, 0])  # N₁, N₂, N₃₊
            for gram, count in counts.items():
                total[gram[:-1]] += count
                by_count[gram[:-1]][min(count, 3) - 1] += 1
            d1, d2, d3 = self.discounts[k]
            self.context_total[k] = dict(total)
            self.context_freed[k] = {u: d1 * m1 + d2 * m2 + d3 * m3
                                     for u, (m1, m2, m3) in by_count.items()}

    def _discounts_of(self, order: int, counts: Counter[Ngram]) -> Discounts:
        """The discounts (D₁, D₂, D₃₊) of ``order`` (whose counts are ``counts``): one ``D``."""
        return (self.discount,) * 3

    # -- prediction ------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not self.vocabulary:
            raise RuntimeError("the model has not been fitted: call fit(sentences) first")

    def _context(self, context: Sequence[str]) -> Ngram:
        """The last n−1 tokens of ``<s>``-padded ``context``, unknown words as ``<unk>``."""
        if isinstance(context, str):
            raise TypeError(f"context must be a sequence of tokens, not the string {context!r}")
        context = [w if w == BOS or w in self.vocabulary else UNK for w in context]
        padded = [BOS] * (self.order - 1) + context
        return tuple(padded[len(padded) - (self.order - 1) :])

    def prob(self, word: str, context: Sequence[str] = ()) -> float:
        """P(word | context). ``context`` is the sentence so far (``<s>`` padding optional; only
        its last n−1 tokens matter); ``word`` may be ``</s>``; unknown words read as ``<unk>``."""
        return self.prob_by_order(word, context)[-1]

    def prob_by_order(self, word: str, context: Sequence[str] = ()) -> list[float]:
        """The estimates of P(word | context) from no context up: ``[uniform, unigram, bigram,
        …, n-gram]``, each interpolated with the one before it. The last one is :meth:`prob`."""
        self._check_fitted()
        if not isinstance(word, str):
            raise TypeError(f"word must be a string, got {type(word).__name__}")
        if word == BOS:
            raise ValueError("<s> is never predicted: it only pads the context")
        word = word if word in self.vocabulary else UNK
        context = self._context(context)
        estimates = [1.0 / len(self.vocabulary)]  # order 0: uniform over the vocabulary
        for k in range(1, self.order + 1):
            u = context[len(context) - (k - 1) :]  # the last k−1 tokens
            p_shorter = estimates[-1]
            total = self.context_total[k].get(u)
            if total is None:  # context never seen: all its mass goes to the shorter one
                estimates.append(p_shorter)
                continue
            count = self.counts[k].get(u + (word,), 0)
            kept = count - self.discounts[k][min(count, 3) - 1] if count else 0.0
            weight_shorter = self.context_freed[k][u] / total  # γ(u): the mass the discounts freed
            estimates.append(max(kept, 0.0) / total + weight_shorter * p_shorter)
        return estimates

    def logprob(self, word: str, context: Sequence[str] = ()) -> float:
        """Natural log of :meth:`prob`."""
        return math.log(self.prob(word, context))

    def token_probs(self, sentences: Sequence[Sequence[str]]) -> list[float]:
        """P(token | its context) for every predicted token of ``sentences`` (each word, then
        ``</s>``), in reading order: the order of :func:`course_rnn.models.bengio.ngram_pairs`."""
        self._check_fitted()
        check_sentences(sentences)
        n, probs = self.order, []
        for sentence in sentences:
            tokens = [*sentence, EOS]
            probs.extend(self.prob(w, tokens[max(0, i - n + 1) : i]) for i, w in enumerate(tokens))
        return probs

    def sentence_logprob(self, sentence: Sequence[str]) -> float:
        """log P(w1 … wk </s>), the sum of the log-probabilities of every predicted token."""
        tokens, n = [*sentence, EOS], self.order
        return sum(self.logprob(w, tokens[max(0, i - n + 1) : i]) for i, w in enumerate(tokens))

    def perplexity(self, sentences: Sequence[Sequence[str]]) -> float:
        """exp(−mean log-probability per predicted token), ``</s>`` included."""
        self._check_fitted()
        check_sentences(sentences)
        total = sum(self.sentence_logprob(s) for s in sentences)
        n_predicted = sum(len(s) + 1 for s in sentences)
        return math.exp(-total / n_predicted)

    def __repr__(self) -> str:
        fitted = f", |V|={len(self.vocabulary)}" if self.vocabulary else ", unfitted"
        return f"{type(self).__name__}(order={self.order}, discount={self.discount}{fitted})"


class ModifiedKneserNeyLM(KneserNeyLM):
    """Modified Kneser–Ney (Chen & Goodman): three discounts ``(D₁, D₂, D₃₊)`` per order.

    ``discounts=None`` estimates them from each order's count-of-counts
    (:func:`modified_discounts`); a triple uses the same three at every order; a mapping
    ``{order: triple}`` sets them per order (every order 1 … n). With ``D₁ = D₂ = D₃₊ = D`` the
    model *is* :class:`KneserNeyLM` with discount ``D``.

    >>> lm = ModifiedKneserNeyLM(order=2, discounts=(0.5, 1.0, 1.5))
    >>> lm = lm.fit([["the", "cat", "sat"], ["the", "cat", "ran"], ["the", "dog", "sat"]])
    >>> round(lm.prob("cat", ["the"]), 3)
    0.4
    """

    name = "modified Kneser–Ney"

    def __init__(self, order: int = 3,
                 discounts: Discounts | Mapping[int, Discounts] | None = None):
        super().__init__(order)
        if discounts is not None:
            per_order = discounts if isinstance(discounts, Mapping) else {
                k: discounts for k in range(1, order + 1)}
            if sorted(per_order) != list(range(1, order + 1)):
                raise ValueError(f"discounts per order must give orders 1..{order}, got "
                                 f"{sorted(per_order)}")
            discounts = {k: _check_discounts(v, k) for k, v in per_order.items()}
        self.fixed_discounts: dict[int, Discounts] | None = discounts

    def _discounts_of(self, order: int, counts: Counter[Ngram]) -> Discounts:
        if self.fixed_discounts is not None:
            return self.fixed_discounts[order]
        try:
            return modified_discounts(count_of_counts(counts.values()))
        except ValueError as err:
            raise ValueError(f"order {order}: {err}") from None

    def __repr__(self) -> str:
        if not self.vocabulary:
            return f"ModifiedKneserNeyLM(order={self.order}, unfitted)"
        shown = "; ".join(f"{k}: " + ", ".join(f"{d:.3f}" for d in self.discounts[k])
                          for k in sorted(self.discounts))
        return (f"ModifiedKneserNeyLM(order={self.order}, discounts {{{shown}}}, "
                f"|V|={len(self.vocabulary)})")


def _check_discounts(discounts, order: int) -> Discounts:
    """``(D₁, D₂, D₃₊)`` as floats, each ``0 < D_r ≤ r`` (so that no count goes negative and
    every context leaves some mass to the shorter one)."""
    ok = (isinstance(discounts, Sequence) and len(discounts) == 3
          and all(isinstance(d, (int, float)) and not isinstance(d, bool) for d in discounts))
    if not ok:
        raise ValueError(f"discounts of order {order} must be three numbers (D1, D2, D3+), "
                         f"got {discounts!r}")
    for r, d in enumerate(discounts, start=1):
        if not 0 < d <= r:
            raise ValueError(f"discount D{r}{'+' if r == 3 else ''} of order {order} must be in "
                             f"(0, {r}], got {d!r}")
    return tuple(float(d) for d in discounts)
