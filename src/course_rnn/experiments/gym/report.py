"""The ``gym``'s tables: model × language, chapter 6's Dyck breakdown, and the papers' claims
about who wins, each judged on the gym's cells (:func:`~course_rnn.experiments.replication.
judge`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..replication import Measurement, Row, judge, needs_twice
from ..urn import dyck_cuts
from .results import Cell, GymRun, cell_means, models_and_languages
from .settings import DYCK_DEPTH, GYM_MODELS, OWN_METRICS


def gym_table(rows: Sequence[GymRun]) -> list[dict]:
    """One row per model: "valid_strings (own metric)" per language (mean over seeds; "not
    converged" when a seed's run did not meet its criterion), the parameter counts and the
    total CPU time of its training."""
    means = cell_means(rows)
    models, languages = models_and_languages(rows)
    table = []
    for model in models:
        line = {"model": model}
        for lang in languages:
            header = f"{lang}: valid ({OWN_METRICS[lang]})"
            m = means.get((model, lang))
            if m is None:
                line[header] = "n/a"
            elif not m.all_converged:
                line[header] = f"not converged ({m.n - m.converged} of {m.n} seeds)"
            else:
                own = f"{m.own:.1f}" if lang == "anbn" else f"{m.own:.2f}"
                line[header] = f"{m.valid_strings:.2f} ({own})"
        params = [r.params for r in rows if r.model == model]
        line["parameters"] = (f"{min(params)}–{max(params)}" if min(params) != max(params)
                              else str(min(params)))
        line["train CPU s"] = f"{sum(r.train_seconds for r in rows if r.model == model):.1f}"
        table.append(line)
    return table


def dyck_breakdown_table(rows: Sequence[GymRun]) -> list[dict]:
    """Chapter 6's breakdown of the Dyck column: per model, closing-bracket accuracy pooled by
    attractors, by nesting inside the pair and by outer depth (mean over seeds)."""
    means = cell_means(rows)
    labels = {key: cut[0] for key, cut in dyck_cuts(DYCK_DEPTH).items()}
    table = []
    for model in models_and_languages(rows)[0]:
        m = means.get((model, "dyck"))
        if m is None:
            continue
        line = {"model": model, "converged": f"{m.converged}/{m.n}"}
        line.update({labels[k]: v for k, v in m.breakdown.items()})
        table.append(line)
    return table


Means = dict[tuple[str, str], Cell]


@dataclass(frozen=True)
class GymClaim:
    """A paper's claim about who wins, checked on the gym's cells.

    ``cells``: the (model, language) cells it needs; ``check(means) -> (ours, value, agrees,
    gap)``. Its verdict waits for every run of those cells to converge, and a disagreement is
    re-checked with those runs continued to twice their epochs."""

    quantity: str
    paper: str
    cells: tuple[tuple[str, str], ...]
    check: Callable[[Means], tuple[str, float, bool, float]]
    note: str = ""
    verdict: str | None = None  # a fixed verdict ("not comparable") instead of judging

    def measure(self, rows: Sequence[GymRun]) -> tuple[str, Measurement]:
        """What ``rows`` say about the claim: our column's text and its measurement."""
        ours, value, agrees, gap = self.check(cell_means(rows))
        return ours, Measurement(value, agrees, gap,
                                 [bool(r.converged) for r in rows if r.cell in self.cells])


#: Models with an external memory (chapter 8), which the papers' claims about recurrent networks
#: do not cover
EXTERNAL_MEMORY = ("Stack-RNN",)


def gym_claims_list() -> list[GymClaim]:
    """The papers' claims the gym can check (each needs its cells)."""
    def own(means, model, lang):
        return means[model, lang].own

    def counting(means):
        rivals = {m: own(means, m, "anbn") for m, lang in means
                  if lang == "anbn" and m not in ("LSTM", *EXTERNAL_MEMORY)}
        best_rival = max(rivals, key=rivals.get)
        lstm = own(means, "LSTM", "anbn")
        gap = max(0.0, rivals[best_rival] - lstm - 1.0)
        return (f"LSTM {lstm:.1f}; best other: {best_rival} {rivals[best_rival]:.1f}", lstm,
                gap == 0, gap)

    def crossing(means):
        lstm, urn = own(means, "LSTM", "cross_serial"), own(means, "URN", "cross_serial")
        return f"LSTM {lstm:.2f}, URN {urn:.2f}", lstm, lstm > urn, max(0.0, urn - lstm)

    def nesting(means):
        b = means["URN", "dyck"].breakdown
        gap = max(0.0, b["shallow_inner"] - 0.02 - b["deep_inner"])
        return (f"URN {b['shallow_inner']:.2f} (inner nesting 0–1) → {b['deep_inner']:.2f} "
                f"(≥ {DYCK_DEPTH})", b["deep_inner"], gap == 0, gap)

    def agreement(means):
        drnn, lstm = own(means, "DRNN", "agreement"), own(means, "LSTM", "agreement")
        gap = max(0.0, abs(drnn - lstm) - 0.05)
        return f"DRNN {drnn:.2f}, LSTM {lstm:.2f}", drnn, gap == 0, gap

    def flnn(means):
        b = means["FLNN", "dyck"].breakdown
        return (f"Dyck-2: {b['seen_outer']:.2f} (outer depth ≤ {DYCK_DEPTH}) → "
                f"{b['unseen_outer']:.2f} (≥ {DYCK_DEPTH + 2})", b["unseen_outer"], False, 0.0)

    return [
        GymClaim("for counting (a^n b^n), the LSTM works best (max_correct_n)",
                 "Levy 2023 lecture (ch. 3)", (("LSTM", "anbn"),) + tuple(
                     (m, "anbn") for m in GYM_MODELS
                     if m not in ("LSTM", "FLNN", *EXTERNAL_MEMORY)), counting,
                 "agrees when no other model's mean is more than 1 above the LSTM's (the claim "
                 "is about networks without an external memory: the Stack-RNN is not a rival)"),
        GymClaim("on cross-serial strings longer than in training, the LSTM does better than "
                 "the URN", "Bernardy & Lappin 2023, §3.1 (ch. 6)",
                 (("LSTM", "cross_serial"), ("URN", "cross_serial")), crossing,
                 "whole-string accuracy at m + n = 8, 9"),
        GymClaim("the URN's closing accuracy does not decline with nesting inside the pair",
                 "Bernardy & Lappin 2022; 2023 (ch. 6)", (("URN", "dyck"),), nesting,
                 "chapter 6's breakdown on the deeper Dyck strings; slack 0.02"),
        GymClaim("the Decay RNN agrees about as well as the LSTM", "Bhatt et al. 2020 (ch. 4)",
                 (("DRNN", "agreement"), ("LSTM", "agreement")), agreement,
                 "language models' agreement accuracy on 0–3 attractors; 'about as well': "
                 "within 0.05; the paper's language models: 650 units, 90M words of Wikipedia"),
        GymClaim("the FLNN learns a stack language and generalises deeper (99.4% correct on "
                 "Grammar 1's deeper test sentences)", "Tabor 2011, Table 4 (ch. 5)",
                 (("FLNN", "dyck"),), flnn, "Dyck-2 is not Tabor's grammar and closing accuracy "
                 "is not his score: a stack language on Tabor's terms, reported beside his "
                 "number", verdict="not comparable"),
    ]


def claims_of(rows: Sequence[GymRun]) -> dict[GymClaim, tuple[str, Measurement]]:
    """The claims whose cells ``rows`` has, each with our column's text and its measurement."""
    means = cell_means(rows)
    return {claim: claim.measure(rows) for claim in gym_claims_list()
            if all(cell in means for cell in claim.cells)}


def cells_to_double(rows: Sequence[GymRun]) -> set[tuple[str, str]]:
    """The (model, language) cells whose runs :func:`gym_claims` needs at twice their epochs:
    those of every judged claim whose runs all converged and which disagrees."""
    return {cell for claim, (_, first) in claims_of(rows).items()
            if claim.verdict is None and needs_twice(first) for cell in claim.cells}


def gym_claims(rows: Sequence[GymRun], doubled: Sequence[GymRun] = ()) -> list[Row]:
    """The papers' claims about which model wins, checked against the gym's runs (a claim whose
    cells are missing is left out). ``doubled``: the runs of :func:`cells_to_double`'s cells
    continued to twice their epochs (trained before, by :func:`~course_rnn.experiments.gym.run`);
    a disagreement is judged on ``rows`` with those runs in place of their first budget's
    (without them a disagreement raises)."""
    replaced = {(r.model, r.language, r.seed) for r in doubled}
    second_rows = ([r for r in rows if (r.model, r.language, r.seed) not in replaced]
                   + list(doubled)) if doubled else None
    out = []
    for claim, (ours, first) in claims_of(rows).items():
        if claim.verdict is not None:
            out.append(Row(claim.quantity, claim.paper, ours, claim.note,
                           verdict=claim.verdict))
            continue
        again = (claim.measure(second_rows)[1] if second_rows is not None and needs_twice(first)
                 else None)
        out.append(Row(claim.quantity, claim.paper, ours, claim.note,
                       verdict=judge(first, again)))
    return out
