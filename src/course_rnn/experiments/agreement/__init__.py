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
  (:func:`classifier_criterion`); ``epochs`` is only a cap;
* a language model until its validation loss stops improving (a plateau over ``lm_patience``
  epochs).

The experiments:

* **Table 1, number prediction** – read the prefix up to the verb, say singular (0) or plural (1);
  every model × seed, tested on a *natural* set (distributed like training), a set *balanced* by
  attractors (0–3; Linzen's rule: intervening nouns of the other number) and a set with exactly
  one attractor and ``n`` = 0, 1, 2 non-attractor nouns (**Table 2**);
* **Table 1, grammaticality** – read the whole sentence with the right or the wrong verb, say
  whether it agrees (both forms of every training sentence; ``gram_models``, ``gram_seeds``;
  the LSTM and the DRNN on ``gram_pair_seeds``, for the interval of their difference);
* **Fig. 5, the learned α** – DRNNs on grammaticality from several starting values with the
  authors' parametrisation (α itself is trained); the paper reports α → ≈ 0.8 from any start;
* **Table 4, Marvin & Linzen (2018) pairs** – an LSTM and a DRNN *language model* trained on the
  corpus; the share of minimal pairs where the agreeing form is more probable after the prefix
  (:func:`course_rnn.metrics.agreement_accuracy`).

**Verdicts.** Our corpus is not Wikipedia: its natural test set has far more attractors, and a
95-word grammar is easier. So the absolute accuracies are "not comparable"; what is compared is
each model's distance from the LSTM (the paper's claims are about architectures), on two
attractor mixes that bracket a Wikipedia-like one: our natural set and the sentences without
attractors. Each row is a :class:`~course_rnn.experiments.replication.Claim`, a rule checked on
the numbers and decided by the runs of its (task, model) pairs, judged as every experiment's rows
are (:func:`~course_rnn.experiments.replication.judged_rows`, by
:func:`~course_rnn.experiments.replication.judge`): where the two mixes disagree about the
verdict, the rule cannot tell and the row is "not comparable"; where both disagree with the
paper, the deciding runs are trained to twice their budget before a "differs".

``run(scale="quick")`` is what the chapter shows (the runs go to parallel worker processes,
:func:`course_rnn.experiments.workers.parallel_map`); ``scale="paper"`` uses the paper's sizes
(Appendix A.4: hidden = embedding = 50, Adam 1e-3, 3 runs, ~150K training sentences) and is meant
for a GPU.

The module reads top to bottom as :func:`run` uses it: the settings (:mod:`.settings`, read
alone by the command line, with the models and the data's seeds), the paper's figures and the
tolerances of the verdicts, the data, the jobs (one training run and its scores; every run in
worker processes), the numbers (one :class:`Run` record per training run; what the rows and the
chapter read of a model's runs is computed from them), the rows (each a claim, checked at the
first budget and, where it disagrees, at twice the budget, then judged), the chapter's detailed
tables, the figures, and :func:`run`. It is long because it is one paper's four experiments
sharing one set of runs, data and verdicts; split by job, a reader followed one row of the
table through six files.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from matplotlib.figure import Figure

from ...analysis.curves import learning_curves
from ...analysis.report import markdown_table
from ...languages import Agreement, AgreementExample, Vocab
from ...languages.agreement import grammaticality, number_prediction
from ...languages.marvin_linzen import minimal_pairs
from ...metrics import agreement_accuracy
from ...models import build_model
from ...models.classifier import SequenceClassifier, classifier_accuracy
from ...models.decay_rnn import time_constant
from ...training import AnyOf, Plateau, Target, fit
from ..records import Record, Summary, mean_interval, saved_if_set, to_json
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import (
    DATA_SEEDS,
    DEFAULT_SEEDS,
    GRAM_PAIR,
    LM_MODELS,
    MODELS,
    NAME,
    REFERENCE,
    SETTINGS,
    TASKS,
    AgreementSettings,
)

# -- the paper's figures, and how close ours must come ---------------------------------------------


#: Bhatt et al. 2020, Table 1: % accuracy (number prediction, grammaticality).
PAPER_TABLE1 = {
    "SRN": (97.70, 50.12), "GRU": (98.81, 94.26), "LSTM": (98.59, 95.81),
    "DRNN": (98.66, 95.48), "SDRNN": (98.65, 96.83), "Ab-DRNN": (97.37, 85.98),
}
#: Bhatt et al. 2020, Table 2: % accuracy with 1 attractor and n = 0, 1, 2 non-attractors
#: (subject–verb distance 7).
PAPER_TABLE2 = {"DRNN": (90.65, 95.56, 96.06), "LSTM": (90.4, 95.56, 95.63)}
#: Bhatt et al. 2020, Table 4 (Wikipedia LMs on Marvin & Linzen's templates): (LSTM, DRNN).
PAPER_TABLE4 = {
    "simple_agreement": (0.92, 0.95), "sentential_complement": (0.93, 0.89),
    "short_vp_coordination": (0.85, 0.73), "long_vp_coordination": (0.80, 0.55),
    "across_pp": (0.60, 0.56), "across_subject_rc": (0.67, 0.53),
    "across_object_rc": (0.55, 0.64), "across_object_rc_no_that": (0.51, 0.65),
    "in_object_rc": (0.87, 0.77), "in_object_rc_no_that": (0.75, 0.74),
    "simple_reflexive": (0.85, 0.75), "reflexive_sentential_complement": (0.83, 0.68),
    "reflexive_across_object_rc": (0.57, 0.62),
}
#: Bhatt et al. 2020, Fig. 5: α converges to about this value from any start.
PAPER_ALPHA = 0.8
#: The categories where the controlling noun is *not* the word before the verb.
DISTANT_CATEGORIES = tuple(c for c in PAPER_TABLE4 if not c.startswith("in_object_rc"))
#: Table 4: the paper's DRNN LM minus its LSTM LM, mean share over the distant categories.
PAPER_DISTANT_DIFFERENCE = float(np.mean([PAPER_TABLE4[c][1] for c in DISTANT_CATEGORIES])) \
    - float(np.mean([PAPER_TABLE4[c][0] for c in DISTANT_CATEGORIES]))

#: Tolerances of the verdicts: Table 1 differences to the LSTM (points), α (Fig. 5), Table 4
#: (share of pairs).
POINTS_TOLERANCE, ALPHA_TOLERANCE, SHARE_TOLERANCE = 1.0, 0.1, 0.05

#: Training accuracy that counts as "learned" for sample efficiency (the epoch it is reached).
EFFICIENCY_LEVEL = 0.95
#: Accuracy below which a classifier is still at chance (a plateau there does not count).
CHANCE_FLOOR = 0.6


# -- the data --------------------------------------------------------------------------------------


def non_attractors(example: AgreementExample) -> int:
    """Intervening nouns of the subject's number (Table 2's ``n``)."""
    return len(example.intervening) - example.attractors


@dataclass
class AgreementData:
    """Every data set of the experiment (see :func:`datasets`)."""

    language: Agreement
    vocab: Vocab
    train: list[AgreementExample]  # every training example: valid + fit
    fit: list[AgreementExample]
    valid: list[AgreementExample]
    natural: list[AgreementExample]
    balanced: list[AgreementExample]
    one_attractor: list[AgreementExample]
    fit_np: list[tuple]  # (prefix, label) pairs
    valid_np: list[tuple]
    fit_gram: list[tuple]  # (sentence, grammatical?) pairs, both versions of every sentence
    valid_gram: list[tuple]
    test_gram: list[tuple]  # the balanced set, each sentence with the right or the wrong verb
    test_gram_natural: list[tuple]  # the natural set, likewise
    lm_fit: list[tuple]  # sentences for the language models
    lm_valid: list[tuple]


def datasets(settings: AgreementSettings) -> AgreementData:
    """The language, its vocabulary and every data set, from :data:`~.settings.DATA_SEEDS`.

    ``train`` (all training examples; the first ``valid_share`` of them are held out as
    ``valid``, the rest are ``fit``), ``natural``, ``balanced`` (``n_test // 4`` per attractor
    count 0–3), ``one_attractor`` (test examples); the labelled pairs ``fit_np`` / ``valid_np``
    and ``fit_gram`` / ``valid_gram`` (the grammaticality sets hold **both** versions of every
    sentence, so a sentence and its corrupted twin are never split); ``test_gram`` (the balanced
    set) and ``test_gram_natural`` (the natural set), each sentence with the right or the wrong
    verb; and the language-model corpus ``lm_fit`` / ``lm_valid``.
    """
    lang = Agreement()
    train = lang.sample_examples(settings.n_train, seed=DATA_SEEDS["train"])
    n_valid = int(settings.n_train * settings.valid_share)
    valid, fit_examples = train[:n_valid], train[n_valid:]
    balanced = lang.balanced_by_attractors(settings.n_test // 4, max_attractors=3,
                                           seed=DATA_SEEDS["balanced"])
    natural = lang.sample_examples(settings.n_test, seed=DATA_SEEDS["natural"])
    lm = lang.sample(settings.lm_sentences, seed=DATA_SEEDS["lm"])
    n_lm_valid = int(settings.lm_sentences * settings.valid_share)
    return AgreementData(
        language=lang, vocab=Vocab.for_language(lang), train=train, fit=fit_examples,
        valid=valid, natural=natural, balanced=balanced,
        one_attractor=lang.sample_examples(settings.n_test, seed=DATA_SEEDS["one_attractor"],
                                           attractors=1),
        fit_np=number_prediction(fit_examples), valid_np=number_prediction(valid),
        fit_gram=grammaticality(fit_examples, both=True),
        valid_gram=grammaticality(valid, both=True),
        test_gram=grammaticality(balanced, seed=DATA_SEEDS["gram_test"]),
        test_gram_natural=grammaticality(natural, seed=DATA_SEEDS["gram_test"]),
        lm_fit=lm[n_lm_valid:], lm_valid=lm[:n_lm_valid])


_DATA_CACHE: dict[AgreementSettings, AgreementData] = {}


def cached_datasets(settings: AgreementSettings) -> AgreementData:
    """:func:`datasets`, built once per process (each worker process builds its own copy)."""
    if settings not in _DATA_CACHE:
        _DATA_CACHE.clear()
        _DATA_CACHE[settings] = datasets(settings)
    return _DATA_CACHE[settings]


# -- the jobs: train one run, score it; every run in worker processes ------------------------------


def build(name: str, vocab: Vocab, settings: AgreementSettings, seed: int,
          alpha_init: float = 0.8, hidden: int | None = None,
          alpha_parametrisation: str = "sigmoid"):
    """Model ``name`` of :data:`~.settings.MODELS` (on the CPU) at the settings' sizes; a Decay
    RNN starts its decay at ``alpha_init`` and trains it as ``alpha_parametrisation``."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose from {', '.join(MODELS)}")
    kind, options = MODELS[name]
    if kind == "decay_rnn":
        options = {**options, "alpha_init": alpha_init,
                   "alpha_parametrisation": alpha_parametrisation}
    return build_model(kind, vocab_size=len(vocab), hidden_size=hidden or settings.hidden_size,
                       embedding_dim=settings.embedding_dim, seed=seed, **options)


def _alpha_metric(classifier) -> float:
    return classifier.model.alpha.item()


def train_classifier(name: str, train: Sequence, valid: Sequence, vocab: Vocab,
                     settings: AgreementSettings, seed: int, device=None,
                     alpha_init: float = 0.8, alpha_parametrisation: str = "sigmoid",
                     min_epochs: int = 0, resume=None):
    """``(classifier, history)``: model ``name`` under a linear head,
    ``p(y | w_1 … w_n) = softmax(V h_n + c)``, trained on ``(string, label)`` pairs until
    :func:`classifier_criterion` is met (at most ``epochs``; a run continued to twice its
    budget trains at least ``min_epochs``, within the cap :func:`~course_rnn.training.fit`
    sets for a continuation); the
    model returned is the one that met it (the criterion watches accuracy, so the weights of
    the best validation *loss* are not put back). A Decay RNN records ``α`` every
    ``alpha_every`` optimizer steps (``history.step_values("alpha")``). ``resume``: the
    History of the run to continue (twice its budget)."""
    model = build(name, vocab, settings, seed, alpha_init,
                  alpha_parametrisation=alpha_parametrisation)
    clf = SequenceClassifier(model, n_classes=2, seed=seed)
    track = {"alpha": _alpha_metric} if MODELS[name][0] == "decay_rnn" else None
    history = fit(clf, vocab, train, valid=valid, epochs=settings.epochs,
                  min_epochs=min_epochs, batch_size=settings.batch_size, lr=settings.lr,
                  until=classifier_criterion(settings), restore_best=False, seed=seed,
                  device=device, step_metrics=track, step_every=settings.alpha_every,
                  progress=False, resume=resume)
    return clf, history


def train_lm(name: str, train: Sequence, valid: Sequence, vocab: Vocab,
             settings: AgreementSettings, seed: int, device=None, min_epochs: int = 0,
             resume=None):
    """``(model, history)``: model ``name`` trained as a language model (``lm_*`` settings)
    until its validation loss stops improving (best weights kept); ``resume``: the History of
    the run to continue (at least ``min_epochs``, within the continued run's cap)."""
    model = build(name, vocab, settings, seed, hidden=settings.lm_hidden_size)
    history = fit(model, vocab, train, valid=valid,
                  epochs=settings.lm_epochs,
                  min_epochs=min_epochs,
                  batch_size=settings.lm_batch_size, lr=settings.lm_lr,
                  until=Plateau(patience=settings.lm_patience), seed=seed, device=device,
                  progress=False, resume=resume)
    return model, history


def classifier_criterion(settings: AgreementSettings) -> AnyOf:
    """When a classifier has learned: its held-out accuracy reaches ``target`` (the sentences are
    solved), or — once it is clear of chance — it stops improving for ``patience`` epochs. The
    floor matters: grammaticality classifiers sit at chance for many epochs before they find the
    verb, and a plain plateau rule would stop them there."""
    return AnyOf(Target("valid_accuracy", settings.target),
                 Plateau("valid_accuracy", patience=settings.patience, mode="max",
                         floor=CHANCE_FLOOR))


def score_number_prediction(clf, vocab: Vocab, data: AgreementData) -> dict:
    """Accuracy on the natural and balanced sets by attractors and on the one-attractor set by
    non-attractors (the :func:`classifier_accuracy` dicts)."""
    def score(examples, key):
        return classifier_accuracy(clf, vocab, number_prediction(examples),
                                   by=[key(e) for e in examples])

    return {"natural": score(data.natural, lambda e: e.attractors),
            "balanced": score(data.balanced, lambda e: e.attractors),
            "one_attractor": score(data.one_attractor, non_attractors)}


def score_grammaticality(clf, vocab: Vocab, data: AgreementData) -> dict:
    """Accuracy on the natural and the balanced set (right or wrong verb), by attractors."""
    return {test: classifier_accuracy(clf, vocab, pairs, by=[e.attractors for e in examples])
            for test, pairs, examples in (("natural", data.test_gram_natural, data.natural),
                                          ("balanced", data.test_gram, data.balanced))}


def score_marvin_linzen(lm, vocab: Vocab, n_pairs: int) -> dict[str, float]:
    """Per category of :data:`PAPER_TABLE4`: the share of ``n_pairs`` minimal pairs
    (:func:`~course_rnn.languages.marvin_linzen.minimal_pairs`) where ``lm`` finds the agreeing
    form more probable after the shared prefix."""
    return {cat: agreement_accuracy(lm, vocab, minimal_pairs(cat, n_pairs,
                                                             seed=DATA_SEEDS["pairs"]))
            ["accuracy"] for cat in PAPER_TABLE4}


class RunSpec(NamedTuple):
    """One training run: ``task`` ("number prediction", "grammaticality", "alpha" — DRNN on
    grammaticality from ``alpha_init`` with ``alpha_parametrisation`` — or "lm"), the model,
    its seed, and ``min_epochs`` (> 0 for a run continued to twice its budget)."""

    task: str
    name: str
    seed: int
    alpha_init: float = 0.8
    alpha_parametrisation: str = "sigmoid"
    min_epochs: int = 0

    @property
    def label(self) -> str:
        if self.task == "alpha":
            text = f"α ({self.alpha_parametrisation}, start {self.alpha_init:g}): " \
                   f"{self.name} seed {self.seed}"
        elif self.task == "lm":
            text = f"language model: {self.name} seed {self.seed}"
        else:
            text = f"{self.task}: {self.name} seed {self.seed}"
        return text + (" (2× budget)" if self.min_epochs else "")

    def doubled(self, history) -> RunSpec:
        """The same run continued to twice the epochs it used (same seed: a continuation)."""
        return self._replace(min_epochs=2 * math.ceil(history.convergence.epochs))


@dataclass
class TrainedRun:
    """One run trained and scored: its ``model`` (a classifier, or a language model), its
    ``history``, and its ``scores`` — for number prediction :func:`score_number_prediction`, for
    grammaticality :func:`score_grammaticality`, for a language model
    :func:`score_marvin_linzen`; a Decay RNN classifier adds its final ``"alpha"``."""

    model: object
    history: object
    scores: dict


def train_run(spec: RunSpec, settings: AgreementSettings, device: str | None = None,
              resume=None) -> TrainedRun:
    """Train and score one run (a worker-process job); ``resume``: the History of the run it
    continues (a doubled budget)."""
    data = cached_datasets(settings)
    vocab = data.vocab
    if spec.task == "lm":
        model, history = train_lm(spec.name, data.lm_fit, data.lm_valid, vocab, settings,
                                  spec.seed, device, spec.min_epochs, resume)
        return TrainedRun(model, history, score_marvin_linzen(model, vocab, settings.n_pairs))
    np_task = spec.task == "number prediction"
    train, valid = (data.fit_np, data.valid_np) if np_task else (data.fit_gram, data.valid_gram)
    model, history = train_classifier(spec.name, train, valid, vocab, settings, spec.seed, device,
                                      spec.alpha_init, spec.alpha_parametrisation,
                                      spec.min_epochs, resume)
    if spec.task == "alpha":
        scores = {}
    elif np_task:
        scores = score_number_prediction(model, vocab, data)
    else:
        scores = score_grammaticality(model, vocab, data)
    if MODELS[spec.name][0] == "decay_rnn":
        scores["alpha"] = model.model.alpha.item()
    return TrainedRun(model, history, scores)


#: Rough relative cost of a run, to start the long ones first (results keep the jobs' order).
_COST = {"lm": 4.0, "grammaticality": 3.0, "alpha": 2.0, "number prediction": 1.0}


def run_all(specs: Sequence[RunSpec], settings: AgreementSettings, device, progress=None,
            workers: int | None = None, resume: dict | None = None) -> dict[RunSpec, TrainedRun]:
    """Every run of ``specs`` in parallel worker processes; ``{spec: train_run(...)}`` in the
    order of ``specs`` (the long runs are started first). ``resume``: spec → the History it
    continues."""
    order = sorted(range(len(specs)), key=lambda i: -_COST[specs[i].task])
    resume = resume or {}
    done = parallel_map(train_run, [(specs[i], settings, str(device), resume.get(specs[i]))
                                    for i in order],
                        workers=workers, device=device, desc=NAME, progress=progress)
    by_index = dict(zip(order, done))
    return {spec: by_index[i] for i, spec in enumerate(specs)}


def grammaticality_seeds(seeds: Sequence[int], name: str, settings: AgreementSettings
                         ) -> list[int]:
    """The seeds of model ``name``'s grammaticality runs: the first ``gram_seeds`` of the run's
    ``seeds``; for the models of :data:`~.settings.GRAM_PAIR` at least ``gram_pair_seeds``,
    continued past the last of ``seeds`` where there are fewer (the DRNN-vs-LSTM difference
    needs several seeds for its interval even where number prediction runs fewer)."""
    count = settings.gram_seeds
    if name in GRAM_PAIR:
        count = max(count, settings.gram_pair_seeds)
    chosen = list(seeds[:count])
    while len(chosen) < count:
        chosen.append(max(chosen, default=-1) + 1)
    return chosen


def first_specs(seeds: Sequence[int], settings: AgreementSettings) -> list[RunSpec]:
    """The runs of the first budget: number prediction (every model × seed), grammaticality
    (``gram_models`` × their seeds: :func:`grammaticality_seeds`), α (direct, every
    start, first seed) and the two language models (first seed)."""
    specs = [RunSpec("number prediction", name, s) for name in MODELS for s in seeds]
    specs += [RunSpec("grammaticality", name, s) for name in settings.gram_models
              for s in grammaticality_seeds(seeds, name, settings)]
    specs += [RunSpec("alpha", "DRNN", seeds[0], a0, "direct") for a0 in settings.alpha_inits]
    specs += [RunSpec("lm", name, seeds[0]) for name in LM_MODELS]
    return specs


# -- the numbers -----------------------------------------------------------------------------------


def epoch_reaching(history, level: float = EFFICIENCY_LEVEL, key: str = "valid_accuracy"):
    """The first epoch whose ``key`` is at least ``level`` (None if never): sample efficiency.

    The default watches the held-out training sentences: the training accuracy of an epoch is
    averaged while the weights still change, so it lags, and a run may stop (solved) before it
    shows 95 %."""
    return next((e["epoch"] for e in history.epochs if e.get(key, -1) >= level), None)


def epochs_at_chance(history, floor: float = CHANCE_FLOOR) -> int:
    """How many epochs accuracy (on the held-out sentences) stayed below ``floor`` before it
    first passed it (all of them if it never did): the length of the initial plateau."""
    reached = epoch_reaching(history, floor)
    return len(history.epochs) if reached is None else int(reached) - 1


@dataclass(kw_only=True)
class Run(Record):
    """What one training run measured (:func:`run_of`): its ``task`` (a :class:`RunSpec`'s),
    ``model`` and ``seed``; how it ended (``epochs``, ``converged``, the library's ``stopped``
    and, in the book's words, its ``ending``: fitted, stalled …); its ``scores`` (a classifier's
    accuracy per test set, :func:`score_number_prediction` or :func:`score_grammaticality`; a
    language model's share of pairs per category, :func:`score_marvin_linzen`). A classifier
    adds the first epoch at 95 % held-out accuracy (sample efficiency), its final training and
    best held-out accuracy and the epochs it spent at chance before it found the verb; a Decay
    RNN classifier its final decay ``alpha``; an α run (Fig. 5) its ``start``, its optimizer
    steps, its last held-out accuracy and α over training (``steps``, ``alphas``)."""

    task: str
    model: str
    seed: int
    epochs: float | None = None
    converged: bool | None = None
    stopped: str | None = None
    ending: str | None = None
    scores: dict = field(default_factory=dict)
    epoch_to_95: int | None = None
    final_train_accuracy: float | None = None
    best_valid_accuracy: float | None = None
    epochs_at_chance: int | None = None
    alpha: float | None = None
    start: float | None = None
    optimizer_steps: int | None = None
    valid_accuracy: float | None = None
    steps: list[int] | None = None
    alphas: list[float] | None = None


def run_of(spec: RunSpec, trained: TrainedRun) -> Run:
    """The :class:`Run` record of ``trained``, the run of ``spec``."""
    history, record = trained.history, trained.history.convergence
    run = Run(task=spec.task, model=spec.name, seed=spec.seed, epochs=float(record.epochs),
              converged=bool(history.converged), stopped=record.stopped, ending=record.ending,
              scores={k: v for k, v in trained.scores.items() if k != "alpha"},
              alpha=trained.scores.get("alpha"))
    if spec.task == "lm":
        return run
    run.epoch_to_95 = epoch_reaching(history)
    run.final_train_accuracy = float(history.last.get("train_accuracy", float("nan")))
    run.best_valid_accuracy = float(max(history["valid_accuracy"]))
    run.epochs_at_chance = epochs_at_chance(history)
    if spec.task == "alpha":
        run.start, run.optimizer_steps = spec.alpha_init, int(record.steps)
        run.valid_accuracy = float(history.last["valid_accuracy"])
        run.steps = list(history.step_values("step"))
        run.alphas = [float(a) for a in history.step_values("alpha")]
    return run


# What the rows, the tables and the chapter read of the runs, computed from them where it is
# read (results.json saves them too: :meth:`AgreementNumbers.to_json`).


@dataclass(frozen=True)
class Training:
    """How a model's runs went, one entry per seed (each a :class:`Run`'s): epochs, converged,
    why they stopped and how each ended, the first epoch at 95 % held-out accuracy, final
    training and best held-out accuracy, the final decay α of a Decay RNN (else None), and —
    grammaticality only — the epochs spent at chance before the verb was found."""

    epochs: list[float]
    converged: list[bool]
    stopped: list[str]
    endings: list[str]  # Convergence.ending: met its plateau, not its target → "stalled"
    epoch_to_95: list[float | None]
    final_train_accuracy: list[float]
    best_valid_accuracy: list[float]
    final_alpha: list[float | None]
    epochs_at_chance: list[int] | None = saved_if_set()

    @classmethod
    def of(cls, runs: Sequence[Run], at_chance: bool = False) -> Training:
        return cls([r.epochs for r in runs], [r.converged for r in runs],
                   [r.stopped for r in runs], [r.ending for r in runs],
                   [r.epoch_to_95 for r in runs], [r.final_train_accuracy for r in runs],
                   [r.best_valid_accuracy for r in runs], [r.alpha for r in runs],
                   [r.epochs_at_chance for r in runs] if at_chance else None)


@dataclass(frozen=True, kw_only=True)
class Accuracy:
    """One model's accuracy on one task over its seeds (fractions): the natural and the balanced
    set, the balanced set by attractors, how training went; number prediction adds the natural
    set by attractors and the one-attractor set by non-attractors, grammaticality its ``seeds``
    (number prediction's are the run's) and the epochs its runs spent at chance."""

    seeds: list[int] | None = saved_if_set()
    natural: Summary
    balanced: Summary
    natural_by_attractors: dict[int, Summary] | None = saved_if_set()
    by_attractors: dict[int, Summary]
    by_non_attractors: dict[int, Summary] | None = saved_if_set()
    training: Training

    @classmethod
    def of(cls, task: str, runs: Sequence[Run]) -> Accuracy:
        """``task``'s accuracy from its runs (by seed)."""
        scores = [r.scores for r in runs]
        natural = Summary.of([s["natural"]["accuracy"] for s in scores])
        balanced = Summary.of([s["balanced"]["accuracy"] for s in scores])
        if task == TASKS[1]:
            return cls(seeds=[r.seed for r in runs], natural=natural, balanced=balanced,
                       by_attractors={k: Summary.of([s["balanced"]["by"][k] for s in scores])
                                      for k in scores[0]["balanced"]["by"]},
                       training=Training.of(runs, at_chance=True))

        def by(test: str) -> dict[int, Summary]:
            keys = sorted({k for s in scores for k in s[test]["by"]})
            return {k: Summary.of([s[test]["by"].get(k, float("nan")) for s in scores])
                    for k in keys}

        return cls(natural=natural, balanced=balanced, natural_by_attractors=by("natural"),
                   by_attractors=by("balanced"), by_non_attractors=by("one_attractor"),
                   training=Training.of(runs))


@dataclass(frozen=True)
class Alpha:
    """Fig. 5, from the α runs: α over training per start (``steps``, ``values``), its final
    value (the trained model's) and time constant τ = −1/ln α, the epochs and optimizer steps
    and last validation accuracy of each run, and the spread across starts (the claim: the
    curves meet near 0.8)."""

    parametrisation: str
    task: str
    starts: list[float]
    final: list[float]
    tau: list[float]
    epochs: list[float]
    optimizer_steps: list[int]
    valid_accuracy: list[float]
    steps: list[list[int]]
    values: list[list[float]]
    spread_start: float
    spread_end: float

    @classmethod
    def of(cls, runs: Sequence[Run]) -> Alpha:
        runs = sorted(runs, key=lambda r: r.start)
        starts, final = [r.start for r in runs], [float(r.alpha) for r in runs]
        return cls(
            "direct", "grammaticality", starts, final,
            [time_constant(a) if 0 < a < 1 else float("inf") for a in final],
            [r.epochs for r in runs], [r.optimizer_steps for r in runs],
            [r.valid_accuracy for r in runs], [r.steps for r in runs], [r.alphas for r in runs],
            float(max(starts) - min(starts)), float(max(final) - min(final)))


@dataclass(frozen=True)
class MarvinLinzen:
    """Table 4, from the language models' runs: their share of pairs per category
    (``accuracy[category][model]``), their mean over the distant categories and the DRNN's
    distance from the LSTM there (the paper's: :data:`PAPER_DISTANT_DIFFERENCE`)."""

    accuracy: dict[str, dict[str, float]]
    distant_mean: dict[str, float]
    distant_difference: float

    @classmethod
    def of(cls, runs: Sequence[Run]) -> MarvinLinzen:
        ml = {cat: {r.model: r.scores[cat] for r in runs} for cat in PAPER_TABLE4}
        distant = {name: float(np.mean([ml[c][name] for c in DISTANT_CATEGORIES]))
                   for name in LM_MODELS}
        return cls(ml, distant, distant["DRNN"] - distant["LSTM"])


def difference_tolerance(p: float, q: float, n: int, m: int) -> float:
    """The tolerance (points) on a difference of two accuracies ``p`` and ``q`` measured on
    ``n`` and ``m`` test sentences: :data:`POINTS_TOLERANCE`, or twice the difference's
    sampling error if that is larger (each error from ``p̃ = (k + 1) / (n + 2)``, so that a
    perfect score still has one)."""
    def variance(accuracy, count):
        smoothed = (accuracy * count + 1) / (count + 2)
        return smoothed * (1 - smoothed) / count

    return max(POINTS_TOLERANCE, 200 * math.sqrt(variance(p, n) + variance(q, m)))


def minus_lstm(models: Mapping[str, Accuracy], name: str) -> dict[str, float]:
    """``name`` minus :data:`~.settings.REFERENCE` (both in ``models``, one task), in points, on
    our natural test set and on the sentences without attractors (two mixes that bracket a
    Wikipedia-like one): ``{"minus_lstm_natural": …, "minus_lstm_no_attractor": …}``."""
    model, ref = models[name], models[REFERENCE]
    return {"minus_lstm_natural": 100 * (model.natural.mean - ref.natural.mean),
            "minus_lstm_no_attractor": 100 * (model.by_attractors[0].mean
                                              - ref.by_attractors[0].mean)}


class PairedDifference(NamedTuple):
    """A model minus the LSTM, in points, seed by seed (the same seeds, the same test set) on
    one mix, with the mean difference and its 95 % t-interval: "as accurate as the LSTM" is
    judged by whether that interval lies inside an equivalence margin."""

    mix: str
    seeds: int
    differences: list[float]
    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, models: Mapping[str, Accuracy], name: str, mix: str = "natural"
           ) -> PairedDifference:
        """``name`` against :data:`~.settings.REFERENCE` on ``mix``: "natural" (the natural
        test set) or "no_attractor" (the balanced set's sentences without attractors)."""
        if mix not in ("natural", "no_attractor"):
            raise ValueError(f"mix must be 'natural' or 'no_attractor', got {mix!r}")

        def per_seed(model):
            return (model.natural if mix == "natural" else model.by_attractors[0]).values

        ours, ref = per_seed(models[name]), per_seed(models[REFERENCE])
        differences = [100 * (a - b) for a, b in zip(ours, ref, strict=True)]
        return cls(mix, len(differences), differences, *mean_interval(differences))

    @property
    def farthest(self) -> float:
        """The end of the interval farthest from zero, in points (inf for one seed)."""
        return max(abs(self.low), abs(self.high))


@dataclass
class AgreementNumbers(Record):
    """Every number of the replication (see :func:`~course_rnn.experiments.agreement.run`):
    one :class:`Run` per training run, and of the data, the share of the natural test set's
    sentences with attractors, the one-attractor set's sentences per ``n``, and the test
    sentences per seed behind each mix of the rows (the natural set, the balanced set's
    sentences without attractors). Computed from the runs where they are read: per model
    ``number_prediction`` and ``grammaticality`` (:class:`Accuracy`), each model's distance
    from the LSTM per task (``relative[task][model]``: :func:`minus_lstm`), ``alpha`` (None
    without α runs) and ``marvin_linzen``.

    ``results.json`` saves those summaries, in the layout of the runs committed before they
    were computed (:meth:`to_json`): chapter 4 reads the committed run's, and every figure of
    the table is in them; the runs themselves are the summaries' per-seed entries."""

    runs: list[Run]
    natural_share_with_attractors: float
    one_attractor_count: dict[int, int]
    natural_sentences: int
    no_attractor_sentences: int

    def by_model(self, task: str) -> dict[str, list[Run]]:
        """The runs of ``task`` per model (in the order trained), each model's by seed."""
        grouped: dict[str, list[Run]] = {}
        for r in self.runs:
            if r.task == task:
                grouped.setdefault(r.model, []).append(r)
        return {name: sorted(runs, key=lambda r: r.seed) for name, runs in grouped.items()}

    @property
    def number_prediction(self) -> dict[str, Accuracy]:
        return {name: Accuracy.of(TASKS[0], runs)
                for name, runs in self.by_model(TASKS[0]).items()}

    @property
    def grammaticality(self) -> dict[str, Accuracy]:
        return {name: Accuracy.of(TASKS[1], runs)
                for name, runs in self.by_model(TASKS[1]).items()}

    def task(self, task: str) -> dict[str, Accuracy]:
        """``number_prediction`` or ``grammaticality`` by the task's name (:data:`TASKS`)."""
        return self.number_prediction if task == TASKS[0] else self.grammaticality

    @property
    def relative(self) -> dict[str, dict[str, dict[str, float]]]:
        by_task = {task: self.task(task) for task in TASKS}
        return {task: {name: minus_lstm(models, name) for name in models}
                for task, models in by_task.items() if REFERENCE in models}

    @property
    def alpha(self) -> Alpha | None:
        runs = [r for r in self.runs if r.task == "alpha"]
        return Alpha.of(runs) if runs else None

    @property
    def marvin_linzen(self) -> MarvinLinzen:
        return MarvinLinzen.of([r for r in self.runs if r.task == "lm"])

    def tolerance(self, task: str, name: str, mix: str) -> float:
        """The tolerance of ``name`` minus the LSTM on ``task`` and ``mix`` (see
        :func:`difference_tolerance`), from the test sentences behind both models' seeds."""
        models = self.task(task)

        def accuracy(model):
            return (model.natural if mix == "natural" else model.by_attractors[0]).mean

        def sentences(model):
            per_seed = self.natural_sentences if mix == "natural" \
                else self.no_attractor_sentences
            return per_seed * len(model.natural.values)

        model, ref = models[name], models[REFERENCE]
        return difference_tolerance(accuracy(model), accuracy(ref), sentences(model),
                                    sentences(ref))

    def to_json(self) -> dict:
        """The summaries the runs give, and the data's facts (see the class)."""
        facts = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                 if f.name != "runs"}
        return {"number_prediction": to_json(self.number_prediction),
                "grammaticality": to_json(self.grammaticality), "relative": self.relative,
                "alpha": to_json(self.alpha) or {}, "marvin_linzen": to_json(self.marvin_linzen),
                **facts}


def numbers_of(results: Mapping[RunSpec, TrainedRun], data: AgreementData) -> AgreementNumbers:
    """The :class:`Run` of every run of ``results`` (the first budget's, or with the runs
    continued to twice their budget in place of their first) and the test sets' facts the rows
    read."""
    first_np = next(r.scores for s, r in results.items() if s.task == TASKS[0])
    natural = np.bincount([e.attractors for e in data.natural]).tolist()
    return AgreementNumbers(
        [run_of(spec, r) for spec, r in results.items()],
        natural_share_with_attractors=float(1 - natural[0] / len(data.natural)),
        one_attractor_count=first_np["one_attractor"]["count"],
        natural_sentences=first_np["natural"]["n"],
        no_attractor_sentences=first_np["balanced"]["count"][0])


# -- the rows: ours beside Tables 1, 2 and 4 and Fig. 5 --------------------------------------------


def relative_compared(minus: Mapping[str, float], tolerance: Mapping[str, float],
                      paper_diff: float) -> tuple[float, bool | None, float]:
    """Our distance from the LSTM (natural set), whether it agrees with the paper's within each
    mix's tolerance on both attractor mixes, and the gap (``minus`` and ``tolerance``: mix →
    points, the mixes "natural" and "no_attractor"). ``agrees`` is None when the two mixes
    disagree: then the verdict depends on a mix we do not know (not comparable)."""
    mixes = ("natural", "no_attractor")
    offsets = [minus[mix] - paper_diff for mix in mixes]
    slack = [abs(o) - tolerance[mix] for o, mix in zip(offsets, mixes)]
    if all(x <= 0 for x in slack):
        return minus["natural"], True, 0.0
    if any(x <= 0 for x in slack) or (offsets[0] > 0) != (offsets[1] > 0):
        return minus["natural"], None, 0.0
    return minus["natural"], False, min(slack)


def rise_compared(by: Mapping, paper_rise: float) -> tuple[list[float], bool, float]:
    """Every seed's rise from n = 0 to n = 2 non-attractors (``by``: n → Summary), in points,
    whether each is at least half the paper's rise, and the gap."""
    rises = [100 * (b2 - b0) for b0, b2 in zip(by[0].values, by[2].values)]
    gap = max(0.0, paper_rise / 2 - min(rises))
    return rises, gap == 0, gap


def alpha_compared(alpha: Alpha) -> tuple[list[float], bool, float]:
    """Fig. 5: the final α of every start, whether each is within :data:`ALPHA_TOLERANCE` of
    0.8, and the gap."""
    farthest = float(max(abs(a - PAPER_ALPHA) for a in alpha.final))
    gap = max(0.0, farthest - ALPHA_TOLERANCE)
    return alpha.final, gap == 0, gap


def lm_compared(difference: float, paper_diff: float) -> tuple[float, bool, float]:
    """Table 4's headline: the DRNN LM's distance from the LSTM LM, whether it is within
    :data:`SHARE_TOLERANCE` of the paper's, and the gap."""
    gap = max(0.0, abs(difference - paper_diff) - SHARE_TOLERANCE)
    return difference, gap == 0, gap


def histories_by_model(results: Mapping[RunSpec, TrainedRun]) -> dict[tuple[str, str], list]:
    """``{(task, model): [history per seed]}`` of every run."""
    histories = {}
    for spec in sorted(results, key=lambda s: s.seed):
        histories.setdefault((spec.task, spec.name), []).append(results[spec].history)
    return histories


def runs_behind(histories: Mapping[tuple[str, str], list]
                ) -> Callable[[AgreementNumbers, Sequence[tuple[str, str]]], list]:
    """``runs_of`` for :func:`~..replication.judged_rows`: the histories (``histories``:
    :func:`histories_by_model` of the first runs, or of the runs with the continued ones in
    place) of the (task, model) pairs behind a row."""
    def runs_of(judged: AgreementNumbers, models: Sequence[tuple[str, str]]) -> list:
        return [h for model in models for h in histories[model]]
    return runs_of


def claims(numbers: AgreementNumbers) -> list[Claim | Row]:
    """The whole paper-vs-ours table, in its order: Table 1, Table 2, Fig. 5's α, Table 4. Each
    row is a :class:`~..replication.Claim` decided by the runs of its (task, model) pairs, or a
    :class:`~..replication.Row` that only informs ("not tested"). Which rows there are depends
    on ``numbers``, the first budget's (a row at ceiling has no rise to judge)."""
    rows = [*table1_claims(numbers), *table2_claims(numbers)]
    if numbers.alpha is not None:
        rows.append(alpha_claim(numbers.alpha))
    return rows + marvin_linzen_claims(numbers.marvin_linzen)


def to_double(numbers: AgreementNumbers, results: Mapping[RunSpec, TrainedRun]
              ) -> list[RunSpec]:
    """The runs to continue to twice their budget, in the order they were trained: every run of
    a (task, model) pair behind a row whose runs all converged and which disagrees
    (:func:`~..replication.deciding_models`)."""
    deciding = set(deciding_models(claims(numbers), numbers,
                                   runs_behind(histories_by_model(results))))
    return [spec for spec in results if (spec.task, spec.name) in deciding]


def table_rows(numbers: AgreementNumbers, results: Mapping[RunSpec, TrainedRun],
               doubled: AgreementNumbers | None = None,
               continued: Mapping[RunSpec, TrainedRun] | None = None) -> list[Row]:
    """The paper-vs-ours table: :func:`claims` judged (:func:`~..replication.judged_rows`) on
    ``results``' runs and, where a row disagrees, on ``doubled``, the numbers of ``continued``:
    ``results`` with the runs :func:`to_double` picked continued to twice their budget in
    their place (trained before, by :func:`run`; None when no row needed them)."""
    again = runs_behind(histories_by_model(continued)) if continued is not None else None
    return judged_rows(claims(numbers), numbers, doubled, runs_behind(histories_by_model(results)),
                       again)


def cannot_tell(quantity: str, paper: str, ours: Callable[[AgreementNumbers], str],
                models: tuple[tuple[str, str], ...], note: str | Callable = "") -> Claim:
    """A row whose figure is not comparable with the paper's (absolute levels on another
    corpus): its rule cannot tell (``agrees`` None), so the row says "not comparable", or "not
    converged" while any of its runs has not converged."""
    return Claim(quantity, paper, lambda judged: (ours(judged), math.nan, None, 0.0), models,
                 note)


def table1_claims(numbers: AgreementNumbers) -> list[Claim]:
    """Table 1: per task and model, the natural-set accuracy; the LSTM's (and that of a task
    trained without the LSTM) is not comparable in absolute terms, every other model's
    distance from the LSTM is judged against the paper's (:func:`relative_claim`)."""
    return [relative_claim(task, name) if task in numbers.relative and name != REFERENCE
            else reference_claim(task, name)
            for task in TASKS for name in numbers.task(task)]


def _table1_quantity(task: str, name: str) -> tuple[str, float]:
    """Table 1's quantity for ``name`` on ``task``, and the paper's figure."""
    return f"{name}: {task}, % (natural test)", PAPER_TABLE1[name][TASKS.index(task)]


def _natural_accuracy(numbers: AgreementNumbers, task: str, name: str) -> str:
    """Ours in Table 1: the natural-set accuracy, mean ± SE in %."""
    natural = numbers.task(task)[name].natural
    return pm(100 * natural.mean, 100 * natural.se, 2)


def _paper_difference(name: str, task: str) -> float:
    """Table 1: the paper's ``name`` minus its LSTM on ``task``, in points."""
    column = TASKS.index(task)
    return PAPER_TABLE1[name][column] - PAPER_TABLE1[REFERENCE][column]


def reference_claim(task: str, name: str) -> Claim:
    """The LSTM's row (or any row of a task trained without the LSTM): its accuracy, which is
    not comparable in absolute terms."""
    quantity, paper = _table1_quantity(task, name)
    why = ("the reference of the other rows" if name == REFERENCE
           else f"no {REFERENCE} trained on this task, so no reference")

    def note(judged: AgreementNumbers) -> str:
        share = 100 * judged.natural_share_with_attractors
        return (f"{why}; absolute levels are not comparable: our natural test set has "
                f"{share:.0f}% sentences with attractors and a 95-word grammar, Wikipedia "
                "far fewer attractors and a large vocabulary")

    return cannot_tell(quantity, f"{paper:.2f} (Table 1)",
                       lambda judged: _natural_accuracy(judged, task, name), ((task, name),),
                       note)


def relative_claim(task: str, name: str) -> Claim:
    """A model's distance from the LSTM on one task beside the paper's, decided by both models'
    runs (not comparable where the two attractor mixes disagree about the verdict:
    :func:`relative_compared`)."""
    quantity, paper = _table1_quantity(task, name)
    paper_diff = _paper_difference(name, task)

    def compared(judged: AgreementNumbers):
        rel = judged.relative[task][name]
        minus = {mix: rel[f"minus_lstm_{mix}"] for mix in ("natural", "no_attractor")}
        tolerance = {mix: judged.tolerance(task, name, mix) for mix in minus}
        return minus, tolerance, relative_compared(minus, tolerance, paper_diff)

    def check(judged: AgreementNumbers):
        minus, _, verdict = compared(judged)
        ours = (f"{_natural_accuracy(judged, task, name)}; − LSTM "
                f"{minus['natural']:+.2f} / {minus['no_attractor']:+.2f}")
        return (ours, *verdict)

    def note(judged: AgreementNumbers) -> str:
        minus, tolerance, verdict = compared(judged)
        text = (f"{name} − LSTM: paper {paper_diff:+.2f}, ours {minus['natural']:+.2f}"
                f" ± {tolerance['natural']:.2f} (natural) / "
                f"{minus['no_attractor']:+.2f} ± {tolerance['no_attractor']:.2f}"
                " (no attractor; ± the tolerance: 1 point or twice the sampling error)")
        if verdict[1] is None:
            text += ": the verdict depends on the attractor mix (Wikipedia's is not ours)"
        return text

    return Claim(quantity, f"{paper:.2f} (Table 1); − LSTM {paper_diff:+.2f}", check,
                 ((task, name), (task, REFERENCE)), note)


def table2_claims(numbers: AgreementNumbers) -> list[Claim | Row]:
    """Table 2: one attractor, n = 0, 1, 2 non-attractors; the paper's rise from n = 0 to 2
    (:func:`rise_claim`), not comparable where every n is at ceiling (no rise can show), not
    tested where an n has no test sentence."""
    rows = []
    for name, paper in PAPER_TABLE2.items():
        by = numbers.number_prediction[name].by_non_attractors
        missing = [n for n in range(3) if n not in by]
        if missing:  # only with a tiny test set
            rows.append(Row(_table2_quantity(name), _table2_paper(paper), "—",
                            f"not tested: no test sentence with n = {missing}"))
        elif min(100 * by[n].mean for n in range(3)) < 99:
            rows.append(rise_claim(name, paper))
        else:
            rows.append(cannot_tell(
                _table2_quantity(name), _table2_paper(paper),
                lambda judged, name=name: _one_attractor(judged, name), ((TASKS[0], name),),
                f"at ceiling for every n, so the paper's rise of {paper[2] - paper[0]:.1f} "
                "points cannot show"))
    return rows


def _table2_quantity(name: str) -> str:
    return f"{name}: 1 attractor, n = 0 / 1 / 2 non-attractors, %"


def _table2_paper(paper: tuple[float, ...]) -> str:
    return " / ".join(f"{v:.2f}" for v in paper) + " (Table 2)"


def _one_attractor(numbers: AgreementNumbers, name: str) -> str:
    """Ours in Table 2: the accuracy with n = 0, 1, 2 non-attractors, in %."""
    by = numbers.number_prediction[name].by_non_attractors
    return " / ".join(f"{100 * by[n].mean:.2f}" for n in range(3))


def rise_claim(name: str, paper: tuple[float, ...]) -> Claim:
    """Table 2's rise from n = 0 to n = 2 non-attractors (:func:`rise_compared`), decided
    by the model's number-prediction runs."""
    paper_rise = paper[2] - paper[0]

    def check(judged: AgreementNumbers):
        by = judged.number_prediction[name].by_non_attractors
        return (_one_attractor(judged, name), *rise_compared(by, paper_rise))

    def note(judged: AgreementNumbers) -> str:
        rises = rise_compared(judged.number_prediction[name].by_non_attractors, paper_rise)[0]
        return (f"rise n = 0 → 2 per seed {', '.join(f'{v:+.1f}' for v in rises)} points "
                f"(paper {paper_rise:.1f})")

    return Claim(_table2_quantity(name), _table2_paper(paper), check, ((TASKS[0], name),), note)


def alpha_claim(alpha: Alpha) -> Claim | Row:
    """Fig. 5: does α converge to about 0.8 from every start (:func:`alpha_compared`)? Not
    tested from one start only."""
    starts = " / ".join(f"{a0:g}" for a0 in alpha.starts)
    quantity = f"DRNN: learned α after training, from {starts}"
    paper = f"≈ {PAPER_ALPHA} from any start (Fig. 5)"
    if len(alpha.starts) < 2:
        return Row(quantity, paper, _final_alphas(alpha), "not tested: one start only", "")

    def note(judged: AgreementNumbers) -> str:
        accuracy = judged.alpha.valid_accuracy
        return (f"α trained directly (the authors' code), grammaticality, until solved; "
                f"validation accuracy {min(accuracy):.3f}–{max(accuracy):.3f}; spread across "
                f"starts {judged.alpha.spread_start:.2f} → {judged.alpha.spread_end:.2f}")

    return Claim(quantity, paper,
                 lambda judged: (_final_alphas(judged.alpha), *alpha_compared(judged.alpha)),
                 (("alpha", "DRNN"),), note)


def _final_alphas(alpha: Alpha) -> str:
    return " / ".join(f"{a:.3f}" for a in alpha.final)


def marvin_linzen_claims(ml: MarvinLinzen) -> list[Claim]:
    """Table 4: per category (not comparable: the corpora differ), and the headline judged: the
    DRNN LM's distance from the LSTM LM over the categories where the subject is distant
    (:func:`lm_compared`); all decided by the two language models' runs."""
    lms = tuple(("lm", name) for name in LM_MODELS)
    rows = []
    for cat, paper in PAPER_TABLE4.items():
        note = ("our LMs read sentences of the grammar, the paper's ~90M words of Wikipedia"
                if not rows else "")
        if cat.startswith("in_object_rc"):
            note = "local: the controlling noun is the word before the verb"
        rows.append(cannot_tell(
            f"Marvin & Linzen {cat}, LSTM / DRNN LM (share of pairs)",
            " / ".join(f"{p:.2f}" for p in paper) + " (Table 4)",
            lambda judged, cat=cat: " / ".join(f"{judged.marvin_linzen.accuracy[cat][name]:.2f}"
                                               for name in LM_MODELS), lms, note))

    def check(judged: AgreementNumbers):
        ours = judged.marvin_linzen
        return (f"{ours.distant_difference:+.3f}",
                *lm_compared(ours.distant_difference, PAPER_DISTANT_DIFFERENCE))

    def note(judged: AgreementNumbers) -> str:
        mean = judged.marvin_linzen.distant_mean
        return (f"LSTM {mean['LSTM']:.3f}, DRNN {mean['DRNN']:.3f}; agrees within "
                f"{SHARE_TOLERANCE}")

    rows.append(Claim("DRNN LM − LSTM LM, mean share over the distant categories",
                      f"{PAPER_DISTANT_DIFFERENCE:+.3f} (Table 4)", check, lms, note))
    return rows


# -- the chapter's detailed tables -----------------------------------------------------------------


def number_prediction_table(result: Replication) -> str:
    """Markdown: per model, natural and balanced accuracy, balanced by attractors, per seed."""
    rows = []
    for name, r in result.numbers.number_prediction.items():
        row = {"model": name, "natural test": r.natural.mean, "balanced": r.balanced.mean}
        row.update({f"{k} attr.": v.mean for k, v in r.by_attractors.items()})
        row["per seed (balanced)"] = ", ".join(f"{v:.3f}" for v in r.balanced.values)
        rows.append(row)
    return markdown_table(rows)


def training_table(result: Replication) -> str:
    """Markdown: per task and model, how training went — epochs, how each run stopped (fitted,
    stalled, ran out of steps), the epoch held-out accuracy first reached 95 % (sample
    efficiency), final accuracies."""
    rows = []
    for task in TASKS:
        for name, r in result.numbers.task(task).items():
            t = r.training
            rows.append({
                "task": task, "model": name,
                "epochs": ", ".join(f"{e:g}" for e in t.epochs),
                "stopped": ", ".join(t.endings),
                "epoch to 95 % (held out)": ", ".join("never" if e is None else f"{e:g}"
                                                      for e in t.epoch_to_95),
                "epochs at chance": ", ".join(map(str, t.epochs_at_chance or [])) or None,
                "final train acc.": ", ".join(f"{a:.3f}" for a in t.final_train_accuracy),
                "best valid acc.": ", ".join(f"{a:.3f}" for a in t.best_valid_accuracy),
            })
    return markdown_table(rows)


def one_attractor_table(result: Replication) -> str:
    """Markdown: per model, accuracy with one attractor and n non-attractors, paper's Table 2."""
    rows = []
    for name, r in result.numbers.number_prediction.items():
        row = {"model": name, **{f"n = {n}": v.mean for n, v in r.by_non_attractors.items()}}
        paper = PAPER_TABLE2.get(name)
        row["paper n = 0, 1, 2"] = ", ".join(f"{v / 100:.3f}" for v in paper) if paper else None
        rows.append(row)
    return markdown_table(rows)


def marvin_linzen_table(result: Replication) -> str:
    """Markdown: per category, our LMs' and the paper's share of pairs scored right."""
    acc = result.numbers.marvin_linzen.accuracy
    rows = [{"category": cat, **{f"{m} (ours)": acc[cat][m] for m in LM_MODELS},
             **{f"{m} (paper)": p for m, p in zip(LM_MODELS, paper)}}
            for cat, paper in PAPER_TABLE4.items()]
    return markdown_table(rows, digits=2)


# -- the figures -----------------------------------------------------------------------------------


def attractor_figure(numbers: AgreementNumbers) -> Figure:
    """Number-prediction accuracy against the number of attractors (mean over seeds)."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for name, r in numbers.number_prediction.items():
        keys = sorted(r.by_attractors)
        ax.plot(keys, [r.by_attractors[k].mean for k in keys], marker="o", label=name)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_xticks(range(4))
    ax.set_xlabel("number of attractors")
    ax.set_ylabel("number-prediction accuracy")
    ax.set_title("Converged models by attractors (mean over seeds)")
    ax.legend(fontsize=8, ncol=2)
    return fig


def alpha_figure(alpha: Alpha, sigmoid: Mapping | None = None) -> Figure:
    """α of the DRNN over optimizer steps, one curve per start (the paper's Fig. 5); ``sigmoid``:
    the σ-parametrised main run(s), dashed."""
    fig = Figure(figsize=(6, 3.5), layout="tight")
    ax = fig.add_subplot()
    for a0, xs, ys in zip(alpha.starts, alpha.steps, alpha.values):
        ax.plot(xs, ys, label=f"α trained directly, start {a0:g}")
    for label, (xs, ys) in (sigmoid or {}).items():
        ax.plot(xs, ys, ls="--", color="black", label=label)
    ax.axhline(PAPER_ALPHA, color="grey", ls=":", lw=1)
    ax.set_xlabel("optimizer step (grammaticality)")
    ax.set_ylabel(r"$\alpha$")
    ax.set_ylim(0, 1)
    ax.set_title(r"Learned decay $\alpha$ of the DRNN, each run until solved")
    ax.legend(fontsize=7)
    return fig


def curve_figures(histories: Mapping[tuple[str, str], list], seeds: Sequence[int],
                  lm_histories: Mapping[str, object]) -> dict[str, Figure]:
    """The learning curves: number prediction (every model, first seed), grammaticality, LMs."""
    first = seeds[0]
    figures = {}
    for task, key in (("number prediction", "curves"), ("grammaticality", "curves_grammaticality")):
        runs = {name: hs[0] for (t, name), hs in histories.items() if t == task and hs}
        if runs:
            figures[key] = learning_curves(
                runs, ("train_accuracy", "valid_accuracy"),
                title=f"{task.capitalize()}: learning curves (seed {first})")
    figures["curves_lm"] = learning_curves(
        lm_histories, ("train_loss", "valid_loss"),
        title=f"Language models: learning curves (seed {first})")
    return figures


def make_figures(numbers: AgreementNumbers, results: Mapping[RunSpec, TrainedRun],
                 seeds: Sequence[int]) -> dict[str, Figure]:
    """Accuracy by attractors, α during training (with the σ-parametrised main DRNN dashed),
    and the learning curves."""
    histories = histories_by_model(results)
    figures = {"attractors": attractor_figure(numbers)}
    if numbers.alpha is not None:
        main = histories.get(("grammaticality", "DRNN"), [None])[0]
        sigmoid = {"α = σ(a), start 0.8 (main run)": (main.step_values("step"),
                                                      main.step_values("alpha"))} \
            if main is not None else None
        figures["alpha"] = alpha_figure(numbers.alpha, sigmoid)
    lms = {s.name: r.history for s, r in results.items() if s.task == "lm"}
    figures.update(curve_figures(histories, seeds, lms))
    return figures


# -- run -------------------------------------------------------------------------------------------


@dataclass
class AgreementArtefacts:
    """What the chapter reads beyond the numbers (not saved): the ``data``
    (:class:`AgreementData`), the trained classifiers ``number_prediction[name, seed]``
    and ``grammaticality[name, seed]`` as ``(classifier, history)``, the α runs' histories
    ``alpha[start]`` and the language models ``lms[name]`` as ``(model, history)``."""

    data: AgreementData
    number_prediction: dict[tuple[str, int], tuple]
    grammaticality: dict[tuple[str, int], tuple]
    alpha: dict[float, object]
    lms: dict[str, tuple]

    @classmethod
    def of(cls, data: AgreementData, results: Mapping[RunSpec, TrainedRun]
           ) -> AgreementArtefacts:
        def trained(task: str) -> dict:
            return {(s.name, s.seed): (r.model, r.history) for s, r in results.items()
                    if s.task == task}

        return cls(data, trained(TASKS[0]), trained(TASKS[1]),
                   {s.alpha_init: r.history for s, r in results.items() if s.task == "alpha"},
                   {s.name: (r.model, r.history) for s, r in results.items() if s.task == "lm"})


def run(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
        progress: bool | None = None, settings: Mapping | None = None,
        workers: int | None = None) -> Replication:
    """Train every model of :data:`MODELS` on number prediction (one run per seed), the
    ``gram_models`` on grammaticality (the first ``gram_seeds`` seeds; the LSTM and the DRNN
    on at least ``gram_pair_seeds``), DRNNs with α trained
    directly from every start in ``alpha_inits`` on grammaticality (first seed), and the LSTM
    and DRNN language models (first seed), each until it has learned; score them; compare with
    the paper's Tables 1, 2, 4 and Fig. 5, training the deciding runs of any disagreement to
    twice their budget.

    Args:
        scale: "quick" (the book's) or "paper".
        seeds: a count N (seeds 0 … N−1) or a list; default 5 ("quick") or 3 ("paper").
        device: "cpu", "cuda", … (default :func:`course_rnn.utils.pick_device`).
        progress: a bar over the training runs (default: on unless ``$COURSE_RNN_PROGRESS=0``).
        settings: entries overriding the scale's :class:`~.settings.AgreementSettings` (an
            unknown key or a bad value is a ValueError).
        workers: worker processes (default: ``$COURSE_RNN_WORKERS`` or the CPU count).

    ``numbers`` (an :class:`AgreementNumbers`) holds one :class:`Run` per training run (its
    scores, fractions, and how it ended) and what is computed from them (per model and task the
    scores over the seeds, with mean and SE); ``runs`` every training history by name (the
    doubled-budget ones too); ``artefacts`` (an :class:`AgreementArtefacts`) the data,
    the trained classifiers, the α histories and the language models.
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress, workers)
    # settings: from here on, the overrides completed by the scale's settings
    settings, seeds = setup.settings, setup.seeds
    data = cached_datasets(settings)
    results = run_all(first_specs(seeds, settings), settings, setup.device, setup.progress,
                      setup.workers)
    numbers = numbers_of(results, data)

    def train_again(min_epochs, resume):
        longer = {spec: spec._replace(min_epochs=min_epochs[spec]) for spec in resume}
        done = run_all(list(longer.values()), settings, setup.device, setup.progress, setup.workers,
                       resume={longer[s]: r.history for s, r in resume.items()})
        return {spec: done[d] for spec, d in longer.items()}

    again = twice_the_budget(results, to_double(numbers, results), train_again)
    continued = {**results, **again} if again else None
    doubled = numbers_of(continued, data) if again else None
    rows = table_rows(numbers, results, doubled, continued)
    runs = {spec.label: r.history for spec, r in results.items()}
    runs.update({spec.doubled(results[spec].history).label: r.history
                 for spec, r in again.items()})
    figures = make_figures(numbers, results, seeds)
    return setup.replication(numbers, rows, figures, AgreementArtefacts.of(data, results), runs)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)

__all__ = [
    "run", "EXPERIMENTS", "NAME", "SETTINGS", "AgreementSettings", "DEFAULT_SEEDS",
    "DATA_SEEDS", "MODELS", "REFERENCE", "GRAM_PAIR", "LM_MODELS", "TASKS", "PAPER_TABLE1",
    "PAPER_TABLE2", "PAPER_TABLE4", "PAPER_ALPHA", "DISTANT_CATEGORIES", "POINTS_TOLERANCE",
    "ALPHA_TOLERANCE", "SHARE_TOLERANCE", "EFFICIENCY_LEVEL", "CHANCE_FLOOR", "AgreementData",
    "datasets", "cached_datasets", "non_attractors", "build", "classifier_criterion",
    "train_classifier", "train_lm", "RunSpec", "TrainedRun", "train_run", "run_all",
    "grammaticality_seeds", "first_specs", "epoch_reaching", "epochs_at_chance",
    "Run", "run_of", "Training", "Accuracy", "Alpha", "MarvinLinzen", "minus_lstm",
    "difference_tolerance", "PairedDifference", "AgreementNumbers", "numbers_of",
    "relative_compared", "rise_compared", "alpha_compared", "lm_compared",
    "PAPER_DISTANT_DIFFERENCE", "histories_by_model",
    "runs_behind", "claims", "to_double", "table_rows", "cannot_tell", "table1_claims",
    "reference_claim", "relative_claim", "table2_claims", "rise_claim", "alpha_claim",
    "marvin_linzen_claims", "number_prediction_table", "training_table", "one_attractor_table",
    "marvin_linzen_table", "make_figures", "AgreementArtefacts",
]
