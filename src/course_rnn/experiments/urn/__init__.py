"""Bernardy & Lappin (2022; 2023): unitary RNNs against LSTMs on Dyck and cross-serial strings
(chapter 6) — two experiments, each one module: **urn-dyck** here, **urn-cross-serial** in
:mod:`.cross_serial`; both read their settings from :mod:`.settings`. ``python -m course_rnn
replicate urn-dyck`` (or ``urn-cross-serial``) runs the same functions the chapter calls.

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

**Verdicts wait for convergence** (:func:`~course_rnn.experiments.replication.judge`): each row
is a :class:`~course_rnn.experiments.replication.Claim` checked on the numbers; a row compares
only converged runs, and a disagreement is re-checked by continuing the deciding runs to twice
their epochs (same seed, so the first half is the same run) before it may read "differs".
Independent runs train in parallel worker processes
(:func:`~course_rnn.experiments.workers.parallel_map`), on CPU or CUDA (``device``). Scales:
``"quick"`` is the chapter's (a few thousand strings, one to two minutes of two CPU cores);
``"paper"`` uses the papers' corpus sizes; ``settings=`` overrides entries of the scale's
:class:`~.settings.DyckSettings` (the tests use it to run tiny).

The module reads top to bottom as :func:`run_dyck` uses it: the settings' companions, the data
and the networks, the job (train one network, score it), the numbers (one :class:`DyckRun` per
network and seed with its closing-bracket scores pooled into ranges, the 3-TURN's embeddings;
the means over seeds the rows read are computed in the rows), the rows, the figures and
:func:`run_dyck`. It is
longer than most because the Dyck experiment measures three things — accuracy by three
breakdowns, the embeddings' linear algebra, and the losses — and a reader follows each from the
job that records it to the row that judges it without leaving the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from ...analysis.curves import learning_curves
from ...analysis.urn import (
    average_effect,
    pair_effect,
    phrase_matrices,
    plane_similarities,
    signature,
)
from ...languages import Vocab
from ...languages.dyck import Dyck
from ...metrics import dyck_closing_accuracy, pooled_accuracy
from ...models import SequenceModel, build_model, named_models
from ...training import History, Plateau, ReduceOnPlateau, evaluate_loss, fit
from ..records import Record, mean_se, saved_if_set
from ..replication import (
    CONTINUED,
    Claim,
    Experiment,
    Replication,
    Row,
    deciding_models,
    judged_rows,
    pm,
    twice_the_budget,
)
from ..setup import begin
from ..workers import parallel_map
from .cross_serial import EXPERIMENT as CROSS_SERIAL
from .cross_serial import (
    PAPER_VOCAB,
    CrossSerialRun,
    mean_error,
    parameter_count_rows,
    run_cross_serial,
)
from .settings import (
    CROSS_SERIAL_SEEDS,
    CROSS_SERIAL_SETTINGS,
    DYCK_SEEDS,
    DYCK_SETTINGS,
    CrossSerialSettings,
    DyckSettings,
)

# -- the settings' companions: the networks, the breakdowns' ranges, the paper's figure ----------

#: The Dyck networks: display name → (registry kind, constructor options). Ordered slowest
#: first, so that parallel workers start on the longest runs.
DYCK_MODELS = named_models("3-TURN", "Full-URN", "MatrixRNN", "LSTM")
#: Pooled attractor ranges of the chapter: "few" is 0 … FEW_ATTRACTORS, "many" ≥ MANY_ATTRACTORS.
FEW_ATTRACTORS, MANY_ATTRACTORS = 2, 6
#: A breakdown value counts for the worst-error row (2023 Fig. 3c) with at least this many
#: closing brackets behind it.
MIN_BRACKETS = 30
#: 2022 Table 4: the range of one bracket's average effect after 100 epochs.
PAPER_SINGLE_EFFECT = (13.98, 14.85)


# -- the data, the networks and the pooled scores they are probed with -------------------------


def dyck_data(settings: DyckSettings) -> tuple[list, list, list]:
    """Training strings (seed 0) and validation strings (seed 2), every one of depth exactly
    ``settings.depth``, and unconstrained test strings (seed 1), all of ``settings.length`` symbols,
    from the seeds' generator."""
    dyck = Dyck()
    shape = dict(length=settings.length, method="seeds")
    train = dyck.sample(settings.train, seed=0, depth=settings.depth, **shape)
    valid = dyck.sample(settings.valid, seed=2, depth=settings.depth, **shape)
    test = dyck.sample(settings.test, seed=1, **shape)
    return train, valid, test


def dyck_model(name: str, vocab_size: int, settings: DyckSettings, seed: int):
    """One of :data:`DYCK_MODELS` with ``settings.hidden_size`` units (URN-style models: the
    library's dropout 0.05, as in the seeds' code)."""
    kind, options = DYCK_MODELS[name]
    if kind == "lstm":
        options = {**options, "embedding_dim": settings.embedding_dim}
    return build_model(kind, vocab_size=vocab_size, hidden_size=settings.hidden_size, seed=seed,
                       **options)


def halving(settings: DyckSettings) -> ReduceOnPlateau:
    """The Dyck runs' schedule: halve the learning rate after ``settings.lr_patience`` epochs
    without a better validation loss."""
    return ReduceOnPlateau(factor=0.5, patience=settings.lr_patience)


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


def probe_metric(key: str, depth: int) -> str:
    """What :func:`train_dyck_model` records at every epoch on the probe strings: "probe:
    <label>"."""
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


# -- the job: train one network until its validation loss plateaus, score it -------------------


@dataclass
class TrainedDyck:
    """One network as trained on Dyck: the ``model`` (best weights, on the CPU), its
    ``history``, ``closing`` (:func:`~course_rnn.metrics.dyck_closing_accuracy` on the test
    strings) and ``test_loss``."""

    model: SequenceModel
    history: History
    closing: dict
    test_loss: float


def train_dyck_model(name: str, seed: int, settings: DyckSettings, train: Sequence, valid: Sequence,
                     test: Sequence, device=None, min_epochs: int = 0,
                     resume=None) -> TrainedDyck:
    """Train one Dyck network until its validation loss plateaus (at least ``min_epochs``, and
    then to its own stop within the cap :func:`~course_rnn.training.fit` sets for it;
    ``resume``: the History of the run to continue), then score it on ``test``. A top-level
    function, so that worker processes can run it."""
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    model = dyck_model(name, len(vocab), settings, seed)
    probe = _ProbeScores(dyck, vocab, test[: settings.probe], settings.depth)
    history = fit(model, vocab, train, valid=valid,
                  epochs=settings.epochs,
                  min_epochs=min_epochs, batch_size=settings.batch_size, lr=settings.lr,
                  schedule=halving(settings), until=Plateau(patience=settings.patience), seed=seed,
                  device=device, metrics=probe.metrics(), progress=False, resume=resume)
    closing = dyck_closing_accuracy(model, dyck, vocab, test)
    test_loss = evaluate_loss(model, vocab, test)
    return TrainedDyck(model.cpu(), history, closing, test_loss)


def train_dyck_runs(jobs: Sequence[tuple], settings: DyckSettings, data: tuple, device,
                    progress) -> list[TrainedDyck]:
    """:func:`train_dyck_model` for every (name, seed, min_epochs, resume) of ``jobs`` on
    ``data`` (:func:`dyck_data`), in parallel worker processes."""
    train, valid, test = data
    return parallel_map(train_dyck_model,
                        [(name, seed, settings, train, valid, test, str(device), min_epochs, resume)
                         for name, seed, min_epochs, resume in jobs],
                        device=device, desc="urn-dyck", progress=progress)


# -- the numbers: closing-bracket scores, the embeddings, the losses ---------------------------


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


@dataclass
class Embeddings(Record):
    """A trained URN's bracket embeddings read with linear algebra (:func:`embedding_analysis`;
    B&L 2022 Tables 3–4)."""

    average_effect: dict[str, float]
    signature: dict[str, list[float]]
    pair_effect: list[list[float]]
    plane_openers: list[str]
    plane_similarity: list[list[float]]
    single_min: float
    single_max: float
    matching_min: float
    matching_max: float
    non_matching_min: float
    non_matching_max: float
    plane_diagonal: float
    plane_other: float


def embedding_analysis(model, vocab: Vocab, dyck: Dyck) -> Embeddings:
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
    return Embeddings(
        average_effect=effects,
        signature={b: signature(q, degrees=True).tolist() for b, q in mats.items()},
        pair_effect=pairs.tolist(), plane_openers=[first, second],
        plane_similarity=planes.tolist(),
        single_min=float(singles.min()), single_max=float(singles.max()),
        matching_min=float(pairs[on_diagonal].min()),
        matching_max=float(pairs[on_diagonal].max()),
        non_matching_min=float(pairs[~on_diagonal].min()),
        non_matching_max=float(pairs[~on_diagonal].max()),
        plane_diagonal=float(planes[plane_diagonal].mean()) if planes.size else float("nan"),
        plane_other=(float(planes[~plane_diagonal].mean()) if (~plane_diagonal).any()
                     else float("nan")))


def embedding_ranges(embeddings: Iterable[Embeddings]) -> dict[str, float]:
    """The 3-TURN's embedding summaries over seeds: the ranges of single and matching-pair
    effects, the smallest mismatched pair's, and the mean plane similarity on and off the
    diagonal (what the rows on Tables 3–4 read)."""
    e = list(embeddings)
    return {"single_min": min(x.single_min for x in e), "single_max": max(x.single_max for x in e),
            "matching_min": min(x.matching_min for x in e),
            "matching_max": max(x.matching_max for x in e),
            "non_matching_min": min(x.non_matching_min for x in e),
            "plane_diagonal": float(np.mean([x.plane_diagonal for x in e])),
            "plane_other": float(np.mean([x.plane_other for x in e]))}


@dataclass
class DyckRun(Record):
    """One trained Dyck network (``network``, ``seed``): its closing-bracket ``accuracy``, the
    pooled scores (``summary``: cut → accuracy), the worst error over attractor counts, its final
    training loss, best validation loss, test loss, epochs and convergence."""

    network: str
    seed: int
    accuracy: float
    summary: dict[str, float]
    worst_attractor_error: float
    train_loss: float
    valid_loss: float
    test_loss: float
    epochs: float
    converged: bool

    @classmethod
    def of(cls, name: str, seed: int, run: TrainedDyck, depth: int) -> DyckRun:
        return cls(network=name, seed=seed, accuracy=run.closing["accuracy"],
                   summary=pooled_scores(run.closing, depth),
                   worst_attractor_error=worst_error(run.closing),
                   train_loss=run.history.convergence.final["train_loss"],
                   valid_loss=run.history.convergence.best, test_loss=run.test_loss,
                   epochs=run.history.convergence.epochs, converged=run.history.converged)


@dataclass
class DyckNumbers(Record):
    """Every number of urn-dyck (see :func:`dyck_numbers`): every run (``runs``, one
    :class:`DyckRun` per network and seed) and the 3-TURN's :class:`Embeddings` per seed; per
    model the parameters, the closing-bracket accuracy with its breakdowns and the pooled scores
    (``summary["3-TURN"]["few_attractors"]``), each the mean over seeds; the cuts' words and
    points. The rows compute their means and standard errors from the runs (:func:`over_seeds`).
    ``doubled``: what the rows read at twice the budget, where a row needed it
    (:func:`at_twice_the_budget`)."""

    summary_labels: dict[str, str]  # cut -> its words ("2 or fewer attractors")
    cut_points: dict[str, int]
    parameters: dict[str, int]
    closing: dict[str, dict]  # model -> accuracy and its breakdowns (mean over seeds)
    summary: dict[str, dict[str, float]]  # model -> cut -> pooled accuracy (mean over seeds)
    runs: list[DyckRun]
    embeddings: dict[int, Embeddings]  # the 3-TURN's, per seed
    doubled: dict | None = saved_if_set()


def over_seeds(n: DyckNumbers, name: str, value: Callable[[DyckRun], float]
               ) -> tuple[float, float]:
    """Mean and standard error over seeds of ``value`` of model ``name``'s runs."""
    return mean_se([value(r) for r in n.runs if r.network == name])


def at_twice_the_budget(second: DyckNumbers, models: list[str]) -> dict:
    """The numbers ``second`` (the deciding ``models``' runs continued to twice their epochs, in
    place of their first) as the rows read them: per model the pooled scores, the test loss and
    the worst attractor error (means over seeds), every run's epochs and convergence, and the
    3-TURN's :func:`embedding_ranges`."""
    def mean(value):
        return {m: over_seeds(second, m, value)[0] for m in DYCK_MODELS}

    runs = {m: [r for r in second.runs if r.network == m] for m in DYCK_MODELS}
    return {"models": models, "summary": second.summary, "test_loss": mean(lambda r: r.test_loss),
            "worst_attractor_error": mean(lambda r: r.worst_attractor_error),
            "embedding_ranges": embedding_ranges(second.embeddings.values()),
            "convergence": {m: {"epochs": [r.epochs for r in rs],
                                "converged": [r.converged for r in rs]}
                            for m, rs in runs.items()}}


def _mean_dict(dicts: list[Mapping]) -> dict:
    """Key-wise mean over dicts (the same test set for every seed, so the same keys)."""
    return {k: float(np.mean([d[k] for d in dicts])) for k in dicts[0]}


def mean_closing(closings: list[Mapping]) -> dict:
    """One model's closing-bracket accuracy and its three breakdowns, the mean over seeds (the
    bracket counts are the test set's, the same for every seed)."""
    closing = {"accuracy": mean_se([c["accuracy"] for c in closings])[0]}
    for by in ("attractors", "inner_nesting", "outer_depth"):
        closing[f"by_{by}"] = _mean_dict([c[f"by_{by}"] for c in closings])
        closing[f"count_by_{by}"] = closings[0][f"count_by_{by}"]
    return closing


def dyck_numbers(runs: Mapping[tuple[str, int], TrainedDyck], settings: DyckSettings,
                 seeds: Sequence[int]) -> DyckNumbers:
    """Every measured number of urn-dyck from ``runs[name, seed]``; means over seeds next to
    the runs they are made of."""
    depth = settings.depth
    cuts = dyck_cuts(depth)
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    records = [DyckRun.of(name, seed, runs[name, seed], depth)
               for seed in seeds for name in DYCK_MODELS]
    summary = {name: {key: mean_se([r.summary[key] for r in records if r.network == name])[0]
                      for key in cuts} for name in DYCK_MODELS}
    return DyckNumbers(
        summary_labels={key: cut[0] for key, cut in cuts.items()},
        cut_points={"seen_outer_max": depth, "unseen_outer_min": depth + 2,
                    "shallow_inner_max": 1, "deep_inner_min": depth,
                    "few_attractors_max": FEW_ATTRACTORS, "many_attractors_min": MANY_ATTRACTORS},
        parameters={name: runs[name, seeds[0]].model.num_parameters() for name in DYCK_MODELS},
        closing={name: mean_closing([runs[name, s].closing for s in seeds])
                 for name in DYCK_MODELS},
        summary=summary, runs=records,
        embeddings={s: embedding_analysis(runs["3-TURN", s].model, vocab, dyck) for s in seeds})


# -- the rows: ours beside B&L 2022 §5, Tables 3–4 and 2023 §4, §6.1 ----------------------------


def runs_of(numbers: DyckNumbers, models: Sequence[str]) -> list[bool]:
    """Whether each run (every seed) of ``models`` behind a row converged."""
    return [bool(r.converged) for m in models for r in numbers.runs if r.network == m]


def range_gap(low: float, high: float, target: tuple[float, float]) -> float:
    """How far the range [low, high] is from overlapping ``target`` (0 when they overlap)."""
    return max(0.0, target[0] - high, low - target[1])


def embedding_claims() -> list[Claim]:
    """The rows on the 3-TURN's embeddings (2022 Tables 3–4), read from their
    :func:`embedding_ranges` over seeds."""
    def single(n):
        e = embedding_ranges(n.embeddings.values())
        gap = range_gap(e["single_min"], e["single_max"], PAPER_SINGLE_EFFECT)
        return f"{e['single_min']:.2f}–{e['single_max']:.2f}", e["single_max"], gap == 0, gap

    def matching(n):
        e = embedding_ranges(n.embeddings.values())
        return (f"{e['matching_min']:.2f}–{e['matching_max']:.2f}", e["matching_max"],
                e["matching_max"] < 0.1, max(0.0, e["matching_max"] - 0.1))

    def much_smaller(n):
        e = embedding_ranges(n.embeddings.values())
        limit = 0.1 * e["single_min"]
        return (f"{e['matching_max']:.2f} vs ≥ {e['single_min']:.2f}", e["matching_max"],
                e["matching_max"] < limit, max(0.0, e["matching_max"] - limit))

    def planes(n):
        e = embedding_ranges(n.embeddings.values())
        return (f"similar angles {e['plane_diagonal']:.2f} vs others {e['plane_other']:.2f}",
                e["plane_diagonal"], e["plane_diagonal"] > e["plane_other"],
                max(0.0, e["plane_other"] - e["plane_diagonal"]))

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
    ]


def trend(name: str, low: str, high: str, falls: bool = False, slack: float = 0.02) -> Callable:
    """The check of a row on how ``name``'s pooled accuracy moves from cut ``low`` to cut
    ``high``: it agrees when it falls (``falls``) or, else, when it does not fall by more than
    ``slack``."""
    def check(n):
        s, labels = n.summary[name], n.summary_labels
        se = {k: over_seeds(n, name, lambda r, k=k: r.summary[k])[1] for k in (low, high)}
        ours = (f"{pm(s[low], se[low], 2)} ({labels[low]}) → "
                f"{pm(s[high], se[high], 2)} ({labels[high]})")
        if falls:
            return ours, s[high], s[high] < s[low], max(0.0, s[high] - s[low])
        return ours, s[high], s[high] >= s[low] - slack, max(0.0, s[low] - slack - s[high])
    return check


def accuracy_claims(settings: DyckSettings) -> list[Claim]:
    """The rows on closing-bracket accuracy: its trend with attractors and with the nesting
    inside the pair (2022 Fig. 3, §5, §6.1; 2023 §4.1, §6.1), and the worst error over
    attractor counts (2023 Fig. 3c)."""
    def worst(n):
        w = {m: over_seeds(n, m, lambda r: r.worst_attractor_error)[0] for m in ("3-TURN", "LSTM")}
        return (f"3-TURN {w['3-TURN']:.2f} vs LSTM {w['LSTM']:.2f}", w["3-TURN"],
                w["3-TURN"] < w["LSTM"], max(0.0, w["3-TURN"] - w["LSTM"]))

    attractors, inner = ("few_attractors", "many_attractors"), ("shallow_inner", "deep_inner")
    return [
        Claim("3-TURN accuracy vs attractors", "no decline; rises (2022 Fig. 3; 2023 §4.1)",
              trend("3-TURN", *attractors), ("3-TURN",), "closing-bracket accuracy pooled over "
              "attractor counts; slack 0.02"),
        Claim("Full-URN accuracy vs attractors", "no decline (2022 Fig. 3)",
              trend("Full-URN", *attractors), ("Full-URN",), "as above"),
        Claim("URN accuracy vs nesting inside the pair", "no decline with nesting depth "
              "(2022 §6.1; 2023 §6.1)", trend("3-TURN", *inner), ("3-TURN",),
              "the papers' 'nesting' is the seeds' parenDepths: the depth of the material "
              "inside the pair; inner nesting ≥ 3 never occurs in training"),
        Claim("LSTM accuracy vs nesting inside the pair", "declines with nesting depth "
              "(2023 §6.1, citing earlier LSTM studies)", trend("LSTM", *inner, falls=True),
              ("LSTM",)),
        Claim("worst error over attractor counts, URN vs LSTM",
              "URN lower at equal units (2023 §4.1, Fig. 3c)", worst, ("3-TURN", "LSTM"),
              f"max over attractor counts with ≥ {MIN_BRACKETS} closing brackets; "
              f"{settings.hidden_size} units here, 8–32 in the paper"),
        Claim("baseline (MatrixRNN) accuracy vs attractors", "steadily decreasing (2022 §5)",
              trend("MatrixRNN", *attractors, falls=True), ("MatrixRNN",)),
    ]


def loss_claim() -> Claim:
    """The Full-URN's test loss against the unconstrained MatrixRNN's (2022 §5)."""
    def test_loss(n):
        losses = {m: over_seeds(n, m, lambda r: r.test_loss) for m in ("Full-URN", "MatrixRNN")}
        loss, se = ({m: v[i] for m, v in losses.items()} for i in (0, 1))
        return (f"{pm(loss['Full-URN'], se['Full-URN'], 3)} vs "
                f"{pm(loss['MatrixRNN'], se['MatrixRNN'], 3)}", loss["Full-URN"],
                loss["Full-URN"] < loss["MatrixRNN"],
                max(0.0, loss["Full-URN"] - loss["MatrixRNN"]))

    return Claim("test loss, Full-URN vs unconstrained", "1.472 vs 1.529 (2022 §5)", test_loss,
                 ("Full-URN", "MatrixRNN"), "mean cross-entropy per symbol on the unconstrained "
                 "test strings, at each run's best validation epoch")


def dyck_claims(settings: DyckSettings) -> list[Claim]:
    """The Dyck rows of the chapter's table, in its order: the embeddings, accuracy, the
    loss."""
    return embedding_claims() + accuracy_claims(settings) + [loss_claim()]


def outer_depth_row(numbers: DyckNumbers) -> Row:
    """The row the papers did not measure: accuracy by the depth *outside* the pair."""
    s, labels = numbers.summary, numbers.summary_labels

    def se(name, key):
        return over_seeds(numbers, name, lambda r: r.summary[key])[1]

    ours = "; ".join(f"{name} {pm(s[name]['seen_outer'], se(name, 'seen_outer'), 2)} → "
                     f"{pm(s[name]['unseen_outer'], se(name, 'unseen_outer'), 2)}"
                     for name in ("3-TURN", "LSTM"))
    return Row("accuracy vs outer depth (brackets open around the pair)",
               "not measured (2022 §5.1 expects confusion 'inside a deeply nested structure')",
               ours, f"{labels['seen_outer']} → {labels['unseen_outer']}; a row the papers "
               "do not have, so no verdict")


def dyck_rows(claims: list[Claim], numbers: DyckNumbers, doubled: DyckNumbers | None
              ) -> list[Row]:
    """The judged rows of ``claims``, with :func:`outer_depth_row` right after the URN's row on
    inner nesting (the two breakdowns side by side)."""
    rows = judged_rows(claims, numbers, doubled, runs_of)
    after = [r.quantity for r in rows].index("URN accuracy vs nesting inside the pair")
    rows.insert(after + 1, outer_depth_row(numbers))
    return rows


# -- the figures --------------------------------------------------------------------------------


def dyck_figures(numbers: DyckNumbers, depth: int, runs: Mapping) -> dict[str, Figure]:
    """``dyck_curves`` (learning curves, every run of the first budget), ``dyck_curves_2x``
    (the runs continued to twice their epochs, for the notes; only when some were) and
    ``dyck_accuracy`` (accuracy by attractors | inner nesting | outer depth)."""
    unseen = probe_metric("unseen_outer", depth)
    metrics = ("train_loss", "valid_loss", unseen)
    first = {name: h for name, h in runs.items() if not CONTINUED.search(name)}
    curves = {"dyck_curves": learning_curves(
        first, metrics, title="Dyck: training, validation (depth 3) and the probe of unseen "
                              "outer depths", size=(13, 3.4))}
    continued = {name: h for name, h in runs.items() if CONTINUED.search(name)}
    if continued:
        curves["dyck_curves_2x"] = learning_curves(
            continued, metrics, title="Dyck: the runs continued to twice their epochs (each "
                                      "retraces its first run, then goes on)", size=(13, 3.4))
    accuracy = Figure(figsize=(13, 3.4), layout="constrained")
    axes = accuracy.subplots(1, 3, sharey=True)
    panels = [("by_attractors", "attractors inside the pair", None),
              ("by_inner_nesting", "nesting inside the pair (the papers' 'nesting')", depth - 1),
              ("by_outer_depth", "outer depth: brackets open when it closes", depth)]
    for ax, (key, label, trained) in zip(axes, panels):
        for name, r in numbers.closing.items():
            ax.plot(list(r[key]), list(r[key].values()), "o-", ms=3, label=name)
        ax.axhline(0.2, color="0.5", ls=":", label="chance")
        if trained is not None:
            low = 0.5 if key == "by_outer_depth" else -0.5
            ax.axvspan(low, trained + 0.5, color="0.9", zorder=0, label="seen in training")
        ax.set_xlabel(label)
    axes[0].set_ylabel("closing-bracket accuracy")
    axes[2].legend(fontsize=7)
    return {**curves, "dyck_accuracy": accuracy}


def run_name(name: str, seed: int, doubled: bool = False) -> str:
    """A Dyck run's name in ``Replication.runs``: "3-TURN seed 0" (" (2× budget)")."""
    return f"{name} seed {seed}" + (" (2× budget)" if doubled else "")


# -- run ----------------------------------------------------------------------------------------


@dataclass
class DyckArtefacts:
    """What chapter 6 reads beyond the Dyck numbers (not saved): the first seed's trained
    ``models`` and ``histories`` (by network), the runs continued to twice their epochs
    (``doubled``: (network, seed) → :class:`TrainedDyck`), the ``train`` / ``valid`` / ``test``
    strings, ``vocab`` and ``language``."""

    models: dict[str, SequenceModel]
    histories: dict[str, History]
    doubled: dict[tuple[str, int], TrainedDyck]
    train: list
    valid: list
    test: list
    vocab: Vocab
    language: Dyck


def run_dyck(scale: str = "quick", seeds: int | Iterable[int] | None = None, device=None,
             progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """3-TURN, Full-URN, MatrixRNN and LSTM on Dyck (B&L 2022 §5; 2023 §4).

    Each network is trained with Adam as a language model, L = −(1/N) Σ log p(w_{t+1} | w_1…w_t),
    on strings of depth exactly ``depth`` until its validation loss plateaus, then scored on the
    closing brackets of the unconstrained test strings. Data are the same for every seed; a seed
    sets the model's initialisation, dropout and the order of batches. ``seeds``: a count (seeds
    0 … N−1, default 1) or a list. Rows that disagree with the paper are re-checked with the
    deciding runs continued to twice their epochs (``numbers.doubled``). ``numbers`` is a
    :class:`DyckNumbers`; ``runs`` every training history (:func:`run_name`); ``artefacts`` a
    :class:`DyckArtefacts`.
    """
    setup = begin(EXPERIMENT, DYCK_SETTINGS, scale, settings, seeds, DYCK_SEEDS, device,
                  progress)
    # settings: from here on, the overrides completed by the scale's settings
    settings, seeds, device = setup.settings, setup.seeds, setup.device
    data = dyck_data(settings)
    keys = [(name, seed) for seed in seeds for name in DYCK_MODELS]
    runs = dict(zip(keys, train_dyck_runs([(n, s, 0, None) for n, s in keys], settings, data,
                                          device, progress)))
    numbers = dyck_numbers(runs, settings, seeds)

    def train_again(min_epochs, resume):
        more = [(m, s, min_epochs[m, s], r.history) for (m, s), r in resume.items()]
        return dict(zip(resume, train_dyck_runs(more, settings, data, device, progress)))

    claims = dyck_claims(settings)
    needed = deciding_models(claims, numbers, runs_of)
    again = twice_the_budget(runs, [(m, s) for s in seeds for m in needed], train_again)
    second = dyck_numbers({**runs, **again}, settings, seeds) if again else None
    rows = dyck_rows(claims, numbers, second)
    if second is not None:
        numbers.doubled = at_twice_the_budget(second, sorted({m for m, _ in again}))
    histories = {run_name(n, s): r.history for (n, s), r in runs.items()}
    histories.update({run_name(n, s, True): r.history for (n, s), r in again.items()})
    dyck = Dyck()
    artefacts = DyckArtefacts(
        models={n: runs[n, seeds[0]].model for n in DYCK_MODELS},
        histories={n: runs[n, seeds[0]].history for n in DYCK_MODELS}, doubled=again,
        train=data[0], valid=data[1], test=data[2], vocab=Vocab(dyck.alphabet), language=dyck)
    return setup.replication(numbers, rows, dyck_figures(numbers, settings.depth, histories),
                             artefacts, histories)


EXPERIMENT = Experiment.of(DYCK_SETTINGS, run_dyck)
EXPERIMENTS = (EXPERIMENT, CROSS_SERIAL)

__all__ = [
    # urn-dyck, this module
    "run_dyck", "EXPERIMENTS", "DYCK_SETTINGS", "DyckSettings", "DYCK_SEEDS", "DYCK_MODELS",
    "FEW_ATTRACTORS", "MANY_ATTRACTORS", "MIN_BRACKETS", "PAPER_SINGLE_EFFECT", "dyck_data",
    "dyck_model", "halving", "dyck_cuts", "pooled_scores", "probe_metric", "TrainedDyck",
    "train_dyck_model", "worst_error", "Embeddings", "embedding_analysis", "embedding_ranges",
    "DyckRun", "DyckNumbers", "over_seeds", "at_twice_the_budget", "dyck_numbers",
    "dyck_claims", "outer_depth_row", "dyck_figures", "run_name", "DyckArtefacts",
    # urn-cross-serial (.cross_serial): what chapter 6 reads from this package
    "run_cross_serial", "CROSS_SERIAL_SETTINGS", "CrossSerialSettings", "CROSS_SERIAL_SEEDS",
    "parameter_count_rows", "PAPER_VOCAB", "CrossSerialRun", "mean_error",
]
