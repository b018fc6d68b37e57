"""urn-dyck's computation: the data, the four networks, one training run (a job for a worker
process), the closing-bracket scores pooled into ranges, the 3-TURN's embeddings read with
linear algebra, and every measured number."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

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
from ...models import build_model, named_models
from ...training import Plateau, ReduceOnPlateau, evaluate_loss, fit
from ..records import mean_se
from .results import (
    DyckNumbers,
    EmbeddingRanges,
    Embeddings,
    ModelConvergence,
    SeedScores,
    TrainedDyck,
)
from .settings import DyckSettings

#: The Dyck networks: display name → (registry kind, constructor options). Ordered slowest
#: first, so that parallel workers start on the longest runs.
DYCK_MODELS = named_models("3-TURN", "Full-URN", "MatrixRNN", "LSTM")
#: Pooled attractor ranges of the chapter: "few" is 0 … FEW_ATTRACTORS, "many" ≥ MANY_ATTRACTORS.
FEW_ATTRACTORS, MANY_ATTRACTORS = 2, 6
#: A breakdown value counts for the worst-error row (2023 Fig. 3c) with at least this many
#: closing brackets behind it.
MIN_BRACKETS = 30


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


def dyck_data(cfg: DyckSettings) -> tuple[list, list, list]:
    """Training strings (seed 0) and validation strings (seed 2), every one of depth exactly
    ``cfg.depth``, and unconstrained test strings (seed 1), all of ``cfg.length`` symbols,
    from the seeds' generator."""
    dyck = Dyck()
    shape = dict(length=cfg.length, method="seeds")
    train = dyck.sample(cfg.train, seed=0, depth=cfg.depth, **shape)
    valid = dyck.sample(cfg.valid, seed=2, depth=cfg.depth, **shape)
    test = dyck.sample(cfg.test, seed=1, **shape)
    return train, valid, test


def dyck_model(name: str, vocab_size: int, cfg: DyckSettings, seed: int):
    """One of :data:`DYCK_MODELS` with ``cfg.units`` units (URN-style models: the library's
    dropout 0.05, as in the seeds' code)."""
    kind, options = DYCK_MODELS[name]
    if kind == "lstm":
        options = {**options, "embedding_dim": cfg.embedding}
    return build_model(kind, vocab_size=vocab_size, hidden_size=cfg.units, seed=seed, **options)


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


def halving(cfg: DyckSettings) -> ReduceOnPlateau:
    """The Dyck runs' schedule: halve the learning rate after ``cfg.lr_patience`` epochs
    without a better validation loss."""
    return ReduceOnPlateau(factor=0.5, patience=cfg.lr_patience)


def train_dyck_model(name: str, seed: int, cfg: DyckSettings, train: Sequence, valid: Sequence,
                     test: Sequence, device=None, min_epochs: int = 0,
                     resume=None) -> TrainedDyck:
    """Train one Dyck network until its validation loss plateaus (at least ``min_epochs``; the
    cap is ``max(cfg.epochs, min_epochs)``; ``resume``: the History of the run to continue),
    then score it on ``test``. A top-level function, so that worker processes can run it."""
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    model = dyck_model(name, len(vocab), cfg, seed)
    probe = _ProbeScores(dyck, vocab, test[: cfg.probe], cfg.depth)
    history = fit(model, vocab, train, valid=valid, epochs=max(cfg.epochs, min_epochs),
                  min_epochs=min_epochs, batch_size=cfg.batch, lr=cfg.lr,
                  schedule=halving(cfg), until=Plateau(patience=cfg.patience), seed=seed,
                  device=device, metrics=probe.metrics(), progress=False, resume=resume)
    closing = dyck_closing_accuracy(model, dyck, vocab, test)
    test_loss = evaluate_loss(model, vocab, test)
    return TrainedDyck(model.cpu(), history, closing, test_loss)


def _mean_dict(dicts: list[Mapping]) -> dict:
    """Key-wise mean over dicts (the same test set for every seed, so the same keys)."""
    return {k: float(np.mean([d[k] for d in dicts])) for k in dicts[0]}


def dyck_numbers(runs: Mapping, cfg: DyckSettings, seeds: Sequence[int]) -> DyckNumbers:
    """Every measured number of urn-dyck from ``runs[seed][name]``; means (and SEs) over seeds
    next to the per-seed figures."""
    depth = cfg.depth
    cuts = dyck_cuts(depth)
    dyck = Dyck()
    vocab = Vocab(dyck.alphabet)
    per_seed = {seed: {name: SeedScores(
        accuracy=run.closing["accuracy"],
        summary=pooled_scores(run.closing, depth),
        worst_attractor_error=worst_error(run.closing),
        train_loss=run.history.convergence.final["train_loss"],
        valid_loss=run.history.convergence.best,
        test_loss=run.test_loss,
        epochs=run.history.convergence.epochs,
        converged=run.history.converged,
    ) for name, run in runs[seed].items()} for seed in seeds}
    parameters, closing, convergence = {}, {}, {}
    summary, summary_se, test_loss, test_loss_se, valid_loss, worst = {}, {}, {}, {}, {}, {}
    for name in DYCK_MODELS:
        closings = [runs[s][name].closing for s in seeds]
        scores = [per_seed[s][name] for s in seeds]
        parameters[name] = runs[seeds[0]][name].model.num_parameters()
        closing[name] = {"accuracy": mean_se([c["accuracy"] for c in closings])[0]}
        for by in ("attractors", "inner_nesting", "outer_depth"):
            closing[name][f"by_{by}"] = _mean_dict([c[f"by_{by}"] for c in closings])
            closing[name][f"count_by_{by}"] = closings[0][f"count_by_{by}"]
        for key in cuts:
            mean, se = mean_se([p.summary[key] for p in scores])
            summary.setdefault(name, {})[key] = mean
            summary_se.setdefault(name, {})[key] = se
        test_loss[name], test_loss_se[name] = mean_se([p.test_loss for p in scores])
        valid_loss[name] = mean_se([p.valid_loss for p in scores])[0]
        worst[name] = mean_se([p.worst_attractor_error for p in scores])[0]
        convergence[name] = ModelConvergence([p.epochs for p in scores],
                                             [p.converged for p in scores])
    embeddings = {s: embedding_analysis(runs[s]["3-TURN"].model, vocab, dyck) for s in seeds}
    return DyckNumbers(
        summary_labels={key: cut[0] for key, cut in cuts.items()},
        cut_points={"seen_outer_max": depth, "unseen_outer_min": depth + 2,
                    "shallow_inner_max": 1, "deep_inner_min": depth,
                    "few_attractors_max": FEW_ATTRACTORS, "many_attractors_min": MANY_ATTRACTORS},
        parameters=parameters, closing=closing, summary=summary, summary_se=summary_se,
        test_loss=test_loss, test_loss_se=test_loss_se, valid_loss=valid_loss,
        worst_attractor_error=worst, convergence=convergence, per_seed=per_seed,
        embeddings=embeddings, embedding_ranges=EmbeddingRanges.over(list(embeddings.values())))
