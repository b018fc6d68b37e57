"""Tabor's Table 4 and the paper-vs-ours table of ``tabor-table4``: the paper's figures, the
measurements behind each row's verdict, which runs to train twice as long, and the tables."""

from __future__ import annotations

import math

from ..records import mean_se
from ..replication import Measurement, Replication, Row, judge, needs_twice, pm
from .compute import TrainedRun, learned, successful
from .results import Spread, TaborNumbers

#: Tabor (2011), Table 4, successful runs only (100% correct on the training corpus):
#: (grammar, corpus) -> (RMSE, SE, % correct, SE, N networks, N points).
PAPER_TABLE4 = {
    (1, "train"): (0.013, 0.001, 100.000, 0.000, 9, 129),
    (1, "test"): (0.048, 0.005, 99.424, 0.195, 9, 4755),
    (2, "train"): (0.008, 0.000, 100.000, 0.000, 11, 276),
    (2, "test"): (0.022, 0.001, 99.900, 0.022, 11, 15232),
}
#: §3.3: networks (of 15 per grammar) whose hill climbing learned the training corpus.
PAPER_LEARNED = {1: (9, 15), 2: (11, 15)}
#: Groups compared with Table 4 (the paper's convention, the learning rates of the library).
COMPARED = ("HC G1 stream", "G1 stream", "HC G2 stream", "G2 stream")


def compare(runs: list[TrainedRun], corpus: str, key: str, paper: float, paper_se: float,
            digits: int) -> Measurement:
    """Our mean over the successful runs against the paper's figure: it agrees within two
    combined standard errors (plus half a unit of the printed precision); ``gap``: how far
    outside that band."""
    mean, se = mean_se([r.scores(corpus)[key] for r in successful(runs)])
    band = 2 * math.hypot(paper_se, 0.0 if math.isnan(se) else se) + 0.5 * 10 ** -digits
    distance = abs(mean - paper)
    return Measurement(mean, distance <= band, max(0.0, distance - band),
                       runs=[r.history for r in runs])


def top_level(runs: list[TrainedRun], spreads: list[Spread]) -> Measurement:
    """Figure 4b: the top level (ε) is the most distorted in every run (``spreads``: the
    runs' :class:`~.results.Spread`)."""
    k = sum(s.top_is_max for s in spreads)
    return Measurement(k / len(runs), k == len(runs), (len(runs) - k) / len(runs),
                       runs=[r.history for r in runs])


def method(name: str) -> tuple[str, str]:
    """(how the group was trained, what the note says about it)."""
    if name.startswith("HC"):
        return ("hill climbing", "the paper's climber, until no move helps at radius 0.001 "
                                 "(after 0.02 and 0.005)")
    if "</s>" in name:
        return ("backprop, with `</s>`", "the library's end marker, which Tabor's corpus did "
                                         "not have: a different task")
    return ("backprop", "backpropagation instead of the paper's climber, stopped at the paper's "
                        "criterion (mean KL < 0.001)")


def to_double(groups: dict[str, list[TrainedRun]], spreads: dict) -> dict[str, list[TrainedRun]]:
    """The runs to train twice as long, by group: every run of a group behind a converged row
    that disagrees with the paper, and each equal-rate run that did not learn (the evidence
    that it is stuck, not slow)."""
    out = {name: groups[name] for name in groups if name in needs_doubling(groups, spreads)}
    stuck = [r for r in groups.get("G1 equal rates", []) if not learned(r)]
    if stuck:
        out["G1 equal rates"] = stuck
    return out


def needs_doubling(groups: dict[str, list[TrainedRun]], spreads: dict) -> set[str]:
    """The groups behind a converged row that disagrees with the paper."""
    out = set()
    for g in (1, 2):
        for corpus in ("train", "test"):
            rmse, rmse_se, pc, pc_se, _, _ = PAPER_TABLE4[(g, corpus)]
            for name in (f"HC G{g} stream", f"G{g} stream"):
                for key, paper, se, digits in (("rmse", rmse, rmse_se, 3),
                                               ("percent_correct", pc, pc_se, 2)):
                    if not groups.get(name):
                        continue
                    m = compare(groups[name], corpus, key, paper, se, digits)
                    if needs_twice(m):
                        out.add(name)
    for name, spread_ in spreads.items():
        m = top_level(groups[name], spread_)
        if needs_twice(m):
            out.add(name)
    return out


def table_rows(groups: dict[str, list[TrainedRun]], doubled: dict[str, list[TrainedRun]],
               numbers: TaborNumbers) -> list[Row]:
    """The paper-vs-ours table: Table 4's RMSE and % correct per grammar and corpus for each
    group (the climber first), the runs that learned their training corpus, the collapsed
    equal-rate runs, and Figure 4b's distortion."""
    rows = []
    for g in (1, 2):
        for corpus in ("train", "test"):
            rmse, rmse_se, pc, pc_se, n, _ = PAPER_TABLE4[(g, corpus)]
            for key, digits, paper, paper_se in (("rmse", 3, rmse, rmse_se),
                                                 ("percent_correct", 2, pc, pc_se)):
                label = "RMSE" if key == "rmse" else "% correct"
                for name in (f"HC G{g} stream", f"G{g} stream", f"G{g} with </s>"):
                    if not groups.get(name) or ("</s>" in name and corpus == "train"):
                        continue  # with </s>: the test corpus is enough to show the cost
                    how, note = method(name)
                    stats = numbers.summary[name].corpus(corpus)
                    quantity = f"G{g} {corpus} {label}, {how}"
                    paper_text = f"{pm(paper, paper_se)} (Table 4, N = {n})"
                    ours = f"{pm(*getattr(stats, key), digits)} (N = {stats.n}" + \
                        ("" if stats.learned else ", none learned the training corpus") + ")"
                    if "</s>" in name:
                        rows.append(Row(quantity, paper_text, ours, note, "not comparable"))
                        continue
                    if stats.n == 1:
                        note += "; one run, so our standard error is unknown"
                    first = compare(groups[name], corpus, key, paper, paper_se, digits)
                    again = (compare(doubled[name], corpus, key, paper, paper_se, digits)
                             if needs_twice(first) else None)  # trained before: to_double
                    verdict = judge(first, again)
                    if verdict.doubled is not None:
                        twice = numbers.doubled_summary[name].corpus(corpus)
                        note += f"; at twice the budget {pm(*getattr(twice, key), digits)}"
                    rows.append(Row(quantity, paper_text, ours, note, verdict))
    for name, group in groups.items():
        if name == "G1 equal rates" or not group:
            continue
        k, n = numbers.learned_training_set[name], len(group)
        g = 2 if "G2" in name else 1
        paper_k, paper_n = PAPER_LEARNED[g]
        rows.append(Row(
            quantity=f"G{g} runs with 100% on the training corpus, {method(name)[0]}",
            paper=f"{paper_k}/{paper_n} (§3.3, hill climbing)", ours=f"{k}/{n}",
            note="too few runs to compare a success rate" if n < 10 else
            ("the same climber" if name.startswith("HC") else "a different trainer")))
    if groups.get("G1 equal rates"):
        k, n = numbers.collapsed["G1 equal rates"], len(groups["G1 equal rates"])
        note = ("why the library trains the self-weights at 0.1× the rate: s ≈ 0 makes every "
                "word reset the state")
        stuck = numbers.doubled.get("G1 equal rates", [])
        if stuck:
            still = sum(r.collapsed and not r.learned for r in stuck)
            note += (f"; the runs that did not learn, trained twice as long: {still} of "
                     f"{len(stuck)} still collapsed and not learned")
        rows.append(Row(
            quantity="G1 backprop runs with a self-weight collapsed to ≈ 0, all weights at "
                     "the same learning rate", paper="— (not in the paper)", ours=f"{k}/{n}",
            note=note))
    for name in ("HC G1 stream", "G1 stream"):
        if not groups.get(name):
            continue
        k = numbers.top_level_most_distorted[name]
        n = len(groups[name])
        first = top_level(groups[name], numbers.spread[name])
        again = (top_level(doubled[name], numbers.doubled_spread[name]) if needs_twice(first)
                 else None)
        rows.append(Row(
            quantity=f"top level (ε) most distorted on sentences ≤ 5 levels, G1, "
                     f"{method(name)[0]}",
            paper="yes (Fig. 4b)", ours=f"{k}/{n} runs",
            note="the largest distance of a visited state from its stack state's mean",
            verdict=judge(first, again)))
    return rows


def table4(result: Replication) -> str:
    """Table 4 laid out as in the paper, one line per source (the paper, each of our groups),
    with the KL per point, the number of successful networks N and of scored points
    (Markdown)."""
    lines = ["| grammar | corpus | source | RMSE ± SE | % correct ± SE | KL/point | N "
             "| points |", "|---|---|---|---|---|---|---|---|"]
    for (g, corpus), (rmse, rmse_se, pc, pc_se, n, points) in PAPER_TABLE4.items():
        lines.append(f"| {g} | {corpus} | paper (Table 4) | {pm(rmse, rmse_se)} | "
                     f"{pm(pc, pc_se)} | — | {n} | {points} |")
        for name in (f"HC G{g} stream", f"G{g} stream", f"G{g} with </s>"):
            if name not in result.numbers.summary:
                continue
            m = result.numbers.summary[name].corpus(corpus)
            source = f"ours, {method(name)[0]}" + (", stream" if "stream" in name else "")
            lines.append(f"| {g} | {corpus} | {source} | {pm(*m.rmse)} | "
                         f"{pm(*m.percent_correct)} | {m.kl_per_position[0]:.4f} | "
                         f"{m.n} | {m.points} |")
    return "\n".join(lines)
