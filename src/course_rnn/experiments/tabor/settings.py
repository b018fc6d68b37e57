"""The settings of ``tabor-table4``, per scale (the book's "quick", Tabor's "paper"), and the
groups of runs they train."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from ..settings import Scales, Settings, seed_list, setting

#: The seed counts of the groups of runs (a count N means seeds 0 … N−1).
SEED_KEYS = ("seeds", "eos_seeds", "equal_rate_seeds", "hc_seeds")

#: Backprop groups: name -> (grammar, end marker?, Gaussian units, seeds key, equal rates?).
BACKPROP = {
    "G1 stream": (1, False, 3, "seeds", False),
    "G2 stream": (2, False, 3, "seeds", False),
    "G1 with </s>": (1, True, 4, "eos_seeds", False),
    "G1 equal rates": (1, False, 3, "equal_rate_seeds", True),
}
#: Hill-climbing groups (Tabor's own trainer; stream targets, three Gaussian units).
HILL_CLIMB = {"HC G1 stream": 1, "HC G2 stream": 2}


@dataclass(frozen=True)
class TaborSettings(Settings):
    """What :func:`~course_rnn.experiments.tabor.run` trains and how long.

    Seeds (counts: N means seeds 0 … N−1): ``seeds`` for the backprop stream groups,
    ``eos_seeds`` with ``</s>``, ``equal_rate_seeds`` for Grammar 1 with the self-weights at
    the full learning rate, ``hc_seeds`` for the climber. Backprop: Adam at ``lr``, the
    self-weights at ``scale_lr_factor`` × lr, until the mean KL per position is below
    ``kl_target`` (Tabor's 0.001), at most ``epochs`` full-batch epochs (``equal_rate_epochs``
    for the equal-rate runs), the learning curve recorded (and the criterion checked) every
    ``eval_every`` epochs; ``plateau_patience``: the plateau of the KL that ends a ``</s>`` run,
    and an equal-rate run that cannot learn (relative gain below ``plateau_min_delta`` over that
    many epochs). The climber, on the grammars ``hc_grammars``: ``hc_radii`` in turn, each until
    no move helps, at most ``hc_steps`` moves.
    """

    experiment: ClassVar[str] = "tabor-table4"
    title: ClassVar[str] = "Tabor (2011), Table 4: fractal learning networks on Grammars 1 and 2"
    chapter: ClassVar[str] = "05_dynamical_automata_training"

    seeds: int = setting(at_least=1)
    eos_seeds: int = setting(at_least=1)
    equal_rate_seeds: int = setting(at_least=1)
    hc_seeds: int = setting(at_least=1)
    hc_grammars: tuple[int, ...] = setting(one_of=(1, 2), says="Tabor's grammars 1 and 2")
    lr: float = setting(above=0)
    scale_lr_factor: float = setting(between=(0, 1000))  # the self-weights' lr: this × lr
    kl_target: float = setting(between=(0, 1000))  # nats per position (a test sets 10: met at once)
    epochs: int = setting(at_least=1)
    equal_rate_epochs: int = setting(at_least=1)
    eval_every: int = setting(at_least=1)
    plateau_patience: int = setting(at_least=1)
    plateau_min_delta: float = setting(above=0)
    hc_radii: tuple[float, ...] = setting(above=0, non_empty=True)
    hc_steps: int = setting(at_least=1)

    def check(self) -> None:
        if self.plateau_patience < self.eval_every:
            raise ValueError(f"setting 'plateau_patience' ({self.plateau_patience} epochs) must "
                             f"be at least 'eval_every' ({self.eval_every})")

    def group_seeds(self, seeds: int | Iterable[int] | None = None) -> dict[str, list[int]]:
        """The seeds of each key of :data:`SEED_KEYS`: ``seeds`` (a count or a list) for every
        group when given, else each group's own count."""
        return {key: seed_list(seeds, getattr(self, key)) for key in SEED_KEYS}


SETTINGS = Scales(
    # the book's: Grammar 1 climbed once (the chapter's), two runs of each backprop group
    quick=TaborSettings(seeds=2, eos_seeds=2, equal_rate_seeds=2, hc_seeds=1, hc_grammars=(1,),
                        lr=0.02, scale_lr_factor=0.1, kl_target=0.001, epochs=20_000,
                        equal_rate_epochs=4000, eval_every=10, plateau_patience=300,
                        plateau_min_delta=0.01, hc_radii=(0.02, 0.005, 0.001),
                        hc_steps=100_000),
    # Tabor's: 15 networks per grammar, both grammars climbed
    paper=TaborSettings(seeds=15, eos_seeds=15, equal_rate_seeds=15, hc_seeds=15,
                        hc_grammars=(1, 2), lr=0.02, scale_lr_factor=0.1, kl_target=0.001,
                        epochs=50_000, equal_rate_epochs=20_000, eval_every=10,
                        plateau_patience=300, plateau_min_delta=0.01,
                        hc_radii=(0.02, 0.005, 0.001), hc_steps=200_000),
)
