import bipartite


def edges_of(graph):
    return {frozenset((u, v)) for u, vs in graph.items() for v in vs}


def assert_odd_cycle(graph, walk):
    assert walk[0] == walk[-1]
    assert (len(walk) - 1) % 2 == 1
    assert len(set(walk[:-1])) == len(walk) - 1
    known = edges_of(graph)
    assert all(frozenset((a, b)) in known for a, b in zip(walk, walk[1:]))


def test_path_is_bipartite():
    graph = {"a": ["b"], "b": ["c"], "c": ["d"]}
    assert bipartite.two_coloring(graph) == {"a": 0, "b": 1, "c": 0, "d": 1}


def test_even_cycle():
    graph = {"a": ["b", "d"], "b": ["c"], "c": ["d"]}
    assert bipartite.is_bipartite(graph) is True
    assert bipartite.odd_cycle(graph) is None


def test_smallest_node_of_each_component_gets_colour_zero():
    graph = {"z": ["y"], "m": ["k"], "q": []}
    assert bipartite.two_coloring(graph) == {"y": 0, "z": 1, "k": 0, "m": 1, "q": 0}


def test_edges_listed_from_one_end_only():
    graph = {"b": ["a"], "c": ["a"], "d": ["b", "c"]}
    assert bipartite.two_coloring(graph) == {"a": 0, "b": 1, "c": 1, "d": 0}


def test_triangle_listed_one_way_is_not_bipartite():
    graph = {"a": [], "b": ["a"], "c": ["b", "a"]}
    assert bipartite.two_coloring(graph) is None


def test_self_loop():
    graph = {"a": ["b"], "x": ["x"]}
    assert bipartite.is_bipartite(graph) is False
    assert bipartite.odd_cycle(graph) == ["x", "x"]


def test_odd_cycle_certificate_triangle():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"]}
    assert_odd_cycle(graph, bipartite.odd_cycle(graph))


def test_odd_cycle_certificate_in_second_component():
    graph = {"a": ["b"], "p": ["q", "t"], "q": ["r"], "r": ["s"], "s": ["t"], "u": ["p"]}
    assert_odd_cycle(graph, bipartite.odd_cycle(graph))
