import pytest

import build_order as bo


def test_chain():
    assert bo.build_order({"c": ["b"], "b": ["a"], "a": []}) == ["a", "b", "c"]


def test_ready_nodes_taken_alphabetically():
    graph = {"app": ["lib", "core"], "lib": [], "core": [], "zeta": []}
    assert bo.build_order(graph) == ["core", "lib", "app", "zeta"]


def test_dependency_only_nodes_are_included():
    graph = {"app": ["lib"], "lib": ["core", "six"]}
    assert bo.build_order(graph) == ["core", "six", "lib", "app"]


def test_cycle_reported_from_smallest_node():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    with pytest.raises(bo.CycleError) as info:
        bo.build_order(graph)
    assert info.value.cycle == ["a", "b", "c", "a"]


def test_cycle_not_containing_smallest_unplaced_node():
    graph = {"a": ["z"], "z": ["y"], "y": ["z"], "b": []}
    with pytest.raises(bo.CycleError) as info:
        bo.build_order(graph)
    assert info.value.cycle == ["z", "y", "z"]


def test_self_dependency_and_error_type():
    with pytest.raises(ValueError) as info:
        bo.build_order({"x": ["x"]})
    assert info.value.cycle == ["x", "x"]


def test_affected_in_build_order():
    graph = {"app": ["lib"], "lib": ["core"], "tool": ["core"], "docs": []}
    assert bo.affected(graph, {"lib"}) == ["lib", "app"]
    assert bo.affected(graph, {"core"}) == ["core", "lib", "app", "tool"]


def test_affected_unknown_node():
    with pytest.raises(ValueError):
        bo.affected({"a": []}, {"b"})
