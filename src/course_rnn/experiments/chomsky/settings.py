"""The settings of ``chomsky``, per scale (the book's "quick", Delétang et al.'s "paper", and
"full", the committed run). Read alone by the command line (no torch): the task names are
repeated from :data:`course_rnn.languages.chomsky.TRANSDUCTIONS` (a test keeps the two equal)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..settings import Scales, Settings, setting

#: The transductions the experiment can train, in the order of the hierarchy (the names of
#: ``languages.chomsky.TRANSDUCTIONS``).
TASK_NAMES = ("parity_check", "modular_arithmetic", "reverse_string", "stack_manipulation",
              "anbn", "dyck_completion", "duplicate_string", "odds_first")
#: The tasks ``run`` trains by default: Table 2's five, then a^n b^n and Dyck-2 completion.
DEFAULT_TASKS = ("parity_check", "modular_arithmetic", "reverse_string", "stack_manipulation",
                 "duplicate_string", "anbn", "dyck_completion")


@dataclass(frozen=True)
class ChomskySettings(Settings):
    """What :func:`~course_rnn.experiments.chomsky.run` trains and how long.

    The ``tasks``; the networks' ``hidden_size`` units and the Stack-RNN's ``stack_width`` (its
    depth is the longest test string's, so the stack never overflows); training on lengths 1 …
    ``max_train_length`` (a fresh batch of ``batch_size`` strings at one length every step,
    Adam at ``lr``, gradient norm clipped at 1) for at most ``steps`` steps, evaluated every
    ``eval_every`` steps on ``valid_per_length`` fixed strings per training length. A run
    **fitted** when that accuracy reaches ``fitted``; it has **stalled** when it has not
    improved for ``patience`` evaluations below that (**stuck** when a run continued to twice its
    steps stalls again). The test: ``test_samples`` fresh strings at every
    length up to ``max_test_length``; the score is the mean per-token accuracy beyond
    ``max_train_length`` (the paper's).
    """

    experiment: ClassVar[str] = "chomsky"
    title: ClassVar[str] = ("Delétang et al. (2023), Table 2: SRN, LSTM, URN and Stack-RNN "
                            "trained on short strings, tested on longer ones, tasks across the "
                            "Chomsky hierarchy")
    chapter: ClassVar[str] = "08_chomsky"

    tasks: tuple[str, ...] = setting(one_of=TASK_NAMES, non_empty=True)
    hidden_size: int = setting(at_least=1)
    stack_width: int = setting(at_least=1)
    max_train_length: int = setting(at_least=2)
    max_test_length: int = setting(at_least=3)
    batch_size: int = setting(at_least=1)
    lr: float = setting(above=0)
    steps: int = setting(at_least=1)
    eval_every: int = setting(at_least=1)
    patience: int = setting(at_least=1)
    fitted: float = setting(between=(0, 1))
    valid_per_length: int = setting(at_least=1)
    test_samples: int = setting(at_least=1)
    seeds: int = setting(at_least=1)

    def check(self) -> None:
        if self.max_test_length <= self.max_train_length:
            raise ValueError(f"max_test_length ({self.max_test_length}) must exceed "
                             f"max_train_length ({self.max_train_length}): the score is taken "
                             "on the lengths beyond training")
        if self.eval_every > self.steps:
            raise ValueError(f"eval_every ({self.eval_every}) must not exceed steps "
                             f"({self.steps})")


SETTINGS = Scales(
    # the book's scale: lengths ≤ 8, tested to 24, 32 units, 2 seeds (≈2 min). The cap of
    # 5,000 steps is one no run reaches: each stops fitted or stalled (the longest, an LSTM on
    # modular arithmetic, after ≈3,000), so that every network is compared converged
    quick=ChomskySettings(tasks=DEFAULT_TASKS, hidden_size=32, stack_width=8, max_train_length=8,
                          max_test_length=24, batch_size=32, lr=3e-3, steps=5_000, eval_every=50,
                          patience=5, fitted=0.99, valid_per_length=16, test_samples=64,
                          seeds=2),
    # the committed run ("full"). The paper's size is out of a 2-core CPU's reach — a million
    # steps of a 256-unit network on strings of up to 80 steps, ×10 seeds × 4 models × 7 tasks,
    # is weeks — and a larger network at a cap it can afford leaves most runs with their budget
    # spent (64 units, lengths ≤ 16, 1,500 steps: 58 of 84 runs, the run committed on
    # 2026-11-26). So the committed run is the book's sizes with ten seeds and a cap of 10,000
    # steps that no run reaches: every run stops fitted or stalled, and every cell has a mean with
    # an interval
    full=ChomskySettings(tasks=DEFAULT_TASKS, hidden_size=32, stack_width=8, max_train_length=8,
                         max_test_length=24, batch_size=32, lr=3e-3, steps=10_000, eval_every=50,
                         patience=5, fitted=0.99, valid_per_length=16, test_samples=64,
                         seeds=10),
    # Delétang et al. (2023): lengths ≤ 40, tested 41–500 with 512 strings each, 256 units,
    # stack cells of 8, batch 128, 1,000,000 steps (capped here: a run stops once fitted or
    # stalled), learning rate 1e-4…5e-4 (we take 3e-4), 10 seeds per rate (we take 10)
    paper=ChomskySettings(tasks=DEFAULT_TASKS, hidden_size=256, stack_width=8, max_train_length=40,
                          max_test_length=500, batch_size=128, lr=3e-4, steps=1_000_000,
                          eval_every=1_000, patience=20, fitted=0.99, valid_per_length=16,
                          test_samples=512, seeds=10),
)
