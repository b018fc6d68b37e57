"""Tabor (2011): two exponential-state-growth grammars and the automaton that reads the first.

Grammar 1 (Table 2) and Grammar 2 (Table 3) are small probabilistic context-free grammars in
which every right-hand side ends in an *optional* ``(S)``, present with probability 0.2::

    Grammar 1:  1.0 S -> A B C     1.0 A -> a (S)   1.0 B -> b (S)   1.0 C -> c (S)
    Grammar 2:  0.5 S -> A B       1.0 A -> a (S)   1.0 B -> b (S)
                0.5 S -> X Y       1.0 X -> x (S)   1.0 Y -> y (S)

so "a b c", "a a b c b c", "a b a a b c b c c" are sentences of Grammar 1. To process them a
machine must remember the *order* of the unfinished constituents (a stack over {A, B}), and the
number of distinct stack states grows exponentially with sentence length.

This module gives

* :class:`TaborGrammar1`, :class:`TaborGrammar2` – the grammars as :class:`Language` objects, with
  an *exact* ``next_distribution`` (the targets Tabor trained on: "the transition probabilities
  in an infinite training corpus"), and the paper's training and test corpora;
* :class:`PDDA1` – the pushdown dynamical automaton of Table 1, which recognises Grammar 1 by
  moving on a Sierpinski gasket in the plane (Figure 1);
* :func:`tabor_rmse` and :func:`tabor_percent_correct` – the two scores of Table 4. They take
  arrays of probabilities, so they work for any model.

They stay in one module (a little over the library's ≈ 450 lines): the grammars, the automaton
that reads Grammar 1 and the scores of Table 4 are the paper's §2–3, read in that order.

**Levels of recursion.** Tabor counts a sentence's "levels of recursion" as the number of ``S``
nodes in its derivation, i.e. ``len/3`` for Grammar 1 and ``len/2`` for Grammar 2 ("up to length
9 ... i.e. up to 3 levels of recursion"). With this reading the corpora of §3.2–3.3 reproduce the
word counts of Table 4 exactly: every sentence with ≤ 3 levels (training) has 129 words for
Grammar 1 and 276 for Grammar 2; every sentence with 4 or 5 levels (test: "lengths 12 to 15",
"8 to 10" – only 12, 15 and 8, 10 occur) has 4,755 and 15,232 words. The same count is the
``max_depth`` of :meth:`TaborGrammar.sample` and :meth:`TaborGrammar.sentences`. It is not the
*nesting depth* (the largest number of unfinished constituents at once, the height of the stack):
"a b c a b c" has 2 levels but depth 1, "a a b c b c" has 2 levels and depth 2.

**The end of a sentence.** Like every language of the course, a grammar predicts ``</s>`` where
a sentence may end. Tabor's corpus was a *stream* of sentences without an end marker, so his
targets put that probability on the first word of the next sentence: ``TaborGrammar1(
end_marker=False)`` gives those targets (only the next-word distributions change; sampling and
membership are the grammar's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from .base import (
    EOS,
    Language,
    Symbols,
    as_symbols,
    check_count,
    check_integer,
    check_length,
    check_positive,
    make_rng,
)

#: The deepest recursion :meth:`TaborGrammar.sentences` enumerates: every sentence up to 8 levels
#: is 52,787 of Grammar 1 and 431,058 of Grammar 2 (22 s), and each further level multiplies
#: them by about six (the course uses up to 5).
MAX_ENUMERATED_DEPTH = 8
#: The deepest :meth:`PDDA1.stack_map`: 2**(depth + 1) - 1 points (the course draws up to 7).
MAX_STACK_MAP_DEPTH = 20

Stack = tuple[str, ...]  # pending grammar items, top of stack LAST


# ---------------------------------------------------------------------------------------------
# The grammars
# ---------------------------------------------------------------------------------------------


class TaborGrammar(Language):
    """A PCFG written as in Tabor's tables: ``rules[lhs] = [(probability, "rhs"), ...]`` where a
    right-hand side is a space-separated list of terminals, nonterminals and optional
    nonterminals in parentheses, e.g. ``"a (S)"``. An optional constituent is present with
    probability ``optional_probability``.

    Subclasses set ``name``, ``alphabet``, ``rules`` and the paper's corpus levels.
    """

    start = "S"
    rules: dict[str, list[tuple[float, str]]] = {}
    optional_probability = 0.2
    train_levels: int = 3  # "up to 3 levels of recursion" (§3.2)
    test_levels: tuple[int, int] = (4, 5)  # "novel sentences with <= 5 levels of recursion" (§3.3)
    words_per_level: int = 1

    def __init__(self, end_marker: bool = True):
        if not isinstance(end_marker, bool):
            raise TypeError(f"end_marker must be True or False, got {end_marker!r}")
        # "a (S)" -> ("a", "(S)"): the parenthesised item is the optional S.
        self._rules = {
            lhs: [(p, tuple(rhs.split())) for p, rhs in alternatives]
            for lhs, alternatives in self.rules.items()
        }
        self.end_marker = end_marker
        if not end_marker:
            self.name = f"{type(self).name}-stream"
        self._distributions: dict[Symbols, dict[str, float]] = {}  # prefix -> next-word dist.

    # -- grammar items ---------------------------------------------------------------------
    @staticmethod
    def _is_optional(item: str) -> bool:
        return item.startswith("(")

    def _is_terminal(self, item: str) -> bool:
        return item in self.alphabet

    # -- generating ------------------------------------------------------------------------
    def sample(
        self,
        n: int,
        seed: int | np.random.Generator | None = None,
        max_depth: int | None = None,
    ) -> list[Symbols]:
        """``n`` sentences drawn from the PCFG. With ``max_depth`` the draw is conditioned on
        having at most that many levels of recursion (rejection sampling, so the relative
        probabilities of the allowed sentences are the grammar's)."""
        n = check_count(n)
        if max_depth is not None:
            max_depth = check_length(max_depth, "max_depth")
        rng = make_rng(seed)
        out: list[Symbols] = []
        while len(out) < n:
            sentence, levels = self._generate(rng)
            if max_depth is None or levels <= max_depth:
                out.append(sentence)
        return out

    def _generate(self, rng: np.random.Generator) -> tuple[Symbols, int]:
        """One top-down, left-to-right derivation; returns the sentence and its S count."""
        words: list[str] = []
        levels = 0
        stack: list[str] = [self.start]
        while stack:
            item = stack.pop()
            if self._is_terminal(item):
                words.append(item)
            elif self._is_optional(item):
                if rng.random() < self.optional_probability:
                    stack.append(item[1:-1])
            else:
                levels += item == self.start
                alternatives = self._rules[item]
                k = rng.choice(len(alternatives), p=[p for p, _ in alternatives])
                stack.extend(reversed(alternatives[k][1]))
        return tuple(words), levels

    def sentences(self, max_depth: int, min_depth: int = 1) -> list[Symbols]:
        """Every sentence with ``min_depth``..``max_depth`` levels of recursion, shortest first
        then alphabetical. ``sentences(3)`` is the paper's training corpus."""
        max_depth = check_integer(max_depth, "max_depth", 1, MAX_ENUMERATED_DEPTH)
        min_depth = check_positive(min_depth, "min_depth")
        found = {
            words
            for words, levels in self._derivations((self.start,), max_depth)
            if levels >= min_depth
        }
        return sorted(found, key=lambda words: (len(words), words))

    def _derivations(self, items: Sequence[str], budget: int) -> Iterator[tuple[Symbols, int]]:
        """Every (terminal string, S count) derivable from ``items`` with at most ``budget`` S's."""
        if not items:
            yield (), 0
            return
        for head, used in self._item_derivations(items[0], budget):
            for rest, more in self._derivations(items[1:], budget - used):
                yield head + rest, used + more

    def _item_derivations(self, item: str, budget: int) -> Iterator[tuple[Symbols, int]]:
        if self._is_terminal(item):
            yield (item,), 0
        elif self._is_optional(item):
            yield (), 0
            yield from self._item_derivations(item[1:-1], budget)
        else:
            cost = int(item == self.start)
            if cost > budget:
                return
            for _, rhs in self._rules[item]:
                for words, used in self._derivations(rhs, budget - cost):
                    yield words, used + cost

    def training_corpus(self) -> list[Symbols]:
        """§3.2: one instance of every sentence with up to ``train_levels`` levels of recursion."""
        return self.sentences(self.train_levels)

    def test_corpus(self) -> list[Symbols]:
        """§3.3: every sentence with ``test_levels`` levels of recursion (novel, longer ones)."""
        low, high = self.test_levels
        return self.sentences(high, min_depth=low)

    def recursion_level(self, sentence: str | Iterable[str]) -> int:
        """Levels of recursion of a sentence: its number of S nodes (each S yields
        ``words_per_level`` words)."""
        return len(self.symbols(sentence)) // self.words_per_level

    # -- exact prefix probabilities ----------------------------------------------------------
    # A left-to-right parser state is a stack of pending items. We keep *every* stack the
    # prefix can leave behind, with its probability, and expand nonterminals and optional
    # items until a terminal (or nothing) is on top. The terminals on top are then exactly the
    # possible next words, and their summed probabilities the exact next-word distribution.

    def _expand(self, stack: Stack, prob: float) -> Iterator[tuple[Stack, float]]:
        """Stacks with a terminal on top (or empty), reachable from ``stack`` without reading."""
        if not stack or self._is_terminal(stack[-1]):
            yield stack, prob
            return
        item, rest = stack[-1], stack[:-1]
        if self._is_optional(item):
            q = self.optional_probability
            yield from self._expand(rest, prob * (1 - q))  # the optional S is absent
            yield from self._expand(rest + (item[1:-1],), prob * q)  # ... or present
        else:
            for p, rhs in self._rules[item]:
                yield from self._expand(rest + tuple(reversed(rhs)), prob * p)

    def _frontier(self, prefix: Symbols) -> dict[Stack, float]:
        """Expanded parser stacks after reading ``prefix``, with P(prefix, stack)."""
        stacks: dict[Stack, float] = dict(self._expand((self.start,), 1.0))
        for word in prefix:
            after: dict[Stack, float] = defaultdict(float)
            for stack, prob in stacks.items():
                if stack and stack[-1] == word:
                    for expanded, p in self._expand(stack[:-1], prob):
                        after[expanded] += p
            stacks = dict(after)
        return stacks

    def _next_weights(self, prefix: Symbols) -> dict[str, float]:
        weights: dict[str, float] = defaultdict(float)
        for stack, prob in self._frontier(prefix).items():
            weights[stack[-1] if stack else EOS] += prob
        return dict(weights)

    def next_distribution(self, prefix: str | Iterable[str]) -> dict[str, float]:
        """Exact P(next word | prefix) under the PCFG, over the alphabet and EOS (sums to 1).

        With ``end_marker=False`` (Tabor's stream of sentences) the probability of ``</s>``
        goes to the first word of the next sentence: P(w) += P(</s>) P(w | nothing read), and
        ``</s>`` gets 0. Raises ``ValueError`` when ``prefix`` cannot begin a sentence.
        """
        prefix = self.symbols(prefix)
        if prefix not in self._distributions:  # cached: the exact parser is slow on long corpora
            dist = self._exact_distribution(prefix)
            if not self.end_marker and dist[EOS] > 0:
                first = self._exact_distribution(())
                dist = {s: dist[s] + dist[EOS] * first[s] for s in self.alphabet} | {EOS: 0.0}
            self._distributions[prefix] = dist
        return dict(self._distributions[prefix])

    def _exact_distribution(self, prefix: Symbols) -> dict[str, float]:
        weights = self._next_weights(prefix)
        total = sum(weights.values())
        if total <= 0:
            raise ValueError(f"{' '.join(prefix)!r} is not a prefix of any {self.name} sentence")
        return {s: weights.get(s, 0.0) / total for s in (*self.alphabet, EOS)}

    def valid_next(self, prefix: str | Iterable[str]) -> frozenset[str]:
        return frozenset(s for s, p in self._next_weights(self.symbols(prefix)).items() if p > 0)

    def is_member(self, seq: str | Iterable[str]) -> bool:
        return EOS in self.valid_next(seq)

    def distribution_table(
        self, sentence: str | Iterable[str], symbols: Sequence[str] | None = None
    ) -> np.ndarray:
        """``[len+1, len(symbols)]``: row ``t`` is the exact distribution after the first ``t``
        words (row 0: before any word), over ``symbols`` (default: EOS then the alphabet, the
        order of :attr:`Vocab.output_symbols`). Symbols outside the grammar get probability 0."""
        sentence = self.symbols(sentence)
        symbols = (EOS, *self.alphabet) if symbols is None else tuple(symbols)
        table = np.zeros((len(sentence) + 1, len(symbols)))
        for t in range(len(sentence) + 1):
            dist = self.next_distribution(sentence[:t])
            table[t] = [dist.get(s, 0.0) for s in symbols]
        return table


class TaborGrammar1(TaborGrammar):
    """Table 2: ``S -> A B C; A -> a (S); B -> b (S); C -> c (S)`` (optional S: p = 0.2)."""

    name = "tabor1"
    alphabet = ("a", "b", "c")
    rules = {
        "S": [(1.0, "A B C")],
        "A": [(1.0, "a (S)")],
        "B": [(1.0, "b (S)")],
        "C": [(1.0, "c (S)")],
    }
    words_per_level = 3


class TaborGrammar2(TaborGrammar):
    """Table 3: ``S -> A B (0.5) | X Y (0.5); A -> a (S); B -> b (S); X -> x (S); Y -> y (S)``."""

    name = "tabor2"
    alphabet = ("a", "b", "x", "y")
    rules = {
        "S": [(0.5, "A B"), (0.5, "X Y")],
        "A": [(1.0, "a (S)")],
        "B": [(1.0, "b (S)")],
        "X": [(1.0, "x (S)")],
        "Y": [(1.0, "y (S)")],
    }
    words_per_level = 2


# ---------------------------------------------------------------------------------------------
# The pushdown dynamical automaton of Table 1
# ---------------------------------------------------------------------------------------------


class PDDA1:
    """Pushdown Dynamical Automaton 1 (Table 1): a recogniser for Grammar 1 whose state is a
    point ``z = (z1, z2)`` of the plane. It starts at the origin and reads

    ====================  =====  ==========================
    compartment           input  state change
    ====================  =====  ==========================
    z1 < 0 and z2 < 0     b      z <- z + (0, 2)
    z1 < 0 and z2 > 0     c      z <- 2 (z + (1, -1))
    anywhere              a      z <- z / 2 + (-1, -1)
    ====================  =====  ==========================

    Reading ``a`` *pushes* (halves the scale: a new, smaller copy of the gasket), ``b``
    *exchanges* the top of the stack (jumps to the other branch at the same scale) and ``c``
    *pops* (doubles the scale back). A sentence is accepted when every word can be read and the
    automaton ends back at the origin. States are dyadic rationals, so float64 arithmetic is
    exact up to about 50 levels of embedding.

    :meth:`step` raises ``ValueError`` when a word's compartment condition fails (the automaton
    has no move); :meth:`accepts` turns that into ``False``.
    """

    alphabet = ("a", "b", "c")
    origin = (0.0, 0.0)

    # -- the input map -----------------------------------------------------------------------
    @staticmethod
    def can_read(z: Sequence[float], symbol: str) -> bool:
        """Is ``z`` in the compartment where ``symbol`` may be read (Table 1, first column)?"""
        z1, z2 = z
        if symbol == "a":
            return True
        if symbol == "b":
            return z1 < 0 and z2 < 0
        if symbol == "c":
            return z1 < 0 and z2 > 0
        raise ValueError(f"symbol {symbol!r} is not in the alphabet of PDDA 1: a b c")

    def step(self, z: Sequence[float], symbol: str) -> np.ndarray:
        """The state after reading ``symbol`` at ``z`` (Table 1, third column)."""
        try:
            point = np.asarray(z, dtype=float)
        except (TypeError, ValueError):
            point = None
        if point is None or point.shape != (2,) or not np.isfinite(point).all():
            raise ValueError(f"z, a PDDA 1 state, must be a point (z1, z2) of two finite "
                             f"numbers, got {z!r:.60}")
        z = point
        if not self.can_read(z, symbol):
            where = "z1 < 0 and z2 < 0" if symbol == "b" else "z1 < 0 and z2 > 0"
            raise ValueError(
                f"PDDA 1 cannot read {symbol!r} at z = ({z[0]:g}, {z[1]:g}): "
                f"Table 1 requires {where}"
            )
        if symbol == "a":
            return z / 2 + np.array([-1.0, -1.0])  # push
        if symbol == "b":
            return z + np.array([0.0, 2.0])  # exchange
        return 2 * (z + np.array([1.0, -1.0]))  # pop

    # -- running it ----------------------------------------------------------------------------
    def _words(self, sentence: str | Iterable[str]) -> Symbols:
        words = as_symbols(sentence)
        for i, w in enumerate(words):
            if w not in self.alphabet:
                raise ValueError(f"symbol {w!r} at position {i} is not in the alphabet a b c")
        return words

    def trajectory(self, sentence: str | Iterable[str]) -> np.ndarray:
        """``[len+1, 2]`` states visited: the origin, then the state after each word (Fig. 1b).
        Raises ``ValueError`` at the first word the automaton cannot read."""
        z = np.zeros(2)
        states = [z]
        for word in self._words(sentence):
            z = self.step(z, word)
            states.append(z)
        return np.stack(states)

    def accepts(self, sentence: str | Iterable[str]) -> bool:
        """True when every word can be read and the automaton returns to the origin.
        The empty string is rejected: a sentence has at least one word."""
        words = self._words(sentence)
        z = np.zeros(2)
        for word in words:
            if not self.can_read(z, word):
                return False
            z = self.step(z, word)
        return bool(words) and not z.any()

    # -- the stack map -------------------------------------------------------------------------
    def stack_map(self, depth: int) -> dict[str, np.ndarray]:
        """Figure 1a: the point of every stack state in {A, B}^k, k = 0..depth (top of stack is
        the rightmost letter, "" is the empty stack at the origin).

        Pushing A is reading ``a``; B replaces A on top when ``b`` is read, so
        ``point(wA) = point(w)/2 + (-1, -1)`` and ``point(wB) = point(wA) + (0, 2)``.
        """
        depth = check_integer(depth, "depth", 0, MAX_STACK_MAP_DEPTH)  # 2**(depth + 1) - 1 points
        points = {"": np.zeros(2)}
        layer = [""]
        for _ in range(depth):
            next_layer = []
            for stack in layer:
                pushed = self.step(points[stack], "a")
                points[stack + "A"] = pushed
                points[stack + "B"] = self.step(pushed, "b")
                next_layer += [stack + "A", stack + "B"]
            layer = next_layer
        return points


# ---------------------------------------------------------------------------------------------
# Table 4's scores (model-agnostic: they take arrays of probabilities)
# ---------------------------------------------------------------------------------------------


def _as_rows(array, name: str) -> np.ndarray:
    if hasattr(array, "detach"):  # a torch tensor
        array = array.detach().cpu().numpy()
    array = np.asarray(array, dtype=float)
    if array.ndim < 1 or array.shape[-1] == 0:
        raise ValueError(f"{name} must have a last axis of symbols, got shape {array.shape}")
    return array.reshape(-1, array.shape[-1])


def _positions(probs, targets, mask) -> tuple[np.ndarray, np.ndarray]:
    """Flatten ``[..., K]`` arrays to ``[N, K]`` rows, keeping the rows where ``mask`` is True."""
    p, t = _as_rows(probs, "probs"), _as_rows(targets, "targets")
    if p.shape != t.shape:
        raise ValueError(f"probs and targets differ in shape: {p.shape} vs {t.shape}")
    if mask is not None:
        if hasattr(mask, "detach"):
            mask = mask.detach().cpu().numpy()
        keep = np.asarray(mask, dtype=bool).reshape(-1)
        if keep.shape[0] != p.shape[0]:
            raise ValueError(f"mask has {keep.shape[0]} positions, probs have {p.shape[0]}")
        p, t = p[keep], t[keep]
    if len(p) == 0:
        raise ValueError("no positions to score")
    return p, t


def tabor_rmse(probs, targets, mask=None) -> float:
    """Root mean squared error between predicted and exact next-word distributions,
    ``sqrt(mean over positions and symbols of (o_i - t_i)^2)`` (Table 4, "RMSE").

    ``probs`` and ``targets`` are ``[..., K]`` arrays over the same K symbols – pass only the
    symbols that can come next (EOS and the alphabet), so that ``<pad>``/``<s>`` columns do not
    dilute the mean. ``mask`` (``[...]``, bool) selects the real positions.
    """
    p, t = _positions(probs, targets, mask)
    return float(np.sqrt(np.mean((p - t) ** 2)))


def tabor_percent_correct(probs, targets, mask=None, candidates=None) -> float:
    """Tabor's closest-distribution correctness, in percent (Table 4, "% Cor.").

    A position is correct when the output is *strictly* closer (Euclidean distance) to the
    correct distribution than to any other distribution "associated with a symbol transition
    in the corpus" (§1). ``candidates`` (``[M, K]``) are those distributions; by default the
    distinct rows of ``targets`` (after ``mask``), i.e. every distribution the corpus produces.
    """
    p, t = _positions(probs, targets, mask)
    if candidates is None:
        candidates = np.unique(np.round(t, 9), axis=0)
    candidates = _as_rows(candidates, "candidates")
    if candidates.shape[1] != p.shape[1]:
        raise ValueError(f"candidates have {candidates.shape[1]} symbols, probs {p.shape[1]}")
    to_correct = np.linalg.norm(p - t, axis=1)
    to_candidates = np.linalg.norm(p[:, None, :] - candidates[None, :, :], axis=2)  # [N, M]
    is_target = np.all(np.isclose(candidates[None, :, :], t[:, None, :], atol=1e-9), axis=2)
    to_others = np.where(is_target, np.inf, to_candidates).min(axis=1)
    return float(100.0 * np.mean(to_correct < to_others))
