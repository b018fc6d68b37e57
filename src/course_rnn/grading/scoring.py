"""Scoring: what each hidden case of a run earns against the answer key (values compared by
:func:`.values.values_match`), per question, with a note for every case that earned nothing
saying why in a few words (:func:`.values.mismatch`: never the key's value)."""

from __future__ import annotations

from .assignments import Assignment
from .values import mismatch, values_match


def score(assignment: Assignment, records: dict) -> tuple[dict[str, float], list[str]]:
    """Points per question and a note per case that earned nothing (``records`` come from the
    runner, their texts already escaped).

    A case earns its points when the reported value equals the key. A case whose key is an
    error (``{"t": "raised"}``) earns them only if a public test of its question asks for that
    error and the answer earned a case of the same question that expects a value: raising on
    every input is not an answer."""
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
        if ok and want["t"] == "raised":
            asked = want["v"] in assignment.asked_errors.get(case.question, ())
            computed = any(matched[c.id] for c in assignment.cases if c.question == case.question
                           and assignment.expected[c.id]["t"] != "raised")
            ok = asked and computed
            if not ok:
                notes.append(f"{case.id}: raised {want['v']}, but no case of {case.question} "
                             "that expects a value passed" if asked else
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
