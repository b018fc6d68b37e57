"""The run's context: every COURSE_RNN_* variable and every choice parsed in one place."""

from __future__ import annotations

import subprocess
import sys

import pytest

from course_rnn.context import LOCAL, VARIABLES, RunContext, run_context
from course_rnn.utils import pick_device, seed_offset


def test_nothing_set_is_the_defaults():
    assert run_context({}) == RunContext(device=None, seed_offset=0, workers=None,
                                         progress=True, scale="quick", executor=LOCAL)


def test_every_variable_is_read():
    environ = {"COURSE_RNN_DEVICE": "cpu", "COURSE_RNN_SEED_OFFSET": " 7 ",
               "COURSE_RNN_WORKERS": "3", "COURSE_RNN_PROGRESS": "0",
               "COURSE_RNN_SCALE": "paper", "COURSE_RNN_DASK": "dask://host:8786",
               "COURSE_RNN_JOBS": "build/jobs"}
    assert run_context(environ) == RunContext("cpu", 7, 3, False, "paper", "tcp://host:8786",
                                              "build/jobs")


def test_a_choice_wins_over_its_variable_and_none_leaves_it():
    environ = {"COURSE_RNN_SEED_OFFSET": "7", "COURSE_RNN_SCALE": "paper"}
    context = run_context(environ, seed_offset=2, scale=None, progress=False)
    assert (context.seed_offset, context.scale, context.progress) == (2, "paper", False)


@pytest.mark.parametrize("variable, text, message", [
    ("COURSE_RNN_SEED_OFFSET", "minus one", "$COURSE_RNN_SEED_OFFSET: expected an integer ≥ 0"),
    ("COURSE_RNN_SEED_OFFSET", "-3", "$COURSE_RNN_SEED_OFFSET: expected an integer ≥ 0"),
    ("COURSE_RNN_WORKERS", "0", "$COURSE_RNN_WORKERS: expected an integer ≥ 1, got '0'"),
    ("COURSE_RNN_WORKERS", "two", "$COURSE_RNN_WORKERS: expected an integer ≥ 1"),
    ("COURSE_RNN_DEVICE", "gpu", "$COURSE_RNN_DEVICE: unknown device 'gpu'"),
    ("COURSE_RNN_SCALE", "default", "the book's scale is called 'quick'"),
    ("COURSE_RNN_DASK", "http://h:1", "$COURSE_RNN_DASK: expected 'local' or dask://HOST:PORT"),
])
def test_a_bad_variable_is_an_error_that_names_it(variable, text, message):
    with pytest.raises(ValueError) as error:
        run_context({variable: text})
    assert message in str(error.value)


@pytest.mark.parametrize("choice, value, message", [
    ("seed_offset", -1, "seed_offset: expected an integer ≥ 0, got '-1'"),
    ("workers", 0, "workers: expected an integer ≥ 1"),
    ("device", "tpu", "device: unknown device 'tpu'"),
    ("scale", "huge", "scale: unknown scale 'huge'"),
])
def test_a_bad_choice_is_an_error_that_names_it(choice, value, message):
    with pytest.raises(ValueError, match=message):
        run_context({}, **{choice: value})


def test_an_unknown_choice_is_refused():
    with pytest.raises(TypeError, match="no choice called seeds"):
        run_context({}, seeds=3)


def test_a_context_s_variables_give_it_back():
    """What a worker started elsewhere puts into its environment is the same context."""
    for context in (RunContext(), RunContext("checked", 12, 2, False, "full", "tcp://h:1",
                                                        "jobs")):
        assert set(context.variables()) == set(VARIABLES.values())
        assert run_context(context.variables()) == context


def test_the_library_reads_the_seed_offset_and_the_device_through_it(monkeypatch):
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "41")
    monkeypatch.setenv("COURSE_RNN_DEVICE", "cpu")
    assert seed_offset() == 41 and pick_device().type == "cpu"
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "5")  # a changed variable is read again
    assert seed_offset() == 5


def test_the_context_imports_no_torch():
    probe = "import sys, course_rnn.context; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["False"], done.stderr[-2000:]
