"""The paper-vs-ours table of ``anbn``: the lecture's claims measured on the scored runs
(:func:`no_count_measurement`, :func:`lstm_best_measurement`), the runs that decide a claim or
are stuck (continued to twice their epochs), and the rows (:func:`claims`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..replication import Measurement, Row, pm
from .results import Instability, ModelSummary, RunScore, StuckTwice
from .settings import AnbnSettings, model_name

LECTURE = "Levy 2023, slides 'Hidden & cell state contents' and 'Summary'"
GERS = "Gers & Schmidhuber 2001"
WEISS = "Weiss, Goldberg & Yahav 2018"


# -- the claims and their verdicts ----------------------------------------------------------------
def generalises(run: RunScore, train_max_n: int) -> bool:
    """A fitted run right on every n up to beyond the training range."""
    return bool(run.fitted) and run.max_correct_n > train_max_n


def _counting_share(runs: Sequence[RunScore], train_max_n: int) -> tuple[int, int]:
    """(converged seeds that generalise, converged seeds): a stuck seed counts nothing."""
    converged = [r for r in runs if r.converged]
    return sum(generalises(r, train_max_n) for r in converged), len(converged)


def no_count_measurement(runs: Sequence[RunScore], train_max_n: int) -> Measurement:
    """The lecture's claim for the SRN and the GRU: no seed counts beyond the training range.
    Value: converged seeds that do (fitted and right beyond N_train); gap: their share. Every
    seed's convergence is behind it."""
    k, converged = _counting_share(runs, train_max_n)
    return Measurement(k, agrees=k == 0, gap=k / max(converged, 1),
                       runs=[r.converged for r in runs])


def lstm_best_measurement(lstm: Sequence[RunScore], rivals: Sequence[Sequence[RunScore]],
                          train_max_n: int) -> Measurement:
    """The lecture's claim for the LSTM: it counts beyond the training range, and more often
    than the SRN and the GRU ("works the best"). Value: the share of converged LSTM seeds that
    generalise; it agrees when some do and the share beats that of every rival. Gap: the share
    of seeds the LSTM would have to gain to lead (one seed when it ties)."""
    k, converged = _counting_share(lstm, train_max_n)
    share = k / converged if converged else 0.0
    rival = max((_share(r, train_max_n) for r in rivals), default=0.0)
    agrees = k > 0 and share > rival
    gap = 0.0 if agrees else max(rival - share, 0.0) + 1 / max(converged, 1)
    behind = [r.converged for runs in (lstm, *rivals) for r in runs]
    return Measurement(share, agrees=agrees, gap=gap, runs=behind)


def _share(runs: Sequence[RunScore], train_max_n: int) -> float:
    k, converged = _counting_share(runs, train_max_n)
    return k / converged if converged else 0.0


def deciding_runs(model_runs: Mapping[str, Sequence[RunScore]], claim: str,
                  train_max_n: int) -> list[tuple[str, int]]:
    """The (model id, seed) pairs whose outcome makes a claim disagree, to be continued at twice
    the budget: for "no count" the seeds that generalise; for "lstm best" the converged LSTM
    seeds that do not and the rival seeds that do."""
    pairs = []
    for model_id, runs in model_runs.items():
        for r in runs:
            if not r.converged:
                continue
            counts = generalises(r, train_max_n)
            if (claim == "no count" and counts) or (claim == "lstm best" and (
                    (model_id == "lstm") != counts)):
                pairs.append((model_id, r.seed))
    return pairs


def stuck_runs(by_model: Mapping[str, Sequence[RunScore]]) -> list[tuple[str, int]]:
    """The (model id, seed) pairs that converged without fitting: each is continued to twice
    its epochs, to check that more training does not rescue it."""
    return [(m, r.seed) for m, runs in by_model.items() for r in runs
            if r.converged and not r.fitted]


def _fitted_text(s: ModelSummary, train_max_n: int) -> str:
    """"fitted 5/6 seeds (1 stuck above the optimum); of those, 3/5 count beyond 20;
    max_correct_n 25.1 ± 3.2, best 41 (seed 2)"."""
    text = f"fitted {s.fitted}/{s.n_seeds} seeds"
    if s.stuck:
        text += f" ({s.stuck} stuck above the optimum)"
    if not s.fitted:
        return text + f"; lowest final loss {s.lowest_final_loss:.3f}"
    text += (f"; of those, {s.generalised}/{s.fitted} count beyond {train_max_n}; "
             f"max_correct_n {pm(s.max_correct_n_mean, s.max_correct_n_se, digits=1)}, "
             f"best {s.max_correct_n_best_seed} (seed {s.best_seed})")
    return text


def claims(summary: Mapping[str, ModelSummary], verdicts: Mapping[str, object],
           unstable: Instability | None, cfg: AnbnSettings, optimum: float,
           stuck_twice: Mapping[str, StuckTwice] | None = None) -> list[Row]:
    """The paper-vs-ours table: the lecture's claim per model (verdicts from ``verdicts``, keyed
    by model id: a Verdict or a label), Gers & Schmidhuber's reach, Weiss et al.'s theory for the
    two extra SRNs, the seeds that failed to learn, at twice the epochs too (``stuck_twice``:
    :func:`~.results.recheck`), and the best LSTM's stability across epochs."""
    train_n, test_n = cfg.train_max_n, cfg.test_max_n
    fit_note = (f"a seed has fitted when its training loss is within {cfg.tolerance:g} nats "
                f"of the optimum {optimum:.4f}")
    rows = []
    for model_id in ("srn", "gru"):
        name = model_name(model_id, cfg)
        if name not in summary:
            continue
        s = summary[name]
        if not s.converged:
            note = "no seed converged: the cap on epochs came first, so nothing is compared"
        elif not s.fitted:
            note = (f"no seed fitted the training set ({fit_note}): it fails before counting "
                    "is tested, so it cannot count beyond the training range either")
        elif s.generalised:
            note = (f"{s.generalised} fitted seed(s) get every n right beyond {train_n}: "
                    "some counting past the training range, as a squashing unit can for a while")
        else:
            note = f"no fitted seed is right on every n ≤ {train_n + 1}"
        if s.fitted and s.stuck:
            note += f"; {s.stuck} seed(s) failed to learn (a stuck seed counts nothing)"
        rows.append(Row(
            f"{name} ({cfg.hidden} units): counts beyond the training range (n ≤ {train_n}, "
            f"tested to {test_n})",
            f"no: its state saturates ({LECTURE})", _fitted_text(s, train_n), note,
            verdicts.get(model_id, "")))
    name = model_name("lstm", cfg)
    if name in summary:
        s = summary[name]
        rivals = [model_name(m, cfg) for m in ("srn", "gru") if model_name(m, cfg) in summary]
        note = ("the share of converged seeds that fit and count, against the "
                + (" and the ".join(f"{r}'s" for r in rivals) or "rivals'")
                + " (a seed stuck above the optimum counts as not counting)")
        rows.append(Row(
            f"LSTM ({cfg.hidden} units): counts beyond the training range, more often than "
            "SRN and GRU",
            f"yes: \"for classic counting language, LSTM works the best\" ({LECTURE})",
            _fitted_text(s, train_n), note, verdicts.get("lstm", "")))
        best = s.max_correct_n_best_seed
        rows.append(Row(
            "LSTM: best fitted seed's max_correct_n",
            f"trained on n ≤ 10, right on every n up to ≈ 1,000 ({GERS}, peephole LSTM)",
            f"{best} (seed {s.best_seed}; trained on n ≤ {train_n}, tested to {test_n})"
            if best is not None else "no seed fitted",
            "different training range, test range, size and cell (no peepholes)"
            + ("; ours is right to the end of our test" if best == test_n else ""),
            "not comparable"))
    theory = {"srn-relu": "can implement an exact counter (theory: finite precision)",
              "srn-wide": "can only approximate a counter: a squashing unit saturates (theory)"}
    for model_id, claim in theory.items():
        name = model_name(model_id, cfg)
        if name in summary:
            rows.append(Row(
                f"{name}: counts beyond the training range", f"{claim} ({WEISS})",
                _fitted_text(summary[name], train_n),
                "a theorem about what the weights can express, not about what training finds",
                "not comparable"))
    for model_id in cfg.models:
        name = model_name(model_id, cfg)
        s = summary.get(name)
        if not s or not s.stuck:
            continue
        ours = (f"{s.stuck}/{s.n_seeds} seeds stuck at "
                f"{_span(s.stuck_loss_min, s.stuck_loss_max)} nats")
        again = (stuck_twice or {}).get(name)
        if again is not None:
            parts = [f"{again.still_stuck} still stuck"
                     + (f" at {_span(again.stuck_min, again.stuck_max)}"
                        if again.still_stuck else "")]
            if again.still_improving:
                parts.append(f"{again.still_improving} still improving at the cap, at "
                             f"{_span(again.improving_min, again.improving_max)}")
            parts.append(f"{again.fitted} fitted")
            ours += f"; at twice the epochs: {', '.join(parts)}"
        rows.append(Row(
            f"{name}: seeds that fail to learn n ≤ {train_n}", "— (not reported)", ours,
            f"stuck: the training loss improved by < {cfg.min_delta:.1%} over "
            f"{cfg.patience} epochs, more than {cfg.tolerance:g} nats above the optimum "
            f"{optimum:.4f}; each stuck seed was continued to twice its epochs (same seed)"))
    if unstable is not None:
        if unstable.first_epoch_beyond is None:
            ours, note = f"never beyond n = {train_n}", "no fitted LSTM seed counts"
        else:
            ours = (f"seed {unstable.seed}: first beyond n = {train_n} at epoch "
                    f"{unstable.first_epoch_beyond}, then {unstable.min_after}"
                    f"…{unstable.max_after}")
            note = ("the slides show one checkpoint; ours moves between epochs"
                    if unstable.max_after > unstable.min_after else "stable once it counts")
        rows.append(Row("best LSTM seed: max_correct_n over the epochs after it first counts "
                        f"beyond n = {train_n}", "— (not reported)", ours, note))
    return rows


def _span(low: float, high: float) -> str:
    """"0.271" or "0.271–0.301" (three decimals; one value when both round alike)."""
    low, high = f"{low:.3f}", f"{high:.3f}"
    return low if low == high else f"{low}–{high}"

