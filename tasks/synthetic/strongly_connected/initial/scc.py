"""Strongly connected components (Tarjan) and the condensation graph."""


def _nodes(graph):
    return sorted(set(graph) | {w for ws in graph.values() for w in ws})


def strongly_connected_components(graph):
    index, low = {}, {}
    stack, components = [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            else:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for root in _nodes(graph):
        if root not in index:
            visit(root)
    return sorted(components, key=lambda c: c[0])


def condensation(graph):
    components = strongly_connected_components(graph)
    where = {node: i for i, component in enumerate(components) for node in component}
    edges = {(where[u], where[v]) for u, vs in graph.items() for v in vs if where[u] != where[v]}
    return components, sorted(edges)


def is_strongly_connected(graph):
    return len(strongly_connected_components(graph)) <= 1
