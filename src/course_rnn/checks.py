"""Checks of integer arguments, in one place for every layer (languages, models and up).

Bad input gets a clear error that names the argument and what it should have been, before any
long work starts. A ``bool`` is never accepted as an integer (``True`` is an ``int`` in Python,
but ``hidden_size=True`` is a mistake); NumPy integers are.

* :func:`check_integer` (and its two common cases :func:`check_positive`, :func:`check_count`) –
  a ``ValueError`` for anything that is not an integer of at least ``minimum``: the course's
  convention;
* :func:`check_at_least` – Python's own convention, a ``TypeError`` for a non-integer and a
  ``ValueError`` for one that is too small (the unitary RNNs' sizes and seeds);
* :func:`check_seed` – an integer ≥ 0 (None where "unseeded" is allowed);
* :func:`check_number` – a finite real number (never NaN or ±inf, never a bool), with optional
  bounds, as a float;
* :func:`check_flag`, :func:`check_callable`, :func:`check_items` – a bool, a function, a
  non-empty collection of items (strings, pairs …; a bare string is not one);
* the widest value training's numbers may take (:data:`MAX_LR`, :data:`MAX_COUNT` …), past
  which a value is a slip and not a setting, and :func:`check_training_count` for the counts.

Each is called once per public call (a constructor, ``fit``), never inside a training step.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from numbers import Integral, Real


def is_integer(value) -> bool:
    """True for Python and NumPy integers; False for booleans, floats and everything else."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_integer(value, what: str, minimum: int = 1, maximum: int | None = None) -> int:
    """``int(value)`` for an integer ≥ ``minimum`` (and ≤ ``maximum`` when given), else a
    ValueError naming ``what`` and the range: "patience must be a positive integer ≤
    100,000,000, got 1000000000000"."""
    if not is_integer(value) or value < minimum or (maximum is not None and value > maximum):
        wanted = {1: "a positive integer", 0: "a non-negative integer"}.get(minimum)
        if maximum is None:
            wanted = wanted or f"an integer ≥ {minimum}"
        else:
            wanted = f"{wanted} ≤ {maximum:,}" if wanted else \
                f"an integer from {minimum:,} to {maximum:,}"
        raise ValueError(f"{what} must be {wanted}, got {value!r}")
    return int(value)


def check_positive(value, what: str) -> int:
    """``int(value)`` for an integer ≥ 1 (a size), else a ValueError naming ``what``."""
    return check_integer(value, what, 1)


def check_count(value, what: str = "n") -> int:
    """``int(value)`` for an integer from 0 to :data:`MAX_COUNT` (a number of samples, say),
    else a ValueError."""
    return check_integer(value, what, 0, MAX_COUNT)


def check_length(value, what: str, minimum: int = 1) -> int:
    """``int(value)`` for an integer from ``minimum`` to :data:`MAX_LENGTH`: a string's length,
    a count inside one string (a^n b^n's n) or a nesting depth."""
    return check_integer(value, what, minimum, MAX_LENGTH)


def check_at_least(value, what: str, minimum: int) -> int:
    """``int(value)`` for an integer ≥ ``minimum``; a TypeError for a non-integer, a ValueError
    for one that is too small."""
    if not is_integer(value):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return int(value)


def check_seed(value, what: str = "seed", *, optional: bool = False) -> int | None:
    """``int(value)`` for an integer ≥ 0 (and None when ``optional``), else a ValueError."""
    if value is None and optional:
        return None
    if not is_integer(value) or value < 0:
        raise ValueError(f"{what} must be an integer ≥ 0{' or None' if optional else ''}, "
                         f"got {value!r}")
    return int(value)


def check_number(value, what: str, *, at_least: float | None = None,
                 above: float | None = None, at_most: float | None = None,
                 below: float | None = None, optional: bool = False) -> float | None:
    """``float(value)`` for a finite real number within the bounds given (``at_least`` ≤ value,
    ``above`` < value, value ≤ ``at_most``, value < ``below``); None passes when ``optional``.
    Otherwise a ValueError naming ``what`` and the rule: "lr must be a finite number > 0, got
    inf"."""
    if value is None and optional:
        return None
    bounds = [(at_least, "≥", lambda v, b: v >= b), (above, ">", lambda v, b: v > b),
              (at_most, "≤", lambda v, b: v <= b), (below, "<", lambda v, b: v < b)]
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) \
        and all(bound is None or holds(value, bound) for bound, _, holds in bounds)
    if not ok:
        rule = " and ".join(f"{sign} {bound:g}" for bound, sign, _ in bounds if bound is not None)
        raise ValueError(f"{what} must be a finite number{' ' + rule if rule else ''}"
                         f"{' or None' if optional else ''}, got {value!r}")
    return float(value)


def check_flag(value, what: str, *, optional: bool = False) -> bool | None:
    """``value`` when it is True or False (or None, when ``optional``), else a ValueError."""
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be True or False{' or None' if optional else ''}, "
                         f"got {value!r}")
    return value


def check_callable(value, what: str, *, optional: bool = False):
    """``value`` when it can be called (or None, when ``optional``), else a TypeError."""
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{what} must be a function{' or None' if optional else ''}, got "
                        f"{type(value).__name__}: {value!r:.60}")
    return value


def check_items(value, what: str, items: str = "strings", *, empty: bool = False):
    """``value`` when it is a collection (a list, a tuple …) of ``items``, non-empty unless
    ``empty``; a bare string (one item, not a list of them), a number or None is a TypeError,
    an empty collection a ValueError, each naming ``what``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        hint = f" (a list of them, e.g. [{value!r}])" if isinstance(value, str) else ""
        raise TypeError(f"{what} must be a list of {items}{hint}, got "
                        f"{type(value).__name__}: {value!r:.60}")
    if not empty and len(value) == 0:
        raise ValueError(f"{what} must hold at least one of its {items}, got an empty "
                         f"{type(value).__name__}")
    return value


# -- how far training's numbers may go --------------------------------------------------------
# Past these bounds a setting is a slip (1e12 typed for 1e-12, a count in the wrong unit), not a
# choice, and it would otherwise be taken without a word and train nonsense for hours. Each lies
# far beyond the largest value any chapter, experiment (at every scale), exercise, benchmark or
# committed run uses, given in brackets, so that no real run meets it. The light settings of
# the experiments read them too (no torch here).

#: A learning rate (largest used: 5, a test's SGD whose loss jumps; 0.5 in an experiment).
MAX_LR = 100.0
#: ``weight_decay`` λ: a penalty ½ λ |w|² above |w|² itself is no regulariser (0.5, a test).
MAX_WEIGHT_DECAY = 1.0
#: A cap on the gradient norm (1.0; ``clip=None`` is the way to say "no cap").
MAX_CLIP = 1e6
#: A weight scale: ``init_range`` of a uniform draw, ``std`` of a normal one; weights beyond
#: ±10 saturate every tanh and sigmoid (largest used: 1.0).
MAX_INIT_SCALE = 10.0
#: A relative improvement (``Plateau.min_delta``): a loss cannot improve by more than all of it
#: (0.9, a test; 0.05 in an experiment).
MAX_MIN_DELTA = 1.0
#: A count of optimizer steps, evaluations, epochs or examples: ``epochs``, ``steps``,
#: ``min_epochs``, ``batch_size``, ``patience``, ``eval_every``, ``step_every``, a schedule's
#: ``every`` and ``patience`` (largest used: 10**6 steps, Delétang et al.'s protocol; 50,000
#: epochs; 4,096 examples): a hundred times the longest protocol of the course.
MAX_COUNT = 10**8
#: A layer's width: a hidden state's or an embedding's size (largest used: 650, Bhatt et al.'s
#: language model). An LSTM this wide already holds 4 · 2**28 = 2**30 weights in one matrix, the
#: most a model here may hold (``models.base.MAX_WEIGHTS``).
MAX_WIDTH = 2**14
#: A string's length, a count inside one string (a^n b^n's n) or a nesting depth (largest used:
#: 500 symbols, Delétang et al.'s test lengths): past it, one string alone fills memory.
MAX_LENGTH = 10**6


def check_training_count(value, what: str, minimum: int = 1) -> int:
    """``int(value)`` for an integer from ``minimum`` to :data:`MAX_COUNT` (a count of steps,
    evaluations, epochs or examples), else a ValueError naming ``what`` and the range."""
    return check_integer(value, what, minimum, MAX_COUNT)


__all__ = ["is_integer", "check_integer", "check_positive", "check_count", "check_at_least",
           "check_seed", "check_number", "check_flag", "check_callable", "check_items",
           "check_training_count", "MAX_LR", "MAX_WEIGHT_DECAY", "MAX_CLIP", "MAX_INIT_SCALE",
           "MAX_MIN_DELTA", "MAX_COUNT", "MAX_WIDTH", "MAX_LENGTH", "check_length"]
