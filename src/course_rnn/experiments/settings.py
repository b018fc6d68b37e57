"""An experiment's settings: one frozen dataclass per experiment, one named instance per scale.

Every replication is run at a **scale**: ``"quick"``, the book's (a few minutes on a laptop CPU),
or ``"paper"``, the paper's own sizes; where those are out of a 2-core CPU's reach in an hour,
an experiment may add ``"full"``, as close to the paper as that hour allows. The chapters use
the same names (:func:`course_rnn.utils.current_scale`).

An experiment declares its settings once, as a frozen dataclass whose fields say their type and
their rule, and names one instance per scale::

    @dataclass(frozen=True)
    class ElmanSettings(Settings):
        experiment: ClassVar[str] = "elman-clusters"
        hidden_size: int = setting(at_least=1)            # an integer ≥ 1
        tolerance: float = setting(above=0)               # a number > 0
        model: str = setting(one_of=("srn", "gru"))
        regime: tuple[int, float] = setting(check=lambda v: v[0] >= 1 and v[1] > 0,
                                            says="(batch size ≥ 1, learning rate > 0)")

    SETTINGS = Scales(quick=ElmanSettings(hidden_size=32, ...),
                      paper=ElmanSettings(hidden_size=150, ...))
    settings = SETTINGS.at("quick", {"hidden_size": 8})   # ElmanSettings(hidden_size=8, ...)

Construction checks every field (its type, then its rule, then its ceiling — :func:`ceiling`, by
the field's name: a learning rate, a width, a count — then :meth:`Settings.check` for rules
between fields), so a bad value is a ValueError naming the setting and the value before any
work. :meth:`Settings.replace` takes overrides as Python values or as the text of the command
line's ``--set KEY=VALUE``, read by the field's type (``"8"`` for an int, ``"[64, 0.02]"`` or
``"64,0.02"`` for a tuple, ``"none"`` for an optional field). A field may hold nested settings
(a Settings, or ``dict[str, SomeSettings]``, e.g. one per language): an override given as a
dict changes only the entries it names. :meth:`Settings.to_json` is what ``results.json``
saves (tuples as lists, nested settings as dicts).
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from ..checks import (
    MAX_CLIP,
    MAX_COUNT,
    MAX_INIT_SCALE,
    MAX_LR,
    MAX_MIN_DELTA,
    MAX_WEIGHT_DECAY,
    MAX_WIDTH,
    check_positive,
    is_integer,
)
from ..context import SCALES, parse_scale

#: The scales every experiment has (of :data:`~course_rnn.context.SCALES`): "full" only where
#: the paper's size is out of a 2-core CPU's reach in an hour: as close to the paper as that
#: hour allows, its settings saying what was cut and why.
REQUIRED = ("quick", "paper")


def normalise_scale(scale: str | None) -> str:
    """One of :data:`SCALES` (None means ``"quick"``); ValueError otherwise (``"default"`` too:
    the book's scale is called ``"quick"``)."""
    return parse_scale(scale or "quick")


def seed_list(seeds: int | Iterable[int] | None, default: int) -> list[int]:
    """Seeds as a list: an int N means seeds 0 … N-1, None means ``default`` of them."""
    if seeds is None:
        seeds = default
    if isinstance(seeds, bool):
        raise ValueError(f"seeds must be a count or a list of integers, got {seeds!r}")
    if is_integer(seeds):
        return list(range(check_positive(seeds, "the number of seeds")))
    seeds = list(seeds)
    if not seeds or not all(is_integer(s) for s in seeds):
        raise ValueError(f"seeds must be a non-empty list of integers, got {seeds!r}")
    return [int(s) for s in seeds]


# -- one field's rule -----------------------------------------------------------------------------
def setting(*, at_least: float | None = None, above: float | None = None,
            between: tuple[float, float] | None = None, one_of: Iterable | None = None,
            check: Callable[[Any], bool] | None = None, says: str = "",
            non_empty: bool = False) -> Any:
    """A settings field with a rule (a :func:`dataclasses.field` without a default: each scale
    gives every value). ``at_least`` / ``above`` / ``between`` (open interval) / ``one_of`` apply
    to the value, or to every element of a tuple; ``check`` is any other test, ``says`` what it
    asks for (the error message's words); ``non_empty`` refuses an empty tuple."""
    one_of = None if one_of is None else tuple(one_of)
    return dataclasses.field(metadata={"rule": _Rule(at_least, above, between, one_of, check,
                                                     says, non_empty)})


@dataclass(frozen=True)
class _Rule:
    at_least: float | None = None
    above: float | None = None
    between: tuple[float, float] | None = None
    one_of: tuple | None = None
    check: Callable[[Any], bool] | None = None
    says: str = ""
    non_empty: bool = False

    def holds(self, value) -> bool:
        if self.at_least is not None and not value >= self.at_least:
            return False
        if self.above is not None and not value > self.above:
            return False
        if self.between is not None and not self.between[0] < value < self.between[1]:
            return False
        return self.one_of is None or value in self.one_of

    def describe(self) -> str:
        if self.says:
            return self.says
        if self.one_of is not None:
            return "one of " + ", ".join(map(str, self.one_of))
        words = ["a number"]
        if self.at_least is not None:
            words.append(f"≥ {self.at_least:g}")
        if self.above is not None:
            words.append(f"> {self.above:g}")
        if self.between is not None:
            words.append(f"strictly between {self.between[0]:g} and {self.between[1]:g}")
        return " ".join(words[:2]) + "".join(f" and {w}" for w in words[2:])

    def apply(self, name: str, value, elements: bool) -> None:
        """ValueError naming the setting when ``value`` (every element of it, when
        ``elements``) breaks the rule."""
        if elements and self.non_empty and not value:
            raise ValueError(f"setting {name!r} must not be empty")
        if value is None:
            return
        if self.check is not None and not self.check(value):
            raise ValueError(f"setting {name!r} must be {self.describe()}, got {value!r}")
        for item in (value if elements else (value,)):
            if not self.holds(item):
                what = f"setting {name!r}: every element" if elements else f"setting {name!r}"
                raise ValueError(f"{what} must be {self.describe()}, got {item!r}"
                                 + (f" in {value!r}" if elements else ""))


#: Settings' old names (one name per idea, issue 44): old → today's. An override that uses an
#: old name is refused with today's.
RENAMED = {"batch": "batch_size", "embedding": "embedding_dim", "max_epochs": "epochs",
           "lm_max_epochs": "lm_epochs", "hidden": "hidden_size", "units": "hidden_size"}


def _renamed(key: str, names: tuple[str, ...]) -> str:
    new = RENAMED.get(key)
    return f" ({key!r} is now called {new!r})" if new in names else ""


# -- the widest values: no setting may ask for more than the library can sensibly train ---------
def ceiling(name: str) -> tuple[float, str] | None:
    """The largest value setting ``name`` may take and what it is, by the setting's name (the
    limits of :mod:`course_rnn.checks`, each far beyond anything the course uses); None for a
    seed, which may be any integer. Every other integer is a count: at most ``MAX_COUNT``."""
    if name == "lr" or name.endswith("_lr"):
        return MAX_LR, "a learning rate"
    if name in ("hidden_size", "hidden_sizes", "embedding_dim", "stack_width") \
            or name.endswith("_hidden_size"):
        return MAX_WIDTH, "a layer's width"
    if name.endswith("_std"):
        return MAX_INIT_SCALE, "a weight scale"
    if name == "clip":
        return MAX_CLIP, "a cap on the gradient norm"
    if name == "weight_decay":
        return MAX_WEIGHT_DECAY, "a weight decay"
    if name.endswith("min_delta"):
        return MAX_MIN_DELTA, "a relative improvement"
    if name == "seed" or name.endswith("_seed"):
        return None
    return MAX_COUNT, "a count"


def check_ceiling(name: str, value) -> None:
    """ValueError naming the setting when ``value`` (or a number inside it) is past
    :func:`ceiling`: ``--set lr=1e12`` is refused with the other settings, before any work.
    The count limit applies to integers; the named limits to any number."""
    limit = ceiling(name)
    if limit is None or (name == "seeds" and isinstance(value, tuple)):  # the seeds themselves
        return
    top, what = limit
    numbers = value if isinstance(value, tuple) else (value,)
    for number in numbers:
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            continue
        if isinstance(number, float) and what == "a count":
            continue
        if number > top:
            shown = f"{top:,}" if isinstance(top, int) else f"{top:g}"
            raise ValueError(f"setting {name!r} must be at most {shown} ({what}: far beyond "
                             f"any run of the course), got {number!r}")


# -- types: checking a value, reading a text ------------------------------------------------------
def _optional(kind) -> tuple[bool, Any]:
    """(None allowed?, the type without None) for ``X | None``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(kind)) == 2:
            return True, args[0]
    return False, kind


def _type_name(kind) -> str:
    optional, kind = _optional(kind)
    if typing.get_origin(kind) is tuple:
        args = typing.get_args(kind)
        name = (f"a list of {_type_name(args[0])}s" if args[1:] == (Ellipsis,)
                else "(" + ", ".join(_type_name(a) for a in args) + ")")
    elif typing.get_origin(kind) is typing.Literal:
        name = "one of " + ", ".join(map(repr, typing.get_args(kind)))
    elif typing.get_origin(kind) is dict:
        name = f"a mapping to {_type_name(typing.get_args(kind)[1])}"
    else:
        name = {int: "an integer", float: "a number", str: "a text", bool: "true or false"
                }.get(kind, getattr(kind, "__name__", str(kind)))
    return name + (" or none" if optional else "")


def coerce(name: str, value, kind):
    """``value`` as a value of type ``kind`` (a list becomes a tuple, an int a float, a
    numpy number a Python one); ValueError naming the setting otherwise."""
    optional, kind = _optional(kind)
    if value is None:
        if optional:
            return None
        raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got None")
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            value = (value,)  # a single value for a list of them
        value = tuple(value)
        kinds = [args[0]] * len(value) if args[1:] == (Ellipsis,) else args
        if len(value) != len(kinds):
            raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {value!r}")
        try:
            return tuple(coerce(name, v, k) for v, k in zip(value, kinds))
        except ValueError:
            raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {value!r}") \
                from None
    if origin is typing.Literal:
        if value not in args:
            raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {value!r}")
        return value
    if kind is bool and isinstance(value, (bool, np.bool_)):
        return bool(value)
    if kind is int and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if kind is float and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError(f"setting {name!r} must be a finite number, got {value!r}")
        return float(value)
    if kind is str and isinstance(value, str):
        return value
    if origin is dict and isinstance(value, Mapping):  # e.g. per language: name -> Settings
        return {k: coerce(f"{name}[{k!r}]", v, args[1]) for k, v in value.items()}
    if isinstance(kind, type) and issubclass(kind, Settings) and isinstance(value, Mapping):
        try:
            return kind(**value)  # nested settings given as a dict
        except TypeError as err:  # a missing or unknown entry
            raise ValueError(f"setting {name!r}: {err}") from None
    if kind not in (bool, int, float, str) and origin is None and isinstance(value, kind):
        return value  # any other class: the value as it is
    raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {value!r}")


def parse(name: str, text: str, kind):
    """The text of ``--set name=text`` read as a value of type ``kind``: text for a text field;
    otherwise JSON (``8``, ``0.02``, ``[64, 0.02]``, ``true``, ``null``), or ``none``, or a
    comma-separated list for a tuple."""
    optional, inner = _optional(kind)
    if inner is str or (typing.get_origin(inner) is typing.Literal
                        and all(isinstance(a, str) for a in typing.get_args(inner))):
        return coerce(name, None if optional and text.lower() in ("none", "null") else text, kind)
    if text.strip().lower() == "none":
        return coerce(name, None, kind)
    try:
        value = json.loads(text)
        if isinstance(value, Mapping):
            return value  # nested settings: merged into the current ones, then checked
    except json.JSONDecodeError:
        if typing.get_origin(inner) is not tuple:
            raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {text!r}") \
                from None
        args, parts = typing.get_args(inner), [part.strip() for part in text.split(",")]
        kinds = [args[0]] * len(parts) if args[1:] == (Ellipsis,) else args
        if len(parts) != len(kinds):
            raise ValueError(f"setting {name!r} must be {_type_name(kind)}, got {text!r}") \
                from None
        value = [parse(name, part, k) for part, k in zip(parts, kinds)]
    return coerce(name, value, kind)


# -- the base class -------------------------------------------------------------------------------
S = TypeVar("S", bound="Settings")


@dataclass(frozen=True)
class Settings:
    """The base of every experiment's settings (see the module docstring).

    A subclass is a frozen dataclass with one :func:`setting` field per setting, class
    attributes ``experiment`` (its name, in messages too), ``title`` (one line: what it
    replicates) and ``chapter`` (the chapter that shows it) — what ``replicate --help`` lists,
    read without torch — and, optionally, ``hints`` (an override key that is not a setting → a
    sentence pointing to where it belongs) and :meth:`check` (rules between fields).
    """

    experiment: ClassVar[str] = "the experiment"
    title: ClassVar[str] = ""
    chapter: ClassVar[str] = ""
    hints: ClassVar[dict[str, str]] = {}

    def __post_init__(self):
        kinds = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = coerce(f.name, getattr(self, f.name), kinds[f.name])
            rule = f.metadata.get("rule")
            if rule is not None:
                elements = typing.get_origin(_optional(kinds[f.name])[1]) is tuple \
                    and typing.get_args(_optional(kinds[f.name])[1])[1:] == (Ellipsis,)
                rule.apply(f.name, value, elements)
            check_ceiling(f.name, value)
            object.__setattr__(self, f.name, value)
        self.check()

    def check(self) -> None:
        """Rules between fields (a subclass raises ValueError naming the settings)."""

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def replace(self: S, overrides: Mapping[str, Any] | None = None, /, **more) -> S:
        """A copy with ``overrides`` (and ``more``) applied, checked like a new instance. A text
        value for a field that is not text is read by the field's type (:func:`parse`); an
        unknown key is a ValueError naming it and the known ones."""
        changes = {**(overrides or {}), **more}
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            hint = "".join(self.hints.get(k, "") or _renamed(k, self.names()) for k in unknown)
            raise ValueError(f"unknown setting(s) {', '.join(map(repr, unknown))} for "
                             f"{self.experiment}{hint}: choose from {', '.join(self.names())}")
        kinds = typing.get_type_hints(type(self))
        changes = {k: self._merged(k, parse(k, v, kinds[k]) if isinstance(v, str) else v)
                   for k, v in changes.items()}
        return dataclasses.replace(self, **changes)

    def _merged(self, key: str, value):
        """An override of nested settings (a Settings field, or a dict of them) given as a dict
        changes only the entries it names: ``{"anbn": {"epochs": 2}}`` keeps the rest."""
        current = getattr(self, key)
        if isinstance(value, Mapping) and isinstance(current, Settings):
            return current.replace(value)
        if isinstance(value, Mapping) and isinstance(current, Mapping):
            return {**current, **{k: current[k].replace(v) if isinstance(current.get(k), Settings)
                                  and isinstance(v, Mapping) else v for k, v in value.items()}}
        return value

    def to_json(self) -> dict:
        """Every setting by name, as JSON values (tuples become lists)."""
        return {name: _plain(getattr(self, name)) for name in self.names()}


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Settings):
        return value.to_json()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


class Scales(Mapping):
    """An experiment's settings per scale: ``Scales(quick=..., paper=...)`` (and ``full=...``
    where the paper's size is out of a CPU's reach); ``scales["quick"]`` or ``scales.at(scale,
    overrides)`` (the scale's instance with ``overrides`` applied)."""

    def __init__(self, **by_scale: Settings):
        if not set(REQUIRED) <= set(by_scale) <= set(SCALES):
            raise ValueError(f"settings are needed for the scales {', '.join(REQUIRED)} "
                             f"(optionally {', '.join(set(SCALES) - set(REQUIRED))}), got "
                             f"{', '.join(by_scale)}")
        kinds = {type(s) for s in by_scale.values()}
        if len(kinds) != 1 or not issubclass(kinds.pop(), Settings):
            raise TypeError("every scale's settings must be an instance of one Settings class")
        self._by_scale = {scale: by_scale[scale] for scale in SCALES if scale in by_scale}

    def __getitem__(self, scale: str) -> Settings:
        scale = normalise_scale(scale)
        if scale not in self._by_scale:
            raise ValueError(f"{self.kind.experiment} has no {scale!r} scale: choose one of "
                             f"{', '.join(self._by_scale)}")
        return self._by_scale[scale]

    def __contains__(self, scale) -> bool:
        return scale in self._by_scale

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_scale)

    def __len__(self) -> int:
        return len(self._by_scale)

    @property
    def kind(self) -> type[Settings]:
        return type(self._by_scale["quick"])

    def at(self, scale: str | None, overrides: Mapping[str, Any] | None = None) -> Settings:
        """The settings of ``scale`` with ``overrides`` applied (ValueError for an unknown scale,
        key or bad value)."""
        return self[scale].replace(overrides)
