"""Mean, median, mode and population variance."""

from collections import Counter


def _require(xs):
    if len(xs) == 0:
        raise ValueError("empty data")


def mean(xs):
    _require(xs)
    return sum(xs) / len(xs)


def median(xs):
    _require(xs)
    ordered = sorted(xs)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def mode(xs):
    _require(xs)
    counts = Counter(xs)
    top = max(counts.values())
    return min(value for value, count in counts.items() if count == top)


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)
