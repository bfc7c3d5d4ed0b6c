import pytest

import shortest


def test_simple_path():
    edges = [("a", "b", 1), ("b", "c", 2), ("a", "c", 5)]
    assert shortest.shortest_path(edges, "a", "c") == (3, ["a", "b", "c"])


def test_unreachable_target():
    assert shortest.shortest_path([("a", "b", 1), ("c", "a", 1)], "a", "c") is None


def test_source_equals_target():
    assert shortest.shortest_path([], "x", "x") == (0, ["x"])


def test_tie_prefers_smaller_path_not_first_found():
    edges = [("S", "B", 1), ("S", "A", 2), ("B", "T", 2), ("A", "T", 1)]
    assert shortest.shortest_path(edges, "S", "T") == (3, ["S", "A", "T"])


def test_tie_decided_late_in_the_path():
    edges = [("S", "B", 1), ("B", "T", 5), ("S", "A", 3), ("A", "T", 3), ("S", "C", 6)]
    assert shortest.shortest_path(edges, "S", "T") == (6, ["S", "A", "T"])


def test_parallel_edges_use_cheapest():
    edges = [("a", "b", 7), ("a", "b", 2), ("b", "c", 1)]
    assert shortest.shortest_path(edges, "a", "c") == (3, ["a", "b", "c"])


def test_non_positive_weights_rejected():
    for bad in (0, -1):
        with pytest.raises(ValueError):
            shortest.shortest_path([("a", "b", 1), ("b", "c", bad)], "a", "b")


def test_distances():
    edges = [("a", "b", 4), ("a", "c", 1), ("c", "b", 2), ("b", "d", 1), ("e", "a", 1)]
    assert shortest.distances(edges, "a") == {"a": 0, "b": 3, "c": 1, "d": 4}
