"""The base of every experiment's settings (experiments/settings.py), the typed records
(records.py) and the shared start of a run (setup.py), on a small made-up experiment."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import ClassVar

import pytest

from course_rnn.experiments.records import Record, Summary, saved_if_set, to_json, unsaved
from course_rnn.experiments.replication import Experiment, Replication, normalise_scale
from course_rnn.experiments.settings import SCALES, Scales, Settings, setting
from course_rnn.experiments.setup import begin
from course_rnn.utils import pick_device


@dataclass(frozen=True)
class Toy(Settings):
    experiment: ClassVar[str] = "toy"
    hints: ClassVar[dict[str, str]] = {"seeds": " (pass seeds= to run())"}

    hidden: int = setting(at_least=1)
    lr: float = setting(above=0)
    share: float = setting(between=(0, 1))
    model: str = setting(one_of=("srn", "lstm"))
    starts: tuple[float, ...] = setting(between=(0, 1))
    regime: tuple[int, float] = setting(check=lambda v: v[0] >= 1, says="(batch ≥ 1, rate)")
    cap: int | None = setting(at_least=1)
    seed: int = setting()
    verbose: bool = setting()

    def check(self) -> None:
        if self.hidden > 100 and self.model == "srn":
            raise ValueError(f"setting 'hidden' = {self.hidden} is too big for an srn")


QUICK = Toy(hidden=8, lr=0.01, share=0.1, model="srn", starts=[0.2, 0.9], regime=(8, 0.1),
            cap=None, seed=0, verbose=False)
TOYS = Scales(quick=QUICK, paper=QUICK.replace(hidden=64, model="lstm"))


def test_a_settings_instance_is_checked_and_normalised():
    assert QUICK.starts == (0.2, 0.9)  # a list becomes a tuple (hashable, frozen)
    assert isinstance(QUICK.lr, float) and hash(QUICK) == hash(QUICK.replace())
    assert Toy(**{**QUICK.to_json(), "lr": 1}).lr == 1.0  # an int is a number
    with pytest.raises(dataclasses.FrozenInstanceError):
        QUICK.hidden = 3


@pytest.mark.parametrize("overrides, message", [
    ({"hiden": 3}, "unknown setting(s) 'hiden' for toy: choose from hidden, lr"),
    ({"seeds": 3}, "'seeds' for toy (pass seeds= to run())"),
    ({"hidden": 0}, "setting 'hidden' must be a number ≥ 1, got 0"),
    ({"hidden": 2.5}, "setting 'hidden' must be an integer, got 2.5"),
    ({"hidden": True}, "setting 'hidden' must be an integer, got True"),
    ({"lr": 0}, "setting 'lr' must be a number > 0"),
    ({"share": 1.0}, "setting 'share' must be a number strictly between 0 and 1"),
    ({"model": "gru"}, "setting 'model' must be one of srn, lstm, got 'gru'"),
    ({"starts": (0.5, 1.5)}, "setting 'starts': every element must be a number strictly between"),
    ({"regime": (0, 0.1)}, "setting 'regime' must be (batch ≥ 1, rate), got (0, 0.1)"),
    ({"regime": (1, 2, 3)}, "setting 'regime' must be (an integer, a number)"),
    ({"cap": 0}, "setting 'cap' must be a number ≥ 1, got 0"),
    ({"hidden": 200}, "setting 'hidden' = 200 is too big for an srn"),
    ({"lr": "fast"}, "setting 'lr' must be a number, got 'fast'"),
    ({"seed": "1.5"}, "setting 'seed' must be an integer, got 1.5"),
    ({"lr": 1e12}, "setting 'lr' must be at most 100 (a learning rate"),
    ({"cap": 10**9}, "setting 'cap' must be at most 100,000,000 (a count"),
    ({"regime": (10**9, 0.1)}, "setting 'regime' must be at most 100,000,000 (a count"),
])
def test_a_bad_value_is_named(overrides, message):
    with pytest.raises(ValueError) as error:
        QUICK.replace(overrides)
    assert message in str(error.value)


def test_a_seed_may_be_any_integer_and_every_scale_is_under_its_ceilings():
    assert QUICK.replace(seed=10**12).seed == 10**12  # a seed is no count
    from course_rnn.experiments import NAMES, check_overrides
    from course_rnn.experiments.settings import ceiling

    assert ceiling("lm_hidden_size")[1] == "a layer's width" and ceiling("data_seed") is None
    for name in NAMES:  # every experiment's own scales pass their ceilings
        for scale in ("quick", "paper"):
            check_overrides(name, scale, {})


def test_text_is_read_by_the_fields_type():
    """What ``--set KEY=VALUE`` hands over: text, read as the field's type."""
    read = QUICK.replace(hidden="16", lr="1e-3", share="0.5", model="lstm", starts="0.3,0.4",
                         regime="[4, 0.5]", cap="none", seed="-2", verbose="true")
    assert read == QUICK.replace(hidden=16, lr=0.001, share=0.5, model="lstm",
                                 starts=(0.3, 0.4), regime=(4, 0.5), cap=None, seed=-2,
                                 verbose=True)
    assert QUICK.replace(cap="12").cap == 12 and QUICK.replace(starts="[0.5]").starts == (0.5,)
    assert QUICK.replace(starts=0.5).starts == (0.5,)  # one value for a list of them


def test_to_json_is_what_results_json_saves():
    saved = QUICK.to_json()
    assert saved["starts"] == [0.2, 0.9] and saved["regime"] == [8, 0.1]
    assert list(saved) == list(Toy.names())
    assert Toy(**saved) == QUICK  # and reads back
    result = Replication("toy", "t", "quick", [0], "cpu", QUICK, {}, [])
    assert result.to_json()["settings"] == saved


def test_scales_one_name_each():
    assert SCALES == ("quick", "paper", "full") and list(TOYS) == ["quick", "paper"]
    assert "quick" in TOYS and "default" not in TOYS and "huge" not in TOYS
    with pytest.raises(ValueError, match="unknown scale 'default'.*called 'quick'"):
        TOYS["default"]  # no old name: the book's scale is "quick" everywhere
    assert normalise_scale(None) == "quick"
    assert TOYS.at("paper", {"hidden": "32"}).hidden == 32 and TOYS.kind is Toy
    with pytest.raises(ValueError, match="unknown scale 'huge'"):
        TOYS.at("huge")
    with pytest.raises(ValueError, match="scales quick, paper"):
        Scales(quick=QUICK)


def test_full_is_a_scale_only_where_declared():
    """ "full" is for experiments whose paper size is out of a CPU's hour; the others say so."""
    with pytest.raises(ValueError, match="has no .full. scale: choose one of quick, paper"):
        TOYS.at("full")
    assert "full" not in TOYS
    big = QUICK.replace(hidden=32)
    three = Scales(quick=QUICK, paper=QUICK.replace(hidden=16), full=big)
    assert list(three) == ["quick", "paper", "full"] and three["full"] is big and "full" in three
    with pytest.raises(ValueError, match="got quick, paper, huge"):
        Scales(quick=QUICK, paper=QUICK, huge=QUICK)


@dataclass
class Inner(Record):
    value: float
    note: str = dataclasses.field(default="", metadata={"saved": False})


@dataclass
class Outer(Record):
    inner: Inner
    by_key: dict
    items: list
    summary: Summary
    scratch: object = unsaved(default=None)
    later: Inner | None = saved_if_set()


def test_records_save_as_nested_dictionaries():
    record = Outer(Inner(1.5, "kept in Python"), {0: Inner(2.0)}, [Inner(3.0)],
                   Summary.of([1.0, 3.0]), scratch=object())
    assert record.to_json() == {"inner": {"value": 1.5}, "by_key": {0: {"value": 2.0}},
                                "items": [{"value": 3.0}],
                                "summary": {"values": [1.0, 3.0], "mean": 2.0,
                                            "se": pytest.approx(1.0)}}
    assert "later" not in record.to_json()  # saved only once it is set
    record.later = Inner(4.0)
    assert record.to_json()["later"] == {"value": 4.0}
    result = Replication("toy", "t", "quick", [0], "cpu", QUICK, record, [])
    saved = json.loads(json.dumps(result.to_json()))
    assert saved["numbers"]["by_key"] == {"0": {"value": 2.0}}  # JSON keys are text
    assert math.isnan(Summary.of([4.0]).se)


@dataclass(frozen=True)
class PlainSummary:  # a summary computed from records: a dataclass, not a Record
    pair: tuple
    inner: Inner
    scratch: object = unsaved(default=None)
    optional: list | None = saved_if_set()


def test_plain_dataclasses_save_by_the_records_rule():
    plain = PlainSummary((1, 2.5), Inner(1.5, "kept in Python"), scratch=object())
    assert to_json({"a": plain}) == {"a": {"pair": [1, 2.5], "inner": {"value": 1.5}}}
    assert list(to_json(PlainSummary((), Inner(0.0), optional=[3]))) == ["pair", "inner",
                                                                          "optional"]
    assert to_json(PlainSummary) is PlainSummary  # a class is kept as it is
    assert to_json(None) is None


def _run(**kwargs):
    return None


TOY = Experiment("toy", "A toy", "00_toy", _run, settings=TOYS)


def test_begin_checks_every_argument_before_any_work():
    setup = begin(TOY, TOYS, None, {"hidden": 4}, seeds=None, default_seeds={"quick": 2,
                                                                                   "paper": 5})
    assert setup.scale == "quick" and setup.settings.hidden == 4 and setup.seeds == [0, 1]
    assert setup.device == pick_device()  # the default device ($COURSE_RNN_DEVICE, a GPU …)
    assert begin(TOY, TOYS, "paper", seeds=[3, 7], device="cpu").seeds == [3, 7]
    # the default count may be a setting (the seeds are part of the settings, as in bengio)
    assert begin(TOY, TOYS, "quick", {"hidden": 3}, default_seeds="hidden",
                 device="cpu").seeds == [0, 1, 2]
    for bad, message in [(dict(seeds=[1, 1]), "seeds must be different"),
                         (dict(seeds=0), "number of seeds must be a positive"),
                         (dict(scale="huge"), "huge"),
                         (dict(settings={"lr": -1}), "setting 'lr'"),
                         (dict(device="tpu"), "tpu")]:
        arguments = {"scale": "quick", "device": "cpu", **bad}
        with pytest.raises(ValueError, match=message):
            begin(TOY, TOYS, **arguments)
    result = setup.replication(Outer(Inner(1.0), {}, [], Summary.of([1.0])), [], {})
    assert result.experiment == "toy" and result.title == "A toy" and result.seconds >= 0
    assert result.settings is setup.settings and result.seeds == [0, 1]


@dataclass(frozen=True)
class Lang(Settings):
    experiment: ClassVar[str] = "toy language"
    train: int = setting(at_least=1)
    epochs: int = setting(at_least=1)


@dataclass(frozen=True)
class Gym(Settings):
    experiment: ClassVar[str] = "toy gym"
    hidden: int = setting(at_least=1)
    languages: dict[str, Lang] = setting()


def test_nested_settings_merge_what_an_override_names():
    """The gym's shape: one settings record per language, overridden entry by entry."""
    gym = Gym(hidden=4, languages={"anbn": {"train": 10, "epochs": 5},
                                   "dyck": Lang(train=20, epochs=3)})
    assert gym.languages["anbn"] == Lang(train=10, epochs=5)  # a dict becomes a Lang
    small = gym.replace(languages={"anbn": {"epochs": 2}})
    assert small.languages == {"anbn": Lang(10, 2), "dyck": Lang(20, 3)}
    assert gym.replace(languages='{"dyck": {"train": 7}}').languages["dyck"] == Lang(7, 3)
    assert small.to_json() == {"hidden": 4, "languages": {"anbn": {"train": 10, "epochs": 2},
                                                          "dyck": {"train": 20, "epochs": 3}}}
    with pytest.raises(ValueError, match="unknown setting.*'epoch' for toy language"):
        gym.replace(languages={"anbn": {"epoch": 2}})
    with pytest.raises(ValueError, match="setting 'epochs' must be a number ≥ 1"):
        gym.replace(languages={"dyck": {"epochs": 0}})
