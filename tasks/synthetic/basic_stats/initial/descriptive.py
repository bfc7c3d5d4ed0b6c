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
    mid = len(xs) // 2
    if len(xs) % 2:
        return xs[mid]
    return (xs[mid - 1] + xs[mid]) / 2


def mode(xs):
    _require(xs)
    return Counter(xs).most_common(1)[0][0]


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)
