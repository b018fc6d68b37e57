"""Finished jobs on disk: what lets ``replicate --resume`` train only what a crash left undone.

A long run is many independent jobs (:func:`~.workers.parallel_map`); inside
:func:`~.workers.keep_jobs` each finished job's result (whatever the job function returned:
models, histories, numbers) is written at once into one file of the store's folder, and a job
whose file is there is loaded instead of run. The file is named by the job: the function's
qualified name, the seed offset and a SHA-256 of the pickled arguments (tensors by their
contents). Correctness never rests on that name: a job whose name changed (other arguments,
other settings, a set pickled in another order) is simply not found and is trained again.

Files are written atomically (a temporary file, then :func:`os.replace`), so a run killed at
any moment leaves only whole results: a killed run's store is a valid store.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from ..utils import seed_offset
from .output import JOB_SUFFIX, stored_jobs


def function_name(function: Callable) -> str:
    """``module.qualname`` of a job function (or of a callable object's class)."""
    named = function if hasattr(function, "__qualname__") else type(function)
    return f"{getattr(named, '__module__', '?')}.{named.__qualname__}"


class _Fingerprint(pickle.Pickler):
    """A pickler for naming a job: a tensor is written as its type, dtype, shape and a hash of
    its bytes, not through torch's own pickling (which is not byte-for-byte repeatable)."""

    def persistent_id(self, obj):
        if not isinstance(obj, torch.Tensor):
            return None
        try:
            flat = obj.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
        except (RuntimeError, TypeError):  # sparse, quantized …: pickled as torch does
            return None
        digest = hashlib.sha256(flat.numpy().tobytes()).hexdigest()
        return (type(obj).__name__, str(obj.dtype), tuple(obj.shape), obj.requires_grad, digest)


def _fingerprint(job: tuple) -> bytes | None:
    """``job`` pickled as its name's source: without pickle's memo where it can (``fast``), so
    that a value shared by two places (an interned ``"step"`` in a freshly trained History) and
    the same value in two copies (that History loaded back) give the same bytes; with the memo
    for a structure that refers to itself. None when it cannot be pickled."""
    for fast in (True, False):
        buffer = io.BytesIO()
        pickler = _Fingerprint(buffer, protocol=4)
        pickler.fast = fast
        try:
            pickler.dump(job)
        except (ValueError, RecursionError):  # a cycle: fast mode cannot write it
            continue
        except (pickle.PicklingError, TypeError, AttributeError, RuntimeError):
            return None
        return buffer.getvalue()
    return None


def job_key(function: Callable, job: tuple) -> str | None:
    """The file name (without suffix) of ``function(*job)``'s result, or None when the
    arguments cannot be pickled (such a job is run, never stored)."""
    fingerprint = _fingerprint(job)
    if fingerprint is None:
        return None
    digest = hashlib.sha256(f"{function_name(function)}\0{seed_offset()}\0".encode())
    digest.update(fingerprint)
    short = getattr(function, "__name__", type(function).__name__)
    return f"{short}-{digest.hexdigest()}"


class JobStore:
    """The finished jobs of one run, one file each in ``folder`` (made at the first save).
    ``loaded`` and ``saved`` count the results read from it and written into it."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"a job store needs a folder: {str(folder)!r} is a file")
        self.loaded = self.saved = 0
        self._warned = False

    def path(self, function: Callable, job: tuple) -> Path | None:
        key = job_key(function, job)
        return None if key is None else self.folder / f"{key}{JOB_SUFFIX}"

    def load_all(self, function: Callable, jobs: list[tuple]) -> dict[int, object]:
        """The stored results of ``jobs``, by index; a job not stored (or whose file cannot be
        read: another torch, a GPU tensor on a CPU machine) is left out, to be run again."""
        found = {}
        for index, job in enumerate(jobs):
            path = self.path(function, job)
            if path is None or not path.is_file():
                continue
            try:
                found[index] = torch.load(path, weights_only=False)
            except Exception as err:  # an unreadable file only means: run the job again
                warnings.warn(f"cannot read the stored job {path.name} ({err}): running it "
                              "again", stacklevel=3)
        self.loaded += len(found)
        return found

    def save(self, function: Callable, job: tuple, result) -> None:
        """Write ``result`` (of ``function(*job)``) atomically; a job whose arguments or result
        cannot be pickled is not stored (warned once), never an error that stops the run."""
        path = self.path(function, job)
        if path is None:
            return self._warn(f"the arguments of {function_name(function)} cannot be pickled")
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")  # not counted
        try:
            torch.save(result, temporary)
            os.replace(temporary, path)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            temporary.unlink(missing_ok=True)
            return self._warn(f"the result of {function_name(function)} cannot be pickled "
                              f"({err})")
        self.saved += 1

    def count(self) -> int:
        """How many results the folder holds."""
        return stored_jobs(self.folder)

    def remove(self) -> None:
        """Delete the folder: the run it belongs to has saved its results."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def _warn(self, why: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"{why}: such jobs are not kept in {self.folder} (a resumed run "
                          "trains them again)", stacklevel=3)


def _short(value, width: int = 40) -> str:
    """An argument as a failure names it: a number, a name or None as written, anything else
    by its type (a settings object's repr would fill the screen)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
        return text if len(text) <= width else text[:width - 1] + "…"
    return f"<{type(value).__name__}>"


@dataclass(frozen=True)
class Failure:
    """One failed job: ``call`` (the function and its short arguments), ``error`` (the
    exception's type and message) and its ``traceback`` (a worker's own, where it has one)."""

    call: str
    error: str
    traceback: str

    @classmethod
    def of(cls, function: Callable, job: tuple, error: BaseException) -> Failure:
        name = getattr(function, "__name__", type(function).__name__)
        call = f"{name}({', '.join(_short(a) for a in job)})"
        return cls(call, f"{type(error).__name__}: {error}",
                   "".join(traceback.format_exception(error)))


class JobsFailed(RuntimeError):
    """Some jobs of a :func:`~.workers.parallel_map` failed; the others finished and were
    stored. The message names every failed job and its error; :meth:`report` adds the
    tracebacks."""

    def __init__(self, failures: list[Failure], total: int):
        self.failures, self.total = list(failures), total
        lines = "\n".join(f"  {f.call}: {f.error}" for f in self.failures)
        super().__init__(f"{len(self.failures)} of {total} jobs failed (the others finished):"
                         f"\n{lines}")

    def report(self) -> str:
        """The text of ``failed_jobs.txt``: the message, then each failure's traceback."""
        parts = [str(self)] + [f"--- {f.call}\n{f.traceback}" for f in self.failures]
        return "\n\n".join(parts) + "\n"
