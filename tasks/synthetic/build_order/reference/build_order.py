"""Deterministic topological ordering of a dependency graph, with cycle reporting."""

import heapq


class CycleError(ValueError):
    def __init__(self, cycle):
        super().__init__("dependency cycle: " + " -> ".join(cycle))
        self.cycle = cycle


def _dependencies(graph):
    nodes = set(graph) | {dep for deps in graph.values() for dep in deps}
    return {node: set(graph.get(node, ())) for node in nodes}


def _find_cycle(deps_of, unplaced):
    node = min(unplaced)
    position = {}
    walk = []
    while node not in position:
        position[node] = len(walk)
        walk.append(node)
        node = min(dep for dep in deps_of[node] if dep in unplaced)
    return walk[position[node]:] + [node]


def build_order(graph):
    deps_of = _dependencies(graph)
    dependents = {node: [] for node in deps_of}
    for node, deps in deps_of.items():
        for dep in deps:
            dependents[dep].append(node)
    waiting = {node: len(deps) for node, deps in deps_of.items()}
    ready = [node for node, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for dependent in dependents[node]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                heapq.heappush(ready, dependent)
    if len(order) < len(deps_of):
        raise CycleError(_find_cycle(deps_of, set(deps_of) - set(order)))
    return order


def affected(graph, changed):
    deps_of = _dependencies(graph)
    unknown = set(changed) - set(deps_of)
    if unknown:
        raise ValueError(f"unknown nodes: {sorted(unknown)}")
    dependents = {node: [] for node in deps_of}
    for node, deps in deps_of.items():
        for dep in deps:
            dependents[dep].append(node)
    reached = set(changed)
    stack = list(changed)
    while stack:
        for dependent in dependents[stack.pop()]:
            if dependent not in reached:
                reached.add(dependent)
                stack.append(dependent)
    return [node for node in build_order(graph) if node in reached]
