"""Running one notebook and its probes in a bubblewrap sandbox; the parent's side.

The sandbox (``bwrap``, the sandbox behind Flatpak) sees, read-only: ``/usr``, the Python
installation and virtual environment, the ``course_rnn`` package directory (not the project
around it), the submission (``/tmp/submission.ipynb``), the public tests (``/tmp/tests``) and
the run's spec (``/grading/spec.json``: the code cells and the hidden probes, never the answer
key). It writes only to a private, size-capped tmpfs (``/tmp``, 64 MiB). It has its own PID,
network (loopback only), IPC, UTS and mount namespaces; it cannot see or signal the grader, its
siblings or anything else. Its processes run as an unprivileged user with no capabilities and
``no_new_privs``, with rlimits (address space, CPU seconds, file size, threads, open files, no
core dumps), and, on x86-64 and aarch64, a seccomp filter that allows threads but refuses
``fork``/``vfork``/process-creating ``clone``, ``unshare``, ``setns``, the keyring, ``bpf``,
``perf_event_open``, ``userfaultfd`` and ``io_uring``: a submission is exactly one process.

Two ways bwrap gets its namespaces:

- grader run by **root**: bwrap runs privileged (no user namespace is needed); the command is
  started through ``setpriv`` as a fresh uid (``SANDBOX_UID_BASE`` + slot, so that concurrent
  sandboxes never share an ``RLIMIT_NPROC`` count) with every capability dropped;
- grader run by **another user**: bwrap creates a user namespace (uid 1000 inside, the
  grader's uid outside) — this needs unprivileged user namespaces.

The parent never trusts the inside: it reads at most ``OUTPUT_CAP`` bytes of output and result
lines of at most ``LINE_CAP`` bytes each from a pipe, parses each with depth and number limits
and a fixed schema; a line that fails is ignored (its case scores 0). At the end (or at the time
limit) it kills the sandbox's PID-1 through a pidfd — the kernel then kills every process of the
namespace — and waits until that PID-1 is gone before reporting.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import re
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .safejson import escape, parse_json
from .values import is_valid

TIME_LIMIT = 60.0  # seconds of wall clock per submission, sandbox start-up included
CELL_TIMEOUT = 20.0  # per cell or probe, at most half the time limit (soft: SIGALRM)
OUTPUT_CAP = 64_000  # bytes of a submission's stdout/stderr kept for the report
LINE_CAP = 4 * 2**20  # bytes of one result line
RESULTS_CAP = 32 * 2**20  # bytes of accepted result lines
MAX_RECORDS = 10_000
NOTEBOOK_CAP = 20 * 2**20  # a submission larger than this is refused unread
CODE_CAP = 4 * 2**20  # characters of code cells run
FILE_SIZE_CAP = 32 * 2**20  # RLIMIT_FSIZE
TMPFS_SIZE = 64 * 2**20  # the sandbox's writable /tmp
SHM_SIZE = 2**20  # its /dev/shm
MEMORY_CAP = 4 * 2**30  # RLIMIT_AS of the (single) sandboxed process
THREADS_CAP = 32  # RLIMIT_NPROC: tasks of the sandbox user (threads; processes are refused)
OPEN_FILES_CAP = 256
SANDBOX_UID_BASE = 2_000_000_000  # root mode: sandbox slot k runs as this uid + k
USERNS_UID = 1000  # user-namespace mode: the uid inside
KILL_WAIT = 20.0  # seconds to wait for a killed sandbox to be gone (then: an error, loudly)

CHILD = "from course_rnn.grading.child import main; main()"
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
       "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp", "OMP_NUM_THREADS": "1",
       "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
       "PYTHONDONTWRITEBYTECODE": "1", "COURSE_RNN_PROGRESS": "0"}


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces here."""


class SandboxError(RuntimeError):
    """A sandbox did not die when killed: the grader stops rather than report on it."""


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


# =============================================================================================
# The notebook, read by the parent (it never runs it)
# =============================================================================================
OTTER_LINE = re.compile(r"^\s*(import otter\b.*|grader\s*=\s*otter\..*|grader\.\w+\(.*\)\s*)$")
MAGIC_LINE = re.compile(r"^\s*[%!]")


def notebook_cells(data: bytes) -> list[list]:
    """``[[cell index, source], ...]`` of a notebook's code cells, lines that talk to otter and
    IPython magics removed. Deeply nested or huge-number outputs and metadata are tolerated
    (they are not graded); bytes that are not UTF-8 become U+FFFD."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    nb = parse_json(text, max_depth=64, lenient=True)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no list of cells")
    out, size = [], 0
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        lines = [ln for ln in source.splitlines()
                 if not (OTTER_LINE.match(ln) or MAGIC_LINE.match(ln))]
        code = "\n".join(lines)
        size += len(code)
        if size > CODE_CAP:
            raise ValueError(f"more than {CODE_CAP} characters of code")
        out.append([i, code])
    return out


def notebook_assignment(data: bytes) -> str | None:
    """otter's ``metadata.otter.assignment_name``, if the notebook has one."""
    try:
        nb = parse_json(data.decode("utf-8", errors="replace").lstrip("\ufeff"), lenient=True)
        name = nb["metadata"]["otter"]["assignment_name"]
    except (ValueError, KeyError, TypeError):
        return None
    return name if isinstance(name, str) else None


# =============================================================================================
# The sandbox
# =============================================================================================
_SECCOMP_TABLES = {  # syscall numbers: fork, vfork, clone, clone3 and always-refused ones
    "x86_64": dict(arch=0xC000003E, fork=57, vfork=58, clone=56, clone3=435, x32=True,
                   refused=[272, 308, 248, 249, 250, 321, 298, 323, 425, 426, 427]),
    "aarch64": dict(arch=0xC00000B7, fork=None, vfork=None, clone=220, clone3=435, x32=False,
                    refused=[97, 268, 217, 218, 219, 280, 241, 282, 425, 426, 427]),
}


def seccomp_program(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp filter (bwrap ``--seccomp``): another architecture's syscalls kill
    the process; fork, vfork and clone without ``CLONE_THREAD`` fail with EPERM (threads are
    allowed); clone3 fails with ENOSYS (glibc then uses clone); unshare, setns, add_key,
    request_key, keyctl, bpf, perf_event_open, userfaultfd, io_uring_* fail with EPERM.
    None on an architecture without a table."""
    table = _SECCOMP_TABLES.get(machine or platform.machine())
    if table is None:
        return None
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    program: list[tuple] = [(ld, 0, 0, 4), (jeq, 1, 0, table["arch"]), (ret, 0, 0, 0x80000000),
                            (ld, 0, 0, 0)]
    if table["x32"]:
        program.append((jge, "eperm", 0, 0x40000000))
    for nr in (table["fork"], table["vfork"], *table["refused"]):
        if nr is not None:
            program.append((jeq, "eperm", 0, nr))
    program += [(jeq, "enosys", 0, table["clone3"]), (jeq, 0, "allow", table["clone"]),
                (ld, 0, 0, 16), (jset, "allow", "eperm", 0x00010000)]  # CLONE_THREAD
    labels = {"allow": len(program), "eperm": len(program) + 1, "enosys": len(program) + 2}
    program += [(ret, 0, 0, 0x7FFF0000), (ret, 0, 0, 0x00050000 | 1),
                (ret, 0, 0, 0x00050000 | 38)]
    code = b""
    for i, (op, jt, jf, k) in enumerate(program):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        code += struct.pack("<HBBI", op, jt, jf, k)
    return code


def _package_dir() -> Path:
    import course_rnn

    return Path(course_rnn.__file__).resolve().parent


def exposed_paths() -> list[Path]:
    """The host directories the sandbox sees, read-only (besides the per-run files)."""
    roots = [Path("/usr"), Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(),
             _package_dir()]
    keep: list[Path] = []
    for root in sorted(set(roots), key=lambda p: len(p.parts)):
        if not any(root == k or k in root.parents for k in keep):
            keep.append(root)
    return keep


def check_not_exposed(*secret: Path) -> None:
    """Refuse to grade when a folder that must stay hidden (the answer keys, the submissions)
    lies inside a directory the sandbox sees."""
    for path in secret:
        path = Path(path).resolve()
        for root in exposed_paths():
            if path == root or root in path.parents:
                raise SandboxUnavailable(f"{path} lies inside {root}, which every sandbox sees "
                                         "read-only: move the exercises or the submissions")


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)  # not inherited unless passed
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _bwrap_options(*, fds: dict[str, int], uid: int, public_tests: Path | None) -> list[str]:
    """bwrap's options: the namespaces, what the sandbox sees, its environment."""
    root = os.geteuid() == 0
    argv = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox",
            "--clearenv", "--info-fd", str(fds["info"])]
    if root:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add",
                 "CAP_SETPCAP"]
    else:
        argv += ["--unshare-user", "--uid", str(uid), "--gid", str(uid)]
    if "seccomp" in fds:
        argv += ["--seccomp", str(fds["seccomp"])]
    # The private /proc, /dev and tmpfs first, the host's folders after: a repository (and its
    # .venv) that lives under /tmp must not be hidden by the sandbox's own /tmp.
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp"]
    binds = exposed_paths()
    mounted = {Path("/"), Path("/tmp"), Path("/dev"), Path("/dev/shm"), Path("/proc")}
    parents = sorted({p for b in binds for p in b.parents if p not in mounted},
                     key=lambda p: len(p.parts))
    for d in [Path("/etc"), *parents]:
        argv += ["--perms", "0755", "--dir", str(d)]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir() and not any(b == host for b in binds):
            argv += ["--ro-bind", str(host), str(host)]
    for b in binds:
        argv += ["--ro-bind", str(b), str(b)]
    argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
             "--perms", "0444", "--ro-bind-data", str(fds["passwd"]), "/etc/passwd",
             "--perms", "0444", "--ro-bind-data", str(fds["group"]), "/etc/group"]
    if public_tests is not None and Path(public_tests).is_dir():
        argv += ["--ro-bind", str(public_tests), "/tmp/tests"]
    argv += ["--perms", "0444", "--ro-bind-data", str(fds["notebook"]), "/tmp/submission.ipynb",
             "--perms", "0755", "--dir", "/grading",
             "--perms", "0444", "--ro-bind-data", str(fds["spec"]), "/grading/spec.json",
             "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    for key, value in ENV.items():
        argv += ["--setenv", key, value]
    return argv


def _command(uid: int, time_limit: float, command: list[str]) -> list[str]:
    """What bwrap runs: as root, first ``setpriv`` to the sandbox's uid without capabilities;
    then ``prlimit`` with the limits; then ``command``."""
    drop = []
    if os.geteuid() == 0:
        drop = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    return drop + _limits(time_limit) + command


def _limits(time_limit: float) -> list[str]:
    cpu = int(time_limit) + 5
    return ["/usr/bin/prlimit", f"--as={MEMORY_CAP}:{MEMORY_CAP}", f"--cpu={cpu}:{cpu}",
            f"--fsize={FILE_SIZE_CAP}:{FILE_SIZE_CAP}", f"--nproc={THREADS_CAP}:{THREADS_CAP}",
            f"--nofile={OPEN_FILES_CAP}:{OPEN_FILES_CAP}", "--core=0:0", "--"]


def _python() -> str:
    return sys.executable


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


# =============================================================================================
# Running
# =============================================================================================
def run_notebook(data: bytes, cases, *, time_limit: float = TIME_LIMIT, sandboxed: bool = True,
                 public_tests: Path | None = None, slot: int = 0) -> RunInfo:
    """Run a notebook's code cells then ``cases`` (hidden probes); report what came back.
    ``sandboxed=False`` runs the same child without bubblewrap: for trusted notebooks only."""
    start = time.perf_counter()
    try:
        cells = notebook_cells(data)
    except ValueError as e:
        return RunInfo("unreadable", time.perf_counter() - start, notes=[escape(e, 200)])
    spec = {"cells": cells, "cases": [{"id": c.id, "code": c.code} for c in cases],
            "cell_timeout": min(CELL_TIMEOUT, time_limit / 2)}
    spec_bytes = json.dumps(spec, ensure_ascii=True).encode()
    return _spawn(spec_bytes, [c.id for c in cases], time_limit=time_limit, notebook=data,
                  public_tests=public_tests, sandboxed=sandboxed, slot=slot, start=start)


def _spawn(spec: bytes, ids: list[str], *, time_limit: float, public_tests: Path | None,
           sandboxed: bool, slot: int, notebook: bytes = b"", start: float | None = None,
           command: list[str] | None = None) -> RunInfo:
    start = time.perf_counter() if start is None else start
    results_r, results_w = os.pipe()
    output_r, output_w = os.pipe()
    info_r, info_w = os.pipe()
    own = [results_w, output_w, info_w]
    workdir = None
    try:
        if sandboxed:
            uid = SANDBOX_UID_BASE + slot if os.geteuid() == 0 else USERNS_UID
            public_tests = Path(public_tests).resolve() if public_tests is not None else None
            fds = {"info": info_w, "spec": _memfd("spec", spec),
                   "notebook": _memfd("notebook", notebook),
                   "passwd": _memfd("passwd", f"sandbox:x:{uid}:{uid}::/tmp:/bin/false\n"
                                    .encode()),
                   "group": _memfd("group", f"sandbox:x:{uid}:\n".encode())}
            program = seccomp_program()
            if program is not None:
                fds["seccomp"] = _memfd("seccomp", program)
            own += [fd for key, fd in fds.items() if key != "info"]
            child = command or [_python(), "-I", "-c", CHILD, "/grading/spec.json",
                                str(results_w)]
            options = _bwrap_options(fds=fds, uid=uid, public_tests=public_tests)
            # options through a descriptor: the sandbox's /proc/1/cmdline shows no host path
            fds["args"] = _memfd("args", b"".join(os.fsencode(a) + b"\0" for a in options))
            own.append(fds["args"])
            argv = [shutil.which("bwrap") or "bwrap", "--args", str(fds["args"]), "--",
                    *_command(uid, time_limit, child)]
            env, cwd = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, "/"
            passed = [results_w, *fds.values()]
        else:
            workdir = tempfile.mkdtemp(prefix="grade-unsafe-")
            Path(workdir, "submission.ipynb").write_bytes(notebook)
            Path(workdir, "spec.json").write_bytes(spec)
            if public_tests is not None and Path(public_tests).is_dir():
                shutil.copytree(public_tests, Path(workdir, "tests"))
            child = command or [_python(), "-I", "-c", CHILD, str(Path(workdir, "spec.json")),
                                str(results_w)]
            prefix = _limits(time_limit) if Path("/usr/bin/prlimit").exists() else []
            argv = prefix + child
            env, cwd = {**ENV, "HOME": workdir, "TMPDIR": workdir, "MPLCONFIGDIR": workdir}, \
                workdir
            passed = [results_w]
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
        collector = _Collector(output_r, results_r, info_r if sandboxed else None, set(ids),
                               proc.pid)
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
    return RunInfo(status, time.perf_counter() - start, output, notes, collector.records)


def _kill(proc: subprocess.Popen, collector: _Collector, sandboxed: bool) -> None:
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


def _parent_of(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^PPid:\s*(\d+)", status, re.M)
    return int(match.group(1)) if match else None


class _Collector(threading.Thread):
    """Reads the sandbox's output (keeps the start), its result lines (bounded, parsed
    strictly) and bwrap's info (PID 1's pid) until every writer is gone."""

    def __init__(self, output_fd: int, results_fd: int, info_fd: int | None, ids: set[str],
                 bwrap_pid: int):
        super().__init__(daemon=True)
        self.bwrap_pid = bwrap_pid
        self.pidfd: int | None = None
        self.fds = {output_fd: "output", results_fd: "results"}
        if info_fd is not None:
            self.fds[info_fd] = "info"
        self.ids = ids
        self.output = bytearray()
        self.records: dict[str, dict] = {}
        self.cell_errors: list[str] = []
        self.malformed = self.dropped = self.accepted_bytes = 0
        self.partial = bytearray()
        self.skipping = False
        self.ready = False
        self.info = bytearray()
        self.child_pid: int | None = None
        self.info_done = threading.Event()
        if info_fd is None:
            self.info_done.set()

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        for fd in self.fds:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        try:
            while selector.get_map():
                for key, _ in selector.select():
                    try:
                        data = os.read(key.fd, 1 << 16)
                    except BlockingIOError:
                        continue
                    kind = self.fds[key.fd]
                    if not data:
                        selector.unregister(key.fd)
                        os.close(key.fd)
                        if kind == "results" and self.partial and not self.skipping:
                            self._line(bytes(self.partial))
                        if kind == "info":
                            self.info_done.set()
                        continue
                    if kind == "output":
                        if len(self.output) < OUTPUT_CAP:
                            self.output += data[: OUTPUT_CAP - len(self.output)]
                    elif kind == "results":
                        self._results(data)
                    else:
                        self._info(data)
        finally:
            self.info_done.set()
            selector.close()

    def _info(self, data: bytes) -> None:
        self.info += data[:4096]
        match = re.search(rb'"child-pid"\s*:\s*(\d+)', self.info)
        if match and self.child_pid is None:
            self.child_pid = int(match.group(1))
            try:  # held from now on, so that PID 1 can be killed and awaited without a race
                pidfd = os.pidfd_open(self.child_pid)
            except OSError:  # already gone (and reaped by bwrap): nothing is left inside
                pidfd = None
            if pidfd is not None and _parent_of(self.child_pid) != self.bwrap_pid:
                os.close(pidfd)  # that pid was reused by an unrelated process
                pidfd = None
            self.pidfd = pidfd
            self.info_done.set()

    def _results(self, data: bytes) -> None:
        while data:
            newline = data.find(b"\n")
            chunk = data if newline < 0 else data[:newline]
            if not self.skipping:
                if len(self.partial) + len(chunk) > LINE_CAP:
                    self.skipping, self.malformed = True, self.malformed + 1
                    self.partial.clear()
                else:
                    self.partial += chunk
            if newline < 0:
                return
            if not self.skipping:
                self._line(bytes(self.partial))
            self.partial.clear()
            self.skipping = False
            data = data[newline + 1:]

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        if len(self.records) >= MAX_RECORDS or self.accepted_bytes + len(line) > RESULTS_CAP:
            self.dropped += 1
            return
        try:
            record = parse_json(line.decode("utf-8"), max_depth=2 * 8 + 8, max_digits=400)
        except ValueError:  # UnicodeDecodeError and JSONLimitError included
            self.malformed += 1
            return
        if not self._accept(record):
            self.malformed += 1
            return
        self.accepted_bytes += len(line)

    def _accept(self, record) -> bool:
        if not isinstance(record, dict):
            return False
        if record == {"ready": True} and not self.ready and not self.records:
            self.ready = True  # the child's first line, before any submitted code runs
            return True
        if set(record) == {"cell", "error"}:
            if not isinstance(record["cell"], int) or not isinstance(record["error"], str):
                return False
            if len(self.cell_errors) < 20:
                self.cell_errors.append(f"cell {record['cell']}: {escape(record['error'], 150)}")
            return True
        case = record.get("id")
        if not isinstance(case, str) or case not in self.ids or len(record) != 2:
            return False
        if "value" in record and is_valid(record["value"]):
            self.records.setdefault(case, {"value": record["value"]})
            return True
        if isinstance(record.get("error"), str):
            self.records.setdefault(case, {"error": escape(record["error"], 200)})
            return True
        return False

    def notes(self) -> list[str]:
        notes = list(self.cell_errors)
        if self.malformed:
            notes.append(f"{self.malformed} malformed result line(s) ignored")
        if self.dropped:
            notes.append(f"{self.dropped} result line(s) beyond the cap ignored")
        return notes
