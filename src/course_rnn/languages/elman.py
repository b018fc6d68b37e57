"""Elman's (1990) template sentences: the corpus of "Finding structure in time".

Elman generated two- and three-word sentences from 16 templates over 12 lexical categories
(his Tables 3 and 4, reproduced in Levy's lecture slides)::

    NOUN-HUM    VERB-EAT      NOUN-FOOD        "woman eat cookie"
    NOUN-AGRESS VERB-DESTROY  NOUN-FRAG        "dragon smash plate"
    NOUN-HUM    VERB-INTRAN                    "man sleep"
    …

A template is drawn uniformly, then each word uniformly from its category. The sentences are
concatenated into one long stream with no boundary marker, and a simple recurrent network
is trained to predict the next word. Because the network cannot know *which* word comes next,
only which *kind* of word, its hidden states end up clustering by category: nouns vs verbs,
animate vs inanimate, humans vs animals (his Figure 7).

Elman's Table 3 lists only example words. His lexicon had 29 words; the full assignment below
is our reconstruction, consistent with the words of his Figure 7 dendrogram (dog, lion, boy,
girl, car, bread, sandwich, exist and like added to the tables' examples). The slides' "cookie,
break" under NOUN-FOOD is a transcription slip for "cookie, bread".

Words may belong to several categories ("see" is VERB-TRAN and VERB-PERCEPT, "break" is
VERB-AGPAT and VERB-DESTROY), so the exact next-word distribution sums over every template
that could have produced the prefix (:meth:`ElmanTemplates.next_distribution`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .base import EOS, Language, Symbols, check_count, make_rng

#: Elman's Table 3: lexical categories and their words (see the module docstring).
ELMAN_CATEGORIES: dict[str, tuple[str, ...]] = {
    "NOUN-HUM": ("man", "woman", "boy", "girl"),
    "NOUN-ANIM": ("cat", "mouse", "dog"),
    "NOUN-INANIM": ("book", "rock", "car"),
    "NOUN-AGRESS": ("dragon", "monster", "lion"),
    "NOUN-FRAG": ("glass", "plate"),
    "NOUN-FOOD": ("cookie", "bread", "sandwich"),
    "VERB-INTRAN": ("think", "sleep", "exist"),
    "VERB-TRAN": ("see", "chase", "like"),
    "VERB-AGPAT": ("move", "break"),
    "VERB-PERCEPT": ("smell", "see"),
    "VERB-DESTROY": ("break", "smash"),
    "VERB-EAT": ("eat",),
}

#: Elman's Table 4: the 16 sentence templates, each a sequence of categories.
ELMAN_TEMPLATES: tuple[tuple[str, ...], ...] = (
    ("NOUN-HUM", "VERB-EAT", "NOUN-FOOD"),
    ("NOUN-HUM", "VERB-PERCEPT", "NOUN-INANIM"),
    ("NOUN-HUM", "VERB-DESTROY", "NOUN-FRAG"),
    ("NOUN-HUM", "VERB-INTRAN"),
    ("NOUN-HUM", "VERB-TRAN", "NOUN-HUM"),
    ("NOUN-HUM", "VERB-AGPAT", "NOUN-INANIM"),
    ("NOUN-HUM", "VERB-AGPAT"),
    ("NOUN-ANIM", "VERB-EAT", "NOUN-FOOD"),
    ("NOUN-ANIM", "VERB-TRAN", "NOUN-ANIM"),
    ("NOUN-ANIM", "VERB-AGPAT", "NOUN-INANIM"),
    ("NOUN-ANIM", "VERB-AGPAT"),
    ("NOUN-INANIM", "VERB-AGPAT"),
    ("NOUN-AGRESS", "VERB-DESTROY", "NOUN-FRAG"),
    ("NOUN-AGRESS", "VERB-EAT", "NOUN-HUM"),
    ("NOUN-AGRESS", "VERB-EAT", "NOUN-ANIM"),
    ("NOUN-AGRESS", "VERB-EAT", "NOUN-FOOD"),
)

# Coarse noun classes of Elman's Figure 7: animates split into humans and animals, inanimates
# into food, breakables and other things.
_NOUN_KIND = {
    "NOUN-HUM": "human",
    "NOUN-ANIM": "animal",
    "NOUN-AGRESS": "animal",
    "NOUN-FOOD": "food",
    "NOUN-FRAG": "breakable",
    "NOUN-INANIM": "thing",
}
_ANIMATE_KINDS = ("human", "animal")


def _pick(rng: np.random.Generator, options: tuple):
    """One of ``options``, uniformly."""
    return options[int(rng.integers(len(options)))]


@dataclass(frozen=True)
class WordClass:
    """Everything a plot needs to colour one word.

    ``categories`` are Elman's fine categories (a verb may have two); ``pos`` is ``"noun"`` or
    ``"verb"``; ``animacy`` is ``"animate"``/``"inanimate"`` for nouns and ``None`` for verbs;
    ``kind`` is the finer coarse class: human/animal/food/breakable/thing for nouns, and for
    verbs whether the templates give them an object: intransitive / optionally transitive /
    transitive (Elman's D.O.-ABS, D.O.-OPT, D.O.-REQ).
    """

    word: str
    categories: tuple[str, ...]
    pos: str
    animacy: str | None
    kind: str


class ElmanTemplates(Language):
    """The language of Elman's template sentences; a string is one sentence (tuple of words)."""

    name = "elman"
    words = True

    def __init__(self):
        words: list[str] = []
        for members in ELMAN_CATEGORIES.values():
            words += [w for w in members if w not in words]
        self.alphabet: Symbols = tuple(words)
        self.templates = ELMAN_TEMPLATES
        self._members = {c: frozenset(ws) for c, ws in ELMAN_CATEGORIES.items()}
        self._classes = {w: self._classify(w) for w in self.alphabet}

    # -- word classes (for colouring dendrograms and hidden-state plots) --------------------
    @property
    def categories(self) -> dict[str, tuple[str, ...]]:
        """Fine category → its words (Elman's Table 3)."""
        return dict(ELMAN_CATEGORIES)

    def category_of(self, word: str) -> WordClass:
        """The :class:`WordClass` of ``word`` (a foreign word raises ValueError)."""
        (word,) = self.symbols([word])
        return self._classes[word]

    def _classify(self, word: str) -> WordClass:
        cats = tuple(c for c, members in ELMAN_CATEGORIES.items() if word in members)
        if cats[0].startswith("NOUN"):
            kind = _NOUN_KIND[cats[0]]
            animacy = "animate" if kind in _ANIMATE_KINDS else "inanimate"
            return WordClass(word, cats, "noun", animacy, kind)
        return WordClass(word, cats, "verb", None, self._verb_kind(cats))

    def _verb_kind(self, cats: tuple[str, ...]) -> str:
        # A verb takes an object when some template puts a noun after it.
        lengths = {len(t) for t in self.templates for c in cats if t[1] == c}
        if lengths == {2}:
            return "intransitive"
        return "transitive" if lengths == {3} else "optionally transitive"

    # -- the generator ----------------------------------------------------------------------
    def sample(self, n: int, seed: int | np.random.Generator | None = None) -> list[Symbols]:
        """``n`` sentences: a template uniformly, then each word uniformly within its category."""
        n = check_count(n)
        rng = make_rng(seed)
        sentences = []
        for _ in range(n):
            template = _pick(rng, self.templates)
            sentences.append(tuple(_pick(rng, ELMAN_CATEGORIES[c]) for c in template))
        return sentences

    def corpus(self, n_sentences: int, seed: int | np.random.Generator | None = None) -> Symbols:
        """Elman's training stream: ``n_sentences`` sentences concatenated, no boundary marks."""
        return tuple(w for sentence in self.sample(n_sentences, seed) for w in sentence)

    # -- recogniser -------------------------------------------------------------------------
    def _templates_matching(self, prefix: Symbols) -> list[tuple[str, ...]]:
        """The templates that could have produced ``prefix`` (word i in category i)."""
        return [
            t for t in self.templates
            if len(prefix) <= len(t) and all(w in self._members[c] for w, c in zip(prefix, t))
        ]

    def is_member(self, seq: str | Iterable[str]) -> bool:
        seq = self.symbols(seq)
        return any(len(t) == len(seq) for t in self._templates_matching(seq))

    def valid_next(self, prefix: str | Iterable[str]) -> frozenset[str]:
        """Words of the next category of every matching template, plus EOS where one ends."""
        prefix = self.symbols(prefix)
        nexts: set[str] = set()
        for t in self._templates_matching(prefix):
            nexts |= self._members[t[len(prefix)]] if len(t) > len(prefix) else {EOS}
        return frozenset(nexts)

    # -- exact probabilities ----------------------------------------------------------------
    def _joint(self, template: tuple[str, ...], prefix: Symbols) -> Fraction:
        """P(template, prefix) for a matching template: 1/16 · Π_i 1/|C_{t,i}|."""
        p = Fraction(1, len(self.templates))
        for cat in template[: len(prefix)]:
            p /= len(ELMAN_CATEGORIES[cat])
        return p

    def probability(self, seq: str | Iterable[str]) -> float:
        """Exact probability that the generator produces the sentence ``seq``."""
        seq = self.symbols(seq)
        return float(sum(
            self._joint(t, seq) for t in self._templates_matching(seq) if len(t) == len(seq)
        ))

    def next_distribution(self, prefix: str | Iterable[str]) -> dict[str, float]:
        """Exact P(next | prefix), summing over the templates t consistent with the prefix:

            P(x | w_1..w_k) = Σ_t P(t, w_1..w_k) · P(x | t, k) / Σ_t P(t, w_1..w_k)

        where P(x | t, k) is 1/|C_{t,k+1}| for x in the next category, or 1 for EOS when
        the template has exactly k words.
        """
        prefix = self.symbols(prefix)
        joint = {t: self._joint(t, prefix) for t in self._templates_matching(prefix)}
        if not joint:
            raise ValueError(f"{' '.join(prefix)!r} is not the start of any Elman sentence")
        total = sum(joint.values())
        dist: dict[str, Fraction] = {}
        for template, p in joint.items():
            if len(template) == len(prefix):
                dist[EOS] = dist.get(EOS, Fraction(0)) + p / total
                continue
            members = ELMAN_CATEGORIES[template[len(prefix)]]
            for word in members:
                dist[word] = dist.get(word, Fraction(0)) + p / total / len(members)
        return {symbol: float(p) for symbol, p in dist.items()}

    # -- the stream: where do sentences end? ----------------------------------------------
    def stream_next_distributions(self, stream: Iterable[str]) -> list[dict[str, float]]:
        """Exact P(next word | every word so far) along Elman's boundary-free ``stream``
        (sentences drawn independently and concatenated, as :meth:`corpus` makes them).

        Entry ``t`` is the distribution of word ``t + 1`` given words ``1 … t`` (entry 0: the
        first word). In a stream the reader does not know where a sentence ended: after
        *woman break* either the object or the next sentence's subject may come. The exact
        predictor tracks, as probabilities, every (template, words read of it) that is
        consistent with the stream so far — a forward pass of the hidden Markov chain whose
        states are template positions. The stream's last word gets no entry of its own beyond
        the prediction after it (``len(stream) + 1`` entries in all).
        """
        words = self.symbols(stream)
        # belief: {(template index, words of it read so far): probability}; the stream starts
        # at a sentence boundary, which the empty belief with ``ended`` = 1 stands for
        belief: dict[tuple[int, int], float] = {}
        ended = 1.0
        out = []
        for t in range(len(words) + 1):
            dist: dict[str, float] = {}
            for (i, k), p in belief.items():  # the sentence goes on …
                if k < len(self.templates[i]):
                    members = ELMAN_CATEGORIES[self.templates[i][k]]
                    for w in members:
                        dist[w] = dist.get(w, 0.0) + p / len(members)
            for template in self.templates:  # … or a new one starts (template drawn uniformly)
                members = ELMAN_CATEGORIES[template[0]]
                for w in members:
                    dist[w] = dist.get(w, 0.0) + ended / len(self.templates) / len(members)
            out.append(dist)
            if t == len(words):
                return out
            word = words[t]
            if dist.get(word, 0.0) <= 0.0:
                raise ValueError(f"word {t + 1} ({word!r}) cannot follow the words before it: "
                                 "this is not a stream of Elman's sentences")
            new: dict[tuple[int, int], float] = {}
            for (i, k), p in belief.items():
                category = self.templates[i][k] if k < len(self.templates[i]) else None
                if category is not None and word in self._members[category]:
                    new[i, k + 1] = new.get((i, k + 1), 0.0) + p / len(ELMAN_CATEGORIES[category])
            for i, template in enumerate(self.templates):
                if word in self._members[template[0]]:
                    new[i, 1] = new.get((i, 1), 0.0) + (
                        ended / len(self.templates) / len(ELMAN_CATEGORIES[template[0]]))
            total = sum(new.values())
            belief = {key: p / total for key, p in new.items()}
            ended = sum(p for (i, k), p in belief.items() if k == len(self.templates[i]))
        return out  # pragma: no cover - the loop returns

    def stream_loss(self, stream: Iterable[str]) -> float:
        """What the exact predictor pays on ``stream``: the mean of −log P(w_t | w_1 … w_{t−1})
        over its words (nats per word; the task of a network trained on the boundary-free
        stream, with ``<s>`` once at the very start). No model can do better on average."""
        words = self.symbols(stream)
        if not words:
            raise ValueError("the stream is empty")
        dists = self.stream_next_distributions(words)
        return float(-np.mean([np.log(dists[t][w]) for t, w in enumerate(words)]))
