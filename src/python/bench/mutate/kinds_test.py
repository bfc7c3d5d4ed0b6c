"""A name used against its kind, before and after a wrong-variable mutant."""

from __future__ import annotations

import ast

import pytest

from bench.mutate.anomalies import added_anomaly
from bench.mutate.kinds import misused_kinds

FILE = '''def chunked(iterable, n, func, factory):
    if n < 1:
        raise ValueError(n)
    rv = factory()
    for item in iterable:
        rv[item] = func(item)
    return rv, len(rv) % n
'''


@pytest.mark.parametrize("old, new, misused", [
    ("if n < 1", "if iterable < 1", True),          # an iterable compared with a number
    ("rv[item] = func", "factory[item] = func", True),  # a callable indexed
    ("len(rv)", "len(func)", True),                  # a callable counted
    ("if n < 1", "if n < 2", False),                 # a wrong bound: reasoning
    ("len(rv)", "len(iterable)", False),             # the wrong collection, but a collection
])
def test_a_wrong_variable_of_the_wrong_kind(old, new, misused):
    assert misused_kinds(ast.parse(FILE)) == 0
    start = FILE.index(old)
    verdict = added_anomaly(FILE.encode(), start, start + len(old), new)
    assert (verdict == "a value used against its kind") is misused
