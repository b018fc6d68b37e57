"""Answers as data: what a submission's sandbox reports, and how the measuring sandbox reads it.

A submission is graded in two sandboxes (:mod:`.runner`). The first runs the submission and
reports only its *answers*, as data; the second, fresh, holds only the course's code and that
data, and computes every graded value (:mod:`.child`). Between them, this module:

- :func:`rewrite_probe`: a probe's every read of an answer name (``perplexity``, ``kn_reason``)
  becomes ``__answer__("perplexity")``, so that both sandboxes can see each read;
- :class:`Recorder` (first sandbox): ``__answer__`` returns the submission's object; a function
  comes back wrapped, and each call the probe makes of it (not the calls made from inside
  another answer) is recorded as an *event*: its output, encoded, and the new state of any
  tensor or model argument it changed in place; a value read is an event too;
- :class:`Replayer` (second sandbox): ``__answer__`` gives the recorded events back in order —
  a value decoded, a function a stand-in that returns the recorded output (or raises the
  recorded error) and writes a recorded new state into its own arguments — while every other
  line of the probe runs as the course's own code.

:func:`encode` and :func:`decode` are the format: JSON objects of exact kinds (a float32 tensor
stays a float32 tensor, a tuple a tuple), never pickle; :func:`decode` checks everything it
reads (dtypes from a fixed list, shapes against the data, depth and size bounds) and builds
only tensors, arrays, numbers, strings, containers and ``SimpleNamespace`` objects.
"""

from __future__ import annotations

import ast
import builtins
import math
from types import SimpleNamespace

MAX_DEPTH = 16  # containers inside containers
MAX_NUMBERS = 2_000_000  # numbers in one encoded answer
MAX_STR = 100_000
ANSWER = "__answer__"

_TORCH_DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                 "uint8", "bool")
_NUMPY_KINDS = "biuf"


class Unreportable(TypeError):
    """An answer that cannot be reported as data (a generator, an open file, a lambda)."""


class ReplayError(RuntimeError):
    """The measuring sandbox asked for an answer the submission did not report."""


# -- the probe -----------------------------------------------------------------------------------
def names_read(code: str) -> set[str]:
    """Every name ``code`` reads."""
    return {n.id for n in ast.walk(ast.parse(code))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def bound_names(code: str | ast.AST, *, arguments: bool = False) -> set[str]:
    """The names ``code`` binds anywhere in it: assigned or deleted, defined (``def``,
    ``class``), imported (``import a.b`` binds ``a``) and, with ``arguments``, taken as a
    function's or a lambda's arguments. Code that does not parse binds nothing.

    Two readings: the names the course's provided code binds are never a submission's
    answers (its functions' arguments are local to them, so ``arguments=False``); the names a
    probe binds itself, its lambdas' arguments included (``arguments=True``), are never read
    as an answer (:func:`rewrite_probe`)."""
    if isinstance(code, str):
        try:
            code = ast.parse(code)
        except SyntaxError:
            return set()
    bound = set()
    for node in ast.walk(code):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.arg) and arguments:
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound


def rewrite_probe(code: str, answers) -> str:
    """``code`` with every read of a name in ``answers`` (one the probe does not bind itself)
    written as ``__answer__("name")``."""
    tree = ast.parse(code)
    wanted = set(answers) - bound_names(tree, arguments=True)

    class Rewrite(ast.NodeTransformer):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Load) and node.id in wanted:
                call = ast.Call(ast.Name(ANSWER, ast.Load()), [ast.Constant(node.id)], [])
                return ast.copy_location(call, node)
            return node

    return ast.unparse(ast.fix_missing_locations(Rewrite().visit(tree)))


# -- the format ----------------------------------------------------------------------------------
class _Budget:
    def __init__(self):
        self.numbers = 0

    def take(self, n: int) -> None:
        self.numbers += n
        if self.numbers > MAX_NUMBERS:
            raise Unreportable(f"more than {MAX_NUMBERS} numbers in one answer")


def encode(obj, depth: int = 0, budget: _Budget | None = None):
    """``obj`` as a JSON-able description of its exact kind, or :class:`Unreportable`."""
    import numpy as np
    import torch

    budget = budget or _Budget()
    if depth > MAX_DEPTH:
        raise Unreportable("an answer nested too deeply")
    if obj is None:
        return {"t": "none"}
    if obj is Ellipsis:
        return {"t": "ellipsis"}
    if isinstance(obj, bool):
        return {"t": "bool", "v": bool(obj)}
    if isinstance(obj, int):
        return {"t": "int", "v": int(obj)}
    if isinstance(obj, float):
        return {"t": "float", "v": float(obj)}
    if isinstance(obj, str):
        if len(obj) > MAX_STR:
            raise Unreportable(f"a string of more than {MAX_STR} characters")
        return {"t": "str", "v": str.__str__(obj)}
    budget.take(1)
    if isinstance(obj, torch.Tensor):
        return _tensor(obj, budget)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in _NUMPY_KINDS:
            raise Unreportable(f"arrays of dtype {obj.dtype} are not reported")
        budget.take(obj.size)
        return {"t": "ndarray", "dtype": obj.dtype.name, "shape": list(obj.shape),
                "data": obj.reshape(-1).tolist()}
    if isinstance(obj, np.generic):
        if obj.dtype.kind not in _NUMPY_KINDS:
            raise Unreportable(f"numpy scalars of dtype {obj.dtype} are not reported")
        return {"t": "npscalar", "dtype": obj.dtype.name, "v": obj.item()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        kind = ("list" if isinstance(obj, list) else "tuple" if isinstance(obj, tuple)
                else "set")
        items = list(obj)
        budget.take(len(items))
        return {"t": kind, "items": [encode(x, depth + 1, budget) for x in items]}
    if isinstance(obj, dict):
        budget.take(len(obj))
        return {"t": "dict", "items": [[encode(k, depth + 1, budget), encode(v, depth + 1, budget)]
                                       for k, v in list(obj.items())]}
    if isinstance(obj, torch.nn.Module):
        raise Unreportable(f"a model ({type(obj).__name__}) is reported by what it computes, "
                           "not as an answer")
    fields = getattr(obj, "__dict__", None)
    if isinstance(fields, dict) and not callable(obj):  # a record: History, SimpleNamespace
        budget.take(len(fields))
        hidden = {f.name for f in getattr(type(obj), "__dataclass_fields__", {}).values()
                  if not f.repr}
        fields = {k: v for k, v in list(fields.items()) if k not in hidden}
        for k in dir(type(obj))[:200]:
            if not k.startswith("_") and isinstance(getattr(type(obj), k, None), property):
                try:
                    fields[k] = getattr(obj, k)
                except Exception:  # noqa: BLE001 – a property that raises: left out
                    continue
        kept = []
        for k, v in list(fields.items()):
            if isinstance(k, str) and not k.startswith("_"):
                try:
                    kept.append([k, encode(v, depth + 1, budget)])
                except Unreportable:
                    continue  # a field that is not data (a model, a function): left out
        return {"t": "object", "class": type(obj).__name__[:100], "fields": kept}
    raise Unreportable(f"values of type {type(obj).__name__[:100]} are not reported")


def _tensor(t, budget: _Budget):
    import torch

    if t.layout != torch.strided or t.is_complex() or t.is_quantized:
        raise Unreportable("only dense real tensors are reported")
    name = str(t.dtype).removeprefix("torch.")
    if name not in _TORCH_DTYPES:
        raise Unreportable(f"tensors of dtype {name} are not reported")
    budget.take(t.numel())
    flat = t.detach().cpu().reshape(-1)
    if name == "bfloat16":
        flat = flat.float()
    return {"t": "tensor", "dtype": name, "shape": list(t.shape), "data": flat.tolist(),
            "grad": bool(t.requires_grad)}


def decode(desc, depth: int = 0):
    """What :func:`encode` described, checked; ``ValueError`` for anything malformed."""
    import numpy as np
    import torch

    if not isinstance(desc, dict) or depth > MAX_DEPTH + 1:
        raise ValueError("a malformed answer")
    kind = desc.get("t")
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind in ("bool", "int", "float", "str"):
        v = desc.get("v")
        ok = {"bool": isinstance(v, bool),
              "int": isinstance(v, int) and not isinstance(v, bool),
              "float": isinstance(v, (int, float)) and not isinstance(v, bool),
              "str": isinstance(v, str)}[kind]
        if not ok:
            raise ValueError(f"a malformed {kind}")
        return float(v) if kind == "float" else v
    if kind in ("list", "tuple", "set"):
        items = desc.get("items")
        if not isinstance(items, list):
            raise ValueError("a malformed container")
        values = [decode(x, depth + 1) for x in items]
        return values if kind == "list" else tuple(values) if kind == "tuple" else set(values)
    if kind == "dict":
        items = desc.get("items")
        if not isinstance(items, list) or not all(isinstance(kv, list) and len(kv) == 2
                                                  for kv in items):
            raise ValueError("a malformed dict")
        return {decode(k, depth + 1): decode(v, depth + 1) for k, v in items}
    if kind == "object":
        fields = desc.get("fields")
        if not isinstance(fields, list) or not all(
                isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)
                and kv[0].isidentifier() and not kv[0].startswith("_") for kv in fields):
            raise ValueError("a malformed object")
        return SimpleNamespace(**{k: decode(v, depth + 1) for k, v in fields})
    if kind in ("tensor", "ndarray"):
        shape, data, dtype = desc.get("shape"), desc.get("data"), desc.get("dtype")
        if (not isinstance(shape, list) or len(shape) > 32
                or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s
                           <= MAX_NUMBERS for s in shape)
                or not isinstance(data, list) or len(data) != math.prod(shape)
                or not all(isinstance(x, (bool, int, float)) for x in data)):
            raise ValueError(f"a malformed {kind}")
        if kind == "tensor":
            if dtype not in _TORCH_DTYPES:
                raise ValueError("a tensor of an unknown dtype")
            t = torch.tensor(data, dtype=getattr(torch, dtype)).reshape(shape)
            if desc.get("grad") is True and t.is_floating_point():
                t.requires_grad_(True)
            return t
        if _numpy_dtype(dtype) is None:
            raise ValueError("an array of an unknown dtype")
        return np.array(data, dtype=_numpy_dtype(dtype)).reshape(shape)
    if kind == "npscalar":
        dtype, v = desc.get("dtype"), desc.get("v")
        if _numpy_dtype(dtype) is None or not isinstance(v, (bool, int, float)):
            raise ValueError("a malformed numpy scalar")
        return _numpy_dtype(dtype).type(v)
    raise ValueError("an answer of an unknown kind")


def _numpy_dtype(name):
    """The numpy dtype ``name`` (a plain bool, int, uint or float one), else None."""
    import numpy as np

    if not isinstance(name, str) or not name.isalnum() or len(name) > 16:
        return None
    try:
        dtype = np.dtype(name)
    except TypeError:
        return None
    return dtype if dtype.kind in _NUMPY_KINDS else None


# -- arguments changed in place ----------------------------------------------------------------
def _mutable_args(args: tuple, kwargs: dict):
    """``(where, object)`` for each tensor or model argument, and each tensor inside a list or
    tuple argument: what an answer may change in place (``clip_gradients(grads, 1.0)``,
    ``set_actions(model)``)."""
    import torch

    found = []
    for where, arg in [*enumerate(args), *kwargs.items()]:
        if isinstance(arg, (torch.Tensor, torch.nn.Module)):
            found.append(([where], arg))
        elif isinstance(arg, (list, tuple)):
            found += [([where, j], x) for j, x in enumerate(arg[:1000])
                      if isinstance(x, torch.Tensor)]
    return found


def _snapshot(obj):
    import torch

    with torch.no_grad():
        if isinstance(obj, torch.nn.Module):
            return {k: v.detach().clone() for k, v in obj.state_dict().items()}
        return obj.detach().clone()


def _changed(before, obj):
    """The new state of ``obj`` where it differs from ``before`` (None where it does not)."""
    import torch

    if isinstance(obj, torch.nn.Module):
        now = obj.state_dict()
        diff = {k: v for k, v in now.items()
                if k not in before or v.shape != before[k].shape or not torch.equal(v, before[k])}
        return diff or None
    if obj.shape != before.shape or not torch.equal(obj.detach(), before):
        return obj
    return None


def _find(args: tuple, kwargs: dict, where: list):
    head = where[0]
    if isinstance(head, int) and not isinstance(head, bool) and 0 <= head < len(args):
        target = args[head]
    elif isinstance(head, str) and head in kwargs:
        target = kwargs[head]
    else:
        raise ReplayError("an argument the answer changed is not there")
    if len(where) == 2:
        j = where[1]
        if not isinstance(target, (list, tuple)) or not isinstance(j, int) or not (
                0 <= j < len(target)):
            raise ReplayError("an argument the answer changed is not there")
        target = target[j]
    return target


def _apply(target, state) -> None:
    """Write a recorded new state into the measuring sandbox's own argument."""
    import torch

    with torch.no_grad():
        if isinstance(target, torch.nn.Module):
            if not isinstance(state, dict):
                raise ReplayError("a model's new state is not a state dict")
            own = target.state_dict()
            for k, v in state.items():
                if k not in own or not isinstance(v, torch.Tensor) or v.shape != own[k].shape:
                    raise ReplayError(f"the answer changed the model's {str(k)[:40]!r} into "
                                      "something of another shape")
                own[k].copy_(v)
        elif isinstance(target, torch.Tensor):
            if not isinstance(state, torch.Tensor) or state.shape != target.shape:
                raise ReplayError("the answer changed a tensor argument's shape")
            target.copy_(state)
        else:
            raise ReplayError("a changed argument of an unknown kind")


# -- the first sandbox: recording ----------------------------------------------------------------
class Recorder:
    """``__answer__`` for the submission's sandbox: records what each probe reads of the
    answers into ``events`` (reset per probe with :meth:`start`)."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.events: list = []
        self.depth = 0
        self.wrapped: dict = {}

    def start(self) -> None:
        self.events = []
        self.depth = 0

    def __call__(self, name: str):
        try:
            obj = self.namespace[name]
        except KeyError:
            if self.depth == 0:
                self.events.append({"k": "missing", "name": name})
            raise NameError(f"name {name!r} is not defined") from None
        if callable(obj) and not isinstance(obj, type):
            if self.depth == 0:
                self.events.append({"k": "function", "name": name})
            return obj if getattr(obj, "_answer_of", None) == name else self._wrap(name, obj)
        if self.depth == 0:
            try:
                self.events.append({"k": "value", "name": name, "v": encode(obj)})
            except Exception as e:  # noqa: BLE001 – Unreportable, or an object that raises
                self.events.append({"k": "bad", "name": name, "why": _describe(e)})
        return obj

    def install(self, names) -> None:
        """Wrap each answer function in the namespace, so that the course's own code calling it
        (``train_relu_srn`` calls ``clip_gradients``) is recorded too."""
        for name in names:
            obj = self.namespace.get(name)
            if callable(obj) and not isinstance(obj, type):
                self.namespace[name] = self._wrap(name, obj)

    def _wrap(self, name: str, function):
        recorder = self

        def answered(*args, **kwargs):
            if recorder.depth:  # called from inside another answer: not a call of the probe
                return function(*args, **kwargs)
            recorder.depth += 1
            try:
                watched = [(where, obj, _snapshot(obj))
                           for where, obj in _mutable_args(args, kwargs)]
                out = function(*args, **kwargs)
            except BaseException as e:
                recorder.depth -= 1
                recorder.events.append({"k": "raise", "name": name, "error": error_name(e),
                                        "message": _message(e)})
                raise
            recorder.depth -= 1
            event = {"k": "call", "name": name}
            try:
                event["out"] = encode(out)
                changed = []
                for where, obj, before in watched:
                    state = _changed(before, obj)
                    if state is not None:
                        changed.append([where, encode(state)])
                if changed:
                    event["changed"] = changed
            except Exception as e:  # noqa: BLE001
                event = {"k": "bad", "name": name, "why": _describe(e)}
            recorder.events.append(event)
            return out

        answered._answer_of = name
        return answered


# -- the second sandbox: replaying ---------------------------------------------------------------
class Replayer:
    """``__answer__`` for the measuring sandbox: gives back one probe's recorded events, in
    order (:meth:`start` with the probe's events)."""

    def __init__(self):
        self.events: list = []
        self.next = 0

    def start(self, events) -> None:
        self.events = events if isinstance(events, list) else []
        self.next = 0

    def _take(self, name: str, kinds: tuple):
        if self.next >= len(self.events):
            raise ReplayError(f"no answer reported for this read of {name}")
        event = self.events[self.next]
        self.next += 1
        if not isinstance(event, dict) or event.get("name") != name:
            raise ReplayError(f"the answers were reported out of order at {name}")
        if event.get("k") == "bad":
            why = event.get("why")
            raise ReplayError(f"{name}: {why if isinstance(why, str) else 'not reportable'}"[:200])
        if event.get("k") == "missing":
            raise NameError(f"name {name!r} is not defined")
        if event.get("k") not in kinds:
            raise ReplayError(f"the answers were reported out of order at {name}")
        return event

    def __call__(self, name: str):
        event = self._take(name, ("value", "function"))
        if event["k"] == "value":
            return _decoded(event.get("v"), name)
        return self.function(name)

    def install(self, namespace: dict, names) -> None:
        """Each answer name bound to :meth:`function`, for the course's code that calls it."""
        for name in names:
            namespace[name] = self.function(name)

    def function(self, name: str):
        """A stand-in for the answer function ``name``: each call takes the next recorded
        event (its output, its changes to the arguments, or its error)."""
        replayer = self

        def answered(*args, **kwargs):
            event = replayer._take(name, ("call", "raise"))
            if event["k"] == "raise":
                raise _rebuilt_error(event.get("error"), event.get("message"))
            out = _decoded(event.get("out"), name)
            changed = event.get("changed", [])
            if not isinstance(changed, list):
                raise ReplayError("a malformed answer")
            for item in changed:
                if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], list)
                        and 1 <= len(item[0]) <= 2):
                    raise ReplayError("a malformed answer")
                _apply(_find(args, kwargs, item[0]), _decoded(item[1], name))
            return out

        return answered


def _decoded(desc, name: str):
    """:func:`decode`, any failure a :class:`ReplayError` (never an error a probe grades,
    like the ``TypeError`` of an unhashable dict key)."""
    try:
        return decode(desc)
    except Exception as e:  # noqa: BLE001
        raise ReplayError(f"{name}: a malformed answer ({_describe(e)})"[:200]) from None


def _rebuilt_error(name, message) -> BaseException:
    """The error an answer raised, as the measuring sandbox raises it: a built-in exception
    class of that name (``ValueError``), else a new class with the name."""
    name = name if isinstance(name, str) and name.isidentifier() else "Error"
    message = message if isinstance(message, str) else ""
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = type(name, (Exception,), {})
    try:
        return cls(message)
    except Exception:  # noqa: BLE001 – a built-in that wants other arguments
        return type(name, (Exception,), {})(message)


def error_name(error: BaseException, fallback: str = "Error") -> str:
    """The class name of ``error``, or ``fallback`` where reading it raises (a metaclass can
    make ``__name__`` anything, even a property that raises)."""
    try:
        name = type(error).__name__
        if isinstance(name, str):
            return str.__str__(name)[:100]
    except BaseException:  # noqa: BLE001
        pass
    return fallback


def _message(error: BaseException) -> str:
    try:
        return str.__str__(str(error))[:200]
    except BaseException:  # noqa: BLE001
        return ""


def _describe(error: BaseException) -> str:
    return f"{error_name(error)}: {_message(error)}"[:200]
