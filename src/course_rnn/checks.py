"""Checks of integer arguments, in one place for every layer (languages, models and up).

Bad input gets a clear error that names the argument and what it should have been, before any
long work starts. A ``bool`` is never accepted as an integer (``True`` is an ``int`` in Python,
but ``hidden_size=True`` is a mistake); NumPy integers are.

* :func:`check_integer` (and its two common cases :func:`check_positive`, :func:`check_count`) –
  a ``ValueError`` for anything that is not an integer of at least ``minimum``: the course's
  convention;
* :func:`check_at_least` – Python's own convention, a ``TypeError`` for a non-integer and a
  ``ValueError`` for one that is too small (the unitary RNNs' sizes and seeds).
"""

from __future__ import annotations

from numbers import Integral


def is_integer(value) -> bool:
    """True for Python and NumPy integers; False for booleans, floats and everything else."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_integer(value, what: str, minimum: int = 1) -> int:
    """``int(value)`` for an integer ≥ ``minimum``, else a ValueError naming ``what``."""
    if not is_integer(value) or value < minimum:
        wanted = {1: "a positive integer", 0: "a non-negative integer"}.get(
            minimum, f"an integer ≥ {minimum}")
        raise ValueError(f"{what} must be {wanted}, got {value!r}")
    return int(value)


def check_positive(value, what: str) -> int:
    """``int(value)`` for an integer ≥ 1 (a size), else a ValueError naming ``what``."""
    return check_integer(value, what, 1)


def check_count(value, what: str = "n") -> int:
    """``int(value)`` for an integer ≥ 0 (a number of samples, say), else a ValueError."""
    return check_integer(value, what, 0)


def check_at_least(value, what: str, minimum: int) -> int:
    """``int(value)`` for an integer ≥ ``minimum``; a TypeError for a non-integer, a ValueError
    for one that is too small."""
    if not is_integer(value):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return int(value)


__all__ = ["is_integer", "check_integer", "check_positive", "check_count", "check_at_least"]
