"""What every replication shares: scales, seeds, a progress bar, and one result that saves itself.

A replication is a function ``run(scale, seeds, device, progress) -> Replication``. The chapter
calls it at the book's scale and shows what comes back; ``python -m course_rnn replicate NAME``
calls the very same function and saves what comes back into a folder:

* ``results.json`` – every number measured (``numbers``), the settings, seeds, device and time,
  the machine, and the run's ``provenance`` (:mod:`.provenance`: the package's version and git
  commit, the command line, when, and every setting changed from the scale's own);
* ``table.md`` – the paper-vs-ours table (one :class:`Row` per compared figure) under a heading
  that says how the run was made (a run with changed settings is labelled so);
* ``<figure>.png`` – each figure.

Scales: ``"quick"`` is what the book runs (a few minutes at most on a laptop CPU; the chapters
call it the same); ``"paper"`` is the paper's own size, meant for a GPU.

**Verdicts wait for convergence.** A row of the paper-vs-ours table says ``agrees``, ``differs``,
``budget-limited``, ``not converged`` or ``not comparable``, and :func:`judge` decides which from
the numbers: a comparison is only made between runs that met their convergence criterion
(:mod:`course_rnn.training.convergence`), and a disagreement counts as ``differs`` only if it
survives training the deciding runs to twice their budget; when the doubled budget closes more
than half of the gap, the verdict is ``budget-limited``. Both budgets' figures are kept in the
row's ``evidence`` (saved in results.json).
"""

from __future__ import annotations

import json
import math
import platform
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from ..analysis.report import markdown_table
from ..training import History, converged, tally
from ..utils import machine_facts
from .output import check_output_folder
from .provenance import KEYS as PROVENANCE_KEYS
from .provenance import provenance as make_provenance
from .settings import SCALES as SCALES  # the scales: settings.py
from .settings import normalise_scale as normalise_scale
from .settings import seed_list as seed_list  # light: the settings of tabor-table4 use it

if TYPE_CHECKING:
    from .records import Record
    from .settings import Scales, Settings


def pm(mean: float, se: float | None = None, digits: int = 3) -> str:
    """``"m ± se"`` (just ``"m"`` when the SE is missing or NaN)."""
    if se is None or (isinstance(se, float) and math.isnan(se)):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


#: What one row of a paper-vs-ours table concludes (see :func:`judge`).
#: How the experiments name a run continued to twice its budget in ``Replication.runs``:
#: "3-TURN seed 0 (2× budget)", "LSTM seed 3 (twice the budget)".
CONTINUED = re.compile(r"\((?:2× budget|twice the budget)\)$")
VERDICTS = ("agrees", "differs", "budget-limited", "not converged", "not comparable")


@dataclass
class Measurement:
    """One of our figures set against the paper's.

    ``value``: our figure; ``agrees``: whether it agrees with the paper by the row's rule;
    ``gap``: how far it is from agreeing (≥ 0, in the figure's own units; 0 when it agrees);
    ``runs``: the training runs behind it (histories, Convergence records or booleans).
    """

    value: float
    agrees: bool
    gap: float
    runs: Sequence = ()

    def __post_init__(self):
        if isinstance(self.gap, bool) or not isinstance(self.gap, (int, float, np.number)) \
                or not self.gap >= 0:
            raise ValueError(f"gap must be a number ≥ 0, got {self.gap!r}")
        self.runs = list(self.runs)

    @property
    def converged(self) -> bool:
        return all(converged(r) for r in self.runs)

    def unconverged(self) -> int:
        return sum(not converged(r) for r in self.runs)

    def to_json(self) -> dict:
        return {"value": _jsonable(self.value), "agrees": bool(self.agrees),
                "gap": float(self.gap), "runs": len(self.runs),
                "runs_converged": len(self.runs) - self.unconverged()}


@dataclass
class Verdict:
    """:func:`judge`'s conclusion: ``label`` (one of :data:`VERDICTS`), ``reason`` in words,
    and the measurements at the first and (when one was needed) the doubled budget."""

    label: str
    reason: str
    first: Measurement | None = None
    doubled: Measurement | None = None

    def to_json(self) -> dict:
        return {"verdict": self.label, "reason": self.reason,
                "budget_1x": self.first.to_json() if self.first else None,
                "budget_2x": self.doubled.to_json() if self.doubled else None}


def needs_twice(first: Measurement) -> bool:
    """Whether :func:`judge` needs ``first``'s deciding runs at twice the budget: every run
    converged and the figure disagrees."""
    return first.converged and not first.agrees


def twice_the_budget(first: Mapping[Any, Any], deciding: Iterable,
                     train_again: Callable[[dict, dict], Mapping],
                     epochs: Callable[[Any], float] | None = None) -> dict:
    """The ``deciding`` runs of ``first`` (keys of it) continued to twice their epochs, trained
    here, before any row is built, so that :func:`judge` reads both budgets as data.

    ``train_again(min_epochs, resume)`` trains them (together, so an experiment's worker pool can
    run them at once): ``min_epochs[key] = 2 × epochs(first[key])`` and ``resume[key] =
    first[key]``, given to :func:`~course_rnn.training.fit` with the first run's cap (fit sets
    the continued run's: twice it, and the criterion's patience past the minimum); it returns
    ``{key: continued run}``. ``epochs(run)``: the epochs the run took,
    by default the whole epochs begun (⌈ ⌉ of its History's, or its ``history``'s, convergence
    record); an experiment that doubles a fraction of an epoch passes its own. No deciding run:
    ``{}`` and nothing is trained.
    """
    epochs = epochs or _epochs_taken
    keys = list(dict.fromkeys(deciding))
    if not keys:
        return {}
    unknown = [key for key in keys if key not in first]
    if unknown:
        raise KeyError(f"twice_the_budget: no first run for {unknown}")
    min_epochs = {key: 2 * epochs(first[key]) for key in keys}
    again = dict(train_again(min_epochs, {key: first[key] for key in keys}))
    if set(again) != set(keys):
        raise ValueError(f"train_again returned runs {sorted(map(str, again))}, expected "
                         f"{sorted(map(str, keys))}")
    return {key: again[key] for key in keys}


def _epochs_taken(run) -> int:
    """The whole epochs a run (a History, or anything with a ``history``) began before it
    stopped."""
    history = run if isinstance(run, History) else getattr(run, "history", run)
    return math.ceil(history.convergence.epochs)


def judge(first: Measurement,
          doubled: Measurement | None = None) -> Verdict:
    """The verdict of one paper-vs-ours comparison.

    1. Any run behind ``first`` that did not converge: **not converged** (no comparison).
    2. ``first.agrees``: **agrees**.
    3. Otherwise ``doubled``, the same figure with the deciding runs trained to twice their
       budget (:func:`twice_the_budget`), decides: if it agrees or closes more than half of the
       gap, **budget-limited**; if the doubled runs did not converge, **not converged**; else
       **differs**.

    ``doubled`` is a :class:`Measurement`, trained before any verdict is read
    (:func:`twice_the_budget`). It is required for a disagreement: a "differs" that was never
    re-checked at a larger budget is not one (:func:`needs_twice` says when it is needed).
    """
    if not isinstance(first, Measurement):
        raise TypeError(f"judge takes a Measurement, got {type(first).__name__}")
    if doubled is not None and not isinstance(doubled, Measurement):
        raise TypeError(f"doubled must be a Measurement (the deciding runs at twice the budget, "
                        f"trained first: twice_the_budget), got {type(doubled).__name__}")
    if not first.converged:
        return Verdict("not converged", f"{first.unconverged()} of {len(first.runs)} runs did "
                                        "not meet their convergence criterion", first)
    if first.agrees:
        return Verdict("agrees", "every run converged and the figure agrees", first)
    if doubled is None:
        raise ValueError("a disagreement must be re-checked at twice the budget: pass "
                         "doubled=, the Measurement of the deciding runs trained twice as long "
                         "(twice_the_budget)")
    if doubled.agrees or doubled.gap < first.gap / 2:
        return Verdict("budget-limited", f"twice the budget moved the gap from {first.gap:.4g} "
                                         f"to {doubled.gap:.4g}", first, doubled)
    if not doubled.converged:
        return Verdict("not converged", f"at twice the budget {doubled.unconverged()} of "
                                        f"{len(doubled.runs)} runs did not converge", first,
                       doubled)
    return Verdict("differs", f"the gap persists at twice the budget ({first.gap:.4g} → "
                              f"{doubled.gap:.4g})", first, doubled)


@dataclass
class Row:
    """One line of a paper-vs-ours table.

    ``paper`` is the paper's figure as printed (say where: "99.42 ± 0.20 (Table 4)"), or "—"
    where the paper gives none; ``ours`` is what this run measured, formatted; ``verdict`` is a
    :class:`Verdict` from :func:`judge` (or one of :data:`VERDICTS`, e.g. "not comparable", or
    "" for a row that only informs); ``note`` says what differs (scale, convention) and why.
    """

    quantity: str
    paper: str
    ours: str
    note: str = ""
    verdict: str | Verdict = ""
    evidence: dict = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.verdict, Verdict):
            self.evidence = {**self.verdict.to_json(), **self.evidence}
            self.verdict = self.verdict.label
        if self.verdict not in (*VERDICTS, ""):
            raise ValueError(f"unknown verdict {self.verdict!r}: choose one of "
                             f"{', '.join(VERDICTS)} (or a Verdict from judge)")


@dataclass(frozen=True)
class Claim:
    """A row of a paper-vs-ours table written as a rule: what the paper says and how to check
    it on our numbers, so that :func:`deciding_models` and :func:`judged_rows` can judge a whole
    list of rows alike.

    ``check(numbers) -> (ours, value, agrees, gap)``: the text of the ours column, the figure,
    whether it agrees and how far it is from agreeing (≥ 0). ``agrees`` is None where the rule
    cannot tell on these numbers (agreement's distance from the LSTM when the two attractor
    mixes disagree about it): see :func:`judged_rows`. ``models``: the networks whose
    runs decide the row (their convergence gates the verdict; they are continued at twice the
    budget when the row disagrees); empty for a row that needs no training (a formula).
    ``note``: the row's note, or a function of the numbers that writes it (elman's "holds in
    2 of 3 runs only"). ``twice_note``: what the note adds when the verdict read the runs at
    twice the budget, a function of those numbers (tabor's "at twice the budget 0.12 ± 0.01").
    """

    quantity: str
    paper: str
    check: Callable[[Any], tuple[str, float, bool | None, float]]
    models: tuple[str, ...]
    note: str | Callable[[Any], str] = ""
    twice_note: Callable[[Any], str] | None = None

    def note_on(self, numbers) -> str:
        """The row's note for these numbers."""
        return self.note(numbers) if callable(self.note) else self.note


def _claimed(claims: Sequence[Claim], numbers, runs_of: Callable[[Any, tuple], list]
             ) -> dict[Claim, tuple[str, Measurement, bool]]:
    """Each claim checked on ``numbers``: claim → (the ours column, its :class:`Measurement`,
    whether the rule could tell). ``runs_of(numbers, models)``: the runs (converged or not) of
    those models behind the row."""
    measured = {}
    for claim in claims:
        ours, value, agrees, gap = claim.check(numbers)
        runs = runs_of(numbers, claim.models)
        clear = agrees is not None
        measured[claim] = (ours, Measurement(value, bool(agrees), gap if clear else 0.0, runs),
                           clear)
    return measured


def converged_by_model(numbers, models: Sequence[str]) -> list[bool]:
    """The ``runs_of`` of :func:`deciding_models` and :func:`judged_rows` for numbers that keep
    their runs by model (``numbers.runs[model]``, each run with ``converged``): whether each run
    of ``models`` converged."""
    return [bool(r.converged) for m in models for r in numbers.runs[m]]


def deciding_models(claims: Sequence[Claim | Row], numbers,
                    runs_of: Callable[[Any, tuple], list]) -> list[str]:
    """The models behind every converged row that disagrees on ``numbers`` (sorted): the ones
    whose runs :func:`twice_the_budget` continues before the rows are built. A :class:`Row`
    among the claims needs no judging and is passed over."""
    measured = _claimed([c for c in claims if isinstance(c, Claim)], numbers, runs_of)
    return sorted({m for c, (_, first, clear) in measured.items() if clear and needs_twice(first)
                   for m in c.models})


def judged_rows(claims: Sequence[Claim | Row], numbers, doubled_numbers,
                runs_of: Callable[[Any, tuple], list],
                doubled_runs_of: Callable[[Any, tuple], list] | None = None) -> list[Row]:
    """The rows of ``claims``, each judged (:func:`judge`) on ``numbers`` and, where it
    disagrees, on ``doubled_numbers``: the numbers with the runs of :func:`deciding_models`
    continued to twice their budget (None when no row needed them: a row that does raises, as
    :func:`judge` does). A :class:`Row` among the claims (one that only informs, or whose
    verdict needs no rule) is kept as it is, in its place.

    * A row with no model behind it (a formula) cannot be helped by training: its figure at
      twice the budget is its first.
    * A rule that cannot tell (its check's ``agrees`` is None) makes the row **not
      comparable**, or **not converged** while any run behind it has not converged. At twice
      the budget it counts as the gap closed: the continued runs moved the figure out of a
      clear disagreement (**budget-limited**).

    ``doubled_runs_of``: the continued runs behind a row, for numbers that do not hold their
    runs' convergence (default ``runs_of``, which reads it from the numbers given)."""
    measured = _claimed([c for c in claims if isinstance(c, Claim)], numbers, runs_of)
    rows = []
    for claim in claims:
        if isinstance(claim, Row):
            rows.append(claim)
            continue
        ours, first, clear = measured[claim]
        note = claim.note_on(numbers)
        if not clear:
            label = "not comparable" if first.converged else "not converged"
            rows.append(Row(claim.quantity, claim.paper, ours, note, verdict=label))
            continue
        second = None
        if needs_twice(first) and not claim.models:
            second = first
        elif needs_twice(first) and doubled_numbers is not None:
            _, second, clear = _claimed([claim], doubled_numbers,
                                        doubled_runs_of or runs_of)[claim]
            if not clear:
                second = Measurement(second.value, True, 0.0, second.runs)
        verdict = judge(first, second)
        if verdict.doubled is not None and claim.models and claim.twice_note:
            note = "; ".join(filter(None, (note, claim.twice_note(doubled_numbers))))
        rows.append(Row(claim.quantity, claim.paper, ours, note, verdict=verdict))
    return rows


@dataclass
class Replication:
    """What one run of an experiment returns (and what ``replicate`` saves)."""

    experiment: str
    title: str
    scale: str
    seeds: list[int]
    device: str
    settings: dict | Settings  # a Settings (typed) or a dict; saved with to_json / as it is
    numbers: dict | Record  # every measured number: a typed Record or JSON-able dicts
    rows: list[Row]  # the paper-vs-ours table
    figures: dict = field(default_factory=dict)  # name -> matplotlib Figure
    artefacts: Any = field(default_factory=dict)  # trained models etc., for the chapter; not saved
    seconds: float = float("nan")
    runs: dict[str, History] = field(default_factory=dict)  # name -> curve + convergence
    # version, commit, command, dates, overrides (see .provenance); what is missing is filled in
    # when saved (a Replication made by hand: this code, now, no command, no overrides)
    provenance: dict = field(default_factory=dict)

    def table(self) -> str:
        """The paper-vs-ours table in Markdown."""
        return rows_markdown([vars(r) for r in self.rows])

    def run_summary(self) -> str:
        """Every training run of :attr:`runs` in one sentence, for a page's main line (the line
        per run is :meth:`convergence_report`'s, for its notes): "12 runs: 11 fitted, 1 ran out
        of steps; 2 continued to twice their budget, all fitted"
        (:func:`~course_rnn.training.tally`). A run continued to twice its budget is one whose
        name ends in :data:`CONTINUED`'s marks."""
        first, again = [], []
        for name, history in self.runs.items():
            record = history.convergence
            ending = record.ending if record else "no record"
            (again if CONTINUED.search(name) else first).append(ending)
        return tally(first, again)

    def convergence_report(self) -> str:
        """One line per training run: whether it met its criterion, after how long, and why."""
        lines = []
        for name, history in self.runs.items():
            record = history.convergence
            lines.append(f"{name}: {record}" if record else f"{name}: no convergence record")
        return "\n".join(lines)

    def unconverged(self) -> list[str]:
        """The names of the runs that did not meet their convergence criterion."""
        return [name for name, h in self.runs.items() if not converged(h)]

    def markdown(self) -> str:
        """``table.md``: a heading, how it was run, and the table (what :func:`report_markdown`
        makes of :meth:`to_json`, as for a saved run)."""
        return report_markdown(self.to_json())

    def full_provenance(self) -> dict:
        """:attr:`provenance` with every key of :mod:`.provenance`, what is missing filled in
        (the package's version and commit, now)."""
        if all(key in self.provenance for key in PROVENANCE_KEYS):
            return dict(self.provenance)
        return {**make_provenance(), **self.provenance}

    def unrecorded(self) -> list[str]:
        """Figures printed in the ``ours`` column that appear nowhere in ``numbers``, at their
        printed precision (as a fraction or as a percentage); empty when the table is backed.

        A reader of results.json can recompute every figure of our column; the tests check it.
        """
        recorded = [abs(v) for v in _flat_numbers(_jsonable(self.numbers)) if math.isfinite(v)]
        missing = []
        for row in self.rows:
            for token in _NUMBER.findall(row.ours):
                value = float(token.replace(",", ""))
                digits = len(token.split(".")[1]) if "." in token else 0
                tolerance = 0.5 * 10 ** -digits + 1e-9
                if not any(abs(v - value) <= tolerance or abs(100 * v - value) <= tolerance
                           for v in recorded):
                    missing.append(f"{row.quantity}: {token}")
        return missing

    def to_json(self) -> dict:
        """Everything ``results.json`` holds, as strict JSON (NaN and infinities become null)."""
        return _jsonable({
            "experiment": self.experiment, "title": self.title, "scale": self.scale,
            "seeds": self.seeds, "device": self.device, "seconds": self.seconds,
            "settings": self.settings, "numbers": self.numbers,
            "table": [vars(r) for r in self.rows], "figures": sorted(self.figures),
            "runs": {name: h.to_json(max_points=100) for name, h in self.runs.items()},
            "torch": torch.__version__, "python": platform.python_version(),
            "machine": machine_facts(), "provenance": self.full_provenance(),
        })

    def save(self, out: str | Path, overwrite: bool = False) -> dict[str, Path]:
        """Write results.json, table.md and one PNG per figure into ``out``; return the paths.

        An existing ``results.json`` there is never replaced unless ``overwrite`` is True.
        """
        out = check_output_folder(out, overwrite)
        record = self.to_json()
        text = json.dumps(record, indent=1, allow_nan=False) + "\n"  # before writing
        out.mkdir(parents=True, exist_ok=True)
        paths = {"json": out / "results.json", "table": out / "table.md"}
        paths["json"].write_text(text)
        paths["table"].write_text(report_markdown(record))
        for name, figure in self.figures.items():
            paths[name] = out / f"{name}.png"
            figure.savefig(paths[name], dpi=120, bbox_inches="tight")
        return paths


#: The columns of a paper-vs-ours table, in order.
TABLE_COLUMNS = ("quantity", "paper", "ours", "verdict", "note")


def rows_markdown(rows: Sequence[Mapping]) -> str:
    """Table rows (dicts with :data:`TABLE_COLUMNS`) as a Markdown table."""
    return markdown_table(rows, columns=list(TABLE_COLUMNS))


def report_markdown(results: Mapping) -> str:
    """``table.md`` from what ``results.json`` holds (or the same fields of a live run): a
    heading, how it was run, and the table. A saved run's table is recomputed by this.

    A run whose results.json has a ``provenance`` (every run since version 0.1.0's provenance
    record; runs saved before have none and keep their table) also says which settings it
    changed from its scale's — "scale `quick` with overrides" — and which code made it, when,
    on what CPU and by which command."""
    seconds = results["seconds"]
    unknown = seconds is None or not math.isfinite(seconds)  # results.json saves NaN as null
    took = "time not recorded" if unknown else f"{seconds:.1f} s"
    origin = results.get("provenance")
    overrides = (origin or {}).get("overrides") or {}
    changed = " with overrides" if overrides else ""
    head = (f"# {results['title']}\n\n"
            f"Experiment `{results['experiment']}`, scale `{results['scale']}`{changed}, seeds "
            f"{', '.join(map(str, results['seeds']))}{_offset_words(results)}, device "
            f"`{results['device']}`, "
            f"{took}.\n\n")
    if origin is not None:
        head += _provenance_words(origin, overrides, results.get("machine") or {},
                                  results["scale"])
    return head + rows_markdown(results["table"]) + "\n"


def _provenance_words(origin: Mapping, overrides: Mapping, machine: Mapping, scale: str) -> str:
    """The lines of ``table.md`` under its first: the changed settings (how they were given),
    and the version, commit, date, machine and command behind the run."""
    words = ""
    if overrides:
        how = "`--set`" if origin.get("command") else "`settings=`"
        changes = ", ".join(f"`{key}={json.dumps(value, separators=(',', ':'))}`"
                            for key, value in overrides.items())
        words += f"Settings changed from the `{scale}` scale's with {how}: {changes}.\n\n"
    commit = origin.get("commit")
    code = f"course_rnn {origin.get('course_rnn') or '(version not recorded)'}"
    if commit:
        code += f", commit `{commit[:12]}`"
        if origin.get("uncommitted_changes"):
            code += " with uncommitted changes"
    else:
        code += ", not from a git checkout"
    when = next((f", {key} {origin[key]}" for key in ("started", "finished") if origin.get(key)),
                "")
    cpu = machine.get("cpu")
    where = (f" on {cpu} (kernels {machine.get('kernel_capability')}, torch "
             f"{machine.get('torch')})") if cpu else ""
    words += f"Made by {code}{when}{where}"
    command = origin.get("command")
    words += f", by `{command}`.\n\n" if command else ", from Python.\n\n"
    return words


def _offset_words(results: Mapping) -> str:
    """" (seed offset N)" when the run was made with ``$COURSE_RNN_SEED_OFFSET`` = N > 0."""
    offset = (results.get("machine") or {}).get("seed_offset")
    return f" (seed offset {offset})" if offset else ""


# A printed number: 12,345.6 (thousands separated) or 12.5; signs and units are ignored.
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _flat_numbers(value) -> list[float]:
    """Every number inside nested dicts and lists (booleans left out)."""
    if isinstance(value, Mapping):
        return [x for v in value.values() for x in _flat_numbers(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat_numbers(v)]
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return [float(value)]
    return []


def _jsonable(value):
    """Numbers, strings, lists and dicts only: numpy and torch values become plain Python, and a
    NaN or infinite number becomes None (``null``), so that results.json is strict JSON."""
    if hasattr(value, "to_json") and not isinstance(value, type):  # Settings, typed records
        return _jsonable(value.to_json())
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, torch.Tensor):
        return _jsonable(value.detach().cpu().tolist())
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.device):
        return str(value)
    raise TypeError(f"cannot save a {type(value).__name__} in results.json: {value!r:.80}")


class Timer:
    """``with Timer() as t: ...`` then ``t.seconds``."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


@dataclass(frozen=True)
class Experiment:
    """A named replication: what ``replicate --help`` lists and what it runs."""

    name: str  # the CLI name, e.g. "tabor-table4"
    title: str  # one line: what it replicates, e.g. "Tabor (2011), Table 4: FLNN on Grammars 1-2"
    chapter: str  # the chapter that shows it, e.g. "05_dynamical_automata"
    run: Callable[..., Replication]  # run(scale=, seeds=, device=, progress=) -> Replication
    settings: Scales | None = None  # typed settings per scale (None: a dict of dicts)

    @classmethod
    def of(cls, settings: Scales, run: Callable[..., Replication]) -> Experiment:
        """The experiment whose name, title and chapter its ``settings`` declare."""
        kind = settings.kind
        return cls(name=kind.experiment, title=kind.title, chapter=kind.chapter, run=run,
                   settings=settings)
