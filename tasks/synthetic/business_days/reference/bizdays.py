"""Counting and adding business days."""

from datetime import timedelta

_ONE_DAY = timedelta(days=1)


def is_business_day(d, holidays=()):
    return d.weekday() < 5 and d not in set(holidays)


def business_days_between(start, end, holidays=()):
    if end < start:
        return -business_days_between(end, start, holidays)
    holidays = set(holidays)
    count = 0
    day = start
    while day < end:
        count += is_business_day(day, holidays)
        day += _ONE_DAY
    return count


def add_business_days(start, n, holidays=()):
    holidays = set(holidays)
    day = start
    if n == 0:
        while not is_business_day(day, holidays):
            day += _ONE_DAY
        return day
    step = _ONE_DAY if n > 0 else -_ONE_DAY
    remaining = abs(n)
    while remaining:
        day += step
        if is_business_day(day, holidays):
            remaining -= 1
    return day
