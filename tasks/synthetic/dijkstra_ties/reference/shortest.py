"""Dijkstra's algorithm with lexicographic tie-breaking between equally cheap paths."""

import heapq


def _adjacency(edges):
    adjacency = {}
    for u, v, w in edges:
        if not w > 0:
            raise ValueError(f"edge {u}->{v} has non-positive weight {w}")
        adjacency.setdefault(u, []).append((v, w))
    return adjacency


def shortest_path(edges, source, target):
    adjacency = _adjacency(edges)
    # Heap entries compare by cost, then by the path itself: the first time a node is popped it is
    # reached by its cheapest path, and among those by the lexicographically smallest one (weights > 0).
    heap = [(0, [source])]
    done = set()
    while heap:
        cost, path = heapq.heappop(heap)
        node = path[-1]
        if node in done:
            continue
        done.add(node)
        if node == target:
            return cost, path
        for nxt, weight in adjacency.get(node, ()):
            if nxt not in done:
                heapq.heappush(heap, (cost + weight, path + [nxt]))
    return None


def distances(edges, source):
    adjacency = _adjacency(edges)
    best = {source: 0}
    heap = [(0, source)]
    while heap:
        cost, node = heapq.heappop(heap)
        if cost > best[node]:
            continue
        for nxt, weight in adjacency.get(node, ()):
            if nxt not in best or cost + weight < best[nxt]:
                best[nxt] = cost + weight
                heapq.heappush(heap, (cost + weight, nxt))
    return best
