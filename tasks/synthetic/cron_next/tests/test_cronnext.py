from datetime import datetime, timezone

import pytest

from cronnext import next_run

MONDAY = datetime(2024, 3, 4, 0, 0)  # 2024-03-04 is a Monday


def test_every_quarter_hour():
    assert next_run("*/15 * * * *", datetime(2024, 3, 4, 10, 7, 30)) == datetime(2024, 3, 4, 10, 15)


def test_strictly_after():
    assert next_run("0 * * * *", datetime(2024, 3, 4, 10, 0)) == datetime(2024, 3, 4, 11, 0)
    assert next_run("0 * * * *", datetime(2024, 3, 4, 10, 0, 59, 999)) == datetime(2024, 3, 4, 11, 0)


def test_weekdays_and_year_rollover():
    assert next_run("0 9 * * 1-5", datetime(2024, 3, 8, 17, 0)) == datetime(2024, 3, 11, 9, 0)
    assert next_run("0 0 1 1 *", datetime(2024, 12, 31, 23, 59)) == datetime(2025, 1, 1, 0, 0)


def test_sunday_as_seven():
    assert next_run("30 8 * * 7", MONDAY) == datetime(2024, 3, 10, 8, 30)
    assert next_run("0 12 * * 6-7", MONDAY) == datetime(2024, 3, 9, 12, 0)


def test_day_of_month_or_day_of_week():
    assert next_run("0 0 13 * 5", MONDAY) == datetime(2024, 3, 8, 0, 0)
    assert next_run("0 0 13 * *", MONDAY) == datetime(2024, 3, 13, 0, 0)


def test_steps_count_from_the_range_start():
    assert next_run("0 2-10/4 * * *", datetime(2024, 3, 4, 3, 0)) == datetime(2024, 3, 4, 6, 0)
    assert next_run("0 0 */2 * *", datetime(2024, 3, 1, 0, 0)) == datetime(2024, 3, 3, 0, 0)


def test_lists_and_open_steps():
    assert next_run("5,50 */6 * * *", datetime(2024, 3, 4, 6, 5)) == datetime(2024, 3, 4, 6, 50)
    assert next_run("40/10 * * * *", datetime(2024, 3, 4, 6, 55)) == datetime(2024, 3, 4, 7, 40)


def test_leap_day_and_month_end():
    assert next_run("0 0 29 2 *", datetime(2024, 3, 1)) == datetime(2028, 2, 29, 0, 0)
    assert next_run("0 0 31 * *", datetime(2024, 4, 1)) == datetime(2024, 5, 31, 0, 0)


def test_keeps_timezone():
    after = datetime(2024, 3, 4, 10, 0, tzinfo=timezone.utc)
    assert next_run("30 10 * * *", after) == datetime(2024, 3, 4, 10, 30, tzinfo=timezone.utc)


def test_never_fires():
    with pytest.raises(ValueError):
        next_run("0 0 30 2 *", MONDAY)


def test_invalid_expressions():
    for bad in ("* * * *", "60 * * * *", "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *",
                "* * 0 * *", "* * * * MON", "* * * * 8"):
        with pytest.raises(ValueError):
            next_run(bad, MONDAY)
