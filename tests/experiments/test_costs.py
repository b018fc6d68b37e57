"""The CLI's "expected: …" line: measured records only, scaled by usable cores, and a plain
sentence when no run was ever timed."""

import json

from course_rnn.experiments import NAMES
from course_rnn.experiments.costs import COSTS, estimate, expected_seconds, load, minutes

RECORD = {"wall_s": 120.0, "cpu_s": 230.0, "workers": 2, "cores": 2, "machine": "x86_64 CPU",
          "date": "2026-11-22", "commit": "abc1234", "load_before": 0.1,
          "command": "python -m course_rnn replicate anbn --scale quick"}


def write(tmp_path, records):
    path = tmp_path / "costs.json"
    path.write_text(json.dumps({"experiments": records}))
    return path


def test_minutes_reads_like_a_person_would_say_it():
    assert minutes(40) == "40 s" and minutes(180) == "3 min" and minutes(5400) == "1.5 h"


def test_the_measured_cpu_time_is_spread_over_the_cores_the_workers_can_use():
    assert expected_seconds(RECORD, cores=2) == 115.0
    assert expected_seconds(RECORD, cores=1) == 230.0
    assert expected_seconds(RECORD, cores=16) == 115.0  # two workers use two cores at most
    assert expected_seconds({**RECORD, "workers": 8}, cores=4) == 57.5


def test_estimate_names_its_measurement_or_says_there_is_none(tmp_path):
    path = write(tmp_path, {"anbn": {"quick": RECORD}})
    text = estimate("anbn", "quick", cores=1, path=path)
    assert text.startswith("roughly 4 min on 1 CPU core ")
    assert "2 min wall" in text and "2-core x86_64 CPU" in text and "2026-11-22" in text
    assert "has been timed yet" in estimate("anbn", "paper", path=path)
    assert "has been timed yet" in estimate("gym", "quick", path=tmp_path / "missing.json")


def test_the_committed_records_are_complete():
    for name, scales in load(COSTS).items():
        assert name in NAMES
        for scale, record in scales.items():
            assert scale in ("quick", "paper")
            assert set(RECORD) <= set(record), f"{name} {scale}: {set(RECORD) - set(record)}"
            assert record["wall_s"] > 0 and record["cpu_s"] > 0 and record["workers"] >= 1
