"""Bengio et al. (2003), Table 1: neural n-gram MLPs against Kneser–Ney n-grams (chapter 1).

The paper compares, on the Brown corpus, count-based n-gram models with its neural n-gram model

    y = b + W x + U tanh(d + H x),   x = (C(w_{t-n+1}), …, C(w_{t-1})),   P(w_t | ·) = softmax(y)

(:class:`~course_rnn.models.bengio.BengioMLP`; ``W x`` are the optional *direct connections*),
and the MLP mixed with a count model. :func:`run` does the same on the corpus that ships with the
library, Jane Austen's six novels (sentences shuffled and split 80/10/10 by seed 0; words seen
fewer than ``min_count`` = 4 times in the training text read as ``<unk>``, as the paper merged
Brown's words of frequency ≤ 3):

* the count models, fitted on the training text over the MLP's vocabulary: interpolated
  Kneser–Ney with one discount ``D`` (:class:`~course_rnn.models.kneser_ney.KneserNeyLM`) and
  modified Kneser–Ney with three estimated discounts per order
  (:class:`~course_rnn.models.kneser_ney.ModifiedKneserNeyLM`), of every order in
  ``kn_orders``, plus the unigram model as a floor. The **best count model** is the one with the
  lowest *validation* perplexity;
* the MLP variants of ``variants`` ("no direct", "direct"), ``context`` words of context, each
  from every seed of ``seeds``, trained by :func:`course_rnn.training.fit` (Adam, embeddings
  drawn from N(0, ``embedding_std``²), the learning rate halved when the validation loss stalls)
  **until the validation loss has plateaued**: evaluated every ``eval_every`` steps on the first
  ``valid_sentences`` validation sentences, stopped once ``patience`` evaluations improved it by
  less than ``min_delta`` (relative), the best weights restored; ``max_epochs`` is only a cap;
* the mixture ``P = λ P_MLP + (1 − λ) P_count`` of each MLP with the best count model, ``λ``
  tuned on the same validation sentences (the paper's MLP10 mixes its MLP9 with a trigram).

Every model is scored on the same test sentences (the first ``test_sentences`` of the shuffled
test part; None: all of them): perplexity ``exp(-mean log P)`` per predicted token, each word and
each ``</s>``. Perplexities over different corpora and vocabularies do not compare, so the
verdicts compare each model *relative to the best count model of its own corpus*. A verdict
waits for convergence (:func:`~course_rnn.experiments.replication.judge`): a disagreement is
re-checked with every MLP trained to twice the epochs it used.

``run(scale="quick")`` is what chapter 1 shows. The count models (pure Python) and the MLPs
train in parallel worker processes (:func:`~course_rnn.experiments.workers.parallel_map`).

The package, by job: ``paper`` (Table 1's figures), ``settings`` (:class:`BengioSettings` per
scale in :data:`SETTINGS`), ``compute`` (the corpus, the count models, the MLPs and their
mixture), ``results`` (:class:`BengioNumbers`, read by attribute), ``report`` (the table and
its verdicts), ``figures``; :func:`run` here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from ...analysis.curves import learning_curves
from ...models.bengio import ngram_pairs
from ..replication import Experiment, Replication, needs_twice, twice_the_budget
from ..setup import begin
from .compute import (
    NAME,
    AustenData,
    CountModels,
    NextWordInChunks,
    TrainedMLP,
    austen_data,
    count_models,
    kn_name,
    mixture_probs,
    mixture_weight,
    mlp_name,
    perplexity_of,
    run_name,
    train_all,
    train_mlp,
)
from .figures import curves_figure, perplexity_figure
from .paper import (
    BROWN_EPOCHS,
    BROWN_MIN_COUNT,
    BROWN_TRAIN_WORDS,
    BROWN_VOCAB,
    PAPER_CLASS_BASED,
    PAPER_KN,
    PAPER_MIXTURE,
    PAPER_MLP,
)
from .report import mixture_measurement, mlp_measurement, table_rows
from .results import (
    BengioArtefacts,
    BengioNumbers,
    Budget,
    Corpus,
    MlpRun,
    Ratio,
    Relative,
    numbers_of,
)
from .settings import SETTINGS, VARIANTS, BengioSettings

TITLE = ("Bengio et al. (2003), Table 1: neural n-gram MLPs vs Kneser–Ney n-grams, "
         "test perplexity (Brown there, Austen here)")


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None, *,
        data: AustenData | None = None, workers: int | None = None) -> Replication:
    """Fit the count models, train the MLPs to convergence, mix them, compare with Table 1.

    Args:
        scale: "quick" (chapter 1; "default" is accepted) or "paper" (both variants, three seeds,
            the whole validation and test parts); see :data:`SETTINGS`.
        seeds: a count N (seeds 0 … N-1) or a list of seeds, used by every MLP variant;
            None: the settings' seeds. They replace the settings' ``seeds``.
        device: where the MLPs train ("cpu", "cuda", …; :func:`~course_rnn.utils.pick_device`).
            The count models are counted in Python on the CPU whatever the device.
        progress: a bar over the jobs (None: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries that override ``SETTINGS[scale]`` (an unknown key or a bad value is a
            ValueError naming it).
        data: the corpus from :func:`austen_data`, if the caller has it already (chapter 1
            does), so that it is not read twice; its ``min_count`` must match the settings.
        workers: processes for :func:`~course_rnn.experiments.workers.parallel_map` (None: one
            per CPU core, or ``$COURSE_RNN_WORKERS``).

    Returns a :class:`Replication` whose ``numbers`` are :class:`BengioNumbers`, whose ``runs``
    are the MLPs' training histories and whose ``artefacts`` are :class:`BengioArtefacts` (the
    trained MLPs, each a :class:`TrainedMLP`, the count models' token probabilities, the data).
    Figures: ``curves`` (training and validation loss of every run), ``valid_perplexity`` (the
    runs' validation perplexity against the count models) and ``perplexities`` (relative to the
    best count model, paper and ours).
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, "seeds", device, progress,
                  workers)
    config = setup.settings.replace(seeds=setup.seeds)  # the seeds given replace the settings'
    setup = dataclasses.replace(setup, settings=config)
    device, progress = setup.device, setup.progress
    if data is None:
        data = austen_data(min_count=config.min_count)
    elif not isinstance(data, AustenData) or data.min_count != config.min_count:
        raise ValueError(f"data must come from austen_data(min_count={config.min_count}), "
                         f"got {type(data).__name__} with min_count "
                         f"{getattr(data, 'min_count', None)!r}")
    scored, watched = data.scored(config.test_sentences), data.watched(config.valid_sentences)
    keys = [(variant, seed) for variant in config.variants for seed in config.seeds]
    pairs = tuple(ngram_pairs(part, data.vocab, context=config.context)
                  for part in (data.train, watched, scored))
    count_job = (data.train, data.vocab.itos, watched, scored, config.kn_orders,
                 config.discount)
    mlps, counts = train_all(keys, pairs, len(data.vocab), config, device, count_job=count_job,
                             workers=workers, progress=progress)
    sizes = {"train_pairs": len(pairs[0][1]), "watched_valid_predictions": len(pairs[1][1]),
             "scored_predictions": len(pairs[2][1])}
    numbers = numbers_of(counts, mlps, config, data, sizes)
    histories = [r.history for r in mlps.values()]
    deciding = keys if any(needs_twice(measure(numbers, histories))
                           for measure in (mlp_measurement, mixture_measurement)) else []

    def train_again(min_epochs, resume):
        again, _ = train_all(keys, pairs, len(data.vocab), config, device, min_epochs,
                             workers=workers, progress=progress,
                             resume={key: r.history for key, r in resume.items()})
        return again

    doubled_runs = twice_the_budget(mlps, deciding, train_again,
                                    epochs=lambda r: r.history.convergence.epochs)
    doubled = (numbers_of(counts, doubled_runs, config, data, sizes),
               [r.history for r in doubled_runs.values()]) if doubled_runs else None
    rows = table_rows(numbers, config, histories, doubled)
    runs = {run_name(*key): mlps[key].history for key in keys}
    runs.update({f"{run_name(*key)}, twice the epochs": r.history
                 for key, r in doubled_runs.items()})
    seconds = {run_name(*key): r.history.seconds for key, r in mlps.items()}
    seconds.update(counts.seconds)
    cpu_seconds = {run_name(*key): r.cpu_seconds for key, r in mlps.items()}
    cpu_seconds["count models"] = counts.cpu_seconds
    figures = {"curves": learning_curves({run_name(*k): mlps[k].history for k in keys},
                                         title="The MLPs' learning curves (Adam, "
                                               "until validation plateaus)"),
               "valid_perplexity": curves_figure(mlps, numbers),
               "perplexities": perplexity_figure(numbers, config)}
    artefacts = BengioArtefacts(mlps, counts.probs, counts.model, data, *pairs, seconds,
                                cpu_seconds, doubled_runs)
    return setup.replication(numbers, rows, figures, artefacts, runs)


EXPERIMENTS = (Experiment(name=NAME, title=TITLE, chapter="01_embeddings", run=run,
                          settings=SETTINGS),)

__all__ = [
    "run", "EXPERIMENTS", "NAME", "TITLE", "SETTINGS", "BengioSettings", "VARIANTS",
    "PAPER_KN", "PAPER_CLASS_BASED", "PAPER_MLP", "PAPER_MIXTURE", "BROWN_TRAIN_WORDS",
    "BROWN_EPOCHS", "BROWN_VOCAB", "BROWN_MIN_COUNT", "AustenData", "austen_data", "kn_name",
    "count_models", "CountModels", "perplexity_of", "mlp_name", "run_name", "NextWordInChunks",
    "train_mlp", "TrainedMLP", "BengioArtefacts",
    "train_all", "mixture_weight", "mixture_probs", "numbers_of", "BengioNumbers", "MlpRun",
    "Ratio", "Relative", "Corpus", "Budget", "table_rows", "mlp_measurement",
    "mixture_measurement", "curves_figure", "perplexity_figure",
]
