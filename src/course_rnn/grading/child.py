"""The process inside the sandbox: run a submission's cells, then evaluate the hidden probes.

Everything it reports is data for the parent to check, never a verdict: a value earns points
only if it equals the answer key, which this process never sees. Submitted code can do anything
to this process (rewrite these functions, write to the results pipe, exit): it only changes what
is reported, and the sandbox bounds what it can reach.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import sys

GRADABLE_ERRORS = (ValueError, TypeError)  # a probe raising one of these reports it as a value
LINE_LIMIT = 4 * 2**20 - 4096  # the parent ignores longer result lines


def main() -> None:
    spec_path, results_fd = sys.argv[1], int(sys.argv[2])
    os.closerange(3, results_fd)  # nothing but stdio and the results pipe stays open
    os.closerange(results_fd + 1, 65536)
    os.write(results_fd, b'{"ready": true}\n')  # the sandbox started
    import numpy  # noqa: F401  the scientific stack is loaded before any submitted code
    import torch

    import course_rnn.languages.dyck  # noqa: F401
    import course_rnn.languages.tabor  # noqa: F401
    import course_rnn.models.lstm  # noqa: F401
    import course_rnn.models.urn  # noqa: F401

    from .values import to_value

    torch.set_num_threads(1)
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    report = os.fdopen(results_fd, "w", buffering=1, encoding="utf-8")

    def send(record: dict) -> None:
        try:
            line = json.dumps(record, ensure_ascii=True)
        except (TypeError, ValueError) as e:  # e.g. an int of more than 4300 digits
            line = json.dumps({"id": record["id"], "error": f"unreportable value: {e}"[:300]})
        if len(line) > LINE_LIMIT:
            line = json.dumps({"id": record["id"], "error": "value too large to report"})
        try:
            report.write(line + "\n")
        except (OSError, ValueError):
            pass  # the submission closed or replaced the pipe: nothing more can be reported

    namespace = {"__name__": "__main__", "grader": _NoGrader()}
    for index, source in spec["cells"]:
        error = _run_with_alarm(lambda s=source: _exec_cell(s, namespace), spec["cell_timeout"])
        if error:
            try:
                report.write(json.dumps({"cell": index, "error": error}) + "\n")
            except (OSError, ValueError):
                pass
    for source in spec.get("helpers", []):  # the key's copy of the course's own cells
        error = _run_with_alarm(lambda s=source: _exec_cell(s, namespace), spec["cell_timeout"])
        if error:
            try:
                report.write(json.dumps({"cell": -1, "error": error}) + "\n")
            except (OSError, ValueError):
                pass
    for case in spec["cases"]:
        outcome: dict = {}

        def probe(code=case["code"], outcome=outcome):
            try:
                value = _eval_probe(code, namespace)
            except GRADABLE_ERRORS as e:  # "must raise ValueError" is an answer too
                outcome["value"] = {"t": "raised", "v": _error_name(e)}
                return
            outcome["value"] = to_value(value)

        error = _run_with_alarm(probe, spec["cell_timeout"])
        send({"id": case["id"], **({"error": error} if error else outcome)})
    report.close()


class _NoGrader:
    """Stands in for ``otter.Notebook`` while grading: its checks carry no points."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class _CellTimeout(Exception):
    pass


def _run_with_alarm(function, seconds: float) -> str | None:
    """Run ``function``; return None, or a one-line description of what it raised."""

    def ring(signum, frame):
        raise _CellTimeout(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        function()
        return None
    except BaseException as e:  # SystemExit and KeyboardInterrupt included: keep going
        name = _error_name(e)
        try:
            return f"{name}: {e}"[:300]
        except BaseException:  # noqa: BLE001 – a __str__ that raises
            return name
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _error_name(error: BaseException) -> str:
    """The class name of ``error``, or a placeholder where reading it raises (a metaclass can
    make ``__name__`` anything, even a property that raises)."""
    try:
        name = type(error).__name__
        if isinstance(name, str):
            return str.__str__(name)[:100]
    except BaseException:  # noqa: BLE001
        pass
    return "<an exception whose name cannot be read>"


def _exec_cell(source: str, namespace: dict) -> None:
    exec(compile(source, "<cell>", "exec"), namespace)


def _eval_probe(code: str, namespace: dict):
    """Run a probe like a cell and return the value of its last expression."""
    tree = ast.parse(code)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise RuntimeError("a hidden test case must end with an expression")
    last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<probe>", "exec"), namespace)
    return eval(compile(last, "<probe>", "eval"), namespace)
