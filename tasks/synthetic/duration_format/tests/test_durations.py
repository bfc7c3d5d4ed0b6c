import pytest

import durations


def test_format_hours_minutes_seconds():
    assert durations.format_duration(3661) == "1h 1m 1s"


def test_format_skips_zero_units():
    assert durations.format_duration(3600) == "1h"
    assert durations.format_duration(3605) == "1h 5s"


def test_format_uses_days():
    assert durations.format_duration(90061) == "1d 1h 1m 1s"
    assert durations.format_duration(172800) == "2d"


def test_format_zero():
    assert durations.format_duration(0) == "0s"


def test_format_negative_rejected():
    with pytest.raises(ValueError):
        durations.format_duration(-1)


def test_parse_any_order():
    assert durations.parse_duration("5s 2h") == 7205
    assert durations.parse_duration("1d") == 86400


def test_parse_malformed_parts():
    for bad in ("", "5", "h", "5x", "-5s", "1h30m"):
        with pytest.raises(ValueError):
            durations.parse_duration(bad)


def test_parse_repeated_unit_rejected():
    with pytest.raises(ValueError):
        durations.parse_duration("1m 1m")


def test_round_trip():
    for seconds in (59, 61, 3599, 86399, 86401, 1000000):
        assert durations.parse_duration(durations.format_duration(seconds)) == seconds
