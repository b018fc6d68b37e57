"""``decay-rnn-agreement``'s computation: the data, the models, one training run (a job for a
worker process) and its scores, and the plan of runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ...languages import Agreement, AgreementExample, Vocab
from ...languages.agreement import grammaticality, number_prediction
from ...languages.marvin_linzen import minimal_pairs
from ...metrics import agreement_accuracy
from ...models import build_model
from ...models.classifier import SequenceClassifier, classifier_accuracy
from ...training import AnyOf, Plateau, Target, fit
from ..workers import parallel_map
from .paper import PAPER_TABLE4
from .settings import DATA_SEEDS, LM_MODELS, MODELS, NAME, AgreementSettings

#: Training accuracy that counts as "learned" for sample efficiency (the epoch it is reached).
EFFICIENCY_LEVEL = 0.95
#: Accuracy below which a classifier is still at chance (a plateau there does not count).
CHANCE_FLOOR = 0.6


# -- when has a classifier learned? ------------------------------------------------------------
def classifier_criterion(settings: AgreementSettings) -> AnyOf:
    """When a classifier has learned: its held-out accuracy reaches ``target`` (the sentences are
    solved), or — once it is clear of chance — it stops improving for ``patience`` epochs. The
    floor matters: grammaticality classifiers sit at chance for many epochs before they find the
    verb, and a plain plateau rule would stop them there."""
    return AnyOf(Target("valid_accuracy", settings.target),
                 Plateau("valid_accuracy", patience=settings.patience, mode="max",
                         floor=CHANCE_FLOOR))


# -- data ---------------------------------------------------------------------------------------
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


# -- models -------------------------------------------------------------------------------------
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
    return build_model(kind, vocab_size=len(vocab), hidden_size=hidden or settings.hidden,
                       embedding_dim=settings.embedding, seed=seed, **options)


def _alpha_metric(classifier) -> float:
    return classifier.model.alpha.item()


def train_classifier(name: str, train: Sequence, valid: Sequence, vocab: Vocab,
                     settings: AgreementSettings, seed: int, device=None,
                     alpha_init: float = 0.8, alpha_parametrisation: str = "sigmoid",
                     min_epochs: int = 0, resume=None):
    """``(classifier, history)``: model ``name`` under a linear head,
    ``p(y | w_1 … w_n) = softmax(V h_n + c)``, trained on ``(string, label)`` pairs until
    :func:`classifier_criterion` is met (at most ``max_epochs``, at least ``min_epochs``: a run
    continued to twice its budget may then go on for ``patience`` epochs more to meet its
    criterion, so that it is not cut at the very epoch it was asked to reach); the
    model returned is the one that met it (the criterion watches accuracy, so the weights of
    the best validation *loss* are not put back). A Decay RNN records ``α`` every
    ``alpha_every`` optimizer steps (``history.step_values("alpha")``). ``resume``: the
    History of the run to continue (twice its budget)."""
    model = build(name, vocab, settings, seed, alpha_init,
                  alpha_parametrisation=alpha_parametrisation)
    clf = SequenceClassifier(model, n_classes=2, seed=seed)
    track = {"alpha": _alpha_metric} if MODELS[name][0] == "decay_rnn" else None
    cap = max(settings.max_epochs, min_epochs + settings.patience if min_epochs else 0)
    history = fit(clf, vocab, train, valid=valid, epochs=cap,
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
    the run to continue (at least ``min_epochs``, then up to ``lm_patience`` more)."""
    model = build(name, vocab, settings, seed, hidden=settings.lm_hidden)
    history = fit(model, vocab, train, valid=valid,
                  epochs=max(settings.lm_max_epochs,
                             min_epochs + settings.lm_patience if min_epochs else 0),
                  min_epochs=min_epochs,
                  batch_size=settings.lm_batch_size, lr=settings.lm_lr,
                  until=Plateau(patience=settings.lm_patience), seed=seed, device=device,
                  progress=False, resume=resume)
    return model, history


# -- scoring ------------------------------------------------------------------------------------
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
    """Per category of :data:`~.paper.PAPER_TABLE4`: the share of ``n_pairs`` minimal pairs
    (:func:`~course_rnn.languages.marvin_linzen.minimal_pairs`) where ``lm`` finds the agreeing
    form more probable after the shared prefix."""
    return {cat: agreement_accuracy(lm, vocab, minimal_pairs(cat, n_pairs,
                                                             seed=DATA_SEEDS["pairs"]))
            ["accuracy"] for cat in PAPER_TABLE4}


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


# -- the runs (each one a job for a worker process) ---------------------------------------------
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


def first_specs(seeds: Sequence[int], settings: AgreementSettings) -> list[RunSpec]:
    """The runs of the first budget: number prediction (every model × seed), grammaticality
    (``gram_models`` × the first ``gram_seeds`` seeds), α (direct, every start, first seed)
    and the two language models (first seed)."""
    specs = [RunSpec("number prediction", name, s) for name in MODELS for s in seeds]
    specs += [RunSpec("grammaticality", name, s) for name in settings.gram_models
              for s in seeds[:settings.gram_seeds]]
    specs += [RunSpec("alpha", "DRNN", seeds[0], a0, "direct") for a0 in settings.alpha_inits]
    specs += [RunSpec("lm", name, seeds[0]) for name in LM_MODELS]
    return specs
