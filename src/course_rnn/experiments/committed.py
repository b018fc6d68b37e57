"""Committed runs: replications run once at a larger scale and kept in the repository.

A chapter runs its experiment live at the book's scale; the papers' scale takes from minutes to
an hour of a 2-core CPU, so the book never retrains it. ``benchmarks/paper_scale.py`` runs the
very command a reader would type (``python -m course_rnn replicate NAME --scale paper``) and keeps
its output folder under ``benchmarks/results/replications/NAME-paper/`` with a
``provenance.json``: the command, the commit it ran, when, on what machine, the wall and CPU time
and torch's version. This module reads such a folder back:

    >>> run = load("tabor-table4")                       # doctest: +SKIP
    >>> print(run.provenance_line())                     # where the numbers come from
    >>> print(compare_scales(live_replication, run))     # the two scales' verdicts side by side

The tests (``tests/test_committed_runs.py``) check every committed folder: its settings parse
as the experiment's current settings, its ``table.md`` is what :func:`report_markdown` makes of
its ``results.json``, and the commit it names exists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..analysis.report import markdown_table
from .replication import Replication, report_markdown

#: Where the committed runs live in a checkout of the repository.
CHECKOUT_RUNS = Path(__file__).resolve().parents[3] / "benchmarks" / "results" / "replications"
#: Their copy in an installed package (a wheel has no benchmarks/: setup.py copies them here).
PACKAGED_RUNS = Path(__file__).resolve().parent / "committed_runs"
#: Where the chapters read them: the checkout's folder, or else the installed copy.
RUNS = CHECKOUT_RUNS if CHECKOUT_RUNS.is_dir() else PACKAGED_RUNS
#: What a committed folder must hold.
FILES = ("results.json", "table.md", "provenance.json")


@dataclass(frozen=True)
class CommittedRun:
    """One committed folder: its ``results.json`` and ``provenance.json``, as dicts."""

    folder: Path
    results: dict
    provenance: dict

    @property
    def experiment(self) -> str:
        return self.results["experiment"]

    @property
    def scale(self) -> str:
        return self.results["scale"]

    @property
    def rows(self) -> list[dict]:
        """The paper-vs-ours table, a dict per row (quantity, paper, ours, verdict, note)."""
        return self.results["table"]

    def table(self) -> str:
        """``table.md`` recomputed from ``results.json``."""
        return report_markdown(self.results)

    def saved_table(self) -> str:
        return (self.folder / "table.md").read_text()

    def provenance_line(self) -> str:
        """Where the numbers come from, in one sentence of Markdown."""
        p = self.provenance
        changed = p.get("changed_files")
        tree = ("" if p.get("working_tree_clean", True) else
                f" (with uncommitted changes to {', '.join(f'`{f}`' for f in changed)})"
                if changed else " (with uncommitted changes)")
        return (f"Committed run of `{p['command']}` at commit `{p['commit'][:10]}`{tree}, "
                f"started {p['started']} on {p['device']} ({p['machine']}): "
                f"{_duration(p['wall_s'])} wall, {_duration(p['cpu_s'])} CPU, "
                f"torch {p['torch']}; saved in `{_shown(self.folder)}`.")

    def settings_differences(self, current: Mapping) -> dict[str, tuple]:
        """Settings whose saved value differs from ``current`` (a scale's ``to_json()``):
        name → (saved, current)."""
        saved = self.results["settings"]
        return {k: (saved.get(k), current[k]) for k in current if saved.get(k) != current[k]}


def load(name: str, scale: str = "paper", root: str | Path = RUNS) -> CommittedRun:
    """The committed run of experiment ``name`` at ``scale`` (folder ``NAME-SCALE`` in
    ``root``); FileNotFoundError naming what is missing and how to make it."""
    folder = Path(root) / f"{name}-{scale}"
    option = "" if scale == "paper" else f" --scale {scale}"
    return read(folder, hint=f"run `python benchmarks/paper_scale.py {name}{option}` to make it")


def read(folder: str | Path, hint: str = "") -> CommittedRun:
    """The committed run saved in ``folder``."""
    folder = Path(folder)
    missing = [f for f in FILES if not (folder / f).is_file()]
    if missing:
        raise FileNotFoundError(f"no committed run in {folder}: {', '.join(missing)} missing"
                                + (f"; {hint}" if hint else ""))
    results = json.loads((folder / "results.json").read_text())
    provenance = json.loads((folder / "provenance.json").read_text())
    if provenance.get("returncode") != 0:
        raise ValueError(f"the run in {folder} failed (exit {provenance.get('returncode')}): "
                         "its numbers are not a result")
    return CommittedRun(folder, results, provenance)


def available(root: str | Path = RUNS) -> list[CommittedRun]:
    """Every committed run under ``root`` (folders with a ``provenance.json``), by name."""
    return [read(p.parent) for p in sorted(Path(root).glob("*/provenance.json"))]


def compare_scales(live: Replication, committed: CommittedRun) -> str:
    """The live run's table and the committed run's side by side, one row per quantity (rows
    found at one scale only say so), and whether the two scales reach the same verdict."""
    rows = []
    for quantity, here, there in _paired(live, committed):
        rows.append({
            "quantity": quantity,
            "paper": (here or there)["paper"],
            f"ours, {live.scale} (this run)": here["ours"] if here else "—",
            "verdict": (here or {}).get("verdict") or "—",
            f"ours, {committed.scale} (committed)": there["ours"] if there else "—",
            "verdict, committed": (there or {}).get("verdict") or "—",
            "the two scales": AGREEMENT_LABELS[_agreement(here, there)],
        })
    return markdown_table(rows)


def scale_agreement(live: Replication, committed: CommittedRun) -> dict[str, list[str]]:
    """The quantities whose verdicts are the same at both scales (``"same"``), differ
    (``"different"``), or are found at one scale only (``"one scale"``); rows without a verdict
    at either scale are left out."""
    found = {"same": [], "different": [], "one scale": []}
    for quantity, here, there in _paired(live, committed):
        if not (here or {}).get("verdict") and not (there or {}).get("verdict"):
            continue
        key = _agreement(here, there)
        if key:
            found[key].append(quantity)
    return found


def agreement_markdown(live: Replication, committed: CommittedRun) -> str:
    """:func:`scale_agreement` in words: how many judged rows reach the same verdict at both
    scales, and each row that does not (with both verdicts) or is found at one scale only."""
    found = scale_agreement(live, committed)
    verdicts = {q: (h and h["verdict"], t and t["verdict"]) for q, h, t in _paired(live, committed)}
    judged = sum(map(len, found.values()))
    parts = [f"Of {judged} judged rows, **{len(found['same'])}** reach the same verdict in this "
             f"run ({live.scale} scale) and in the committed run ({committed.scale} scale)."]
    if found["different"]:
        parts.append("Different verdicts (this run → committed run):\n" + "\n".join(
            f"- {q}: {verdicts[q][0] or '—'} → {verdicts[q][1] or '—'}"
            for q in found["different"]))
    if found["one scale"]:
        parts.append("Found at one scale only: " + "; ".join(found["one scale"]) + ".")
    return "\n\n".join(parts)


def _paired(live: Replication, committed: CommittedRun):
    here = {r.quantity: vars(r) for r in live.rows}
    there = {r["quantity"]: r for r in committed.rows}
    for quantity in [*here, *(q for q in there if q not in here)]:
        yield quantity, here.get(quantity), there.get(quantity)


#: How :func:`compare_scales` words each outcome of :func:`_agreement`.
AGREEMENT_LABELS = {"same": "same verdict", "different": "different verdicts",
                    "one scale": "one scale only", None: "—"}


def _agreement(here: dict | None, there: dict | None) -> str | None:
    """"same" or "different" verdicts at the two scales, "one scale" (a row found in one run
    only), or None (neither row has a verdict)."""
    if here is None or there is None:
        return "one scale"
    if not here["verdict"] and not there["verdict"]:
        return None
    return "same" if here["verdict"] == there["verdict"] else "different"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _shown(folder: Path) -> str:
    """``folder`` relative to the repository when it is inside it."""
    try:
        return str(folder.resolve().relative_to(RUNS.parents[2]))
    except ValueError:
        return str(folder)
