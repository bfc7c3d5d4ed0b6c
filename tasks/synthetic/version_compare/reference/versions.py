"""Comparison of dotted version strings with optional pre-release tags."""

import functools
import re

_VERSION = re.compile(r"(\d+(?:\.\d+)*)(?:-([0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*))?")


def _parse(version):
    match = _VERSION.fullmatch(version)
    if not match:
        raise ValueError(f"invalid version {version!r}")
    numbers = [int(part) for part in match.group(1).split(".")]
    return numbers, match.group(2)


def _sign(a, b):
    return (a > b) - (a < b)


def _compare_identifiers(x, y):
    if x.isdigit() and y.isdigit():
        return _sign(int(x), int(y))
    if x.isdigit() or y.isdigit():
        return -1 if x.isdigit() else 1
    return _sign(x, y)


def _compare_tags(a, b):
    if a is None or b is None:
        return _sign(a is None, b is None)
    left, right = a.split("."), b.split(".")
    for x, y in zip(left, right):
        result = _compare_identifiers(x, y)
        if result:
            return result
    return _sign(len(left), len(right))


def compare(a, b):
    numbers_a, tag_a = _parse(a)
    numbers_b, tag_b = _parse(b)
    width = max(len(numbers_a), len(numbers_b))
    numbers_a += [0] * (width - len(numbers_a))
    numbers_b += [0] * (width - len(numbers_b))
    return _sign(numbers_a, numbers_b) or _compare_tags(tag_a, tag_b)


def sort_versions(versions):
    return sorted(versions, key=functools.cmp_to_key(compare))
