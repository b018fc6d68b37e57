"""The settings of ``bengio-kn``, per scale (chapter 1's "quick", the paper's "paper"), and the
MLP variants it trains."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...checks import is_integer
from ..settings import Scales, Settings, setting

#: Words of frequency ≤ 3 merged (Bengio et al. 2003, §4): a word is kept when seen at least 4
#: times (here, not beside Table 1's other figures in the experiment's module, so that the
#: command line reads the settings without importing torch).
BROWN_MIN_COUNT = 4

#: MLP variant -> direct connections (``W x``)?
VARIANTS = {"no direct": False, "direct": True}


@dataclass(frozen=True)
class BengioSettings(Settings):
    """What :func:`~course_rnn.experiments.bengio.run` fits and trains, and how long.

    * count models: ``kn_orders`` (distinct integers ≥ 2, stored sorted; the unigram is always
      added), ``discount`` (interpolated Kneser–Ney's one D; modified Kneser–Ney estimates its
      own three);
    * data: ``min_count`` (rarer training words become ``<unk>``), ``test_sentences`` scored and
      ``valid_sentences`` watched (None = all of the part);
    * the MLPs: ``variants`` trained (distinct names from :data:`VARIANTS`), each from every
      seed of ``seeds`` (a count N means 0 … N-1; stored as the list); ``hidden_size`` (h),
      ``embedding_dim`` (m), ``context`` (n - 1); ``embedding_std`` of their initial
      embeddings;
    * training: Adam at ``lr`` on batches of ``batch_size`` n-grams with ``weight_decay``; the
      learning rate is multiplied by ``lr_factor`` when ``lr_patience`` evaluations in a row
      did not improve the validation loss (None: a constant rate); evaluated every
      ``eval_every`` steps; converged when ``patience`` evaluations improve the validation loss
      by less than ``min_delta`` (relative); at most ``epochs`` epochs (a cap, not a
      budget).
    """

    experiment: ClassVar[str] = "bengio-kn"
    title: ClassVar[str] = ("Bengio et al. (2003), Table 1: neural n-gram MLPs vs Kneser–Ney "
                            "n-grams, test perplexity (Brown there, Austen here)")
    chapter: ClassVar[str] = "01_embeddings"

    kn_orders: tuple[int, ...] = setting(at_least=2, non_empty=True)
    discount: float = setting(check=lambda d: 0 < d <= 1, says="a number in (0, 1]")
    min_count: int = setting(at_least=1)
    test_sentences: int | None = setting(at_least=1)
    valid_sentences: int | None = setting(at_least=1)
    variants: tuple[str, ...] = setting(one_of=VARIANTS, non_empty=True)
    seeds: tuple[int, ...] = setting(non_empty=True)
    hidden_size: int = setting(at_least=1)
    embedding_dim: int = setting(at_least=1)
    context: int = setting(at_least=1)
    embedding_std: float = setting(above=0)
    batch_size: int = setting(at_least=1)
    lr: float = setting(above=0)
    weight_decay: float = setting(at_least=0)
    lr_factor: float = setting(between=(0, 1))
    lr_patience: int | None = setting(at_least=0)
    eval_every: int = setting(at_least=1)
    patience: int = setting(at_least=1)
    min_delta: float = setting(at_least=0)
    epochs: int = setting(at_least=1)

    def __post_init__(self):
        if is_integer(self.seeds) and not isinstance(self.seeds, bool):  # a count N: 0 … N-1
            object.__setattr__(self, "seeds", tuple(range(max(int(self.seeds), 0))))
        super().__post_init__()
        object.__setattr__(self, "kn_orders", tuple(sorted(self.kn_orders)))

    def replace(self, overrides=None, /, **more) -> BengioSettings:
        """:meth:`Settings.replace`, reading ``--set seeds=N`` as a count (seeds 0 … N-1), as
        ``{"seeds": N}`` is read; ``seeds=[N]`` or ``seeds=1,4`` are lists of seeds."""
        changes = {**(overrides or {}), **more}
        seeds = changes.get("seeds")
        if isinstance(seeds, str) and seeds.strip().isdigit():
            changes["seeds"] = int(seeds)
        return super().replace(changes)

    def check(self) -> None:
        if len(set(self.kn_orders)) != len(self.kn_orders):
            raise ValueError(f"setting 'kn_orders' must be distinct integers ≥ 2 (the unigram is "
                             f"always fitted), got {list(self.kn_orders)!r}")
        if len(set(self.variants)) != len(self.variants):
            raise ValueError(f"setting 'variants' must name each variant of {list(VARIANTS)} "
                             f"once, got {list(self.variants)!r}")
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"setting 'seeds' must be different from each other, got "
                             f"{list(self.seeds)!r}")


SETTINGS = Scales(
    # chapter 1: the paper's MLP1 sizes without direct connections, one seed, 800 test sentences
    quick=BengioSettings(
        kn_orders=(3, 4, 5), discount=0.75, min_count=BROWN_MIN_COUNT, test_sentences=800,
        valid_sentences=1000, variants=("no direct",), seeds=(0,), hidden_size=50, embedding_dim=60,
        context=4, embedding_std=0.01, batch_size=256, lr=6e-3, weight_decay=0.0, lr_factor=0.5,
        lr_patience=0, eval_every=500, patience=2, min_delta=1e-3, epochs=10),
    # both variants, three seeds, the whole validation and test parts, a longer plateau
    paper=BengioSettings(
        kn_orders=(3, 4, 5), discount=0.75, min_count=BROWN_MIN_COUNT, test_sentences=None,
        valid_sentences=None, variants=("no direct", "direct"), seeds=3, hidden_size=50,
        embedding_dim=60, context=4, embedding_std=0.01, batch_size=256, lr=6e-3, weight_decay=0.0,
        lr_factor=0.5, lr_patience=0, eval_every=1000, patience=4, min_delta=1e-3,
        epochs=40),
)
