"""Formal languages: grammars, generators, recognisers and exact next-symbol sets.

=================  ==========================================  ===============================
name               class                                       what it isolates
=================  ==========================================  ===============================
``anbn``           :class:`~.anbn.AnBn`                        counting
``anbncn``         :class:`~.anbn.AnBnCn`                      two counters
``dyck``           :class:`~.dyck.Dyck`                        nesting (a stack of kinds)
``cross_serial``   :class:`~.cross_serial.CrossSerial`         crossing dependencies
``palindrome``     :class:`~.palindrome.Palindrome`            mirrored memory
``tabor1``         :class:`~.tabor.TaborGrammar1`              exponential state growth
``tabor2``         :class:`~.tabor.TaborGrammar2`              exponential state growth
``elman``          :class:`~.elman.ElmanTemplates`             word classes (Elman 1990)
``agreement``      :class:`~.agreement.Agreement`              subject–verb agreement
=================  ==========================================  ===============================

``make_language("dyck", pairs="()[]")`` builds any of them by name.

Beside them, :mod:`.chomsky` holds the string-to-string tasks of Delétang et al. (2023) — parity
check, modular arithmetic, reverse string, stack manipulation, duplicate string, odds first —
and a^n b^n and Dyck-2 completion in the same protocol: ``make_transduction("reverse_string")``
(:data:`TRANSDUCTIONS`). They are not languages (each maps an input to an output) and train
through :class:`course_rnn.training.TransductionTask`.
"""

import inspect

from .agreement import Agreement, AgreementExample
from .anbn import AnBn, AnBnCn
from .base import EOS, Language, as_symbols
from .chomsky import TRANSDUCTIONS, Transduction, make_transduction
from .cross_serial import CrossSerial
from .dyck import Dyck
from .elman import ElmanTemplates
from .palindrome import Palindrome
from .tabor import PDDA1, TaborGrammar1, TaborGrammar2
from .vocab import BOS, PAD, Batch, Vocab, iterate_batches, make_batch

LANGUAGES: dict[str, type[Language]] = {
    "anbn": AnBn,
    "anbncn": AnBnCn,
    "dyck": Dyck,
    "cross_serial": CrossSerial,
    "palindrome": Palindrome,
    "tabor1": TaborGrammar1,
    "tabor2": TaborGrammar2,
    "elman": ElmanTemplates,
    "agreement": Agreement,
}


def make_language(name: str, **kwargs) -> Language:
    """Build a language by its short name (ValueError listing the names otherwise)."""
    if not isinstance(name, str) or name not in LANGUAGES:
        raise ValueError(f"unknown language {name!r}: choose one of {', '.join(LANGUAGES)}")
    takes = [n for n in inspect.signature(LANGUAGES[name]).parameters]
    unknown = sorted(set(kwargs) - set(takes))
    if unknown:
        raise TypeError(f"make_language({name!r}): unknown argument(s) {', '.join(unknown)}; "
                        f"{LANGUAGES[name].__name__} takes {', '.join(takes) or 'none'}")
    return LANGUAGES[name](**kwargs)


__all__ = [
    "EOS", "BOS", "PAD", "Language", "as_symbols", "Vocab", "Batch", "make_batch",
    "iterate_batches", "LANGUAGES", "make_language", "AnBn", "AnBnCn", "Dyck", "CrossSerial",
    "Palindrome", "TaborGrammar1", "TaborGrammar2", "PDDA1", "ElmanTemplates", "Agreement",
    "AgreementExample", "Transduction", "TRANSDUCTIONS", "make_transduction",
]
