from datetime import date

import pytest

import datemath


def test_add_months_simple_and_across_years():
    assert datemath.add_months(date(2023, 11, 15), 3) == date(2024, 2, 15)
    assert datemath.add_months(date(2024, 1, 10), -1) == date(2023, 12, 10)
    assert datemath.add_months(date(2024, 5, 5), -17) == date(2022, 12, 5)


def test_add_months_clamps_to_month_end():
    assert datemath.add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert datemath.add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert datemath.add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)


def test_months_between():
    assert datemath.months_between(date(2024, 1, 15), date(2024, 3, 14)) == 1
    assert datemath.months_between(date(2024, 1, 15), date(2024, 3, 15)) == 2
    assert datemath.months_between(date(2024, 3, 15), date(2024, 1, 15)) == -2


def test_months_between_month_ends():
    assert datemath.months_between(date(2023, 1, 31), date(2023, 2, 28)) == 1
    assert datemath.months_between(date(2023, 1, 31), date(2023, 3, 30)) == 1


def test_age():
    assert datemath.age(date(1990, 6, 15), date(2024, 6, 14)) == 33
    assert datemath.age(date(1990, 6, 15), date(2024, 6, 15)) == 34
    with pytest.raises(ValueError):
        datemath.age(date(2000, 1, 2), date(2000, 1, 1))


def test_age_of_leap_day_birthday():
    birth = date(2000, 2, 29)
    assert datemath.age(birth, date(2023, 2, 27)) == 22
    assert datemath.age(birth, date(2023, 2, 28)) == 23
    assert datemath.age(birth, date(2024, 2, 28)) == 23
    assert datemath.age(birth, date(2024, 2, 29)) == 24


def test_nth_weekday_from_start():
    assert datemath.nth_weekday(2024, 5, 0, 1) == date(2024, 5, 6)
    assert datemath.nth_weekday(2024, 11, 3, 4) == date(2024, 11, 28)


def test_nth_weekday_from_end():
    assert datemath.nth_weekday(2024, 5, 0, -1) == date(2024, 5, 27)
    assert datemath.nth_weekday(2024, 2, 3, -2) == date(2024, 2, 22)


def test_nth_weekday_missing():
    with pytest.raises(ValueError):
        datemath.nth_weekday(2024, 2, 0, 5)
    for n in (0, 6, -6):
        with pytest.raises(ValueError):
            datemath.nth_weekday(2024, 5, 0, n)
