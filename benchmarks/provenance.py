"""What every benchmark records beside its figures: the software, the machine, its load and when."""

from __future__ import annotations

import os
import platform
import time

import torch


def provenance(load_before: float) -> dict:
    """torch's version and threads, the load average before and now, cores, Python, machine,
    time of measurement."""
    return {
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "load_average_before": load_before, "load_average_after": os.getloadavg()[0],
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }
