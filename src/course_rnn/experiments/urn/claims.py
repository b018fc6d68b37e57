"""A paper-vs-ours row of ``urn-dyck`` or ``urn-cross-serial`` whose verdict waits for
convergence: a :class:`Claim` is checked on the numbers; a converged row that disagrees sends the
runs behind it to twice their epochs before it may read "differs"."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..replication import Measurement, Row, judge


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


def judged_rows(claims: Sequence[Claim], numbers: Mapping, doubled_numbers: Callable,
                 runs_of: Callable[[Mapping, str], list]) -> tuple[list[Row], Mapping | None]:
    """The rows of ``claims``: each judged on ``numbers``; if any converged row disagrees, the
    models behind those rows are continued to twice their budget, once, by
    ``doubled_numbers(models) -> numbers`` (a callable, so that nothing is trained when every
    row agrees). Returns the rows and the doubled numbers (None when none were needed)."""
    firsts = {}
    for claim in claims:
        ours, value, agrees, gap = claim.check(numbers)
        firsts[claim] = (ours, Measurement(value, agrees, gap, runs_of(numbers, claim.models)))
    needed = sorted({m for c, (_, first) in firsts.items() if first.converged
                     and not first.agrees for m in c.models})
    second_numbers = doubled_numbers(needed) if needed else None
    rows = []
    for claim, (ours, first) in firsts.items():

        def doubled(claim=claim, first=first):
            if not claim.models:  # nothing trained: more training cannot change the figure
                return first
            _, value, agrees, gap = claim.check(second_numbers)
            return Measurement(value, agrees, gap, runs_of(second_numbers, claim.models))

        rows.append(Row(claim.quantity, claim.paper, ours, claim.note,
                        verdict=judge(first, doubled)))
    return rows, second_numbers


def doubled_epochs(history) -> int:
    """Twice the epochs a run used: the ``min_epochs`` of its continuation."""
    return 2 * math.ceil(history.convergence.epochs)


def range_gap(low: float, high: float, target: tuple[float, float]) -> float:
    """How far the range [low, high] is from overlapping ``target`` (0 when they overlap)."""
    return max(0.0, target[0] - high, low - target[1])
