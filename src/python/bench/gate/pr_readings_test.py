"""How a reader's table of PR verdicts becomes record entries, and what the record refuses."""

import json

import pytest

from bench.errors import SpecError
from bench.gate import pr_readings


@pytest.mark.parametrize("cell, expected", [
    ("good", "good"), ("**Good**", "good"), ("questionable: R2", "questionable: R2"),
    ("questionable (R4, R2)", "questionable: R2, R4"), ("false: R1", "false: R1"),
    ("**false admission**: R1 + r1", "false: R1"), ("False: R3, R1", "false: R1, R3"),
])
def test_verdict_cells_normalise_to_the_records_forms(cell, expected):
    assert pr_readings.normalise(cell) == expected


@pytest.mark.parametrize("cell, message", [
    ("yes", "cannot read the verdict"), ("questionable", "names no criterion"), ("false: R5", "names no criterion"),
    ("good: R2", "names no failed criterion"),
])
def test_a_verdict_the_record_cannot_hold_is_refused(cell, message):
    with pytest.raises(SpecError, match=message):
        pr_readings.normalise(cell)


TABLE = ("# trial\n\n| # | task | verdict | why |\n|---|---|---|---|\n"
         "| 1 | `lib-1` | good | `a \\| b` was wrong; the test checks the public result |\n"
         "| 2 | lib-2 | **false**: R1 | an entry under Added |\n"
         "not a row | 3 | lib-3 | good | x |\n")


def test_table_rows_skip_the_header_and_keep_escaped_pipes_inside_a_cell():
    assert pr_readings.table_rows(TABLE) == [
        ("lib-1", "good", "`a | b` was wrong; the test checks the public result"),
        ("lib-2", "false: R1", "an entry under Added")]


@pytest.mark.parametrize("row, message", [
    ("| 1 | lib-1 | good | a | b |", "5 cells, want 4"),
    ("| 1 | lib-1 | good |  |", "lib-1 has no reason"),
    ("| 1 | lib-1 | good | a |\n| 2 | lib-1 | false: R1 | b |", r"read twice in one table: \['lib-1'\]"),
])
def test_a_table_row_the_record_cannot_hold_is_refused(row, message):
    with pytest.raises(SpecError, match=message):
        pr_readings.table_rows(row)


def test_merge_adds_a_reading_beside_the_others_and_replaces_one_of_the_same_name():
    record = {"lib-1": [{"reading": "A", "verdict": "good", "why": "first"},
                        {"reading": "B", "verdict": "good", "why": "old"}]}
    merged = pr_readings.merge(record, [("lib-1", "questionable: R4", "reversed later"),
                                        ("lib-0", "good", "fine")], "B")
    assert merged == {
        "lib-0": [{"reading": "B", "verdict": "good", "why": "fine"}],
        "lib-1": [{"reading": "A", "verdict": "good", "why": "first"},
                  {"reading": "B", "verdict": "questionable: R4", "why": "reversed later"}]}
    assert record["lib-1"][1]["why"] == "old"  # the input is left as it was
    assert list(merged) == ["lib-0", "lib-1"]


def test_render_writes_what_load_reads_and_refuses_what_it_would_refuse(tmp_path):
    record = pr_readings.merge({}, pr_readings.table_rows(TABLE), "trial")
    (tmp_path / pr_readings.RECORD).parent.mkdir(parents=True)
    (tmp_path / pr_readings.RECORD).write_text(pr_readings.render(record), encoding="utf-8")
    found = pr_readings.load(tmp_path)
    assert found["lib-2"].false and not found["lib-1"].false
    assert found["lib-1"].readings == (pr_readings.Reading("trial", "good", record["lib-1"][0]["why"]),)
    with pytest.raises(SpecError, match="'false' is not"):
        pr_readings.render({"lib-1": [{"reading": "trial", "verdict": "false", "why": "x"}]})


@pytest.mark.parametrize("data, message", [
    ([], "expected an object"), ({"t": []}, "t: expected a non-empty list"),
    ({"t": [{"reading": "A", "verdict": "good"}]}, "t: each reading needs"),
    ({"t": [{"reading": "A", "verdict": "good", "why": "x"}] * 2}, "t: one reading recorded twice"),
])
def test_a_malformed_record_is_an_error_naming_the_task(data, message):
    with pytest.raises(SpecError, match=message):
        pr_readings.parse(data)


def test_a_task_is_read_enough_after_two_differently_named_readings_and_false_after_one_false():
    record = {"once": [{"reading": "A", "verdict": "good", "why": "x"}],
              "twice": [{"reading": "A", "verdict": "good", "why": "x"},
                        {"reading": "B", "verdict": "questionable: R2", "why": "y"}],
              "false": [{"reading": "A", "verdict": "good", "why": "x"},
                        {"reading": "B", "verdict": "false: R1", "why": "y"}]}
    found = pr_readings.parse(json.loads(json.dumps(record)))
    pool = ["never", "once", "twice", "false"]
    assert pr_readings.unread(found, pool) == ["never", "once"]
    assert pr_readings.summary(found, pool) == {"read": 1, "false": 1, "read_once": 1, "unread": 1}
