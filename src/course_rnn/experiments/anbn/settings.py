"""The settings of ``anbn``, per scale (the book's "quick", the lecture's ten seeds "paper"), and
the models it compares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...models import NAMED_MODELS
from ..settings import Scales, Settings, setting

#: The compared models, in training order: id (as ``results.json`` keys them) → (its name in
#: :data:`~course_rnn.models.NAMED_MODELS`, the setting that gives its hidden size).
_IDS = {"srn": ("SRN", "hidden_size"), "gru": ("GRU", "hidden_size"),
        "lstm": ("LSTM", "hidden_size"), "srn-relu": ("ReLU SRN", "hidden_size"),
        "srn-wide": ("SRN", "wide_hidden_size")}
#: id → (registry kind, options, the setting that gives its hidden size).
MODELS: dict[str, tuple[str, dict, str]] = {
    model_id: (*NAMED_MODELS[name], size) for model_id, (name, size) in _IDS.items()}
#: The models of the lecture's experiment (the others test Weiss et al.'s theory).
LECTURE_MODELS = ("srn", "gru", "lstm")
#: The models trained only on the first ``extra_seeds`` seeds.
EXTRA_MODELS = ("srn-relu", "srn-wide")

def model_name(model_id: str, settings: AnbnSettings) -> str:
    """How a model is named in tables and figures: "SRN", "ReLU SRN", "SRN, 16 units" …"""
    if model_id == "srn-wide":
        return f"SRN, {settings.wide_hidden_size} units"
    return _IDS[model_id][0]


#: A run counts when it is right on every n up to this many times the longest training n; the
#: test must reach that far.
COUNTS_TO = 2

#: Seeds per model (0 … k-1) when ``run`` is given none.
DEFAULT_SEEDS = {"quick": 6, "paper": 10}


@dataclass(frozen=True)
class AnbnSettings(Settings):
    """What :func:`~course_rnn.experiments.anbn.run` trains and how long.

    The ``models`` (ids of :data:`MODELS`, trained in that order whatever order they are given
    in) and their sizes (``hidden_size`` units; ``wide_hidden_size`` for the wide SRN); the data
    (n ≤ ``train_max_n``, each string ``repeats`` times per epoch, in batches of ``batch_size``,
    None: all at once; tested up to ``test_max_n``); Adam's learning rate ``lr``, halved after
    ``lr_patience`` epochs without a lower training loss, never below ``min_lr``; the gradient
    ``clip`` (None: none); when a run has learned (within ``tolerance`` nats of the optimum) or
    has stalled (better by < ``min_delta``, relative, over ``patience`` epochs); the cap on
    ``epochs``; how often the run is evaluated (every ``eval_every`` epochs: the training loss
    averaged over them, max_correct_n); how many seeds the two extra SRNs get
    (``extra_seeds``).
    """

    experiment: ClassVar[str] = "anbn"
    title: ClassVar[str] = ("a^n b^n: which recurrent networks learn to count (SRN, GRU, LSTM, "
                            "ReLU and wide SRNs trained on n ≤ 20, tested up to n = 60)")
    chapter: ClassVar[str] = "03_gates_counting"

    models: tuple[str, ...] = setting(one_of=MODELS, non_empty=True)
    hidden_size: int = setting(at_least=1)
    wide_hidden_size: int = setting(at_least=1)
    train_max_n: int = setting(at_least=1)
    test_max_n: int = setting(at_least=1)
    repeats: int = setting(at_least=1)
    batch_size: int | None = setting(at_least=1)
    lr: float = setting(above=0)
    lr_patience: int = setting(at_least=1)
    min_lr: float = setting(at_least=0)
    clip: float | None = setting(above=0)
    tolerance: float = setting(between=(0, 1000))  # nats above the optimum (tests: 2, 5)
    patience: int = setting(at_least=1)
    min_delta: float = setting(at_least=0)
    epochs: int = setting(at_least=1)
    eval_every: int = setting(at_least=1)
    extra_seeds: int = setting(at_least=1)

    def __post_init__(self):
        super().__post_init__()
        # the canonical order: a run trains (and tables) the models as MODELS lists them
        object.__setattr__(self, "models", tuple(m for m in MODELS if m in self.models))

    def check(self) -> None:
        if len(set(self.models)) != len(self.models):
            raise ValueError(f"setting 'models' must name each model once, got {self.models!r}")
        if self.test_max_n < COUNTS_TO * self.train_max_n:
            raise ValueError(
                f"setting 'test_max_n' ({self.test_max_n}) must be at least {COUNTS_TO} × "
                f"'train_max_n' ({COUNTS_TO * self.train_max_n}): a run counts when it is right "
                "up to there, so the test must reach it")


SETTINGS = Scales(
    # the book's scale: six seeds of the lecture's models, one of the two extra SRNs
    quick=AnbnSettings(
        models=tuple(MODELS), hidden_size=4, wide_hidden_size=16, train_max_n=20, test_max_n=60,
        repeats=1, batch_size=None, lr=0.05, lr_patience=50, min_lr=0.05 / 64, clip=1.0,
        tolerance=0.01, patience=200, min_delta=5e-3, epochs=6000, eval_every=5,
        extra_seeds=1),
    # ten seeds of every model, a larger cap and a longer, finer plateau
    paper=AnbnSettings(
        models=tuple(MODELS), hidden_size=4, wide_hidden_size=16, train_max_n=20, test_max_n=60,
        repeats=1, batch_size=None, lr=0.05, lr_patience=50, min_lr=0.05 / 64, clip=1.0,
        tolerance=0.01, patience=500, min_delta=1e-3, epochs=30000, eval_every=5,
        extra_seeds=10),
)
