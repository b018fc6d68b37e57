"""Generalised Dyck languages: well-nested strings over k kinds of bracket.

A string is a member when every closing bracket closes the most recent unclosed opening
bracket *of the same kind*, and nothing is left open: ``{([])}<>`` is a member, ``<)`` and
``((`` are not, and so is the empty string (it has nothing to close).

The Dyck language is the course's idealised agreement task (Bernardy & Lappin 2023, §4):
an opening bracket plays a subject noun, its closing bracket the verb that agrees with it,
and the brackets of *other* kinds opened in between play the **attractors** that may lure
a model into the wrong agreement.

Pictures used throughout: a string is a lattice path that steps up at every opening bracket
and down at every closing one. Its height after ``t`` symbols is the number of brackets still
open (the stack height); members are the paths that start and end at height 0 and never go
below it. The **depth** of a string is the highest point of its path.

The sampler follows the seeds' experiment (GU-CLASP/unitary-recurrent-network, ``dyck.py``
and ``generator2.py``): strings of exactly ``length`` symbols; the training set goes through
a point of depth exactly 3 and never deeper; the test set is unconstrained. The path is
drawn first, then each bracket pair gets a kind uniformly at random. The seeds draw the path
by splitting it at random midpoints (not uniform over paths); our default draws it uniformly
by counting paths, and ``method="seeds"`` replays the seeds' midpoint recursion. The two differ
most in how deep unconstrained strings go: at length 20, uniform paths have depth 3–6 nine
times in ten and reach 8 or more about once in a hundred, while the seeds' recursion spreads
them over 1–10 (about 1 in 6 at depth 8 or more) – which is where "test depths 1–10" comes from.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from .base import EOS, Language, Symbols, check_count, check_length, make_rng

#: The five pairs of the seed experiments, in their order.
DEFAULT_PAIRS = "() [] {} <> +-"


def parse_pairs(pairs: str | int | Iterable) -> tuple[tuple[str, str], ...]:
    """Bracket pairs from ``"() []"``, from a count of the default pairs, or from a list of
    2-character strings / (opener, closer) tuples. Raises ValueError on a bad spec."""
    if isinstance(pairs, bool):
        raise TypeError("pairs must be a string, an int or a list of pairs, not a bool")
    if isinstance(pairs, (int, np.integer)):
        default = parse_pairs(DEFAULT_PAIRS)
        if not 1 <= pairs <= len(default):
            raise ValueError(
                f"n_pairs must be between 1 and {len(default)} (the default pairs "
                f"{DEFAULT_PAIRS!r}); pass a list of pairs for more, got {pairs}"
            )
        return default[: int(pairs)]
    if not isinstance(pairs, (str, Iterable)):
        raise TypeError(f"pairs must be a string, an int or a list of pairs, got {pairs!r}")
    items = pairs.split() if isinstance(pairs, str) else list(pairs)
    if not items:
        raise ValueError("a Dyck language needs at least one bracket pair")
    parsed = []
    for item in items:
        if isinstance(item, str) and len(item) == 2:
            item = (item[0], item[1])
        if not (isinstance(item, (tuple, list)) and len(item) == 2
                and all(isinstance(s, str) and s and not s.isspace() for s in item)):
            raise ValueError(
                f"bad bracket pair {item!r}: give a 2-character string like '()' or a tuple "
                "(opener, closer) of non-blank symbols"
            )
        parsed.append((item[0], item[1]))
    symbols = [s for pair in parsed for s in pair]
    repeated = sorted({s for s in symbols if symbols.count(s) > 1})
    if repeated:
        raise ValueError(f"pairs: bracket symbols must all be distinct; repeated: {repeated}")
    if EOS in symbols:
        raise ValueError(f"{EOS!r} is reserved for end of string and cannot be a bracket")
    return tuple(parsed)


class Dyck(Language):
    """The generalised Dyck language over k bracket pairs (5 by default, like the seeds).

    ``Dyck()`` uses ``() [] {} <> +-``; ``Dyck(2)`` the first two; ``Dyck("()")`` or
    ``Dyck([("(", ")"), ("[", "]")])`` any pairs you like. The alphabet lists each opener
    next to its closer: ``( ) [ ] { } < > + -``.
    """

    def __init__(self, pairs: str | int | Iterable = DEFAULT_PAIRS):
        self.pairs = parse_pairs(pairs)
        self.alphabet: Symbols = tuple(s for pair in self.pairs for s in pair)
        self.name = f"Dyck-{len(self.pairs)}"
        self._openers = tuple(o for o, _ in self.pairs)
        self._closers = tuple(c for _, c in self.pairs)
        self._partner = {o: c for o, c in self.pairs} | {c: o for o, c in self.pairs}

    @property
    def openers(self) -> Symbols:
        return self._openers

    @property
    def closers(self) -> Symbols:
        return self._closers

    def partner(self, symbol: str) -> str:
        """The other half of ``symbol``'s pair: ``partner("(") == ")"`` and back."""
        try:
            return self._partner[symbol]
        except KeyError:
            raise ValueError(
                f"{symbol!r} is not a bracket of {self.name}: {' '.join(self.alphabet)}"
            ) from None

    def __repr__(self) -> str:
        return f"Dyck({' '.join(o + c for o, c in self.pairs)!r})"

    # -- reading a string: one pass with a stack -------------------------------------------
    def _match(self, seq) -> tuple[Symbols, list[int], list[int]]:
        """Check that ``seq`` is a prefix of a member and pair up its brackets.

        Returns the symbols, ``match`` (for each position: the position of its partner,
        -1 while still open) and ``height`` (the stack height *before* each symbol).
        Raises ValueError at the first closing bracket with nothing, or the wrong kind, to close.
        """
        symbols = self.symbols(seq)
        closers = set(self.closers)
        stack: list[int] = []
        match = [-1] * len(symbols)
        height = []
        for i, s in enumerate(symbols):
            height.append(len(stack))
            if s not in closers:
                stack.append(i)
                continue
            if not stack:
                raise ValueError(f"closing {s!r} at position {i} has nothing to close")
            j = stack.pop()
            if symbols[j] != self.partner(s):
                raise ValueError(f"closing {s!r} at position {i} cannot close {symbols[j]!r}")
            match[i], match[j] = j, i
        return symbols, match, height

    def _open_stack(self, symbols: Symbols) -> list[str] | None:
        """The unclosed openers after ``symbols``, or None if it is not a prefix of a member."""
        stack: list[str] = []
        closers = set(self.closers)
        for s in symbols:
            if s not in closers:
                stack.append(s)
            elif stack and stack[-1] == self.partner(s):
                stack.pop()
            else:
                return None
        return stack

    def is_member(self, seq) -> bool:
        return self._open_stack(self.symbols(seq)) == []

    def valid_next(self, prefix) -> frozenset[str]:
        """Any opener (the language is unbounded), the closer of the innermost open bracket,
        and EOS when nothing is open."""
        stack = self._open_stack(self.symbols(prefix))
        if stack is None:
            return frozenset()
        if not stack:
            return frozenset(self.openers) | {EOS}
        return frozenset(self.openers) | {self.partner(stack[-1])}

    # -- measurements on strings (also valid on prefixes of members) -----------------------
    def depth(self, seq) -> int:
        """Maximum nesting depth: the highest the stack of open brackets gets.

        ``{{}}`` → 2 and ``{({})}`` → 3. This is the seeds' code convention (a point (i, j)
        of the lattice path, i brackets opened and j closed, has depth i − j). The 2023
        paper's text says ``{({})}`` has depth 4, which counts differently; we follow the code.
        """
        symbols, _, height = self._match(seq)
        opens = [h + 1 for h, s in zip(height, symbols) if s in self.openers]
        return max(opens, default=0)

    def outer_depths(self, seq) -> list[int]:
        """For each closing bracket, in string order, the **outer depth** of its pair: the
        stack height just before it closes, itself included (an outermost pair has depth 1).
        ``(())`` → [2, 1]. How deep in the stack the pair sits; the papers never measure it."""
        symbols, _, height = self._match(seq)
        return [h for h, s in zip(height, symbols) if s in self.closers]

    #: The older name of :meth:`outer_depths` (chapter 0 uses it).
    closing_depths = outer_depths

    def attractors(self, seq) -> list[int]:
        """For each closing bracket, in string order, its number of attractors: the opening
        brackets of *another* kind opened between its partner and it (already-closed ones
        count). ``([])`` → [0, 1]; ``(())`` → [0, 0]; ``({}[])`` → [0, 0, 2].

        The seeds' ``countAttractors`` (generator2.py), the Dyck analogue of Linzen et al.'s
        nouns of the other number between subject and verb.
        """
        symbols, match, _ = self._match(seq)
        counts = []
        for i, s in enumerate(symbols):
            if s in self.closers:
                between = symbols[match[i] + 1 : i]
                counts.append(sum(b in self.openers and b != self.partner(s) for b in between))
        return counts

    def inner_depths(self, seq) -> list[int]:
        """For each closing bracket, the **inner nesting** of its pair: how deep the nesting
        goes *inside* it (0 for ``()``; ``(())`` → [0, 1]). The seeds' ``parenDepths``
        ("nesting" in their logs), and so what the papers mean by nesting depth when they
        report accuracy "without any decline in relation to ... nesting depth"."""
        symbols, match, height = self._match(seq)
        inner = []
        for i, s in enumerate(symbols):
            if s in self.closers:
                j = match[i]
                inner.append(max(height[j + 1 : i + 1]) - height[j] - 1)
        return inner

    # -- sampling ----------------------------------------------------------------------------
    def sample(
        self,
        n: int,
        seed: int | np.random.Generator | None = None,
        length: int = 20,
        depth: int | None = None,
        max_depth: int | None = None,
        method: str = "uniform",
    ) -> list[Symbols]:
        """``n`` member strings of exactly ``length`` symbols.

        ``depth=d``: maximum depth exactly d (the seeds' training set: length 20, depth 3).
        ``max_depth=d``: depth at most d. Neither: any depth (the seeds' test set).
        ``method="uniform"`` draws the bracket path uniformly among the allowed paths;
        ``method="seeds"`` replays the seeds' random-midpoint recursion. Either way each pair
        then gets a kind uniformly at random.
        """
        n = check_count(n)
        length, cap, exact = _check_shape(length, depth, max_depth)
        rng = make_rng(seed)
        if method == "uniform":
            steps = _uniform_paths(n, length, cap, exact, rng)
        elif method == "seeds":
            steps = _seeds_paths(n, length, cap, exact, rng)
        else:
            raise ValueError(f"unknown method {method!r}: choose 'uniform' or 'seeds'")
        codes = _assign_kinds(steps, len(self.pairs), rng)
        symbols = np.array(self.alphabet, dtype=object)[codes]
        return [tuple(row) for row in symbols.tolist()]

    def count(self, length: int, depth: int | None = None, max_depth: int | None = None) -> int:
        """How many bracket *paths* of ``length`` meet the depth constraint (multiply by
        k^(length/2) for strings). ``count(20)`` is the Catalan number C_10 = 16796."""
        length, cap, exact = _check_shape(length, depth, max_depth)
        return _path_counts(length, cap, exact)[0][0][_start_flag(cap, exact)]


# -- the samplers' machinery ------------------------------------------------------------------
def _check_shape(length, depth, max_depth) -> tuple[int, int, bool]:
    """Validate a sampling request; return (length, height cap, must the cap be reached)."""
    length = check_length(length, "length", 0)
    if length % 2:
        raise ValueError(f"Dyck strings have even length, got length={length}")
    if depth is not None and max_depth is not None:
        raise ValueError("give depth (exact) or max_depth (upper bound), not both")
    half = int(length) // 2
    bound = depth if depth is not None else max_depth
    what = "depth" if depth is not None else "max_depth"
    if bound is None:
        return int(length), half, False
    check_length(bound, what, 0)
    if bound == 0 and length > 0:
        raise ValueError(f"a non-empty Dyck string has depth at least 1, got {what}=0")
    if depth is not None and depth > half:
        raise ValueError(
            f"no Dyck string of length {length} has depth {depth}: the depth is at most "
            f"length/2 = {half}"
        )
    return int(length), min(int(bound), half), depth is not None


def _start_flag(cap: int, exact: bool) -> int:
    """1 when the depth requirement is already met at the start (none, or depth 0)."""
    return 0 if exact and cap > 0 else 1


@lru_cache(maxsize=64)
def _path_counts(length: int, cap: int, exact: bool) -> list:
    """ways[t][h][r]: the number of ways to finish a path from height h after t steps,
    staying within [0, cap] and ending at 0; r = 1 once the path has touched ``cap``
    (only required when ``exact``). Python ints, so no overflow at any length."""
    ways = [[[0, 0] for _ in range(cap + 2)] for _ in range(length + 1)]
    ways[length][0] = [0 if exact else 1, 1]
    for t in range(length - 1, -1, -1):
        for h in range(cap + 1):
            for r in (0, 1):
                up = ways[t + 1][h + 1][1 if h + 1 == cap else r] if h < cap else 0
                down = ways[t + 1][h - 1][r] if h > 0 else 0
                ways[t][h][r] = up + down
    return ways


def _uniform_paths(n, length, cap, exact, rng) -> np.ndarray:
    """``n`` paths drawn uniformly among those allowed: at each step go up with probability
    (ways to finish after going up) / (ways to finish from here). Returns ±1 steps [n, length].
    All ``n`` paths advance together, one numpy step per position."""
    ways = _path_counts(length, cap, exact)
    p_up = np.zeros((max(length, 1), cap + 1, 2))
    for t in range(length):
        for h in range(cap + 1):
            for r in (0, 1):
                if ways[t][h][r] and h < cap:
                    p_up[t, h, r] = ways[t + 1][h + 1][1 if h + 1 == cap else r] / ways[t][h][r]
    height = np.zeros(n, dtype=np.int64)
    touched = np.full(n, _start_flag(cap, exact), dtype=np.int64)
    steps = np.empty((n, length), dtype=np.int8)
    for t in range(length):
        up = rng.random(n) < p_up[t, height, touched]
        steps[:, t] = np.where(up, 1, -1)
        height += steps[:, t]
        touched |= height == cap
    return steps


def _seeds_paths(n, length, cap, exact, rng) -> np.ndarray:
    """The seeds' generator (generator2.py): a path from (0, 0) to (N, N) in the grid of
    (opened, closed) counts, split at a random midpoint, recursively. For an exact depth the
    first midpoint is a random point of depth exactly ``cap``. Returns ±1 steps [n, length]."""
    py = random.Random(int(rng.integers(2**63)))
    half = length // 2

    def path(p0, p1, out: list[int]) -> None:  # the seeds' gen_path_below(cap, p0, p1)
        (i0, j0), (i1, j1) = p0, p1
        if i0 == i1:
            out.extend([-1] * (j1 - j0))  # only closing left (or nothing at all)
        elif j0 == j1:
            out.extend([1] * (i1 - i0))  # only opening left
        else:
            j = py.randint(j0, j1)
            i = py.randint(max(i0, j), min(i1, cap + j))  # on or under the diagonal, ≤ cap
            path(p0, (i, j), out)
            path((i, j), p1, out)

    def one() -> list[int]:
        out: list[int] = []
        if not exact:
            path((0, 0), (half, half), out)
            return out
        i = py.randint(cap, half)  # the seeds' random_at_depth(N, d)
        path((0, 0), (i, i - cap), out)
        path((i, i - cap), (half, half), out)
        return out

    return np.array([one() for _ in range(n)], dtype=np.int8).reshape(n, length)


def _assign_kinds(steps: np.ndarray, k: int, rng) -> np.ndarray:
    """Give each bracket pair of each path a kind uniformly in 0..k-1 and return alphabet
    indices (opener of kind c = 2c, its closer = 2c + 1). A closer reads its kind from a
    per-string stack indexed by height, all strings at once."""
    n, length = steps.shape
    kinds = rng.integers(k, size=(n, length))
    stack = np.zeros((n, length // 2 + 1), dtype=np.int64)
    height = np.zeros(n, dtype=np.int64)
    codes = np.empty((n, length), dtype=np.int64)
    rows = np.arange(n)
    for t in range(length):
        up = steps[:, t] == 1
        stack[rows[up], height[up]] = kinds[up, t]
        height[~up] -= 1
        codes[:, t] = np.where(up, 2 * kinds[:, t], 2 * stack[rows, height] + 1)
        height[up] += 1
    return codes

