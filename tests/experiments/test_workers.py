"""Independent runs in worker processes give the same results, in the same order, as in one."""

import os
from pathlib import Path

import pytest
import torch

from course_rnn.experiments.workers import parallel_map, worker_count
from course_rnn.languages import AnBn, Vocab
from course_rnn.models import build_model
from course_rnn.training import fit


def train_tiny(kind: str, seed: int):
    """Top level, so that a spawned worker can import it."""
    vocab = Vocab("ab")
    model = build_model(kind, vocab_size=len(vocab), hidden_size=3, seed=seed)
    history = fit(model, vocab, [AnBn.string(n) for n in range(1, 5)], epochs=3, batch_size=2,
                  seed=seed, progress=False)
    return model, history


def test_parallel_runs_equal_serial_runs(monkeypatch):
    # spawned workers import train_tiny from this file as tests.experiments.test_workers
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    jobs = [("lstm", 0), ("gru", 1), ("srn", 2)]
    serial = parallel_map(train_tiny, jobs, workers=1)
    parallel = parallel_map(train_tiny, jobs, workers=2)
    for (m1, h1), (m2, h2) in zip(serial, parallel):
        assert h1["train_loss"] == h2["train_loss"]
        assert all(torch.equal(p, q) for p, q in zip(m1.parameters(), m2.parameters()))
        assert h2.convergence is not None


def test_worker_count(monkeypatch):
    monkeypatch.delenv("COURSE_RNN_WORKERS", raising=False)
    monkeypatch.delenv("COURSE_RNN_DEVICE", raising=False)
    cores = min(os.cpu_count() or 1, 5)
    # the jobs' device as the caller resolved it (Setup.device), not chosen again: on a GPU one
    # process, else one per core; none given, the run context's device name
    assert worker_count(None, 5, torch.device("cuda")) == 1 == worker_count(None, 5, "cuda:1")
    assert worker_count(None, 5, "checked") == worker_count(None, 5, torch.device("cpu")) == cores
    assert worker_count(None, 5) == cores
    monkeypatch.setenv("COURSE_RNN_DEVICE", "cuda")
    assert worker_count(None, 5) == 1 and worker_count(None, 5, "cpu") == cores
    monkeypatch.delenv("COURSE_RNN_DEVICE")
    assert worker_count(8, 3) == 3 and worker_count(0, 3) == 1 and worker_count(None, 1) == 1
    monkeypatch.setenv("COURSE_RNN_WORKERS", "1")
    assert worker_count(None, 5) == 1
    monkeypatch.setenv("COURSE_RNN_WORKERS", "many")
    with pytest.raises(ValueError, match="COURSE_RNN_WORKERS"):
        worker_count(None, 5)
    with pytest.raises(ValueError, match="workers"):
        worker_count(-1, 5)
    assert parallel_map(train_tiny, []) == []


def test_the_bar_says_where_each_run_is(capsys):
    parallel_map(train_tiny, [("srn", 0), ("gru", 1)], workers=1, progress=True, desc="tiny")
    shown = capsys.readouterr().err
    assert "tiny" in shown and "epoch 1 of ≤ 3" in shown and "1/2" in shown


def test_workers_report_to_the_bar(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    results = parallel_map(train_tiny, [("lstm", 0), ("gru", 1)], workers=2, progress=True)
    shown = capsys.readouterr().err
    assert len(results) == 2 and "/2 [" in shown
    assert "epoch " in shown  # a worker's first report always goes to the bar


def fails(seed: int):
    if seed == 1:
        raise RuntimeError("seed 1 fails")
    return seed


def test_a_failing_job_raises_its_error(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    for workers in (1, 2):
        with pytest.raises(RuntimeError, match="seed 1 fails"):
            parallel_map(fails, [(0,), (1,), (2,)], workers=workers, progress=False)
