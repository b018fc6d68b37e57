"""The syntax gym (chapter 7): every model of the course on every language, one row per run.

Each (model, language, seed) is trained as a language model with :func:`course_rnn.training.fit`
on short / shallow strings and then tested on held-out *longer or deeper* strings, where nothing
seen in training can be replayed. Two kinds of score come back:

* a **common metric**, the same for every language: ``valid_strings``, the share of held-out
  strings on which *every* top prediction is a legal continuation (``valid_next``) – computed by
  :func:`course_rnn.metrics.next_symbol_validity` – and ``valid_positions``, the same share per
  position;
* the **language's own metric** (``own_metric`` names it, ``own`` holds it), the one its chapter
  uses: ``max_correct_n`` for a^n b^n (chapter 3), closing-bracket accuracy on deeper strings for
  Dyck (chapter 6), Bernardy & Lappin's whole-string accuracy for cross-serial strings (chapter 6),
  the share of mirrored symbols predicted right for palindromes, and Linzen's agreement accuracy
  on sentences balanced by attractors (chapter 4).

=================  ===============================  ================================================
language           trained on                       tested on
=================  ===============================  ================================================
``anbn``           a^n b^n, n ≤ 10                  n = 11 … 20 (own metric: up to n = 40)
``dyck``           2 bracket pairs, length 16,      length 16, depth ≥ 5 (the seeds' generator)
                   depth exactly 3
``cross_serial``   a^m b^n c^m d^n, m + n ≤ 7 (C_8)  m + n = 8, 9 (the rest of C_10)
``palindrome``     w c w^R, |w| ≤ 6                 |w| = 7 … 9
``agreement``      the agreement grammar, ≤ 1 PP    ≤ 2 PPs, balanced over 0–3 attractors
=================  ===============================  ================================================

Models are built with :func:`course_rnn.models.build_model` at one state size (``hidden``) so that
the table compares inductive biases, not sizes; the parameter counts differ and are reported.
The FLNN (Tabor 2011) is a special-purpose network – a *linear* state with one scalar
contraction/expansion per word and a few Gaussian read-out units – built for context-free
languages whose stack holds few kinds of symbol. It runs only where that design applies
(:data:`FLNN_LANGUAGES`); elsewhere :func:`applicable` is False and the gym skips it.

``run_gym(scale="default")`` is what chapter 7 calls (about a minute on one CPU thread);
``scale="paper"`` is larger, ``scale="smoke"`` tiny (for tests); ``settings=`` overrides any
entry of :func:`gym_settings`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..languages import Agreement, AnBn, CrossSerial, Palindrome, Vocab, make_language
from ..languages.base import EOS
from ..metrics import (
    agreement_accuracy,
    anbn_generalisation,
    cross_serial_accuracy,
    dyck_closing_accuracy,
    next_symbol_logits,
    next_symbol_validity,
)
from ..models import build_model
from ..training import fit
from ..utils import pick_device
from .replication import Experiment, Replication, Row, Timer, normalise_scale, seed_list, steps

#: Display name → (registry kind, extra constructor arguments). The state size is added per run.
GYM_MODELS: dict[str, tuple[str, dict]] = {
    "SRN": ("srn", {}),
    "GRU": ("gru", {}),
    "LSTM": ("lstm", {}),
    "DRNN": ("decay_rnn", {"variant": "drnn"}),
    "URN": ("urn", {"k": 3}),
    "FLNN": ("flnn", {}),
}

#: Language key → a one-line description (what it isolates).
GYM_LANGUAGES: dict[str, str] = {
    "anbn": "counting",
    "dyck": "nesting (a stack of kinds)",
    "cross_serial": "crossing dependencies",
    "palindrome": "mirrored memory",
    "agreement": "subject–verb agreement",
}

#: Where the FLNN applies: languages with a stack of at most two kinds of symbol, like Tabor's
#: grammars (a^n b^n: one kind; w c w^R over {a, b}: two). Dyck with several kinds, crossing
#: dependencies and a 95-word English grammar are outside what its scalar push/pop factors encode.
FLNN_LANGUAGES = ("anbn", "palindrome")

#: The language's own metric, by language.
OWN_METRICS = {
    "anbn": "max_correct_n",
    "dyck": "closing accuracy (deeper)",
    "cross_serial": "whole-string accuracy",
    "palindrome": "mirror accuracy",
    "agreement": "agreement accuracy",
}

_SETTINGS = {
    "smoke": dict(
        hidden=4, urn_n=4, lr=0.02, batch_size=32,
        languages=dict(
            anbn=dict(train_copies=2, epochs=2, test_max_n=12),
            dyck=dict(pairs=2, train=64, epochs=1, test=16),
            cross_serial=dict(train=64, epochs=1),
            palindrome=dict(train=64, epochs=1, test=16),
            agreement=dict(train=64, epochs=1, test_per_attractor=4),
        ),
    ),
    "default": dict(
        hidden=16, urn_n=16, lr=0.01, batch_size=32,
        languages=dict(
            anbn=dict(train_copies=10, epochs=24, batch_size=10, lr=0.02, test_max_n=40),
            dyck=dict(pairs=2, train=1200, epochs=4, test=200),
            cross_serial=dict(train=640, epochs=8),
            palindrome=dict(train=900, epochs=4, test=200),
            agreement=dict(train=800, epochs=5, batch_size=16, lr=0.03,
                           test_per_attractor=50),
        ),
    ),
    "paper": dict(
        hidden=50, urn_n=50, lr=0.005, batch_size=64,
        languages=dict(
            anbn=dict(train_copies=100, epochs=100, test_max_n=60),
            dyck=dict(pairs=5, train=25_600, epochs=20, test=2000),
            cross_serial=dict(train=12_800, epochs=30),
            palindrome=dict(train=12_800, epochs=20, test=2000),
            agreement=dict(train=50_000, epochs=10, test_per_attractor=500),
        ),
    ),
}


def gym_settings(scale: str = "default") -> dict:
    """A fresh copy of the gym's settings at ``scale`` ("smoke", "default" or "paper")."""
    if scale not in _SETTINGS:
        raise ValueError(f"unknown gym scale {scale!r}: choose one of {', '.join(_SETTINGS)}")
    return copy.deepcopy(_SETTINGS[scale])


def applicable(model: str, language: str) -> bool:
    """Does the gym run ``model`` on ``language``? Everything except the FLNN off its ground."""
    _check_names([model], GYM_MODELS, "model")
    _check_names([language], GYM_LANGUAGES, "language")
    return GYM_MODELS[model][0] != "flnn" or language in FLNN_LANGUAGES


def _check_names(names: Iterable[str], known: dict, what: str) -> list[str]:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {what}(s) {unknown}: choose from {', '.join(known)}")
    if not names:
        raise ValueError(f"no {what} given: choose from {', '.join(known)}")
    return names


def _merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key not in out and key not in ("lr", "batch_size"):
            raise ValueError(f"unknown gym setting {key!r}: known are {', '.join(out)}")
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# -- the tasks: training strings, held-out strings, and the language's own metric ---------------
@dataclass
class Task:
    language: object  # the language whose valid_next judges the held-out strings
    vocab: Vocab
    train: list
    test: list
    own: Callable  # own(model) -> float
    epochs: int
    lr: float | None = None  # None: the gym-wide setting
    batch_size: int | None = None


def _mirror_accuracy(model, vocab: Vocab, marker: str, strings: Sequence) -> float:
    """Share of the forced positions of w c w^R (every symbol after the marker, and the end)
    where the model's top prediction is the right one."""
    symbols = vocab.output_symbols
    right = []
    for s, logits in zip(strings, next_symbol_logits(model, vocab, strings)):
        targets = list(s[1:]) + [EOS]
        centre = s.index(marker)
        for t in range(centre + 1, len(s) + 1):
            right.append(symbols[int(np.argmax(logits[t]))] == targets[t - 1])
    return float(np.mean(right))


def _task(name: str, cfg: dict) -> Task:
    task = _make_task(name, cfg)
    task.lr, task.batch_size = cfg.get("lr"), cfg.get("batch_size")
    return task


def _make_task(name: str, cfg: dict) -> Task:
    if name == "anbn":
        lang = AnBn(1, 10)
        vocab = Vocab.for_language(lang)
        train = [AnBn.string(n) for n in range(1, 11)] * cfg["train_copies"]
        test = [AnBn.string(n) for n in range(11, 21)]

        def own(model):
            return anbn_generalisation(model, vocab, cfg["test_max_n"])["max_correct_n"]

        return Task(lang, vocab, train, test, own, cfg["epochs"])
    if name == "dyck":
        lang = make_language("dyck", pairs=cfg["pairs"])
        vocab = Vocab.for_language(lang)
        train = lang.sample(cfg["train"], seed=101, length=16, depth=3, method="seeds")
        pool = lang.sample(20 * cfg["test"], seed=102, length=16, method="seeds")
        test = [s for s in pool if lang.depth(s) >= 5][: cfg["test"]]

        def own(model):
            return dyck_closing_accuracy(model, lang, vocab, test)["accuracy"]

        return Task(lang, vocab, train, test, own, cfg["epochs"])
    if name == "cross_serial":
        lang = CrossSerial()
        vocab = Vocab.for_language(lang)
        train = lang.sample(cfg["train"], seed=201, max_total=7)
        test = [s for s in CrossSerial.family(10) if len(s) >= 16]  # m + n = 8, 9

        def own(model):
            return cross_serial_accuracy(model, lang, vocab, test)["accuracy"]

        return Task(lang, vocab, train, test, own, cfg["epochs"])
    if name == "palindrome":
        lang = Palindrome("ab", marker="c")
        vocab = Vocab.for_language(lang)
        train = lang.sample(cfg["train"], seed=301, min_half=1, max_half=6)
        test = lang.sample(cfg["test"], seed=302, min_half=7, max_half=9)

        def own(model):
            return _mirror_accuracy(model, vocab, lang.marker, test)

        return Task(lang, vocab, train, test, own, cfg["epochs"])
    if name == "agreement":
        train_lang, lang = Agreement(max_pps=1), Agreement(max_pps=2)
        vocab = Vocab.for_language(lang)
        train = train_lang.sample(cfg["train"], seed=401)
        examples = lang.balanced_by_attractors(cfg["test_per_attractor"], max_attractors=3,
                                               seed=402)
        test = [e.sentence for e in examples]

        def own(model):
            return agreement_accuracy(model, vocab, examples)["accuracy"]

        return Task(lang, vocab, train, test, own, cfg["epochs"])
    raise ValueError(f"unknown language {name!r}: choose from {', '.join(GYM_LANGUAGES)}")


def _build(model: str, vocab: Vocab, settings: dict, seed: int):
    kind, options = GYM_MODELS[model]
    if kind == "urn":
        return build_model(kind, vocab_size=len(vocab), n=settings["urn_n"], seed=seed, **options)
    if kind == "flnn":
        return build_model(kind, vocab_size=len(vocab), seed=seed, **options)
    return build_model(kind, vocab_size=len(vocab), hidden_size=settings["hidden"], seed=seed,
                       **options)


def run_gym(
    scale: str = "default",
    seeds: Sequence[int] = (0,),
    device=None,
    progress: bool | None = None,
    models: Iterable[str] | None = None,
    languages: Iterable[str] | None = None,
    settings: dict | None = None,
) -> list[dict]:
    """Train every model on every language (where :func:`applicable`) for every seed.

    Returns one dict per run: ``model``, ``language``, ``seed``, ``params``, ``train_seconds``,
    ``epochs``, ``final_loss`` (last training loss), ``valid_strings`` and ``valid_positions``
    (the common metric on held-out strings), ``own_metric`` (its name) and ``own`` (its value).
    ``models``/``languages`` pick subsets (ValueError naming the known ones otherwise);
    ``settings`` overrides entries of ``gym_settings(scale)`` (a language may set its own ``lr``
    and ``batch_size``), e.g.
    ``{"hidden": 8, "languages": {"dyck": {"epochs": 2}}}``. ``progress`` shows a bar over the runs.
    """
    cfg = gym_settings(scale)
    if settings:
        cfg = _merge(cfg, settings)
    model_names = _check_names(GYM_MODELS if models is None else models, GYM_MODELS, "model")
    language_names = _check_names(GYM_LANGUAGES if languages is None else languages,
                                  GYM_LANGUAGES, "language")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("give at least one seed")
    pairs = [(lang, m) for lang in language_names for m in model_names if applicable(m, lang)]
    if not pairs:
        raise ValueError(f"none of the models {model_names} applies to {language_names} "
                         f"(the FLNN runs only on {', '.join(FLNN_LANGUAGES)})")
    device = pick_device(device)
    tasks = {lang: _task(lang, cfg["languages"][lang]) for lang in language_names}
    jobs = [(lang, m, seed) for lang, m in pairs for seed in seeds]
    rows = []
    for lang_name, model_name, seed in steps(jobs, len(jobs), "gym", progress):
        task = tasks[lang_name]
        model = _build(model_name, task.vocab, cfg, seed)
        start = time.perf_counter()
        history = fit(model, task.vocab, task.train, epochs=task.epochs,
                      batch_size=task.batch_size or cfg["batch_size"],
                      lr=task.lr or cfg["lr"], seed=seed, device=device, progress=False)
        seconds = time.perf_counter() - start
        validity = next_symbol_validity(model, task.language, task.vocab, task.test)
        rows.append({
            "model": model_name, "language": lang_name, "seed": seed,
            "params": model.num_parameters(), "train_seconds": seconds,
            "epochs": task.epochs, "final_loss": history.last["train_loss"],
            "valid_strings": validity["strings"],
            "valid_positions": validity["positions"],
            "own_metric": OWN_METRICS[lang_name], "own": float(task.own(model)),
        })
    return rows


# -- the replication: one table, one heatmap, and the papers' claims checked ---------------------
#: The gym's seeds per scale (chapter 7 and ``replicate gym``).
DEFAULT_SEEDS = {"quick": 2, "paper": 5}


def _by_cell(rows: Sequence[dict]) -> dict[tuple[str, str], list[dict]]:
    cells: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        cells.setdefault((row["model"], row["language"]), []).append(row)
    return cells


def cell_means(rows: Sequence[dict]) -> dict[tuple[str, str], dict]:
    """(model, language) → mean ``valid_strings``, ``own``, ``params``, ``train_seconds`` over
    seeds, plus the seeds' ``min``/``max`` of ``valid_strings`` and ``n`` (number of seeds)."""
    out = {}
    for key, runs in _by_cell(rows).items():
        valid = [r["valid_strings"] for r in runs]
        out[key] = {col: float(np.mean([r[col] for r in runs]))
                    for col in ("valid_strings", "own", "params", "train_seconds")}
        out[key].update(min=min(valid), max=max(valid), n=len(runs))
    return out


def _order(rows: Sequence[dict]) -> tuple[list[str], list[str]]:
    models = [m for m in GYM_MODELS if any(r["model"] == m for r in rows)]
    languages = [lang for lang in GYM_LANGUAGES if any(r["language"] == lang for r in rows)]
    return models, languages


def gym_table(rows: Sequence[dict]) -> list[dict]:
    """One row per model: "valid_strings (own metric)" per language (mean over seeds), the
    parameter counts and the total training time."""
    means = cell_means(rows)
    models, languages = _order(rows)
    table = []
    for model in models:
        line = {"model": model}
        for lang in languages:
            header = f"{lang}: valid ({OWN_METRICS[lang]})"
            if (model, lang) not in means:
                line[header] = "n/a"
                continue
            m = means[model, lang]
            own = f"{m['own']:.1f}" if lang == "anbn" else f"{m['own']:.2f}"
            line[header] = f"{m['valid_strings']:.2f} ({own})"
        params = [r["params"] for r in rows if r["model"] == model]
        line["parameters"] = (f"{min(params)}–{max(params)}" if min(params) != max(params)
                              else str(min(params)))
        line["train s"] = f"{sum(r['train_seconds'] for r in rows if r['model'] == model):.1f}"
        table.append(line)
    return table


def gym_heatmap(rows: Sequence[dict]):
    """The table's common metric as a heatmap: mean ``valid_strings`` and the seeds' range."""
    from matplotlib.figure import Figure

    means = cell_means(rows)
    models, languages = _order(rows)
    fig = Figure(figsize=(6.4, 3.6), layout="tight")
    ax = fig.subplots()
    grid = np.full((len(models), len(languages)), np.nan)
    for (i, model), (j, lang) in ((a, b) for a in enumerate(models) for b in enumerate(languages)):
        if (model, lang) not in means:
            ax.text(j, i, "n/a", ha="center", va="center", color="grey", fontsize=8)
            continue
        m = means[model, lang]
        grid[i, j] = m["valid_strings"]
        ax.text(j, i, f"{m['valid_strings']:.2f}\n{m['min']:.2f}–{m['max']:.2f}", ha="center",
                va="center", color="black" if grid[i, j] > 0.6 else "white", fontsize=7)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(languages)), languages, rotation=20)
    ax.set_yticks(range(len(models)), models)
    ax.set_xlabel("language (tested on longer / deeper strings)")
    ax.set_ylabel("model")
    fig.colorbar(image, ax=ax, label="valid_strings")
    ax.set_title("Share of held-out strings predicted validly throughout", fontsize=9)
    return fig


def _close_call(difference: float, margin: float) -> str:
    """"agrees" when the claimed winner leads by more than ``margin``, "differs" when it trails
    by more; otherwise too close to call with these seeds."""
    if abs(difference) <= margin:
        return f"too close to call (difference {difference:+.2f})"
    return "agrees" if difference > 0 else "differs"


def gym_claims(rows: Sequence[dict]) -> list[Row]:
    """The papers' claims about which model wins, checked against the gym's runs (needs every
    model on every language; a claim whose cells are missing is left out)."""
    means = cell_means(rows)

    def m(model, lang):
        return means[model, lang]["own"]

    def has(*cells):
        return all(cell in means for cell in cells)

    claims = []
    if has(("LSTM", "anbn")) and len({k for k in means if k[1] == "anbn"}) > 1:
        best = max((k[0] for k in means if k[1] == "anbn"), key=lambda k: m(k, "anbn"))
        rival = max(m(k[0], "anbn") for k in means if k[1] == "anbn" and k[0] != "LSTM")
        claims.append(Row(
            "for counting (a^n b^n), the LSTM works best (max_correct_n)",
            "Levy 2023 lecture (ch. 3)",
            f"best: {best} ({m(best, 'anbn'):.1f}); LSTM {m('LSTM', 'anbn'):.1f}",
            _close_call(m("LSTM", "anbn") - rival, margin=1.0)))
    if has(("LSTM", "cross_serial"), ("URN", "cross_serial")):
        lstm, urn = m("LSTM", "cross_serial"), m("URN", "cross_serial")
        claims.append(Row(
            "both URN and LSTM struggle on longer cross-serial strings; the LSTM does better",
            "Bernardy & Lappin 2023 (ch. 6)", f"LSTM {lstm:.2f}, URN {urn:.2f}",
            "agrees" if lstm > urn and lstm < 0.8 else "differs"))
    if has(("LSTM", "dyck"), ("URN", "dyck")):
        claims.append(Row(
            "the URN closes Dyck brackets better than the LSTM (deeper strings)",
            "Bernardy & Lappin 2023 (ch. 6)",
            f"URN {m('URN', 'dyck'):.2f}, LSTM {m('LSTM', 'dyck'):.2f}",
            _close_call(m("URN", "dyck") - m("LSTM", "dyck"), margin=0.05)))
    if has(("LSTM", "agreement"), ("DRNN", "agreement")):
        drnn, lstm = m("DRNN", "agreement"), m("LSTM", "agreement")
        verdict = ("agrees" if abs(drnn - lstm) < 0.05 else "differs") if max(drnn, lstm) > 0.6 \
            else "not testable here: both near chance (0.5)"
        claims.append(Row("the Decay RNN agrees about as well as the LSTM",
                          "Bhatt et al. 2020 (ch. 4)", f"DRNN {drnn:.2f}, LSTM {lstm:.2f}",
                          verdict))
    if has(("FLNN", "anbn"), ("FLNN", "palindrome")):
        claims.append(Row(
            "the FLNN learns a context-free grammar (99.4% correct on Grammar 1's test set)",
            "Tabor 2011, Table 4 (ch. 5)",
            f"a^n b^n max_correct_n {m('FLNN', 'anbn'):.1f}; palindrome mirror accuracy "
            f"{m('FLNN', 'palindrome'):.2f} (with an end marker)",
            "agrees" if m("FLNN", "anbn") >= 10 else "differs"))
    return claims


def run(scale: str = "quick", seeds=None, device=None, progress: bool | None = None,
        settings: dict | None = None, models: Iterable[str] | None = None,
        languages: Iterable[str] | None = None) -> Replication:
    """The gym as a replication: :func:`run_gym`, then :func:`gym_table`, :func:`gym_heatmap`
    and :func:`gym_claims` (the papers' claims about which model wins, in the ``paper`` column).

    ``scale`` "quick" is the book's (``gym_settings("default")``, 2 seeds), "paper" the large one
    (5 seeds). ``numbers`` holds every run (``runs``) and the per-cell means (``cells``);
    ``artefacts["table"]`` the model × language table.
    """
    scale = normalise_scale(scale)
    seeds = seed_list(seeds, DEFAULT_SEEDS[scale])
    gym_scale = "default" if scale == "quick" else scale
    device = pick_device(device)
    with Timer() as timer:
        rows = run_gym(gym_scale, seeds=seeds, device=device, progress=progress,
                       settings=settings, models=models, languages=languages)
    cells = [{"model": k[0], "language": k[1], **v} for k, v in cell_means(rows).items()]
    settings_used = _merge(gym_settings(gym_scale), settings or {})
    return Replication(
        experiment="gym", title=EXPERIMENTS[0].title, scale=scale, seeds=seeds,
        device=str(device), settings=settings_used,
        numbers={"runs": rows, "cells": cells}, rows=gym_claims(rows),
        figures={"heatmap": gym_heatmap(rows)},
        artefacts={"table": gym_table(rows)}, seconds=timer.seconds)


EXPERIMENTS = (Experiment(
    name="gym",
    title="The syntax gym: SRN, GRU, LSTM, Decay RNN, URN and FLNN on five languages, "
          "and the papers' claims about who wins",
    chapter="07_syntax_gym", run=run),)
