"""Marvin & Linzen (2018): minimal pairs for a language model's syntax.

Targeted syntactic evaluation gives a language model two sentences that differ in one word —
the agreeing verb (or reflexive, or the determiner that licenses "ever") — and asks whether it
finds the grammatical one more probable::

    the author that the guards like  laughs / *laugh       (across an object relative clause)
    the author  injured  himself / *themselves             (a reflexive)

:func:`marvin_linzen_pairs` draws ``n`` pairs of a category, as two word tuples;
:func:`minimal_pairs` draws the same pairs as :class:`MinimalPair` records that a metric reads
(the shared prefix, the right and the wrong word, and how many attractors stand between the
controlling noun and the agreeing word). Every sentence uses only the words of
:mod:`course_rnn.languages.agreement_words`, and every grammatical one is a sentence of
:func:`course_rnn.languages.agreement.agreement_grammar`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .agreement_words import (
    ADJECTIVES,
    INTRANSITIVE_VERBS,
    OTHER_NUMBER,
    PERFECT,
    PREPOSITIONS,
    REFLEXIVE_VERBS,
    REFLEXIVES,
    SAY_VERBS,
    TRANSITIVE_VERBS,
    count_attractors,
    forms,
    pick,
    random_noun,
    random_number,
    random_verb,
    verb_phrase,
)
from .base import Symbols, check_count, make_rng

# One small function per category builds a grammatical sentence and says which word(s) to
# change to make it ungrammatical. The numbers of the subject and of the other noun are drawn
# independently: M&L used every combination, so half of the "across" pairs have an attractor.
Pair = tuple[Symbols, Symbols]


def _flip(words: list[str], *positions: int) -> Pair:
    """(grammatical, ungrammatical): the words at ``positions`` put in the other number."""
    bad = list(words)
    for i in positions:
        bad[i] = OTHER_NUMBER[bad[i]]
    return tuple(words), tuple(bad)


def _the_noun(rng, number: str | None = None) -> list[str]:
    return ["the", random_noun(rng, number or random_number(rng), "animate")]


def _then_verb(rng, words: list[str], n: str) -> Pair:
    """``words`` + an intransitive verb agreeing with ``n``; the pair flips the verb."""
    return _flip(words + [random_verb(rng, INTRANSITIVE_VERBS, n)], len(words))


def _then_reflexive(rng, words: list[str], n: str) -> Pair:
    """``words`` + "injured himself/themselves"; the pair flips the reflexive."""
    words = words + [pick(rng, REFLEXIVE_VERBS), pick(rng, forms(REFLEXIVES, n))]
    return _flip(words, len(words) - 1)


def _object_rc(rng, that: bool = True) -> list[str]:
    """that the guards like (the RC's own subject and verb agree with each other)."""
    m = random_number(rng)
    return ["that"] * that + _the_noun(rng, m) + [random_verb(rng, TRANSITIVE_VERBS, m)]


def _simple_agreement(rng) -> Pair:
    """the author laughs / *laugh"""
    n = random_number(rng)
    return _then_verb(rng, _the_noun(rng, n), n)


def _sentential_complement(rng) -> Pair:
    """the mechanics said the author laughs / *laugh"""
    n = random_number(rng)
    return _then_verb(rng, _the_noun(rng) + [pick(rng, SAY_VERBS)] + _the_noun(rng, n), n)


def _short_vp_coordination(rng) -> Pair:
    """the author laughs and swims / *swim"""
    n = random_number(rng)
    return _then_verb(rng, _the_noun(rng, n) + [random_verb(rng, INTRANSITIVE_VERBS, n), "and"], n)


def _long_vp_coordination(rng) -> Pair:
    """the author likes the books and swims / *swim"""
    n = random_number(rng)
    return _then_verb(rng, _the_noun(rng, n) + verb_phrase(rng, "transitive", n) + ["and"], n)


def _across_pp(rng) -> Pair:
    """the farmer near the guards smiles / *smile"""
    n = random_number(rng)
    pp = [pick(rng, PREPOSITIONS), "the", random_noun(rng)]
    return _then_verb(rng, _the_noun(rng, n) + pp, n)


def _across_subject_rc(rng) -> Pair:
    """the author that likes the guards laughs / *laugh"""
    n = random_number(rng)
    rc = ["that", random_verb(rng, TRANSITIVE_VERBS, n), *_the_noun(rng)]
    return _then_verb(rng, _the_noun(rng, n) + rc, n)


def _across_object_rc(rng, that: bool = True) -> Pair:
    """the author that the guards like laughs / *laugh"""
    n = random_number(rng)
    return _then_verb(rng, _the_noun(rng, n) + _object_rc(rng, that), n)


def _in_object_rc(rng, that: bool = True) -> Pair:
    """the author that the guards like / *likes laughs: agreement inside the RC"""
    n = random_number(rng)
    words = _the_noun(rng, n) + _object_rc(rng, that) + [random_verb(rng, INTRANSITIVE_VERBS, n)]
    return _flip(words, len(words) - 2)


def _simple_reflexive(rng) -> Pair:
    """the author injured himself / *themselves"""
    n = random_number(rng)
    return _then_reflexive(rng, _the_noun(rng, n), n)


def _reflexive_sentential_complement(rng) -> Pair:
    """the mechanics said the author injured himself / *themselves"""
    n = random_number(rng)
    words = _the_noun(rng) + [pick(rng, SAY_VERBS)] + _the_noun(rng, n)
    return _then_reflexive(rng, words, n)


def _reflexive_across_object_rc(rng) -> Pair:
    """the author that the guards like injured himself / *themselves"""
    n = random_number(rng)
    return _then_reflexive(rng, _the_noun(rng, n) + _object_rc(rng), n)


def _npi(rng, across_rc: bool) -> Pair:
    """no authors (that the guards like) have ever been popular /
    *the authors (that no guards like) have ever been popular: "ever" needs "no" on the
    subject; in the ungrammatical sentence "no" has moved into the relative clause."""
    n = random_number(rng)
    rc = _object_rc(rng) if across_rc else []
    rest = [random_verb(rng, PERFECT, n), "ever", "been", pick(rng, ADJECTIVES)]
    good = ["no", random_noun(rng, n, "animate"), *rc, *rest]
    bad = ["the", *good[1:]]
    if across_rc:
        bad[3] = "no"  # the RC's determiner: no authors that the → the authors that no
    return tuple(good), tuple(bad)


_MARVIN_LINZEN: dict[str, Callable[[np.random.Generator], Pair]] = {
    # subject–verb agreement
    "simple_agreement": _simple_agreement,
    "sentential_complement": _sentential_complement,
    "short_vp_coordination": _short_vp_coordination,
    "long_vp_coordination": _long_vp_coordination,
    "across_pp": _across_pp,
    "across_subject_rc": _across_subject_rc,
    "across_object_rc": _across_object_rc,
    "across_object_rc_no_that": lambda rng: _across_object_rc(rng, that=False),
    "in_object_rc": _in_object_rc,
    "in_object_rc_no_that": lambda rng: _in_object_rc(rng, that=False),
    # reflexive anaphora
    "simple_reflexive": _simple_reflexive,
    "reflexive_sentential_complement": _reflexive_sentential_complement,
    "reflexive_across_object_rc": _reflexive_across_object_rc,
    # negative polarity items
    "simple_npi": lambda rng: _npi(rng, across_rc=False),
    "npi_across_object_rc": lambda rng: _npi(rng, across_rc=True),
}
MARVIN_LINZEN_CATEGORIES: tuple[str, ...] = tuple(_MARVIN_LINZEN)


def marvin_linzen_pairs(
    category: str, n: int, seed: int | np.random.Generator | None = 0
) -> list[Pair]:
    """``n`` minimal pairs (grammatical, ungrammatical) of a Marvin & Linzen (2018) category.

    The two sentences differ only in the agreeing word (verb or reflexive), or for NPIs in
    which determiner is "no". Both sentences use only this module's lexicon, and the
    grammatical one is a sentence of :func:`agreement_grammar`.
    """
    if category not in _MARVIN_LINZEN:
        raise ValueError(f"unknown Marvin & Linzen category {category!r}; "
                         f"choose from {', '.join(MARVIN_LINZEN_CATEGORIES)}")
    n = check_count(n)
    rng = make_rng(seed)
    return [_MARVIN_LINZEN[category](rng) for _ in range(n)]


#: Where the noun that controls the agreement stands in the grammatical sentence of each
#: category: the subject (position 1, "the author …"), the embedded subject after "the mechanics
#: said" (position 4), or inside an object RC the RC's own subject, three words before the end
#: ("… the guards like laughs"). None for the NPI pairs: "ever" needs a licensor, not agreement.
_CONTROLLER: dict[str, Callable[[Symbols], int | None]] = {
    **{category: (lambda words: 1) for category in MARVIN_LINZEN_CATEGORIES},
    "sentential_complement": lambda words: 4,
    "reflexive_sentential_complement": lambda words: 4,
    "in_object_rc": lambda words: len(words) - 3,
    "in_object_rc_no_that": lambda words: len(words) - 3,
    "simple_npi": lambda words: None,
    "npi_across_object_rc": lambda words: None,
}


@dataclass(frozen=True)
class MinimalPair:
    """One minimal pair of a Marvin & Linzen ``category``: the grammatical ``sentence``, the
    ``ungrammatical`` one, and where the noun that controls the agreement stands
    (``controller``; None for an NPI pair). What :func:`course_rnn.metrics.agreement_accuracy`
    reads: the ``prefix`` before the first word that differs, the ``verb`` there (the
    grammatical word) and the ``wrong_verb`` (the ungrammatical one), and the ``attractors``
    between the controlling noun and that word (Linzen's rule; None for an NPI pair)."""

    category: str
    sentence: Symbols
    ungrammatical: Symbols
    controller: int | None

    @property
    def position(self) -> int:
        """The first word where the two sentences differ."""
        return next(i for i, (g, b) in enumerate(zip(self.sentence, self.ungrammatical))
                    if g != b)

    @property
    def prefix(self) -> Symbols:
        return self.sentence[:self.position]

    @property
    def verb(self) -> str:
        return self.sentence[self.position]

    @property
    def wrong_verb(self) -> str:
        return self.ungrammatical[self.position]

    @property
    def attractors(self) -> int | None:
        if self.controller is None:
            return None
        return count_attractors(self.sentence, self.controller, self.position)


def minimal_pairs(category: str, n: int, seed: int | np.random.Generator | None = 0
                  ) -> list[MinimalPair]:
    """The pairs of :func:`marvin_linzen_pairs` (same ``category``, ``n`` and ``seed``: the same
    sentences) as :class:`MinimalPair` records."""
    return [MinimalPair(category, good, bad, _CONTROLLER[category](good))
            for good, bad in marvin_linzen_pairs(category, n, seed)]
