"""Typed results: what an experiment measured, as dataclasses that a chapter reads by attribute.

An experiment's numbers are a tree of :class:`Record` dataclasses (``result.numbers.runs[0].kl``
rather than ``result.numbers["runs"][0]["kl"]``). :meth:`Record.to_json` turns the tree into
the nested dictionaries that ``results.json`` saves, one key per field in the order of the
fields, so that a run committed earlier loads like a new one; a field made by :func:`unsaved`
stays in Python only, one made by :func:`saved_if_set` is saved when it is not None, and a
Record with another layout on disk overrides ``to_json``. The module's :func:`to_json` walks a
plain dataclass (a summary computed from the records, say) by the same rule, so that an
experiment saves its summaries without a writer of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..metrics import mean_interval as mean_interval  # re-exported: the experiments' summaries
from ..metrics import mean_se as mean_se  # re-exported


def unsaved(**kwargs):
    """A Record field that ``to_json`` leaves out (for the chapter only)."""
    return dataclasses.field(metadata={"saved": False}, **kwargs)


def saved_if_set(default=None):
    """A Record field (None by default) that ``to_json`` saves only when it is not None: a part
    of the results that only some runs have (say, the numbers at twice the budget)."""
    return dataclasses.field(default=default, metadata={"saved": "if set"})


@dataclass
class Record:
    """The base of a typed result (see the module docstring)."""

    def to_json(self) -> dict:
        return _fields_json(self)


def _fields_json(instance) -> dict:
    """A dataclass instance as ``results.json`` saves it: one key per field, in the order of the
    fields, each value through :func:`to_json`; a field made by :func:`unsaved` left out, one
    made by :func:`saved_if_set` kept only when it is not None."""
    saved = {}
    for f in dataclasses.fields(instance):
        value, rule = getattr(instance, f.name), f.metadata.get("saved", True)
        if rule is True or (rule == "if set" and value is not None):
            saved[f.name] = to_json(value)
    return saved


def to_json(value):
    """``value`` with every Record inside it replaced by its ``to_json()`` and every other
    dataclass instance by its fields (by the rule of :meth:`Record.to_json`); dicts, lists and
    tuples are walked (a tuple becomes a list), everything else is kept as it is."""
    if hasattr(value, "to_json") and not isinstance(value, type):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields_json(value)
    if isinstance(value, Mapping):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


@dataclass
class Summary(Record):
    """Values over seeds (or runs) with their mean and standard error (NaN for one value)."""

    values: list[float]
    mean: float
    se: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Summary:
        mean, se = mean_se(values)
        return cls([float(v) for v in values], mean, se)
