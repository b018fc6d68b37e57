"""urn-cross-serial's computation, rows and figure (B&L 2023 §3, Tables 1–2, Fig. 2): one
training run (a job for a worker process), the errors by model, size and length, the parameter
counts of Tables 1–2 from formulas, and the paper-vs-ours claims."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from ...analysis.report import keras_lstm_parameter_count
from ...languages import Vocab
from ...languages.cross_serial import CrossSerial
from ...metrics import cross_serial_accuracy
from ...models import build_model
from ...models.urn import urn_parameter_count
from ...training import Target, fit
from .claims import Claim
from .results import BestRun, CrossSerialNumbers, CrossSerialRun, MeanError, TrainedCrossSerial
from .settings import CrossSerialSettings

#: B&L 2023, Table 1 (cross-serial) and Table 2 (Dyck): (task, units) → (LSTM, URN) parameters.
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


def parameter_count_rows() -> list[dict]:
    """B&L 2023 Tables 1–2 next to the formulas: LSTM = V·e + 4h(e + h) + 4h + V(h + 1)
    (:func:`~course_rnn.analysis.report.keras_lstm_parameter_count`, one bias per gate) and
    URN = V·n(n−1)/2 + V(n + 1) (:func:`~course_rnn.models.urn.urn_parameter_count`, full URN),
    with V and e from :data:`PAPER_VOCAB`."""
    rows = []
    for (task, units), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        v, emb = PAPER_VOCAB[task]
        rows.append({"task": task, "units": units,
                     "LSTM (paper)": paper_lstm,
                     "LSTM (formula)": keras_lstm_parameter_count(units, v, emb),
                     "URN (paper)": paper_urn,
                     "URN (urn_parameter_count)": urn_parameter_count(units, None, v)})
    return rows


def cross_serial_model(kind: str, vocab_size: int, units: int, cfg: CrossSerialSettings, seed: int):
    """A full URN (no truncation, as in the 2023 paper) or an LSTM with ``units`` units."""
    if kind == "urn":
        return build_model("urn", vocab_size=vocab_size, hidden_size=units, seed=seed)
    return build_model("lstm", vocab_size=vocab_size, hidden_size=units,
                       embedding_dim=cfg.embedding, seed=seed)


def train_cross_serial_model(kind: str, units: int, seed: int, cfg: CrossSerialSettings,
                             train: Sequence, device=None, min_epochs: int = 0,
                             resume=None) -> TrainedCrossSerial:
    """Train one network until every string of the training family C_{max_total+1} is right
    (:data:`FIT_METRIC` = 1; at least ``min_epochs``, at most ``max(cfg.epochs,
    min_epochs)``; ``resume``: the History of the run to continue), then score it on every
    string of C_{test_family}."""
    language = CrossSerial()
    vocab = Vocab(language.alphabet)
    model = cross_serial_model(kind, len(vocab), units, cfg, seed)
    family = language.family(cfg.max_total + 1)

    def fitted(m) -> float:
        return cross_serial_accuracy(m, language, vocab, family)["accuracy"]

    history = fit(model, vocab, train, epochs=max(cfg.epochs, min_epochs),
                  min_epochs=min_epochs, batch_size=cfg.batch, lr=cfg.lr,
                  until=Target(FIT_METRIC, 1.0), metrics={FIT_METRIC: fitted}, seed=seed,
                  device=device, progress=False, resume=resume)
    scores = cross_serial_accuracy(model, language, vocab, language.family(cfg.test_family))
    return TrainedCrossSerial(model.cpu(), history, scores)


def mean_error(runs: list[CrossSerialRun], model: str, units: int | None = None,
               lengths=None) -> float:
    """Mean string error of ``model`` ("URN"/"LSTM") over seeds (and ``units`` if given): of the
    whole of C_k, or – with ``lengths`` – the unweighted mean of the errors at those m + n."""
    chosen = [r for r in runs if r.model == model and units in (None, r.units)]
    if not chosen:
        raise ValueError(f"no {model} run with {units} units")
    if lengths is None:
        return float(np.mean([r.error for r in chosen]))
    return float(np.mean([r.error_by_length[k] for r in chosen for k in lengths]))


def cross_serial_numbers(runs: list[CrossSerialRun], cfg: CrossSerialSettings
                         ) -> CrossSerialNumbers:
    """Every measured number of urn-cross-serial from one record per trained network."""
    seen = list(range(2, cfg.max_total + 1))
    unseen = list(range(cfg.max_total + 1, cfg.test_family))
    lengths = seen + unseen
    mean = {model: MeanError(
        all=mean_error(runs, model),
        seen=mean_error(runs, model, lengths=seen),
        unseen=mean_error(runs, model, lengths=unseen) if unseen else float("nan"),
        by_units={u: mean_error(runs, model, u) for u in cfg.units},
        by_units_and_length={u: {k: mean_error(runs, model, u, [k]) for k in lengths}
                             for u in cfg.units},
        fitted=sum(r.converged for r in runs if r.model == model),
        runs=sum(r.model == model for r in runs),
    ) for model in ("URN", "LSTM")}
    best = min(runs, key=lambda r: r.error)
    params = {(row["task"], row["units"]): row for row in parameter_count_rows()}
    return CrossSerialNumbers(
        runs=runs, seen_lengths=seen, unseen_lengths=unseen, mean_error=mean,
        best=BestRun(best.model, best.units, best.seed, best.error),
        parameter_counts={task: {units: {"lstm": row["LSTM (formula)"],
                                         "urn": row["URN (urn_parameter_count)"]}
                                 for (t, units), row in params.items() if t == task}
                          for task in PAPER_VOCAB})


def cross_serial_claims(cfg: CrossSerialSettings) -> list[Claim]:
    """Tables 1–2 (parameter counts) and the cross-serial claims of B&L 2023 §3.1."""
    claims = []
    for (task, units), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        table = "Table 1" if task == "cross-serial" else "Table 2"
        v, emb = PAPER_VOCAB[task]

        def count(n, task=task, units=units, paper=(paper_lstm, paper_urn)):
            ours = n.parameter_counts[task][units]
            gap = abs(ours["lstm"] - paper[0]) + abs(ours["urn"] - paper[1])
            return f"{ours['lstm']} / {ours['urn']}", ours["urn"], gap == 0, float(gap)

        claims.append(Claim(f"parameters, {task}, {units} units: LSTM / URN",
                            f"{paper_lstm} / {paper_urn} (2023 {table})", count, (),
                            f"formulas; V = {v}, LSTM embedding {emb}"))
    small, large = cfg.units[0], cfg.units[-1]
    k, fit_k = cfg.test_family, cfg.max_total + 1

    def fitted(n):
        urn, lstm = n.mean_error["URN"], n.mean_error["LSTM"]
        share = (urn.fitted + lstm.fitted) / (urn.runs + lstm.runs)
        return (f"URN {urn.fitted}/{urn.runs} runs, LSTM {lstm.fitted}/{lstm.runs} runs", share,
                share == 1.0,
                1.0 - share)

    def best(n):
        b = n.best
        return (f"{b.error:.2f} ({b.model} {b.units}, seed {b.seed})", b.error, b.error < 0.10,
                max(0.0, b.error - 0.10))

    def unseen(n):
        lstm, urn = n.mean_error["LSTM"].unseen, n.mean_error["URN"].unseen
        return f"LSTM {lstm:.2f} vs URN {urn:.2f}", lstm, lstm < urn, max(0.0, lstm - urn)

    def urn_units(n):
        by = n.mean_error["URN"].by_units
        return (f"{by[small]:.2f} → {by[large]:.2f}", by[large], by[large] < by[small],
                max(0.0, by[large] - by[small]))

    def lstm_units(n):
        by = n.mean_error["LSTM"].by_units
        return (f"{by[small]:.2f} → {by[large]:.2f}", by[large], by[large] > by[small],
                max(0.0, by[small] - by[large]))

    return claims + [
        Claim(f"both fit their training data (every string of C_{fit_k} right)",
              "yes (2023 §3.1)", fitted, ("URN", "LSTM"), "each run trains until it does"),
        Claim(f"best string error on C_{k}", "< 0.10 (2023 §3.1, Fig. 2b)", best,
              ("URN", "LSTM"), f"ours: when the run first fits C_{fit_k}; the paper's "
              "best epoch of 100"),
        Claim("unseen lengths: LSTM better than URN", "yes (2023 §3.1, error by length)",
              unseen, ("URN", "LSTM"), f"mean error at m + n = {fit_k}…{k - 1}"),
        Claim(f"URN error falls with units ({small}→{large})", "yes (2023 §3.1)", urn_units,
              ("URN",), f"error on C_{k}, each size when it first fits C_{fit_k}; the paper: "
              "after 100 epochs of each"),
        Claim(f"LSTM error rises with units ({small}→{large})", "yes (2023 §3.1: overfitting)",
              lstm_units, ("LSTM",), f"error on C_{k}, each size when it first fits "
              f"C_{fit_k}; the paper: after 100 epochs of each"),
    ]


def cross_serial_record(kind: str, units: int, seed: int, run: Mapping) -> CrossSerialRun:
    """The record of one trained network (``run``: what :func:`train_cross_serial_model`
    returned)."""
    r, history = run.scores, run.history
    return CrossSerialRun(
        model=kind.upper(), units=units, seed=seed, parameters=run.model.num_parameters(),
        train_loss=history.convergence.final["train_loss"], epochs=history.convergence.epochs,
        converged=history.converged, error=1 - r["accuracy"],
        error_by_length={k: 1 - v for k, v in r["by_length"].items()})


def cross_serial_figure(numbers: CrossSerialNumbers, cfg: CrossSerialSettings,
                        n_seeds: int) -> Figure:
    """Error by m + n per model and size (left), error on C_k by size (right); 2023 Fig. 2."""
    fig = Figure(figsize=(10, 3.2), layout="constrained")
    axes = fig.subplots(1, 2)
    lengths = numbers.seen_lengths + numbers.unseen_lengths
    styles = (":", "--", "-", "-.")
    for i, model in enumerate(("URN", "LSTM")):
        by = numbers.mean_error[model].by_units_and_length
        for j, units in enumerate(cfg.units):
            axes[0].plot(lengths, [by[units][k] for k in lengths], styles[j % len(styles)],
                         color=f"C{i}", marker="o", ms=3, label=f"{model} {units}")
        axes[1].plot(cfg.units, [numbers.mean_error[model].by_units[u] for u in cfg.units],
                     "o-", color=f"C{i}", label=model)
    if numbers.unseen_lengths:
        axes[0].axvspan(cfg.max_total + 0.5, cfg.test_family - 0.5, color="0.9", zorder=0)
    axes[0].set_xlabel("m + n (shaded: longer than training)")
    axes[0].set_ylabel("string error rate")
    axes[0].legend(fontsize=7, ncol=2, handlelength=3)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(cfg.units, [str(u) for u in cfg.units])
    axes[1].set_xlabel("units")
    axes[1].set_ylabel(f"error on C_{cfg.test_family} (mean of {n_seeds} seeds)")
    axes[1].legend()
    return fig

