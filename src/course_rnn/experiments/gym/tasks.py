"""The gym's tasks: per language its training strings, held-out strings of the training
distribution (the convergence monitor), longer or deeper test strings, and its own metric."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...languages import Agreement, AnBn, CrossSerial, Palindrome, Vocab, make_language
from ...languages.base import EOS
from ...metrics import (
    agreement_accuracy,
    anbn_generalisation,
    cross_serial_accuracy,
    dyck_closing_accuracy,
    next_symbol_logits,
)
from ..urn import pooled_scores
from .settings import DYCK_DEPTH, GYM_LANGUAGES, GymLanguageSettings


@dataclass
class Task:
    language: object  # the language whose valid_next judges the held-out strings
    vocab: Vocab
    train: list
    valid: list  # held-out strings of the *training* distribution: the convergence monitor
    test: list  # longer / deeper strings
    own: Callable  # own(model) -> float
    epochs: int  # the cap
    breakdown: Callable | None = None  # breakdown(model) -> {name: float}, Dyck only


def _mirror_accuracy(model, vocab: Vocab, marker: str, strings: Sequence) -> float:
    """Share of the forced positions of w c w^R (every symbol after the marker, and the end)
    where the model's top prediction is the right one."""
    symbols = vocab.output_symbols
    right = []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        targets = list(s[1:]) + [EOS]
        centre = s.index(marker)
        for t in range(centre + 1, len(s) + 1):
            right.append(symbols[int(np.argmax(logits[t]))] == targets[t - 1])
    return float(np.mean(right))


@lru_cache(maxsize=16)
def cached_task(name: str, cfg: GymLanguageSettings) -> Task:
    """:func:`make_task`, made once per worker process for each language and its settings."""
    return make_task(name, cfg)


def make_task(name: str, cfg: GymLanguageSettings) -> Task:
    """The gym's task ``name`` with the settings ``cfg`` of that language (same data every
    call: every sample has a fixed seed)."""
    if name == "anbn":
        lang = AnBn(1, 10)
        vocab = Vocab.for_language(lang)
        train = [AnBn.string(n) for n in range(1, 11)] * cfg.train_copies
        valid = [AnBn.string(n) for n in range(1, 11)]  # the whole training range, once
        test = [AnBn.string(n) for n in range(11, 21)]

        def own(model):
            return anbn_generalisation(model, vocab, cfg.test_max_n)["max_correct_n"]

        return Task(lang, vocab, train, valid, test, own, cfg.epochs)
    if name == "dyck":
        lang = make_language("dyck", pairs=cfg.pairs)
        vocab = Vocab.for_language(lang)
        shape = dict(length=16, method="seeds")
        train = lang.sample(cfg.train, seed=101, depth=DYCK_DEPTH, **shape)
        valid = lang.sample(cfg.valid, seed=103, depth=DYCK_DEPTH, **shape)
        pool = lang.sample(20 * cfg.test, seed=102, **shape)
        test = [s for s in pool if lang.depth(s) >= DYCK_DEPTH + 2][: cfg.test]

        def own(model):
            return dyck_closing_accuracy(model, lang, vocab, test)["accuracy"]

        def breakdown(model):
            return pooled_scores(dyck_closing_accuracy(model, lang, vocab, test), DYCK_DEPTH)

        return Task(lang, vocab, train, valid, test, own, cfg.epochs, breakdown=breakdown)
    if name == "cross_serial":
        lang = CrossSerial()
        vocab = Vocab.for_language(lang)
        train = lang.sample(cfg.train, seed=201, max_total=7)
        valid = CrossSerial.family(8)  # every training length, once
        test = [s for s in CrossSerial.family(10) if len(s) >= 16]  # m + n = 8, 9

        def own(model):
            return cross_serial_accuracy(model, lang, vocab, test)["accuracy"]

        return Task(lang, vocab, train, valid, test, own, cfg.epochs)
    if name == "palindrome":
        lang = Palindrome("ab", marker="c")
        vocab = Vocab.for_language(lang)
        train = lang.sample(cfg.train, seed=301, min_half=1, max_half=6)
        valid = lang.sample(cfg.valid, seed=303, min_half=1, max_half=6)
        test = lang.sample(cfg.test, seed=302, min_half=7, max_half=9)

        def own(model):
            return _mirror_accuracy(model, vocab, lang.marker, test)

        return Task(lang, vocab, train, valid, test, own, cfg.epochs)
    if name == "agreement":
        train_lang, lang = Agreement(max_pps=1), Agreement(max_pps=2)
        vocab = Vocab.for_language(lang)
        train = train_lang.sample(cfg.train, seed=401)
        valid = train_lang.sample(cfg.valid, seed=403)
        examples = lang.balanced_by_attractors(cfg.test_per_attractor, max_attractors=3,
                                               seed=402)
        test = [e.sentence for e in examples]

        def own(model):
            return agreement_accuracy(model, vocab, examples)["accuracy"]

        return Task(lang, vocab, train, valid, test, own, cfg.epochs)
    raise ValueError(f"unknown language {name!r}: choose from {', '.join(GYM_LANGUAGES)}")
