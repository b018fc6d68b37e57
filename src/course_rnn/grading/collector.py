"""The parent's side of a run's pipes: what came out of a sandbox, read without trusting it.

The parent reads at most ``OUTPUT_CAP`` bytes of output and result lines of at most ``LINE_CAP``
bytes each (``RESULTS_CAP`` in all, ``MAX_RECORDS`` records) from a pipe — less when the key is
known: :func:`report_caps` sizes both to the largest value the key holds — parses each with depth
and number limits (:func:`.safejson.parse_json`) into a fixed schema; a line that fails is
ignored (its case scores 0). From the submission's sandbox (``answers=True``) it keeps each
case's line as raw bytes, unparsed, for the measuring sandbox (:mod:`.child`), and reads only
the short cell-error lines, which are counted apart from the results cap (the first 20 kept,
then a count), so that no number of failing cells can push an answer out. From bwrap's info
pipe it learns the sandbox's PID 1 and holds it through a pidfd at once, so that
:mod:`.runner` can kill it and wait for it without a race.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import threading
from pathlib import Path

from .safejson import escape, parse_json
from .values import is_valid

OUTPUT_CAP = 64_000  # bytes of a submission's stdout/stderr kept for the report
LINE_CAP = 4 * 2**20  # bytes of one result line
RESULTS_CAP = 32 * 2**20  # bytes of accepted result lines
MAX_RECORDS = 10_000


def report_caps(expected: dict) -> dict[str, int]:
    """Result-line caps for an assignment whose key is ``expected``: a line may be 16 times
    the key's largest (at least 64 KiB; a value much longer than any key's cannot match it),
    and all lines together that times the number of cases and 4 (cell errors). Bounds what
    the parent holds of one submission (≈ 10 bytes of Python objects per byte of JSON)."""
    largest = max((len(json.dumps({"id": case, "value": value}))
                   for case, value in expected.items()), default=0)
    line = min(LINE_CAP, max(64 * 2**10, 16 * largest))
    return {"line_cap": line, "results_cap": min(RESULTS_CAP, line * (len(expected) + 4))}


class Collector(threading.Thread):
    """Reads the sandbox's output (keeps the start), its result lines (bounded, parsed
    strictly) and bwrap's info (PID 1's pid) until every writer is gone."""

    def __init__(self, output_fd: int, results_fd: int, info_fd: int | None, ids: set[str],
                 bwrap_pid: int, *, line_cap: int = LINE_CAP, results_cap: int = RESULTS_CAP,
                 answers: bool = False):
        super().__init__(daemon=True)
        self.answers = answers
        self.answer_lines: list[bytes] = []
        self.more_cell_errors = 0
        self.line_cap, self.results_cap = min(line_cap, LINE_CAP), min(results_cap, RESULTS_CAP)
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
                if len(self.partial) + len(chunk) > self.line_cap:
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
        if self.answers and self._answer_line(line):
            return
        if (len(self.records) >= MAX_RECORDS
                or self.accepted_bytes + len(line) > self.results_cap):
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

    def _answer_line(self, line: bytes) -> bool:
        """A line of the submission's sandbox: a case's answers are kept raw (bounded, for the
        measuring sandbox to parse), a short line is read here (cell errors, ``ready``).
        False: read it as any other line."""
        stripped = line.lstrip()
        if stripped.startswith(b'{"id"'):
            if (len(self.answer_lines) >= MAX_RECORDS
                    or self.accepted_bytes + len(line) > self.results_cap):
                self.dropped += 1
            else:
                self.answer_lines.append(line)
                self.accepted_bytes += len(line)
            return True
        if len(line) > 4096:
            self.malformed += 1
            return True
        try:
            record = parse_json(line.decode("utf-8"), max_depth=4, max_digits=30)
        except ValueError:
            self.malformed += 1
            return True
        if isinstance(record, dict) and set(record) == {"cells_failed"}:
            count = record["cells_failed"]
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                self.more_cell_errors += count
                return True
        if isinstance(record, dict) and set(record) == {"cell", "error"}:
            if len(self.cell_errors) >= 20:  # cell errors never count against the results cap
                self.more_cell_errors += 1
                return True
            if self._accept(record):
                return True
        if record == {"ready": True} and not self.ready:
            self.ready = True
            return True
        self.malformed += 1
        return True

    def answers_text(self) -> str:
        """The cases' lines as the submission's sandbox wrote them, for the measuring one."""
        return b"\n".join(self.answer_lines).decode("utf-8", errors="replace")

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
                where = ("the provided code, in the measuring sandbox" if record["cell"] == -1
                         else f"cell {record['cell']}")
                self.cell_errors.append(f"{where}: {escape(record['error'], 150)}")
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
        if self.more_cell_errors:
            notes.append(f"{self.more_cell_errors} more cell error(s)")
        if self.malformed:
            notes.append(f"{self.malformed} malformed result line(s) ignored")
        if self.dropped:
            notes.append(f"{self.dropped} result line(s) beyond the cap ignored")
        return notes


def _parent_of(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^PPid:\s*(\d+)", status, re.M)
    return int(match.group(1)) if match else None
