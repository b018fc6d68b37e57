"""The dynamics of Tabor's fractal learning networks (Tabor 2011, §2–3, Figures 1, 3 and 4).

An FLNN (:mod:`course_rnn.models.flnn`) is a dynamical automaton: every word is an affine map
``z -> w_j + s_j z`` of the plane, and the stack of unfinished constituents is encoded by where
on a fractal the state lies. This module holds the analyses that look at that plane:

* :func:`without_end_marker` – a Tabor grammar whose targets follow the paper's corpus, a
  *stream* of sentences with no end marker (``TaborGrammar1(end_marker=False)``): when a
  sentence may end, the next word is the first word of the next sentence. (By default the
  library's grammars predict ``</s>`` there.)
* :func:`stack_states` – the symbolic stack after every prefix, labelled as in Figure 1a
  (``a`` stores A, ``b`` replaces it by B, ``c`` pops; for Grammar 2 ``a``/``x`` push A/X and
  ``b``/``y`` pop). Prefixes with the same stack have the same future. :func:`nesting_depth`:
  the highest stack of a sentence (not its levels of recursion, the number of S nodes).
* :func:`visitation_set` and :func:`mean_visitation_set` – every Hidden1 state a model visits on
  a corpus, grouped by stack state, and the group means (the "MVS" of Figure 3);
  :func:`spread` – how far the points of each group lie from their mean (Figure 4's simplices);
  :meth:`Visits.correct` – Tabor's correctness at each visited position.
* :func:`readout` and :func:`basins` – the network's output at *any* point of the plane and the
  induced classification surface of Figure 4 (distance to the nearest corpus distribution).
* :func:`loop_map` – the affine map of a word sequence (``P z + q``): for a sequence that
  closes a constituent (``a b c``), the generalised fixed-point condition asks ``P = 1, q = 0``.
* :func:`end_drift` – distance between the state after a sentence's last word and the start
  state (zero for PDDA 1 at every depth).
* :func:`last_word_optimum` – the best KL any predictor that sees only the last word can reach
  (the floor of an FLNN whose self-weights have collapsed to 0).
* :func:`random_sentences`, :func:`center_embedded` – sentences with an exact number of levels
  of recursion, beyond the enumerable test corpus.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from course_rnn.languages.base import as_symbols, check_count, check_positive, make_rng
from course_rnn.languages.tabor import TaborGrammar
from course_rnn.languages.vocab import Vocab, make_batch
from course_rnn.models.flnn import FIRST_WORD, FLNN, exact_targets

# -- the paper's corpus convention: a stream of sentences, no end marker ------------------------


def without_end_marker(language: TaborGrammar) -> TaborGrammar:
    """The same grammar with Tabor's targets, ``type(language)(end_marker=False)``: "the
    transition probabilities in an infinite training corpus" of sentences one after another
    (§3.2). Where a sentence may end, the probability of ``</s>`` goes to the first word of a new
    sentence (``a`` for Grammar 1, ``a``/``x`` half each for Grammar 2), so the state after a
    complete sentence has the same future as the start state – as in PDDA 1, which returns to
    the origin. A grammar that already has no end marker is returned as it is."""
    if not isinstance(language, TaborGrammar):
        raise TypeError(f"expected a Tabor grammar, got {type(language).__name__}")
    return language if not language.end_marker else type(language)(end_marker=False)


# -- symbolic stacks -----------------------------------------------------------------------------


def _constituent_words(language: TaborGrammar) -> list[tuple[str, ...]]:
    """The words of each alternative of S: Grammar 1 ``[("a","b","c")]``, Grammar 2
    ``[("a","b"), ("x","y")]`` (each nonterminal rewrites as one word plus an optional S)."""
    out = []
    for _, rhs in language.rules[language.start]:
        words = []
        for item in rhs.split():
            (_, expansion), = language.rules[item]
            words.append(expansion.split()[0])
        out.append(tuple(words))
    return out


def stack_states(language: TaborGrammar, sentence: str | Iterable[str]) -> list[str]:
    """The stack after each prefix of ``sentence`` (``len + 1`` labels; the first, ``""``, is
    the empty stack at the start). Each unfinished constituent is one letter, the last word read
    in it in upper case, top of stack rightmost – Figure 1a's labels. Raises ``ValueError`` at a
    word that cannot continue the prefix."""
    words = language.symbols(sentence)
    constituents = _constituent_words(language)
    openers = {c[0]: k for k, c in enumerate(constituents)}
    stack: list[tuple[int, int]] = []  # (alternative, index of the last word read)

    def label() -> str:
        return "".join(constituents[k][i].upper() for k, i in stack)

    labels = [label()]
    for t, w in enumerate(words):
        if w in openers:
            stack.append((openers[w], 0))
        elif stack and constituents[stack[-1][0]][stack[-1][1] + 1] == w:
            k, i = stack.pop()
            if i + 2 < len(constituents[k]):
                stack.append((k, i + 1))
        else:
            raise ValueError(f"{w!r} at position {t} cannot follow {' '.join(words[:t])!r}")
        labels.append(label())
    return labels


def nesting_depth(language: TaborGrammar, sentence: str | Iterable[str]) -> int:
    """The largest number of unfinished constituents at once (the height of the stack), as
    opposed to the *levels of recursion* (the number of S nodes,
    :meth:`~course_rnn.languages.tabor.TaborGrammar.recursion_level`): "a b c a b c" has 2
    levels and depth 1, "a a b c b c" 2 levels and depth 2, ``center_embedded(g, k)`` k of
    each."""
    return max(len(stack) for stack in stack_states(language, sentence))


# -- visitation sets -----------------------------------------------------------------------------


@dataclass
class Visits:
    """Every Hidden1 state visited on a corpus: one row per position ``<s> w1 … wn``."""

    states: np.ndarray  # [N, H] Hidden1 state after <s> (position 0) and after each word
    stacks: list[str]  # stack state at each row
    targets: np.ndarray  # [N, K] exact next-word distribution over (</s>, *alphabet)
    probs: np.ndarray  # [N, K] the model's prediction over the same symbols
    sentence: np.ndarray  # [N] index of the sentence
    position: np.ndarray  # [N] words read so far
    levels: np.ndarray  # [N] levels of recursion of the sentence

    def future(self, candidates: np.ndarray | None = None) -> np.ndarray:
        """Index of each row's target among ``candidates`` (default: the distinct targets)."""
        candidates = self.candidates() if candidates is None else np.asarray(candidates)
        return np.argmin(np.abs(self.targets[:, None] - candidates[None]).sum(-1), axis=1)

    def candidates(self) -> np.ndarray:
        """The distinct next-word distributions of the corpus (Tabor's "other distributions")."""
        return np.unique(np.round(self.targets, 9), axis=0)

    def correct(self, candidates: np.ndarray | None = None) -> np.ndarray:
        """``[N]`` bool: Tabor's correctness of each row – the prediction is strictly closer to
        the exact distribution than to any other of ``candidates`` (default: the distinct
        distributions of these visits; pass the training corpus's to score a few sentences)."""
        candidates = self.candidates() if candidates is None else np.asarray(candidates)
        to_target = np.linalg.norm(self.probs - self.targets, axis=1)
        to_each = np.linalg.norm(self.probs[:, None] - candidates[None], axis=2)  # [N, M]
        is_target = np.all(np.isclose(candidates[None], self.targets[:, None], atol=1e-9), axis=2)
        return to_target < np.where(is_target, np.inf, to_each).min(axis=1)


@torch.no_grad()
def visitation_set(model: FLNN, language: TaborGrammar, sentences: Sequence,
                   vocab: Vocab) -> Visits:
    """The visitation set of ``sentences`` (§3.3): every state the model visits, with the
    stack state, the exact target and the model's prediction there."""
    sentences = [language.symbols(s) for s in sentences]
    if not sentences:
        raise ValueError("no sentences")
    batch = make_batch(vocab, sentences)
    trace = model.trace(batch.inputs.to(model.device))
    hidden = trace["hidden"].cpu().double().numpy()
    probs = torch.softmax(trace["logits"].cpu().double(), -1)[..., vocab.eos_id:].numpy()
    targets = exact_targets(language, sentences, vocab)[..., vocab.eos_id:].double().numpy()
    rows = defaultdict(list)
    for b, sentence in enumerate(sentences):
        n = len(sentence) + 1
        rows["states"].append(hidden[b, :n])
        rows["probs"].append(probs[b, :n])
        rows["targets"].append(targets[b, :n])
        rows["stacks"] += stack_states(language, sentence)
        rows["sentence"].append(np.full(n, b))
        rows["position"].append(np.arange(n))
        rows["levels"].append(np.full(n, language.recursion_level(sentence)))
    return Visits(stacks=rows.pop("stacks"), **{k: np.concatenate(v) for k, v in rows.items()})


def mean_visitation_set(visits: Visits) -> dict[str, np.ndarray]:
    """The mean state of each stack state (Figure 3's labelled points), shallow stacks first."""
    groups = defaultdict(list)
    for stack, z in zip(visits.stacks, visits.states):
        groups[stack].append(z)
    return {s: np.mean(groups[s], axis=0) for s in sorted(groups, key=lambda s: (len(s), s))}


def spread(visits: Visits) -> dict[str, float]:
    """For each stack state, the largest distance of a visited point from the group mean:
    zero when the generalised fixed-point condition holds (Figure 4's simplices)."""
    means = mean_visitation_set(visits)
    out: dict[str, float] = defaultdict(float)
    for stack, z in zip(visits.stacks, visits.states):
        out[stack] = max(out[stack], float(np.linalg.norm(z - means[stack])))
    return {s: out[s] for s in means}


# -- the plane as the network sees it --------------------------------------------------------------


@torch.no_grad()
def readout(model: FLNN, states) -> np.ndarray:
    """The model's next-word distribution over ``(</s>, *alphabet)`` at arbitrary Hidden1
    points ``states [N, H]`` – eqs. 5–7 with the model's own weights."""
    z = torch.as_tensor(np.asarray(states, dtype=float), dtype=model.centers.dtype,
                        device=model.centers.device)
    return model.readout_at(z).cpu().double().numpy()


def basins(model: FLNN, candidates, xlim=(-2.5, 1.0), ylim=(-2.0, 2.0),
           resolution: int = 120) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Figure 4's classification surface over a grid of the plane (2-D Hidden1 only).

    Returns ``xs [nx], ys [ny], label [ny, nx]`` (index of the nearest of ``candidates``, the
    corpus distributions ``[M, K]``) and ``height [ny, nx]`` (the distance to it, the paper's
    "induced error surface")."""
    if model.hidden_size != 2:
        raise ValueError("basins are drawn for a 2-D Hidden1 layer")
    resolution = check_positive(resolution, "resolution")
    xs, ys = np.linspace(*xlim, resolution), np.linspace(*ylim, resolution)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
    out = readout(model, grid)
    distance = np.linalg.norm(out[:, None] - np.asarray(candidates)[None], axis=2)
    shape = (len(ys), len(xs))
    return xs, ys, distance.argmin(1).reshape(shape), distance.min(1).reshape(shape)


def loop_map(model: FLNN, vocab: Vocab, words: str | Iterable[str]) -> tuple[float, np.ndarray]:
    """The affine map ``z -> P z + q`` of reading ``words`` (eq. 4 composed). For a sequence
    that closes a constituent (``a b c``; ``a b``, ``x y``) the generalised fixed-point
    condition asks for the identity: ``P = 1`` and ``q = 0``."""
    p, q = 1.0, np.zeros(model.hidden_size)
    scale = model.scale.detach().cpu().double().numpy()
    offset = model.offset.detach().cpu().double().numpy()
    for w in as_symbols(words):
        j = vocab.index(w) - FIRST_WORD
        if j < 0:
            raise ValueError(f"{w!r} is not a word of the alphabet")
        p, q = scale[j] * p, offset[j] + scale[j] * q
    return float(p), q


@torch.no_grad()
def end_drift(model: FLNN, sentences: Sequence, vocab: Vocab) -> np.ndarray:
    """For each sentence, the distance between the state after its last word and the start
    state (after ``<s>``). PDDA 1 returns exactly to its start; so must a network that obeys
    the generalised fixed-point condition under Tabor's stream convention."""
    sentences = [as_symbols(s) for s in sentences]
    if not sentences:
        raise ValueError("no sentences")
    batch = make_batch(vocab, sentences)
    hidden = model.trace(batch.inputs.to(model.device))["hidden"].cpu().double()
    ends = torch.tensor([len(s) for s in sentences])
    last = hidden[torch.arange(len(sentences)), ends]
    return torch.linalg.vector_norm(last - hidden[:, 0], dim=-1).numpy()


def last_word_optimum(language: TaborGrammar, sentences: Sequence, vocab: Vocab) -> float:
    """The smallest mean KL per position (as trained: after ``<s>`` and after each word) that
    any predictor reading only the *last* word can reach on ``sentences``: an FLNN whose
    self-weights are all 0 forgets everything before the current word. For each last word
    the best prediction is the mean of its exact targets ``t``, and the floor is the mean of
    ``KL(t || that mean)``."""
    sentences = [language.symbols(s) for s in sentences]
    if not sentences:
        raise ValueError("no sentences")
    batch = make_batch(vocab, sentences)
    targets = exact_targets(language, sentences, vocab)[batch.mask].double().numpy()
    last = batch.inputs[batch.mask].numpy()
    total = 0.0
    for word in np.unique(last):
        t = targets[last == word]
        o = t.mean(axis=0)
        ratio = np.where(t > 0, t / np.where(o > 0, o, 1.0), 1.0)
        total += float((t * np.log(ratio)).sum())
    return total / len(targets)


# -- deeper sentences ------------------------------------------------------------------------------


def _flatten(node, constituents) -> list[str]:
    alternative, children = node
    out: list[str] = []
    for word, child in zip(constituents[alternative], children):
        out.append(word)
        if child is not None:
            out += _flatten(child, constituents)
    return out


def random_sentences(language: TaborGrammar, levels: int, n: int,
                     seed: int | np.random.Generator | None = None) -> list[tuple[str, ...]]:
    """``n`` sentences with exactly ``levels`` levels of recursion (S nodes): a tree is grown
    from one S by filling a uniformly chosen empty optional ``(S)`` slot until it has
    ``levels`` nodes; each S picks its alternative with the grammar's probabilities. (Not the
    PCFG's conditional distribution, which almost never reaches deep levels.)"""
    levels, n = check_positive(levels, "levels"), check_count(n)
    rng = make_rng(seed)
    constituents = _constituent_words(language)
    probs = [p for p, _ in language.rules[language.start]]
    out = []
    for _ in range(n):
        def new_node():
            k = int(rng.choice(len(constituents), p=probs))
            return (k, [None] * len(constituents[k]))

        root = new_node()
        slots = [(root, i) for i in range(len(root[1]))]
        for _ in range(levels - 1):
            node, i = slots.pop(int(rng.integers(len(slots))))
            child = node[1][i] = new_node()
            slots += [(child, j) for j in range(len(child[1]))]
        out.append(tuple(_flatten(root, constituents)))
    return out


def center_embedded(language: TaborGrammar, levels: int, alternative: int = 0) -> tuple[str, ...]:
    """The most deeply nested sentence with ``levels`` S nodes, each S inside the first
    constituent of the one above: ``a^k (b c)^k`` for Grammar 1, ``a^k b^k`` for Grammar 2."""
    levels = check_positive(levels, "levels")
    constituents = _constituent_words(language)
    node = None
    for _ in range(levels):
        node = (alternative, [node] + [None] * (len(constituents[alternative]) - 1))
    return tuple(_flatten(node, constituents))
