"""The syntax gym (chapter 7): every model of the course on every language, one row per run.

Each (model, language, seed) is trained as a language model with :func:`course_rnn.training.fit`
on short / shallow strings **until it has learned**: until its loss on held-out strings of the
training distribution stops improving (a :class:`~course_rnn.training.Plateau`; the epoch count
is only a cap, and a run that hits it is reported as not converged). It is then tested on
held-out *longer or deeper* strings, where nothing seen in training can be replayed. Two kinds of
score come back:

* a **common metric**, the same for every language: ``valid_strings``, the share of held-out
  strings on which *every* top prediction is a legal continuation (``valid_next``) – computed by
  :func:`course_rnn.metrics.next_symbol_validity` – and ``valid_positions``, the same share per
  position;
* the **language's own metric** (``own_metric`` names it, ``own`` holds it), the one its chapter
  uses: ``max_correct_n`` for a^n b^n (chapter 3), closing-bracket accuracy for Dyck with
  chapter 6's breakdown by attractors, inner nesting and outer depth (``breakdown``), Bernardy &
  Lappin's whole-string accuracy for cross-serial strings (chapter 6), the share of mirrored
  symbols predicted right for palindromes, and Linzen's agreement accuracy on sentences balanced
  by attractors (chapter 4).

=================  ===============================  ================================================
language           trained on                       tested on
=================  ===============================  ================================================
``anbn``           a^n b^n, n ≤ 10                  n = 11 … 20 (own metric: up to n = 40)
``dyck``           2 bracket pairs, length 16,      length 16, depth ≥ 5 (the seeds' generator)
                   depth exactly 3
``cross_serial``   a^m b^n c^m d^n, m + n ≤ 7 (C_8)  m + n = 8, 9 (the rest of C_10)
``palindrome``     w c w^R, |w| ≤ 6                 |w| = 7 … 9
``agreement``      the agreement grammar, ≤ 1 PP    ≤ 2 PPs, balanced over 0–3 attractors
=================  ===============================  ================================================

Models are built with :func:`course_rnn.models.build_model` at one state size (``hidden_size``) so
that the table compares inductive biases, not sizes; the parameter counts differ and are reported.
The FLNN (Tabor 2011) is a special-purpose network – a *linear* state that each word moves by
one affine map (a scalar contraction or expansion plus a shift) and a few Gaussian read-out
units. It is the dynamical automaton of chapter 5 made trainable, and runs where Tabor's
construction applies: a language whose next words depend on a **stack alone**, with no control
state (:data:`FLNN_LANGUAGES`: Dyck, where each bracket pushes or pops and the top of the stack
says what may close). a^n b^n and palindromes also need to know *which phase* of the string the
reader is in (before or after the first b, the marker), cross-serial strings need a queue, and
the agreement grammar is English; there :func:`applicable` is False and the gym skips it.
The Stack-RNN (Delétang et al. 2023, chapter 8) is the other end: a simple recurrent controller
with an external stack of vectors it pushes to and pops from (push, pop and no-op mixed by a
softmax), the network of the course whose memory is not bounded by its state. It runs on every
language at the gym's state size, its stack 64 cells of 8 numbers (the model's defaults; the
longest test string, a^40 b^40, reads 81 symbols, and only a^n b^n's a's would need pushing).

Independent runs train in parallel worker processes
(:func:`~course_rnn.experiments.workers.parallel_map`). ``run(scale="quick")`` is what chapter 7
calls; ``scale="paper"`` is larger; ``settings=`` overrides any entry of the scale's
:class:`~.settings.GymSettings` (a language's entries one by one: ``{"languages": {"anbn":
{"epochs": 2}}}``).

The module reads top to bottom as :func:`run` uses it: the settings (:mod:`.settings`, read
alone by the command line), each language's task (its data and own metric), the jobs (one model
on one language, trained and scored; every run in worker processes), the numbers (one
:class:`GymRun` per run; a :class:`Cell`, a model's means on a language, computed where it is
read), the rows (the chapter's tables and the papers' claims, each judged, the disagreements at
twice the epochs), the figures, and :func:`run`. It is long because the gym is one experiment
whose parts are read in that order: split by job, a reader followed one run through six files.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...analysis.curves import learning_curves
from ...languages import Agreement, AnBn, CrossSerial, Palindrome, Vocab, make_language
from ...languages.base import EOS
from ...metrics import (
    agreement_accuracy,
    anbn_generalisation,
    cross_serial_accuracy,
    dyck_closing_accuracy,
    next_symbol_logits,
    next_symbol_validity,
)
from ...models import build_model
from ...training import Plateau, fit
from ..records import Record, unsaved
from ..replication import (
    Claim,
    Experiment,
    Replication,
    Row,
    deciding_models,
    judged_rows,
    twice_the_budget,
)
from ..setup import begin
from ..urn import dyck_cuts, pooled_scores
from ..workers import parallel_map
from .settings import (
    DEFAULT_SEEDS,
    DYCK_DEPTH,
    FLNN_LANGUAGES,
    GYM_LANGUAGES,
    GYM_MODELS,
    OWN_METRICS,
    SETTINGS,
    GymLanguageSettings,
    GymSettings,
)

# -- the tasks: each language's data, held-out strings and own metric ---------------------------


@dataclass
class Task:
    language: object  # the language whose valid_next judges the held-out strings
    vocab: Vocab
    train: list
    valid: list  # held-out strings of the *training* distribution: the convergence monitor
    test: list  # longer / deeper strings
    own: Callable  # own(model) -> float
    epochs: int  # the cap
    breakdown: Callable | None = None  # breakdown(model) -> {name: float}, Dyck only


def _mirror_accuracy(model, vocab: Vocab, marker: str, strings: Sequence) -> float:
    """Share of the forced positions of w c w^R (every symbol after the marker, and the end)
    where the model's top prediction is the right one."""
    symbols = vocab.output_symbols
    right = []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        targets = list(s[1:]) + [EOS]
        centre = s.index(marker)
        for t in range(centre + 1, len(s) + 1):
            right.append(symbols[int(np.argmax(logits[t]))] == targets[t - 1])
    return float(np.mean(right))


@lru_cache(maxsize=16)
def cached_task(name: str, language_settings: GymLanguageSettings) -> Task:
    """:func:`make_task`, made once per worker process for each language and its settings."""
    return make_task(name, language_settings)


def make_task(name: str, language_settings: GymLanguageSettings) -> Task:
    """The gym's task ``name`` with ``language_settings``, that language's settings (same data
    every call: every sample has a fixed seed)."""
    if name not in _TASKS:
        raise ValueError(f"unknown language {name!r}: choose from {', '.join(GYM_LANGUAGES)}")
    return _TASKS[name](language_settings)


def _anbn_task(language_settings: GymLanguageSettings) -> Task:
    lang = AnBn(1, 10)
    vocab = Vocab.for_language(lang)
    train = [AnBn.string(n) for n in range(1, 11)] * language_settings.train_copies
    valid = [AnBn.string(n) for n in range(1, 11)]  # the whole training range, once
    test = [AnBn.string(n) for n in range(11, 21)]

    def own(model):
        return anbn_generalisation(model, vocab, language_settings.test_max_n)["max_correct_n"]

    return Task(lang, vocab, train, valid, test, own, language_settings.epochs)


def _dyck_task(language_settings: GymLanguageSettings) -> Task:
    lang = make_language("dyck", pairs=language_settings.pairs)
    vocab = Vocab.for_language(lang)
    shape = dict(length=16, method="seeds")
    train = lang.sample(language_settings.train, seed=101, depth=DYCK_DEPTH, **shape)
    valid = lang.sample(language_settings.valid, seed=103, depth=DYCK_DEPTH, **shape)
    pool = lang.sample(20 * language_settings.test, seed=102, **shape)
    test = [s for s in pool if lang.depth(s) >= DYCK_DEPTH + 2][: language_settings.test]

    def own(model):
        return dyck_closing_accuracy(model, lang, vocab, test)["accuracy"]

    def breakdown(model):
        return pooled_scores(dyck_closing_accuracy(model, lang, vocab, test), DYCK_DEPTH)

    return Task(lang, vocab, train, valid, test, own, language_settings.epochs, breakdown=breakdown)


def _cross_serial_task(language_settings: GymLanguageSettings) -> Task:
    lang = CrossSerial()
    vocab = Vocab.for_language(lang)
    train = lang.sample(language_settings.train, seed=201, max_total=7)
    valid = CrossSerial.family(8)  # every training length, once
    test = [s for s in CrossSerial.family(10) if len(s) >= 16]  # m + n = 8, 9

    def own(model):
        return cross_serial_accuracy(model, lang, vocab, test)["accuracy"]

    return Task(lang, vocab, train, valid, test, own, language_settings.epochs)


def _palindrome_task(language_settings: GymLanguageSettings) -> Task:
    lang = Palindrome("ab", marker="c")
    vocab = Vocab.for_language(lang)
    train = lang.sample(language_settings.train, seed=301, min_half=1, max_half=6)
    valid = lang.sample(language_settings.valid, seed=303, min_half=1, max_half=6)
    test = lang.sample(language_settings.test, seed=302, min_half=7, max_half=9)

    def own(model):
        return _mirror_accuracy(model, vocab, lang.marker, test)

    return Task(lang, vocab, train, valid, test, own, language_settings.epochs)


def _agreement_task(language_settings: GymLanguageSettings) -> Task:
    train_lang, lang = Agreement(max_pps=1), Agreement(max_pps=2)
    vocab = Vocab.for_language(lang)
    train = train_lang.sample(language_settings.train, seed=401)
    valid = train_lang.sample(language_settings.valid, seed=403)
    examples = lang.balanced_by_attractors(language_settings.test_per_attractor, max_attractors=3,
                                           seed=402)
    test = [e.sentence for e in examples]

    def own(model):
        return agreement_accuracy(model, vocab, examples)["accuracy"]

    return Task(lang, vocab, train, valid, test, own, language_settings.epochs)


#: One function per language: its data (fixed seeds), its training lengths and its own test.
_TASKS = {"anbn": _anbn_task, "dyck": _dyck_task, "cross_serial": _cross_serial_task,
          "palindrome": _palindrome_task, "agreement": _agreement_task}


# -- the jobs: train one model on one language until it has learned, score it ------------------


@dataclass
class GymRun(Record):
    """One run: the ``model`` (display name), ``language`` and ``seed``; its ``params``,
    ``train_seconds`` (CPU seconds of training), ``epochs`` (trained), whether it
    ``converged`` (met its plateau criterion before the cap), ``final_loss`` (last training
    loss), ``valid_loss`` (best validation loss); the common metric on held-out strings
    (``valid_strings`` and ``valid_positions``); the language's own metric (``own_metric``
    names it, ``own`` holds it); ``breakdown`` (Dyck: chapter 6's pooled accuracies, else
    None); and, not saved, the run's ``history`` and trained model (``trained``, on the CPU)."""

    model: str
    language: str
    seed: int
    params: int
    train_seconds: float
    epochs: float
    converged: bool
    final_loss: float
    valid_loss: float
    valid_strings: float
    valid_positions: float
    own_metric: str
    own: float
    breakdown: dict[str, float] | None
    history: object = unsaved(default=None)
    trained: object = unsaved(default=None)

    @property
    def cell(self) -> tuple[str, str]:
        return self.model, self.language


#: The FLNN's self-weights s_j learn at a tenth of the learning rate, as in chapter 5 (with
#: equal rates a run can collapse to s ≈ 0, which resets the state at every word).
FLNN_LR_FACTORS = {"scale": 0.1}


def applicable(model: str, language: str) -> bool:
    """Does the gym run ``model`` on ``language``? Everything except the FLNN off its ground."""
    _check_names([model], GYM_MODELS, "model")
    _check_names([language], GYM_LANGUAGES, "language")
    return GYM_MODELS[model][0] != "flnn" or language in FLNN_LANGUAGES


def _check_names(names: Iterable[str], known: dict, what: str) -> list[str]:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {what}(s) {unknown}: choose from {', '.join(known)}")
    if not names:
        raise ValueError(f"no {what} given: choose from {', '.join(known)}")
    return names


def _build(model: str, vocab: Vocab, settings: GymSettings, seed: int):
    kind, options = GYM_MODELS[model]
    if kind == "urn":
        return build_model(kind, vocab_size=len(vocab), hidden_size=settings.urn_hidden_size,
                           seed=seed, **options)
    if kind == "flnn":
        return build_model(kind, vocab_size=len(vocab), seed=seed, **options)
    return build_model(kind, vocab_size=len(vocab), hidden_size=settings.hidden_size, seed=seed,
                       **options)


def gym_run(language: str, model_name: str, seed: int, settings: GymSettings, device=None,
            min_epochs: int = 0, resume=None) -> GymRun:
    """Train one model on one language until its validation loss plateaus (at least
    ``min_epochs``, then on to its own stop within the cap :func:`~course_rnn.training.fit`
    sets for a continuation; ``resume``: the History of the run to continue), then score it.
    ``settings`` is the whole gym's settings. Returns the run's :class:`GymRun` with its ``history``
    and CPU model (``trained``). A top-level function, so that worker processes can run it."""
    task = cached_task(language, settings.languages[language])
    model = _build(model_name, task.vocab, settings, seed)
    flnn = GYM_MODELS[model_name][0] == "flnn"
    batch_size, lr, patience = settings.training(language)
    start = time.process_time()  # CPU time: steady on a shared machine, unlike wall time
    history = fit(model, task.vocab, task.train, valid=task.valid,
                  epochs=task.epochs, min_epochs=min_epochs,
                  batch_size=batch_size, lr=lr, lr_factors=FLNN_LR_FACTORS if flnn else None,
                  until=Plateau(patience=patience), seed=seed, device=device, progress=False,
                  resume=resume)
    seconds = time.process_time() - start
    validity = next_symbol_validity(model, task.language, task.vocab, task.test)
    record = history.convergence
    return GymRun(
        model=model_name, language=language, seed=seed, params=model.num_parameters(),
        train_seconds=seconds, epochs=record.epochs, converged=record.converged,
        final_loss=record.final["train_loss"], valid_loss=record.best,
        valid_strings=validity["strings"], valid_positions=validity["positions"],
        own_metric=OWN_METRICS[language], own=float(task.own(model)),
        breakdown=task.breakdown(model) if task.breakdown else None,
        history=history, trained=model.cpu())


def _jobs_of(pairs, seeds) -> list[tuple[str, str, int]]:
    """Jobs ordered slowest language first (agreement, Dyck), so that parallel workers do not
    end on one long run."""
    order = {"agreement": 0, "dyck": 1, "palindrome": 2, "cross_serial": 3, "anbn": 4}
    return sorted(((lang, m, s) for lang, m in pairs for s in seeds),
                  key=lambda j: order[j[0]])


def run_gym(settings: GymSettings, seeds: Sequence[int] = (0,), device=None,
            progress: bool | None = None, models: Iterable[str] | None = None,
            languages: Iterable[str] | None = None, min_epochs: dict | None = None,
            resume: dict | None = None) -> list[GymRun]:
    """Train every model on every language (where :func:`applicable`) for every seed, in
    parallel worker processes, each until it has learned, with ``settings`` (a
    :class:`~.settings.GymSettings`, e.g. ``SETTINGS["quick"].replace({"hidden_size": 8})``).

    Returns one :class:`GymRun` per run, in the order (language, model, seed) of the
    arguments. ``models``/``languages`` pick subsets (ValueError naming the known ones
    otherwise); ``min_epochs`` maps (language, model, seed) to a least number of epochs (the
    doubled budget) and ``resume`` to the History that run continues: given ``resume``, only the
    runs it names are trained and returned. ``device`` is the one its caller resolved
    (:func:`run`: its ``Setup.device``), not chosen again here; None: each run's
    :func:`~course_rnn.training.fit` picks the default one (a bad device is fit's ValueError,
    before the first run trains).
    """
    if not isinstance(settings, GymSettings):
        raise TypeError(f"run_gym needs the gym's settings (a GymSettings, e.g. "
                        f"SETTINGS['quick']), got {type(settings).__name__}")
    model_names = _check_names(GYM_MODELS if models is None else models, GYM_MODELS, "model")
    language_names = _check_names(GYM_LANGUAGES if languages is None else languages,
                                  GYM_LANGUAGES, "language")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("give at least one seed")
    pairs = [(lang, m) for lang in language_names for m in model_names if applicable(m, lang)]
    if not pairs:
        raise ValueError(f"none of the models {model_names} applies to {language_names} "
                         f"(the FLNN runs only on {', '.join(FLNN_LANGUAGES)})")
    for lang in language_names:  # bad settings fail here, before any training
        make_task(lang, settings.languages[lang])
    jobs = _jobs_of(pairs, seeds)
    if resume:
        jobs = [job for job in jobs if job in resume]
    more, resume = min_epochs or {}, resume or {}
    named = None if device is None else str(device)  # chosen by the caller, or in each run
    done = parallel_map(gym_run, [(lang, m, s, settings, named, more.get((lang, m, s), 0),
                                   resume.get((lang, m, s))) for lang, m, s in jobs],
                        device=device, desc="gym", progress=progress)
    by_job = dict(zip(jobs, done))
    return [by_job[lang, m, s] for lang, m in pairs for s in seeds if (lang, m, s) in by_job]


# -- the numbers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One (model, language) cell over its seeds, computed where the tables, claims and chapter
    read it (not saved: the runs are): the mean ``valid_strings``, ``own``, ``params``,
    ``train_seconds`` and ``epochs``, the seeds' ``min``/``max`` of ``valid_strings``, ``n``
    (seeds), ``converged`` (how many of them met their criterion) and, for Dyck, the mean
    ``breakdown``."""

    model: str
    language: str
    valid_strings: float
    own: float
    params: float
    train_seconds: float
    epochs: float
    min: float
    max: float
    n: int
    converged: int
    breakdown: dict[str, float] | None = None

    @property
    def all_converged(self) -> bool:
        return self.converged == self.n

    @classmethod
    def of(cls, runs: Sequence[GymRun]) -> Cell:
        valid = [r.valid_strings for r in runs]
        means = [float(np.mean([getattr(r, col) for r in runs]))
                 for col in ("valid_strings", "own", "params", "train_seconds", "epochs")]
        breakdown = None
        if runs[0].breakdown:
            breakdown = {k: float(np.mean([r.breakdown[k] for r in runs]))
                         for k in runs[0].breakdown}
        return cls(runs[0].model, runs[0].language, *means, min(valid), max(valid), len(runs),
                   sum(bool(r.converged) for r in runs), breakdown)


def cell_means(rows: Sequence[GymRun]) -> dict[tuple[str, str], Cell]:
    """(model, language) → its :class:`Cell`, in the order the cells first appear."""
    cells: dict[tuple[str, str], list[GymRun]] = {}
    for row in rows:
        cells.setdefault(row.cell, []).append(row)
    return {key: Cell.of(runs) for key, runs in cells.items()}


#: The Dyck cuts the rows print (chapter 6's: the training depth, the least inner nesting
#: counted as deep, the least outer depth counted as unseen), saved so that every figure of the
#: table is in the numbers.
DYCK_CUT_POINTS = {"training_depth": DYCK_DEPTH, "deep_inner_min": DYCK_DEPTH,
                   "unseen_outer_min": DYCK_DEPTH + 2}


@dataclass
class GymNumbers(Record):
    """Every number of the gym (see :func:`run`): every run, the runs continued to twice their
    epochs and the Dyck cuts; a cell's means are computed from the runs (:meth:`cell`)."""

    runs: list[GymRun]
    doubled: list[GymRun]
    dyck_cut_points: dict[str, int] = field(default_factory=lambda: dict(DYCK_CUT_POINTS))

    def cell(self, model: str, language: str) -> Cell:
        """The :class:`Cell` of ``model`` on ``language`` (KeyError when it was not run)."""
        runs = [r for r in self.runs if r.cell == (model, language)]
        if not runs:
            raise KeyError((model, language))
        return Cell.of(runs)


def models_and_languages(rows: Sequence[GymRun]) -> tuple[list[str], list[str]]:
    """The models and languages that ``rows`` cover, in the order of the gym's tables."""
    models = [m for m in GYM_MODELS if any(r.model == m for r in rows)]
    languages = [lang for lang in GYM_LANGUAGES if any(r.language == lang for r in rows)]
    return models, languages


# -- the rows: the model × language tables and the papers' claims ------------------------------


def gym_table(rows: Sequence[GymRun]) -> list[dict]:
    """One row per model: "valid_strings (own metric)" per language (mean over seeds; "not
    converged" when a seed's run did not meet its criterion), the parameter counts and the
    total CPU time of its training."""
    means = cell_means(rows)
    models, languages = models_and_languages(rows)
    table = []
    for model in models:
        line = {"model": model}
        for lang in languages:
            header = f"{lang}: valid ({OWN_METRICS[lang]})"
            m = means.get((model, lang))
            if m is None:
                line[header] = "n/a"
            elif not m.all_converged:
                line[header] = f"not converged ({m.n - m.converged} of {m.n} seeds)"
            else:
                own = f"{m.own:.1f}" if lang == "anbn" else f"{m.own:.2f}"
                line[header] = f"{m.valid_strings:.2f} ({own})"
        params = [r.params for r in rows if r.model == model]
        line["parameters"] = (f"{min(params)}–{max(params)}" if min(params) != max(params)
                              else str(min(params)))
        line["train CPU s"] = f"{sum(r.train_seconds for r in rows if r.model == model):.1f}"
        table.append(line)
    return table


def dyck_breakdown_table(rows: Sequence[GymRun]) -> list[dict]:
    """Chapter 6's breakdown of the Dyck column: per model, closing-bracket accuracy pooled by
    attractors, by nesting inside the pair and by outer depth (mean over seeds)."""
    means = cell_means(rows)
    labels = {key: cut[0] for key, cut in dyck_cuts(DYCK_DEPTH).items()}
    table = []
    for model in models_and_languages(rows)[0]:
        m = means.get((model, "dyck"))
        if m is None:
            continue
        line = {"model": model, "converged": f"{m.converged}/{m.n}"}
        line.update({labels[k]: v for k, v in m.breakdown.items()})
        table.append(line)
    return table


Means = dict[tuple[str, str], Cell]


#: Models with an external memory (chapter 8), which the papers' claims about recurrent networks
#: do not cover
EXTERNAL_MEMORY = ("Stack-RNN",)


def gym_claims_list() -> list[Claim]:
    """The papers' claims the gym judges, each a :class:`~.replication.Claim` whose ``models``
    are the (model, language) cells it reads (``check`` reads the cells' means)."""
    def own(means, model, lang):
        return means[model, lang].own

    def counting(means):
        rivals = {m: own(means, m, "anbn") for m, lang in means
                  if lang == "anbn" and m not in ("LSTM", *EXTERNAL_MEMORY)}
        best_rival = max(rivals, key=rivals.get)
        lstm = own(means, "LSTM", "anbn")
        gap = max(0.0, rivals[best_rival] - lstm - 1.0)
        return (f"LSTM {lstm:.1f}; best other: {best_rival} {rivals[best_rival]:.1f}", lstm,
                gap == 0, gap)

    def crossing(means):
        lstm, urn = own(means, "LSTM", "cross_serial"), own(means, "URN", "cross_serial")
        return f"LSTM {lstm:.2f}, URN {urn:.2f}", lstm, lstm > urn, max(0.0, urn - lstm)

    def nesting(means):
        b = means["URN", "dyck"].breakdown
        gap = max(0.0, b["shallow_inner"] - 0.02 - b["deep_inner"])
        return (f"URN {b['shallow_inner']:.2f} (inner nesting 0–1) → {b['deep_inner']:.2f} "
                f"(≥ {DYCK_DEPTH})", b["deep_inner"], gap == 0, gap)

    def agreement(means):
        drnn, lstm = own(means, "DRNN", "agreement"), own(means, "LSTM", "agreement")
        gap = max(0.0, abs(drnn - lstm) - 0.05)
        return f"DRNN {drnn:.2f}, LSTM {lstm:.2f}", drnn, gap == 0, gap

    return [
        Claim("for counting (a^n b^n), the LSTM works best (max_correct_n)",
              "Levy 2023 lecture (ch. 3)", counting, (("LSTM", "anbn"),) + tuple(
                  (m, "anbn") for m in GYM_MODELS
                  if m not in ("LSTM", "FLNN", *EXTERNAL_MEMORY)),
              "agrees when no other model's mean is more than 1 above the LSTM's (the claim "
              "is about networks without an external memory: the Stack-RNN is not a rival)"),
        Claim("on cross-serial strings longer than in training, the LSTM does better than the "
              "URN", "Bernardy & Lappin 2023, §3.1 (ch. 6)", crossing,
              (("LSTM", "cross_serial"), ("URN", "cross_serial")),
              "whole-string accuracy at m + n = 8, 9"),
        Claim("the URN's closing accuracy does not decline with nesting inside the pair",
              "Bernardy & Lappin 2022; 2023 (ch. 6)", nesting, (("URN", "dyck"),),
              "chapter 6's breakdown on the deeper Dyck strings; slack 0.02"),
        Claim("the Decay RNN agrees about as well as the LSTM", "Bhatt et al. 2020 (ch. 4)",
              agreement, (("DRNN", "agreement"), ("LSTM", "agreement")),
              "language models' agreement accuracy on 0–3 attractors; 'about as well': "
              "within 0.05; the paper's language models: 650 units, 90M words of Wikipedia"),
    ]


def flnn_row(means: Means) -> Row:
    """Tabor's claim about the FLNN, reported beside our Dyck-2 figure and not judged: another
    grammar, another score."""
    b = means["FLNN", "dyck"].breakdown
    return Row("the FLNN learns a stack language and generalises deeper (99.4% correct on "
               "Grammar 1's deeper test sentences)", "Tabor 2011, Table 4 (ch. 5)",
               f"Dyck-2: {b['seen_outer']:.2f} (outer depth ≤ {DYCK_DEPTH}) → "
               f"{b['unseen_outer']:.2f} (≥ {DYCK_DEPTH + 2})",
               "Dyck-2 is not Tabor's grammar and closing accuracy is not his score: a stack "
               "language on Tabor's terms, reported beside his number", verdict="not comparable")


def claims_of(means: Means) -> list[Claim]:
    """The claims of :func:`gym_claims_list` whose cells ``means`` has."""
    return [claim for claim in gym_claims_list() if all(cell in means for cell in claim.models)]


def runs_of(means: Means, cells: Sequence[tuple[str, str]]) -> list[bool]:
    """The runs behind ``cells``, each as whether it converged (what a verdict waits for)."""
    return [i < means[cell].converged for cell in cells for i in range(means[cell].n)]


def cells_to_double(rows: Sequence[GymRun]) -> set[tuple[str, str]]:
    """The (model, language) cells whose runs :func:`gym_claims` needs at twice their epochs:
    those of every claim whose runs all converged and which disagrees."""
    means = cell_means(rows)
    return set(deciding_models(claims_of(means), means, runs_of))


def gym_claims(rows: Sequence[GymRun], doubled: Sequence[GymRun] = ()) -> list[Row]:
    """The papers' claims about which model wins, judged on the gym's runs (a claim whose cells
    are missing is left out), then the FLNN's, not judged. ``doubled``: the runs of
    :func:`cells_to_double`'s cells continued to twice their epochs (trained before, by
    :func:`run`); a disagreement is judged on ``rows`` with those runs in place of their first
    budget's (without them a disagreement raises)."""
    replaced = {(r.model, r.language, r.seed) for r in doubled}
    second = cell_means([r for r in rows if (r.model, r.language, r.seed) not in replaced]
                        + list(doubled)) if doubled else None
    means = cell_means(rows)
    judged = judged_rows(claims_of(means), means, second, runs_of)
    return judged + ([flnn_row(means)] if ("FLNN", "dyck") in means else [])


# -- the figures --------------------------------------------------------------------------------


def gym_heatmap(rows: Sequence[GymRun]):
    """The table's common metric as a heatmap: mean ``valid_strings`` and the seeds' range;
    cells with an unconverged run are left blank and say so."""
    from matplotlib.figure import Figure

    means = cell_means(rows)
    models, languages = models_and_languages(rows)
    fig = Figure(figsize=(7.5, 4.4), layout="tight")  # cell numbers ≈ 11 px on a page
    ax = fig.subplots()
    grid = np.full((len(models), len(languages)), np.nan)
    for (i, model), (j, lang) in ((a, b) for a in enumerate(models) for b in enumerate(languages)):
        m = means.get((model, lang))
        if m is None or not m.all_converged:
            text = "n/a" if m is None else "not\nconverged"
            ax.text(j, i, text, ha="center", va="center", color="grey", fontsize=9)
            continue
        grid[i, j] = m.valid_strings
        ax.text(j, i, f"{m.valid_strings:.2f}\n{m.min:.2f}–{m.max:.2f}", ha="center",
                va="center", color="black" if grid[i, j] > 0.6 else "white", fontsize=9)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(languages)), languages, rotation=20)
    ax.set_yticks(range(len(models)), models)
    ax.set_xlabel("language (tested on longer / deeper strings)")
    ax.set_ylabel("model")
    fig.colorbar(image, ax=ax, label="valid_strings")
    ax.set_title("Share of held-out strings predicted validly throughout", fontsize=9)
    return fig


def gym_curves(rows: Sequence[GymRun]) -> dict:
    """One learning-curve figure per language (every model and seed; training and validation
    loss), drawn by :func:`~course_rnn.analysis.curves.learning_curves`."""
    figures = {}
    for lang in models_and_languages(rows)[1]:
        runs = {f"{r.model} seed {r.seed}": r.history for r in rows
                if r.language == lang and r.history is not None}
        if runs:
            figures[f"curves_{lang}"] = learning_curves(
                runs, ("train_loss", "valid_loss"), title=f"{lang}: {GYM_LANGUAGES[lang]}",
                size=(9, 3))
    return figures


# -- run ----------------------------------------------------------------------------------------


@dataclass
class GymArtefacts:
    """What the chapter reads beyond the numbers (not saved): the model × language ``table``
    (:func:`gym_table`), the ``dyck_breakdown`` table and the trained ``models`` keyed
    by (model, language, seed)."""

    table: list[dict]
    dyck_breakdown: list[dict]
    models: dict[tuple[str, str, int], object]


def run(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
        settings: Mapping | None = None, models: Iterable[str] | None = None,
        languages: Iterable[str] | None = None) -> Replication:
    """The gym as a replication: :func:`run_gym`, then :func:`gym_table`, :func:`gym_heatmap`,
    :func:`gym_curves` and :func:`gym_claims` (the papers' claims about which model wins, in the
    ``paper`` column; a disagreement is re-checked by continuing its runs to twice their epochs).

    ``scale`` "quick" is the book's (2 seeds), "paper" the large one (5 seeds); ``settings``
    overrides entries of the scale's :class:`~.settings.GymSettings` (an unknown key or a bad
    value: ValueError). ``numbers`` is a :class:`GymNumbers`: every run (``runs``) and the
    doubled-budget runs (``doubled``), a cell's means from ``numbers.cell``; ``runs`` every
    training history; ``artefacts`` a :class:`GymArtefacts`: the model × language
    ``table``, the ``dyck_breakdown`` table and the trained ``models`` keyed by (model,
    language, seed).
    """
    setup = begin(EXPERIMENTS[0], SETTINGS, scale, settings, seeds, DEFAULT_SEEDS, device,
                  progress)
    # settings: from here on, the overrides completed by the scale's settings
    settings, seeds, device = setup.settings, setup.seeds, setup.device
    rows = run_gym(settings, seeds=seeds, device=device, progress=progress, models=models,
                   languages=languages)

    def train_again(min_epochs: dict, resume: dict) -> dict:
        more = run_gym(settings, seeds=seeds, device=device, progress=progress,
                       models=sorted({m for _, m, _ in resume}),
                       languages=sorted({lang for lang, _, _ in resume}), min_epochs=min_epochs,
                       resume={key: r.history for key, r in resume.items()})
        return {(r.language, r.model, r.seed): r for r in more}

    first = {(r.language, r.model, r.seed): r for r in rows}
    cells = cells_to_double(rows)
    deciding = sorted((key for key, r in first.items() if r.cell in cells),
                      key=lambda k: (k[0], k[1], seeds.index(k[2])))  # run_gym's order
    doubled = list(twice_the_budget(first, deciding, train_again).values())
    claims = gym_claims(rows, doubled)
    numbers = GymNumbers(rows, doubled)
    histories = {f"{r.model} on {r.language} seed {r.seed}": r.history for r in rows}
    histories.update({f"{r.model} on {r.language} seed {r.seed} (2× budget)": r.history
                      for r in doubled})
    artefacts = GymArtefacts(gym_table(rows), dyck_breakdown_table(rows),
                             {(r.model, r.language, r.seed): r.trained for r in rows})
    figures = {"heatmap": gym_heatmap(rows), **gym_curves(rows)}
    return setup.replication(numbers, claims, figures, artefacts, histories)


EXPERIMENTS = (Experiment.of(SETTINGS, run),)

__all__ = [
    "run", "EXPERIMENTS", "SETTINGS", "GymSettings", "GymLanguageSettings", "DEFAULT_SEEDS",
    "GYM_MODELS", "GYM_LANGUAGES", "FLNN_LANGUAGES", "OWN_METRICS", "DYCK_DEPTH", "Task",
    "make_task", "GymRun", "applicable", "gym_run", "run_gym", "Cell", "cell_means",
    "GymNumbers", "gym_table", "dyck_breakdown_table", "gym_claims_list",
    "cells_to_double", "gym_claims", "gym_heatmap", "gym_curves", "GymArtefacts",
]
