"""A GPU's rules on the CPU: ``COURSE_RNN_DEVICE=checked`` (issue 44).

GPUs are lent rarely, and what the last GPU check found were mistakes of one kind: ``.numpy()``
on a tensor that stays on the device, a plot of one, a CPU tensor mixed with a device tensor
(a hand loop on the CPU compared with ``fit`` on the device; a test comparing the two). None of
them needs a GPU to show: they need a device that is *not the CPU* and refuses what CUDA
refuses. This module is that device. :func:`course_rnn.utils.pick_device` returns it for
``"checked"`` (``$COURSE_RNN_DEVICE=checked``); a tensor moved there becomes a
:class:`CheckedTensor`, a CPU tensor that says ``device='checked'`` and

* computes on the CPU's own kernels, so every number is the CPU's (same ops, same bits);
* keeps ``.item()``, ``.tolist()``, ``float(t)`` and printing, as CUDA does;
* refuses ``.numpy()`` and ``np.asarray(t)`` (so a plot of it too) with CUDA's ``TypeError``,
  naming the fix, ``.cpu()``;
* refuses an operation that mixes it with a CPU tensor with CUDA's ``RuntimeError``
  ("Expected all tensors to be on the same device"), except where CUDA allows it: a 0-dim CPU
  tensor as an operand, CPU index tensors, copies (``.to``, ``.cpu()``, ``copy_``,
  ``t[...] = x`` with plain slices) — and a CPU random generator, which CUDA refuses;
* comes back as a plain tensor from ``.cpu()`` / ``.to("cpu")`` (a copy, as from a GPU), and
  from a pickle on the device again (a worker process's result, as from a GPU worker).

The mechanism is PyTorch's own for such checks (``torch.overrides``): a tensor subclass whose
``__torch_function__`` looks at every call before running it unchanged, plus a
``TorchFunctionMode`` for what starts on the CPU — ``torch.zeros(…, device=d)``, ``x.to(d)``,
``model.to(d)``. The name ``"checked"`` is PyTorch's one spare device type, renamed for the
rest of the process. The mode belongs to the thread that switched the check on (the main one:
pytest, a notebook, ``replicate``); ``parallel_map``'s workers switch it on themselves. Below
PyTorch's Python layer nothing is checked (the autograd engine, a PyTorch function while it
runs); packed sequences (``pack_padded_sequence``, whose lengths stay on the CPU) are not
modelled; and what only a GPU shows is out of reach: its numerics, memory, speed, cuDNN.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import types

import torch
from torch.overrides import TorchFunctionMode

#: The name the checked device goes by: ``torch.device("checked")``, ``$COURSE_RNN_DEVICE``.
NAME = "checked"
_threads_on: set[int] = set()  # the threads of this process where the check is on


class _NoAccelerator(types.ModuleType):
    """``torch.checked``: a device module saying that no such device is there to run on."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def _is_in_bad_fork() -> bool:
        return False

    @staticmethod
    def manual_seed_all(seed: int) -> None:
        """Nothing to seed: the checked device draws from the CPU's generator."""


#: Why the checked device and a CUDA GPU cannot share a process (found on an H200, session 33).
NOT_WITH_CUDA = ("once PyTorch's spare device type is named 'checked', PyTorch takes it for the "
                 "process's accelerator and a backward pass on CUDA fails")


def set_up() -> bool:
    """Whether this process has named PyTorch's spare device type :data:`NAME` (for good)."""
    return torch._C._get_privateuse1_backend_name() == NAME


def checked_device() -> torch.device:
    """The checked device. PyTorch's one spare device type (``privateuseone``) is renamed to
    :data:`NAME` so that ``torch.device("checked")`` exists; no tensor really lives there. A
    process that has used CUDA cannot have it (:data:`NOT_WITH_CUDA`)."""
    current = torch._C._get_privateuse1_backend_name()
    if current == "privateuseone":
        if torch.cuda.is_initialized():
            raise RuntimeError(f"the checked device cannot be used in a process that has used "
                               f"CUDA: {NOT_WITH_CUDA}; check in a process of its own "
                               f"(COURSE_RNN_DEVICE=checked)")
        torch.utils.rename_privateuse1_backend(NAME)
        # PyTorch asks a device type's module whether it has an accelerator: not this one.
        torch._register_device_module(NAME, _NoAccelerator(f"torch.{NAME}"))
        torch.serialization.add_safe_globals([restored])  # torch.load(weights_only=True)
    elif current != NAME:
        raise RuntimeError(f"the checked device needs PyTorch's spare device type, but it is "
                           f"already named {current!r} in this process")
    return torch.device(NAME)


def is_on() -> bool:
    """Whether the check is on in this process: then the worker processes of its jobs switch it
    on too, and a device tensor unpickled here (a worker's result, read by a thread of the
    pool) comes back on the device."""
    return bool(_threads_on)


def switch_on() -> torch.device:
    """Check this thread from now on (once; :func:`course_rnn.utils.pick_device` calls it)."""
    device = checked_device()
    if threading.get_ident() not in _threads_on:
        _DeviceCheck().__enter__()  # left on for the life of the thread, like a global setting
        _threads_on.add(threading.get_ident())
    return device


@contextlib.contextmanager
def checking():
    """The checked device for one block (a test): yields it, and switches the check off after
    (unless it was on before)."""
    device, thread = checked_device(), threading.get_ident()
    if thread in _threads_on:
        yield device
        return
    _threads_on.add(thread)
    try:
        with _DeviceCheck():
            yield device
    finally:
        _threads_on.discard(thread)


class CheckedTensor(torch.Tensor):
    """A CPU tensor that is "on the device": it says ``device='checked'`` and refuses what a
    GPU tensor refuses (the module docstring). Its data, and every kernel run on it, are the
    CPU's."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return _handle(func, args, kwargs or {})

    @property
    def device(self) -> torch.device:
        return torch.device(NAME)

    @property
    def is_cpu(self) -> bool:
        return False

    def __reduce_ex__(self, protocol):
        """Pickled as a plain CPU tensor that :func:`restored` puts back on the device: a
        worker process's result comes back on the device, as from a GPU worker. ``torch.save``
        of one writes a file that loads only where the check is on, as a GPU tensor's needs a
        GPU: save ``.cpu()`` tensors (the library's checkpoints do)."""
        plain = _plain_copy(self).detach()
        if getattr(self, "_is_param", False):
            return restored, (torch.nn.Parameter(plain, self.requires_grad),)
        return restored, (plain.requires_grad_(self.requires_grad),)

    def __deepcopy__(self, memo):
        """A copy on the device (``copy.deepcopy`` of a model or an optimizer's state)."""
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment")
        with torch.no_grad(), torch._C.DisableTorchFunctionSubclass():
            result = _mark(torch.Tensor.clone(self), ())
        result.requires_grad_(self.requires_grad)
        result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result


def restored(tensor: torch.Tensor) -> torch.Tensor:
    """An unpickled device tensor: on the checked device where the check is on, else the plain
    CPU tensor it holds."""
    if is_on():
        _move_class(tensor, to_device=True)
    return tensor


class _DeviceCheck(TorchFunctionMode):
    """Sees every torch call, also those on plain CPU tensors: how tensors get to the device."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return _handle(func, args, kwargs or {})


def _handle(func, args, kwargs):
    """Check one torch call, then run it as PyTorch would on the CPU. Asked of every torch call
    while the check is on (a tiny model's training step makes hundreds), so every step here and
    below is written for speed: no generators, no ``isinstance`` of a ``torch.Generator`` that
    is not there (benchmarks/device_check.py)."""
    with torch._C.DisableTorchFunctionSubclass():
        special = _SPECIAL.get(func)
        if special is not None:
            return special(func, args, kwargs)
        if kwargs.get("device") is not None:  # a factory: the device named is the result's
            return _made_on(func, args, kwargs)
        if not _on_device(args, kwargs):
            return func(*args, **kwargs)  # plain CPU code runs untouched
        tensors = _arguments(args, kwargs)
        _refuse_mixing(func, args, kwargs, tensors)
        return _mark(func(*args, **kwargs), tensors)


# -- the checks --------------------------------------------------------------------------------


def _tensors(values):
    """The tensors among ``values`` and in their lists and tuples (``torch.cat``'s list, an
    LSTM's weights, a function's tuple of results): no PyTorch function nests them deeper, and
    a long list of numbers is looked through once."""
    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend([item for item in value if isinstance(item, torch.Tensor)])
    return found


def _arguments(args, kwargs) -> list:
    return _tensors((*args, *kwargs.values()) if kwargs else args)


def _on_device(args, kwargs) -> bool:
    """Whether a device tensor is among the arguments (or in a list or tuple of them): asked of
    every torch call while the check is on, so written for speed."""
    for value in (*args, *kwargs.values()) if kwargs else args:
        kind = type(value)
        if kind is CheckedTensor:
            return True
        if (kind is tuple or kind is list) and any(type(v) is CheckedTensor for v in value):
            return True
    return False


def _is_plain_cpu(tensor) -> bool:
    return type(tensor) is not CheckedTensor and tensor.device.type == "cpu"


def _refuse_mixing(func, args, kwargs, tensors):
    """CUDA's rule: the tensors of one operation are on one device, except a 0-dim CPU tensor
    read as a number (never one written to: an in-place op's ``self``, ``out=``). A CPU random
    generator is refused too."""
    for tensor in tensors:
        if _is_plain_cpu(tensor) and (tensor.dim() > 0 or tensor is kwargs.get("out") or (
                args and tensor is args[0] and _writes_first(func))):
            raise _mixed(func)
    _refuse_cpu_generator(func, kwargs)


def _refuse_cpu_generator(func, kwargs):
    """CUDA's rule: random numbers on the device are drawn with a generator on the device."""
    generator = kwargs.get("generator")  # (None mostly: isinstance of a Generator is slow)
    if generator is not None and isinstance(generator, torch.Generator) and (
            generator.device.type == "cpu"):
        raise _cpu_generator(func)


_AUGMENTED = {f"__i{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                        "and", "or", "xor", "lshift", "rshift", "matmul")}


def _writes_first(func) -> bool:
    """Whether ``func`` writes into its first argument: ``add_``, ``x += y``."""
    name = getattr(func, "__name__", "")
    return name.endswith("_") and not name.endswith("__") or name in _AUGMENTED


def _refuse_mixed_indexing(func, args, kwargs):
    """Indexing, where CUDA is lenient: a device tensor takes CPU index tensors (they are copied
    over), and ``t[slices] = x`` copies ``x`` across. Refused, as on CUDA: a device index tensor
    into a CPU tensor, and a value from the other device put in through index tensors (unless
    0-dim)."""
    self, index = args[0], args[1]
    value = args[2] if len(args) > 2 else kwargs.get("values")
    items = index if isinstance(index, (tuple, list)) else (index,)
    through_indices = func in (torch.Tensor.index_put_, torch.Tensor.index_put) or any(
        isinstance(i, list) or isinstance(i, torch.Tensor) and i.dim() > 0 for i in items)
    here = isinstance(self, CheckedTensor)
    foreign_value = isinstance(value, torch.Tensor) and value.dim() > 0 and (
        _is_plain_cpu(value) if here else isinstance(value, CheckedTensor))
    device_index = not here and any(isinstance(i, CheckedTensor) and i.dim() > 0
                                    for i in _tensors(items))
    if device_index or through_indices and foreign_value:
        raise _mixed(func)


def _mixed(func) -> RuntimeError:
    return RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{NAME} and cpu! (in {_name(func)}; the checked device stands in for a GPU: move the "
        f"CPU tensor with .to(device), or bring the device tensor back with .cpu())")


def _cpu_generator(func) -> RuntimeError:
    return RuntimeError(
        f"Expected a '{NAME}' device type for generator but found 'cpu' (in {_name(func)}; the "
        f"checked device stands in for a GPU, whose random numbers need a generator on the GPU:"
        f" draw on the CPU and move the result, or pass no generator)")


def _no_numpy(tensor) -> TypeError:
    return TypeError(
        f"can't convert {NAME} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
        f"to host memory first. (The checked device stands in for a GPU: a tensor that a model "
        f"or fit left on the device needs .cpu() before numpy, a plot or a CPU comparison.)")


def _name(func) -> str:
    """``torch.Tensor.add``, ``torch.equal``: the function as a reader would call it."""
    return torch.overrides.resolve_name(func) or getattr(func, "__name__", repr(func))


# -- getting to and from the device ------------------------------------------------------------


def _is_checked(device) -> bool:
    return device is not None and not isinstance(device, (int, torch.dtype)) and (
        torch.device(device).type == NAME)


def _mark(result, inputs):
    """Re-class the new tensors in ``result`` as :class:`CheckedTensor` in place: an operation
    on device tensors leaves its result on the device. A plain tensor that was an input (a
    ``copy_``'s target) is the caller's and stays as it is."""
    if type(result) is torch.Tensor:
        news = (result,)
    elif isinstance(result, (tuple, list)):  # an LSTM's outputs (a torch.Size holds none)
        news = [item for item in result if type(item) is torch.Tensor]
    else:  # a number, a bool, a CheckedTensor already
        return result
    for tensor in news:
        if not _among(tensor, inputs):
            tensor.__class__ = CheckedTensor
    return result


def _among(tensor, tensors) -> bool:
    """Whether ``tensor`` is one of ``tensors`` (the object itself, not an equal one)."""
    for other in tensors:
        if other is tensor:
            return True
    return False


def _plain_copy(tensor):
    """``tensor``'s data in a new plain CPU tensor, as ``.cpu()`` copies a GPU tensor."""
    with torch._C.DisableTorchFunctionSubclass():
        return torch.Tensor.to(tensor, "cpu", copy=True)


def _made_on(func, args, kwargs):
    """A factory (``zeros``, ``tensor``, ``*_like``, ``new_*``) with ``device=``: on the checked
    device, made on the CPU and marked."""
    if not _is_checked(kwargs["device"]):
        result = func(*args, **kwargs)  # as_tensor(t, device="cpu") may hand back t itself
        return _plain_copy(result) if isinstance(result, CheckedTensor) else result
    _refuse_cpu_generator(func, kwargs)
    return _mark(func(*args, **{**kwargs, "device": "cpu"}), ())


def _to(func, args, kwargs):
    """``t.to(…)``, ``t.type_as(other)``: a move between the device and the CPU is a copy, as
    with a GPU; a change of dtype alone leaves the tensor where it is."""
    tensor, rest, options = args[0], list(args[1:]), dict(kwargs)
    copying = options.pop("copy", False)
    other = options.pop("other", None)
    if other is None and rest and isinstance(rest[0], torch.Tensor):  # to(other), type_as
        other = rest.pop(0)
    if other is not None:
        rest = [other.device, other.dtype, *rest]
    device, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*rest, **options)
    here = isinstance(tensor, CheckedTensor)
    there = here if device is None else device.type == NAME
    result = torch.Tensor.to(tensor, "cpu" if there else device or tensor.device,
                             dtype or tensor.dtype, non_blocking, copying or here != there,
                             memory_format=memory_format)
    return _mark(result, (tensor,)) if there else result


def _cpu(func, args, kwargs):
    """``t.cpu()``: a plain copy of a device tensor (a plain tensor's own ``cpu()`` else)."""
    if isinstance(args[0], CheckedTensor):
        with torch._C.DisableTorchFunctionSubclass():
            return torch.Tensor.to(args[0], "cpu", copy=True, **kwargs)
    return func(*args, **kwargs)


def _numpy(func, args, kwargs):
    """``t.numpy()``, ``np.asarray(t)``: refused on the device (``numpy(force=True)`` copies
    across, as on CUDA)."""
    if isinstance(args[0], CheckedTensor) and not kwargs.get("force", False):
        raise _no_numpy(args[0])
    return func(*args, **kwargs)


def _set_data(func, args, kwargs):
    """``p.data = new`` (how ``model.to`` moves a parameter): ``p`` moves with its data."""
    tensor, data = args
    func(tensor, data)
    _move_class(tensor, to_device=isinstance(data, CheckedTensor))


def _move_class(tensor, to_device: bool) -> None:
    """Make ``tensor`` a device tensor, or a plain one, in place; a parameter stays one (a
    device parameter is marked as PyTorch marks a parameter of a tensor subclass)."""
    if to_device and not isinstance(tensor, CheckedTensor):
        is_param = isinstance(tensor, torch.nn.Parameter)
        tensor.__class__ = CheckedTensor
        if is_param:
            tensor._is_param = True
    elif not to_device and isinstance(tensor, CheckedTensor):
        is_param = getattr(tensor, "_is_param", False)
        tensor.__class__ = torch.nn.Parameter if is_param else torch.Tensor


def _indexing(func, args, kwargs):
    """``t[i]``, ``t[i] = x``, ``index_put``: checked by :func:`_refuse_mixed_indexing`; the
    result is on the indexed tensor's device."""
    tensors = _arguments(args, kwargs)
    if not any(isinstance(t, CheckedTensor) for t in tensors):
        return func(*args, **kwargs)
    _refuse_mixed_indexing(func, args, kwargs)
    result = func(*args, **kwargs)
    return _mark(result, tensors) if isinstance(args[0], CheckedTensor) else result


def _moved(func, args, kwargs):
    """Copies across devices, which CUDA allows: ``dst.copy_(src)``, ``t.new_tensor(data)``."""
    tensors = _arguments(args, kwargs)
    result = func(*args, **kwargs)
    return _mark(result, tensors) if isinstance(args[0], CheckedTensor) else result


def _parsed_to(func, args, kwargs):
    """``module.to(tensor)`` asks ``_parse_to`` where ``tensor`` is, which PyTorch reads off
    its CPU data: a device tensor is on the device."""
    device, *rest = func(*args, **kwargs)
    first = args[0] if args else kwargs.get("tensor")
    return (torch.device(NAME) if type(first) is CheckedTensor else device, *rest)


def _asks(func, args, kwargs):
    """A question about tensors (their types, sizes), not an operation: any devices may meet."""
    return func(*args, **kwargs)


_SPECIAL = {
    torch.Tensor.to: _to,
    torch.Tensor.type_as: _to,
    torch.Tensor.cpu: _cpu,
    torch.Tensor.numpy: _numpy,
    torch.Tensor.__array__: _numpy,
    torch.Tensor.data.__set__: _set_data,
    torch.Tensor.__getitem__: _indexing,
    torch.Tensor.__setitem__: _indexing,
    torch.Tensor.index_put_: _indexing,
    torch.Tensor.index_put: _indexing,
    torch.Tensor.copy_: _moved,
    torch.Tensor.new_tensor: _moved,
    torch._C._nn._parse_to: _parsed_to,
    torch._has_compatible_shallow_copy_type: _asks,  # model.to asks it of old and new
    torch.is_same_size: _asks,
    torch.result_type: _asks,
}
