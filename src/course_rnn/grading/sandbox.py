"""What a sandbox is: the bubblewrap options, the seccomp filter and the limits of one run.

The sandbox (``bwrap``, the sandbox behind Flatpak) sees, read-only: ``/usr``, the Python
installation and virtual environment, the ``course_rnn`` package directory (not the project
around it), the submission (``/tmp/submission.ipynb``), the public tests (``/tmp/tests``) and
the run's spec (``/grading/spec.json``: the submission's sandbox gets the code cells, the
provided code and the probes; the measuring sandbox the provided code, the probes and the
answers the first reported, and neither the notebook nor the public tests; never the answer
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

Starting, watching and killing a sandbox is :mod:`.runner`'s job; this module only says what
one is.
"""

from __future__ import annotations

import os
import platform
import re
import struct
import sys
from pathlib import Path

FILE_SIZE_CAP = 32 * 2**20  # RLIMIT_FSIZE
TMPFS_SIZE = 64 * 2**20  # the sandbox's writable /tmp
SHM_SIZE = 2**20  # its /dev/shm
MEMORY_CAP = 4 * 2**30  # RLIMIT_AS of the (single) sandboxed process
THREADS_CAP = 32  # RLIMIT_NPROC: tasks of the sandbox user (threads; processes are refused)
OPEN_FILES_CAP = 256
SANDBOX_UID_BASE = 2_000_000_000  # root mode: sandbox slot k runs as this uid + k
USERNS_UID = 1000  # user-namespace mode: the uid inside

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
       "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp", "OMP_NUM_THREADS": "1",
       "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
       "PYTHONDONTWRITEBYTECODE": "1", "COURSE_RNN_PROGRESS": "0"}
# The only variables of the grader's own environment that reach a run, when set to a plain word:
# ATEN_CPU_CAPABILITY picks PyTorch's CPU kernel path (default, avx2, avx512…), so that an
# instructor can check that the answer keys hold on another path than this machine's own
# (tests/exercises/test_kernel_paths.py grades every reference with ATEN_CPU_CAPABILITY=default).
PASSED_ENV = ("ATEN_CPU_CAPABILITY",)
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_]{1,32}")


def passed_env(environ=None) -> dict[str, str]:
    """The variables of ``PASSED_ENV`` set in ``environ`` (default ``os.environ``) to a plain
    word (letters, digits, ``_``; anything else is not passed)."""
    environ = os.environ if environ is None else environ
    return {k: environ[k] for k in PASSED_ENV
            if _PLAIN_WORD.fullmatch(environ.get(k, "") or "")}


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces here."""


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


def bwrap_options(*, fds: dict[str, int], uid: int, public_tests: Path | None) -> list[str]:
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
    for key, value in {**ENV, **passed_env()}.items():
        argv += ["--setenv", key, value]
    return argv


def sandbox_command(uid: int, time_limit: float, command: list[str]) -> list[str]:
    """What bwrap runs: as root, first ``setpriv`` to the sandbox's uid without capabilities;
    then ``prlimit`` with the limits; then ``command``."""
    drop = []
    if os.geteuid() == 0:
        drop = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    return drop + limits(time_limit) + command


def limits(time_limit: float) -> list[str]:
    cpu = int(time_limit) + 5
    return ["/usr/bin/prlimit", f"--as={MEMORY_CAP}:{MEMORY_CAP}", f"--cpu={cpu}:{cpu}",
            f"--fsize={FILE_SIZE_CAP}:{FILE_SIZE_CAP}", f"--nproc={THREADS_CAP}:{THREADS_CAP}",
            f"--nofile={OPEN_FILES_CAP}:{OPEN_FILES_CAP}", "--core=0:0", "--"]
