"""Swapped arguments a reader knows the order of, against swaps only the callee's signature shows."""

from __future__ import annotations

import ast

import pytest

from bench.mutate.anomalies import added_anomaly
from bench.mutate.known_order import swapped_known_order

FILE = '''import re
from datetime import date

from .helpers import rowfmt


def check(name, key, value, cache, cells, widths, aligns, year, month, day, major, minor):
    if isinstance(name, tuple):
        cache.setdefault(key, value)
    found = re.match(PATTERN, name)
    made = date.__new__(cls, year, month, day)
    line = rowfmt(cells, widths, aligns)
    version = make(major, minor)
    return found, made, line, version, filter(None, cells)
'''


@pytest.mark.parametrize("old, new, known", [
    ("isinstance(name, tuple)", "isinstance(tuple, name)", True),       # a builtin
    ("re.match(PATTERN, name)", "re.match(name, PATTERN)", True),       # the standard library
    ("date.__new__(cls, year, month, day)", "date.__new__(cls, year, day, month)", True),  # imported from it
    ("cache.setdefault(key, value)", "cache.setdefault(value, key)", True),  # a builtin type's method
    ("make(major, minor)", "make(minor, major)", True),                 # a conventional pair
    ("rowfmt(cells, widths, aligns)", "rowfmt(cells, aligns, widths)", False),  # the library's own helper
])
def test_a_swap_in_a_call_whose_order_every_reader_knows(old, new, known):
    before, after = ast.parse(FILE), ast.parse(FILE.replace(old, new))
    assert swapped_known_order(before, after) is known
    start = FILE.index(old)
    verdict = added_anomaly(FILE.encode(), start, start + len(old), new)
    assert (verdict == "arguments whose order every reader knows") is known


def test_an_unchanged_file_swaps_nothing():
    assert swapped_known_order(ast.parse(FILE), ast.parse(FILE)) is False
