"""The words of the agreement grammar: a small English lexicon with number features, random
draws of words and verb phrases, and Linzen's rule for attractors.

Shared by the grammar of :mod:`course_rnn.languages.agreement` (the sentences and the tasks of
Linzen et al., 2016) and the minimal pairs of :mod:`course_rnn.languages.marvin_linzen` (Marvin &
Linzen, 2018): both draw from the same words, so every sentence of either uses only this lexicon.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import Symbols

SINGULAR, PLURAL = "singular", "plural"
#: Numbers in label order: label 0 = singular, 1 = plural.
NUMBERS = (SINGULAR, PLURAL)
ANIMACIES = ("animate", "inanimate")

# -- the lexicon: singular form → plural form ----------------------------------------------
ANIMATE_NOUNS = {
    "author": "authors", "pilot": "pilots", "surgeon": "surgeons", "farmer": "farmers",
    "manager": "managers", "customer": "customers", "architect": "architects",
    "senator": "senators", "dancer": "dancers", "teacher": "teachers", "guard": "guards",
    "mechanic": "mechanics",
}
INANIMATE_NOUNS = {
    "key": "keys", "cabinet": "cabinets", "book": "books", "table": "tables", "door": "doors",
    "picture": "pictures", "box": "boxes", "letter": "letters", "car": "cars",
    "window": "windows", "bottle": "bottles", "movie": "movies",
}
TRANSITIVE_VERBS = {
    "likes": "like", "admires": "admire", "hates": "hate", "loves": "love", "knows": "know",
    "sees": "see",
}
INTRANSITIVE_VERBS = {"laughs": "laugh", "smiles": "smile", "swims": "swim", "sleeps": "sleep"}
COPULA = {"is": "are"}
PERFECT = {"has": "have"}
REFLEXIVES = {"himself": "themselves"}
# Words that do not agree.
ADJECTIVES = ("old", "new", "small", "popular")
PREPOSITIONS = ("near", "behind", "beside", "to")
SAY_VERBS = ("said", "thought")
REFLEXIVE_VERBS = ("injured", "blamed")  # past tense: the reflexive carries the agreement
FUNCTION_WORDS = ("the", "no", "that", "and", "been", "ever")

_AGREEING = {**TRANSITIVE_VERBS, **INTRANSITIVE_VERBS, **COPULA, **PERFECT, **REFLEXIVES}
#: Every agreeing word → its form in the other number ("is" ↔ "are", "himself" ↔ "themselves").
OTHER_NUMBER = {**_AGREEING, **{pl: sg for sg, pl in _AGREEING.items()}}
#: Every noun form → its number (Linzen's rule needs to know which words are nouns).
NOUN_NUMBER = {
    form: number
    for nouns in (ANIMATE_NOUNS, INANIMATE_NOUNS)
    for sg, pl in nouns.items()
    for form, number in ((sg, SINGULAR), (pl, PLURAL))
}


def forms(table: dict[str, str], number: str) -> tuple[str, ...]:
    """The singular (keys) or plural (values) forms of a sg → pl table."""
    return tuple(table) if number == SINGULAR else tuple(table.values())


def nouns(number: str | None = None, animacy: str | None = None) -> tuple[str, ...]:
    tables = {"animate": ANIMATE_NOUNS, "inanimate": INANIMATE_NOUNS}
    chosen = [tables[animacy]] if animacy else list(tables.values())
    numbers = [number] if number else list(NUMBERS)
    return tuple(w for t in chosen for n in numbers for w in forms(t, n))


# -- word categories -----------------------------------------------------------------------
# Word categories: the terminals of the grammar. "N.singular.animate", "V.tr.plural", ...
def _categories() -> dict[str, tuple[str, ...]]:
    cats = {
        "N": nouns(), "DET": ("the", "no"), "ADJ": ADJECTIVES, "P": PREPOSITIONS,
        "SAY": SAY_VERBS, "V.refl": REFLEXIVE_VERBS,
    }
    for n in NUMBERS:
        cats[f"V.tr.{n}"] = forms(TRANSITIVE_VERBS, n)
        cats[f"V.intr.{n}"] = forms(INTRANSITIVE_VERBS, n)
        cats[f"COP.{n}"] = forms(COPULA, n)
        cats[f"HAVE.{n}"] = forms(PERFECT, n)
        cats[f"REFL.{n}"] = forms(REFLEXIVES, n)
        for a in ANIMACIES:
            cats[f"N.{n}.{a}"] = nouns(n, a)
    cats["N.animate"] = nouns(animacy="animate")
    return cats


CATEGORIES = _categories()


# -- random words (every draw from the rng passed in) ----------------------------------------
def pick(rng: np.random.Generator, options: Sequence):
    return options[int(rng.integers(len(options)))]


def random_number(rng: np.random.Generator) -> str:
    return pick(rng, NUMBERS)


def random_noun(rng, number: str | None = None, animacy: str | None = None) -> str:
    return pick(rng, nouns(number or random_number(rng), animacy))


def random_verb(rng, table: dict[str, str], number: str) -> str:
    return pick(rng, forms(table, number))


def verb_phrase(rng, kind: str, n: str) -> list[str]:
    """A verb phrase whose first word agrees with number ``n`` (VP.n.a in the grammar)."""
    if kind == "intransitive":
        return [random_verb(rng, INTRANSITIVE_VERBS, n)]
    if kind == "transitive":
        return [random_verb(rng, TRANSITIVE_VERBS, n), "the", random_noun(rng)]
    if kind == "copula":
        return [random_verb(rng, COPULA, n), pick(rng, ADJECTIVES)]
    if kind == "perfect":
        return [random_verb(rng, PERFECT, n), "been", pick(rng, ADJECTIVES)]
    if kind == "npi":
        return [random_verb(rng, PERFECT, n), "ever", "been", pick(rng, ADJECTIVES)]
    raise AssertionError(kind)


# -- Linzen's rule ---------------------------------------------------------------------------
def intervening_nouns(words: Sequence[str], subject_index: int, verb_index: int) -> Symbols:
    """The common nouns strictly between the subject (head noun) and the verb."""
    return tuple(w for w in words[subject_index + 1 : verb_index] if w in NOUN_NUMBER)


def count_attractors(words: Sequence[str], subject_index: int, verb_index: int) -> int:
    """Intervening nouns whose number differs from the subject's (Linzen et al., 2016)."""
    subject_number = NOUN_NUMBER[words[subject_index]]
    between = intervening_nouns(words, subject_index, verb_index)
    return sum(NOUN_NUMBER[w] != subject_number for w in between)
