"""Where the jobs run and what survives a crash: a Dask cluster gives the numbers local processes
give, an unreachable scheduler is refused at once, finished jobs are kept, a failed job is named,
and a killed ``replicate`` resumes to the same results.json."""

import functools
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from course_rnn.cli import main
from course_rnn.experiments.cluster import INSTALL, dask_executor, parse_executor
from course_rnn.experiments.jobstore import JobsFailed, job_key
from course_rnn.experiments.output import JOBS, stored_jobs
from course_rnn.experiments.workers import keep_jobs, parallel_map, use_executor
from course_rnn.utils import pick_device, seed_offset

from .test_cli import SMOKE, run_cli

ROOT = Path(__file__).resolve().parents[2]
#: The gym at the smoke settings, one seed: 31 jobs (7 models, where each applies to the five
#: languages) of a fraction of a second each.
GYM = ["replicate", "gym", "--scale", "quick", "--seeds", "1",
       *[arg for key, value in SMOKE["gym"].items()
         for arg in ("--set", f"{key}={json.dumps(value)}")]]
GYM_JOBS = 31
#: The gym's models that train on Dyck: one job each at one seed.
DYCK_MODELS = ("SRN", "GRU", "LSTM", "DRNN", "URN", "FLNN", "Stack-RNN")
DYCK_JOBS = len(DYCK_MODELS)
#: The keys of results.json that hold wall-clock or CPU times, dates and the command line:
#: the only ones that may differ between two runs of the same experiment.
CLOCKS = {"seconds", "train_seconds", "started", "finished", "command"}


def without_clocks(value):
    """results.json less the keys of :data:`CLOCKS`, at any depth."""
    if isinstance(value, dict):
        return {k: without_clocks(v) for k, v in value.items() if k not in CLOCKS}
    if isinstance(value, list):
        return [without_clocks(v) for v in value]
    return value


def results_of(out: Path) -> dict:
    return without_clocks(json.loads((out / "results.json").read_text()))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """The gym's results.json (less its clocks) from local worker processes, uninterrupted."""
    folder = tmp_path_factory.mktemp("reference")
    done = run_cli(*GYM, "--out", str(folder / "out"), cwd=folder, COURSE_RNN_WORKERS="2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"jobs: {GYM_JOBS} trained, 0 loaded" in done.stdout
    assert not (folder / "out" / JOBS).exists(), "the jobs are removed once results.json is saved"
    return results_of(folder / "out")


def test_the_clock_keys_are_the_only_ones_that_differ(reference, tmp_path):
    """Two uninterrupted runs: equal once CLOCKS are left out, not before (so the comparisons
    below leave out exactly what moves)."""
    done = run_cli(*GYM, "--out", str(tmp_path / "again"), cwd=tmp_path, COURSE_RNN_WORKERS="1")
    assert done.returncode == 0, done.stderr[-3000:]
    again = json.loads((tmp_path / "again" / "results.json").read_text())
    assert without_clocks(again) == reference
    assert again["seconds"] > 0 and again["numbers"]["runs"][0]["train_seconds"] > 0


# -- the job store ---------------------------------------------------------------------------

CALLS: list[tuple] = []


def square(x: int) -> int:
    CALLS.append((x,))
    return x * x


def fails_on_odd(x: int) -> int:
    if x % 2:
        raise RuntimeError(f"{x} is odd")
    return x


def test_stored_jobs_are_loaded_not_run(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_RNN_JOBS", raising=False)
    CALLS.clear()
    with keep_jobs(tmp_path / "jobs") as store:
        first = parallel_map(square, [(1,), (2,), (3,)], workers=1, progress=False)
    assert first == [1, 4, 9] and len(CALLS) == 3
    assert store.saved == 3 and store.loaded == 0 and stored_jobs(tmp_path / "jobs") == 3
    with keep_jobs(tmp_path / "jobs") as store:
        again = parallel_map(square, [(3,), (4,), (1,)], workers=1, progress=False)
    assert again == [9, 16, 1]
    assert CALLS[3:] == [(4,)], "only the job not stored ran"
    assert store.loaded == 2 and store.saved == 1
    assert not list((tmp_path / "jobs").glob(".*")), "no temporary file is left behind"
    CALLS.clear()
    assert parallel_map(square, [(1,)], workers=1, progress=False) == [1] and CALLS == [(1,)], \
        "outside keep_jobs nothing is loaded"


def test_the_run_context_s_jobs_folder_is_the_store_outside_keep_jobs(tmp_path, monkeypatch):
    """A book build sets $COURSE_RNN_JOBS: a page that shows another page's runs loads them."""
    monkeypatch.setenv("COURSE_RNN_JOBS", str(tmp_path / "build"))
    CALLS.clear()
    assert parallel_map(square, [(2,), (3,)], workers=1, progress=False) == [4, 9]
    assert parallel_map(square, [(3,), (6,)], workers=1, progress=False) == [9, 36]
    assert CALLS == [(2,), (3,), (6,)], "the second call ran only the job not kept"
    with keep_jobs(tmp_path / "run") as store:
        parallel_map(square, [(2,)], workers=1, progress=False)
    assert store.saved == 1 and CALLS[-1] == (2,), "keep_jobs' own store wins"
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("COURSE_RNN_JOBS", str(tmp_path / "file"))
    with pytest.raises(ValueError, match=r"\$COURSE_RNN_JOBS: a folder .* is a file"):
        parallel_map(square, [(1,)], workers=1, progress=False)


def test_a_job_s_name_follows_its_function_arguments_tensors_and_seed_offset(monkeypatch):
    monkeypatch.delenv("COURSE_RNN_SEED_OFFSET", raising=False)
    key = job_key(square, (torch.ones(3), "lstm", 0))
    assert key.startswith("square-")
    assert key == job_key(square, (torch.ones(3), "lstm", 0)), "the same job, the same name"
    assert key != job_key(square, (torch.ones(3), "lstm", 1))
    assert key != job_key(square, (torch.tensor([1.0, 1.0, 1.5]), "lstm", 0))
    assert key != job_key(fails_on_odd, (torch.ones(3), "lstm", 0))
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "1000")
    assert key != job_key(square, (torch.ones(3), "lstm", 0))
    assert job_key(square, (lambda: 0,)) is None, "arguments that cannot be pickled: no name"


def test_a_job_s_name_survives_its_arguments_being_saved_and_loaded(tmp_path):
    """A resumed run's later jobs take earlier results loaded from the store (a History, a
    model) where the first run passed them fresh from training: the same names, or a resume
    would train them again. A list that contains itself still gets a name."""
    from course_rnn.languages import AnBn, Vocab
    from course_rnn.models import build_model
    from course_rnn.training import fit

    vocab = Vocab("ab")
    model = build_model("lstm", vocab_size=len(vocab), hidden_size=3, seed=0)
    history = fit(model, vocab, [AnBn.string(n) for n in range(1, 5)], epochs=2, batch_size=2,
                  seed=0, progress=False)
    torch.save((history, model), tmp_path / "saved.pt")
    loaded = torch.load(tmp_path / "saved.pt", weights_only=False)
    assert job_key(square, (history, model)) == job_key(square, loaded)
    itself: list = [1]
    itself.append(itself)
    assert job_key(square, (itself,)) is not None


def test_an_unreadable_stored_job_is_run_again(tmp_path):
    CALLS.clear()
    with keep_jobs(tmp_path) as store:
        parallel_map(square, [(5,)], workers=1, progress=False)
        store.path(square, (5,)).write_bytes(b"not a torch file")
        with pytest.warns(UserWarning, match="running it again"):
            assert parallel_map(square, [(5,)], workers=1, progress=False) == [25]
    assert CALLS == [(5,), (5,)]


def test_bad_executors_and_stores_are_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="executor= takes a concurrent.futures.Executor, got str"):
        parallel_map(square, [(1,)], executor="dask://scheduler:8786")
    with pytest.raises(TypeError, match="use_executor needs a concurrent.futures.Executor"):
        with use_executor(42):
            pass
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="a job store needs a folder: .* is a file"):
        with keep_jobs(tmp_path / "file"):
            pass


@pytest.mark.parametrize("workers", [1, 2])
def test_with_a_store_a_failure_lets_the_others_finish_then_names_every_one(
        workers, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # spawned workers import this file
    with keep_jobs(tmp_path) as store, pytest.raises(JobsFailed) as failed:
        parallel_map(fails_on_odd, [(0,), (1,), (2,), (3,), (4,)], workers=workers,
                     progress=False)
    message = str(failed.value)
    assert "2 of 5 jobs failed" in message
    assert "fails_on_odd(1): RuntimeError: 1 is odd" in message
    assert "fails_on_odd(3): RuntimeError: 3 is odd" in message
    assert store.count() == 3, "the three that succeeded are kept"
    assert "Traceback" in failed.value.report() and "3 is odd" in failed.value.report()


# -- the command line: refusals, a failed job, --resume ----------------------------------------

def test_an_unfinished_run_s_jobs_are_never_thrown_away_unasked(tmp_path, capsys):
    kept = tmp_path / "out" / JOBS / "gym_run-0.pt"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"a finished job")
    with pytest.raises(SystemExit) as exit_:
        main([*GYM, "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "1 finished jobs of an unfinished run" in err
    assert "--resume" in err and "--overwrite" in err
    assert kept.read_bytes() == b"a finished job"
    with pytest.raises(SystemExit) as exit_:
        main([*GYM, "--out", str(tmp_path / "out"), "--resume", "--overwrite"])
    assert exit_.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_resuming_a_finished_run_does_nothing(tmp_path, capsys):
    (tmp_path / "results.json").write_text("{}")
    assert main([*GYM, "--out", str(tmp_path), "--resume"]) == 0
    assert "already finished" in capsys.readouterr().out
    assert (tmp_path / "results.json").read_text() == "{}"


def test_a_failed_job_is_named_the_others_kept_and_resume_trains_only_it(
        reference, tmp_path, monkeypatch, capsys):
    """Every Dyck run fails: the command names each, keeps the others' results and writes the
    tracebacks; --resume then trains only the Dyck runs and gives the uninterrupted numbers."""
    from course_rnn.experiments import gym

    real = gym.gym_run

    @functools.wraps(real)  # the same name, so the same stored jobs
    def breaks_on_dyck(language, *rest):
        if language == "dyck":
            raise RuntimeError("the stack overflowed")
        return real(language, *rest)

    monkeypatch.setenv("COURSE_RNN_WORKERS", "1")  # in this process: the patch holds
    monkeypatch.setenv("COURSE_RNN_PROGRESS", "0")
    monkeypatch.setattr(gym, "gym_run", breaks_on_dyck)
    out = tmp_path / "out"
    assert main([*GYM, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{DYCK_JOBS} of {GYM_JOBS} jobs failed" in err
    device = str(pick_device())  # the job's own argument: 'cpu' here, 'cuda' on a GPU
    for model in DYCK_MODELS:
        assert f"gym_run('dyck', '{model}', 0, <GymSettings>, '{device}', 0, None): " \
               "RuntimeError: the stack overflowed" in err
    assert f"finished jobs are kept in {out / JOBS}; rerun with --resume" in err
    assert "the stack overflowed" in (out / "failed_jobs.txt").read_text()
    assert stored_jobs(out / JOBS) == GYM_JOBS - DYCK_JOBS and not (out / "results.json").exists()

    monkeypatch.setattr(gym, "gym_run", real)
    assert main([*GYM, "--out", str(out), "--resume"]) == 0
    printed = capsys.readouterr().out
    assert f"resuming: {GYM_JOBS - DYCK_JOBS} finished jobs kept in {out / JOBS}" in printed
    assert f"jobs: {DYCK_JOBS} trained, {GYM_JOBS - DYCK_JOBS} loaded" in printed
    assert results_of(out) == reference
    assert not (out / JOBS).exists() and not (out / "failed_jobs.txt").exists()


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_uninterrupted_results(reference, tmp_path):
    """SIGKILL the whole command (its process group) once a few jobs are stored: --resume
    loads exactly those, trains the rest, and writes the uninterrupted run's numbers."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "course_rnn", *GYM, "--out", str(out)]
    env = dict(os.environ, COURSE_RNN_PROGRESS="0", MPLBACKEND="Agg", COURSE_RNN_WORKERS="1")
    run = subprocess.Popen(command, cwd=tmp_path, env=env, start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while stored_jobs(out / JOBS) < 3 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    kept = stored_jobs(out / JOBS)
    assert run.returncode == -signal.SIGKILL, run.stderr.read()[-3000:]
    assert 3 <= kept < GYM_JOBS and not (out / "results.json").exists()

    refused = run_cli(*GYM, "--out", str(out), cwd=tmp_path)
    assert refused.returncode == 2 and "pass --resume to continue it" in refused.stderr
    done = run_cli(*GYM, "--out", str(out), "--resume", cwd=tmp_path, COURSE_RNN_WORKERS="2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"jobs: {GYM_JOBS - kept} trained, {kept} loaded" in done.stdout
    assert results_of(out) == reference


# -- Dask --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    """A Dask scheduler with two single-threaded worker processes, started here (they can
    import this file, as tests.experiments.test_executors, for :func:`dies_once`)."""
    distributed = pytest.importorskip("distributed")
    # a spawned process starts with this one's sys.path (PYTHONPATH is read too late), which
    # holds the repository only under `python -m pytest`: `.venv/bin/pytest` needs it added
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT))
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                         dashboard_address=None)
    with local:
        yield local


@pytest.fixture(scope="module")
def executor(cluster):
    with dask_executor(cluster.scheduler_address) as executor:
        yield executor


@pytest.mark.slow
def test_a_dask_cluster_gives_the_numbers_local_processes_give(reference, cluster, tmp_path):
    address = cluster.scheduler_address.replace("tcp://", "dask://")
    done = run_cli(*GYM, "--out", str(tmp_path / "out"), "--executor", address, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"training jobs run on the Dask cluster at {cluster.scheduler_address}" in done.stdout
    assert f"jobs: {GYM_JOBS} trained" in done.stdout
    assert results_of(tmp_path / "out") == reference


@pytest.mark.slow
def test_the_environment_names_the_cluster_too(cluster, tmp_path):
    done = run_cli("replicate", "anbn", "--scale", "quick", "--seeds", "1", "--out",
                   str(tmp_path / "out"), *[arg for k, v in SMOKE["anbn"].items()
                                            for arg in ("--set", f"{k}={json.dumps(v)}")],
                   cwd=tmp_path, COURSE_RNN_DASK=cluster.scheduler_address)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "training jobs run on the Dask cluster" in done.stdout


def test_jobs_on_dask_set_their_threads_and_seed_offset_on_the_worker(executor, monkeypatch):
    here = os.getpid()
    pids = parallel_map(os.getpid, [()] * 4, executor=executor, progress=False)
    assert here not in pids, "the jobs ran on the cluster's workers"
    for threads in (1, 2):
        assert parallel_map(torch.get_num_threads, [()] * 2, threads=threads,
                            executor=executor) == [threads] * 2
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "7")
    assert parallel_map(seed_offset, [()] * 2, executor=executor) == [7, 7]


@pytest.mark.timeout(120)  # Dask recomputes for ever a result it cannot send back
def test_an_lstm_comes_back_from_dask_whole(executor):
    """Dask's own serializers take a module apart without its __getstate__ (an LSTM's weak
    references fail); the jobs travel as one pickle, as to a local process."""
    (lstm,) = parallel_map(torch.nn.LSTM, [(2, 3)], executor=executor, progress=False)
    assert isinstance(lstm, torch.nn.LSTM)
    assert lstm(torch.zeros(1, 4, 2))[0].shape == (1, 4, 3)


def dies_once(marker: str) -> str:
    """Kill the worker process that runs it the first time; say where it ran the second."""
    if not os.path.exists(marker):
        Path(marker).write_text("died once")
        os._exit(1)  # the worker process dies, as a node lost mid-job does
    return "ran again"


@pytest.mark.timeout(120)
def test_a_job_lost_with_its_worker_runs_again_on_the_cluster(executor, tmp_path):
    with keep_jobs(tmp_path / "jobs") as store:
        done = parallel_map(dies_once, [(str(tmp_path / "marker"),)], executor=executor,
                            progress=False)
    assert done == ["ran again"] and (tmp_path / "marker").exists()
    assert store.saved == 1


def test_use_executor_sends_every_map_to_the_cluster_and_the_bar_counts_them(executor, capsys):
    with use_executor(executor):
        facts = parallel_map(math.factorial, [(n,) for n in range(5)], progress=True,
                             desc="factorials")
        assert os.getpid() not in parallel_map(os.getpid, [()] * 2, progress=False)
    assert facts == [1, 1, 2, 6, 24]
    shown = capsys.readouterr().err
    assert "factorials" in shown and "5/5" in shown
    assert os.getpid() in parallel_map(os.getpid, [()], workers=1, progress=False), \
        "after the block, local again"


def test_on_dask_a_failure_is_named_and_the_others_kept(executor, tmp_path):
    with keep_jobs(tmp_path) as store, pytest.raises(JobsFailed) as failed:
        parallel_map(math.factorial, [(3,), (-1,), (4,)], executor=executor, progress=False)
    assert "1 of 3 jobs failed" in str(failed.value)
    assert "factorial(-1): ValueError: factorial() not defined for negative values" \
        in str(failed.value)
    assert store.count() == 2
    with pytest.raises(ValueError, match="negative"):  # without a store: the error itself
        parallel_map(math.factorial, [(3,), (-1,)], executor=executor, progress=False)


# -- refusals before any work ------------------------------------------------------------------

@pytest.fixture
def unreachable(request):
    """An address where no Dask scheduler answers: a closed local port, a local port that
    accepts connections and never speaks (Dask's own handshake would wait for ever), or a
    TEST-NET address (RFC 5737: no answer, or no route)."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        if request.param == "closed":
            listener.close()
            yield f"127.0.0.1:{port}"
        elif request.param == "silent":
            listener.listen(5)
            yield f"127.0.0.1:{port}"
        else:
            yield "192.0.2.1:8786"


@pytest.mark.parametrize("unreachable", ["closed", "silent", "test-net"], indirect=True)
def test_an_unreachable_scheduler_is_refused_in_seconds_naming_it(unreachable, tmp_path):
    pytest.importorskip("distributed")  # without it the command says that Dask is missing
    started = time.monotonic()
    done = run_cli(*GYM, "--out", str(tmp_path / "out"), "--executor", f"dask://{unreachable}",
                   cwd=tmp_path)
    took = time.monotonic() - started
    assert done.returncode == 2, done.stdout[-2000:]
    assert f"Dask scheduler at tcp://{unreachable}" in done.stderr
    assert "cannot be reached" in done.stderr or "cannot connect" in done.stderr
    # the refusal waits at most PROBE_SECONDS + CONNECT_SECONDS (4.5 s) after the command has
    # started; Dask alone would wait 30 s to connect, and for ever on a silent peer. The bound
    # leaves room for the command's start on a loaded machine (a speed target would be a
    # benchmark's).
    assert took < 20, f"refused after {took:.1f} s"
    assert not (tmp_path / "out").exists(), "refused before any folder is made"


@pytest.mark.parametrize("text, message", [
    ("dask://scheduler", "the scheduler's port is missing"),
    ("dask://scheduler:port", "the port is not a number"),
    ("http://scheduler:8786", "expected 'local' or dask://HOST:PORT, got 'http://scheduler:8786'"),
    ("cluster", "expected 'local' or dask://HOST:PORT, got 'cluster'"),
])
def test_a_bad_executor_is_a_clear_error(text, message, capsys, tmp_path, monkeypatch):
    with pytest.raises(SystemExit) as exit_:
        main([*GYM, "--out", str(tmp_path / "out"), "--executor", text])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    monkeypatch.setenv("COURSE_RNN_DASK", text)
    with pytest.raises(SystemExit) as exit_:
        main([*GYM, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "error: $COURSE_RNN_DASK: " in err and message in err
    assert not (tmp_path / "out").exists()


def test_executor_addresses_read_as_dask_writes_them():
    assert parse_executor("dask://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    assert parse_executor("tcp://node-3:8786") == "tcp://node-3:8786"
    assert parse_executor("dask://[::1]:8786") == "tcp://[::1]:8786"
    assert parse_executor(" local ") == "local"


def test_missing_dask_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(SystemExit) as exit_:
        main([*GYM, "--out", str(tmp_path / "out"), "--executor", "dask://127.0.0.1:8786"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "needs Dask's 'distributed' package" in err and INSTALL in err
    assert not (tmp_path / "out").exists()


def test_dask_is_imported_only_when_asked_for(tmp_path):
    probe = ("import sys\n"
             "from course_rnn.cli import main\n"
             "from course_rnn.experiments import gym, workers, cluster\n"
             "cluster.parse_executor('dask://h:1')\n"
             "print('distributed' in sys.modules, 'dask' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.stdout.split() == ["False", "False"], done.stderr[-2000:]
