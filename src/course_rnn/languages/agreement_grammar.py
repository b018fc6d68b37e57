"""The agreement grammar written out as a context-free grammar, and its exact recogniser.

:func:`agreement_grammar` lists the rules (the same sentences that
:class:`~course_rnn.languages.agreement.Agreement` generates); :class:`Parser` reads a prefix
and keeps every parse still possible, which gives exact membership, the exact set of valid next
words, and — through the grammar's markers — where the subject and the verb of a sentence are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .agreement_words import ANIMACIES, CATEGORIES, NUMBERS
from .base import EOS

# -- the grammar ---------------------------------------------------------------------------
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


class Parser:
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
