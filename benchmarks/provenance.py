"""What every benchmark records beside its figures: the software, the machine, its load and when
(and the git commands that say at which commit)."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def git(*args: str) -> str:
    """``git ARGS`` in the repository: its output, stripped ('' where git fails)."""
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=False).stdout.strip()


def provenance(load_before: float) -> dict:
    """torch's version and threads, the load average before and now, cores, Python, machine,
    time of measurement."""
    import torch  # here: the git helper above is for scripts that start without torch

    return {
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "load_average_before": load_before, "load_average_after": os.getloadavg()[0],
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }
