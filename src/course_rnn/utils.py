"""Seeds, devices and scales: the three things every experiment sets first.

**Seed offset.** ``$COURSE_RNN_SEED_OFFSET`` (an integer ≥ 0, default 0) is added to every seed
the library turns into random numbers — the initial weights (:func:`seed_everything`,
``models.base.seeded``), the data (``languages.base.make_rng``, the corpus split, the batch
order) and sampling — so a whole chapter or replication re-runs with fresh randomness while its
code, and the seed numbers it prints, stay the same. ``replicate --seed-offset N`` sets it. A
claim that holds only at offset 0 is a fact about one draw, not about the models.

The variables are read by :mod:`course_rnn.context`, the one place that parses the run's context.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

from .context import BOOK_SCALES, parse_scale, run_context

#: The scales a chapter runs at: ``"quick"``, the book's (CPU-friendly), or ``"paper"``, the
#: papers' sizes. (``python -m course_rnn replicate`` also knows ``"full"``, where an experiment
#: has one: :data:`course_rnn.context.SCALES`.)
SCALES = BOOK_SCALES


def seed_offset() -> int:
    """``$COURSE_RNN_SEED_OFFSET`` as an integer ≥ 0 (0 when unset); ValueError naming the
    variable when it is anything else."""
    return run_context().seed_offset


def shift_seed(seed):
    """``seed`` plus the seed offset (:func:`seed_offset`); None stays None (unseeded)."""
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        return seed
    return int(seed) + seed_offset()


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, numpy and torch; return a torch Generator seeded the same way. The seed is
    shifted by ``$COURSE_RNN_SEED_OFFSET`` (see the module docstring)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer ≥ 0, got {seed!r}")
    seed = shift_seed(seed)
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    torch.manual_seed(int(seed))
    return torch.Generator().manual_seed(int(seed))


def machine_facts() -> dict:
    """What decides the last bits of a CPU run, recorded beside every result: the CPU model,
    PyTorch's kernel capability (its vector width: DEFAULT, AVX2, AVX512 …;
    ``$ATEN_CPU_CAPABILITY`` overrides it), MKL's code path setting, the architecture, and the
    seed offset. Two runs are expected to be bit-identical only where all of these match."""
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "architecture": platform.machine(),
            "kernel_capability": torch.backends.cpu.get_cpu_capability(),
            "mkl_cbwr": os.environ.get("MKL_CBWR"), "torch": torch.__version__,
            "seed_offset": seed_offset()}


#: What must match for a re-run on the CPU to give the same bits as a recorded one.
MACHINE_CLASS = ("cpu", "architecture", "kernel_capability", "mkl_cbwr", "torch")


def machine_class(facts: dict | None = None) -> dict:
    """The :data:`MACHINE_CLASS` entries of ``facts`` (a results.json's ``machine`` record;
    default: this process's :func:`machine_facts`)."""
    facts = machine_facts() if facts is None else facts
    return {key: facts.get(key) for key in MACHINE_CLASS}


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """``device`` if given, else ``$COURSE_RNN_DEVICE``, else CUDA when present, else CPU.

    ``"checked"`` is the CPU acting as a GPU (:mod:`course_rnn.device_check`): the same
    numbers as the CPU, but ``.numpy()`` of a tensor left on it, or a CPU tensor mixed with
    one, fails as it would on a GPU.

    The library calls it in two places: where an experiment's run begins
    (:func:`course_rnn.experiments.setup.begin`, once per run) and where a model goes to a
    device (:func:`course_rnn.training.loop.model_device`: :func:`~course_rnn.training.fit`, in
    the job's own process, and :func:`~course_rnn.training.load_checkpoint`); everything else
    takes the device they chose."""
    device = device or run_context().device
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if device.type == "cuda":
            _refuse_cuda_after_the_check(device)
        return device
    if str(device) == "checked":
        from .device_check import switch_on

        return switch_on()
    try:
        device = torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"unknown device {device!r}: use 'cpu', 'cuda', 'cuda:N' or 'checked'"
                         ) from err
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was requested but no CUDA GPU is available")
    if device.type == "cuda":
        _refuse_cuda_after_the_check(device)
    return device


def _refuse_cuda_after_the_check(device: torch.device) -> None:
    """A clear error, not a failed backward pass deep inside PyTorch, for CUDA in a process
    that has used the checked device (:data:`course_rnn.device_check.NOT_WITH_CUDA`)."""
    from .device_check import NOT_WITH_CUDA, set_up

    if set_up():
        raise ValueError(f"device {str(device)!r} cannot be used in this process, which has "
                         f"used the checked device: {NOT_WITH_CUDA}; train on the GPU in a "
                         f"fresh process")


def current_scale(scale: str | None = None) -> str:
    """``scale`` if given, else ``$COURSE_RNN_SCALE``, else ``"quick"`` (CPU-friendly); a
    ValueError for any other value (``"default"`` too: the book's scale is called ``"quick"``)."""
    return parse_scale(scale or run_context().scale, SCALES)
