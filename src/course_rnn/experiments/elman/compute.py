"""``elman-clusters``' computation: the data, the training runs, and reading the trees."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...analysis import hidden as H
from ...languages import ElmanTemplates, Vocab
from ...models import build_model
from ...training import Optimum, Plateau, ReduceOnPlateau, evaluate_loss, fit
from ...training.stream import StreamModelling, stream_loss
from ..workers import parallel_map
from .settings import REGIMES, ElmanSettings

#: The finer word classes of Figure 7, in the order of the colours of the trees.
KINDS = ("human", "animal", "food", "breakable", "thing",
         "intransitive", "optionally transitive", "transitive")


# -- data -----------------------------------------------------------------------------------------
def make_data(language: ElmanTemplates, cfg: ElmanSettings) -> dict[str, tuple]:
    """Regime → (training data, held-out data for validation and for reading the states).

    Both regimes see the same ``cfg.sentences`` sentences (seed ``data_seed``): as a list of
    sentences, or concatenated into one stream of words with no boundary mark. The held-out
    text is ``probe`` fresh sentences (seed ``probe_seed``), as sentences or as one stream.
    """
    return {
        "sentences": (language.sample(cfg.sentences, seed=cfg.data_seed),
                      language.sample(cfg.probe, seed=cfg.probe_seed)),
        "stream": (language.corpus(cfg.sentences, seed=cfg.data_seed),
                   language.corpus(cfg.probe, seed=cfg.probe_seed)),
    }


# -- training -------------------------------------------------------------------------------------
def train_run(regime: str, seed: int, cfg: ElmanSettings, data: tuple, device=None,
              min_epochs: int = 0, resume=None) -> tuple:
    """Train one SRN on one regime until it has learned (see the package docstring); return
    ``(model, history)``. ``min_epochs`` and ``resume`` (the History of the seed's first run)
    continue a run to twice its budget. Top level, for worker processes."""
    language = ElmanTemplates()
    vocab = Vocab.for_language(language)
    train, probe = data
    batch_size, lr = cfg.regime(regime)
    model = build_model(cfg.model, vocab_size=len(vocab), hidden_size=cfg.hidden, seed=seed)
    common = dict(valid=probe, epochs=max(cfg.epochs, min_epochs), min_epochs=min_epochs,
                  batch_size=int(batch_size), lr=float(lr), optimizer=cfg.optimizer,
                  schedule=ReduceOnPlateau(0.5, cfg.lr_patience), seed=seed, device=device,
                  progress=False, resume=resume)
    if regime == "sentences":
        scorer = H.ExactScorer(language, vocab)
        history = fit(model, vocab, train, **common,
                      metrics={"exact_loss": lambda m: scorer(m)["cross_entropy"]},
                      until=Optimum(scorer.entropy, cfg.tolerance, metric="exact_loss"),
                      patience=cfg.patience, restore_best=False)
    else:
        task = StreamModelling(vocab, cfg.chunk)
        history = fit(model, task, train, **common, until=Plateau(patience=cfg.patience))
    return model, history


@dataclass
class TrainedRun:
    """One trained run: its ``model`` and ``history``, its ``held_out`` loss (nats per word; for
    the stream read with its state carried), the mean ``states`` per word on the held-out text
    and their ``tree`` (a scipy linkage)."""

    model: object
    history: object
    held_out: float
    states: H.WordStates
    tree: np.ndarray


def read_run(regime: str, model, history, cfg: ElmanSettings, data: tuple) -> TrainedRun:
    """A trained run read on its held-out text (see :class:`TrainedRun`)."""
    vocab = Vocab.for_language(ElmanTemplates())
    probe = data[1]
    if regime == "sentences":
        held_out = evaluate_loss(model, vocab, probe)
        states = H.mean_states(model, vocab, probe, words=vocab.alphabet)
    else:
        held_out = stream_loss(model, vocab, probe, cfg.chunk)
        states = H.mean_states(model, vocab, [probe], words=vocab.alphabet)  # one long read
    return TrainedRun(model, history, held_out, states, H.cluster_tree(states))


def train_runs(data: Mapping, cfg: ElmanSettings, seeds: Sequence[int], device,
               progress: bool | None = None, min_epochs: Mapping | None = None,
               resume: Mapping | None = None) -> dict[tuple[str, int], TrainedRun]:
    """(regime, seed) → the run trained by :func:`train_run` and read by :func:`read_run`, every
    run in parallel worker processes; ``min_epochs``: (regime, seed) → epochs, and ``resume``:
    (regime, seed) → History, to continue runs."""
    plan = [(regime, seed) for regime in REGIMES for seed in seeds]
    if min_epochs is not None:
        plan = [p for p in plan if p in min_epochs]
    min_epochs, resume = min_epochs or {}, resume or {}
    jobs = [(regime, seed, cfg, data[regime], str(device), min_epochs.get((regime, seed), 0),
             resume.get((regime, seed))) for regime, seed in plan]
    trained = parallel_map(train_run, jobs, device=device, desc="elman-clusters",
                           progress=progress)
    return {(regime, seed): read_run(regime, model, history, cfg, data[regime])
            for (regime, seed), (model, history) in zip(plan, trained)}


# -- reading a tree -------------------------------------------------------------------------------
def word_groups(language: ElmanTemplates) -> dict[str, list[str]]:
    """The word groups of Elman's Figure 7 (and two that our trees suggest), name → words.

    nouns / verbs; animate / inanimate nouns; the eight finer kinds (:data:`KINDS`); the
    aggressors (*dragon, monster, lion*: NOUN-AGRESS); the humans together with the other animals
    (*cat, mouse, dog*), which share the humans' sentence frames.
    """
    cls = {w: language.category_of(w) for w in language.alphabet}
    groups = {
        "nouns": [w for w in language.alphabet if cls[w].pos == "noun"],
        "verbs": [w for w in language.alphabet if cls[w].pos == "verb"],
        "animate": [w for w in language.alphabet if cls[w].animacy == "animate"],
        "inanimate": [w for w in language.alphabet if cls[w].animacy == "inanimate"],
    }
    groups.update({k: [w for w in language.alphabet if cls[w].kind == k] for k in KINDS})
    groups["aggressors"] = list(language.categories["NOUN-AGRESS"])
    groups["humans + cat, mouse, dog"] = [*language.categories["NOUN-HUM"],
                                          *language.categories["NOUN-ANIM"]]
    return groups


def tree_report(tree: np.ndarray, labels: Sequence[str], groups: Mapping[str, Sequence[str]]
                ) -> dict:
    """One tree as a row of the clade table.

    ``root splits off``: the smaller side of the root split (its words when fewer than 8);
    ``noun|verb root``: whether the root divides exactly the nouns from the verbs (Fig. 7's top
    split); then per group, the Jaccard similarity of the best-matching branch (1.0: the group is
    exactly one branch), rounded to 2 decimals.
    """
    big, small = H.top_split(tree, labels)
    report = {"root splits off": " ".join(sorted(small)) if len(small) < 8
              else f"{len(small)} words",
              "noun|verb root": {big, small} == {frozenset(groups["nouns"]),
                                                 frozenset(groups["verbs"])}}
    report.update({g: round(H.best_clade(tree, labels, ws)[1], 2) for g, ws in groups.items()})
    return report


@dataclass
class Clades:
    """The trees of a set of runs read against Figure 7's groups: ``reports`` (run name →
    :func:`tree_report`), ``one_branch`` (group → the runs in which it is exactly one branch)
    and ``noun_verb_roots`` (the runs whose root splits nouns from verbs)."""

    reports: dict[str, dict]
    one_branch: dict[str, int]
    noun_verb_roots: int


def clade_counts(runs: Mapping[tuple[str, int], TrainedRun], groups: Mapping) -> Clades:
    """The :class:`Clades` of ``runs``."""
    reports = {f"{regime}, seed {seed}": tree_report(r.tree, r.states.words, groups)
               for (regime, seed), r in runs.items()}
    return Clades(reports,
                  {g: sum(rep[g] == 1.0 for rep in reports.values()) for g in groups},
                  sum(rep["noun|verb root"] for rep in reports.values()))
