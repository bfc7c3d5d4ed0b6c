from datetime import date

import bizdays

# 2024-03-04 is a Monday; 2024-03-09/10 is a weekend.
MON, FRI, SAT, SUN = date(2024, 3, 4), date(2024, 3, 8), date(2024, 3, 9), date(2024, 3, 10)
NEXT_MON = date(2024, 3, 11)


def test_is_business_day():
    assert bizdays.is_business_day(MON) is True
    assert bizdays.is_business_day(SAT) is False
    assert bizdays.is_business_day(MON, holidays=[MON]) is False


def test_between_excludes_end():
    assert bizdays.business_days_between(MON, NEXT_MON) == 5
    assert bizdays.business_days_between(MON, FRI) == 4


def test_between_same_day_is_zero():
    assert bizdays.business_days_between(MON, MON) == 0


def test_between_reversed_is_negative():
    assert bizdays.business_days_between(NEXT_MON, MON) == -5


def test_between_with_holiday():
    assert bizdays.business_days_between(MON, NEXT_MON, holidays={date(2024, 3, 6)}) == 4


def test_add_over_weekend():
    assert bizdays.add_business_days(FRI, 1) == NEXT_MON
    assert bizdays.add_business_days(MON, 5) == NEXT_MON


def test_add_negative():
    assert bizdays.add_business_days(NEXT_MON, -1) == FRI
    assert bizdays.add_business_days(SUN, -2) == date(2024, 3, 7)


def test_add_zero_moves_off_weekend():
    assert bizdays.add_business_days(SAT, 0) == NEXT_MON
    assert bizdays.add_business_days(MON, 0) == MON


def test_add_skips_holidays():
    assert bizdays.add_business_days(FRI, 1, holidays=[NEXT_MON]) == date(2024, 3, 12)
