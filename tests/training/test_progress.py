"""Reports from inside a run: what a bar over many runs shows."""

import time

from course_rnn.languages import AnBn, Vocab
from course_rnn.models import build_model
from course_rnn.training import fit, listen_to_runs, report_run
from course_rnn.training.progress import describe_run


def reports_of_a_small_fit(**budget) -> list[dict]:
    """What a listener hears from one small SRN's ``fit`` (2 steps an epoch) with ``budget``."""
    reports = []
    previous = listen_to_runs(reports.append)
    try:
        vocab = Vocab("ab")
        model = build_model("srn", vocab_size=len(vocab), hidden_size=3, seed=0)
        fit(model, vocab, [AnBn.string(n) for n in range(1, 5)], batch_size=2, seed=0,
            progress=False, **budget)
    finally:
        listen_to_runs(previous)
    return reports


def test_fit_reports_every_evaluation_and_its_end():
    reports = reports_of_a_small_fit(epochs=4)
    assert [r["done"] for r in reports] == [1, 2, 3, 4, 4]
    assert [r["finished"] for r in reports] == [False] * 4 + [True]
    assert all(r["total"] == 4 and r["unit"] == "epoch" and r["seconds"] >= 0 for r in reports)


def test_a_run_in_steps_reports_its_steps():
    reports = reports_of_a_small_fit(steps=5)  # evaluated at steps 2, 4 and 5
    assert [r["done"] for r in reports] == [2, 4, 5, 5]
    assert all(r["total"] == 5 and r["unit"] == "step" for r in reports)


def test_nobody_listening_costs_nothing():
    assert listen_to_runs(None) is None
    report_run(1, 2, "epoch", time.perf_counter())  # no listener: nothing happens


def test_describe_run_gives_the_most_a_run_can_still_take():
    report = {"done": 12, "total": 200, "unit": "epoch", "seconds": 65.0}
    assert describe_run(report) == "epoch 12 of ≤ 200, 1m05s (cap in ≤ 16m58s)"  # 65/12*188
    assert describe_run({**report, "done": 200}) == "epoch 200 of ≤ 200, 1m05s"
    assert describe_run({**report, "seconds": 7300.0}) == \
        "epoch 12 of ≤ 200, 2h01m (cap in ≤ 31h46m)"
