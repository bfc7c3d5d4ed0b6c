import scc


def test_single_cycle():
    assert scc.strongly_connected_components({"a": ["b"], "b": ["c"], "c": ["a"]}) == [["a", "b", "c"]]


def test_two_cycles_joined_one_way():
    graph = {"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c"]}
    assert scc.strongly_connected_components(graph) == [["a", "b"], ["c", "d"]]


def test_successor_only_nodes_included():
    assert scc.strongly_connected_components({"a": ["x"]}) == [["a"], ["x"]]


def test_cross_edge_into_finished_component():
    graph = {"a": ["b", "c"], "c": ["b"]}
    assert scc.strongly_connected_components(graph) == [["a"], ["b"], ["c"]]


def test_cross_edges_do_not_merge_components():
    graph = {"r": ["m", "q"], "m": ["n"], "n": ["m"], "q": ["p"], "p": ["q", "n"]}
    assert scc.strongly_connected_components(graph) == [["m", "n"], ["p", "q"], ["r"]]


def test_long_chain_and_long_cycle():
    names = [f"n{i:05d}" for i in range(10000)]
    chain = {a: [b] for a, b in zip(names, names[1:])}
    assert scc.strongly_connected_components(chain) == [[n] for n in names]
    cycle = dict(chain, **{names[-1]: [names[0]]})
    assert scc.is_strongly_connected(cycle) is True


def test_condensation():
    graph = {"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c", "e"], "a2": ["a", "e"]}
    components, edges = scc.condensation(graph)
    assert components == [["a", "b"], ["a2"], ["c", "d"], ["e"]]
    assert edges == [(0, 2), (1, 0), (1, 3), (2, 3)]


def test_is_strongly_connected():
    assert scc.is_strongly_connected({}) is True
    assert scc.is_strongly_connected({"a": ["b"]}) is False
