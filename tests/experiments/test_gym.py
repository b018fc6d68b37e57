"""The syntax gym (chapter 7) on a tiny setting: rows, convergence, subsets, skips, verdicts and
clear errors."""

import math

import pytest

from course_rnn.experiments import GYM_LANGUAGES, GYM_MODELS, gym, run_gym
from course_rnn.experiments.gym import (
    FLNN_LANGUAGES,
    OWN_METRICS,
    SETTINGS,
    GymLanguageSettings,
    GymRun,
    GymSettings,
    applicable,
)
from course_rnn.experiments.replication import Replication

#: Tiny settings (the command line's smoke run's, tests/experiments/test_cli.py): the quick
#: scale with these entries changed.
SMOKE = dict(hidden_size=4, urn_hidden_size=4, lr=0.02, batch_size=32, patience=2, languages=dict(
    anbn=dict(train_copies=2, epochs=2, test_max_n=12),
    dyck=dict(pairs=2, train=64, valid=16, epochs=1, test=16),
    cross_serial=dict(train=64, epochs=1),
    palindrome=dict(train=64, valid=16, epochs=1, test=16),
    agreement=dict(train=64, valid=16, epochs=1, test_per_attractor=4)))
TINY = SETTINGS["quick"].replace(SMOKE)

SAVED = ["model", "language", "seed", "params", "train_seconds", "epochs", "converged",
         "final_loss", "valid_loss", "valid_strings", "valid_positions", "own_metric", "own",
         "breakdown"]


@pytest.fixture(autouse=True)
def serial(monkeypatch):
    """One process: tiny runs are quicker than starting workers."""
    monkeypatch.setenv("COURSE_RNN_WORKERS", "1")


@pytest.fixture(scope="module")
def smoke_rows():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_RNN_WORKERS", "1")
        return run_gym(TINY, seeds=(0,), device="cpu")



def test_every_gym_language_has_its_task_and_an_unknown_one_is_refused():
    for name in GYM_LANGUAGES:
        task = gym.make_task(name, TINY.languages[name])
        assert task.train and task.valid and task.test, name
    with pytest.raises(ValueError, match="unknown language 'klingon': choose from anbn"):
        gym.make_task("klingon", TINY.languages["anbn"])

def test_smoke_covers_every_applicable_pair(smoke_rows):
    pairs = {r.cell for r in smoke_rows}
    expected = {(m, lang) for m in GYM_MODELS for lang in GYM_LANGUAGES if applicable(m, lang)}
    assert pairs == expected
    assert len(smoke_rows) == len(expected)
    # the FLNN runs only where Tabor's condition holds: a stack alone suffices
    assert {lang for m, lang in pairs if m == "FLNN"} == set(FLNN_LANGUAGES) == {"dyck"}


def test_the_stack_rnn_is_the_gyms_column_with_an_external_stack(smoke_rows):
    """Chapter 8's Stack-RNN runs on every language, at the gym's state size, with the stack
    the model's defaults give; the counting claim (about networks without a stack) leaves it
    out."""
    assert GYM_MODELS["Stack-RNN"] == ("stack_rnn", {})
    stack = {r.language: r for r in smoke_rows if r.model == "Stack-RNN"}
    assert set(stack) == set(GYM_LANGUAGES)
    model = stack["dyck"].trained
    assert model.kind == "stack_rnn" and model.hidden_size == TINY.hidden_size
    assert (model.stack_width, model.stack_depth) == (8, 64)
    counting = next(c for c in gym.gym_claims_list() if c.quantity.startswith("for counting"))
    assert "Stack-RNN" not in {m for m, _ in counting.models}


def test_rows_are_well_formed(smoke_rows):
    for row in smoke_rows:
        assert isinstance(row, GymRun)
        assert row.params > 0 and row.train_seconds >= 0
        assert 0.0 <= row.valid_strings <= 1.0 and 0.0 <= row.valid_positions <= 1.0
        assert row.valid_strings <= row.valid_positions + 1e-9
        assert row.own_metric == OWN_METRICS[row.language]
        assert math.isfinite(row.final_loss) and math.isfinite(row.own)
        assert row.history.convergence.epochs == row.epochs
        assert row.converged == row.history.converged
        assert "valid_loss" in row.history.epochs[0]
        if row.language != "anbn":
            assert 0.0 <= row.own <= 1.0
        else:
            assert row.own == int(row.own) >= 0
        # chapter 6's breakdown for Dyck, and only there
        if row.language == "dyck":
            assert set(row.breakdown) == set(gym.dyck_cuts(gym.DYCK_DEPTH))
        else:
            assert row.breakdown is None
        # results.json keeps the numbers, in this order, not the history or the model
        assert list(row.to_json()) == SAVED


def test_subsets_seeds_and_overrides_are_reproducible():
    settings = TINY.replace(hidden_size=3, languages={"cross_serial": {"train": 32}})
    assert settings.languages["cross_serial"].epochs == 1  # the override changed only "train"
    kwargs = dict(models=["SRN"], languages=["cross_serial"], device="cpu")
    a = run_gym(settings, seeds=(0, 1), **kwargs)
    b = run_gym(settings, seeds=(0, 1), **kwargs)
    assert [(r.model, r.language, r.seed) for r in a] == [
        ("SRN", "cross_serial", 0), ("SRN", "cross_serial", 1)]
    assert [r.final_loss for r in a] == [r.final_loss for r in b]
    # hidden_size=3 with one-hot inputs of 7: 3*7 + 3*3 + 2*3 (biases) + 3*7 + 7 (readout)
    assert a[0].params == 3 * 7 + 3 * 3 + 2 * 3 + 3 * 7 + 7


def test_training_stops_on_a_plateau_not_a_fixed_budget():
    settings = TINY.replace(languages={"anbn": {"epochs": 400, "patience": 2, "batch_size": 32}})
    row = run_gym(settings, models=["LSTM"], languages=["anbn"], device="cpu")[0]
    history = row.history
    assert row.converged and history.convergence.stopped == "criterion met"
    assert row.epochs < 400
    # the doubled budget continues the same run to twice its epochs
    again = run_gym(settings, models=["LSTM"], languages=["anbn"], device="cpu",
                    min_epochs={("anbn", "LSTM", 0): 2 * math.ceil(row.epochs)})[0]
    assert again.epochs >= 2 * row.epochs
    assert again.history["train_loss"][: len(history)] == history["train_loss"]


def test_unknown_names_are_clear():
    with pytest.raises(ValueError, match="unknown model.*'TRANSFORMER'.*SRN"):
        run_gym(TINY, models=["TRANSFORMER"])
    with pytest.raises(ValueError, match="unknown language.*'klingon'.*anbn"):
        run_gym(TINY, languages=["klingon"])
    with pytest.raises(ValueError, match="unknown scale 'huge'"):
        SETTINGS["huge"]
    with pytest.raises(ValueError, match="unknown setting.*'hiden' for gym"):
        gym.run(models=["SRN"], languages=["anbn"], settings={"hiden": 3})
    with pytest.raises(ValueError, match="no model given"):
        run_gym(TINY, models=[])
    with pytest.raises(ValueError, match="at least one seed"):
        run_gym(TINY, models=["SRN"], languages=["anbn"], seeds=())
    with pytest.raises(TypeError, match="needs the gym's settings"):
        run_gym({"hidden_size": 4})
    # the device is run_gym's caller's (gym.run: its Setup.device), not chosen again; a bad one
    # is the first run's fit's ValueError, before it trains, and gym.run's before any run
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        run_gym(TINY, models=["SRN"], languages=["anbn"], device="tpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        gym.run(models=["SRN"], languages=["anbn"], device="tpu")


def test_flnn_off_its_ground_is_skipped_or_refused():
    assert applicable("FLNN", "dyck") and not applicable("FLNN", "anbn")
    assert not applicable("FLNN", "palindrome") and not applicable("FLNN", "cross_serial")
    assert applicable("LSTM", "agreement")
    with pytest.raises(ValueError, match="FLNN runs only on dyck"):
        run_gym(TINY, models=["FLNN"], languages=["anbn"])
    rows = run_gym(TINY, models=["FLNN", "SRN"], languages=["anbn"], device="cpu")
    assert [r.model for r in rows] == ["SRN"]


def test_settings_are_typed_and_criteria_not_budgets():
    for scale in ("quick", "paper"):
        settings = SETTINGS[scale]
        assert isinstance(settings, GymSettings)
        assert set(settings.languages) == set(GYM_LANGUAGES)
        assert settings.patience >= 5
        assert all(lang.epochs >= 100 for lang in settings.languages.values()), \
            "epochs are a generous cap; training stops on a plateau"


def test_settings_say_what_is_wrong_before_any_training():
    """A language's settings are checked against what its data needs; --set's JSON text
    changes only the entries it names."""
    small = SETTINGS["quick"].replace(languages='{"anbn": {"epochs": 2}}')
    assert small.languages["anbn"] == SETTINGS["quick"].languages["anbn"].replace(epochs=2)
    assert small.languages["dyck"] == SETTINGS["quick"].languages["dyck"]
    assert small.training("anbn") == (10, 0.02, 10) and small.training("dyck") == (64, 0.01, 5)
    # a language's unset entries stay out of results.json, as in the old dicts
    assert small.to_json()["languages"]["cross_serial"] == {"train": 640, "epochs": 300}
    with pytest.raises(ValueError, match="'cross_serial' does not take 'valid'"):
        TINY.replace(languages={"cross_serial": {"valid": 3}})
    with pytest.raises(ValueError, match="'dyck' needs 'pairs'"):
        TINY.replace(languages={"dyck": GymLanguageSettings(train=8, valid=8, epochs=1,
                                                            test=8)})
    with pytest.raises(ValueError, match="unknown language.*'klingon'"):
        TINY.replace(languages={"klingon": {"epochs": 1}})
    with pytest.raises(ValueError, match="setting 'epochs' must be a number ≥ 1"):
        TINY.replace(languages={"anbn": {"epochs": 0}})
    with pytest.raises(ValueError, match="setting 'lr' must be a number > 0"):
        TINY.replace(lr=0)


def test_a_language_may_set_its_own_learning_rate():
    kwargs = dict(models=["SRN"], languages=["anbn"], device="cpu")
    slow = run_gym(TINY.replace(languages={"anbn": {"lr": 1e-6}}), **kwargs)[0]
    fast = run_gym(TINY.replace(languages={"anbn": {"lr": 0.05}}), **kwargs)[0]
    assert slow.final_loss != fast.final_loss


def fake_row(model, language, own, converged=True, seed=0, breakdown=None):
    return GymRun(model=model, language=language, seed=seed, params=10, train_seconds=1.0,
                  epochs=5, converged=converged, final_loss=0.5, valid_loss=0.5,
                  valid_strings=0.5, valid_positions=0.9, own_metric=OWN_METRICS[language],
                  own=own, breakdown=breakdown)


def test_table_marks_unconverged_cells():
    rows = [fake_row("LSTM", "anbn", 12), fake_row("SRN", "anbn", 3, converged=False),
            fake_row("SRN", "anbn", 4, seed=1)]
    table = {line["model"]: line for line in gym.gym_table(rows)}
    header = "anbn: valid (max_correct_n)"
    assert table["LSTM"][header] == "0.50 (12.0)"
    assert table["SRN"][header] == "not converged (1 of 2 seeds)"
    means = gym.cell_means(rows)
    assert means["SRN", "anbn"].converged == 1 and means["SRN", "anbn"].n == 2
    figure = gym.gym_heatmap(rows)
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert "not\nconverged" in texts


def test_claims_wait_for_convergence_and_the_doubled_budget():
    """A claim agrees, is budget-limited when twice the training closes the gap, differs when it
    does not, and has no verdict while a run behind it has not converged."""
    cells = [("LSTM", 12), ("SRN", 3), ("GRU", 5), ("DRNN", 4), ("URN", 2)]
    agree = [fake_row(m, "anbn", v) for m, v in cells]
    rows = {r.quantity: r for r in gym.gym_claims(agree)}
    counting = "for counting (a^n b^n), the LSTM works best (max_correct_n)"
    assert rows[counting].verdict == "agrees"
    assert gym.cells_to_double(agree) == set()
    losing = [fake_row(m, "anbn", v if m != "GRU" else 20) for m, v in cells]
    assert gym.cells_to_double(losing) == {(m, "anbn") for m, _ in cells}

    def doubled(own):
        return [fake_row(m, "anbn", v if m != "GRU" else own) for m, v in cells]

    rows = {r.quantity: r for r in gym.gym_claims(losing, doubled(13))}
    assert rows[counting].verdict == "budget-limited"
    rows = {r.quantity: r for r in gym.gym_claims(losing, doubled(19))}
    assert rows[counting].verdict == "differs"
    unconverged = [fake_row(m, "anbn", v, converged=m != "SRN") for m, v in cells]
    assert gym.cells_to_double(unconverged) == set()
    rows = {r.quantity: r for r in gym.gym_claims(unconverged)}
    assert rows[counting].verdict == "not converged"
    with pytest.raises(ValueError, match="twice the budget"):
        gym.gym_claims(losing)


def test_flnn_claim_is_not_comparable_and_dyck_uses_chapter_6_cuts():
    cuts = {k: 0.9 for k in gym.dyck_cuts(gym.DYCK_DEPTH)}
    rows = gym.gym_claims([fake_row("FLNN", "dyck", 0.8, breakdown=cuts),
                           fake_row("URN", "dyck", 0.8, breakdown=cuts)])
    verdicts = {r.quantity[:20]: r.verdict for r in rows}
    assert verdicts["the FLNN learns a st"] == "not comparable"
    assert verdicts["the URN's closing ac"] == "agrees"
    table = gym.dyck_breakdown_table([fake_row("URN", "dyck", 0.8, breakdown=cuts)])
    assert table[0]["model"] == "URN" and "outer depth ≥ 5, unseen" in table[0]


def test_run_is_a_replication_with_every_run_recorded(monkeypatch):
    result = gym.run(seeds=1, device="cpu", models=["SRN", "URN"], languages=["anbn", "dyck"],
                     settings=SMOKE, progress=False)
    assert isinstance(result, Replication) and result.experiment == "gym"
    assert set(result.runs) == {f"{m} on {lang} seed 0" for m in ("SRN", "URN")
                                for lang in ("anbn", "dyck")}
    assert {"heatmap", "curves_anbn", "curves_dyck"} <= set(result.figures)
    assert not result.unrecorded()
    assert result.settings == TINY
    assert all("history" not in r for r in result.to_json()["numbers"]["runs"])
    assert result.numbers.cell("URN", "dyck").breakdown is not None
    assert result.artefacts.dyck_breakdown[0]["model"] == "SRN"
    assert ("URN", "anbn", 0) in result.artefacts.models
