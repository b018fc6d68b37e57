"""What ``bengio-kn`` measured, typed: the chapter reads ``result.numbers.ratio.ours`` and
``result.numbers.perplexity["KN 3-gram"]``.

:class:`BengioNumbers` is ``Replication.numbers``; its ``to_json()`` is the ``numbers`` of
``results.json`` (one key per field, in the fields' order: committed runs and the chapter read
any saved file alike).
:func:`numbers_of` measures them from the count models' and the MLPs' token probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..records import Record, mean_se
from .compute import (
    AustenData,
    TrainedMLP,
    kn_name,
    mixture_probs,
    mixture_weight,
    mlp_name,
    perplexity_of,
)
from .paper import BROWN_EPOCHS, BROWN_VOCAB, PAPER_KN, PAPER_MIXTURE, PAPER_MLP
from .settings import BengioSettings


@dataclass
class BengioArtefacts:
    """What the chapter reads beyond the numbers (not saved): the trained ``mlps`` ((variant,
    seed) → :class:`~.compute.TrainedMLP`), the count models' token probabilities
    (``count_probs``: name → ``{"valid", "test"}``), ``count_model`` (the modified Kneser–Ney
    model of the lowest order), the ``data``, the ``train_pairs`` / ``valid_pairs`` /
    ``test_pairs``, ``seconds`` (wall time of each MLP's training and of each order's count
    models), ``cpu_seconds`` (CPU time of each job, in its own process) and ``doubled`` (the
    runs at twice the epochs, when a verdict needed them)."""

    mlps: dict[tuple[str, int], TrainedMLP]
    count_probs: dict[str, dict[str, np.ndarray]]
    count_model: object
    data: AustenData
    train_pairs: tuple
    valid_pairs: tuple
    test_pairs: tuple
    seconds: dict[str, float]
    cpu_seconds: dict[str, float]
    doubled: dict[tuple[str, int], TrainedMLP]


@dataclass
class MlpRun(Record):
    """One trained MLP: its test and validation perplexity, its mixture with the best count
    model (weight λ on the MLP, tuned on validation; test and validation perplexity) and how its
    training ended."""

    seed: int
    perplexity: float
    valid_perplexity: float
    mixture_weight: float
    mixture: float
    mixture_valid: float
    converged: bool
    stopped: str
    epochs: float
    steps: int
    best_epoch: float


@dataclass
class Ratio(Record):
    """The best MLP alone and the best mixture, each divided by the best count model of its
    corpus (ours and the paper's), and the mixture divided by the MLP alone."""

    ours: float
    paper: float
    mixture_ours: float
    mixture_paper: float
    mixture_vs_mlp_ours: float
    mixture_vs_mlp_paper: float


@dataclass
class Relative(Record):
    """Every model's test perplexity / the best count model of its own corpus: ``ours`` (by
    model name) and the ``paper``'s (Kneser–Ney orders, MLP variants, "mixture")."""

    ours: dict[str, float]
    paper: dict[str, float]


@dataclass
class Corpus(Record):
    """The sizes of the data: sentences, vocabulary, training sentences and tokens, the scored
    test and watched validation sentences, and the n-grams of each part."""

    sentences: int
    vocabulary: int
    train_sentences: int
    train_tokens: int
    scored_sentences: int
    watched_valid_sentences: int
    train_pairs: int
    watched_valid_predictions: int
    scored_predictions: int


@dataclass
class Budget(Record):
    """The epochs every MLP trained (to a validation plateau), their range, the cap, how many
    of the runs converged, and the paper's 10–20 epochs."""

    epochs: list[float]
    epochs_max: float
    epochs_min: float
    cap: int
    converged: int
    runs: int
    paper_epochs: list[int]


@dataclass
class BengioNumbers(Record):
    """Every measured number. ``perplexity`` / ``valid_perplexity``: per model on the test /
    watched validation tokens (MLPs and mixtures: mean over seeds), ``perplexity_se``;
    ``best_count_model`` (lowest validation perplexity) and ``best_count`` (its test perplexity);
    ``relative`` and ``ratio``: against the best count model; ``discounts`` of the modified
    models (name -> order -> D1, D2, D3+); ``mlp``: per variant, one :class:`MlpRun` per seed."""

    perplexity: dict[str, float]
    perplexity_se: dict[str, float]
    valid_perplexity: dict[str, float]
    best_count_model: str
    best_count: float
    best_count_order: int
    best_interpolated: str
    best_modified: str
    best_variant: str
    best_mlp: float
    best_mixture_model: str
    best_mixture: float
    ratio: Ratio
    relative: Relative
    discounts: dict[str, dict[int, list[float]]]
    mlp: dict[str, list[MlpRun]]
    mlp_seeds: dict[str, int]
    mixture_weight: dict[str, float]
    parameters: dict[str, int]
    corpus: Corpus
    budget: Budget
    vocabulary_share_of_brown: float


def numbers_of(counts: dict, mlps: dict, config: BengioSettings, data: AustenData,
               sizes: dict) -> BengioNumbers:
    """The numbers of one budget: ``counts`` from :func:`~.compute.count_models`, ``mlps``
    ((variant, seed) -> :func:`~.compute.train_mlp`'s result), the ``sizes`` of the n-grams."""
    test_ppl = {name: perplexity_of(p["test"]) for name, p in counts.probs.items()}
    valid_ppl = {name: perplexity_of(p["valid"]) for name, p in counts.probs.items()}
    candidates = [n for n in counts.probs if n != "unigram"]
    best_count_model = min(candidates, key=valid_ppl.get)
    best_count = test_ppl[best_count_model]
    best_probs = counts.probs[best_count_model]
    per_run, ppl, se = {}, dict(test_ppl), {}
    for variant in config.variants:
        group = []
        for seed in config.seeds:
            r = mlps[variant, seed]
            lam = mixture_weight(r.valid, best_probs["valid"])
            record = r.history.convergence
            group.append(MlpRun(
                seed=seed, perplexity=r.perplexity,
                valid_perplexity=float(np.exp(-r.valid.mean())),
                mixture_weight=lam,
                mixture=perplexity_of(mixture_probs(lam, r.test, best_probs["test"])),
                mixture_valid=perplexity_of(mixture_probs(lam, r.valid, best_probs["valid"])),
                converged=record.converged, stopped=record.stopped, epochs=record.epochs,
                steps=record.steps, best_epoch=record.best_epoch))
        per_run[variant] = group
        name = mlp_name(variant)
        ppl[name], se[name] = mean_se([g.perplexity for g in group])
        valid_ppl[name] = float(np.mean([g.valid_perplexity for g in group]))
        mix = f"{name} + {best_count_model}"
        ppl[mix], se[mix] = mean_se([g.mixture for g in group])
        valid_ppl[mix] = float(np.mean([g.mixture_valid for g in group]))
    best_variant = min(config.variants, key=lambda v: ppl[mlp_name(v)])
    best_mlp = ppl[mlp_name(best_variant)]
    best_mixture_name = f"{mlp_name(best_variant)} + {best_count_model}"
    paper_best_kn = min(PAPER_KN.values())
    paper_relative = {**{kn_name(k): v / paper_best_kn for k, v in PAPER_KN.items()},
                      **{mlp_name(v): p / paper_best_kn for v, (_, p) in PAPER_MLP.items()},
                      "mixture": PAPER_MIXTURE / paper_best_kn}
    epochs_used = [g.epochs for group in per_run.values() for g in group]
    return BengioNumbers(
        perplexity=ppl,
        perplexity_se=se,
        valid_perplexity=valid_ppl,
        best_count_model=best_count_model,
        best_count=best_count,
        best_count_order=int(best_count_model.split()[-1].split("-")[0]),
        best_interpolated=min((kn_name(k) for k in config.kn_orders), key=valid_ppl.get),
        best_modified=min((kn_name(k, True) for k in config.kn_orders), key=valid_ppl.get),
        best_variant=best_variant,
        best_mlp=best_mlp,
        best_mixture_model=best_mixture_name,
        best_mixture=ppl[best_mixture_name],
        ratio=Ratio(ours=best_mlp / best_count,
                    paper=min(p for _, p in PAPER_MLP.values()) / paper_best_kn,
                    mixture_ours=ppl[best_mixture_name] / best_count,
                    mixture_paper=PAPER_MIXTURE / paper_best_kn,
                    mixture_vs_mlp_ours=ppl[best_mixture_name] / best_mlp,
                    mixture_vs_mlp_paper=PAPER_MIXTURE / PAPER_MLP["no direct"][1]),
        relative=Relative(ours={name: value / best_count for name, value in ppl.items()},
                          paper=paper_relative),
        discounts=counts.discounts,
        mlp=per_run,
        mlp_seeds={variant: len(group) for variant, group in per_run.items()},
        mixture_weight={v: float(np.mean([g.mixture_weight for g in group]))
                        for v, group in per_run.items()},
        parameters={v: mlps[v, config.seeds[0]].model.num_parameters()
                    for v in config.variants},
        corpus=Corpus(sentences=len(data.sentences), vocabulary=len(data.vocab),
                      train_sentences=len(data.train),
                      train_tokens=sum(len(s) for s in data.train),
                      scored_sentences=len(data.scored(config.test_sentences)),
                      watched_valid_sentences=len(data.watched(config.valid_sentences)),
                      **sizes),
        budget=Budget(epochs=epochs_used, epochs_max=max(epochs_used),
                      epochs_min=min(epochs_used), cap=config.max_epochs,
                      converged=sum(g.converged for group in per_run.values() for g in group),
                      runs=len(epochs_used), paper_epochs=list(BROWN_EPOCHS)),
        vocabulary_share_of_brown=len(data.vocab) / BROWN_VOCAB,
    )
