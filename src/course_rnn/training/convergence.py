"""When has a model learned? Three criteria, and the record every training run leaves behind.

A comparison between models means something only once each model has finished learning. "Trained
for 6 epochs" says how long we waited, not whether it was long enough, so every run of the course
names a **criterion** and reports whether it was met:

* :class:`Plateau` – the monitored figure (usually the validation loss) stopped improving: over the
  last ``patience`` evaluations its best value improved by less than ``min_delta`` (relative)
  on the best value before them. This is early stopping's rule.
* :class:`Target` – a figure reached a target, e.g. training accuracy ≥ 0.99.
* :class:`Optimum` – a loss came within ``tolerance`` of the language's **exact optimum**: the
  entropy of the next symbol given the prefix, which no model can beat. The formal languages of
  the course know their own next-symbol distributions, so here "has the model fitted its
  training set?" has an exact answer.

A run that hits its budget (the cap on epochs) without meeting its criterion says so; the
:class:`Convergence` record keeps the criterion, whether it was met and why, the epochs and
optimizer steps used, the best and final figures, and the learning curve lives beside it in the
training history.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from ..checks import MAX_MIN_DELTA, check_number, check_training_count


def _check_metric(metric, optional: bool = False) -> None:
    if metric is None and optional:
        return
    if not isinstance(metric, str) or not metric:
        raise ValueError(f"metric must be the name of a recorded figure such as 'train_loss'"
                         f"{' (or None: the monitor)' if optional else ''}, got {metric!r}")


def _mode(mode: str) -> str:
    if mode not in ("min", "max"):
        raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
    return mode


@dataclass(frozen=True)
class Plateau:
    """Met when ``metric`` has not improved by more than ``min_delta`` (relative to its size)
    over the last ``patience`` evaluations. ``metric=None`` watches the run's monitor (the
    validation loss when there is a validation set, else the training loss).

    ``floor``: a plateau counts only once the best value has passed it (≥ for ``mode="max"``,
    ≤ for ``"min"``). Classifiers often sit at chance for many epochs before they find the cue;
    a plateau *there* is not convergence (``Plateau("valid_accuracy", mode="max", floor=0.6)``).
    """

    metric: str | None = None
    patience: int = 10
    min_delta: float = 1e-3
    mode: str = "min"
    floor: float | None = None

    def __post_init__(self):
        _check_metric(self.metric, optional=True)
        check_training_count(self.patience, "patience")
        check_number(self.min_delta, "min_delta", at_least=0, at_most=MAX_MIN_DELTA)
        _mode(self.mode)
        check_number(self.floor, "floor", optional=True)

    def describe(self, monitor: str) -> str:
        floor = "" if self.floor is None else \
            f", once {'above' if self.mode == 'max' else 'below'} {self.floor:g}"
        return (f"{self.metric or monitor} plateau: better by < {self.min_delta:g} (relative) "
                f"over {self.patience} evaluations{floor}")

    def check(self, curve: Sequence[float], monitor: str) -> tuple[bool, str]:
        name = self.metric or monitor
        sign = 1.0 if self.mode == "min" else -1.0
        if self.floor is not None and min(sign * v for v in curve) > sign * self.floor:
            best = max(curve) if self.mode == "max" else min(curve)
            return False, f"{name}: best {best:.4g} has not passed {self.floor:g} yet"
        if len(curve) <= self.patience:
            return False, f"{name}: only {len(curve)} evaluations, a plateau needs " \
                          f"{self.patience + 1}"
        before = min(sign * v for v in curve[: -self.patience])
        recent = min(sign * v for v in curve[-self.patience:])
        gain = (before - recent) / max(abs(before), 1e-12)
        if gain < self.min_delta:
            return True, (f"{name} improved by {max(gain, 0.0):.2%} over the last "
                          f"{self.patience} evaluations (< {self.min_delta:g})")
        return False, f"{name} still improving ({gain:.2%} over the last {self.patience})"


@dataclass(frozen=True)
class Target:
    """Met when ``metric`` reaches ``value`` (≥ for ``mode="max"``, ≤ for ``mode="min"``)."""

    metric: str
    value: float
    mode: str = "max"

    def __post_init__(self):
        if not isinstance(self.metric, str) or not self.metric:
            raise ValueError(f"metric must be a name such as 'train_accuracy', got {self.metric!r}")
        check_number(self.value, "value")
        if self.metric.endswith("accuracy") and not 0 <= self.value <= 1:
            raise ValueError(f"value must lie in [0, 1] for {self.metric!r} (an accuracy is a "
                             f"share, never met at {self.value!r})")
        _mode(self.mode)

    def describe(self, monitor: str) -> str:
        return f"{self.metric} {'≥' if self.mode == 'max' else '≤'} {self.value:g}"

    def check(self, curve: Sequence[float], monitor: str) -> tuple[bool, str]:
        last = curve[-1]
        met = last >= self.value if self.mode == "max" else last <= self.value
        return met, f"{self.metric} = {last:.4g} ({'' if met else 'not yet '}" \
                    f"{self.describe(monitor)})"


@dataclass(frozen=True)
class Optimum:
    """Met when ``metric`` (a loss in nats) is within ``tolerance`` of ``optimum``, the exact
    minimum the language allows (see e.g. :meth:`course_rnn.languages.AnBn.optimal_loss`)."""

    optimum: float
    tolerance: float = 0.01
    metric: str = "train_loss"

    def __post_init__(self):
        check_number(self.optimum, "optimum", at_least=0)
        check_number(self.tolerance, "tolerance", above=0)
        _check_metric(self.metric)

    def describe(self, monitor: str) -> str:
        return f"{self.metric} within {self.tolerance:g} nats of the exact optimum " \
               f"{self.optimum:.4f}"

    def check(self, curve: Sequence[float], monitor: str) -> tuple[bool, str]:
        gap = curve[-1] - self.optimum
        met = gap <= self.tolerance
        return met, (f"{self.metric} = {curve[-1]:.4f}, {gap:+.4f} from the optimum "
                     f"{self.optimum:.4f} ({'within' if met else 'outside'} {self.tolerance:g})")


@dataclass(frozen=True)
class AnyOf:
    """Met as soon as any of ``criteria`` is, e.g. "held-out accuracy ≥ 0.995, or a plateau once
    clear of chance"::

        AnyOf(Target("valid_accuracy", 0.995),
              Plateau("valid_accuracy", patience=10, mode="max", floor=0.6))
    """

    criteria: tuple

    def __init__(self, *criteria):
        if not criteria:
            raise ValueError("AnyOf needs at least one criterion")
        for c in criteria:
            if not isinstance(c, (Plateau, Target, Optimum)):
                raise TypeError(f"AnyOf combines Plateau, Target and Optimum criteria, got "
                                f"{type(c).__name__}")
        object.__setattr__(self, "criteria", tuple(criteria))

    def describe(self, monitor: str) -> str:
        return ", or ".join(c.describe(monitor) for c in self.criteria)


Criterion = Plateau | Target | Optimum | AnyOf


def check_criterion(criterion) -> Criterion:
    if not isinstance(criterion, (Plateau, Target, Optimum, AnyOf)):
        raise TypeError(f"until= takes a Plateau, Target, Optimum or AnyOf criterion, got "
                        f"{type(criterion).__name__}")
    return criterion


def watched(criterion: Criterion, monitor: str) -> list[str]:
    """The recorded figures ``criterion`` reads (``metric=None`` means the monitor)."""
    parts = criterion.criteria if isinstance(criterion, AnyOf) else (criterion,)
    return [getattr(c, "metric", None) or monitor for c in parts]


def status(criterion: Criterion, history, monitor: str) -> tuple[bool, str]:
    """``(met, why)`` for ``criterion`` on a training history (``history[name]`` is a curve)."""
    if isinstance(criterion, AnyOf):
        reasons = []
        for part in criterion.criteria:
            met, why = status(part, history, monitor)
            if met:
                return True, why
            reasons.append(why)
        return False, "; ".join(reasons)
    return criterion.check(history[getattr(criterion, "metric", None) or monitor], monitor)


def patience_of(criterion: Criterion) -> int:
    """The evaluations ``criterion`` may need past a given point before it can be met there: its
    longest :class:`Plateau`'s patience (0 for a :class:`Target` or :class:`Optimum` alone,
    judged at every evaluation)."""
    parts = criterion.criteria if isinstance(criterion, AnyOf) else (criterion,)
    return max((c.patience for c in parts if isinstance(c, Plateau)), default=0)


def stopped_short(criterion: Criterion, history, monitor: str) -> bool:
    """Whether a met ``criterion`` was met by a plateau short of its target: an :class:`AnyOf`
    of a :class:`Target` or :class:`Optimum` and a :class:`Plateau` whose first met part is the
    plateau (chapter 3's ``AnyOf(Optimum(…), Plateau(…))`` on a run that stopped above the
    optimum). Such a run stopped on its criterion, but it stalled: it did not fit."""
    if not isinstance(criterion, AnyOf) or all(isinstance(p, Plateau) for p in criterion.criteria):
        return False
    for part in criterion.criteria:
        if status(part, history, monitor)[0]:
            return isinstance(part, Plateau)
    return False


#: How a run ended: its criterion was met, its monitor stalled (``patience`` evaluations without
#: a better value) before the criterion was met, or its budget (the cap on epochs) ran out.
STOPS = ("criterion met", "stalled", "budget spent")
#: How a run that stopped so reads, in its log line and in a sentence about many runs
#: (:func:`tally`) — the book's words (its glossary): **fitted** (it met its criterion: it has
#: learned), **stalled** (its monitor stopped improving short of its target; continuing it tells
#: a run that is *stuck* from a slow one), **ran out of steps** (the cap came while it still
#: improved: it says nothing yet of what the model can learn), **diverged**. A run that met the
#: plateau of a "target, or a plateau" criterion is ``converged`` (it stopped on its criterion)
#: but reads "stalled" (:attr:`Convergence.ending`): no log line calls a failed run converged.
ENDINGS = {"criterion met": "fitted", "stalled": "stalled", "budget spent": "ran out of steps",
           "diverged": "diverged"}
# The order in which :func:`tally` counts the endings it knows (any other after them).
_ENDING_ORDER = ("fitted", "converged", "stuck", "stalled", "ran out of steps", "diverged")


@dataclass
class Convergence:
    """Whether one training run learned, and the figures that say so (JSON-able)."""

    criterion: str  # what "learned" meant for this run, in words
    converged: bool
    stopped: str  # one of STOPS
    reason: str  # why, with the figures
    epochs: float  # epochs trained (fractional when evaluating within epochs)
    steps: int  # optimizer steps (hill-climbing moves for the climber)
    monitor: str  # the figure whose best value is kept ("valid_loss", "train_loss", ...)
    best_epoch: float | None = None
    best: float | None = None  # best value of the monitor
    final: dict = field(default_factory=dict)  # the last evaluation's figures
    # met its criterion's plateau, not its target (:func:`stopped_short`): it stalled, not fitted
    short_of_target: bool = False

    def __str__(self) -> str:
        """"fitted after 41 epochs (3280 steps): …", "ran out of steps after 300 epochs …"."""
        return f"{self.ending} after {self.epochs:g} epochs ({self.steps} steps): {self.reason}"

    @property
    def ending(self) -> str:
        """How the run ended, in the book's words (:data:`ENDINGS`): "fitted", "stalled", "ran
        out of steps" or "diverged". A run whose criterion was met by a plateau short of its
        target (``short_of_target``) stalled: its criterion is met, but it did not fit."""
        if self.stopped == "criterion met" and self.short_of_target:
            return "stalled"
        return ENDINGS.get(self.stopped, self.stopped)

    def to_json(self) -> dict:
        data = asdict(self)
        if not self.short_of_target:  # the records saved before it existed stay as they were
            del data["short_of_target"]
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> Convergence:
        """The record saved by :meth:`to_json`. One saved before ``short_of_target`` existed
        (the committed runs) is read from its words: its criterion was an ``AnyOf`` with a
        target, and the reason it gives is the plateau's (the reason of the part that was met)."""
        if "short_of_target" not in data and data.get("stopped") == "criterion met":
            data = {**data, "short_of_target": _plateau_short_of_target(data)}
        return cls(**data)


#: A met :class:`Plateau`'s reason, and the descriptions of the parts that make an ``AnyOf``
#: target (:meth:`Target.describe`, :meth:`Optimum.describe`).
_PLATEAU_MET = re.compile(r"improved by -?[\d.]+% over the last \d+ evaluations \(<")
_TARGET_WORDS = re.compile(r" [≥≤] |exact optimum")


def _plateau_short_of_target(data: Mapping) -> bool:
    """Whether a saved record whose criterion was met was met by a plateau short of a target."""
    criterion, reason = str(data.get("criterion", "")), str(data.get("reason", ""))
    return (", or " in criterion and bool(_TARGET_WORDS.search(criterion))
            and bool(_PLATEAU_MET.search(reason)))


def tally(endings: Iterable[str], continued: Iterable[str] = ()) -> str:
    """A page's training runs in one sentence, each way of ending counted (the line per run is
    for the notes: :meth:`~course_rnn.experiments.replication.Replication.convergence_report`).

    ``endings``: one word per run — an experiment's own ("fitted", "stuck") or a record's
    :attr:`Convergence.ending`; the library's stops (:data:`STOPS`, "diverged") are put in
    words (:data:`ENDINGS`). ``continued``: the endings of the runs continued to twice their
    budget, counted apart::

        >>> tally(["fitted"] * 14 + ["stuck"] * 5 + ["budget spent"])
        '20 runs: 14 fitted, 5 stuck, 1 ran out of steps'
        >>> tally(["criterion met"] * 4, continued=["stuck", "fitted"])
        '4 runs, all fitted; 2 continued to twice their budget: 1 fitted, 1 stuck'
    """
    first = _counted([ENDINGS.get(e, e) for e in endings])
    again = _counted([ENDINGS.get(e, e) for e in continued])
    sentence = _sentence(first, "run", "runs") if first else "no runs"
    if again:
        n = sum(again.values())
        whose = "its" if n == 1 else "their"
        sentence += "; " + _sentence(again, *[f"continued to twice {whose} budget"] * 2)
    return sentence


def _counted(endings: list[str]) -> dict[str, int]:
    """``{ending: count}``, the known endings first (:data:`_ENDING_ORDER`), then the others in
    the order they first appear."""
    order = [e for e in _ENDING_ORDER if e in endings]
    order += [e for e in dict.fromkeys(endings) if e not in order]
    return {e: endings.count(e) for e in order}


def _sentence(counts: dict[str, int], one: str, many: str) -> str:
    """"20 runs: 14 fitted, 6 stuck", "20 runs, all fitted", "1 run: fitted" (``one`` and
    ``many``: what follows the count for one run and for more)."""
    n = sum(counts.values())
    head = f"{n} {one if n == 1 else many}"
    if n == 1:
        return f"{head}: {next(iter(counts))}"
    if len(counts) == 1:
        return f"{head}, all {next(iter(counts))}"
    return f"{head}: " + ", ".join(f"{k} {e}" for e, k in counts.items())


def all_converged(runs) -> bool:
    """True when every item of ``runs`` (Convergence records, histories or booleans) converged."""
    return all(converged(r) for r in runs)


def converged(run) -> bool:
    """Whether ``run`` converged: a bool, a :class:`Convergence`, anything with a
    ``.convergence`` (a training history) or a JSON dict of a Convergence."""
    if isinstance(run, bool):
        return run
    if isinstance(run, Convergence):
        return run.converged
    if isinstance(run, Mapping) and "converged" in run:
        return bool(run["converged"])
    record = getattr(run, "convergence", None)
    if isinstance(record, Convergence):
        return record.converged
    raise TypeError(f"cannot tell whether a {type(run).__name__} converged")
