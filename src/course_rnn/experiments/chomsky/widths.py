"""Chapter 8's question about room: does reversal break later in a larger state?

Two numbers frame it. **The counting bound**: after reading a prefix of length n over k symbols
a reverser must tell all k^n prefixes apart (each needs another output), and a state of d
numbers of b bits takes at most 2^(b·d) values, so reversal must break by n = b·d / log2 k
(:func:`counting_bound`). **The break point of trained networks**: the committed runs
:data:`WIDTH_RUNS` (``replicate chomsky --scale quick --set tasks=reverse_string --set
hidden_size=W --set seeds=5``, one folder per width W) train every network at the page's scale
until it has fitted or stalled, and test it at every length; :func:`reach` is how far a run
keeps ``LEVEL`` of the output symbols right. :func:`width_cells` sums the runs per network and
width, :func:`widths_figure` draws accuracy against length, :func:`widths_caption` says what
the runs show. Nothing here trains: it reads the committed files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...checks import check_integer
from .. import committed

#: The committed runs of reverse string at the page's scale, one per state size (folders of
#: benchmarks/results/replications), smallest first.
WIDTH_RUNS = ("chomsky-width16", "chomsky-width64", "chomsky-width256")
#: A run "reaches" a length while at least this share of the output symbols is right there.
LEVEL = 0.9
#: The networks the figure compares (the runs hold the URN and the Stack-RNN too).
SHOWN = ("SRN", "LSTM")


def counting_bound(hidden_size: int, bits: int = 32, symbols: int = 2) -> int:
    """The longest string a state of ``hidden_size`` numbers of ``bits`` bits could reverse at
    most: it must tell the ``symbols`` ** n prefixes of length n apart, and takes at most
    2 ** (bits · hidden_size) values, so n ≤ bits · hidden_size / log2(symbols)."""
    hidden_size = check_integer(hidden_size, "hidden_size")
    bits = check_integer(bits, "bits", maximum=1024)
    symbols = check_integer(symbols, "symbols", minimum=2)
    return math.floor(bits * hidden_size / math.log2(symbols))


def load(names: Sequence[str] = WIDTH_RUNS) -> list[committed.CommittedRun]:
    """The committed width runs, in the order of ``names``."""
    return [committed.read(committed.RUNS / name, hint="made by benchmarks/paper_scale.py "
                           "chomsky --scale quick --set tasks=reverse_string --set hidden_size=W "
                           "--set seeds=5 --folder chomsky-widthW") for name in names]


def reach(lengths: Sequence[int], accuracy: Sequence[float], level: float = LEVEL) -> int:
    """The longest length up to which the accuracy at every length is at least ``level`` (0
    when even the shortest is below it): the run breaks at the next length."""
    reached = 0
    for length, share in zip(lengths, accuracy):
        if share < level:
            break
        reached = int(length)
    return reached


@dataclass(frozen=True)
class WidthCell:
    """One network at one width over its seeds: how many ``runs``, how many ``fitted`` the
    training lengths, each run's :func:`reach` (``reaches``, by seed) and its ``median``, the
    mean accuracy at every test length (``lengths``, ``accuracy``) and the longest training
    length ``max_train_length``."""

    model: str
    hidden_size: int
    runs: int
    fitted: int
    reaches: tuple[int, ...]
    median: float
    lengths: tuple[int, ...]
    accuracy: tuple[float, ...]
    max_train_length: int


def width_cells(runs: Sequence[committed.CommittedRun], models: Sequence[str] = SHOWN
                ) -> list[WidthCell]:
    """Every (network, width) of the committed ``runs``, network by network, widths in the
    runs' order."""
    cells = []
    for model in models:
        for run in runs:
            mine = [r for r in run.results["numbers"]["runs"]
                    if r["task"] == "reverse_string" and r["model"] == model]
            if not mine:
                raise ValueError(f"{run.folder.name} has no reverse-string run of {model}")
            reaches = tuple(reach(r["lengths"], r["accuracy"]) for r in mine)
            cells.append(WidthCell(
                model, run.results["settings"]["hidden_size"], len(mine),
                sum(r["status"] == "fitted" for r in mine), reaches, float(np.median(reaches)),
                tuple(mine[0]["lengths"]), tuple(np.mean([r["accuracy"] for r in mine], axis=0)),
                run.results["settings"]["max_train_length"]))
    return cells


def widths_figure(runs: Sequence[committed.CommittedRun], models: Sequence[str] = SHOWN):
    """Accuracy against test length, one panel per network, one colour per width: every run
    thin, the mean over seeds thick; dashed, the longest training length; dotted, ``LEVEL``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.2 * len(models), 3.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(models), sharey=True))
    cells = width_cells(runs, models)
    for ax, model in zip(axes, models):
        for i, (run, cell) in enumerate(zip(runs, [c for c in cells if c.model == model])):
            for r in run.results["numbers"]["runs"]:
                if r["task"] == "reverse_string" and r["model"] == model:
                    ax.plot(r["lengths"], r["accuracy"], color=f"C{i}", lw=0.6, alpha=0.35)
            ax.plot(cell.lengths, cell.accuracy, color=f"C{i}", lw=2,
                    label=f"{cell.hidden_size} units ({cell.fitted}/{cell.runs} fitted)")
        ax.axvline(cells[0].max_train_length, color="grey", ls="--", lw=1)
        ax.axhline(LEVEL, color="grey", ls=":", lw=1)
        ax.set_title(f"{model}: reverse string", fontsize=10)
        ax.set_xlabel("string length", fontsize=9)
        ax.set_ylim(0.4, 1.02)
        ax.legend(fontsize=7, loc="lower left")
    axes[0].set_ylabel("output symbols right")
    return fig


def widths_caption(runs: Sequence[committed.CommittedRun], models: Sequence[str] = SHOWN,
                   bits: int = 32) -> str:
    """What the width runs show, in sentences: per network, the median reach at each width and
    how its runs ended, and the counting bound of each width beside them."""
    cells = width_cells(runs, models)
    first = runs[0].results
    widths = [c.hidden_size for c in cells if c.model == models[0]]
    n = first["settings"]["max_train_length"]
    level = f"{LEVEL * 100:.0f} %"
    text = [f"Reversal against length: {len(first['seeds'])} seeds per network and width, "
            f"trained on lengths ≤ {n} until each run fitted or stalled, tested to length "
            f"{first['settings']['max_test_length']} (committed runs; thin lines single runs, "
            f"thick their mean, dashed the longest training length, dotted {level})."]
    for model in models:
        mine = [c for c in cells if c.model == model]
        endings = [ending(run, model) for run in runs]
        if all(set(e) <= {"fitted", "stalled"} for e in endings):
            others = ", the others stalled below 99 %"
        else:
            others = " (" + "; ".join(", ".join(f"{k} {v}" for k, v in e.items())
                                      for e in endings) + ")"
        text.append(f"The {model} keeps at least {level} of the output symbols right up to "
                    f"length {_listed(_median(c.median) for c in mine)} (the median of its "
                    f"runs) with {_listed(widths)} units; of its {mine[0].runs} runs at each "
                    f"width, {_listed(c.fitted for c in mine)} fitted the training "
                    f"lengths{others}.")
    text.append(f"The counting bound of a state of {bits}-bit numbers at these widths: "
                f"{_listed(f'{counting_bound(w, bits):,}' for w in widths)} symbols.")
    return " ".join(text)


def fitted_reach(runs: Sequence[committed.CommittedRun], models: Sequence[str] = SHOWN
                 ) -> tuple[int, int]:
    """The shortest and the longest :func:`reach` of the runs of ``models`` that fitted the
    training lengths, over every width."""
    reaches = [reach(r["lengths"], r["accuracy"]) for run in runs
               for r in run.results["numbers"]["runs"] if r["task"] == "reverse_string"
               and r["model"] in models and r["status"] == "fitted"]
    return min(reaches), max(reaches)


def stack_rnn_line(runs: Sequence[committed.CommittedRun]) -> str:
    """The fitted SRN and LSTM runs' reach over every width, and beside it the Stack-RNN's runs
    at the same widths (how many fitted, the range of their reach): the contrast."""
    cells = width_cells(runs, ("Stack-RNN",))
    low, high = fitted_reach(runs, ("SRN", "LSTM"))
    level = f"{LEVEL * 100:.0f} %"
    return (f"Every SRN and LSTM run that fitted, at any width, keeps {level} up to length "
            f"{low}" + ("" if low == high else f" to {high}") + ". The Stack-RNN's runs, with "
            f"controllers of the same widths: {_listed(c.fitted for c in cells)} of "
            f"{cells[0].runs} fitted, and they keep {level} up to length "
            f"{_listed(_span(c.reaches) for c in cells)}.")


def _span(values: Sequence[int]) -> str:
    return f"{min(values)}" if min(values) == max(values) else f"{min(values)}–{max(values)}"


#: The words of the width runs committed before session 26, whose first runs' plateau below
#: ``fitted`` was called "stuck" (continuing had not confirmed it: :func:`~course_rnn.
#: experiments.chomsky.run_status` now says "stalled") and whose cap was "budget spent".
LEGACY_WORDS = {"stuck": "stalled", "budget spent": "ran out of steps"}


def ending(run: committed.CommittedRun, model: str) -> dict[str, int]:
    """How the reverse-string runs of ``model`` in ``run`` ended: status → count (older runs'
    words read as today's, :data:`LEGACY_WORDS`: these are first runs, never continued)."""
    statuses = [LEGACY_WORDS.get(r["status"], r["status"]) for r in run.results["numbers"]["runs"]
                if r["task"] == "reverse_string" and r["model"] == model]
    return {s: statuses.count(s) for s in dict.fromkeys(statuses)}


def _median(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def _listed(items) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
