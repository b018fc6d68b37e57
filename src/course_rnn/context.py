"""The run's context: every choice that says *where and how* runs go, read in one place.

Seven choices do not change what a model is or what an experiment measures, only where and how its
runs go. Each comes from an argument (the command line, a chapter's call), else from a variable
of the environment, else from a default:

=================  ==========================  ===============================================
field              variable                    meaning
=================  ==========================  ===============================================
``device``         ``$COURSE_RNN_DEVICE``      cpu, cuda, cuda:N, mps or checked (None: a GPU
                                               when there is one, else the CPU)
``seed_offset``    ``$COURSE_RNN_SEED_OFFSET`` added to every seed (an integer ≥ 0; 0)
``workers``        ``$COURSE_RNN_WORKERS``     processes for independent runs (None: the cores)
``progress``       ``$COURSE_RNN_PROGRESS``    progress bars (``0``: off; on by default)
``scale``          ``$COURSE_RNN_SCALE``       quick (the book's), paper or full
``executor``       ``$COURSE_RNN_DASK``        ``local`` or a Dask scheduler, ``tcp://HOST:PORT``
``jobs``           ``$COURSE_RNN_JOBS``        a folder where every finished job is kept and
                                               from which a job kept there is loaded, not run
                                               again (None: jobs are not kept)
=================  ==========================  ===============================================

``jobs`` is how a book build trains a network once although two pages show it (chapter 4's
parts both read one experiment's runs): the build points it at a fresh folder of its own. A job
is found by its function, the seed offset and its arguments, not by the library's code, so a
folder must not outlive the code that filled it (``make book`` and ``make test`` empty theirs
before every build; ``replicate --resume`` keeps a run's jobs the same way, per run).

:func:`run_context` parses them into one frozen :class:`RunContext`; a bad value is a ValueError
naming the variable (or the argument) before any work. This module imports neither torch nor
any other part of the course, so the command line checks its arguments with the very parsers
the library uses, before torch is imported; the torch side of the device (is there a GPU?) is
:func:`course_rnn.utils.pick_device`'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from urllib.parse import urlsplit

#: The scales, in this order: "quick" (the book's, CPU-friendly), "paper" (the papers' sizes)
#: and "full" (the committed runs' scale, only where the paper's size is out of a 2-core CPU's
#: reach in an hour: some experiments have it, no chapter runs it).
SCALES = ("quick", "paper", "full")
#: The scales a chapter runs at.
BOOK_SCALES = ("quick", "paper")
#: What a device may be called: the CPU, a CUDA GPU (optionally numbered), Apple's MPS, or the
#: checked device (the CPU with a GPU's rules: :mod:`course_rnn.device_check`).
DEVICE_NAMES = re.compile(r"cpu|cuda(:\d+)?|mps|checked")
#: ``executor`` for worker processes on this machine.
LOCAL = "local"
_DASK_SCHEMES = ("dask", "tcp")

#: Each field's variable of the environment.
VARIABLES = {
    "device": "COURSE_RNN_DEVICE",
    "seed_offset": "COURSE_RNN_SEED_OFFSET",
    "workers": "COURSE_RNN_WORKERS",
    "progress": "COURSE_RNN_PROGRESS",
    "scale": "COURSE_RNN_SCALE",
    "executor": "COURSE_RNN_DASK",
    "jobs": "COURSE_RNN_JOBS",
}


# -- one parser per choice: text in, a value out, or a ValueError that names the choice -----------
def parse_device(text: str) -> str:
    """A device's name as :data:`DEVICE_NAMES` allows it."""
    if not DEVICE_NAMES.fullmatch(text):
        raise ValueError(f"unknown device {text!r}: use cpu, cuda, cuda:N, mps or checked")
    return text


def _whole_number(text: str, at_least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = at_least - 1
    if value < at_least:
        raise ValueError(f"expected an integer ≥ {at_least}, got {text!r}")
    return value


def parse_seed_offset(text: str) -> int:
    """An integer ≥ 0."""
    return _whole_number(text, 0)


def parse_workers(text: str) -> int:
    """An integer ≥ 1."""
    return _whole_number(text, 1)


def parse_progress(text: str) -> bool:
    """``0`` switches progress bars off; anything else leaves them on."""
    return text != "0"


def parse_scale(text: str, allowed: tuple[str, ...] = SCALES) -> str:
    """One of ``allowed`` (:data:`SCALES`; a chapter's: :data:`BOOK_SCALES`); ``"default"`` is
    refused with the book's scale's name."""
    if text not in allowed:
        raise ValueError(f"unknown scale {text!r}: choose one of {', '.join(allowed)}"
                         + (" (the book's scale is called 'quick')" if text == "default" else ""))
    return text


def parse_executor(text: str) -> str:
    """``local``, or a Dask scheduler's address as Dask writes it (``tcp://HOST:PORT``), from
    ``local``, ``dask://HOST:PORT`` or ``tcp://HOST:PORT``."""
    text = text.strip()
    if text == LOCAL:
        return LOCAL
    parts = urlsplit(text)
    expected = f"expected {LOCAL!r} or dask://HOST:PORT, got {text!r}"
    if parts.scheme not in _DASK_SCHEMES or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(expected)
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{expected}: the port is not a number from 0 to 65535") from None
    if port is None:
        raise ValueError(f"{expected}: the scheduler's port is missing (Dask's default is 8786)")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"tcp://{host}:{port}"


def parse_jobs(text: str) -> str:
    """A folder's path (made when the first job is kept); an existing file is refused."""
    if os.path.exists(text) and not os.path.isdir(text):
        raise ValueError(f"a folder to keep jobs in is needed, {text!r} is a file")
    return text


_PARSERS = {"device": parse_device, "seed_offset": parse_seed_offset, "workers": parse_workers,
            "progress": parse_progress, "scale": parse_scale, "executor": parse_executor,
            "jobs": parse_jobs}


# -- the context -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunContext:
    """Where and how runs go (the table of the module docstring); build it with
    :func:`run_context`."""

    device: str | None = None
    seed_offset: int = 0
    workers: int | None = None
    progress: bool = True
    scale: str = "quick"
    executor: str = LOCAL
    jobs: str | None = None

    def variables(self) -> dict[str, str]:
        """Every variable's text ("" for a field left to its default of None), so that
        :func:`run_context` reads this context back: what a process started elsewhere (a Dask
        worker shares no environment with this one) puts into its own to run as this one."""
        def text(value) -> str:
            if isinstance(value, bool):
                return "1" if value else "0"
            return "" if value is None else str(value)

        return {VARIABLES[f.name]: text(getattr(self, f.name)) for f in fields(self)}


def run_context(environ: Mapping[str, str] | None = None, **choices) -> RunContext:
    """The :class:`RunContext` of ``choices`` (a field's value, or None for "not chosen"),
    the rest read from ``environ`` (default ``os.environ``). A chosen value is checked as its
    variable would be; a bad one is a ValueError naming the variable or the field."""
    unknown = sorted(set(choices) - set(VARIABLES))
    if unknown:
        raise TypeError(f"run_context: no choice called {', '.join(unknown)} (choose from "
                        f"{', '.join(VARIABLES)})")
    environ = os.environ if environ is None else environ
    context = _from_environment(tuple((environ.get(v) or "").strip() for v in VARIABLES.values()))
    chosen = {}
    for name, value in choices.items():
        if value is None:
            continue
        if isinstance(value, str) or name in ("seed_offset", "workers"):
            try:
                value = _PARSERS[name](str(value))
            except ValueError as err:
                raise ValueError(f"{name}: {err}") from None
        chosen[name] = value
    return replace(context, **chosen)


@lru_cache(maxsize=64)
def _from_environment(texts: tuple[str, ...]) -> RunContext:
    """The context the variables' ``texts`` (in the order of :data:`VARIABLES`; "" for unset)
    say: parsed once for each environment seen (the seed offset is read at every seed)."""
    values = {}
    for (name, variable), text in zip(VARIABLES.items(), texts):
        if text:
            try:
                values[name] = _PARSERS[name](text)
            except ValueError as err:
                raise ValueError(f"${variable}: {err}") from None
    return RunContext(**values)
