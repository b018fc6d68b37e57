"""What a recurrent network's hidden states say about words (Elman 1990, Figure 7).

Elman averaged the hidden state his network reached after each occurrence of a word, and
clustered the per-word averages: the tree split nouns from verbs, animates from inanimates.
This module does the same for any model of the course, from its ``trace``:

* :func:`token_states` – the state after every word of every string, with the words;
* :func:`mean_states` – one mean state per word (a :class:`WordStates`);
* :func:`pca` – a principal-component projection (numpy SVD, signs fixed);
* :func:`cluster_tree` – a scipy hierarchical clustering (``linkage`` matrix) of the means;
* :func:`clades`, :func:`top_split`, :func:`best_clade` – read the tree as sets of words;
* :func:`cut_tree`, :func:`purity`, :func:`adjusted_rand`, :func:`cluster_agreement` – how
  well the tree's clusters agree with known word classes;
* :func:`support`, :func:`exact_cross_entropy` and :class:`ExactScorer` – for a language with a
  finite set of strings and exact next-symbol probabilities, the model's expected cross-entropy
  per symbol next to the entropy that no model can beat (their difference is the average KL
  divergence); the scorer computes the exact distributions once, for use during training.

States come back as float64 numpy arrays; words are strings.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy.cluster import hierarchy

from course_rnn.languages.base import EOS, as_symbols
from course_rnn.languages.vocab import make_batch


# -- states ---------------------------------------------------------------------------------------
@torch.no_grad()
def token_states(
    model, vocab, strings: Sequence, key: str = "hidden", batch_size: int = 256
) -> tuple[list[str], np.ndarray]:
    """The state ``key`` of ``model.trace`` after reading each word of each string.

    Returns ``(words, states)``: ``words[i]`` is the i-th word token (strings in order, words in
    order) and ``states[i]`` the state right after the model read it, ``[N, size]``. The state
    after ``<s>`` alone is not included: it belongs to no word.
    """
    if len(strings) == 0:
        raise ValueError("no strings to read")
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    was_training = model.training
    model.eval()
    words: list[str] = []
    chunks: list[np.ndarray] = []
    try:
        for start in range(0, len(strings), batch_size):
            chunk = [as_symbols(s) for s in strings[start : start + batch_size]]
            batch = make_batch(vocab, chunk).to(model.device)
            trace = model.trace(batch.inputs)
            if key not in trace:
                raise KeyError(f"the trace has no {key!r}; it has {', '.join(trace)}")
            states = trace[key].double().cpu().numpy()
            for row, s in enumerate(chunk):
                words.extend(s)
                # step 0 read <s>; step t read word t
                chunks.append(states[row, 1 : len(s) + 1].reshape(len(s), -1))
    finally:
        model.train(was_training)
    return words, np.concatenate(chunks, axis=0)


@dataclass(frozen=True)
class WordStates:
    """Mean state per word: ``means[i]`` is the average over the ``counts[i]`` occurrences of
    ``words[i]``."""

    words: tuple[str, ...]
    means: np.ndarray  # [n_words, size]
    counts: np.ndarray  # [n_words]

    def __len__(self) -> int:
        return len(self.words)

    def mean_of(self, word: str) -> np.ndarray:
        return self.means[self.words.index(word)]


def mean_states(
    model,
    vocab,
    strings: Sequence,
    key: str = "hidden",
    words: Iterable[str] | None = None,
) -> WordStates:
    """Average the state after each word over all its occurrences in ``strings``.

    ``words`` fixes which words appear, in which order (default: ``vocab.alphabet`` order,
    keeping the words that occur). A requested word that never occurs raises ValueError.
    """
    tokens, states = token_states(model, vocab, strings, key)
    return average_by_word(tokens, states, words if words is not None else None, vocab)


def average_by_word(
    tokens: Sequence[str], states: np.ndarray, words: Iterable[str] | None = None, vocab=None
) -> WordStates:
    """:class:`WordStates` from tokens and their states (see :func:`mean_states`)."""
    states = np.asarray(states, dtype=np.float64)
    if len(tokens) != len(states):
        raise ValueError(f"{len(tokens)} tokens but {len(states)} states")
    groups: dict[str, list[int]] = defaultdict(list)
    for i, w in enumerate(tokens):
        groups[w].append(i)
    if words is None:
        order = vocab.alphabet if vocab is not None else sorted(groups)
        words = [w for w in order if w in groups]
    words = tuple(words)
    missing = [w for w in words if w not in groups]
    if missing:
        raise ValueError(f"these words never occur in the strings: {missing}")
    means = np.stack([states[groups[w]].mean(axis=0) for w in words])
    counts = np.array([len(groups[w]) for w in words])
    return WordStates(words, means, counts)


def pca(states, n_components: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Principal components of the rows of ``states``.

    Returns ``(projection [N, k], components [k, size], explained_ratio [k])``. Each component's
    sign is fixed so that its largest-magnitude coordinate is positive, so the picture does not
    flip from run to run.
    """
    x = np.asarray(states, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"need a 2-d array of at least two rows, got shape {x.shape}")
    if not 1 <= n_components <= min(x.shape):
        raise ValueError(f"n_components must be in 1..{min(x.shape)}, got {n_components}")
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:n_components]
    signs = np.sign(components[np.arange(n_components), np.abs(components).argmax(axis=1)])
    components = components * signs[:, None]
    var = s**2
    ratio = var[:n_components] / var.sum() if var.sum() > 0 else np.zeros(n_components)
    return centred @ components.T, components, ratio


# -- the tree -------------------------------------------------------------------------------------
def cluster_tree(means, method: str = "average", metric: str = "euclidean") -> np.ndarray:
    """scipy's ``linkage`` matrix of the rows of ``means`` (a :class:`WordStates` or an array).

    Elman's Figure 7 is a hierarchical clustering of Euclidean distances between mean hidden
    vectors; ``method`` picks the merge rule (``"average"``, ``"complete"``, ``"ward"`` …).
    """
    x = means.means if isinstance(means, WordStates) else np.asarray(means, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"need at least two vectors to cluster, got shape {x.shape}")
    return hierarchy.linkage(x, method=method, metric=metric)


def _leaf_sets(tree: np.ndarray, labels: Sequence[str]) -> list[frozenset]:
    """Leaf-label set of every node, leaves first then internal nodes in merge order."""
    labels = list(labels)
    n = len(labels)
    if len(tree) != n - 1:
        raise ValueError(f"a tree over {len(tree) + 1} leaves cannot carry {n} labels")
    sets = [frozenset([lab]) for lab in labels]
    for a, b, *_ in tree:
        sets.append(sets[int(a)] | sets[int(b)])
    return sets


def clades(tree: np.ndarray, labels: Sequence[str]) -> list[frozenset]:
    """The word sets of every internal node of ``tree``, root first (largest merges first)."""
    return _leaf_sets(tree, labels)[len(labels) :][::-1]


def top_split(tree: np.ndarray, labels: Sequence[str]) -> tuple[frozenset, frozenset]:
    """The two word sets the root divides into, larger first."""
    sets = _leaf_sets(tree, labels)
    a, b = (sets[int(i)] for i in tree[-1, :2])
    return (a, b) if len(a) >= len(b) else (b, a)


def jaccard(a: Iterable, b: Iterable) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def best_clade(
    tree: np.ndarray, labels: Sequence[str], group: Iterable[str]
) -> tuple[frozenset, float]:
    """The clade (node of the tree, leaves included) most like ``group``, and its Jaccard
    similarity to it: 1.0 means ``group`` is exactly one branch of the tree."""
    group = frozenset(group)
    unknown = group - set(labels)
    if not group or unknown:
        raise ValueError(
            f"group must be a non-empty set of the tree's labels; unknown: {sorted(unknown)}"
        )
    best = max(_leaf_sets(tree, labels), key=lambda c: (jaccard(c, group), -len(c)))
    return best, jaccard(best, group)


def cut_tree(tree: np.ndarray, labels: Sequence[str], k: int) -> dict[str, int]:
    """Cut ``tree`` into (at most) ``k`` clusters: label → cluster id (1..k)."""
    if not 1 <= k <= len(labels):
        raise ValueError(f"k must be in 1..{len(labels)}, got {k}")
    ids = hierarchy.fcluster(tree, t=k, criterion="maxclust")
    return {lab: int(i) for lab, i in zip(labels, ids)}


def purity(clusters: Mapping[str, Hashable], classes: Mapping[str, Hashable]) -> float:
    """Share of items whose class is the majority class of their cluster (1.0 = every cluster
    holds one class; a single cluster scores the share of the largest class)."""
    members: dict[Hashable, list] = defaultdict(list)
    for item, c in clusters.items():
        members[c].append(classes[item])
    if not members:
        raise ValueError("no items to score")
    agree = sum(Counter(m).most_common(1)[0][1] for m in members.values())
    return agree / len(clusters)


def adjusted_rand(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Adjusted Rand index of two labelings of the same items: 1 for identical partitions,
    about 0 for unrelated ones (Hubert & Arabie 1985)."""
    a, b = list(a), list(b)
    if len(a) != len(b) or not a:
        raise ValueError("two non-empty labelings of the same length are needed")
    pairs = lambda n: n * (n - 1) / 2  # noqa: E731
    table = Counter(zip(a, b))
    index = sum(pairs(n) for n in table.values())
    rows = sum(pairs(n) for n in Counter(a).values())
    cols = sum(pairs(n) for n in Counter(b).values())
    expected = rows * cols / pairs(len(a)) if len(a) > 1 else 0.0
    maximum = (rows + cols) / 2
    if maximum == expected:
        return 1.0
    return (index - expected) / (maximum - expected)


def cluster_agreement(
    tree: np.ndarray, labels: Sequence[str], class_of: Mapping[str, Hashable] | Callable
) -> dict:
    """Cut ``tree`` into as many clusters as there are classes and compare with the classes.

    ``class_of`` maps a label to its class (a dict or a function). Returns ``k``, ``purity``,
    ``ari`` (adjusted Rand index) and ``clusters`` (label → cluster id).
    """
    get = class_of if callable(class_of) else class_of.__getitem__
    classes = {lab: get(lab) for lab in labels}
    k = len(set(classes.values()))
    clusters = cut_tree(tree, labels, k)
    return {
        "k": k,
        "purity": purity(clusters, classes),
        "ari": adjusted_rand([clusters[lab] for lab in labels], [classes[lab] for lab in labels]),
        "clusters": clusters,
    }


# -- predictions against the exact distribution ---------------------------------------------------
def support(language, max_length: int = 10, limit: int = 100_000) -> list[tuple[str, ...]]:
    """Every member string of ``language`` up to ``max_length`` symbols, found by walking
    ``valid_next`` from the empty prefix (for finite languages such as Elman's templates)."""
    out, frontier = [], [()]
    while frontier:
        prefix = frontier.pop()
        for symbol in sorted(language.valid_next(prefix)):
            if symbol == EOS:
                out.append(prefix)
            elif len(prefix) < max_length:
                frontier.append(prefix + (symbol,))
        if len(out) + len(frontier) > limit:
            raise ValueError(f"more than {limit} strings: the language is too large to list")
    return sorted(out)


class ExactScorer:
    """The expected next-symbol cross-entropy of a model against a language's exact
    distribution, set up once and cheap to repeat (a training run calls it after every epoch).

    Every string ``s`` of ``strings`` (default: :func:`support` of the language) is weighted by
    its exact probability ``language.probability(s)``; at every position (the end included) the
    model's distribution ``q`` over ``vocab.output_symbols`` is compared with the exact ``p`` of
    ``language.next_distribution``. Calling the scorer on a model returns nats per symbol:

    * ``cross_entropy`` – E[−Σ_x p(x) log q(x)], what the model pays;
    * ``entropy`` – E[−Σ_x p(x) log p(x)], what the best possible model pays;
    * ``kl`` – their difference, the average KL(p ‖ q) ≥ 0;
    * ``strings`` – how many strings were scored, and ``mass`` – their total probability.

    The exact distributions are computed once, as a tensor ``[strings, positions, symbols]``;
    each call is one forward pass over all strings.
    """

    def __init__(self, language, vocab, strings: Sequence | None = None, max_length: int = 10):
        strings = support(language, max_length) if strings is None else strings
        self.strings = [as_symbols(s) for s in strings]
        if not self.strings:
            raise ValueError("no strings to score")
        weights = np.array([language.probability(s) for s in self.strings], dtype=np.float64)
        if weights.sum() <= 0:
            raise ValueError("the strings have zero probability under the language")
        self.vocab, self.mass = vocab, float(weights.sum())
        self.batch = make_batch(vocab, self.strings)
        symbols = vocab.output_symbols
        index = {s: i for i, s in enumerate(symbols)}
        exact = np.zeros((*self.batch.inputs.shape, len(symbols)))
        for row, s in enumerate(self.strings):
            for t in range(len(s) + 1):
                for symbol, prob in language.next_distribution(s[:t]).items():
                    exact[row, t, index[symbol]] = prob
        # weight every position by its string's probability; normalise by expected positions
        steps = float(weights @ np.array([len(s) + 1 for s in self.strings]))
        weighted = exact * weights[:, None, None] / steps
        self.weighted = torch.tensor(weighted, dtype=torch.float64)
        safe = np.where(exact > 0, exact, 1.0)
        self.entropy = float(-(weighted * np.log(safe)).sum())

    @torch.no_grad()
    def __call__(self, model) -> dict:
        was_training = model.training
        model.eval()
        try:
            first = self.vocab.eos_id  # output symbols: EOS then the alphabet, contiguous
            logits = model(self.batch.inputs.to(model.device))[..., first:]
        finally:
            model.train(was_training)
        logq = torch.log_softmax(logits.double().cpu(), dim=-1)
        cross_entropy = float(-(self.weighted * logq).sum())
        return {"cross_entropy": cross_entropy, "entropy": self.entropy,
                "kl": cross_entropy - self.entropy, "strings": len(self.strings),
                "mass": self.mass}


def exact_cross_entropy(
    model, vocab, language, strings: Sequence | None = None, max_length: int = 10
) -> dict:
    """The model's expected cross-entropy per symbol against the language's exact distribution,
    the entropy bound and their difference (the average KL divergence): see
    :class:`ExactScorer`, which this calls once."""
    return ExactScorer(language, vocab, strings, max_length)(model)


def exact_next_vectors(language, vocab, strings: Sequence) -> tuple[list[str], np.ndarray]:
    """The exact next-symbol distribution after each word of each string, as vectors over
    ``vocab.output_symbols`` – the representation an ideal predictor would hold.

    Same layout as :func:`token_states`, so ``average_by_word`` and ``cluster_tree`` apply and
    the tree of an ideal predictor can be set beside a network's.
    """
    index = {s: i for i, s in enumerate(vocab.output_symbols)}
    words, rows = [], []
    cache: dict[tuple, np.ndarray] = {}
    for s in strings:
        s = as_symbols(s)
        for t in range(1, len(s) + 1):
            prefix = s[:t]
            if prefix not in cache:
                v = np.zeros(len(index))
                for symbol, p in language.next_distribution(prefix).items():
                    v[index[symbol]] = p
                cache[prefix] = v
            words.append(s[t - 1])
            rows.append(cache[prefix])
    if not rows:
        raise ValueError("no words to read")
    return words, np.stack(rows)


def distance_correlation(a, b, metric: str = "euclidean") -> float:
    """Spearman rank correlation between the pairwise distances of the rows of ``a`` and of
    ``b`` (same items, same order; any sizes of vector). 1.0: both put the items in the same
    order of nearness; about 0: unrelated geometries."""
    from scipy.spatial.distance import pdist
    from scipy.stats import spearmanr

    a = a.means if isinstance(a, WordStates) else np.asarray(a, dtype=np.float64)
    b = b.means if isinstance(b, WordStates) else np.asarray(b, dtype=np.float64)
    if len(a) != len(b) or len(a) < 3:
        raise ValueError(f"need the same ≥ 3 items in both, got {len(a)} and {len(b)}")
    return float(spearmanr(pdist(a, metric), pdist(b, metric)).statistic)
