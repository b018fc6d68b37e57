"""Seeds, devices and scales: the three things every experiment sets first."""

from __future__ import annotations

import os
import random

import numpy as np
import torch

SCALES = ("default", "paper")


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, numpy and torch; return a torch Generator seeded the same way."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    torch.manual_seed(int(seed))
    return torch.Generator().manual_seed(int(seed))


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """``device`` if given, else ``$COURSE_RNN_DEVICE``, else CUDA when present, else CPU."""
    device = device or os.environ.get("COURSE_RNN_DEVICE") or None
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(device)
    except RuntimeError as err:
        raise ValueError(f"unknown device {device!r}: use 'cpu', 'cuda' or 'cuda:N'") from err
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was requested but no CUDA GPU is available")
    return device


def current_scale(scale: str | None = None) -> str:
    """``scale`` if given, else ``$COURSE_RNN_SCALE``, else ``"default"`` (CPU-friendly)."""
    scale = scale or os.environ.get("COURSE_RNN_SCALE") or "default"
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}: choose one of {', '.join(SCALES)}")
    return scale
