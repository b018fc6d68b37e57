"""A paper-vs-ours row of ``urn-dyck`` or ``urn-cross-serial`` whose verdict waits for
convergence: a :class:`Claim` is checked on the numbers; a converged row that disagrees sends the
runs behind it to twice their epochs before it may read "differs"."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..replication import Measurement, Row, judge, needs_twice


@dataclass(frozen=True)
class Claim:
    """One row of a table: what the paper says and how to check it on our numbers.

    ``check(numbers) -> (ours, value, agrees, gap)``: the text of the ours column, the figure,
    whether it agrees and how far it is from agreeing (≥ 0). ``models``: the networks whose
    runs decide the row (their convergence gates the verdict; they are continued at twice the
    budget when the row disagrees); empty for a row that needs no training.
    """

    quantity: str
    paper: str
    check: Callable[[Mapping], tuple[str, float, bool, float]]
    models: tuple[str, ...]
    note: str = ""


def first_measurements(claims: Sequence[Claim], numbers: Mapping,
                       runs_of: Callable[[Mapping, str], list]) -> dict[Claim, tuple]:
    """Each claim checked on ``numbers``: claim → (the ours column, its :class:`Measurement`)."""
    firsts = {}
    for claim in claims:
        ours, value, agrees, gap = claim.check(numbers)
        firsts[claim] = (ours, Measurement(value, agrees, gap, runs_of(numbers, claim.models)))
    return firsts


def deciding_models(claims: Sequence[Claim], numbers: Mapping,
                    runs_of: Callable[[Mapping, str], list]) -> list[str]:
    """The models behind every converged row that disagrees on ``numbers`` (sorted): the ones
    whose runs :func:`~..replication.twice_the_budget` continues before the rows are built."""
    firsts = first_measurements(claims, numbers, runs_of)
    return sorted({m for c, (_, first) in firsts.items() if needs_twice(first)
                   for m in c.models})


def judged_rows(claims: Sequence[Claim], numbers: Mapping, second_numbers: Mapping | None,
                runs_of: Callable[[Mapping, str], list]) -> list[Row]:
    """The rows of ``claims``, each judged on ``numbers`` and, where it disagrees, on
    ``second_numbers``: the numbers with the runs of :func:`deciding_models` continued to twice
    their budget (None when no row needed them). A row with no model behind it (a formula)
    cannot be helped by training: its figure at twice the budget is its first."""
    rows = []
    for claim, (ours, first) in first_measurements(claims, numbers, runs_of).items():
        second = None
        if needs_twice(first):
            if not claim.models:
                second = first
            else:
                _, value, agrees, gap = claim.check(second_numbers)
                second = Measurement(value, agrees, gap,
                                     runs_of(second_numbers, claim.models))
        rows.append(Row(claim.quantity, claim.paper, ours, claim.note,
                        verdict=judge(first, second)))
    return rows


def doubled_epochs(history) -> int:
    """Twice the epochs a run used: the ``min_epochs`` of its continuation."""
    return 2 * math.ceil(history.convergence.epochs)


def range_gap(low: float, high: float, target: tuple[float, float]) -> float:
    """How far the range [low, high] is from overlapping ``target`` (0 when they overlap)."""
    return max(0.0, target[0] - high, low - target[1])
