from __future__ import annotations

from bench.spec.dates import quarter, quarter_table, side_of, tasks_per_quarter
from bench.spec.load_test import _dated, _spec


def test_quarter_of_a_day_and_of_no_day():
    assert [quarter(d) for d in ("2024-01-01", "2024-03-31", "2024-04-01", "2024-12-31", "")] == \
        ["2024Q1", "2024Q1", "2024Q2", "2024Q4", "undated"]


def test_side_of_the_cutoff_counts_the_cutoff_day_as_after():
    assert [side_of(d, "2024-06-01") for d in ("2024-05-31", "2024-06-01", "2025-01-01", "")] == \
        ["before", "after", "after", "undated"]


def test_tasks_per_quarter_lists_every_quarter_between_the_first_and_last_and_undated_last():
    specs = (_dated("a", "2023-11-02T00:00:00Z"), _dated("b", "2024-05-01T00:00:00Z"),
             _dated("c", "2024-05-09T00:00:00Z"), _spec("d"))
    per = tasks_per_quarter(specs)
    assert per == {"2023Q4": {"pr": 1}, "2024Q1": {}, "2024Q2": {"pr": 2}, "undated": {"pr": 1}}
    table = quarter_table(per)
    assert table[0].split() == ["tasks", "by", "date", "pr", "all"]
    assert [line.split()[:3] for line in table[1:]] == [["2023Q4", "1", "1"], ["2024Q1", "0", "0"],
                                                          ["2024Q2", "2", "2"], ["undated", "1", "1"]]
