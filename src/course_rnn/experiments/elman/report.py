"""``elman-clusters``' paper-vs-ours table: Elman's set-up, Figure 7's findings, the exact
predictors."""

from __future__ import annotations

from collections.abc import Sequence

from ..replication import Measurement, Row, judge
from .compute import Clades
from .results import ElmanNumbers
from .settings import ELMAN_PASSES

#: Figure 7's groups that the table asks about: (row label, group in
#: :func:`~.compute.word_groups`).
FIGURE_7_GROUPS = (
    ("animate nouns", "animate"),
    ("inanimate nouns", "inanimate"),
    ("humans", "human"),
    ("animals", "animal"),
    ("food", "food"),
    ("breakables", "breakable"),
    ("intransitive verbs (D.O.-ABS)", "intransitive"),
    ("obligatorily transitive verbs (D.O.-REQ)", "transitive"),
)


def finding_measurement(count: int, n: int, runs: Sequence) -> Measurement:
    """A Figure 7 finding holds in ``count`` of ``n`` runs: it agrees when it holds in all;
    the gap is the share of runs in which it does not."""
    return Measurement(count, agrees=count == n, gap=(n - count) / n, runs=runs)


def finding_measurements(numbers: ElmanNumbers, histories: Sequence,
                         clades: Clades | None = None) -> list[Measurement]:
    """The Figure 7 findings as measurements, in the table's order: the noun/verb root split,
    then each of :data:`FIGURE_7_GROUPS` as one branch; counted from ``clades`` when given (the
    runs continued to twice their epochs), else from ``numbers``."""
    roots = clades.noun_verb_roots if clades else numbers.noun_verb_roots
    branches = clades.one_branch if clades else numbers.one_branch
    return [finding_measurement(count, numbers.n_runs, histories)
            for count in (roots, *(branches[group] for _, group in FIGURE_7_GROUPS))]


def table_rows(numbers: ElmanNumbers, scale: str, histories: Sequence,
               doubled: Clades | None = None, doubled_histories: Sequence = ()) -> list[Row]:
    """The paper-vs-ours table; ``doubled``: the clades (:class:`~.compute.Clades`) of the runs
    continued to twice their epochs, and ``doubled_histories`` their histories (trained before,
    when a finding does not hold in every run)."""
    setup, n = numbers.setup, numbers.n_runs
    differs = ("smaller (quick scale; `--scale paper` uses Elman's)" if scale == "quick"
               else "differs (settings overridden)")
    passes = (f"{setup.passes_min}" if setup.passes_min == setup.passes_max
              else f"{setup.passes_min}–{setup.passes_max}")
    rows = [
        Row("hidden units", "150 (text)", str(setup.hidden),
            "same as Elman" if setup.hidden == 150 else differs),
        Row("training sentences / passes", f"10,000 / {ELMAN_PASSES} (text)",
            f"{setup.training_sentences:,} / {passes} (until learned)",
            ("same corpus size as Elman; " if setup.training_sentences == 10_000
             else f"corpus {differs}; ")
            + "we train until each run has learned, not for a fixed number of passes"),
        Row("sentence boundaries marked", "no (text)", "no (stream) and yes (sentences)",
            "the stream regime is Elman's (state never reset; truncated BPTT); the sentence "
            "regime allows the exact entropy bound"),
    ]

    first = finding_measurements(numbers, histories)
    again = (finding_measurements(numbers, doubled_histories, doubled) if doubled
             else [None] * len(first))
    verdicts = [judge(one, two) for one, two in zip(first, again)]
    count = numbers.noun_verb_roots
    rows.append(Row("root splits nouns from verbs", "yes (Fig. 7)", f"{count}/{n} runs",
                    _holds(count, n), verdicts[0]))
    for (label, group), verdict in zip(FIGURE_7_GROUPS, verdicts[1:]):
        count = numbers.one_branch[group]
        rows.append(Row(f"{label} one branch", "yes (Fig. 7)", f"{count}/{n} runs",
                        _holds(count, n), verdict))
    exact = numbers.exact
    rows.append(Row(
        "predicts the word class, not the word", "RMS error 0.88 vs actual next word (text)",
        f"KL to exact {_span(exact.kl_min, exact.kl_max)} nats/word "
        f"(bound {exact.entropy:.3f})",
        f"different measure: ours is the gap to the best possible predictor (untrained: KL "
        f"{exact.untrained.kl:.2f}), whose loss stays far above 0 because only the class "
        "of the next word is predictable", "not comparable"))
    stream = numbers.stream_optimum
    rows.append(Row(
        "stream: held-out loss against the exact stream predictor", "— (not reported)",
        f"{_span(stream.model_min, stream.model_max)} vs {stream.exact:.3f} nats/word",
        "the exact predictor must guess where sentences end; what it pays above the sentence "
        f"bound ({exact.entropy:.3f} per symbol, ends marked) no model can recover"))
    return rows


def _span(low: float, high: float) -> str:
    """"0.012" or "0.012-0.019" (three decimals; one value when both round alike)."""
    low, high = f"{low:.3f}", f"{high:.3f}"
    return low if low == high else f"{low}-{high}"


def _holds(count: int, n: int) -> str:
    if count == n:
        return "holds in every run"
    if count == 0:
        return "holds in no run"
    return f"holds in {count} of {n} runs only"
