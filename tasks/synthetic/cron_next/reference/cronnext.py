"""Computing the next time a five-field cron expression fires."""

import re
from datetime import datetime, time, timedelta

_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
_DIGITS = re.compile(r"[0-9]+")
_SEARCH_DAYS = 8 * 366


def _number(text, low, high):
    if not _DIGITS.fullmatch(text):
        raise ValueError(f"not a number: {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{value} is outside {low}-{high}")
    return value


def _field(text, low, high):
    values = set()
    for item in text.split(","):
        base, slash, step_text = item.partition("/")
        step = _number(step_text, 1, 10**6) if slash else 1
        if base == "*":
            first, last = low, high
        elif "-" in base:
            a, b = base.split("-", 1)
            first, last = _number(a, low, high), _number(b, low, high)
            if first > last:
                raise ValueError(f"empty range {base!r}")
        else:
            first = _number(base, low, high)
            last = high if slash else first
        values.update(range(first, last + 1, step))
    return values


def _parse(expr):
    fields = expr.split()
    if len(fields) != 5:
        raise ValueError("a cron expression has five fields")
    minutes, hours, days, months, weekdays = (_field(f, lo, hi) for f, (lo, hi) in zip(fields, _RANGES))
    return minutes, hours, days, months, {d % 7 for d in weekdays}, fields[2] == "*", fields[4] == "*"


def _day_matches(day, days, weekdays, any_day, any_weekday):
    by_date = day.day in days
    by_weekday = (day.weekday() + 1) % 7 in weekdays
    if not any_day and not any_weekday:
        return by_date or by_weekday
    return by_date and by_weekday


def next_run(expr, after):
    minutes, hours, days, months, weekdays, any_day, any_weekday = _parse(expr)
    start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    day = start.date()
    for _ in range(_SEARCH_DAYS):
        if day.month in months and _day_matches(day, days, weekdays, any_day, any_weekday):
            for hour in sorted(hours):
                for minute in sorted(minutes):
                    candidate = datetime.combine(day, time(hour, minute), tzinfo=after.tzinfo)
                    if candidate >= start:
                        return candidate
        day += timedelta(days=1)
    raise ValueError(f"{expr!r} does not fire within {_SEARCH_DAYS} days")
