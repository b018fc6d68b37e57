"""The settings of ``urn-dyck`` and ``urn-cross-serial``, per scale (the book's "quick", the
papers' "paper")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..settings import Scales, Settings, setting


@dataclass(frozen=True)
class DyckSettings(Settings):
    """What :func:`~course_rnn.experiments.urn.run_dyck` trains and how long.

    ``train``/``valid``: strings of depth exactly ``depth`` (seeds 0 and 2); ``test``:
    unconstrained strings (seed 1), of which the first ``probe`` are also scored at every epoch
    (recorded, never used to stop or select); ``length``: symbols per string; ``hidden_size``: state
    size of every network; ``embedding_dim``: the LSTM's input embedding; ``epochs``: the cap;
    ``patience``: evaluations (epochs) without a 0.1 % better validation loss before a run
    counts as converged; ``lr_patience``: epochs of a stalled validation loss after which the
    learning rate is halved (so that a run settles into its minimum instead of bouncing at the
    noise floor of its starting rate); ``batch_size`` and ``lr`` of Adam.
    """

    experiment: ClassVar[str] = "urn-dyck"
    title: ClassVar[str] = ("Bernardy & Lappin (2022; 2023): URNs, MatrixRNN and LSTM on Dyck, "
                            "accuracy by attractors, inner nesting and outer depth")
    chapter: ClassVar[str] = "06_unitary"

    train: int = setting(at_least=1)
    valid: int = setting(at_least=1)
    test: int = setting(at_least=1)
    probe: int = setting(at_least=1)
    length: int = setting(at_least=2)
    depth: int = setting(at_least=1)
    hidden_size: int = setting(at_least=2)  # a URN needs a plane to rotate
    embedding_dim: int = setting(at_least=1)
    epochs: int = setting(at_least=1)
    patience: int = setting(at_least=1)
    lr_patience: int = setting(at_least=1)
    batch_size: int = setting(at_least=1)
    lr: float = setting(above=0)


@dataclass(frozen=True)
class CrossSerialSettings(Settings):
    """What :func:`~course_rnn.experiments.urn.run_cross_serial` trains and how long.

    ``train``: strings sampled from C_{max_total+1}; ``test_family``: test on every string of
    C_k for this k; ``hidden_sizes``: the state sizes compared (Tables 1–2); ``embedding_dim``: the
    LSTM's input embedding; ``epochs``: the cap on training until every string of the training
    family is right; ``batch_size`` and ``lr`` of Adam.
    """

    experiment: ClassVar[str] = "urn-cross-serial"
    title: ClassVar[str] = ("Bernardy & Lappin (2023), Tables 1–2 and Fig. 2: URN vs LSTM on "
                            "cross-serial C_8 → C_10")
    chapter: ClassVar[str] = "06_unitary_stacks"

    train: int = setting(at_least=1)
    max_total: int = setting(at_least=2)
    test_family: int = setting(at_least=3)
    hidden_sizes: tuple[int, ...] = setting(at_least=2, non_empty=True)
    embedding_dim: int = setting(at_least=1)
    epochs: int = setting(at_least=1)
    batch_size: int = setting(at_least=1)
    lr: float = setting(above=0)


#: urn-dyck. Paper: 102,400 strings, 100 epochs, batch 512, constant lr 0.01 (2022 §5; 2023 §4);
#: quick: batch 64 so that a few thousand strings still give 50 updates an epoch.
DYCK_SETTINGS = Scales(
    quick=DyckSettings(train=3_200, valid=512, test=5_120, probe=256, length=20, depth=3,
                       hidden_size=50, embedding_dim=12, epochs=80, patience=5, lr_patience=1,
                       batch_size=64, lr=0.01),
    paper=DyckSettings(train=102_400, valid=5_120, test=5_120, probe=512, length=20, depth=3,
                       hidden_size=50, embedding_dim=12, epochs=200, patience=10, lr_patience=2,
                       batch_size=512, lr=0.01),
)
#: urn-cross-serial. Paper (2023 §3): 51,200 strings, 100 epochs, batch 512, lr 0.001; quick:
#: 1,024 strings and lr 0.01 (far fewer updates per epoch).
CROSS_SERIAL_SETTINGS = Scales(
    quick=CrossSerialSettings(train=1_024, max_total=7, test_family=10, hidden_sizes=(8, 16, 32),
                              embedding_dim=20, epochs=400, batch_size=128, lr=0.01),
    paper=CrossSerialSettings(train=51_200, max_total=7, test_family=10, hidden_sizes=(8, 16, 32),
                              embedding_dim=20, epochs=300, batch_size=512, lr=0.001),
)
#: How many seeds each experiment trains by default (the chapter's counts).
DYCK_SEEDS = {"quick": 1, "paper": 3}
CROSS_SERIAL_SEEDS = {"quick": 2, "paper": 3}
