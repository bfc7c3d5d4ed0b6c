"""Strongly connected components (iterative Tarjan) and the condensation graph."""


def _nodes(graph):
    return sorted(set(graph) | {w for ws in graph.values() for w in ws})


def strongly_connected_components(graph):
    index, low = {}, {}
    on_stack, stack, components = set(), [], []
    counter = 0

    def enter(node):
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        return node, iter(sorted(graph.get(node, ())))

    for root in _nodes(graph):
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, successors = work[-1]
            descended = False
            for nxt in successors:
                if nxt not in index:
                    work.append(enter(nxt))
                    descended = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return sorted(components, key=lambda c: c[0])


def condensation(graph):
    components = strongly_connected_components(graph)
    where = {node: i for i, component in enumerate(components) for node in component}
    edges = {(where[u], where[v]) for u, vs in graph.items() for v in vs if where[u] != where[v]}
    return components, sorted(edges)


def is_strongly_connected(graph):
    return len(strongly_connected_components(graph)) <= 1
