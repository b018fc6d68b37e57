"""Graded values: how a probe's value is described (inside the sandbox), checked (outside) and
compared with the answer key.

A description is a small JSON object: ``{"t": "float", "v": 0.5}``, ``{"t": "array", "dtype":
"float", "shape": [2], "data": [...]}``, ``{"t": "list", "items": [...]}``, ``{"t": "dict",
"items": [[key, value], ...]}``, ``{"t": "raised", "v": "ValueError"}`` … Comparison follows the
rules a public test states with ``torch.allclose``/``np.allclose``/``==``: numbers compare by value
whatever holds them (a Python number, a 0-d array or tensor, a list, a tuple, an array or a
tensor of the same shape), floats within ``rtol``/``atol``, everything else exactly.

What a sandbox reports is untrusted: :func:`is_valid` and :func:`values_match` never raise,
whatever they are given (an int of 400 digits for a float, NaN, infinities, deep or wide
containers, fields of the wrong type), and a NaN or an infinity never matches anything.
"""

from __future__ import annotations

import math

from .safejson import escape

RTOL, ATOL = 1e-4, 1e-6
MAX_ITEMS = 100_000  # numbers in one reported array
MAX_DEPTH = 8  # containers inside containers
MAX_STR = 10_000

_SCALARS = ("none", "bool", "int", "float", "str", "raised")
_DTYPES = {"b": "bool", "i": "int", "u": "int", "f": "float"}


# -- inside the sandbox ------------------------------------------------------------------------
def to_value(obj, depth: int = 0):
    """Describe ``obj``: tensors and arrays as shape + flat data (0-d ones as scalars),
    containers recursively, scalars by kind. Anything else is refused (``TypeError``)."""
    import numpy as np
    import torch

    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply")
    if isinstance(obj, torch.Tensor):
        obj = obj.detach().cpu().numpy()
    if isinstance(obj, np.ndarray) and obj.ndim == 0:
        obj = obj[()]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if obj is None:
        return {"t": "none"}
    if isinstance(obj, bool):
        return {"t": "bool", "v": obj}
    if isinstance(obj, int):
        return {"t": "int", "v": int(obj)}
    if isinstance(obj, float):
        return {"t": "float", "v": float(obj)}
    if isinstance(obj, str):
        return {"t": "str", "v": str(obj)[:MAX_STR]}
    if isinstance(obj, np.ndarray):
        if obj.size > MAX_ITEMS:
            raise ValueError(f"array of {obj.size} numbers is too large to report")
        dtype = _DTYPES.get(obj.dtype.kind)
        if dtype is None:
            raise TypeError(f"arrays of dtype {obj.dtype} are not gradable")
        return {"t": "array", "dtype": dtype, "shape": list(obj.shape),
                "data": obj.reshape(-1).tolist()}
    if isinstance(obj, (list, tuple)):
        return {"t": "list", "items": [to_value(x, depth + 1) for x in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"t": "list", "items": [to_value(x, depth + 1) for x in sorted(obj, key=repr)]}
    if isinstance(obj, dict):
        items = sorted(((dict_key(k), v) for k, v in obj.items()), key=lambda kv: kv[0])
        return {"t": "dict", "items": [[k, to_value(v, depth + 1)] for k, v in items]}
    raise TypeError(f"values of type {type(obj).__name__} are not gradable")


def dict_key(key) -> str:
    """A dict key as text, numbers by value (``d[0]`` finds ``0``, ``0.0`` and ``np.int64(0)``)."""
    if hasattr(key, "item") and callable(key.item) and getattr(key, "ndim", 0) == 0:
        try:
            key = key.item()
        except (TypeError, ValueError):
            pass
    if isinstance(key, bool):
        key = int(key)
    if isinstance(key, float) and key.is_integer():
        key = int(key)
    return str(key)


# -- outside: a reported description is data from an untrusted process --------------------------
def is_valid(desc, depth: int = 0) -> bool:
    """Whether ``desc`` is a well-formed description (any field of the wrong type: no).
    Never raises."""
    try:
        return _valid(desc, depth)
    except Exception:  # noqa: BLE001 – e.g. a key that cannot be hashed: not well formed
        return False


def _valid(desc, depth: int) -> bool:
    if not isinstance(desc, dict) or depth > MAX_DEPTH + 1:
        return False
    kind = desc.get("t")
    if kind == "none":
        return set(desc) == {"t"}
    if kind in ("bool", "int", "float", "str", "raised"):
        if set(desc) != {"t", "v"}:
            return False
        v = desc["v"]
        return {"bool": lambda: isinstance(v, bool),
                "int": lambda: isinstance(v, int) and not isinstance(v, bool),
                "float": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
                "str": lambda: isinstance(v, str),
                "raised": lambda: isinstance(v, str)}[kind]()
    if kind == "array":
        if set(desc) != {"t", "dtype", "shape", "data"} or desc["dtype"] not in _DTYPES.values():
            return False
        shape, data = desc["shape"], desc["data"]
        if not isinstance(shape, list) or len(shape) > 32 or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_ITEMS
                for s in shape):
            return False
        return (isinstance(data, list) and len(data) == math.prod(shape) <= MAX_ITEMS
                and all(_is_number(x) for x in data))
    if kind == "list":
        items = desc.get("items")
        return (set(desc) == {"t", "items"} and isinstance(items, list)
                and all(_valid(x, depth + 1) for x in items))
    if kind == "dict":
        items = desc.get("items")
        return (set(desc) == {"t", "items"} and isinstance(items, list) and all(
            isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)
            and _valid(kv[1], depth + 1) for kv in items))
    return False


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float))


def _numeric(desc):
    """``(shape, flat numbers)`` when ``desc`` is a number, an array, or a list of numeric
    values of one shape (a tuple of tensors, a list of floats…); otherwise None."""
    kind = desc["t"]
    if kind in ("bool", "int", "float"):
        return (), [desc["v"]]
    if kind == "array":
        return tuple(desc["shape"]), desc["data"]
    if kind != "list":
        return None
    parts = [_numeric(x) for x in desc["items"]]
    if any(p is None for p in parts) or len({p[0] for p in parts}) > 1:
        return None
    inner = parts[0][0] if parts else ()
    return (len(parts), *inner), [x for p in parts for x in p[1]]


def _finite(x) -> bool:
    """A number that is not NaN nor ±inf (ints of any size are finite)."""
    return not isinstance(x, float) or math.isfinite(x)


def _number_matches(got, want, rtol: float, atol: float) -> bool:
    """``want`` from the key: an exact int/bool needs equality, a float closeness. NaN and
    infinities match nothing; an int too large for a float is never close to one."""
    if not _is_number(got) or not _finite(got) or not _finite(want):
        return False
    if isinstance(want, float):
        try:
            return abs(float(got) - want) <= atol + rtol * abs(want)
        except OverflowError:  # an int beyond the float range
            return False
    return got == want


def values_match(got, want, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether a reported description ``got`` equals the key's ``want``: numbers by value
    whatever their container (shape must agree), floats within tolerance, strings, ``None``,
    raised errors and dict keys exactly, lists item by item. Never raises: anything that
    cannot be compared is no match."""
    try:
        return is_valid(got) and isinstance(want, dict) and _matches(got, want, rtol, atol)
    except Exception:  # noqa: BLE001 – a report the rules above did not foresee earns nothing
        return False


def _matches(got, want, rtol: float, atol: float) -> bool:
    kind = want["t"]
    if kind == "raised" or got["t"] == "raised":
        return got == want
    expected = _numeric(want)
    if expected is not None:
        reported = _numeric(got)
        return (reported is not None and reported[0] == expected[0]
                and all(_number_matches(a, b, rtol, atol)
                        for a, b in zip(reported[1], expected[1])))
    if kind in ("none", "str"):
        return got == want
    if kind == "list":
        return (got["t"] == "list" and len(got["items"]) == len(want["items"])
                and all(_matches(a, b, rtol, atol) for a, b in zip(got["items"],
                                                                  want["items"])))
    if kind == "dict":
        if got["t"] != "dict":
            return False
        mine, ref = dict(got["items"]), dict(want["items"])
        return mine.keys() == ref.keys() and all(
            _matches(mine[k], ref[k], rtol, atol) for k in ref)
    return False


def non_finite(desc) -> bool:
    """Whether a (valid) description holds a NaN or an infinity anywhere: such a key could
    never be matched (:func:`_number_matches`), so ``assign`` refuses it."""
    stack = [desc]
    while stack:
        d = stack.pop()
        numbers = _numeric(d)
        if numbers is not None:
            if not all(_finite(x) for x in numbers[1]):
                return True
        elif d["t"] == "list":
            stack += d["items"]
        elif d["t"] == "dict":
            stack += [v for _, v in d["items"]]
    return False


def mismatch(got, want, rtol: float = RTOL, atol: float = ATOL) -> str:
    """Why ``got`` does not match the key's ``want``, in a few words an instructor can act on
    ("3 of 4 numbers differ, the largest by 12 % at item 2", "shape [3, 5], expected [5, 3]",
    "a str where a number is expected"), never the key's value itself (a CSV may be shown to
    students). Never raises."""
    try:
        if not is_valid(got):
            return "a value of an unknown form"
        return _mismatch(got, want, rtol, atol, "")
    except Exception:  # noqa: BLE001 – a description is a courtesy: never lose a row to it
        return "wrong value"


_KIND_NAMES = {"none": "None", "bool": "a bool", "int": "an int", "float": "a float",
               "str": "a str", "raised": "an error", "array": "an array", "list": "a list",
               "dict": "a dict"}


def _mismatch(got, want, rtol: float, atol: float, where: str) -> str:
    at = f" at {where}" if where else ""
    if want["t"] == "raised" or got["t"] == "raised":
        if got["t"] == "raised" and want["t"] == "raised":
            return f"raised {escape(got['v'], 40)}{at}, expected another error"
        if got["t"] == "raised":
            return f"raised {escape(got['v'], 40)}{at}, expected a value"
        return f"{_KIND_NAMES[got['t']]}{at}, expected an error to be raised"
    expected = _numeric(want)
    if expected is not None:
        reported = _numeric(got)
        if reported is None:
            return f"{_KIND_NAMES[got['t']]}{at} where numbers are expected"
        if reported[0] != expected[0]:
            return f"shape {list(reported[0])}{at}, expected {list(expected[0])}"
        return _numbers_differ(reported[1], expected[1], rtol, atol, at)
    if want["t"] != got["t"]:
        return f"{_KIND_NAMES[got['t']]}{at}, expected {_KIND_NAMES[want['t']]}"
    if want["t"] == "str":
        return f"another string{at}"
    if want["t"] == "list":
        if len(got["items"]) != len(want["items"]):
            return f"{len(got['items'])} items{at}, expected {len(want['items'])}"
        for i, (a, b) in enumerate(zip(got["items"], want["items"])):
            if not _matches(a, b, rtol, atol):
                return _mismatch(a, b, rtol, atol, f"{where}[{i}]")
    if want["t"] == "dict":
        mine, ref = dict(got["items"]), dict(want["items"])
        missing, extra = len(ref.keys() - mine.keys()), len(mine.keys() - ref.keys())
        if missing or extra:
            return f"{missing} key(s) missing, {extra} unexpected{at}"
        for k in ref:
            if not _matches(mine[k], ref[k], rtol, atol):
                return _mismatch(mine[k], ref[k], rtol, atol, f"{where}[{escape(k, 20)!r}]")
    return f"wrong value{at}"


def _numbers_differ(got: list, want: list, rtol: float, atol: float, at: str) -> str:
    wrong = [i for i, (a, b) in enumerate(zip(got, want))
             if not _number_matches(a, b, rtol, atol)]
    if not wrong:
        return f"wrong value{at}"
    if any(not _finite(got[i]) for i in wrong):
        return f"{len(wrong)} of {len(want)} numbers{at} differ, NaN or infinite among them"
    gaps = []
    for i in wrong:
        try:
            gaps.append((abs(float(got[i]) - want[i]) / max(abs(want[i]), atol), i))
        except OverflowError:
            gaps.append((math.inf, i))
    gap, i = max(gaps)
    size = _gap_size(gap)
    if len(want) == 1:
        return f"the number{at} differs {size}"
    return f"{len(wrong)} of {len(want)} numbers{at} differ, the largest {size} at item {i}"


def _gap_size(relative: float) -> str:
    """A relative gap in coarse steps: enough to tell rounding from a wrong formula, not
    enough to recover the key from the reported value."""
    for bound, words in ((0.01, "by under 1 %"), (0.1, "by 1–10 %"), (1.0, "by 10–100 %")):
        if relative < bound:
            return words
    return "by more than 100 %"


def is_choice(want: dict) -> bool:
    """Whether a key holds no number, only text or ``None``: the letter of a multiple-choice
    question, a word, a list of them, ``None`` for "there is none"."""
    if not isinstance(want, dict):
        return False
    if want.get("t") in ("str", "none"):
        return True
    items = want.get("items")
    return (want.get("t") == "list" and isinstance(items, list) and len(items) > 0
            and all(is_choice(x) for x in items))


def is_computed(want: dict) -> bool:
    """Whether a key is a computed value: neither an expected error nor a choice."""
    return want.get("t") != "raised" and not is_choice(want)
