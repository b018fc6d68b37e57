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
(:func:`agreement_grammar`) so that membership and the set of valid next words are exact.
Sentences are syntactically well formed but can be semantically odd ("the key behind the
surgeons is popular"): the point is syntax, as in Gulordava et al.'s (2018) nonce sentences.

Tasks: :func:`number_prediction` (prefix up to the verb → singular/plural) and
:func:`grammaticality` (whole sentence with the right or wrong verb → grammatical?), both
from Linzen et al. (2016); and :func:`marvin_linzen_pairs`, minimal pairs in the categories of
Marvin & Linzen's (2018) targeted syntactic evaluation, for a language model that should give
the grammatical sentence the higher probability.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .base import EOS, Language, Symbols, check_count, make_rng

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


def _forms(table: dict[str, str], number: str) -> tuple[str, ...]:
    """The singular (keys) or plural (values) forms of a sg → pl table."""
    return tuple(table) if number == SINGULAR else tuple(table.values())


def _nouns(number: str | None = None, animacy: str | None = None) -> tuple[str, ...]:
    tables = {"animate": ANIMATE_NOUNS, "inanimate": INANIMATE_NOUNS}
    chosen = [tables[animacy]] if animacy else list(tables.values())
    numbers = [number] if number else list(NUMBERS)
    return tuple(w for t in chosen for n in numbers for w in _forms(t, n))


# -- the grammar ---------------------------------------------------------------------------
# Word categories: the terminals of the grammar. "N.singular.animate", "V.tr.plural", ...
def _categories() -> dict[str, tuple[str, ...]]:
    cats = {
        "N": _nouns(), "DET": ("the", "no"), "ADJ": ADJECTIVES, "P": PREPOSITIONS,
        "SAY": SAY_VERBS, "V.refl": REFLEXIVE_VERBS,
    }
    for n in NUMBERS:
        cats[f"V.tr.{n}"] = _forms(TRANSITIVE_VERBS, n)
        cats[f"V.intr.{n}"] = _forms(INTRANSITIVE_VERBS, n)
        cats[f"COP.{n}"] = _forms(COPULA, n)
        cats[f"HAVE.{n}"] = _forms(PERFECT, n)
        cats[f"REFL.{n}"] = _forms(REFLEXIVES, n)
        for a in ANIMACIES:
            cats[f"N.{n}.{a}"] = _nouns(n, a)
    cats["N.animate"] = _nouns(animacy="animate")
    return cats


CATEGORIES = _categories()

Rules = dict[str, list[tuple[str, ...]]]


def agreement_grammar(max_pps: int = 2) -> Rules:
    """The grammar as ``{nonterminal: [right-hand sides]}``.

    Symbols in a right-hand side are nonterminals (keys of the rules), word categories (keys
    of :data:`CATEGORIES`), literal words, or *markers* starting with ``@``: they produce no
    word but let the parser report where the subject and the verb are and which construction
    was used. ``n`` ranges over numbers, ``a`` over animacies, ``k`` counts the PPs still
    allowed::

        S               → CLAUSE | @complement the N.animate SAY CLAUSE
        CLAUSE          → d @subject N.n.a MODS.k.n.a PRED.n.a.d        (d = the | no)
        MODS.k.n.a      → @pp P the N MODS.k-1.n.a | RC.n.a               (MODS.0 → RC)
        RC.n.animate    → ε | @subject_rc that V.tr.n the N | ORC
        RC.n.inanimate  → ε | ORC
        ORC             → @object_rc that DET N.m.animate V.tr.m
                        | @object_rc_no_that DET N.m.animate V.tr.m
        PRED.n.a.d      → @verb VP.n.a | @verb VP.n.animate and VP.n.animate   (animate only)
                        | V.refl REFL.n (animate only) | @verb HAVE.n ever been ADJ (d = no)
        VP.n.animate    → V.intr.n | V.tr.n the N | COP.n ADJ | HAVE.n been ADJ
        VP.n.inanimate  → COP.n ADJ | HAVE.n been ADJ
    """
    rules: Rules = {"S": [("CLAUSE",), ("@complement", "the", "N.animate", "SAY", "CLAUSE")]}
    rules["CLAUSE"] = [
        (d, "@subject", f"N.{n}.{a}", f"MODS.{max_pps}.{n}.{a}", f"PRED.{n}.{a}.{d}")
        for n in NUMBERS for a in ANIMACIES for d in ("the", "no")
    ]
    orc = [
        (marker, *that, "DET", f"N.{m}.animate", f"V.tr.{m}")
        for marker, that in (("@object_rc", ("that",)), ("@object_rc_no_that", ()))
        for m in NUMBERS
    ]
    for n in NUMBERS:
        rules[f"RC.{n}.animate"] = [(), ("@subject_rc", "that", f"V.tr.{n}", "the", "N"), *orc]
        rules[f"RC.{n}.inanimate"] = [(), *orc]
        rules[f"VP.{n}.animate"] = [
            (f"V.intr.{n}",), (f"V.tr.{n}", "the", "N"), (f"COP.{n}", "ADJ"),
            (f"HAVE.{n}", "been", "ADJ"),
        ]
        rules[f"VP.{n}.inanimate"] = [(f"COP.{n}", "ADJ"), (f"HAVE.{n}", "been", "ADJ")]
        for a in ANIMACIES:
            rules[f"MODS.0.{n}.{a}"] = [(f"RC.{n}.{a}",)]
            for k in range(1, max_pps + 1):
                rules[f"MODS.{k}.{n}.{a}"] = [
                    ("@pp", "P", "the", "N", f"MODS.{k - 1}.{n}.{a}"), (f"RC.{n}.{a}",),
                ]
            for d in ("the", "no"):
                pred = [("@verb", f"VP.{n}.{a}")]
                if a == "animate":
                    pred += [("@verb", f"VP.{n}.{a}", "and", f"VP.{n}.{a}"),
                             ("V.refl", f"REFL.{n}")]
                if d == "no":
                    pred += [("@verb", f"HAVE.{n}", "ever", "been", "ADJ")]
                rules[f"PRED.{n}.{a}.{d}"] = pred
    return rules


# -- the parser: top-down, keeping every possible stack at once -----------------------------
# A parser state is (stack, marks): the symbols still to be matched, leftmost first, and the
# markers met so far with the word position where each was met.
State = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]


class _Parser:
    """Exact recogniser for a grammar without left recursion: after each word, the set of
    all stacks whose top is a word category (or that are empty: a complete sentence)."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.words_of = {**CATEGORIES}
        for rhs in (r for alternatives in rules.values() for r in alternatives):
            for symbol in rhs:
                if symbol not in rules and symbol not in CATEGORIES and symbol[0] != "@":
                    self.words_of[symbol] = (symbol,)  # a literal word
        self.words_of = {t: frozenset(ws) for t, ws in self.words_of.items()}

    def _closure(self, states: Iterable[State], position: int, keep_marks: bool) -> set[State]:
        """Expand nonterminals and record markers until every stack starts with a terminal."""
        ready, seen, todo = set(), set(), list(states)
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            stack, marks = state
            top = stack[0] if stack else None
            if top in self.rules:
                todo += [(rhs + stack[1:], marks) for rhs in self.rules[top]]
            elif top is not None and top[0] == "@":
                todo.append((stack[1:], marks + ((top, position),) if keep_marks else marks))
            else:
                ready.add(state)
        return ready

    def states(self, words: Sequence[str], keep_marks: bool = False) -> set[State]:
        """All parser states after reading ``words`` (empty: not a prefix of the language)."""
        states = self._closure([(("S",), ())], 0, keep_marks)
        for i, word in enumerate(words):
            states = {
                (stack[1:], marks) for stack, marks in states
                if stack and word in self.words_of[stack[0]]
            }
            states = self._closure(states, i + 1, keep_marks)
        return states

    def next_words(self, states: set[State]) -> frozenset[str]:
        nexts = set()
        for stack, _ in states:
            nexts |= self.words_of[stack[0]] if stack else {EOS}
        return frozenset(nexts)


# -- Linzen's rule ---------------------------------------------------------------------------
def intervening_nouns(words: Sequence[str], subject_index: int, verb_index: int) -> Symbols:
    """The common nouns strictly between the subject (head noun) and the verb."""
    return tuple(w for w in words[subject_index + 1 : verb_index] if w in NOUN_NUMBER)


def count_attractors(words: Sequence[str], subject_index: int, verb_index: int) -> int:
    """Intervening nouns whose number differs from the subject's (Linzen et al., 2016)."""
    subject_number = NOUN_NUMBER[words[subject_index]]
    between = intervening_nouns(words, subject_index, verb_index)
    return sum(NOUN_NUMBER[w] != subject_number for w in between)


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


def _pick(rng: np.random.Generator, options: Sequence):
    return options[int(rng.integers(len(options)))]


def _number(rng: np.random.Generator) -> str:
    return _pick(rng, NUMBERS)


def _det(rng: np.random.Generator) -> str:
    return "no" if rng.random() < P_NO else "the"


def _noun(rng, number: str | None = None, animacy: str | None = None) -> str:
    return _pick(rng, _nouns(number or _number(rng), animacy))


def _verb(rng, table: dict[str, str], number: str) -> str:
    return _pick(rng, _forms(table, number))


def _vp(rng, kind: str, n: str) -> list[str]:
    """A verb phrase whose first word agrees with number ``n`` (VP.n.a in the grammar)."""
    if kind == "intransitive":
        return [_verb(rng, INTRANSITIVE_VERBS, n)]
    if kind == "transitive":
        return [_verb(rng, TRANSITIVE_VERBS, n), "the", _noun(rng)]
    if kind == "copula":
        return [_verb(rng, COPULA, n), _pick(rng, ADJECTIVES)]
    if kind == "perfect":
        return [_verb(rng, PERFECT, n), "been", _pick(rng, ADJECTIVES)]
    if kind == "npi":
        return [_verb(rng, PERFECT, n), "ever", "been", _pick(rng, ADJECTIVES)]
    raise AssertionError(kind)


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
        return [*_vp(rng, _pick(rng, _VP_KINDS[animacy]), n), "and",
                *_vp(rng, _pick(rng, _VP_KINDS[animacy]), n)]
    if kind == "reflexive":
        return [_pick(rng, REFLEXIVE_VERBS), _pick(rng, _forms(REFLEXIVES, n))]
    return _vp(rng, kind, n)


def _relative_clause(rng, rc: str, head_number: str, number: str) -> list[str]:
    """RC.n.a; ``number`` is the number of the RC's own noun (the possible attractor)."""
    if rc == "subject_rc":  # the author [that likes the guards]: the RC verb agrees with the head
        return ["that", _verb(rng, TRANSITIVE_VERBS, head_number), "the", _noun(rng, number)]
    rc_subject = [_det(rng), _noun(rng, number, "animate"), _verb(rng, TRANSITIVE_VERBS, number)]
    return (["that"] if rc == "object_rc" else []) + rc_subject


def _sentence(rng, plan: Construction, numbers: Sequence[str], with_reflexive: bool):
    """Generate one sentence; ``numbers`` = subject's number, then each intervening noun's.

    Returns (words, subject index, verb index or None for a reflexive predicate).
    """
    words = []
    if plan.complement:
        words += ["the", _noun(rng, animacy="animate"), _pick(rng, SAY_VERBS)]
    n, *others = numbers
    animacy = "animate" if plan.rc == "subject_rc" else _pick(rng, ANIMACIES)
    det = _det(rng)
    subject_index = len(words) + 1
    words += [det, _noun(rng, n, animacy)]
    for m in others[: plan.n_pps]:
        words += [_pick(rng, PREPOSITIONS), "the", _noun(rng, m)]
    if plan.rc:
        words += _relative_clause(rng, plan.rc, n, others[-1])
    kind = _pick(rng, _predicate_kinds(animacy, det, with_reflexive))
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
        self.max_pps = check_count(max_pps, "max_pps")
        self.rules = agreement_grammar(self.max_pps)
        self._parser = _Parser(self.rules)
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
            plan = self.plans[_pick(rng, self.constructions)]
            numbers = [_number(rng) for _ in range(plan.n_intervening + 1)]
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
            plan = _pick(rng, plans)
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
    subject = _number(rng)
    other = NUMBERS[1 - NUMBERS.index(subject)]
    if attractors is not None:
        chosen = set(rng.choice(n_intervening, size=attractors, replace=False).tolist())
        return [subject] + [other if i in chosen else subject for i in range(n_intervening)]
    while True:
        numbers = [_number(rng) for _ in range(n_intervening)]
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


# -- Marvin & Linzen (2018) minimal pairs ----------------------------------------------------
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
    return ["the", _noun(rng, number or _number(rng), "animate")]


def _then_verb(rng, words: list[str], n: str) -> Pair:
    """``words`` + an intransitive verb agreeing with ``n``; the pair flips the verb."""
    return _flip(words + [_verb(rng, INTRANSITIVE_VERBS, n)], len(words))


def _then_reflexive(rng, words: list[str], n: str) -> Pair:
    """``words`` + "injured himself/themselves"; the pair flips the reflexive."""
    words = words + [_pick(rng, REFLEXIVE_VERBS), _pick(rng, _forms(REFLEXIVES, n))]
    return _flip(words, len(words) - 1)


def _object_rc(rng, that: bool = True) -> list[str]:
    """that the guards like (the RC's own subject and verb agree with each other)."""
    m = _number(rng)
    return ["that"] * that + _the_noun(rng, m) + [_verb(rng, TRANSITIVE_VERBS, m)]


def _simple_agreement(rng) -> Pair:
    """the author laughs / *laugh"""
    n = _number(rng)
    return _then_verb(rng, _the_noun(rng, n), n)


def _sentential_complement(rng) -> Pair:
    """the mechanics said the author laughs / *laugh"""
    n = _number(rng)
    return _then_verb(rng, _the_noun(rng) + [_pick(rng, SAY_VERBS)] + _the_noun(rng, n), n)


def _short_vp_coordination(rng) -> Pair:
    """the author laughs and swims / *swim"""
    n = _number(rng)
    return _then_verb(rng, _the_noun(rng, n) + [_verb(rng, INTRANSITIVE_VERBS, n), "and"], n)


def _long_vp_coordination(rng) -> Pair:
    """the author likes the books and swims / *swim"""
    n = _number(rng)
    return _then_verb(rng, _the_noun(rng, n) + _vp(rng, "transitive", n) + ["and"], n)


def _across_pp(rng) -> Pair:
    """the farmer near the guards smiles / *smile"""
    n = _number(rng)
    pp = [_pick(rng, PREPOSITIONS), "the", _noun(rng)]
    return _then_verb(rng, _the_noun(rng, n) + pp, n)


def _across_subject_rc(rng) -> Pair:
    """the author that likes the guards laughs / *laugh"""
    n = _number(rng)
    rc = ["that", _verb(rng, TRANSITIVE_VERBS, n), *_the_noun(rng)]
    return _then_verb(rng, _the_noun(rng, n) + rc, n)


def _across_object_rc(rng, that: bool = True) -> Pair:
    """the author that the guards like laughs / *laugh"""
    n = _number(rng)
    return _then_verb(rng, _the_noun(rng, n) + _object_rc(rng, that), n)


def _in_object_rc(rng, that: bool = True) -> Pair:
    """the author that the guards like / *likes laughs: agreement inside the RC"""
    n = _number(rng)
    words = _the_noun(rng, n) + _object_rc(rng, that) + [_verb(rng, INTRANSITIVE_VERBS, n)]
    return _flip(words, len(words) - 2)


def _simple_reflexive(rng) -> Pair:
    """the author injured himself / *themselves"""
    n = _number(rng)
    return _then_reflexive(rng, _the_noun(rng, n), n)


def _reflexive_sentential_complement(rng) -> Pair:
    """the mechanics said the author injured himself / *themselves"""
    n = _number(rng)
    words = _the_noun(rng) + [_pick(rng, SAY_VERBS)] + _the_noun(rng, n)
    return _then_reflexive(rng, words, n)


def _reflexive_across_object_rc(rng) -> Pair:
    """the author that the guards like injured himself / *themselves"""
    n = _number(rng)
    return _then_reflexive(rng, _the_noun(rng, n) + _object_rc(rng), n)


def _npi(rng, across_rc: bool) -> Pair:
    """no authors (that the guards like) have ever been popular /
    *the authors (that no guards like) have ever been popular: "ever" needs "no" on the
    subject; in the ungrammatical sentence "no" has moved into the relative clause."""
    n = _number(rng)
    rc = _object_rc(rng) if across_rc else []
    rest = [_verb(rng, PERFECT, n), "ever", "been", _pick(rng, ADJECTIVES)]
    good = ["no", _noun(rng, n, "animate"), *rc, *rest]
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
