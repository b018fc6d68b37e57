"""How ``decay-rnn-agreement`` judges a row: each comparison as a
:class:`~course_rnn.experiments.replication.Measurement` (does ours agree with the paper, and by
how much not), and the doubled-budget re-checks :func:`~course_rnn.experiments.replication.judge`
asks for (:class:`DoubledBudget`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..replication import Measurement
from .compute import RunSpec, TrainedRun
from .paper import ALPHA_TOLERANCE, SHARE_TOLERANCE
from .results import Alpha, DoubledRun, MarvinLinzen, Relative, model_numbers
from .settings import REFERENCE


def relative_measurement(rel: Relative, paper_diff: float, runs: Sequence) -> Measurement | None:
    """Does the model's distance from the LSTM agree with the paper's (within each mix's
    tolerance) on both attractor mixes? None when the two mixes disagree (then the verdict
    depends on a mix we do not know: not comparable)."""
    mixes = ("natural", "no_attractor")
    offsets = [rel.minus_lstm(mix) - paper_diff for mix in mixes]
    slack = [abs(o) - rel.tolerance(mix) for o, mix in zip(offsets, mixes)]
    if all(x <= 0 for x in slack):
        return Measurement(rel.minus_lstm_natural, True, 0.0, runs)
    if any(x <= 0 for x in slack) or (offsets[0] > 0) != (offsets[1] > 0):
        return None
    return Measurement(rel.minus_lstm_natural, False, min(slack), runs)


def rise_measurement(by: Mapping, paper_rise: float, runs: Sequence) -> Measurement:
    """Every seed's accuracy rises from n = 0 to n = 2 non-attractors (``by``: n → Summary) by
    at least half the paper's rise."""
    rises = [100 * (b2 - b0) for b0, b2 in zip(by[0].values, by[2].values)]
    gap = max(0.0, paper_rise / 2 - min(rises))
    return Measurement(rises, gap == 0, gap, runs)


def alpha_measurement(alpha: Alpha, runs: Sequence) -> Measurement:
    """Fig. 5: the final α of every start within :data:`~.paper.ALPHA_TOLERANCE` of 0.8."""
    gap = max(0.0, alpha.max_distance_from_paper - ALPHA_TOLERANCE)
    return Measurement(alpha.final, gap == 0, gap, runs)


def lm_measurement(difference: float, paper_diff: float, runs: Sequence) -> Measurement:
    """Table 4's headline: the DRNN LM's distance from the LSTM LM within
    :data:`~.paper.SHARE_TOLERANCE` of the paper's."""
    gap = max(0.0, abs(difference - paper_diff) - SHARE_TOLERANCE)
    return Measurement(difference, gap == 0, gap, runs)


class DoubledBudget:
    """The doubled-budget measurements :func:`~course_rnn.experiments.replication.judge`
    reads: ``first``, the first runs by spec, and ``results``, the runs
    :func:`~course_rnn.experiments.replication.twice_the_budget` continued to twice their epochs
    before the table was built (by their first spec); each method measures one row's figure on
    them."""

    def __init__(self, first: Mapping[RunSpec, TrainedRun],
                 results: Mapping[RunSpec, TrainedRun]):
        self.first, self.results = first, dict(results)

    def _runs(self, predicate) -> dict[RunSpec, TrainedRun]:
        specs = [s for s in self.first if predicate(s)]
        missing = [s.label for s in specs if s not in self.results]
        if missing:
            raise KeyError(f"not continued to twice the budget before the table: {missing} "
                           "(doubled_requests must ask for every run a verdict needs)")
        return {s: self.results[s] for s in specs}

    def relative(self, task: str, name: str, paper_diff: float) -> Measurement:
        runs = self._runs(lambda s: s.task == task and s.name in (name, REFERENCE))
        rel = Relative.of(model_numbers(runs, task, (name, REFERENCE)), name)
        histories = [r.history for r in runs.values()]
        measured = relative_measurement(rel, paper_diff, histories)
        if measured is None:  # the mixes now disagree: the gap has closed on one of them
            return Measurement(rel.minus_lstm_natural, True, 0.0, histories)
        return measured

    def rise(self, name: str, paper_rise: float) -> Measurement:
        runs = self._runs(lambda s: s.task == "number prediction" and s.name == name)
        by = model_numbers(runs, "number prediction", (name,))[name].by_non_attractors
        return rise_measurement(by, paper_rise, [r.history for r in runs.values()])

    def alpha(self) -> Measurement:
        runs = self._runs(lambda s: s.task == "alpha")
        histories = {s.alpha_init: r.history for s, r in runs.items()}
        final = {s.alpha_init: r.scores["alpha"] for s, r in runs.items()}
        return alpha_measurement(Alpha.of(histories, final), list(histories.values()))

    def lm(self, paper_diff: float) -> Measurement:
        runs = self._runs(lambda s: s.task == "lm")
        ml = MarvinLinzen.of({s.name: r for s, r in runs.items()})
        return lm_measurement(ml.distant_difference, paper_diff,
                              [r.history for r in runs.values()])

    def summary(self) -> dict[str, DoubledRun]:
        """Every doubled run's epochs (first and doubled) and convergence, by its label."""
        return {spec.label: DoubledRun(float(self.first[spec].history.convergence.epochs),
                                       float(r.history.convergence.epochs),
                                       bool(r.history.converged))
                for spec, r in self.results.items()}
