"""Counting a^n b^n (chapter 3): which recurrent networks learn to count, and which only fit?

The experiment of Levy's lecture (2023; slides *Training recurrent architectures on a^n b^n*,
*Hidden & cell state contents*, *Summary*): tiny language models – 4 units, one-hot inputs, as
tiny as Gers & Schmidhuber's (2001) and Weiss et al.'s (2018) counters – are trained on

    train = { a^n b^n : 1 ≤ n ≤ N_train }

and then asked whether they learned *to count* or only the lengths they saw.

**Training.** The training set is twenty strings, so every step sees all of them (full-batch
Adam, learning rate ``lr``, gradients clipped at norm ``clip``); the learning rate halves
whenever the training loss has not improved for ``lr_patience`` epochs (down to ``min_lr``).
``batch_size`` and ``repeats`` (copies of each string per epoch) give mini-batches instead.

**Learned?** The training loss has an exact minimum (:func:`course_rnn.metrics.optimal_loss`;
0.1362 nats per symbol for n uniform on 1 … 20: only where the a's stop is uncertain). A run
stops, *converged*, at the first of

* **fitted**: its training loss is within ``tolerance`` nats of that optimum
  (:class:`~course_rnn.training.Optimum`);
* **stuck**: its training loss has improved by less than ``min_delta`` (relative) over the last
  ``patience`` epochs (:class:`~course_rnn.training.Plateau`) while above the optimum: it settled
  in a minimum where the training set is not fitted. It *failed to learn*, and every stuck run
  is continued to twice its epochs to check that more training does not rescue it.

A run that reaches the cap of ``epochs`` first did **not** converge. Only the fitted runs are
asked about generalisation, so "did not generalise" never stands for "was not trained long
enough".

**Then generalised?** After the first b every symbol is forced, so a model is right on a^n b^n
when its top prediction is correct at each forced position (each later b, then the end);
:class:`CountingTest` (the test of :func:`course_rnn.metrics.anbn_generalisation`, in one pass)
turns that into

    max_correct_n = max { N ≤ N_test : every n ≤ N is right },

recorded at every evaluation (every ``eval_every`` epochs) and scored on the final model. A
fitted run *generalises* when its max_correct_n exceeds N_train.

Models (:data:`MODELS`): the lecture's SRN (tanh), GRU and LSTM with ``hidden`` units, and two
SRNs that separate the architecture from its squashing nonlinearity: a ReLU SRN with ``hidden``
units and a tanh SRN with ``wide_hidden`` units. Weiss, Goldberg & Yahav (2018) showed that under
finite precision an LSTM or a ReLU SRN can implement a counter, a GRU or a squashing SRN only an
approximation of one.

**Verdicts** (:func:`~course_rnn.experiments.replication.judge`): a claim about counting is
checked on the runs that converged (a stuck run counts nothing); when it disagrees with the
lecture, the deciding runs (the seeds that disagree) are continued to twice their epochs (same
seed, ``min_epochs``: the first part of the run is identical) and scored again.

``run(scale="quick")`` is what chapter 3 shows (:data:`DEFAULT_SEEDS` seeds of the lecture's
models, ``extra_seeds`` of the other two, trained in parallel processes); ``scale="paper"`` runs
10 seeds of each with a larger cap; ``settings=`` overrides entries of :data:`SETTINGS` (the
tests run it tiny).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from ..analysis.curves import learning_curves
from ..languages import AnBn, Vocab, make_batch
from ..metrics import optimal_loss
from ..models import build_model
from ..training import AnyOf, Optimum, Plateau, ReduceOnPlateau, fit
from ..utils import pick_device
from .replication import (
    Experiment,
    Measurement,
    Replication,
    Row,
    Timer,
    check_positive_ints,
    judge,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
)
from .workers import parallel_map

#: The compared models, in training order: id → (registry kind, options, the setting that
#: gives its hidden size).
MODELS: dict[str, tuple[str, dict, str]] = {
    "srn": ("srn", {}, "hidden"),
    "gru": ("gru", {}, "hidden"),
    "lstm": ("lstm", {}, "hidden"),
    "srn-relu": ("srn", {"nonlinearity": "relu"}, "hidden"),
    "srn-wide": ("srn", {}, "wide_hidden"),
}
#: The models of the lecture's experiment (the others test Weiss et al.'s theory).
LECTURE_MODELS = ("srn", "gru", "lstm")
#: The models trained only on the first ``extra_seeds`` seeds.
EXTRA_MODELS = ("srn-relu", "srn-wide")

#: What became of a run: it reached the cap first; it settled above the optimum (converged,
#: training set not fitted); it fitted but got some n ≤ N_train + 1 wrong; it fitted and was
#: right beyond the training range.
OUTCOMES = ("not converged", "failed to learn", "learned, did not generalise", "generalised")

#: Per scale: the models and their sizes; the data (n ≤ ``train_max_n``, each string
#: ``repeats`` times per epoch, in batches of ``batch_size``, None: all at once; tested up to
#: ``test_max_n``); Adam's learning rate, halved after ``lr_patience`` epochs without a lower
#: training loss, never below ``min_lr``; the gradient clip; when a run has learned (within
#: ``tolerance`` nats of the optimum) or is stuck (better by < ``min_delta``, relative, over
#: ``patience`` epochs); the cap on epochs; how often the run is evaluated (every ``eval_every``
#: epochs: the training loss averaged over them, max_correct_n); how many seeds the two extra
#: SRNs get.
SETTINGS = {
    "quick": dict(models=tuple(MODELS), hidden=4, wide_hidden=16, train_max_n=20, test_max_n=60,
                  repeats=1, batch_size=None, lr=0.05, lr_patience=50, min_lr=0.05 / 64,
                  clip=1.0, tolerance=0.01, patience=200, min_delta=5e-3, epochs=6000,
                  eval_every=5, extra_seeds=1),
    "paper": dict(models=tuple(MODELS), hidden=4, wide_hidden=16, train_max_n=20, test_max_n=60,
                  repeats=1, batch_size=None, lr=0.05, lr_patience=50, min_lr=0.05 / 64,
                  clip=1.0, tolerance=0.01, patience=500, min_delta=1e-3, epochs=30000,
                  eval_every=5, extra_seeds=10),
}

#: Seeds per model (0 … k-1) when ``run`` is given none.
DEFAULT_SEEDS = {"quick": 6, "paper": 10}

LECTURE = "Levy 2023, slides 'Hidden & cell state contents' and 'Summary'"
GERS = "Gers & Schmidhuber 2001"
WEISS = "Weiss, Goldberg & Yahav 2018"


# -- settings -------------------------------------------------------------------------------------
def anbn_settings(scale: str = "quick", settings: dict | None = None) -> dict:
    """:data:`SETTINGS` at ``scale`` with ``settings`` overriding entries (checked: an unknown
    key or a value out of range is a ValueError naming it)."""
    merged = merge_settings(SETTINGS[normalise_scale(scale)], settings, "anbn")
    check_positive_ints(merged, ("epochs", "hidden", "wide_hidden", "train_max_n", "test_max_n",
                                 "repeats", "lr_patience", "patience", "eval_every",
                                 "extra_seeds"))
    if merged["batch_size"] is not None:
        check_positive_ints(merged, ("batch_size",))
    for key, positive in (("lr", True), ("tolerance", True), ("min_lr", False),
                          ("min_delta", False)):
        value = merged[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 \
                or (positive and value == 0):
            raise ValueError(f"setting {key!r} must be a {'positive' if positive else '≥ 0'} "
                             f"number, got {value!r}")
    clip = merged["clip"]
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, (int, float))
                             or not clip > 0):
        raise ValueError(f"setting 'clip' must be a positive number or None, got {clip!r}")
    models = merged["models"]
    if isinstance(models, str) or not models or any(m not in MODELS for m in models):
        raise ValueError(f"setting 'models' must be a non-empty list of {', '.join(MODELS)}, "
                         f"got {models!r}")
    merged["models"] = tuple(m for m in MODELS if m in models)  # the canonical order
    if merged["test_max_n"] <= merged["train_max_n"]:
        raise ValueError(f"setting 'test_max_n' ({merged['test_max_n']}) must exceed "
                         f"'train_max_n' ({merged['train_max_n']}): the test is about longer n")
    return merged


def model_name(model_id: str, cfg: Mapping) -> str:
    """How a model is named in tables and figures: "SRN", "ReLU SRN", "SRN, 16 units" …"""
    if model_id == "srn-wide":
        return f"SRN, {cfg['wide_hidden']} units"
    return {"srn": "SRN", "gru": "GRU", "lstm": "LSTM", "srn-relu": "ReLU SRN"}[model_id]


def model_seeds(model_id: str, seeds: Sequence[int], cfg: Mapping) -> list[int]:
    """The seeds ``model_id`` is trained on (the extra SRNs: the first ``extra_seeds``)."""
    return list(seeds[: cfg["extra_seeds"]]) if model_id in EXTRA_MODELS else list(seeds)


def train_strings(train_max_n: int, repeats: int) -> list[tuple]:
    """One epoch's strings: a^n b^n for n = 1 … ``train_max_n``, each ``repeats`` times."""
    return [AnBn.string(n) for n in range(1, train_max_n + 1)] * repeats


def training_optimum(cfg: Mapping) -> float:
    """The exact minimum of the mean training loss (nats per symbol) on the training strings."""
    return optimal_loss(train_strings(cfg["train_max_n"], cfg["repeats"]))


def evaluations(epochs: int, cfg: Mapping) -> int:
    """``epochs`` counted in evaluations (one every ``eval_every`` epochs; at least one)."""
    return max(1, epochs // cfg["eval_every"])


def learned(cfg: Mapping) -> AnyOf:
    """When a run stops, converged: fitted (within ``tolerance`` of the optimum) or stuck (a
    plateau of the training loss over ``patience`` epochs)."""
    return AnyOf(Optimum(training_optimum(cfg), cfg["tolerance"]),
                 Plateau("train_loss", patience=evaluations(cfg["patience"], cfg),
                         min_delta=cfg["min_delta"]))


# -- the counting test ----------------------------------------------------------------------------
class CountingTest:
    """Which of a^n b^n, n = 1 … ``max_n``, a model gets right, in one forward pass.

    The test of :func:`course_rnn.metrics.anbn_generalisation`: a string is right when the
    model's top prediction (over EOS and the letters) is the forced symbol at every position
    after the first b – each later b, then the end. The strings are batched once, here.
    """

    def __init__(self, vocab: Vocab, max_n: int):
        batch = make_batch(vocab, [AnBn.string(n) for n in range(1, max_n + 1)])
        n = torch.arange(1, max_n + 1)[:, None]
        t = torch.arange(batch.inputs.shape[1])[None, :]
        self.forced = (t > n) & (t <= 2 * n)  # row t predicts the symbol after t inputs
        self.inputs, self.targets = batch.inputs, batch.targets
        self.first = vocab.eos_id  # the output symbols: EOS, then the letters

    def right(self, model) -> np.ndarray:
        """A boolean per n = 1 … max_n: every forced position right."""
        was_training = model.training
        model.eval()
        with torch.no_grad():
            logits = model(self.inputs.to(model.device))[..., self.first:]
        model.train(was_training)
        guess = logits.argmax(-1).cpu() + self.first
        return ((guess == self.targets) | ~self.forced).all(dim=1).numpy()

    def max_correct_n(self, model) -> int:
        """The largest N such that every n ≤ N is right (0 when n = 1 is wrong)."""
        return max_correct_n(self.right(model))


def loss_by_phase(model, vocab: Vocab, train_max_n: int) -> dict[str, float]:
    """The mean training loss (nats per predicted symbol, n = 1 … ``train_max_n`` once each)
    split in two parts that add up to it: ``uncertain``, the predictions made while reading
    the a's (will another a come, or the first b?), and ``forced``, those after the first b
    (each later b, then the end), which a counter gets right with certainty. The exact optimum
    puts all of its loss in the first part."""
    batch = make_batch(vocab, [AnBn.string(n) for n in range(1, train_max_n + 1)])
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(batch.inputs.to(model.device)).float().cpu()
    model.train(was_training)
    each = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch.targets,
                                             reduction="none")
    n = torch.arange(1, train_max_n + 1)[:, None]
    t = torch.arange(batch.inputs.shape[1])[None, :]
    forced = (t > n) & (t <= 2 * n)
    total = batch.mask.sum()
    return {"uncertain": float((each * (batch.mask & ~forced)).sum() / total),
            "forced": float((each * forced).sum() / total)}


def max_correct_n(right: np.ndarray) -> int:
    """The largest N such that ``right[n - 1]`` holds for every n ≤ N."""
    wrong = np.flatnonzero(~np.asarray(right, dtype=bool))
    return int(wrong[0]) if wrong.size else len(right)


# -- one run --------------------------------------------------------------------------------------
def train_one(model_id: str, seed: int, cfg: Mapping, device=None, min_epochs: int = 0,
              clip="settings", resume=None) -> tuple:
    """Build and train one model until it fits its training set, is stuck, or hits the cap;
    return ``(model, history)``. ``history["max_correct_n"]`` is max_correct_n (n ≤
    ``test_max_n``) at every evaluation (every ``eval_every`` epochs). ``min_epochs``
    trains at least that long and ``resume`` (the History of the seed's first run) continues
    it (twice its budget); ``clip`` overrides the setting (None: no clipping). Top level, for
    worker processes."""
    kind, options, size = MODELS[model_id]
    vocab = Vocab.for_language(AnBn())
    model = build_model(kind, vocab_size=len(vocab), hidden_size=cfg[size], seed=seed, **options)
    test = CountingTest(vocab, cfg["test_max_n"])
    strings = train_strings(cfg["train_max_n"], cfg["repeats"])
    steps_per_epoch = math.ceil(len(strings) / (cfg["batch_size"] or len(strings)))
    history = fit(model, vocab, strings, epochs=max(cfg["epochs"], min_epochs),
                  min_epochs=min_epochs, batch_size=cfg["batch_size"], lr=cfg["lr"],
                  schedule=ReduceOnPlateau(0.5, evaluations(cfg["lr_patience"], cfg),
                                           cfg["min_lr"]),
                  clip=cfg["clip"] if clip == "settings" else clip, until=learned(cfg),
                  eval_every=cfg["eval_every"] * steps_per_epoch, seed=seed, device=device,
                  metrics={"max_correct_n": test.max_correct_n}, progress=False, resume=resume)
    return model, history


def outcome(converged: bool, fitted: bool, max_correct_n: int, train_max_n: int) -> str:
    """One of :data:`OUTCOMES`."""
    if not converged:
        return OUTCOMES[0]
    if not fitted:
        return OUTCOMES[1]
    return OUTCOMES[3] if max_correct_n > train_max_n else OUTCOMES[2]


def score_run(model_id: str, seed: int, model, history, cfg: Mapping) -> dict:
    """One run's numbers: whether and when it converged and whether it fitted (its final loss
    within ``tolerance`` of the optimum), where its loss lies (:func:`loss_by_phase`), how
    many n are right inside (n ≤ N_train) and beyond
    the training range, max_correct_n at the end, at every evaluation (``curve_epochs``) and at
    its best evaluation, the largest gradient norm and the share of clipped steps, and its
    :func:`outcome`."""
    train_n, test_n = cfg["train_max_n"], cfg["test_max_n"]
    right = CountingTest(Vocab.for_language(AnBn()), test_n).right(model)
    max_correct = max_correct_n(right)
    curve = [int(v) for v in history["max_correct_n"]]
    record = history.convergence
    final_loss = float(history.last["train_loss"])
    gap = final_loss - training_optimum(cfg)
    fitted = bool(record.converged) and gap <= cfg["tolerance"]
    clipped = history["clipped"]
    return {
        "model": model_name(model_id, cfg), "id": model_id, "seed": int(seed),
        "converged": bool(record.converged), "fitted": fitted, "stopped": record.stopped,
        "epochs": float(record.epochs), "steps": int(record.steps),
        "final_loss": final_loss, "best_loss": float(min(history["train_loss"])),
        "gap_to_optimum": gap,
        "train_right": int(right[:train_n].sum()), "beyond_right": int(right[train_n:].sum()),
        "max_correct_n": max_correct,
        "max_correct_n_best_epoch": max(curve),
        "max_correct_n_curve": curve,
        "curve_epochs": [float(e) for e in history["epoch"]],
        "right": [bool(v) for v in right],
        "loss_by_phase": loss_by_phase(model, Vocab.for_language(AnBn()), train_n),
        "max_grad_norm": float(max(history["grad_norm"])),
        "clipped_share": float(np.mean(clipped)) if clipped else 0.0,
        "outcome": outcome(record.converged, fitted, max_correct, train_n),
    }


# -- summaries ------------------------------------------------------------------------------------
def summarise(runs: Sequence[dict], train_max_n: int) -> dict[str, dict]:
    """Per model (by name): how many seeds converged, fitted, were stuck above the optimum
    (``stuck``, with the range of their final losses) or hit the cap; how many fitted seeds
    generalised; max_correct_n over the fitted seeds (mean ± SE, best and its seed; None when
    none fitted); the lowest final loss; the epochs used and the best epoch of any seed."""
    summary = {}
    for name in dict.fromkeys(r["model"] for r in runs):
        mine = [r for r in runs if r["model"] == name]
        fitted = [r for r in mine if r["fitted"]]
        stuck = [r["final_loss"] for r in mine if r["converged"] and not r["fitted"]]
        finals = [r["max_correct_n"] for r in fitted]
        mean, se = mean_se(finals) if finals else (None, None)
        best = max(fitted, key=lambda r: r["max_correct_n"]) if fitted else None
        summary[name] = {
            "n_seeds": len(mine), "converged": sum(r["converged"] for r in mine),
            "fitted": len(fitted), "stuck": len(stuck),
            "stuck_loss_min": min(stuck) if stuck else None,
            "stuck_loss_max": max(stuck) if stuck else None,
            "generalised": sum(v > train_max_n for v in finals),
            "max_correct_n_mean": mean, "max_correct_n_se": se,
            "best_seed": best["seed"] if best else None,
            "max_correct_n_best_seed": best["max_correct_n"] if best else None,
            "lowest_final_loss": min(r["final_loss"] for r in mine),
            "epochs_mean": float(np.mean([r["epochs"] for r in mine])),
            "best_epoch_any_seed": max(r["max_correct_n_best_epoch"] for r in mine),
        }
    return summary


def instability(run: dict, train_max_n: int) -> dict:
    """How the run's max_correct_n moves once it first passes ``train_max_n``: the first
    evaluated epoch where it does and the lowest and highest value from then on (None when it
    never does)."""
    curve = np.array(run["max_correct_n_curve"])
    beyond = np.flatnonzero(curve > train_max_n)
    if beyond.size == 0:
        return {"seed": run["seed"], "first_epoch_beyond": None, "min_after": None,
                "max_after": None}
    after = curve[beyond[0]:]
    return {"seed": run["seed"], "first_epoch_beyond": int(run["curve_epochs"][beyond[0]]),
            "min_after": int(after.min()), "max_after": int(after.max())}


# -- the claims and their verdicts ----------------------------------------------------------------
def generalises(run: dict, train_max_n: int) -> bool:
    """A fitted run right on every n up to beyond the training range."""
    return bool(run["fitted"]) and run["max_correct_n"] > train_max_n


def _counting_share(runs: Sequence[dict], train_max_n: int) -> tuple[int, int]:
    """(converged seeds that generalise, converged seeds): a stuck seed counts nothing."""
    converged = [r for r in runs if r["converged"]]
    return sum(generalises(r, train_max_n) for r in converged), len(converged)


def no_count_measurement(runs: Sequence[dict], train_max_n: int) -> Measurement:
    """The lecture's claim for the SRN and the GRU: no seed counts beyond the training range.
    Value: converged seeds that do (fitted and right beyond N_train); gap: their share. Every
    seed's convergence is behind it."""
    k, converged = _counting_share(runs, train_max_n)
    return Measurement(k, agrees=k == 0, gap=k / max(converged, 1),
                       runs=[r["converged"] for r in runs])


def lstm_best_measurement(lstm: Sequence[dict], rivals: Sequence[Sequence[dict]],
                          train_max_n: int) -> Measurement:
    """The lecture's claim for the LSTM: it counts beyond the training range, and more often
    than the SRN and the GRU ("works the best"). Value: the share of converged LSTM seeds that
    generalise; it agrees when some do and the share beats that of every rival. Gap: the share
    of seeds the LSTM would have to gain to lead (one seed when it ties)."""
    k, converged = _counting_share(lstm, train_max_n)
    share = k / converged if converged else 0.0
    rival = max((_share(r, train_max_n) for r in rivals), default=0.0)
    agrees = k > 0 and share > rival
    gap = 0.0 if agrees else max(rival - share, 0.0) + 1 / max(converged, 1)
    behind = [r["converged"] for runs in (lstm, *rivals) for r in runs]
    return Measurement(share, agrees=agrees, gap=gap, runs=behind)


def _share(runs: Sequence[dict], train_max_n: int) -> float:
    k, converged = _counting_share(runs, train_max_n)
    return k / converged if converged else 0.0


def deciding_runs(model_runs: Mapping[str, Sequence[dict]], claim: str,
                  train_max_n: int) -> list[tuple[str, int]]:
    """The (model id, seed) pairs whose outcome makes a claim disagree, to be continued at twice
    the budget: for "no count" the seeds that generalise; for "lstm best" the converged LSTM
    seeds that do not and the rival seeds that do."""
    pairs = []
    for model_id, runs in model_runs.items():
        for r in runs:
            if not r["converged"]:
                continue
            counts = generalises(r, train_max_n)
            if (claim == "no count" and counts) or (claim == "lstm best" and (
                    (model_id == "lstm") != counts)):
                pairs.append((model_id, r["seed"]))
    return pairs


def stuck_runs(by_model: Mapping[str, Sequence[dict]]) -> list[tuple[str, int]]:
    """The (model id, seed) pairs that converged without fitting: each is continued to twice
    its epochs, to check that more training does not rescue it."""
    return [(m, r["seed"]) for m, runs in by_model.items() for r in runs
            if r["converged"] and not r["fitted"]]


def recheck(doubled: Mapping[tuple, dict], stuck: Sequence[tuple[str, int]], cfg: Mapping
            ) -> dict[str, dict]:
    """What became of the ``stuck`` runs continued to twice their epochs, per model name: how
    many were ``continued``, ``fitted`` then, are ``still_stuck`` (converged above the optimum
    again; their losses ``stuck_min`` … ``stuck_max``) or ``still_improving`` (stopped by the
    cap while improving; lowest and highest loss ``improving_min`` … ``improving_max``)."""
    result = {}
    for model_id in cfg["models"]:
        again = [doubled[p] for p in stuck if p[0] == model_id and p in doubled]
        if not again:
            continue
        still = [d["final_loss"] for d in again if d["converged"] and not d["fitted"]]
        moving = [d["final_loss"] for d in again if not d["converged"]]
        result[model_name(model_id, cfg)] = {
            "continued": len(again), "fitted": sum(d["fitted"] for d in again),
            "still_stuck": len(still), "stuck_min": min(still, default=None),
            "stuck_max": max(still, default=None), "still_improving": len(moving),
            "improving_min": min(moving, default=None), "improving_max": max(moving, default=None)}
    return result


def _fitted_text(s: dict, train_max_n: int) -> str:
    """"fitted 5/6 seeds (1 stuck above the optimum); of those, 3/5 count beyond 20;
    max_correct_n 25.1 ± 3.2, best 41 (seed 2)"."""
    text = f"fitted {s['fitted']}/{s['n_seeds']} seeds"
    if s["stuck"]:
        text += f" ({s['stuck']} stuck above the optimum)"
    if not s["fitted"]:
        return text + f"; lowest final loss {s['lowest_final_loss']:.3f}"
    text += (f"; of those, {s['generalised']}/{s['fitted']} count beyond {train_max_n}; "
             f"max_correct_n {pm(s['max_correct_n_mean'], s['max_correct_n_se'], digits=1)}, "
             f"best {s['max_correct_n_best_seed']} (seed {s['best_seed']})")
    return text


def claims(summary: Mapping[str, dict], verdicts: Mapping[str, object], unstable: dict | None,
           cfg: Mapping, optimum: float, stuck_twice: Mapping[str, dict] | None = None
           ) -> list[Row]:
    """The paper-vs-ours table: the lecture's claim per model (verdicts from ``verdicts``, keyed
    by model id: a Verdict or a label), Gers & Schmidhuber's reach, Weiss et al.'s theory for the
    two extra SRNs, the seeds that failed to learn, at twice the epochs too (``stuck_twice``:
    :func:`recheck`), and the best LSTM's stability across epochs."""
    train_n, test_n = cfg["train_max_n"], cfg["test_max_n"]
    fit_note = (f"a seed has fitted when its training loss is within {cfg['tolerance']:g} nats "
                f"of the optimum {optimum:.4f}")
    rows = []
    for model_id in ("srn", "gru"):
        name = model_name(model_id, cfg)
        if name not in summary:
            continue
        s = summary[name]
        if not s["converged"]:
            note = "no seed converged: the cap on epochs came first, so nothing is compared"
        elif not s["fitted"]:
            note = (f"no seed fitted the training set ({fit_note}): it fails before counting "
                    "is tested, so it cannot count beyond the training range either")
        elif s["generalised"]:
            note = (f"{s['generalised']} fitted seed(s) get every n right beyond {train_n}: "
                    "some counting past the training range, as a squashing unit can for a while")
        else:
            note = f"no fitted seed is right on every n ≤ {train_n + 1}"
        if s["fitted"] and s["stuck"]:
            note += f"; {s['stuck']} seed(s) failed to learn (a stuck seed counts nothing)"
        rows.append(Row(
            f"{name} ({cfg['hidden']} units): counts beyond the training range (n ≤ {train_n}, "
            f"tested to {test_n})",
            f"no: its state saturates ({LECTURE})", _fitted_text(s, train_n), note,
            verdicts.get(model_id, "")))
    name = model_name("lstm", cfg)
    if name in summary:
        s = summary[name]
        rivals = [model_name(m, cfg) for m in ("srn", "gru") if model_name(m, cfg) in summary]
        note = ("the share of converged seeds that fit and count, against the "
                + (" and the ".join(f"{r}'s" for r in rivals) or "rivals'")
                + " (a seed stuck above the optimum counts as not counting)")
        rows.append(Row(
            f"LSTM ({cfg['hidden']} units): counts beyond the training range, more often than "
            "SRN and GRU",
            f"yes: \"for classic counting language, LSTM works the best\" ({LECTURE})",
            _fitted_text(s, train_n), note, verdicts.get("lstm", "")))
        best = s["max_correct_n_best_seed"]
        rows.append(Row(
            "LSTM: best fitted seed's max_correct_n",
            f"trained on n ≤ 10, right on every n up to ≈ 1,000 ({GERS}, peephole LSTM)",
            f"{best} (seed {s['best_seed']}; trained on n ≤ {train_n}, tested to {test_n})"
            if best is not None else "no seed fitted",
            "different training range, test range, size and cell (no peepholes)"
            + ("; ours is right to the end of our test" if best == test_n else ""),
            "not comparable"))
    theory = {"srn-relu": "can implement an exact counter (theory: finite precision)",
              "srn-wide": "can only approximate a counter: a squashing unit saturates (theory)"}
    for model_id, claim in theory.items():
        name = model_name(model_id, cfg)
        if name in summary:
            rows.append(Row(
                f"{name}: counts beyond the training range", f"{claim} ({WEISS})",
                _fitted_text(summary[name], train_n),
                "a theorem about what the weights can express, not about what training finds",
                "not comparable"))
    for model_id in cfg["models"]:
        name = model_name(model_id, cfg)
        s = summary.get(name)
        if not s or not s["stuck"]:
            continue
        ours = (f"{s['stuck']}/{s['n_seeds']} seeds stuck at "
                f"{_span(s['stuck_loss_min'], s['stuck_loss_max'])} nats")
        again = (stuck_twice or {}).get(name)
        if again is not None:
            parts = [f"{again['still_stuck']} still stuck"
                     + (f" at {_span(again['stuck_min'], again['stuck_max'])}"
                        if again["still_stuck"] else "")]
            if again["still_improving"]:
                parts.append(f"{again['still_improving']} still improving at the cap, at "
                             f"{_span(again['improving_min'], again['improving_max'])}")
            parts.append(f"{again['fitted']} fitted")
            ours += f"; at twice the epochs: {', '.join(parts)}"
        rows.append(Row(
            f"{name}: seeds that fail to learn n ≤ {train_n}", "— (not reported)", ours,
            f"stuck: the training loss improved by < {cfg['min_delta']:.1%} over "
            f"{cfg['patience']} epochs, more than {cfg['tolerance']:g} nats above the optimum "
            f"{optimum:.4f}; each stuck seed was continued to twice its epochs (same seed)"))
    if unstable is not None:
        if unstable["first_epoch_beyond"] is None:
            ours, note = f"never beyond n = {train_n}", "no fitted LSTM seed counts"
        else:
            ours = (f"seed {unstable['seed']}: first beyond n = {train_n} at epoch "
                    f"{unstable['first_epoch_beyond']}, then {unstable['min_after']}"
                    f"…{unstable['max_after']}")
            note = ("the slides show one checkpoint; ours moves between epochs"
                    if unstable["max_after"] > unstable["min_after"] else "stable once it counts")
        rows.append(Row("best LSTM seed: max_correct_n over the epochs after it first counts "
                        f"beyond n = {train_n}", "— (not reported)", ours, note))
    return rows


def _span(low: float, high: float) -> str:
    """"0.271" or "0.271–0.301" (three decimals; one value when both round alike)."""
    low, high = f"{low:.3f}", f"{high:.3f}"
    return low if low == high else f"{low}–{high}"


# -- figures --------------------------------------------------------------------------------------
def final_figure(runs: Sequence[dict], train_max_n: int, test_max_n: int):
    """Final max_correct_n, one marker per seed, per model: filled when the seed fitted its
    training set, hollow when it was stuck above the optimum, a cross when it hit the cap (the
    dashed line: longest training n)."""
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(r["model"] for r in runs))
    fig = Figure(figsize=(1.3 * len(names) + 1.5, 3.2), layout="tight")
    ax = fig.subplots()
    for i, name in enumerate(names):
        mine = [r for r in runs if r["model"] == name]
        xs = np.full(len(mine), i) + np.linspace(-0.15, 0.15, len(mine))
        for x, r in zip(xs, mine):
            if not r["converged"]:
                ax.scatter([x], [r["max_correct_n"]], s=36, color=f"C{i}", marker="x")
            else:
                ax.scatter([x], [r["max_correct_n"]], s=36, color=f"C{i}",
                           facecolors=f"C{i}" if r["fitted"] else "none")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.text(-0.4, train_max_n + 1, "longest training n", ha="left", fontsize=8, color="grey")
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(-2, test_max_n + 3)
    ax.set_ylabel("max_correct_n (final model)")
    ax.set_title("a^n b^n, one marker per seed (hollow: stuck above the optimum)", fontsize=9)
    return fig


def epochs_figure(runs: Sequence[dict], train_max_n: int, model: str = "LSTM"):
    """max_correct_n at every evaluation, one line per seed of ``model`` (dashed: a seed that
    did not fit its training set)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), layout="tight")
    ax = fig.subplots()
    for r in (r for r in runs if r["model"] == model):
        ax.plot(r["curve_epochs"], r["max_correct_n_curve"], lw=1,
                ls="-" if r["fitted"] else "--", label=f"{model} seed {r['seed']}")
    ax.axhline(train_max_n, color="grey", ls="--", lw=1)
    ax.set_xlabel("epoch")
    ax.set_ylabel("max_correct_n")
    ax.legend(fontsize=7, ncol=2)
    return fig


def curves_figures(histories: Mapping, cfg: Mapping, optimum: float) -> dict:
    """One learning-curve figure per model (``curves_<id>``): every seed's training loss against
    the exact optimum; unconverged seeds dashed."""
    figures = {}
    for model_id in cfg["models"]:
        mine = {f"seed {seed}": h for (m, seed), h in histories.items() if m == model_id}
        if mine:
            figures[f"curves_{model_id}"] = learning_curves(
                mine, ("train_loss",), optimum=optimum, logy=True, size=(4.6, 3.2),
                title=f"{model_name(model_id, cfg)}: training loss")
    return figures


# -- the experiment -------------------------------------------------------------------------------
def _train_all(pairs, cfg, device, progress, min_epochs=None, resume=None) -> list:
    """Train every (model id, seed) of ``pairs`` in parallel; ``min_epochs`` and ``resume``
    map a pair to its budget and the History it continues."""
    jobs = [(m, s, cfg, str(device), (min_epochs or {}).get((m, s), 0), "settings",
             (resume or {}).get((m, s))) for m, s in pairs]
    return parallel_map(train_one, jobs, device=device, desc="a^n b^n", progress=progress)


def run(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
        settings: dict | None = None) -> Replication:
    """Train every model of ``settings["models"]`` on a^n b^n (n ≤ ``train_max_n``) for every
    seed until it fits its training set or is stuck; score them; judge the lecture's claims.

    ``numbers["runs"]``: one dict per (model, seed) (:func:`score_run`); ``numbers["summary"]``:
    per model (:func:`summarise`); ``numbers["optimum"]``: the exact training optimum;
    ``numbers["lstm_instability"]``: the best fitted LSTM's per-epoch range
    (:func:`instability`); ``numbers["doubled"]``: the runs continued to twice their epochs
    (the stuck ones, and the deciding ones of a claim that disagreed);
    ``numbers["stuck_twice"]``: per model, what became of its stuck seeds then
    (:func:`recheck`). ``runs``: every training history by name ("LSTM seed 0", "GRU seed 2
    (twice the budget)"). ``artefacts``: ``models`` and
    ``histories`` keyed by (model id, seed), e.g. ("lstm", 0), ``doubled`` (the same for the
    continued runs), ``vocab`` and ``language``.
    Figures: ``final`` (one marker per seed), ``lstm_epochs`` and ``curves_<id>``.
    """
    scale = normalise_scale(scale)
    cfg = anbn_settings(scale, settings)
    seeds = seed_list(seeds, DEFAULT_SEEDS[scale])
    device = pick_device(device)
    language = AnBn(min_n=1, max_n=cfg["train_max_n"])
    vocab = Vocab.for_language(language)
    train_n, test_n = cfg["train_max_n"], cfg["test_max_n"]
    optimum = training_optimum(cfg)

    with Timer() as timer:
        pairs = [(m, s) for m in cfg["models"] for s in model_seeds(m, seeds, cfg)]
        trained = _train_all(pairs, cfg, device, progress)
        models = {p: t[0] for p, t in zip(pairs, trained)}
        histories = {p: t[1] for p, t in zip(pairs, trained)}
        scores = {p: score_run(*p, models[p], histories[p], cfg) for p in pairs}
        runs = list(scores.values())
        by_model = {m: [scores[p] for p in pairs if p[0] == m] for m in cfg["models"]}
        verdicts, doubled = _verdicts(by_model, cfg, device, progress, histories)
    summary = summarise(runs, train_n)
    stuck_twice = recheck(doubled, stuck_runs(by_model), cfg)
    fitted_lstm = [r for r in runs if r["id"] == "lstm" and r["fitted"]]
    best_lstm = max(fitted_lstm, key=lambda r: r["max_correct_n"]) if fitted_lstm else None
    unstable = instability(best_lstm, train_n) if best_lstm else None
    named = {f"{model_name(m, cfg)} seed {s}": histories[m, s] for m, s in pairs}
    named.update({f"{model_name(m, cfg)} seed {s} (twice the budget)": d["history"]
                  for (m, s), d in doubled.items()})
    numbers = {
        "runs": runs, "summary": summary, "optimum": optimum, "lstm_instability": unstable,
        "train_max_n": train_n, "test_max_n": test_n,
        "doubled": [{k: v for k, v in d.items() if k not in ("history", "network")}
                    for d in doubled.values()],
        "stuck_twice": stuck_twice,
    }
    figures = {"final": final_figure(runs, train_n, test_n)}
    if any(r["id"] == "lstm" for r in runs):
        figures["lstm_epochs"] = epochs_figure(runs, train_n)
    figures.update(curves_figures(histories, cfg, optimum))
    return Replication(
        experiment="anbn", title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=cfg, numbers=numbers,
        rows=claims(summary, verdicts, unstable, cfg, optimum, stuck_twice), figures=figures,
        artefacts={"models": models, "histories": histories, "vocab": vocab,
                   "language": language,
                   "doubled": {p: (d["network"], d["history"]) for p, d in doubled.items()}},
        seconds=timer.seconds, runs=named)


def _verdicts(by_model: Mapping[str, list], cfg: Mapping, device, progress,
              histories: Mapping) -> tuple[dict, dict]:
    """The lecture's claims judged (``{model id: Verdict}``) and the runs continued to twice
    their epochs (``{(id, seed): {..., "history", "network"}}``): every stuck run, and the
    deciding runs of each claim that disagrees, trained together."""
    train_n = cfg["train_max_n"]
    claims_ = {m: "no count" for m in ("srn", "gru") if m in by_model}
    if "lstm" in by_model:
        claims_["lstm"] = "lstm best"
    rivals = [m for m in ("srn", "gru") if m in by_model]

    def involved(model_id: str) -> list[str]:
        return [model_id] if model_id != "lstm" else ["lstm", *rivals]

    def measure(current: Mapping[str, list], model_id: str) -> Measurement:
        if claims_[model_id] == "no count":
            return no_count_measurement(current[model_id], train_n)
        return lstm_best_measurement(current["lstm"], [current[m] for m in rivals], train_n)

    first = {m: measure(by_model, m) for m in claims_}
    wanted = list(stuck_runs(by_model))
    for m, measurement in first.items():
        if measurement.converged and not measurement.agrees:
            wanted += deciding_runs({k: by_model[k] for k in involved(m)}, claims_[m], train_n)
    wanted = list(dict.fromkeys(wanted))
    budgets = {p: 2 * math.ceil(histories[p].convergence.epochs) for p in wanted}
    doubled: dict = {}
    if wanted:
        for p, (model, history) in zip(wanted, _train_all(wanted, cfg, device, progress,
                                                          budgets, histories)):
            doubled[p] = {**score_run(*p, model, history, cfg), "min_epochs": budgets[p],
                          "history": history, "network": model}
    current = {m: [doubled.get((m, r["seed"]), r) for r in runs] for m, runs in by_model.items()}
    verdicts = {m: judge(first[m], doubled=lambda m=m: measure(current, m)) for m in claims_}
    return verdicts, doubled


EXPERIMENTS = (Experiment(
    name="anbn",
    title="a^n b^n: which recurrent networks learn to count (SRN, GRU, LSTM, ReLU and wide "
          "SRNs trained on n ≤ 20, tested up to n = 60)",
    chapter="03_gates", run=run),)
