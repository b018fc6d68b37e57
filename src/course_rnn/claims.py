"""Claims that carry their numbers: a chapter's check says what it measured and its bound.

A chapter's lesson rests on checks such as "the URN's held-out loss stays above every gated
network's". On another CPU, or under other seeds, the numbers behind such a check move; whether
the lesson still holds depends on how far the number is from its bound compared with how much it
moves. So a check states its statistic and its bound, and every check is recorded where
``benchmarks/robustness.py`` can read it after a chapter ran, to measure that distance (the
claim's *slack*) over fresh seeds and kernel paths:

    claim(urn_best, ">", others_best, "the URN's held-out loss levels off above the others'")
    holds(all(r.fitted for r in runs), "every run fitted", runs=len(runs))
    exact(torch.allclose(scratch, fast), "the scratch cell computes what nn.LSTM computes")

Three kinds:

* :func:`claim` – **numeric**: ``value op bound``. Its slack is the distance from the bound in
  units of the value's spread across variants; it ships only with slack ≥ :data:`MIN_SLACK`.
  A ratio ("twenty times faster than a random tree") varies by a factor, not by a difference:
  stated with ``scale="log"``, its distance from the bound is measured as ``log(value / bound)``,
  so that a ratio far past its bound is not called weak because its spread grows with it.
* :func:`holds` – **over runs**: a yes/no fact about ``runs`` runs ("every run fitted"); it must
  hold in every variant, and says how many runs it covers.
* :func:`exact` – **structural**: true by construction (scratch equals torch, the settings are
  as stated, probabilities sum to one); exact on every machine, no slack needed.

Each call appends a :class:`Claim` to :data:`RECORD` and raises ``AssertionError`` (with the
claim's words and numbers) when it does not hold, so a chapter's check cell fails as before.
"""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass
from numbers import Real

#: A numeric claim ships only when its bound is at least this many spreads from its values.
MIN_SLACK = 4.0

OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
KINDS = ("numeric", "over runs", "structural")
#: How a numeric claim's distance from its bound is measured: a difference, or (for a ratio, whose
#: value and bound are positive) the log of their quotient.
SCALES = ("linear", "log")


@dataclass(frozen=True)
class Claim:
    """One recorded check: its words, its kind, and for a numeric claim ``value op bound``."""

    says: str
    kind: str
    held: bool
    value: float | None = None
    op: str | None = None
    bound: float | None = None
    runs: int | None = None
    scale: str = "linear"

    @property
    def margin(self) -> float | None:
        """How far the value is on the right side of its bound (negative: the wrong side), as a
        difference or, on the log scale, as ``log(value / bound)``; None for a claim that is not
        numeric."""
        if self.kind != "numeric":
            return None
        if self.scale == "log":
            # a value ≤ 0 is infinitely far below any positive bound
            past = math.log(self.value / self.bound) if self.value > 0 else -math.inf
        else:
            past = self.value - self.bound
        return past if self.op in (">", ">=") else -past

    def to_json(self) -> dict:
        return asdict(self)


#: Every claim checked in this process, in order (``benchmarks/robustness.py`` reads it).
RECORD: list[Claim] = []


def _number(value, what: str, says: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        try:  # NumPy and torch scalars
            value = value.item()
        except (AttributeError, ValueError):
            raise TypeError(f"claim {says!r}: {what} must be one real number, got "
                            f"{value!r}") from None
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"claim {says!r}: {what} must be one real number, got {value!r}")
    return float(value)


def _words(says) -> str:
    if not isinstance(says, str) or not says.strip():
        raise ValueError(f"a claim must say what it claims in words, got {says!r}")
    return says


def _record(found: Claim, message: str) -> Claim:
    RECORD.append(found)
    if not found.held:
        raise AssertionError(message)
    return found


def claim(value, op: str, bound, says: str, scale: str = "linear") -> Claim:
    """Record and check the numeric claim ``value op bound`` (``op`` one of ``<``, ``<=``,
    ``>``, ``>=``); an ``AssertionError`` with the numbers when it does not hold. A NaN value
    never holds. ``scale="log"`` for a ratio: its slack is then measured on ``log(value /
    bound)`` (the bound must be positive)."""
    says = _words(says)
    if op not in OPERATORS:
        raise ValueError(f"claim {says!r}: op must be one of {sorted(OPERATORS)}, got {op!r}")
    if scale not in SCALES:
        raise ValueError(f"claim {says!r}: scale must be one of {list(SCALES)}, got {scale!r}")
    value, bound = _number(value, "value", says), _number(bound, "bound", says)
    if math.isnan(bound):
        raise ValueError(f"claim {says!r}: the bound is NaN")
    if scale == "log" and not bound > 0:
        raise ValueError(f"claim {says!r}: on the log scale the bound must be positive (a "
                         f"ratio), got {bound!r}")
    held = not math.isnan(value) and OPERATORS[op](value, bound)
    return _record(Claim(says, "numeric", held, value, op, bound, scale=scale),
                   f"{says}: measured {value:.6g}, claimed {op} {bound:.6g}")


def holds(condition, says: str, runs: int, detail: object = "") -> Claim:
    """Record and check a yes/no claim about ``runs`` runs ("every run fitted"); ``detail``
    (what failed, say) is added to the message when it does not hold."""
    says = _words(says)
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"claim {says!r}: runs must be the number of runs it covers (≥ 1), "
                         f"got {runs!r}")
    return _record(Claim(says, "over runs", bool(condition), runs=runs),
                   f"{says} (over {runs} runs)" + _detail(detail))


def exact(condition, says: str, detail: object = "") -> Claim:
    """Record and check a structural claim (true by construction on every machine)."""
    says = _words(says)
    return _record(Claim(says, "structural", bool(condition)),
                   says + _detail(detail))


def _detail(detail: object) -> str:
    """``": detail"`` for a message, nothing for none (``detail`` may be an array: never ``==``
    it with a string)."""
    return "" if isinstance(detail, str) and detail == "" else f": {detail}"


def recorded() -> list[dict]:
    """Every claim checked so far, as plain dicts (for JSON)."""
    return [c.to_json() for c in RECORD]


def slack(margins, spread: float) -> float:
    """A numeric claim's slack over variants: its smallest margin in units of ``spread`` (the
    standard deviation of its values across the variants); ``inf`` when the values did not move
    and every margin is positive, ``-inf`` when they did not move and one is not."""
    worst = min(margins)
    if spread > 0:
        return worst / spread
    return math.inf if worst > 0 else -math.inf
