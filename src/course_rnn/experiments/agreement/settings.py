"""The settings of ``decay-rnn-agreement``, per scale, and the experiment's fixed choices (the
models compared, the tasks, the seeds of the data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...models import named_models
from ..settings import Scales, Settings, setting

NAME = "decay-rnn-agreement"

#: Display name → (registry kind, constructor options), in the order of the paper's Table 1.
MODELS: dict[str, tuple[str, dict]] = named_models("SRN", "GRU", "LSTM", "DRNN", "SDRNN",
                                                   "Ab-DRNN")
#: The model every other one is compared with (the paper's claims are relative to it).
REFERENCE = "LSTM"
#: The pair whose grammaticality difference is the paper's headline: trained on at least
#: ``gram_pair_seeds`` seeds, so that the difference is judged by an interval over seeds.
GRAM_PAIR = ("LSTM", "DRNN")
#: The two language models of the Marvin & Linzen comparison (the paper's Table 4 columns).
LM_MODELS = ("LSTM", "DRNN")
#: The two classification tasks of Table 1, as named in runs and numbers.
TASKS = ("number prediction", "grammaticality")

#: Fixed seeds of the data (the runs' seeds vary the models only): training sentences, the
#: natural, balanced and one-attractor test sets, the LM corpus and the minimal pairs.
DATA_SEEDS = {"train": 1, "natural": 2, "balanced": 3, "one_attractor": 4, "lm": 5, "pairs": 6,
              "gram_test": 0}
#: Seeds of the main (number-prediction) runs: the chapter's 8, the paper's 3. A comparison rests
#: on several seeds with an interval; with five, the intervals of "as accurate as the LSTM" and
#: "slower than the LSTM" moved by more than a quarter of their distance from the bound between
#: fresh seed offsets (benchmarks/results/robustness.md).
DEFAULT_SEEDS = {"quick": 8, "paper": 3}


@dataclass(frozen=True)
class AgreementSettings(Settings):
    """What :func:`~course_rnn.experiments.agreement.run` trains, on what, and how long.

    Classifiers: ``n_train`` training sentences (the first ``valid_share`` of them held out for
    validation), ``hidden_size`` units and ``embedding_dim`` dimensions, Adam at ``lr`` on
    batches of ``batch_size``, until the held-out accuracy reaches ``target`` or (clear of
    chance) stops improving for ``patience`` epochs, within a cap of ``epochs``; ``n_test``
    sentences per test set. α: DRNNs on grammaticality from every start in ``alpha_inits``, α
    recorded every ``alpha_every`` steps. Grammaticality: the ``gram_models`` on the first
    ``gram_seeds`` seeds, and the LSTM and the DRNN (the pair whose difference is the paper's
    headline) on at least ``gram_pair_seeds`` seeds (the run's seeds, continued past the last
    where it has fewer), so that their difference has an interval. Language models:
    ``lm_sentences`` sentences, ``lm_hidden_size`` units, Adam at ``lm_lr`` on batches of
    ``lm_batch_size`` until the validation loss stops improving for ``lm_patience`` epochs
    (within a cap of ``lm_epochs``); ``n_pairs`` Marvin & Linzen pairs per category.
    """

    experiment: ClassVar[str] = NAME
    title: ClassVar[str] = ("Bhatt et al. (2020), Tables 1, 2 and 4, Fig. 5: number prediction "
                            "and grammaticality with SRN/GRU/LSTM and Decay RNNs, the learned "
                            "decay α, Marvin & Linzen pairs")
    chapter: ClassVar[str] = "04_agreement"
    hints: ClassVar[dict[str, str]] = {"seeds": " (pass seeds= to run() for the seeds)"}

    n_train: int = setting(at_least=1)
    valid_share: float = setting(between=(0, 1))
    hidden_size: int = setting(at_least=1)
    embedding_dim: int = setting(at_least=1)
    batch_size: int = setting(at_least=1)
    lr: float = setting(above=0)
    epochs: int = setting(at_least=1)
    target: float = setting(between=(0, 1))
    patience: int = setting(at_least=1)
    n_test: int = setting(at_least=4, says="at least 4 (the balanced set has n_test // 4 "
                                           "sentences per attractor count)")
    alpha_inits: tuple[float, ...] = setting(between=(0, 1))
    alpha_every: int = setting(at_least=1)
    gram_models: tuple[str, ...] = setting(one_of=MODELS)
    gram_seeds: int = setting(at_least=1)
    gram_pair_seeds: int = setting(at_least=1)
    lm_sentences: int = setting(at_least=1)
    lm_hidden_size: int = setting(at_least=1)
    lm_epochs: int = setting(at_least=1)
    lm_patience: int = setting(at_least=1)
    lm_batch_size: int = setting(at_least=1)
    lm_lr: float = setting(above=0)
    n_pairs: int = setting(at_least=1)

    def check(self) -> None:
        for key in ("n_train", "lm_sentences"):
            n = getattr(self, key)
            if int(n * self.valid_share) < 1 or n - int(n * self.valid_share) < 1:
                raise ValueError(f"setting {key!r} = {n} leaves no validation or no training "
                                 f"sentence at valid_share = {self.valid_share}")


# Bhatt et al. (Appendix A.4): hidden = embedding = 50, Adam lr 1e-3, 3 runs, ~157K training
# sentences (batch size 1 there; 32 here). LM: embedding 200, hidden 650.
_PAPER = AgreementSettings(
    n_train=150_000, valid_share=0.1, hidden_size=50, embedding_dim=50, batch_size=32, lr=1e-3,
    epochs=50, target=0.995, patience=5, n_test=3000, alpha_inits=(0.2, 0.5, 0.8, 0.95),
    alpha_every=200, gram_models=tuple(MODELS), gram_seeds=3, gram_pair_seeds=3,
    lm_sentences=100_000,
    lm_hidden_size=650, lm_epochs=40, lm_patience=5, lm_batch_size=128, lm_lr=1e-3,
    n_pairs=1000)

SETTINGS = Scales(
    quick=AgreementSettings(
        n_train=3000, valid_share=0.1, hidden_size=24, embedding_dim=16, batch_size=128, lr=1e-2,
        epochs=150, target=0.995, patience=10, n_test=600, alpha_inits=(0.2, 0.95),
        alpha_every=10, gram_models=("SRN", "LSTM", "DRNN"), gram_seeds=1,
        gram_pair_seeds=12, lm_sentences=3000,
        lm_hidden_size=32, lm_epochs=100, lm_patience=10, lm_batch_size=64, lm_lr=1e-2,
        n_pairs=200),
    paper=_PAPER,
    # The paper scale on fewer sentences, because its corpora are out of a 2-core CPU's reach
    # (benchmarks/results/paper_costs.md, measured with one worker per core): at 27,000
    # training sentences a classifier epoch takes 2.3-11.3 s and, on 18,000 LM sentences, the
    # 650-unit LSTM language model's 51 s, so the paper's 135,000 and 90,000 sentences would
    # take five times that (≈ 4.5 min an epoch of the LSTM LM, up to 40 epochs, beside 42
    # classifier runs of up to 50 epochs of up to a minute): well over 10 hours. 20,000
    # classification and 10,000 LM sentences keep the run near half an hour.
    full=_PAPER.replace(n_train=20_000, lm_sentences=10_000),
)
