"""A hostile class against the grader: score faking, sandbox escapes, stopping or sabotaging
the batch, correct work lost, and what is left behind. Every submission here was graded in the
one batch of ``conftest.batch`` (the real command, two at a time), next to the honest ones of
``test_grading.py``; the few cases that must run alone come last.
"""

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from course_rnn.grading import escape, grade_folder, parse_json, read_submission, write_csv
from course_rnn.grading.batch import Result, shown_name
from course_rnn.grading.collector import Collector
from course_rnn.grading.runner import RunInfo, sandbox_problem
from course_rnn.grading.safejson import JSONLimitError

from .conftest import (
    ALIKE_NAMES,
    EXERCISES,
    NEWLINE_NAME,
    OWNING_THE_PROCESS,
    REFUSED,
    TIME_LIMIT,
    full,
    points,
    read_key,
    row,
    run_solution,
    sandbox_processes,
    total,
)


def test_bubblewrap_works_here():
    """Everything below needs the sandbox; say why, loudly, where it cannot be made."""
    assert sandbox_problem() is None, sandbox_problem()


# -- score faking: blank answers underneath, all must score 0 ---------------------------------
FAKES = ("fake_key_ch03_lstm_cell", "fake_solution_ch03_lstm_cell", "fake_sibling_ch03_lstm_cell",
         "fake_raise_ch05_pdda", "fake_typeerror_ch02_srn",
         "fake_forge_ch03_lstm_cell", "fake_left_behind_ch03_lstm_cell", "cheater_ch03_lstm_cell",
         "fake_helpers_ch03_lstm_cell",  # rebinds the notebook's helpers: restored before probes
         "fake_nan_ch03_lstm_cell",  # NaN weights of the right shapes
         # blank answers, fake helpers, and each way the old grader let a submission own the
         # process that evaluated its probes (issue 42): patched modules, the child's code,
         # its frames, compile, a profile hook, the library, __del__, __getitem__, the probes
         # read from the spec and reported first
         *(f"fake_owner_{attack}_ch03_lstm_cell" for attack in OWNING_THE_PROCESS))


@pytest.mark.parametrize("stem", FAKES)
def test_blank_based_attacks_score_zero(batch, stem):
    assert total(batch, stem) == 0, row(batch, stem)


def test_the_answer_key_solutions_and_classmates_are_not_there(batch):
    assert "key-found=False" in row(batch, "fake_key_ch03_lstm_cell")["notes"]
    assert "ran=[]" in row(batch, "fake_solution_ch03_lstm_cell")["notes"]
    assert "ran=[]" in row(batch, "fake_sibling_ch03_lstm_cell")["notes"]


def test_raising_everywhere_earns_no_error_case(batch):
    notes = row(batch, "fake_raise_ch05_pdda")["notes"]
    assert ("q1/4: raised ValueError, but no case of q1 that expects a computed value passed"
            in notes)


def test_processes_cannot_be_started_so_nothing_is_left_behind(batch):
    notes = row(batch, "fake_left_behind_ch03_lstm_cell")["notes"]
    assert notes.count("PermissionError") >= 4, notes  # Popen, fork, posix_spawn, spawn
    assert "raw clone refused" in notes
    assert batch.leftovers == [], batch.leftovers
    assert sandbox_processes() == []


# -- escapes: correct answers underneath, all must keep full marks ---------------------------
def test_every_way_out_fails_and_the_work_still_counts(batch):
    stem = "escape_ch03_lstm_cell"
    assert total(batch, stem) == full(batch, stem)
    assert list(batch.outside.iterdir()) == []
    assert not Path("/tmp", batch.mark).exists()
    assert not any(batch.mark in name for name in batch.shm_new)
    assert batch.received == []  # UDP datagram, TCP and abstract-socket connections
    assert not batch.keys_changed


def test_nothing_is_visible_or_possible_that_should_not_be(batch):
    stem = "explorer_ch03_lstm_cell"
    assert "leaks=[]" in row(batch, stem)["notes"], row(batch, stem)["notes"]
    assert total(batch, stem) == full(batch, stem)


def test_the_graders_environment_never_reaches_the_csv(batch):
    assert batch.secret not in batch.csv_text
    assert "COURSE_RNN_TEST_SECRET" not in batch.csv_text
    assert "env={" in row(batch, "escape_ch03_lstm_cell")["notes"]  # the attempt was made


# -- stopping or sabotaging the batch ---------------------------------------------------------
def test_signals_reach_nothing_outside_the_sandbox(batch):
    """The killer signalled every pid it could name, then itself: only it died."""
    assert row(batch, "killer_ch03_lstm_cell")["status"].startswith("exited")
    assert total(batch, "reference_ch03_lstm_cell") == 10


def test_files_that_are_not_regular_files_are_refused_unread(batch):
    for stem in REFUSED + tuple(batch.devices):
        shown = escape(stem + ".ipynb")
        r = batch.rows[shown]
        assert (r["status"], r["total"]) == ("refused", "0"), r
    assert "FIFO" in row(batch, "fifo_ch03_lstm_cell")["notes"]
    assert "symlink" in row(batch, "zero_ch03_lstm_cell")["notes"]
    assert "larger than" in row(batch, "big_ch03_lstm_cell")["notes"]


def test_a_notebook_of_deep_nesting_is_unreadable_not_fatal(batch):
    assert row(batch, "nested_only_ch03_lstm_cell")["status"] == "unreadable"


def test_memory_disk_process_and_thread_exhaustion_cost_only_their_cells(batch):
    stem = "resources_ch03_lstm_cell"
    assert total(batch, stem) == full(batch, stem)
    notes = row(batch, stem)["notes"]
    assert "MemoryError" in notes and "PermissionError" in notes and "No space" in notes


def test_infinite_loop_in_a_cell_is_interrupted_and_the_rest_scored(batch):
    assert total(batch, "loop_ch03_lstm_cell") == full(batch, "loop_ch03_lstm_cell")


def test_loop_that_ignores_interrupts_hits_the_time_limit(batch):
    r = row(batch, "stubborn_loop_ch03_lstm_cell")
    assert r["status"] == "timeout" and float(r["total"]) == 0
    assert float(r["seconds"]) < TIME_LIMIT + 10


def test_sys_exit_does_not_stop_the_notebook(batch):
    assert total(batch, "sysexit_ch03_lstm_cell") == full(batch, "sysexit_ch03_lstm_cell")


def test_os_exit_is_scored_zero_not_crashed_on(batch):
    assert total(batch, "osexit_ch03_lstm_cell") == 0


def test_file_names_never_forge_a_line(batch):
    lines = batch.csv_text.splitlines()
    assert len(lines) == len(batch.rows) + 1 == len(list(csv.reader(io.StringIO(batch.csv_text))))
    assert len(batch.rows) == sum(name.endswith(b".ipynb") for name in batch.names)
    forged = escape(NEWLINE_NAME)
    assert "\n" not in forged and float(batch.rows[forged]["total"]) == 0
    assert total(batch, "caf\\xe9_ch03_lstm_cell") == 10  # a non-UTF-8 byte, escaped
    assert "'=HYPERLINK(1)_ch03_lstm_cell.ipynb" in batch.rows  # no spreadsheet formula
    summary = batch.summary.splitlines()
    assert len(summary) == len(batch.rows) + 1 and summary[-1].startswith("wrote ")


def test_names_that_print_alike_get_rows_told_apart(batch):
    """NFC and NFD "café", a Cyrillic "е" in "reference": each row shows its code points."""
    shown = {name: shown_name(name) for name in ALIKE_NAMES}
    assert len(set(shown.values())) == len(shown)
    assert shown["caf\u00e9_ch03_lstm_cell.ipynb"].endswith("[caf\\xe9_ch03_lstm_cell.ipynb]")
    assert shown["cafe\u0301_ch03_lstm_cell.ipynb"].endswith("[cafe\\u0301_ch03_lstm_cell.ipynb]")
    assert "[r\\u0435ference" in shown["r\u0435ference_ch03_lstm_cell.ipynb"]
    totals = {name: float(batch.rows[s]["total"]) for name, s in shown.items()}
    assert list(totals.values()) == [10.0, 0.0, 0.0], totals  # the solution, two blanks


# -- correct work that must not be lost ------------------------------------------------------
@pytest.mark.parametrize("stem", [
    "lost_garbage_ch03_lstm_cell",  # malformed, deep, huge-number lines in its results pipe
    "lost_output_ch03_lstm_cell",  # prints 40 MB, a 10^6-deep line, a 50,000-digit number
    "lost_odd_json_ch03_lstm_cell",  # 100,000-deep JSON in metadata and outputs, a 50,000-digit
    # execution count, bytes that are not UTF-8
    "lost_nameless_error_ch03_lstm_cell",  # raises an exception whose class name cannot be read
    "lost_widgets_ch03_lstm_cell",  # 19 MB of widget state: parsed once, before its time runs
    "lost_jupyter_ch03_lstm_cell",  # %time binds an answer; %%writefile, %%script drafts; name?
    "lost_own_definition_ch03_lstm_cell",  # its own later anbn_states, as Jupyter runs it
    "lost_timed_float64_ch08_stack_reverser",  # %time fit(...) after a float64 default dtype
    "lost_recursion_ch03_lstm_cell",  # a recursion a million deep in a cell
    "lost_failing_cells_ch03_lstm_cell",  # 10,000 failing cells
    "reference_ch03_lstm_cell",
])
def test_correct_work_is_never_lost(batch, stem):
    assert total(batch, stem) == full(batch, stem) == 10, row(batch, stem)["notes"]
    assert row(batch, stem)["status"] == "ok", row(batch, stem)


def test_failing_cells_are_counted_apart_from_the_answers(batch):
    notes = row(batch, "lost_failing_cells_ch03_lstm_cell")["notes"]
    assert "9980 more cell error(s)" in notes, notes
    assert notes.count("ZeroDivisionError") == 20 or notes.endswith("…"), notes


def test_malformed_result_lines_are_counted_and_ignored(batch):
    assert "malformed result line(s) ignored" in row(batch, "lost_garbage_ch03_lstm_cell")["notes"]


def test_a_malformed_line_costs_only_its_case():
    c = Collector(0, 1, None, {"q1/1", "q1/2", "q1/3"}, bwrap_pid=0)
    c._results(b'{"id": "q1/1", "value": {"t": "int", "v": 1}}\n'
               b'{"id": "q1/2", "value": {"t": "int", "v": ' + b"9" * 5000 + b"}}\n"
               + b"x" * (5 * 2**20) + b"\n"
               b'{"id": "q1/3", "value": {"t": "array", "dtype": "float", "shape": [1], '
               b'"data": [0.5]}}\n')
    assert set(c.records) == {"q1/1", "q1/3"} and c.malformed == 2


def test_a_huge_number_or_nan_reported_for_a_float_case_costs_only_that_case(batch):
    """10**350 and NaN reported as the answers of q3/2 and q3/3: those cases score 0, the rest
    of the submission and the batch are graded (the comparison once raised OverflowError)."""
    assert points(batch, "lost_huge_number_ch03_lstm_cell") == {"q1": 4.0, "q2": 3.0, "q3": 1.0}
    assert row(batch, "lost_huge_number_ch03_lstm_cell")["status"] == "ok"


# -- the CSV and the host afterwards ----------------------------------------------------------
def test_nothing_outlives_the_grader(batch):
    assert batch.leftovers == []
    assert sandbox_processes() == []


def test_csv_is_complete_and_unchanged_after_exit(batch):
    time.sleep(max(0.0, batch.finished + 6 - time.time()))  # the left-behind payload waits 4 s
    assert batch.csv_path.read_bytes() == batch.csv_bytes
    assert sorted(os.listdir(batch.csv_path.parent)) == ["grades.csv"]  # no temporary file


# -- cases that run alone --------------------------------------------------------------------
def test_without_bubblewrap_grade_refuses_and_says_what_is_missing(tmp_path):
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "a_ch03_lstm_cell.ipynb").write_text("{}")
    done = subprocess.run(
        [sys.executable, "-m", "course_rnn.grading", "grade", str(tmp_path / "subs"), "--csv",
         str(tmp_path / "grades.csv"), "--exercises", str(EXERCISES)], capture_output=True,
        text=True, env={**os.environ, "PATH": str(tmp_path)})
    assert done.returncode == 2
    assert "bubblewrap" in done.stderr and "--unsafe-no-sandbox" in done.stderr
    assert not (tmp_path / "grades.csv").exists()


def test_where_bwrap_cannot_make_namespaces_grade_refuses_and_quotes_it(tmp_path):
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "a_ch03_lstm_cell.ipynb").write_text("{}")
    done = subprocess.run(
        [sys.executable, "-m", "course_rnn.grading", "grade", str(tmp_path / "subs"), "--csv",
         str(tmp_path / "grades.csv"), "--exercises", str(EXERCISES)], capture_output=True,
        text=True, env={**os.environ, "PATH": f"{fake.parent}:/usr/bin:/bin"})
    assert done.returncode == 2
    assert "cannot create its sandbox" in done.stderr
    assert "No permissions to create new namespace" in done.stderr
    assert not (tmp_path / "grades.csv").exists()


@pytest.mark.slow
def test_the_attacks_are_real_they_win_without_the_sandbox(tmp_path):
    """Control: the same key-reading and solution-running notebooks, graded with
    ``--unsafe-no-sandbox``, get full marks. The sandbox is what stops them."""
    from types import SimpleNamespace

    ctx = SimpleNamespace(folder=tmp_path)
    for stem, nb in {"key_ch03_lstm_cell": read_key(ctx),
                     "solution_ch03_lstm_cell": run_solution(ctx)}.items():
        (tmp_path / f"{stem}.ipynb").write_text(json.dumps(nb))
    results = grade_folder(tmp_path, None, EXERCISES, time_limit=30, jobs=2, sandboxed=False)
    assert [r.total for r in results] == [10, 10], [r.run.notes for r in results]


def test_special_files_are_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "f.ipynb")
    os.symlink(EXERCISES / "autograder" / "ch03_lstm_cell" / "expected.json", tmp_path / "s.ipynb")
    for name in ("f.ipynb", "s.ipynb"):
        with pytest.raises(ValueError, match="not a regular file"):
            read_submission(tmp_path / name)


def test_json_parsing_is_bounded():
    with pytest.raises(JSONLimitError):
        parse_json("[" * 10_000 + "]" * 10_000, max_depth=64)
    with pytest.raises(JSONLimitError):
        parse_json("9" * 5000)
    assert parse_json('{"a": ' + "[" * 500 + "]" * 500 + ', "b": 1}', lenient=True,
                      max_depth=8)["b"] == 1
    for text in ('[1, 2.5, "x", null, true, NaN]', '{"a": {"b": []}}'):
        assert json.dumps(parse_json(text)) == json.dumps(json.loads(text))
    for bad in ("[1,]", '{"a"}', "[1 2]", "01", '"abc'):
        with pytest.raises(ValueError):
            parse_json(bad)


def test_escape_makes_one_printable_line():
    assert escape("a\nb\r\\c\x00\u2028") == "a\\nb\\r\\\\c\\x00\\u2028"
    assert escape(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert escape("=1+1") == "'=1+1"


def test_csv_is_replaced_atomically(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text("previous")
    bad = Result("x.ipynb", "ch03_lstm_cell", {}, {}, RunInfo("ok", "not a number"))
    with pytest.raises(ValueError):
        write_csv([bad], path)
    assert path.read_text() == "previous" and os.listdir(tmp_path) == ["grades.csv"]
    write_csv([Result("x.ipynb", "?", {}, {}, RunInfo("ok", 1.0))], path)
    assert path.read_text().splitlines()[1].startswith("x.ipynb,?,")
