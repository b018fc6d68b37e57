"""urn-cross-serial: Bernardy & Lappin (2023) §3, Tables 1–2, Fig. 2 — a full URN against an
LSTM on cross-serial strings, trained on short ones and tested on longer ones.

Train on C_8 = {a^m b^n c^m d^n | m + n < 8}, test on all 36 strings of C_10; full URNs and LSTMs
(embedding 20) of 8, 16 and 32 units, each trained until it fits its training lengths (every
string of C_8 right by the paper's criterion, :data:`FIT_METRIC`), scored per string by
:func:`course_rnn.metrics.cross_serial_accuracy`. The parameter counts of the paper's Tables 1–2
are recomputed from formulas (:func:`parameter_count_rows`).

The module reads top to bottom as :func:`run_cross_serial` uses it: the settings
(:mod:`.settings`) and the paper's figures, the job (train one network, score it), the numbers,
the rows (:class:`~course_rnn.experiments.replication.Claim`\\ s, judged with the deciding runs
at twice their epochs where a converged row disagrees), the figure, and
:func:`run_cross_serial`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from ...analysis.curves import learning_curves
from ...analysis.report import keras_lstm_parameter_count
from ...languages import Vocab
from ...languages.cross_serial import CrossSerial
from ...metrics import cross_serial_accuracy
from ...models import SequenceModel, build_model
from ...models.urn import urn_parameter_count
from ...training import History, Target, fit
from ..records import Record, saved_if_set
from ..replication import (
    Claim,
    Experiment,
    Replication,
    deciding_models,
    judged_rows,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .settings import CROSS_SERIAL_SEEDS, CROSS_SERIAL_SETTINGS, CrossSerialSettings

# -- the settings' companions: the paper's figures ---------------------------------------------

#: B&L 2023, Table 1 (cross-serial) and Table 2 (Dyck): (task, hidden_size) → (LSTM, URN)
#: parameters.
PAPER_PARAMS = {
    ("cross-serial", 8): (1218, 370), ("cross-serial", 16): (2738, 1370),
    ("cross-serial", 32): (7314, 5290),
    ("Dyck", 8): (924, 444), ("Dyck", 16): (2204, 1644), ("Dyck", 32): (6300, 6348),
}
#: (V, LSTM embedding) the paper's counts imply: V counts start and stop symbols; the embedding
#: sizes are inferred by solving the counts (the paper does not state them).
PAPER_VOCAB = {"cross-serial": (10, 20), "Dyck": (12, 12)}
#: The metric a cross-serial run trains until: the share of the training family's strings (every
#: string of C_{max_total+1}) that the model gets right by the paper's criterion.
FIT_METRIC = "training strings right"


# -- the job: train one network until it fits its training lengths, score it -------------------


@dataclass
class TrainedCrossSerial:
    """One network as trained on cross-serial strings: the ``model`` (on the CPU), its
    ``history`` and ``scores`` (:func:`~course_rnn.metrics.cross_serial_accuracy` on the test
    family)."""

    model: SequenceModel
    history: History
    scores: dict


def cross_serial_model(kind: str, vocab_size: int, hidden_size: int, settings: CrossSerialSettings,
                       seed: int):
    """A full URN (no truncation, as in the 2023 paper) or an LSTM with ``hidden_size`` units."""
    if kind == "urn":
        return build_model("urn", vocab_size=vocab_size, hidden_size=hidden_size, seed=seed)
    return build_model("lstm", vocab_size=vocab_size, hidden_size=hidden_size,
                       embedding_dim=settings.embedding_dim, seed=seed)


def train_cross_serial_model(kind: str, hidden_size: int, seed: int, settings: CrossSerialSettings,
                             train: Sequence, device=None, min_epochs: int = 0,
                             resume=None) -> TrainedCrossSerial:
    """Train one network until every string of the training family C_{max_total+1} is right
    (:data:`FIT_METRIC` = 1; at least ``min_epochs``, and within the cap
    :func:`~course_rnn.training.fit` sets for a continued run; ``resume``: the History of the run to
    continue), then score it on every string of C_{test_family}. A top-level function, so that
    worker processes can run it."""
    language = CrossSerial()
    vocab = Vocab(language.alphabet)
    model = cross_serial_model(kind, len(vocab), hidden_size, settings, seed)
    family = language.family(settings.max_total + 1)

    def fitted(m) -> float:
        return cross_serial_accuracy(m, language, vocab, family)["accuracy"]

    history = fit(model, vocab, train, epochs=settings.epochs,
                  min_epochs=min_epochs, batch_size=settings.batch_size, lr=settings.lr,
                  until=Target(FIT_METRIC, 1.0), metrics={FIT_METRIC: fitted}, seed=seed,
                  device=device, progress=False, resume=resume)
    scores = cross_serial_accuracy(model, language, vocab, language.family(settings.test_family))
    return TrainedCrossSerial(model.cpu(), history, scores)


def train_cross_serial_runs(jobs: Sequence[tuple], settings: CrossSerialSettings, train: Sequence,
                            device, progress) -> list[TrainedCrossSerial]:
    """:func:`train_cross_serial_model` for every (kind, hidden_size, seed, min_epochs[, resume]) of
    ``jobs``, in parallel worker processes."""
    return parallel_map(train_cross_serial_model,
                        [(kind, hidden_size, seed, settings, train, str(device), *more)
                         for kind, hidden_size, seed, *more in jobs],
                        device=device, desc="urn-cross-serial", progress=progress)


# -- the numbers --------------------------------------------------------------------------------


@dataclass
class CrossSerialRun(Record):
    """One trained cross-serial network: ``model`` ("URN"/"LSTM"), ``hidden_size``, ``seed``, its
    parameters, final training loss, epochs, convergence, string error on C_k and the error by
    m + n. The summaries (:func:`mean_error`, the best run) are computed where they are read:
    in the rows, the figure and the chapter."""

    model: str
    hidden_size: int
    seed: int
    parameters: int
    train_loss: float
    epochs: float
    converged: bool
    error: float
    error_by_length: dict[int, float]

    @classmethod
    def of(cls, kind: str, hidden_size: int, seed: int, run: TrainedCrossSerial) -> CrossSerialRun:
        r, history = run.scores, run.history
        return cls(model=kind.upper(), hidden_size=hidden_size, seed=seed,
                   parameters=run.model.num_parameters(),
                   train_loss=history.convergence.final["train_loss"],
                   epochs=history.convergence.epochs, converged=history.converged,
                   error=1 - r["accuracy"],
                   error_by_length={k: 1 - v for k, v in r["by_length"].items()})

    @classmethod
    def from_json(cls, saved: Mapping) -> CrossSerialRun:
        """A run as saved in ``results.json`` (a committed run's), its lengths integers again."""
        return cls(**{**saved, "error_by_length": {int(k): v for k, v in
                                                   saved["error_by_length"].items()}})


def mean_error(runs: Sequence[CrossSerialRun], model: str, hidden_size: int | None = None,
               lengths=None) -> float:
    """Mean string error of ``model`` ("URN"/"LSTM") over seeds (and ``hidden_size`` if given):
    of the whole of C_k, or – with ``lengths`` – the unweighted mean of the errors at those
    m + n (NaN for no lengths)."""
    chosen = [r for r in runs if r.model == model and hidden_size in (None, r.hidden_size)]
    if not chosen:
        raise ValueError(f"no {model} run with {hidden_size} units")
    if lengths is None:
        return float(np.mean([r.error for r in chosen]))
    if not lengths:
        return float("nan")
    return float(np.mean([r.error_by_length[k] for r in chosen for k in lengths]))


@dataclass
class CrossSerialNumbers(Record):
    """Every number of urn-cross-serial (see :func:`cross_serial_numbers`): every run
    (``runs``), the lengths m + n seen and unseen in training, the parameter counts of
    Tables 1–2 (task → hidden_size → lstm, urn) and, where a row needed them, the runs continued
    to twice their epochs (``doubled``; :meth:`with_doubled` puts them in place of the first)."""

    runs: list[CrossSerialRun]
    seen_lengths: list[int]
    unseen_lengths: list[int]
    parameter_counts: dict[str, dict[int, dict[str, int]]]
    doubled: list[CrossSerialRun] | None = saved_if_set()

    def with_doubled(self) -> list[CrossSerialRun]:
        """The runs with each continued run (``doubled``) in place of its first."""
        again = {(r.model, r.hidden_size, r.seed): r for r in self.doubled or ()}
        return [again.get((r.model, r.hidden_size, r.seed), r) for r in self.runs]


def parameter_count_rows() -> list[dict]:
    """B&L 2023 Tables 1–2 next to the formulas: LSTM = V·e + 4h(e + h) + 4h + V(h + 1)
    (:func:`~course_rnn.analysis.report.keras_lstm_parameter_count`, one bias per gate) and
    URN = V·n(n−1)/2 + V(n + 1) (:func:`~course_rnn.models.urn.urn_parameter_count`, full URN),
    with V and e from :data:`PAPER_VOCAB`."""
    rows = []
    for (task, hidden_size), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        v, emb = PAPER_VOCAB[task]
        rows.append({"task": task, "hidden_size": hidden_size,
                     "LSTM (paper)": paper_lstm,
                     "LSTM (formula)": keras_lstm_parameter_count(hidden_size, v, emb),
                     "URN (paper)": paper_urn,
                     "URN (urn_parameter_count)": urn_parameter_count(hidden_size, None, v)})
    return rows


def cross_serial_numbers(runs: Mapping[tuple, TrainedCrossSerial], settings: CrossSerialSettings
                         ) -> CrossSerialNumbers:
    """Every measured number of urn-cross-serial from the trained networks, keyed by (kind,
    hidden_size, seed)."""
    params = {(row["task"], row["hidden_size"]): row for row in parameter_count_rows()}
    return CrossSerialNumbers(
        runs=[CrossSerialRun.of(kind, u, s, runs[kind, u, s]) for kind, u, s in sorted(runs)],
        seen_lengths=list(range(2, settings.max_total + 1)),
        unseen_lengths=list(range(settings.max_total + 1, settings.test_family)),
        parameter_counts={task: {hidden_size: {"lstm": row["LSTM (formula)"],
                                               "urn": row["URN (urn_parameter_count)"]}
                                 for (t, hidden_size), row in params.items() if t == task}
                          for task in PAPER_VOCAB})


# -- the rows: Tables 1–2 and §3.1 ---------------------------------------------------------------


def runs_of(numbers: CrossSerialNumbers, models: Sequence[str]) -> list[bool]:
    """Whether each run of ``models`` ("URN", "LSTM") behind a row converged."""
    return [bool(r.converged) for r in numbers.runs if r.model in models]


def parameter_claims() -> list[Claim]:
    """Tables 1–2: the parameter counts, recomputed from formulas (no training behind them)."""
    claims = []
    for (task, hidden_size), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        table = "Table 1" if task == "cross-serial" else "Table 2"
        v, emb = PAPER_VOCAB[task]

        def count(n, task=task, hidden_size=hidden_size, paper=(paper_lstm, paper_urn)):
            ours = n.parameter_counts[task][hidden_size]
            gap = abs(ours["lstm"] - paper[0]) + abs(ours["urn"] - paper[1])
            return f"{ours['lstm']} / {ours['urn']}", ours["urn"], gap == 0, float(gap)

        claims.append(Claim(f"parameters, {task}, {hidden_size} units: LSTM / URN",
                            f"{paper_lstm} / {paper_urn} (2023 {table})", count, (),
                            f"formulas; V = {v}, LSTM embedding {emb}"))
    return claims


def cross_serial_claims(settings: CrossSerialSettings) -> list[Claim]:
    """Tables 1–2 (:func:`parameter_claims`) and the cross-serial claims of B&L 2023 §3.1."""
    small, large = settings.hidden_sizes[0], settings.hidden_sizes[-1]
    k, fit_k = settings.test_family, settings.max_total + 1

    def fitted(n):
        fits = {m: [r.converged for r in n.runs if r.model == m] for m in ("URN", "LSTM")}
        share = sum(map(sum, fits.values())) / sum(map(len, fits.values()))
        return (", ".join(f"{m} {sum(f)}/{len(f)} runs" for m, f in fits.items()), share,
                share == 1.0, 1.0 - share)

    def best(n):
        b = min(n.runs, key=lambda r: r.error)  # the run with the lowest string error on C_k
        return (f"{b.error:.2f} ({b.model} {b.hidden_size}, seed {b.seed})", b.error,
                b.error < 0.10, max(0.0, b.error - 0.10))

    def unseen(n):
        lstm, urn = (mean_error(n.runs, m, lengths=n.unseen_lengths) for m in ("LSTM", "URN"))
        return f"LSTM {lstm:.2f} vs URN {urn:.2f}", lstm, lstm < urn, max(0.0, lstm - urn)

    def by_hidden_size(model, falls):
        def check(n):
            by = {u: mean_error(n.runs, model, u) for u in (small, large)}
            ok = by[large] < by[small] if falls else by[large] > by[small]
            gap = by[large] - by[small] if falls else by[small] - by[large]
            return f"{by[small]:.2f} → {by[large]:.2f}", by[large], ok, max(0.0, gap)
        return check

    after = (f"error on C_{k}, each size when it first fits C_{fit_k}; the paper: after 100 "
             "epochs of each")
    return parameter_claims() + [
        Claim(f"both fit their training data (every string of C_{fit_k} right)",
              "yes (2023 §3.1)", fitted, ("URN", "LSTM"), "each run trains until it does"),
        Claim(f"best string error on C_{k}", "< 0.10 (2023 §3.1, Fig. 2b)", best,
              ("URN", "LSTM"), f"ours: when the run first fits C_{fit_k}; the paper's "
              "best epoch of 100"),
        Claim("unseen lengths: LSTM better than URN", "yes (2023 §3.1, error by length)",
              unseen, ("URN", "LSTM"), f"mean error at m + n = {fit_k}…{k - 1}"),
        Claim(f"URN error falls with units ({small}→{large})", "yes (2023 §3.1)",
              by_hidden_size("URN", falls=True), ("URN",), after),
        Claim(f"LSTM error rises with units ({small}→{large})", "yes (2023 §3.1: overfitting)",
              by_hidden_size("LSTM", falls=False), ("LSTM",), after),
    ]


# -- the figures --------------------------------------------------------------------------------


def cross_serial_figure(numbers: CrossSerialNumbers, settings: CrossSerialSettings,
                        n_seeds: int) -> Figure:
    """Error by m + n per model and size (left), error on C_k by size (right); 2023 Fig. 2."""
    fig = Figure(figsize=(10, 3.2), layout="constrained")
    axes = fig.subplots(1, 2)
    lengths = numbers.seen_lengths + numbers.unseen_lengths
    styles = (":", "--", "-", "-.")
    for i, model in enumerate(("URN", "LSTM")):
        for j, hidden_size in enumerate(settings.hidden_sizes):
            axes[0].plot(lengths, [mean_error(numbers.runs, model, hidden_size, [k])
                                   for k in lengths], styles[j % len(styles)],
                         color=f"C{i}", marker="o", ms=3, label=f"{model} {hidden_size}")
        axes[1].plot(settings.hidden_sizes,
                     [mean_error(numbers.runs, model, u) for u in settings.hidden_sizes],
                     "o-", color=f"C{i}", label=model)
    if numbers.unseen_lengths:
        axes[0].axvspan(settings.max_total + 0.5, settings.test_family - 0.5, color="0.9", zorder=0)
    axes[0].set_xlabel("m + n (shaded: longer than training)")
    axes[0].set_ylabel("string error rate")
    axes[0].legend(fontsize=7, ncol=2, handlelength=3)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(settings.hidden_sizes, [str(u) for u in settings.hidden_sizes])
    axes[1].set_xlabel("units")
    axes[1].set_ylabel(f"error on C_{settings.test_family} (mean of {n_seeds} seeds)")
    axes[1].legend()
    return fig


def figures_of(numbers: CrossSerialNumbers, settings: CrossSerialSettings, n_seeds: int,
               histories: Mapping[str, History]) -> dict[str, Figure]:
    """``cross_serial_errors`` (:func:`cross_serial_figure`) and ``cross_serial_curves`` (the
    first runs' learning curves)."""
    return {"cross_serial_errors": cross_serial_figure(numbers, settings, n_seeds),
            "cross_serial_curves": learning_curves(
                {n: h for n, h in histories.items() if "2×" not in n},
                ("train_loss", FIT_METRIC), title="Cross-serial: until every training "
                "string is right", size=(10, 3.2))}


# -- run ----------------------------------------------------------------------------------------


def run_cross_serial(scale: str = "quick", seeds: int | Iterable[int] | None = None,
                     device=None, progress: bool | None = None,
                     settings: Mapping | None = None) -> Replication:
    """URN vs LSTM on cross-serial strings, C_8 → C_10 (B&L 2023 §3, Tables 1–2, Fig. 2).

    Training strings are sampled once (seed 0) from C_{max_total+1}; the test set is every
    string of C_{test_family}, so the error is the paper's expected error over a uniform test
    sample. Per seed, a full URN and an LSTM of each size in ``hidden_sizes`` are trained until they
    fit their training lengths; a seed sets initialisation, dropout and batch order. ``seeds``: a
    count (default 2 quick, 3 paper) or a list. ``numbers`` is a :class:`CrossSerialNumbers`
    (``numbers.runs``: one :class:`CrossSerialRun` per trained network); ``runs`` every training
    history ("URN 8 seed 0").
    """
    setup = begin(EXPERIMENT, CROSS_SERIAL_SETTINGS, scale, settings, seeds, CROSS_SERIAL_SEEDS,
                  device, progress)
    # settings: from here on, the overrides completed by the scale's settings
    settings, device, progress = setup.settings, setup.device, setup.progress
    language = CrossSerial()
    train = language.sample(settings.train, seed=0, max_total=settings.max_total)
    # largest first, so that parallel workers start on the longest runs
    jobs = [(kind, u, s, 0) for u in settings.hidden_sizes[::-1] for s in setup.seeds
            for kind in ("urn", "lstm")]
    runs = dict(zip([j[:3] for j in jobs],
                    train_cross_serial_runs(jobs, settings, train, device, progress)))
    numbers = cross_serial_numbers(runs, settings)

    def train_again(min_epochs, resume):
        more = [(*key, min_epochs[key], r.history) for key, r in resume.items()]
        return dict(zip(resume, train_cross_serial_runs(more, settings, train, device, progress)))

    claims = cross_serial_claims(settings)
    needed = deciding_models(claims, numbers, runs_of)
    again = twice_the_budget(runs, [k for k in runs if k[0].upper() in needed], train_again)
    second = cross_serial_numbers({**runs, **again}, settings) if again else None
    rows = judged_rows(claims, numbers, second, runs_of)
    if second is not None:
        numbers.doubled = [r for r in second.runs
                           if (r.model.lower(), r.hidden_size, r.seed) in again]
    histories = {f"{k.upper()} {u} seed {s}": r.history for (k, u, s), r in sorted(runs.items())}
    histories.update({f"{k.upper()} {u} seed {s} (2× budget)": r.history
                      for (k, u, s), r in sorted(again.items())})
    return setup.replication(numbers, rows,
                             figures_of(numbers, settings, len(setup.seeds), histories),
                             runs=histories)


EXPERIMENT = Experiment.of(CROSS_SERIAL_SETTINGS, run_cross_serial)
