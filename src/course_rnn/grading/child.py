"""The processes inside the two sandboxes of a run (:mod:`.runner`).

``answers`` (the submission's sandbox): run the course's provided code, then the submission's
cells as Jupyter reads them (IPython's own input transformation: ``%time`` runs its statement,
a cell magic other than ``%%time``/``%%capture`` is not Python, ``name?`` is help), reset
torch's global defaults, then run each probe with its reads of the answers recorded
(:class:`.answers.Recorder`), and write one line per probe: the answers it read, as data.
Submitted code can do anything to this process: it only changes its own answers.

``measure`` (the second, fresh sandbox: the course's code and those answers, nothing of the
submission's): run the provided code, then each probe with the recorded answers given back
(:class:`.answers.Replayer`), and write each probe's value as a JSON line. A value earns points
only if it equals the answer key, which neither process ever sees.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import sys

from .answers import error_name

GRADABLE_ERRORS = (ValueError, TypeError)  # a probe raising one of these reports it as a value
LINE_LIMIT = 4 * 2**20 - 4096  # the parent ignores longer result lines
CELL_ERRORS_SHOWN = 20  # cell errors reported one by one; the rest as a count


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

    torch.set_num_threads(1)
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    report = os.fdopen(results_fd, "w", buffering=1, encoding="utf-8")
    if spec.get("mode") == "measure":
        _measure(spec, report)
    else:
        _answers(spec, report)
    try:
        report.close()
    except (OSError, ValueError):
        pass


def _write(report, record: dict) -> None:
    try:
        line = json.dumps(record, ensure_ascii=True)
    except (TypeError, ValueError) as e:  # e.g. an int of more than 4300 digits
        line = json.dumps({"id": record.get("id"), "error": f"unreportable value: {e}"[:300]})
    if len(line) > LINE_LIMIT:
        line = json.dumps({"id": record.get("id"), "error": "value too large to report"})
    try:
        report.write(line + "\n")
    except (OSError, ValueError):
        pass  # the submission closed or replaced the pipe: nothing more can be reported


# -- the submission's sandbox ------------------------------------------------------------------
def _answers(spec: dict, report) -> None:
    from .answers import Recorder
    from .intake import as_ipython_runs

    namespace = {"__name__": "__main__", "grader": _NoGrader()}
    namespace["get_ipython"] = _Shell(namespace).get
    timeout = spec["cell_timeout"]
    for source in spec.get("provided", []):  # the course's code first: the student's wins
        _run_with_alarm(lambda s=source: _exec_cell(s, namespace), timeout)
    failed = 0
    for index, source in spec["cells"]:
        error = _run_with_alarm(
            lambda s=source: _exec_cell(as_ipython_runs(s), namespace), timeout)
        if error:
            failed += 1
            if failed <= CELL_ERRORS_SHOWN:
                _write(report, {"cell": index, "error": error})
    if failed > CELL_ERRORS_SHOWN:
        _write(report, {"cells_failed": failed - CELL_ERRORS_SHOWN})
    _run_with_alarm(_reset_torch, timeout)
    recorder = Recorder(namespace)
    recorder.install(spec.get("answers", []))
    for case in spec["cases"]:
        namespace["__answer__"] = recorder
        recorder.start()
        error = _run_with_alarm(lambda c=case["code"]: _exec_cell(c, namespace), timeout)
        events = recorder.events
        record = {"id": case["id"], "events": events}
        if error and not events:
            record["note"] = error
        _write(report, record)


def _reset_torch() -> None:
    """torch's global defaults as a fresh kernel has them, before the probes read answers."""
    import torch

    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_num_threads(1)
    if hasattr(torch, "set_default_device"):
        torch.set_default_device(None)
    torch.autograd.set_detect_anomaly(False)


class _Shell:
    """What ``get_ipython()`` gives a cell as IPython transformed it: ``%time``/``%%time`` and
    ``%timeit`` run their code, ``%%capture`` its body; every other magic, shell line and help
    request does nothing."""

    _TIMEIT_OPTIONS = re.compile(r"\s*(?:-[nrp]\s*\S+|-[qoct])(?=\s)")

    def __init__(self, namespace: dict):
        self.namespace = namespace

    def get(self):
        return self

    def run_line_magic(self, name, line, _stack_depth=1):
        from .intake import as_ipython_runs

        if name == "time":
            exec(compile(as_ipython_runs(line), "<cell>", "exec"), self.namespace)
        elif name == "timeit":
            while (match := self._TIMEIT_OPTIONS.match(line)) is not None:
                line = line[match.end():]
            exec(compile(as_ipython_runs(line.strip()), "<cell>", "exec"), self.namespace, {})
        return None

    def run_cell_magic(self, name, line, cell):
        from .intake import as_ipython_runs

        if name in ("time", "capture"):
            exec(compile(as_ipython_runs(cell), "<cell>", "exec"), self.namespace)
        return None

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return []

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


# -- the measuring sandbox -----------------------------------------------------------------------
def _measure(spec: dict, report) -> None:
    from .answers import Replayer
    from .values import to_value

    answers = _read_answers(spec.get("reported", ""), {c["id"] for c in spec["cases"]})
    namespace = {"__name__": "__main__", "grader": _NoGrader()}
    namespace["get_ipython"] = _Shell({}).get
    timeout = spec["cell_timeout"]
    for source in spec.get("provided", []):
        error = _run_with_alarm(lambda s=source: _exec_cell(s, namespace), timeout)
        if error:
            _write(report, {"cell": -1, "error": error})
    replayer = Replayer()
    replayer.install(namespace, spec.get("answers", []))
    for case in spec["cases"]:
        reported = answers.get(case["id"])
        if reported is None:
            _write(report, {"id": case["id"], "error": "no answer reported"})
            continue
        namespace["__answer__"] = replayer
        replayer.start(reported.get("events"))
        outcome: dict = {}

        def probe(code=case["code"], outcome=outcome):
            try:
                value = _eval_probe(code, namespace)
            except GRADABLE_ERRORS as e:  # "must raise ValueError" is an answer too
                outcome["value"] = {"t": "raised", "v": _error_name(e)}
                return
            outcome["value"] = to_value(value)

        error = _run_with_alarm(probe, timeout)
        if error and isinstance(reported.get("note"), str):
            error = f"{error} (the answers' run: {reported['note'][:150]})"
        _write(report, {"id": case["id"], **({"error": error} if error else outcome)})


def _read_answers(text: str, ids: set) -> dict:
    """The first well-formed line the submission's sandbox wrote for each case (parsed with
    bounds: it is that sandbox's output)."""
    from .safejson import parse_json

    found: dict = {}
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            record = parse_json(line, max_depth=128, max_digits=400)
        except ValueError:
            continue
        if (isinstance(record, dict) and isinstance(record.get("id"), str)
                and record["id"] in ids and isinstance(record.get("events"), list)):
            found.setdefault(record["id"], record)
    return found


class _NoGrader:
    """Stands in for ``otter.Notebook`` while grading: its checks carry no points."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class _CellTimeout(Exception):
    pass


def _run_with_alarm(function, seconds: float) -> str | None:
    """Run ``function``; return None, or a one-line description of what it raised. The timer
    is disarmed before any handler runs: an alarm that rings after the function ended (while
    an error is being described, say) is ignored, so that no alarm can land outside a ``try``."""
    armed = [True]

    def ring(signum, frame):
        if armed[0]:
            raise _CellTimeout(f"took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, seconds)
            function()
            return None
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as e:  # SystemExit and KeyboardInterrupt included: keep going
        armed[0] = False
        name = _error_name(e)
        try:
            return f"{name}: {e}"[:300]
        except BaseException:  # noqa: BLE001 – a __str__ that raises
            return name
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            signal.signal(signal.SIGALRM, previous)
        except (TypeError, ValueError):
            signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _error_name(error: BaseException) -> str:
    """The class name of ``error``, or a placeholder where reading it raises."""
    return error_name(error, fallback="<an exception whose name cannot be read>")


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
