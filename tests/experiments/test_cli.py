"""``python -m course_rnn``: the listing, clear errors, and one quick-scale run per experiment."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import course_rnn
from course_rnn.cli import main
from course_rnn.experiments import all_experiments, get_experiment
from course_rnn.experiments.replication import VERDICTS, Replication, Row, report_markdown
from course_rnn.training.convergence import ENDINGS
from course_rnn.utils import pick_device

EXPERIMENTS = all_experiments()
SEVEN = {"bengio-kn", "elman-clusters", "anbn", "decay-rnn-agreement", "tabor-table4",
         "urn-dyck", "urn-cross-serial"}


def run_cli(*args, cwd, **environ):
    env = dict(os.environ, COURSE_RNN_PROGRESS="0", MPLBACKEND="Agg", **environ)
    return subprocess.run([sys.executable, "-m", "course_rnn", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


def test_every_seed_experiment_is_registered():
    assert SEVEN <= set(EXPERIMENTS)
    for name, experiment in EXPERIMENTS.items():
        assert experiment.name == name and experiment.title and callable(experiment.run)


def test_help_lists_every_experiment(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for name, experiment in EXPERIMENTS.items():
        assert name in out and experiment.title[:30] in out
    assert "--scale {quick,paper,full}" in out and "--seeds N" in out and "--out DIR" in out


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in EXPERIMENTS)


def test_the_checked_device_is_a_device_choice(checked_device):
    """--device checked (the CPU with a GPU's rules, course_rnn.device_check) is accepted and
    reaches pick_device as the checked device."""
    from course_rnn.cli import _device
    from course_rnn.utils import pick_device

    assert _device("checked") == "checked"
    assert pick_device(_device("checked")).type == "checked"


@pytest.mark.parametrize("args, message", [
    (["replicate", "nope"], "invalid choice: 'nope'"),
    (["replicate", "anbn", "--scale", "huge"], "invalid choice: 'huge'"),
    (["replicate", "anbn", "--seeds", "0"], "expected a positive integer, got 0"),
    (["replicate", "anbn", "--seeds", "two"], "expected a positive integer, got 'two'"),
    (["replicate", "anbn", "--device", "tpu"], "unknown device 'tpu'"),
    (["replicate", "anbn", "--device", "meta"], "unknown device 'meta'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["replicate", "anbn", "--seed-offset", "-1"], "expected an integer ≥ 0, got '-1'"),
    (["replicate", "anbn", "--seed-offset", "1e3"], "expected an integer ≥ 0, got '1e3'"),
    (["replicate", "anbn", "--set", "epochs"], "expected KEY=VALUE, got 'epochs'"),
    (["replicate", "all", "--set", "epochs=3"], "--set applies to one experiment"),
    (["replicate", "anbn", "--set", "nonsense=3", "--out", "{tmp}"], "unknown setting"),
    (["replicate", "elman-clusters", "--set", "hidden_size=many", "--out", "{tmp}"],
     "setting 'hidden_size' must be an integer, got 'many'"),
    (["replicate", "decay-rnn-agreement", "--set", "gram_models=LSTM,Transformer", "--out",
      "{tmp}"], "setting 'gram_models': every element must be one of"),
    (["replicate", "anbn", "--set", "lr=1e12", "--out", "{tmp}"],
     "setting 'lr' must be at most 100 (a learning rate"),
    (["replicate", "decay-rnn-agreement", "--set", "n_train=1000000000", "--out", "{tmp}"],
     "setting 'n_train' must be at most 100,000,000 (a count"),
])
def test_bad_input_is_a_clear_error(args, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main([a.format(tmp=tmp_path / "out") for a in args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bad_seed_offset_in_the_environment_is_refused_before_any_folder_is_made(
        capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "minus one")
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "anbn", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and not (tmp_path / "out").exists()
    message = "$COURSE_RNN_SEED_OFFSET: expected an integer ≥ 0, got 'minus one'"
    assert message in capsys.readouterr().err


def test_a_missing_full_scale_is_refused_before_any_folder_is_made(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "anbn", "--scale", "full", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    assert "no 'full' scale for anbn" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "anbn", "--device", "cuda"])
    assert exit_.value.code == 2
    assert "no CUDA GPU is available" in capsys.readouterr().err


def test_saved_results_are_never_replaced(tmp_path, capsys):
    kept = tmp_path / "gym" / "results.json"
    kept.parent.mkdir()
    kept.write_text("my precious numbers")
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "all", "--out", str(tmp_path)])  # refused before any training
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--overwrite" in err
    assert kept.read_text() == "my precious numbers"


HEAVY = ("torch", "matplotlib", "course_rnn.experiments.anbn")


def cli_in_fresh_process(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, list]:
    """``main(args)`` in a fresh Python: what it printed, and the last line's
    ``[exit code, which of HEAVY it imported]`` (exit code 0 when ``main`` returned)."""
    probe = ("import sys\n"
             "from course_rnn.cli import main\n"
             "code = 0\n"
             f"try:\n    main({args!r})\n"
             "except SystemExit as exit_:\n    code = exit_.code\n"
             f"print(code, *[m for m in {HEAVY!r} if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=cwd, timeout=300)
    last = done.stdout.splitlines()[-1].split() if done.stdout.strip() else []
    return done, last


def test_bad_arguments_are_rejected_before_anything_heavy_is_imported(tmp_path):
    """Rejecting a typo must not wait for torch, matplotlib and every experiment to load."""
    done, last = cli_in_fresh_process(["replicate", "nope"], tmp_path)
    assert last == ["2"], done.stderr[-2000:]
    assert "invalid choice: 'nope'" in done.stderr


def test_every_experiment_declares_a_title_and_a_chapter_of_the_book():
    """--help and list read each experiment's title and chapter from its settings (no
    experiment imported): every one has a title, and its chapter is a page of the book."""
    from course_rnn.experiments import about

    listing = about()
    assert listing == {name: (e.title, e.chapter) for name, e in EXPERIMENTS.items()}
    chapters = Path(course_rnn.__file__).parents[2] / "chapters"
    for name, (title, chapter) in listing.items():
        assert len(title) > 20, name
        assert (chapters / f"{chapter}.ipynb").is_file(), (name, chapter)


@pytest.mark.parametrize("args", [["--help"], ["replicate", "--help"], ["list"]])
def test_help_and_list_import_nothing_heavy(args, tmp_path):
    """--help and list answer at once: neither torch, matplotlib nor an experiment is imported
    (benchmarks/cli_startup.py times them)."""
    done, last = cli_in_fresh_process(args, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert last[1:] == [], done.stdout[-500:]
    assert "tabor-table4" in done.stdout


@pytest.mark.parametrize("where", ["file/below", "/proc/course_rnn_results"])
def test_an_output_folder_that_cannot_be_written_is_refused_before_any_work(where, tmp_path,
                                                                          capsys):
    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / where if not where.startswith("/") else Path(where)
    with pytest.raises(SystemExit) as exit_:
        main(["replicate", "all", "--out", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "is a file" in err or "cannot write results" in err
    assert (tmp_path / "file").read_text() == "not a folder"


def test_the_cli_s_table_of_names_holds_every_experiment_in_order():
    from course_rnn.experiments import NAMES

    assert list(NAMES) == list(EXPERIMENTS)


def test_results_json_is_strict_json(tmp_path):
    result = Replication("e", "t", "quick", [0], "cpu", {"x": float("nan")},
                         {"a": float("nan"), "b": [1.0, float("inf")]}, [Row("q", "1", "2")])
    result.save(tmp_path)

    def refuse(constant):
        raise ValueError(f"non-standard JSON constant {constant}")

    saved = json.loads((tmp_path / "results.json").read_text(), parse_constant=refuse)
    assert saved["numbers"] == {"a": None, "b": [1.0, None]} and saved["settings"]["x"] is None
    machine = saved["machine"]  # what decides the last bits of a CPU run
    assert machine["kernel_capability"] and machine["cpu"] and machine["torch"]
    assert "seed_offset" in machine


def test_unknown_experiment_from_python():
    with pytest.raises(ValueError, match="unknown experiment 'nope'.*tabor-table4"):
        get_experiment("nope")


# Tiny settings (``--set KEY=VALUE``, written as JSON) for the command-line smoke runs: the
# whole command path — arguments, training to a criterion, verdicts, table, figures, results.json
# — in seconds. The quick scale itself trains to convergence (a minute or more per experiment);
# the book build runs it in every chapter.
SMOKE = {
    "bengio-kn": dict(kn_orders=[2], test_sentences=30, valid_sentences=30, hidden_size=4,
                      embedding_dim=4, context=2, batch_size=64, eval_every=10, patience=1,
                      min_delta=0.05, epochs=1),
    "elman-clusters": dict(hidden_size=8, sentences=300, epochs=2, probe=300),
    "anbn": dict(hidden_size=2, wide_hidden_size=3, train_max_n=4, test_max_n=8, repeats=1,
                 batch_size=4, epochs=5, patience=3, extra_seeds=1),
    "decay-rnn-agreement": dict(n_train=120, hidden_size=8, embedding_dim=8, epochs=2, patience=2,
                                batch_size=64, n_test=40, alpha_inits=[0.3, 0.8], alpha_every=1,
                                gram_models=["LSTM", "DRNN"], lm_sentences=60, lm_hidden_size=8,
                                lm_epochs=2, lm_patience=2, lm_batch_size=32, n_pairs=8),
    "tabor-table4": dict(epochs=15, equal_rate_epochs=15, eval_every=1, hc_steps=4,
                         plateau_patience=5),
    "urn-dyck": dict(train=64, valid=32, test=64, probe=16, hidden_size=6, embedding_dim=4,
                     epochs=3, patience=1, batch_size=32),
    "urn-cross-serial": dict(train=32, hidden_sizes=[2, 3], embedding_dim=3, epochs=2,
                             batch_size=16),
    "gym": dict(hidden_size=4, urn_hidden_size=4, lr=0.02, batch_size=32, patience=2,
                languages=dict(
        anbn=dict(train_copies=2, epochs=2, test_max_n=12),
        dyck=dict(pairs=2, train=64, valid=16, epochs=1, test=16),
        cross_serial=dict(train=64, epochs=1),
        palindrome=dict(train=64, valid=16, epochs=1, test=16),
        agreement=dict(train=64, valid=16, epochs=1, test_per_attractor=4))),
    "chomsky": dict(tasks=["parity_check", "reverse_string"], hidden_size=4, max_train_length=3,
                    max_test_length=5, steps=20, eval_every=10, valid_per_length=2,
                    test_samples=4),
}


def test_every_experiment_has_a_smoke_setting():
    assert set(SMOKE) == set(EXPERIMENTS)


def test_typed_settings_read_each_value_by_its_type():
    """For an experiment with typed settings, --set gives the text to the setting's type: a
    list as JSON or comma-separated, a number as a number, a name as it is."""
    from course_rnn.cli import _setting  # what --set parses each K=V with

    agreement = EXPERIMENTS["decay-rnn-agreement"]
    pairs = map(_setting, ["gram_models=LSTM,DRNN", "alpha_inits=[0.3, 0.8]", "lr=1e-3"])
    settings = agreement.settings.at("quick", dict(pairs))
    assert settings.gram_models == ("LSTM", "DRNN") and settings.alpha_inits == (0.3, 0.8)
    assert settings.lr == 0.001
    # a list as JSON, "none" for an optional setting (anbn's full batch)
    anbn = EXPERIMENTS["anbn"]
    pairs = map(_setting, ["epochs=5", 'models=["lstm"]', "batch_size=none"])
    settings = anbn.settings.at("quick", dict(pairs))
    assert (settings.epochs, settings.models, settings.batch_size) == (5, ("lstm",), None)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_replicate_quick_smoke(name, tmp_path):
    """The issue's promise: every experiment runs from the command line (quick scale, tiny
    settings, one process)."""
    out = tmp_path / name
    overrides = [arg for key, value in SMOKE[name].items()
                 for arg in ("--set", f"{key}={json.dumps(value)}")]
    done = run_cli("replicate", name, "--scale", "quick", "--seeds", "1", "--out", str(out),
                   *overrides, cwd=tmp_path, COURSE_RNN_WORKERS="1")
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert results["experiment"] == name and results["scale"] == "quick"
    assert results["seeds"] == [0]
    assert results["device"] == str(pick_device())  # $COURSE_RNN_DEVICE, else a GPU, else cpu
    assert results["numbers"] and results["seconds"] > 0
    assert results["table"], "a paper-vs-ours table with at least one row"
    table = (out / "table.md").read_text()
    assert "| quantity | paper | ours | verdict | note |" in table
    for row in results["table"]:
        assert row["quantity"] and row["paper"] and row["ours"]
        assert row["ours"].replace("|", "\\|") in table
        assert row["verdict"] in (*VERDICTS, "")
    # every training run is saved with its convergence record, and the command says, per run,
    # whether it converged and why
    assert results["runs"], "an experiment that trains records its runs"
    printed = done.stdout
    assert "   expected: " in printed  # before the run: roughly how long, or never timed
    assert "-- training runs (" in printed
    for run_name, run in results["runs"].items():
        record = run["convergence"]
        assert record["criterion"] and record["reason"] and record["stopped"]
        assert f"{run_name}: {ENDINGS.get(record['stopped'], record['stopped'])} after" in printed
    for figure in results["figures"]:
        assert (out / f"{figure}.png").read_bytes()[:4] == b"\x89PNG"
    assert results["figures"], "at least one figure"
    assert "wrote" in done.stdout
    saved = Replication(name, results["title"], "quick", [0], results["device"], {},
                        results["numbers"], [Row(**row) for row in results["table"]])
    assert not saved.unrecorded(), "every figure of our column is in results.json"
    # where it comes from: version, commit, the command as typed, dates, every --set as such;
    # the table says the scale was changed, and is what results.json makes
    origin = results["provenance"]
    assert origin["course_rnn"] == course_rnn.__version__
    assert origin["commit"] is None or len(origin["commit"]) == 40
    assert origin["command"] == shlex.join(["python", "-m", "course_rnn", "replicate", name,
                                            "--scale", "quick", "--seeds", "1", "--out",
                                            str(out), *overrides])
    assert origin["started"] <= origin["finished"]
    assert set(origin["overrides"]) == set(SMOKE[name])
    assert "scale `quick` with overrides" in table
    assert "Settings changed from the `quick` scale's with `--set`: " in table
    assert table == report_markdown(results)


def test_replication_save_refuses_a_file_as_folder(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    result = Replication("e", "t", "quick", [0], "cpu", {}, {}, [])
    with pytest.raises(ValueError, match="not a folder"):
        result.save(target)
