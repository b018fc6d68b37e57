"""Interpolated Kneser–Ney: the count-based n-gram model that Bengio et al. (2003) had to beat.

An n-gram model predicts a word from the ``n - 1`` words before it. Counting alone gives zero
probability to every n-gram the training text never showed, so Kneser–Ney *discounts* every
seen count by a constant ``D`` and hands the mass it frees to the next shorter context:

    P(w | u) = max(c(u w) − D, 0) / c(u •)  +  D · N₁₊(u •) / c(u •) · P(w | u′)

where ``u`` is the context, ``u′`` is ``u`` without its oldest word, ``c(u •)`` is the total count
of ``u`` as a context and ``N₁₊(u •)`` the number of different words seen after it (so the
second term's weight is exactly the mass taken away by the discount).

The Kneser–Ney idea is what the *shorter* contexts count. They are only consulted when the
longer context is rare, so they should predict words that turn up in many different contexts,
not merely often: "Francisco" is frequent, but nearly always after "San". So below the top order
a raw count c(u w) is replaced by the *continuation count* N₁₊(• u w), the number of different
words seen just before ``u w``. At the bottom, the unigram level is interpolated with the uniform
distribution over the vocabulary ``V``, so that every word, ``<unk>`` included, keeps some mass:

    P(w) = max(N₁₊(• w) − D, 0) / N₁₊(• •)  +  D · |{w : N₁₊(• w) > 0}| / N₁₊(• •) · 1/|V|

This is the *standard interpolated* Kneser–Ney of Chen & Goodman (1998), with one discount
``D`` for all orders and counts (their "modified" variant uses three discounts per order).

Sentence boundaries: every sentence is read as ``<s> … <s> w1 … wk </s>`` with ``n - 1`` start
symbols, and the model predicts each word and the end ``</s>`` (never ``<s>``). Perplexity is
per predicted token, ``</s>`` included, as in :func:`course_rnn.models.bengio.perplexity`.
Words outside the vocabulary are read as ``<unk>``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from ..corpus import UNK, check_sentences
from ..languages.base import EOS
from ..languages.vocab import BOS, PAD

Ngram = tuple[str, ...]


class KneserNeyLM:
    """An interpolated Kneser–Ney n-gram language model over words.

    >>> lm = KneserNeyLM(order=3).fit([["the", "cat", "sat"], ["the", "dog", "sat"]])
    >>> round(lm.prob("sat", ["the", "cat"]), 3)
    0.613
    """

    def __init__(self, order: int = 3, discount: float = 0.75):
        if isinstance(order, bool) or not isinstance(order, int) or order < 1:
            raise ValueError(f"order must be a positive integer (1 = unigram), got {order!r}")
        if not 0 < discount <= 1:
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

        # per context u: its total c(u •) and its number of distinct followers N₁₊(u •)
        self.context_total: dict[int, dict[Ngram, int]] = {}
        self.context_types: dict[int, dict[Ngram, int]] = {}
        for k, counts in self.counts.items():
            total: dict[Ngram, int] = defaultdict(int)
            types: dict[Ngram, int] = defaultdict(int)
            for gram, count in counts.items():
                total[gram[:-1]] += count
                types[gram[:-1]] += 1
            self.context_total[k], self.context_types[k] = dict(total), dict(types)
        return self

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
        d = self.discount
        estimates = [1.0 / len(self.vocabulary)]  # order 0: uniform over the vocabulary
        for k in range(1, self.order + 1):
            u = context[len(context) - (k - 1) :]  # the last k−1 tokens
            p_shorter = estimates[-1]
            total = self.context_total[k].get(u)
            if total is None:  # context never seen: all its mass goes to the shorter one
                estimates.append(p_shorter)
                continue
            count = self.counts[k].get(u + (word,), 0)
            weight_shorter = d * self.context_types[k][u] / total  # the mass the discount freed
            estimates.append(max(count - d, 0.0) / total + weight_shorter * p_shorter)
        return estimates

    def logprob(self, word: str, context: Sequence[str] = ()) -> float:
        """Natural log of :meth:`prob`."""
        return math.log(self.prob(word, context))

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
        return f"KneserNeyLM(order={self.order}, discount={self.discount}{fitted})"
