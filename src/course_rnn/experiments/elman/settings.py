"""The settings of ``elman-clusters``, per scale (the book's "quick", Elman's "paper")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...models import MODEL_KINDS
from ..settings import Scales, Settings, setting

#: The names of :data:`course_rnn.training.OPTIMIZERS` (repeated so that the settings are read
#: without torch: the CLI checks ``--set`` first; a test keeps the two equal).
OPTIMIZER_NAMES = ("adam", "sgd", "rmsprop")

#: The two training regimes: sentences (each its own string) and Elman's unbroken stream.
REGIMES = ("sentences", "stream")
#: Weight initialisations (and batch orders) when ``run`` is given no seeds: seeds 0, 1, 2.
DEFAULT_SEEDS = 3
#: Elman's training: six passes through the corpus.
ELMAN_PASSES = 6

_REGIME = dict(check=lambda v: v[0] >= 1 and v[1] > 0,
               says="(batch size ≥ 1, learning rate > 0)")


@dataclass(frozen=True)
class ElmanSettings(Settings):
    """What :func:`~course_rnn.experiments.elman.run` trains and how long.

    The network (a :func:`~course_rnn.models.build_model` kind: "srn" is Elman's, "gru" or
    "lstm" for comparison) and its ``hidden_size``; the corpus (``sentences``, drawn with
    ``data_seed``); the cap on passes (``epochs``); the ``optimizer``; (batch size, learning
    rate) per regime (for the stream the batch is the number of parts of the stream read side by
    side); words per window of truncated BPTT (``chunk``); held-out sentences for validation and
    for reading the states (``probe``, drawn with ``probe_seed``). When a run has learned: within
    ``tolerance`` nats of the exact optimum (sentences) or a validation plateau over ``patience``
    epochs (stream; a sentence run that does not improve for ``patience`` epochs has stalled).
    The learning rate halves whenever the validation loss has not improved for ``lr_patience``
    epochs.
    """

    experiment: ClassVar[str] = "elman-clusters"
    title: ClassVar[str] = ("Elman (1990), Fig. 7: the SRN's hidden states cluster words by "
                            "category")
    chapter: ClassVar[str] = "02_srn_words"

    model: str = setting(one_of=MODEL_KINDS)
    hidden_size: int = setting(at_least=1)
    sentences: int = setting(at_least=1)
    epochs: int = setting(at_least=1)
    optimizer: str = setting(one_of=OPTIMIZER_NAMES)
    sentences_regime: tuple[int, float] = setting(**_REGIME)
    stream_regime: tuple[int, float] = setting(**_REGIME)
    chunk: int = setting(at_least=1)
    probe: int = setting(at_least=1)
    data_seed: int = setting()
    probe_seed: int = setting()
    tolerance: float = setting(between=(0, 1000))  # nats above the optimum (tests: 2, 5)
    patience: int = setting(at_least=1)
    lr_patience: int = setting(at_least=1)

    def regime(self, name: str) -> tuple[int, float]:
        """(batch size, learning rate) of the regime ``name`` (one of :data:`REGIMES`)."""
        return self.sentences_regime if name == "sentences" else self.stream_regime


SETTINGS = Scales(
    # the book's scale: 3 seeds × 2 regimes, in parallel processes
    quick=ElmanSettings(model="srn", hidden_size=32, sentences=3_000, epochs=100, optimizer="adam",
                        sentences_regime=(64, 0.02), stream_regime=(8, 0.01), chunk=30,
                        probe=2_000, data_seed=1, probe_seed=99, tolerance=0.02, patience=10,
                        lr_patience=2),
    # Elman (1990): 150 hidden units, 10,000 sentences, plain backprop one word at a time (we
    # update once per training string, or per window of the stream: batch size 1). He stopped
    # after 6 passes; we train until the same criteria as the book's scale are met.
    paper=ElmanSettings(model="srn", hidden_size=150, sentences=10_000, epochs=60, optimizer="sgd",
                        sentences_regime=(1, 0.1), stream_regime=(1, 0.1), chunk=30,
                        probe=2_000, data_seed=1, probe_seed=99, tolerance=0.02, patience=10,
                        lr_patience=2),
)
