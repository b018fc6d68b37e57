"""Answers as data (:mod:`course_rnn.grading.answers`): the format between the submission's
sandbox and the measuring one, and the record/replay of a probe's reads of the answers."""

from __future__ import annotations

import ast
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from course_rnn.grading.answers import (
    Recorder,
    Replayer,
    ReplayError,
    Unreportable,
    bound_names,
    decode,
    encode,
    rewrite_probe,
)
from course_rnn.grading.child import _run_with_alarm
from course_rnn.grading.safejson import parse_json


def wire(obj):
    """Through JSON and the strict parser, as the measuring sandbox reads it."""
    return decode(parse_json(json.dumps(encode(obj)), max_depth=128))


@pytest.mark.parametrize("obj", [
    None, True, 3, -2.5, "x", (1, 2.0), [1, [2, "a"]], {"a": 1, 2: (3,)}, {1, 2},
    torch.tensor([[1.5, -2.0]], dtype=torch.float64), torch.tensor([1, 2]),
    torch.tensor(0.25), torch.tensor([True, False]), np.array([[1, 2]], dtype=np.int32),
    np.float32(0.5), float("nan"),
])
def test_answers_keep_their_exact_kind(obj):
    back = wire(obj)
    assert type(back) is type(obj)
    if isinstance(obj, torch.Tensor):
        assert back.dtype == obj.dtype and torch.equal(back, obj)
    elif isinstance(obj, np.ndarray):
        assert back.dtype == obj.dtype and (back == obj).all()
    elif isinstance(obj, float) and math.isnan(obj):
        assert math.isnan(back)
    else:
        assert back == obj


def test_a_record_comes_back_as_its_public_fields_and_properties():
    class Run:
        def __init__(self):
            self.losses = [1.0, 0.5]
            self._hidden = 1

        @property
        def converged(self):
            return True

    back = wire(Run())
    assert back == SimpleNamespace(losses=[1.0, 0.5], converged=True)


@pytest.mark.parametrize("obj", [lambda: 1, (x for x in ()), torch.nn.Linear(1, 1),
                                 torch.zeros(2, dtype=torch.complex64)])
def test_what_is_not_data_is_not_reported(obj):
    with pytest.raises(Unreportable):
        encode(obj)


@pytest.mark.parametrize("desc", [
    {"t": "tensor", "dtype": "float32", "shape": [3], "data": [1.0]},
    {"t": "tensor", "dtype": "object", "shape": [1], "data": [1]},
    {"t": "ndarray", "dtype": "O", "shape": [1], "data": [1]},
    {"t": "tensor", "dtype": "float32", "shape": [-1], "data": []},
    {"t": "int", "v": "1"}, {"t": "object", "fields": [["__class__", {"t": "none"}]]},
    {"t": "pickle", "v": "gASV"}, "x",
])
def test_a_malformed_answer_is_refused(desc):
    with pytest.raises(ValueError):
        decode(desc)


def test_probes_read_answers_through_one_door():
    code = ("p = kn_unigram(train)\ndef f(x):\n    return perplexity(x)\n"
            "[f(v) for v in p.values()]")
    rewritten = rewrite_probe(code, {"kn_unigram", "perplexity", "p"})
    assert "__answer__('kn_unigram')(train)" in rewritten
    assert "__answer__('perplexity')(x)" in rewritten
    assert "__answer__('p')" not in rewritten  # bound by the probe itself


def test_the_names_code_binds_are_read_one_way_for_provided_code_and_probes():
    code = ("import torch.nn as tnn\nfrom math import log as ln\nx, (y, *z) = 1, (2, 3)\n"
            "def train(model, *args, lr=0.1, **options):\n    inner = model\n"
            "async def fetch(): pass\nclass Net: pass\nfor i in range(3): pass\n"
            "with open('f') as handle: pass\ndel gone\nscore = lambda run: run.loss\n"
            "print(answer)\n")
    provided = {"tnn", "ln", "x", "y", "z", "train", "inner", "fetch", "Net", "i", "handle",
                "gone", "score"}
    # the provided code's functions' arguments are theirs alone: an answer may share a name
    assert bound_names(code) == provided
    # a probe's own arguments (a lambda's) are never read as an answer
    assert bound_names(code, arguments=True) == provided | {"model", "args", "lr", "options",
                                                            "run"}
    assert bound_names(ast.parse(code)) == provided  # a parsed tree reads the same
    assert bound_names("def broken(:") == set()  # code that does not parse binds nothing


def test_recorded_answers_replay_with_the_course_code_measuring():
    """A probe's calls are replayed in order: outputs, in-place changes of tensor and model
    arguments, raised errors; calls made from inside an answer are not the probe's."""
    def clip(grads, limit):
        for g in grads:
            g.mul_(0.5)
        return helper(limit)

    def helper(limit):
        return limit * 2

    def set_weights(model):
        with torch.no_grad():
            model.weight.fill_(3.0)

    def picky(x):
        raise ValueError("no")

    namespace = {"clip": clip, "helper": helper, "set_weights": set_weights, "picky": picky}
    probe = ("g = [torch.ones(2)]\nn = clip(g, 1.0)\nm = torch.nn.Linear(1, 1)\n"
             "set_weights(m)\ntry:\n    picky(1)\nexcept ValueError as e:\n    r = str(e)\n"
             "[n, g, m.weight.item(), r]")
    code = rewrite_probe(probe, namespace)
    recorder = Recorder({**namespace, "torch": torch})
    recorder.install(namespace)
    recorder.start()
    run = {"torch": torch, "__answer__": recorder, **recorder.namespace}
    exec(code, run)
    events = json.loads(json.dumps(recorder.events))
    assert [e["k"] for e in events] == ["function", "call", "function", "call", "function",
                                        "raise"]
    replayer = Replayer()
    replayer.start(events)
    measure = {"torch": torch, "__answer__": replayer}
    *body, last = code.split("\n")
    exec("\n".join(body), measure)
    n, g, w, r = eval(last, measure)
    assert n == 2.0 and torch.equal(g[0], torch.full((2,), 0.5)) and w == 3.0 and r == "no"


def test_a_replay_without_its_answer_fails_the_probe_not_the_run():
    replayer = Replayer()
    replayer.start([{"k": "value", "name": "other", "v": {"t": "int", "v": 1}}])
    with pytest.raises(ReplayError):
        replayer("mine")
    replayer.start([])
    with pytest.raises(ReplayError):
        replayer("mine")


def test_an_alarm_never_rings_outside_its_try():
    """A deep recursion's RecursionError handled as the alarm rings once ended the child
    (issue 42): the timer is disarmed before any handler runs."""
    import time

    def slow_handler():
        try:
            raise RuntimeError("x")
        finally:
            time.sleep(0.3)

    assert _run_with_alarm(slow_handler, 0.1).startswith("_CellTimeout")
    assert _run_with_alarm(lambda: None, 0.05) is None
    time.sleep(0.1)  # nothing rings afterwards


def test_a_malformed_replayed_answer_is_not_a_graded_error():
    """An unhashable dict key decodes to a TypeError, which a probe would report as the answer
    "raised TypeError": the replay makes it a ReplayError (the case earns nothing)."""
    replayer = Replayer()
    bad = {"t": "dict", "items": [[{"t": "list", "items": []}, {"t": "none"}]]}
    replayer.start([{"k": "value", "name": "d", "v": bad}])
    with pytest.raises(ReplayError):
        replayer("d")
