"""Bhatt et al. (2020): the Decay RNN and subject–verb agreement (chapter 4).

Bhatt, Bansal, Singh & Agarwal (2020) compare the SRN, GRU and LSTM with three **Decay RNNs** on
Linzen et al.'s (2016) agreement tasks. A Decay RNN keeps a share ``α`` of its old state (their
Eq. 1–3; :mod:`course_rnn.models.decay_rnn`)::

    c_t = W_rec h_{t-1} + U x_t + b
    h_t = ReLU(α h_{t-1} + (1 − α) c_t)          α learned, started at 0.8

    DRNN:    W_rec = ReLU(W) D,  D = diag(+1 … +1, −1 … −1)   (Dale: 80 % excitatory units)
    SDRNN:   W_rec = W                                        ("slacked": any signs)
    Ab-DRNN: no W_rec                                         ("ablated")

This module trains them on the synthetic agreement corpus of
:class:`~course_rnn.languages.Agreement` (Linzen's Wikipedia data are not available offline) and
compares with the paper. **Every run is trained until it has learned** (the convergence record
of each is in ``Replication.runs``):

* a classifier until its validation accuracy (on a held-out share of the training sentences)
  reaches ``target``, or — once it has left chance — stops improving for ``patience`` epochs
  (:func:`classifier_criterion`); ``max_epochs`` is only a cap;
* a language model until its validation loss stops improving (a plateau over ``lm_patience``
  epochs).

The experiments:

* **Table 1, number prediction** – read the prefix up to the verb, say singular (0) or plural (1);
  every model × seed, tested on a *natural* set (distributed like training), a set *balanced* by
  attractors (0–3; Linzen's rule: intervening nouns of the other number) and a set with exactly
  one attractor and ``n`` = 0, 1, 2 non-attractor nouns (**Table 2**);
* **Table 1, grammaticality** – read the whole sentence with the right or the wrong verb, say
  whether it agrees (both forms of every training sentence; ``gram_models``, ``gram_seeds``);
* **Fig. 5, the learned α** – DRNNs on grammaticality from several starting values with the
  authors' parametrisation (α itself is trained); the paper reports α → ≈ 0.8 from any start;
* **Table 4, Marvin & Linzen (2018) pairs** – an LSTM and a DRNN *language model* trained on the
  corpus; the share of minimal pairs where the agreeing form is more probable after the prefix
  (:func:`course_rnn.metrics.agreement_accuracy`).

**Verdicts.** Our corpus is not Wikipedia: its natural test set has far more attractors, and a
95-word grammar is easier. So the absolute accuracies are "not comparable"; what is compared is
each model's distance from the LSTM (the paper's claims are about architectures), on two
attractor mixes that bracket a Wikipedia-like one: our natural set and the sentences without
attractors. Where the two mixes disagree about the verdict, the row is "not comparable"; where
both disagree with the paper, the deciding runs are trained to twice their budget before a
"differs" (:func:`course_rnn.experiments.replication.judge`).

``run(scale="quick")`` is what the chapter shows (the runs go to parallel worker processes,
:func:`course_rnn.experiments.workers.parallel_map`); ``scale="paper"`` uses the paper's sizes
(Appendix A.4: hidden = embedding = 50, Adam 1e-3, 3 runs, ~150K training sentences) and is meant
for a GPU.

The package, by job: :mod:`.settings` (``AgreementSettings``, its scales, the models and data
seeds), :mod:`.paper` (the paper's figures and the tolerances of the verdicts), :mod:`.compute`
(data, models, one training run and its scores), :mod:`.results` (the typed numbers),
:mod:`.verdicts` (each comparison as a measurement; the doubled budget), :mod:`.report` (the
paper-vs-ours table and the chapter's tables), :mod:`.figures`; and here :func:`run`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..replication import Experiment, Replication, pm, twice_the_budget
from ..setup import begin
from .compute import (
    CHANCE_FLOOR,
    EFFICIENCY_LEVEL,
    AgreementData,
    RunSpec,
    TrainedRun,
    build,
    cached_datasets,
    classifier_criterion,
    datasets,
    epoch_reaching,
    epochs_at_chance,
    first_specs,
    non_attractors,
    run_all,
    train_classifier,
    train_lm,
    train_run,
)
from .figures import alpha_figure, attractor_figure, curve_figures, make_figures
from .paper import (
    ALPHA_TOLERANCE,
    DISTANT_CATEGORIES,
    PAPER_ALPHA,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE4,
    POINTS_TOLERANCE,
    SHARE_TOLERANCE,
)
from .report import (
    doubled_requests,
    marvin_linzen_table,
    number_prediction_table,
    one_attractor_table,
    table1_rows,
    table2_rows,
    table_rows,
    training_table,
)
from .results import (
    AgreementArtefacts,
    AgreementNumbers,
    Alpha,
    Grammaticality,
    MarvinLinzen,
    NumberPrediction,
    Relative,
    difference_tolerance,
    first_numbers,
)
from .settings import (
    DATA_SEEDS,
    DEFAULT_SEEDS,
    LM_MODELS,
    MODELS,
    NAME,
    REFERENCE,
    SETTINGS,
    TASKS,
    AgreementSettings,
)
from .verdicts import (
    DoubledBudget,
    alpha_measurement,
    lm_measurement,
    relative_measurement,
    rise_measurement,
)


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None,
        workers: int | None = None) -> Replication:
    """Train every model of :data:`MODELS` on number prediction (one run per seed), the
    ``gram_models`` on grammaticality (the first ``gram_seeds`` seeds), DRNNs with α trained
    directly from every start in ``alpha_inits`` on grammaticality (first seed), and the LSTM
    and DRNN language models (first seed), each until it has learned; score them; compare with
    the paper's Tables 1, 2, 4 and Fig. 5, training the deciding runs of any disagreement to
    twice their budget.

    Args:
        scale: "quick" (the book's; "default" is accepted) or "paper".
        seeds: a count N (seeds 0 … N−1) or a list; default 2 ("quick") or 3 ("paper").
        device: "cpu", "cuda", … (default :func:`course_rnn.utils.pick_device`).
        progress: a bar over the training runs (default: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries overriding the scale's :class:`~.settings.AgreementSettings` (an
            unknown key or a bad value is a ValueError).
        workers: worker processes (default: ``$COURSE_RNN_WORKERS`` or the CPU count).

    ``numbers`` (an :class:`~.results.AgreementNumbers`) holds every score (fractions, per seed
    with mean and SE) and every run's epochs; ``runs`` every training history by name (the
    doubled-budget ones too); ``artefacts`` (an :class:`~.results.AgreementArtefacts`) the data,
    the trained classifiers, the α histories and the language models.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress, workers)
    cfg, seeds = setup.settings, setup.seeds
    data = cached_datasets(cfg)
    results = run_all(first_specs(seeds, cfg), cfg, setup.device, setup.progress, setup.workers)
    numbers = first_numbers(results, data, cfg)

    def train_again(min_epochs, resume):
        longer = {spec: spec._replace(min_epochs=min_epochs[spec]) for spec in resume}
        done = run_all(list(longer.values()), cfg, setup.device, setup.progress, setup.workers,
                       resume={longer[s]: r.history for s, r in resume.items()})
        return {spec: done[d] for spec, d in longer.items()}

    doubled = DoubledBudget(results, twice_the_budget(
        results, doubled_requests(numbers, results), train_again))
    rows = table_rows(numbers, cfg, results, doubled)
    numbers.doubled_budget = doubled.summary()
    runs = {spec.label: r.history for spec, r in results.items()}
    runs.update({spec.doubled(results[spec].history).label: r.history
                 for spec, r in doubled.results.items()})
    figures = make_figures(numbers, results, seeds)
    return setup.replication(numbers, rows, figures, AgreementArtefacts.of(data, results), runs)


EXPERIMENTS = (Experiment(
    name=NAME,
    title="Bhatt et al. (2020), Tables 1, 2 and 4, Fig. 5: number prediction and grammaticality "
          "with SRN/GRU/LSTM and Decay RNNs, the learned decay α, Marvin & Linzen pairs",
    chapter="04_agreement", run=run, settings=SETTINGS),)

__all__ = [
    "run", "EXPERIMENTS", "NAME", "SETTINGS", "AgreementSettings", "DEFAULT_SEEDS", "DATA_SEEDS",
    "MODELS", "REFERENCE", "LM_MODELS", "TASKS", "PAPER_TABLE1", "PAPER_TABLE2", "PAPER_TABLE4",
    "PAPER_ALPHA", "DISTANT_CATEGORIES", "POINTS_TOLERANCE", "ALPHA_TOLERANCE", "SHARE_TOLERANCE",
    "EFFICIENCY_LEVEL", "CHANCE_FLOOR", "AgreementData", "datasets", "cached_datasets",
    "non_attractors", "build", "classifier_criterion", "train_classifier", "train_lm",
    "epoch_reaching", "epochs_at_chance", "RunSpec", "TrainedRun", "train_run", "run_all",
    "first_specs", "AgreementNumbers", "AgreementArtefacts", "NumberPrediction",
    "Grammaticality", "Alpha", "MarvinLinzen", "Relative", "difference_tolerance",
    "first_numbers", "relative_measurement", "rise_measurement", "alpha_measurement",
    "lm_measurement", "DoubledBudget", "table_rows", "table1_rows", "table2_rows",
    "number_prediction_table", "training_table", "one_attractor_table", "marvin_linzen_table",
    "attractor_figure", "alpha_figure", "curve_figures", "make_figures", "pm",
]
