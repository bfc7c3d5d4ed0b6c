import json

import pytest

from bench.errors import SpecError
from bench.mutate import readings


def _entry(verdict: str, reading: str = "screen") -> list:
    return [{"reading": reading, "verdict": verdict, "why": "a reason"}]


def test_verdicts_read_as_kept_or_giveaway():
    found = readings.parse({"a": _entry("no"), "b": _entry("no (borderline)"), "c": _entry("yes: G4"),
                            "d": _entry("yes (borderline): G3"), "e": _entry("yes: G5")})
    assert [found[k].giveaway for k in "abcde"] == [False, False, True, True, True]  # G5: a comment contradicted


@pytest.mark.parametrize("verdict", ["maybe", "yes", "yes: G6", "No", ""])
def test_a_verdict_outside_the_rule_is_an_error_naming_the_task(verdict):
    with pytest.raises(SpecError, match="task-x"):
        readings.parse({"task-x": _entry(verdict)})


def test_an_entry_without_a_reason_is_an_error():
    with pytest.raises(SpecError, match="'why'"):
        readings.parse({"task-x": [{"reading": "screen", "verdict": "no"}]})


def test_a_task_without_readings_is_an_error():
    with pytest.raises(SpecError, match="non-empty list"):
        readings.parse({"task-x": []})


def test_one_giveaway_verdict_among_several_makes_the_task_a_giveaway():
    found = readings.parse({"a": _entry("no") + _entry("yes (borderline): G4", "second"),
                            "b": _entry("no (borderline)") + _entry("no", "second")})
    assert (found["a"].giveaway, found["b"].giveaway) == (True, False)
    assert [r.reading for r in found["a"].readings] == ["screen", "second"]


def test_summary_counts_read_giveaway_and_unread():
    found = readings.parse({"a": _entry("no"), "b": _entry("yes: G1")})
    assert readings.summary(found, ["a", "b", "c", "d"]) == {"read": 1, "giveaway": 1, "unread": 2}


def test_a_missing_record_reads_as_nothing_read_and_bad_json_is_an_error(tmp_path):
    assert readings.load(tmp_path) == {}
    path = tmp_path / readings.RECORD
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(SpecError, match="not JSON"):
        readings.load(tmp_path)
    path.write_text(json.dumps({"a": _entry("no")}))
    assert readings.load(tmp_path)["a"].readings[0].reading == "screen"
