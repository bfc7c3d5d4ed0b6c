import pytest

import leapyear


def test_ordinary_leap_years():
    assert [leapyear.is_leap(y) for y in (2023, 2024, 1996)] == [False, True, True]


def test_centuries_are_not_leap():
    assert leapyear.is_leap(1900) is False
    assert leapyear.is_leap(2100) is False


def test_four_hundred_year_rule():
    assert leapyear.is_leap(2000) is True
    assert leapyear.is_leap(2400) is True


def test_february_lengths():
    assert leapyear.days_in_month(2024, 2) == 29
    assert leapyear.days_in_month(2000, 2) == 29
    assert leapyear.days_in_month(1900, 2) == 28


def test_invalid_month_rejected():
    for month in (0, 13):
        with pytest.raises(ValueError):
            leapyear.days_in_month(2024, month)


def test_day_of_year_end_of_year():
    assert leapyear.day_of_year(2023, 12, 31) == 365
    assert leapyear.day_of_year(2024, 12, 31) == 366


def test_day_of_year_after_leap_february():
    assert leapyear.day_of_year(2000, 3, 1) == 61


def test_invalid_days_rejected():
    for day in (0, -3, 32):
        with pytest.raises(ValueError):
            leapyear.day_of_year(2023, 1, day)
