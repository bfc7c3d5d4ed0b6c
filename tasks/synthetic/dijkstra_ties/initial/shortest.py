"""Dijkstra's algorithm with lexicographic tie-breaking between equally cheap paths."""

import heapq


def _adjacency(edges):
    adjacency = {}
    for u, v, w in edges:
        adjacency.setdefault(u, []).append((v, w))
    return adjacency


def shortest_path(edges, source, target):
    adjacency = _adjacency(edges)
    best = {source: 0}
    previous = {}
    heap = [(0, source)]
    done = set()
    while heap:
        cost, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        for nxt, weight in adjacency.get(node, ()):
            if nxt not in best or cost + weight < best[nxt]:
                best[nxt] = cost + weight
                previous[nxt] = node
                heapq.heappush(heap, (cost + weight, nxt))
    if target not in best:
        return None
    path = [target]
    while path[-1] != source:
        path.append(previous[path[-1]])
    return best[target], path[::-1]


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
