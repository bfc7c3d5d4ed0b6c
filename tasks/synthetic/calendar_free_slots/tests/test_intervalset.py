import pytest

import intervalset as iv


def test_normalize():
    assert iv.normalize([(5, 7), (1, 3), (3, 4), (6, 9), (10, 10)]) == [(1, 4), (5, 9)]
    with pytest.raises(ValueError):
        iv.normalize([(3, 1)])


def test_union_and_intersect():
    a, b = [(0, 5), (10, 15)], [(3, 12)]
    assert iv.union(a, b) == [(0, 15)]
    assert iv.intersect(a, b) == [(3, 5), (10, 12)]
    assert iv.intersect([(0, 2)], [(2, 4)]) == []


def test_subtract_from_the_edges():
    assert iv.subtract([(0, 10)], [(0, 3)]) == [(3, 10)]
    assert iv.subtract([(0, 10)], [(8, 12)]) == [(0, 8)]


def test_subtract_splits_interval():
    assert iv.subtract([(0, 10)], [(2, 3), (5, 7)]) == [(0, 2), (3, 5), (7, 10)]


def test_subtract_spanning_several_intervals():
    assert iv.subtract([(0, 4), (6, 10), (12, 20)], [(3, 7), (15, 16)]) == [(0, 3), (7, 10), (12, 15), (16, 20)]


def test_subtract_everything_or_nothing():
    assert iv.subtract([(1, 5)], [(0, 9)]) == []
    assert iv.subtract([(1, 5)], []) == [(1, 5)]
