"""Bernardy & Lappin (2022; 2023): unitary RNNs against LSTMs on Dyck and cross-serial strings.

Chapter 6 shows both experiments; ``python -m course_rnn replicate urn-dyck`` (or
``urn-cross-serial``) runs the same functions and saves what they return.

**urn-dyck** (:func:`run_dyck`; B&L 2022 §5, 2023 §6.1). Five bracket pairs ``() [] {} <> +-``,
strings of exactly 20 symbols from the seeds' generator (``Dyck.sample(method="seeds")``);
training strings reach depth exactly 3, the 5,120 test strings are unconstrained. Three networks
of 50 units are trained as language models with Adam:

* a **3-TURN**, h_t = Q(x_t) h_{t-1} with Q = e^S, S = T − Tᵀ and only the first 3 rows of T free;
* an **LSTM** (embedding 12);
* the unconstrained **MatrixRNN** baseline, h_t = M(x_t) h_{t-1} with a free matrix per symbol.

Scored by the papers' metric (:func:`course_rnn.metrics.dyck_closing_accuracy`: at each closing
bracket, is the top-scoring closer the right one? chance 1/5), broken down by attractors (as the
papers do) and by the depth of the pair (which they do not). The 3-TURN's embeddings are then read
with linear algebra alone (:func:`embedding_analysis`, 2022 Tables 3–4).

**urn-cross-serial** (:func:`run_cross_serial`; B&L 2023 §3, Tables 1–2, Fig. 2). Train on
C_8 = {a^m b^n c^m d^n | m + n < 8}, test on all 36 strings of C_10; full URNs and LSTMs
(embedding 20) of 8, 16 and 32 units, scored per string by
:func:`course_rnn.metrics.cross_serial_accuracy`. The parameter counts of the paper's Tables 1–2
are recomputed from formulas (:func:`parameter_count_rows`).

Both run on CPU or CUDA (``device``). Scales: ``"quick"`` is the chapter's (a short-training
replication, about a minute per experiment on one CPU thread); ``"paper"`` uses the papers'
corpus sizes and epochs. ``settings=`` overrides entries of :data:`DYCK_SETTINGS` /
:data:`CROSS_SERIAL_SETTINGS` (the tests use it to run tiny).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from matplotlib.figure import Figure

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
from ..metrics import cross_serial_accuracy, dyck_closing_accuracy
from ..models import build_model
from ..models.urn import urn_parameter_count
from ..training import fit
from ..utils import pick_device
from .replication import (
    Experiment,
    Replication,
    Row,
    Timer,
    mean_se,
    merge_settings,
    normalise_scale,
    pm,
    seed_list,
    steps,
)

# -- settings -------------------------------------------------------------------------------------

#: urn-dyck per scale. ``train``/``test``/``valid``: numbers of strings (valid = the first
#: ``valid`` test strings, scored every epoch for the loss curves); ``length``: symbols per
#: string; ``depth``: the exact depth every training string reaches; ``units``: state size of all
#: three networks; ``embedding``: the LSTM's input embedding. Paper: 102,400 strings × 100
#: epochs, batch 512 (2022 §5); quick: batch 128 so that a few thousand strings still give a few
#: hundred updates.
DYCK_SETTINGS: dict[str, dict] = {
    "quick": dict(train=6_400, test=5_120, valid=512, length=20, depth=3, units=50, embedding=12,
                  epochs=8, batch=128, lr=0.01),
    "paper": dict(train=102_400, test=5_120, valid=512, length=20, depth=3, units=50, embedding=12,
                  epochs=100, batch=512, lr=0.01),
}
#: urn-cross-serial per scale. ``train``: strings sampled from C_{max_total+1}; ``test_family``:
#: test on every string of C_k for this k; ``units``: the state sizes compared (Tables 1–2);
#: ``embedding``: the LSTM's input embedding. Paper (2023 §3): 51,200 strings, 100 epochs,
#: batch 512, lr 0.001; quick: lr 0.01 to make up for far fewer updates.
CROSS_SERIAL_SETTINGS: dict[str, dict] = {
    "quick": dict(train=1_024, max_total=7, test_family=10, units=(8, 16, 32), embedding=20,
                  epochs=20, batch=128, lr=0.01),
    "paper": dict(train=51_200, max_total=7, test_family=10, units=(8, 16, 32), embedding=20,
                  epochs=100, batch=512, lr=0.001),
}
#: How many seeds each experiment trains by default (the chapter's counts).
DYCK_SEEDS = {"quick": 1, "paper": 1}
CROSS_SERIAL_SEEDS = {"quick": 2, "paper": 3}

#: The Dyck networks: display name → registry kind (B&L 2022 §5: 3-TURN, LSTM, unconstrained).
DYCK_MODELS = {"3-TURN": "urn", "LSTM": "lstm", "MatrixRNN": "matrix_rnn"}
TRUNCATION = 3  # the k of the k-TURN
#: Pooled attractor ranges of the chapter: "few" is 0 … FEW_ATTRACTORS, "many" ≥ MANY_ATTRACTORS.
FEW_ATTRACTORS, MANY_ATTRACTORS = 2, 6

#: B&L 2023, Table 1 (cross-serial) and Table 2 (Dyck): (task, units) → (LSTM, URN) parameters.
PAPER_PARAMS = {
    ("cross-serial", 8): (1218, 370), ("cross-serial", 16): (2738, 1370),
    ("cross-serial", 32): (7314, 5290),
    ("Dyck", 8): (924, 444), ("Dyck", 16): (2204, 1644), ("Dyck", 32): (6300, 6348),
}
#: (V, LSTM embedding) the paper's counts imply: V counts start and stop symbols; the embedding
#: sizes are inferred by solving the counts (the paper does not state them).
PAPER_VOCAB = {"cross-serial": (10, 20), "Dyck": (12, 12)}


def _verdict(ok: bool) -> str:
    return "agrees" if ok else "**differs**"


# -- shared measures ------------------------------------------------------------------------------


def pooled_accuracy(result: Mapping, key: str, keep: Callable[[int], bool]) -> float:
    """Accuracy over all closing brackets whose attractor count / depth satisfies ``keep``.

    ``result`` is a :func:`~course_rnn.metrics.dyck_closing_accuracy` dict and ``key`` is
    ``"by_attractors"`` or ``"by_depth"``: Σ_k acc_k · count_k / Σ_k count_k over the kept k
    (NaN when no closing bracket is kept).
    """
    if key not in ("by_attractors", "by_depth"):
        raise ValueError(f"key must be 'by_attractors' or 'by_depth', got {key!r}")
    acc, count = result[key], result["count_" + key]
    kept = [k for k in acc if keep(k)]
    total = sum(count[k] for k in kept)
    return sum(acc[k] * count[k] for k in kept) / total if total else float("nan")


def dyck_cuts(depth: int) -> dict[str, tuple[str, str, Callable[[int], bool]]]:
    """The four pooled scores of the chapter: key → (label, breakdown, which k to keep).

    Seen depths are ≤ ``depth`` (the training depth); unseen ones start two deeper, so that the
    boundary depth ``depth + 1`` counts in neither. Attractors: 0 … :data:`FEW_ATTRACTORS` (few)
    vs ≥ :data:`MANY_ATTRACTORS` (many).
    """
    few, many = FEW_ATTRACTORS, MANY_ATTRACTORS
    return {
        "seen_depth": (f"depth ≤ {depth} (seen)", "by_depth", lambda d: d <= depth),
        "unseen_depth": (f"depth ≥ {depth + 2} (unseen)", "by_depth", lambda d: d >= depth + 2),
        "few_attractors": (f"0–{few} attractors", "by_attractors", lambda a: a <= few),
        "many_attractors": (f"≥ {many} attractors", "by_attractors", lambda a: a >= many),
    }


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


# -- urn-dyck -------------------------------------------------------------------------------------


def dyck_data(cfg: Mapping) -> tuple[list, list]:
    """Training strings (seed 0, every one of depth exactly ``cfg["depth"]``) and unconstrained
    test strings (seed 1), all of ``cfg["length"]`` symbols, from the seeds' generator."""
    dyck = Dyck()
    train = dyck.sample(cfg["train"], seed=0, length=cfg["length"], depth=cfg["depth"],
                        method="seeds")
    test = dyck.sample(cfg["test"], seed=1, length=cfg["length"], method="seeds")
    return train, test


def _dyck_model(name: str, vocab_size: int, cfg: Mapping, seed: int):
    """One of :data:`DYCK_MODELS` with ``cfg["units"]`` units (URN-style: the library's dropout
    0.05, as in the seeds' code)."""
    kind = DYCK_MODELS[name]
    if kind == "urn":
        return build_model(kind, vocab_size=vocab_size, n=cfg["units"], k=TRUNCATION, seed=seed)
    if kind == "lstm":
        return build_model(kind, vocab_size=vocab_size, hidden_size=cfg["units"],
                           embedding_dim=cfg["embedding"], seed=seed)
    return build_model(kind, vocab_size=vocab_size, n=cfg["units"], seed=seed)


def _mean_dict(dicts: list[Mapping]) -> dict:
    """Key-wise mean of dicts with the same keys (the same test set for every seed)."""
    return {k: float(np.mean([d[k] for d in dicts])) for k in dicts[0]}


def _dyck_numbers(runs: dict, cfg: Mapping, dyck: Dyck, vocab: Vocab) -> dict:
    """Every measured number of urn-dyck; means (and SEs) over seeds next to the per-seed ones."""
    cuts = dyck_cuts(cfg["depth"])
    seeds = list(runs)
    depth = cfg["depth"]
    numbers: dict = {"summary_labels": {key: cut[0] for key, cut in cuts.items()},
                     "cut_points": {"seen_depth_max": depth, "unseen_depth_min": depth + 2,
                                    "few_attractors_max": FEW_ATTRACTORS,
                                    "many_attractors_min": MANY_ATTRACTORS},
                     "parameters": {}, "closing": {}, "summary": {}, "summary_se": {},
                     "valid_loss": {}, "valid_loss_se": {}, "loss_curves": {}, "per_seed": {}}
    for seed in seeds:
        numbers["per_seed"][seed] = {name: {
            "accuracy": run["closing"]["accuracy"],
            "summary": {key: pooled_accuracy(run["closing"], by, keep)
                        for key, (_, by, keep) in cuts.items()},
            "train_loss": run["history"].last["train_loss"],
            "valid_loss": run["history"].last["valid_loss"],
        } for name, run in runs[seed].items()}
    for name in DYCK_MODELS:
        closing = [runs[s][name]["closing"] for s in seeds]
        first = closing[0]
        numbers["parameters"][name] = runs[seeds[0]][name]["model"].num_parameters()
        numbers["closing"][name] = {
            "accuracy": mean_se([c["accuracy"] for c in closing])[0],
            "by_attractors": _mean_dict([c["by_attractors"] for c in closing]),
            "by_depth": _mean_dict([c["by_depth"] for c in closing]),
            "count_by_attractors": first["count_by_attractors"],
            "count_by_depth": first["count_by_depth"],
        }
        per_seed = [numbers["per_seed"][s][name] for s in seeds]
        for key in cuts:
            mean, se = mean_se([p["summary"][key] for p in per_seed])
            numbers["summary"].setdefault(name, {})[key] = mean
            numbers["summary_se"].setdefault(name, {})[key] = se
        numbers["valid_loss"][name], numbers["valid_loss_se"][name] = mean_se(
            [p["valid_loss"] for p in per_seed])
        histories = [runs[s][name]["history"] for s in seeds]
        numbers["loss_curves"][name] = {
            "epoch": histories[0]["epoch"],
            "train": np.mean([h["train_loss"] for h in histories], axis=0).tolist(),
            "valid": np.mean([h["valid_loss"] for h in histories], axis=0).tolist(),
        }
    numbers["embeddings"] = {s: embedding_analysis(runs[s]["3-TURN"]["model"], vocab, dyck)
                             for s in seeds}
    emb = list(numbers["embeddings"].values())
    numbers["embedding_ranges"] = {
        "single_min": min(e["single_min"] for e in emb),
        "single_max": max(e["single_max"] for e in emb),
        "matching_min": min(e["matching_min"] for e in emb),
        "matching_max": max(e["matching_max"] for e in emb),
        "plane_diagonal": float(np.mean([e["plane_diagonal"] for e in emb])),
        "plane_other": float(np.mean([e["plane_other"] for e in emb])),
    }
    return numbers


def _dyck_rows(numbers: Mapping, cfg: Mapping, scale: str) -> list[Row]:
    """The Dyck half of the chapter's paper-vs-ours table (B&L 2022 Tables 3–4, Fig. 3, §5;
    2023 §6.1). Our figures are means over seeds (± SE with several seeds)."""
    e = numbers["embedding_ranges"]
    labels = numbers["summary_labels"]
    seen, unseen = labels["seen_depth"].split(" (")[0], labels["unseen_depth"].split(" (")[0]

    def score(name: str, key: str) -> str:
        return pm(numbers["summary"][name][key], numbers["summary_se"][name][key], 2)

    def change(name, low, high, low_label, high_label):
        return f"{score(name, low)} ({low_label}) → {score(name, high)} ({high_label})"

    few, many = labels["few_attractors"].split(" ")[0], labels["many_attractors"].split(" a")[0]
    urn, lstm, mat = (numbers["summary"][n] for n in DYCK_MODELS)
    paper_single = (13.98, 14.85)
    if e["single_max"] < paper_single[0]:
        single_note = "smaller than the paper's"
    elif e["single_min"] > paper_single[1]:
        single_note = "larger than the paper's"
    else:
        single_note = "overlaps the paper's range"
    if scale == "quick":
        single_note += " (our training is far shorter)"
    loss = numbers["valid_loss"]
    return [
        Row("average effect ‖Q − I‖² of one bracket", "13.98–14.85 (2022 Table 4)",
            f"{e['single_min']:.2f}–{e['single_max']:.2f}", single_note),
        Row("average effect of a matching pair", "0.06–0.07 (2022 Table 4)",
            f"{e['matching_min']:.2f}–{e['matching_max']:.2f}", _verdict(e["matching_max"] < 0.1)),
        Row("matching pair ≪ single bracket", "0.07 vs ≥ 13.98 (2022 Table 4)",
            f"{e['matching_max']:.2f} vs ≥ {e['single_min']:.2f}",
            _verdict(e["matching_max"] < 0.1 * e["single_min"])),
        Row("planes with similar angles overlap most", "up to 1.73 of 2 (2022 Table 3)",
            f"diagonal {e['plane_diagonal']:.2f} vs other {e['plane_other']:.2f}",
            _verdict(e["plane_diagonal"] > e["plane_other"])),
        Row("URN accuracy vs attractors", "no decline, rises (2022 Fig. 3; 2023 §6.1)",
            change("3-TURN", "few_attractors", "many_attractors", few, many),
            _verdict(urn["many_attractors"] >= urn["few_attractors"] - 0.02)),
        Row("URN accuracy vs depth", "no decline (2023 §6.1)",
            change("3-TURN", "seen_depth", "unseen_depth", seen, unseen),
            _verdict(urn["unseen_depth"] >= urn["seen_depth"] - 0.05)),
        Row("LSTM accuracy vs depth", "declines with depth (2022 §6.1)",
            change("LSTM", "seen_depth", "unseen_depth", seen, unseen),
            _verdict(lstm["unseen_depth"] < lstm["seen_depth"])),
        Row("baseline (MatrixRNN) accuracy vs attractors", "steadily decreasing (2022 §5)",
            change("MatrixRNN", "few_attractors", "many_attractors", few, many),
            _verdict(mat["many_attractors"] < mat["few_attractors"])),
        Row("test loss, URN vs unconstrained", "1.472 vs 1.529 (2022 §5, full URN)",
            f"{pm(loss['3-TURN'], numbers['valid_loss_se']['3-TURN'], 3)} vs "
            f"{pm(loss['MatrixRNN'], numbers['valid_loss_se']['MatrixRNN'], 3)}",
            _verdict(loss["3-TURN"] < loss["MatrixRNN"])
            + f"; ours: a 3-TURN, on the first {cfg['valid']} test strings"),
    ]


def _dyck_figures(numbers: Mapping, depth: int) -> dict[str, Figure]:
    """``dyck_loss`` (loss curves) and ``dyck_accuracy`` (by attractors | by depth)."""
    loss = Figure(figsize=(6, 3))
    ax = loss.subplots()
    for i, (name, curve) in enumerate(numbers["loss_curves"].items()):
        ax.plot(curve["epoch"], curve["train"], "-", color=f"C{i}", label=f"{name} train")
        ax.plot(curve["epoch"], curve["valid"], "--", color=f"C{i}", label=f"{name} test")
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy (nats / symbol)")
    ax.set_title("Dyck: loss curves")
    ax.legend(fontsize=7, ncol=2)
    loss.tight_layout()

    accuracy = Figure(figsize=(10, 3.2))
    axes = accuracy.subplots(1, 2, sharey=True)
    for ax, key, label in [(axes[0], "by_attractors", "number of attractors"),
                           (axes[1], "by_depth", "depth of the pair")]:
        for name, r in numbers["closing"].items():
            ax.plot(list(r[key]), list(r[key].values()), "o-", label=name)
        ax.axhline(0.2, color="0.5", ls=":", label="chance")
        ax.set_xlabel(label)
    axes[1].axvspan(0.5, depth + 0.5, color="0.9", zorder=0, label="training depths")
    axes[0].set_ylabel("closing-bracket accuracy")
    axes[1].legend(fontsize=8)
    accuracy.tight_layout()
    return {"dyck_loss": loss, "dyck_accuracy": accuracy}


def run_dyck(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
             settings: Mapping | None = None) -> Replication:
    """3-TURN, LSTM and MatrixRNN on Dyck, by attractors and by depth (B&L 2022 §5; 2023 §6.1).

    Each network is trained with Adam as a language model, L = −(1/N) Σ log p(w_{t+1} | w_1…w_t),
    on strings of depth exactly ``depth``, then scored on the closing brackets of the test
    strings. Data are the same for every seed (train seed 0, test seed 1); a seed sets the
    model's initialisation and the order of batches. ``seeds``: a count (seeds 0 … N−1, default
    1) or a list. ``artefacts`` hold the trained models of the first seed (``models``), every
    seed's (``models_by_seed``), their ``histories``, the ``train``/``test`` strings, ``vocab``
    and ``language``.
    """
    with Timer() as timer:
        scale = normalise_scale(scale)
        cfg = merge_settings(DYCK_SETTINGS[scale], settings, "urn-dyck")
        seeds = seed_list(seeds, DYCK_SEEDS[scale])
        device = pick_device(device)
        dyck = Dyck()
        vocab = Vocab(dyck.alphabet)
        train, test = dyck_data(cfg)
        valid = test[: cfg["valid"]]
        runs: dict = {s: {} for s in seeds}
        jobs = [(s, name) for s in seeds for name in DYCK_MODELS]
        for seed, name in steps(jobs, total=len(jobs), desc="urn-dyck", progress=progress):
            model = _dyck_model(name, len(vocab), cfg, seed)
            history = fit(model, vocab, train, valid=valid, epochs=cfg["epochs"],
                          batch_size=cfg["batch"], lr=cfg["lr"], seed=seed, device=device,
                          progress=False)
            closing = dyck_closing_accuracy(model, dyck, vocab, test)
            runs[seed][name] = {"model": model, "history": history, "closing": closing}
        numbers = _dyck_numbers(runs, cfg, dyck, vocab)
        rows = _dyck_rows(numbers, cfg, scale)
        figures = _dyck_figures(numbers, cfg["depth"])
    first = seeds[0]
    return Replication(
        experiment="urn-dyck", title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=cfg, numbers=numbers, rows=rows, figures=figures,
        artefacts={"models": {n: r["model"] for n, r in runs[first].items()},
                   "models_by_seed": {s: {n: r["model"] for n, r in runs[s].items()}
                                      for s in seeds},
                   "histories": {n: r["history"] for n, r in runs[first].items()},
                   "train": train, "test": test, "vocab": vocab, "language": dyck},
        seconds=timer.seconds)


# -- urn-cross-serial -----------------------------------------------------------------------------


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


def _cross_serial_model(kind: str, vocab_size: int, units: int, cfg: Mapping, seed: int):
    if kind == "urn":  # a full URN (no truncation), as in the 2023 paper
        return build_model("urn", vocab_size=vocab_size, n=units, seed=seed)
    return build_model("lstm", vocab_size=vocab_size, hidden_size=units,
                       embedding_dim=cfg["embedding"], seed=seed)


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


def _cross_serial_rows(numbers: Mapping, cfg: Mapping) -> list[Row]:
    """Tables 1–2 (parameter counts) and the cross-serial claims of B&L 2023 §3.1."""
    rows = []
    for (task, units), (paper_lstm, paper_urn) in PAPER_PARAMS.items():
        ours = numbers["parameter_counts"][task][units]
        table = "Table 1" if task == "cross-serial" else "Table 2"
        v, emb = PAPER_VOCAB[task]
        rows.append(Row(f"parameters, {task}, {units} units: LSTM / URN",
                        f"{paper_lstm} / {paper_urn} (2023 {table})",
                        f"{ours['lstm']} / {ours['urn']}",
                        _verdict(ours["lstm"] == paper_lstm and ours["urn"] == paper_urn)
                        + f" (formulas; V = {v}, LSTM embedding {emb})"))
    mean, best = numbers["mean_error"], numbers["best"]
    small, large = cfg["units"][0], cfg["units"][-1]
    k = cfg["test_family"]
    rows += [
        Row(f"best string error on C_{k}", "< 0.10 (2023 §3.1, Fig. 2b)",
            f"{best['error']:.2f} ({best['model']} {best['units']}, seed {best['seed']})",
            _verdict(best["error"] < 0.10)),
        Row("unseen lengths: LSTM better than URN", "yes (2023 §3.1, error by length)",
            f"LSTM {mean['LSTM']['unseen']:.2f} vs URN {mean['URN']['unseen']:.2f}",
            _verdict(mean["LSTM"]["unseen"] < mean["URN"]["unseen"])),
        Row(f"URN error falls with units ({small}→{large})", "yes (2023 §3.1)",
            f"{mean['URN']['by_units'][small]:.2f} → {mean['URN']['by_units'][large]:.2f}",
            _verdict(mean["URN"]["by_units"][large] < mean["URN"]["by_units"][small])),
        Row(f"LSTM error rises with units ({small}→{large})", "yes (2023 §3.1)",
            f"{mean['LSTM']['by_units'][small]:.2f} → {mean['LSTM']['by_units'][large]:.2f}",
            _verdict(mean["LSTM"]["by_units"][large] > mean["LSTM"]["by_units"][small])),
    ]
    return rows


def _cross_serial_figure(numbers: Mapping, cfg: Mapping, n_seeds: int) -> Figure:
    """Error by m + n per model and size (left), error on C_k by size (right); 2023 Fig. 2."""
    fig = Figure(figsize=(10, 3.2))
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
    fig.tight_layout()
    return fig


def run_cross_serial(scale: str = "quick", seeds=None, device=None,
                     progress: bool | None = None, settings: Mapping | None = None) -> Replication:
    """URN vs LSTM on cross-serial strings, C_8 → C_10 (B&L 2023 §3, Tables 1–2, Fig. 2).

    Training strings are sampled once (seed 0) from C_{max_total+1}; the test set is every
    string of C_{test_family}, so the error is the paper's expected error over a uniform test
    sample. Per seed, a full URN and an LSTM of each size in ``units`` are trained; a seed sets
    initialisation and batch order. ``seeds``: a count (default 2 quick, 3 paper) or a list.
    ``numbers["runs"]`` has one dict per trained network; ``artefacts`` hold the ``models``
    keyed by (model, units, seed), the ``train`` strings, ``test`` strings and ``vocab``.
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
        runs, models = [], {}
        jobs = [(s, u, kind) for s in seeds for u in cfg["units"] for kind in ("urn", "lstm")]
        for seed, units, kind in steps(jobs, total=len(jobs), desc="urn-cross-serial",
                                       progress=progress):
            model = _cross_serial_model(kind, len(vocab), units, cfg, seed)
            history = fit(model, vocab, train, epochs=cfg["epochs"], batch_size=cfg["batch"],
                          lr=cfg["lr"], seed=seed, device=device, progress=False)
            r = cross_serial_accuracy(model, language, vocab, test)
            runs.append({"model": kind.upper(), "units": units, "seed": seed,
                         "parameters": model.num_parameters(),
                         "train_loss": history.last["train_loss"], "error": 1 - r["accuracy"],
                         "error_by_length": {k: 1 - v for k, v in r["by_length"].items()}})
            models[(kind.upper(), units, seed)] = model
        numbers = _cross_serial_numbers(runs, cfg)
        rows = _cross_serial_rows(numbers, cfg)
        figures = {"cross_serial_errors": _cross_serial_figure(numbers, cfg, len(seeds))}
    return Replication(
        experiment="urn-cross-serial", title=EXPERIMENTS[1].title, scale=scale, seeds=seeds,
        device=str(device), settings=cfg, numbers=numbers, rows=rows, figures=figures,
        artefacts={"models": models, "train": train, "test": test, "vocab": vocab,
                   "language": language},
        seconds=timer.seconds)


EXPERIMENTS = (
    Experiment(name="urn-dyck",
               title="Bernardy & Lappin (2022; 2023): URN vs LSTM on Dyck, accuracy by "
                     "attractors and by depth",
               chapter="06_unitary", run=run_dyck),
    Experiment(name="urn-cross-serial",
               title="Bernardy & Lappin (2023), Tables 1–2 and Fig. 2: URN vs LSTM on "
                     "cross-serial C_8 → C_10",
               chapter="06_unitary", run=run_cross_serial),
)
