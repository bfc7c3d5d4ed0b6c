"""Two-colouring of undirected graphs and odd-cycle certificates."""

from collections import deque


def _adjacency(graph):
    adjacency = {}
    for node, neighbours in graph.items():
        adjacency.setdefault(node, set()).update(neighbours)
        for other in neighbours:
            adjacency.setdefault(other, set())
    return adjacency


def _bfs_forest(adjacency):
    colour, parent, depth = {}, {}, {}
    for root in adjacency:
        if root in colour:
            continue
        colour[root], parent[root], depth[root] = 0, None, 0
        queue = deque([root])
        while queue:
            node = queue.popleft()
            for other in sorted(adjacency[node]):
                if other not in colour:
                    colour[other] = 1 - colour[node]
                    parent[other] = node
                    depth[other] = depth[node] + 1
                    queue.append(other)
    return colour, parent, depth


def _conflict(adjacency, colour):
    for node in sorted(adjacency):
        for other in sorted(adjacency[node]):
            if colour[node] == colour[other]:
                return node, other
    return None


def two_coloring(graph):
    adjacency = _adjacency(graph)
    colour, _, _ = _bfs_forest(adjacency)
    return None if _conflict(adjacency, colour) else colour


def is_bipartite(graph):
    return two_coloring(graph) is not None


def odd_cycle(graph):
    adjacency = _adjacency(graph)
    colour, parent, depth = _bfs_forest(adjacency)
    edge = _conflict(adjacency, colour)
    if edge is None:
        return None
    u, v = edge
    if u == v:
        return [u, u]
    left, right = [u], [v]
    while left[-1] != right[-1]:
        if depth[left[-1]] >= depth[right[-1]]:
            left.append(parent[left[-1]])
        else:
            right.append(parent[right[-1]])
    return left + right[-2::-1]
