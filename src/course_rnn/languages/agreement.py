"""Subject–verb agreement: a small English grammar with number features.

In English the verb agrees in number with its subject, however far away the subject is::

    the key   to the cabinets   is   old          (subject singular → "is")
    the keys  to the cabinet    are  old

Linzen, Dupoux & Goldberg (2016) used this to ask whether LSTMs learn syntax: a network that
agrees with the *nearest* noun gets "the key to the cabinets are" wrong. The nouns between the
subject and the verb are the **intervening nouns**; those whose number differs from the
subject's are **attractors** (Linzen's rule: count common nouns between subject and verb).
Bhatt et al. (2020) report accuracy by attractor count and by non-attractor count.

Their data (Wikipedia) is not available offline, so this module generates it from a grammar:

* subject NP: ``the``/``no`` + noun, then up to ``max_pps`` prepositional phrases
  ("the key to the cabinets") and an optional relative clause: subject RC ("the author that
  likes the guards"), object RC ("the author that the guards like"), or object RC without
  "that" ("the author the guards like");
* optionally embedded as a sentential complement ("the mechanics said the author laughs");
* the predicate: a present-tense verb agreeing with the subject (intransitive, transitive +
  object, ``is/are`` + adjective, ``has/have been`` + adjective, two of these coordinated with
  "and"), a reflexive ("injured himself/themselves"), or, after a subject with "no", the
  negative polarity item "ever" ("no authors have ever been popular").

The grammar has no unbounded recursion, and it is written out as a context-free grammar
(:mod:`course_rnn.languages.agreement_grammar`) so that membership and the set of valid next
words are exact.
Sentences are syntactically well formed but can be semantically odd ("the key behind the
surgeons is popular"): the point is syntax, as in Gulordava et al.'s (2018) nonce sentences.

Tasks: :func:`number_prediction` (prefix up to the verb → singular/plural) and
:func:`grammaticality` (whole sentence with the right or wrong verb → grammatical?), both
from Linzen et al. (2016).

The words (the lexicon with its number features, random draws of words, Linzen's rule) are in
:mod:`course_rnn.languages.agreement_words`; the minimal pairs in the categories of Marvin &
Linzen's (2018) targeted syntactic evaluation, for a language model that should give the
grammatical sentence the higher probability, are in :mod:`course_rnn.languages.marvin_linzen`.
Both are re-exported here (``from course_rnn.languages.agreement import NOUN_NUMBER,
marvin_linzen_pairs`` keeps working).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .agreement_grammar import Parser, agreement_grammar
from .agreement_words import (
    ADJECTIVES,
    ANIMACIES,
    ANIMATE_NOUNS,
    CATEGORIES,
    COPULA,
    FUNCTION_WORDS,
    INANIMATE_NOUNS,
    INTRANSITIVE_VERBS,
    NOUN_NUMBER,
    NUMBERS,
    OTHER_NUMBER,
    PERFECT,
    PLURAL,
    PREPOSITIONS,
    REFLEXIVE_VERBS,
    REFLEXIVES,
    SAY_VERBS,
    SINGULAR,
    TRANSITIVE_VERBS,
    count_attractors,
    forms,
    intervening_nouns,
    pick,
    random_noun,
    random_number,
    random_verb,
    verb_phrase,
)
from .base import EOS, Language, Symbols, check_count, check_length, make_rng
from .marvin_linzen import MARVIN_LINZEN_CATEGORIES, marvin_linzen_pairs


@dataclass(frozen=True)
class AgreementExample:
    """One sentence annotated for the agreement tasks.

    ``prefix`` is the sentence up to (not including) the agreeing verb, ``verb`` the correct
    form and ``wrong_verb`` the other number's form; ``intervening`` lists the nouns between
    subject and verb and ``attractors`` counts those of the other number; ``construction``
    names the material between them ("simple", "pp+pp", "object_rc", "complement+pp", …).
    """

    prefix: Symbols
    subject_number: str
    verb: str
    wrong_verb: str
    intervening: Symbols
    attractors: int
    construction: str
    sentence: Symbols
    subject_index: int

    @property
    def verb_index(self) -> int:
        return len(self.prefix)

    @property
    def ungrammatical(self) -> Symbols:
        """The sentence with the verb in the wrong number."""
        i = self.verb_index
        return self.sentence[:i] + (self.wrong_verb,) + self.sentence[i + 1 :]


def _annotate(words: Symbols, subject_index: int, verb_index: int, construction: str):
    verb = words[verb_index]
    return AgreementExample(
        prefix=words[:verb_index],
        subject_number=NOUN_NUMBER[words[subject_index]],
        verb=verb,
        wrong_verb=OTHER_NUMBER[verb],
        intervening=intervening_nouns(words, subject_index, verb_index),
        attractors=count_attractors(words, subject_index, verb_index),
        construction=construction,
        sentence=words,
        subject_index=subject_index,
    )


# -- the generator ---------------------------------------------------------------------------
RELATIVE_CLAUSES = ("subject_rc", "object_rc", "object_rc_no_that")
#: Probability that a subject (main or inside an object RC) gets "no" instead of "the".
P_NO = 0.25


class Construction(NamedTuple):
    """What stands around the subject: a matrix "the N said", PPs, a relative clause."""

    complement: bool
    n_pps: int
    rc: str  # "" or one of RELATIVE_CLAUSES

    @property
    def label(self) -> str:
        parts = ["complement"] * self.complement + ["pp"] * self.n_pps + [self.rc] * bool(self.rc)
        return "+".join(parts) or "simple"

    @property
    def n_intervening(self) -> int:
        return self.n_pps + bool(self.rc)


def _det(rng: np.random.Generator) -> str:
    return "no" if rng.random() < P_NO else "the"


_VP_KINDS = {"animate": ("intransitive", "transitive", "copula", "perfect"),
             "inanimate": ("copula", "perfect")}


def _predicate_kinds(animacy: str, det: str, with_reflexive: bool) -> tuple[str, ...]:
    """The PRED.n.a.d alternatives (reflexives have no agreeing verb, so examples skip them)."""
    kinds = _VP_KINDS[animacy]
    if animacy == "animate":
        kinds += ("coordination",) + ("reflexive",) * with_reflexive
    return kinds + ("npi",) * (det == "no")


def _predicate(rng, kind: str, n: str, animacy: str) -> list[str]:
    if kind == "coordination":
        return [*verb_phrase(rng, pick(rng, _VP_KINDS[animacy]), n), "and",
                *verb_phrase(rng, pick(rng, _VP_KINDS[animacy]), n)]
    if kind == "reflexive":
        return [pick(rng, REFLEXIVE_VERBS), pick(rng, forms(REFLEXIVES, n))]
    return verb_phrase(rng, kind, n)


def _relative_clause(rng, rc: str, head_number: str, number: str) -> list[str]:
    """RC.n.a; ``number`` is the number of the RC's own noun (the possible attractor)."""
    if rc == "subject_rc":  # the author [that likes the guards]: the RC verb agrees with the head
        return ["that", random_verb(rng, TRANSITIVE_VERBS, head_number), "the",
                random_noun(rng, number)]
    rc_subject = [_det(rng), random_noun(rng, number, "animate"),
                  random_verb(rng, TRANSITIVE_VERBS, number)]
    return (["that"] if rc == "object_rc" else []) + rc_subject


def _sentence(rng, plan: Construction, numbers: Sequence[str], with_reflexive: bool):
    """Generate one sentence; ``numbers`` = subject's number, then each intervening noun's.

    Returns (words, subject index, verb index or None for a reflexive predicate).
    """
    words = []
    if plan.complement:
        words += ["the", random_noun(rng, animacy="animate"), pick(rng, SAY_VERBS)]
    n, *others = numbers
    animacy = "animate" if plan.rc == "subject_rc" else pick(rng, ANIMACIES)
    det = _det(rng)
    subject_index = len(words) + 1
    words += [det, random_noun(rng, n, animacy)]
    for m in others[: plan.n_pps]:
        words += [pick(rng, PREPOSITIONS), "the", random_noun(rng, m)]
    if plan.rc:
        words += _relative_clause(rng, plan.rc, n, others[-1])
    kind = pick(rng, _predicate_kinds(animacy, det, with_reflexive))
    verb_index = None if kind == "reflexive" else len(words)
    words += _predicate(rng, kind, n, animacy)
    return tuple(words), subject_index, verb_index


class Agreement(Language):
    """Synthetic English with subject–verb agreement (see the module docstring).

    ``max_pps`` bounds the PPs after the subject, so at most ``max_pps + 1`` nouns (PPs plus
    a relative clause) intervene between subject and verb.
    """

    name = "agreement"
    words = True

    def __init__(self, max_pps: int = 2):
        self.max_pps = check_length(max_pps, "max_pps", 0)
        self.rules = agreement_grammar(self.max_pps)
        self._parser = Parser(self.rules)
        self.alphabet: Symbols = tuple(dict.fromkeys(
            w for cat in CATEGORIES.values() for w in cat
        )) + tuple(w for w in FUNCTION_WORDS if w not in CATEGORIES["DET"])
        self.plans = {
            p.label: p
            for p in (Construction(c, k, rc) for c in (False, True)
                      for k in range(self.max_pps + 1) for rc in ("", *RELATIVE_CLAUSES))
        }

    def __repr__(self) -> str:
        return f"Agreement(max_pps={self.max_pps})"

    @property
    def constructions(self) -> tuple[str, ...]:
        """Every construction label the grammar allows."""
        return tuple(self.plans)

    # -- recogniser --------------------------------------------------------------------------
    def is_member(self, seq: str | Iterable[str]) -> bool:
        return EOS in self.valid_next(seq)

    def valid_next(self, prefix: str | Iterable[str]) -> frozenset[str]:
        return self._parser.next_words(self._parser.states(self.symbols(prefix)))

    def annotate(self, sentence: str | Iterable[str]) -> AgreementExample:
        """Parse a sentence of the grammar and annotate its subject–verb dependency.

        >>> Agreement().annotate("the key to the cabinets is old").attractors
        1
        """
        words = self.symbols(sentence)
        parses = {marks for stack, marks in self._parser.states(words, keep_marks=True)
                  if not stack}
        if not parses:
            raise ValueError(f"{' '.join(words)!r} is not a sentence of the agreement grammar")
        if len(parses) > 1:
            raise ValueError(f"{' '.join(words)!r} is ambiguous: {sorted(parses)}")
        marks = parses.pop()
        where = dict(marks)
        if "@verb" not in where:
            raise ValueError(f"{' '.join(words)!r} has no agreeing verb (reflexive predicate)")
        parts = [m[1:] for m, _ in marks if m not in ("@subject", "@verb")]  # in word order
        return _annotate(words, where["@subject"], where["@verb"], "+".join(parts) or "simple")

    # -- generator ---------------------------------------------------------------------------
    def sample(self, n: int, seed: int | np.random.Generator | None = None) -> list[Symbols]:
        """``n`` grammatical sentences: every construction and predicate, reflexives included."""
        n = check_count(n)
        rng = make_rng(seed)
        sentences = []
        for _ in range(n):
            plan = self.plans[pick(rng, self.constructions)]
            numbers = [random_number(rng) for _ in range(plan.n_intervening + 1)]
            sentences.append(_sentence(rng, plan, numbers, with_reflexive=True)[0])
        return sentences

    def sample_examples(
        self,
        n: int,
        seed: int | np.random.Generator | None = None,
        constructions: Sequence[str] | None = None,
        max_attractors: int | None = None,
        attractors: int | None = None,
    ) -> list[AgreementExample]:
        """``n`` annotated sentences whose predicate starts with an agreeing verb.

        The construction is drawn uniformly from ``constructions`` (default: all of
        :attr:`constructions`), every noun's number uniformly. ``attractors=c`` asks for exactly
        ``c`` attractors (drawn among constructions with at least ``c`` intervening nouns, the
        ``c`` attractor positions uniformly); ``max_attractors`` redraws the numbers until the
        count is at most that.
        """
        n = check_count(n)
        rng = make_rng(seed)
        plans = self._plans(constructions)
        if attractors is not None:
            attractors = check_count(attractors, "attractors")
            plans = [p for p in plans if p.n_intervening >= attractors]
            if not plans:
                raise ValueError(f"no construction in {constructions or 'the grammar'} has "
                                 f"{attractors} intervening nouns (max_pps={self.max_pps})")
        if max_attractors is not None:
            max_attractors = check_count(max_attractors, "max_attractors")
        examples = []
        for _ in range(n):
            plan = pick(rng, plans)
            numbers = _numbers(rng, plan.n_intervening, attractors, max_attractors)
            words, subject_index, verb_index = _sentence(rng, plan, numbers, with_reflexive=False)
            examples.append(_annotate(words, subject_index, verb_index, plan.label))
        return examples

    def balanced_by_attractors(
        self, n_per_count: int, max_attractors: int, seed: int | None = 0,
        constructions: Sequence[str] | None = None,
    ) -> list[AgreementExample]:
        """``n_per_count`` examples with exactly c attractors, for each c = 0 … max_attractors."""
        max_attractors = check_count(max_attractors, "max_attractors")
        rng = make_rng(seed)
        return [
            example
            for c in range(max_attractors + 1)
            for example in self.sample_examples(n_per_count, rng, constructions, attractors=c)
        ]

    def _plans(self, constructions: Sequence[str] | None) -> list[Construction]:
        if constructions is None:
            return list(self.plans.values())
        if isinstance(constructions, str):
            constructions = [constructions]
        unknown = [c for c in constructions if c not in self.plans]
        if unknown or not constructions:
            raise ValueError(f"unknown construction(s) {unknown or '(none given)'}; with "
                             f"max_pps={self.max_pps} choose from {', '.join(self.plans)}")
        return [self.plans[c] for c in constructions]


def _numbers(rng, n_intervening: int, attractors: int | None, max_attractors: int | None):
    """The subject's number followed by those of the intervening nouns."""
    subject = random_number(rng)
    other = NUMBERS[1 - NUMBERS.index(subject)]
    if attractors is not None:
        chosen = set(rng.choice(n_intervening, size=attractors, replace=False).tolist())
        return [subject] + [other if i in chosen else subject for i in range(n_intervening)]
    while True:
        numbers = [random_number(rng) for _ in range(n_intervening)]
        if max_attractors is None or numbers.count(other) <= max_attractors:
            return [subject, *numbers]


# -- the two tasks of Linzen et al. (2016) ---------------------------------------------------
def number_prediction(examples: Iterable[AgreementExample]) -> list[tuple[Symbols, int]]:
    """(prefix up to the verb, label): label 0 = singular subject, 1 = plural (NUMBERS)."""
    return [(ex.prefix, NUMBERS.index(ex.subject_number)) for ex in examples]


def grammaticality(
    examples: Iterable[AgreementExample], seed: int | None = 0, both: bool = False
) -> list[tuple[Symbols, int]]:
    """(whole sentence, label): label 1 = grammatical, 0 = the verb in the wrong number.

    Each example gives its grammatical or its ungrammatical version with probability 1/2
    (reproducible from ``seed``), or both versions when ``both=True``.
    """
    rng = make_rng(seed)
    pairs = []
    for ex in examples:
        if both:
            pairs += [(ex.sentence, 1), (ex.ungrammatical, 0)]
        elif rng.random() < 0.5:
            pairs.append((ex.sentence, 1))
        else:
            pairs.append((ex.ungrammatical, 0))
    return pairs


__all__ = [
    "Agreement", "AgreementExample", "Construction", "agreement_grammar", "number_prediction",
    "grammaticality", "RELATIVE_CLAUSES", "P_NO", "CATEGORIES", "SINGULAR", "PLURAL", "NUMBERS",
    "ANIMACIES", "ANIMATE_NOUNS", "INANIMATE_NOUNS", "TRANSITIVE_VERBS", "INTRANSITIVE_VERBS",
    "COPULA", "PERFECT", "REFLEXIVES", "ADJECTIVES", "PREPOSITIONS", "SAY_VERBS",
    "REFLEXIVE_VERBS", "FUNCTION_WORDS", "OTHER_NUMBER", "NOUN_NUMBER", "intervening_nouns",
    "count_attractors", "MARVIN_LINZEN_CATEGORIES", "marvin_linzen_pairs",
]
