"""Bernardy & Lappin (2022; 2023): unitary RNNs against LSTMs on Dyck and cross-serial strings.

Chapter 6 shows both experiments; ``python -m course_rnn replicate urn-dyck`` (or
``urn-cross-serial``) runs the same functions and saves what they return.

**urn-dyck** (:func:`run_dyck`; B&L 2022 §5, 2023 §4). Five bracket pairs ``() [] {} <> +-``,
strings of exactly 20 symbols from the seeds' generator (``Dyck.sample(method="seeds")``);
training and validation strings reach depth exactly 3, the test strings are unconstrained. Four
networks of 50 units are trained as language models with Adam at the papers' learning rate 0.01
(the seeds' code uses Adam's default 0.001), each until its validation loss (held-out strings
of the training distribution) stops improving:

* a **3-TURN**, h_t = Q(x_t) h_{t-1} with Q = e^S, S = T − Tᵀ and only the first 3 rows of T free,
  and the **Full-URN** (every row free) – the 2022 paper's two URNs;
* the unconstrained **MatrixRNN** baseline, h_t = M(x_t) h_{t-1} with a free matrix per symbol
  (2022 §5);
* an **LSTM** (embedding 12), the 2023 paper's comparison.

Scored by the papers' metric (:func:`course_rnn.metrics.dyck_closing_accuracy`: at each closing
bracket, is the top-scoring closer the right one? chance 1/5), broken down three ways, each
named for what it counts about the closing bracket's pair: **attractors** (the papers' x-axis),
**inner nesting** (how deep the nesting goes inside the pair: the seeds' ``parenDepths``, which
is what the papers mean by "nesting depth") and **outer depth** (how many brackets are open when
it closes; the papers never measure it). The 3-TURN's embeddings are then read with linear
algebra alone (:func:`embedding_analysis`, 2022 Tables 3–4).

**urn-cross-serial** (:func:`run_cross_serial`; B&L 2023 §3, Tables 1–2, Fig. 2). Train on
C_8 = {a^m b^n c^m d^n | m + n < 8}, test on all 36 strings of C_10; full URNs and LSTMs
(embedding 20) of 8, 16 and 32 units, each trained until it fits its training lengths (every
string of C_8 right by the paper's criterion), scored per string by
:func:`course_rnn.metrics.cross_serial_accuracy`. The parameter counts of the paper's Tables 1–2
are recomputed from formulas (:func:`parameter_count_rows`).

**Verdicts wait for convergence** (:func:`~course_rnn.experiments.replication.judge`): a row
compares only converged runs, and a disagreement is re-checked by continuing the deciding runs
to twice their epochs (same seed, so the first half is the same run) before it may read
"differs". Independent runs train in parallel worker processes
(:func:`~course_rnn.experiments.workers.parallel_map`).

Both run on CPU or CUDA (``device``). Scales: ``"quick"`` is the chapter's (a few thousand
strings, one to two minutes of two CPU cores per experiment); ``"paper"`` uses the papers' corpus
sizes. ``settings=`` overrides entries of the scale's :class:`~.settings.DyckSettings` /
:class:`~.settings.CrossSerialSettings` (the tests use it to run tiny).

The package, by job: :mod:`.settings` (both experiments' settings and scales), :mod:`.claims`
(a row whose verdict waits for convergence), :mod:`.dyck` (urn-dyck's data, networks, training
runs and numbers), :mod:`.dyck_report` (its rows and figures), :mod:`.cross_serial`
(urn-cross-serial's runs, numbers, rows and figure), and here the two ``run`` functions.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...analysis.curves import learning_curves
from ...languages import Vocab
from ...languages.cross_serial import CrossSerial
from ...languages.dyck import Dyck
from ..replication import Experiment, Replication, twice_the_budget
from ..setup import begin
from ..workers import parallel_map
from .claims import Claim, deciding_models, doubled_epochs, judged_rows, range_gap
from .cross_serial import (
    FIT_METRIC,
    PAPER_PARAMS,
    PAPER_VOCAB,
    TrainedCrossSerial,
    cross_serial_claims,
    cross_serial_figure,
    cross_serial_model,
    cross_serial_numbers,
    cross_serial_record,
    mean_error,
    parameter_count_rows,
    train_cross_serial_model,
)
from .dyck import (
    DYCK_MODELS,
    FEW_ATTRACTORS,
    MANY_ATTRACTORS,
    MIN_BRACKETS,
    TrainedDyck,
    dyck_cuts,
    dyck_data,
    dyck_model,
    dyck_numbers,
    embedding_analysis,
    halving,
    pooled_scores,
    probe_metric,
    train_dyck_model,
    worst_error,
)
from .dyck_report import PAPER_SINGLE_EFFECT, dyck_claims, dyck_figures, outer_depth_row, run_name
from .results import (
    BestRun,
    CrossSerialArtefacts,
    CrossSerialDoubled,
    CrossSerialNumbers,
    CrossSerialRun,
    DyckArtefacts,
    DyckDoubled,
    DyckNumbers,
    EmbeddingRanges,
    Embeddings,
    MeanError,
    ModelConvergence,
    SeedScores,
)
from .settings import (
    CROSS_SERIAL_SEEDS,
    CROSS_SERIAL_SETTINGS,
    DYCK_SEEDS,
    DYCK_SETTINGS,
    CrossSerialSettings,
    DyckSettings,
)


def _train_dyck_runs(jobs: list[tuple], cfg: DyckSettings, data, device, progress) -> list:
    """``train_dyck_model`` for every (name, seed, min_epochs, resume) in ``jobs``, in
    parallel."""
    train, valid, test = data
    return parallel_map(train_dyck_model,
                        [(name, seed, cfg, train, valid, test, str(device), min_epochs, resume)
                         for name, seed, min_epochs, resume in jobs],
                        device=device, desc="urn-dyck", progress=progress)


def run_dyck(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
             settings: Mapping | None = None) -> Replication:
    """3-TURN, Full-URN, MatrixRNN and LSTM on Dyck (B&L 2022 §5; 2023 §4).

    Each network is trained with Adam as a language model, L = −(1/N) Σ log p(w_{t+1} | w_1…w_t),
    on strings of depth exactly ``depth`` until its validation loss plateaus, then scored on the
    closing brackets of the unconstrained test strings. Data are the same for every seed; a seed
    sets the model's initialisation, dropout and the order of batches. ``seeds``: a count (seeds
    0 … N−1, default 1) or a list. Rows that disagree with the paper are re-checked with the
    deciding runs continued to twice their epochs (``numbers.doubled``). ``numbers`` is a
    :class:`~.results.DyckNumbers`. ``runs``: every
    training history; ``artefacts`` a :class:`~.results.DyckArtefacts` (the trained models of
    the first seed and of every seed, the data).
    """
    setup = begin(EXPERIMENTS[0], DYCK_SETTINGS, scale, settings, seeds, DYCK_SEEDS, device,
                  progress)
    cfg, seeds, device = setup.settings, setup.seeds, setup.device
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    data = dyck_data(cfg)
    jobs = [(name, seed, 0, None) for seed in seeds for name in DYCK_MODELS]
    trained = _train_dyck_runs(jobs, cfg, data, device, progress)
    runs: dict = {s: {} for s in seeds}
    for (name, seed, _, _), run in zip(jobs, trained):
        runs[seed][name] = run
    numbers = dyck_numbers(runs, cfg, seeds)

    def runs_of(n: DyckNumbers, models) -> list:
        return [bool(c) for m in models for c in n.convergence[m].converged]

    def train_again(min_epochs, resume):
        more = [(m, s, min_epochs[m, s], r.history) for (m, s), r in resume.items()]
        return dict(zip(resume, _train_dyck_runs(more, cfg, data, device, progress)))

    claims = dyck_claims(cfg)
    needed = deciding_models(claims, numbers, runs_of)
    again = twice_the_budget({(m, s): runs[s][m] for s in seeds for m in DYCK_MODELS},
                             [(m, s) for s in seeds for m in needed], train_again)
    doubled_runs: dict = {}
    for (name, seed), run in again.items():
        doubled_runs.setdefault(seed, {})[name] = run
    second = dyck_numbers({s: {**runs[s], **doubled_runs.get(s, {})} for s in seeds}, cfg,
                          seeds) if again else None
    rows = judged_rows(claims, numbers, second, runs_of)
    after = [r.quantity for r in rows].index("URN accuracy vs nesting inside the pair")
    rows.insert(after + 1, outer_depth_row(numbers))
    if second is not None:
        numbers.doubled = second.doubled_record(sorted({m for s in doubled_runs
                                                        for m in doubled_runs[s]}))
    histories = {run_name(n, s): runs[s][n].history for s in seeds for n in DYCK_MODELS}
    histories.update({run_name(n, s, True): r.history
                      for s in doubled_runs for n, r in doubled_runs[s].items()})
    figures = dyck_figures(numbers, cfg.depth, histories)
    first = seeds[0]
    artefacts = DyckArtefacts(
        models={n: r.model for n, r in runs[first].items()},
        models_by_seed={s: {n: r.model for n, r in runs[s].items()} for s in seeds},
        histories={n: r.history for n, r in runs[first].items()},
        doubled=doubled_runs, train=data[0], valid=data[1], test=data[2], vocab=vocab,
        language=dyck)
    return setup.replication(numbers, rows, figures, artefacts, histories)


def run_cross_serial(scale: str = "quick", seeds=None, device=None,
                     progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """URN vs LSTM on cross-serial strings, C_8 → C_10 (B&L 2023 §3, Tables 1–2, Fig. 2).

    Training strings are sampled once (seed 0) from C_{max_total+1}; the test set is every
    string of C_{test_family}, so the error is the paper's expected error over a uniform test
    sample. Per seed, a full URN and an LSTM of each size in ``units`` are trained until they fit
    their training lengths; a seed sets initialisation, dropout and batch order. ``seeds``: a
    count (default 2 quick, 3 paper) or a list. ``numbers`` is a
    :class:`~.results.CrossSerialNumbers` (``numbers.runs``: one
    :class:`~.results.CrossSerialRun` per trained network); ``runs`` every training history;
    ``artefacts`` a :class:`~.results.CrossSerialArtefacts` (the ``models`` keyed by
    (model, units, seed), the data).
    """
    setup = begin(EXPERIMENTS[1], CROSS_SERIAL_SETTINGS, scale, settings, seeds,
                  CROSS_SERIAL_SEEDS, device, progress)
    cfg, seeds, device = setup.settings, setup.seeds, setup.device
    language = CrossSerial()
    vocab = Vocab(language.alphabet)
    train = language.sample(cfg.train, seed=0, max_total=cfg.max_total)
    test = language.family(cfg.test_family)

    def train_all(jobs: list[tuple]) -> list:
        return parallel_map(train_cross_serial_model,
                            [(kind, units, seed, cfg, train, str(device), *more)
                             for kind, units, seed, *more in jobs],
                            device=device, desc="urn-cross-serial", progress=progress)

    # largest first, so that parallel workers start on the longest runs
    jobs = [(kind, u, s, 0) for u in cfg.units[::-1] for s in seeds
            for kind in ("urn", "lstm")]
    trained = dict(zip([j[:3] for j in jobs], train_all(jobs)))

    def numbers_of(runs: Mapping) -> CrossSerialNumbers:
        return cross_serial_numbers([cross_serial_record(kind, u, s, runs[kind, u, s])
                                      for kind, u, s in sorted(runs)], cfg)

    numbers = numbers_of(trained)

    def runs_of(n: CrossSerialNumbers, models) -> list:
        return [bool(r.converged) for r in n.runs if r.model in models]

    def train_again(min_epochs, resume):
        more = [(*key, min_epochs[key], r.history) for key, r in resume.items()]
        return dict(zip(resume, train_all(more)))

    claims = cross_serial_claims(cfg)
    needed = deciding_models(claims, numbers, runs_of)
    doubled = twice_the_budget(trained, [k for k in trained if k[0].upper() in needed],
                               train_again)
    second = numbers_of({**trained, **doubled}) if doubled else None
    rows = judged_rows(claims, numbers, second, runs_of)
    if second is not None:
        numbers.doubled = CrossSerialDoubled(
            [r for r in second.runs if (r.model.lower(), r.units, r.seed) in doubled],
            second.mean_error, second.best)
    histories = {f"{k.upper()} {u} seed {s}": r.history
                 for (k, u, s), r in sorted(trained.items())}
    histories.update({f"{k.upper()} {u} seed {s} (2× budget)": r.history
                      for (k, u, s), r in sorted(doubled.items())})
    figures = {"cross_serial_errors": cross_serial_figure(numbers, cfg, len(seeds)),
               "cross_serial_curves": learning_curves(
                   {n: h for n, h in histories.items() if "2×" not in n},
                   ("train_loss", FIT_METRIC), title="Cross-serial: until every training "
                   "string is right", size=(10, 3.2))}
    artefacts = CrossSerialArtefacts(
        models={(k.upper(), u, s): r.model for (k, u, s), r in trained.items()},
        doubled=doubled, train=train, test=test, vocab=vocab, language=language)
    return setup.replication(numbers, rows, figures, artefacts, histories)


EXPERIMENTS = (
    Experiment(name="urn-dyck",
               title="Bernardy & Lappin (2022; 2023): URNs, MatrixRNN and LSTM on Dyck, "
                     "accuracy by attractors, inner nesting and outer depth",
               chapter="06_unitary", run=run_dyck, settings=DYCK_SETTINGS),
    Experiment(name="urn-cross-serial",
               title="Bernardy & Lappin (2023), Tables 1–2 and Fig. 2: URN vs LSTM on "
                     "cross-serial C_8 → C_10",
               chapter="06_unitary_stacks", run=run_cross_serial,
               settings=CROSS_SERIAL_SETTINGS),
)


__all__ = [
    "run_dyck", "run_cross_serial", "EXPERIMENTS", "DYCK_SETTINGS", "CROSS_SERIAL_SETTINGS",
    "DyckSettings", "CrossSerialSettings", "DYCK_SEEDS", "CROSS_SERIAL_SEEDS", "DYCK_MODELS",
    "FEW_ATTRACTORS", "MANY_ATTRACTORS", "MIN_BRACKETS", "PAPER_PARAMS", "PAPER_VOCAB",
    "PAPER_SINGLE_EFFECT", "FIT_METRIC", "Claim", "judged_rows", "deciding_models",
    "doubled_epochs", "range_gap",
    "dyck_cuts", "pooled_scores", "worst_error", "embedding_analysis", "dyck_data", "dyck_model",
    "probe_metric", "halving", "train_dyck_model", "dyck_numbers", "dyck_claims",
    "outer_depth_row", "dyck_figures", "run_name", "parameter_count_rows", "cross_serial_model",
    "train_cross_serial_model", "mean_error", "cross_serial_numbers", "cross_serial_claims",
    "cross_serial_record", "cross_serial_figure", "DyckNumbers", "DyckDoubled", "SeedScores",
    "ModelConvergence", "Embeddings", "EmbeddingRanges", "CrossSerialNumbers",
    "CrossSerialDoubled", "CrossSerialRun", "MeanError", "BestRun", "TrainedDyck",
    "TrainedCrossSerial", "DyckArtefacts", "CrossSerialArtefacts",
]
