import pytest

import intervals


def test_sorted_overlapping():
    assert intervals.merge([(1, 4), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]


def test_nested_interval_absorbed():
    assert intervals.merge([(1, 10), (2, 3)]) == [(1, 10)]


def test_unsorted_input():
    assert intervals.merge([(8, 10), (1, 4), (3, 5)]) == [(1, 5), (8, 10)]


def test_touching_intervals_merge():
    assert intervals.merge([(1, 3), (3, 5)]) == [(1, 5)]


def test_empty_intervals_dropped():
    assert intervals.merge([(2, 2), (5, 7), (9, 9)]) == [(5, 7)]


def test_no_intervals():
    assert intervals.merge([]) == []


def test_invalid_interval_rejected():
    with pytest.raises(ValueError):
        intervals.merge([(1, 2), (5, 3)])


def test_insert_bridges_gap():
    assert intervals.insert([(1, 3), (6, 9)], (2, 7)) == [(1, 9)]


def test_total_length_counts_overlap_once():
    assert intervals.total_length([(0, 5), (3, 8), (10, 12)]) == 10
