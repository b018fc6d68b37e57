"""An audit of bad and odd calls to the library's public API.

    .venv/bin/python benchmarks/api_audit.py            # writes benchmarks/results/api_audit.*
    .venv/bin/python benchmarks/api_audit.py --no-write # prints the counts only

It generates a systematic set of calls — every public constructor and function of
``course_rnn.languages``, ``course_rnn.models`` (``build_model`` and each kind), ``course_rnn
.training`` (``fit``, the criteria, the schedules, the tasks), ``course_rnn.metrics``,
``course_rnn.corpus`` and every experiment's settings (through the command line's ``--set``
reading) — each given one bad or odd value per argument (a wrong type, a bool, zero, a
negative, NaN, ±inf, an empty input, a bad shape or dtype), runs it and files the outcome:

* ``clear``: a ValueError or TypeError raised by course_rnn's own code (the innermost frame is
  in ``src/course_rnn``) whose message names the argument;
* ``deep``: an exception raised inside torch, NumPy or Python (the innermost frame is not
  course_rnn's): the allocator, an AttributeError three calls down;
* ``unclear``: an exception raised by course_rnn's own code that is not a ValueError or
  TypeError naming the argument (an IndexError, a message about something else);
* ``garbage``: no error, but a non-finite number (or a wrong-shaped result) comes back;
* ``accepted``: a bad value taken without an error (accepted nonsense);
* ``ok``: a valid edge case (``expect="ok"``) that worked; ``refused``: one that raised.

Two groups generate the classes of issue 42's "last 97": ``extremes`` gives every numeric
setting of training, the criteria, the schedules, the init hooks and the models an absurd
value (1e12, or 10**12 for a count or a size; PDDA 1 a point of NaNs), and ``inputs`` the calls
that once failed deep or unclearly (``fit(device='meta')``, checkpoint files that are not one,
a cell's step on a long or float64 input, metrics given None). Language sizes
(``max_n=10**12``), ``Optimum``'s numbers and a loss ``Target`` are not given extremes yet.

A good library has deep = unclear = garbage = accepted = refused = 0. The run also times how long
``python -m course_rnn replicate anbn --set models=[]`` takes to refuse (the refusal must come
before torch is imported). Results: ``benchmarks/results/api_audit.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
import traceback
import typing
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("COURSE_RNN_PROGRESS", "0")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import course_rnn  # noqa: E402

PACKAGE = Path(course_rnn.__file__).resolve().parent
NAN, INF = float("nan"), float("inf")
BAD_SIZES = (0, -3, 2.5, True, "4", None, NAN)       # for a positive integer
BAD_COUNTS = (-1, 2.5, True, "3", NAN)                # for an integer ≥ 0
BAD_NUMBERS = (NAN, INF, -INF, "0.1", True, None)     # for any finite number
BAD_SEEDS = (-1, 2.5, "x", True)
HUGE, HUGE_INT = 1e12, 10**12                         # an absurd setting, a size to allocate
OUTCOMES = ("clear", "deep", "unclear", "garbage", "accepted", "ok", "refused")
BAD = ("deep", "unclear", "garbage", "accepted", "refused")  # each should be 0


@dataclass
class Case:
    group: str      # the class of mistake's home: languages, models, training …
    name: str       # the call, readably
    call: typing.Callable
    names: tuple    # a message must contain one of these to be "clear"
    expect: str = "error"  # or "ok": a valid edge case


# -- helpers ---------------------------------------------------------------------------------------
def _innermost_in_package(tb) -> bool:
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    return Path(last.tb_frame.f_code.co_filename).resolve().is_relative_to(PACKAGE)


def _non_finite(value) -> bool:
    if isinstance(value, torch.Tensor):
        return value.is_floating_point() and not bool(torch.isfinite(value).all())
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f" and not bool(np.isfinite(value).all())
    if isinstance(value, (float, np.floating)):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if hasattr(value, "epochs") and hasattr(value, "convergence"):  # a History
        return any(_non_finite(e.get("train_loss", 0.0)) for e in value.epochs)
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v) for v in value[:50])
    return False


def classify(case: Case) -> tuple[str, str]:
    """(outcome, what happened, in a few words)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = case.call()
    except Exception as err:  # noqa: BLE001 - the audit files every exception
        message = f"{type(err).__name__}: {err}".replace("\n", " ")[:160]
        if case.expect == "ok":
            return "refused", message
        ours = _innermost_in_package(err.__traceback__)
        named = any(n in str(err) for n in case.names)
        if isinstance(err, (ValueError, TypeError, FileNotFoundError)) and ours and named:
            return "clear", message
        where = traceback.extract_tb(err.__traceback__)[-1]
        return "unclear" if ours else "deep", \
            f"{message} [at {Path(where.filename).name}:{where.lineno}]"
    if _non_finite(result):
        return "garbage", f"returned {str(result)[:100]}"
    if case.expect == "ok":
        return "ok", "worked"
    return "accepted", f"returned {type(result).__name__}"


# -- the cases -------------------------------------------------------------------------------------
def language_cases():
    from course_rnn import languages as L

    yield Case("languages", "make_language('nope')", lambda: L.make_language("nope"),
               ("language",))
    yield Case("languages", "make_language(3)", lambda: L.make_language(3), ("language",))
    yield Case("languages", "make_language('cross_serial', max_n=3)",
               lambda: L.make_language("cross_serial", max_n=3), ("max_n",))
    yield Case("languages", "make_language('anbn', maxn=3)",
               lambda: L.make_language("anbn", maxn=3), ("maxn",))
    for v in (*BAD_SIZES, HUGE_INT):
        yield Case("languages", f"AnBn(max_n={v!r})", lambda v=v: L.AnBn(max_n=v), ("max_n",))
        yield Case("languages", f"AnBn(min_n={v!r})", lambda v=v: L.AnBn(min_n=v), ("min_n",))
        yield Case("languages", f"AnBnCn(max_n={v!r})", lambda v=v: L.AnBnCn(max_n=v),
                   ("max_n",))
    for v in (*BAD_COUNTS, HUGE_INT):
        yield Case("languages", f"Agreement(max_pps={v!r})", lambda v=v: L.Agreement(max_pps=v),
                   ("max_pps",))
    for v in (0, -1, "", [], [("(", "(")], 2.5, None):
        yield Case("languages", f"Dyck(pairs={v!r})", lambda v=v: L.Dyck(v), ("pair",))
    for v in ("", 5, None, "aa"):
        yield Case("languages", f"Palindrome(alphabet={v!r})", lambda v=v: L.Palindrome(v),
                   ("alphabet",))
    yield Case("languages", "Palindrome(marker='a')", lambda: L.Palindrome("ab", "a"),
               ("marker",))
    yield Case("languages", "TaborGrammar1(end_marker='yes')",
               lambda: L.TaborGrammar1(end_marker="yes"), ("end_marker",))
    anbn = L.AnBn(max_n=4)
    for v in (*BAD_COUNTS, None, "x", HUGE_INT):
        yield Case("languages", f"AnBn().sample(n={v!r})", lambda v=v: anbn.sample(v), ("n",))
    # a string's length or depth past MAX_LENGTH, an enumeration past its own limit
    yield Case("languages", "AnBn.string(10**12)", lambda: L.AnBn.string(HUGE_INT), ("n",))
    yield Case("languages", "CrossSerial.string(10**12, 1)",
               lambda: L.CrossSerial.string(HUGE_INT, 1), ("m",))
    yield Case("languages", "Dyck().sample(2, length=10**12)",
               lambda: L.Dyck().sample(2, length=HUGE_INT), ("length",))
    yield Case("languages", "Palindrome().sample(2, max_half=10**12)",
               lambda: L.Palindrome().sample(2, max_half=HUGE_INT), ("max_half",))
    yield Case("languages", "TaborGrammar2().sentences(30)",
               lambda: L.TaborGrammar2().sentences(30), ("max_depth",))
    yield Case("languages", "PDDA1().stack_map(40)", lambda: L.PDDA1().stack_map(40), ("depth",))
    for v in BAD_SEEDS:
        yield Case("languages", f"AnBn().sample(3, seed={v!r})", lambda v=v: anbn.sample(3, v),
                   ("seed",))
    yield Case("languages", "AnBn().sample(0)", lambda: anbn.sample(0), (), expect="ok")
    for lang_name, lang in (("AnBn", anbn), ("Dyck", L.Dyck()), ("Elman", L.ElmanTemplates())):
        for v in (5, None, ["z"], 2.5):
            yield Case("languages", f"{lang_name}.is_member({v!r})",
                       lambda v=v, lang=lang: lang.is_member(v), ("symbol", "string", "seq"))
            yield Case("languages", f"{lang_name}.valid_next({v!r})",
                       lambda v=v, lang=lang: lang.valid_next(v), ("symbol", "prefix", "seq"))
        yield Case("languages", f"{lang_name}.is_member('')", lambda lang=lang: lang.is_member(""),
                   (), expect="ok")
    for v in ([], 5, None, ["a", "a"], ["<s>"], ["a", 3], ["a", ""]):
        yield Case("languages", f"Vocab({v!r})", lambda v=v: L.Vocab(v),
                   ("vocabulary", "alphabet", "symbol"))
    vocab = L.Vocab("ab")
    for v in ([], 5, ["abc"], [["a", "z"]], None, [5]):
        yield Case("languages", f"make_batch(vocab, {v!r})", lambda v=v: L.make_batch(vocab, v),
                   ("seqs", "string", "symbol", "batch"))
    yield Case("languages", "make_batch(vocab, [''])", lambda: L.make_batch(vocab, [""]), (),
               expect="ok")
    yield Case("languages", "make_batch(5, ['ab'])", lambda: L.make_batch(5, ["ab"]),
               ("vocab",))
    for v in (0, -2, 2.5, "2", True):
        yield Case("languages", f"iterate_batches(batch_size={v!r})",
                   lambda v=v: list(L.iterate_batches(vocab, ["ab", "aabb"], v)),
                   ("batch_size",))
    yield Case("languages", "iterate_batches([], 2)",
               lambda: list(L.iterate_batches(vocab, [], 2)), ("seqs", "string", "empty"))


def model_cases():
    from course_rnn import models as M
    from course_rnn.models.classifier import SequenceClassifier

    kinds = {"srn": {}, "gru": {}, "lstm": {}, "decay_rnn": {}, "flnn": {},
             "urn": {"hidden_size": 4}, "matrix_rnn": {"hidden_size": 4}}
    yield Case("models", "build_model('nope')", lambda: M.build_model("nope", vocab_size=3),
               ("model",))
    yield Case("models", "build_model(3)", lambda: M.build_model(3, vocab_size=3), ("model",))
    for kind, base in kinds.items():
        def build(kind=kind, base=base, **kw):
            return M.build_model(kind, **{"vocab_size": 4, **base, **kw})

        yield Case("models", f"build_model({kind!r}, hiddn_size=3)",
                   lambda build=build: build(hiddn_size=3), ("hiddn_size",))
        for v in BAD_SIZES:
            yield Case("models", f"build_model({kind!r}, vocab_size={v!r})",
                       lambda v=v, build=build: build(vocab_size=v), ("vocab_size",))
            if v is None and kind in ("urn", "matrix_rnn"):
                continue  # their hidden_size=None means the default size
            yield Case("models", f"build_model({kind!r}, hidden_size={v!r})",
                       lambda v=v, build=build: build(hidden_size=v), ("hidden_size",))
        for v in BAD_SEEDS:
            yield Case("models", f"build_model({kind!r}, seed={v!r})",
                       lambda v=v, build=build: build(seed=v), ("seed",))
        if kind in ("srn", "gru", "lstm", "decay_rnn"):
            for v in (0, -1, 2.5, "3"):
                yield Case("models", f"build_model({kind!r}, embedding_dim={v!r})",
                           lambda v=v, build=build: build(embedding_dim=v), ("embedding_dim",))
        if kind in ("srn", "gru", "lstm"):
            for v in (0, -1, 2.5):
                yield Case("models", f"build_model({kind!r}, num_layers={v!r})",
                           lambda v=v, build=build: build(num_layers=v), ("num_layers",))
        if kind in ("srn", "gru", "lstm", "urn", "matrix_rnn"):
            for v in (-0.1, 1.0, 1.5, NAN, "0.1", True):
                yield Case("models", f"build_model({kind!r}, dropout={v!r})",
                           lambda v=v, build=build: build(dropout=v), ("dropout",))
        if kind in ("flnn", "urn", "matrix_rnn"):
            for v in (-1.0, NAN, INF, "0.1"):  # 0: every weight starts at 0, allowed
                yield Case("models", f"build_model({kind!r}, init_range={v!r})",
                           lambda v=v, build=build: build(init_range=v), ("init_range",))
    for v in ("sigmoid", 3, None):
        yield Case("models", f"SRN(nonlinearity={v!r})",
                   lambda v=v: M.build_model("srn", vocab_size=3, nonlinearity=v),
                   ("nonlinearity",))
    for v in ("x", 3):
        yield Case("models", f"DecayRNN(variant={v!r})",
                   lambda v=v: M.build_model("decay_rnn", vocab_size=3, variant=v), ("variant",))
    for arg in ("alpha_init", "excitatory_fraction"):
        for v in (-0.5, 1.5, NAN, "0.5", True):
            yield Case("models", f"DecayRNN({arg}={v!r})",
                       lambda v=v, arg=arg: M.build_model("decay_rnn", vocab_size=3, **{arg: v}),
                       (arg,))
    for v in (0, -1, 2.5):
        yield Case("models", f"FLNN(rbf_size={v!r})",
                   lambda v=v: M.build_model("flnn", vocab_size=5, rbf_size=v), ("rbf_size",))
    for v in (0.0, -1.0, NAN, INF, "1"):
        yield Case("models", f"FLNN(rbf_variance={v!r})",
                   lambda v=v: M.build_model("flnn", vocab_size=5, rbf_variance=v),
                   ("rbf_variance",))
    for v in (0, -1, 100, 2.5, "2"):
        yield Case("models", f"URN(k={v!r})",
                   lambda v=v: M.build_model("urn", vocab_size=3, hidden_size=4, k=v), ("k",))
    for v in (0, -2, 2.5, "3", NAN):
        yield Case("models", f"BengioMLP(context={v!r})",
                   lambda v=v: M.BengioMLP(vocab_size=10, context=v), ("context",))
        yield Case("models", f"BengioMLP(embedding_dim={v!r})",
                   lambda v=v: M.BengioMLP(vocab_size=10, embedding_dim=v), ("embedding_dim",))
    for v in (0, 1, 2.5, "2"):
        yield Case("models", f"SequenceClassifier(n_classes={v!r})",
                   lambda v=v: SequenceClassifier(M.build_model("srn", vocab_size=3), v),
                   ("n_classes",))
    yield Case("models", "SequenceClassifier(5)", lambda: SequenceClassifier(5), ("model",))
    # calling a model: shapes, dtypes, ranges, empties
    for kind, base in kinds.items():
        model = M.build_model(kind, vocab_size=4, seed=0, **base)
        bad_inputs = {
            "floats": torch.rand(2, 3), "3-d": torch.zeros(2, 3, 1, dtype=torch.long),
            "a list": [[1, 2]], "index 4 (vocab 4)": torch.tensor([[1, 4]]),
            "index -1": torch.tensor([[1, -1]]), "no time step": torch.zeros(2, 0,
                                                                             dtype=torch.long),
            "a 0-d tensor": torch.tensor(1), "bools": torch.ones(1, 2, dtype=torch.bool),
            "NaN floats": torch.full((1, 2), NAN),
        }
        for what, x in bad_inputs.items():
            yield Case("models", f"{kind}(inputs: {what})", lambda model=model, x=x: model(x),
                       ("inputs", "index"))
            yield Case("models", f"{kind}.trace(inputs: {what})",
                       lambda model=model, x=x: model.trace(x), ("inputs", "index"))
        yield Case("models", f"{kind}(empty batch [0, 3])",
                   lambda model=model: model(torch.zeros(0, 3, dtype=torch.long)), (),
                   expect="ok")
        yield Case("models", f"{kind}(1-d inputs)",
                   lambda model=model: model(torch.tensor([1, 2])), (), expect="ok")
    mlp = M.BengioMLP(vocab_size=10, context=2, embedding_dim=3, hidden_size=4)
    for what, x in {"floats": torch.rand(3, 2), "wrong context": torch.zeros(3, 5,
                                                                          dtype=torch.long),
                    "index 10": torch.full((3, 2), 10), "a list": [[1, 2]]}.items():
        yield Case("models", f"BengioMLP(contexts: {what})", lambda x=x: mlp(x),
                   ("context", "inputs", "index"))
    yield Case("models", "BengioMLP(one context, 1-d)",
               lambda: mlp(torch.zeros(2, dtype=torch.long)), (), expect="ok")


def training_cases():
    from course_rnn import languages as L
    from course_rnn import models as M
    from course_rnn import training as T

    lang = L.AnBn(max_n=3)
    vocab = L.Vocab(lang.alphabet)
    train = lang.sample(6, seed=0)

    def fit(**kw):
        model = kw.pop("model", None) or M.build_model("srn", vocab_size=len(vocab),
                                                      hidden_size=2, seed=0)
        args = {"task": vocab, "train": train, "epochs": 1, "progress": False,
                "until": T.Plateau(patience=1)}
        args.update(kw)
        task, data = args.pop("task"), args.pop("train")
        return T.fit(model, task, data, **args)

    yield Case("training", "fit(model=5)", lambda: fit(model=5), ("model",))
    yield Case("training", "fit(model='srn')", lambda: fit(model="srn"), ("model",))
    for v in (5, None, "ab", lang):
        yield Case("training", f"fit(task={v!r:.30})", lambda v=v: fit(task=v), ("task",))
    for v in ([], None, 5, "aabb", [5, 6], [["a", "z"]], torch.zeros(3)):
        yield Case("training", f"fit(train={v!r:.30})", lambda v=v: fit(train=v),
                   ("train", "string", "symbol"))
    for v in ([], 5, [["z"]]):
        yield Case("training", f"fit(valid={v!r})", lambda v=v: fit(valid=v),
                   ("valid", "string", "symbol"))
    args = {
        "epochs": (0, -3, 2.5, True, "4", NAN, INF), "steps": (0, -3, 2.5, True, "4", NAN, INF),
        "min_epochs": (-1, NAN, INF, "2", True),
        "batch_size": (0, -1, 2.5, "8", True, NAN), "optimizer": ("bogus", 5, None, "Adam"),
        "lr": (0, -1e-3, *BAD_NUMBERS), "momentum": (-0.5, 1.5, NAN, "0.9", True),
        "weight_decay": (-1e-4, NAN, INF, "0", True), "fused": ("yes", 1),
        "lr_factors": (5, {"nope": 2.0}, {"rnn": NAN}, {"rnn": -1.0}, {"rnn": INF}, ["rnn"]),
        "schedule": ("bogus", 5, T.StepDecay(every=0), T.StepDecay(factor=NAN),
                     T.Cosine(min_lr=-1), T.Cosine(min_lr=NAN),
                     T.ReduceOnPlateau(factor=1.5), T.ReduceOnPlateau(min_lr=-1),
                     T.ReduceOnPlateau(min_lr=NAN)),
        "clip": (0, -1.0, NAN, INF, "1", True),
        "init": (5, "normal"), "until": ("plateau", 5, T.Plateau),
        "patience": (0, -1, 2.5, "3", True), "restore_best": ("yes", 1, 0.5),
        "eval_every": (0, -1, 2.5, "1", True), "seed": BAD_SEEDS,
        "device": ("bogus", 5, "cuda:x"), "metrics": (5, {"m": 5}, ["m"], {5: len}),
        "step_metrics": (5, {"m": 5}), "step_every": (0, -1, 2.5, True),
        "progress": ("yes", 2), "resume": (5, "history"),
    }
    names = {"schedule": ("schedule", "StepDecay", "Cosine", "ReduceOnPlateau", "every",
                          "factor", "min_lr"),
             "lr_factors": ("lr_factors",), "until": ("until", "criterion")}
    for arg, values in args.items():
        for v in values:
            yield Case("training", f"fit({arg}={v!r:.40})", lambda arg=arg, v=v: fit(**{arg: v}),
                       names.get(arg, (arg,)))
    yield Case("training", "fit(metrics returning NaN)",  # recorded as it is: the user's figure
               lambda: fit(metrics={"m": lambda m: NAN}), (), expect="ok")
    yield Case("training", "fit(until=Target('valid_accuracy', 0.9)) without valid",
               lambda: fit(until=T.Target("valid_accuracy", 0.9)), ("valid_accuracy",))
    yield Case("training", "fit(batch_size=None, eval_every=3)",
               lambda: fit(batch_size=None, eval_every=3), (), expect="ok")
    yield Case("training", "fit(min_epochs=0.5)", lambda: fit(min_epochs=0.5), (), expect="ok")
    yield Case("training", "fit(np.int64 epochs)", lambda: fit(epochs=np.int64(1)), (),
               expect="ok")
    # the criteria
    crit = {
        "Plateau": (T.Plateau, {"metric": (5, ""), "patience": (0, -1, 2.5, True, "3"),
                                "min_delta": (-1, NAN, INF, "0.1"), "mode": ("up", None),
                                "floor": (NAN, INF, "0.5")}),
        "Target": (lambda **kw: T.Target(**{"metric": "train_accuracy", "value": 0.9, **kw}),
                   {"metric": (5, "", None), "value": (NAN, INF, "0.9", True, None),
                    "mode": ("up",)}),
        "Optimum": (lambda **kw: T.Optimum(**{"optimum": 0.1, **kw}),
                    {"optimum": (NAN, INF, -1.0, "0.1", None),
                     "tolerance": (0, -0.1, NAN, INF, "0.01"), "metric": (5, "")}),
    }
    for cname, (make, fields) in crit.items():
        for arg, values in fields.items():
            for v in values:
                yield Case("training", f"{cname}({arg}={v!r})",
                           lambda make=make, arg=arg, v=v: make(**{arg: v}), (arg,))
    yield Case("training", "AnyOf()", lambda: T.AnyOf(), ("criterion", "AnyOf"))
    yield Case("training", "AnyOf(5)", lambda: T.AnyOf(5), ("criteri", "AnyOf"))
    # the schedules, constructed (their values are checked on construction or by fit)
    sched = {"StepDecay": (T.StepDecay, {"every": (0, -1, 2.5, "3", True),
                                         "factor": (0, 1.5, NAN, "0.5", True)}),
             "Cosine": (T.Cosine, {"min_lr": (-1, NAN, INF, "0")}),
             "ReduceOnPlateau": (T.ReduceOnPlateau, {"factor": (0, 1.5, NAN, "0.5"),
                                                     "patience": (-1, 2.5, "3"),
                                                     "min_lr": (-1, NAN, INF, "0")})}
    for sname, (make, fields) in sched.items():
        for arg, values in fields.items():
            for v in values:
                yield Case("training", f"{sname}({arg}={v!r}) in fit",
                           lambda make=make, arg=arg, v=v: fit(schedule=make(**{arg: v})),
                           (arg,))
    for v in (0, -1, NAN, INF, "0.1", True):
        yield Case("training", f"normal_embeddings(std={v!r})",
                   lambda v=v: T.normal_embeddings(v), ("std",))
    # the tasks and their helpers
    for tname, make in (("LanguageModelling", T.LanguageModelling),
                        ("Classification", T.Classification)):
        for v in (5, None, "ab"):
            yield Case("training", f"{tname}({v!r})", lambda make=make, v=v: make(v),
                       ("vocab", "Vocab", "n_classes"))
    model = M.build_model("srn", vocab_size=len(vocab), hidden_size=2, seed=0)
    for fname, f in (("evaluate_loss", T.evaluate_loss), ("perplexity", T.perplexity)):
        for v in ([], 5, [["z"]], None):
            yield Case("training", f"{fname}(strings={v!r})",
                       lambda f=f, v=v: f(model, vocab, v), ("strings", "string", "symbol"))
        yield Case("training", f"{fname}(vocab=5)", lambda f=f: f(model, 5, train), ("vocab",))
        yield Case("training", f"{fname}(model=5)", lambda f=f: f(5, vocab, train), ("model",))
        for v in (0, -1, 2.5):
            yield Case("training", f"{fname}(batch_size={v!r})",
                       lambda f=f, v=v: f(model, vocab, train, batch_size=v), ("batch_size",))


def metric_cases():
    from course_rnn import languages as L
    from course_rnn import metrics as X
    from course_rnn import models as M

    lang, dyck = L.AnBn(max_n=3), L.Dyck()
    vocab, dvocab = L.Vocab(lang.alphabet), L.Vocab(dyck.alphabet)
    model = M.build_model("srn", vocab_size=len(vocab), hidden_size=2, seed=0)
    dmodel = M.build_model("srn", vocab_size=len(dvocab), hidden_size=2, seed=0)
    for v in ([], 5, None, [5], "ab"):
        yield Case("metrics", f"optimal_loss({v!r})", lambda v=v: X.optimal_loss(v),
                   ("string", "optimal_loss"))
    yield Case("metrics", "optimal_loss([''])", lambda: X.optimal_loss([""]), (), expect="ok")
    for v in ([], 5, [["z"]], None):
        yield Case("metrics", f"next_symbol_logits(strings={v!r})",
                   lambda v=v: X.next_symbol_logits(model, vocab, v), ("string", "symbol"))
        yield Case("metrics", f"next_symbol_validity(strings={v!r})",
                   lambda v=v: X.next_symbol_validity(model, lang, vocab, v),
                   ("string", "symbol"))
        yield Case("metrics", f"dyck_closing_accuracy(strings={v!r})",
                   lambda v=v: X.dyck_closing_accuracy(dmodel, dyck, dvocab, v),
                   ("string", "symbol"))
    for v in (0, -1, 2.5, "2", True):
        yield Case("metrics", f"next_symbol_logits(batch_size={v!r})",
                   lambda v=v: X.next_symbol_logits(model, vocab, ["ab"], v), ("batch_size",))
    for v in (0, -1, 2.5, "3", None, NAN):
        yield Case("metrics", f"anbn_generalisation(max_n={v!r})",
                   lambda v=v: X.anbn_generalisation(model, vocab, v), ("max_n",))
    for v in ("a", "abc", 5):
        yield Case("metrics", f"anbn_generalisation(letters={v!r})",
                   lambda v=v: X.anbn_generalisation(model, vocab, 2, v), ("letters",))
    yield Case("metrics", "next_symbol_logits(model=5)",
               lambda: X.next_symbol_logits(5, vocab, ["ab"]), ("model",))
    yield Case("metrics", "next_symbol_logits(vocab=5)",
               lambda: X.next_symbol_logits(model, 5, ["ab"]), ("vocab",))
    small = M.build_model("srn", vocab_size=2, hidden_size=2, seed=0)
    yield Case("metrics", "next_symbol_logits(model smaller than vocab)",
               lambda: X.next_symbol_logits(small, vocab, ["ab"]), ("vocab", "model", "index"))
    yield Case("metrics", "agreement_accuracy(examples=[])",
               lambda: X.agreement_accuracy(model, vocab, []), ("examples",))
    yield Case("metrics", "cross_serial_accuracy(strings=[])",
               lambda: X.cross_serial_accuracy(model, L.CrossSerial(), vocab, []), ("string",))
    yield Case("metrics", "dyck_closing_accuracy(strings=[''])",
               lambda: X.dyck_closing_accuracy(dmodel, dyck, dvocab, [""]), ("string",))
    yield Case("metrics", "dyck_closing_accuracy(strings=['()'])",
               lambda: X.dyck_closing_accuracy(dmodel, dyck, dvocab, ["()"]), (), expect="ok")
    yield Case("metrics", "next_symbol_validity(strings=[''])",
               lambda: X.next_symbol_validity(model, lang, vocab, [""]), (), expect="ok")
    yield Case("metrics", "cross_serial_accuracy(strings=[''])",
               lambda: X.cross_serial_accuracy(model, L.CrossSerial(), vocab, [""]), (),
               expect="ok")
    yield Case("metrics", "pooled_accuracy(breakdown='nope')",
               lambda: X.pooled_accuracy({"attractors": {}}, "nope", lambda k: True),
               ("breakdown",))


def corpus_cases():
    from course_rnn import corpus as C
    from course_rnn import languages as L

    sentences = [["a", "b"], ["c"], ["a", "c"], ["b"], ["a"]] * 4
    for v in ("nope", 5, None):
        yield Case("corpus", f"load_corpus({v!r})", lambda v=v: C.load_corpus(v), ("corpus",))
    yield Case("corpus", "read_corpus('/no/such/file')",
               lambda: C.read_corpus("/no/such/file"), ("/no/such/file",))
    for v in ([], "a b", 5, ["a b"], None):
        yield Case("corpus", f"split_corpus({v!r})", lambda v=v: C.split_corpus(v),
                   ("sentence",))
    for v in ((0.5, 0.5), (0.8, 0.3, -0.1), (NAN, 0.5, 0.5), "abc", 5, (0.8, 0.1, "0.1")):
        yield Case("corpus", f"split_corpus(fractions={v!r})",
                   lambda v=v: C.split_corpus(sentences, fractions=v), ("fractions",))
    for v in BAD_SEEDS:
        yield Case("corpus", f"split_corpus(seed={v!r})",
                   lambda v=v: C.split_corpus(sentences, seed=v), ("seed",))
    for v in (0, -1, 2.5, "2", True):
        yield Case("corpus", f"build_vocab(min_count={v!r})",
                   lambda v=v: C.build_vocab(sentences, v), ("min_count",))
    for v in ([], 5, None, [[5]]):
        yield Case("corpus", f"build_vocab({v!r})", lambda v=v: C.build_vocab(v),
                   ("token", "sentence", "vocabulary"))
    for v in (5, None):
        yield Case("corpus", f"count_tokens({v!r})", lambda v=v: C.count_tokens(v),
                   ("token", "sentence"))
    vocab = C.build_vocab(sentences)
    for v in ([], "a b", 5):
        yield Case("corpus", f"map_unknown({v!r})", lambda v=v: C.map_unknown(v, vocab),
                   ("sentence",))
    yield Case("corpus", "map_unknown(vocab=5)", lambda: C.map_unknown(sentences, 5), ("vocab",))
    yield Case("corpus", "map_unknown(vocab without <unk>)",
               lambda: C.map_unknown(sentences, L.Vocab("ab")), ("<unk>", "vocab"))


def _settings_check():
    """The command line's check of ``--set`` (before torch) where there is one, else what the
    command line did before: the scale's settings with the overrides applied."""
    from course_rnn import cli

    if hasattr(cli, "check_overrides"):
        return lambda name, pairs: cli.check_overrides(name, "quick", pairs)
    from course_rnn.experiments import get_experiment

    return lambda name, pairs: get_experiment(name).settings.at("quick", dict(pairs))


def settings_cases():
    from course_rnn.experiments import NAMES, get_experiment
    from course_rnn.experiments.settings import _optional, ceiling

    check = _settings_check()
    for name in NAMES:
        settings = get_experiment(name).settings["quick"]
        kinds = typing.get_type_hints(type(settings))
        yield Case("settings", f"{name} --set nosuch=1",
                   lambda name=name: check(name, [("nosuch", "1")]), ("nosuch",))
        for field in type(settings).names():
            optional, kind = _optional(kinds[field])
            origin = typing.get_origin(kind)
            if kind is int:
                bad = ["2.5", "x", "true", "nan", "[1]", ""]
            elif kind is float:
                bad = ["nan", "inf", "NaN", "Infinity", "-Infinity", "x", "true", "[0.1]", ""]
            elif origin is tuple:
                bad = ["[]", "{}"] if typing.get_args(kind)[1:] == (Ellipsis,) else ["[]", "x"]
                bad += ["[" + ",".join(["null"] * 2) + "]"]
            elif kind is str or origin is typing.Literal:
                bad = ["", "bogus-value"]
            elif kind is bool:
                bad = ["2", "x"]
            else:  # nested settings
                bad = ['{"nosuch": 1}', "5", "[]"]
            if kind is str:  # a free text may be anything the rule allows
                bad = [] if type(settings).__dataclass_fields__[field].metadata.get(
                    "rule") is None else bad
            rule = type(settings).__dataclass_fields__[field].metadata.get("rule")
            if kind in (int, float) and ceiling(field) is not None:  # an absurd size or rate
                bad = [*bad, "1000000000000" if kind is int else "1e12"]
            for text in bad:
                # an empty list where the settings allow one skips that part of the experiment
                odd = text == "[]" and origin is tuple and not (rule and rule.non_empty) \
                    and typing.get_args(kind)[1:] == (Ellipsis,)
                yield Case("settings", f"{name} --set {field}={text}",
                           lambda name=name, field=field, text=text:
                           check(name, [(field, text)]), (field,),
                           expect="ok" if odd else "error")
    yield Case("settings", "anbn --set models=srn,gru", lambda: check("anbn", [("models",
                                                                                "srn,gru")]),
               (), expect="ok")
    yield Case("settings", "anbn --set clip=none", lambda: check("anbn", [("clip", "none")]),
               (), expect="ok")


def extreme_cases():
    """Every numeric setting given an absurd value (issue 42: 1e12 was taken in 21 settings)."""
    from course_rnn import languages as L
    from course_rnn import models as M
    from course_rnn import training as T
    from course_rnn.models.gru import GRUCell
    from course_rnn.models.lstm import LSTMCell
    from course_rnn.models.srn import SRNCell

    lang = L.AnBn(max_n=3)
    vocab = L.Vocab(lang.alphabet)
    train = lang.sample(6, seed=0)

    def fit(**kw):
        model = M.build_model("srn", vocab_size=len(vocab), hidden_size=2, seed=0)
        args = {"epochs": 1, "progress": False, "until": T.Plateau(patience=1), **kw}
        return T.fit(model, vocab, train, **args)

    for arg, value in (("lr", HUGE), ("weight_decay", HUGE), ("clip", HUGE),
                       ("momentum", HUGE), ("min_epochs", HUGE), ("patience", HUGE_INT),
                       ("eval_every", HUGE_INT), ("batch_size", HUGE_INT),
                       ("step_every", HUGE_INT), ("epochs", HUGE_INT)):
        yield Case("extremes", f"fit({arg}={value:g})", lambda arg=arg, value=value:
                   fit(**{arg: value}), (arg,))
    yield Case("extremes", "fit(steps=1e12)", lambda: fit(epochs=None, steps=HUGE_INT),
               ("steps",))
    yield Case("extremes", "fit(momentum=1e12, optimizer='sgd')",
               lambda: fit(momentum=HUGE, optimizer="sgd"), ("momentum",))
    yield Case("extremes", "fit(lr_factors={'rnn': 1e12})",
               lambda: fit(lr_factors={"rnn": HUGE}), ("lr_factors",))
    for name, make, arg in (("StepDecay(every=1e12)", lambda: T.StepDecay(every=HUGE_INT),
                             "every"),
                            ("ReduceOnPlateau(patience=1e12)",
                             lambda: T.ReduceOnPlateau(patience=HUGE_INT), "patience"),
                            ("Cosine(min_lr=1e12)", lambda: T.Cosine(min_lr=HUGE), "min_lr"),
                            ("ReduceOnPlateau(min_lr=1e12)",
                             lambda: T.ReduceOnPlateau(min_lr=HUGE), "min_lr")):
        yield Case("extremes", f"fit(schedule={name})",
                   lambda make=make: fit(schedule=make()), (arg,))
    yield Case("extremes", "Plateau(patience=1e12)", lambda: T.Plateau(patience=HUGE_INT),
               ("patience",))
    yield Case("extremes", "Plateau(min_delta=1e12)", lambda: T.Plateau(min_delta=HUGE),
               ("min_delta",))
    for metric in ("train_accuracy", "valid_accuracy"):
        yield Case("extremes", f"Target({metric!r}, 1e12)",
                   lambda metric=metric: T.Target(metric, HUGE), ("value",))
    yield Case("extremes", "normal_embeddings(std=1e12)", lambda: T.normal_embeddings(HUGE),
               ("std",))
    # the models: every size (a tensor torch would try to allocate) and every scale
    sizes = {"srn": ("vocab_size", "hidden_size", "embedding_dim", "num_layers"),
             "gru": ("vocab_size", "hidden_size", "embedding_dim", "num_layers"),
             "lstm": ("vocab_size", "hidden_size", "embedding_dim", "num_layers"),
             "decay_rnn": ("vocab_size", "hidden_size", "embedding_dim"),
             "flnn": ("vocab_size", "hidden_size", "rbf_size"),
             "urn": ("vocab_size", "hidden_size", "k"),
             "matrix_rnn": ("vocab_size", "hidden_size"),
             "stack_rnn": ("vocab_size", "hidden_size", "embedding_dim", "stack_width",
                           "stack_depth", "n_stacks"),
             "jm_stack_rnn": ("vocab_size", "hidden_size", "embedding_dim", "n_stacks",
                              "stack_depth", "read_depth")}
    for kind, args in sizes.items():
        base = {"vocab_size": 5, "hidden_size": 4}
        for arg in args:
            yield Case("extremes", f"build_model({kind!r}, {arg}=1e12)",
                       lambda kind=kind, arg=arg, base=base:
                       M.build_model(kind, **{**base, arg: HUGE_INT}), (arg,))
    for kind, arg in (("flnn", "init_range"), ("urn", "init_range"),
                      ("matrix_rnn", "init_range"), ("flnn", "rbf_variance")):
        yield Case("extremes", f"build_model({kind!r}, {arg}=1e12)",
                   lambda kind=kind, arg=arg: M.build_model(kind, vocab_size=5, hidden_size=4,
                                                             **{arg: HUGE}), (arg,))
    for cell in (SRNCell, GRUCell, LSTMCell):
        yield Case("extremes", f"{cell.__name__}(10**9, 4)",
                   lambda cell=cell: cell(10**9, 4), ("input_size",))
    pdda = L.PDDA1()
    for z in ((NAN, NAN), (INF, 0.0), (0.0, -INF)):
        yield Case("extremes", f"PDDA1.step({z}, 'a')", lambda z=z: pdda.step(z, "a"), ("z",))


def input_cases():
    """The calls issue 42 found failing deep or unclearly: a device without numbers, files that
    are no checkpoint, a step on another dtype, metrics given None."""
    import tempfile

    from course_rnn import languages as L
    from course_rnn import metrics as X
    from course_rnn import models as M
    from course_rnn import training as T
    from course_rnn.models.gru import GRUCell
    from course_rnn.models.lstm import LSTMCell
    from course_rnn.models.srn import SRNCell

    lang = L.AnBn(max_n=3)
    vocab = L.Vocab(lang.alphabet)
    train = lang.sample(6, seed=0)
    model = M.build_model("srn", vocab_size=len(vocab), hidden_size=2, seed=0)
    yield Case("inputs", "fit(device='meta')",
               lambda: T.fit(model, vocab, train, epochs=1, device="meta", progress=False),
               ("device",))
    folder = Path(tempfile.mkdtemp(prefix="api_audit_"))
    saved = T.save_checkpoint(model, vocab, folder / "ok.pt")
    (folder / "text.pt").write_text("not a checkpoint\n")
    torch.save(torch.zeros(3), folder / "tensor.pt")
    torch.save({"kind": "srn"}, folder / "partial.pt")
    payload = torch.load(saved, weights_only=True)
    payload["state_dict"] = {k: torch.zeros(1) for k in payload["state_dict"]}
    torch.save(payload, folder / "shapes.pt")
    (folder / "folder.pt").mkdir()
    for name in ("text.pt", "tensor.pt", "partial.pt", "shapes.pt", "folder.pt"):
        yield Case("inputs", f"load_checkpoint({name})",
                   lambda name=name: T.load_checkpoint(folder / name), (name, "checkpoint"))
    yield Case("inputs", "load_checkpoint(None)", lambda: T.load_checkpoint(None), ("path",))
    for args, named in (((5, vocab, folder / "a.pt"), "model"),
                        ((model, None, folder / "a.pt"), "vocab"),
                        ((model, vocab, None), "path"),
                        ((model, vocab, folder / "a.pt", 5), "history")):
        yield Case("inputs", f"save_checkpoint({named} wrong)",
                   lambda args=args: T.save_checkpoint(*args), (named,))
    yield Case("inputs", "load_checkpoint(a real one)", lambda: T.load_checkpoint(saved), (),
               expect="ok")
    for cell in (SRNCell, GRUCell, LSTMCell):
        for dtype in (torch.long, torch.float64, torch.bool):
            x = torch.zeros(1, 2, dtype=dtype)
            yield Case("inputs", f"{cell.__name__}.step(x: {dtype})",
                       lambda cell=cell, x=x: cell(2, 3).step(None, x), ("x_t",))
    dyck = L.Dyck()
    dvocab = L.Vocab(dyck.alphabet)
    dmodel = M.build_model("srn", vocab_size=len(dvocab), hidden_size=2, seed=0)
    for name, call, named in (
            ("next_symbol_validity(language=None)",
             lambda: X.next_symbol_validity(model, None, vocab, train), "language"),
            ("next_symbol_validity(vocab=None)",
             lambda: X.next_symbol_validity(model, lang, None, train), "vocab"),
            ("anbn_generalisation(vocab=None)",
             lambda: X.anbn_generalisation(model, None, 3), "vocab"),
            ("dyck_closing_accuracy(dyck=None)",
             lambda: X.dyck_closing_accuracy(dmodel, None, dvocab, ["()"]), "dyck"),
            ("dyck_closing_accuracy(vocab=None)",
             lambda: X.dyck_closing_accuracy(dmodel, dyck, None, ["()"]), "vocab"),
            ("cross_serial_accuracy(language=None)",
             lambda: X.cross_serial_accuracy(model, None, vocab, train), "language"),
            ("next_symbol_logits(vocab=None)",
             lambda: X.next_symbol_logits(model, None, train), "vocab"),
            ("pooled_accuracy(result=None)",
             lambda: X.pooled_accuracy(None, "attractors", bool), "result"),
            ("pooled_accuracy(keep=None)",
             lambda: X.pooled_accuracy({}, "attractors", None), "keep")):
        yield Case("inputs", name, call, (named,))


GROUPS = {"languages": language_cases, "models": model_cases, "training": training_cases,
          "metrics": metric_cases, "corpus": corpus_cases, "settings": settings_cases,
          "extremes": extreme_cases, "inputs": input_cases}


def refusal_time(repeats: int = 3) -> dict:
    """Seconds ``python -m course_rnn replicate anbn --set models=[]`` takes to refuse, and
    whether torch was imported by then (``-X importtime``)."""
    command = [sys.executable, "-X", "importtime", "-m", "course_rnn", "replicate", "anbn",
               "--set", "models=[]", "--out", "/tmp/api_audit_unused"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    times, last = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        last = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
        times.append(time.perf_counter() - start)
    imported = {line.rsplit("|", 1)[-1].strip() for line in last.stderr.splitlines()
                if line.startswith("import time:")}
    message = [line for line in last.stderr.splitlines() if not line.startswith("import time:")]
    return {"command": "python -m course_rnn replicate anbn --set models=[]",
            "seconds_median": round(statistics.median(times), 3),
            "seconds": [round(t, 3) for t in times], "exit_code": last.returncode,
            "torch_imported": "torch" in imported, "message": " ".join(message)[-300:],
            "banner_printed": "==" in last.stdout}


def run_audit() -> dict:
    torch.set_num_threads(1)
    rows = []
    for group, make in GROUPS.items():
        for case in make():
            outcome, detail = classify(case)
            rows.append({"group": group, "call": case.name, "expect": case.expect,
                         "outcome": outcome, "detail": detail})
    return {"rows": rows, "counts": dict(Counter(r["outcome"] for r in rows)),
            "by_group": {g: dict(Counter(r["outcome"] for r in rows if r["group"] == g))
                         for g in GROUPS}}


def summary(counts: dict) -> str:
    """Issue 42's four figures: "0 deep / 0 unclear / 0 silent garbage / 0 accepted nonsense"."""
    return (f"{counts.get('deep', 0)} deep / {counts.get('unclear', 0)} unclear / "
            f"{counts.get('garbage', 0)} silent garbage / {counts.get('accepted', 0)} accepted "
            f"nonsense / {counts.get('refused', 0)} valid calls refused")


def write(audit: dict, refusal: dict, before: dict | None) -> None:
    from course_rnn.utils import machine_facts

    facts = machine_facts()
    record = {"date": time.strftime("%Y-%m-%d"), "machine": facts, "counts": audit["counts"],
              "by_group": audit["by_group"], "refusal": refusal, "before": before,
              "rows": audit["rows"]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "api_audit.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    outcomes = OUTCOMES
    lines = [
        "# Bad and odd calls to the public API (`benchmarks/api_audit.py`)", "",
        f"{record['date']}, {facts.get('cpu', '?')}, torch {facts.get('torch', '?')}. "
        f"{len(audit['rows'])} calls; what each outcome means is in the script's docstring.", "",
        "| group | " + " | ".join(outcomes) + " |", "|---|" + "---:|" * len(outcomes)]
    for group, counts in audit["by_group"].items():
        lines.append(f"| {group} | " + " | ".join(str(counts.get(o, 0)) for o in outcomes) + " |")
    lines.append("| **all** | " + " | ".join(f"**{audit['counts'].get(o, 0)}**"
                                            for o in outcomes) + " |")
    lines += ["", summary(audit["counts"]) + " (each should be 0)."]
    if before:  # {"counts", "commit", "refusal_seconds_median"}: the same script on older code
        lines += ["", f"Before the fixes of issue 27 part 6 (the script of then, on commit "
                  f"{before.get('commit', '?')}): " +
                  ", ".join(f"{o} {before['counts'].get(o, 0)}" for o in outcomes
                            if o in before["counts"]) +
                  f"; the bad `--set` below was refused after "
                  f"{before.get('refusal_seconds_median', '?')} s, torch imported and the "
                  "banner printed."]
    lines += ["", "## A bad `--set` value", "",
              f"`{refusal['command']}`: refused in {refusal['seconds_median']:.2f} s (median of "
              f"{len(refusal['seconds'])}), exit code {refusal['exit_code']}, torch imported: "
              f"{'yes' if refusal['torch_imported'] else 'no'}, banner printed: "
              f"{'yes' if refusal['banner_printed'] else 'no'}.", "",
              f"> {refusal['message'].strip()}"]
    bad = [r for r in audit["rows"] if r["outcome"] in BAD]
    if bad:
        lines += ["", "## Calls still to fix", "", "| group | call | outcome | what happened |",
                  "|---|---|---|---|"]
        lines += [f"| {r['group']} | `{r['call']}` | {r['outcome']} | "
                  f"{r['detail'].replace('|', '/')} |" for r in bad]
    (RESULTS / "api_audit.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print the counts only")
    parser.add_argument("--show", default=",".join(BAD),
                        help="outcomes to list (comma-separated)")
    parser.add_argument("--before", type=Path, default=None,
                        help="a JSON file {counts, commit, refusal_seconds_median} from a run "
                             "of this script on older code (a worktree), recorded beside")
    args = parser.parse_args()
    audit = run_audit()
    shown = set(args.show.split(","))
    for r in audit["rows"]:
        if r["outcome"] in shown:
            print(f"{r['outcome']:9s} {r['group']:9s} {r['call']}: {r['detail']}")
    print(json.dumps(audit["by_group"], indent=1))
    print("all:", audit["counts"], "of", len(audit["rows"]))
    print(summary(audit["counts"]))
    refusal = refusal_time()
    print("refusal:", refusal)
    if not args.no_write:
        if args.before:
            before = json.loads(args.before.read_text())
        else:  # the last record's, kept
            last = RESULTS / "api_audit.json"
            before = json.loads(last.read_text()).get("before") if last.exists() else None
        write(audit, refusal, before)


if __name__ == "__main__":
    main()
