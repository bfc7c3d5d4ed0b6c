import pytest

import mst


def test_union_find_basics():
    sets = mst.UnionFind("abcd")
    assert sets.union("a", "b") is True
    assert sets.union("c", "d") is True
    assert sets.connected("a", "b") and not sets.connected("a", "c")
    assert sets.components == 2


def test_union_of_connected_items_changes_nothing():
    sets = mst.UnionFind("abc")
    sets.union("a", "b")
    assert sets.union("b", "a") is False
    assert sets.components == 2


def test_tree_input():
    edges = [("a", "b", 1), ("b", "c", 2), ("c", "d", 3)]
    assert mst.minimum_spanning_forest("abcd", edges) == (6, edges)


def test_cycle_edge_is_skipped():
    edges = [("a", "b", 1), ("b", "c", 2), ("a", "c", 3)]
    assert mst.minimum_spanning_forest("abc", edges) == (3, [("a", "b", 1), ("b", "c", 2)])


def test_ties_are_ordered_by_endpoints():
    edges = [("c", "d", 1), ("a", "b", 1), ("b", "c", 2), ("a", "d", 2)]
    assert mst.minimum_spanning_forest("abcd", edges) == (4, [("a", "b", 1), ("c", "d", 1), ("a", "d", 2)])


def test_edges_are_normalised_and_self_loops_ignored():
    assert mst.minimum_spanning_forest("ab", [("b", "b", 0), ("b", "a", 5)]) == (5, [("a", "b", 5)])


def test_forest_and_components():
    nodes = ["a", "b", "c", "d", "e"]
    edges = [("a", "b", 2), ("c", "d", 1)]
    assert mst.minimum_spanning_forest(nodes, edges) == (3, [("c", "d", 1), ("a", "b", 2)])
    assert mst.count_components(nodes, edges) == 3


def test_components_with_redundant_edges():
    edges = [("a", "b", 1), ("b", "a", 1), ("a", "b", 7), ("c", "c", 1)]
    assert mst.count_components("abc", edges) == 2


def test_unknown_endpoint():
    with pytest.raises(ValueError):
        mst.minimum_spanning_forest("ab", [("a", "z", 1)])
