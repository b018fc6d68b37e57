"""Running one notebook and its probes in a sandbox, from the parent's side: start it, collect
what it reports, kill it at the end or at the time limit, and wait until it is gone.

What the sandbox sees and may do is :mod:`.sandbox`'s; the child inside is :mod:`.child`; the
pipes are read by :mod:`.collector`, which never trusts what comes out. At the end (or at the
time limit) the parent kills the sandbox's PID 1 through a pidfd — the kernel then kills every
process of the namespace — and waits until that PID 1 is gone before reporting.
"""

from __future__ import annotations

import functools
import json
import math
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .collector import Collector
from .intake import Submission, parse_submission
from .safejson import escape
from .sandbox import (
    ENV,
    SANDBOX_UID_BASE,
    USERNS_UID,
    SandboxUnavailable,
    bwrap_options,
    limits,
    passed_env,
    sandbox_command,
    seccomp_program,
)

TIME_LIMIT = 60.0  # seconds of wall clock per submission, sandbox start-up included
TIME_LIMIT_RANGE = (10.0, 3600.0)  # what --time-limit accepts: the least is well above a
# sandbox's start-up (≈ 2 s with torch imported), so that no limit zeroes a class by itself
MAX_JOBS = 64  # submissions graded at once (--jobs), each in its own sandbox
CELL_TIMEOUT = 20.0  # per cell or probe, at most half the time limit (soft: SIGALRM)
KILL_WAIT = 20.0  # seconds to wait for a killed sandbox to be gone (then: an error, loudly)
CHILD = "from course_rnn.grading.child import main; main()"


class SandboxError(RuntimeError):
    """A sandbox did not die when killed: the grader stops rather than report on it."""


def check_time_limit(value) -> float:
    """``value`` as a number of seconds per submission, or ``ValueError`` naming the range
    (NaN, infinities, 0.5 and 10³⁰ are refused before any submission runs)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    low, high = TIME_LIMIT_RANGE
    if not (math.isfinite(seconds) and low <= seconds <= high):
        raise ValueError(f"the time limit must be a number of seconds from {low:g} to "
                         f"{high:g}, not {value!r}")
    return seconds


@dataclass
class RunInfo:
    """How a run went: ``status`` ("ok", "timeout", "exited N", "unreadable", "refused",
    "sandbox error"), seconds, the start of the output, notes, and the reported records
    (``{case id: {"value": description} or {"error": text}}``)."""

    status: str
    seconds: float
    output: str = ""
    notes: list[str] = field(default_factory=list)
    records: dict = field(default_factory=dict)


def run_notebook(data: bytes, cases, *, time_limit: float = TIME_LIMIT, sandboxed: bool = True,
                 public_tests: Path | None = None, slot: int = 0,
                 submission: Submission | None = None, helpers: list[str] = (),
                 answers=None, caps: dict[str, int] | None = None) -> RunInfo:
    """Grade a notebook's answers in two sandboxes, one after the other.

    1. The submission's sandbox runs ``helpers`` (the course's provided code), then the
       notebook's code cells, then each probe with its reads of the answer names ``answers``
       recorded (:mod:`.answers`); it reports those answers as data and is killed.
    2. A fresh sandbox that holds only the course's code and that data runs ``helpers`` and
       each probe again, the answers given back as recorded, and reports each probe's value.

    The submission never holds a results channel while the measuring runs, and the measuring
    never runs a line of the submission's. ``answers`` None: every name the probes read that the
    provided code does not bind. ``submission``: ``data`` already parsed
    (:func:`.intake.parse_submission`), else it is parsed here; either way the time limit
    starts after parsing, and each sandbox has ``time_limit``. ``caps``: the result-line caps
    of the measuring sandbox (:func:`.collector.report_caps`). ``sandboxed=False`` runs the
    same children without bubblewrap: for trusted notebooks only."""
    import builtins

    from .answers import bound_names, names_read, rewrite_probe

    try:
        cells = (submission or parse_submission(data)).cells
    except ValueError as e:
        return RunInfo("unreadable", 0.0, notes=[escape(e, 200)])
    if answers is None:
        provided: set[str] = set()
        for source in helpers:
            provided |= bound_names(source)
        answers = ({n for c in cases for n in names_read(c.code)} - provided
                   - set(dir(builtins)))
    probes = [{"id": c.id, "code": rewrite_probe(c.code, answers)} for c in cases]
    cell_timeout = min(CELL_TIMEOUT, time_limit / 2)
    start = time.perf_counter()
    spec = {"mode": "answers", "provided": list(helpers), "cells": cells, "cases": probes,
            "answers": sorted(answers), "cell_timeout": cell_timeout}
    first = _spawn(json.dumps(spec, ensure_ascii=True).encode(), [c.id for c in cases],
                   time_limit=time_limit, notebook=data, public_tests=public_tests,
                   sandboxed=sandboxed, slot=slot, start=start, answers=True)
    if first.status == "sandbox error":
        return first
    spec = {"mode": "measure", "provided": list(helpers), "cases": probes,
            "answers": sorted(answers), "reported": first.records.pop("", ""),
            "cell_timeout": CELL_TIMEOUT}
    second = _spawn(json.dumps(spec, ensure_ascii=True).encode(), [c.id for c in cases],
                    time_limit=max(time_limit, 2 * CELL_TIMEOUT), public_tests=None,
                    sandboxed=sandboxed, slot=slot, caps=caps)
    status = first.status
    if second.status != "ok":
        status = f"measuring: {second.status}"
    notes = first.notes + second.notes
    if second.status != "ok" and second.output.strip():
        notes.append("measuring said: " + escape(second.output.strip()[-300:], 300))
    return RunInfo(status, time.perf_counter() - start, first.output, notes, second.records)


def _spawn(spec: bytes, ids: list[str], *, time_limit: float, public_tests: Path | None,
           sandboxed: bool, slot: int, notebook: bytes = b"", start: float | None = None,
           command: list[str] | None = None, caps: dict[str, int] | None = None,
           answers: bool = False) -> RunInfo:
    """Start the child (``command`` instead, to time or test the sandbox itself), collect what
    it reports until it ends or ``time_limit`` passes, kill it and wait until it is gone.
    ``answers``: the submission's sandbox; its cases' lines come back unparsed, as one text,
    under the record ``""``."""
    start = time.perf_counter() if start is None else start
    results_r, results_w = os.pipe()
    output_r, output_w = os.pipe()
    info_r, info_w = os.pipe()
    own = [results_w, output_w, info_w]  # the parent's descriptors, closed once the child runs
    workdir = None
    try:
        if sandboxed:
            argv, env, cwd, passed = _in_sandbox(
                spec, notebook, results_w, info_w, own, time_limit=time_limit,
                public_tests=public_tests, slot=slot, command=command)
        else:
            workdir = tempfile.mkdtemp(prefix="grade-unsafe-")
            argv, env, cwd, passed = _unsandboxed(
                spec, notebook, results_w, Path(workdir), time_limit=time_limit,
                public_tests=public_tests, command=command)
            for fd in (info_r, info_w):
                os.close(fd)
            own.remove(info_w)
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=output_w,
                                    stderr=output_w, pass_fds=passed, env=env, cwd=cwd,
                                    start_new_session=True)
        except OSError as e:
            own += [results_r, output_r] + ([info_r] if sandboxed else [])
            raise SandboxUnavailable(f"cannot start {argv[0]}: {e}") from e
        for fd in own:
            os.close(fd)
        own = []
        collector = Collector(output_r, results_r, info_r if sandboxed else None, set(ids),
                              proc.pid, **(caps or {}), answers=answers)
        collector.start()
        try:
            code = proc.wait(timeout=max(0.1, start + time_limit - time.perf_counter()))
            status = "ok" if code == 0 else f"exited {code}"
        except subprocess.TimeoutExpired:
            status = "timeout"
        _kill(proc, collector, sandboxed)
        collector.join(timeout=KILL_WAIT)
        if collector.is_alive():
            raise SandboxError("a sandbox's pipes stayed open after every process was killed")
    finally:
        for fd in own:
            os.close(fd)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    output = bytes(collector.output).decode("utf-8", errors="replace")
    notes = collector.notes()
    if command is None and not collector.ready and status != "timeout":
        status = "sandbox error"  # the child never said it was running: bwrap failed
        notes.insert(0, "the run did not start: " + escape(output.strip(), 300))
    records = {"": collector.answers_text()} if answers else collector.records
    return RunInfo(status, time.perf_counter() - start, output, notes, records)


def _in_sandbox(spec: bytes, notebook: bytes, results_w: int, info_w: int, own: list[int], *,
                time_limit: float, public_tests: Path | None, slot: int,
                command: list[str] | None) -> tuple[list[str], dict, str, list[int]]:
    """bwrap's command line, environment, folder and inherited descriptors. The files the
    sandbox reads (spec, notebook, passwd, group, seccomp filter, bwrap's own options) are
    memfds, added to ``own``."""
    uid = SANDBOX_UID_BASE + slot if os.geteuid() == 0 else USERNS_UID
    public_tests = Path(public_tests).resolve() if public_tests is not None else None
    fds = {"info": info_w, "spec": _memfd("spec", spec),
           "notebook": _memfd("notebook", notebook),
           "passwd": _memfd("passwd", f"sandbox:x:{uid}:{uid}::/tmp:/bin/false\n".encode()),
           "group": _memfd("group", f"sandbox:x:{uid}:\n".encode())}
    program = seccomp_program()
    if program is not None:
        fds["seccomp"] = _memfd("seccomp", program)
    own += [fd for key, fd in fds.items() if key != "info"]
    child = command or [_python(), "-I", "-c", CHILD, "/grading/spec.json", str(results_w)]
    options = bwrap_options(fds=fds, uid=uid, public_tests=public_tests)
    # options through a descriptor: the sandbox's /proc/1/cmdline shows no host path
    fds["args"] = _memfd("args", b"".join(os.fsencode(a) + b"\0" for a in options))
    own.append(fds["args"])
    argv = [shutil.which("bwrap") or "bwrap", "--args", str(fds["args"]), "--",
            *sandbox_command(uid, time_limit, child)]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return argv, env, "/", [results_w, *fds.values()]


def _unsandboxed(spec: bytes, notebook: bytes, results_w: int, workdir: Path, *,
                 time_limit: float, public_tests: Path | None,
                 command: list[str] | None) -> tuple[list[str], dict, str, list[int]]:
    """The same child started directly in ``workdir`` (trusted notebooks only): its command
    line, environment, folder and inherited descriptors."""
    (workdir / "submission.ipynb").write_bytes(notebook)
    (workdir / "spec.json").write_bytes(spec)
    if public_tests is not None and Path(public_tests).is_dir():
        shutil.copytree(public_tests, workdir / "tests")
    child = command or [_python(), "-I", "-c", CHILD, str(workdir / "spec.json"),
                        str(results_w)]
    prefix = limits(time_limit) if Path("/usr/bin/prlimit").exists() else []
    env = {**ENV, **passed_env(), "HOME": str(workdir), "TMPDIR": str(workdir),
           "MPLCONFIGDIR": str(workdir)}
    return prefix + child, env, str(workdir), [results_w]


def _kill(proc: subprocess.Popen, collector: Collector, sandboxed: bool) -> None:
    """Kill everything the run started and return once it is all gone."""
    if not sandboxed:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the session it started in (no PID namespace)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        return
    collector.info_done.wait(timeout=2.0)
    pidfd = collector.pidfd  # the namespace's PID 1, or None if it was gone before it was seen
    try:
        if pidfd is not None:  # when PID 1 dies, the kernel kills every process inside
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()  # bwrap itself (--die-with-parent kills PID 1 too)
        proc.wait()
        if pidfd is not None:
            gone = selectors.DefaultSelector()
            gone.register(pidfd, selectors.EVENT_READ)
            dead = gone.select(timeout=KILL_WAIT)
            gone.close()
            if not dead:
                raise SandboxError(f"sandbox PID 1 ({collector.child_pid}) still alive "
                                   f"{KILL_WAIT:g} s after SIGKILL")
    finally:
        if pidfd is not None:
            os.close(pidfd)
            collector.pidfd = None


@functools.lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """None when a sandbox can be created here, else what is missing (one paragraph)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ("bubblewrap is not installed (no `bwrap` on PATH): on Debian/Ubuntu, "
                "`apt-get install bubblewrap` (`make grade` and `make test` do it as root)")
    for tool in ("/usr/bin/prlimit", "/usr/bin/setpriv"):
        if not Path(tool).exists():
            return f"{tool} is missing (Debian package util-linux)"
    try:
        run = _spawn(b'{"cells": []}', [], time_limit=30, public_tests=None, sandboxed=True,
                     slot=0, command=[_python(), "-I", "-S", "-c", "print('sandbox-ok')"])
    except SandboxError as e:
        return str(e)
    if run.status == "ok" and "sandbox-ok" in run.output:
        return None
    who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    hint = ("as root, bwrap needs CAP_SYS_ADMIN (a container started without it cannot make "
            "namespaces)" if os.geteuid() == 0 else
            "bwrap needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone"
            "=1, user.max_user_namespaces > 0, no AppArmor restriction on bwrap)")
    return (f"bubblewrap cannot create its sandbox here (running as {who}; {hint}). bwrap "
            f"said: {escape(run.output.strip(), 400)}")


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)  # not inherited unless passed
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _python() -> str:
    return sys.executable
