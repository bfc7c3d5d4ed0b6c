import json

import pytest

from bench.errors import BenchError
from bench.mine.throughput import percentile, read_logs, summarise


def _entry(task_id, outcome, seconds, **phases):
    entry = {"task_id": task_id, "outcome": outcome, "reason": outcome, "seconds": seconds}
    if phases:
        entry["phases"] = phases
    return entry


def test_the_summary_shares_time_out_by_phase_and_counts_drops_against_admissions():
    entries = (
        _entry("a-1", "admitted", 100.0, lock=40.0, environment=10.0, workspace=10.0, tests=30.0),
        _entry("a-2", "admitted", 20.0, lock=0.0, environment=2.0, workspace=2.0, tests=10.0),
        _entry("a-3", "dropped", 80.0, lock=20.0, tests=50.0),
        _entry("a-4", "known", 0.0),
    )
    summary = summarise(entries)
    assert (summary.tried, summary.admitted, summary.timed_admitted) == (3, 2, 2)
    assert summary.median_seconds == 20.0 and summary.p90_seconds == 100.0
    assert summary.seconds_per_admitted_all_attempts == 100.0  # (100 + 20 + 80) / 2
    assert dict(summary.phase_share) == {"image": 0.0, "lock": 0.333, "environment": 0.1, "workspace": 0.1, "tests": 0.333,
                                         "other": 0.134}
    assert summary.tests_median_seconds == 10.0
    assert summary.wall_over_tests_median == 2.0  # ratios 3.33 and 2.0: nearest rank


def test_percentile_is_nearest_rank():
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert percentile(list(map(float, range(1, 11))), 0.9) == 9.0
    assert percentile([], 0.5) == 0.0


def test_a_file_that_is_not_an_admission_log_is_refused(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"candidates": []}))
    with pytest.raises(BenchError, match="not an admission log"):
        read_logs((path,))
