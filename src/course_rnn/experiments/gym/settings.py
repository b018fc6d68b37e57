"""The settings of the ``gym``, per scale (the book's "quick", a larger "paper", and "full": the
paper scale cut to what a 2-core CPU runs in about half an hour), and its tables of models and
languages."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from ...models import named_models
from ..settings import Scales, Settings, setting

#: Display name → (registry kind, extra constructor arguments). The state size is added per run.
#: The gym's URN is the 3-TURN of chapter 6; its Stack-RNN is Delétang et al.'s (chapter 8), an
#: external stack beside the controller's state: the upper anchor of the table.
GYM_MODELS: dict[str, tuple[str, dict]] = named_models("SRN", "GRU", "LSTM", "DRNN",
                                                       ("URN", "3-TURN"), "FLNN", "Stack-RNN")

#: Language key → a one-line description (what it isolates).
GYM_LANGUAGES: dict[str, str] = {
    "anbn": "counting",
    "dyck": "nesting (a stack of kinds)",
    "cross_serial": "crossing dependencies",
    "palindrome": "mirrored memory",
    "agreement": "subject–verb agreement",
}

#: Where the FLNN applies (Tabor's condition): the next words depend on a stack alone, no
#: control state. Of the gym's languages only Dyck qualifies (see the docstring of
#: :mod:`course_rnn.experiments.gym`).
FLNN_LANGUAGES = ("dyck",)

#: The language's own metric, by language.
OWN_METRICS = {
    "anbn": "max_correct_n",
    "dyck": "closing accuracy",
    "cross_serial": "whole-string accuracy",
    "palindrome": "mirror accuracy",
    "agreement": "agreement accuracy",
}

#: Training depth of the gym's Dyck strings (the seeds' 3); chapter 6's cuts use it.
DYCK_DEPTH = 3

#: The gym's seeds per scale (chapter 7 and ``replicate gym``).
DEFAULT_SEEDS = {"quick": 2, "paper": 5, "full": 3}

#: The settings each language's data needs (:func:`~course_rnn.experiments.gym.make_task`);
#: any language may also set its own ``batch_size``, ``lr`` and ``patience`` (None: the
#: gym-wide one).
LANGUAGE_NEEDS = {
    "anbn": ("train_copies", "epochs", "test_max_n"),
    "dyck": ("pairs", "train", "valid", "epochs", "test"),
    "cross_serial": ("train", "epochs"),
    "palindrome": ("train", "valid", "epochs", "test"),
    "agreement": ("train", "valid", "epochs", "test_per_attractor"),
}
_OWN_TRAINING = ("batch_size", "lr", "patience")


def _unset(**rule):
    """A :func:`~..settings.setting` that a language may leave out (None)."""
    return dataclasses.field(default=None, metadata=setting(**rule).metadata)


@dataclass(frozen=True)
class GymLanguageSettings(Settings):
    """One language's data and training (:data:`LANGUAGE_NEEDS` says which settings it takes):
    ``train_copies`` of the a^n b^n strings n ≤ 10; ``pairs`` of Dyck brackets; ``train`` and
    ``valid`` strings (held-out strings of the training distribution: the convergence monitor);
    the cap on ``epochs``; its own ``batch_size``, ``lr`` and ``patience`` (None: the gym's);
    ``test`` strings, ``test_max_n`` (a^n b^n: the own metric's largest n) or
    ``test_per_attractor`` (agreement sentences per number of attractors). A setting a language
    does not take stays None, and ``results.json`` leaves it out."""

    experiment: ClassVar[str] = "a gym language"

    train_copies: int | None = _unset(at_least=1)
    pairs: int | None = _unset(at_least=1)
    train: int | None = _unset(at_least=1)
    valid: int | None = _unset(at_least=1)
    epochs: int | None = _unset(at_least=1)
    batch_size: int | None = _unset(at_least=1)
    lr: float | None = _unset(above=0)
    patience: int | None = _unset(at_least=1)
    test: int | None = _unset(at_least=1)
    test_max_n: int | None = _unset(at_least=1)
    test_per_attractor: int | None = _unset(at_least=1)

    def to_json(self) -> dict:
        """The settings this language sets (those left None are not saved)."""
        return {k: v for k, v in super().to_json().items() if v is not None}


@dataclass(frozen=True)
class GymSettings(Settings):
    """What :func:`~course_rnn.experiments.gym.run` trains: every model at one state size
    (``hidden_size``; the URN's ``urn_hidden_size``), trained with ``lr``, ``batch_size`` and a
    plateau of ``patience`` epochs (a language may set its own), and per language its data and cap
    (``languages``: name → :class:`GymLanguageSettings`; an override such as
    ``{"anbn": {"epochs": 2}}`` changes only what it names)."""

    experiment: ClassVar[str] = "gym"
    title: ClassVar[str] = ("The syntax gym: SRN, GRU, LSTM, Decay RNN, URN, FLNN and Stack-RNN "
                            "on five languages, and the papers' claims about who wins")
    chapter: ClassVar[str] = "07_syntax_gym"

    hidden_size: int = setting(at_least=1)
    urn_hidden_size: int = setting(at_least=2)
    lr: float = setting(above=0)
    batch_size: int = setting(at_least=1)
    patience: int = setting(at_least=1)
    languages: dict[str, GymLanguageSettings] = setting()

    def check(self) -> None:
        unknown = [name for name in self.languages if name not in GYM_LANGUAGES]
        if unknown:
            raise ValueError(f"setting 'languages': unknown language(s) {unknown}: choose from "
                             f"{', '.join(GYM_LANGUAGES)}")
        for name, language_settings in self.languages.items():
            needs = LANGUAGE_NEEDS[name]
            missing = [k for k in needs if getattr(language_settings, k) is None]
            extra = [k for k in language_settings.names()
                     if getattr(language_settings, k) is not None
                     and k not in needs + _OWN_TRAINING]
            if missing or extra:
                raise ValueError(
                    f"setting 'languages': {name!r} "
                    + (f"needs {', '.join(map(repr, missing))}" if missing else
                       f"does not take {', '.join(map(repr, extra))}")
                    + f" (it takes {', '.join(needs + _OWN_TRAINING)})")

    def training(self, language: str) -> tuple[int, float, int]:
        """(batch size, learning rate, patience) of ``language``: its own, else the gym's."""
        language_settings = self.languages[language]
        return (language_settings.batch_size or self.batch_size, language_settings.lr or self.lr,
                language_settings.patience or self.patience)


Lang = GymLanguageSettings

_PAPER = GymSettings(
    hidden_size=50, urn_hidden_size=50, lr=0.005, batch_size=64, patience=10,
    languages=dict(
        anbn=Lang(train_copies=100, epochs=500, test_max_n=60),
        dyck=Lang(pairs=5, train=25_600, valid=2_000, epochs=200, test=2000),
        cross_serial=Lang(train=12_800, epochs=300),
        palindrome=Lang(train=12_800, valid=2_000, epochs=200, test=2000),
        agreement=Lang(train=50_000, valid=2_000, epochs=100, test_per_attractor=500),
    ))

SETTINGS = Scales(
    # the book's scale: 2 seeds, every model on every language in parallel processes
    quick=GymSettings(
        hidden_size=16, urn_hidden_size=16, lr=0.01, batch_size=64, patience=5,
        languages=dict(
            anbn=Lang(train_copies=10, epochs=300, batch_size=10, lr=0.02, patience=10,
                      test_max_n=40),
            dyck=Lang(pairs=2, train=800, valid=200, epochs=300, test=200),
            cross_serial=Lang(train=640, epochs=300),
            palindrome=Lang(train=600, valid=200, epochs=300, test=200),
            agreement=Lang(train=800, valid=200, epochs=200, batch_size=16, lr=0.03,
                           patience=10, test_per_attractor=50),
        )),
    paper=_PAPER,
    # The paper scale's models and sizes on fewer strings and 3 seeds, because it is out of a
    # 2-core CPU's reach (benchmarks/results/paper_costs.md, one worker per core): an epoch of
    # the URN on 50,000 agreement sentences takes 49 s (95 words: 95 matrix exponentials a
    # step), the other runs 0.1-7 s, so 26 runs × 5 seeds at their caps is ≈ 9 hours. A fifth
    # of the agreement sentences, half the Dyck strings and half the cross-serial and palindrome
    # strings, on 3 seeds, keep it near half an hour.
    full=_PAPER.replace(languages={"dyck": {"train": 12_800}, "cross_serial": {"train": 6_400},
                                   "palindrome": {"train": 6_400},
                                   "agreement": {"train": 10_000}}),
)
