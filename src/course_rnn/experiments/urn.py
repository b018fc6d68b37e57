"""Bernardy & Lappin (2022; 2023): unitary RNNs against LSTMs on Dyck and cross-serial strings.

Chapter 6 shows both experiments; ``python -m course_rnn replicate urn-dyck`` (or
``urn-cross-serial``) runs the same functions and saves what they return.

**urn-dyck** (:func:`run_dyck`; B&L 2022 §5, 2023 §4). Five bracket pairs ``() [] {} <> +-``,
strings of exactly 20 symbols from the seeds' generator (``Dyck.sample(method="seeds")``);
training and validation strings reach depth exactly 3, the test strings are unconstrained. Four
networks of 50 units are trained as language models with Adam at the papers' learning rate 0.01
(the seeds' code uses Adam's default 0.001), each until its validation loss (held-out strings
of the training distribution) stops improving:

* a **3-TURN**, h_t = Q(x_t) h_{t-1} with Q = e^S, S = T − Tᵀ and only the first 3 rows of T free,
  and the **Full-URN** (every row free) – the 2022 paper's two URNs;
* the unconstrained **MatrixRNN** baseline, h_t = M(x_t) h_{t-1} with a free matrix per symbol
  (2022 §5);
* an **LSTM** (embedding 12), the 2023 paper's comparison.

Scored by the papers' metric (:func:`course_rnn.metrics.dyck_closing_accuracy`: at each closing
bracket, is the top-scoring closer the right one? chance 1/5), broken down three ways, each
named for what it counts about the closing bracket's pair: **attractors** (the papers' x-axis),
**inner nesting** (how deep the nesting goes inside the pair: the seeds' ``parenDepths``, which
is what the papers mean by "nesting depth") and **outer depth** (how many brackets are open when
it closes; the papers never measure it). The 3-TURN's embeddings are then read with linear
algebra alone (:func:`embedding_analysis`, 2022 Tables 3–4).

**urn-cross-serial** (:func:`run_cross_serial`; B&L 2023 §3, Tables 1–2, Fig. 2). Train on
C_8 = {a^m b^n c^m d^n | m + n < 8}, test on all 36 strings of C_10; full URNs and LSTMs
(embedding 20) of 8, 16 and 32 units, each trained until it fits its training lengths (every
string of C_8 right by the paper's criterion), scored per string by
:func:`course_rnn.metrics.cross_serial_accuracy`. The parameter counts of the paper's Tables 1–2
are recomputed from formulas (:func:`parameter_count_rows`).

**Verdicts wait for convergence** (:func:`~course_rnn.experiments.replication.judge`): a row
compares only converged runs, and a disagreement is re-checked by continuing the deciding runs
to twice their epochs (same seed, so the first half is the same run) before it may read
"differs". Independent runs train in parallel worker processes
(:func:`~course_rnn.experiments.workers.parallel_map`).

Both run on CPU or CUDA (``device``). Scales: ``"quick"`` is the chapter's (a few thousand
strings, one to two minutes of two CPU cores per experiment); ``"paper"`` uses the papers' corpus
sizes. ``settings=`` overrides entries of :data:`DYCK_SETTINGS` / :data:`CROSS_SERIAL_SETTINGS`
(the tests use it to run tiny).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from ..analysis.curves import learning_curves
from ..analysis.report import keras_lstm_parameter_count
from ..analysis.urn import (
    average_effect,
    pair_effect,
    phrase_matrices,
    plane_similarities,
    signature,
)
from ..languages import Vocab
from ..languages.cross_serial import CrossSerial
from ..languages.dyck import Dyck
from ..metrics import cross_serial_accuracy, dyck_closing_accuracy, pooled_accuracy
from ..models import build_model
from ..models.urn import urn_parameter_count
from ..training import Plateau, ReduceOnPlateau, Target, evaluate_loss, fit
from ..utils import pick_device
from .replication import (
    Experiment,
    Measurement,
    Replication,
    Row,
    Timer,
    judge,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
)
from .workers import parallel_map

# -- settings -------------------------------------------------------------------------------------

#: urn-dyck per scale. ``train``/``valid``: strings of depth exactly ``depth`` (seeds 0 and 2);
#: ``test``: unconstrained strings (seed 1), of which the first ``probe`` are also scored at
#: every epoch (recorded, never used to stop or select); ``length``: symbols per string;
#: ``units``: state size of every network; ``embedding``: the LSTM's input embedding;
#: ``epochs``: the cap; ``patience``: evaluations (epochs) without a 0.1 % better validation loss
#: before a run counts as converged; ``lr_patience``: epochs of a stalled validation loss after
#: which the learning rate is halved (so that a run settles into its minimum instead of
#: bouncing at the noise floor of its starting rate). Paper: 102,400 strings, 100 epochs,
#: batch 512, constant lr 0.01 (2022 §5; 2023 §4); quick: batch 64 so that a few thousand
#: strings still give 50 updates an epoch.
DYCK_SETTINGS: dict[str, dict] = {
    "quick": dict(train=3_200, valid=512, test=5_120, probe=256, length=20, depth=3, units=50,
                  embedding=12, epochs=80, patience=5, lr_patience=1, batch=64, lr=0.01),
    "paper": dict(train=102_400, valid=5_120, test=5_120, probe=512, length=20, depth=3,
                  units=50, embedding=12, epochs=200, patience=10, lr_patience=2, batch=512,
                  lr=0.01),
}
#: urn-cross-serial per scale. ``train``: strings sampled from C_{max_total+1}; ``test_family``:
#: test on every string of C_k for this k; ``units``: the state sizes compared (Tables 1–2);
#: ``embedding``: the LSTM's input embedding; ``epochs``: the cap on training until every
#: string of the training family is right. Paper (2023 §3): 51,200 strings, 100 epochs,
#: batch 512, lr 0.001; quick: 1,024 strings and lr 0.01 (far fewer updates per epoch).
CROSS_SERIAL_SETTINGS: dict[str, dict] = {
    "quick": dict(train=1_024, max_total=7, test_family=10, units=(8, 16, 32), embedding=20,
                  epochs=400, batch=128, lr=0.01),
    "paper": dict(train=51_200, max_total=7, test_family=10, units=(8, 16, 32), embedding=20,
                  epochs=300, batch=512, lr=0.001),
}
#: How many seeds each experiment trains by default (the chapter's counts).
DYCK_SEEDS = {"quick": 1, "paper": 3}
CROSS_SERIAL_SEEDS = {"quick": 2, "paper": 3}

#: The Dyck networks: display name → (registry kind, truncation k for a URN). Ordered slowest
#: first, so that parallel workers start on the longest runs.
DYCK_MODELS = {"3-TURN": ("urn", 3), "Full-URN": ("urn", None), "MatrixRNN": ("matrix_rnn", None),
               "LSTM": ("lstm", None)}
#: Pooled attractor ranges of the chapter: "few" is 0 … FEW_ATTRACTORS, "many" ≥ MANY_ATTRACTORS.
FEW_ATTRACTORS, MANY_ATTRACTORS = 2, 6
#: A breakdown value counts for the worst-error row (2023 Fig. 3c) with at least this many
#: closing brackets behind it.
MIN_BRACKETS = 30

#: B&L 2023, Table 1 (cross-serial) and Table 2 (Dyck): (task, units) → (LSTM, URN) parameters.
PAPER_PARAMS = {
    ("cross-serial", 8): (1218, 370), ("cross-serial", 16): (2738, 1370),
    ("cross-serial", 32): (7314, 5290),
    ("Dyck", 8): (924, 444), ("Dyck", 16): (2204, 1644), ("Dyck", 32): (6300, 6348),
}
#: (V, LSTM embedding) the paper's counts imply: V counts start and stop symbols; the embedding
#: sizes are inferred by solving the counts (the paper does not state them).
PAPER_VOCAB = {"cross-serial": (10, 20), "Dyck": (12, 12)}


# -- claims: a paper-vs-ours row whose verdict waits for convergence ---------------------------


@dataclass(frozen=True)
class Claim:
    """One row of a table: what the paper says and how to check it on our numbers.

    ``check(numbers) -> (ours, value, agrees, gap)``: the text of the ours column, the figure,
    whether it agrees and how far it is from agreeing (≥ 0). ``models``: the networks whose
    runs decide the row (their convergence gates the verdict; they are continued at twice the
    budget when the row disagrees); empty for a row that needs no training.
    """

    quantity: str
    paper: str
    check: Callable[[Mapping], tuple[str, float, bool, float]]
    models: tuple[str, ...]
    note: str = ""


def _judged_rows(claims: Sequence[Claim], numbers: Mapping, doubled_numbers: Callable,
                 runs_of: Callable[[Mapping, str], list]) -> tuple[list[Row], Mapping | None]:
    """The rows of ``claims``: each judged on ``numbers``; if any converged row disagrees, the
    models behind those rows are continued to twice their budget, once, by
    ``doubled_numbers(models) -> numbers`` (a callable, so that nothing is trained when every
    row agrees). Returns the rows and the doubled numbers (None when none were needed)."""
    firsts = {}
    for claim in claims:
        ours, value, agrees, gap = claim.check(numbers)
        firsts[claim] = (ours, Measurement(value, agrees, gap, runs_of(numbers, claim.models)))
    needed = sorted({m for c, (_, first) in firsts.items() if first.converged
                     and not first.agrees for m in c.models})
    second_numbers = doubled_numbers(needed) if needed else None
    rows = []
    for claim, (ours, first) in firsts.items():

        def doubled(claim=claim, first=first):
            if not claim.models:  # nothing trained: more training cannot change the figure
                return first
            _, value, agrees, gap = claim.check(second_numbers)
            return Measurement(value, agrees, gap, runs_of(second_numbers, claim.models))

        rows.append(Row(claim.quantity, claim.paper, ours, claim.note,
                        verdict=judge(first, doubled)))
    return rows, second_numbers


def doubled_epochs(history) -> int:
    """Twice the epochs a run used: the ``min_epochs`` of its continuation."""
    return 2 * math.ceil(history.convergence.epochs)


# -- urn-dyck -------------------------------------------------------------------------------------


def dyck_cuts(depth: int) -> dict[str, tuple[str, str, Callable[[int], bool]]]:
    """The six pooled scores of the chapter: key → (label, breakdown, which values to keep).

    Attractors: 0 … :data:`FEW_ATTRACTORS` vs ≥ :data:`MANY_ATTRACTORS`. Inner nesting: 0–1 vs
    ≥ ``depth`` (training strings of depth ``depth`` have inner nesting ≤ depth − 1, so the
    latter is never seen in training). Outer depth: ≤ ``depth`` (seen) vs ≥ ``depth + 2``
    (unseen; the boundary depth + 1 counts in neither).
    """
    few, many = FEW_ATTRACTORS, MANY_ATTRACTORS
    return {
        "few_attractors": (f"{few} or fewer attractors", "attractors", lambda a: a <= few),
        "many_attractors": (f"{many} or more attractors", "attractors", lambda a: a >= many),
        "shallow_inner": ("inner nesting 0–1", "inner_nesting", lambda k: k <= 1),
        "deep_inner": (f"inner nesting ≥ {depth}, unseen", "inner_nesting",
                       lambda k: k >= depth),
        "seen_outer": (f"outer depth ≤ {depth}, seen", "outer_depth", lambda d: d <= depth),
        "unseen_outer": (f"outer depth ≥ {depth + 2}, unseen", "outer_depth",
                         lambda d: d >= depth + 2),
    }


def pooled_scores(closing: Mapping, depth: int) -> dict[str, float]:
    """Every cut of :func:`dyck_cuts` pooled from one :func:`dyck_closing_accuracy` result."""
    return {key: pooled_accuracy(closing, by, keep)
            for key, (_, by, keep) in dyck_cuts(depth).items()}


def worst_error(closing: Mapping, breakdown: str = "attractors",
                min_count: int = MIN_BRACKETS) -> float:
    """The largest error rate over the values of ``breakdown`` backed by at least ``min_count``
    closing brackets: B&L 2023's summary of a Dyck model (Fig. 3c, "the maximum error rate for
    any given number of attractors")."""
    acc, count = closing[f"by_{breakdown}"], closing[f"count_by_{breakdown}"]
    errors = [1 - acc[k] for k in acc if count[k] >= min_count]
    if not errors:
        raise ValueError(f"no {breakdown} value has {min_count} closing brackets")
    return float(max(errors))


def embedding_analysis(model, vocab: Vocab, dyck: Dyck) -> dict:
    """Read a trained URN's bracket embeddings (B&L 2022 §3, §5.1, Tables 3–4), no data needed.

    * ``average_effect[b]`` = ‖Q(b) − I‖² and ``signature[b]`` its rotation angles in degrees;
    * ``pair_effect[i][j]`` = ‖Q(c_j) Q(o_i) − I‖² for opener o_i (row) and closer c_j (column);
      the diagonal holds the matching pairs (Table 4);
    * ``plane_similarity`` of the planes rotated by the first two openers (Table 3: 2 = the same
      plane, 0 = orthogonal), rows/columns in the order of their signatures (largest angle first);
    * summaries: the ranges of single and matching-pair effects, and the mean plane similarity
      on the diagonal (planes of similar rank of angle) vs off it.
    """
    mats = phrase_matrices(model, vocab, list(dyck.alphabet))
    effects = {b: average_effect(q) for b, q in mats.items()}
    pairs = np.array([[pair_effect(mats[o], mats[c]) for c in dyck.closers]
                      for o in dyck.openers])
    first, second = dyck.openers[:2]
    planes = plane_similarities(mats[first], mats[second])
    on_diagonal = np.eye(*pairs.shape, dtype=bool)
    plane_diagonal = np.eye(*planes.shape, dtype=bool)
    singles = np.array(list(effects.values()))
    return {
        "average_effect": effects,
        "signature": {b: signature(q, degrees=True).tolist() for b, q in mats.items()},
        "pair_effect": pairs.tolist(),
        "plane_openers": [first, second],
        "plane_similarity": planes.tolist(),
        "single_min": float(singles.min()), "single_max": float(singles.max()),
        "matching_min": float(pairs[on_diagonal].min()),
        "matching_max": float(pairs[on_diagonal].max()),
        "non_matching_min": float(pairs[~on_diagonal].min()),
        "non_matching_max": float(pairs[~on_diagonal].max()),
        "plane_diagonal": float(planes[plane_diagonal].mean()) if planes.size else float("nan"),
        "plane_other": (float(planes[~plane_diagonal].mean()) if (~plane_diagonal).any()
                        else float("nan")),
    }


def dyck_data(cfg: Mapping) -> tuple[list, list, list]:
    """Training strings (seed 0) and validation strings (seed 2), every one of depth exactly
    ``cfg["depth"]``, and unconstrained test strings (seed 1), all of ``cfg["length"]`` symbols,
    from the seeds' generator."""
    dyck = Dyck()
    shape = dict(length=cfg["length"], method="seeds")
    train = dyck.sample(cfg["train"], seed=0, depth=cfg["depth"], **shape)
    valid = dyck.sample(cfg["valid"], seed=2, depth=cfg["depth"], **shape)
    test = dyck.sample(cfg["test"], seed=1, **shape)
    return train, valid, test


def dyck_model(name: str, vocab_size: int, cfg: Mapping, seed: int):
    """One of :data:`DYCK_MODELS` with ``cfg["units"]`` units (URN-style models: the library's
    dropout 0.05, as in the seeds' code)."""
    kind, k = DYCK_MODELS[name]
    if kind == "urn":
        return build_model(kind, vocab_size=vocab_size, n=cfg["units"], k=k, seed=seed)
    if kind == "lstm":
        return build_model(kind, vocab_size=vocab_size, hidden_size=cfg["units"],
                           embedding_dim=cfg["embedding"], seed=seed)
    return build_model(kind, vocab_size=vocab_size, n=cfg["units"], seed=seed)


#: What :func:`train_dyck_model` records at every epoch on the probe strings: "probe: <label>".
def probe_metric(key: str, depth: int) -> str:
    return f"probe: {dyck_cuts(depth)[key][0]}"


class _ProbeScores:
    """The pooled scores of the probe strings, computed once per evaluation: the first metric
    computes them all, the others read them (``fit`` calls its metrics in order)."""

    def __init__(self, dyck: Dyck, vocab: Vocab, strings: Sequence, depth: int):
        self.dyck, self.vocab, self.strings, self.depth = dyck, vocab, strings, depth
        self.scores: dict = {}

    def metrics(self) -> dict[str, Callable]:
        keys = list(dyck_cuts(self.depth))
        out = {}
        for i, key in enumerate(keys):
            out[probe_metric(key, self.depth)] = (
                (lambda model, key=key: self._compute(model)[key]) if i == 0
                else (lambda model, key=key: self.scores[key]))
        return out

    def _compute(self, model) -> dict:
        closing = dyck_closing_accuracy(model, self.dyck, self.vocab, self.strings)
        self.scores = pooled_scores(closing, self.depth)
        return self.scores


def halving(cfg: Mapping) -> ReduceOnPlateau:
    """The Dyck runs' schedule: halve the learning rate after ``cfg["lr_patience"]`` epochs
    without a better validation loss."""
    return ReduceOnPlateau(factor=0.5, patience=cfg["lr_patience"])


def train_dyck_model(name: str, seed: int, cfg: Mapping, train: Sequence, valid: Sequence,
                     test: Sequence, device=None, min_epochs: int = 0, resume=None) -> dict:
    """Train one Dyck network until its validation loss plateaus (at least ``min_epochs``; the
    cap is ``max(cfg["epochs"], min_epochs)``; ``resume``: the History of the run to continue),
    then score it on ``test``. Returns the CPU
    ``model``, its ``history``, ``closing`` (:func:`dyck_closing_accuracy` on ``test``) and
    ``test_loss``. A top-level function, so that worker processes can run it."""
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    model = dyck_model(name, len(vocab), cfg, seed)
    probe = _ProbeScores(dyck, vocab, test[: cfg["probe"]], cfg["depth"])
    history = fit(model, vocab, train, valid=valid, epochs=max(cfg["epochs"], min_epochs),
                  min_epochs=min_epochs, batch_size=cfg["batch"], lr=cfg["lr"],
                  schedule=halving(cfg), until=Plateau(patience=cfg["patience"]), seed=seed,
                  device=device, metrics=probe.metrics(), progress=False, resume=resume)
    closing = dyck_closing_accuracy(model, dyck, vocab, test)
    test_loss = evaluate_loss(model, vocab, test)
    return {"model": model.cpu(), "history": history, "closing": closing, "test_loss": test_loss}


def _mean_dict(dicts: list[Mapping]) -> dict:
    """Key-wise mean over dicts (the same test set for every seed, so the same keys)."""
    return {k: float(np.mean([d[k] for d in dicts])) for k in dicts[0]}


def _dyck_numbers(runs: Mapping, cfg: Mapping, seeds: Sequence[int]) -> dict:
    """Every measured number of urn-dyck from ``runs[seed][name]``; means (and SEs) over seeds
    next to the per-seed figures."""
    depth = cfg["depth"]
    cuts = dyck_cuts(depth)
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    numbers: dict = {
        "summary_labels": {key: cut[0] for key, cut in cuts.items()},
        "cut_points": {"seen_outer_max": depth, "unseen_outer_min": depth + 2,
                       "shallow_inner_max": 1, "deep_inner_min": depth,
                       "few_attractors_max": FEW_ATTRACTORS,
                       "many_attractors_min": MANY_ATTRACTORS},
        "parameters": {}, "closing": {}, "summary": {}, "summary_se": {}, "test_loss": {},
        "test_loss_se": {}, "valid_loss": {}, "worst_attractor_error": {}, "convergence": {},
        "per_seed": {},
    }
    for seed in seeds:
        numbers["per_seed"][seed] = {name: {
            "accuracy": run["closing"]["accuracy"],
            "summary": pooled_scores(run["closing"], depth),
            "worst_attractor_error": worst_error(run["closing"]),
            "train_loss": run["history"].convergence.final["train_loss"],
            "valid_loss": run["history"].convergence.best,
            "test_loss": run["test_loss"],
            "epochs": run["history"].convergence.epochs,
            "converged": run["history"].converged,
        } for name, run in runs[seed].items()}
    for name in DYCK_MODELS:
        closing = [runs[s][name]["closing"] for s in seeds]
        per_seed = [numbers["per_seed"][s][name] for s in seeds]
        numbers["parameters"][name] = runs[seeds[0]][name]["model"].num_parameters()
        numbers["closing"][name] = {"accuracy": mean_se([c["accuracy"] for c in closing])[0]}
        for by in ("attractors", "inner_nesting", "outer_depth"):
            numbers["closing"][name][f"by_{by}"] = _mean_dict([c[f"by_{by}"] for c in closing])
            numbers["closing"][name][f"count_by_{by}"] = closing[0][f"count_by_{by}"]
        for key in cuts:
            mean, se = mean_se([p["summary"][key] for p in per_seed])
            numbers["summary"].setdefault(name, {})[key] = mean
            numbers["summary_se"].setdefault(name, {})[key] = se
        for key in ("test_loss", "valid_loss", "worst_attractor_error"):
            mean, se = mean_se([p[key] for p in per_seed])
            numbers[key][name] = mean
            if key == "test_loss":
                numbers["test_loss_se"][name] = se
        numbers["convergence"][name] = {"epochs": [p["epochs"] for p in per_seed],
                                        "converged": [p["converged"] for p in per_seed]}
    numbers["embeddings"] = {s: embedding_analysis(runs[s]["3-TURN"]["model"], vocab, dyck)
                             for s in seeds}
    emb = list(numbers["embeddings"].values())
    numbers["embedding_ranges"] = {
        "single_min": min(e["single_min"] for e in emb),
        "single_max": max(e["single_max"] for e in emb),
        "matching_min": min(e["matching_min"] for e in emb),
        "matching_max": max(e["matching_max"] for e in emb),
        "non_matching_min": min(e["non_matching_min"] for e in emb),
        "plane_diagonal": float(np.mean([e["plane_diagonal"] for e in emb])),
        "plane_other": float(np.mean([e["plane_other"] for e in emb])),
    }
    return numbers


#: 2022 Table 4: the range of one bracket's average effect after 100 epochs.
PAPER_SINGLE_EFFECT = (13.98, 14.85)


def _range_gap(low: float, high: float, target: tuple[float, float]) -> float:
    """How far the range [low, high] is from overlapping ``target`` (0 when they overlap)."""
    return max(0.0, target[0] - high, low - target[1])


def dyck_claims(cfg: Mapping) -> list[Claim]:
    """The Dyck rows of the chapter's table (B&L 2022 §5, Tables 3–4; 2023 §4, §6.1)."""
    def score(n, name, key):
        return pm(n["summary"][name][key], n["summary_se"][name][key], 2)

    def change(n, name, low, high):
        labels = n["summary_labels"]
        return f"{score(n, name, low)} ({labels[low]}) → {score(n, name, high)} ({labels[high]})"

    def not_falling(n, name, low, high, slack=0.02):
        s = n["summary"][name]
        return s[high] >= s[low] - slack, max(0.0, s[low] - slack - s[high])

    def falling(n, name, low, high):
        s = n["summary"][name]
        return s[high] < s[low], max(0.0, s[high] - s[low])

    def single(n):
        e = n["embedding_ranges"]
        gap = _range_gap(e["single_min"], e["single_max"], PAPER_SINGLE_EFFECT)
        return (f"{e['single_min']:.2f}–{e['single_max']:.2f}", e["single_max"], gap == 0, gap)

    def matching(n):
        e = n["embedding_ranges"]
        return (f"{e['matching_min']:.2f}–{e['matching_max']:.2f}", e["matching_max"],
                e["matching_max"] < 0.1, max(0.0, e["matching_max"] - 0.1))

    def much_smaller(n):
        e = n["embedding_ranges"]
        limit = 0.1 * e["single_min"]
        return (f"{e['matching_max']:.2f} vs ≥ {e['single_min']:.2f}", e["matching_max"],
                e["matching_max"] < limit, max(0.0, e["matching_max"] - limit))

    def planes(n):
        e = n["embedding_ranges"]
        return (f"similar angles {e['plane_diagonal']:.2f} vs others {e['plane_other']:.2f}",
                e["plane_diagonal"], e["plane_diagonal"] > e["plane_other"],
                max(0.0, e["plane_other"] - e["plane_diagonal"]))

    def urn_attractors(name):
        def check(n):
            ok, gap = not_falling(n, name, "few_attractors", "many_attractors")
            return (change(n, name, "few_attractors", "many_attractors"),
                    n["summary"][name]["many_attractors"], ok, gap)
        return check

    def urn_inner(n):
        ok, gap = not_falling(n, "3-TURN", "shallow_inner", "deep_inner")
        return (change(n, "3-TURN", "shallow_inner", "deep_inner"),
                n["summary"]["3-TURN"]["deep_inner"], ok, gap)

    def lstm_inner(n):
        ok, gap = falling(n, "LSTM", "shallow_inner", "deep_inner")
        return (change(n, "LSTM", "shallow_inner", "deep_inner"),
                n["summary"]["LSTM"]["deep_inner"], ok, gap)

    def matrix_attractors(n):
        ok, gap = falling(n, "MatrixRNN", "few_attractors", "many_attractors")
        return (change(n, "MatrixRNN", "few_attractors", "many_attractors"),
                n["summary"]["MatrixRNN"]["many_attractors"], ok, gap)

    def worst(n):
        w = n["worst_attractor_error"]
        return (f"3-TURN {w['3-TURN']:.2f} vs LSTM {w['LSTM']:.2f}", w["3-TURN"],
                w["3-TURN"] < w["LSTM"], max(0.0, w["3-TURN"] - w["LSTM"]))

    def test_loss(n):
        loss, se = n["test_loss"], n["test_loss_se"]
        return (f"{pm(loss['Full-URN'], se['Full-URN'], 3)} vs "
                f"{pm(loss['MatrixRNN'], se['MatrixRNN'], 3)}", loss["Full-URN"],
                loss["Full-URN"] < loss["MatrixRNN"],
                max(0.0, loss["Full-URN"] - loss["MatrixRNN"]))

    units = cfg["units"]
    return [
        Claim("average effect ‖Q − I‖² of one bracket (3-TURN)", "13.98–14.85 (2022 Table 4)",
              single, ("3-TURN",), "how far each bracket's rotation moves the state: "
              "Σ 4(1 − cos θ) over its rotation angles θ"),
        Claim("average effect of a matching pair", "0.06–0.07 (2022 Table 4)", matching,
              ("3-TURN",), "‖Q(c) Q(o) − I‖²: a closer undoes its opener"),
        Claim("matching pair ≪ single bracket", "0.07 vs ≥ 13.98 (2022 Table 4)", much_smaller,
              ("3-TURN",), "agrees when a pair's effect is below a tenth of a bracket's"),
        Claim("planes rotated by similar angles overlap most", "up to 1.73 of 2 (2022 Table 3)",
              planes, ("3-TURN",), "mean plane similarity of the first two openers"),
        Claim("3-TURN accuracy vs attractors", "no decline; rises (2022 Fig. 3; 2023 §4.1)",
              urn_attractors("3-TURN"), ("3-TURN",), "closing-bracket accuracy pooled over "
              "attractor counts; slack 0.02"),
        Claim("Full-URN accuracy vs attractors", "no decline (2022 Fig. 3)",
              urn_attractors("Full-URN"), ("Full-URN",), "as above"),
        Claim("URN accuracy vs nesting inside the pair", "no decline with nesting depth "
              "(2022 §6.1; 2023 §6.1)", urn_inner, ("3-TURN",),
              "the papers' 'nesting' is the seeds' parenDepths: the depth of the material "
              "inside the pair; inner nesting ≥ 3 never occurs in training"),
        Claim("LSTM accuracy vs nesting inside the pair", "declines with nesting depth "
              "(2023 §6.1, citing earlier LSTM studies)", lstm_inner, ("LSTM",)),
        Claim("worst error over attractor counts, URN vs LSTM",
              "URN lower at equal units (2023 §4.1, Fig. 3c)", worst, ("3-TURN", "LSTM"),
              f"max over attractor counts with ≥ {MIN_BRACKETS} closing brackets; "
              f"{units} units here, 8–32 in the paper"),
        Claim("baseline (MatrixRNN) accuracy vs attractors", "steadily decreasing (2022 §5)",
              matrix_attractors, ("MatrixRNN",)),
        Claim("test loss, Full-URN vs unconstrained", "1.472 vs 1.529 (2022 §5)", test_loss,
              ("Full-URN", "MatrixRNN"), "mean cross-entropy per symbol on the unconstrained "
              "test strings, at each run's best validation epoch"),
    ]


def _outer_depth_row(numbers: Mapping) -> Row:
    """The row the papers did not measure: accuracy by the depth *outside* the pair."""
    s, se, labels = numbers["summary"], numbers["summary_se"], numbers["summary_labels"]
    ours = "; ".join(f"{name} {pm(s[name]['seen_outer'], se[name]['seen_outer'], 2)} → "
                     f"{pm(s[name]['unseen_outer'], se[name]['unseen_outer'], 2)}"
                     for name in ("3-TURN", "LSTM"))
    return Row("accuracy vs outer depth (brackets open around the pair)",
               "not measured (2022 §5.1 expects confusion 'inside a deeply nested structure')",
               ours, f"{labels['seen_outer']} → {labels['unseen_outer']}; a row the papers "
               "do not have, so no verdict")


def _dyck_figures(numbers: Mapping, depth: int, runs: Mapping) -> dict[str, Figure]:
    """``dyck_curves`` (learning curves, every run) and ``dyck_accuracy`` (accuracy by
    attractors | inner nesting | outer depth)."""
    unseen = probe_metric("unseen_outer", depth)
    curves = learning_curves(runs, ("train_loss", "valid_loss", unseen),
                             title="Dyck: training, validation (depth 3) and the probe of "
                                   "unseen outer depths", size=(13, 3.4))
    accuracy = Figure(figsize=(13, 3.4), layout="constrained")
    axes = accuracy.subplots(1, 3, sharey=True)
    panels = [("by_attractors", "attractors inside the pair", None),
              ("by_inner_nesting", "nesting inside the pair (the papers' 'nesting')", depth - 1),
              ("by_outer_depth", "outer depth: brackets open when it closes", depth)]
    for ax, (key, label, trained) in zip(axes, panels):
        for name, r in numbers["closing"].items():
            ax.plot(list(r[key]), list(r[key].values()), "o-", ms=3, label=name)
        ax.axhline(0.2, color="0.5", ls=":", label="chance")
        if trained is not None:
            low = 0.5 if key == "by_outer_depth" else -0.5
            ax.axvspan(low, trained + 0.5, color="0.9", zorder=0, label="seen in training")
        ax.set_xlabel(label)
    axes[0].set_ylabel("closing-bracket accuracy")
    axes[2].legend(fontsize=7)
    return {"dyck_curves": curves, "dyck_accuracy": accuracy}


def _run_name(name: str, seed: int, doubled: bool = False) -> str:
    return f"{name} seed {seed}" + (" (2× budget)" if doubled else "")


def _train_dyck_runs(jobs: list[tuple], cfg, data, device, progress) -> list:
    """``train_dyck_model`` for every (name, seed, min_epochs, resume) in ``jobs``, in
    parallel."""
    train, valid, test = data
    return parallel_map(train_dyck_model,
                        [(name, seed, cfg, train, valid, test, str(device), min_epochs, resume)
                         for name, seed, min_epochs, resume in jobs],
                        device=device, desc="urn-dyck", progress=progress)


def run_dyck(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
             settings: Mapping | None = None) -> Replication:
    """3-TURN, Full-URN, MatrixRNN and LSTM on Dyck (B&L 2022 §5; 2023 §4).

    Each network is trained with Adam as a language model, L = −(1/N) Σ log p(w_{t+1} | w_1…w_t),
    on strings of depth exactly ``depth`` until its validation loss plateaus, then scored on the
    closing brackets of the unconstrained test strings. Data are the same for every seed; a seed
    sets the model's initialisation, dropout and the order of batches. ``seeds``: a count (seeds
    0 … N−1, default 1) or a list. Rows that disagree with the paper are re-checked with the
    deciding runs continued to twice their epochs (``numbers["doubled"]``). ``runs``: every
    training history; ``artefacts`` hold the trained models of the first seed (``models``),
    every seed's (``models_by_seed``), ``histories``, the ``train``/``valid``/``test`` strings,
    ``vocab`` and ``language``.
    """
    with Timer() as timer:
        scale = normalise_scale(scale)
        cfg = merge_settings(DYCK_SETTINGS[scale], settings, "urn-dyck")
        seeds = seed_list(seeds, DYCK_SEEDS[scale])
        device = pick_device(device)
        dyck = Dyck()
        vocab = Vocab(dyck.alphabet)
        data = dyck_data(cfg)
        jobs = [(name, seed, 0, None) for seed in seeds for name in DYCK_MODELS]
        trained = _train_dyck_runs(jobs, cfg, data, device, progress)
        runs: dict = {s: {} for s in seeds}
        for (name, seed, _, _), run in zip(jobs, trained):
            runs[seed][name] = run
        numbers = _dyck_numbers(runs, cfg, seeds)
        doubled_runs: dict = {}

        def doubled_numbers(models: list[str]) -> dict:
            more = [(m, s, doubled_epochs(runs[s][m]["history"]), runs[s][m]["history"])
                    for s in seeds for m in models]
            for (name, seed, _, _), run in zip(more, _train_dyck_runs(more, cfg, data, device,
                                                                      progress)):
                doubled_runs.setdefault(seed, {})[name] = run
            merged = {s: {**runs[s], **doubled_runs.get(s, {})} for s in seeds}
            return _dyck_numbers(merged, cfg, seeds)

        def runs_of(n: Mapping, models) -> list:
            return [bool(c) for m in models for c in n["convergence"][m]["converged"]]

        rows, second = _judged_rows(dyck_claims(cfg), numbers, doubled_numbers, runs_of)
        after = [r.quantity for r in rows].index("URN accuracy vs nesting inside the pair")
        rows.insert(after + 1, _outer_depth_row(numbers))
        if second is not None:
            numbers["doubled"] = {"models": sorted({m for s in doubled_runs
                                                    for m in doubled_runs[s]}),
                                  **{k: second[k] for k in ("summary", "test_loss",
                                                            "worst_attractor_error",
                                                            "embedding_ranges",
                                                            "convergence")}}
        histories = {_run_name(n, s): runs[s][n]["history"] for s in seeds for n in DYCK_MODELS}
        histories.update({_run_name(n, s, True): r["history"]
                          for s in doubled_runs for n, r in doubled_runs[s].items()})
        figures = _dyck_figures(numbers, cfg["depth"], histories)
    first = seeds[0]
    return Replication(
        experiment="urn-dyck", title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=cfg, numbers=numbers, rows=rows, figures=figures,
        artefacts={"models": {n: r["model"] for n, r in runs[first].items()},
                   "models_by_seed": {s: {n: r["model"] for n, r in runs[s].items()}
                                      for s in seeds},
                   "histories": {n: r["history"] for n, r in runs[first].items()},
                   "doubled": doubled_runs, "train": data[0], "valid": data[1],
                   "test": data[2], "vocab": vocab, "language": dyck},
        seconds=timer.seconds, runs=histories)


# -- urn-cross-serial -----------------------------------------------------------------------------

#: The metric a cross-serial run trains until: the share of the training family's strings (every
#: string of C_{max_total+1}) that the model gets right by the paper's criterion.
FIT_METRIC = "training strings right"


def parameter_count_rows() -> list[dict]:
    """B&L 2023 Tables 1–2 next to the formulas: LSTM = V·e + 4h(e + h) + 4h + V(h + 1)
    (:func:`~course_rnn.analysis.report.keras_lstm_parameter_count`, one bias per gate) and
    URN = V·n(n−1)/2 + V(n + 1) (:func:`~course_rnn.models.urn.urn_parameter_count`, full URN),
    with V and e from :data:`PAPER_VOCAB`."""
    rows = []
    for (task, units), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        v, emb = PAPER_VOCAB[task]
        rows.append({"task": task, "units": units,
                     "LSTM (paper)": paper_lstm,
                     "LSTM (formula)": keras_lstm_parameter_count(units, v, emb),
                     "URN (paper)": paper_urn,
                     "URN (urn_parameter_count)": urn_parameter_count(units, None, v)})
    return rows


def cross_serial_model(kind: str, vocab_size: int, units: int, cfg: Mapping, seed: int):
    """A full URN (no truncation, as in the 2023 paper) or an LSTM with ``units`` units."""
    if kind == "urn":
        return build_model("urn", vocab_size=vocab_size, n=units, seed=seed)
    return build_model("lstm", vocab_size=vocab_size, hidden_size=units,
                       embedding_dim=cfg["embedding"], seed=seed)


def train_cross_serial_model(kind: str, units: int, seed: int, cfg: Mapping, train: Sequence,
                             device=None, min_epochs: int = 0, resume=None) -> dict:
    """Train one network until every string of the training family C_{max_total+1} is right
    (:data:`FIT_METRIC` = 1; at least ``min_epochs``, at most ``max(cfg["epochs"],
    min_epochs)``; ``resume``: the History of the run to continue), then score it on every
    string of C_{test_family}. Returns the CPU ``model``,
    its ``history`` and ``scores`` (:func:`cross_serial_accuracy` on the test family)."""
    language = CrossSerial()
    vocab = Vocab(language.alphabet)
    model = cross_serial_model(kind, len(vocab), units, cfg, seed)
    family = language.family(cfg["max_total"] + 1)

    def fitted(m) -> float:
        return cross_serial_accuracy(m, language, vocab, family)["accuracy"]

    history = fit(model, vocab, train, epochs=max(cfg["epochs"], min_epochs),
                  min_epochs=min_epochs, batch_size=cfg["batch"], lr=cfg["lr"],
                  until=Target(FIT_METRIC, 1.0), metrics={FIT_METRIC: fitted}, seed=seed,
                  device=device, progress=False, resume=resume)
    scores = cross_serial_accuracy(model, language, vocab, language.family(cfg["test_family"]))
    return {"model": model.cpu(), "history": history, "scores": scores}


def mean_error(runs: list[Mapping], model: str, units: int | None = None,
               lengths=None) -> float:
    """Mean string error of ``model`` ("URN"/"LSTM") over seeds (and ``units`` if given): of the
    whole of C_k, or – with ``lengths`` – the unweighted mean of the errors at those m + n."""
    chosen = [r for r in runs if r["model"] == model and units in (None, r["units"])]
    if not chosen:
        raise ValueError(f"no {model} run with {units} units")
    if lengths is None:
        return float(np.mean([r["error"] for r in chosen]))
    return float(np.mean([r["error_by_length"][k] for r in chosen for k in lengths]))


def _cross_serial_numbers(runs: list[dict], cfg: Mapping) -> dict:
    seen = list(range(2, cfg["max_total"] + 1))
    unseen = list(range(cfg["max_total"] + 1, cfg["test_family"]))
    lengths = seen + unseen
    mean = {}
    for model in ("URN", "LSTM"):
        mean[model] = {
            "all": mean_error(runs, model),
            "seen": mean_error(runs, model, lengths=seen),
            "unseen": mean_error(runs, model, lengths=unseen) if unseen else float("nan"),
            "by_units": {u: mean_error(runs, model, u) for u in cfg["units"]},
            "by_units_and_length": {u: {k: mean_error(runs, model, u, [k]) for k in lengths}
                                    for u in cfg["units"]},
            "fitted": sum(r["converged"] for r in runs if r["model"] == model),
            "runs": sum(r["model"] == model for r in runs),
        }
    best = min(runs, key=lambda r: r["error"])
    params = {(row["task"], row["units"]): row for row in parameter_count_rows()}
    return {
        "runs": runs, "seen_lengths": seen, "unseen_lengths": unseen, "mean_error": mean,
        "best": {k: best[k] for k in ("model", "units", "seed", "error")},
        "parameter_counts": {task: {units: {"lstm": row["LSTM (formula)"],
                                            "urn": row["URN (urn_parameter_count)"]}
                                    for (t, units), row in params.items() if t == task}
                             for task in PAPER_VOCAB},
    }


def cross_serial_claims(cfg: Mapping) -> list[Claim]:
    """Tables 1–2 (parameter counts) and the cross-serial claims of B&L 2023 §3.1."""
    claims = []
    for (task, units), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        table = "Table 1" if task == "cross-serial" else "Table 2"
        v, emb = PAPER_VOCAB[task]

        def count(n, task=task, units=units, paper=(paper_lstm, paper_urn)):
            ours = n["parameter_counts"][task][units]
            gap = abs(ours["lstm"] - paper[0]) + abs(ours["urn"] - paper[1])
            return f"{ours['lstm']} / {ours['urn']}", ours["urn"], gap == 0, float(gap)

        claims.append(Claim(f"parameters, {task}, {units} units: LSTM / URN",
                            f"{paper_lstm} / {paper_urn} (2023 {table})", count, (),
                            f"formulas; V = {v}, LSTM embedding {emb}"))
    small, large = cfg["units"][0], cfg["units"][-1]
    k, fit_k = cfg["test_family"], cfg["max_total"] + 1

    def fitted(n):
        m = n["mean_error"]
        share = (m["URN"]["fitted"] + m["LSTM"]["fitted"]) / (m["URN"]["runs"] + m["LSTM"]["runs"])
        return (f"URN {m['URN']['fitted']}/{m['URN']['runs']} runs, LSTM "
                f"{m['LSTM']['fitted']}/{m['LSTM']['runs']} runs", share, share == 1.0,
                1.0 - share)

    def best(n):
        b = n["best"]
        return (f"{b['error']:.2f} ({b['model']} {b['units']}, seed {b['seed']})", b["error"],
                b["error"] < 0.10, max(0.0, b["error"] - 0.10))

    def unseen(n):
        m = n["mean_error"]
        lstm, urn = m["LSTM"]["unseen"], m["URN"]["unseen"]
        return f"LSTM {lstm:.2f} vs URN {urn:.2f}", lstm, lstm < urn, max(0.0, lstm - urn)

    def urn_units(n):
        by = n["mean_error"]["URN"]["by_units"]
        return (f"{by[small]:.2f} → {by[large]:.2f}", by[large], by[large] < by[small],
                max(0.0, by[large] - by[small]))

    def lstm_units(n):
        by = n["mean_error"]["LSTM"]["by_units"]
        return (f"{by[small]:.2f} → {by[large]:.2f}", by[large], by[large] > by[small],
                max(0.0, by[small] - by[large]))

    return claims + [
        Claim(f"both fit their training data (every string of C_{fit_k} right)",
              "yes (2023 §3.1)", fitted, ("URN", "LSTM"), "each run trains until it does"),
        Claim(f"best string error on C_{k}", "< 0.10 (2023 §3.1, Fig. 2b)", best,
              ("URN", "LSTM"), f"ours: when the run first fits C_{fit_k}; the paper's "
              "best epoch of 100"),
        Claim("unseen lengths: LSTM better than URN", "yes (2023 §3.1, error by length)",
              unseen, ("URN", "LSTM"), f"mean error at m + n = {fit_k}…{k - 1}"),
        Claim(f"URN error falls with units ({small}→{large})", "yes (2023 §3.1)", urn_units,
              ("URN",), f"error on C_{k}, each size when it first fits C_{fit_k}; the paper: "
              "after 100 epochs of each"),
        Claim(f"LSTM error rises with units ({small}→{large})", "yes (2023 §3.1: overfitting)",
              lstm_units, ("LSTM",), f"error on C_{k}, each size when it first fits "
              f"C_{fit_k}; the paper: after 100 epochs of each"),
    ]


def _cross_serial_record(kind: str, units: int, seed: int, run: Mapping) -> dict:
    r, history = run["scores"], run["history"]
    return {"model": kind.upper(), "units": units, "seed": seed,
            "parameters": run["model"].num_parameters(),
            "train_loss": history.convergence.final["train_loss"],
            "epochs": history.convergence.epochs, "converged": history.converged,
            "error": 1 - r["accuracy"],
            "error_by_length": {k: 1 - v for k, v in r["by_length"].items()}}


def _cross_serial_figure(numbers: Mapping, cfg: Mapping, n_seeds: int) -> Figure:
    """Error by m + n per model and size (left), error on C_k by size (right); 2023 Fig. 2."""
    fig = Figure(figsize=(10, 3.2), layout="constrained")
    axes = fig.subplots(1, 2)
    lengths = numbers["seen_lengths"] + numbers["unseen_lengths"]
    styles = (":", "--", "-", "-.")
    for i, model in enumerate(("URN", "LSTM")):
        by = numbers["mean_error"][model]["by_units_and_length"]
        for j, units in enumerate(cfg["units"]):
            axes[0].plot(lengths, [by[units][k] for k in lengths], styles[j % len(styles)],
                         color=f"C{i}", marker="o", ms=3, label=f"{model} {units}")
        axes[1].plot(cfg["units"], [numbers["mean_error"][model]["by_units"][u]
                                    for u in cfg["units"]], "o-", color=f"C{i}", label=model)
    if numbers["unseen_lengths"]:
        axes[0].axvspan(cfg["max_total"] + 0.5, cfg["test_family"] - 0.5, color="0.9", zorder=0)
    axes[0].set_xlabel("m + n (shaded: longer than training)")
    axes[0].set_ylabel("string error rate")
    axes[0].legend(fontsize=7, ncol=2, handlelength=3)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(cfg["units"], [str(u) for u in cfg["units"]])
    axes[1].set_xlabel("units")
    axes[1].set_ylabel(f"error on C_{cfg['test_family']} (mean of {n_seeds} seeds)")
    axes[1].legend()
    return fig


def run_cross_serial(scale: str = "quick", seeds=None, device=None,
                     progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """URN vs LSTM on cross-serial strings, C_8 → C_10 (B&L 2023 §3, Tables 1–2, Fig. 2).

    Training strings are sampled once (seed 0) from C_{max_total+1}; the test set is every
    string of C_{test_family}, so the error is the paper's expected error over a uniform test
    sample. Per seed, a full URN and an LSTM of each size in ``units`` are trained until they fit
    their training lengths; a seed sets initialisation, dropout and batch order. ``seeds``: a
    count (default 2 quick, 3 paper) or a list. ``numbers["runs"]`` has one dict per trained
    network; ``runs`` every training history; ``artefacts`` hold the ``models`` keyed by
    (model, units, seed), the ``train`` strings, ``test`` strings and ``vocab``.
    """
    with Timer() as timer:
        scale = normalise_scale(scale)
        cfg = merge_settings(CROSS_SERIAL_SETTINGS[scale], settings, "urn-cross-serial")
        seeds = seed_list(seeds, CROSS_SERIAL_SEEDS[scale])
        device = pick_device(device)
        if cfg["test_family"] < 3 or cfg["max_total"] < 2:
            raise ValueError(f"need test_family ≥ 3 and max_total ≥ 2, got "
                             f"{cfg['test_family']} and {cfg['max_total']}")
        cfg["units"] = tuple(cfg["units"])
        language = CrossSerial()
        vocab = Vocab(language.alphabet)
        train = language.sample(cfg["train"], seed=0, max_total=cfg["max_total"])
        test = language.family(cfg["test_family"])

        def train_all(jobs: list[tuple]) -> list:
            return parallel_map(train_cross_serial_model,
                                [(kind, units, seed, cfg, train, str(device), *more)
                                 for kind, units, seed, *more in jobs],
                                device=device, desc="urn-cross-serial", progress=progress)

        # largest first, so that parallel workers start on the longest runs
        jobs = [(kind, u, s, 0) for u in cfg["units"][::-1] for s in seeds
                for kind in ("urn", "lstm")]
        trained = dict(zip([j[:3] for j in jobs], train_all(jobs)))

        def numbers_of(runs: Mapping) -> dict:
            return _cross_serial_numbers([_cross_serial_record(kind, u, s, runs[kind, u, s])
                                          for kind, u, s in sorted(runs)], cfg)

        numbers = numbers_of(trained)
        doubled: dict = {}

        def doubled_numbers(models: list[str]) -> dict:
            more = [(kind, u, s, doubled_epochs(trained[kind, u, s]["history"]),
                     trained[kind, u, s]["history"])
                    for kind, u, s in trained if kind.upper() in models]
            doubled.update(zip([j[:3] for j in more], train_all(more)))
            return numbers_of({**trained, **doubled})

        def runs_of(n: Mapping, models) -> list:
            return [bool(r["converged"]) for r in n["runs"] if r["model"] in models]

        rows, second = _judged_rows(cross_serial_claims(cfg), numbers, doubled_numbers, runs_of)
        if second is not None:
            numbers["doubled"] = {"runs": [r for r in second["runs"]
                                           if (r["model"].lower(), r["units"], r["seed"])
                                           in doubled],
                                  "mean_error": second["mean_error"], "best": second["best"]}
        histories = {f"{k.upper()} {u} seed {s}": r["history"]
                     for (k, u, s), r in sorted(trained.items())}
        histories.update({f"{k.upper()} {u} seed {s} (2× budget)": r["history"]
                          for (k, u, s), r in sorted(doubled.items())})
        figures = {"cross_serial_errors": _cross_serial_figure(numbers, cfg, len(seeds)),
                   "cross_serial_curves": learning_curves(
                       {n: h for n, h in histories.items() if "2×" not in n},
                       ("train_loss", FIT_METRIC), title="Cross-serial: until every training "
                       "string is right", size=(10, 3.2))}
    return Replication(
        experiment="urn-cross-serial", title=EXPERIMENTS[1].title, scale=scale, seeds=seeds,
        device=str(device), settings=cfg, numbers=numbers, rows=rows, figures=figures,
        artefacts={"models": {(k.upper(), u, s): r["model"] for (k, u, s), r in trained.items()},
                   "doubled": doubled, "train": train, "test": test, "vocab": vocab,
                   "language": language},
        seconds=timer.seconds, runs=histories)


EXPERIMENTS = (
    Experiment(name="urn-dyck",
               title="Bernardy & Lappin (2022; 2023): URNs, MatrixRNN and LSTM on Dyck, "
                     "accuracy by attractors, inner nesting and outer depth",
               chapter="06_unitary", run=run_dyck),
    Experiment(name="urn-cross-serial",
               title="Bernardy & Lappin (2023), Tables 1–2 and Fig. 2: URN vs LSTM on "
                     "cross-serial C_8 → C_10",
               chapter="06_unitary", run=run_cross_serial),
)
