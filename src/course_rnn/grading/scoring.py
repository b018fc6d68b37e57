"""Scoring: what each hidden case of a run earns against the answer key (values compared by
:func:`.values.values_match`), per question, with a note for every case that earned nothing
saying why in a few words (:func:`.values.mismatch`: never the key's value).

Two kinds of case earn only beside work. An expected error (``{"t": "raised"}``): raising on
every input is not an answer. A *choice* — a case whose key holds no number, only text or
``None`` (:func:`.values.is_choice`: a letter, a word, a list of them, "no break length"): such an
answer can be guessed from the question alone. Each earns its points only when the same answer
also earns a case of its question that expects a computed value (neither an error nor a
choice)."""

from __future__ import annotations

from .assignments import Assignment
from .values import is_computed, mismatch, values_match


def score(assignment: Assignment, records: dict) -> tuple[dict[str, float], list[str]]:
    """Points per question and a note per case that earned nothing (``records`` come from the
    runner, their texts already escaped).

    A case earns its points when the reported value equals the key. A case whose key is an
    error (``{"t": "raised"}``) earns them only if a public test of its question asks for that
    error and the answer earned a case of the same question that expects a computed value:
    raising on every input is not an answer. A choice (:func:`.values.is_choice`) earns them only
    beside such a computed case too: a letter guessed from the question alone is not work."""
    matched = {}
    for case in assignment.cases:
        reported = records.get(case.id, {})
        matched[case.id] = "value" in reported and values_match(
            reported["value"], assignment.expected[case.id])
    points = dict.fromkeys(assignment.questions, 0.0)
    notes = []
    for case in assignment.cases:
        want = assignment.expected[case.id]
        ok = matched[case.id]
        if ok and not is_computed(want):
            asked = want["t"] != "raised" or want["v"] in assignment.asked_errors.get(
                case.question, ())
            computed = any(matched[c.id] for c in assignment.cases if c.question == case.question
                           and is_computed(assignment.expected[c.id]))
            ok = asked and computed
            if not ok:
                what = f"raised {want['v']}" if want["t"] == "raised" else "the choice is right"
                notes.append(f"{case.id}: {what}, but no case of {case.question} that expects a "
                             "computed value passed" if asked else
                             f"{case.id}: {case.question} does not ask for {want['v']}")
                continue
        if ok:
            points[case.question] += case.points
        else:
            reported = records.get(case.id, {})
            if "value" in reported:
                notes.append(f"{case.id}: {mismatch(reported['value'], want)}")
            else:
                notes.append(f"{case.id}: {reported.get('error', 'no value reported')}")
    return points, [n if len(n) <= 200 else n[:199] + "…" for n in notes]
