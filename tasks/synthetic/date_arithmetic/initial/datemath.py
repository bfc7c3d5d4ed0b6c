"""Month arithmetic, ages and n-th weekdays."""

import calendar
from datetime import date


def add_months(d, n):
    index = d.year * 12 + (d.month - 1) + n
    year, month = divmod(index, 12)
    return date(year, month + 1, d.day)


def months_between(a, b):
    if b < a:
        return -months_between(b, a)
    months = (b.year - a.year) * 12 + (b.month - a.month)
    while months > 0 and add_months(a, months) > b:
        months -= 1
    return months


def age(birth, on):
    if on < birth:
        raise ValueError("date is before the birth date")
    years = on.year - birth.year
    if (on.month, on.day) < (birth.month, birth.day):
        years -= 1
    return years


def nth_weekday(year, month, weekday, n):
    if not 0 <= weekday <= 6 or n == 0 or not -5 <= n <= 5:
        raise ValueError("weekday must be 0-6 and n in 1..5 or -5..-1")
    days = calendar.monthrange(year, month)[1]
    matches = [date(year, month, day) for day in range(1, days + 1)
               if date(year, month, day).weekday() == weekday]
    position = n - 1
    if not -len(matches) <= position < len(matches):
        raise ValueError(f"there is no weekday #{n} in {year}-{month:02d}")
    return matches[position]
