"""The syntax gym (chapter 7) on a tiny setting: rows, subsets, skips and clear errors."""

import math

import pytest

from course_rnn.experiments import GYM_LANGUAGES, GYM_MODELS, gym_settings, run_gym
from course_rnn.experiments.gym import FLNN_LANGUAGES, OWN_METRICS, applicable

KEYS = {"model", "language", "seed", "params", "train_seconds", "epochs", "final_loss",
        "valid_strings", "valid_positions", "own_metric", "own"}


@pytest.fixture(scope="module")
def smoke_rows():
    return run_gym("smoke", seeds=(0,), device="cpu")


def test_smoke_covers_every_applicable_pair(smoke_rows):
    pairs = {(r["model"], r["language"]) for r in smoke_rows}
    expected = {(m, lang) for m in GYM_MODELS for lang in GYM_LANGUAGES if applicable(m, lang)}
    assert pairs == expected
    assert len(smoke_rows) == len(expected)
    # the FLNN runs only where it applies
    assert {lang for m, lang in pairs if m == "FLNN"} == set(FLNN_LANGUAGES)


def test_rows_are_well_formed(smoke_rows):
    for row in smoke_rows:
        assert set(row) == KEYS
        assert row["params"] > 0 and row["train_seconds"] >= 0
        assert 0.0 <= row["valid_strings"] <= 1.0 and 0.0 <= row["valid_positions"] <= 1.0
        assert row["valid_strings"] <= row["valid_positions"] + 1e-9
        assert row["own_metric"] == OWN_METRICS[row["language"]]
        assert math.isfinite(row["final_loss"]) and math.isfinite(row["own"])
        if row["language"] != "anbn":
            assert 0.0 <= row["own"] <= 1.0
        else:
            assert row["own"] == int(row["own"]) >= 0


def test_subsets_seeds_and_overrides_are_reproducible():
    kwargs = dict(models=["SRN"], languages=["cross_serial"], device="cpu",
                  settings={"hidden": 3, "languages": {"cross_serial": {"train": 32}}})
    a = run_gym("smoke", seeds=(0, 1), **kwargs)
    b = run_gym("smoke", seeds=(0, 1), **kwargs)
    assert [(r["model"], r["language"], r["seed"]) for r in a] == [
        ("SRN", "cross_serial", 0), ("SRN", "cross_serial", 1)]
    assert [r["final_loss"] for r in a] == [r["final_loss"] for r in b]
    # hidden=3 with one-hot inputs of 7: 3*7 + 3*3 + 2*3 (biases) + 3*7 + 7 (readout)
    assert a[0]["params"] == 3 * 7 + 3 * 3 + 2 * 3 + 3 * 7 + 7


def test_unknown_names_are_clear():
    with pytest.raises(ValueError, match="unknown model.*'TRANSFORMER'.*SRN"):
        run_gym("smoke", models=["TRANSFORMER"])
    with pytest.raises(ValueError, match="unknown language.*'klingon'.*anbn"):
        run_gym("smoke", languages=["klingon"])
    with pytest.raises(ValueError, match="unknown gym scale 'huge'"):
        gym_settings("huge")
    with pytest.raises(ValueError, match="unknown gym setting 'hiden'"):
        run_gym("smoke", models=["SRN"], languages=["anbn"], settings={"hiden": 3})
    with pytest.raises(ValueError, match="no model given"):
        run_gym("smoke", models=[])
    with pytest.raises(ValueError, match="at least one seed"):
        run_gym("smoke", models=["SRN"], languages=["anbn"], seeds=())


def test_flnn_off_its_ground_is_skipped_or_refused():
    assert not applicable("FLNN", "dyck") and applicable("FLNN", "anbn")
    assert applicable("LSTM", "agreement")
    with pytest.raises(ValueError, match="FLNN runs only on"):
        run_gym("smoke", models=["FLNN"], languages=["dyck"])
    rows = run_gym("smoke", models=["FLNN", "SRN"], languages=["dyck"], device="cpu")
    assert [r["model"] for r in rows] == ["SRN"]


def test_settings_are_copies():
    s = gym_settings("default")
    s["hidden"] = 1
    assert gym_settings("default")["hidden"] != 1
    assert set(gym_settings("paper")["languages"]) == set(GYM_LANGUAGES)


def test_a_language_may_set_its_own_learning_rate():
    kwargs = dict(models=["SRN"], languages=["anbn"], device="cpu")
    slow = run_gym("smoke", settings={"languages": {"anbn": {"lr": 1e-6}}}, **kwargs)[0]
    fast = run_gym("smoke", settings={"languages": {"anbn": {"lr": 0.05}}}, **kwargs)[0]
    assert slow["final_loss"] != fast["final_loss"]
